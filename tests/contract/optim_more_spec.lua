-- optim breadth against PyTorch (cases/optim_more.py): Adamax, NAdam, RAdam, ASGD, Rprop and
-- LBFGS trajectories in float64, state_dict layouts and reloads, and the lr schedulers with
-- chaining, step(epoch) and their errors.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local optim = torch.optim
local S = optim.lr_scheduler

local D = torch.float64
local tol = 1e-12

local function problem()
  torch.manual_seed(3)
  local w = torch.randn(3, 2, { dtype = D, requires_grad = true })
  local b = torch.randn(2, { dtype = D, requires_grad = true })
  local x, y = torch.randn(6, 3, { dtype = D }), torch.randn(6, 2, { dtype = D })
  return w, b, x, y
end

local function trajectory(make_opt, reload_at)
  local w, b, x, y = problem()
  local opt = make_opt({ w, b })
  local losses = {}
  for i = 0, 11 do
    if reload_at == i then
      local sd = opt:state_dict()
      opt = make_opt({ w, b })
      opt:load_state_dict(sd)
    end
    opt:zero_grad()
    local loss = ((x:matmul(w) + b - y) ^ 2):mean()
    loss:backward()
    losses[#losses + 1] = loss:item()
    opt:step()
  end
  return { w:detach(), b:detach(), torch.tensor(losses, { dtype = D }) }
end

local function traj(make_opt, reload_at)
  return { function() return trajectory(make_opt, reload_at) end, tol = tol }
end

local function describe_value(v)
  if torch.is_tensor(v) then return ("%s[%s]"):format(v.dtype.name, table.concat(v:size(), ", ")) end
  if type(v) == "table" then return { table.unpack(v) } end
  return v
end

local function layout(make_opt, steps)
  local w, b, x, y = problem()
  local opt = make_opt({ w, b })
  for _ = 1, steps or 2 do
    opt:zero_grad()
    ;((x:matmul(w) + b - y) ^ 2):mean():backward()
    opt:step()
  end
  local sd = opt:state_dict()
  local groups, state, keys = {}, {}, {}
  for i, g in ipairs(sd.param_groups) do
    groups[i] = {}
    for k, v in pairs(g) do groups[i][k] = describe_value(v) end
  end
  for i = 0, 1 do
    local st = {}
    for k, v in pairs(sd.state[i]) do st[k] = describe_value(v) end
    st.step_value = torch.is_tensor(sd.state[i].step) and sd.state[i].step:item() or sd.state[i].step
    state[#state + 1] = st
    keys[#keys + 1] = i
  end
  return { groups = groups, state = state, state_keys = keys }
end

local function rosenbrock_closure(opt, x)
  return function()
    opt:zero_grad()
    local loss = (1 - x[1]) ^ 2 + 100 * (x[2] - x[1] ^ 2) ^ 2
    loss:backward()
    return loss
  end
end

local function rosenbrock(line_search_fn, steps, o)
  local x = torch.tensor({ -1.5, 2.0 }, { dtype = D, requires_grad = true })
  local opts = { line_search_fn = line_search_fn }
  for k, v in pairs(o or {}) do opts[k] = v end
  local opt = optim.LBFGS({ x }, opts)
  local closure = rosenbrock_closure(opt, x)
  local losses = {}
  for _ = 1, steps or 6 do losses[#losses + 1] = opt:step(closure):item() end
  local st = opt.state[x]
  return { x:detach(), torch.tensor(losses, { dtype = D }), torch.tensor({ st.func_evals, st.n_iter }, { dtype = D }) }
end

local function lbfgs_lsq(line_search_fn, o)
  local w, b, x, y = problem()
  local opts = { line_search_fn = line_search_fn }
  for k, v in pairs(o) do opts[k] = v end
  local opt = optim.LBFGS({ w, b }, opts)
  local function closure()
    opt:zero_grad()
    local loss = ((x:matmul(w) + b - y) ^ 2):mean() + 0.1 * (w ^ 4):sum()
    loss:backward()
    return loss
  end
  local losses = {}
  for _ = 1, 4 do losses[#losses + 1] = opt:step(closure):item() end
  return { w:detach(), b:detach(), torch.tensor(losses, { dtype = D }) }
end

local function rosenbrock_state()
  local x = torch.tensor({ -1.5, 2.0 }, { dtype = D, requires_grad = true })
  local opt = optim.LBFGS({ x }, { max_iter = 3 })
  local closure = rosenbrock_closure(opt, x)
  opt:step(closure)
  opt:step(closure)
  local sd = opt:state_dict()
  local st = sd.state[0]
  local keys = H.sorted_keys(st)
  local g = {}
  for k, v in pairs(sd.param_groups[1]) do g[k] = describe_value(v) end
  return { keys = keys, func_evals = st.func_evals, n_iter = st.n_iter, history = #st.old_dirs, group = g }
end

-- ---- schedulers ---------------------------------------------------------------------------------

local function param() return torch.zeros(1, { requires_grad = true }) end

local function lrs(make_sched, o)
  o = o or {}
  local opt = o.opt
  if opt == nil then
    local groups = {}
    for i = 1, o.groups or 1 do groups[i] = { params = { param() } } end
    opt = optim.SGD(groups, { lr = 0.1, momentum = 0.9 })
    for i, g in ipairs(opt.param_groups) do g.lr = 0.1 * i end
  end
  local s = make_sched(opt)
  local function current()
    local row = {}
    for i, g in ipairs(opt.param_groups) do row[i] = g.lr end
    return row
  end
  local out = { current() }
  local cyclic = torch.isinstance(s, S.CyclicLR)
  for i = 1, o.steps or 25 do
    opt:step()
    if o.epochs then s:step(o.epochs[i]) else s:step() end
    local row = current()
    if cyclic then
      for _, g in ipairs(opt.param_groups) do
        if g.momentum ~= nil then row[#row + 1] = g.momentum end
      end
    end
    out[#out + 1] = row
  end
  out[#out + 1] = s:get_last_lr()
  return out
end

local function chained(make_scheds)
  local opt = optim.SGD({ param() }, { lr = 1.0 })
  local scheds = make_scheds(opt)
  local out = { opt.param_groups[1].lr }
  for _ = 1, 25 do
    opt:step()
    for _, s in ipairs(scheds) do s:step() end
    out[#out + 1] = opt.param_groups[1].lr
  end
  local last = {}
  for i, s in ipairs(scheds) do last[i] = s:get_last_lr()[1] end
  out[#out + 1] = last
  return out
end

local function sgd() return optim.SGD({ param() }, { lr = 0.1, momentum = 0.9 }) end
local function adam() return optim.Adam({ param() }, { lr = 0.1 }) end

local function plain(v)
  local t = type(v)
  return t == "number" or t == "string" or t == "boolean" or (t == "table" and getmetatable(v) == nil)
end

local function sched_state(make_sched)
  local o = sgd()
  local s = make_sched(o)
  for _ = 1, 4 do
    o:step()
    s:step()
  end
  local keep = {}
  for k, v in pairs(s:state_dict()) do
    if k == "_schedulers" then
      local list = {}
      for i, d in ipairs(v) do list[i] = { last_epoch = d.last_epoch, _last_lr = d._last_lr, base_lrs = d.base_lrs } end
      v = list
    end
    if plain(v) and k ~= "verbose" then keep[k] = v end
  end
  return keep
end

local function sched_reload(make_sched)
  local o = sgd()
  local s = make_sched(o)
  local out = {}
  for i = 0, 5 do
    if i == 3 then
      local sd = s:state_dict()
      s = make_sched(o)
      s:load_state_dict(sd)
    end
    o:step()
    s:step()
    out[#out + 1] = o.param_groups[1].lr
  end
  return out
end

local function resume(make)
  return function(o)
    o.param_groups[1].initial_lr = 0.4
    return make(o)
  end
end

H.run("optim_more", {
  -- ---- optimizers: trajectories ----------------------------------------------------------------------
  adamax = traj(function(p) return optim.Adamax(p, { lr = 0.05 }) end),
  adamax_wd_max = traj(function(p)
    return optim.Adamax(p, { lr = 0.05, betas = { 0.8, 0.95 }, eps = 1e-6, weight_decay = 0.1, maximize = true })
  end),
  adamax_default = traj(function(p) return optim.Adamax(p) end),
  nadam = traj(function(p) return optim.NAdam(p, { lr = 0.05 }) end),
  nadam_wd = traj(function(p)
    return optim.NAdam(p, { lr = 0.05, betas = { 0.85, 0.99 }, weight_decay = 0.1, momentum_decay = 0.01 })
  end),
  nadam_default = traj(function(p) return optim.NAdam(p) end),
  radam = traj(function(p) return optim.RAdam(p, { lr = 0.05 }) end),
  radam_wd = traj(function(p) return optim.RAdam(p, { lr = 0.05, betas = { 0.8, 0.9 }, weight_decay = 0.1,
    eps = 1e-6 }) end),
  radam_default = traj(function(p) return optim.RAdam(p) end),
  asgd = traj(function(p) return optim.ASGD(p, { lr = 0.05, lambd = 1e-3, alpha = 0.6, t0 = 4 }) end),
  asgd_wd_max = traj(function(p) return optim.ASGD(p, { lr = 0.02, t0 = 2, weight_decay = 0.1, maximize = true }) end),
  asgd_default = traj(function(p) return optim.ASGD(p) end),
  rprop = traj(function(p) return optim.Rprop(p, { lr = 0.05 }) end),
  rprop_opts = traj(function(p)
    return optim.Rprop(p, { lr = 0.1, etas = { 0.3, 1.5 }, step_sizes = { 0.01, 0.2 }, maximize = true })
  end),
  rprop_default = traj(function(p) return optim.Rprop(p) end),
  reload_adamax = traj(function(p) return optim.Adamax(p, { lr = 0.05, weight_decay = 0.1 }) end, 5),
  reload_nadam = traj(function(p) return optim.NAdam(p, { lr = 0.05 }) end, 5),
  reload_radam = traj(function(p) return optim.RAdam(p, { lr = 0.05 }) end, 7),
  reload_asgd = traj(function(p) return optim.ASGD(p, { lr = 0.05, t0 = 3 }) end, 5),
  reload_rprop = traj(function(p) return optim.Rprop(p, { lr = 0.05 }) end, 5),
  lbfgs = { function() return rosenbrock(nil) end, tol = tol },
  lbfgs_wolfe = { function() return rosenbrock("strong_wolfe") end, tol = tol },
  lbfgs_wolfe_history = { function()
    return rosenbrock("strong_wolfe", 4, { history_size = 2, max_iter = 7, lr = 0.8 })
  end, tol = tol },
  lbfgs_small_lr = { function() return rosenbrock(nil, 5, { lr = 0.01, max_iter = 10, history_size = 3 }) end,
    tol = tol },
  lbfgs_lsq = { function() return lbfgs_lsq(nil, { max_iter = 5 }) end, tol = tol },
  lbfgs_lsq_wolfe = { function()
    return lbfgs_lsq("strong_wolfe", { max_iter = 8, tolerance_change = 1e-12 })
  end, tol = tol },
  lbfgs_state = rosenbrock_state,
  -- ---- optimizers: state_dict layout and defaults -------------------------------------------------------
  layout_adamax = function() return layout(function(p) return optim.Adamax(p) end) end,
  layout_nadam = function() return layout(function(p) return optim.NAdam(p) end) end,
  layout_radam = function() return layout(function(p) return optim.RAdam(p) end) end,
  layout_asgd = function() return layout(function(p) return optim.ASGD(p) end) end,
  layout_rprop = function() return layout(function(p) return optim.Rprop(p) end, 3) end,
  layout_lbfgs_defaults = function()
    local g = {}
    for k, v in pairs(optim.LBFGS({ param() }).param_groups[1]) do if k ~= "params" then g[k] = v end end
    return g
  end,
  -- ---- optimizers: errors -----------------------------------------------------------------------------
  error_adamax_lr = function() return optim.Adamax({ param() }, { lr = -1.0 }) end,
  error_adamax_beta = function() return optim.Adamax({ param() }, { betas = { 0.9, 1.0 } }) end,
  error_nadam_eps = function() return optim.NAdam({ param() }, { eps = -1e-8 }) end,
  error_nadam_momentum_decay = function() return optim.NAdam({ param() }, { momentum_decay = -0.5 }) end,
  error_radam_wd = function() return optim.RAdam({ param() }, { weight_decay = -0.1 }) end,
  error_radam_beta0 = function() return optim.RAdam({ param() }, { betas = { -0.1, 0.9 } }) end,
  error_asgd_lr = function() return optim.ASGD({ param() }, { lr = -0.5 }) end,
  error_asgd_wd = function() return optim.ASGD({ param() }, { weight_decay = -2 }) end,
  error_rprop_lr = function() return optim.Rprop({ param() }, { lr = -1 }) end,
  error_rprop_etas = function() return optim.Rprop({ param() }, { etas = { 0.5, 0.9 } }) end,
  error_lbfgs_groups = function() return optim.LBFGS({ { params = { param() } }, { params = { param() } } }) end,
  error_lbfgs_line_search = function() return rosenbrock("wolfe") end,
  -- ---- schedulers: lr sequences ----------------------------------------------------------------------------
  constant_lr = function() return lrs(function(o) return S.ConstantLR(o, { factor = 0.5, total_iters = 4 }) end,
    { groups = 2 }) end,
  constant_lr_default = function() return lrs(function(o) return S.ConstantLR(o) end) end,
  linear_lr = function()
    return lrs(function(o) return S.LinearLR(o, { start_factor = 0.25, end_factor = 0.9, total_iters = 7 }) end,
      { groups = 2 })
  end,
  linear_lr_default = function() return lrs(function(o) return S.LinearLR(o) end) end,
  linear_lr_decay = function()
    return lrs(function(o) return S.LinearLR(o, { start_factor = 1.0, end_factor = 0.1, total_iters = 10 }) end)
  end,
  multiplicative_lr = function()
    return lrs(function(o) return S.MultiplicativeLR(o, function(e) return e % 3 ~= 0 and 0.9 or 1.05 end) end)
  end,
  multiplicative_lr_list = function()
    return lrs(function(o)
      return S.MultiplicativeLR(o, { function() return 0.9 end, function(e) return 1.0 / (e + 1) end })
    end, { groups = 2 })
  end,
  polynomial_lr = function()
    return lrs(function(o) return S.PolynomialLR(o, { total_iters = 8, power = 2.0 }) end, { groups = 2 })
  end,
  polynomial_lr_default = function() return lrs(function(o) return S.PolynomialLR(o) end) end,
  polynomial_lr_sqrt = function() return lrs(function(o) return S.PolynomialLR(o, { total_iters = 20,
    power = 0.5 }) end) end,
  cawr = function()
    return lrs(function(o) return S.CosineAnnealingWarmRestarts(o, { T_0 = 5, eta_min = 0.01 }) end, { groups = 2 })
  end,
  cawr_mult = function()
    return lrs(function(o) return S.CosineAnnealingWarmRestarts(o, 3, { T_mult = 2, eta_min = 0.001 }) end,
      { steps = 30 })
  end,
  cawr_epochs = function()
    return lrs(function(o) return S.CosineAnnealingWarmRestarts(o, { T_0 = 4, T_mult = 2 }) end,
      { steps = 12, epochs = { 0.5, 1.25, 2.0, 3.75, 4.0, 5.5, 9.9, 12.0, 12.5, 27.0, 30.0, 2.5 } })
  end,
  cawr_epochs_mult1 = function()
    return lrs(function(o) return S.CosineAnnealingWarmRestarts(o, { T_0 = 3, eta_min = 0.02 }) end,
      { steps = 8, epochs = { 0.5, 1.0, 3.0, 4.5, 7.25, 9, 10, 1 } })
  end,
  cyclic_triangular = function()
    return lrs(function(o) return S.CyclicLR(o, 0.01, 0.1, { step_size_up = 4 }) end, { groups = 2 })
  end,
  cyclic_triangular2 = function()
    return lrs(function(o)
      return S.CyclicLR(o, { 0.01, 0.02 }, { 0.1, 0.3 }, { step_size_up = 3, step_size_down = 5, mode = "triangular2" })
    end, { groups = 2 })
  end,
  cyclic_exp_range = function()
    return lrs(function(o)
      return S.CyclicLR(o, 0.01, 0.1, { step_size_up = 5, mode = "exp_range", gamma = 0.9, base_momentum = 0.7,
        max_momentum = 0.95 })
    end)
  end,
  cyclic_scale_fn = function()
    return lrs(function(o) return S.CyclicLR(o, 0.01, 0.1, { step_size_up = 2,
      scale_fn = function(x) return 1 / x end }) end)
  end,
  cyclic_scale_fn_iterations = function()
    return lrs(function(o)
      return S.CyclicLR(o, 0.01, 0.1, { step_size_up = 2, scale_fn = function(x) return 0.99 ^ x end,
        scale_mode = "iterations", cycle_momentum = false })
    end)
  end,
  cyclic_adam_no_momentum = function()
    return lrs(function(o) return S.CyclicLR(o, 0.01, 0.1, { step_size_up = 3, cycle_momentum = false }) end,
      { opt = adam() })
  end,
  sequential = function()
    return lrs(function(o)
      return S.SequentialLR(o, { S.ConstantLR(o, { factor = 0.1, total_iters = 2 }), S.ExponentialLR(o,
        { gamma = 0.9 }) },
        { milestones = { 2 } })
    end)
  end,
  sequential_three = function()
    return lrs(function(o)
      return S.SequentialLR(o, { S.LinearLR(o, { start_factor = 0.2, total_iters = 4 }), S.StepLR(o, 3,
        { gamma = 0.5 }),
        S.CosineAnnealingLR(o, { T_max = 6 }) }, { 5, 12 })
    end)
  end,
  chained = function()
    return lrs(function(o)
      return S.ChainedScheduler({ S.ConstantLR(o, { factor = 0.1, total_iters = 2 }), S.ExponentialLR(o,
        { gamma = 0.9 }) })
    end)
  end,
  chained_three = function()
    return lrs(function(o)
      return S.ChainedScheduler({ S.LinearLR(o, { start_factor = 0.5, total_iters = 5 }),
        S.MultiStepLR(o, { 3, 8, 8 }, { gamma = 0.5 }), S.PolynomialLR(o, { total_iters = 20, power = 1.5 }) })
    end)
  end,
  two_on_one_exp_step = function()
    return chained(function(o) return { S.ExponentialLR(o, 0.9), S.StepLR(o, 4, { gamma = 0.5 }) } end)
  end,
  two_on_one_linear_cosine = function()
    return chained(function(o)
      return { S.LinearLR(o, { start_factor = 0.1, total_iters = 5 }), S.CosineAnnealingLR(o, { T_max = 10,
        eta_min = 0.01 }) }
    end)
  end,
  two_on_one_constant_poly = function()
    return chained(function(o)
      return { S.ConstantLR(o, { factor = 0.5, total_iters = 3 }), S.PolynomialLR(o, { total_iters = 10 }) }
    end)
  end,
  two_on_one_multiplicative_multistep = function()
    return chained(function(o)
      return { S.MultiplicativeLR(o, function() return 0.97 end), S.MultiStepLR(o, { 4, 9 }, { gamma = 0.2 }) }
    end)
  end,
  closed_step = function()
    return lrs(function(o) return S.StepLR(o, 3, { gamma = 0.5 }) end, { steps = 6, epochs = { 2, 3, 7, 1, 9, 9 } })
  end,
  closed_multistep = function()
    return lrs(function(o) return S.MultiStepLR(o, { 2, 5, 5 }, { gamma = 0.5 }) end, { steps = 5, epochs = { 1, 2, 6,
      5, 3 } })
  end,
  closed_exponential = function()
    return lrs(function(o) return S.ExponentialLR(o, 0.8) end, { steps = 4, epochs = { 3, 1, 4, 10 } })
  end,
  closed_cosine = function()
    return lrs(function(o) return S.CosineAnnealingLR(o, { T_max = 8, eta_min = 0.01 }) end,
      { steps = 4, epochs = { 3, 8, 11, 2 } })
  end,
  closed_constant = function()
    return lrs(function(o) return S.ConstantLR(o, { factor = 0.25, total_iters = 3 }) end, { steps = 4, epochs = { 1,
      3, 2, 8 } })
  end,
  closed_linear = function()
    return lrs(function(o) return S.LinearLR(o, { start_factor = 0.2, total_iters = 6 }) end, { steps = 4,
      epochs = { 1, 4, 9, 2 } })
  end,
  closed_polynomial = function()
    return lrs(function(o) return S.PolynomialLR(o, { total_iters = 6, power = 2.0 }) end, { steps = 4, epochs = { 1,
      4, 9, 2 } })
  end,
  closed_lambda = function()
    return lrs(function(o) return S.LambdaLR(o, function(e) return 1 / (1 + e) end) end, { steps = 3, epochs = { 4, 2,
      7 } })
  end,
  resume_step_lr = function()
    return lrs(resume(function(o) return S.StepLR(o, 3, { gamma = 0.5, last_epoch = 4 }) end), { steps = 8 })
  end,
  resume_cosine = function()
    return lrs(resume(function(o) return S.CosineAnnealingLR(o, { T_max = 10, last_epoch = 3 }) end), { steps = 8 })
  end,
  state_linear = function() return sched_state(function(o) return S.LinearLR(o, { start_factor = 0.5,
    total_iters = 6 }) end) end,
  state_cawr = function() return sched_state(function(o) return S.CosineAnnealingWarmRestarts(o, { T_0 = 3,
    T_mult = 2 }) end) end,
  state_cyclic = function() return sched_state(function(o) return S.CyclicLR(o, 0.01, 0.1,
    { step_size_up = 3 }) end) end,
  state_sequential = function()
    return sched_state(function(o)
      return S.SequentialLR(o, { S.ConstantLR(o, { factor = 0.1, total_iters = 2 }), S.ExponentialLR(o,
        { gamma = 0.9 }) },
        { milestones = { 2 } })
    end)
  end,
  reload_cawr = function() return sched_reload(function(o) return S.CosineAnnealingWarmRestarts(o, { T_0 = 3,
    T_mult = 2 }) end) end,
  reload_polynomial = function() return sched_reload(function(o) return S.PolynomialLR(o, { total_iters = 8 }) end) end,
  -- ---- schedulers: errors --------------------------------------------------------------------------------
  error_constant_factor = function() return S.ConstantLR(sgd(), { factor = 1.5 }) end,
  error_linear_start = function() return S.LinearLR(sgd(), { start_factor = -0.1 }) end,
  error_linear_end = function() return S.LinearLR(sgd(), { end_factor = 2.0 }) end,
  error_cawr_t0 = function() return S.CosineAnnealingWarmRestarts(sgd(), { T_0 = 0 }) end,
  error_cawr_t0_float = function() return S.CosineAnnealingWarmRestarts(sgd(), { T_0 = 2.5 }) end,
  error_cawr_tmult = function() return S.CosineAnnealingWarmRestarts(sgd(), { T_0 = 2, T_mult = 0 }) end,
  error_cawr_epoch = function() return S.CosineAnnealingWarmRestarts(sgd(), { T_0 = 2 }):step(-1) end,
  error_cyclic_mode = function() return S.CyclicLR(sgd(), 0.01, 0.1, { mode = "cosine" }) end,
  error_cyclic_momentum = function() return S.CyclicLR(adam(), 0.01, 0.1) end,
  error_cyclic_base_lr_list = function() return S.CyclicLR(sgd(), { 0.01, 0.02 }, 0.1) end,
  error_multiplicative_list = function()
    return S.MultiplicativeLR(sgd(), { function() return 1.0 end, function() return 1.0 end })
  end,
  error_sequential_milestones = function()
    local o = sgd()
    return S.SequentialLR(o, { S.ConstantLR(o), S.ExponentialLR(o, 0.9) }, { milestones = { 2, 4 } })
  end,
  error_sequential_optimizer = function()
    local o = sgd()
    return S.SequentialLR(o, { S.ConstantLR(o), S.ExponentialLR(sgd(), 0.9) }, { milestones = { 2 } })
  end,
  error_chained_optimizer = function()
    local o = sgd()
    return S.ChainedScheduler({ S.ConstantLR(o), S.ExponentialLR(sgd(), 0.9) })
  end,
  one_cycle_groups = function()
    return lrs(function(o)
      return S.OneCycleLR(o, { max_lr = { 0.5, 1.0 }, total_steps = 12, max_momentum = { 0.95, 0.9 },
        base_momentum = { 0.8, 0.85 } })
    end, { steps = 11, groups = 2 })
  end,
  one_cycle_resume = function()
    return lrs(function(o)
      S.OneCycleLR(o, { max_lr = 0.5, total_steps = 20 })
      return S.OneCycleLR(o, { max_lr = 0.5, total_steps = 20, last_epoch = 6 })
    end, { steps = 8 })
  end,
  error_one_cycle_past_end = function()
    return lrs(function(o) return S.OneCycleLR(o, { max_lr = 0.5, total_steps = 5 }) end, { steps = 6 })
  end,
  error_one_cycle_momentum = function()
    return S.OneCycleLR(optim.Adagrad({ param() }), { max_lr = 0.5, total_steps = 5 })
  end,
  error_resume_initial_lr = { function() return S.StepLR(sgd(), 3, { last_epoch = 2 }) end,
    expect = function(m) return "KeyError: " .. m end },
})
