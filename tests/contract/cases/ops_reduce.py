"""Reductions and ops along a dim against PyTorch: every dtype, dims as ints and lists,
keepdim, transposed and sliced inputs, 0-d and empty tensors, and misuse."""
import torch

from _opcase import ALL, FLOATS, INTS, NUMS, T, V, call

CASES = {}
# bfloat16: PyTorch 1.13's CPU sums over several dims round partial sums to bfloat16 (a 3x4x5
# sum over (-1, 0) gives -0.6875 where the exact value is -0.7236); mindtorch accumulates in
# float32 and rounds once, so the two agree only within a few bfloat16 ulps of the partial sums
TOL = {"float32": 3e-6, "float64": 1e-12, "float16": 2e-3, "bfloat16": 5e-2}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


SHAPE = [3, 4, 5]
# full reductions over every dtype
for fn in ("sum", "nansum", "mean", "prod", "max", "min", "argmax", "argmin", "all", "any", "std", "var", "norm",
           "amax", "amin"):
    for dt in ALL:
        idx = (0,) if fn in ("argmax", "argmin") else ()
        add("%s_%s" % (fn, dt), call(fn, T(dt, SHAPE), tol=TOL, index_out=idx))
    add("%s_transposed" % fn, call(fn, T("float32", SHAPE, "t"), tol=TOL,
                                   index_out=(0,) if fn in ("argmax", "argmin") else ()))
    add("%s_0d" % fn, call(fn, T("float32", []), tol=TOL, index_out=(0,) if fn in ("argmax", "argmin") else ()))
    add("%s_empty" % fn, call(fn, T("float32", [0, 3]), tol=TOL, index_out=(0,) if fn in ("argmax", "argmin") else ()))

# over dims: ints, negative, lists, keepdim; layouts
DIMS = [0, 1, -1, [0, 2], [-1, 0], [1]]
for fn in ("sum", "nansum", "mean", "amax", "amin", "std", "var", "logsumexp"):
    for d in DIMS:
        tag = ("l" if isinstance(d, list) else "") + str(d).replace("[", "").replace("]", "").replace(", ", "_").replace("-", "m")
        for keep in (False, True):
            for lay in ("contig", "t", "sliced"):
                add("%s_dim%s_%s%s" % (fn, tag, lay, "_keep" if keep else ""),
                    call(fn, T("float32", SHAPE, lay), d, keep, dims=(1,), tol=TOL))
        add("%s_dim%s_int64" % (fn, tag), call(fn, T("int64", SHAPE), d, dims=(1,), tol=TOL))
        add("%s_dim%s_float64" % (fn, tag), call(fn, T("float64", SHAPE), d, dims=(1,), tol=TOL))
        add("%s_dim%s_bfloat16" % (fn, tag), call(fn, T("bfloat16", SHAPE), d, dims=(1,), tol=TOL))
for fn in ("max", "min"):
    for d in (0, 1, -1):
        for keep in (False, True):
            for dt in ("float32", "int64", "bool", "float16"):
                add("%s_dim%d_%s%s" % (fn, d, dt, "_keep" if keep else ""),
                    call(fn, T(dt, SHAPE, "t"), d, keep, dims=(1,), index_out=(1,)))
for fn in ("argmax", "argmin"):
    for d in (0, 1, -1):
        for keep in (False, True):
            add("%s_dim%d%s" % (fn, d, "_keep" if keep else ""),
                call(fn, T("float32", SHAPE, "sliced"), d, keep, dims=(1,), index_out=(0,)))
    add("%s_keepdim_nodim" % fn, call(fn, T("float32", SHAPE), kw={"keepdim": True}, index_out=(0,)))
for fn in ("prod", "all", "any", "cumsum", "cumprod", "softmax", "log_softmax"):
    for d in (0, 1, -1):
        for dt in ("float32", "int64", "bool", "float64", "bfloat16", "uint8"):
            if fn in ("softmax", "log_softmax") and dt not in FLOATS:
                if d != -1:
                    continue
            add("%s_dim%d_%s" % (fn, d, dt), call(fn, T(dt, SHAPE, "t" if d == 1 else "contig"), d,
                                                   dims=(1,), tol=TOL))

# dtype arguments
for fn in ("sum", "nansum", "mean", "prod", "cumsum"):
    for dt in ("float64", "float16", "int64"):
        add("%s_dtype_%s" % (fn, dt), call(fn, T("int32", SHAPE) if fn != "mean" else T("float32", SHAPE),
                                           kw={"dtype": getattr(torch, dt)}, tol=TOL) if fn != "cumsum"
            else call(fn, T("int32", SHAPE), 1, kw={"dtype": getattr(torch, dt)}, dims=(1,), tol=TOL))
add("softmax_dtype", call("softmax", T("float32", SHAPE), 1, torch.float64, dims=(1,), tol=TOL))
add("log_softmax_dtype", call("log_softmax", T("float32", SHAPE), 1, kw={"dtype": torch.float64}, dims=(1,), tol=TOL))

# var/std corrections and the *_mean forms
for fn in ("var", "std"):
    add("%s_unbiased_false" % fn, call(fn, T("float32", SHAPE), False, tol=TOL))
    add("%s_dim_unbiased" % fn, call(fn, T("float32", SHAPE), 1, False, True, dims=(1,), tol=TOL))
    for corr in (0, 1, 2, 5):
        add("%s_correction_%d" % (fn, corr), call(fn, T("float32", [4, 5]), 1, kw={"correction": corr},
                                                  dims=(1,), tol=TOL))
    add("%s_single" % fn, call(fn, T("float32", [1]), tol=TOL))
    add("%s_mean" % fn, call(fn + "_mean", T("float32", SHAPE), tol=TOL))
    add("%s_mean_dim" % fn, call(fn + "_mean", T("float64", SHAPE), [0, 2], True, True, dims=(1,), tol=TOL))

# norms
for p in (1, 2, 3, 0, 0.5, float("inf"), float("-inf")):
    add("norm_p%s" % str(p).replace(".", "p").replace("-", "m"), call("norm", T("float32", SHAPE), p, tol=TOL))
    add("norm_p%s_dim" % str(p).replace(".", "p").replace("-", "m"),
        call("norm", T("float64", SHAPE), p, 1, dims=(2,), tol=TOL))
add("norm_dim_keyword", call("norm", T("float32", SHAPE), kw={"dim": [0, 2], "keepdim": True}, dims=("dim",), tol=TOL))

# special values, empty reductions and misuse
add("max_nan", call("max", V([1.0, float("nan"), 3.0, float("nan")]), 0, dims=(1,), index_out=(1,)))
add("argmax_nan", call("argmax", V([1.0, float("nan"), 3.0, float("nan")]), index_out=(0,)))
add("min_ties", call("min", V([2.0, 1.0, 1.0, 3.0]), 0, dims=(1,), index_out=(1,)))
add("argmax_ties", call("argmax", V([3.0, 1.0, 3.0]), index_out=(0,)))
add("amax_inf", call("amax", V([float("-inf"), float("-inf")]), 0, dims=(1,)))
add("logsumexp_inf", call("logsumexp", V([float("-inf"), float("-inf")]), 0, dims=(1,)))
add("logsumexp_posinf", call("logsumexp", V([float("inf"), 1.0]), 0, dims=(1,)))
add("softmax_inf", call("softmax", V([float("-inf"), 0.0, 1.0]), 0, dims=(1,), tol=TOL))
add("max_empty_1d", call("max", T("float32", [0])))
add("max_empty_dim", call("max", T("float32", [0, 3]), 0, dims=(1,), index_out=(1,), expect=["dims"]))
add("max_empty_other_dim", call("max", T("float32", [0, 3]), 1, dims=(1,), index_out=(1,)))
add("amax_empty_dim", call("amax", T("float32", [2, 0]), 1, dims=(1,), expect=["dims"]))
add("argmin_empty_1d", call("argmin", T("float32", [0]), index_out=(0,)))
add("sum_empty_dim", call("sum", T("float32", [0, 3]), 0, dims=(1,)))
add("mean_empty_1d", call("mean", T("float32", [0])))
add("prod_empty_int", call("prod", T("int64", [0])))
add("all_empty_1d", call("all", T("float32", [0])))
add("sum_dup_dims", call("sum", T("float32", SHAPE), [0, 0], dims=(1,), expect=["dims"]))
add("sum_dim_range", call("sum", T("float32", SHAPE), 3, dims=(1,), expect=["range"]))
add("sum_0d_dim", call("sum", T("float32", []), 0, dims=(1,)))
add("max_0d_dim", call("max", T("float32", []), 0, dims=(1,), index_out=(1,)))
add("mean_int", call("mean", T("int64", SHAPE)))
# float16 and bfloat16 means are PyTorch's to the bit: the sum rounded to the dtype, divided by
# the count rounded to it (sums over dims that are not next to each other, [0, 2], add in another
# order than PyTorch's: not here)
for dt in ("float16", "bfloat16"):
    add("mean_exact_%s" % dt, call("mean", T(dt, [6, 7, 33])))
    for tag, d in (("0", 0), ("m1", -1), ("l1_2", [-1, -2])):
        add("mean_exact_dim%s_%s" % (tag, dt), call("mean", T(dt, [6, 7, 33]), d, True, dims=(1,)))
    add("mean_exact_t_%s" % dt, call("mean", T(dt, [6, 7, 33], "t"), 0, dims=(1,)))
    add("mean_exact_long_%s" % dt, call("mean", T(dt, [3, 2500]), 1, dims=(1,)))
    add("sum_exact_%s" % dt, call("sum", T(dt, [6, 7, 33])))
    add("sum_exact_small_%s" % dt, call("sum", T(dt, [40])))
    add("sum_exact_dimm1_%s" % dt, call("sum", T(dt, [6, 7, 33]), -1, True, dims=(1,)))
add("mean_int_dtype", call("mean", T("float32", SHAPE), kw={"dtype": torch.int64}))
add("std_int", call("std", T("int64", SHAPE)))
add("norm_int", call("norm", T("int64", SHAPE)))
add("softmax_int", call("softmax", T("int64", SHAPE), -1, dims=(1,)))
add("softmax_half", call("softmax", T("float16", SHAPE), -1, dims=(1,)))
add("softmax_half_dim0", call("softmax", T("float16", SHAPE), 0, dims=(1,)))
add("cumsum_half", call("cumsum", T("float16", SHAPE), 0, dims=(1,)))
add("cumsum_empty", call("cumsum", T("float32", [0, 3]), 1, dims=(1,)))
add("cumsum_0d", call("cumsum", T("float32", []), 0, dims=(1,)))
add("sum_method", call("sum", T("float32", SHAPE), 1, method=True, dims=(1,), tol=TOL))
add("sum_keyword", call("sum", T("float32", SHAPE), kw={"dim": 2, "keepdim": True}, dims=("dim",), tol=TOL))
add("max_other", call("max", T("float32", SHAPE), T("float32", [5])))
add("sum_large", call("sum", T("float32", [100, 1000]), tol={"float32": 2e-5}))
add("sum_large_dim0", call("sum", T("float32", [1000, 100]), 0, dims=(1,), tol={"float32": 2e-5}))
# nansum: NaN counts as zero (a row of NaN sums to 0); infinities still add
WITH_NAN = [[1.0, float("nan"), 3.0], [float("nan"), float("nan"), float("nan")], [float("inf"), float("nan"), 2.0]]
add("nansum_nan", call("nansum", V(WITH_NAN)))
add("nansum_nan_dim", call("nansum", V(WITH_NAN), 1, dims=(1,)))
add("nansum_nan_dims_keep", call("nansum", V(WITH_NAN), [0, 1], True, dims=(1,)))
add("nansum_nan_float64", call("nansum", V(WITH_NAN, "float64"), 0, dims=(1,)))
add("nansum_dup_dims", call("nansum", T("float32", SHAPE), [1, 1], dims=(1,), expect=["dims"]))
add("sum_large_int", call("sum", T("int32", [300, 700])))
# isclose / allclose / equal
NAN, INF = float("nan"), float("inf")
for dt in ALL:
    add("isclose_%s" % dt, call("isclose", T(dt, [3, 4]), T(dt, [3, 4])))
    add("equal_%s" % dt, call("equal", T(dt, [2, 3]), T(dt, [2, 3])))
add("isclose_special", call("isclose", V([1.0, NAN, INF, -INF, 1.0, 1e-9]), V([1.0, NAN, INF, INF, 1.00001, 0.0])))
add("isclose_equal_nan", call("isclose", V([1.0, NAN, INF]), V([1.0, NAN, INF]), kw={"equal_nan": True}))
add("isclose_tolerances", call("isclose", V([1.0, 2.0, 3.0]), V([1.1, 2.5, 3.0]), kw={"rtol": 0.0, "atol": 0.2}))
add("isclose_zero_tolerances", call("isclose", V([1.0, 2.0]), V([1.0, 2.0000001]), kw={"rtol": 0.0, "atol": 0.0}))
add("isclose_broadcast", call("isclose", T("float32", [3, 1]), T("float32", [4])))
add("isclose_int_tolerance", call("isclose", V([100, 200], "int64"), V([101, 200], "int64"), kw={"rtol": 0.01}))
add("isclose_mixed_dtypes", call("isclose", T("float32", [2]), T("float64", [2])))
add("isclose_negative_rtol", call("isclose", T("float32", [2]), T("float32", [2]), kw={"rtol": -1.0}))
add("isclose_negative_atol", call("isclose", T("float32", [2]), T("float32", [2]), kw={"atol": -1.0}))
add("allclose_true", call("allclose", V([1.0, 2.0]), V([1.0, 2.00001])))
add("allclose_false", call("allclose", V([1.0, 2.0]), V([1.0, 2.1])))
add("allclose_nan", call("allclose", V([NAN]), V([NAN]), kw={"equal_nan": True}))
add("allclose_method", call("allclose", T("float64", [3]), T("float64", [3]), method=True))
add("equal_same", call("equal", V([[1, 2], [3, 4]], "int64"), V([[1, 2], [3, 4]], "int64")))
add("equal_mixed_dtypes", call("equal", V([1, 2], "int64"), V([1.0, 2.0])))
add("equal_sizes_differ", call("equal", V([1, 2], "int64"), V([1], "int64")))
add("equal_nan", call("equal", V([NAN]), V([NAN])))
add("equal_transposed", call("equal", T("float32", [3, 2], "t"), T("float32", [3, 2], "t")))
add("equal_broadcastable", call("equal", V([1.0, 1.0]), V([1.0])))
add("equal_method", call("equal", V([1.0, 2.0]), V([1.0, 2.0]), method=True))
