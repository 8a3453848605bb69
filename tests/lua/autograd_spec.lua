-- Autograd behaviour that the PyTorch contracts (tests/contract/grads_spec.lua) do not cover:
-- the Lua forms of modes and options, hooks and their handles, graph inspection, custom
-- Functions, functional helpers, pipeline mode.
local torch = require "mindtorch"
local D = torch.float64

local function x() return torch.tensor({ { 1.0, -2.0 }, { 0.5, 3.0 } }, { dtype = D, requires_grad = true }) end
local function same(a, b) return torch.allclose(a, b, 1e-12, 1e-12) end

describe("grad modes", function()
  it("no_grad works as a <close> value and with a function, and nests with enable_grad", function()
    local a = x()
    do
      local _ <close> = torch.no_grad()
      assert.is_false(torch.is_grad_enabled())
      assert.is_false((a * 2).requires_grad)
      torch.enable_grad(function()
        assert.is_true(torch.is_grad_enabled())
        assert.is_true((a * 2).requires_grad)
      end)
      assert.is_false(torch.is_grad_enabled())
    end
    assert.is_true(torch.is_grad_enabled())
    assert.are.equal(6, torch.no_grad(function() return 6 end))
  end)

  it("restores the mode when the function fails", function()
    assert.has_error(function() torch.no_grad(function() error("boom") end) end)
    assert.is_true(torch.is_grad_enabled())
  end)

  it("set_grad_enabled switches at once and as a context restores what it found", function()
    torch.set_grad_enabled(false)
    assert.is_false(torch.is_grad_enabled())
    torch.set_grad_enabled(true)
    torch.set_grad_enabled(false, function() assert.is_false(torch.is_grad_enabled()) end)
    assert.is_true(torch.is_grad_enabled())
    assert.has_error(function() torch.set_grad_enabled("yes") end)
  end)

  it("inference_mode makes inference tensors and turns grad off", function()
    local t = torch.inference_mode(function()
      assert.is_true(torch.is_inference_mode_enabled())
      assert.is_false(torch.is_grad_enabled())
      return torch.ones(2) * 2
    end)
    assert.is_true(t:is_inference())
    assert.is_false(torch.ones(2):is_inference())
    assert.is_false(torch.is_inference_mode_enabled())
    torch.inference_mode(false, function() assert.is_true(torch.is_grad_enabled()) end)
  end)
end)

describe("backward and grad", function()
  it("torch.autograd.backward takes tensors and gradients", function()
    local a = x()
    local y1, y2 = a * 2, a:sum()
    torch.autograd.backward({ y1, y2 }, { torch.ones(2, 2, { dtype = D }), nil })
    assert.is_true(same(a.grad, torch.full({ 2, 2 }, 3.0, { dtype = D })))
  end)

  it("runs each node once in a deep diamond chain (no exponential blow-up)", function()
    local a = torch.tensor({ 1.0 }, { dtype = D, requires_grad = true })
    local y = a
    for _ = 1, 60 do y = y * 0.5 + y * 0.5 end
    y:sum():backward()
    assert.is_true(same(a.grad, torch.ones(1, { dtype = D })))
  end)

  it("sets and clears .grad with checks", function()
    local a = x()
    a.grad = torch.ones(2, 2, { dtype = D })
    assert.are.equal(4, a.grad:sum():item())
    a.grad = nil
    assert.is_nil(a.grad)
  end)

  it("gives next_functions and AccumulateGrad's variable", function()
    local a = x()
    local y = a * 2
    local acc = y.grad_fn.next_functions[1][1]
    assert.are.equal("torch::autograd::AccumulateGrad", acc:name())
    assert.is_true(torch.equal(acc.variable, a))
    assert.are.equal(0, y.grad_fn.next_functions[1][2])
    -- (a * 2 is mul.Scalar here: one edge; PyTorch wraps the 2 in a tensor and lists a second, empty one)
    assert.are.equal(1, #y.grad_fn.next_functions)
  end)

  it("takes PyTorch's arguments positionally or in an options table", function()
    local a = x()
    local y = a * a
    local g = torch.full({ 2, 2 }, 0.5, { dtype = D })
    -- grad(outputs, inputs, grad_outputs, retain_graph, ...): the graph kept for a second pass
    local g1 = torch.autograd.grad(y, a, g, true)[1]
    local g2 = torch.autograd.grad({ y }, { a }, { grad_outputs = { g } })[1]
    assert.is_true(same(g1, a:detach() * 2 * 0.5))
    assert.is_true(same(g1, g2))
    -- backward(gradient, retain_graph), then torch.autograd.backward(tensors, grad_tensors, ...)
    local z = (a * 3):sum()
    z:backward(nil, true)
    z:backward()
    assert.is_true(same(a.grad, torch.full({ 2, 2 }, 6.0, { dtype = D })))
    local w = a * 2
    torch.autograd.backward(w, g, true)
    torch.autograd.backward({ w }, nil, nil, nil, { g }) -- grad_variables: grad_tensors' old name
    assert.is_true(same(a.grad, torch.full({ 2, 2 }, 8.0, { dtype = D })))
    assert.has_error(function() torch.autograd.grad(y, a, g, 1) end, "grad(): argument 'retain_graph' must be bool, not int")
    assert.has_error(function() (a * 1):sum():backward(nil, "yes") end,
      "backward(): argument 'retain_graph' must be bool, not str")
    assert.has_error(function() torch.autograd.grad(y, a, g, true, false, true, false, false, 1) end,
      "grad() takes 8 positional arguments but 9 were given")
    assert.has_error(function() torch.autograd.grad(y, a, { grad_outputs = g, retain = true }) end,
      "grad() got an unexpected keyword argument 'retain'")
    assert.has_error(function() torch.autograd.grad(y, a, g, { grad_outputs = g }) end,
      "grad() got multiple values for argument 'grad_outputs'")
    assert.has_error(function() torch.autograd.grad(y, {}) end, "grad requires non-empty inputs.")
    assert.has_error(function() torch.autograd.grad(y, {}, { retain_graph = true }) end, "grad requires non-empty inputs.")
    assert.has_error(function() torch.autograd.grad(y) end, "grad() missing 1 required positional argument: 'inputs'")
    assert.has_error(function() torch.autograd.grad(y, a, g, { is_grads_batched = true }) end,
      "grad(): is_grads_batched = true (a vmap over grad_outputs) is not supported by mindtorch")
  end)

  it("computes only the gradients a pass uses (grad and backward's inputs), as PyTorch's output_mask", function()
    -- a node's post-hook sees which gradients it computed: PyTorch gives None for the others
    local function computed(node, run)
      local seen
      local h = node:register_hook(function(gi) seen = { gi[1] ~= nil, gi[2] ~= nil } end)
      run()
      h:remove()
      return seen
    end
    local F = torch.nn.functional
    local cx, cw = torch.randn(1, 1, 4, 4):requires_grad_(), torch.randn(1, 1, 3, 3):requires_grad_()
    local y = F.conv2d(cx, cw):sum()
    local conv = y.grad_fn.next_functions[1][1]
    local gx = torch.autograd.grad({ y }, { cx }, { retain_graph = true })[1]
    assert.are.same({ true, false }, computed(conv, function() torch.autograd.grad({ y }, { cx }, { retain_graph = true }) end))
    assert.are.same({ false, true }, computed(conv, function() torch.autograd.grad({ y }, { cw }, { retain_graph = true }) end))
    assert.are.same({ true, true }, computed(conv, function() y:backward({ retain_graph = true }) end))
    assert.is_true(same(gx, cx.grad))
    local a, b = x(), x()
    local z = (a * b):sum()
    local mul = z.grad_fn.next_functions[1][1]
    assert.are.same({ true, false }, computed(mul, function() z:backward({ inputs = { a }, retain_graph = true }) end))
    assert.is_nil(b.grad)
    -- a gradient that reaches the input through another node is still computed
    local c = x()
    local w = (c * c:exp()):sum()
    assert.are.same({ true, true }, computed(w.grad_fn.next_functions[1][1], function()
      torch.autograd.grad({ w }, { c }, { retain_graph = true })
    end))
  end)

  it("records gradients through pipeline mode", function()
    local a = x()
    torch.pipeline(function()
      local y = (a:exp() * a):sum()
      y:backward()
    end)
    local want = x():detach()
    assert.is_true(same(a.grad, want:exp() * (want + 1)))
  end)
end)

describe("hooks", function()
  it("tensor hooks can be removed through their handle", function()
    local a = x()
    local calls = 0
    local h = a:register_hook(function(g) calls = calls + 1; return g * 10 end)
    ;(a * 1):sum():backward()
    h:remove()
    ;(a * 1):sum():backward()
    assert.are.equal(1, calls)
    assert.is_true(same(a.grad, torch.full({ 2, 2 }, 11.0, { dtype = D })))
  end)

  it("node hooks see the gradients in and out; pre-hooks can replace them", function()
    local a = x()
    local y = a * 3
    local seen
    y.grad_fn:register_hook(function(grad_inputs, grad_outputs) seen = { grad_inputs[1], grad_outputs[1] } end)
    y.grad_fn:register_prehook(function(grads) return { grads[1] * 2 } end)
    y:sum():backward()
    assert.is_true(same(seen[2], torch.full({ 2, 2 }, 2.0, { dtype = D })))
    assert.is_true(same(seen[1], torch.full({ 2, 2 }, 6.0, { dtype = D })))
    assert.is_true(same(a.grad, torch.full({ 2, 2 }, 6.0, { dtype = D })))
  end)

  it("an error in a hook becomes the backward error", function()
    local a = x()
    a:register_hook(function() error("hook failed") end)
    local ok, err = pcall(function() a:sum():backward() end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("hook failed", 1, true))
  end)

  it("refuses hooks on tensors that do not require grad", function()
    assert.has_error(function() torch.ones(2):register_hook(function() end) end,
      "cannot register a hook on a tensor that doesn't require gradient")
  end)
end)

describe("custom Function", function()
  local Scale = torch.autograd.Function:extend("Scale")
  function Scale.forward(ctx, a, b, k)
    ctx:save_for_backward(a, b)
    ctx.k = k
    ctx.seen = { ctx.needs_input_grad[1], ctx.needs_input_grad[2], ctx.needs_input_grad[3] }
    return a * b * k
  end
  function Scale.backward(ctx, g)
    local a, b = table.unpack(ctx.saved_tensors)
    return g * b * ctx.k, g * a * ctx.k, nil
  end

  it("passes gradcheck and gradgradcheck", function()
    local a = torch.randn(3, { dtype = D, requires_grad = true })
    local b = torch.randn(3, { dtype = D, requires_grad = true })
    local fn = function(p, q) return Scale.apply(p, q, 1.5) end
    assert.is_true(torch.autograd.gradcheck(fn, { a, b }))
    assert.is_true(torch.autograd.gradgradcheck(fn, { a, b }))
  end)

  it("tells which inputs need gradients and names its node", function()
    local a, b = x(), torch.ones(2, 2, { dtype = D })
    local y = Scale.apply(a, b, 2)
    assert.are.equal("ScaleBackward", y.grad_fn:name())
    y:sum():backward()
    assert.is_true(same(a.grad, torch.full({ 2, 2 }, 2.0, { dtype = D })))
  end)

  it("checks saved tensors against in-place changes", function()
    local a, b = x(), x()
    local y = Scale.apply(a * 1, b, 2)
    torch.no_grad(function() b:mul_(2) end)
    assert.has_error(function() y:sum():backward() end)
  end)

  it("supports mark_dirty and mark_non_differentiable", function()
    local AddOne = torch.autograd.Function:extend("AddOne")
    function AddOne.forward(ctx, a)
      a:add_(1)
      ctx:mark_dirty(a)
      local idx = a:argmax()
      local flag = a:gt(0):to(D)
      ctx:mark_non_differentiable(flag)
      return a, flag, idx
    end
    function AddOne.backward(_, g) return g end
    local a = x()
    local c = a * 1
    local out, flag = AddOne.apply(c)
    assert.is_true(rawequal(out, c))
    assert.are.equal("AddOneBackward", c.grad_fn:name())
    assert.is_false(flag.requires_grad)
    out:sum():backward()
    assert.is_true(same(a.grad, torch.ones(2, 2, { dtype = D })))
    assert.has_error(function() AddOne.apply(x()) end,
      "a leaf Variable that requires grad is being used in an in-place operation.")
  end)

  it("frees its graph with its outputs", function()
    collectgarbage()
    collectgarbage()
    local base = torch._cpu_allocated_bytes()
    do
      local a = torch.randn(128, 128, { requires_grad = true })
      local y = Scale.apply(a, a * 2, 3)
      y:sum():backward()
    end
    collectgarbage()
    collectgarbage()
    assert.are.equal(0, torch._cpu_allocated_bytes() - base)
  end)
end)

describe("autograd.functional", function()
  it("jacobian of several inputs and outputs has one block per pair", function()
    local F = torch.autograd.functional
    local a, b = torch.randn(2, { dtype = D }), torch.randn(3, { dtype = D })
    local J = F.jacobian(function(p, q) return p:sum() * q, p * 2 end, { a, b })
    assert.are.same({ 3, 2 }, { J[1][1].shape[1], J[1][1].shape[2] })
    assert.is_true(same(J[2][1], torch.eye(2, { dtype = D }) * 2))
    assert.is_true(same(J[2][2], torch.zeros(2, 3, { dtype = D })))
    assert.has_error(function() F.jacobian(function(p, q) return p * 2 end, { a, b }, { strict = true }) end)
  end)
end)

describe("anomaly mode", function()
  it("records where each node's forward ran", function()
    local a = x()
    local y = torch.autograd.detect_anomaly(function() return a * 2 end)
    assert.is_false(torch.autograd.is_anomaly_enabled())
    assert.truthy(y.grad_fn)
  end)
end)
