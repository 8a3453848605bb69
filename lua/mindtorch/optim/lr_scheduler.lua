-- lr_scheduler.lua: torch.optim.lr_scheduler, PyTorch's recursive formulas (so learning rates
-- match step for step, including after manual changes to a group's lr).
return function(torch, optim)
  local S = {}

  local Scheduler = { __name = "LRScheduler" }
  Scheduler.__index = Scheduler

  local function class(name, init)
    local cls = setmetatable({ __name = name }, { __index = Scheduler, __call = function(c, optimizer, ...)
      local s = setmetatable({ optimizer = optimizer, last_epoch = -1, _step_count = 0 }, c)
      init(s, ...)
      s:_initial()
      return s
    end })
    cls.__index = cls
    S[name] = cls
    return cls
  end

  function Scheduler:_initial()
    self.base_lrs = {}
    for i, g in ipairs(self.optimizer.param_groups) do
      if g.initial_lr == nil then g.initial_lr = g.lr end
      self.base_lrs[i] = g.initial_lr
    end
    self:step()
  end

  function Scheduler:step()
    self._step_count = self._step_count + 1
    self.last_epoch = self.last_epoch + 1
    local lrs = self:get_lr()
    self._last_lr = {}
    for i, g in ipairs(self.optimizer.param_groups) do
      g.lr = lrs[i]
      self._last_lr[i] = lrs[i]
    end
  end

  function Scheduler:get_last_lr() return { table.unpack(self._last_lr) } end

  function Scheduler:state_dict()
    local sd = {}
    for k, v in pairs(self) do if k ~= "optimizer" and type(v) ~= "function" then sd[k] = v end end
    return sd
  end
  function Scheduler:load_state_dict(sd) for k, v in pairs(sd) do self[k] = v end end

  local function each(self, f)
    local out = {}
    for i, g in ipairs(self.optimizer.param_groups) do out[i] = f(g, self.base_lrs[i], i) end
    return out
  end

  local StepLR = class("StepLR", function(s, step_size, gamma)
    if type(step_size) == "table" then step_size, gamma = step_size.step_size, step_size.gamma end
    s.step_size, s.gamma = step_size, gamma or 0.1
  end)
  function StepLR:get_lr()
    return each(self, function(g)
      if self.last_epoch == 0 or self.last_epoch % self.step_size ~= 0 then return g.lr end
      return g.lr * self.gamma
    end)
  end

  local MultiStepLR = class("MultiStepLR", function(s, milestones, gamma)
    if milestones.milestones then milestones, gamma = milestones.milestones, milestones.gamma end
    s.milestones, s.gamma = {}, gamma or 0.1
    for _, m in ipairs(milestones) do s.milestones[m] = (s.milestones[m] or 0) + 1 end
  end)
  function MultiStepLR:get_lr()
    local c = self.milestones[self.last_epoch]
    return each(self, function(g) return c and g.lr * self.gamma ^ c or g.lr end)
  end

  local ExponentialLR = class("ExponentialLR", function(s, gamma)
    if type(gamma) == "table" then gamma = gamma.gamma end
    s.gamma = gamma
  end)
  function ExponentialLR:get_lr()
    return each(self, function(g) return self.last_epoch == 0 and g.lr or g.lr * self.gamma end)
  end

  local LambdaLR = class("LambdaLR", function(s, fn)
    if type(fn) == "table" and fn.lr_lambda then fn = fn.lr_lambda end
    s.lr_lambdas = fn
  end)
  function LambdaLR:get_lr()
    return each(self, function(_, base, i)
      local f = type(self.lr_lambdas) == "table" and self.lr_lambdas[i] or self.lr_lambdas
      return base * f(self.last_epoch)
    end)
  end

  local CosineAnnealingLR = class("CosineAnnealingLR", function(s, T_max, eta_min)
    if type(T_max) == "table" then T_max, eta_min = T_max.T_max, T_max.eta_min end
    s.T_max, s.eta_min = T_max, eta_min or 0
  end)
  function CosineAnnealingLR:get_lr()
    local e, T, eta = self.last_epoch, self.T_max, self.eta_min
    return each(self, function(g, base)
      if e == 0 then return g.lr end
      if self._step_count == 1 and e > 0 then
        return eta + (base - eta) * (1 + math.cos(e * math.pi / T)) / 2
      end
      if (e - 1 - T) % (2 * T) == 0 then
        return g.lr + (base - eta) * (1 - math.cos(math.pi / T)) / 2
      end
      return (1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T)) * (g.lr - eta) + eta
    end)
  end

  return S
end
