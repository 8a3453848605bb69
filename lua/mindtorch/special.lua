-- torch.special: PyTorch 1.13's special functions. The new ones are ops declared in
-- src/ops/special.lua under their ATen names (special_erfcx, ...); the others are aliases of
-- torch functions that already compute them, as PyTorch's torch.special aliases them.
local torch = require "mindtorch"

local special = {}

-- special.<name> = torch.<name>
local same = { "erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "round", "softmax", "log_softmax", "logsumexp",
  "xlogy", "sinc", "digamma", "polygamma", "i0", "logit" }
for _, name in ipairs(same) do special[name] = torch[name] end
special.expit = torch.sigmoid
special.psi = torch.digamma
special.gammaln = torch.lgamma
special.multigammaln = torch.mvlgamma
special.gammainc = torch.igamma
special.gammaincc = torch.igammac

-- ops declared as special_<name>
local own = {
  "erfcx", "ndtr", "ndtri", "log_ndtr", "xlog1py", "entr",
  "i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
  "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
  "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "spherical_bessel_j0",
  "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
  "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
  "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
  "legendre_polynomial_p", "zeta", "airy_ai",
}
for _, name in ipairs(own) do special[name] = assert(torch["special_" .. name], name) end

return special
