"""Reductions and statistics against PyTorch (src/ops/statistics.lua): aminmax, nanmean,
count_nonzero, median, nanmedian, mode, cummax, cummin, logcumsumexp, quantile, nanquantile.
Index results are 1-based in Lua (index_out); ties are chosen where PyTorch's choice is defined
(a stable order), never in rows longer than 16 for mode (PyTorch's sort is not stable there)."""
import torch

from _opcase import ALL, FLOATS, INTS, T, V, call

CASES = {}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


F, D = "float32", "float64"
NAN, INF = float("nan"), float("inf")
TOL = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 1e-2, "float16": 1e-2}
NOHALF = ["float32", "float64", "bfloat16"] + INTS  # what median/cummax compute (and bool)

# ---- aminmax -------------------------------------------------------------------------------
for dt in ALL:
    add("aminmax_%s" % dt, call("aminmax", T(dt, [3, 4])))
    add("aminmax_dim_%s" % dt, call("aminmax", T(dt, [3, 4]), kw={"dim": 1}, dims=("dim",)))
add("aminmax_keepdim", call("aminmax", T(F, [2, 3]), kw={"keepdim": True}))
add("aminmax_dim_keepdim", call("aminmax", T(F, [2, 3, 4]), kw={"dim": -2, "keepdim": True}, dims=("dim",)))
add("aminmax_transposed", call("aminmax", T(D, [3, 4], "t"), kw={"dim": 0}, dims=("dim",)))
add("aminmax_0d", call("aminmax", T(F, []), kw={"dim": 0}, dims=("dim",)))
add("aminmax_nan", call("aminmax", V([[1.0, NAN, 3.0], [2.0, -INF, 0.5]]), kw={"dim": 1}, dims=("dim",)))
add("aminmax_empty", call("aminmax", T(F, [0])))
add("aminmax_empty_dim", call("aminmax", T(F, [2, 0]), kw={"dim": 1}, dims=("dim",), expect=["dims"]))
add("aminmax_empty_other_dim", call("aminmax", T(F, [2, 0]), kw={"dim": 0}, dims=("dim",)))
add("aminmax_bad_dim", call("aminmax", T(F, [2, 3]), kw={"dim": 2}, dims=("dim",), expect=["range"]))
add("aminmax_method", call("aminmax", T(F, [2, 3]), method=True))

# ---- nanmean, count_nonzero ----------------------------------------------------------------
for dt in ["float32", "float64", "bfloat16", "float16"]:
    add("nanmean_%s" % dt, call("nanmean", V([[1.0, NAN, 3.0], [NAN, NAN, 0.5]], dt), tol=TOL))
    add("nanmean_dim_%s" % dt, call("nanmean", V([[1.0, NAN, 3.0], [NAN, NAN, 0.5]], dt), 1, dims=(1,), tol=TOL))
add("nanmean_all_nan", call("nanmean", V([NAN, NAN])))
add("nanmean_dims_keepdim", call("nanmean", T(D, [2, 3, 4]), [0, 2], True, dims=(1,), tol=TOL))
add("nanmean_dtype", call("nanmean", T(F, [3, 4]), kw={"dtype": torch.float64}, tol=TOL))
add("nanmean_int", call("nanmean", T("int64", [3])))
add("nanmean_empty", call("nanmean", T(F, [0, 3]), 0, dims=(1,)))
add("nanmean_transposed", call("nanmean", T(F, [3, 4], "t"), 0, dims=(1,), tol=TOL))
add("nanmean_method", call("nanmean", T(F, [3, 4]), method=True, tol=TOL))
for dt in ALL:
    add("count_nonzero_%s" % dt, call("count_nonzero", T(dt, [3, 4])))
    add("count_nonzero_dim_%s" % dt, call("count_nonzero", T(dt, [3, 4]), 1, dims=(1,)))
add("count_nonzero_dims", call("count_nonzero", T("int64", [2, 3, 4]), [0, 2], dims=(1,)))
add("count_nonzero_dims_repeated", call("count_nonzero", T("int64", [2, 3]), [0, 0], dims=(1,), expect=["dims"]))
add("count_nonzero_0d", call("count_nonzero", V(0.0)))
add("count_nonzero_nan", call("count_nonzero", V([NAN, 0.0, -0.0, 1.0])))
add("count_nonzero_empty", call("count_nonzero", T(F, [0, 3]), 0, dims=(1,)))
add("count_nonzero_transposed", call("count_nonzero", T("int32", [3, 4], "t"), 0, dims=(1,)))
add("count_nonzero_method", call("count_nonzero", T("int64", [3, 4]), method=True))

# ---- median, nanmedian ---------------------------------------------------------------------
for dt in ALL:
    add("median_%s" % dt, call("median", T(dt, [3, 5])))
    add("median_dim_%s" % dt, call("median", T(dt, [3, 4]), 1, dims=(1,), index_out=(1,)))
    add("nanmedian_%s" % dt, call("nanmedian", T(dt, [3, 5])))
    add("nanmedian_dim_%s" % dt, call("nanmedian", T(dt, [3, 4]), 1, dims=(1,), index_out=(1,)))
# (an all-NaN row longer than 2 is left out: nanmedian's position there is whatever nth_element leaves)
ROWS = [[3.0, 1.0, 2.0, 1.0], [5.0, 5.0, NAN, 5.0], [1.0, NAN, 2.0, NAN], [NAN, 4.0, NAN, NAN], [2.0, 2.0, 2.0, 2.0]]
for fn in ["median", "nanmedian"]:
    add("%s_nan_rows" % fn, call(fn, V(ROWS), 1, dims=(1,), index_out=(1,)))
    add("%s_nan_cols" % fn, call(fn, V(ROWS), 0, dims=(1,), index_out=(1,)))
    add("%s_nan_all" % fn, call(fn, V(ROWS)))
    add("%s_all_nan_pair" % fn, call(fn, V([[NAN, NAN], [NAN, 1.0]]), 1, dims=(1,), index_out=(1,)))
    add("%s_ties" % fn, call(fn, V([1, 2, 2, 2, 1, 3, 2], "int64"), 0, dims=(1,), index_out=(1,)))
    add("%s_keepdim" % fn, call(fn, T(D, [2, 3, 4]), -2, True, dims=(1,), index_out=(1,)))
    add("%s_transposed" % fn, call(fn, T(F, [3, 4], "t"), 0, dims=(1,), index_out=(1,)))
    add("%s_0d" % fn, call(fn, T(F, [])))
    add("%s_0d_dim" % fn, call(fn, T(F, []), 0, dims=(1,), index_out=(1,)))
    add("%s_empty" % fn, call(fn, T(F, [0])))
    for dt in ["int64", "int32", "uint8", "bfloat16"]:
        add("%s_empty_%s" % (fn, dt), call(fn, T(dt, [0])))
    add("%s_empty_dim" % fn, call(fn, T(F, [2, 0]), 1, dims=(1,), expect=["dims"]))
    add("%s_empty_other_dim" % fn, call(fn, T(F, [0, 2]), 1, dims=(1,), index_out=(1,)))
    add("%s_bad_dim" % fn, call(fn, T(F, [2, 3]), 3, dims=(1,), expect=["range"]))
    add("%s_method" % fn, call(fn, T(F, [3, 4]), 1, method=True, dims=(1,), index_out=(1,)))
    add("%s_method_all" % fn, call(fn, T(F, [3, 4]), method=True))
    add("%s_half_dim" % fn, call(fn, T("float16", [3, 4]), 1, dims=(1,)))
    add("%s_bool_dim" % fn, call(fn, T("bool", [3, 4]), 1, dims=(1,)))

# ---- mode ----------------------------------------------------------------------------------
for dt in ALL:
    add("mode_%s" % dt, call("mode", T(dt, [3, 6]), index_out=(1,)))
add("mode_ties", call("mode", V([3, 3, 1, 1, 3, 1], "int64"), index_out=(1,)))
add("mode_first", call("mode", V([1, 2, 2, 1, 3, 3], "int64"), index_out=(1,)))
add("mode_dim0", call("mode", V([[1.0, 2.0, 2.0], [1.0, 5.0, 2.0], [4.0, 5.0, 7.0]]), 0, dims=(1,), index_out=(1,)))
add("mode_3d", call("mode", T("int64", [2, 5, 3]), 0, dims=(1,), index_out=(1,)))
add("mode_3d_keepdim", call("mode", T("int64", [2, 5, 3]), 1, True, dims=(1,), index_out=(1,)))
add("mode_transposed", call("mode", T("int32", [3, 4], "t"), 0, dims=(1,), index_out=(1,)))
add("mode_0d", call("mode", T(F, []), index_out=(1,)))
add("mode_empty", call("mode", T(F, [0]), expect=["dims"]))
add("mode_empty_other_dim", call("mode", T(F, [0, 3]), index_out=(1,)))
add("mode_bad_dim", call("mode", T(F, [2, 3]), 2, dims=(1,), expect=["range"]))
add("mode_method", call("mode", T("int64", [3, 4]), method=True, index_out=(1,)))

# ---- cummax, cummin ------------------------------------------------------------------------
for fn in ["cummax", "cummin"]:
    for dt in ALL:
        add("%s_%s" % (fn, dt), call(fn, T(dt, [3, 7]), 1, dims=(1,), index_out=(1,)))
    add("%s_nan" % fn, call(fn, V([1.0, 3.0, NAN, 2.0, NAN, 5.0, -INF, INF]), 0, dims=(1,), index_out=(1,)))
    add("%s_ties" % fn, call(fn, V([2, 2, 1, 3, 3, 0, 3], "int64"), 0, dims=(1,), index_out=(1,)))
    add("%s_dim0" % fn, call(fn, T(D, [5, 3]), 0, dims=(1,), index_out=(1,)))
    add("%s_long" % fn, call(fn, T(F, [2, 37]), -1, dims=(1,), index_out=(1,)))
    add("%s_transposed" % fn, call(fn, T(F, [3, 4], "t"), 1, dims=(1,), index_out=(1,)))
    add("%s_0d" % fn, call(fn, T(F, []), 0, dims=(1,), index_out=(1,)))
    add("%s_empty" % fn, call(fn, T(F, [2, 0]), 1, dims=(1,), index_out=(1,)))
    add("%s_bad_dim" % fn, call(fn, T(F, [2, 3]), 2, dims=(1,), expect=["range"]))
    add("%s_method" % fn, call(fn, T(F, [3, 4]), 0, method=True, dims=(1,), index_out=(1,)))

# ---- logcumsumexp --------------------------------------------------------------------------
for dt in ALL:
    add("logcumsumexp_%s" % dt, call("logcumsumexp", T(dt, [3, 6]), 1, dims=(1,), tol=TOL))
add("logcumsumexp_inf", call("logcumsumexp", V([-INF, -INF, 0.0, INF, 1.0, INF]), 0, dims=(1,)))
add("logcumsumexp_nan", call("logcumsumexp", V([1.0, NAN, 0.0]), 0, dims=(1,)))
add("logcumsumexp_wide", call("logcumsumexp", V([-1000.0, 0.0, 1000.0, -5.0], D), 0, dims=(1,), tol=TOL))
add("logcumsumexp_dim0", call("logcumsumexp", T(D, [5, 3]), 0, dims=(1,), tol=TOL))
add("logcumsumexp_long", call("logcumsumexp", T(D, [2, 37]), -1, dims=(1,), tol=TOL))
add("logcumsumexp_transposed", call("logcumsumexp", T(F, [3, 4], "t"), 1, dims=(1,), tol=TOL))
add("logcumsumexp_0d", call("logcumsumexp", T(F, []), 0, dims=(1,)))
add("logcumsumexp_empty", call("logcumsumexp", T(F, [2, 0]), 1, dims=(1,)))
add("logcumsumexp_bad_dim", call("logcumsumexp", T(F, [2, 3]), -3, dims=(1,), expect=["range"]))
add("logcumsumexp_method", call("logcumsumexp", T(F, [3, 4]), 0, method=True, dims=(1,), tol=TOL))

# ---- quantile, nanquantile -----------------------------------------------------------------
MODES = ["linear", "lower", "higher", "midpoint", "nearest"]
QS = [0.0, 0.1, 0.25, 0.5, 0.6, 0.625, 0.75, 1.0]
for fn in ["quantile", "nanquantile"]:
    for m in MODES:
        add("%s_%s" % (fn, m), call(fn, T(D, [3, 9]), V(QS, D), 1, kw={"interpolation": m}, dims=(2,), tol=TOL))
        add("%s_all_%s" % (fn, m), call(fn, V([1.0, 2.0, 3.0, 4.0]), V(QS), kw={"interpolation": m}, tol=TOL))
        add("%s_nan_%s" % (fn, m), call(fn, V(ROWS), V([0.3, 0.5]), 1, kw={"interpolation": m}, dims=(2,), tol=TOL))
    add("%s_scalar" % fn, call(fn, T(F, [3, 4]), 0.3, tol=TOL))
    add("%s_scalar_dim" % fn, call(fn, T(F, [3, 4]), 0.3, 0, dims=(2,), tol=TOL))
    add("%s_0d_q" % fn, call(fn, T(F, [3, 4]), V(0.4), 1, dims=(2,), tol=TOL))
    add("%s_keepdim" % fn, call(fn, T(D, [2, 3, 4]), V([0.2, 0.5], D), 1, True, dims=(2,), tol=TOL))
    add("%s_keepdim_all" % fn, call(fn, T(D, [2, 3]), V([0.2, 0.5], D), kw={"keepdim": True}, tol=TOL))
    add("%s_keepdim_scalar" % fn, call(fn, T(D, [2, 3]), 0.5, kw={"keepdim": True}, tol=TOL))
    add("%s_3d_dim0" % fn, call(fn, T(D, [4, 2, 3]), V([0.2, 0.9], D), 0, dims=(2,), tol=TOL))
    add("%s_transposed" % fn, call(fn, T(F, [3, 4], "t"), 0.5, 1, dims=(2,), tol=TOL))
    add("%s_0d" % fn, call(fn, V(3.0), V([0.5, 0.7]), 0, dims=(2,)))
    add("%s_int" % fn, call(fn, T("int64", [3]), 0.5))
    add("%s_q_dtype" % fn, call(fn, T(F, [3]), V([0.5], D)))
    add("%s_q_2d" % fn, call(fn, T(F, [3]), V([[0.5]])))
    add("%s_q_range" % fn, call(fn, T(F, [3]), 1.5))
    add("%s_q_negative" % fn, call(fn, T(F, [3]), -0.25))
    add("%s_q_values_range" % fn, call(fn, T(F, [3]), V([0.5, -0.1])))
    add("%s_empty" % fn, call(fn, T(F, [0]), 0.5))
    add("%s_empty_dim" % fn, call(fn, T(F, [0, 2]), 0.5, 1, dims=(2,)))
    add("%s_interpolation" % fn, call(fn, T(F, [3]), 0.5, kw={"interpolation": "foo"}))
    add("%s_bad_dim" % fn, call(fn, T(F, [3]), 0.5, 1, dims=(2,), expect=["range"]))
    add("%s_method" % fn, call(fn, T(D, [3, 4]), V([0.25, 0.5], D), 1, method=True, dims=(2,), tol=TOL))

# ---- diff, dist, renorm --------------------------------------------------------------------
for dt in ALL:
    add("diff_%s" % dt, call("diff", T(dt, [3, 5])))
add("diff_n2_dim0", call("diff", T(D, [4, 3]), 2, 0, dims=(2,)))
add("diff_n_large", call("diff", T(F, [3, 4]), 10))
add("diff_n0", call("diff", T(F, [3, 4]), 0))
add("diff_prepend_append", call("diff", T(F, [3, 4]), 1, 1, T(D, [3, 2]), T(F, [3, 1]), dims=(2,)))
add("diff_kw", call("diff", T("int64", [5]), kw={"n": 2, "append": T("int64", [2])}))
add("diff_bool_n2", call("diff", V([True, False, False, True], "bool"), 2))
add("diff_uint8_wraps", call("diff", V([1, 5, 2], "uint8")))
add("diff_transposed", call("diff", T(F, [3, 4], "t"), 1, 0, dims=(2,)))
add("diff_0d", call("diff", T(F, [])))
add("diff_prepend_ndim", call("diff", T(F, [3, 4]), 1, 1, T(F, [4]), dims=(2,)))
add("diff_bad_dim", call("diff", T(F, [3, 4]), 1, 2, dims=(2,), expect=["range"]))
add("diff_empty", call("diff", T(F, [0, 3]), 1, 0, dims=(2,)))
add("diff_method", call("diff", T(F, [3, 4]), method=True))
for dt in FLOATS:
    add("dist_%s" % dt, call("dist", T(dt, [3, 4]), T(dt, [3, 4]), tol=TOL))
for p in [0, 1, 3, 0.5, INF, -INF]:
    add("dist_p%s" % p, call("dist", T(D, [3, 4]), T(D, [4]), p, tol=TOL))
add("dist_mixed", call("dist", T(F, [3]), T(D, [3]), tol=TOL))
add("dist_int", call("dist", T("int64", [3]), T("int64", [3])))
add("dist_sizes", call("dist", T(F, [2]), T(F, [3]), expect=["dims"]))
add("dist_method", call("dist", T(F, [3]), T(F, [3]), 1, method=True, tol=TOL))
for dt in FLOATS:
    add("renorm_%s" % dt, call("renorm", T(dt, [3, 4]), 2, 0, 1.5, dims=(2,), tol=TOL))
add("renorm_p1_dim1", call("renorm", T(D, [3, 4, 2]), 1, 1, 2, dims=(2,), tol=TOL))
add("renorm_inf", call("renorm", T(D, [3, 4]), INF, -1, 1.0, dims=(2,), tol=TOL))
add("renorm_big", call("renorm", T(D, [3, 4]), 2, 0, 100, dims=(2,), tol=TOL))
add("renorm_zero_maxnorm", call("renorm", T(D, [3, 4]), 3, 0, 0, dims=(2,), tol=TOL))
add("renorm_transposed", call("renorm", T(F, [3, 4], "t"), 2, 1, 1, dims=(2,), tol=TOL))
add("renorm_negative_maxnorm", call("renorm", T(F, [3, 4]), 2, 0, -1, dims=(2,)))
add("renorm_p0", call("renorm", T(F, [3, 4]), 0, 0, 1, dims=(2,)))
add("renorm_1d", call("renorm", T(F, [3]), 2, 0, 1, dims=(2,)))
add("renorm_int", call("renorm", T("int64", [3, 2]), 2, 0, 1, dims=(2,)))
add("renorm_bad_dim", call("renorm", T(F, [3, 4]), 2, 2, 1, dims=(2,), expect=["range"]))
add("renorm_method", call("renorm", T(F, [3, 4]), 2, 0, 1.0, method=True, dims=(2,), tol=TOL))
add("renorm_", call("renorm_", T(F, [3, 4]), 2, 1, 1.0, method=True, dims=(2,), tol=TOL))

# ---- cdist, pdist --------------------------------------------------------------------------
for p in [0, 1, 2, 3, 0.5, INF]:
    add("cdist_p%s" % p, call("cdist", T(D, [3, 4]), T(D, [5, 4]), p, tol=TOL))
    add("pdist_p%s" % p, call("pdist", T(D, [4, 3]), p, tol=TOL))
for dt in ["float32", "float64"]:
    add("cdist_%s" % dt, call("cdist", T(dt, [3, 2]), T(dt, [2, 2]), tol=TOL))
    add("pdist_%s" % dt, call("pdist", T(dt, [5, 2]), tol=TOL))
add("cdist_mm", call("cdist", T(D, [30, 3]), T(D, [4, 3]), tol={"float64": 1e-10}))
add("cdist_mm_forced", call("cdist", T(D, [3, 3]), T(D, [4, 3]), kw={"compute_mode": "use_mm_for_euclid_dist"},
                            tol={"float64": 1e-10}))
add("cdist_mm_refused", call("cdist", T(D, [30, 3]), T(D, [4, 3]), kw={"compute_mode": "donot_use_mm_for_euclid_dist"},
                             tol=TOL))
add("cdist_batch", call("cdist", T(D, [2, 1, 3, 4]), T(D, [3, 5, 4]), tol=TOL))
add("cdist_batch_mismatch", call("cdist", T(F, [2, 3, 4]), T(F, [3, 5, 4]), expect=["dims"]))
add("cdist_empty", call("cdist", T(F, [0, 3]), T(F, [4, 3])))
add("cdist_no_columns", call("cdist", T(F, [2, 0]), T(F, [4, 0])))
add("cdist_int", call("cdist", T("int64", [2, 3]), T("int64", [2, 3])))
add("cdist_1d", call("cdist", T(F, [3]), T(F, [3, 3])))
add("cdist_columns", call("cdist", T(F, [2, 3]), T(F, [3, 4])))
add("cdist_negative_p", call("cdist", T(F, [2, 3]), T(F, [3, 3]), -1.0))
add("cdist_mode", call("cdist", T(F, [2, 3]), T(F, [3, 3]), kw={"compute_mode": "fast"}))
add("cdist_dtypes", call("cdist", T(F, [2, 3]), T(D, [3, 3])))
add("cdist_transposed", call("cdist", T(F, [3, 4], "t"), T(F, [2, 3]), tol=TOL))
add("pdist_one_row", call("pdist", T(F, [1, 3])))
add("pdist_1d", call("pdist", T(F, [3])))
add("pdist_int", call("pdist", T("int64", [3, 2])))
add("pdist_negative_p", call("pdist", T(F, [3, 2]), -1.0))
add("pdist_transposed", call("pdist", T(F, [4, 3], "t"), tol=TOL))

# ---- cov, corrcoef -------------------------------------------------------------------------
for dt in ["float32", "float64", "int64", "int32", "uint8"]:
    add("cov_%s" % dt, call("cov", T(dt, [3, 5]), tol=TOL))
    add("corrcoef_%s" % dt, call("corrcoef", T(dt, [3, 5]), tol=TOL))
add("cov_1d", call("cov", T(D, [5]), tol=TOL))
add("cov_0d", call("cov", T(D, []), tol=TOL))
add("cov_correction0", call("cov", T(D, [2, 5]), kw={"correction": 0}, tol=TOL))
add("cov_correction2", call("cov", T(D, [2, 5]), kw={"correction": 2}, tol=TOL))
add("cov_fweights", call("cov", T(D, [2, 4]), kw={"fweights": V([1, 2, 0, 3], "int64")}, tol=TOL))
add("cov_aweights", call("cov", T(D, [2, 4]), kw={"aweights": V([0.5, 2.0, 1.0, 0.25], D)}, tol=TOL))
add("cov_both", call("cov", T(F, [2, 4]), kw={"fweights": V([1, 2, 1, 3], "int64"), "aweights": V([0.5, 2.0, 1.0, 0.25])},
                     tol=TOL))
add("cov_both_double", call("cov", T(D, [2, 4]), kw={"fweights": V([1, 2, 1, 3], "int64"),
                                                      "aweights": V([0.5, 2.0, 1.0, 0.25])}, tol=TOL))
add("cov_no_dof", call("cov", T(D, [2, 1])))
add("cov_3d", call("cov", T(F, [2, 3, 4])))
add("cov_bool", call("cov", T("bool", [3])))
add("cov_fweights_float", call("cov", T(F, [2, 3]), kw={"fweights": V([1.0, 2.0, 3.0])}))
add("cov_fweights_numel", call("cov", T(F, [2, 3]), kw={"fweights": V([1, 2], "int64")}))
add("cov_fweights_2d", call("cov", T(F, [2, 3]), kw={"fweights": V([[1, 2, 3]], "int64")}))
add("cov_fweights_negative", call("cov", T(F, [2, 3]), kw={"fweights": V([1, -2, 3], "int64")}))
add("cov_aweights_int", call("cov", T(F, [2, 3]), kw={"aweights": V([1, 2, 3], "int64")}))
add("cov_aweights_negative", call("cov", T(F, [2, 3]), kw={"aweights": V([1.0, -2.0, 3.0])}))
add("cov_weights_zero", call("cov", T(F, [2, 3]), kw={"aweights": V([0.0, 0.0, 0.0])}))
add("cov_transposed", call("cov", T(F, [3, 4], "t"), tol=TOL))
add("cov_method", call("cov", T(D, [3, 4]), method=True, tol=TOL))
add("corrcoef_1d", call("corrcoef", T(D, [5]), tol=TOL))
add("corrcoef_constant", call("corrcoef", V([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]), tol=TOL))
add("corrcoef_3d", call("corrcoef", T(F, [2, 3, 4])))
add("corrcoef_method", call("corrcoef", T(D, [3, 4]), method=True, tol=TOL))

# ---- trapezoid, trapz, cumulative_trapezoid ------------------------------------------------
for fn in ["trapezoid", "trapz", "cumulative_trapezoid"]:
    for dt in ["float32", "float64", "int64", "int32"]:
        add("%s_%s" % (fn, dt), call(fn, T(dt, [3, 5]), tol=TOL))
        add("%s_x_%s" % (fn, dt), call(fn, T(dt, [3, 5]), T(dt, [5]), tol=TOL))
    add("%s_dx" % fn, call(fn, T(D, [3, 5]), kw={"dx": 0.5}, tol=TOL))
    add("%s_dx_int" % fn, call(fn, T("int64", [3, 5]), kw={"dx": 2}, tol=TOL))
    add("%s_dim0" % fn, call(fn, T(D, [4, 3]), kw={"dim": 0}, dims=("dim",), tol=TOL))
    add("%s_x_2d" % fn, call(fn, T(D, [3, 4]), T(D, [3, 4]), kw={"dim": 0}, dims=("dim",), tol=TOL))
    add("%s_x_padded" % fn, call(fn, T(D, [2, 3, 4]), T(D, [3, 4]), kw={"dim": 1}, dims=("dim",), tol=TOL))
    add("%s_x_broadcast" % fn, call(fn, T(D, [3, 4]), T(D, [1, 4]), tol=TOL))
    add("%s_x_count" % fn, call(fn, T(F, [3, 4]), T(F, [3])))
    add("%s_bool" % fn, call(fn, T("bool", [3])))
    add("%s_x_bool" % fn, call(fn, T(F, [3]), T("bool", [3])))
    add("%s_empty" % fn, call(fn, T(F, [2, 0])))
    add("%s_one" % fn, call(fn, T(F, [2, 1])))
    add("%s_transposed" % fn, call(fn, T(F, [3, 4], "t"), tol=TOL))
    add("%s_bad_dim" % fn, call(fn, T(F, [3, 4]), kw={"dim": 2}, dims=("dim",), expect=["range"]))
add("trapezoid_dx_bool", call("trapezoid", T(F, [3]), kw={"dx": True}))
add("cumulative_trapezoid_dx_bool", call("cumulative_trapezoid", T(F, [3]), kw={"dx": True}))
add("trapezoid_0d", call("trapezoid", T(F, [])))

# ---- histc, bincount, histogram ------------------------------------------------------------
for dt in ["float32", "float64", "bfloat16"]:
    add("histc_%s" % dt, call("histc", T(dt, [4, 5]), 6, tol=TOL))
    add("histogram_%s" % dt, call("histogram", T(dt, [20]), 6, tol=TOL))
add("histc_range", call("histc", T(D, [30]), 7, -1, 2.5))
add("histc_edges", call("histc", V([0.0, 0.25, 0.5, 0.75, 1.0, 1.5, -0.5, NAN], D), 4, 0, 1))
add("histc_edges_float", call("histc", V([0.0, 0.1, 0.2, 0.3, 0.7, 0.9, 1.0]), 10, 0, 1))
add("histc_constant", call("histc", V([1.0, 1.0]), 4))
add("histc_default", call("histc", T(F, [50])))
add("histc_kw", call("histc", T(F, [10]), kw={"bins": 3, "min": -1, "max": 1}))
add("histc_empty", call("histc", T(F, [0]), 4))
add("histc_int", call("histc", T("int64", [4]), 4))
add("histc_half", call("histc", T("float16", [4]), 4))
add("histc_half_range", call("histc", T("float16", [4]), 4, 0, 1))
add("histc_bins0", call("histc", T(F, [4]), 0, expect=["dims"]))
add("histc_min_max", call("histc", T(F, [4]), 4, 3, 1))
add("histc_inf", call("histc", V([1.0, INF]), 4))
add("histc_transposed", call("histc", T(F, [3, 4], "t"), 5))
add("histc_method", call("histc", T(F, [3, 4]), 5, method=True))
for dt in INTS:
    add("bincount_%s" % dt, call("bincount", V([1, 3, 3, 0, 7, 1, 3], dt)))
add("bincount_minlength", call("bincount", V([1, 2], "int64"), None, 5))
add("bincount_weights", call("bincount", V([1, 2, 2, 0], "int64"), V([0.5, 1.0, 2.0, 0.25])))
add("bincount_weights_double", call("bincount", V([1, 2, 2, 0], "int64"), V([0.5, 1.0, 2.0, 0.25], D)))
add("bincount_weights_int", call("bincount", V([1, 2, 2, 0], "int64"), V([1, 2, 3, 4], "int64")))
add("bincount_weights_half", call("bincount", V([1, 2, 2], "uint8"), V([1.0, 2.0, 3.0], "float16")))
add("bincount_empty", call("bincount", T("int64", [0]), None, 3))
add("bincount_empty_weights", call("bincount", T("int64", [0]), T(F, [0]), 2))
add("bincount_float", call("bincount", V([1.0, 2.0])))
add("bincount_bool", call("bincount", V([True], "bool")))
add("bincount_negative", call("bincount", V([1, -2], "int64")))
add("bincount_2d", call("bincount", V([[1, 2]], "int64")))
add("bincount_minlength_negative", call("bincount", V([1, 2], "int64"), None, -1))
add("bincount_weights_length", call("bincount", V([1, 2], "int64"), V([1.0, 2.0, 3.0])))
add("bincount_method", call("bincount", V([4, 0, 4], "int64"), method=True))
add("histogram_range", call("histogram", T(D, [30]), 5, kw={"range": [-1.0, 2.0]}))
add("histogram_edges", call("histogram", V([0.0, 0.1, 0.2, 0.3, 0.7, 0.9, 1.0, 1.5, -0.5]), 10, kw={"range": [0.0, 1.0]}))
add("histogram_weight", call("histogram", T(D, [3, 4]), 4, kw={"weight": T(D, [3, 4], domain="pos")}, tol=TOL))
add("histogram_density", call("histogram", T(D, [20]), 4, kw={"density": True}, tol=TOL))
add("histogram_weight_density", call("histogram", T(F, [20]), 4, kw={"weight": T(F, [20], domain="pos"), "density": True},
                                     tol=TOL))
add("histogram_tensor_bins", call("histogram", T(D, [20]), V([-2.0, -0.5, 0.0, 0.25, 1.0, 3.0], D)))
add("histogram_tensor_bins_density", call("histogram", T(D, [20]), V([-2.0, -0.5, 0.0, 0.25, 1.0, 3.0], D),
                                          kw={"density": True}, tol=TOL))
add("histogram_tensor_bins_weight", call("histogram", T(D, [20]), V([-1.0, 0.0, 1.0], D), kw={"weight": T(D, [20])},
                                         tol=TOL))
add("histogram_one_edge", call("histogram", T(D, [5]), V([0.0], D), expect=["dims"]))
add("histogram_constant", call("histogram", V([1.0, 1.0]), 3))
add("histogram_empty", call("histogram", T(F, [0]), 3))
add("histogram_2d", call("histogram", T(F, [3, 4]), 3))
add("histogram_int", call("histogram", T("int64", [3]), 3))
add("histogram_bins0", call("histogram", T(F, [3]), 0, expect=["dims"]))
add("histogram_bad_range", call("histogram", T(F, [3]), 3, kw={"range": [2.0, 1.0]}, expect=["dims"]))
add("histogram_range_length", call("histogram", T(F, [3]), 3, kw={"range": [0.0, 1.0, 2.0]}))
add("histogram_nan", call("histogram", V([1.0, NAN]), 3, expect=["dims"]))
add("histogram_inf", call("histogram", V([1.0, INF]), 3, expect=["dims"]))
add("histogram_bins_dtype", call("histogram", T(F, [3]), V([0.0, 1.0], D), expect=["dims"]))
add("histogram_bins_2d", call("histogram", T(F, [3]), V([[0.0, 1.0]]), expect=["dims"]))
add("histogram_weight_shape", call("histogram", T(F, [2]), 3, kw={"weight": T(F, [3])}))
add("histogram_weight_dtype", call("histogram", T(F, [2]), 3, kw={"weight": T(D, [2])}))
add("histogram_method", call("histogram", T(D, [10]), 3, method=True))

# ---- gradient ------------------------------------------------------------------------------
for dt in ["float32", "float64", "int64", "int32", "bfloat16"]:
    add("gradient_%s" % dt, call("gradient", T(dt, [3, 5]), tol=TOL))
for e in [1, 2]:
    add("gradient_spacing_e%d" % e, call("gradient", T(D, [4, 5]), kw={"spacing": 0.5, "edge_order": e}, tol=TOL))
    add("gradient_dim_e%d" % e, call("gradient", T(D, [4, 5]), kw={"dim": 1, "edge_order": e}, dims=("dim",), tol=TOL))
    add("gradient_dims_e%d" % e, call("gradient", T(D, [3, 4, 5]), kw={"dim": [2, 0], "edge_order": e}, dims=("dim",),
                                       tol=TOL))
    add("gradient_spacings_e%d" % e, call("gradient", T(D, [4, 5]), kw={"spacing": [2.0, 0.5], "edge_order": e}, tol=TOL))
    add("gradient_spacings_dims_e%d" % e, call("gradient", T(D, [4, 5]), kw={"spacing": [3.0], "dim": [-1], "edge_order": e},
                                                dims=("dim",), tol=TOL))
    add("gradient_coords_e%d" % e, call("gradient", T(D, [4, 5]), kw={"spacing": [V([0.0, 1.0, 1.5, 3.5, 4.0], D)],
                                                                       "dim": 1, "edge_order": e}, dims=("dim",), tol=TOL))
    add("gradient_coords_all_e%d" % e, call("gradient", T(D, [3, 4]), kw={"spacing": [V([0.0, 2.0, 2.5], D),
                                                                                       V([-1.0, 0.0, 0.5, 3.0], D)],
                                                                           "edge_order": e}, tol=TOL))
    add("gradient_coords_dims_e%d" % e, call("gradient", T(D, [3, 4]), kw={"spacing": [V([0.0, 2.0, 2.5], D)], "dim": [0],
                                                                            "edge_order": e}, dims=("dim",), tol=TOL))
add("gradient_scalar_dims", call("gradient", T(D, [3, 4]), kw={"spacing": 2, "dim": [1, 0]}, dims=("dim",), tol=TOL))
add("gradient_int_coords", call("gradient", T("int64", [4]), kw={"spacing": [V([0, 1, 3, 4], "int64")]}, tol=TOL))
add("gradient_1d", call("gradient", T(F, [5]), tol=TOL))
add("gradient_transposed", call("gradient", T(F, [3, 4], "t"), tol=TOL))
add("gradient_uint8", call("gradient", T("uint8", [4])))
add("gradient_edge_order", call("gradient", T(F, [4]), kw={"edge_order": 3}))
add("gradient_small", call("gradient", T(F, [2, 4])))
add("gradient_small_e2", call("gradient", T(F, [3, 4]), kw={"edge_order": 2, "dim": 1}, dims=("dim",)))
add("gradient_spacing_length", call("gradient", T(F, [3, 4]), kw={"spacing": [1.0, 2.0, 3.0]}))
add("gradient_spacing_dims_length", call("gradient", T(F, [3, 4]), kw={"spacing": [1.0, 2.0], "dim": [1]}, dims=("dim",)))
add("gradient_dims_repeated", call("gradient", T(F, [3, 4]), kw={"dim": [1, 1]}, dims=("dim",), expect=["dims"]))
add("gradient_bad_dim", call("gradient", T(F, [3, 4]), kw={"dim": 2}, dims=("dim",), expect=["range"]))
add("gradient_coords_2d", call("gradient", T(F, [3, 4]), kw={"spacing": [T(F, [3, 4])], "dim": 1}, dims=("dim",)))

# ---- histogramdd (the counts; the edges are linspace or the given ones) ---------------------


def hist_dd(x, bins, **kw):
    return torch.histogramdd(x, bins, **kw)[0]


for b in [3, [3, 4]]:
    add("histogramdd_%s" % str(b).replace(", ", "_"), call("histogramdd", T(D, [10, 2]), b, via=hist_dd))
add("histogramdd_3d", call("histogramdd", T(D, [4, 5, 3]), [2, 3, 4], via=hist_dd))
add("histogramdd_float", call("histogramdd", T(F, [12, 2]), 3, via=hist_dd))
add("histogramdd_range", call("histogramdd", T(D, [10, 2]), [3, 2], kw={"range": [-1.0, 1.0, 0.0, 2.0]}, via=hist_dd))
add("histogramdd_weight", call("histogramdd", T(D, [2, 5, 2]), 3, kw={"weight": T(D, [2, 5], domain="pos")}, via=hist_dd,
                               tol=TOL))
add("histogramdd_density", call("histogramdd", T(D, [10, 2]), [2, 3], kw={"density": True}, via=hist_dd, tol=TOL))
add("histogramdd_tensors", call("histogramdd", T(D, [10, 2]), [V([-3.0, 0.0, 0.5, 3.0], D), V([-1.0, 1.0], D)],
                                via=hist_dd))
add("histogramdd_tensors_density", call("histogramdd", T(D, [10, 2]), [V([-3.0, 0.0, 0.5, 3.0], D), V([-1.0, 1.0], D)],
                                        kw={"density": True}, via=hist_dd, tol=TOL))
add("histogramdd_constant", call("histogramdd", V([[1.0, 2.0], [1.0, 2.0]]), 2, via=hist_dd))
add("histogramdd_1d", call("histogramdd", T(F, [5]), 3, via=hist_dd))
add("histogramdd_int", call("histogramdd", T("int64", [5, 2]), 3, via=hist_dd))
add("histogramdd_bins0", call("histogramdd", T(F, [5, 2]), [3, 0], via=hist_dd, expect=["dims"]))
add("histogramdd_few_edges", call("histogramdd", T(F, [5, 2]), [V([0.0, 1.0])], via=hist_dd))
add("histogramdd_range_length", call("histogramdd", T(F, [5, 2]), 3, kw={"range": [0.0, 1.0]}, via=hist_dd))
add("histogramdd_bad_range", call("histogramdd", T(F, [5, 2]), 3, kw={"range": [0.0, 1.0, 1.0, 0.0]}, via=hist_dd,
                                  expect=["dims"]))
add("histogramdd_weight_shape", call("histogramdd", T(F, [5, 2]), 3, kw={"weight": T(F, [4])}, via=hist_dd))
