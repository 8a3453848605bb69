// ck_select.cuh: nonzero, masked_select and masked_scatter_ (a count pass and a fill pass over
// parts of the elements, the host scanning the counts between them), and advanced indexing and
// take (offsets into self per position of the index tensors, then a gather, a write or an atomic
// addition per element).
// Values move as raw elements of their dtype, so every dtype is copied exactly.

__device__ static inline int ck_dtype_size(int dtype) {
    switch (dtype) {
    case CK_BOOL:
    case CK_UINT8:
    case CK_INT8:
        return 1;
    case CK_INT16:
    case CK_FLOAT16:
    case CK_BFLOAT16:
        return 2;
    case CK_INT32:
    case CK_FLOAT32:
        return 4;
    default:
        return 8;
    }
}

// dst element doff = src element soff (operands of one dtype)
__device__ static inline void copy_element(const ck_operand &dst, int64_t doff,
                                           const ck_operand &src, int64_t soff) {
    char *d = (char *)(uintptr_t)dst.ptr;
    const char *s = (const char *)(uintptr_t)src.ptr;
    switch (ck_dtype_size(src.dtype)) {
    case 1:
        ((uint8_t *)d)[doff] = ((const uint8_t *)s)[soff];
        break;
    case 2:
        ((uint16_t *)d)[doff] = ((const uint16_t *)s)[soff];
        break;
    case 4:
        ((uint32_t *)d)[doff] = ((const uint32_t *)s)[soff];
        break;
    default:
        ((uint64_t *)d)[doff] = ((const uint64_t *)s)[soff];
    }
}

CK_KERNEL(ck_select, ck_select_args) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    int64_t *counts = (int64_t *)(uintptr_t)a.counts;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < a.parts; t += step) {
        int64_t first = t * CK_SELECT_CHUNK, last = first + CK_SELECT_CHUNK;
        if (last > a.n) last = a.n;
        // the part's first coordinates, then an odometer along C order
        int64_t idx[CK_MAX_DIM], moff = 0, soff = 0, rest = first;
        for (int d = a.ndim - 1; d >= 0; d--) {
            idx[d] = rest % a.sizes[d];
            rest /= a.sizes[d];
            moff += idx[d] * a.mask.strides[d];
            soff += idx[d] * a.self.strides[d];
        }
        int64_t j = a.op == CK_SELECT_COUNT ? 0 : counts[t];
        for (int64_t i = first; i < last; i++) {
            if (load<double>(a.mask, moff) != 0) { // NaN counts as true, -0.0 as zero
                if (a.op == CK_SELECT_NONZERO) {
                    int64_t *out = (int64_t *)(uintptr_t)a.out.ptr;
                    for (int d = 0; d < a.ndim; d++) out[j + d * a.total] = idx[d];
                } else if (a.op == CK_SELECT_MASKED) {
                    copy_element(a.out, j, a.self, soff);
                } else if (a.op == CK_SELECT_SCATTER) { // the source's j-th into self, in place
                    copy_element(a.self, soff, a.out, j);
                }
                j++;
            }
            for (int d = a.ndim - 1; d >= 0; d--) { // the next element's coordinates
                moff += a.mask.strides[d];
                soff += a.self.strides[d];
                if (++idx[d] < a.sizes[d]) break;
                moff -= a.sizes[d] * a.mask.strides[d];
                soff -= a.sizes[d] * a.self.strides[d];
                idx[d] = 0;
            }
        }
        if (a.op == CK_SELECT_COUNT) counts[t] = j;
    }
}

template <typename T> __device__ static inline void adv_loop(const ck_adv_args &a) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    int64_t *offs = (int64_t *)(uintptr_t)a.offs;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < a.n; e += step) {
        if (a.op == CK_ADV_OFFSETS) { // e: a position of the broadcast shape
            int64_t io = 0, rest = e;
            for (int d = a.nb - 1; d >= 0; d--) {
                io += rest % a.sizes[d] * a.index.strides[d];
                rest /= a.sizes[d];
            }
            int64_t v = load<int64_t>(a.index, io);
            int64_t w = v < 0 && v != CK_ZERO_SENTINEL ? v + a.dim_size : v;
            if (w < 0 || w >= a.dim_size) {
                unsigned long long *st = (unsigned long long *)(uintptr_t)a.status;
                if (atomicCAS(st, 0ULL, 1ULL) == 0ULL) st[1] = (unsigned long long)v;
                continue;
            }
            offs[e] = (a.first ? 0 : offs[e]) + w * a.dim_stride;
            continue;
        }
        // e: an element of the result, the broadcast position b major
        int64_t so = 0, oo = 0, b = 0, mul = 1, rest = e;
        for (int d = a.nb + a.nrest - 1; d >= 0; d--) {
            int64_t i = rest % a.sizes[d];
            rest /= a.sizes[d];
            oo += i * a.other.strides[d];
            if (d >= a.nb) {
                so += i * a.self.strides[d - a.nb];
            } else {
                b += i * mul;
                mul *= a.sizes[d];
            }
        }
        so += offs[b];
        if (a.op == CK_ADV_GATHER)
            copy_element(a.other, oo, a.self, so);
        else if (a.op == CK_ADV_PUT)
            copy_element(a.self, so, a.other, oo);
        else // repeated positions all add, in an unspecified order
            add_at<T>(a.self, so, load<T>(a.other, oo));
    }
}

CK_KERNEL(ck_adv_f64, ck_adv_args) {
    adv_loop<double>(a);
}
CK_KERNEL(ck_adv_i64, ck_adv_args) {
    adv_loop<int64_t>(a);
}
