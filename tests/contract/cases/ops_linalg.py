"""Matrix products against PyTorch: every matmul case, transposed operands, dtypes, misuse."""
import torch

from _opcase import T, call

CASES = {}
# PyTorch 1.13's CPU bfloat16 products round partial sums to bfloat16; mindtorch accumulates in
# float32 and rounds once (closer to the exact value): they agree within a few bfloat16 ulps
TOL = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 5e-2}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


for dt in ("float32", "float64", "bfloat16", "int64", "int32", "int16", "uint8", "float16", "bool"):
    add("mm_%s" % dt, call("mm", T(dt, [3, 4]), T(dt, [4, 5]), tol=TOL))
    add("bmm_%s" % dt, call("bmm", T(dt, [2, 3, 4]), T(dt, [2, 4, 5]), tol=TOL))
    add("mv_%s" % dt, call("mv", T(dt, [3, 4]), T(dt, [4]), tol=TOL))
    add("dot_%s" % dt, call("dot", T(dt, [5]), T(dt, [5]), tol=TOL))
    add("matmul_%s" % dt, call("matmul", T(dt, [2, 3, 4]), T(dt, [4, 2]), tol=TOL))
for dt in ("float32", "float64"):
    for la in ("contig", "t"):
        for lb in ("contig", "t", "sliced"):
            add("mm_%s_%s_%s" % (dt, la, lb), call("mm", T(dt, [3, 4], la), T(dt, [4, 5], lb), tol=TOL))
            add("bmm_%s_%s_%s" % (dt, la, lb), call("bmm", T(dt, [2, 3, 4], la), T(dt, [2, 4, 5], lb), tol=TOL))
    add("mv_%s_t" % dt, call("mv", T(dt, [3, 4], "t"), T(dt, [4]), tol=TOL))
    add("mv_%s_sliced" % dt, call("mv", T(dt, [3, 4], "sliced"), T(dt, [4], "sliced"), tol=TOL))
    add("mm_%s_expanded" % dt, call("mm", T(dt, [3, 4], "expand", base_shape=[1, 4]), T(dt, [4, 2]), tol=TOL))
    add("dot_%s_sliced" % dt, call("dot", T(dt, [5], "sliced"), T(dt, [5]), tol=TOL))
    add("dot_%s_expanded" % dt, call("dot", T(dt, [5], "expand", base_shape=[1]), T(dt, [5]), tol=TOL))
MATMUL = {"1d_1d": ([4], [4]), "2d_1d": ([3, 4], [4]), "1d_2d": ([3], [3, 4]), "2d_2d": ([3, 4], [4, 2]),
          "3d_1d": ([2, 3, 4], [4]), "3d_2d": ([2, 3, 4], [4, 5]), "1d_3d": ([3], [2, 3, 4]),
          "2d_3d": ([5, 3], [2, 3, 4]), "3d_3d": ([2, 3, 4], [2, 4, 5]), "4d_3d": ([2, 1, 3, 4], [5, 4, 2]),
          "4d_1d": ([2, 2, 3, 4], [4]), "1d_4d": ([3], [2, 2, 3, 4]), "bcast_4d_4d": ([2, 1, 3, 4], [1, 3, 4, 2]),
          "empty_k": ([3, 0], [0, 2]), "empty_rows": ([0, 4], [4, 2])}
for name, (a, b) in MATMUL.items():
    add("matmul_%s" % name, call("matmul", T("float32", a), T("float32", b), tol=TOL))
    add("matmul_%s_t" % name, call("matmul", T("float32", a, "t" if len(a) > 1 else "contig"),
                                   T("float32", b, "t" if len(b) > 1 else "contig"), tol=TOL))
add("matmul_int", call("matmul", T("int64", [2, 3, 4]), T("int64", [2, 4, 2])))
add("matmul_0d", call("matmul", T("float32", []), T("float32", [3, 4])))
add("matmul_bad", call("matmul", T("float32", [2, 3]), T("float32", [2, 3])))
add("matmul_bad_bcast", call("matmul", T("float32", [4, 2, 3]), T("float32", [5, 3, 2]), expect=["dims"]))
add("matmul_3d_1d_bad", call("matmul", T("float32", [4, 2, 3]), T("float32", [4])))
add("matmul_dtype", call("matmul", T("float32", [2, 3]), T("float64", [3, 4])))
add("matmul_method", call("matmul", T("float32", [2, 3]), T("float32", [3, 4]), method=True, tol=TOL))
add("mm_bad", call("mm", T("float32", [2, 3]), T("float32", [4, 5])))
add("mm_1d", call("mm", T("float32", [3]), T("float32", [3, 4])))
add("mm_dtype", call("mm", T("float32", [2, 3]), T("float64", [3, 4])))
add("bmm_bad", call("bmm", T("float32", [2, 2, 3]), T("float32", [2, 4, 4])))
add("bmm_bad_batch", call("bmm", T("float32", [2, 2, 3]), T("float32", [3, 3, 4])))
add("bmm_2d", call("bmm", T("float32", [2, 3]), T("float32", [2, 3, 4])))
add("mv_bad", call("mv", T("float32", [2, 3]), T("float32", [4])))
add("mv_2d", call("mv", T("float32", [2, 3]), T("float32", [2, 3])))
add("dot_bad", call("dot", T("float32", [3]), T("float32", [4])))
add("dot_2d", call("dot", T("float32", [2, 3]), T("float32", [3])))
add("dot_dtype", call("dot", T("float32", [3]), T("float64", [3])))
add("outer", call("outer", T("float32", [3]), T("float32", [4])))
add("outer_int_float", call("outer", T("int64", [3]), T("float32", [4])))
add("outer_2d", call("outer", T("float32", [2, 3]), T("float32", [4])))
for dt in ("float32", "float64", "int64"):
    add("addmm_%s" % dt, call("addmm", T(dt, [4]), T(dt, [2, 3]), T(dt, [3, 4]), kw={"beta": 2, "alpha": 3}, tol=TOL))
    add("addmv_%s" % dt, call("addmv", T(dt, [2]), T(dt, [2, 3]), T(dt, [3]), kw={"beta": 2, "alpha": 3}, tol=TOL))
    add("baddbmm_%s" % dt, call("baddbmm", T(dt, [2, 1, 4]), T(dt, [2, 2, 3]), T(dt, [2, 3, 4]),
                                kw={"beta": 2, "alpha": 3}, tol=TOL))
add("addmm_float_scalars", call("addmm", T("float32", [2, 4]), T("float32", [2, 3]), T("float32", [3, 4]),
                                kw={"beta": 0.5, "alpha": 1.5}, tol=TOL))
add("addmm_int_beta_float", call("addmm", T("int64", [2, 4]), T("int64", [2, 3]), T("int64", [3, 4]), kw={"beta": 0.5}))
add("addmm_bad_self", call("addmm", T("float32", [3]), T("float32", [2, 3]), T("float32", [3, 4]), expect=["dims"]))
add("addmm_beta0_nan", call("addmm", T("float32", [2, 4]) and __import__("_opcase").V([float("nan")] * 4), T("float32", [2, 3]),
                            T("float32", [3, 4]), kw={"beta": 0}, tol=TOL))
add("mm_empty", call("mm", T("float32", [2, 0]), T("float32", [0, 3])))
add("mm_empty_rows", call("mm", T("float32", [0, 3]), T("float32", [3, 4])))
add("mm_large", call("mm", T("float32", [64, 96]), T("float32", [96, 80]), tol={"float32": 1e-4}))
