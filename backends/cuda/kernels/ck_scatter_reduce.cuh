// ck_scatter_reduce.cuh: scatter_reduce along one dimension, a thread per element of the result
// (which holds self's values): it walks the index along the dimension at its own other
// coordinates and takes each source value whose index names it, in the index's order, into an
// accumulator (double for the floating dtypes, int64 for the others) that starts from its own
// value (include_self) or from the first contribution. No atomics, so every dtype and reduction
// works the same way and the result is the CPU's, rounding included. The host checked the index.

template <typename T> __device__ static inline T sr_combine(int op, bool boolean, T acc, T x) {
    if (boolean) // sum and amax are 'or', prod and amin are 'and'
        return (op == CK_SR_PROD || op == CK_SR_AMIN) ? (T)(acc != (T)0 && x != (T)0)
                                                      : (T)(acc != (T)0 || x != (T)0);
    switch (op) {
    case CK_SR_PROD:
        return acc * x;
    case CK_SR_AMAX: // NaN wins, as in max
        return x > acc || is_nan(x) ? x : acc;
    case CK_SR_AMIN:
        return x < acc || is_nan(x) ? x : acc;
    default:
        return acc + x;
    }
}

// the mean of an integer sum rounds down, as PyTorch's
__device__ static inline double sr_mean(double acc, int64_t n) {
    return acc / (double)n;
}
__device__ static inline int64_t sr_mean(int64_t acc, int64_t n) {
    int64_t q = acc / n;
    return acc % n != 0 && (acc < 0) != (n < 0) ? q - 1 : q;
}

template <typename T>
__device__ static inline void scatter_reduce_loop(const ck_scatter_reduce_args &a) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    bool boolean = a.out.dtype == CK_BOOL;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < a.n; t += step) {
        int64_t io = 0, so = 0, rest = t, j = 0;
        bool reached = true; // the index covers t's other coordinates
        for (int d = a.ndim - 1; d >= 0; d--) {
            int64_t i = rest % a.sizes[d];
            rest /= a.sizes[d];
            if (d == a.dim) {
                j = i;
                continue;
            }
            reached = reached && i < a.isizes[d];
            io += i * a.index.strides[d];
            so += i * a.src.strides[d];
        }
        if (!reached) continue;
        int64_t len = a.ndim ? a.isizes[a.dim] : 1, istep = a.ndim ? a.index.strides[a.dim] : 0,
                sstep = a.ndim ? a.src.strides[a.dim] : 0, count = 0;
        T acc = a.include_self ? load<T>(a.out, t) : (T)0;
        for (int64_t q = 0; q < len; q++) {
            if (load<int64_t>(a.index, io + q * istep) != j) continue;
            T x = load<T>(a.src, so + q * sstep);
            acc = count == 0 && !a.include_self ? x : sr_combine<T>(a.op, boolean, acc, x);
            count++;
        }
        if (count == 0) continue;
        if (a.op == CK_SR_MEAN && !boolean) // a bool mean is the 'or' of its sum
            acc = sr_mean(acc, count + (a.include_self ? 1 : 0));
        store<T>(a.out, t, acc);
    }
}

CK_KERNEL(ck_scatter_reduce_f64, ck_scatter_reduce_args) {
    scatter_reduce_loop<double>(a);
}
CK_KERNEL(ck_scatter_reduce_i64, ck_scatter_reduce_args) {
    scatter_reduce_loop<int64_t>(a);
}
