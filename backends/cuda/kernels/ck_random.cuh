// ck_random.cuh: the draws from Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy
// as 1, 2, 3", SC 2011; the generator curand and PyTorch's CUDA kernels use). Element i takes the
// first two 32-bit words of the block for counter offset + i under the key seed: a float uniform
// from the first (24 bits), a double from both (53 bits), a normal by Box-Muller from both, an
// integer from the first or both. Samplers that need more draws take sub-stream 1, 2, ... of the
// same counter (the block's third word), so elements never share numbers. The distributions'
// formulas and algorithms are the CPU's (backends/cpu/cpu_random.c): inversion for exponential,
// Cauchy and geometric, Hoermann's PTRS for poisson, BTRS and geometric gaps for binomial;
// multinomial searches each row's normalised running sums.

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

__device__ static inline void philox(uint64_t counter, uint64_t seed, uint32_t out[2],
                                     uint32_t sub = 0) {
    const uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    uint32_t c[4] = {(uint32_t)counter, (uint32_t)(counter >> 32), sub, 0};
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

// a double in [0, 1) of 53 bits from sub-stream `sub` of counter c
__device__ static inline double u53(const ck_random_args &a, uint64_t c, uint32_t sub) {
    uint32_t w[2];
    philox(c, a.seed, w, sub);
    return (double)(((uint64_t)w[0] << 21) ^ (w[1] >> 11)) * (1.0 / 9007199254740992.0);
}

// a standard normal by Box-Muller from the two words
__device__ static inline double box_muller(const uint32_t w[2]) {
    double u1 = ((double)w[0] + 1.0) * (1.0 / 4294967296.0),
           u2 = (double)w[1] * (1.0 / 4294967296.0);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586477 * u2);
}

// poisson(lambda): PTRS from 10 on (Hoermann 1993), below it uniforms multiplied until their
// product falls under e^-lambda
__device__ static inline double poisson_draw(const ck_random_args &a, uint64_t c, double lambda) {
    uint32_t sub = 0;
    if (lambda >= 10) {
        double slam = sqrt(lambda), loglam = log(lambda);
        double b = 0.931 + 2.53 * slam, aa = -0.059 + 0.02483 * b;
        double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
        for (;;) {
            double u = u53(a, c, sub++) - 0.5, v = u53(a, c, sub++), us = 0.5 - fabs(u);
            double k = floor((2 * aa / us + b) * u + lambda + 0.43);
            if (us >= 0.07 && v <= vr) return k;
            if (k < 0 || (us < 0.013 && v > us)) continue;
            if (log(v) + log(invalpha) - log(aa / (us * us) + b) <=
                -lambda + k * loglam - lgamma(k + 1))
                return k;
        }
    }
    if (lambda == 0) return 0;
    double limit = exp(-lambda), prod = 1.0, n = 0;
    for (;;) {
        prod *= u53(a, c, sub++);
        if (!(prod > limit)) return n;
        n++;
    }
}

// log k! less its Stirling approximation
__device__ static inline double stirling_tail(double k) {
    const double small[10] = {0.0810614667953272,  0.0413406959554092, 0.0276779256849983,
                              0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                              0.0118967099458917,  0.0104112652619720, 0.00925546218271273,
                              0.00833056343336287};
    if (k <= 9) return small[(int)k];
    double kp1sq = (k + 1) * (k + 1);
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// binomial(count, prob <= 0.5): BTRS (Hoermann) when count * prob >= 10, else the sum of
// geometric gaps
__device__ static inline double binomial_half(const ck_random_args &a, uint64_t c, double count,
                                              double prob) {
    uint32_t sub = 0;
    if (count * prob < 10) {
        double sum = 0, logq = log1p(-prob), n = 0;
        for (;;) {
            sum += ceil(log(u53(a, c, sub++)) / logq);
            if (sum > count) return n;
            n++;
        }
    }
    double sd = sqrt(count * prob * (1 - prob));
    double b = 1.15 + 2.53 * sd, aa = -0.0873 + 0.0248 * b + 0.01 * prob;
    double cc = count * prob + 0.5, vr = 0.92 - 4.2 / b, r = prob / (1 - prob);
    double alpha = (2.83 + 5.1 / b) * sd, m = floor((count + 1) * prob);
    for (;;) {
        double u = u53(a, c, sub++) - 0.5, v = u53(a, c, sub++), us = 0.5 - fabs(u);
        double k = floor((2 * aa / us + b) * u + cc);
        if (k < 0 || k > count) continue;
        if (us >= 0.07 && v <= vr) return k;
        v = log(v * alpha / (aa / (us * us) + b));
        double bound = (m + 0.5) * log((m + 1) / (r * (count - m + 1))) +
                       (count + 1) * log((count - m + 1) / (count - k + 1)) +
                       (k + 0.5) * log(r * (count - k + 1) / (k + 1)) + stirling_tail(m) +
                       stirling_tail(count - m) - stirling_tail(k) - stirling_tail(count - k);
        if (v <= bound) return k;
    }
}

__device__ static inline double binomial_draw(const ck_random_args &a, uint64_t c, double count,
                                              double prob) {
    if (count <= 0.0 || prob <= 0.0) return 0;
    if (prob >= 1.0) return count;
    if (count != count) return count; // NaN: the samplers' loops would never end (cpu_random.c)
    if (prob <= 0.5) return binomial_half(a, c, count, prob);
    if (prob > 0.5) return count - binomial_half(a, c, count, 1.0 - prob);
    return prob; // NaN
}

template <typename T> __device__ static inline void random_loop(const ck_random_args &a) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        uint64_t c = a.offset + (uint64_t)i;
        uint32_t w[2];
        philox(c, a.seed, w);
        // [0, 1): 24 bits for float, 53 for double
        double u = sizeof(T) == 4 ? (double)(w[0] >> 8) * (1.0 / 16777216.0)
                                  : (double)(((uint64_t)w[0] << 21) ^ (w[1] >> 11)) *
                                        (1.0 / 9007199254740992.0);
        double u64 = (double)(((uint64_t)w[0] << 21) ^ (w[1] >> 11)) * (1.0 / 9007199254740992.0);
        T v;
        switch (a.op) {
        case CK_UNIFORM:
            v = (T)(a.a + u * a.b);
            break;
        case CK_NORMAL:
            v = (T)(a.a + a.b * box_muller(w));
            break;
        case CK_BERNOULLI:
        case CK_BERNOULLI_TENSOR: {
            double p = a.op == CK_BERNOULLI ? a.a : (double)load<double>(a.p, i);
            v = (T)(u < p);
            break;
        }
        case CK_EXPONENTIAL:
            v = (T)(-1.0 / a.a * log(1.0 - u64));
            break;
        case CK_CAUCHY:
            v = (T)fma(a.b, tan(3.141592653589793 * (u64 - 0.5)), a.a);
            break;
        case CK_LOG_NORMAL:
            v = (T)exp(fma(box_muller(w), a.b, a.a));
            break;
        case CK_GEOMETRIC:
            v = (T)ceil(log(u64) / a.b);
            break;
        case CK_RANDOM_INT: { // an integer, stored as the CPU does (one rounding to a float)
            uint64_t bits = a.wide || a.range == 0 ? (uint64_t)w[0] << 32 | w[1] : w[0];
            store<int64_t>(a.out, i, (int64_t)(a.range ? bits % a.range + (uint64_t)a.from : bits));
            continue;
        }
        case CK_POISSON: {
            double lambda = load<double>(a.p, i);
            if (!(lambda >= 0)) {
                *(unsigned long long *)(uintptr_t)a.status = 1ULL;
                continue;
            }
            v = (T)poisson_draw(a, c, lambda);
            break;
        }
        default:
            v = (T)binomial_draw(a, c, load<double>(a.count, i), load<double>(a.p, i));
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

// multinomial's row pass: the running sums of a row (float or double, as the CPU) divided by
// their total, or the row's first fault in its status word
__device__ static inline void multinomial_row(const ck_multinomial_args &a, int64_t row) {
    int64_t *status = (int64_t *)(uintptr_t)a.status;
    double *cum = (double *)(uintptr_t)a.cum.ptr + row * a.ncat;
    double sum = 0;
    float fsum = 0;
    for (int64_t j = 0; j < a.ncat; j++) {
        double v = load<double>(a.probs, row * a.ncat + j);
        if (!(v >= 0)) { // NaN too
            status[row] = CK_MULTI_NEGATIVE;
            return;
        }
        if (v - v != 0) {
            status[row] = CK_MULTI_INFINITE;
            return;
        }
        if (a.as_float) {
            fsum += (float)v;
            cum[j] = fsum;
        } else {
            sum += v;
            cum[j] = sum;
        }
    }
    if (a.as_float) sum = fsum;
    if (!(sum > 0)) {
        status[row] = CK_MULTI_ZERO_SUM;
        return;
    }
    for (int64_t j = 0; j < a.ncat; j++)
        cum[j] = a.as_float ? (double)((float)cum[j] / fsum) : cum[j] / sum;
    status[row] = CK_MULTI_OK;
}

CK_KERNEL(ck_multinomial, ck_multinomial_args) {
    int64_t step = (int64_t)gridDim.x * blockDim.x,
            n = a.op == CK_MULTI_ROWS ? a.rows : a.rows * a.k;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += step) {
        if (a.op == CK_MULTI_ROWS) {
            multinomial_row(a, t);
            continue;
        }
        // sample t: the first category whose running sum reaches a uniform (the last one's is 1)
        uint32_t w[2];
        philox(a.offset + (uint64_t)t, a.seed, w);
        double u = (double)(((uint64_t)w[0] << 21) ^ (w[1] >> 11)) * (1.0 / 9007199254740992.0);
        const double *cum = (const double *)(uintptr_t)a.cum.ptr + t / a.k * a.ncat;
        int64_t lo = 0, hi = a.ncat;
        while (hi > lo) {
            int64_t mid = lo + (hi - lo) / 2;
            if (mid < a.ncat - 1 && cum[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        store<int64_t>(a.out, t, lo);
    }
}
