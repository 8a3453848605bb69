"""Element-wise ops against PyTorch: every dtype, and contiguous, transposed, strided,
broadcast, 0-d, empty and scalar operands, in-place forms and Lua operators."""
import torch

from _opcase import ALL, FLOATS, INTS, NUMS, T, V, call, layouts

CASES = {}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


# transcendental results differ from PyTorch's SLEEF-based kernels in the last bits
TOL = {"float32": 2e-6, "float64": 1e-13, "float16": 1e-3, "bfloat16": 8e-3}

BINARY = {  # name: (dtypes PyTorch supports, domain of the second operand, needs tolerance)
    "add": (ALL, None, False), "sub": (NUMS, None, False), "mul": (ALL, None, False),
    "div": (NUMS, "nonzero", False), "true_divide": (NUMS, "nonzero", False),
    "floor_divide": (NUMS, "nonzero", False), "remainder": (NUMS, "nonzero", False),
    "fmod": (NUMS, "nonzero", False), "atan2": (NUMS, None, True), "maximum": (ALL, None, False),
    "minimum": (ALL, None, False), "eq": (ALL, None, False), "ne": (ALL, None, False),
    "lt": (ALL, None, False), "le": (ALL, None, False), "gt": (ALL, None, False), "ge": (ALL, None, False),
    "logical_and": (ALL, None, False), "logical_or": (ALL, None, False), "logical_xor": (ALL, None, False),
    "bitwise_and": (INTS + ["bool"], None, False), "bitwise_or": (INTS + ["bool"], None, False),
    "bitwise_xor": (INTS + ["bool"], None, False),
    "bitwise_left_shift": (INTS, "shift", False), "bitwise_right_shift": (INTS, "shift", False),
    "pow": (NUMS, "exp", True),
    "fmax": (ALL, None, False), "fmin": (ALL, None, False),
    "hypot": (["float32", "float64", "bfloat16"], None, True),
    "logaddexp": (["float32", "float64", "bfloat16"], None, True),
    "logaddexp2": (["float32", "float64", "bfloat16"], None, True),
    "copysign": (ALL, None, False), "nextafter": (["float32", "float64", "bfloat16"], None, False),
    "heaviside": (ALL, None, False), "xlogy": (ALL, "pos", True),
    "gcd": (INTS, None, False), "lcm": (INTS, None, False),
}

for name, (dtypes, domain, tol) in BINARY.items():
    dom2 = None if domain in ("shift", "exp") else domain
    for dt in ALL:  # every dtype: supported ones compute, the others give PyTorch's error
        a = T(dt, [3, 4], domain="pos" if name == "pow" and dt in FLOATS else None)
        b = T(dt, [3, 4], domain=dom2 if dt != "bool" else None)
        if name in ("bitwise_left_shift", "bitwise_right_shift") and dt in INTS:
            b = T(dt, [3, 4], domain="pos")
        if name == "pow" and dt in INTS:
            b = T(dt, [3, 4], domain="pos")
        add("%s_%s" % (name, dt), call(name, a, b, tol=TOL if tol else None))
    for dt in ("float32", "int64", "float16"):
        if dt not in dtypes:
            continue
        t = TOL if tol else None
        pos = "pos" if name == "pow" and dt in FLOATS else None
        two = {"shift": "pos", "exp": "pos"}.get(domain, domain)
        L = layouts(dt, domain=pos)
        R = layouts(dt, domain=two)
        add("%s_%s_transposed" % (name, dt), call(name, L["t"], R["contig"], tol=t))
        add("%s_%s_both_transposed" % (name, dt), call(name, L["t"], R["t"], tol=t))
        add("%s_%s_sliced" % (name, dt), call(name, L["sliced"], R["t"], tol=t))
        add("%s_%s_broadcast_row" % (name, dt), call(name, L["contig"], T(dt, [4], domain=two), tol=t))
        add("%s_%s_broadcast_expand" % (name, dt),
            call(name, T(dt, [3, 4], "expand", domain=pos, base_shape=[3, 1]), R["t"], tol=t))
        add("%s_%s_0d" % (name, dt), call(name, L["0d"], R["contig"], tol=t))
        add("%s_%s_empty" % (name, dt), call(name, L["empty"], R["empty"], tol=t))
        add("%s_%s_scalar_int" % (name, dt), call(name, L["contig"], 2, tol=t, expect=["argtypes"]))
        if name not in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"):
            add("%s_%s_scalar_float" % (name, dt), call(name, L["t"], 1.5, tol=t, expect=["argtypes"]))
        add("%s_%s_mismatch" % (name, dt), call(name, T(dt, [3, 4]), T(dt, [3, 5]), expect=["dims"]))

# mixed dtypes promote as PyTorch does (dimensioned tensors, 0-d tensors, numbers)
MIXED = [("int64", "float32"), ("uint8", "int8"), ("float16", "float32"), ("float16", "bfloat16"),
         ("bool", "int32"), ("int32", "float64"), ("bool", "float16"), ("uint8", "bool")]
for a, b in MIXED:
    for name in ("add", "mul", "div", "maximum", "eq", "remainder"):
        add("%s_mixed_%s_%s" % (name, a, b), call(name, T(a, [2, 3]), T(b, [2, 3], domain="nonzero")))
        add("%s_mixed_0d_%s_%s" % (name, a, b), call(name, T(a, [2, 3]), T(b, [], domain="nonzero")))
for dt in ALL:
    add("add_number_float_%s" % dt, call("add", T(dt, [4]), 2.5))
    add("add_number_int_%s" % dt, call("add", T(dt, [4]), 300))
    add("add_number_bool_%s" % dt, call("add", T(dt, [4]), True))
    add("mul_0d_float64_%s" % dt, call("mul", T(dt, [4]), T("float64", [])))

# alpha and rounding modes
add("add_alpha", call("add", T("float32", [3]), T("float32", [3]), kw={"alpha": 2}))
add("add_alpha_float_int", call("add", T("int64", [3]), T("int64", [3]), kw={"alpha": 0.5}))
add("add_alpha_bool", call("add", T("int64", [3]), T("int64", [3]), kw={"alpha": True}))
add("sub_alpha", call("sub", T("float64", [3]), T("float64", [3]), kw={"alpha": -1.5}))
add("sub_bool_bool", call("sub", T("bool", [3]), T("bool", [3])))
add("sub_bool_int", call("sub", T("bool", [3]), T("int64", [3])))
add("sub_bool_number", call("sub", T("bool", [3]), 1))
for dt in NUMS:
    for mode in ("trunc", "floor"):
        add("div_%s_%s" % (mode, dt), call("div", T(dt, [3, 4]), T(dt, [3, 4], domain="nonzero"),
                                             kw={"rounding_mode": mode}))
        add("div_%s_%s_scalar" % (mode, dt), call("div", T(dt, [3, 4]), -2, kw={"rounding_mode": mode}))
add("div_bad_mode", call("div", T("float32", [3]), T("float32", [3]), kw={"rounding_mode": "x"}))
for name in ("div", "floor_divide", "remainder", "fmod"):
    add("%s_int_by_zero" % name, call(name, T("int64", [3]), 0,
                                      kw={"rounding_mode": "trunc"} if name == "div" else None))
add("floor_divide_float_by_zero", call("floor_divide", V([1.0, -1.0, 0.0]), 0.0))
add("remainder_scalar_tensor", call("remainder", 7, T("int64", [4], domain="nonzero")))
add("fmod_negative", call("fmod", T("float32", [3, 4]), -1.5))
add("remainder_negative", call("remainder", T("float32", [3, 4]), -1.5))

# pow's special forms
for e in (2, 3, 0.5, -0.5, -1, -2, 1.7, 0):
    for dt in ("float32", "float64", "float16"):
        add("pow_%s_%s" % (dt, str(e).replace(".", "p").replace("-", "m")),
            call("pow", T(dt, [3, 4], domain="pos"), e, tol=TOL))
add("pow_int_2", call("pow", T("int64", [3, 4]), 2))
add("pow_int_negative", call("pow", T("int64", [3, 4]), -1))
add("pow_int_float", call("pow", T("int64", [3, 4], domain="pos"), 0.5, tol=TOL))
add("pow_scalar_base", call("pow", 2, T("int64", [4], domain="pos")))
add("pow_scalar_float_base", call("pow", 2.5, T("float32", [4]), tol=TOL))
add("pow_int_tensor_negative_exp", call("pow", V([1, -1, 2, -1, 0, 3], "int64"), V([-1, -2, -3, -3, 2, 3], "int64")))
add("pow_bool_scalar", call("pow", T("bool", [4]), 2))

UNARY = {  # name: (domain, needs tolerance)
    "neg": (None, False), "abs": (None, False), "sign": (None, False), "reciprocal": ("nonzero", True),
    "sqrt": ("pos", True), "rsqrt": ("pos", True), "exp": (None, True), "exp2": (None, True),
    "expm1": (None, True), "log": ("pos", True), "log2": ("pos", True), "log10": ("pos", True),
    "log1p": ("pos", True), "sin": (None, True), "cos": (None, True), "tan": (None, True),
    "asin": ("unit", True), "acos": ("unit", True), "atan": (None, True), "sinh": (None, True),
    "cosh": (None, True), "tanh": (None, True), "sigmoid": (None, True), "relu": (None, False),
    "erf": (None, True), "erfc": (None, True), "erfinv": ("unit", True),
    "asinh": (None, True), "acosh": ("pos", True), "atanh": ("unit", True), "signbit": (None, False),
    "floor": (None, False), "ceil": (None, False), "round": (None, False), "trunc": (None, False),
    "frac": (None, False), "isnan": (None, False), "isinf": (None, False), "isfinite": (None, False),
    "logical_not": (None, False), "bitwise_not": (None, False),
    "deg2rad": (None, False), "rad2deg": (None, False), "sinc": (None, True),
    "isposinf": (None, False), "isneginf": (None, False),
}
for name, (domain, tol) in UNARY.items():
    t = TOL if tol else None
    for dt in ALL:
        add("%s_%s" % (name, dt), call(name, T(dt, [3, 4], domain=domain), tol=t))
    for dt in ("float32", "int64"):
        L = layouts(dt, domain=domain)
        for lay in ("t", "sliced", "0d", "empty"):
            add("%s_%s_%s" % (name, dt, lay), call(name, L[lay], tol=t))
        add("%s_%s_method" % (name, dt), call(name, L["contig"], method=True, tol=t))
        if name not in ("isnan", "isinf", "isfinite", "signbit", "isposinf", "isneginf"):
            add("%s_%s_inplace" % (name, dt), call(name + "_", L["t"], method=True, tol=t))

SPECIAL = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 0.5, 1.5, 2.5, -0.5, -2.5]
for name in ("sign", "relu", "round", "floor", "ceil", "trunc", "frac", "isnan", "isinf", "isfinite",
             "abs", "neg", "sigmoid", "exp", "log", "sqrt", "tanh", "erf", "erfc", "erfinv", "signbit",
             "asinh", "acosh", "atanh", "deg2rad", "rad2deg", "sinc", "isposinf", "isneginf"):
    add("%s_special_values" % name, call(name, V(SPECIAL), tol=TOL))
add("heaviside_mixed_dtypes", call("heaviside", T("float32", [3]), T("float64", [3])))
add("xlogy_zero_nan", call("xlogy", V([0.0, 0.0, 1.0, 2.0]), V([0.0, float("nan"), 0.0, 3.0])))
add("xlogy_scalar", call("xlogy", V([0.0, 2.0]), 3.0, tol=TOL))
add("copysign_scalar_int", call("copysign", V([1, 2], "int64"), -1.0))
add("gcd_negative", call("gcd", V([-12, 0, 7, -5], "int64"), V([18, 0, -21, 0], "int64")))
add("lcm_negative", call("lcm", V([-4, 0, 6, 3], "int32"), V([6, 5, -4, -7], "int32")))
add("signbit_negative_nan", call("signbit", V([float("nan"), -float("nan"), -0.0, 0.0])))
add("signbit_ints", call("signbit", V([-3, 0, 2], "int64")))
add("atanh_ends", call("atanh", V([-1.0, 1.0, -1.5, 0.999999]), tol=TOL))
# NaN and infinities meeting each other: fmax/fmin take the number, maximum/minimum the NaN
for name in ("fmax", "fmin", "maximum", "minimum", "hypot", "logaddexp", "logaddexp2", "copysign", "nextafter",
             "heaviside", "xlogy"):
    add("%s_special_values" % name, call(name, V(SPECIAL), V(list(reversed(SPECIAL))), tol=TOL))
add("logaddexp_infinities", call("logaddexp", V([float("inf"), -float("inf"), float("inf"), 1e308]),
                                 V([float("inf"), -float("inf"), -float("inf"), 1e308], "float64"), tol=TOL))
add("hypot_large", call("hypot", V([1e300, 3.0, -0.0], "float64"), V([1e300, 4.0, 0.0], "float64")))
add("hypot_inplace", call("hypot_", T("float32", [3, 4]), T("float32", [4]), method=True, tol=TOL))
add("hypot_int", call("hypot", T("int64", [3]), T("int64", [3])))
add("fmax_mixed", call("fmax", T("int64", [3]), T("float32", [3])))
# erfinv near and at the ends of its domain, where its tails take over
add("erfinv_tails", call("erfinv", V([-1.0, -0.9999, -0.99, -0.7, -0.69, 0.69, 0.7, 0.99, 0.9999, 1.0]), tol=TOL))
add("erfinv_tails_float64", call("erfinv", V([-0.999999, -0.7000001, 0.3, 0.7000001, 0.999999], "float64"), tol=TOL))

# activations with parameters
for dt in FLOATS + ["int64"]:
    t = TOL
    add("gelu_%s" % dt, call("gelu", T(dt, [3, 4]), tol=t, via=torch.nn.functional.gelu))
    add("gelu_tanh_%s" % dt, call("gelu", T(dt, [3, 4]), kw={"approximate": "tanh"}, tol=t,
                                  via=torch.nn.functional.gelu))
    add("silu_%s" % dt, call("silu", T(dt, [3, 4]), tol=t, via=torch.nn.functional.silu))
    add("softplus_%s" % dt, call("softplus", T(dt, [3, 4]), tol=t, via=torch.nn.functional.softplus))
    add("softplus_beta_%s" % dt, call("softplus", T(dt, [3, 4]), 2, 1, tol=t, via=torch.nn.functional.softplus))
    add("elu_%s" % dt, call("elu", T(dt, [3, 4]), tol=t, via=torch.nn.functional.elu))
    add("elu_alpha_%s" % dt, call("elu", T(dt, [3, 4]), 0.5, tol=t, via=torch.nn.functional.elu))
    add("leaky_relu_%s" % dt, call("leaky_relu", T(dt, [3, 4]), tol=t, via=torch.nn.functional.leaky_relu))
    add("leaky_relu_slope_%s" % dt, call("leaky_relu", T(dt, [3, 4]), 0.2, tol=t,
                                         via=torch.nn.functional.leaky_relu))
    add("hardtanh_%s" % dt, call("hardtanh", T(dt, [3, 4]), tol=t, via=torch.nn.functional.hardtanh))
    add("hardtanh_range_%s" % dt, call("hardtanh", T(dt, [3, 4]), -0.5, 2, tol=t,
                                       via=torch.nn.functional.hardtanh))

# clamp, lerp, addcmul/addcdiv, where
for dt in ALL:
    add("clamp_%s" % dt, call("clamp", T(dt, [3, 4]), -1, 2))
    add("clamp_min_%s" % dt, call("clamp", T(dt, [3, 4]), kw={"min": 0}))
    add("clamp_float_bounds_%s" % dt, call("clamp", T(dt, [3, 4]), 0.5))
    add("clamp_tensor_%s" % dt, call("clamp", T(dt, [3, 4]), T(dt, [4]), T(dt, [3, 1])))
    add("where_%s" % dt, call("where", T("bool", [3, 4]), T(dt, [3, 4]), T(dt, [4])))
    add("addcmul_%s" % dt, call("addcmul", T(dt, [3, 4]), T(dt, [3, 4]), T(dt, [4]), kw={"value": 2}, tol=TOL))
    add("addcdiv_%s" % dt, call("addcdiv", T(dt, [3, 4]), T(dt, [3, 4]), T(dt, [4], domain="nonzero"),
                                kw={"value": 2}, tol=TOL))
    add("lerp_%s" % dt, call("lerp", T(dt, [3, 4]), T(dt, [3, 4]), 0.3, tol=TOL))
    add("lerp_tensor_%s" % dt, call("lerp", T(dt, [3, 4]), T(dt, [4]), T(dt, [3, 1]), tol=TOL))
add("clamp_none", call("clamp", T("float32", [3])))
add("clamp_min_greater", call("clamp", T("float32", [3, 4]), 1, -1))
add("clamp_inplace_float_on_int", call("clamp_", T("int64", [3]), 0.5, method=True))
add("clip", call("clip", T("float32", [3, 4]), -0.5, 0.5))
add("where_float_condition", call("where", T("float32", [3]), T("float32", [3]), T("float32", [3])))
add("where_mixed", call("where", T("bool", [3, 4]), T("int64", [3, 4]), T("float32", [3, 4])))
add("where_scalar_other", call("where", T("bool", [3, 4]), T("int64", [3, 4]), 2.5))
add("where_scalar_self", call("where", T("bool", [3, 4]), 2, T("float16", [3, 4])))
add("where_scalars", call("where", T("bool", [3, 4]), 2, 3.5))
add("where_method", call("where", T("float32", [3, 4]), T("bool", [3, 4]), T("float32", [4]), method=True,
                         via=lambda x, c, y: x.where(c, y)))
add("lerp_dtype_mismatch", call("lerp", T("float32", [3]), T("float16", [3]), 0.5))
add("lerp_weight_large", call("lerp", T("float32", [3, 4]), T("float32", [3, 4]), 0.75))

# in-place forms: results written into self with PyTorch's cast rules
for name in ("add_", "sub_", "mul_", "div_", "remainder_", "pow_", "eq_", "lt_", "bitwise_and_"):
    for a, b in (("float32", "float32"), ("float32", "float64"), ("float32", "int64"), ("int64", "float32"),
                 ("int64", "int64"), ("float16", "float32")):
        add("%s_%s_%s" % (name, a, b), call(name, T(a, [3, 4]), T(b, [4], domain="nonzero" if name != "pow_" else "pos"),
                                             method=True, tol=TOL if name == "pow_" else None))
add("add__broadcast_self", call("add_", T("float32", [4]), T("float32", [3, 4]), method=True))
add("add__transposed_self", call("add_", T("float32", [3, 4], "t"), T("float32", [3, 4]), method=True))
add("mul__overlapping_self", call("mul_", T("float32", [3, 4], "expand", base_shape=[3, 1]), 2, method=True))

# Lua's operators are PyTorch's operators
OPS = {"__add__": lambda a, b: a + b, "__sub__": lambda a, b: a - b, "__mul__": lambda a, b: a * b,
       "__truediv__": lambda a, b: a / b, "__floordiv__": lambda a, b: a // b, "__mod__": lambda a, b: a % b,
       "__pow__": lambda a, b: a ** b, "__and__": lambda a, b: a & b, "__or__": lambda a, b: a | b,
       "__xor__": lambda a, b: a ^ b, "__lshift__": lambda a, b: a << b, "__rshift__": lambda a, b: a >> b}
RIGHT = {"__radd__": lambda a, b: b + a, "__rsub__": lambda a, b: b - a, "__rmul__": lambda a, b: b * a,
         "__rtruediv__": lambda a, b: b / a, "__rfloordiv__": lambda a, b: b // a, "__rmod__": lambda a, b: b % a,
         "__rpow__": lambda a, b: b ** a, "__rlshift__": lambda a, b: b << a}
for op, f in OPS.items():
    for dt in ("int64", "float32"):
        if op in ("__and__", "__or__", "__xor__", "__lshift__", "__rshift__") and dt == "float32":
            continue
        add("op%s_%s" % (op, dt), call(op, T(dt, [3, 4], domain="pos"), T(dt, [4], domain="pos"), via=f,
                                       tol=TOL if op == "__pow__" else None))
        add("op%s_%s_number" % (op, dt), call(op, T(dt, [3, 4], domain="pos"), 2, via=f))
for op, f in RIGHT.items():
    for dt in ("int64", "float32"):
        if op == "__rlshift__" and dt == "float32":
            continue
        add("op%s_%s" % (op, dt), call(op, T(dt, [3, 4], domain="pos"), 3, via=f, tol=TOL))
for dt in ("int64", "float32", "bool"):
    add("op__neg___%s" % dt, call("__neg__", T(dt, [5]), via=lambda a: -a))
for dt in ("int64", "bool", "uint8"):
    add("op__invert___%s" % dt, call("__invert__", T(dt, [5]), via=lambda a: ~a))
