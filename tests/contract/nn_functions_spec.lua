-- The torch.* functions of ATen's neural-network layer against PyTorch (cases/nn_functions.py):
-- replayed calls, and a few Lua cases for identities and in-place autograd changes.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()

local cases = {
  real_identity = function()
    local x = torch.ones(2)
    return { torch.real(x) == x, x.real == x }
  end,
  imag_attribute = function() return torch.ones(2).imag end,
  real_not_tensor = { function() return torch.real(2) end, expect = H.lua_type_names },
  detach_ = function()
    local v = torch.ones(2, { requires_grad = true }) * 2
    local r = torch.detach_(v)
    local w = torch.ones(2, { requires_grad = true })
    w:detach_()
    return { r == v, v.requires_grad, v.grad_fn == nil, v.is_leaf, w.requires_grad, w.is_leaf }
  end,
  detach__leaf_grad = function()
    local w = torch.ones(2, { requires_grad = true })
    ;(w * 3):sum():backward()
    w:detach_()
    return { w.grad:tolist(), w.requires_grad }
  end,
  detach__view = function() return torch.detach_((torch.ones(2, { requires_grad = true }) * 2)[{ { 1, 1 } }]) end,
  detach__view_of_leaf = function() return torch.ones(3)[{ { 2, 3 } }]:detach_() end,
  unfold_unfold_grad = { function()
    local x = torch.arange(27.0, { dtype = torch.float64 }):view(3, 3, 3):sin():requires_grad_()
    local w = torch.arange(1.0, 65.0, { dtype = torch.float64 }):view(2, 2, 2, 2, 2, 2)
    ;(x:unfold(1, 2, 1):unfold(2, 2, 1):unfold(3, 2, 1):contiguous() * w):sum():backward()
    return x.grad
  end, tol = 1e-12 },
  max_pool3d_grad = { function()
    local x = torch.arange(60.0, { dtype = torch.float64 }):view(1, 3, 4, 5):cos():requires_grad_()
    local w = torch.arange(1.0, 121.0, { dtype = torch.float64 }):view(1, 4, 5, 6)
    ;(torch.max_pool3d(x, 2, 1, 1, 1, true) * w):sum():backward()
    return x.grad
  end, tol = 1e-12 },
}

local function running(fn)
  local x = torch.arange(24.0):view(4, 3, 2):sin()
  local rm, rv = torch.zeros(3), torch.ones(3)
  fn(x, rm, rv)
  return { rm, rv }
end
cases.batch_norm_update_stats_running = { function()
  return running(function(x, rm, rv) torch.batch_norm_update_stats(x, rm, rv, 0.2) end)
end, tol = 1e-6 }
cases.instance_norm_running = { function()
  return running(function(x, rm, rv) torch.instance_norm(x, nil, nil, rm, rv, true, 0.2, 1e-5, false) end)
end, tol = 1e-6 }
cases.native_batch_norm_running = { function()
  return running(function(x, rm, rv) torch.native_batch_norm(x, nil, nil, rm, rv, true, 0.2, 1e-5) end)
end, tol = 1e-6 }
cases.batch_norm_empty_running = { function()
  return running(function(x, rm, rv) torch.batch_norm(x:narrow(1, 1, 0), nil, nil, rm, rv, true, 0.2, 1e-5, false) end)
end, tol = 1e-6 }

local goldens = H.load("nn_functions")
describe("contract nn_functions", function()
  for _, name in ipairs(H.sorted_keys(goldens)) do
    local g = goldens[name]
    it(name, function()
      if g.call then return H.check_call(g) end
      assert(cases[name] ~= nil, "no Lua case for golden '" .. name .. "'")
      H.check(g, cases[name])
    end)
  end
  it("has a golden for every Lua case", function()
    for name in pairs(cases) do assert(goldens[name] ~= nil, "no golden for Lua case '" .. name .. "'") end
  end)
end)
