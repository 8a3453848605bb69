-- Resampling and rearranging layers, the Lua side: options by name (and unknown names
-- refused), gradcheck of every differentiable path, the cases the PyTorch goldens do not
-- reach. Values against PyTorch are in tests/contract/nn_resample_spec.lua.
local torch = require "mindtorch"
local nn, F = torch.nn, torch.nn.functional
local D = torch.float64

local function fails_with(fn, text)
  local ok, err = pcall(fn)
  assert.is_false(ok)
  assert.truthy(tostring(err):find(text, 1, true), tostring(err))
end
local function input(...)
  return (torch.arange(1, 1 + torch.zeros(...):numel(), { dtype = D }) * 0.37):sin():view(...)
end

describe("F.interpolate", function()
  it("takes its arguments positionally or by name, and refuses unknown names", function()
    local x = input(1, 2, 3, 4)
    local a = F.interpolate(x, { 5, 6 }, nil, "bilinear", true)
    local b = F.interpolate(x, { size = { 5, 6 }, mode = "bilinear", align_corners = true })
    assert.is_true(torch.equal(a, b))
    fails_with(function() F.interpolate(x, { sizes = 3 }) end,
      "interpolate() got an unexpected keyword argument 'sizes'")
    fails_with(function() F.interpolate(x, 3, nil, "nearest", nil, nil, nil, 1) end, "takes 6 positional arguments")
    fails_with(function() F.interpolate(x, { 3.5, 2 }) end, "size must be an int or a sequence of ints, not float")
  end)

  it("keeps the same size an identity copy and upsamples uint8 in nearest mode", function()
    local x = input(1, 2, 3, 4)
    local y = F.interpolate(x, { size = { 3, 4 }, mode = "bilinear" })
    assert.is_true(torch.equal(x, y))
    assert.are_not.equal(x:data_ptr(), y:data_ptr())
    local u = torch.arange(6, { dtype = torch.uint8 }):view(1, 1, 2, 3)
    assert.are.same({ { { { 0, 0, 1, 1, 2, 2 }, { 3, 3, 4, 4, 5, 5 } } } },
      F.interpolate(u, { scale_factor = { 1, 2 } }):tolist())
  end)

  it("passes gradcheck in every differentiable mode", function()
    local cases = {
      { { 1, 2, 5 }, { size = 7, mode = "linear" } },
      { { 1, 2, 3, 4 }, { scale_factor = 1.5, mode = "bilinear", align_corners = true } },
      { { 1, 1, 3, 4 }, { size = { 5, 2 }, mode = "bicubic" } },
      { { 1, 1, 2, 3, 2 }, { size = { 3, 2, 4 }, mode = "trilinear" } },
      { { 1, 2, 5, 4 }, { size = { 3, 2 }, mode = "area" } },
      { { 1, 1, 4, 3, 5 }, { size = { 2, 3, 2 }, mode = "area" } },
      { { 1, 2, 4, 5 }, { scale_factor = 1.7, mode = "nearest-exact" } },
      { { 1, 1, 6, 5 }, { size = { 3, 2 }, mode = "bilinear", antialias = true } },
      { { 1, 1, 6, 5 }, { size = { 2, 3 }, mode = "bicubic", antialias = true, align_corners = true } },
    }
    for _, c in ipairs(cases) do
      local x = input(table.unpack(c[1])):requires_grad_()
      assert.is_true(torch.autograd.gradcheck(function(t) return F.interpolate(t, c[2]) end, { x }), c[2].mode)
    end
  end)
end)

describe("sizes no memory can hold", function()
  it("fail at once with a clear error, before any per-position loop", function()
    local x = torch.zeros(1, 2, 3, 4)
    fails_with(function() F.interpolate(x, { size = 1 << 40 }) end, "Storage size calculation overflowed")
    -- a 256 GB allocation that fails: the plain build's malloc says so; AddressSanitizer's
    -- allocator aborts the process instead, so `make asan` leaves these two out
    local sanitized = os.getenv("MT_PRELOAD") ~= nil
    if not sanitized then
      fails_with(function() F.interpolate(x, { size = { 1 << 34, 2 }, mode = "bilinear" }) end, "not enough memory")
    end
    fails_with(function() F.interpolate(x, { scale_factor = 0.0 / 0.0 }) end, "sizes should be greater than 0")
    fails_with(function() F.interpolate(x, { scale_factor = math.huge, recompute_scale_factor = true }) end,
      "cannot convert float infinity to integer")
    if not sanitized then fails_with(function() F.pad(x[1], { 1 << 40, 1 }, "replicate") end, "not enough memory") end
    fails_with(function() F.interpolate(x, { size = 3, mode = "bilinear", align_corners = "x" }) end,
      "interpolate(): argument 'align_corners' must be bool, not str")
  end)
end)

describe("Upsample modules", function()
  it("keep PyTorch's attributes and refuse unknown options", function()
    local m = nn.Upsample({ scale_factor = { 2, 3 }, mode = "bilinear" })
    assert.are.same({ 2.0, 3.0 }, m.scale_factor)
    assert.are.equal(math.type(m.scale_factor[1]), "float")
    assert.is_nil(m.size)
    assert.is_nil(m.align_corners)
    assert.are.equal("Upsample", m.name)
    assert.are.equal("UpsamplingBilinear2d", nn.UpsamplingBilinear2d(3).name)
    assert.is_nil(nn.Upsample({ scale_factor = 0 }).scale_factor) -- Python's `float(s) if s else None`
    fails_with(function() nn.Upsample({ scale = 2 }) end, "__init__() got an unexpected keyword argument 'scale'")
    fails_with(function() nn.UpsamplingNearest2d({ mode = "bilinear" }) end, "unexpected keyword argument 'mode'")
    fails_with(function() nn.Upsample(nil, "x") end, "could not convert string to float: 'x'")
  end)
end)

describe("F.pad and the padding modules", function()
  it("take the mode and value positionally or by name", function()
    local x = input(1, 2, 3)
    assert.is_true(torch.equal(F.pad(x, { 1, 2 }, "constant", 2.5), F.pad(x, { 1, 2 }, { value = 2.5 })))
    assert.is_true(torch.equal(F.pad(x, { 1, 2 }, "reflect"), nn.ReflectionPad1d({ 1, 2 })(x)))
    assert.is_true(torch.equal(F.pad(x, { 1, 2 }, "reflect", 0), F.pad(x, { 1, 2 }, { mode = "reflect" })))
    fails_with(function() F.pad(x, { 1, 1 }, { modes = "reflect" }) end,
      "pad() got an unexpected keyword argument 'modes'")
    fails_with(function() F.pad(x, { 1, 1.5 }) end, "must be tuple of ints, but found element of type float at pos 2")
    fails_with(function() nn.ZeroPad2d() end, "missing 1 required positional argument: 'padding'")
    fails_with(function() nn.ConstantPad1d(2) end, "missing 1 required positional argument: 'value'")
  end)

  it("keep a cropped-away constant pad in the graph", function()
    local x = input(2, 3):requires_grad_()
    local y = F.pad(x, { -3, 1 }, { value = 1.0 })
    assert.are.same({ 2, 1 }, y:size())
    assert.is_true(y.requires_grad)
    y:sum():backward()
    assert.is_true(torch.equal(x.grad, torch.zeros(2, 3, { dtype = D })))
  end)

  it("pass gradcheck in every mode", function()
    local x = input(1, 2, 3, 4):requires_grad_()
    for _, mode in ipairs { "constant", "reflect", "replicate", "circular" } do
      assert.is_true(torch.autograd.gradcheck(function(t) return F.pad(t, { 2, 1, -1, 2 }, mode) end, { x }), mode)
    end
    local v = input(1, 1, 2, 3, 3):requires_grad_()
    assert.is_true(torch.autograd.gradcheck(function(t) return nn.ReflectionPad3d(1)(t) end, { v }))
    assert.is_true(torch.autograd.gradcheck(function(t) return nn.ReplicationPad3d({ 1, 0, 2, 1, 0, 1 })(t) end, { v }))
  end)
end)

describe("Fold, Unfold and the shuffles", function()
  it("take their options by name and pass gradcheck", function()
    local x = input(1, 2, 4, 5):requires_grad_()
    local u = nn.Unfold(2, { stride = { 1, 2 }, padding = 1 })
    assert.is_true(torch.equal(u(x), F.unfold(x, 2, 1, 1, { 1, 2 })))
    assert.is_true(torch.autograd.gradcheck(function(t) return u(t) end, { x }))
    local c = input(1, 8, 6):requires_grad_()
    local f = nn.Fold({ 3, 4 }, 2)
    assert.is_true(torch.autograd.gradcheck(function(t) return f(t) end, { c }))
    fails_with(function() nn.Unfold({ kernel = 2 }) end, "unexpected keyword argument 'kernel'")
    fails_with(function() nn.Fold(3) end, "missing 1 required positional argument: 'kernel_size'")
    fails_with(function() F.unfold(x, { 2, 2, 2 }) end, "It is expected kernel_size equals to 2, but got size 3")
    local s = input(1, 8, 2, 3):requires_grad_()
    assert.is_true(torch.autograd.gradcheck(function(t) return nn.PixelShuffle(2)(t) end, { s }))
    assert.is_true(torch.equal(nn.PixelUnshuffle(2)(nn.PixelShuffle(2)(s)), s))
  end)
end)

describe("grid_sample and affine_grid", function()
  it("take their options by name and pass gradcheck for the input and the grid", function()
    local x = input(1, 2, 3, 4):requires_grad_()
    local theta = torch.tensor({ { { 0.93, -0.31, 0.071 }, { 0.23, 1.07, -0.113 } } },
      { dtype = D, requires_grad = true })
    for _, mode in ipairs { "bilinear", "bicubic" } do
      for _, pm in ipairs { "zeros", "border", "reflection" } do
        assert.is_true(torch.autograd.gradcheck(function(t, th)
          local g = F.affine_grid(th, { 1, 2, 3, 3 }, { align_corners = false })
          return F.grid_sample(t, g, { mode = mode, padding_mode = pm, align_corners = false })
        end, { x, theta }), mode .. " " .. pm)
      end
    end
    fails_with(function() F.grid_sample(x, x, { modes = "nearest" }) end, "unexpected keyword argument 'modes'")
    fails_with(function() F.grid_sample(x, 3, "nearest") end, "argument 'grid' (position 2) must be Tensor, not int")
  end)
end)
