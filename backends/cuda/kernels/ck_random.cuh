// ck_random.cuh: uniform, normal and Bernoulli draws from Philox4x32-10 (Salmon et al., "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011; the generator curand and PyTorch's CUDA kernels
// use). Element i takes the first two 32-bit words of the block for counter offset + i under the
// key seed: a float uniform from the first (24 bits), a double from both (53 bits), a normal by
// Box-Muller from both.

__device__ static inline void philox_round(uint32_t c[4], uint32_t k0, uint32_t k1) {
    const uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
    uint64_t p0 = (uint64_t)M0 * c[0], p1 = (uint64_t)M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
}

__device__ static inline void philox(uint64_t counter, uint64_t seed, uint32_t out[2]) {
    const uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    uint32_t c[4] = {(uint32_t)counter, (uint32_t)(counter >> 32), 0, 0};
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        if (r) {
            k0 += W0;
            k1 += W1;
        }
        philox_round(c, k0, k1);
    }
    out[0] = c[0];
    out[1] = c[1];
}

template <typename T> __device__ static inline void random_loop(const ck_random_args &a) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        uint32_t w[2];
        philox(a.offset + (uint64_t)i, a.seed, w);
        // [0, 1): 24 bits for float, 53 for double
        double u = sizeof(T) == 4 ? (double)(w[0] >> 8) * (1.0 / 16777216.0)
                                  : (double)(((uint64_t)w[0] << 21) ^ (w[1] >> 11)) *
                                        (1.0 / 9007199254740992.0);
        T v;
        if (a.op == CK_UNIFORM) {
            v = (T)(a.a + u * a.b);
        } else if (a.op == CK_NORMAL) {
            double u1 = ((double)w[0] + 1.0) * (1.0 / 4294967296.0),
                   u2 = (double)w[1] * (1.0 / 4294967296.0);
            v = (T)(a.a + a.b * sqrt(-2.0 * log(u1)) * cos(6.283185307179586477 * u2));
        } else {
            double p = a.op == CK_BERNOULLI ? a.a : (double)load<double>(a.p, i);
            v = (T)(u < p);
        }
        store<T>(a.out, i, v);
        // a uniform draw rounded up to `to` in a narrow dtype (float16: 11 bits) becomes `from`,
        // so draws stay in [from, to)
        if (a.op == CK_UNIFORM && a.b > 0 && load<double>(a.out, i) >= a.a + a.b)
            store<T>(a.out, i, (T)a.a);
    }
}

CK_KERNEL(ck_random_f32, ck_random_args) {
    random_loop<float>(a);
}
CK_KERNEL(ck_random_f64, ck_random_args) {
    random_loop<double>(a);
}
