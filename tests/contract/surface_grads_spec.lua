-- Gradients of the ops issue 18 added outside torch.linalg against PyTorch's own
-- (cases/surface_grads.py). Dims and indices are 1-based here.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local D = torch.float64

local function t(v) return torch.tensor(v, { dtype = D, requires_grad = true }) end
local function x() return t({ { 0.5, -1.25, 2.0, 0.3 }, { 1.5, 0.25, -0.75, -2.2 }, { 0.9, 1.7, -0.4, 0.6 } }) end
local function pos() return t({ { 0.5, 1.25, 2.0, 0.3 }, { 1.5, 0.25, 0.75, 2.2 }, { 0.9, 1.7, 0.4, 3.6 } }) end
local function y() return t({ { 0.2, -0.1, 0.7, 1.1 }, { -0.6, 0.8, 0.05, -0.3 }, { 1.2, -1.4, 0.35, 0.9 } }) end
local function grads(f, ...)
  local inputs = table.pack(...)
  f(...):backward()
  local out = {}
  for i = 1, inputs.n do out[i] = inputs[i].grad end
  return out
end
local W = torch.arange(1.0, 13.0, { dtype = D }):view(3, 4)
local A9 = torch.arange(9.0, { dtype = D }):view(3, 3)
local TOL = 1e-9

local raw = {
  median_dim = function() return grads(function(a) return ((torch.median(a, 2)) * torch.tensor({ 1.0, 2.0, 3.0 }, { dtype = D })):sum() end, x()) end,
  nanmedian = function() return grads(function(a) return torch.nanmedian(a) end, x()) end,
  mode = function() return grads(function(a) return (torch.mode(a, 2)):sum() end, x()) end,
  cummax = function() return grads(function(a) return ((torch.cummax(a, 2)) * W):sum() end, x()) end,
  cummin = function() return grads(function(a) return ((torch.cummin(a, 1)) * W):sum() end, x()) end,
  logcumsumexp = function() return grads(function(a) return (torch.logcumsumexp(a, 2) * W):sum() end, x()) end,
  quantile = function()
    return grads(function(a) return torch.quantile(a, torch.tensor({ 0.3, 0.8 }, { dtype = D }), 2):sum() end, x())
  end,
  nanmean = function() return grads(function(a) return (torch.nanmean(a, 1) * torch.arange(4.0, { dtype = D })):sum() end, x()) end,
  diff = function() return grads(function(a) return (torch.diff(a, { n = 2, dim = 2 }) ^ 2):sum() end, x()) end,
  dist = function() return grads(function(a, b) return torch.dist(a, b, 3) end, x(), y()) end,
  cdist = function() return grads(function(a, b) return torch.cdist(a, b):sum() end, x(), y()) end,
  pdist = function() return grads(function(a) return torch.pdist(a):sum() end, x()) end,
  cov = function() return grads(function(a) return (torch.cov(a) * A9):sum() end, x()) end,
  corrcoef = function() return grads(function(a) return (torch.corrcoef(a) * A9):sum() end, x()) end,
  renorm = function() return grads(function(a) return (torch.renorm(a, 2, 1, 1.5) * W):sum() end, x()) end,
  trapezoid = function() return grads(function(a) return torch.trapezoid(a, { dim = 2 }):sum() end, x()) end,
  cumulative_trapezoid = function()
    return grads(function(a) return (torch.cumulative_trapezoid(a) * W:narrow(2, 1, 3)):sum() end, x())
  end,
  digamma = function() return grads(function(a) return torch.digamma(a):sum() end, pos()) end,
  lgamma = function() return grads(function(a) return torch.lgamma(a):sum() end, pos()) end,
  polygamma = function() return grads(function(a) return torch.polygamma(2, a):sum() end, pos()) end,
  mvlgamma = function() return grads(function(a) return torch.mvlgamma(a + 1.0, 2):sum() end, pos()) end,
  i0 = function() return grads(function(a) return torch.i0(a):sum() end, x()) end,
  logit = function() return grads(function(a) return torch.logit(a:sigmoid(), 0.1):sum() end, x()) end,
  igammac = function()
    local g = grads(function(a, b) return torch.igammac(a, b):sum() end, pos():detach(),
      t({ { 0.5, 1.0, 1.5, 2.0 }, { 2.5, 0.2, 1.1, 0.8 }, { 1.3, 2.2, 0.6, 3.0 } }))
    return { g[2] }
  end,
  hardshrink = function() return grads(function(a) return (torch.hardshrink(a, 0.6) * W):sum() end, x()) end,
  prelu = function()
    return grads(function(a, w) return (torch.prelu(a:view(1, 3, 4), w) * W):sum() end, x(), t({ 0.1, 0.2, 0.3 }))
  end,
  frexp = function() return grads(function(a) return (torch.frexp(a)):sum() end, x()) end,
  cosine_similarity = function() return grads(function(a, b) return torch.cosine_similarity(a, b, 2):sum() end, x(), y()) end,
  pairwise_distance = function() return grads(function(a, b) return torch.pairwise_distance(a, b):sum() end, x(), y()) end,
  margin_ranking_loss = function()
    local target = torch.tensor({ { 1.0, -1, 1, -1 }, { 1.0, -1, 1, -1 }, { 1.0, -1, 1, -1 } }, { dtype = D })
    return grads(function(a, b) return torch.margin_ranking_loss(a, b, target, 0.2, 1) end, x(), y())
  end,
  triplet_margin_loss = function()
    return grads(function(a, b) return torch.triplet_margin_loss(a, b, a:flip(1), 1.0, 2.0, 1e-6, false, 1) end, x(), y())
  end,
  poisson_nll_loss = function()
    return grads(function(a)
      return torch.poisson_nll_loss(a, torch.arange(12.0, { dtype = D }):view(3, 4), true, false, 1e-8, 1)
    end, x())
  end,
  pixel_shuffle = function() return grads(function(a) return (torch.pixel_shuffle(a:view(1, 4, 3, 1), 2) ^ 2):sum() end, x()) end,
  instance_norm = function()
    return grads(function(a)
      return (torch.instance_norm(a:view(1, 3, 4), nil, nil, nil, nil, true, 0.1, 1e-5, false) * W):sum()
    end, x())
  end,
  gru_cell = function()
    return grads(function(a, b)
      return torch.gru_cell(a:narrow(1, 1, 2), b:narrow(1, 1, 2):narrow(2, 1, 3) * 0, torch.ones(9, 4, { dtype = D }) * 0.1,
        torch.ones(9, 3, { dtype = D }) * 0.2):sum()
    end, x(), y())
  end,
  lstm_cell = function()
    return grads(function(a)
      local h = (torch.lstm_cell(a, { a:narrow(2, 1, 2) * 0.5, a:narrow(2, 1, 2) },
        torch.arange(32.0, { dtype = D }):view(8, 4) * 0.01, torch.ones(8, 2, { dtype = D }) * 0.1))
      return h:sum()
    end, x())
  end,
  scatter_reduce_amax = function()
    local idx = torch.tensor({ { 1, 2, 1, 3 }, { 1, 2, 1, 3 }, { 1, 2, 1, 3 } })
    return grads(function(a, b) return (a:scatter_reduce(2, idx, b, "amax") * W):sum() end, x(), y())
  end,
  scatter_reduce_prod = function()
    local idx = torch.tensor({ { 1, 2, 3, 1 }, { 2, 2, 1, 3 } })
    return grads(function(a, b)
      return a:scatter_reduce(1, idx, b:narrow(1, 1, 2), "prod", { include_self = false }):sum()
    end, x(), y())
  end,
  max_pool3d = function() return grads(function(a) return torch.max_pool3d(a:view(1, 1, 3, 2, 2), 2, 1):sum() end, x()) end,
  conv3d = function()
    return grads(function(a, b)
      return torch.conv3d(a:view(1, 1, 3, 2, 2), b:narrow(1, 1, 2):narrow(2, 1, 2):reshape(1, 1, 2, 2, 1)):sum()
    end, x(), y())
  end,
}

local cases = {}
for name, f in pairs(raw) do cases[name] = { f, tol = TOL } end
H.run("surface_grads", cases)
