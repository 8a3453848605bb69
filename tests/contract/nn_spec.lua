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

-- a layer built after manual_seed(seed), in float64: output, input gradient(s), parameter gradients
local function layer_grads(make, shape, seed, two)
  torch.manual_seed(seed or 5)
  local m = make():double()
  local n = 1
  for _, d in ipairs(shape) do n = n * d end
  local x = (torch.arange(n, { dtype = D }):reshape(shape) * 0.37):sin():requires_grad_()
  local xs = { x }
  if two then xs[2] = (torch.arange(n, { dtype = D }):reshape(shape) * 0.23):cos():requires_grad_() end
  local out = m(table.unpack(xs))
  ;(out * torch.arange(out:numel(), { dtype = D }):reshape(out.shape):cos()):sum():backward()
  local res = { out:detach() }
  for _, t in ipairs(xs) do res[#res + 1] = t.grad end
  for _, p in ipairs(m:parameters()) do res[#res + 1] = p.grad end
  return res
end
local function lenet()
  return nn.Sequential(nn.Conv2d(1, 6, 5, { padding = 2 }), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
    nn.Linear(84, 10))
end
local function pad_modes()
  local x = torch.arange(24, { dtype = D }):reshape(2, 3, 4):requires_grad_()
  local outs = { F.pad(x, { 1, 2 }), F.pad(x, { -1, 2, 1, 0 }, { value = 1.5 }), F.pad(x, { 2, 3 }, "reflect"),
    F.pad(x, { 1, 2, 2, 1 }, "reflect"), F.pad(x, { 3, 1 }, "replicate"), F.pad(x, { 2, 4 }, "circular") }
  local total = 0
  for _, o in ipairs(outs) do total = total + (o * torch.arange(o:numel(), { dtype = D }):reshape(o.shape):cos()):sum() end
  total:backward()
  local res = {}
  for i, o in ipairs(outs) do res[i] = o:detach() end
  res[#res + 1] = x.grad
  return res
end

-- PyTorch's 0-based target as the 1-based class a Lua user wrote, and mindtorch's reminder
-- of the class range (the cases have 4 classes)
local function plus_one_target(msg)
  return (msg:gsub("Target (%d+)", function(t) return "Target " .. (t + 1) end)) .. " (Class indices are 1-based: 1 to 4.)"
end
local tol = 1e-12 -- exp/log in the last bit

H.run("nn", {
  conv2d_layer = { function()
    return layer_grads(function() return nn.Conv2d(3, 4, 3, { stride = 2, padding = 1 }) end, { 2, 3, 7, 6 })
  end, tol = 1e-12 },
  conv2d_groups_dilation = { function()
    return layer_grads(function() return nn.Conv2d(4, 6, { 3, 2 }, { padding = { 2, 1 }, dilation = { 2, 1 }, groups = 2 }) end,
      { 2, 4, 6, 5 })
  end, tol = 1e-12 },
  conv2d_same_even = { function()
    return layer_grads(function() return nn.Conv2d(2, 3, 4, { padding = "same", bias = false }) end, { 2, 2, 5, 6 })
  end, tol = 1e-12 },
  conv2d_reflect = { function()
    return layer_grads(function() return nn.Conv2d(2, 3, 3, { padding = 1, padding_mode = "reflect" }) end, { 2, 2, 5, 6 })
  end, tol = 1e-12 },
  conv2d_circular = { function()
    return layer_grads(function() return nn.Conv2d(2, 3, 3, { padding = { 1, 2 }, padding_mode = "circular" }) end,
      { 1, 2, 5, 6 })
  end, tol = 1e-12 },
  conv2d_replicate = { function()
    return layer_grads(function() return nn.Conv2d(2, 3, 3, { padding = 2, padding_mode = "replicate" }) end, { 1, 2, 4, 4 })
  end, tol = 1e-12 },
  conv1d_layer = { function()
    return layer_grads(function() return nn.Conv1d(3, 4, 3, { stride = 2, padding = 1, dilation = 2 }) end, { 2, 3, 9 })
  end, tol = 1e-12 },
  conv_transpose2d_layer = { function()
    return layer_grads(function()
      return nn.ConvTranspose2d(4, 6, 3, { stride = 2, padding = 1, output_padding = 1, groups = 2 })
    end, { 2, 4, 3, 4 })
  end, tol = 1e-12 },
  conv_transpose1d_layer = { function()
    return layer_grads(function() return nn.ConvTranspose1d(3, 2, 4, { stride = 3 }) end, { 2, 3, 5 })
  end, tol = 1e-12 },
  conv_transpose_output_size = { function()
    torch.manual_seed(2)
    local m = nn.ConvTranspose2d(2, 3, 3, { stride = 2, padding = 1 }):double()
    local x = torch.arange(2 * 2 * 4 * 4, { dtype = D }):reshape(2, 2, 4, 4):sin()
    return m(x, { 8, 8 }):detach()
  end, tol = 1e-12 },
  max_pool2d_layer = { function() return layer_grads(function() return nn.MaxPool2d(3, 2, 1) end, { 2, 3, 7, 6 }) end,
    tol = 1e-12 },
  max_pool2d_ceil_layer = { function()
    return layer_grads(function() return nn.MaxPool2d(2, { ceil_mode = true }) end, { 2, 3, 7, 5 })
  end, tol = 1e-12 },
  max_pool1d_layer = { function() return layer_grads(function() return nn.MaxPool1d(3, 2, 1, 2) end, { 2, 3, 11 }) end,
    tol = 1e-12 },
  max_pool_indices = { function()
    local x = (torch.arange(2 * 3 * 6 * 5, { dtype = D }):reshape(2, 3, 6, 5) * 0.37):sin()
    local v, i = F.max_pool2d(x, 3, 2, 1, { return_indices = true })
    local v1, i1 = F.max_pool1d(x[1], 2, { return_indices = true })
    return { v, i - 1, v1, i1 - 1 } -- PyTorch's 0-based positions
  end, tol = 1e-12 },
  avg_pool2d_layer = { function()
    return layer_grads(function() return nn.AvgPool2d(3, 2, 1, { ceil_mode = true, count_include_pad = false }) end,
      { 2, 3, 7, 6 })
  end, tol = 1e-12 },
  avg_pool2d_divisor_layer = { function()
    return layer_grads(function() return nn.AvgPool2d(2, { divisor_override = 3 }) end, { 2, 3, 4, 6 })
  end, tol = 1e-12 },
  avg_pool1d_layer = { function() return layer_grads(function() return nn.AvgPool1d(3, 2, 1) end, { 2, 3, 9 }) end, tol = 1e-12 },
  adaptive_avg_pool2d_layer = { function()
    return layer_grads(function() return nn.AdaptiveAvgPool2d({ 4, 3 }) end, { 2, 3, 7, 5 })
  end, tol = 1e-12 },
  adaptive_avg_pool1d_layer = { function()
    return layer_grads(function() return nn.AdaptiveAvgPool1d(4) end, { 2, 3, 9 })
  end, tol = 1e-12 },
  bilinear_layer = { function() return layer_grads(function() return nn.Bilinear(4, 4, 3) end, { 5, 4 }, 5, true) end, tol = 1e-12 },
  pad_modes = { pad_modes, tol = 1e-12 },
  lenet_step = { function()
    torch.manual_seed(7)
    local net = lenet()
    local x = torch.randn(4, 1, 28, 28)
    local out = net(x)
    F.cross_entropy(out, torch.tensor({ 4, 2, 1, 10 })):backward()
    return { out:detach(), net[1].weight.grad, net[4].bias.grad, net[8].weight.grad:sum(1) }
  end, tol = 1e-5 },
  lenet_repr = { function()
    return (tostring(nn.Sequential(lenet(), nn.Conv2d(3, 6, { 3, 2 }, { stride = 2, dilation = 2, groups = 3, bias = false }),
      nn.ConvTranspose2d(4, 2, 3, { stride = 2, output_padding = 1 }),
      nn.MaxPool2d({ 3, 2 }, { stride = { 2, 1 }, padding = 1, ceil_mode = true }), nn.AvgPool2d(3, 2, 1),
      nn.AvgPool1d(2), nn.AdaptiveAvgPool2d(1), nn.Conv1d(3, 4, 3, { padding = "same", padding_mode = "circular" }),
      nn.Bilinear(3, 4, 5))))
    -- Flatten's start_dim is 1-based here (2 is PyTorch's 1)
    :gsub("Flatten%(start_dim=2", "Flatten(start_dim=1"), nil
  end },
  error_conv_groups = function() return nn.Conv2d(3, 4, 3, { groups = 2 }) end,
  error_conv_padding_string = function() return nn.Conv2d(3, 4, 3, { padding = "full" }) end,
  error_conv_same_strided = function() return nn.Conv2d(3, 4, 3, { padding = "same", stride = 2 }) end,
  error_f_conv_padding_string = function() return F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2), { padding = "foo" }) end,
  error_pad_odd = function() return F.pad(torch.ones(2, 3), { 1 }) end,
  error_pad_long = function() return F.pad(torch.ones(2, 3), { 1, 1, 1, 1, 1, 1 }) end,
  error_pad_reflect = { function() return F.pad(torch.ones(1, 2, 3), { 3, 1 }, "reflect") end,
    expect = function(m) return (m:gsub("dimension 2", "dimension 3")) end },
  error_pad_circular = function() return F.pad(torch.ones(1, 2, 3), { 4, 1 }, "circular") end,
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
  init_draws = { function()
    torch.manual_seed(11)
    local I = nn.init
    return { I.xavier_uniform_(torch.empty(4, 5)), I.xavier_normal_(torch.empty(4, 5), 2.0),
      I.kaiming_uniform_(torch.empty(6, 3, 2)),
      I.kaiming_normal_(torch.empty(5, 4), { mode = "fan_out", nonlinearity = "relu" }),
      I.trunc_normal_(torch.empty(200)), I.trunc_normal_(torch.empty(50), { mean = 1.0, std = 0.5, a = 0.5, b = 1.2 }),
      I.trunc_normal_(torch.empty(30, { dtype = torch.float64 }), { std = 0.02 }),
      -- orthogonal: LAPACK's float32 QR against our float64 Gram-Schmidt, so to float32 rounding
      I.orthogonal_(torch.empty(4, 6)), I.orthogonal_(torch.empty(6, 4), 0.5),
      I.orthogonal_(torch.empty(3, 2, 2)), I.orthogonal_(torch.empty(5, 5, { dtype = torch.float64 })) }
  end, tol = 1e-5 },
  error_orthogonal_1d = function() return nn.init.orthogonal_(torch.empty(3)) end,
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
  adamax = { function() return trajectory(function(p) return optim.Adamax(p, { lr = 0.05 }) end) end, tol = tol },
  adamax_wd_max = { function()
    return trajectory(function(p)
      return optim.Adamax(p, { lr = 0.05, betas = { 0.8, 0.9 }, weight_decay = 0.1, maximize = true })
    end)
  end, tol = tol },
  nadam = { function() return trajectory(function(p) return optim.NAdam(p, { lr = 0.05 }) end) end, tol = tol },
  nadam_wd = { function()
    return trajectory(function(p) return optim.NAdam(p, { lr = 0.05, weight_decay = 0.1, momentum_decay = 0.01 }) end)
  end, tol = tol },
  radam = { function() return trajectory(function(p) return optim.RAdam(p, { lr = 0.05 }) end) end, tol = tol },
  radam_wd = { function()
    return trajectory(function(p) return optim.RAdam(p, { lr = 0.05, betas = { 0.5, 0.7 }, weight_decay = 0.1 }) end)
  end, tol = tol },
  rprop = { function() return trajectory(function(p) return optim.Rprop(p, { lr = 0.05 }) end) end, tol = tol },
  rprop_max = { function()
    return trajectory(function(p)
      return optim.Rprop(p, { lr = 0.02, etas = { 0.3, 1.5 }, step_sizes = { 1e-3, 0.1 }, maximize = true })
    end)
  end, tol = tol },
  asgd = { function() return trajectory(function(p) return optim.ASGD(p, { lr = 0.05, t0 = 5 }) end) end, tol = tol },
  asgd_wd = { function()
    return trajectory(function(p) return optim.ASGD(p, { lr = 0.05, lambd = 0.01, alpha = 0.5, weight_decay = 0.1 }) end)
  end, tol = tol },
  error_rprop_etas = function()
    return optim.Rprop({ torch.zeros(1, { requires_grad = true }) }, { etas = { 1.5, 1.2 } })
  end,
  error_nadam_lr = function() return optim.NAdam({ torch.zeros(1, { requires_grad = true }) }, { lr = -1.0 }) end,
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
  multiplicative_lr = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.1 }) end,
      function(o) return optim.lr_scheduler.MultiplicativeLR(o, function(e) return 0.9 + 0.01 * e end) end)
  end, tol = tol },
  constant_lr = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.1 }) end,
      function(o) return optim.lr_scheduler.ConstantLR(o, { factor = 0.25, total_iters = 6 }) end)
  end, tol = tol },
  linear_lr = { function()
    return trajectory(function(p) return optim.Adam(p, { lr = 0.1 }) end, function(o)
      return optim.lr_scheduler.LinearLR(o, { start_factor = 0.2, end_factor = 0.9, total_iters = 8 })
    end)
  end, tol = tol },
  polynomial_lr = { function()
    return trajectory(function(p) return optim.SGD(p, { lr = 0.1 }) end,
      function(o) return optim.lr_scheduler.PolynomialLR(o, { total_iters = 12, power = 2.0 }) end)
  end, tol = tol },
  error_constant_lr_factor = function()
    return optim.lr_scheduler.ConstantLR(optim.SGD({ torch.zeros(1, { requires_grad = true }) }, { lr = 0.1 }),
      { factor = 1.5 })
  end,
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
