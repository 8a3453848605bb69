-- The statistics of src/ops/statistics.lua written as compositions (nanmean, logcumsumexp,
-- quantile ...): their gradients are those of the ops they are made of. gradcheck (float64,
-- central differences) confirms each one end to end, gradgradcheck a few. The ops that declare
-- PyTorch's own formula (median, mode, cummax ...) are in gradcheck_spec.lua; aminmax has none.
local torch = require "mindtorch"
local gradcheck, gradgradcheck = torch.autograd.gradcheck, torch.autograd.gradgradcheck

local gen = torch.Generator():manual_seed(1813)
local f64 = torch.float64
local function r(...) return torch.randn(table.pack(...), { dtype = f64, generator = gen }):requires_grad_() end
local function with_nan(x) return x:masked_fill(torch.tensor({ { false, true, false }, { true, true, false } }), 0 / 0) end

local cases = {
  nanmean = { function(x) return torch.nanmean(with_nan(x), 2) end, { r(2, 3) }, true },
  logcumsumexp = { function(x) return torch.logcumsumexp(x, 2) end, { r(3, 6) }, true },
  logcumsumexp_dim1 = { function(x) return x:logcumsumexp(1) end, { r(5, 2) } },
  quantile = { function(x) return torch.quantile(x, torch.tensor({ 0.2, 0.5, 0.9 }, { dtype = f64 }), 2) end,
    { r(3, 5) }, true },
  quantile_midpoint = { function(x) return torch.quantile(x, 0.3, { interpolation = "midpoint" }) end, { r(3, 4) } },
  nanquantile = { function(x) return torch.nanquantile(with_nan(x), 0.4, 2, true) end, { r(2, 3) } },
}

describe("statistics gradients", function()
  local names = {}
  for name in pairs(cases) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local c = cases[name]
    it(name, function()
      assert.is_true(gradcheck(c[1], c[2]))
      if c[3] then assert.is_true(gradgradcheck(c[1], c[2])) end
    end)
  end
  it("aminmax has no derivative, as in PyTorch", function()
    local lo = torch.aminmax(r(2, 3))
    assert.has_error(function() lo:sum():backward() end, "derivative for aten::aminmax is not implemented")
  end)
end)
