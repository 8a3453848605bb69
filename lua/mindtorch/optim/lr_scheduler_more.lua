-- lr_scheduler_more.lua: the schedulers PyTorch 1.13 added around the first ones: ConstantLR,
-- LinearLR, MultiplicativeLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR,
-- SequentialLR and ChainedScheduler, each with PyTorch's chainable get_lr (and closed form for
-- step(epoch) where PyTorch has one), so that schedulers sharing an optimizer compose as there.
return function(torch, optim, S, U)
  local class = require "mindtorch._class"
  local args = require "mindtorch._args"
  local py_type = args.py_type
  local scheduler_class, check_optimizer, number, each = U.scheduler_class, U.check_optimizer, U.number, U.each
  local Scheduler = S.LRScheduler

  local function group_lrs(self, f)
    return each(self, function(g) return f and g.lr * f or g.lr end)
  end

  -- ---- ConstantLR: lr * factor until total_iters ----------------------------------------------------
  local ConstantLR = scheduler_class("ConstantLR", { "factor", "total_iters" }, { factor = 1.0 / 3, total_iters = 5 },
    function(s, o)
      number("factor", o.factor)
      number("total_iters", o.total_iters)
      if o.factor > 1.0 or o.factor < 0 then
        error("Constant multiplicative factor expected to be between 0 and 1.", 3)
      end
      s.factor, s.total_iters = o.factor, o.total_iters
    end)
  function ConstantLR:get_lr()
    local e = self.last_epoch
    if e == 0 then return group_lrs(self, self.factor) end
    if e ~= self.total_iters then return group_lrs(self) end
    return group_lrs(self, 1.0 / self.factor)
  end
  function ConstantLR:_get_closed_form_lr()
    local reached = self.last_epoch >= self.total_iters and 1 or 0
    return each(self, function(_, base) return base * (self.factor + reached * (1 - self.factor)) end)
  end

  -- ---- LinearLR: the factor from start_factor to end_factor over total_iters --------------------------
  local LinearLR = scheduler_class("LinearLR", { "start_factor", "end_factor", "total_iters" },
    { start_factor = 1.0 / 3, end_factor = 1.0, total_iters = 5 }, function(s, o)
      number("start_factor", o.start_factor)
      number("end_factor", o.end_factor)
      number("total_iters", o.total_iters)
      if o.start_factor > 1.0 or o.start_factor < 0 then
        error("Starting multiplicative factor expected to be between 0 and 1.", 3)
      end
      if o.end_factor > 1.0 or o.end_factor < 0 then
        error("Ending multiplicative factor expected to be between 0 and 1.", 3)
      end
      s.start_factor, s.end_factor, s.total_iters = o.start_factor, o.end_factor, o.total_iters
    end)
  function LinearLR:get_lr()
    local e, sf, ef, T = self.last_epoch, self.start_factor, self.end_factor, self.total_iters
    if e == 0 then return group_lrs(self, sf) end
    if e > T then return group_lrs(self) end
    return group_lrs(self, 1.0 + (ef - sf) / (T * sf + (e - 1) * (ef - sf)))
  end
  function LinearLR:_get_closed_form_lr()
    local e, sf, ef, T = self.last_epoch, self.start_factor, self.end_factor, self.total_iters
    return each(self, function(_, base) return base * (sf + (ef - sf) * math.min(T, e) / T) end)
  end

  -- ---- MultiplicativeLR: lr times lr_lambda(epoch) at each step ---------------------------------------
  local function check_lambdas(s, f)
    local n = #s.optimizer.param_groups
    local function callable(fi)
      return type(fi) == "function" or (getmetatable(fi) ~= nil and getmetatable(fi).__call ~= nil)
    end
    if type(f) == "table" and getmetatable(f) == nil then
      if #f ~= n then error(("Expected %d lr_lambdas, but got %d"):format(n, #f), 4) end
      for _, fi in ipairs(f) do
        if not callable(fi) then error(("'%s' object is not callable"):format(py_type(fi)), 4) end
      end
      return { table.unpack(f) }
    end
    if not callable(f) then error(("'%s' object is not callable"):format(py_type(f)), 4) end
    local list = {}
    for i = 1, n do list[i] = f end
    return list
  end
  local MultiplicativeLR = scheduler_class("MultiplicativeLR", { "lr_lambda" }, nil, function(s, o)
    s.lr_lambdas = check_lambdas(s, o.lr_lambda)
  end)
  function MultiplicativeLR:get_lr()
    if self.last_epoch > 0 then
      return each(self, function(g, _, i) return g.lr * self.lr_lambdas[i](self.last_epoch) end)
    end
    return group_lrs(self)
  end

  -- ---- PolynomialLR: lr * (1 - epoch / total_iters) ^ power -------------------------------------------
  local PolynomialLR = scheduler_class("PolynomialLR", { "total_iters", "power" }, { total_iters = 5, power = 1.0 },
    function(s, o)
      s.total_iters, s.power = number("total_iters", o.total_iters), number("power", o.power)
    end)
  function PolynomialLR:get_lr()
    local e, T = self.last_epoch, self.total_iters
    if e == 0 or e > T then return group_lrs(self) end
    return group_lrs(self, ((1.0 - e / T) / (1.0 - (e - 1) / T)) ^ self.power)
  end
  function PolynomialLR:_get_closed_form_lr()
    local e, T = self.last_epoch, self.total_iters
    return each(self, function(_, base) return base * (1.0 - math.min(T, e) / T) ^ self.power end)
  end

  -- ---- CosineAnnealingWarmRestarts: cosine annealing restarted every T_i epochs (T_i *= T_mult) -------
  local CAWR = scheduler_class("CosineAnnealingWarmRestarts", { "T_0", "T_mult", "eta_min" },
    { T_mult = 1, eta_min = 0 }, function(s, o)
      if math.type(o.T_0) ~= "integer" or o.T_0 <= 0 then
        error(("Expected positive integer T_0, but got %s"):format(tostring(o.T_0)), 3)
      end
      if math.type(o.T_mult) ~= "integer" or o.T_mult < 1 then
        error(("Expected integer T_mult >= 1, but got %s"):format(tostring(o.T_mult)), 3)
      end
      s.T_0, s.T_i, s.T_mult, s.eta_min = o.T_0, o.T_0, o.T_mult, number("eta_min", o.eta_min)
      s.T_cur = s.last_epoch
    end)
  function CAWR:get_lr()
    return each(self, function(_, base)
      return self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
    end)
  end
  local function int_pow(b, n)
    local r = 1
    for _ = 1, n do r = r * b end
    return r
  end
  -- step(): the next epoch; step(epoch): that epoch, fractional ones too (T_cur from the epoch)
  function CAWR:step(epoch)
    if epoch == nil and self.last_epoch < 0 then epoch = 0 end
    if epoch == nil then
      epoch = self.last_epoch + 1
      self.T_cur = self.T_cur + 1
      if self.T_cur >= self.T_i then
        self.T_cur = self.T_cur - self.T_i
        self.T_i = self.T_i * self.T_mult
      end
    else
      number("epoch", epoch)
      if epoch < 0 then error(("Expected non-negative epoch, but got %s"):format(tostring(epoch)), 2) end
      if epoch >= self.T_0 then
        if self.T_mult == 1 then
          self.T_cur = epoch % self.T_0
        else
          -- Python's math.log(x, base): log(x) / log(base), truncated to an int
          local n = math.floor(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1) / math.log(self.T_mult))
          self.T_cur = epoch - self.T_0 * (int_pow(self.T_mult, n) - 1) / (self.T_mult - 1)
          self.T_i = self.T_0 * int_pow(self.T_mult, n)
        end
      else
        self.T_i = self.T_0
        self.T_cur = epoch
      end
    end
    self.last_epoch = math.floor(epoch)
    local lrs = self:get_lr()
    for i, g in ipairs(self.optimizer.param_groups) do
      g.lr = lrs[i]
      U.print_lr(self, i, lrs[i], epoch)
    end
    self._last_lr = {}
    for i, g in ipairs(self.optimizer.param_groups) do self._last_lr[i] = g.lr end
  end
  S.CosineAnnealingWarmRestarts = CAWR

  -- ---- CyclicLR ---------------------------------------------------------------------------------------
  -- CyclicLR(optimizer, base_lr, max_lr, step_size_up = 2000, step_size_down = nil,
  -- mode = "triangular", gamma = 1.0, scale_fn = nil, scale_mode = "cycle", cycle_momentum = true,
  -- base_momentum = 0.8, max_momentum = 0.9, last_epoch = -1, verbose = false). As PyTorch 1.13,
  -- cycling the momentum needs an optimizer with a `momentum` option (not Adam's betas).
  local CyclicLR = class.class("optim.lr_scheduler.CyclicLR", Scheduler)
  local cyclic_names = { "base_lr", "max_lr", "step_size_up", "step_size_down", "mode", "gamma", "scale_fn",
    "scale_mode", "cycle_momentum", "base_momentum", "max_momentum", "last_epoch", "verbose" }
  local function format_param(name, optimizer, v)
    local n = #optimizer.param_groups
    local out = {}
    if type(v) == "table" and getmetatable(v) == nil then
      if #v ~= n then error(("expected %d values for %s, got %d"):format(n, name, #v), 4) end
      for i = 1, n do out[i] = number(name, v[i]) end
      return out
    end
    number(name, v)
    for i = 1, n do out[i] = v end
    return out
  end
  local function as_float(name, v)
    if type(v) ~= "number" then
      error(("float() argument must be a string or a number, not '%s'"):format(py_type(v)), 4)
    end
    return v + 0.0
  end
  local scale_fns = {
    triangular = function() return 1.0 end,
    triangular2 = function(_, x) return 1 / 2.0 ^ (x - 1) end,
    exp_range = function(s, x) return s.gamma ^ x end,
  }
  function CyclicLR:__init(optimizer, ...)
    check_optimizer(optimizer)
    local o = args.parse_at(3, "__init__", cyclic_names, nil, ...)
    args.require("__init__", o, { "base_lr", "max_lr" })
    local last_epoch = U.check_last_epoch(o.last_epoch)
    self.optimizer = optimizer
    local base_lrs = format_param("base_lr", optimizer, o.base_lr)
    if last_epoch == -1 then
      for i, g in ipairs(optimizer.param_groups) do g.lr = base_lrs[i] end
    end
    self.max_lrs = format_param("max_lr", optimizer, o.max_lr)
    local up = as_float("step_size_up", o.step_size_up == nil and 2000 or o.step_size_up)
    local down = o.step_size_down ~= nil and as_float("step_size_down", o.step_size_down) or up
    self.total_size = up + down
    self.step_ratio = up / self.total_size
    local mode = o.mode == nil and "triangular" or o.mode
    if not scale_fns[mode] and o.scale_fn == nil then error("mode is invalid and scale_fn is None", 3) end
    self.mode, self.gamma = mode, number("gamma", o.gamma == nil and 1.0 or o.gamma)
    if o.scale_fn == nil then
      self._scale_fn_custom = nil
      self.scale_mode = mode == "exp_range" and "iterations" or "cycle"
    else
      local f = o.scale_fn
      if type(f) ~= "function" and not (getmetatable(f) and getmetatable(f).__call) then
        error(("'%s' object is not callable"):format(py_type(f)), 3)
      end
      self._scale_fn_custom = f
      self.scale_mode = o.scale_mode == nil and "cycle" or o.scale_mode
    end
    self.cycle_momentum = o.cycle_momentum ~= false
    if self.cycle_momentum then
      if optimizer.defaults == nil or optimizer.defaults.momentum == nil then
        error("optimizer must support momentum with `cycle_momentum` option enabled", 3)
      end
      local base_m = format_param("base_momentum", optimizer, o.base_momentum == nil and 0.8 or o.base_momentum)
      if last_epoch == -1 then
        for i, g in ipairs(optimizer.param_groups) do g.momentum = base_m[i] end
      end
      self.base_momentums = {}
      for i, g in ipairs(optimizer.param_groups) do self.base_momentums[i] = g.momentum end
      self.max_momentums = format_param("max_momentum", optimizer, o.max_momentum == nil and 0.9 or o.max_momentum)
    end
    self.last_epoch, self._step_count, self.verbose = last_epoch, 0, o.verbose == true
    self:_initial()
    self.base_lrs = base_lrs
  end
  function CyclicLR:scale_fn(x)
    if self._scale_fn_custom ~= nil then return self._scale_fn_custom(x) end
    return scale_fns[self.mode](self, x)
  end
  function CyclicLR:get_lr()
    local cycle = math.floor(1 + self.last_epoch / self.total_size)
    local x = 1.0 + self.last_epoch / self.total_size - cycle
    local scale_factor
    if x <= self.step_ratio then scale_factor = x / self.step_ratio
    else scale_factor = (x - 1) / (self.step_ratio - 1) end
    local at = self.scale_mode == "cycle" and cycle or self.last_epoch
    local lrs = {}
    for i, base_lr in ipairs(self.base_lrs) do
      local base_height = (self.max_lrs[i] - base_lr) * scale_factor
      lrs[i] = base_lr + base_height * self:scale_fn(at)
    end
    if self.cycle_momentum then
      local momentums = {}
      for i, base_m in ipairs(self.base_momentums) do
        local base_height = (self.max_momentums[i] - base_m) * scale_factor
        momentums[i] = self.max_momentums[i] - base_height * self:scale_fn(at)
      end
      for i, g in ipairs(self.optimizer.param_groups) do g.momentum = momentums[i] end
    end
    return lrs
  end
  S.CyclicLR = CyclicLR

  -- ---- SequentialLR and ChainedScheduler ----------------------------------------------------------------
  local function check_schedulers(list, level)
    if type(list) ~= "table" or getmetatable(list) ~= nil then
      error(("object of type '%s' has no len()"):format(py_type(list)), level + 1)
    end
    for _, s in ipairs(list) do
      if type(s) ~= "table" or type(s.step) ~= "function" or s.optimizer == nil then
        error(("'%s' object has no attribute 'optimizer'"):format(py_type(s)), level + 1)
      end
    end
  end

  -- SequentialLR(optimizer, schedulers, milestones, last_epoch = -1, verbose = false): the
  -- schedulers in turn, the next from each milestone on (started there at its epoch 0)
  local SequentialLR = class.class("optim.lr_scheduler.SequentialLR", Scheduler)
  function SequentialLR:__init(optimizer, ...)
    local o = args.parse_at(3, "__init__", { "schedulers", "milestones", "last_epoch", "verbose" }, nil, ...)
    args.require("__init__", o, { "schedulers", "milestones" })
    local schedulers, milestones = o.schedulers, o.milestones
    check_schedulers(schedulers, 3)
    for i, s in ipairs(schedulers) do
      if s.optimizer ~= optimizer then
        error(("Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers "
          .. "at index %d to be different than the optimizer passed in."):format(i - 1), 3)
      end
    end
    if type(milestones) ~= "table" or getmetatable(milestones) ~= nil then
      error(("object of type '%s' has no len()"):format(py_type(milestones)), 3)
    end
    for _, m in ipairs(milestones) do number("milestones", m) end
    if #milestones ~= #schedulers - 1 then
      error(("Sequential Schedulers expects number of schedulers provided to be one more than the number of "
        .. "milestone points, but got number of schedulers %d and the number of milestones to be equal to %d"):format(
        #schedulers, #milestones), 3)
    end
    check_optimizer(optimizer)
    self._schedulers, self._milestones = { table.unpack(schedulers) }, { table.unpack(milestones) }
    self.last_epoch = U.check_last_epoch(o.last_epoch) + 1
    self.optimizer = optimizer
    for _, g in ipairs(optimizer.param_groups) do
      if g.initial_lr == nil then error("KeyError: 'initial_lr'", 3) end
      g.lr = g.initial_lr
    end
    for _, s in ipairs(self._schedulers) do s.last_epoch = s.last_epoch - 1 end
    self._schedulers[1]:_initial_step()
    self._last_lr = self._schedulers[1]:get_last_lr()
  end
  function SequentialLR:step()
    self.last_epoch = self.last_epoch + 1
    local idx = 0 -- bisect_right
    for _, m in ipairs(self._milestones) do if m <= self.last_epoch then idx = idx + 1 end end
    local s = self._schedulers[idx + 1]
    if idx > 0 and self._milestones[idx] == self.last_epoch then s:step(0) else s:step() end
    self._last_lr = s:get_last_lr()
  end

  -- state_dict(): the fields and each scheduler's own state_dict under _schedulers
  local function nested_state_dict(self)
    local sd = {}
    for k, v in pairs(self) do
      if k ~= "optimizer" and k ~= "_schedulers" and type(v) ~= "function" then sd[k] = v end
    end
    sd._schedulers = {}
    for i, s in ipairs(self._schedulers) do sd._schedulers[i] = s:state_dict() end
    return sd
  end
  local function nested_load_state_dict(self, sd)
    for k, v in pairs(sd) do if k ~= "_schedulers" then self[k] = v end end
    for i, s in ipairs(sd._schedulers or {}) do self._schedulers[i]:load_state_dict(s) end
  end
  SequentialLR.state_dict, SequentialLR.load_state_dict = nested_state_dict, nested_load_state_dict
  S.SequentialLR = SequentialLR

  -- ChainedScheduler(schedulers): each scheduler's step in turn, at every step
  local ChainedScheduler = class.class("optim.lr_scheduler.ChainedScheduler", Scheduler)
  function ChainedScheduler:__init(...)
    local o = args.parse_at(3, "__init__", { "schedulers" }, nil, ...)
    args.require("__init__", o, { "schedulers" })
    local schedulers = o.schedulers
    check_schedulers(schedulers, 3)
    if #schedulers == 0 then error("IndexError: list index out of range", 3) end
    for i = 2, #schedulers do
      if schedulers[i].optimizer ~= schedulers[1].optimizer then
        error(("ChainedScheduler expects all schedulers to belong to the same optimizer, but got schedulers at "
          .. "index %d and %d to be different"):format(0, i - 1), 3)
      end
    end
    self._schedulers = { table.unpack(schedulers) }
    self.optimizer = schedulers[1].optimizer
    self._last_lr = {}
    for i, g in ipairs(self.optimizer.param_groups) do self._last_lr[i] = g.lr end
  end
  function ChainedScheduler:step()
    for _, s in ipairs(self._schedulers) do s:step() end
    self._last_lr = {}
    for i, g in ipairs(self._schedulers[#self._schedulers].optimizer.param_groups) do self._last_lr[i] = g.lr end
  end
  ChainedScheduler.state_dict, ChainedScheduler.load_state_dict = nested_state_dict, nested_load_state_dict
  S.ChainedScheduler = ChainedScheduler
end
