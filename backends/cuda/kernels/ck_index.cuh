// ck_index.cuh: gather, scatter_ (a tensor or a scalar source) and scatter_add_ along one
// dimension, or only a check of the index: one thread per element of the index. An index outside
// [0, dim_size) is not used: the first one seen is recorded in the status words, which the host
// reads after the launch. scatter_add_ adds atomically, so repeated indices sum as on the CPU (in
// an unspecified order).

__device__ static inline void record_bad(const ck_index_args &a, int64_t v) {
    unsigned long long *st = (unsigned long long *)(uintptr_t)a.status;
    if (atomicCAS(st, 0ULL, 1ULL) == 0ULL) st[1] = (unsigned long long)v;
}

template <typename T> __device__ static inline void index_loop(const ck_index_args &a) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < a.n; k += step) {
        int64_t io = 0, so = 0, oo = 0, rest = k;
        for (int d = a.ndim - 1; d >= 0; d--) {
            int64_t i = rest % a.sizes[d];
            rest /= a.sizes[d];
            io += i * a.index.strides[d];
            oo += i * a.other.strides[d];
            if (d != a.dim) so += i * a.self.strides[d];
        }
        int64_t v = load<int64_t>(a.index, io);
        if (v < 0 || v >= a.dim_size) {
            record_bad(a, v);
            continue;
        }
        so += v * (a.ndim ? a.self.strides[a.dim] : 0);
        switch (a.op) {
        case CK_GATHER:
            store<T>(a.other, oo, load<T>(a.self, so));
            break;
        case CK_SCATTER:
            store<T>(a.self, so, load<T>(a.other, oo));
            break;
        case CK_SCATTER_VALUE:
            store<T>(a.self, so, (T)a.value);
            break;
        case CK_INDEX_CHECK: // only the range above
            break;
        default:
            add_at<T>(a.self, so, load<T>(a.other, oo));
        }
    }
}

CK_KERNEL(ck_index_f64, ck_index_args) {
    index_loop<double>(a);
}
CK_KERNEL(ck_index_i64, ck_index_args) {
    index_loop<int64_t>(a);
}
