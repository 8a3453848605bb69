-- torch.special's own functions (lua/mindtorch/special.lua names them without the prefix), as
-- PyTorch 1.13 declares them: special_<name>, functions only, no in-place forms. Integer inputs
-- give the default float dtype. The Bessel and polynomial families have no derivative in
-- PyTorch (their results never require grad).
local F32F64 = "FLOATS_NOHALF_NOBF16" -- PyTorch's CPU kernels refuse Half and BFloat16

local function ew(family, kind, dtypes, kname)
  return { family = family, kind = kind, rule = "float", dtypes = dtypes, kname = kname }
end

local SQRT_2PI, INV_SQRT_2PI = "2.50662827463100050242", "0.39894228040143267794"
local TWO_OVER_SQRT_PI = "1.12837916709551257390"

-- name, family, dtypes, PyTorch's kernel name, derivative (nil: none), doc
local unaries = {
  { "erfcx", "SP_ERFCX", F32F64, "erfcx_cpu", { self = "grad * (2 * self * result - " .. TWO_OVER_SQRT_PI .. ")" },
    "The scaled complementary error function exp(x^2) * erfc(x)." },
  -- PyTorch composes ndtr from erf ((1 + erf(x / sqrt 2)) / 2): its dtypes and node name follow
  { "ndtr", "SP_NDTR", "FLOATS_NOHALF", "erf_vml_cpu",
    { node = "MulBackward1", self = "grad * (exp(self * self * -0.5) * " .. INV_SQRT_2PI .. ")" },
    "The standard normal distribution function." },
  { "ndtri", "SP_NDTRI", F32F64, "ndtri_cpu", { self = "grad * (exp(result * result * 0.5) * " .. SQRT_2PI .. ")" },
    "The inverse of ndtr (the standard normal quantile)." },
  { "log_ndtr", "SP_LOG_NDTR", F32F64, "log_ndtr_cpu",
    { self = "grad * (exp(-(result + self * self * 0.5)) * " .. INV_SQRT_2PI .. ")" },
    "log(ndtr(x)), accurate far in the lower tail." },
  { "entr", "SP_ENTR", "FLOATS_NOHALF", "entr_cpu", { self = "grad * -(log(self) + 1)" },
    "-x * log(x) (0 at 0, -inf below)." },
}
for _, u in ipairs(unaries) do
  op { "special_" .. u[1] .. "(Tensor self) -> Tensor", variants = "function", doc = u[6],
       ew = ew(u[2], "unary", u[3], u[4]), grad = u[5] }
end

-- xlog1py: self * log1p(other), 0 where self is 0 (unless other is NaN)
local xlog1py_ew = ew("SP_XLOG1PY", "binary", "FLOATS", "xlog1py_cpu")
op { "special_xlog1py(Tensor self, Tensor other) -> Tensor", variants = "function",
     doc = "self * log1p(other), 0 where self is 0.", ew = xlog1py_ew,
     grad = { self = "masked_fill(special_xlog1py(grad, other), logical_and(self == 0, other <= -1), 0)",
              other = "grad * self / (other + 1)" } }
op { "special_xlog1py.self_scalar(Scalar self, Tensor other) -> Tensor", variants = "function",
     doc = "self * log1p(other), 0 where self is 0.", ew = xlog1py_ew,
     grad = { node = "SpecialXlog1PyBackward1", other = "grad * self / (other + 1)" } }
op { "special_xlog1py.other_scalar(Tensor self, Scalar other) -> Tensor", variants = "function",
     doc = "self * log1p(other), 0 where self is 0.", ew = xlog1py_ew,
     grad = { node = "SpecialXlog1PyBackward2",
              self = "masked_fill(special_xlog1py(grad, other), logical_and(self == 0, self * 0 + other <= -1), 0)" } }

-- modified Bessel functions: the exponentially scaled ones and i1 differentiable as in PyTorch
local bessel_diff = {
  { "i0e", "SP_I0E", "FLOATS_NOHALF", { self = "grad * (special_i1e(self) - sign(self) * result)" },
    "exp(-|x|) I0(x), the exponentially scaled modified Bessel function of order 0." },
  { "i1", "SP_I1", F32F64, { self = "grad * masked_fill(special_i0e(self) * exp(abs(self)) - result / self, self == 0, 0.5)" },
    "The modified Bessel function of the first kind of order 1." },
  { "i1e", "SP_I1E", F32F64,
    { self = "grad * masked_fill(special_i0e(self) - result * (sign(self) + reciprocal(self)), self == 0, 0.5)" },
    "exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order 1." },
}
for _, u in ipairs(bessel_diff) do
  op { "special_" .. u[1] .. "(Tensor self) -> Tensor", variants = "function", doc = u[5],
       ew = ew(u[2], "unary", u[3], u[1] .. "_cpu"), grad = u[4] }
end

-- no derivative in PyTorch: name, family, doc
local nondiff_unary = {
  { "bessel_j0", "SP_J0", "The Bessel function of the first kind of order 0." },
  { "bessel_j1", "SP_J1", "The Bessel function of the first kind of order 1." },
  { "bessel_y0", "SP_Y0", "The Bessel function of the second kind of order 0." },
  { "bessel_y1", "SP_Y1", "The Bessel function of the second kind of order 1." },
  { "modified_bessel_i0", "SP_I0", "The modified Bessel function of the first kind of order 0." },
  { "modified_bessel_i1", "SP_MI1", "The modified Bessel function of the first kind of order 1." },
  { "modified_bessel_k0", "SP_K0", "The modified Bessel function of the second kind of order 0." },
  { "modified_bessel_k1", "SP_K1", "The modified Bessel function of the second kind of order 1." },
  { "scaled_modified_bessel_k0", "SP_K0E", "exp(x) K0(x)." },
  { "scaled_modified_bessel_k1", "SP_K1E", "exp(x) K1(x)." },
  { "spherical_bessel_j0", "SP_SJ0", "sin(x) / x, the spherical Bessel function of order 0." },
}
for _, u in ipairs(nondiff_unary) do
  op { "special_" .. u[1] .. "(Tensor x) -> Tensor", variants = "function", doc = u[3], nondiff = true,
       ew = ew(u[2], "unary", F32F64, u[1] .. "_cpu") }
end

-- orthogonal polynomials P_n(x), n truncated to an integer: no derivative in PyTorch
local polys = {
  { "chebyshev_polynomial_t", "SP_POLY_T", "Chebyshev polynomial of the first kind T_n(x)." },
  { "chebyshev_polynomial_u", "SP_POLY_U", "Chebyshev polynomial of the second kind U_n(x)." },
  { "chebyshev_polynomial_v", "SP_POLY_V", "Chebyshev polynomial of the third kind V_n(x)." },
  { "chebyshev_polynomial_w", "SP_POLY_W", "Chebyshev polynomial of the fourth kind W_n(x)." },
  { "shifted_chebyshev_polynomial_t", "SP_POLY_ST", "Shifted Chebyshev polynomial of the first kind T*_n(x)." },
  { "shifted_chebyshev_polynomial_u", "SP_POLY_SU", "Shifted Chebyshev polynomial of the second kind U*_n(x)." },
  { "shifted_chebyshev_polynomial_v", "SP_POLY_SV", "Shifted Chebyshev polynomial of the third kind V*_n(x)." },
  { "shifted_chebyshev_polynomial_w", "SP_POLY_SW", "Shifted Chebyshev polynomial of the fourth kind W*_n(x)." },
  { "hermite_polynomial_h", "SP_POLY_H", "Physicists' Hermite polynomial H_n(x)." },
  { "hermite_polynomial_he", "SP_POLY_HE", "Probabilists' Hermite polynomial He_n(x)." },
  { "laguerre_polynomial_l", "SP_POLY_L", "Laguerre polynomial L_n(x)." },
  { "legendre_polynomial_p", "SP_POLY_P", "Legendre polynomial P_n(x)." },
}
for _, p in ipairs(polys) do
  local e = ew(p[2], "binary", F32F64, p[1] .. "_cpu")
  local base = "special_" .. p[1]
  op { base .. "(Tensor x, Tensor n) -> Tensor", variants = "function", doc = p[3], nondiff = true, ew = e }
  op { base .. ".x_scalar(Scalar x, Tensor n) -> Tensor", variants = "function", doc = p[3], nondiff = true, ew = e }
  op { base .. ".n_scalar(Tensor x, Scalar n) -> Tensor", variants = "function", doc = p[3], nondiff = true, ew = e }
end

-- the Hurwitz zeta function zeta(x, q); PyTorch has no derivative in x (its node raises; the
-- derivative in q is left out here too)
local zeta_ew = ew("SP_ZETA", "binary", F32F64, "zeta_cpu")
local zeta_grad = { node = "SpecialZetaBackward0", fn = "mt_bw_zero_grads", uses = "self:; other:",
  flags = "MT_D_NOT_IMPLEMENTED", message = "zeta" }
op { "special_zeta(Tensor self, Tensor other) -> Tensor", variants = "function",
     doc = "The Hurwitz zeta function sum over k of (k + other)^-self.", ew = zeta_ew, grad = zeta_grad }
op { "special_zeta.self_scalar(Scalar self, Tensor other) -> Tensor", variants = "function",
     doc = "The Hurwitz zeta function.", ew = zeta_ew,
     grad = { node = "SpecialZetaBackward1", fn = "mt_bw_zero_grads", uses = "other:", flags = "MT_D_NOT_IMPLEMENTED",
              message = "zeta" } }
op { "special_zeta.other_scalar(Tensor self, Scalar other) -> Tensor", variants = "function",
     doc = "The Hurwitz zeta function.", ew = zeta_ew,
     grad = { node = "SpecialZetaBackward2", fn = "mt_bw_zero_grads", uses = "self:", flags = "MT_D_NOT_IMPLEMENTED",
              message = "zeta" } }
