-- optim/more.lua: Adamax, NAdam, RAdam, Rprop and ASGD, PyTorch 1.13's single-tensor
-- (foreach=False) updates step for step, with its defaults, argument checks and state names.
return function(torch, optim)
  local Optimizer = optim.Optimizer
  local S = optim._shared
  local check_nonneg, adam_check, state_for, grads_of = S.check_nonneg, S.adam_check, S.state_for, S.grads_of

  local function zeros_state(p, names)
    local st = { step = torch.tensor(0.0) }
    for _, n in ipairs(names) do st[n] = torch.zeros_like(p) end
    return st
  end

  -- Adamax: Adam with the infinity norm (exp_inf = max(beta2 exp_inf, |g| + eps))
  local Adamax = Optimizer:extend("optim.Adamax", { lr = 2e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weight_decay = 0,
    maximize = false }, { "lr", "betas", "eps", "weight_decay" })
  Adamax._check = function(_, g) adam_check(g) end
  function Adamax:_update(g)
    local beta1, beta2 = g.betas[1], g.betas[2]
    for p, grad in grads_of(g) do
      local st = state_for(self, p, function() return zeros_state(p, { "exp_avg", "exp_inf" }) end)
      st.step:add_(1)
      if g.weight_decay ~= 0 then grad = grad:add(p, { alpha = g.weight_decay }) end
      st.exp_avg:mul_(beta1):add_(grad, { alpha = 1 - beta1 })
      st.exp_inf:copy_(torch.maximum(st.exp_inf:mul_(beta2), grad:abs():add_(g.eps)))
      local clr = g.lr / (1 - beta1 ^ st.step:item())
      p:addcdiv_(st.exp_avg, st.exp_inf, { value = -clr })
    end
  end
  optim.Adamax = Adamax

  -- NAdam: Adam with Nesterov momentum and the momentum schedule mu_t
  local NAdam = Optimizer:extend("optim.NAdam", { lr = 2e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weight_decay = 0,
    momentum_decay = 4e-3 }, { "lr", "betas", "eps", "weight_decay", "momentum_decay" })
  function NAdam:_check(g)
    adam_check(g)
    check_nonneg(g, "momentum_decay", "momentum_decay")
  end
  function NAdam:_update(g)
    local beta1, beta2 = g.betas[1], g.betas[2]
    for _, p in ipairs(g.params) do
      local grad = p.grad
      if grad ~= nil then
        local st = state_for(self, p, function()
          local s = zeros_state(p, { "exp_avg", "exp_avg_sq" })
          s.mu_product = torch.tensor(1.0)
          return s
        end)
        st.step:add_(1)
        local step = st.step:item()
        local bc2 = 1 - beta2 ^ step
        if g.weight_decay ~= 0 then grad = grad:add(p, { alpha = g.weight_decay }) end
        local mu = beta1 * (1 - 0.5 * 0.96 ^ (step * g.momentum_decay))
        local mu_next = beta1 * (1 - 0.5 * 0.96 ^ ((step + 1) * g.momentum_decay))
        st.mu_product:mul_(mu)
        local mu_product = st.mu_product:item()
        local mu_product_next = (st.mu_product * mu * mu_next):item()
        st.exp_avg:mul_(beta1):add_(grad, { alpha = 1 - beta1 })
        st.exp_avg_sq:mul_(beta2):addcmul_(grad, grad, { value = 1 - beta2 })
        local denom = st.exp_avg_sq:div(bc2):sqrt():add_(g.eps)
        p:addcdiv_(grad, denom, { value = -g.lr * (1 - mu) / (1 - mu_product) })
        p:addcdiv_(st.exp_avg, denom, { value = -g.lr * mu_next / (1 - mu_product_next) })
      end
    end
  end
  optim.NAdam = NAdam

  -- RAdam: Adam whose adaptive step is used only once the variance estimate is tractable
  local RAdam = Optimizer:extend("optim.RAdam", { lr = 1e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weight_decay = 0 },
    { "lr", "betas", "eps", "weight_decay" })
  RAdam._check = function(_, g) adam_check(g) end
  function RAdam:_update(g)
    local beta1, beta2 = g.betas[1], g.betas[2]
    for _, p in ipairs(g.params) do
      local grad = p.grad
      if grad ~= nil then
        local st = state_for(self, p, function() return zeros_state(p, { "exp_avg", "exp_avg_sq" }) end)
        st.step:add_(1)
        local step = st.step:item()
        local bc1, bc2 = 1 - beta1 ^ step, 1 - beta2 ^ step
        if g.weight_decay ~= 0 then grad = grad:add(p, { alpha = g.weight_decay }) end
        st.exp_avg:mul_(beta1):add_(grad, { alpha = 1 - beta1 })
        st.exp_avg_sq:mul_(beta2):addcmul_(grad, grad, { value = 1 - beta2 })
        local corrected = st.exp_avg / bc1
        local rho_inf = 2 / (1 - beta2) - 1
        local rho_t = rho_inf - 2 * step * beta2 ^ step / bc2
        if rho_t > 5 then
          local rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
          local adaptive_lr = math.sqrt(bc2) / st.exp_avg_sq:sqrt():add_(g.eps)
          p:add_(corrected * g.lr * adaptive_lr * rect, { alpha = -1.0 })
        else
          p:add_(corrected * g.lr, { alpha = -1.0 })
        end
      end
    end
  end
  optim.RAdam = RAdam

  -- Rprop: per-element step sizes grown by etaplus while the gradient keeps its sign, shrunk
  -- by etaminus when it flips (and that step skipped)
  local Rprop = Optimizer:extend("optim.Rprop", { lr = 1e-2, etas = { 0.5, 1.2 }, step_sizes = { 1e-6, 50 },
    maximize = false }, { "lr", "etas", "step_sizes" })
  function Rprop:_check(g)
    check_nonneg(g, "lr", "learning rate")
    local e = g.etas
    if not (0 < e[1] and e[1] < 1 and 1 < e[2]) then
      error(("Invalid eta values: %s, %s"):format(tostring(e[1]), tostring(e[2])), 4)
    end
  end
  function Rprop:_update(g)
    local etaminus, etaplus = g.etas[1], g.etas[2]
    local smin, smax = g.step_sizes[1], g.step_sizes[2]
    for p, grad in grads_of(g) do
      local st = state_for(self, p, function()
        return { step = 0, prev = torch.zeros_like(p), step_size = torch.full_like(grad, g.lr) }
      end)
      st.step = st.step + 1
      local prod = grad:mul(st.prev)
      local sign = torch.ones_like(grad) -- the factors in the gradient's dtype (1.2 is not a float32)
      sign:masked_fill_(prod:gt(0), etaplus):masked_fill_(prod:lt(0), etaminus)
      st.step_size:mul_(sign):clamp_(smin, smax)
      grad = grad:masked_fill(sign:eq(etaminus), 0)
      p:addcmul_(grad:sign(), st.step_size, { value = -1 })
      st.prev:copy_(grad)
    end
  end
  optim.Rprop = Rprop

  -- ASGD: SGD with a decaying step eta and a running average ax of the iterates; eta and mu
  -- are kept as default-dtype tensors, as PyTorch's (their values round to float32)
  local ASGD = Optimizer:extend("optim.ASGD", { lr = 1e-2, lambd = 1e-4, alpha = 0.75, t0 = 1e6, weight_decay = 0,
    maximize = false }, { "lr", "lambd", "alpha", "t0", "weight_decay" })
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
      local eta, mu = st.eta:item(), st.mu:item()
      p:mul_(1 - g.lambd * eta)
      p:add_(grad, { alpha = -eta })
      if mu ~= 1 then st.ax:add_(p:sub(st.ax):mul(mu)) else st.ax:copy_(p) end
      st.eta:fill_(g.lr / (1 + g.lambd * g.lr * step) ^ g.alpha)
      st.mu:fill_(1 / math.max(1, step - g.t0))
    end
  end
  optim.ASGD = ASGD
end
