-- mindtorch.optim: PyTorch's optimizers and learning-rate schedulers in Lua, step for step
-- (the same update order and arithmetic as PyTorch 1.13's single-tensor implementations).
local torch = require "mindtorch"
local parse_args = require("mindtorch._args").parse
local parse_py_type = require("mindtorch._args").py_type
local optim = {}

-- ---- Optimizer -----------------------------------------------------------------------------------
local class = require "mindtorch._class"
local Optimizer = class.class("optim.Optimizer")
optim.Optimizer = Optimizer

-- Optimizer:extend(name, defaults, positional): an optimizer class whose Name(params, ...)
-- takes the options of `defaults` positionally in PyTorch's order (`positional`), or by name in
-- a trailing table. Without defaults, extend is subclass (a class for the user to complete).
function Optimizer.extend(cls, name, defaults, positional)
  if defaults == nil then return class.class(name, cls) end
  local sub = class.class(name, cls)
  local names = { table.unpack(positional or {}) }
  local listed = {}
  for _, k in ipairs(names) do listed[k] = true end
  local rest = {}
  for k in pairs(defaults) do if not listed[k] then rest[#rest + 1] = k end end
  table.sort(rest)
  table.move(rest, 1, #rest, #names + 1, names)
  sub.defaults, sub._option_names = defaults, names
  return sub
end

-- Name(params, ...): a class that keeps Optimizer's __init reads its options by PyTorch's
-- signature (here, so that errors point at the caller); one with its own __init gets the
-- arguments as they are
function Optimizer.new(cls, params, ...)
  local o = class.alloc(cls)
  if cls._option_names and cls.__init == Optimizer.__init then
    o:__init(params, parse_args("__init__", cls._option_names, nil, ...))
  else
    o:__init(params, ...)
  end
  return o
end

local function is_param_list(params)
  -- groups are plain tables; anything else in the list is a parameter (checked as one)
  return type(params) == "table" and (type(params[1]) ~= "table" or torch.is_tensor(params[1]))
end

-- Optimizer.__init(self, params, defaults): PyTorch's base constructor; defaults override the
-- class's own (those of Optimizer:extend)
function Optimizer:__init(params, defaults)
  if defaults ~= nil and (type(defaults) ~= "table" or getmetatable(defaults) ~= nil) then
    error(("Optimizer.__init(self, params, defaults): defaults must be a table of options, not %s"):format(
      parse_py_type(defaults)), 3)
  end
  self.defaults = {}
  for k, v in pairs(getmetatable(self).defaults or {}) do self.defaults[k] = v end
  for k, v in pairs(defaults or {}) do self.defaults[k] = v end
  self:_check(self.defaults)
  self.state = {}
  self.param_groups = {}
  if torch.is_tensor(params) then
    error("params argument given to the optimizer should be an iterable of Tensors or dicts, but got torch.FloatTensor", 3)
  end
  if type(params) ~= "table" then error(("'%s' object is not iterable"):format(parse_py_type(params)), 3) end
  if #params == 0 then error("optimizer got an empty parameter list", 3) end
  -- a lazy module's placeholders (nn/lazy.lua) are not tensors yet: PyTorch's advice, as an error
  local nn = rawget(torch, "nn") or package.loaded["mindtorch.nn"]
  local lazy = nn and rawget(nn, "_is_uninitialized")
  for _, p in ipairs(params) do
    if lazy and lazy(p) then
      error("optimizer got an uninitialized parameter of a lazy module: run a first forward (a dry run) or load a "
        .. "state_dict before building the optimizer", 3)
    end
  end
  if is_param_list(params) then params = { { params = params } } end
  for _, g in ipairs(params) do self:add_param_group(g) end
end

function Optimizer:_check() end

function Optimizer:add_param_group(group)
  if type(group) ~= "table" or torch.is_tensor(group) then error("param group must be a dict", 2) end
  local g = {}
  for k, v in pairs(group) do g[k] = v end
  if torch.is_tensor(g.params) then g.params = { g.params } end
  for k, v in pairs(self.defaults) do
    if g[k] == nil then g[k] = v end
  end
  local seen = {}
  for _, pg in ipairs(self.param_groups) do
    for _, p in ipairs(pg.params) do seen[p] = true end
  end
  if type(g.params) ~= "table" then error(("'%s' object is not iterable"):format(parse_py_type(g.params)), 2) end
  for _, p in ipairs(g.params) do
    if not torch.is_tensor(p) then
      error(("optimizer can only optimize Tensors, but one of the params is %s"):format(parse_py_type(p)), 2)
    end
    if not p.is_leaf then error("can't optimize a non-leaf Tensor", 2) end
    if seen[p] then error("some parameters appear in more than one parameter group", 2) end
  end
  self:_check(g)
  self.param_groups[#self.param_groups + 1] = g
end

local zero_grad_of = torch.autograd._zero_grad_of

-- zero_grad(set_to_none = false), or zero_grad{set_to_none = true}: PyTorch 1.13's default
-- zeroes each gradient in place (detached from any graph); set_to_none drops them
function Optimizer:zero_grad(...)
  local set_to_none = parse_args("zero_grad", { "set_to_none" }, { set_to_none = false }, ...).set_to_none
  for _, g in ipairs(self.param_groups) do
    for _, p in ipairs(g.params) do zero_grad_of(p, set_to_none) end
  end
end

-- step(closure): the closure (re-evaluating the loss) runs with grad enabled
function Optimizer:step(closure)
  local loss
  if closure then loss = torch.enable_grad(closure) end
  torch.no_grad(function()
    for _, g in ipairs(self.param_groups) do self:_update(g) end
  end)
  return loss
end

-- state_dict(): PyTorch's layout: params numbered from 0 in order across groups
function Optimizer:state_dict()
  local index, state, groups, n = {}, {}, {}, 0
  for gi, g in ipairs(self.param_groups) do
    local packed = {}
    for k, v in pairs(g) do if k ~= "params" then packed[k] = v end end
    packed.params = {}
    for _, p in ipairs(g.params) do
      index[p] = n
      packed.params[#packed.params + 1] = n
      n = n + 1
    end
    groups[gi] = packed
  end
  for p, s in pairs(self.state) do
    if index[p] then state[index[p]] = s end
  end
  return { state = state, param_groups = groups }
end

function Optimizer:load_state_dict(sd)
  if type(sd) ~= "table" then error(("'%s' object is not subscriptable"):format(parse_py_type(sd)), 2) end
  local groups = sd.param_groups
  if groups == nil then error("KeyError: 'param_groups'", 2) end
  if type(groups) ~= "table" then error(("object of type '%s' has no len()"):format(parse_py_type(groups)), 2) end
  for _, g in ipairs(groups) do
    if type(g) ~= "table" or type(g.params) ~= "table" then error("loaded state dict has a malformed parameter group", 2) end
  end
  if #groups ~= #self.param_groups then error("loaded state dict has a different number of parameter groups", 2) end
  local by_index = {}
  for gi, g in ipairs(self.param_groups) do
    if #groups[gi].params ~= #g.params then
      error("loaded state dict contains a parameter group that doesn't match the size of optimizer's group", 2)
    end
    for i, p in ipairs(g.params) do by_index[groups[gi].params[i]] = p end
    for k, v in pairs(groups[gi]) do if k ~= "params" then g[k] = v end end
  end
  -- a deep copy, its tensors cast to the parameter's floating dtype (all but 'step'), as
  -- PyTorch's load_state_dict
  local function cast(p, v, key)
    if torch.is_tensor(v) then
      if key ~= "step" and p.dtype.is_floating_point and v.dtype ~= p.dtype then return v:to(p.dtype) end
      return v:clone()
    elseif type(v) == "table" and getmetatable(v) == nil then
      local copy = {}
      for k, x in pairs(v) do copy[k] = cast(p, x, nil) end
      return copy
    end
    return v
  end
  self.state = {}
  for idx, s in pairs(sd.state) do
    local p = by_index[idx]
    if p then
      local copy = {}
      for k, v in pairs(s) do copy[k] = cast(p, v, k) end
      self.state[p] = copy
    end
  end
end

-- a group's value as PyTorch prints it (Python's repr): True, None, (0.9, 0.999)
local function py_repr(v)
  if v == nil then return "None" end
  if type(v) == "boolean" then return v and "True" or "False" end
  if type(v) == "table" and not torch.is_tensor(v) and getmetatable(v) == nil then
    local parts = {}
    for i = 1, #v do parts[i] = py_repr(v[i]) end
    return "(" .. table.concat(parts, ", ") .. (#v == 1 and ",)" or ")")
  end
  return tostring(v)
end

function Optimizer:__tostring()
  local lines = { getmetatable(self).__name .. " (" }
  for i, g in ipairs(self.param_groups) do
    lines[#lines + 1] = "Parameter Group " .. (i - 1)
    local keys = {}
    for k in pairs(g) do if k ~= "params" then keys[#keys + 1] = k end end
    table.sort(keys)
    for _, k in ipairs(keys) do lines[#lines + 1] = ("    %s: %s"):format(k, py_repr(g[k])) end
  end
  lines[#lines + 1] = ")"
  return table.concat(lines, "\n")
end

-- PyTorch's "Invalid learning rate: -1" / "Invalid momentum value: -1"; a value that is not a
-- number fails as Python's comparison with a float would
local function check_nonneg(g, key, what)
  local v = g[key]
  if v == nil then return end
  if type(v) ~= "number" then
    error(("'<' not supported between instances of '%s' and 'float'"):format(parse_py_type(v)), 4)
  end
  if v < 0 then
    error((what == "learning rate" and "Invalid %s: %s" or "Invalid %s value: %s"):format(what, tostring(v)), 4)
  end
end

-- ---- SGD -------------------------------------------------------------------------------------------
local SGD = Optimizer:extend("optim.SGD", { lr = 0.001, momentum = 0, dampening = 0, weight_decay = 0, nesterov = false,
  maximize = false },
  { "lr", "momentum", "dampening", "weight_decay", "nesterov" })
function SGD:_check(g)
  check_nonneg(g, "lr", "learning rate")
  check_nonneg(g, "momentum", "momentum")
  check_nonneg(g, "weight_decay", "weight_decay")
  if g.nesterov and (g.momentum <= 0 or g.dampening ~= 0) then
    error("Nesterov momentum requires a momentum and zero dampening", 4)
  end
end
function SGD:_update(g)
  for _, p in ipairs(g.params) do
    local d_p = p.grad
    if d_p ~= nil then
      if g.maximize then d_p = -d_p end
      if g.weight_decay ~= 0 then d_p = d_p:add(p, { alpha = g.weight_decay }) end
      if g.momentum ~= 0 then
        local st = self.state[p] or {}
        self.state[p] = st
        local buf = st.momentum_buffer
        if buf == nil then
          buf = d_p:clone():detach()
          st.momentum_buffer = buf
        else
          buf:mul_(g.momentum):add_(d_p, { alpha = 1 - g.dampening })
        end
        if g.nesterov then d_p = d_p:add(buf, { alpha = g.momentum }) else d_p = buf end
      end
      p:add_(d_p, { alpha = -g.lr })
    end
  end
end
optim.SGD = SGD

-- ---- Adam and AdamW ----------------------------------------------------------------------------------
local adam_defaults = { lr = 0.001, betas = { 0.9, 0.999 }, eps = 1e-8, weight_decay = 0, amsgrad = false, maximize = false }
local function adam_check(g)
  check_nonneg(g, "lr", "learning rate")
  check_nonneg(g, "eps", "epsilon")
  if type(g.betas) ~= "table" then error(("'%s' object is not subscriptable"):format(parse_py_type(g.betas)), 4) end
  for i = 1, 2 do
    local b = g.betas[i]
    if b == nil then error("tuple index out of range", 4) end
    if type(b) ~= "number" then error(("'<=' not supported between instances of 'float' and '%s'"):format(parse_py_type(b)), 4) end
  end
  if g.betas[1] < 0 or g.betas[1] >= 1 then error(("Invalid beta parameter at index 0: %s"):format(g.betas[1]), 4) end
  if g.betas[2] < 0 or g.betas[2] >= 1 then error(("Invalid beta parameter at index 1: %s"):format(g.betas[2]), 4) end
  check_nonneg(g, "weight_decay", "weight_decay")
end

local function state_for(self, p, make)
  local st = self.state[p]
  if st == nil then
    st = make()
    self.state[p] = st
  end
  return st
end

-- the params of a group that have a gradient, each with the gradient to follow (negated for
-- maximize)
local function grads_of(g)
  local i = 0
  return function()
    while true do
      i = i + 1
      local p = g.params[i]
      if p == nil then return nil end
      if p.grad ~= nil then return p, g.maximize and -p.grad or p.grad end
    end
  end
end

local function adam_update(self, g, decoupled)
  local beta1, beta2 = g.betas[1], g.betas[2]
  for p, grad in grads_of(g) do
    local st = state_for(self, p, function()
      local s = { step = torch.tensor(0.0), exp_avg = torch.zeros_like(p), exp_avg_sq = torch.zeros_like(p) }
      if g.amsgrad then s.max_exp_avg_sq = torch.zeros_like(p) end
      return s
    end)
    st.step:add_(1)
    if decoupled then
      p:mul_(1 - g.lr * g.weight_decay)
    elseif g.weight_decay ~= 0 then
      grad = grad:add(p, { alpha = g.weight_decay })
    end
    st.exp_avg:mul_(beta1):add_(grad, { alpha = 1 - beta1 })
    st.exp_avg_sq:mul_(beta2):addcmul_(grad, grad, { value = 1 - beta2 })
    local step = st.step:item()
    local bc1, bc2 = 1 - beta1 ^ step, 1 - beta2 ^ step
    local step_size = g.lr / bc1
    local bc2_sqrt = math.sqrt(bc2)
    local denom
    if g.amsgrad then
      st.max_exp_avg_sq:copy_(torch.maximum(st.max_exp_avg_sq, st.exp_avg_sq))
      denom = (st.max_exp_avg_sq:sqrt() / bc2_sqrt):add_(g.eps)
    else
      denom = (st.exp_avg_sq:sqrt() / bc2_sqrt):add_(g.eps)
    end
    p:addcdiv_(st.exp_avg, denom, { value = -step_size })
  end
end

local Adam = Optimizer:extend("optim.Adam", adam_defaults,
  { "lr", "betas", "eps", "weight_decay", "amsgrad" })
Adam._check = function(_, g) adam_check(g) end
function Adam:_update(g) adam_update(self, g, false) end
optim.Adam = Adam

local adamw_defaults = {}
for k, v in pairs(adam_defaults) do adamw_defaults[k] = v end
adamw_defaults.weight_decay = 0.01
local AdamW = Optimizer:extend("optim.AdamW", adamw_defaults,
  { "lr", "betas", "eps", "weight_decay", "amsgrad" })
AdamW._check = function(_, g) adam_check(g) end
function AdamW:_update(g) adam_update(self, g, true) end
optim.AdamW = AdamW

-- ---- RMSprop, Adagrad, Adadelta ---------------------------------------------------------------------

local RMSprop = Optimizer:extend("optim.RMSprop", { lr = 0.01, alpha = 0.99, eps = 1e-8, weight_decay = 0, momentum = 0,
  centered = false, maximize = false },
  { "lr", "alpha", "eps", "weight_decay", "momentum", "centered" })
function RMSprop:_check(g)
  check_nonneg(g, "lr", "learning rate")
  check_nonneg(g, "eps", "epsilon")
  check_nonneg(g, "momentum", "momentum")
  check_nonneg(g, "weight_decay", "weight_decay")
  check_nonneg(g, "alpha", "alpha")
end
function RMSprop:_update(g)
  for p, grad in grads_of(g) do
    local st = state_for(self, p, function()
      local s = { step = torch.tensor(0.0), square_avg = torch.zeros_like(p) }
      if g.momentum > 0 then s.momentum_buffer = torch.zeros_like(p) end
      if g.centered then s.grad_avg = torch.zeros_like(p) end
      return s
    end)
    st.step:add_(1)
    if g.weight_decay ~= 0 then grad = grad:add(p, { alpha = g.weight_decay }) end
    st.square_avg:mul_(g.alpha):addcmul_(grad, grad, { value = 1 - g.alpha })
    local avg
    if g.centered then
      st.grad_avg:mul_(g.alpha):add_(grad, { alpha = 1 - g.alpha })
      avg = st.square_avg:addcmul(st.grad_avg, st.grad_avg, { value = -1 }):sqrt_()
    else
      avg = st.square_avg:sqrt()
    end
    avg = avg:add_(g.eps)
    if g.momentum > 0 then
      st.momentum_buffer:mul_(g.momentum):addcdiv_(grad, avg)
      p:add_(st.momentum_buffer, { alpha = -g.lr })
    else
      p:addcdiv_(grad, avg, { value = -g.lr })
    end
  end
end
optim.RMSprop = RMSprop

local Adagrad = Optimizer:extend("optim.Adagrad", { lr = 0.01, lr_decay = 0, weight_decay = 0, initial_accumulator_value = 0,
  eps = 1e-10, maximize = false },
  { "lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps" })
function Adagrad:_check(g)
  check_nonneg(g, "lr", "learning rate")
  check_nonneg(g, "lr_decay", "lr_decay")
  check_nonneg(g, "weight_decay", "weight_decay")
  check_nonneg(g, "initial_accumulator_value", "initial_accumulator_value")
  check_nonneg(g, "eps", "epsilon")
end
function Adagrad:_update(g)
  for p, grad in grads_of(g) do
    local st = state_for(self, p, function()
      return { step = torch.tensor(0.0), sum = torch.full_like(p, g.initial_accumulator_value) }
    end)
    st.step:add_(1)
    local step = st.step:item()
    if g.weight_decay ~= 0 then grad = grad:add(p, { alpha = g.weight_decay }) end
    local clr = g.lr / (1 + (step - 1) * g.lr_decay)
    st.sum:addcmul_(grad, grad, { value = 1 })
    local std = st.sum:sqrt():add_(g.eps)
    p:addcdiv_(grad, std, { value = -clr })
  end
end
optim.Adagrad = Adagrad

local Adadelta = Optimizer:extend("optim.Adadelta", { lr = 1.0, rho = 0.9, eps = 1e-6, weight_decay = 0, maximize = false },
  { "lr", "rho", "eps", "weight_decay" })
function Adadelta:_check(g)
  check_nonneg(g, "lr", "learning rate")
  if g.rho < 0 or g.rho > 1 then error(("Invalid rho value: %s"):format(g.rho), 4) end
  check_nonneg(g, "eps", "epsilon")
  check_nonneg(g, "weight_decay", "weight_decay")
end
function Adadelta:_update(g)
  for p, grad in grads_of(g) do
    local st = state_for(self, p, function()
      return { step = torch.tensor(0.0), square_avg = torch.zeros_like(p), acc_delta = torch.zeros_like(p) }
    end)
    st.step:add_(1)
    if g.weight_decay ~= 0 then grad = grad:add(p, { alpha = g.weight_decay }) end
    st.square_avg:mul_(g.rho):addcmul_(grad, grad, { value = 1 - g.rho })
    local std = st.square_avg:add(g.eps):sqrt_()
    local delta = st.acc_delta:add(g.eps):sqrt_():div_(std):mul_(grad)
    st.acc_delta:mul_(g.rho):addcmul_(delta, delta, { value = 1 - g.rho })
    p:add_(delta, { alpha = -g.lr })
  end
end
optim.Adadelta = Adadelta

-- the optimizers of the other files, with the helpers above
local util = { check_nonneg = check_nonneg, adam_check = adam_check, state_for = state_for, grads_of = grads_of }
require("mindtorch.optim.adam_family")(torch, optim, util)
require("mindtorch.optim.sgd_family")(torch, optim, util)
require("mindtorch.optim.lbfgs")(torch, optim, util)

optim.lr_scheduler = require("mindtorch.optim.lr_scheduler")(torch, optim)
return optim
