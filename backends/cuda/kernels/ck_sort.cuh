// ck_sort.cuh: sort along one dimension, stable, as a merge sort of log2(len) launches with no
// shared memory or synchronisation inside a launch, so any grid and block size gives the same
// result: each thread places one element of a pair of sorted runs directly at its merged
// position (its rank in its own run plus, by binary search, the number of elements of the other
// run that go before it; ties go to the left run, which keeps the sort stable).

// x goes before y: ascending with NaN last, or descending with NaN first (NaN is greater than
// every number, as PyTorch orders it; NaNs are equal among themselves)
template <typename T> __device__ static inline bool sort_before(T x, T y, bool descending) {
    if (descending) return x > y || (is_nan(x) && !is_nan(y));
    return x < y || (!is_nan(x) && is_nan(y));
}

// The position, in the merged pair of runs, of element p of a row whose runs of w elements are
// sorted: its rank in its own run plus, by binary search, the count of the other run's elements
// that go before it (ties go to the left run, which keeps the merge stable). before(i, j): the
// row's element i goes before its element j. ck_unique.cuh merges rows of a matrix with it too.
template <typename Before>
__device__ static inline int64_t merge_dest(int64_t p, int64_t len, int64_t w,
                                            const Before &before) {
    int64_t start = p - p % (2 * w);
    int64_t mid = start + w < len ? start + w : len;
    int64_t end = start + 2 * w < len ? start + 2 * w : len;
    int64_t lo, hi;
    if (p < mid) { // the right run's elements strictly before p
        lo = mid, hi = end;
        while (lo < hi) {
            int64_t m = lo + (hi - lo) / 2;
            if (before(m, p))
                lo = m + 1;
            else
                hi = m;
        }
        return p + (lo - mid);
    }
    lo = start, hi = mid; // the left run's elements not after p
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (!before(p, m))
            lo = m + 1;
        else
            hi = m;
    }
    return p - mid + lo;
}

// merge_dest's order over a row of keys
template <typename T> struct keys_before {
    const T *keys;
    bool descending;
    __device__ bool operator()(int64_t i, int64_t j) const {
        return sort_before(keys[i], keys[j], descending);
    }
};

// the element offset of row `row` (a position of the other dimensions) through `strides`
__device__ static inline int64_t sort_row_offset(const ck_sort_args &a, int64_t row,
                                                 const int64_t *strides) {
    int64_t off = 0;
    for (int d = a.kdim - 1; d >= 0; d--) {
        off += row % a.ksizes[d] * strides[d];
        row /= a.ksizes[d];
    }
    return off;
}

template <typename T> __device__ static inline void sort_loop(const ck_sort_args &a) {
    int64_t total = a.rows * a.len; // a half of the scratch
    T *keys_in = (T *)(uintptr_t)a.keys + (a.src ? total : 0);
    T *keys_out = (T *)(uintptr_t)a.keys + (a.src ? 0 : total);
    int64_t *pos_in = (int64_t *)(uintptr_t)a.pos + (a.src ? total : 0);
    int64_t *pos_out = (int64_t *)(uintptr_t)a.pos + (a.src ? 0 : total);
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < a.n; k += step) {
        if (a.op == CK_SORT_LOAD) {
            int64_t row = k / a.len, p = k % a.len;
            keys_in[k] = load<T>(a.in, sort_row_offset(a, row, a.in.strides) + p * a.in_step);
            pos_in[k] = p;
        } else if (a.op == CK_SORT_MERGE) {
            int64_t p = k % a.len, base = k - p;
            int64_t dest =
                merge_dest(p, a.len, a.width, keys_before<T>{keys_in + base, a.descending != 0});
            keys_out[base + dest] = keys_in[k];
            pos_out[base + dest] = pos_in[k];
        } else { // store positions [skip, skip + keep) of each row
            int64_t row = k / a.keep, j = k % a.keep, from = row * a.len + a.skip + j;
            store<T>(a.values, sort_row_offset(a, row, a.values.strides) + j * a.values_step,
                     keys_in[from]);
            ((int64_t *)(uintptr_t)
                 a.indices.ptr)[sort_row_offset(a, row, a.indices.strides) + j * a.indices_step] =
                pos_in[from];
        }
    }
}

CK_KERNEL(ck_sort_f32, ck_sort_args) {
    sort_loop<float>(a);
}
CK_KERNEL(ck_sort_f64, ck_sort_args) {
    sort_loop<double>(a);
}
CK_KERNEL(ck_sort_i64, ck_sort_args) {
    sort_loop<int64_t>(a);
}
