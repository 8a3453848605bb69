-- Resampling and rearranging layers against PyTorch (cases/nn_resample.py): interpolate in
-- every mode, Upsample*, padding, Fold/Unfold, the shuffles, grid_sample and affine_grid.
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
  dtype = dtype or D
  return ((torch.arange(numel(shape), { dtype = dtype }) * 7 % 13) / 4 - 1.5):reshape(shape):requires_grad_()
end
local function weights(y)
  return ((torch.arange(y:numel(), { dtype = y.dtype }) * 5 % 11) / 8 - 0.6):reshape(y.shape)
end
-- fn(x) on the fixed input: its value, and the input's gradient for fixed upstream weights
local function run(fn, shape, dtype, no_grad)
  local x = X(shape, dtype)
  local y = fn(x)
  if no_grad then return y:detach() end
  ;(y * weights(y)):sum():backward()
  return { y:detach(), x.grad }
end

-- name -> input shape, interpolate's options (cases/nn_resample.py's INTERP and INTERP32)
local INTERP = {
  nearest_1d_size = { { 2, 2, 5 }, { size = 8 } },
  nearest_1d_scale = { { 2, 2, 5 }, { scale_factor = 1.7 } },
  nearest_2d_scale2 = { { 1, 2, 3, 4 }, { scale_factor = 2 } },
  nearest_2d_frac = { { 1, 2, 4, 5 }, { scale_factor = { 1.3, 0.7 } } },
  nearest_2d_size_down = { { 1, 2, 7, 6 }, { size = { 3, 4 } } },
  nearest_2d_recompute = { { 1, 2, 4, 5 }, { scale_factor = { 1.3, 2.6 }, recompute_scale_factor = true } },
  nearest_3d_size = { { 1, 2, 3, 4, 2 }, { size = { 5, 3, 4 } } },
  nearest_3d_scale = { { 1, 1, 3, 2, 4 }, { scale_factor = { 1.5, 2.0, 0.75 } } },
  nearest_exact_1d = { { 2, 2, 5 }, { size = 7, mode = "nearest-exact" } },
  nearest_exact_2d = { { 1, 2, 4, 5 }, { scale_factor = { 1.5, 0.6 }, mode = "nearest-exact" } },
  nearest_exact_3d = { { 1, 1, 3, 2, 4 }, { size = { 4, 5, 3 }, mode = "nearest-exact" } },
  nearest_exact_recompute = { { 1, 2, 4, 5 }, { scale_factor = 1.3, mode = "nearest-exact",
    recompute_scale_factor = true } },
  linear_default = { { 2, 2, 5 }, { size = 3, mode = "linear" } },
  linear_size_ac_false = { { 2, 2, 5 }, { size = 8, mode = "linear", align_corners = false } },
  linear_size_ac_true = { { 2, 2, 5 }, { size = 8, mode = "linear", align_corners = true } },
  linear_scale_ac_false = { { 2, 2, 6 }, { scale_factor = 0.6, mode = "linear", align_corners = false } },
  linear_scale_ac_true = { { 2, 2, 6 }, { scale_factor = 1.7, mode = "linear", align_corners = true } },
  linear_recompute = { { 2, 2, 5 }, { scale_factor = 1.7, mode = "linear", recompute_scale_factor = true } },
  bilinear_size_ac_false = { { 1, 2, 3, 4 }, { size = { 5, 7 }, mode = "bilinear" } },
  bilinear_size_ac_true = { { 1, 2, 3, 4 }, { size = { 5, 7 }, mode = "bilinear", align_corners = true } },
  bilinear_scale_ac_false = { { 1, 2, 4, 5 }, { scale_factor = { 1.5, 0.6 }, mode = "bilinear",
    align_corners = false } },
  bilinear_scale_ac_true = { { 1, 2, 4, 5 }, { scale_factor = { 2.5, 1.3 }, mode = "bilinear", align_corners = true } },
  bilinear_recompute = { { 1, 2, 4, 5 }, { scale_factor = 1.7, mode = "bilinear", recompute_scale_factor = true } },
  bilinear_down = { { 1, 2, 7, 6 }, { size = { 3, 2 }, mode = "bilinear" } },
  bicubic_size_ac_false = { { 1, 2, 4, 5 }, { size = { 7, 3 }, mode = "bicubic" } },
  bicubic_size_ac_true = { { 1, 2, 4, 5 }, { size = { 7, 3 }, mode = "bicubic", align_corners = true } },
  bicubic_scale_ac_false = { { 1, 2, 4, 5 }, { scale_factor = { 1.6, 2.0 }, mode = "bicubic", align_corners = false } },
  bicubic_scale_ac_true = { { 1, 2, 4, 5 }, { scale_factor = { 0.7, 1.5 }, mode = "bicubic", align_corners = true } },
  bicubic_recompute = { { 1, 2, 4, 5 }, { scale_factor = 1.3, mode = "bicubic", recompute_scale_factor = true } },
  trilinear_size_ac_false = { { 1, 2, 3, 2, 4 }, { size = { 4, 3, 5 }, mode = "trilinear" } },
  trilinear_size_ac_true = { { 1, 2, 3, 2, 4 }, { size = { 4, 3, 5 }, mode = "trilinear", align_corners = true } },
  trilinear_scale_ac_false = { { 1, 1, 3, 2, 4 }, { scale_factor = { 1.5, 2.0, 0.75 }, mode = "trilinear" } },
  trilinear_scale_ac_true = { { 1, 1, 3, 2, 4 }, { scale_factor = { 2.0, 1.5, 1.3 }, mode = "trilinear",
    align_corners = true } },
  aa_bilinear_down = { { 1, 2, 9, 7 }, { size = { 4, 3 }, mode = "bilinear", antialias = true } },
  aa_bilinear_scale_ac = { { 1, 2, 8, 6 }, { scale_factor = { 0.4, 0.7 }, mode = "bilinear", align_corners = true,
    antialias = true } },
  aa_bicubic_down = { { 1, 2, 9, 7 }, { size = { 4, 5 }, mode = "bicubic", antialias = true } },
  aa_bicubic_up = { { 1, 2, 3, 4 }, { scale_factor = { 2.0, 1.5 }, mode = "bicubic", antialias = true } },
  area_1d = { { 2, 2, 7 }, { size = 3, mode = "area" } },
  area_1d_scale = { { 2, 2, 7 }, { scale_factor = 0.6, mode = "area" } },
  area_2d = { { 1, 2, 7, 5 }, { size = { 3, 2 }, mode = "area" } },
  area_2d_scale = { { 1, 2, 6, 5 }, { scale_factor = { 0.5, 1.5 }, mode = "area" } },
  area_3d = { { 1, 2, 5, 4, 3 }, { size = { 2, 3, 2 }, mode = "area" } },
  area_3d_scale = { { 1, 1, 4, 5, 3 }, { scale_factor = 0.7, mode = "area" } },
}
local INTERP32 = {
  f32_nearest = { { 1, 2, 9, 11 }, { scale_factor = { 1.3, 0.7 } } },
  f32_nearest_exact = { { 1, 2, 9, 11 }, { scale_factor = { 2.3, 0.45 }, mode = "nearest-exact" } },
  f32_linear = { { 2, 3, 13 }, { scale_factor = 1.37, mode = "linear" } },
  f32_bilinear = { { 1, 2, 9, 11 }, { size = { 14, 5 }, mode = "bilinear", align_corners = true } },
  f32_bicubic = { { 1, 2, 9, 11 }, { scale_factor = { 1.3, 0.7 }, mode = "bicubic" } },
  f32_trilinear = { { 1, 1, 5, 3, 4 }, { size = { 7, 4, 3 }, mode = "trilinear" } },
}

local function padded(make, shape) -- (gradients summed in another order)
  return { function() return run(function(x) return make()(x) end, shape) end, tol = 1e-12 }
end

local function grid(shape, scale)
  local g = ((torch.arange(numel(shape), { dtype = D }) * 3 % 17) / 8 - 1.0625) * (scale or 1.5) + 0.01
  return g:reshape(shape):requires_grad_()
end
local function sample(mode, padding_mode, align_corners, three)
  local x = X(three and { 2, 2, 3, 4, 5 } or { 2, 2, 4, 5 })
  local g = grid(three and { 2, 2, 3, 2, 3 } or { 2, 3, 4, 2 })
  local y = F.grid_sample(x, g, { mode = mode, padding_mode = padding_mode, align_corners = align_corners })
  ;(y * weights(y)):sum():backward()
  return { y:detach(), x.grad, g.grad or torch.zeros_like(g) }
end
local function affine(three, align_corners)
  local theta, size
  if three then
    theta = torch.tensor({ { { 0.75, 0.25, -0.125, 0.5 }, { 0.0, 1.25, 0.5, -0.25 }, { 0.25, 0.0, 0.875, 0.125 } } },
      { dtype = D, requires_grad = true })
    size = { 1, 2, 3, 4, 2 }
  else
    theta = torch.tensor({ { { 0.75, 0.25, -0.125 }, { -0.5, 1.25, 0.25 } },
      { { 1.0, 0.0, 0.5 }, { 0.0, 0.5, -0.25 } } },
      { dtype = D, requires_grad = true })
    size = { 2, 1, 3, 5 }
  end
  local g = F.affine_grid(theta, size, { align_corners = align_corners })
  ;(g * weights(g)):sum():backward()
  return { g:detach(), theta.grad }
end
local function rotate()
  local theta = torch.tensor({ { { 0.8, -0.6, 0.1 }, { 0.6, 0.8, -0.05 } } }, { dtype = D, requires_grad = true })
  local x = X({ 1, 2, 5, 6 })
  local y = F.grid_sample(x, F.affine_grid(theta, { 1, 2, 4, 4 }, false), { align_corners = false })
  ;(y * weights(y)):sum():backward()
  return { y:detach(), x.grad, theta.grad }
end

local tol = 1e-12 -- sums taken in another order
local cases = {}
for name, c in pairs(INTERP) do
  cases["interp_" .. name] = { function()
    return run(function(x) return F.interpolate(x, c[2]) end, c[1])
  end, tol = tol }
end
for name, c in pairs(INTERP32) do
  cases["interp_" .. name] = { function()
    return run(function(x) return F.interpolate(x, c[2]) end, c[1], torch.float32, true)
  end, tol = 1e-5 }
end
for _, mode in ipairs { "bilinear", "nearest", "bicubic" } do
  for _, pm in ipairs { "zeros", "border", "reflection" } do
    for _, ac in ipairs { false, true } do
      local suffix = ("%s_%s_%s"):format(mode, pm, ac and "True" or "False")
      cases["grid_sample_2d_" .. suffix] = { function() return sample(mode, pm, ac) end, tol = tol }
      if mode ~= "bicubic" then
        cases["grid_sample_3d_" .. suffix] = { function() return sample(mode, pm, ac, true) end, tol = tol }
      end
    end
  end
end

local function one_based_dims(m) return H.dims_1based(m) end
local function fold_dims(m)
  return (m:gsub("dimension (%d)", function(d) return "dimension " .. (d + 1) end)
    :gsub("input%.size%((%d)%)", function(d) return "input.size(" .. (d + 1) .. ")" end))
end

local more = {
  upsample_module = { function()
    return run(function(x) return nn.Upsample({ scale_factor = 2, mode = "bilinear" })(x) end, { 1, 2, 3, 3 })
  end, tol = tol },
  upsample_module_size = { function()
    return run(function(x) return nn.Upsample({ 4, 3, 5 }, nil, "trilinear", true)(x) end, { 1, 1, 2, 3, 2 })
  end, tol = tol },
  upsampling_nearest2d = function()
    return run(function(x) return nn.UpsamplingNearest2d({ size = { 5, 4 } })(x) end, { 1, 2, 3, 3 })
  end,
  upsampling_bilinear2d = { function()
    return run(function(x) return nn.UpsamplingBilinear2d({ scale_factor = 2 })(x) end, { 1, 2, 3, 3 })
  end, tol = tol },
  f_upsample = { function()
    return run(function(x) return F.upsample(x, { size = 5, mode = "linear" }) end, { 2, 2, 3 })
  end, tol = tol },
  f_upsample_nearest = function()
    return run(function(x) return F.upsample_nearest(x, { scale_factor = 2 }) end, { 1, 2, 2, 3 })
  end,
  f_upsample_bilinear = { function()
    return run(function(x) return F.upsample_bilinear(x, { 5, 6 }) end, { 1, 2, 2, 3 })
  end, tol = tol },
  upsample_repr = function()
    return tostring(nn.Sequential(nn.Upsample({ size = 4 }), nn.Upsample({ scale_factor = { 2, 3 } }),
      nn.Upsample({ scale_factor = 1.5, mode = "bicubic", align_corners = true }),
      nn.Upsample({ 3, 4 }, nil, "bilinear"),
      nn.UpsamplingNearest2d({ scale_factor = 2 }), nn.UpsamplingBilinear2d({ size = { 3, 4 } })))
  end,
  upsample_attrs = function()
    return { nn.Upsample({ scale_factor = 2 }).scale_factor, nn.UpsamplingBilinear2d(3).mode,
      nn.UpsamplingBilinear2d(3).align_corners, nn.Upsample(3).mode }
  end,
  error_interp_both = function() return F.interpolate(X({ 1, 2, 3 }), { size = 4, scale_factor = 2.0 }) end,
  error_interp_neither = function() return F.interpolate(X({ 1, 2, 3 })) end,
  error_interp_size_len = function() return F.interpolate(X({ 1, 2, 3, 4 }), { size = { 3 } }) end,
  error_interp_scale_len = function() return F.interpolate(X({ 1, 2, 3, 4 }), { scale_factor = { 3.0, 2.0, 1.0 } }) end,
  error_interp_align_nearest = function()
    return F.interpolate(X({ 1, 2, 3, 4 }), { size = { 3, 2 }, align_corners = true })
  end,
  error_interp_recompute_size = function()
    return F.interpolate(X({ 1, 2, 3, 4 }), { size = { 3, 2 }, recompute_scale_factor = true })
  end,
  error_interp_mode = function() return F.interpolate(X({ 1, 2, 3, 4 }), 3, nil, "foo") end,
  error_interp_linear_4d = function() return F.interpolate(X({ 1, 2, 3, 4 }), 3, nil, "linear") end,
  error_interp_trilinear_3d = function() return F.interpolate(X({ 1, 2, 3 }), 3, nil, "trilinear") end,
  error_interp_bicubic_5d = function() return F.interpolate(X({ 1, 1, 2, 3, 4 }), 3, nil, "bicubic") end,
  error_interp_2d_input = function() return F.interpolate(X({ 2, 3 }), 3) end,
  error_interp_zero_1d = function() return F.interpolate(X({ 1, 1, 4 }), { size = 0, mode = "linear" }) end,
  error_interp_zero_2d = function() return F.interpolate(X({ 1, 2, 3, 4 }), { scale_factor = 0.1 }) end,
  error_interp_zero_3d = function()
    return F.interpolate(X({ 1, 1, 2, 3, 4 }), { size = { 1, 0, 1 }, mode = "trilinear" })
  end,
  error_interp_empty_channels = function() return F.interpolate(torch.zeros(1, 0, 3, 4), { size = { 3, 5 } }) end,
  error_interp_long_linear = function()
    return F.interpolate(torch.zeros(1, 2, 4, { dtype = torch.int64 }), { size = 2, mode = "linear" })
  end,
  error_interp_long_bicubic = function()
    return F.interpolate(torch.zeros(1, 2, 4, 3, { dtype = torch.int64 }), { size = 2, mode = "bicubic" })
  end,
  error_interp_antialias = function()
    return F.interpolate(X({ 1, 2, 4 }), { size = 2, mode = "linear", antialias = true })
  end,
  error_interp_antialias_3d = function()
    return F.interpolate(X({ 1, 1, 2, 3, 4 }), { size = 2, mode = "trilinear", antialias = true })
  end,

  zero_pad2d = padded(function() return nn.ZeroPad2d({ 1, 2, 0, 3 }) end, { 2, 2, 3, 4 }),
  constant_pad1d = padded(function() return nn.ConstantPad1d(2, 3.5) end, { 2, 3, 4 }),
  constant_pad2d = padded(function() return nn.ConstantPad2d({ 1, 0, 2, 1 }, -1.0) end, { 1, 2, 3, 3 }),
  constant_pad3d = padded(function() return nn.ConstantPad3d(1, 0.5) end, { 1, 2, 2, 2, 3 }),
  reflection_pad1d = padded(function() return nn.ReflectionPad1d({ 2, 1 }) end, { 2, 3, 4 }),
  reflection_pad1d_unbatched = padded(function() return nn.ReflectionPad1d(3) end, { 3, 4 }),
  reflection_pad2d = padded(function() return nn.ReflectionPad2d({ 1, 2, 2, 0 }) end, { 1, 2, 3, 4 }),
  reflection_pad2d_unbatched = padded(function() return nn.ReflectionPad2d(1) end, { 2, 3, 4 }),
  reflection_pad3d = padded(function() return nn.ReflectionPad3d({ 1, 2, 1, 0, 0, 1 }) end, { 1, 2, 3, 3, 4 }),
  reflection_pad3d_unbatched = padded(function() return nn.ReflectionPad3d(1) end, { 2, 3, 3, 4 }),
  replication_pad1d = padded(function() return nn.ReplicationPad1d({ 3, 1 }) end, { 2, 3, 4 }),
  replication_pad2d = padded(function() return nn.ReplicationPad2d({ 2, 0, 1, 3 }) end, { 1, 2, 3, 4 }),
  replication_pad3d = padded(function() return nn.ReplicationPad3d(2) end, { 1, 1, 2, 3, 2 }),
  replication_pad3d_unbatched = padded(function() return nn.ReplicationPad3d({ 0, 1, 2, 0, 1, 1 }) end, { 2, 2, 3, 2 }),
  pad_negative_reflect = function() return run(function(x) return F.pad(x, { -1, 2 }, "reflect") end, { 2, 3, 4 }) end,
  pad_negative_replicate = function()
    return run(function(x) return F.pad(x, { 2, -1, -1, 1 }, { mode = "replicate" }) end, { 1, 2, 3, 4 })
  end,
  pad_negative_circular = function()
    return run(function(x) return F.pad(x, { -1, 2, 1, -1 }, "circular") end, { 1, 2, 3, 4 })
  end,
  pad_circular_3d = function()
    return run(function(x) return F.pad(x, { 1, 1, 0, 2, 1, 0 }, "circular") end, { 1, 1, 2, 3, 3 })
  end,
  pad_repr = function()
    return tostring(nn.Sequential(nn.ZeroPad2d(2), nn.ZeroPad2d({ 1, 2, 3, 4 }), nn.ConstantPad1d({ 1, 2 }, 3.5),
      nn.ConstantPad2d(1, 2), nn.ConstantPad3d({ 1, 0, 0, 1, 2, 2 }, -0.5), nn.ReflectionPad1d(2),
      nn.ReflectionPad2d({ 1, 0, 2, 3 }), nn.ReflectionPad3d(1), nn.ReplicationPad1d({ 0, 3 }), nn.ReplicationPad2d(2),
      nn.ReplicationPad3d(1)))
  end,
  error_pad_reflect3d = { function() return F.pad(X({ 1, 2, 3, 4 }), { 1, 1, 3, 1, 1, 1 }, "reflect") end,
    expect = one_based_dims },
  error_pad_reflect2d = { function() return nn.ReflectionPad2d({ 1, 1, 3, 1 })(X({ 1, 2, 3, 4 })) end,
    expect = one_based_dims },
  error_pad_reflect1d = { function() return nn.ReflectionPad1d({ 4, 1 })(X({ 2, 3, 4 })) end, expect = one_based_dims },
  error_pad_nonconstant_dims = function() return F.pad(X({ 2, 3 }), { 1, 1, 1, 1 }, "replicate") end,
  error_pad_value = function() return F.pad(X({ 2, 3, 4 }), { 1, 1 }, "reflect", 1.0) end,
  error_pad_circular_size = function() return F.pad(X({ 2, 3, 4 }), { 1, 1, 1, 1 }, "circular") end,
  error_pad_circular_wrap = function() return F.pad(X({ 2, 3, 4 }), { 5, 1 }, "circular") end,
  error_pad_replicate_small = function() return F.pad(X({ 2, 3, 4 }), { -3, -1 }, "replicate") end,
  error_pad_replicate_small_2d = function() return F.pad(X({ 2, 3, 4 }), { 0, -4, -3, 0 }, "replicate") end,
  error_pad_reflect_empty = function() return F.pad(torch.zeros(2, 0, 3), { 1, 1 }, "reflect") end,
  error_pad_replicate_empty = function() return F.pad(torch.zeros(2, 0, 3), { 1, 1 }, "replicate") end,
  error_pad_mode = function() return F.pad(X({ 2, 3, 4 }), { 1, 1 }, "foo") end,
  error_pad_long_reflect = function()
    return F.pad(torch.zeros(2, 3, 4, { dtype = torch.int64 }), { 1, 1 }, "reflect")
  end,
  error_pad_long_replicate = function()
    return F.pad(torch.zeros(1, 2, 3, 4, { dtype = torch.int64 }), { 1, 1, 1, 1 }, "replicate")
  end,

  unfold_module = function()
    return run(function(x) return nn.Unfold({ 2, 3 }, { dilation = { 1, 2 }, padding = 1, stride = { 2, 1 } })(x) end,
      { 2, 3, 5, 6 })
  end,
  unfold_unbatched = function() return run(function(x) return F.unfold(x, 2) end, { 3, 4, 5 }) end,
  fold_module = function()
    return run(function(x) return nn.Fold({ 4, 5 }, 2, { padding = 1, stride = { 1, 2 } })(x) end, { 2, 8, 15 })
  end,
  fold_unbatched = function() return run(function(x) return F.fold(x, { 3, 4 }, 2) end, { 12, 6 }) end,
  fold_dilation = function()
    return run(function(x) return nn.Fold({ 5, 5 }, { 2, 3 }, { dilation = 2 })(x) end, { 1, 12, 3 })
  end,
  fold_unfold_roundtrip = function()
    return run(function(x)
      return F.fold(F.unfold(x, 3, { padding = 1 }), { 4, 5 }, 3, { padding = 1 })
    end, { 1, 2, 4, 5 })
  end,
  fold_repr = function()
    return tostring(nn.Sequential(nn.Fold({ 3, 4 }, 2), nn.Fold(5, { 2, 3 }, { dilation = 2, padding = { 1, 0 },
      stride = 3 }), nn.Unfold(2, { padding = 1 }), nn.Unfold({ 2, 3 }, 1, 2, 3)))
  end,
  error_unfold_5d = function() return F.unfold(torch.zeros(1, 2, 3, 5, 6), { 2, 3 }) end,
  error_unfold_kernel = function() return F.unfold(X({ 2, 3, 5, 6 }), { 0, 3 }) end,
  error_unfold_stride = function() return F.unfold(X({ 2, 3, 5, 6 }), { 2, 3 }, { stride = 0 }) end,
  error_unfold_padding = function() return F.unfold(X({ 2, 3, 5, 6 }), { 2, 3 }, { padding = -1 }) end,
  error_unfold_too_big = function() return F.unfold(X({ 2, 3, 5, 6 }), { 7, 3 }) end,
  error_unfold_long = function() return F.unfold(torch.zeros(2, 3, 5, 6, { dtype = torch.int64 }), 2) end,
  error_fold_4d = function() return F.fold(torch.zeros(12, 6, 1, 1), { 3, 4 }, { 2, 2 }) end,
  error_fold_divisible = { function() return F.fold(torch.zeros(2, 13, 6), { 3, 4 }, { 2, 2 }) end,
    expect = fold_dims },
  error_fold_blocks = { function() return F.fold(torch.zeros(2, 12, 5), { 3, 4 }, { 2, 2 }) end, expect = fold_dims },
  error_fold_dilation = function() return F.fold(torch.zeros(2, 12, 6), { 3, 4 }, { 2, 2 }, { dilation = 0 }) end,

  pixel_shuffle_module = function() return run(function(x) return nn.PixelShuffle(2)(x) end, { 1, 8, 2, 3 }) end,
  pixel_shuffle_unbatched = function() return run(function(x) return F.pixel_shuffle(x, 2) end, { 8, 2, 3 }) end,
  pixel_unshuffle_module = function() return run(function(x) return nn.PixelUnshuffle(2)(x) end, { 1, 2, 4, 6 }) end,
  pixel_unshuffle_f = function() return run(function(x) return F.pixel_unshuffle(x, 3) end, { 2, 1, 3, 6 }) end,
  channel_shuffle_module = function()
    return run(function(x) return nn.ChannelShuffle(3)(x) end, { 2, 6, 2, 2 }, nil, true)
  end,
  channel_shuffle_f = function() return run(function(x) return F.channel_shuffle(x, 2) end, { 2, 4, 3 }, nil, true) end,
  shuffle_repr = function()
    return tostring(nn.Sequential(nn.PixelShuffle(2), nn.PixelUnshuffle(3), nn.ChannelShuffle(4)))
  end,
  error_pixel_shuffle = function() return nn.PixelShuffle(3)(X({ 1, 8, 2, 2 })) end,
  error_pixel_unshuffle = function() return nn.PixelUnshuffle(2)(X({ 1, 2, 3, 4 })) end,
  error_channel_shuffle = function() return nn.ChannelShuffle(4)(X({ 1, 6, 2, 2 })) end,
  state_dict_keys = function()
    local keys = {}
    for k in pairs(nn.Sequential(nn.Upsample({ scale_factor = 2 }), nn.ZeroPad2d(1), nn.Fold(3, 2), nn.PixelShuffle(2),
      nn.ReflectionPad1d(1)):state_dict()) do keys[#keys + 1] = k end
    table.sort(keys)
    return keys
  end,

  affine_grid_2d = { function() return affine(false, false) end, tol = tol },
  affine_grid_2d_ac = { function() return affine(false, true) end, tol = tol },
  affine_grid_3d = { function() return affine(true, false) end, tol = tol },
  affine_grid_3d_ac = { function() return affine(true, true) end, tol = tol },
  affine_rotate_sample = { rotate, tol = tol },
  error_grid_sample_mode = function() return F.grid_sample(X({ 1, 2, 3, 4 }), grid({ 1, 5, 6, 2 }), "foo") end,
  error_grid_sample_padding = function()
    return F.grid_sample(X({ 1, 2, 3, 4 }), grid({ 1, 5, 6, 2 }), { padding_mode = "foo" })
  end,
  error_grid_sample_bicubic_3d = function()
    return F.grid_sample(X({ 1, 2, 3, 4, 5 }), grid({ 1, 5, 6, 7, 3 }), "bicubic", "zeros", false)
  end,
  error_grid_sample_last_dim = function()
    return F.grid_sample(X({ 1, 2, 3, 4 }), grid({ 1, 5, 6, 3 }), { align_corners = false })
  end,
  error_grid_sample_batch = function()
    return F.grid_sample(X({ 1, 2, 3, 4 }), grid({ 2, 5, 6, 2 }), { align_corners = false })
  end,
  error_affine_theta_shape = function()
    return F.affine_grid(torch.zeros(1, 2, 3, { dtype = D }), { 1, 2, 3, 4, 5 }, false)
  end,
  error_affine_size = function() return F.affine_grid(torch.zeros(1, 2, 3, { dtype = D }), { 1, 2, 3 }, false) end,
  error_affine_long = function()
    return F.affine_grid(torch.zeros(1, 2, 3, { dtype = torch.int64 }), { 1, 2, 3, 4 }, false)
  end,
  error_affine_zero = function() return F.affine_grid(torch.zeros(1, 2, 3, { dtype = D }), { 1, 2, 0, 4 }, false) end,
}
for k, v in pairs(more) do cases[k] = v end

H.run("nn_resample", cases)
