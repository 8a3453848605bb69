-- Element-wise operators. Each function declares a family of PyTorch overloads at once
-- (Tensor and Scalar forms, in-place `_` forms); every schema is still written out once here.
local fm = "function, method"

-- name.Tensor(self, other) and name.Scalar(self, Scalar other) with their in-place forms
local function binary(name, doc, extra, opts)
  extra = extra or ""
  opts = opts or {}
  op { name .. ".Tensor(Tensor self, Tensor other" .. extra .. ") -> Tensor", variants = fm, doc = doc, nondiff = opts.nondiff }
  op { name .. ".Scalar(Tensor self, Scalar other" .. extra .. ") -> Tensor", variants = opts.scalar_variants or fm, doc = doc,
       nondiff = opts.nondiff }
  if not opts.no_inplace then
    op { name .. "_.Tensor(Tensor(a!) self, Tensor other" .. extra .. ") -> Tensor(a!)", variants = "method", doc = doc .. " In place." }
    op { name .. "_.Scalar(Tensor(a!) self, Scalar other" .. extra .. ") -> Tensor(a!)", variants = "method", doc = doc .. " In place." }
  end
end

-- name(Tensor self) -> Tensor and name_(Tensor(a!) self)
local function unary(name, doc, extra, variants)
  extra = extra or ""
  op { name .. "(Tensor self" .. extra .. ") -> Tensor", variants = variants or fm, doc = doc }
  op { name .. "_(Tensor(a!) self" .. extra .. ") -> Tensor(a!)", variants = variants or fm, doc = doc .. " In place." }
end

-- arithmetic
binary("add", "self + alpha * other.", ", *, Scalar alpha=1")
binary("sub", "self - alpha * other.", ", *, Scalar alpha=1")
binary("mul", "self * other.")
binary("div", "self / other: true division (integers give floats).")
op { "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", variants = fm,
     doc = "Division with rounding_mode nil (true), 'trunc' or 'floor'." }
op { "div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor", variants = fm,
     doc = "Division with rounding_mode nil (true), 'trunc' or 'floor'." }
op { "div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)", variants = "method",
     doc = "Division with a rounding mode, in place." }
op { "div_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> Tensor(a!)", variants = "method",
     doc = "Division with a rounding mode, in place." }
binary("true_divide", "Alias of div (true division).")
op { "floor_divide(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "Division rounded down (self // other)." }
op { "floor_divide.Scalar(Tensor self, Scalar other) -> Tensor", variants = fm, doc = "Division rounded down." }
op { "floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", variants = "method", doc = "Division rounded down, in place." }
op { "floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", variants = "method", doc = "Division rounded down, in place." }
binary("remainder", "Python's modulus: the result takes the divisor's sign (self % other).")
op { "remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", variants = "function",
     doc = "A number modulo a tensor." }
binary("fmod", "C's fmod: the result takes the dividend's sign.")
op { "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", variants = fm, doc = "self raised to exponent." }
op { "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", variants = fm, doc = "self raised to exponent." }
op { "pow.Scalar(Scalar self, Tensor exponent) -> Tensor", variants = "function", doc = "A number raised to a tensor." }
op { "pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)", variants = "method", doc = "pow in place." }
op { "pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)", variants = "method", doc = "pow in place." }
op { "rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", variants = "function",
     doc = "other - alpha * self." }
op { "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", variants = "function",
     doc = "other - alpha * self." }
op { "atan2(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "The angle of (other, self)." }
op { "atan2_(Tensor(a!) self, Tensor other) -> Tensor(a!)", variants = "method", doc = "atan2 in place." }
op { "maximum(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "Element-wise maximum (NaN propagates)." }
op { "minimum(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "Element-wise minimum (NaN propagates)." }

-- comparisons and logic
for _, c in ipairs { { "eq", "==" }, { "ne", "~=" }, { "lt", "<" }, { "le", "<=" }, { "gt", ">" }, { "ge", ">=" } } do
  binary(c[1], "self " .. c[2] .. " other, element-wise (bool result).", nil, { nondiff = true })
end
for _, l in ipairs { "and", "or", "xor" } do
  op { "logical_" .. l .. "(Tensor self, Tensor other) -> Tensor", variants = fm, doc = "Logical " .. l .. " (bool result).",
       nondiff = true }
  op { "logical_" .. l .. "_(Tensor(a!) self, Tensor other) -> Tensor(a!)", variants = "method", doc = "Logical " .. l .. ", in place." }
end
op { "logical_not(Tensor self) -> Tensor", variants = fm, doc = "Logical not (bool result).", nondiff = true }
op { "logical_not_(Tensor(a!) self) -> Tensor(a!)", variants = fm, doc = "Logical not (bool result). In place." }
for _, l in ipairs { "and", "or", "xor" } do
  binary("bitwise_" .. l, "Bitwise " .. l .. " of integers and bools.", nil, { nondiff = true })
end
binary("bitwise_left_shift", "self << other.", nil, { nondiff = true })
binary("bitwise_right_shift", "self >> other (arithmetic for signed types).", nil, { nondiff = true })
unary("bitwise_not", "Bitwise not of integers and bools.")

-- unary math
unary("neg", "-self.")
unary("abs", "|self|.")
unary("sign", "-1, 0 or 1 (bool stays bool).")
unary("reciprocal", "1 / self.")
for _, f in ipairs { "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
  "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid" } do
  unary(f, f .. " (integer inputs give the default float dtype).")
end
unary("erf", "The error function (integer inputs give the default float dtype).")
unary("erfc", "1 - erf(self), accurate for large inputs.")
unary("erfinv", "The inverse error function on [-1, 1] (NaN outside).")
unary("relu", "max(self, 0).")
unary("floor", "Rounds down (integers unchanged).")
unary("ceil", "Rounds up (integers unchanged).")
unary("round", "Rounds half to even (integers unchanged).")
op { "round.decimals(Tensor self, *, int decimals) -> Tensor", variants = fm, doc = "Rounds to a number of decimals." }
op { "round_.decimals(Tensor(a!) self, *, int decimals) -> Tensor(a!)", variants = fm, doc = "round with decimals, in place." }
unary("trunc", "Rounds toward zero (integers unchanged).")
unary("frac", "self - trunc(self).")
op { "isnan(Tensor self) -> Tensor", variants = fm, doc = "True where NaN.", nondiff = true }
op { "isinf(Tensor self) -> Tensor", variants = fm, doc = "True where +-inf.", nondiff = true }
op { "isfinite(Tensor self) -> Tensor", variants = fm, doc = "True where neither NaN nor inf.", nondiff = true }
op { "isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor",
     variants = fm, doc = "True where |self - other| <= atol + rtol * |other| (NaNs equal with equal_nan).", nondiff = true }

-- activations with parameters (function forms in torch.nn.functional too)
unary("gelu", "Gaussian error linear unit; approximate='tanh' for the tanh formula.", ", *, str approximate='none'")
unary("silu", "self * sigmoid(self).")
op { "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor", variants = fm,
     doc = "log(1 + exp(beta*x)) / beta, linear above threshold." }
op { "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", variants = fm,
     doc = "Exponential linear unit." }
op { "elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)", variants = fm,
     doc = "elu in place." }
op { "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", variants = fm, doc = "x, or negative_slope * x below 0." }
op { "leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)", variants = fm, doc = "leaky_relu in place." }
op { "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", variants = fm, doc = "Clamps to [min_val, max_val]." }
op { "hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)", variants = fm, doc = "hardtanh in place." }

-- clamping, interpolation, selection
op { "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", variants = fm, doc = "Clamps into [min, max]." }
op { "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", variants = fm, doc = "Clamps into [min, max] element-wise." }
op { "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)", variants = fm, doc = "clamp in place." }
op { "clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)", variants = fm, doc = "clamp in place." }
op { "clip(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", variants = fm, doc = "Alias of clamp." }
op { "clip.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", variants = fm, doc = "Alias of clamp." }
op { "clip_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)", variants = fm, doc = "Alias of clamp_." }
op { "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor", variants = fm, doc = "self + weight * (end - self)." }
op { "lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor", variants = fm, doc = "self + weight * (end - self)." }
op { "lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)", variants = "method", doc = "lerp in place." }
op { "lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)", variants = "method", doc = "lerp in place." }
op { "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", variants = fm,
     doc = "self + value * tensor1 * tensor2." }
op { "addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)", variants = "method",
     doc = "addcmul in place." }
op { "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", variants = fm,
     doc = "self + value * tensor1 / tensor2." }
op { "addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)", variants = "method",
     doc = "addcdiv in place." }
op { "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", variants = fm,
     doc = "self where condition is true, else other." }
op { "where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor", variants = "function",
     doc = "self where condition is true, else other." }
op { "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor", variants = "function",
     doc = "self where condition is true, else other." }
op { "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor", variants = "function",
     doc = "self where condition is true, else other." }
