-- The statistics of src/ops/statistics.lua written as compositions (nanmean, quantile, diff,
-- cdist, cov, trapezoid, gradient ...): their gradients are those of the ops they are made of.
-- gradcheck (float64, central differences) confirms each one end to end, gradgradcheck a few.
-- The ops that declare PyTorch's own formula (median, mode, cummax, logcumsumexp ...) are in
-- gradcheck_spec.lua; aminmax, bincount and histogram have none.
local torch = require "mindtorch"
local gradcheck, gradgradcheck = torch.autograd.gradcheck, torch.autograd.gradgradcheck

local gen = torch.Generator():manual_seed(1813)
local f64 = torch.float64
local function r(...) return torch.randn(table.pack(...), { dtype = f64, generator = gen }):requires_grad_() end
local function with_nan(x) return x:masked_fill(torch.tensor({ { false, true, false }, { true, true, false } }), 0 / 0) end

local cases = {
  nanmean = { function(x) return torch.nanmean(with_nan(x), 2) end, { r(2, 3) }, true },
  quantile = { function(x) return torch.quantile(x, torch.tensor({ 0.2, 0.5, 0.9 }, { dtype = f64 }), 2) end,
    { r(3, 5) }, true },
  quantile_midpoint = { function(x) return torch.quantile(x, 0.3, { interpolation = "midpoint" }) end, { r(3, 4) } },
  nanquantile = { function(x) return torch.nanquantile(with_nan(x), 0.4, 2, true) end, { r(2, 3) } },
  diff = { function(x, p) return torch.diff(x, 2, 1, p) end, { r(4, 3), r(1, 3) }, true },
  dist = { function(a, b) return torch.dist(a, b, 3) end, { r(3, 4), r(4) }, true },
  renorm = { function(x) return torch.renorm(x, 2, 1, 1.0) end, { r(3, 4) }, true },
  renorm_ = { function(x) return (x * 1):renorm_(1, 2, 0.5) end, { r(3, 4) } },
  cdist = { function(a, b) return torch.cdist(a, b, 1.5) end, { r(2, 3, 4), r(5, 4) }, true },
  cdist_mm = { function(a, b) return torch.cdist(a, b, 2, "use_mm_for_euclid_dist") end, { r(3, 4), r(5, 4) } },
  pdist = { function(x) return torch.pdist(x) end, { r(4, 3) }, true },
  cov = { function(x, a) return torch.cov(x, { fweights = torch.tensor({ 1, 2, 1, 3 }), aweights = a:abs() + 0.1 }) end,
    { r(2, 4), r(4) }, true },
  corrcoef = { function(x) return torch.corrcoef(x) end, { r(3, 5) } },
  trapezoid = { function(y, x) return torch.trapezoid(y, x:cumsum(1)) end, { r(3, 5), r(5) }, true },
  trapz_dx = { function(y) return torch.trapz(y, { dx = 0.5, dim = 1 }) end, { r(3, 5) } },
  gradient = { function(x) local g = torch.gradient(x, { spacing = 0.5, edge_order = 2 }) return g[1] + g[2] * 2 end,
    { r(3, 4) }, true },
  gradient_coords = { function(x, c) return torch.gradient(x, { spacing = { c:cumsum(1):exp() }, dim = 2 })[1] end,
    { r(2, 5), r(5) } },
  cumulative_trapezoid = { function(y, x) return torch.cumulative_trapezoid(y, x, { dim = 1 }) end, { r(4, 2), r(4, 2) } },
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
  it("bincount's weights and histogram have no derivative, as in PyTorch; histc's counts none at all", function()
    local w, x = r(3), r(4)
    assert.has_error(function() torch.bincount(torch.tensor({ 0, 2, 2 }), w):sum():backward() end,
      "derivative for aten::bincount is not implemented")
    assert.has_error(function() (torch.histogram(x, 3)):sum():backward() end,
      "derivative for aten::histogram is not implemented")
    assert.is_false(torch.histc(x, 3).requires_grad)
  end)
  it("diff's shape message counts dims from 1, as every mindtorch message", function()
    assert.has_error(function() torch.diff(torch.zeros(3, 4), 1, 2, torch.zeros(2, 4)) end,
      "diff expects the shape of tensor to prepend or append to match that of input except along the "
      .. "differencing dimension; input.size(1) = 3, but got tensor.size(1) = 2")
  end)
  it("histogramdd returns each dim's edges in a sequence beside the counts", function()
    local x = torch.tensor({ { 0.0, 1.0 }, { 1.0, 3.0 }, { 0.5, 2.0 } }, { dtype = f64 })
    local hist, edges = torch.histogramdd(x, { 2, 4 })
    assert.are.equal(2, hist:size(1))
    assert.are.equal(4, hist:size(2))
    assert.are.equal(2, #edges)
    assert.is_true(torch.equal(edges[1], torch.linspace(0, 1, 3, { dtype = f64 })))
    assert.is_true(torch.equal(edges[2], torch.linspace(1, 3, 5, { dtype = f64 })))
    local given = torch.tensor({ 0.0, 0.25, 1.0 }, { dtype = f64 })
    local _, e2 = torch.histogramdd(x:narrow(2, 1, 1), { given })
    assert.is_true(torch.equal(e2[1], given))
  end)
  it("aminmax has no derivative, as in PyTorch", function()
    local lo = torch.aminmax(r(2, 3))
    assert.has_error(function() lo:sum():backward() end, "derivative for aten::aminmax is not implemented")
  end)
end)
