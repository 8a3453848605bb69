/* cuda_ops_special.c: torch.special's element-wise functions and their gamma-family neighbours
 * (i0, igamma, igammac, airy_ai) on CUDA: one launch of the element-wise kernels each, computing
 * backends/common/special_scalar.h's formulas as the CPU does. The dtypes are those PyTorch's
 * CUDA kernels dispatch (float32 and float64 for most; the half types too for entr, xlog1py, i0,
 * i0e and ndtr's composition), refused with their kernels' names. */
#include "cuda_ops.h"
#include "kernels/ck_args.h"
#include "mt_tensor.h"
#include "special_scalar.h"

#define OUT(r) ((mt_dtype)(r)[0].t->dtype)

/* what the kernel computes in: the result's dtype, or for an op in place, the inputs' common one
 * (igamma_ of float32 self and float64 other computes in float64, as the CPU) */
static mt_dtype compute_of(mt_value *a, int nin, mt_value *r) {
    mt_dtype ct = OUT(r);
    if (nin < 2 || a[0].tag != MT_V_TENSOR || a[0].t != r[0].t || a[1].tag != MT_V_TENSOR ||
        (a[1].t->ndim == 0 && a[0].t->ndim > 0)) /* a 0-d other keeps self's dtype */
        return ct;
    return mt_promote_types(ct, (mt_dtype)a[1].t->dtype);
}

/* PyTorch's CUDA kernel `kname` dispatches float32 and float64, and the half types too when
 * `halves` */
static int check_dtype(mt_dtype ct, bool halves, const char *kname) {
    if (ct == MT_FLOAT32 || ct == MT_FLOAT64 || (halves && (ct == MT_FLOAT16 || ct == MT_BFLOAT16)))
        return 0;
    return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kname,
                    mt_dtype_scalar_name(ct));
}

/* a number operand, rounded to the compute dtype as the CPU converts it */
static mt_value number_in(mt_value v, mt_dtype ct) {
    uint64_t b = 0;
    mt_store_double(&b, ct, mt_scalar_double(v));
    return mt_vdouble(mt_load_double(&b, ct));
}

/* a number first operand: a 0-d tensor of the compute dtype on out's device */
static mt_tensor *number_tensor(mt_value v, mt_tensor *out, mt_dtype ct) {
    mt_tensor *t = mt_tensor_empty(0, NULL, ct, out->device);
    mt_value n = number_in(v, ct);
    if (t && cuda_ew(t, CK_FILL, 0, NULL, &n, NULL, ct)) {
        mt_tensor_decref(t);
        return NULL;
    }
    return t;
}

/* op(self) or op(self, other), each of them a tensor or (not both) a number; `which` goes to the
 * kernel as s2 */
static int launch(mt_value *a, int nin, mt_value *r, int op, int which, bool halves,
                  const char *kname) {
    mt_dtype ct = compute_of(a, nin, r);
    if (check_dtype(ct, halves, kname)) return -1;
    mt_tensor *out = r[0].t;
    if (nin == 1) return cuda_ew_ex(out, op, 1, &a[0].t, NULL, NULL, which, 0, ct);
    if (a[1].tag != MT_V_TENSOR) {
        mt_value s = number_in(a[1], ct);
        return cuda_ew_ex(out, op, 1, &a[0].t, &s, NULL, which, 0, ct);
    }
    if (a[0].tag == MT_V_TENSOR) {
        mt_tensor *in[2] = {a[0].t, a[1].t};
        return cuda_ew_ex(out, op, 2, in, NULL, NULL, which, 0, ct);
    }
    mt_tensor *x = number_tensor(a[0], out, ct);
    if (!x) return -1;
    mt_tensor *in[2] = {x, a[1].t};
    int rc = cuda_ew_ex(out, op, 2, in, NULL, NULL, which, 0, ct);
    mt_tensor_decref(x);
    return rc;
}

/* the functions of special_scalar.h by number: one argument (float32 and float64, or the half
 * types too) and two (float32 and float64) */
#define K_SP1(fn, which, halves, kname)                                                            \
    static int k_##fn(mt_call *c, mt_value *a, mt_value *r) {                                      \
        (void)c;                                                                                   \
        return launch(a, 1, r, CK_SPECIAL, which, halves, kname);                                  \
    }
K_SP1(erfcx, MT_SP_ERFCX, false, "erfcx_cuda")
K_SP1(ndtri, MT_SP_NDTRI, false, "ndtri_cuda")
K_SP1(log_ndtr, MT_SP_LOG_NDTR, false, "log_ndtr_cuda")
K_SP1(i0, MT_SP_I0, true, "i0_cuda")
K_SP1(i0e, MT_SP_I0E, true, "i0e_cuda")
K_SP1(i1, MT_SP_I1, false, "i1_cuda")
K_SP1(i1e, MT_SP_I1E, false, "i1e_cuda")
K_SP1(j0, MT_SP_J0, false, "bessel_j0_cuda")
K_SP1(j1, MT_SP_J1, false, "bessel_j1_cuda")
K_SP1(y0, MT_SP_Y0, false, "bessel_y0_cuda")
K_SP1(y1, MT_SP_Y1, false, "bessel_y1_cuda")
K_SP1(mi0, MT_SP_I0, false, "modified_bessel_i0_cuda")
K_SP1(mi1, MT_SP_I1, false, "modified_bessel_i1_cuda")
K_SP1(k0, MT_SP_K0, false, "modified_bessel_k0_cuda")
K_SP1(k1, MT_SP_K1, false, "modified_bessel_k1_cuda")
K_SP1(k0e, MT_SP_K0E, false, "scaled_modified_bessel_k0_cuda")
K_SP1(k1e, MT_SP_K1E, false, "scaled_modified_bessel_k1_cuda")
K_SP1(sph_j0, MT_SP_SPH_J0, false, "spherical_bessel_j0_cuda")
K_SP1(airy_ai, MT_SP_AIRY_AI, false, "airy_ai_cuda")

#define K_SP2(fn, which, kname)                                                                    \
    static int k_##fn(mt_call *c, mt_value *a, mt_value *r) {                                      \
        (void)c;                                                                                   \
        return launch(a, 2, r, CK_SPECIAL2, which, false, kname);                                  \
    }
K_SP2(zeta, MT_SP_ZETA, "zeta_cuda")
K_SP2(igamma, MT_SP_IGAMMA, "igamma_cuda")
K_SP2(igammac, MT_SP_IGAMMAC, "igammac_cuda")

/* the polynomials P_n(x) (x, n), in the type */
#define K_POLY(fn, which)                                                                          \
    static int k_##fn(mt_call *c, mt_value *a, mt_value *r) {                                      \
        (void)c;                                                                                   \
        return launch(a, 2, r, CK_POLY, which, false, #fn "_cuda");                                \
    }
K_POLY(chebyshev_polynomial_t, MT_SP_POLY_T)
K_POLY(chebyshev_polynomial_u, MT_SP_POLY_U)
K_POLY(chebyshev_polynomial_v, MT_SP_POLY_V)
K_POLY(chebyshev_polynomial_w, MT_SP_POLY_W)
K_POLY(shifted_chebyshev_polynomial_t, MT_SP_POLY_ST)
K_POLY(shifted_chebyshev_polynomial_u, MT_SP_POLY_SU)
K_POLY(shifted_chebyshev_polynomial_v, MT_SP_POLY_SV)
K_POLY(shifted_chebyshev_polynomial_w, MT_SP_POLY_SW)
K_POLY(hermite_polynomial_h, MT_SP_POLY_H)
K_POLY(hermite_polynomial_he, MT_SP_POLY_HE)
K_POLY(laguerre_polynomial_l, MT_SP_POLY_L)
K_POLY(legendre_polynomial_p, MT_SP_POLY_P)

/* entr and xlog1py in the type, every floating dtype */
static int k_entr(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return launch(a, 1, r, CK_ENTR, 0, true, "entr_cuda");
}
static int k_xlog1py(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    return launch(a, 2, r, CK_XLOG1PY, 0, true, "xlog1py_cuda");
}

/* ndtr: PyTorch composes it from erf, whose CUDA kernel takes every floating dtype; a half
 * result rounds each step to its dtype (s2) as the composition's own ops do */
static int k_ndtr(mt_call *c, mt_value *a, mt_value *r) {
    (void)c;
    mt_dtype ct = OUT(r);
    int round_to = ct == MT_FLOAT16 || ct == MT_BFLOAT16 ? (int)ct : 0;
    return launch(a, 1, r, CK_NDTR, round_to, true, "erf_cuda");
}

#define SP_ENTRY(op, fn)                                                                           \
    { "special_" op, k_##fn }
#define SP_POLY_ENTRIES(fn)                                                                        \
    SP_ENTRY(#fn, fn), SP_ENTRY(#fn ".x_scalar", fn), SP_ENTRY(#fn ".n_scalar", fn)
const mt_kernel_entry cuda_special_kernels[] = {
    SP_ENTRY("erfcx", erfcx),
    SP_ENTRY("ndtr", ndtr),
    SP_ENTRY("ndtri", ndtri),
    SP_ENTRY("log_ndtr", log_ndtr),
    SP_ENTRY("entr", entr),
    SP_ENTRY("xlog1py", xlog1py),
    SP_ENTRY("xlog1py.self_scalar", xlog1py),
    SP_ENTRY("xlog1py.other_scalar", xlog1py),
    SP_ENTRY("i0e", i0e),
    SP_ENTRY("i1", i1),
    SP_ENTRY("i1e", i1e),
    SP_ENTRY("bessel_j0", j0),
    SP_ENTRY("bessel_j1", j1),
    SP_ENTRY("bessel_y0", y0),
    SP_ENTRY("bessel_y1", y1),
    SP_ENTRY("modified_bessel_i0", mi0),
    SP_ENTRY("modified_bessel_i1", mi1),
    SP_ENTRY("modified_bessel_k0", k0),
    SP_ENTRY("modified_bessel_k1", k1),
    SP_ENTRY("scaled_modified_bessel_k0", k0e),
    SP_ENTRY("scaled_modified_bessel_k1", k1e),
    SP_ENTRY("spherical_bessel_j0", sph_j0),
    SP_ENTRY("airy_ai", airy_ai),
    SP_ENTRY("zeta", zeta),
    SP_ENTRY("zeta.self_scalar", zeta),
    SP_ENTRY("zeta.other_scalar", zeta),
    SP_POLY_ENTRIES(chebyshev_polynomial_t),
    SP_POLY_ENTRIES(chebyshev_polynomial_u),
    SP_POLY_ENTRIES(chebyshev_polynomial_v),
    SP_POLY_ENTRIES(chebyshev_polynomial_w),
    SP_POLY_ENTRIES(shifted_chebyshev_polynomial_t),
    SP_POLY_ENTRIES(shifted_chebyshev_polynomial_u),
    SP_POLY_ENTRIES(shifted_chebyshev_polynomial_v),
    SP_POLY_ENTRIES(shifted_chebyshev_polynomial_w),
    SP_POLY_ENTRIES(hermite_polynomial_h),
    SP_POLY_ENTRIES(hermite_polynomial_he),
    SP_POLY_ENTRIES(laguerre_polynomial_l),
    SP_POLY_ENTRIES(legendre_polynomial_p),
    {"i0", k_i0},
    {"i0_", k_i0},
    {"igamma", k_igamma},
    {"igamma_", k_igamma},
    {"igammac", k_igammac},
    {"igammac_", k_igammac},
};
const size_t cuda_special_kernels_count = MT_ARRAY_LEN(cuda_special_kernels);
