-- Lua-side behaviour of the optimizers and schedulers of issue 19 (the values are checked against
-- PyTorch in tests/contract/optim_more_spec.lua): zero_grad's set_to_none, options by position
-- and by name, odd arguments refused with clear errors.
local torch = require "mindtorch"
local nn, optim = torch.nn, torch.optim
local S = optim.lr_scheduler

local function fails_with(f, msg)
  local ok, err = pcall(f)
  assert.is_false(ok, "expected an error: " .. msg)
  assert.is_truthy(tostring(err):find(msg, 1, true), ("%q does not contain %q"):format(tostring(err), msg))
end

local function param(n) return torch.ones(n or 2, { dtype = torch.float64, requires_grad = true }) end

describe("zero_grad", function()
  it("zeroes gradients in place by default, as PyTorch 1.13, and drops them with set_to_none", function()
    local p = param()
    local opt = optim.SGD({ p }, { lr = 0.1 })
    ;(p * p):sum():backward()
    local g = p.grad
    opt:zero_grad()
    assert.are.same({ 0, 0 }, p.grad:tolist())
    g:fill_(5) -- the same tensor, zeroed in place
    assert.are.same({ 5, 5 }, p.grad:tolist())
    opt:zero_grad(true)
    assert.is_nil(p.grad)
    ;(p * p):sum():backward()
    opt:zero_grad { set_to_none = true }
    assert.is_nil(p.grad)
    opt:zero_grad() -- no gradient: nothing to do
    assert.is_nil(p.grad)
    fails_with(function() opt:zero_grad { set_to_nil = true } end,
      "zero_grad() got an unexpected keyword argument 'set_to_nil'")
  end)

  it("detaches a gradient that has a graph (create_graph) before zeroing it", function()
    local p = param()
    local g = torch.autograd.grad((p * p * p):sum(), { p }, { create_graph = true })[1]
    p.grad = g
    assert.is_not_nil(p.grad.grad_fn)
    optim.SGD({ p }, { lr = 0.1 }):zero_grad()
    assert.is_nil(p.grad.grad_fn)
    assert.is_false(p.grad.requires_grad)
    assert.are.same({ 0, 0 }, p.grad:tolist())
  end)

  it("on modules too", function()
    local m = nn.Linear(3, 2)
    m(torch.randn(4, 3)):sum():backward()
    m:zero_grad()
    assert.are.equal(0, m.weight.grad:abs():sum():item())
    m:zero_grad(true)
    assert.is_nil(m.weight.grad)
    m(torch.randn(4, 3)):sum():backward()
    m:zero_grad { set_to_none = true }
    assert.is_nil(m.bias.grad)
  end)
end)

describe("the optimizers of issue 19", function()
  it("take PyTorch's options positionally or by name, with PyTorch's defaults", function()
    local p = param()
    local a = optim.ASGD({ p }, 0.1, 1e-3, 0.5, 10)
    assert.are.same({ 0.1, 1e-3, 0.5, 10, 0, false }, { a.defaults.lr, a.defaults.lambd, a.defaults.alpha,
      a.defaults.t0,
      a.defaults.weight_decay, a.defaults.maximize })
    local r = optim.Rprop({ p }, 0.2, { 0.4, 1.3 })
    assert.are.same({ 0.4, 1.3 }, r.defaults.etas)
    assert.are.same({ 1e-6, 50 }, r.defaults.step_sizes)
    local n = optim.NAdam({ p }, { momentum_decay = 0.01 })
    assert.are.same({ 2e-3, 0.01 }, { n.defaults.lr, n.defaults.momentum_decay })
    assert.are.equal(2e-3, optim.Adamax({ p }).defaults.lr)
    assert.are.equal(1e-3, optim.RAdam({ p }).defaults.lr)
    local l = optim.LBFGS({ p }, 0.5, 8)
    assert.are.same({ 0.5, 8, 10, 100 }, { l.defaults.lr, l.defaults.max_iter, l.defaults.max_eval,
      l.defaults.history_size })
    -- PyTorch 1.13's NAdam and RAdam have no maximize, Rprop no weight_decay
    fails_with(function() optim.NAdam({ p }, { maximize = true }) end,
      "__init__() got an unexpected keyword argument 'maximize'")
    fails_with(function() optim.RAdam({ p }, { maximize = true }) end,
      "__init__() got an unexpected keyword argument 'maximize'")
    fails_with(function() optim.Rprop({ p }, { weight_decay = 0.1 }) end,
      "__init__() got an unexpected keyword argument 'weight_decay'")
    fails_with(function() optim.LBFGS({ p }, { lr = 1, momentum = 0.9 }) end,
      "__init__() got an unexpected keyword argument 'momentum'")
  end)

  it("refuse bad params and options with PyTorch's errors", function()
    local p = param()
    for _, name in ipairs { "Adamax", "NAdam", "RAdam", "ASGD", "Rprop" } do
      local O = optim[name]
      fails_with(function() O(nil, { lr = 0.1 }) end, "'NoneType' object is not iterable")
      fails_with(function() O({ "a" }, { lr = 0.1 }) end,
        "optimizer can only optimize Tensors, but one of the params is str")
      fails_with(function() O({ p }, { lr = -1 }) end, "Invalid learning rate: -1")
      fails_with(function() O({ p }, { lr = "x" }) end, "'<' not supported between instances of 'str' and 'float'")
    end
    fails_with(function() optim.NAdam({ p }, { betas = 0.9 }) end, "object is not subscriptable")
    fails_with(function() optim.Rprop({ p }, { etas = { 0.5 } }) end, "tuple index out of range")
    fails_with(function() optim.Rprop({ p }, { etas = { 0.5, "x" } }) end, "'<' not supported")
    fails_with(function() optim.Rprop({ p }, { step_sizes = 3 }) end, "step_sizes must be a pair of numbers")
    fails_with(function() optim.LBFGS({ p }, { max_iter = 2.5 }) end, "unsupported operand type(s) for //")
  end)

  it("skip parameters without a gradient and keep their state by parameter", function()
    local p, q = param(), param()
    for _, O in ipairs { optim.Adamax, optim.NAdam, optim.RAdam, optim.ASGD, optim.Rprop } do
      local opt = O({ p, q })
      opt:zero_grad(true)
      ;(p * p):sum():backward()
      opt:step()
      assert.is_not_nil(opt.state[p])
      assert.is_nil(opt.state[q])
      local sd = opt:state_dict()
      assert.is_not_nil(sd.state[0])
      assert.is_nil(sd.state[1])
    end
  end)

  it("LBFGS: step needs a closure and returns its first loss", function()
    local x = param()
    local opt = optim.LBFGS({ x })
    fails_with(function() opt:step() end, "step() missing 1 required positional argument: 'closure'")
    local calls = 0
    local loss = opt:step(function()
      calls = calls + 1
      opt:zero_grad()
      local l = ((x - 3) ^ 2):sum()
      l:backward()
      return l
    end)
    assert.are.equal(8, loss:item()) -- (1 - 3)^2 * 2, before any update
    assert.is_true(calls > 1)
    assert.is_true(math.abs(x[1]:item() - 3) < 1e-6)
    -- a closure that returns no number
    local y = param()
    local bad = optim.LBFGS({ y })
    fails_with(function() bad:step(function() return "x" end) end, "float() argument must be a string or a number")
  end)
end)

describe("the schedulers of issue 19", function()
  local function sgd() return optim.SGD({ param() }, { lr = 0.1, momentum = 0.9 }) end

  it("get_last_lr gives a copy; schedulers take last_epoch and options by name", function()
    local o = sgd()
    local s = S.LinearLR(o, { start_factor = 0.5, total_iters = 4 })
    local last = s:get_last_lr()
    last[1] = 99
    assert.are.equal(0.05, s:get_last_lr()[1])
    fails_with(function() S.LinearLR(o, { start = 0.5 }) end, "__init__() got an unexpected keyword argument 'start'")
    fails_with(function() S.PolynomialLR(o, { total_iters = "x" }) end, "total_iters must be a number, not str")
    fails_with(function() S.ConstantLR(o, { last_epoch = 1.5 }) end, "last_epoch must be an integer, not float")
    fails_with(function() S.CyclicLR(o) end,
      "__init__() missing 2 required positional arguments: 'base_lr' and 'max_lr'")
    fails_with(function() S.CyclicLR(o, "x", 0.1) end, "base_lr must be a number, not str")
    fails_with(function() S.CyclicLR(o, 0.01, 0.1, { scale_fn = 3 }) end, "'int' object is not callable")
    fails_with(function() S.SequentialLR(o, 3, { 1 }) end, "object of type 'int' has no len()")
    fails_with(function() S.SequentialLR(o, { 3 }, { 1 }) end, "'int' object has no attribute 'optimizer'")
    fails_with(function() S.ChainedScheduler({ schedulers = {} }) end, "list index out of range")
    fails_with(function() S.ChainedScheduler(o) end, "has no len()")
    fails_with(function() S.MultiplicativeLR(o, 0.5) end, "'float' object is not callable")
  end)

  it("chain: SequentialLR and ChainedScheduler save and load their schedulers' states", function()
    local o = sgd()
    local c = S.ChainedScheduler({ S.ExponentialLR(o, 0.9), S.StepLR(o, 2, 0.5) })
    c:step()
    c:step()
    local sd = c:state_dict()
    assert.are.equal(2, #sd._schedulers)
    assert.are.equal(2, sd._schedulers[1].last_epoch)
    local o2 = sgd()
    local c2 = S.ChainedScheduler({ S.ExponentialLR(o2, 0.9), S.StepLR(o2, 2, 0.5) })
    c2:load_state_dict(sd)
    assert.are.equal(2, c2._schedulers[2].last_epoch)
  end)

  it("verbose prints each change as PyTorch", function()
    local o = sgd()
    local printed = {}
    local print0 = print
    _G.print = function(s) printed[#printed + 1] = s end
    local ok, err = pcall(function()
      local s = S.ConstantLR(o, { factor = 0.5, verbose = true })
      s:step()
      s:step(2)
    end)
    _G.print = print0
    assert(ok, err)
    assert.are.same({ "Adjusting learning rate of group 0 to 5.0000e-02.",
      "Adjusting learning rate of group 0 to 5.0000e-02.",
      "Epoch 00002: adjusting learning rate of group 0 to 5.0000e-02." }, printed)
  end)
end)
