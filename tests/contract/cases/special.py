"""torch.special against PyTorch: wide argument ranges (tiny, large, negative, near poles and
zeros, NaN, inf) in float32 and float64, layouts, integer inputs and refused dtypes."""
import math

import torch

from _opcase import T, V, call

CASES = {}

# results computed in double here and by PyTorch's own float code for float32: a few ulp apart
TOL = {"float32": 2e-6, "float64": 1e-13, "bfloat16": 8e-3, "float16": 1e-3}
INF, NAN = math.inf, math.nan

WIDE = [-1e3, -30.0, -26.5, -10.0, -5.5, -2.0, -1.0, -0.5, -1e-5, -0.0, 0.0, 1e-8, 1e-3, 0.25, 0.5, 0.75,
        1.0, 1.5, 2.0, 2.5, 3.0, 5.0, 8.0, 10.0, 20.0, 24.9, 25.5, 26.5, 30.0, 50.0, 100.0, 700.0, 710.0,
        1e4, 1e10, 1e30, INF, -INF, NAN]
PROBS = [0.0, 1e-300, 1e-100, 1e-30, 1e-10, 1e-3, 0.02, 0.1, 0.2, 0.25, 0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 0.975,
         0.999, 1 - 1e-10, 1 - 1e-16, 1.0, -0.1, 1.1, INF, NAN]
NONNEG = [0.0, 1e-300, 1e-10, 1e-3, 0.1, 0.5, 1.0, 1.9, 2.0, 2.1, 3.0, 5.0, 10.0, 20.0, 24.9, 25.1, 30.0,
          50.0, 100.0, 500.0, 700.0, 750.0, 1e4, 1e10, 1e300, INF, -1.0, -0.0, NAN]

# PyTorch 1.13's float64 J and Y are off by up to about 2e-7 (J0(5.5) = -0.0068438694178 by the
# tables of A&S 9; PyTorch gives -0.0068440327), and lose the argument's phase beyond about 1e4:
# ours (the C library's) are checked against them within that
TOL_JY = {"float32": 2e-6, "float64": 3e-7}
WIDE_JY = [v for v in WIDE if not 1e4 <= abs(v) < INF]
NONNEG_JY = [v for v in NONNEG if not 1e4 <= abs(v) < INF]

# name: (argument values, dtypes PyTorch's CPU kernel takes besides float32/float64)
UNARY = {
    "erfcx": (WIDE, []), "ndtr": (WIDE, ["bfloat16"]), "ndtri": (PROBS, []), "log_ndtr": (WIDE, []),
    "entr": (WIDE, ["bfloat16"]), "i0e": (WIDE, ["bfloat16"]), "i1": (WIDE, []), "i1e": (WIDE, []),
    "modified_bessel_i0": (WIDE, []), "modified_bessel_i1": (WIDE, []),
    "modified_bessel_k0": (NONNEG, []), "modified_bessel_k1": (NONNEG, []),
    "scaled_modified_bessel_k0": (NONNEG, []), "scaled_modified_bessel_k1": (NONNEG, []),
    "bessel_j0": (WIDE_JY, []), "bessel_j1": (WIDE_JY, []), "bessel_y0": (NONNEG_JY, []),
    "bessel_y1": (NONNEG_JY, []),
    "spherical_bessel_j0": (WIDE, []),
}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


for name, (vals, extra) in UNARY.items():
    fn = getattr(torch.special, name)
    op = "special_" + name
    tol = TOL_JY if name.startswith("bessel_") else TOL
    for dt in ["float32", "float64"]:
        add("%s_%s" % (name, dt), call(op, V(vals, dt), via=fn, tol=tol))
    for dt in ["float16", "bfloat16"]:  # computed, or PyTorch's "not implemented for" text
        add("%s_%s" % (name, dt), call(op, V([0.5, 1.0, 2.0], dt), via=fn, tol=TOL))
    add("%s_int64" % name, call(op, T("int64", [2, 3], domain="pos"), via=fn, tol=TOL))
    add("%s_bool" % name, call(op, V([True, False], "bool"), via=fn, tol=TOL))
    add("%s_transposed" % name, call(op, T("float32", [3, 4], "t", domain="pos"), via=fn, tol=TOL))
    add("%s_0d" % name, call(op, T("float64", [], domain="pos"), via=fn, tol=tol))
    add("%s_empty" % name, call(op, T("float32", [0, 3]), via=fn, tol=TOL))

# xlog1py: tensor and number operands, zeros against NaN, log1p's pole
XS = [0.0, 0.0, 0.0, -0.0, 1.0, -2.5, 3.0, 1e-3, 1e10, INF, NAN, 2.0]
YS = [0.5, NAN, -1.0, -1.0, -1.0, 2.0, -0.5, 1e-10, 1e30, 3.0, 1.0, -2.0]
for dt in ["float32", "float64", "float16", "bfloat16"]:
    add("xlog1py_%s" % dt, call("special_xlog1py", V(XS, dt), V(YS, dt), via=torch.special.xlog1py, tol=TOL))
add("xlog1py_self_scalar", call("special_xlog1py", 2.5, V(YS, "float32"), via=torch.special.xlog1py, tol=TOL))
add("xlog1py_other_scalar", call("special_xlog1py", V(XS, "float64"), 0.5, via=torch.special.xlog1py, tol=TOL))
add("xlog1py_broadcast", call("special_xlog1py", T("float32", [3, 1]), T("float32", [4], domain="pos"),
                              via=torch.special.xlog1py, tol=TOL))
add("xlog1py_int", call("special_xlog1py", T("int64", [3]), T("int32", [3], domain="pos"),
                        via=torch.special.xlog1py, tol=TOL))
add("xlog1py_mixed", call("special_xlog1py", T("float32", [3]), T("float64", [3], domain="pos"),
                          via=torch.special.xlog1py, tol=TOL))


# orthogonal polynomials: a grid of x (both sides of [-1, 1], its ends, the shifted ones' [0, 1])
# against degrees (negative, small, past the switch to the trigonometric forms, fractional)
PX = [[-2.0], [-1.0], [-0.99], [-0.5], [-0.1], [0.0], [0.1], [0.25], [0.5], [0.9], [1.0], [1.5], [3.0], [NAN]]
PN = [-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 12.0, 20.0, 2.7]
POLYS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p"]
for name in POLYS:
    fn = getattr(torch.special, name)
    op = "special_" + name
    for dt in ["float32", "float64"]:
        add("%s_%s" % (name, dt), call(op, V(PX, dt), V(PN, dt), via=fn, tol=TOL))
    add("%s_n_int" % name, call(op, V(PX, "float64"), V([0, 1, 3, 10], "int64"), via=fn, tol=TOL))
    add("%s_n_scalar" % name, call(op, V(PX, "float32"), 5, via=fn, tol=TOL))
    add("%s_x_scalar" % name, call(op, 0.3, V(PN, "float64"), via=fn, tol=TOL))
    add("%s_ints" % name, call(op, V([0, 1, 2], "int64"), V([3, 2, 1], "int32"), via=fn, tol=TOL))
    add("%s_float16" % name, call(op, V([0.5], "float16"), V([2.0], "float16"), via=fn, tol=TOL))

# the Hurwitz zeta function: the pole at x = 1, x < 1, q at and between non-positive integers,
# small and huge q, the large-q asymptote
ZX = [[1.0], [0.5], [1.0001], [1.5], [2.0], [3.0], [4.5], [10.0], [30.0], [100.0], [INF], [NAN]]
ZQ = [-3.0, -2.5, -0.5, 0.0, 1e-10, 0.1, 0.5, 1.0, 2.0, 7.5, 9.5, 100.0, 1e7, 2e8, 1e20, INF, NAN]
for dt in ["float32", "float64"]:
    add("zeta_%s" % dt, call("special_zeta", V(ZX, dt), V(ZQ, dt), via=torch.special.zeta, tol=TOL))
add("zeta_self_scalar", call("special_zeta", 2, V(ZQ, "float64"), via=torch.special.zeta, tol=TOL))
add("zeta_other_scalar", call("special_zeta", V(ZX, "float32"), 1, via=torch.special.zeta, tol=TOL))
add("zeta_ints", call("special_zeta", V([2, 3], "int64"), V([1, 2], "int64"), via=torch.special.zeta, tol=TOL))
add("zeta_float16", call("special_zeta", V([2.0], "float16"), V([1.0], "float16"), via=torch.special.zeta, tol=TOL))
