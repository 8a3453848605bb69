-- Element-wise operators: each op is declared once, with its overloads, what it computes (`ew`,
-- src/ops/gen_elementwise.lua) and its derivative (`grad`, src/ops/gen_derivatives.lua). The
-- helpers below write the usual families of PyTorch overloads (Tensor and Scalar forms, in-place
-- `_` forms) from one description. doc/contributing.md walks through adding an op.
local fm = "function, method"

local LN2, LN10 = "0.69314718055994530942", "2.30258509299404568402"
local TWO_OVER_SQRT_PI, SQRT_PI_OVER_TWO = "1.12837916709551257390", "0.88622692545275801365"

-- A spec: { doc, ew = {...}, grad = {...}, extra = more arguments, nondiff, variants,
--           inplace = false (no `_` form), scalar = false (no .Scalar form), grad_scalar = the
--           derivative of the Scalar forms when it differs, inplace_grad = the in-place forms' }
-- (in-place forms are never marked non-differentiable: their node replaces self's history)
local function declare(schema, spec, variants, doc, grad)
  local inplace = schema:match("^[%w_]+_[.(]") ~= nil
  op { schema, variants = variants, doc = doc, ew = spec.ew, grad = grad, nondiff = spec.nondiff and not inplace }
end

-- name(Tensor self) -> Tensor and name_(Tensor(a!) self)
local function unary(name, spec)
  local extra = spec.extra or ""
  local variants = spec.variants or fm
  declare(name .. "(Tensor self" .. extra .. ") -> Tensor", spec, variants, spec[1], spec.grad)
  if spec.inplace ~= false then
    declare(name .. "_(Tensor(a!) self" .. extra .. ") -> Tensor(a!)", spec, variants, spec[1] .. " In place.",
      spec.inplace_grad or spec.grad)
  end
end

-- name.Tensor(self, other) and name.Scalar(self, Scalar other) with their in-place forms; with
-- scalar = false, only name(Tensor self, Tensor other) (and name_)
local function binary(name, spec)
  local extra = spec.extra or ""
  local ov = spec.scalar == false and "" or ".Tensor"
  local ovi = spec.scalar == false and "" or ".Tensor"
  declare(name .. ov .. "(Tensor self, Tensor other" .. extra .. ") -> Tensor", spec, spec.variants or fm, spec[1],
    spec.grad)
  if spec.scalar ~= false then
    declare(name .. ".Scalar(Tensor self, Scalar other" .. extra .. ") -> Tensor", spec,
      spec.scalar_variants or spec.variants or fm, spec[1], spec.grad_scalar or spec.grad)
  end
  if spec.inplace ~= false then
    declare(name .. "_" .. ovi .. "(Tensor(a!) self, Tensor other" .. extra .. ") -> Tensor(a!)", spec, "method",
      spec[1] .. " In place.", spec.inplace_grad or spec.grad)
    if spec.scalar ~= false then
      declare(name .. "_.Scalar(Tensor(a!) self, Scalar other" .. extra .. ") -> Tensor(a!)", spec, "method",
        spec[1] .. " In place.", spec.inplace_grad or spec.grad_scalar or spec.grad)
    end
  end
end

local function ew(family, kind, rule, dtypes, more)
  local e = { family = family, kind = kind, rule = rule, dtypes = dtypes }
  for k, v in pairs(more or {}) do e[k] = v end
  return e
end

-- a derivative that PyTorch does not implement: the node exists, its backward raises
local function not_implemented(uses)
  return { node = "torch::autograd::NotImplemented", fn = "mt_bw_zero_grads", uses = uses, flags = "MT_D_NOT_IMPLEMENTED" }
end

-- ---- arithmetic ---------------------------------------------------------------------------------

binary("add", { "self + alpha * other.", extra = ", *, Scalar alpha=1",
  ew = ew("ADD", "binary", "same", "ALL", { kname = "add_cpu/sub_cpu", check = "alpha", params = { "alpha" } }),
  grad = { fn = "mt_d_add", uses = "self:; other:" }, grad_scalar = { self = "grad" } })
binary("sub", { "self - alpha * other.", extra = ", *, Scalar alpha=1",
  ew = ew("SUB", "binary", "same", "NUMS", { kname = "add_cpu/sub_cpu", check = "sub", params = { "alpha" } }),
  grad = { self = "grad", other = "grad * (-alpha)" } })
binary("mul", { "self * other.", ew = ew("MUL", "binary", "same", "ALL", { kname = "mul_cpu" }),
  grad = { self = "grad * other", other = "grad * self" } })
local div_grad = { node = "DivBackward0", self = "grad / other", other = "-grad * (self / other / other)" }
binary("div", { "self / other: true division (integers give floats).",
  ew = ew("DIV", "binary", "float", "FLOATS", { kname = "div_true_cpu" }), grad = div_grad })
local div_mode_ew = ew("DIV", "binary", "same", "NUMS", { kname = "div_cpu", check = "divmode", params = { "rounding_mode" } })
op { "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", variants = fm,
     doc = "Division with rounding_mode nil (true), 'trunc' or 'floor'.", ew = div_mode_ew,
     grad = { node = "DivBackward2", fn = "mt_d_div_mode", uses = "self: other; other: self, other" } }
op { "div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor", variants = fm,
     doc = "Division with rounding_mode nil (true), 'trunc' or 'floor'.", ew = div_mode_ew,
     grad = { node = "DivBackward2", fn = "mt_d_div_scalar_mode", uses = "self:" } }
op { "div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)", variants = "method",
     doc = "Division with a rounding mode, in place.", ew = div_mode_ew,
     grad = { node = "DivBackward2", fn = "mt_d_div_mode", uses = "self: other; other: self, other" } }
op { "div_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> Tensor(a!)", variants = "method",
     doc = "Division with a rounding mode, in place.", ew = div_mode_ew,
     grad = { node = "DivBackward2", fn = "mt_d_div_scalar_mode", uses = "self:" } }
binary("true_divide", { "Alias of div (true division).",
  ew = ew("DIV", "binary", "float", "FLOATS", { kname = "div_true_cpu" }), grad = div_grad })
local floor_div_ew = ew("DIV_FLOOR", "binary", "same", "NUMS", { kname = "div_floor_cpu" })
op { "floor_divide(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "Division rounded down (self // other).",
     ew = floor_div_ew, grad = not_implemented("self:; other:") }
op { "floor_divide.Scalar(Tensor self, Scalar other) -> Tensor", variants = fm, doc = "Division rounded down.",
     ew = floor_div_ew, grad = not_implemented("self:") }
op { "floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", variants = "method",
     doc = "Division rounded down, in place.", ew = floor_div_ew, grad = not_implemented("self:; other:") }
op { "floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", variants = "method",
     doc = "Division rounded down, in place.", ew = floor_div_ew, grad = not_implemented("self:") }
local remainder_ew = ew("REMAINDER", "binary", "same", "NUMS", { kname = "remainder_cpu" })
binary("remainder", { "Python's modulus: the result takes the divisor's sign (self % other).", ew = remainder_ew,
  grad = { node = "RemainderBackward1", self = "grad", other = "-grad * div(self, other, 'floor')" },
  grad_scalar = { node = "RemainderBackward0", self = "grad" } })
op { "remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", variants = "function",
     doc = "A number modulo a tensor.", ew = remainder_ew, grad = not_implemented("other:") }
binary("fmod", { "C's fmod: the result takes the dividend's sign.",
  ew = ew("FMOD", "binary", "same", "NUMS", { kname = "fmod_cpu" }),
  grad = { node = "FmodBackward1", self = "grad", other = "-grad * div(self, other, 'trunc')" },
  grad_scalar = { node = "FmodBackward0", self = "grad" } })
local pow_ew = ew("POW", "binary", "same", "NUMS", { kname = "pow", check = "pow" })
local pow_tt = { node = "PowBackward1", fn = "mt_d_pow_tt", uses = "self: self, exponent; exponent: self, exponent, result" }
local pow_ts = { node = "PowBackward0", fn = "mt_d_pow_ts", uses = "self: self" }
op { "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", variants = fm, doc = "self raised to exponent.",
     ew = pow_ew, grad = pow_tt }
op { "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", variants = fm, doc = "self raised to exponent.",
     ew = pow_ew, grad = pow_ts }
op { "pow.Scalar(Scalar self, Tensor exponent) -> Tensor", variants = "function", doc = "A number raised to a tensor.",
     ew = pow_ew, grad = { node = "PowBackward2", fn = "mt_d_pow_scalar", uses = "exponent: exponent, result" } }
op { "pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)", variants = "method", doc = "pow in place.",
     ew = pow_ew, grad = pow_ts }
op { "pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)", variants = "method", doc = "pow in place.",
     ew = pow_ew, grad = pow_tt }
local rsub_ew = ew("RSUB", "binary", "same", "NUMS", { kname = "add_cpu/sub_cpu", check = "sub", params = { "alpha" } })
op { "rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", variants = "function",
     doc = "other - alpha * self.", ew = rsub_ew, grad = { node = "RsubBackward0", self = "grad * (-alpha)", other = "grad" } }
op { "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", variants = "function",
     doc = "other - alpha * self.", ew = rsub_ew, grad = { node = "RsubBackward1", self = "grad * (-alpha)" } }
binary("atan2", { "The angle of (other, self).", scalar = false,
  ew = ew("ATAN2", "binary", "float", "FLOATS_NOHALF", { kname = "atan2_cpu" }),
  grad = { self = "grad / (self * self + other * other) * other", other = "-(grad / (self * self + other * other)) * self" } })
binary("maximum", { "Element-wise maximum (NaN propagates).", scalar = false, inplace = false,
  ew = ew("MAXIMUM", "binary", "same", "ALL", { kname = "maximum_cpu" }),
  grad = { fn = "mt_d_maximum", uses = "self: self, other; other: self, other" } })
binary("minimum", { "Element-wise minimum (NaN propagates).", scalar = false, inplace = false,
  ew = ew("MINIMUM", "binary", "same", "ALL", { kname = "minimum_cpu" }),
  grad = { fn = "mt_d_minimum", uses = "self: self, other; other: self, other" } })
binary("fmax", { "Element-wise maximum; a NaN loses to a number.", scalar = false, inplace = false,
  ew = ew("FMAX", "binary", "same", "ALL", { kname = "fmax_cpu" }),
  grad = { self = "masked_fill(grad, logical_not(logical_or(self >= other, isnan(other))), 0)",
           other = "masked_fill(grad, logical_or(self >= other, isnan(other)), 0)" } })
binary("fmin", { "Element-wise minimum; a NaN loses to a number.", scalar = false, inplace = false,
  ew = ew("FMIN", "binary", "same", "ALL", { kname = "fmin_cpu" }),
  grad = { self = "masked_fill(grad, logical_not(logical_or(self <= other, isnan(other))), 0)",
           other = "masked_fill(grad, logical_or(self <= other, isnan(other)), 0)" } })
binary("hypot", { "sqrt(self^2 + other^2), without overflow on the way.", scalar = false,
  ew = ew("HYPOT", "binary", "same", "FLOATS_NOHALF", { kname = "hypot_cpu" }),
  grad = { self = "grad * self / result", other = "grad * other / result" } })
binary("logaddexp", { "log(exp(self) + exp(other)), without overflow.", scalar = false, inplace = false,
  ew = ew("LOGADDEXP", "binary", "same", "FLOATS_NOHALF", { kname = "logaddexp_cpu" }),
  grad = { self = "grad / (exp(other - self) + 1)", other = "grad / (exp(self - other) + 1)" } })

binary("logaddexp2", { "log2(2^self + 2^other), without overflow.", scalar = false, inplace = false,
  ew = ew("LOGADDEXP2", "binary", "same", "FLOATS_NOHALF", { kname = "logaddexp2_cpu" }),
  grad = { self = "grad / (exp2(other - self) + 1)", other = "grad / (exp2(self - other) + 1)" } })
binary("copysign", { "self's magnitude with other's sign (integer inputs give the default float dtype).",
  ew = ew("COPYSIGN", "binary", "float", "FLOATS", { kname = "copysign_cpu" }),
  grad = { self = "grad * masked_fill(result / self, self == 0, 0)", other = "zeros" },
  grad_scalar = { self = "grad * masked_fill(result / self, self == 0, 0)" } })
binary("nextafter", { "The next representable value after self toward other.", scalar = false,
  ew = ew("NEXTAFTER", "binary", "same", "FLOATS_NOHALF", { kname = "nextafter_cpu" }),
  grad = not_implemented("self:; other:") })
local heaviside = ew("HEAVISIDE", "binary", "same", "ALL", { kname = "heaviside_cpu", check = "samedtype" })
op { "heaviside(Tensor self, Tensor values) -> Tensor", variants = fm, ew = heaviside,
     doc = "The step function: 0 below zero, 1 above, values where self is zero.", grad = not_implemented("self:; values:") }
op { "heaviside_(Tensor(a!) self, Tensor values) -> Tensor(a!)", variants = "method", ew = heaviside,
     doc = "heaviside in place.", grad = not_implemented("self:; values:") }
binary("xlogy", { "self * log(other), 0 where self is 0 (NaN where other is NaN).",
  ew = ew("XLOGY", "binary", "float", "FLOATS", { kname = "xlogy_cpu" }),
  grad = { self = "grad * xlogy(self ~= 0, other)", other = "grad * self / other" },
  grad_scalar = { self = "grad * xlogy(self ~= 0, other)" } })
binary("gcd", { "The greatest common divisor of |self| and |other|.", scalar = false, nondiff = true,
  ew = ew("GCD", "binary", "same", "INTS", { kname = "gcd_cpu" }) })
binary("lcm", { "The least common multiple of |self| and |other|.", scalar = false, nondiff = true,
  ew = ew("LCM", "binary", "same", "INTS", { kname = "lcm_cpu" }) })
unary("deg2rad", { "Degrees to radians (integer inputs give the default float dtype).",
  ew = ew("DEG2RAD", "unary", "float", "FLOATS", { kname = "deg2rad" }),
  grad = { self = "grad * 0.017453292519943295" } })
unary("rad2deg", { "Radians to degrees (integer inputs give the default float dtype).",
  ew = ew("RAD2DEG", "unary", "float", "FLOATS", { kname = "rad2deg" }),
  grad = { self = "grad * 57.29577951308232" } })
unary("sinc", { "sin(pi x) / (pi x), 1 at 0 (integer inputs give the default float dtype).",
  ew = ew("SINC", "unary", "float", "FLOATS_NOHALF", { kname = "sinc_cpu" }),
  grad = { self = "masked_fill(grad * ((self * 3.141592653589793 * cos(self * 3.141592653589793) - " ..
    "sin(self * 3.141592653589793)) / (self * self * 3.141592653589793)), self == 0, 0)" } })

-- ---- comparisons and logic ----------------------------------------------------------------------

for _, c in ipairs { { "eq", "==", "EQ", "Eq" }, { "ne", "~=", "NE", "Ne" }, { "lt", "<", "LT", "Lt" },
  { "le", "<=", "LE", "Le" }, { "gt", ">", "GT", "Gt" }, { "ge", ">=", "GE", "Ge" } } do
  binary(c[1], { "self " .. c[2] .. " other, element-wise (bool result).", nondiff = true,
    ew = ew(c[3], "binary_bool", "bool", "ALL", { kname = c[1] .. "_cpu" }),
    -- only the in-place forms keep a node (self's values are replaced: zero gradient)
    inplace_grad = { node = { Tensor = c[4] .. "Backward1", Scalar = c[4] .. "Backward0" }, self = "zeros" } })
end
for _, l in ipairs { { "and", "LAND" }, { "or", "LOR" }, { "xor", "LXOR" } } do
  local e = ew(l[2], "binary_bool", "bool", "ALL", { kname = "logical_" .. l[1] .. "_cpu" })
  op { "logical_" .. l[1] .. "(Tensor self, Tensor other) -> Tensor", variants = fm,
       doc = "Logical " .. l[1] .. " (bool result).", nondiff = true, ew = e }
  op { "logical_" .. l[1] .. "_(Tensor(a!) self, Tensor other) -> Tensor(a!)", variants = "method",
       doc = "Logical " .. l[1] .. ", in place.", ew = e }
end
local lnot = ew("LNOT", "unary_bool", "bool", "ALL", { kname = "logical_not_cpu" })
op { "logical_not(Tensor self) -> Tensor", variants = fm, doc = "Logical not (bool result).", nondiff = true, ew = lnot }
op { "logical_not_(Tensor(a!) self) -> Tensor(a!)", variants = fm, doc = "Logical not (bool result). In place.", ew = lnot }
for _, l in ipairs { { "and", "BAND" }, { "or", "BOR" }, { "xor", "BXOR" } } do
  binary("bitwise_" .. l[1], { "Bitwise " .. l[1] .. " of integers and bools.", nondiff = true,
    ew = ew(l[2], "binary", "same", "INTB", { kname = "bitwise_" .. l[1] .. "_cpu" }) })
end
binary("bitwise_left_shift", { "self << other.", nondiff = true, ew = ew("SHL", "binary", "same", "INTS", { kname = "lshift_cpu" }) })
binary("bitwise_right_shift", { "self >> other (arithmetic for signed types).", nondiff = true,
  ew = ew("SHR", "binary", "same", "INTS", { kname = "rshift_cpu" }) })
unary("bitwise_not", { "Bitwise not of integers and bools.", ew = ew("BNOT", "unary", "same", "INTB", { kname = "bitwise_not_cpu" }) })

-- ---- unary math ---------------------------------------------------------------------------------

unary("neg", { "-self.", ew = ew("NEG", "unary", "same", "NUMS", { kname = "neg_cpu", check = "neg" }), grad = { self = "-grad" } })
unary("abs", { "|self|.", ew = ew("ABS", "unary", "same", "NUMS", { kname = "abs_cpu" }), grad = { self = "grad * sign(self)" } })
unary("sign", { "-1, 0 or 1 (bool stays bool).", ew = ew("SIGN", "unary", "same", "ALL", { kname = "sign_cpu" }),
  grad = { self = "zeros" } })
unary("signbit", { "True where the sign bit is set (-0.0 and negative numbers).", inplace = false, nondiff = true,
  ew = ew("SIGNBIT", "unary_bool", "bool", "ALL", { kname = "signbit_cpu" }) })
unary("reciprocal", { "1 / self.", ew = ew("RECIPROCAL", "unary", "float", "FLOATS", { kname = "reciprocal_cpu" }),
  grad = { self = "-grad * (result * result)" } })

-- float functions: integer inputs give the default float dtype; name, family, PyTorch's kernel,
-- derivative
local float_unary = {
  { "sqrt", "SQRT", "sqrt_vml_cpu", { self = "grad / (result * 2)" } },
  { "rsqrt", "RSQRT", "rsqrt_cpu", { self = "grad * (-0.5) * result ^ 3" } },
  { "exp", "EXP", "exp_vml_cpu", { self = "grad * result" } },
  { "exp2", "EXP2", "exp2_vml_cpu", { self = "grad * result * " .. LN2 }, "FLOATS" },
  { "expm1", "EXPM1", "expm1_vml_cpu", { self = "grad * (result + 1)" } },
  { "log", "LOG", "log_vml_cpu", { self = "grad / self" } },
  { "log2", "LOG2", "log2_vml_cpu", { self = "grad / (self * " .. LN2 .. ")" } },
  { "log10", "LOG10", "log10_vml_cpu", { self = "grad / (self * " .. LN10 .. ")" } },
  { "log1p", "LOG1P", "log1p_vml_cpu", { node = "Log1PBackward0", self = "grad / (self + 1)" } },
  { "sin", "SIN", "sin_vml_cpu", { self = "grad * cos(self)" } },
  { "cos", "COS", "cos_vml_cpu", { self = "grad * -sin(self)" } },
  { "tan", "TAN", "tan_vml_cpu", { self = "grad * (result * result + 1)" } },
  { "asin", "ASIN", "asin_vml_cpu", { self = "grad / sqrt(1 - self * self)" } },
  { "acos", "ACOS", "acos_vml_cpu", { self = "-grad / sqrt(1 - self * self)" } },
  { "atan", "ATAN", "atan_vml_cpu", { self = "grad / (self * self + 1)" } },
  { "sinh", "SINH", "sinh_cpu", { self = "grad * cosh(self)" } },
  { "cosh", "COSH", "cosh_cpu", { self = "grad * sinh(self)" } },
  { "tanh", "TANH", "tanh_vml_cpu", { self = "grad * (1 - result * result)" } },
  { "asinh", "ASINH", "asinh_cpu", { self = "grad * rsqrt(self * self + 1)" } },
  { "acosh", "ACOSH", "acosh_cpu", { self = "grad * rsqrt(self * self - 1)" } },
  { "atanh", "ATANH", "atanh_cpu", { self = "grad / (1 - self * self)" } },
  { "sigmoid", "SIGMOID", "sigmoid_cpu", { self = "grad * (result * (1 - result))" } },
}
for _, f in ipairs(float_unary) do
  unary(f[1], { f[1] .. " (integer inputs give the default float dtype).",
    ew = ew(f[2], "unary", "float", f[5] or "FLOATS_NOHALF", { kname = f[3] }), grad = f[4] })
end
unary("erf", { "The error function (integer inputs give the default float dtype).",
  ew = ew("ERF", "unary", "float", "FLOATS_NOHALF", { kname = "erf_vml_cpu" }),
  grad = { self = "grad * (exp(-(self * self)) * " .. TWO_OVER_SQRT_PI .. ")" } })
unary("erfc", { "1 - erf(self), accurate for large inputs.",
  ew = ew("ERFC", "unary", "float", "FLOATS_NOHALF", { kname = "erfc_vml_cpu" }),
  grad = { self = "grad * (exp(-(self * self)) * -" .. TWO_OVER_SQRT_PI .. ")" } })
unary("erfinv", { "The inverse error function on [-1, 1] (NaN outside).",
  ew = ew("ERFINV", "unary", "float", "FLOATS_NOHALF", { kname = "erfinv_vml_cpu" }),
  grad = { self = "grad * (exp(result * result) * " .. SQRT_PI_OVER_TWO .. ")" } })
unary("relu", { "max(self, 0).", ew = ew("RELU", "unary", "same", "NUMS_NOHALF", { kname = "clamp_min_cpu", check = "relu" }),
  grad = { node = "ReluBackward0", fn = "mt_d_relu", uses = "self: result" } })
-- PyTorch's threshold_backward(grad_output, self, threshold) with self first, as its loop takes
-- them: the result follows self's layout and a size mismatch names self first
op { "_threshold_grad(Tensor self, Tensor grad_output, Scalar threshold) -> Tensor", variants = "function",
     doc = "grad_output where self > threshold, else 0 (NaN passes): relu's gradient in one pass (aten::threshold_backward).",
     ew = ew("THRESHOLD_GRAD", "binary", "same", "NUMS_NOHALF", { kname = "threshold_cpu", params = { "threshold" } }),
     grad = { node = "ThresholdBackwardBackward0", grad_output = "_threshold_grad(self, grad, threshold)",
              self = "zeros" } }
for _, r in ipairs { { "floor", "Rounds down (integers unchanged)." }, { "ceil", "Rounds up (integers unchanged)." },
  { "round", "Rounds half to even (integers unchanged)." } } do
  unary(r[1], { r[2], ew = ew(r[1]:upper(), "unary", "same", "NUMS_NOHALF", { kname = r[1] .. "_vml_cpu" }),
    grad = { self = "zeros" } })
end
local round_dec = ew("ROUND_DEC", "unary", "same", "FLOATS_NOHALF", { kname = "round_cpu", params = { "decimals" } })
op { "round.decimals(Tensor self, *, int decimals) -> Tensor", variants = fm, doc = "Rounds to a number of decimals.",
     ew = round_dec, grad = { node = "RoundBackward1", self = "zeros" } }
op { "round_.decimals(Tensor(a!) self, *, int decimals) -> Tensor(a!)", variants = fm, doc = "round with decimals, in place.",
     ew = round_dec, grad = { node = "RoundBackward1", self = "zeros" } }
unary("trunc", { "Rounds toward zero (integers unchanged).", ew = ew("TRUNC", "unary", "same", "NUMS_NOHALF", { kname = "trunc_vml_cpu" }),
  grad = { self = "zeros" } })
unary("frac", { "self - trunc(self).", ew = ew("FRAC", "unary", "same", "FLOATS", { kname = "frac_cpu" }), grad = { self = "grad" } })
for _, p in ipairs { { "isnan", "True where NaN.", "ISNAN" }, { "isinf", "True where +-inf.", "ISINF" },
  { "isfinite", "True where neither NaN nor inf.", "ISFINITE" } } do
  op { p[1] .. "(Tensor self) -> Tensor", variants = fm, doc = p[2], nondiff = true,
       ew = ew(p[3], "unary_bool", "bool", "ALL", { kname = p[1] }) }
end
for _, p in ipairs { { "isposinf", "True where +inf.", "ISPOSINF" }, { "isneginf", "True where -inf.", "ISNEGINF" } } do
  op { p[1] .. "(Tensor self) -> Tensor", variants = fm, doc = p[2], nondiff = true,
       ew = ew(p[3], "unary_bool", "bool", "ALL", { kname = p[1] }) }
end
op { "isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor",
     variants = fm, doc = "True where |self - other| <= atol + rtol * |other| (NaNs equal with equal_nan).", nondiff = true }

-- ---- activations with parameters (function forms in torch.nn.functional too) --------------------

unary("gelu", { "Gaussian error linear unit; approximate='tanh' for the tanh formula.", extra = ", *, str approximate='none'",
  ew = ew("GELU", "unary", "same", "FLOATS_NOHALF", { kname = "GeluKernelImpl", params = { "approximate" } }),
  grad = { fn = "mt_d_gelu", uses = "self: self" } })
unary("silu", { "self * sigmoid(self).", ew = ew("SILU", "unary", "same", "FLOATS_NOHALF", { kname = "silu_cpu" }),
  grad = { fn = "mt_d_silu", uses = "self: self" } })
op { "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor", variants = fm,
     doc = "log(1 + exp(beta*x)) / beta, linear above threshold.",
     ew = ew("SOFTPLUS", "unary", "same", "FLOATS_NOHALF", { kname = "softplus_cpu", params = { "beta", "threshold" } }),
     grad = { self = "grad * masked_fill(sigmoid(self * beta), self * beta > threshold, 1)" } }
local elu = { ew = ew("ELU", "unary", "same", "FLOATS_NOHALF", { kname = "elu_cpu", params = { "alpha", "scale", "input_scale" } }),
  grad = { self = "grad * where(self > 0, scale, exp(self * input_scale) * (alpha * scale * input_scale))" } }
op { "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", variants = fm,
     doc = "Exponential linear unit.", ew = elu.ew, grad = elu.grad }
op { "elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)", variants = fm,
     doc = "elu in place.", ew = elu.ew, grad = elu.grad }
local leaky = { ew = ew("LEAKY_RELU", "unary", "same", "FLOATS_NOHALF", { kname = "leaky_relu_cpu", params = { "negative_slope" } }),
  grad = { self = "where(self > 0, grad, grad * negative_slope)" } }
op { "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", variants = fm, doc = "x, or negative_slope * x below 0.",
     ew = leaky.ew, grad = leaky.grad }
op { "leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)", variants = fm, doc = "leaky_relu in place.",
     ew = leaky.ew, grad = leaky.grad }
local hardtanh = { ew = ew("HARDTANH", "unary", "same", "NUMS_NOHALF", { kname = "clamp_scalar_cpu", params = { "min_val", "max_val" } }),
  grad = { self = "masked_fill(grad, logical_or(self <= min_val, self >= max_val), 0)" } }
op { "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", variants = fm, doc = "Clamps to [min_val, max_val].",
     ew = hardtanh.ew, grad = hardtanh.grad }
op { "hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)", variants = fm, doc = "hardtanh in place.",
     ew = hardtanh.ew, grad = hardtanh.grad }

-- ---- clamping, interpolation, selection ---------------------------------------------------------

local clamp_ew = ew("CLAMP", "unary", "same", "NUMS_NOHALF", { kname = "clamp_scalar_cpu", check = "clamp", params = { "min", "max" } })
local clamp_grad = { node = "ClampBackward1", fn = "mt_d_clamp", uses = "self: self" }
local clamp_t_grad = { node = "ClampBackward0", fn = "mt_d_clamp_tensor",
  uses = "self: self, min, max; min: self, min, max; max: self, min, max" }
op { "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", variants = fm, doc = "Clamps into [min, max].",
     ew = clamp_ew, grad = clamp_grad }
op { "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", variants = fm,
     doc = "Clamps into [min, max] element-wise.", grad = clamp_t_grad }
op { "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)", variants = fm, doc = "clamp in place.",
     ew = clamp_ew, grad = clamp_grad }
op { "clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)", variants = fm, doc = "clamp in place.",
     grad = clamp_t_grad }
op { "clip(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", variants = fm, doc = "Alias of clamp.",
     ew = clamp_ew, grad = clamp_grad }
op { "clip.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", variants = fm, doc = "Alias of clamp.",
     grad = clamp_t_grad }
op { "clip_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)", variants = fm, doc = "Alias of clamp_.",
     ew = clamp_ew, grad = clamp_grad }
local lerp_s = { ew = ew("LERP", "ternary", "same", "FLOATS_NOHALF", { kname = "lerp_kernel_scalar", check = "lerp", params = { "weight" }, nin = 2 }),
  grad = { node = "LerpBackward0", self = "grad * (1 - weight)", ["end"] = "grad * weight" } }
local lerp_t = { ew = ew("LERP", "ternary", "same", "FLOATS_NOHALF", { kname = "lerp_kernel_tensor", check = "lerp" }),
  grad = { node = "LerpBackward1", self = "grad * (1 - weight)", ["end"] = "grad * weight", weight = "grad * (end - self)" } }
op { "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor", variants = fm, doc = "self + weight * (end - self).",
     ew = lerp_s.ew, grad = lerp_s.grad }
op { "lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor", variants = fm, doc = "self + weight * (end - self).",
     ew = lerp_t.ew, grad = lerp_t.grad }
op { "lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)", variants = "method", doc = "lerp in place.",
     ew = lerp_s.ew, grad = lerp_s.grad }
op { "lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)", variants = "method", doc = "lerp in place.",
     ew = lerp_t.ew, grad = lerp_t.grad }
local addcmul = { ew = ew("ADDCMUL", "ternary", "same", "NUMS_NOHALF", { kname = "addcmul_cpu_out", params = { "value" } }),
  grad = { self = "grad", tensor1 = "grad * tensor2 * value", tensor2 = "grad * tensor1 * value" } }
op { "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", variants = fm,
     doc = "self + value * tensor1 * tensor2.", ew = addcmul.ew, grad = addcmul.grad }
op { "addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)", variants = "method",
     doc = "addcmul in place.", ew = addcmul.ew, grad = addcmul.grad }
local addcdiv = { ew = ew("ADDCDIV", "ternary", "same", "FLOATS_NOHALF", { kname = "addcdiv_cpu_out", check = "addcdiv", params = { "value" } }),
  grad = { self = "grad", tensor1 = "grad / tensor2 * value", tensor2 = "grad * (-value) * (tensor1 / tensor2 / tensor2)" } }
op { "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", variants = fm,
     doc = "self + value * tensor1 / tensor2.", ew = addcdiv.ew, grad = addcdiv.grad }
op { "addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)", variants = "method",
     doc = "addcdiv in place.", ew = addcdiv.ew, grad = addcdiv.grad }
local where_ew = ew("WHERE", "where", "same", "ALL", { kname = "where_cpu", check = "where" })
local where_grad = { self = "masked_fill(grad, logical_not(condition), 0)", other = "masked_fill(grad, condition, 0)" }
op { "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", variants = fm,
     doc = "self where condition is true, else other.", ew = where_ew, grad = where_grad }
op { "where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor", variants = "function",
     doc = "self where condition is true, else other.", ew = where_ew, grad = where_grad }
op { "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor", variants = "function",
     doc = "self where condition is true, else other.", ew = where_ew, grad = where_grad }
op { "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor", variants = "function",
     doc = "self where condition is true, else other." , ew = where_ew }
