// ck_reduce.cuh: the reduction kernel of the CUDA module. Thread t of the launch computes part
// t % parts of output t / parts: the elements [part * chunk, (part + 1) * chunk) of that
// output's reduced positions, read through the input's strides (kept dimensions give the
// output's base, reduced ones the position), accumulated in the compute type and written to
// out[t]. A reduction with more parts than one writes partials that the host reduces again,
// so every thread of a large reduction has a share of it and the sum is taken in a tree of
// chunks, not one long serial loop.

template <typename T> __device__ static inline T r_init(int op) {
    return op == CK_RMAX                     ? extremes<T>::lowest()
           : op == CK_RMIN                   ? extremes<T>::highest()
           : op == CK_RALL || op == CK_RPROD ? (T)1
                                             : (T)0;
}

template <typename T> __device__ static inline T r_step(int op, T acc, T v) {
    switch (op) {
    case CK_RMAX: // NaN propagates
        return is_nan(acc) ? acc : is_nan(v) || v > acc ? v : acc;
    case CK_RMIN:
        return is_nan(acc) ? acc : is_nan(v) || v < acc ? v : acc;
    case CK_RPROD:
        return acc * v;
    case CK_RANY:
        return (T)(acc != (T)0 || v != (T)0);
    case CK_RALL:
        return (T)(acc != (T)0 && v != (T)0);
    case CK_RNANSUM:
        return is_nan(v) ? acc : acc + v;
    default:
        return acc + v;
    }
}

template <typename T> __device__ static inline void reduce_loop(const ck_reduce_args &a) {
    int64_t total = a.M * a.parts, step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {
        int64_t m = t / a.parts, part = t % a.parts, base = 0, rest = m;
        for (int d = a.kdim - 1; d >= 0; d--) {
            base += rest % a.ksizes[d] * a.kstrides[d];
            rest /= a.ksizes[d];
        }
        int64_t q0 = part * a.chunk, q1 = q0 + a.chunk < a.R ? q0 + a.chunk : a.R;
        T acc = r_init<T>(a.op);
        int64_t at = 0; // argmax, argmin: the first position of the extreme (a NaN is the extreme)
        for (int64_t q = q0; q < q1; q++) {
            int64_t off = base;
            if (a.rdim == 1)
                off += q * a.rstrides[0];
            else
                for (int64_t d = a.rdim - 1, r = q; d >= 0; d--) {
                    off += r % a.rsizes[d] * a.rstrides[d];
                    r /= a.rsizes[d];
                }
            T v = load<T>(a.in, off);
            if (a.op == CK_RARGMAX || a.op == CK_RARGMIN) {
                bool better = q == q0 || (!is_nan(acc) &&
                                          (is_nan(v) || (a.op == CK_RARGMAX ? v > acc : v < acc)));
                if (better) {
                    acc = v;
                    at = q;
                }
            } else
                acc = r_step<T>(a.op, acc, v);
        }
        if (a.op == CK_RARGMAX || a.op == CK_RARGMIN) {
            store<int64_t>(a.out, t, at);
            continue;
        }
        if (a.scale_by_count) acc = acc / (T)a.count;
        store<T>(a.out, t, acc);
    }
}

CK_KERNEL(ck_reduce_f32, ck_reduce_args) {
    reduce_loop<float>(a);
}
CK_KERNEL(ck_reduce_f64, ck_reduce_args) {
    reduce_loop<double>(a);
}
CK_KERNEL(ck_reduce_i64, ck_reduce_args) {
    reduce_loop<int64_t>(a);
}
