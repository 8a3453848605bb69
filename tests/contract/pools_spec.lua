-- The poolings of nn/pooling_more.lua against PyTorch (cases/pools.py): values, 1-based indices
-- (PyTorch's + 1: each case subtracts 1 before comparing), float64 input gradients, reprs and
-- error texts.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn, F = torch.nn, torch.nn.functional

local D = torch.float64
local function numel(shape)
  local n = 1
  for _, d in ipairs(shape) do n = n * d end
  return n
end
local function X(shape, dtype)
  return ((torch.arange(numel(shape), { dtype = dtype or D }) * 7 % 13) / 4 - 1.5):reshape(shape):requires_grad_()
end
-- distinct values (no ties within a window): a permutation of the grid
local function XU(shape, dtype)
  local n = numel(shape)
  return ((torch.arange(n, { dtype = dtype or D }) * 37 % n) / 8 - 3):reshape(shape):requires_grad_()
end
local function weights(y)
  return ((torch.arange(y:numel(), { dtype = y.dtype }) * 5 % 11) / 8 - 0.6):reshape(y.shape)
end
-- fn(x): values (and 0-based indices when it gives two results), then x's gradient
local function run(fn, x)
  local y, idx = fn(x)
  ;(y * weights(y)):sum():backward()
  if idx == nil then return { y:detach(), x.grad } end
  return { y:detach(), idx - 1, x.grad }
end
local function samples(shape, dtype)
  return ((torch.arange(numel(shape), { dtype = dtype or D }) * 0.37 + 0.11) % 1):reshape(shape)
end
local function unpool(n, shape, k, s, p, output_size)
  local x = XU(shape)
  local v, i = F["max_pool" .. n .. "d"](x:detach(), k, s, p, { return_indices = true })
  v = v:clone():requires_grad_()
  local y = F["max_unpool" .. n .. "d"](v, i, k, s, p, output_size)
  ;(y * weights(y)):sum():backward()
  return { y:detach(), v.grad }
end
local function plus_one_index(m) return (m:gsub("max index: (%d+)", function(i) return "max index: " .. (i + 1) end)) end

H.run("pools", {
  max_pool3d_idx = function() return run(function(x) return F.max_pool3d(x, 2, { return_indices = true }) end,
    XU({ 2, 2, 4, 5, 6 })) end,
  max_pool3d_idx_full = function()
    return run(function(x) return F.max_pool3d(x, { 3, 2, 3 }, { 2, 1, 2 }, 1, { 1, 2, 1 }, true, true) end,
      XU({ 1, 2, 5, 6, 7 }))
  end,
  max_pool3d_idx_unbatched = function()
    return run(function(x) return F.max_pool3d_with_indices(x, 2, 1) end, XU({ 2, 3, 4, 3 }))
  end,
  avg_pool3d = function() return run(function(x) return F.avg_pool3d(x, 2) end, X({ 2, 2, 4, 5, 6 })) end,
  avg_pool3d_pad_ceil = function()
    return run(function(x) return F.avg_pool3d(x, { 3, 2, 3 }, { 2, 1, 2 }, 1, true) end, X({ 1, 2, 5, 6, 7 }))
  end,
  avg_pool3d_exclude_pad = function()
    return run(function(x) return F.avg_pool3d(x, { 3, 2, 3 }, { 2, 1, 2 }, 1, true, false) end, X({ 1, 2, 5, 6, 7 }))
  end,
  avg_pool3d_divisor = function()
    return run(function(x) return F.avg_pool3d(x, 2, 1, 1, { divisor_override = 3 }) end, X({ 2, 3, 4, 3 }))
  end,
  avg_pool3d_long = function() return F.avg_pool3d((torch.arange(64):reshape(1, 1, 4, 4, 4) * 3) % 17, 2) end,
  -- (the means of the planes' means: the last bit may differ from PyTorch's one sum per box)
  adaptive_avg_pool3d = { function()
    return run(function(x) return F.adaptive_avg_pool3d(x, { 2, 3, 4 }) end, X({ 2, 2, 5, 6, 7 }))
  end, tol = 1e-13 },
  adaptive_avg_pool3d_int = { function()
    return run(function(x) return F.adaptive_avg_pool3d(x, 3) end, X({ 2, 4, 5, 7 }))
  end, tol = 1e-13 },
  adaptive_max_pool1d = function()
    return run(function(x) return F.adaptive_max_pool1d(x, 4, true) end, XU({ 2, 3, 7 }))
  end,
  adaptive_max_pool2d = function()
    return run(function(x) return F.adaptive_max_pool2d(x, { 3, 4 }, true) end, XU({ 2, 3, 7, 9 }))
  end,
  adaptive_max_pool2d_unbatched = function()
    return run(function(x) return F.adaptive_max_pool2d_with_indices(x, 2) end, XU({ 3, 5, 5 }))
  end,
  adaptive_max_pool2d_values = function()
    return run(function(x) return F.adaptive_max_pool2d(x, 3) end, XU({ 1, 2, 6, 8 }))
  end,
  adaptive_max_pool3d = function()
    return run(function(x) return F.adaptive_max_pool3d(x, { 2, 3, 2 }, true) end, XU({ 1, 2, 5, 7, 4 }))
  end,
  lp_pool1d_2 = function() return run(function(x) return F.lp_pool1d(x, 2, 3) end, X({ 2, 3, 8 })) end,
  lp_pool1d_3_stride = function()
    return run(function(x) return F.lp_pool1d(x, 3, 2, { stride = 1, ceil_mode = true }) end, X({ 2, 3, 7 }))
  end,
  lp_pool2d_15 = function()
    return run(function(x) return F.lp_pool2d(x:abs() + 0.5, 1.5, { 2, 3 }) end, X({ 1, 2, 6, 7 }))
  end,
  lp_pool2d_2_ceil = function() return run(function(x) return F.lp_pool2d(x, 2, 2, 2, true) end, X({ 1, 2, 5, 5 })) end,
  fractional2d_size = function()
    return run(function(x)
      return F.fractional_max_pool2d(x, 2, { output_size = { 4, 5 }, return_indices = true,
        _random_samples = samples({ 2, 3, 2 }) })
    end, XU({ 2, 3, 7, 9 }))
  end,
  fractional2d_ratio = function()
    return run(function(x)
      return F.fractional_max_pool2d(x, { 3, 2 }, { output_ratio = { 0.5, 0.6 }, return_indices = true,
        _random_samples = samples({ 1, 2, 2 }) })
    end, XU({ 1, 2, 9, 8 }))
  end,
  fractional2d_unbatched = function()
    return run(function(x)
      return F.fractional_max_pool2d_with_indices(x, 2, { output_size = 3, _random_samples = samples({ 1, 2, 2 }) })
    end, XU({ 2, 6, 6 }))
  end,
  fractional2d_float32 = function()
    local v, i = F.fractional_max_pool2d(XU({ 1, 2, 17, 13 }, torch.float32):detach(), 3, { output_size = { 6, 7 },
      return_indices = true, _random_samples = samples({ 1, 2, 2 }, torch.float32) })
    return { v, i - 1 }
  end,
  fractional3d_size = function()
    return run(function(x)
      return F.fractional_max_pool3d(x, 2, { output_size = { 3, 4, 2 }, return_indices = true,
        _random_samples = samples({ 1, 2, 3 }) })
    end, XU({ 1, 2, 6, 7, 5 }))
  end,
  fractional3d_ratio = function()
    return run(function(x)
      return F.fractional_max_pool3d(x, { 2, 3, 2 }, { output_ratio = 0.5, _random_samples = samples({ 2, 1, 3 }) })
    end, XU({ 2, 1, 6, 8, 6 }))
  end,
  unpool1d = function() return unpool(1, { 2, 3, 8 }, 2, 2, 0) end,
  unpool1d_stride_pad = function() return unpool(1, { 1, 2, 9 }, 3, 2, 1) end,
  unpool2d = function() return unpool(2, { 2, 2, 6, 8 }, 2, 2, 0) end,
  unpool2d_size = function() return unpool(2, { 1, 2, 7, 7 }, 2, 2, 0, { 7, 7 }) end,
  unpool2d_pad = { function() return unpool(2, { 1, 1, 6, 7 }, { 3, 2 }, { 2, 1 }, { 1, 0 }) end, expect = plus_one_index },
  unpool3d = function() return unpool(3, { 1, 2, 4, 4, 6 }, 2, 2, 0) end,
  unpool3d_full_size = function() return unpool(3, { 1, 1, 5, 4, 5 }, 2, 2, 0, { 1, 1, 5, 4, 5 }) end,
  reprs = function()
    local out = {}
    for i, m in ipairs({ nn.AdaptiveAvgPool3d({ 2, 3, 4 }), nn.AdaptiveAvgPool3d(2), nn.AdaptiveMaxPool1d(3),
      nn.AdaptiveMaxPool2d({ 2, 3 }, { return_indices = true }), nn.AdaptiveMaxPool3d(2), nn.AvgPool3d(3),
      nn.AvgPool3d({ 1, 2, 3 }, { stride = { 2, 1, 1 }, padding = 1, ceil_mode = true, count_include_pad = false,
        divisor_override = 2 }),
      nn.LPPool1d(2, 3), nn.LPPool2d(1.5, { 2, 3 }, { stride = 1, ceil_mode = true }),
      nn.FractionalMaxPool2d(2, { output_size = { 3, 4 } }), nn.FractionalMaxPool3d(2, { output_ratio = 0.5 }),
      nn.MaxUnpool1d(2), nn.MaxUnpool2d({ 2, 3 }, { stride = 1, padding = { 0, 1 } }), nn.MaxUnpool3d(2),
      nn.MaxPool3d(2, { return_indices = true }) }) do
      out[i] = tostring(m)
    end
    return out
  end,
  modules = { function()
    return {
      nn.AvgPool3d(2, { ceil_mode = true })(X({ 1, 2, 3, 5, 4 })):detach(),
      nn.AdaptiveAvgPool3d({ 1, 2, 3 })(X({ 1, 2, 3, 5, 4 })):detach(),
      nn.AdaptiveMaxPool2d(2)(XU({ 1, 2, 5, 5 })):detach(),
      nn.LPPool2d(2, 2)(X({ 1, 2, 4, 4 })):detach(),
      nn.MaxUnpool2d(2)(torch.tensor({ { { { 5.0, 6 }, { 7, 8 } } } }), torch.tensor({ { { { 1, 4 }, { 9, 16 } } } })),
    }
  end, tol = 1e-13 },
  error_fractional_neither = function() return F.fractional_max_pool2d(X({ 1, 2, 5, 5 }), 2) end,
  error_fractional_too_large = function() return F.fractional_max_pool2d(X({ 1, 2, 5, 5 }), 3, { output_size = 4 }) end,
  error_fractional3d_too_large = function()
    return F.fractional_max_pool3d(X({ 1, 1, 4, 4, 4 }), 2, { output_size = 4 })
  end,
  error_unpool_index = { function()
    return F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor({ { { { 1, 2 }, { 3, 100 } } } }), 2)
  end, expect = plus_one_index },
  error_unpool_size = { function()
    return F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor({ { { { 1, 2 }, { 3, 4 } } } }), 2, { output_size = { 9, 9 } })
  end, expect = H.dims_1based },
  error_unpool_len = function()
    return F.max_unpool1d(torch.ones(1, 1, 2), torch.tensor({ { { 1, 2 } } }), 2, { output_size = { 1, 1, 9, 9 } })
  end,
  error_unpool_shape = function()
    return F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.zeros({ 1, 1, 2, 3 }, { dtype = torch.int64 }), 2)
  end,
  error_unpool_dtype = function() return F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.zeros(1, 1, 2, 2), 2) end,
  error_adaptive_max2d_dims = function() return F.adaptive_max_pool2d(torch.randn(2, 3), 2) end,
  error_adaptive_max2d_empty = { function() return F.adaptive_max_pool2d(torch.randn(1, 2, 0, 3), 2) end,
    expect = H.dims_1based },
  error_adaptive_max2d_long = function()
    return F.adaptive_max_pool2d(torch.ones({ 1, 2, 3, 3 }, { dtype = torch.int64 }), 2)
  end,
  error_adaptive_max3d_size = function() return F.adaptive_max_pool3d(torch.randn(1, 2, 3, 3, 3), { 2, 2 }) end,
  error_adaptive_max3d_long = function()
    return F.adaptive_max_pool3d(torch.ones({ 1, 2, 3, 3, 3 }, { dtype = torch.int64 }), 2)
  end,
  error_adaptive_avg3d_dims = function() return F.adaptive_avg_pool3d(torch.randn(3, 3), 2) end,
  error_adaptive_avg3d_size = function() return F.adaptive_avg_pool3d(torch.randn(1, 1, 3, 3, 3), { 2, 2 }) end,
  error_adaptive_avg3d_long = function()
    return F.adaptive_avg_pool3d(torch.ones({ 1, 1, 3, 3, 3 }, { dtype = torch.int64 }), 2)
  end,
  error_avg3d_small = function() return F.avg_pool3d(torch.randn(1, 1, 2, 2, 2), 3) end,
  error_avg3d_kernel = function() return F.avg_pool3d(torch.randn(1, 1, 4, 4, 4), { 2, 2 }) end,
  error_avg3d_stride = function() return F.avg_pool3d(torch.randn(1, 1, 4, 4, 4), 2, { stride = 0 }) end,
  error_avg3d_divisor = function() return F.avg_pool3d(torch.randn(1, 1, 4, 4, 4), 2, { divisor_override = 0 }) end,
  error_avg3d_pad = function() return F.avg_pool3d(torch.randn(1, 1, 4, 4, 4), 2, { padding = 2 }) end,
  error_avg3d_dims = function() return F.avg_pool3d(torch.randn(4, 4), 2) end,
  error_max3d_idx_pad = function()
    return F.max_pool3d(torch.randn(1, 1, 4, 4, 4), 2, { padding = 2, return_indices = true })
  end,
  error_lp_pool_small = function() return F.lp_pool1d(torch.randn(1, 1, 4), 2, 5) end,
  error_adaptive_avg3d_list_dims = function() return F.adaptive_avg_pool3d(torch.randn(3, 3), { 2, 2, 2 }) end,
  error_adaptive_max2d_list_dims = function() return F.adaptive_max_pool2d(torch.randn(4), { 2, 2 }) end,
  error_fractional_size_len = function()
    return F.fractional_max_pool2d(torch.randn(1, 1, 4, 4), 2, { output_size = { 2 } })
  end,
  error_unpool1d_dims = function()
    return F.max_unpool1d(torch.randn(2), torch.zeros({ 2 }, { dtype = torch.int64 }), 2)
  end,
  error_unpool2d_dims = function()
    return F.max_unpool2d(torch.randn(2, 2), torch.zeros({ 2, 2 }, { dtype = torch.int64 }), 2)
  end,
  error_unpool3d_dims = function()
    return F.max_unpool3d(torch.randn(2, 2, 2), torch.zeros({ 2, 2, 2 }, { dtype = torch.int64 }), 2)
  end,
})
