-- nn, optim and data against PyTorch (cases/nn.py). Class targets and indices are 1-based
-- here (PyTorch's plus one).
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn, F, optim, data = torch.nn, torch.nn.functional, torch.optim, torch.utils.data

local D = torch.float64
local function logits()
  return torch.tensor({ { 0.5, -1.25, 2.0, 0.1 }, { 1.5, 0.25, -0.75, 0.3 }, { -0.2, 0.4, 0.9, -1.1 } },
    { dtype = D, requires_grad = true })
end
local function target() return torch.tensor({ 3, 1, 4 }) end
local function probs()
  return torch.tensor({ { 0.2, 0.7, 0.9, 0.5 }, { 0.1, 0.4, 0.6, 0.99 }, { 0.3, 0.5, 0.05, 0.8 } },
    { dtype = D, requires_grad = true })
end
local Y = torch.tensor({ { 0.0, 1.0, 1.0, 0.0 }, { 1.0, 0.0, 1.0, 1.0 }, { 0.5, 0.0, 0.0, 1.0 } }, { dtype = D })
local W = torch.tensor({ 1.0, 2.0, 0.5, 1.5 }, { dtype = D })

local function grad_of(make, fn)
  local x = make()
  local loss = fn(x)
  loss:sum():backward()
  return { loss:detach(), x.grad }
end
local function loss_and_grad(fn) return grad_of(logits, fn) end
local function bce_grad(fn) return grad_of(probs, fn) end

local function trajectory(make_opt, sched)
  torch.manual_seed(3)
  local w = torch.randn(3, 2, { dtype = D, requires_grad = true })
  local b = torch.randn(2, { dtype = D, requires_grad = true })
  local x, y = torch.randn(6, 3, { dtype = D }), torch.randn(6, 2, { dtype = D })
  local opt = make_opt({ w, b })
  local s = sched and sched(opt)
  local lrs = {}
  for _ = 0, 19 do
    opt:zero_grad()
    ;((x:matmul(w) + b - y) ^ 2):mean():backward()
    opt:step()
    if s then
      if s.is_better then s:step(_ % 7 ~= 0 and 1.0 or 0.5) else s:step() end -- a metric that stalls, then improves
      lrs[#lrs + 1] = opt.param_groups[1].lr
    end
  end
  if s then return { w:detach(), b:detach(), torch.tensor(lrs, { dtype = D }) } end
  return { w:detach(), b:detach() }
end

local function loader_order(shuffle, gen_seed, drop_last)
  torch.manual_seed(7)
  local gen = gen_seed and torch.Generator():manual_seed(gen_seed) or nil
  local ds = data.TensorDataset(torch.arange(23), torch.arange(23) * 10)
  local out = {}
  for xb in data.DataLoader(ds, { batch_size = 5, shuffle = shuffle, generator = gen, drop_last = drop_last })() do
    out[#out + 1] = xb
  end
  return torch.cat(out)
end

local function norm_input() return ((torch.arange(24, { dtype = D }):reshape(2, 3, 2, 2):sin()) * 3):requires_grad_() end
local function norm_grads(make)
  local x = norm_input()
  local m = make()
  m:double()
  local out = m(x)
  ;(out * torch.arange(out:numel(), { dtype = D }):reshape(out.shape):cos()):sum():backward()
  local res = { out:detach(), x.grad }
  for _, p in ipairs(m:parameters()) do res[#res + 1] = p.grad end
  for _, b in m:named_buffers() do
    if b.dtype == D then res[#res + 1] = b end
  end
  return res
end

local function clip(kind)
  local a = torch.tensor({ { 3.0, -4.0 }, { 1.0, 2.0 } }, { dtype = D, requires_grad = true })
  local b = torch.tensor({ 0.5, -12.0 }, { dtype = D, requires_grad = true })
  ;((a * torch.tensor({ { 1.0, 2.0 }, { 3.0, 4.0 } }, { dtype = D })):sum() + (b * b):sum()):backward()
  local total
  if kind == "norm" then
    total = nn.utils.clip_grad_norm_({ a, b }, 5.0)
  elseif kind == "inf" then
    total = nn.utils.clip_grad_norm_({ a, b }, 2.0, { norm_type = math.huge })
  else
    nn.utils.clip_grad_value_({ a, b }, 2.5)
    total = torch.tensor(0.0, { dtype = D })
  end
  return { total, a.grad, b.grad, nn.utils.parameters_to_vector({ a, b }):detach() }
end

local function plus_one_target(msg) return (msg:gsub("Target (%d+)", function(t) return "Target " .. (t + 1) end)) end
local tol = 1e-12 -- exp/log in the last bit

H.run("nn", {
  clip_grad_norm = { function() return clip("norm") end, tol = 1e-12 },
  clip_grad_norm_inf = { function() return clip("inf") end, tol = 1e-12 },
  clip_grad_value = function() return clip("value") end,
  layer_norm = { function() return norm_grads(function() return nn.LayerNorm({ 2, 2 }) end) end, tol = 1e-12 },
  group_norm = { function() return norm_grads(function() return nn.GroupNorm(3, 3) end) end, tol = 1e-12 },
  batch_norm_2d = { function() return norm_grads(function() return nn.BatchNorm2d(3) end) end, tol = 1e-12 },
  batch_norm_1d = { function()
    return norm_grads(function() return nn.Sequential(nn.Flatten(3), nn.BatchNorm1d(3)) end)
  end, tol = 1e-12 },
  batch_norm_eval = { function()
    local m = nn.BatchNorm2d(3):double()
    m(norm_input())
    m:eval()
    return { m(norm_input() + 1):detach(), m.running_mean, m.running_var, m.num_batches_tracked }
  end, tol = 1e-12 },
  embedding = function()
    torch.manual_seed(4)
    local e = nn.Embedding(6, 3, { padding_idx = 3 })
    local idx = torch.tensor({ { 1, 3, 6 }, { 3, 2, 1 } })
    local out = e(idx)
    ;(out * torch.arange(18.0):reshape(2, 3, 3)):sum():backward()
    return { out:detach(), e.weight.grad }
  end,
  linear_init = function()
    torch.manual_seed(0)
    local m = nn.Linear(5, 3)
    return { m.weight:detach(), m.bias:detach() }
  end,
  mlp_forward_backward = {
    function()
      torch.manual_seed(1)
      local net = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3))
      local x = torch.randn(5, 4)
      local out = net(x)
      F.cross_entropy(out, torch.tensor({ 1, 3, 2, 2, 1 })):backward()
      return { out:detach(), net[1].weight.grad, net[3].bias.grad }
    end, tol = 1e-6 },
  mlp_repr = function()
    local net = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Dropout(0.25), nn.LeakyReLU(0.2),
      nn.Sequential(nn.Linear(6, 2, { bias = false }), nn.GELU(), nn.Softplus()), nn.Hardtanh(),
      nn.ELU({ alpha = 0.5 }), nn.Identity(), nn.SiLU(), nn.Mish(), nn.Sigmoid())
    return tostring(net)
  end,
  state_dict_keys = function()
    local net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1)))
    local keys = {}
    for k in pairs(net:state_dict()) do keys[#keys + 1] = k end
    table.sort(keys)
    return keys
  end,
  error_load_missing = function()
    local net = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    local sd = net:state_dict()
    sd["1.bias"] = nil
    sd["extra.weight"] = torch.zeros(1)
    net:load_state_dict(sd)
  end,
  error_load_size_mismatch = function()
    nn.Sequential(nn.Linear(2, 3)):load_state_dict({ ["0.weight"] = torch.zeros(2, 2), ["0.bias"] = torch.zeros(3) })
  end,
  cross_entropy = { function() return loss_and_grad(function(x) return F.cross_entropy(x, target()) end) end, tol = tol },
  cross_entropy_weight = { function() return loss_and_grad(function(x) return F.cross_entropy(x, target(), { weight = W }) end) end, tol = tol },
  cross_entropy_ignore = { function()
    return loss_and_grad(function(x) return F.cross_entropy(x, torch.tensor({ 3, -100, 4 })) end)
  end, tol = tol },
  cross_entropy_smoothing = { function()
    return loss_and_grad(function(x) return F.cross_entropy(x, target(), { label_smoothing = 0.2 }) end)
  end, tol = tol },
  cross_entropy_smoothing_weight = { function()
    return loss_and_grad(function(x) return F.cross_entropy(x, target(), { weight = W, label_smoothing = 0.1 }) end)
  end, tol = tol },
  cross_entropy_probs = { function() return loss_and_grad(function(x) return F.cross_entropy(x, Y:softmax(2)) end) end, tol = tol },
  cross_entropy_sum = { function()
    return loss_and_grad(function(x) return F.cross_entropy(x, target(), { reduction = "sum" }) end)
  end, tol = tol },
  cross_entropy_none = { function()
    return loss_and_grad(function(x) return F.cross_entropy(x, target(), { reduction = "none" }) end)
  end, tol = tol },
  nll_loss = { function()
    return loss_and_grad(function(x) return F.nll_loss(x:log_softmax(2), target(), { weight = W }) end)
  end, tol = tol },
  mse_loss = function() return loss_and_grad(function(x) return F.mse_loss(x, Y) end) end,
  l1_loss = function() return loss_and_grad(function(x) return F.l1_loss(x, Y, { reduction = "sum" }) end) end,
  smooth_l1_loss = { function() return loss_and_grad(function(x) return F.smooth_l1_loss(x, Y, { beta = 0.5 }) end) end, tol = tol },
  huber_loss = { function() return loss_and_grad(function(x) return F.huber_loss(x, Y, { delta = 0.7 }) end) end, tol = tol },
  bce = { function() return bce_grad(function(p) return F.binary_cross_entropy(p, Y) end) end, tol = tol },
  bce_weight = { function()
    return bce_grad(function(p) return F.binary_cross_entropy(p, Y, { weight = W, reduction = "sum" }) end)
  end, tol = tol },
  bce_logits = { function() return loss_and_grad(function(x) return F.binary_cross_entropy_with_logits(x, Y) end) end, tol = tol },
  bce_logits_pos_weight = { function()
    return loss_and_grad(function(x) return F.binary_cross_entropy_with_logits(x, Y, { pos_weight = W }) end)
  end, tol = tol },
  kl_div = { function()
    return loss_and_grad(function(x) return F.kl_div(x:log_softmax(2), Y:softmax(2), { reduction = "batchmean" }) end)
  end, tol = tol },
  error_cross_entropy_target = { function() return F.cross_entropy(logits(), torch.tensor({ 3, 5, 1 })) end,
    expect = plus_one_target },
  error_bce_size = function() return F.binary_cross_entropy(probs(), Y[1]) end,
  sgd = { function() return trajectory(function(p) return optim.SGD(p, { lr = 0.1 }) end) end, tol = tol },
  sgd_momentum = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.05, momentum = 0.9, dampening = 0.1, weight_decay = 0.01 }) end)
  end, tol = tol },
  sgd_nesterov = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.05, momentum = 0.9, nesterov = true, maximize = true }) end)
  end, tol = tol },
  adam = { function() return trajectory(function(p) return optim.Adam(p, { lr = 0.05 }) end) end, tol = tol },
  adam_amsgrad = { function()
    return trajectory(function(p) return optim.Adam(p, { lr = 0.05, betas = { 0.8, 0.99 }, amsgrad = true, weight_decay = 0.1 }) end)
  end, tol = tol },
  adamw = { function() return trajectory(function(p) return optim.AdamW(p, { lr = 0.05, weight_decay = 0.1 }) end) end, tol = tol },
  step_lr = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.1 }) end,
      function(o) return optim.lr_scheduler.StepLR(o, 3, 0.5) end)
  end, tol = tol },
  multistep_lr = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.1 }) end,
      function(o) return optim.lr_scheduler.MultiStepLR(o, { 2, 5, 5, 9 }, 0.3) end)
  end, tol = tol },
  exponential_lr = { function()
    return trajectory(function(p) return optim.Adam(p, { lr = 0.1 }) end,
      function(o) return optim.lr_scheduler.ExponentialLR(o, 0.9) end)
  end, tol = tol },
  cosine_lr = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.1, momentum = 0.5 }) end,
      function(o) return optim.lr_scheduler.CosineAnnealingLR(o, { T_max = 7, eta_min = 0.01 }) end)
  end, tol = tol },
  lambda_lr = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.1 }) end,
      function(o) return optim.lr_scheduler.LambdaLR(o, function(e) return 1 / (1 + e) end) end)
  end, tol = tol },
  rmsprop = { function()
    return trajectory(function(p) return optim.RMSprop(p, { lr = 0.01, momentum = 0.5, centered = true, weight_decay = 0.1 }) end)
  end, tol = tol },
  rmsprop_plain = { function() return trajectory(function(p) return optim.RMSprop(p, { lr = 0.01 }) end) end, tol = tol },
  adagrad = { function()
    return trajectory(function(p) return optim.Adagrad(p, { lr = 0.1, lr_decay = 0.01, initial_accumulator_value = 0.1 }) end)
  end, tol = tol },
  adadelta = { function()
    return trajectory(function(p) return optim.Adadelta(p, { lr = 0.5, rho = 0.8, weight_decay = 0.01 }) end)
  end, tol = tol },
  one_cycle_sgd = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.1, momentum = 0.9 }) end,
      function(o) return optim.lr_scheduler.OneCycleLR(o, { max_lr = 0.2, total_steps = 25 }) end)
  end, tol = tol },
  one_cycle_adam_linear = { function()
    return trajectory(function(p) return optim.Adam(p, { lr = 0.1 }) end,
      function(o)
        return optim.lr_scheduler.OneCycleLR(o, { max_lr = 0.05, total_steps = 21, anneal_strategy = "linear", three_phase = true })
      end)
  end, tol = tol },
  plateau = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.1 }) end,
      function(o) return optim.lr_scheduler.ReduceLROnPlateau(o, { factor = 0.5, patience = 2, cooldown = 1 }) end)
  end, tol = tol },
  loader_sequential = function() return loader_order(false, nil, false) end,
  loader_shuffle_global = function() return loader_order(true, nil, false) end,
  loader_shuffle_generator = function() return loader_order(true, 11, true) end,
})
