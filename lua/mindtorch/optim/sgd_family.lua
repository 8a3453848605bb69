-- sgd_family.lua: ASGD (averaged SGD) and Rprop as PyTorch 1.13's single-tensor (foreach =
-- false) implementations compute them, with their defaults, checks and state_dict layout.
return function(torch, optim, U)
  local Optimizer = optim.Optimizer
  local state_for, grads_of, check_nonneg = U.state_for, U.grads_of, U.check_nonneg
  local py_type = require("mindtorch._args").py_type

  -- ---- ASGD ------------------------------------------------------------------------------------------
  -- state: step, eta (the current rate) and mu (the averaging weight) as PyTorch's float32 0-dim
  -- tensors (so eta is rounded to float32 as there), ax the running average of the parameter
  local ASGD = Optimizer:extend("optim.ASGD",
    { lr = 1e-2, lambd = 1e-4, alpha = 0.75, t0 = 1e6, weight_decay = 0, maximize = false },
    { "lr", "lambd", "alpha", "t0", "weight_decay", "foreach", "maximize" })
  function ASGD:_check(g)
    check_nonneg(g, "lr", "learning rate")
    check_nonneg(g, "weight_decay", "weight_decay")
  end
  function ASGD:_update(g)
    for p, grad in grads_of(g) do
      local st = state_for(self, p, function()
        return { step = torch.tensor(0.0), eta = torch.tensor(g.lr), mu = torch.tensor(1.0), ax = torch.zeros_like(p) }
      end)
      st.step:add_(1)
      local step = st.step:item()
      if g.weight_decay ~= 0 then grad = grad:add(p, { alpha = g.weight_decay }) end
      local eta = st.eta:item()
      p:mul_(1 - g.lambd * eta)
      p:add_(grad, { alpha = -eta })
      local mu = st.mu:item()
      if mu ~= 1 then
        st.ax:add_(p:sub(st.ax):mul(mu))
      else
        st.ax:copy_(p)
      end
      -- the new values pass through float32 0-dim tensors as PyTorch's (even once a reloaded
      -- state holds them in the parameter's dtype)
      st.eta:copy_(torch.tensor(g.lr / (1 + g.lambd * g.lr * step) ^ g.alpha, { dtype = torch.float32 }))
      st.mu:copy_(torch.tensor(1 / math.max(1, step - g.t0), { dtype = torch.float32 }))
    end
  end
  optim.ASGD = ASGD

  -- ---- Rprop -----------------------------------------------------------------------------------------
  -- (PyTorch 1.13's Rprop has no weight_decay; its 'step' is a Python int)
  local Rprop = Optimizer:extend("optim.Rprop",
    { lr = 1e-2, etas = { 0.5, 1.2 }, step_sizes = { 1e-6, 50 }, maximize = false },
    { "lr", "etas", "step_sizes", "foreach", "maximize" })
  function Rprop:_check(g)
    check_nonneg(g, "lr", "learning rate")
    local etas = g.etas
    if type(etas) ~= "table" then error(("'%s' object is not subscriptable"):format(py_type(etas)), 4) end
    for i = 1, 2 do
      if etas[i] == nil then error("tuple index out of range", 4) end
      if type(etas[i]) ~= "number" then
        error(("'<' not supported between instances of 'float' and '%s'"):format(py_type(etas[i])), 4)
      end
    end
    if not (0 < etas[1] and etas[1] < 1 and 1 < etas[2]) then
      error(("Invalid eta values: %s, %s"):format(tostring(etas[1]), tostring(etas[2])), 4)
    end
    local sizes = g.step_sizes
    if type(sizes) ~= "table" or type(sizes[1]) ~= "number" or type(sizes[2]) ~= "number" then
      error(("step_sizes must be a pair of numbers, not %s"):format(py_type(sizes)), 4)
    end
  end
  function Rprop:_update(g)
    local etaminus, etaplus = g.etas[1], g.etas[2]
    local lo, hi = g.step_sizes[1], g.step_sizes[2]
    for p, grad in grads_of(g) do
      local st = state_for(self, p, function()
        return { step = 0, prev = torch.zeros_like(p), step_size = torch.full_like(grad, g.lr) }
      end)
      st.step = st.step + 1
      local sign = grad:mul(st.prev):sign()
      sign:masked_fill_(sign:gt(0), etaplus)
      sign:masked_fill_(sign:lt(0), etaminus)
      sign:masked_fill_(sign:eq(0), 1)
      st.step_size:mul_(sign):clamp_(lo, hi)
      grad = grad:clone()
      grad:masked_fill_(sign:eq(etaminus), 0)
      p:addcmul_(grad:sign(), st.step_size, { value = -1 })
      st.prev:copy_(grad)
    end
  end
  optim.Rprop = Rprop
end
