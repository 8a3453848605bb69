// ck_softmax.cuh: softmax and log_softmax along one dimension (and the running sums and products
// of cumsum and cumprod, one pass): one thread per row (a position
// of the other dimensions), three passes over the row (its largest value, the sum of the
// exponentials relative to it, the results), in float for the half types as PyTorch computes.

template <typename T> __device__ static inline void softmax_loop(const ck_softmax_args &a) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; row < a.rows; row += step) {
        int64_t in0 = 0, out0 = 0, rest = row;
        for (int d = a.kdim - 1; d >= 0; d--) {
            int64_t i = rest % a.ksizes[d];
            rest /= a.ksizes[d];
            in0 += i * a.in.strides[d];
            out0 += i * a.out.strides[d];
        }
        if (a.mode == CK_CUMSUM || a.mode == CK_CUMPROD) { // running, in the compute type
            T acc = a.mode == CK_CUMSUM ? (T)0 : (T)1;
            for (int64_t j = 0; j < a.len; j++) {
                T v = load<T>(a.in, in0 + j * a.in_step);
                acc = a.mode == CK_CUMSUM ? acc + v : acc * v;
                store<T>(a.out, out0 + j * a.out_step, acc);
            }
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
CK_KERNEL(ck_softmax_i64, ck_softmax_args) { // cumsum and cumprod of integers
    softmax_loop<int64_t>(a);
}
CK_KERNEL(ck_softmax_f64, ck_softmax_args) {
    softmax_loop<double>(a);
}
