// ck_unique.cuh: unique's passes (ck_args.h): the lexicographic merge sort of a matrix's rows (by
// ck_sort.cuh's merge_dest), then the groups of equal sorted rows: a count and a fill pass over
// parts of the sorted rows, the host scanning the counts between them so that every part knows
// its first group whatever the grid, and the counts from the groups' first rows.
// Rows move as raw elements of their dtype (copy_element of ck_select.cuh), so values are exact.

// merge_dest's order over rows of a contiguous matrix, given by their positions: lexicographic,
// each element ordered as sort orders them (NaN after every number, NaNs tied)
template <typename T> struct rows_before {
    const ck_operand *in;
    int64_t w;
    const int64_t *pos;
    __device__ bool operator()(int64_t i, int64_t j) const {
        int64_t x = pos[i] * w, y = pos[j] * w;
        for (int64_t c = 0; c < w; c++) {
            T u = load<T>(*in, x + c), v = load<T>(*in, y + c);
            if (sort_before(u, v, false)) return true;
            if (sort_before(v, u, false)) return false;
        }
        return false;
    }
};

// the matrix row of sorted row r: read through perm, or r itself when in is sorted
__device__ static inline int64_t unique_row(const ck_unique_args &a, int64_t r) {
    return a.indirect ? ((const int64_t *)(uintptr_t)a.perm)[r] : r;
}

// sorted row r starts a group: the first, or not equal (==, element by element) to the one before
template <typename T>
__device__ static inline bool unique_starts(const ck_unique_args &a, int64_t r) {
    if (r == 0) return true;
    int64_t x = unique_row(a, r - 1) * a.w, y = unique_row(a, r) * a.w;
    for (int64_t c = 0; c < a.w; c++)
        if (!(load<T>(a.in, x + c) == load<T>(a.in, y + c))) return true;
    return false;
}

template <typename T> __device__ static inline void unique_loop(const ck_unique_args &a) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    int64_t *pos = (int64_t *)(uintptr_t)a.pos, *offsets = (int64_t *)(uintptr_t)a.offsets;
    int64_t *starts = (int64_t *)(uintptr_t)a.starts;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < a.n; t += step) {
        if (a.op == CK_UNIQUE_ROWS_LOAD) {
            pos[t] = t;
        } else if (a.op == CK_UNIQUE_ROWS_MERGE) { // t: a row position of the half read
            const int64_t *pin = pos + (a.src ? a.nrows : 0);
            int64_t *pout = pos + (a.src ? 0 : a.nrows);
            pout[merge_dest(t, a.nrows, a.width, rows_before<T>{&a.in, a.w, pin})] = pin[t];
        } else if (a.op == CK_UNIQUE_COUNTS) { // t: a group
            int64_t end = t + 1 < a.groups ? starts[t + 1] : a.nrows;
            ((int64_t *)(uintptr_t)a.counts)[t] = end - starts[t];
        } else { // t: a part of the sorted rows
            int64_t first = t * CK_UNIQUE_CHUNK, last = first + CK_UNIQUE_CHUNK;
            if (last > a.nrows) last = a.nrows;
            int64_t g = a.op == CK_UNIQUE_COUNT ? 0 : offsets[t] - 1; // the group before the part
            for (int64_t r = first; r < last; r++) {
                bool start = unique_starts<T>(a, r);
                g += start;
                if (a.op == CK_UNIQUE_COUNT) continue;
                int64_t from = unique_row(a, r);
                if (start) {
                    starts[g] = r;
                    for (int64_t c = 0; c < a.w; c++)
                        copy_element(a.out, g * a.w + c, a.in, from * a.w + c);
                }
                ((int64_t *)(uintptr_t)a.inverse)[((const int64_t *)(uintptr_t)a.perm)[r]] = g;
            }
            if (a.op == CK_UNIQUE_COUNT) offsets[t] = g;
        }
    }
}

CK_KERNEL(ck_unique_f32, ck_unique_args) {
    unique_loop<float>(a);
}
CK_KERNEL(ck_unique_f64, ck_unique_args) {
    unique_loop<double>(a);
}
CK_KERNEL(ck_unique_i64, ck_unique_args) {
    unique_loop<int64_t>(a);
}
