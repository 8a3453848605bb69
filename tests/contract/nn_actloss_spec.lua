-- Activations, dropout variants and losses against PyTorch (cases/nn_actloss.py): float64
-- values and gradients within 1e-10, seeded masks drawn from the same stream, every reduction,
-- reprs, state_dict keys and errors. Class indices are the Python side's + 1.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn = torch.nn
local F = nn.functional

local D = torch.float64
local TOL = 1e-10

local function wave(shape, f, off, scale)
  local n = 1
  for i = 1, #shape do n = n * shape[i] end
  return torch.arange(n, { dtype = D }):reshape(shape):mul(f):add(off or 0.0):sin():mul(scale or 1.0)
end

local function weighted(t, k)
  k = k or 0
  return (t * wave(t.shape, 0.29 + 0.1 * k, 0.1 * k)):sum()
end

-- fn() -> one or several tensors; the outputs, then the gradients of leaves and params
local function run(fn, leaves, params)
  local outs = table.pack(fn())
  local loss
  for i = 1, outs.n do
    local o = outs[i]
    if o.requires_grad then
      local term = weighted(o, i - 1)
      loss = loss and loss + term or term
    end
  end
  if loss then loss:backward() end
  local res = {}
  for i = 1, outs.n do res[#res + 1] = outs[i]:detach() end
  for _, t in ipairs(leaves) do res[#res + 1] = t.grad end
  for _, p in ipairs(params or {}) do res[#res + 1] = p.grad end
  return res
end

local function params_of(m)
  if type(m) == "table" and m.parameters then return m:parameters() end
  return {}
end

local function act(make, shape, scale)
  local m = make()
  local x = wave(shape or { 3, 4 }, 0.37, 0.2, scale or 3.0):requires_grad_()
  return run(function() return m(x) end, { x }, params_of(m))
end

local function act_inplace(fn, shape, scale)
  local x = wave(shape or { 3, 4 }, 0.37, 0.2, scale or 3.0):requires_grad_()
  return run(function() return fn(x * 1) end, { x })
end

local function prelu_run(n, shape)
  local m = nn.PReLU(n, 0.1):double()
  torch.no_grad(function() m.weight:copy_(wave({ n }, 0.7, 0.3) * 0.5) end)
  return act(function() return m end, shape)
end

local function seeded(seed, fn)
  torch.manual_seed(seed)
  return fn()
end

local function train_mod(make, shape, seed)
  return function()
    torch.manual_seed(seed or 7)
    local m = make()
    m:train()
    local x = wave(shape, 0.37, 0.2, 2.0):requires_grad_()
    return run(function() return m(x) end, { x })
  end
end

local function two(make, shape, target)
  shape = shape or { 3, 4 }
  local x = wave(shape, 0.37, 0.2, 2.0):requires_grad_()
  local t = target or wave(shape, 0.53, 0.4)
  local m = make()
  return run(function() return m(x, t) end, { x }, params_of(m))
end

local SIGNS = torch.tensor({ 1.0, -1.0, -1.0, 1.0, 1.0, -1.0 }, { dtype = D })

local function three(make, shape, target)
  shape, target = shape or { 6 }, target or SIGNS
  local x1 = wave(shape, 0.37, 0.2, 2.0):requires_grad_()
  local x2 = wave(shape, 0.53, 0.4, 2.0):requires_grad_()
  local m = make()
  return run(function() return m(x1, x2, target) end, { x1, x2 })
end

local function triplet(make)
  local shape = { 4, 5 }
  local a = wave(shape, 0.37, 0.2, 2.0):requires_grad_()
  local p = wave(shape, 0.53, 0.4, 2.0):requires_grad_()
  local n = wave(shape, 0.71, -0.3, 2.0):requires_grad_()
  local m = make()
  return run(function() return m(a, p, n) end, { a, p, n })
end

local function gaussian(make, var_shape)
  local x = wave({ 3, 4 }, 0.37, 0.2, 2.0):requires_grad_()
  local t = wave({ 3, 4 }, 0.53, 0.4)
  local v = (wave(var_shape or { 3, 4 }, 0.71, -0.3):abs() + 0.1):requires_grad_()
  local m = make()
  return run(function() return m(x, t, v) end, { x, v })
end

local function poisson(make, log_input)
  local x = wave({ 3, 4 }, 0.37, 0.2, 2.0)
  if log_input == false then x = x:abs() + 0.1 end
  x:requires_grad_()
  local t = wave({ 3, 4 }, 0.53, 0.4):abs() * 3
  local m = make()
  return run(function() return m(x, t) end, { x })
end

local MC_TARGET = torch.tensor({ 3, 1, 4 })
local ML_TARGET = torch.tensor({ { 4, 1, 0, 2 }, { 2, 3, 4, 0 }, { 0, 2, 3, 4 } })
local ML_SOFT = torch.tensor({ { 1.0, 0.0, 0.0, 1.0 }, { 0.0, 1.0, 1.0, 1.0 }, { 0.0, 0.0, 0.0, 0.0 } }, { dtype = D })
local W4 = torch.tensor({ 1.0, 2.0, 0.5, 1.5 }, { dtype = D })
local function signs() return torch.sign(wave({ 3, 4 }, 0.53, 0.4)) end

-- CTC: the Python case's targets (0-based labels, blank 0) + 1
local function ctc_case(o)
  o = o or {}
  local T, N, C = 6, 3, 5
  local raw = wave({ T, N, C }, 0.37, 0.2, 2.0):requires_grad_()
  local lp = o.via_log_softmax and raw:log_softmax(3) or raw
  local tg = (o.targets or torch.tensor({ { 1, 2, 2 }, { 3, 1, 0 }, { 4, 4, 2 } })) + 1
  local il = torch.tensor({ 6, 5, 4 })
  local tl = o.lengths or torch.tensor({ 3, 2, 3 })
  local blank = (o.blank or 0) + 1
  if blank ~= 1 then tg = torch.where(tg:eq(blank), torch.ones_like(tg), tg) end
  if o.concat then
    local parts = {}
    for i = 1, N do parts[i] = tg[i]:narrow(1, 1, tl[i]:item()) end
    tg = torch.cat(parts)
  end
  local reduction = o.reduction or "mean"
  if o.unbatched then
    return run(function()
      return F.ctc_loss(lp:select(2, 1), tg[1]:narrow(1, 1, tl[1]:item()), il[1], tl[1], { reduction = reduction })
    end, { raw })
  end
  return run(function()
    return F.ctc_loss(lp, tg, il, tl, { blank = blank, reduction = reduction,
      zero_infinity = o.zero_infinity or false })
  end, { raw })
end

local function asm_run(head_bias, unbatched)
  torch.manual_seed(2)
  local m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 3, 6 }, { div_value = 2.0, head_bias = head_bias }):double()
  local x = wave({ 5, 8 }, 0.37, 0.2):requires_grad_()
  local t = torch.tensor({ 1, 5, 10, 3, 8 })
  local out, loss
  if unbatched then out, loss = m(x[2], t[2]) else out, loss = m(x, t) end
  (weighted(out) + loss):backward()
  local res = { out:detach(), loss:detach(), x.grad }
  for _, p in ipairs(m:parameters()) do res[#res + 1] = p.grad or torch.zeros_like(p) end
  return res
end

local function asm_log_prob()
  torch.manual_seed(2)
  local m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 3, 6 }, { div_value = 2.0 }):double()
  local x = wave({ 5, 8 }, 0.37, 0.2)
  return { m:log_prob(x), m:predict(x) }
end

local function init_of(make, seed)
  torch.manual_seed(seed or 5)
  local out = {}
  for _, p in ipairs(make():parameters()) do out[#out + 1] = p:detach() end
  return out
end

local function keys(sd)
  local out = {}
  for k in pairs(sd) do out[#out + 1] = k end
  table.sort(out)
  return out
end

local function f64(fn) return { fn, tol = TOL } end
local randn = torch.randn

local ACTS = {
  celu = function() return nn.CELU() end, celu_alpha = function() return nn.CELU(0.7) end,
  selu = function() return nn.SELU() end, glu = function() return nn.GLU() end,
  glu_dim1 = function() return nn.GLU(2) end, hardshrink = function() return nn.Hardshrink() end,
  hardshrink_lambd = function() return nn.Hardshrink(1.2) end, hardsigmoid = function() return nn.Hardsigmoid() end,
  hardswish = function() return nn.Hardswish() end, logsigmoid = function() return nn.LogSigmoid() end,
  rrelu_eval = function()
    return nn.RReLU():eval() end, rrelu_eval_bounds = function() return nn.RReLU(0.2, 0.4):eval()
  end,
  relu6 = function() return nn.ReLU6() end, softmin = function() return nn.Softmin(2) end,
  softmin_dim0 = function() return nn.Softmin(1) end, softshrink = function() return nn.Softshrink() end,
  softshrink_lambd = function() return nn.Softshrink(1.1) end, softsign = function() return nn.Softsign() end,
  tanhshrink = function() return nn.Tanhshrink() end, threshold = function() return nn.Threshold(0.4, -2.0) end,
  dropout1d_eval = function() return nn.Dropout1d():eval() end,
  alpha_dropout_eval = function() return nn.AlphaDropout(0.3):eval() end,
}

local cases = {}
for name, make in pairs(ACTS) do cases["act_" .. name] = f64(function() return act(make) end) end

local more = {
  act_softmax2d = f64(function() return act(function() return nn.Softmax2d() end, { 2, 3, 2, 2 }) end),
  act_softmax2d_3d = f64(function() return act(function() return nn.Softmax2d() end, { 3, 2, 2 }) end),
  act_relu6_big = f64(function() return act(function() return nn.ReLU6() end, nil, 8.0) end),
  act_hardswish_big = f64(function() return act(function() return nn.Hardswish() end, nil, 5.0) end),
  act_logsigmoid_big = f64(function() return act(function() return nn.LogSigmoid() end, nil, 50.0) end),
  softmax_implicit_dim_2d = f64(function() return act(function() return nn.Softmax() end) end),
  log_softmax_implicit_dim_3d = f64(function() return act(function() return nn.LogSoftmax() end, { 2, 3, 2 }) end),
  softmin_implicit_dim_1d = f64(function() return act(function() return nn.Softmin() end, { 5 }) end),
  softmin_implicit_dim_4d = f64(function() return act(function() return nn.Softmin() end, { 2, 3, 2, 2 }) end),
  prelu_one = f64(function() return prelu_run(1, { 3, 4 }) end),
  prelu_channels = f64(function() return prelu_run(4, { 2, 4, 3 }) end),
  prelu_channels_2d = f64(function() return prelu_run(4, { 3, 4 }) end),
  prelu_1d_input = f64(function() return prelu_run(1, { 5 }) end),
  prelu_init = function() return { nn.PReLU().weight:detach(), nn.PReLU(3, 0.1).weight:detach() } end,
  prelu_state_dict = function() return keys(nn.PReLU(3):state_dict()) end,

  f_celu_ = f64(function() return act_inplace(function(x) return F.celu_(x, 0.5) end) end),
  f_celu_inplace = f64(function() return act_inplace(function(x) return F.celu(x, 2.0, true) end) end),
  f_selu_ = f64(function() return act_inplace(F.selu_) end),
  f_elu_ = f64(function() return act_inplace(function(x) return F.elu_(x, 0.3) end) end),
  f_relu_ = f64(function() return act_inplace(F.relu_) end),
  f_leaky_relu_ = f64(function() return act_inplace(function(x) return F.leaky_relu_(x, 0.2) end) end),
  f_hardtanh_ = f64(function() return act_inplace(function(x) return F.hardtanh_(x, -0.5, 2.0) end) end),
  f_threshold_ = f64(function() return act_inplace(function(x) return F.threshold_(x, 0.5, 7.0) end) end),
  f_threshold_inplace = f64(function() return act_inplace(function(x) return F.threshold(x, 0.5, 7.0, true) end) end),
  f_rrelu_eval = f64(function() return act_inplace(function(x) return F.rrelu(x, 0.1, 0.3) end) end),
  f_rrelu__eval = f64(function() return act_inplace(function(x) return F.rrelu_(x) end) end),
  f_relu6_inplace = f64(function() return act_inplace(function(x) return F.relu6(x, true) end, nil, 8.0) end),
  f_hardsigmoid_inplace = f64(function()
    return act_inplace(function(x) return F.hardsigmoid(x, { inplace = true }) end, nil, 4.0)
  end),
  f_hardswish_inplace = f64(function() return act_inplace(function(x) return F.hardswish(x, true) end, nil, 4.0) end),
  f_softmin_dtype = f64(function() return F.softmin(wave({ 3, 4 }, 0.37):float(), { dim = 2, dtype = D }) end),
  f_softmax_dtype = f64(function() return F.softmax(wave({ 3, 4 }, 0.37):float(), -1, { dtype = D }) end),
  f_log_softmax_options = f64(function() return act_inplace(function(x) return F.log_softmax(x, { dim = -1 }) end) end),
  f_softmax_options = f64(function() return act_inplace(function(x) return F.softmax(x, { dim = 1 }) end) end),
  f_glu_dim = f64(function() return act_inplace(function(x) return F.glu(x, 1) end, { 4, 3 }) end),
  f_normalize = f64(function() return act_inplace(function(x) return F.normalize(x) end) end),
  f_normalize_p1_dim0 = f64(function()
    return act_inplace(function(x) return F.normalize(x, { p = 1.0, dim = 1 }) end)
  end),
  f_normalize_eps = f64(function()
    return act_inplace(function(x) return F.normalize(x * 1e-3, { eps = 0.01 }) end)
  end),
  f_prelu = f64(function()
    return act_inplace(function(x) return F.prelu(x, torch.tensor({ 0.1, 0.2, 0.3, 0.4 }, { dtype = D })) end,
      { 2, 4, 2 })
  end),

  rrelu_train = f64(train_mod(function() return nn.RReLU() end, { 3, 5 })),
  rrelu_train_bounds = f64(train_mod(function() return nn.RReLU(0.2, 0.6) end, { 4, 4 })),
  f_rrelu_train = f64(function()
    return seeded(3, function() return act_inplace(function(x) return F.rrelu(x, { training = true }) end) end)
  end),
  dropout1d_train = f64(train_mod(function() return nn.Dropout1d(0.4) end, { 3, 4, 5 })),
  dropout1d_unbatched = f64(train_mod(function() return nn.Dropout1d(0.5) end, { 6, 3 })),
  dropout2d_train = f64(train_mod(function() return nn.Dropout2d(0.3) end, { 2, 5, 2, 2 })),
  dropout2d_3d_input = f64(train_mod(function() return nn.Dropout2d(0.5) end, { 4, 5, 3 })),
  dropout3d_train = f64(train_mod(function() return nn.Dropout3d(0.5) end, { 2, 4, 2, 1, 2 })),
  dropout3d_unbatched = f64(train_mod(function() return nn.Dropout3d(0.5) end, { 6, 2, 1, 2 })),
  alpha_dropout_train = f64(train_mod(function() return nn.AlphaDropout(0.2) end, { 4, 6 })),
  feature_alpha_dropout_train = f64(train_mod(function() return nn.FeatureAlphaDropout(0.4) end, { 3, 4, 2 })),
  f_dropout2d_inplace = f64(function()
    return seeded(9, function()
      return act_inplace(function(x) return F.dropout2d(x, 0.5, true, true) end, { 2, 4, 3 })
    end)
  end),
  f_alpha_dropout_default_eval = f64(function() return act_inplace(function(x) return F.alpha_dropout(x, 0.5) end) end),
  f_feature_alpha_dropout_train = f64(function()
    return seeded(4, function()
      return act_inplace(function(x) return F.feature_alpha_dropout(x, 0.5, true) end, { 3, 4, 2 })
    end)
  end),
  gumbel_softmax = f64(function()
    return seeded(5, function() return act_inplace(function(x) return F.gumbel_softmax(x) end) end)
  end),
  gumbel_softmax_tau_dim = f64(function()
    return seeded(6, function()
      return act_inplace(function(x) return F.gumbel_softmax(x, { tau = 0.5, dim = 1 }) end)
    end)
  end),
  gumbel_softmax_hard = f64(function()
    return seeded(8, function() return act_inplace(function(x) return F.gumbel_softmax(x, { hard = true }) end) end)
  end),

  repr_activations = function()
    return tostring(nn.Sequential(nn.CELU(), nn.CELU(0.5, true), nn.SELU(), nn.SELU(true), nn.GLU(), nn.Hardshrink(),
      nn.Hardshrink(0.3), nn.Hardsigmoid(), nn.Hardswish(true), nn.LogSigmoid(), nn.PReLU(), nn.PReLU(3, 0.1),
      nn.RReLU(), nn.RReLU(0.1, 0.3, true), nn.ReLU6(), nn.ReLU6(true), nn.Softmin(), nn.Softmin(-1), nn.Softmax2d(),
      nn.Softshrink(), nn.Softshrink(1.5), nn.Softsign(), nn.Tanhshrink(), nn.Threshold(0.1, 20),
      nn.Threshold(0.5, 2.5, true)))
  end,
  repr_dropouts = function()
    return tostring(nn.Sequential(nn.Dropout1d(), nn.Dropout2d(0.2, true), nn.Dropout3d({ p = 0.1 }), nn.AlphaDropout(),
      nn.FeatureAlphaDropout(0.3)))
  end,
  repr_losses = function()
    return tostring(nn.Sequential(nn.CTCLoss(), nn.CosineEmbeddingLoss(), nn.GaussianNLLLoss(), nn.HingeEmbeddingLoss(),
      nn.MarginRankingLoss(), nn.MultiLabelMarginLoss(), nn.MultiLabelSoftMarginLoss(), nn.MultiMarginLoss(),
      nn.PoissonNLLLoss(), nn.SoftMarginLoss(), nn.TripletMarginLoss(), nn.TripletMarginWithDistanceLoss(),
      nn.CosineSimilarity(), nn.PairwiseDistance()))
  end,
  repr_asm = function() return tostring(nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 4, 8 })) end,
  repr_asm_bias = function()
    return tostring(nn.AdaptiveLogSoftmaxWithLoss(16, 20, { 5, 10, 15 }, { div_value = 2.0, head_bias = true }))
  end,
  defaults_losses = function()
    return { nn.CTCLoss().zero_infinity, nn.MarginRankingLoss().margin, nn.HingeEmbeddingLoss().margin,
      nn.MultiMarginLoss().p, nn.MultiMarginLoss().margin, nn.PoissonNLLLoss().log_input, nn.PoissonNLLLoss().eps,
      nn.GaussianNLLLoss().eps, nn.TripletMarginLoss().margin, nn.TripletMarginLoss().p, nn.CosineSimilarity().eps,
      nn.PairwiseDistance().eps, nn.RReLU().lower, nn.RReLU().upper, nn.MultiMarginLoss({ reduce = false }).reduction,
      nn.SoftMarginLoss({ size_average = false }).reduction }
  end,
  state_dict_weighted_loss = function() return keys(nn.MultiMarginLoss({ weight = W4 }):state_dict()) end,
  state_dict_asm = function()
    return keys(nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 4, 8 }, { head_bias = true }):state_dict())
  end,
  init_asm = function()
    return init_of(function()
      return nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 3, 6 }, { div_value = 2.0, head_bias = true })
    end)
  end,
  init_prelu = function() return init_of(function() return nn.PReLU(2, 0.3) end) end,

  error_glu_odd = { function() return F.glu(randn(2, 3)) end, expect = H.dims_1based },
  error_glu_scalar = function() return F.glu(torch.tensor(1.0)) end,
  error_prelu_mismatch = function() return F.prelu(randn(2, 4), torch.ones(3)) end,
  error_prelu_weight_dims = function() return F.prelu(randn(2, 4), torch.ones(1, 1)) end,
  error_softmax2d = function() return nn.Softmax2d()(randn(2)) end,
  error_rrelu_bounds = function() return F.rrelu(randn(3), 0.5, 0.2, true) end,
  error_softshrink_lambd = function() return F.softshrink(randn(3), -1.0) end,
  error_celu_alpha = function() return F.celu(randn(3), 0.0) end,
  error_threshold_missing = function() return nn.Threshold(0.1) end,
  error_dropout1d_rank = function() return F.dropout1d(randn(4)) end,
  error_dropout2d_p = function() return F.dropout2d(randn(2, 3, 4), 1.5) end,
  error_dropout_module_p = function() return nn.AlphaDropout(-0.5) end,
  error_margin_ranking_dims = function() return F.margin_ranking_loss(randn(3), randn(3), randn(3, 1)) end,
  error_multi_margin_p = function() return F.multi_margin_loss(randn(3, 4), MC_TARGET, { p = 3 }) end,
  cross_entropy_byte_target_smoothing = function()
    return F.cross_entropy(randn(3, 4, { dtype = D }), MC_TARGET:byte(), { label_smoothing = 0.1 })
  end,
  error_cross_entropy_byte_target_smoothing_weight = function()
    return F.cross_entropy(randn(3, 4), MC_TARGET:byte(), { weight = torch.ones(4), label_smoothing = 0.1 })
  end,
  error_multi_margin_int_target = function() return F.multi_margin_loss(randn(3, 4), MC_TARGET:int()) end,
  error_multi_margin_byte_target = function() return F.multi_margin_loss(randn(3, 4), MC_TARGET:byte()) end,
  error_multi_margin_size_before_dtype = function()
    return F.multi_margin_loss(randn(3, 4), MC_TARGET:narrow(1, 1, 2):int())
  end,
  error_multi_margin_3d = function() return F.multi_margin_loss(randn(2, 3, 4), MC_TARGET:narrow(1, 1, 2)) end,
  error_multi_margin_empty = function() return F.multi_margin_loss(randn(3, 0), MC_TARGET) end,
  error_multi_margin_target_2d = function() return F.multi_margin_loss(randn(4), MC_TARGET:narrow(1, 1, 1):view(1, 1)) end,
  error_multilabel_margin_byte_target = function()
    return F.multilabel_margin_loss(randn(3, 4), ML_TARGET:clamp(1):byte())
  end,
  error_gaussian_var_size = function() return F.gaussian_nll_loss(randn(3, 4), randn(3, 4), torch.ones(2, 4)) end,
  error_gaussian_var_negative = function() return F.gaussian_nll_loss(randn(3, 4), randn(3, 4), -torch.ones(3, 4)) end,
  error_reduction = function() return F.soft_margin_loss(randn(3), randn(3), { reduction = "max" }) end,
  error_triplet_dims = function() return F.triplet_margin_loss(randn(3, 4), randn(3, 4), randn(4)) end,
  error_soft_margin_size = { function() return F.soft_margin_loss(randn(3), randn(4)) end, expect = H.dims_1based },
  error_asm_cutoffs = function() return nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 4, 4 }) end,
  error_asm_cutoffs_range = function() return nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 4, 10 }) end,
  error_asm_batch = function()
    return nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 4 })(randn(3, 8), torch.tensor({ 2, 3 }))
  end,
  error_asm_target_range = {
    function() return nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 4 })(randn(2, 8), torch.tensor({ 2, 11 })) end,
    expect = function() return "Target values should be in [1, 10], but values in range [2, 11] were found. " end },
  error_ctc_blank = function()
    return F.ctc_loss(randn(6, 3, 5):log_softmax(3), torch.full({ 3, 2 }, 2), torch.tensor({ 6, 6, 6 }),
      torch.tensor({ 2, 2, 2 }), { blank = 6 })
  end,
  error_ctc_input_lengths = function()
    return F.ctc_loss(randn(6, 3, 5):log_softmax(3), torch.full({ 3, 2 }, 2), torch.tensor({ 6, 6 }),
      torch.tensor({ 2, 2, 2 }))
  end,
  error_ctc_target_lengths = function()
    return F.ctc_loss(randn(6, 3, 5):log_softmax(3), torch.full({ 3, 2 }, 2), torch.tensor({ 6, 6, 6 }),
      torch.tensor({ 2, 2 }))
  end,
  error_ctc_input_too_long = function()
    return F.ctc_loss(randn(6, 3, 5):log_softmax(3), torch.full({ 3, 2 }, 2), { 7, 6, 6 }, { 2, 2, 2 })
  end,
  error_ctc_targets_short = { function()
    return F.ctc_loss(randn(6, 3, 5):log_softmax(3), torch.full({ 3, 2 }, 2), { 6, 6, 6 }, { 3, 2, 2 })
  end, expect = H.dims_1based },
  error_ctc_concat_size = { function()
    return F.ctc_loss(randn(6, 3, 5):log_softmax(3), torch.full({ 5 }, 2), { 6, 6, 6 }, { 3, 2, 2 })
  end, expect = H.dims_1based },
  error_ctc_reduction = function()
    return F.ctc_loss(randn(6, 3, 5):log_softmax(3), torch.full({ 3, 2 }, 2), { 6, 6, 6 }, { 2, 2, 2 },
      { reduction = "foo" })
  end,
  error_cosine_embedding_target = function()
    return F.cosine_embedding_loss(randn(3, 2), randn(3, 2), torch.ones(3, 1))
  end,
  error_threshold_args = function() return F.threshold(randn(3)) end,
}
for k, v in pairs(more) do cases[k] = v end

for _, r in ipairs { "mean", "sum", "none" } do
  local R = { reduction = r }
  local function with(t)
    t.reduction = r
    return t
  end
  cases["loss_margin_ranking_" .. r] = f64(function()
    return three(function() return nn.MarginRankingLoss(0.3, R) end)
  end)
  cases["loss_cosine_embedding_" .. r] = f64(function()
    return three(function() return nn.CosineEmbeddingLoss(0.2, R) end, { 6, 3 }, SIGNS)
  end)
  cases["loss_hinge_embedding_" .. r] = f64(function()
    return two(function() return nn.HingeEmbeddingLoss(0.8, R) end, nil, signs())
  end)
  cases["loss_soft_margin_" .. r] = f64(function()
    return two(function() return nn.SoftMarginLoss(R) end, nil, signs())
  end)
  cases["loss_multilabel_margin_" .. r] = f64(function()
    return two(function() return nn.MultiLabelMarginLoss(R) end, nil, ML_TARGET)
  end)
  cases["loss_multilabel_soft_margin_" .. r] = f64(function()
    return two(function() return nn.MultiLabelSoftMarginLoss(with { weight = W4 }) end, nil, ML_SOFT)
  end)
  cases["loss_multi_margin_" .. r] = f64(function()
    return two(function() return nn.MultiMarginLoss(R) end, nil, MC_TARGET)
  end)
  cases["loss_multi_margin_p2_weight_" .. r] = f64(function()
    return two(function() return nn.MultiMarginLoss(2, 0.7, W4, R) end, nil, MC_TARGET)
  end)
  cases["loss_poisson_" .. r] = f64(function() return poisson(function() return nn.PoissonNLLLoss(R) end) end)
  cases["loss_poisson_full_" .. r] = f64(function()
    return poisson(function() return nn.PoissonNLLLoss(with { log_input = false, full = true }) end, false)
  end)
  cases["loss_gaussian_" .. r] = f64(function() return gaussian(function() return nn.GaussianNLLLoss(R) end) end)
  cases["loss_gaussian_full_homo_" .. r] = f64(function()
    return gaussian(function() return nn.GaussianNLLLoss(with { full = true, eps = 0.2 }) end, { 3 })
  end)
  cases["loss_triplet_" .. r] = f64(function() return triplet(function() return nn.TripletMarginLoss(R) end) end)
  cases["loss_triplet_swap_p1_" .. r] = f64(function()
    return triplet(function() return nn.TripletMarginLoss(with { margin = 2.0, p = 1.0, swap = true }) end)
  end)
  cases["loss_triplet_distance_" .. r] = f64(function()
    return triplet(function() return nn.TripletMarginWithDistanceLoss(R) end)
  end)
  cases["loss_triplet_distance_cos_swap_" .. r] = f64(function()
    return triplet(function()
      return nn.TripletMarginWithDistanceLoss(with { distance_function = function(a, b)
        return 1.0 - F.cosine_similarity(a, b)
      end, margin = 0.5, swap = true })
    end)
  end)
  cases["loss_nll2d_" .. r] = f64(function()
    return two(function() return nn.NLLLoss2d(with { weight = W4:narrow(1, 1, 3) }) end, { 2, 3, 2, 2 },
      torch.tensor({ { { 0, 2 }, { 1, 1 } }, { { 2, 0 }, { 0, 1 } } }) + 1)
  end)
  cases["loss_ctc_" .. r] = f64(function() return ctc_case({ reduction = r }) end)
  cases["loss_ctc_concat_" .. r] = f64(function()
    return ctc_case({ reduction = r, concat = true, via_log_softmax = true })
  end)
end

local rest = {
  loss_legacy_size_average = f64(function()
    return two(function() return nn.SoftMarginLoss({ size_average = false }) end, nil, signs())
  end),
  loss_legacy_reduce = f64(function() return three(function() return nn.MarginRankingLoss({ reduce = false }) end) end),
  f_legacy_reduce = f64(function()
    return two(function() return function(x, t) return F.hinge_embedding_loss(x, t, 1.0, true, false) end end, nil,
      signs())
  end),
  loss_multi_margin_1d = f64(function()
    return two(function() return nn.MultiMarginLoss() end, { 4 }, torch.tensor(3))
  end),
  loss_multilabel_margin_1d = f64(function()
    return two(function() return nn.MultiLabelMarginLoss() end, { 4 }, torch.tensor({ 3, 1, 0, 4 }))
  end),
  loss_ctc_log_softmax = f64(function() return ctc_case({ via_log_softmax = true }) end),
  loss_ctc_blank = f64(function() return ctc_case({ blank = 4, via_log_softmax = true }) end),
  loss_ctc_zero_length = f64(function()
    return ctc_case({ reduction = "sum", lengths = torch.tensor({ 3, 0, 1 }) })
  end),
  loss_ctc_zero_infinity = f64(function()
    return ctc_case({ zero_infinity = true, targets = torch.tensor({ { 1, 1, 1 }, { 3, 1, 0 }, { 4, 4, 2 } }),
      lengths = torch.tensor({ 3, 2, 3 }) })
  end),
  loss_ctc_infinite = f64(function()
    return ctc_case({ reduction = "none", targets = torch.tensor({ { 1, 1, 1 }, { 3, 1, 0 }, { 4, 4, 4 } }) })[1]
  end),
  loss_ctc_unbatched = f64(function() return ctc_case({ reduction = "none", unbatched = true }) end),
  torch_ctc_loss = f64(function()
    return torch.ctc_loss(wave({ 4, 2, 3 }, 0.37):log_softmax(3), torch.tensor({ { 2, 3 }, { 3, 3 } }), { 4, 4 },
      { 2, 2 })
  end),
  f_cosine_similarity = f64(function()
    return three(function() return function(a, b) return F.cosine_similarity(a, b) end end, { 3, 4 })
  end),
  f_cosine_similarity_dim0 = f64(function()
    return three(function() return function(a, b) return F.cosine_similarity(a, b, 1, 1e-3) end end, { 3, 4 })
  end),
  f_pairwise_distance = f64(function()
    return three(function() return function(a, b) return F.pairwise_distance(a, b, 3.0, 1e-4, true) end end, { 3, 4 })
  end),
  f_pdist = f64(function() return act_inplace(function(x) return F.pdist(x) end, { 4, 3 }) end),
  f_pdist_p1 = f64(function() return act_inplace(function(x) return F.pdist(x, 1.0) end, { 4, 3 }) end),
  mod_cosine_similarity = f64(function()
    local m = nn.CosineSimilarity(1)
    return three(function() return function(a, b) return m(a, b) end end, { 3, 4 })
  end),
  mod_pairwise_distance = f64(function()
    local m = nn.PairwiseDistance(1.0, { keepdim = true })
    return three(function() return function(a, b) return m(a, b) end end, { 3, 4 })
  end),
  asm_forward = f64(function() return asm_run(false) end),
  asm_head_bias = f64(function() return asm_run(true) end),
  asm_unbatched = f64(function() return asm_run(false, true) end),
  asm_log_prob_predict = f64(asm_log_prob),
}
for k, v in pairs(rest) do cases[k] = v end

H.run("nn_actloss", cases)
