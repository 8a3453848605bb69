-- adam_family.lua: Adamax, NAdam and RAdam as PyTorch 1.13's single-tensor (foreach = false)
-- implementations compute them, with their defaults, checks and state_dict layout.
return function(torch, optim, U)
  local Optimizer = optim.Optimizer
  local adam_check, state_for, grads_of, check_nonneg = U.adam_check, U.state_for, U.grads_of, U.check_nonneg

  -- ---- Adamax: the infinity norm in place of the second moment -------------------------------------
  local Adamax = Optimizer:extend("optim.Adamax",
    { lr = 2e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weight_decay = 0, maximize = false },
    { "lr", "betas", "eps", "weight_decay", "foreach" })
  Adamax._check = function(_, g) adam_check(g) end
  function Adamax:_update(g)
    local beta1, beta2 = g.betas[1], g.betas[2]
    for p, grad in grads_of(g) do
      local st = state_for(self, p, function()
        return { step = torch.tensor(0.0), exp_avg = torch.zeros_like(p), exp_inf = torch.zeros_like(p) }
      end)
      st.step:add_(1)
      local step = st.step:item()
      if g.weight_decay ~= 0 then grad = grad:add(p, { alpha = g.weight_decay }) end
      st.exp_avg:mul_(beta1):add_(grad, { alpha = 1 - beta1 })
      -- the larger of the decayed norm and |grad| + eps
      st.exp_inf:mul_(beta2)
      st.exp_inf:copy_(torch.maximum(st.exp_inf, grad:abs():add_(g.eps)))
      local clr = g.lr / (1 - beta1 ^ step)
      p:addcdiv_(st.exp_avg, st.exp_inf, { value = -clr })
    end
  end
  optim.Adamax = Adamax

  -- ---- NAdam: Nesterov momentum with the momentum schedule mu_t ------------------------------------
  -- (PyTorch 1.13's NAdam has no maximize); mu_product is a float32 0-dim tensor as PyTorch's
  local NAdam = Optimizer:extend("optim.NAdam",
    { lr = 2e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weight_decay = 0, momentum_decay = 4e-3 },
    { "lr", "betas", "eps", "weight_decay", "momentum_decay", "foreach" })
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
          return { step = torch.tensor(0.0), mu_product = torch.tensor(1.0), exp_avg = torch.zeros_like(p),
            exp_avg_sq = torch.zeros_like(p) }
        end)
        st.step:add_(1)
        local step = st.step:item()
        local bc2 = 1 - beta2 ^ step
        if g.weight_decay ~= 0 then grad = grad:add(p, { alpha = g.weight_decay }) end
        local mu = beta1 * (1 - 0.5 * 0.96 ^ (step * g.momentum_decay))
        local mu_next = beta1 * (1 - 0.5 * 0.96 ^ ((step + 1) * g.momentum_decay))
        st.mu_product:mul_(mu)
        local mu_product_next = (st.mu_product * mu * mu_next):item()
        st.exp_avg:mul_(beta1):add_(grad, { alpha = 1 - beta1 })
        st.exp_avg_sq:mul_(beta2):addcmul_(grad, grad, { value = 1 - beta2 })
        local denom = st.exp_avg_sq:div(bc2):sqrt():add_(g.eps)
        p:addcdiv_(grad, denom, { value = -g.lr * (1 - mu) / (1 - st.mu_product:item()) })
        p:addcdiv_(st.exp_avg, denom, { value = -g.lr * mu_next / (1 - mu_product_next) })
      end
    end
  end
  optim.NAdam = NAdam

  -- ---- RAdam: Adam with the variance of the adaptive rate rectified ---------------------------------
  -- (PyTorch 1.13's RAdam has no maximize)
  local RAdam = Optimizer:extend("optim.RAdam",
    { lr = 1e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weight_decay = 0 },
    { "lr", "betas", "eps", "weight_decay", "foreach" })
  RAdam._check = function(_, g) adam_check(g) end
  function RAdam:_update(g)
    local beta1, beta2 = g.betas[1], g.betas[2]
    for _, p in ipairs(g.params) do
      local grad = p.grad
      if grad ~= nil then
        local st = state_for(self, p, function()
          return { step = torch.tensor(0.0), exp_avg = torch.zeros_like(p), exp_avg_sq = torch.zeros_like(p) }
        end)
        st.step:add_(1)
        local step = st.step:item()
        local bc1, bc2 = 1 - beta1 ^ step, 1 - beta2 ^ step
        if g.weight_decay ~= 0 then grad = grad:add(p, { alpha = g.weight_decay }) end
        st.exp_avg:mul_(beta1):add_(grad, { alpha = 1 - beta1 })
        st.exp_avg_sq:mul_(beta2):addcmul_(grad, grad, { value = 1 - beta2 })
        local corrected = st.exp_avg / bc1
        local rho_inf = 2 / (1 - beta2) - 1
        local rho_t = rho_inf - 2 * step * (beta2 ^ step) / bc2
        if rho_t > 5 then
          local rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
          -- Python's number / tensor: the reciprocal times the number, as PyTorch computes it
          local adaptive_lr = st.exp_avg_sq:sqrt():add_(g.eps):reciprocal() * math.sqrt(bc2)
          p:add_(corrected * g.lr * adaptive_lr * rect, { alpha = -1.0 })
        else
          p:add_(corrected * g.lr, { alpha = -1.0 })
        end
      end
    end
  end
  optim.RAdam = RAdam
end
