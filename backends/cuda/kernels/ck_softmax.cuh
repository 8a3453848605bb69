// ck_softmax.cuh: softmax and log_softmax along one dimension (and the scans: cumsum, cumprod,
// logcumsumexp, cummax and cummin, one pass): one thread per row (a position
// of the other dimensions), three passes over the row (its largest value, the sum of the
// exponentials relative to it, the results), in float for the half types as PyTorch computes.

// PyTorch's _log_add_exp_helper (x the new element, y the running value): NaN propagates, and
// two equal infinities stay themselves rather than giving inf - inf
template <typename T> __device__ static inline T log_add_exp(T x, T y) {
    T lo = is_nan(y) ? y : (y < x ? y : x), hi = is_nan(y) ? y : (x < y ? y : x);
    if (lo != hi || lo - lo == (T)0) return hi + m_log1p(m_exp(lo - hi)); // lo - lo: finite
    return x;
}

// the scans of one row, in order: each value depends on every one before it
template <typename T>
__device__ static inline void scan_row(const ck_softmax_args &a, int64_t in0, int64_t out0,
                                       int64_t idx0) {
    if (a.mode == CK_CUMMAX || a.mode == CK_CUMMIN) {
        // the CPU's rule: a NaN, or a value at least as large (small) as the best, takes over,
        // so ties and NaN give the last position; once a NaN leads, only a later NaN replaces it
        bool is_max = a.mode == CK_CUMMAX;
        T best = 0;
        int64_t at = 0;
        for (int64_t j = 0; j < a.len; j++) {
            T v = load<T>(a.in, in0 + j * a.in_step);
            if (j == 0 || is_nan(v) || (!is_nan(best) && (is_max ? v >= best : v <= best)))
                best = v, at = j;
            store<T>(a.out, out0 + j * a.out_step, best);
            store<int64_t>(a.idx, idx0 + j * a.idx_step, at);
        }
        return;
    }
    T acc = a.mode == CK_CUMSUM ? (T)0 : a.mode == CK_CUMPROD ? (T)1 : extremes<T>::lowest();
    for (int64_t j = 0; j < a.len; j++) {
        T v = load<T>(a.in, in0 + j * a.in_step);
        acc = a.mode == CK_CUMSUM ? acc + v : a.mode == CK_CUMPROD ? acc * v : log_add_exp(v, acc);
        store<T>(a.out, out0 + j * a.out_step, acc);
    }
}

template <typename T> __device__ static inline void softmax_loop(const ck_softmax_args &a) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; row < a.rows; row += step) {
        int64_t in0 = 0, out0 = 0, idx0 = 0, rest = row;
        for (int d = a.kdim - 1; d >= 0; d--) {
            int64_t i = rest % a.ksizes[d];
            rest /= a.ksizes[d];
            in0 += i * a.in.strides[d];
            out0 += i * a.out.strides[d];
            idx0 += i * a.idx.strides[d];
        }
        if (a.mode >= CK_CUMSUM) { // the scans, in the compute type
            scan_row<T>(a, in0, out0, idx0);
            continue;
        }
        T mx = extremes<T>::lowest();
        for (int64_t j = 0; j < a.len; j++) {
            T v = load<T>(a.in, in0 + j * a.in_step);
            mx = is_nan(mx) ? mx : is_nan(v) || v > mx ? v : mx;
        }
        if (mx == extremes<T>::lowest()) mx = (T)0; // a row of -inf: exp(-inf - 0) = 0
        T sum = 0;
        for (int64_t j = 0; j < a.len; j++) sum += m_exp(load<T>(a.in, in0 + j * a.in_step) - mx);
        T lsum = m_log(sum);
        for (int64_t j = 0; j < a.len; j++) {
            T v = load<T>(a.in, in0 + j * a.in_step) - mx;
            store<T>(a.out, out0 + j * a.out_step,
                     a.mode == CK_LOG_SOFTMAX ? v - lsum : m_exp(v) / sum);
        }
    }
}

CK_KERNEL(ck_softmax_f32, ck_softmax_args) {
    softmax_loop<float>(a);
}
CK_KERNEL(ck_softmax_i64, ck_softmax_args) { // the scans of integers and bool
    softmax_loop<int64_t>(a);
}
CK_KERNEL(ck_softmax_f64, ck_softmax_args) {
    softmax_loop<double>(a);
}
