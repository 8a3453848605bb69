-- The gamma-function family and its element-wise neighbours, as PyTorch 1.13 declares them:
-- digamma, lgamma, polygamma, i0, igamma, igammac, logit, hardshrink (scalar bodies in
-- backends/cpu/cpu_ew_gamma.h). polygamma's ATen schema puts n before self, which the
-- element-wise kernels cannot read: it is declared here as _polygamma(self, n) (and PyTorch's own
-- polygamma_(self, n)), and torch.polygamma / x:polygamma(n) are written over it in
-- lua/mindtorch/_queries.lua, with mvlgamma, frexp, rrelu, prelu and isin.
local fm = "function, method"

local function ew(family, kind, rule, dtypes, kname, params)
  return { family = family, kind = kind, rule = rule, dtypes = dtypes, kname = kname, params = params }
end

-- name(Tensor self<extra>) -> Tensor and name_(Tensor(a!) self<extra>) with one description
local function unary(name, spec)
  local extra = spec.extra or ""
  op { name .. "(Tensor self" .. extra .. ") -> Tensor", variants = fm, doc = spec.doc, ew = spec.ew, grad = spec.grad }
  if spec.inplace ~= false then
    op { name .. "_(Tensor(a!) self" .. extra .. ") -> Tensor(a!)", variants = spec.inplace_variants or "method",
         doc = spec.doc .. " In place.", ew = spec.ew, grad = spec.grad }
  end
end

unary("digamma", { doc = "The logarithmic derivative of the gamma function, psi(x).",
  ew = ew("GM_DIGAMMA", "unary", "float", "FLOATS_NOHALF", "digamma"),
  grad = { self = "grad * _polygamma(self, 1)" } })
unary("lgamma", { doc = "The natural logarithm of |gamma(x)|.",
  ew = ew("GM_LGAMMA", "unary", "float", "FLOATS_NOHALF", "lgamma_vml_cpu"),
  grad = { self = "grad * digamma(self)" } })

-- polygamma: self first (see above); the derivative raises n by one
local polygamma_ew = ew("GM_POLYGAMMA", "unary", "float", "FLOATS_NOHALF", "polygamma", { "n" })
op { "_polygamma(Tensor self, int n) -> Tensor", variants = "function",
     doc = "psi^(n)(self), the n-th derivative of digamma (torch.polygamma(n, self) calls it).", ew = polygamma_ew,
     grad = { node = "PolygammaBackward0", fn = "mt_d_polygamma", uses = "self: self" } }
op { "polygamma_(Tensor(a!) self, int n) -> Tensor(a!)", variants = "method",
     doc = "psi^(n)(self), in place.", ew = polygamma_ew,
     grad = { node = "PolygammaBackward1", fn = "mt_d_polygamma", uses = "self: self" } }

unary("i0", { doc = "The modified Bessel function of the first kind of order 0.", inplace_variants = fm,
  ew = ew("GM_I0", "unary", "float", "FLOATS_NOHALF", "i0_vml_cpu"),
  grad = { self = "grad * special_i1(self)" } })

-- the regularized incomplete gamma functions; PyTorch has no derivative in self (a C formula
-- raises its error and computes the one in other)
for _, g in ipairs {
  { "igamma", "GM_IGAMMA", "The regularized lower incomplete gamma function P(self, other)." },
  { "igammac", "GM_IGAMMAC", "The regularized upper incomplete gamma function Q(self, other)." },
} do
  local e = ew(g[2], "binary", "same", "FLOATS", g[1] .. "_cpu")
  local grad = { fn = "mt_d_" .. g[1], uses = "self: self, other; other: self, other" }
  op { g[1] .. "(Tensor self, Tensor other) -> Tensor", variants = fm, doc = g[3], ew = e, grad = grad }
  op { g[1] .. "_(Tensor(a!) self, Tensor other) -> Tensor(a!)", variants = "method", doc = g[3] .. " In place.",
       ew = e, grad = grad }
end

unary("logit", { doc = "log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.", extra = ", float? eps=None",
  inplace_variants = fm, ew = ew("GM_LOGIT", "unary", "float", "FLOATS_NOHALF", "logit_cpu", { "eps" }),
  grad = { fn = "mt_d_logit", uses = "self: self" } })

op { "hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor", variants = fm,
     doc = "x where |x| > lambd, else 0.",
     ew = ew("GM_HARDSHRINK", "unary", "same", "FLOATS_NOHALF", "hardshrink_cpu", { "lambd" }),
     grad = { self = "masked_fill(grad, logical_and(self >= -lambd, self <= lambd), 0)" } }

-- torch.special.airy_ai: no derivative in PyTorch
op { "special_airy_ai(Tensor x) -> Tensor", variants = "function", doc = "The Airy function Ai(x).", nondiff = true,
     ew = ew("GM_AIRY_AI", "unary", "float", "FLOATS_NOHALF_NOBF16", "airy_ai_cpu") }
