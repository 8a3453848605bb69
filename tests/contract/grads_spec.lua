-- Autograd against PyTorch (cases/grads.py): gradients of composite graphs (diamonds, shared
-- inputs, broadcasting, views, in-place ops on non-leaves, max/sort/index), node names, and
-- the errors of misuse. Dims and indices are 1-based here.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()

local D = torch.float64
local function x() return torch.tensor({ { 0.5, -1.25, 2.0 }, { 1.5, 0.25, -0.75 } }, { dtype = D, requires_grad = true }) end
local function w() return torch.tensor({ { 0.3, -0.2 }, { 0.1, 0.4 }, { -0.5, 0.6 } }, { dtype = D, requires_grad = true }) end
local function v() return torch.tensor({ 0.2, -0.4, 1.1 }, { dtype = D, requires_grad = true }) end

local function grads_of(f, ...)
  local inputs = table.pack(...)
  f(...):backward()
  local out = {}
  for i = 1, inputs.n do out[i] = inputs[i].grad end
  return table.unpack(out, 1, inputs.n)
end

local function diamond(a) return ((a * 2) * a:exp()):sum() end
local function shared(a) return (a * a + a:sin() * a):sum() end
local function broadcast(a, b) return ((a * b + b) ^ 2):sum() end
local function views(a)
  return (a:narrow(2, 2, 2):t() * a:select(2, 1)):sum() + a:view(3, 2)[2]:sum() * 3
end
local function inplace_nonleaf(a)
  local c = a * 1
  c:mul_(2)
  c:select(1, 2):add_(a:select(1, 1))
  return (c * c):sum()
end
local function inplace_view(a)
  local c = a:clone()
  c:narrow(2, 1, 2):mul_(3)
  c:t():select(1, 3):exp_()
  return (c * a):sum()
end
local function max_sort_index(a)
  return (a:max(2)):sum() + (a:sort(2)):select(2, 1):sum() * 2 + a[torch.tensor({ 1, 2, 2 })]:sum()
      + a:min() * 5 + (a:topk(2)):sum()
end
local function mlp(a, w1, b)
  local h = a:matmul(w1):relu()
  return (h + b:narrow(1, 1, 2)):log_softmax(2):select(2, 1):sum()
end
local function softmax_loss(a)
  local p = a:softmax(2)
  return -(p:log() * torch.tensor({ { 1.0, 0, 0 }, { 0, 0, 1.0 } }, { dtype = D })):sum()
end
local function norms(a) return a:norm() + torch.norm(a, 1, 2):sum() + a:std() + a:var(1):sum() end
local function split_parts(a)
  local p = a:split(2, 2)
  return (p[1] * 2):sum() + (p[2] ^ 2):sum()
end
local function unbind_stack(a)
  local r = a:unbind(1)
  return torch.stack({ r[2], r[1] * r[2] }, 1):pow(2):sum()
end
local function cat_chunks(a)
  local c = a:chunk(3, 2)
  return torch.cat({ c[3], c[1] }, 1):exp():sum()
end
local function expand_sum(b) return (b:expand(4, 3) * torch.arange(12.0, { dtype = D }):view(4, 3)):sum() end
local function where_mask(a) return torch.where(a:gt(0), a * a, -a):sum() + a:masked_fill(a:lt(0), 0.0):sum() end

local function inference_tensor() return torch.inference_mode(function() return torch.ones(2) end) end

local function hook_counts(op, retain)
  local counts = { 0, 0 }
  local a, b = x(), x()
  local y = torch.autograd.graph.saved_tensors_hooks(function(t) counts[1] = counts[1] + 1; return t end,
    function(t) counts[2] = counts[2] + 1; return t end, function() return op(a, b):sum() end)
  y:backward({ retain_graph = retain })
  if retain then y:backward() end
  return counts
end

local function names(f, ...)
  local out = {}
  local fn = f(...).grad_fn
  while fn ~= nil and #out < 6 do
    out[#out + 1] = fn:name()
    local nxt
    for _, e in ipairs(fn.next_functions) do
      if e[1] ~= nil then nxt = e[1]; break end
    end
    fn = nxt
  end
  return out
end

local cases = {
  extrema_ties_nan = function()
    local n = 0 / 0
    local a = torch.tensor({ 1.0, n, 2.0, 3.0, n }, { dtype = D, requires_grad = true })
    local b = torch.tensor({ 1.0, 0.5, n, 4.0, n }, { dtype = D, requires_grad = true })
    local y = (torch.fmax(a, b) * 2 + torch.fmin(a, b) * 3 + torch.maximum(a, b) * 5):sum()
    y:backward()
    return a.grad, b.grad
  end,
  nansum_nan = function()
    local n = 0 / 0
    local a = torch.tensor({ { 1.0, n, 2.0 }, { n, n, 3.0 } }, { dtype = D, requires_grad = true })
    local y = torch.nansum(a, 2) * torch.tensor({ 2.0, 3.0 }, { dtype = D })
    y:sum():backward()
    return a.grad
  end,
  diamond = function() return grads_of(diamond, x()) end,
  shared_input = function() return grads_of(shared, x()) end,
  broadcasting = function() return grads_of(broadcast, x(), v()) end,
  views = function() return grads_of(views, x()) end,
  inplace_nonleaf = function() return grads_of(inplace_nonleaf, x()) end,
  inplace_view = function() return grads_of(inplace_view, x()) end,
  max_sort_index = function() return grads_of(max_sort_index, x()) end,
  mlp = function() return grads_of(mlp, x(), w(), v()) end,
  retain_graph_twice = function()
    local a = x()
    local y = (a * a):sum()
    y:backward({ retain_graph = true })
    y:backward()
    return a.grad
  end,
  second_order = function()
    local a = x()
    local g = torch.autograd.grad((a ^ 3):sum(), a, { create_graph = true })[1]
    ;(g * g):sum():backward()
    return a.grad
  end,
  hooks = function()
    local a = x()
    a:register_hook(function(g) return g * 2 end)
    local b = a * 3
    b:register_hook(function(g) return g + 1 end)
    b:sum():backward()
    return a.grad
  end,
  retain_grad = function()
    local a = x()
    local b = a:exp()
    b:retain_grad()
    ;(b * b):sum():backward()
    return a.grad, b.grad
  end,
  detach = function()
    local a = x()
    ;(a * a:detach() + a:detach():exp()):sum():backward()
    return a.grad
  end,
  no_grad = function()
    local a = x()
    local c = torch.no_grad(function() return a * 2 end)
    ;(a * c):sum():backward()
    return a.grad
  end,
  grad_outputs = function()
    local a = x()
    local y = a:exp()
    return table.unpack(torch.autograd.grad(y, a, { grad_outputs = torch.ones_like(y) * 0.5 }))
  end,
  grad_two_outputs = function()
    local a, b = x(), x()
    local y1, y2 = (a * b):sum(2), a:sin()
    return table.unpack(torch.autograd.grad({ y1, y2 }, { a, b },
      { grad_outputs = { torch.tensor({ 1.0, 2.0 }, { dtype = D }), torch.ones(2, 3, { dtype = D }) } }))
  end,
  backward_inputs = function()
    local a, b = x(), x()
    ;(a * b):sum():backward({ inputs = { b } })
    return b.grad, torch.tensor(a.grad == nil)
  end,
  accumulate = function()
    local a = x()
    ;(a * 2):sum():backward()
    ;(a * a):sum():backward()
    return a.grad
  end,
  split = function() return grads_of(split_parts, x()) end,
  unbind_stack = function() return grads_of(unbind_stack, x()) end,
  cat_chunks = function() return grads_of(cat_chunks, x()) end,
  expand = function() return grads_of(expand_sum, v()) end,
  where_mask = function() return grads_of(where_mask, x()) end,
  softmax_loss = function() return grads_of(softmax_loss, x()) end,
  norms = function() return grads_of(norms, x()) end,
  names_mlp = function() return names(mlp, x(), w(), v()) end,
  names_views = function()
    return names(function(a) return a:reshape(6):view(3, 2):t():contiguous():expand(2, 2, 3):sum() end, x())
  end,
  names_ops = function() return names(function(a) return (a:exp() * 2 + 1):sigmoid():max() end, x()) end,
  names_inplace = function() return names(function(a) return (a * 1):mul_(2):add_(1):sum() end, x()) end,
  names_adaptive_pool_one = function()
    return names(function(a) return torch.nn.functional.adaptive_avg_pool2d(a:view(1, 2, 3), 1):sum() end, x())
  end,
  names_adaptive_pool = function()
    return names(function(a) return torch.nn.functional.adaptive_avg_pool2d(a:view(1, 2, 3), { 2, 2 }):sum() end, x())
  end,

  error_backward_twice = function()
    local y = x():exp():sum()
    y:backward()
    y:backward()
  end,
  error_saved_modified = function()
    local b = x():sin()
    local c = b:pow(2)
    torch.no_grad(function() b:add_(1) end)
    c:sum():backward()
  end,
  error_leaf_inplace = function() x():add_(1) end,
  error_leaf_view_inplace = function() x()[1]:mul_(2) end,
  error_split_inplace = function() (x() * 1):split(1, 1)[1]:mul_(2) end,
  error_no_grad_view_inplace = function()
    local a = x() * 1
    local b = torch.no_grad(function() return a[1] end)
    b:mul_(2)
  end,
  error_unused_input = function() torch.autograd.grad(x():sum(), { x(), v() }) end,
  error_not_requiring_input = function() torch.autograd.grad(x():sum(), { torch.ones(2) }) end,
  error_no_grad_fn = function() torch.ones(2):sum():backward() end,
  error_non_scalar = function() (x() * 2):backward() end,
  error_int_requires_grad = function() torch.ones(2, { dtype = torch.long }):requires_grad_() end,
  error_nonleaf_requires_grad_false = function() (x() * 2):requires_grad_(false) end,
  error_floor_divide_backward = function() torch.floor_divide(x(), 2):sum():backward() end,
  error_unique_backward = function() torch.unique(x()):sum():backward() end,
  error_resize = function() x():resize_(6) end,
  error_grad_shape = function() (x() * 2):backward(torch.ones(3, { dtype = D })) end,
  error_set_grad_size = function() x().grad = torch.ones(3, { dtype = D }) end,
  error_set_grad_dtype = function() x().grad = torch.ones(2, 3) end,
  error_anomaly_nan = function()
    torch.autograd.detect_anomaly(function()
      local a = torch.tensor({ 0.0, 1.0 }, { dtype = D, requires_grad = true })
      ;(a / a):sum():backward()
    end)
  end,
  error_sigmoid_saved_modified = function()
    local a = torch.tensor({ { 0.5, -1.0 }, { 2.0, 0.1 } }, { requires_grad = true })
    local y = a:sigmoid()
    y:mul_(2)
    y:sum():backward()
  end,
  error_inference_inplace = function() inference_tensor():add_(1) end,
  error_inference_version = function() return inference_tensor()._version end,
  error_inference_requires_grad = function() inference_tensor():requires_grad_() end,
  error_inference_saved = function() return (x()[1] * inference_tensor()):sum() end,
  error_custom_wrong_count = function()
    local Bad = torch.autograd.Function:extend("Bad")
    function Bad.forward(_, a) return a * 2 end
    function Bad.backward(_, g) return g, g end
    Bad.apply(x()):sum():backward()
  end,
  saved_hooks_mul = function() return hook_counts(function(a, b) return a * b end, false) end,
  saved_hooks_add = function() return hook_counts(function(a, b) return a + b end, false) end,
  saved_hooks_exp_retain = function() return hook_counts(function(a, b) return a:exp() * b end, true) end,
  custom_function = function()
    local Cube = torch.autograd.Function:extend("Cube")
    function Cube.forward(ctx, a, k)
      ctx:save_for_backward(a)
      ctx.k = k
      return a ^ 3 * k
    end
    function Cube.backward(ctx, g)
      local a = ctx.saved_tensors[1]
      return g * 3 * a ^ 2 * ctx.k, nil
    end
    local a = x()
    local y = Cube.apply(a, 2.0)
    ;(y * a):sum():backward()
    return a.grad
  end,
  functional = function()
    local F = torch.autograd.functional
    local f = function(a) return (a:exp() * a):sum(2) end
    local a = torch.tensor({ { 0.5, -1.0 }, { 1.5, 0.25 } }, { dtype = D })
    local j = F.jacobian(f, a)
    local h = F.hessian(function(b) return (b ^ 3):sum() + (b[1] * b[2]):sum() end, a)
    local _, vjp = F.vjp(f, a, torch.tensor({ 1.0, -2.0 }, { dtype = D }))
    local _, jvp = F.jvp(f, a, torch.ones(2, 2, { dtype = D }))
    local _, hvp = F.hvp(function(b) return (b ^ 3):sum() end, a, torch.ones(2, 2, { dtype = D }))
    return j, h, vjp, jvp, hvp
  end,
}
-- results of several gradients come back as one sequence (the harness compares them in order)
for name, fn in pairs(cases) do
  if not name:find("^error_") and not name:find("^names_") and not name:find("^saved_hooks") then
    cases[name] = { function() return table.pack(fn()) end, tol = 1e-12 } -- exp/log differ in the last bit
  end
end
H.run("grads", cases)
