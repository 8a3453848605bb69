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
