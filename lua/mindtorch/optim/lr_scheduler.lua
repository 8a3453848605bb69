-- lr_scheduler.lua: torch.optim.lr_scheduler, PyTorch's recursive formulas (so learning rates
-- match step for step, including after manual changes to a group's lr).
return function(torch, optim)
  local S = {}

  local class = require "mindtorch._class"
  -- LRScheduler: the base class (PyTorch 1.13's _LRScheduler); a subclass sets its own fields,
  -- calls LRScheduler.__init(self, optimizer) and defines get_lr
  local Scheduler = class.class("optim.lr_scheduler.LRScheduler")
  S.LRScheduler, S._LRScheduler = Scheduler, Scheduler

  local args = require "mindtorch._args"
  local py_type = args.py_type

  -- checks of what the user passes, with PyTorch's wording; level 4: the scheduler's caller
  local function check_optimizer(optimizer)
    if type(optimizer) ~= "table" or getmetatable(optimizer) == nil or type(optimizer.param_groups) ~= "table" then
      error(("%s is not an Optimizer"):format(py_type(optimizer)), 4)
    end
  end
  local function number(name, v)
    if type(v) ~= "number" then error(("%s must be a number, not %s"):format(name, py_type(v)), 4) end
    return v
  end
  local function nonzero(name, v)
    number(name, v)
    if v == 0 then error(("%s must not be zero (a division by it)"):format(name), 4) end
    return v
  end

  -- last_epoch: -1 for a new schedule, or the epoch to resume from (the groups then hold
  -- their initial_lr already)
  local function check_last_epoch(v)
    if v == nil then return -1 end
    if math.type(v) ~= "integer" then error(("last_epoch must be an integer, not %s"):format(py_type(v)), 4) end
    return v
  end

  -- LRScheduler.__init(self, optimizer, last_epoch = -1, verbose = false): for subclasses
  function Scheduler:__init(optimizer, last_epoch, verbose)
    check_optimizer(optimizer)
    self.optimizer, self.last_epoch, self._step_count = optimizer, check_last_epoch(last_epoch), 0
    self.verbose = verbose == true
    self:_initial()
  end

  -- a built-in scheduler class: Name(optimizer, ...) takes PyTorch's arguments after the
  -- optimizer positionally (`names`, with `defaults`) or in a trailing options table; init(s, o)
  -- gets them by name. Its subclasses inherit that constructor.
  local function scheduler_class(name, names, defaults, init)
    local cls = class.class("optim.lr_scheduler." .. name, Scheduler)
    local all = { table.unpack(names) }
    all[#all + 1], all[#all + 2] = "last_epoch", "verbose"
    function cls:__init(optimizer, ...)
      check_optimizer(optimizer)
      local o = args.parse_at(3, "__init__", all, defaults, ...)
      self.optimizer, self.last_epoch, self._step_count = optimizer, check_last_epoch(o.last_epoch), 0
      self.verbose = o.verbose == true
      init(self, o)
      self:_initial()
    end
    S[name] = cls
    return cls
  end

  -- PyTorch's NotImplementedError: each scheduler computes its own rates
  function Scheduler:get_lr()
    error(("NotImplementedError: %s.get_lr() is not implemented (a scheduler class defines it)"):format(
      getmetatable(self).__name), 2)
  end

  -- the groups' initial_lr (set from lr for a new schedule, required when resuming), then the
  -- first step
  function Scheduler:_initial()
    self.base_lrs = {}
    for i, g in ipairs(self.optimizer.param_groups) do
      if self.last_epoch == -1 then
        if g.initial_lr == nil then g.initial_lr = g.lr end
      elseif g.initial_lr == nil then
        error(("KeyError: \"param 'initial_lr' is not specified in param_groups[%d] when resuming an "
          .. "optimizer\""):format(i - 1), 4)
      end
      self.base_lrs[i] = g.initial_lr
    end
    self:_initial_step()
  end

  function Scheduler:_initial_step()
    self._step_count = 0
    self:step()
  end

  local function print_lr(self, i, lr, epoch)
    if not self.verbose then return end
    if epoch == nil then
      print(("Adjusting learning rate of group %d to %.4e."):format(i - 1, lr))
    else
      local e = math.type(epoch) == "float" and ("%.2f"):format(epoch) or ("%05d"):format(epoch)
      print(("Epoch %s: adjusting learning rate of group %d to %.4e."):format(e, i - 1, lr))
    end
  end

  -- step(): the next epoch by the chainable form (get_lr); step(epoch) (deprecated in PyTorch)
  -- jumps to that epoch by the closed form where the scheduler has one
  function Scheduler:step(epoch)
    self._step_count = self._step_count + 1
    local lrs
    if epoch == nil then
      self.last_epoch = self.last_epoch + 1
      lrs = self:get_lr()
    else
      number("epoch", epoch)
      self.last_epoch = epoch
      if self._get_closed_form_lr then lrs = self:_get_closed_form_lr() else lrs = self:get_lr() end
    end
    for i, g in ipairs(self.optimizer.param_groups) do
      g.lr = lrs[i]
      print_lr(self, i, lrs[i], epoch)
    end
    self._last_lr = {}
    for i, g in ipairs(self.optimizer.param_groups) do self._last_lr[i] = g.lr end
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

  local StepLR = scheduler_class("StepLR", { "step_size", "gamma" }, { gamma = 0.1 }, function(s, o)
    if math.type(o.step_size) ~= "integer" then
      error(("'%s' object cannot be interpreted as an integer"):format(py_type(o.step_size)), 3)
    end
    s.step_size, s.gamma = nonzero("step_size", o.step_size), number("gamma", o.gamma)
  end)
  function StepLR:get_lr()
    return each(self, function(g)
      if self.last_epoch == 0 or self.last_epoch % self.step_size ~= 0 then return g.lr end
      return g.lr * self.gamma
    end)
  end

  function StepLR:_get_closed_form_lr()
    return each(self, function(_, base) return base * self.gamma ^ (self.last_epoch // self.step_size) end)
  end

  local MultiStepLR = scheduler_class("MultiStepLR", { "milestones", "gamma" }, { gamma = 0.1 }, function(s, o)
    s.milestones, s.gamma = {}, number("gamma", o.gamma)
    if type(o.milestones) ~= "table" then error(("'%s' object is not iterable"):format(py_type(o.milestones)), 3) end
    for _, m in ipairs(o.milestones) do
      if math.type(m) ~= "integer" then error(("milestones must be integers, got %s"):format(py_type(m)), 3) end s.milestones[m] = (s.milestones[m] or 0) + 1 end
  end)
  function MultiStepLR:get_lr()
    local c = self.milestones[self.last_epoch]
    return each(self, function(g) return c and g.lr * self.gamma ^ c or g.lr end)
  end

  function MultiStepLR:_get_closed_form_lr()
    local passed = 0 -- bisect_right over the sorted milestones
    for m, c in pairs(self.milestones) do if m <= self.last_epoch then passed = passed + c end end
    return each(self, function(_, base) return base * self.gamma ^ passed end)
  end

  local ExponentialLR = scheduler_class("ExponentialLR", { "gamma" }, nil, function(s, o) s.gamma = number("gamma", o.gamma) end)
  function ExponentialLR:get_lr()
    return each(self, function(g) return self.last_epoch == 0 and g.lr or g.lr * self.gamma end)
  end

  function ExponentialLR:_get_closed_form_lr()
    return each(self, function(_, base) return base * self.gamma ^ self.last_epoch end)
  end

  local LambdaLR = scheduler_class("LambdaLR", { "lr_lambda" }, nil, function(s, o)
    local f, n = o.lr_lambda, #s.optimizer.param_groups
    if type(f) == "table" and getmetatable(f) == nil then
      if #f ~= n then error(("Expected %d lr_lambdas, but got %d"):format(n, #f), 3) end
      for _, fi in ipairs(f) do
        if type(fi) ~= "function" then error(("'%s' object is not callable"):format(py_type(fi)), 3) end
      end
    elseif type(f) ~= "function" and not (getmetatable(f) and getmetatable(f).__call) then
      error(("'%s' object is not callable"):format(py_type(f)), 3)
    end
    s.lr_lambdas = f
  end)
  function LambdaLR:get_lr()
    return each(self, function(_, base, i)
      local f = type(self.lr_lambdas) == "table" and self.lr_lambdas[i] or self.lr_lambdas
      return base * f(self.last_epoch)
    end)
  end

  local CosineAnnealingLR = scheduler_class("CosineAnnealingLR", { "T_max", "eta_min" }, { eta_min = 0 }, function(s, o)
    s.T_max, s.eta_min = nonzero("T_max", o.T_max), number("eta_min", o.eta_min)
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

  function CosineAnnealingLR:_get_closed_form_lr()
    local e, T, eta = self.last_epoch, self.T_max, self.eta_min
    return each(self, function(_, base) return eta + (base - eta) * (1 + math.cos(math.pi * e / T)) / 2 end)
  end

  -- OneCycleLR(opt, {max_lr=, total_steps= or epochs= and steps_per_epoch=, pct_start=0.3,
  -- anneal_strategy="cos", cycle_momentum=true, base_momentum=0.85, max_momentum=0.95,
  -- div_factor=25, final_div_factor=1e4, three_phase=false})
  local OneCycleLR = class.class("optim.lr_scheduler.OneCycleLR", Scheduler)
  local one_cycle_names = { "max_lr", "total_steps", "epochs", "steps_per_epoch", "pct_start", "anneal_strategy",
    "cycle_momentum", "base_momentum", "max_momentum", "div_factor", "final_div_factor", "three_phase", "last_epoch",
    "verbose" }
  function OneCycleLR:__init(optimizer, ...)
    check_optimizer(optimizer)
    local o = args.parse_at(3, "__init__", one_cycle_names, nil, ...)
    for _, k in ipairs { "total_steps", "epochs", "steps_per_epoch" } do
      local v = o[k]
      if v ~= nil and (math.type(v) ~= "integer" or v <= 0) then
        error(("Expected positive integer %s, but got %s"):format(k, tostring(v)), 3)
      end
    end
    local pct0 = o.pct_start or 0.3
    if type(pct0) ~= "number" or pct0 < 0 or pct0 > 1 then
      error(("Expected float between 0 and 1 pct_start, but got %s"):format(tostring(pct0)), 3)
    end
    local strategy = o.anneal_strategy or "cos"
    if strategy ~= "cos" and strategy ~= "linear" then
      error(("anneal_strategy must by one of 'cos' or 'linear', instead got %s"):format(tostring(strategy)), 3)
    end
    local mx = o.max_lr
    if type(mx) == "table" then
      if #mx ~= #optimizer.param_groups then
        error(("expected %d values for max_lr, got %d"):format(#optimizer.param_groups, #mx), 3)
      end
      for _, v in ipairs(mx) do number("max_lr", v) end
    else
      args.require("__init__", o, { "max_lr" })
      number("max_lr", mx)
    end
    for _, k in ipairs { "div_factor", "final_div_factor", "base_momentum", "max_momentum" } do
      if type(o[k]) == "table" and getmetatable(o[k]) == nil and k:find("momentum") then
        for _, v in ipairs(o[k]) do number(k, v) end
      elseif o[k] ~= nil then
        number(k, o[k])
      end
    end
    local s = self
    s.optimizer, s.last_epoch, s._step_count = optimizer, check_last_epoch(o.last_epoch), 0
    s.verbose = o.verbose == true
    local total = o.total_steps
    if total == nil then
      if not (o.epochs and o.steps_per_epoch) then
        error("You must define either total_steps OR (epochs AND steps_per_epoch)", 3)
      end
      total = o.epochs * o.steps_per_epoch
    end
    s.total_steps = total
    local pct = o.pct_start or 0.3
    local div, final_div = o.div_factor or 25.0, o.final_div_factor or 1e4
    s.anneal = (o.anneal_strategy or "cos") == "cos"
      and function(a, b, p) return b + (a - b) / 2.0 * (math.cos(math.pi * p) + 1) end
      or function(a, b, p) return (b - a) * p + a end
    if o.three_phase then
      s.phases = {
        { end_step = pct * total - 1, start_lr = "initial_lr", end_lr = "max_lr", start_m = "max_momentum", end_m = "base_momentum" },
        { end_step = 2 * pct * total - 2, start_lr = "max_lr", end_lr = "initial_lr", start_m = "base_momentum", end_m = "max_momentum" },
        { end_step = total - 1, start_lr = "initial_lr", end_lr = "min_lr", start_m = "max_momentum", end_m = "max_momentum" },
      }
    else
      s.phases = {
        { end_step = pct * total - 1, start_lr = "initial_lr", end_lr = "max_lr", start_m = "max_momentum", end_m = "base_momentum" },
        { end_step = total - 1, start_lr = "max_lr", end_lr = "min_lr", start_m = "base_momentum", end_m = "max_momentum" },
      }
    end
    s.cycle_momentum = o.cycle_momentum ~= false
    local defaults = optimizer.defaults
    if s.cycle_momentum then
      if defaults.momentum == nil and defaults.betas == nil then
        error("optimizer must support momentum with `cycle_momentum` option enabled", 3)
      end
      s.use_beta1 = defaults.betas ~= nil
    end
    -- a number for every group, or a list of one per group
    local function per_group(name, v, i)
      if type(v) == "table" then
        if #v ~= #optimizer.param_groups then
          error(("expected %d values for %s, got %d"):format(#optimizer.param_groups, name, #v), 4)
        end
        return v[i]
      end
      return v
    end
    if s.last_epoch == -1 then
      for i, g in ipairs(optimizer.param_groups) do
        local max_lr = per_group("max_lr", o.max_lr, i)
        g.initial_lr = max_lr / div
        g.max_lr = max_lr
        g.min_lr = g.initial_lr / final_div
      end
    end
    if s.cycle_momentum and s.last_epoch == -1 then
      for i, g in ipairs(optimizer.param_groups) do
        local m_max = per_group("max_momentum", o.max_momentum == nil and 0.95 or o.max_momentum, i)
        local m_base = per_group("base_momentum", o.base_momentum == nil and 0.85 or o.base_momentum, i)
        if s.use_beta1 then g.betas = { m_max, g.betas[2] } else g.momentum = m_max end
        g.max_momentum, g.base_momentum = m_max, m_base
      end
    end
    s:_initial()
  end
  function OneCycleLR:get_lr()
    local step = self.last_epoch
    if step > self.total_steps then
      error(("Tried to step %d times. The specified number of total steps is %d"):format(step + 1, self.total_steps), 3)
    end
    return each(self, function(g)
      local start = 0
      for i, ph in ipairs(self.phases) do
        if step <= ph.end_step or i == #self.phases then
          local pct = (step - start) / (ph.end_step - start)
          local lr = self.anneal(g[ph.start_lr], g[ph.end_lr], pct)
          if self.cycle_momentum then
            local m = self.anneal(g[ph.start_m], g[ph.end_m], pct)
            if self.use_beta1 then g.betas = { m, g.betas[2] } else g.momentum = m end
          end
          return lr
        end
        start = ph.end_step
      end
    end)
  end
  S.OneCycleLR = OneCycleLR

  -- ReduceLROnPlateau(opt, {mode="min", factor=0.1, patience=10, threshold=1e-4,
  -- threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8}); step(metric)
  -- not an LRScheduler in PyTorch 1.13 (its own base), with the same state_dict
  local Plateau = class.class("optim.lr_scheduler.ReduceLROnPlateau")
  Plateau.state_dict, Plateau.load_state_dict = Scheduler.state_dict, Scheduler.load_state_dict
  S.ReduceLROnPlateau = Plateau
  local plateau_names = { "mode", "factor", "patience", "threshold", "threshold_mode", "cooldown", "min_lr", "eps" }
  function Plateau:__init(optimizer, ...)
    check_optimizer(optimizer)
    local o = args.parse_at(3, "__init__", plateau_names, nil, ...)
    for _, k in ipairs { "factor", "patience", "threshold", "cooldown", "eps" } do
      if o[k] ~= nil then number(k, o[k]) end
    end
    if o.min_lr ~= nil and type(o.min_lr) ~= "table" then number("min_lr", o.min_lr) end
    if o.mode ~= nil and o.mode ~= "min" and o.mode ~= "max" then error(("mode %s is unknown!"):format(tostring(o.mode)), 3) end
    if o.threshold_mode ~= nil and o.threshold_mode ~= "rel" and o.threshold_mode ~= "abs" then
      error(("threshold mode %s is unknown!"):format(tostring(o.threshold_mode)), 3)
    end
    if (o.factor or 0.1) >= 1 then error("Factor should be < 1.0.", 3) end
    local s = self
    s.optimizer, s.mode, s.factor = optimizer, o.mode or "min", o.factor or 0.1
    s.patience, s.threshold = o.patience == nil and 10 or o.patience, o.threshold or 1e-4
    s.threshold_mode, s.cooldown, s.min_lr = o.threshold_mode or "rel", o.cooldown or 0, o.min_lr or 0
    s.eps, s.cooldown_counter, s.num_bad_epochs, s.last_epoch = o.eps or 1e-8, 0, 0, 0
    s.best = s.mode == "min" and math.huge or -math.huge
    s._last_lr = {}
    for i, g in ipairs(optimizer.param_groups) do s._last_lr[i] = g.lr end
  end
  function Plateau:is_better(a)
    local best, t = self.best, self.threshold
    if self.mode == "min" and self.threshold_mode == "rel" then return a < best * (1 - t) end
    if self.mode == "min" then return a < best - t end
    if self.threshold_mode == "rel" then return a > best * (t + 1) end
    return a > best + t
  end
  -- step(metric, epoch = last_epoch + 1)
  function Plateau:step(metric, epoch)
    local current = torch.is_tensor(metric) and metric:item() or metric
    if type(current) ~= "number" then error(("float() argument must be a string or a number, not '%s'"):format(py_type(current)), 2) end
    if epoch ~= nil and type(epoch) ~= "number" then
      error(("epoch must be a number, not %s"):format(py_type(epoch)), 2)
    end
    self.last_epoch = epoch or self.last_epoch + 1
    if self:is_better(current) then
      self.best, self.num_bad_epochs = current, 0
    else
      self.num_bad_epochs = self.num_bad_epochs + 1
    end
    if self.cooldown_counter > 0 then
      self.cooldown_counter = self.cooldown_counter - 1
      self.num_bad_epochs = 0
    end
    if self.num_bad_epochs > self.patience then
      for i, g in ipairs(self.optimizer.param_groups) do
        local min_lr = type(self.min_lr) == "table" and self.min_lr[i] or self.min_lr
        local new = math.max(g.lr * self.factor, min_lr)
        if g.lr - new > self.eps then g.lr = new end
      end
      self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
    end
    for i, g in ipairs(self.optimizer.param_groups) do self._last_lr[i] = g.lr end
  end
  function Plateau:get_last_lr() return { table.unpack(self._last_lr) } end

  -- the schedulers of lr_scheduler_more.lua, with the helpers above
  require("mindtorch.optim.lr_scheduler_more")(torch, optim, S, { scheduler_class = scheduler_class,
    check_optimizer = check_optimizer, number = number, each = each, check_last_epoch = check_last_epoch,
    print_lr = print_lr })
  return S
end
