-- nn/functional.lua: torch.nn.functional. Losses and activations written with differentiable
-- ops, so autograd derives them; class targets are 1-based, as every index in mindtorch.
return function(torch, nn)
  local F = {}

  local args = require "mindtorch._args"
  local options = args.options
  -- a function's trailing options table, checked against the names it takes (a tail call:
  -- errors point at the function's caller)
  local function opts_of(fname, t, spec) return options(fname, t, spec) end
  local any = "any"
  local reduction_only = { reduction = any }

  local function reduce(loss, reduction)
    reduction = reduction or "mean"
    if reduction == "mean" then return loss:mean() end
    if reduction == "sum" then return loss:sum() end
    if reduction == "none" then return loss end
    error(reduction .. " is not a valid value for reduction", 3)
  end

  -- ---- layers -----------------------------------------------------------------------------------
  function F.linear(input, weight, bias)
    if input:dim() == 2 and bias ~= nil then return torch.addmm(bias, input, weight:t()) end
    local out = input:matmul(weight:t())
    if bias ~= nil then out = out + bias end
    return out
  end

  local dropout_options = { p = any, training = any, inplace = any }
  function F.dropout(input, p, training, inplace)
    if type(p) == "table" and getmetatable(p) == nil and p[1] == nil then -- dropout(x, {p =, training =, inplace =})
      local o = opts_of("dropout", p, dropout_options)
      p, training, inplace = o.p, o.training, o.inplace
    end
    p = p or 0.5
    if training == nil then training = true end
    if type(p) ~= "number" then
      error(("'<' not supported between instances of '%s' and 'float'"):format(require("mindtorch._args").py_type(p)), 2)
    end
    if p < 0 or p > 1 then error(("dropout probability has to be between 0 and 1, but got %s"):format(p), 2) end
    if inplace then return torch.dropout_(input, p, training) end
    return torch.dropout(input, p, training)
  end

  -- bilinear: y = x1^T A x2 + b for each of the out_features matrices A of weight (out, in1, in2)
  function F.bilinear(input1, input2, weight, bias)
    local out, in1, in2 = weight.shape[1], weight.shape[2], weight.shape[3]
    local lead = { table.unpack(input1.shape, 1, input1:dim() - 1) }
    local x1, x2 = input1:reshape(-1, in1), input2:reshape(-1, in2)
    -- x1 @ (in1, out * in2), then the in2 terms dotted with x2
    local t = x1:matmul(weight:permute(2, 1, 3):reshape(in1, out * in2)):view(-1, out, in2)
    local y = (t * x2:unsqueeze(2)):sum(3)
    if bias ~= nil then y = y + bias end
    lead[#lead + 1] = out
    return y:view(lead)
  end

  -- F.pad: nn/padding.lua

  function F.flatten(input, start_dim, end_dim) return input:flatten(start_dim or 1, end_dim or -1) end

  -- conv_tbc(input (time, batch, in), weight (kernel, in, out), bias (out), pad = 0)
  function F.conv_tbc(input, weight, bias, pad) return torch.conv_tbc(input, weight, bias, pad or 0) end

  function F.one_hot(t, num_classes)
    num_classes = num_classes or t:max():item()
    local out = torch.zeros(table.unpack(t.shape), num_classes, { dtype = torch.int64 })
    return out:scatter_(t:dim() + 1, t:unsqueeze(-1), 1)
  end

  -- ---- activations ---------------------------------------------------------------------------------
  local function maybe_inplace(name)
    return function(input, inplace, ...)
      if type(inplace) == "table" then inplace = inplace.inplace end
      if inplace then return input[name .. "_"](input, ...) end
      return input[name](input, ...)
    end
  end
  F.relu = maybe_inplace("relu")
  F.sigmoid = function(x) return x:sigmoid() end
  F.tanh = function(x) return x:tanh() end
  F.silu = maybe_inplace("silu")
  function F.gelu(x, opts) return x:gelu({ approximate = opts_of("gelu", opts, { approximate = any }).approximate or "none" }) end
  function F.leaky_relu(x, negative_slope, inplace)
    if type(negative_slope) == "table" then negative_slope, inplace = negative_slope.negative_slope, negative_slope.inplace end
    negative_slope = negative_slope or 0.01
    if inplace then return x:leaky_relu_(negative_slope) end
    return x:leaky_relu(negative_slope)
  end
  function F.elu(x, alpha, inplace)
    if type(alpha) == "table" then alpha, inplace = alpha.alpha, alpha.inplace end
    alpha = alpha or 1.0
    if inplace then return x:elu_(alpha) end
    return x:elu(alpha)
  end
  function F.softplus(x, beta, threshold)
    if type(beta) == "table" then beta, threshold = beta.beta, beta.threshold end
    return x:softplus(beta or 1, threshold or 20)
  end
  function F.hardtanh(x, min_val, max_val, inplace)
    if type(min_val) == "table" then min_val, max_val, inplace = min_val.min_val, min_val.max_val, min_val.inplace end
    min_val, max_val = min_val or -1.0, max_val or 1.0
    if inplace then return x:hardtanh_(min_val, max_val) end
    return x:hardtanh(min_val, max_val)
  end
  function F.mish(x) return x * x:softplus():tanh() end
  function F.softmax(x, dim, opts) return x:softmax(dim, opts_of("softmax", opts, { dtype = any }).dtype) end
  function F.log_softmax(x, dim, opts) return x:log_softmax(dim, opts_of("log_softmax", opts, { dtype = any }).dtype) end

  -- ---- losses ------------------------------------------------------------------------------------------
  local function check_same_size(input, target)
    if tostring(input.shape) ~= tostring(target.shape) then
      error(("Using a target size (%s) that is different to the input size (%s) is deprecated. Please ensure they "
        .. "have the same size."):format(tostring(target.shape), tostring(input.shape)), 3)
    end
  end

  function F.mse_loss(input, target, opts)
    return reduce((input - target) ^ 2, opts_of("mse_loss", opts, reduction_only).reduction)
  end
  function F.l1_loss(input, target, opts)
    return reduce((input - target):abs(), opts_of("l1_loss", opts, reduction_only).reduction)
  end
  local smooth_l1_loss_options = { reduction = any, beta = any }
  function F.smooth_l1_loss(input, target, opts)
    opts = opts_of("smooth_l1_loss", opts, smooth_l1_loss_options)
    local beta = opts.beta or 1.0
    local d = (input - target):abs()
    if beta == 0 then return reduce(d, opts.reduction) end
    local loss = torch.where(d:lt(beta), d ^ 2 * (0.5 / beta), d - 0.5 * beta)
    return reduce(loss, opts.reduction)
  end
  local huber_loss_options = { reduction = any, delta = any }
  function F.huber_loss(input, target, opts)
    opts = opts_of("huber_loss", opts, huber_loss_options)
    local delta = opts.delta or 1.0
    local d = (input - target):abs()
    local loss = torch.where(d:le(delta), d ^ 2 * 0.5, (d - 0.5 * delta) * delta)
    return reduce(loss, opts.reduction)
  end

  -- nll_loss(input, target, {weight=, ignore_index=-100, reduction="mean"}): input holds
  -- log-probabilities with classes on dim 2 ([N, C], [N, C, d1, ...]) or dim 1 ([C])
  local nll_loss_options = { reduction = any, weight = any, ignore_index = any }
  local reduction_enum = { none = 0, mean = 1, sum = 2 }

  -- the loss composed of ops, for devices whose modules have no nll_loss kernel
  local function nll_loss_composed(input, target, weight, ignore, reduction)
    -- int64 targets, or uint8 ones for (C) and (N, C) inputs (PyTorch's nll_loss_forward takes
    -- Byte, its nll_loss2d does not)
    if target.dtype ~= torch.uint8 or input:dim() > 2 then args.long_targets(target, 3) end
    target = target:to(torch.int64)
    local cdim = input:dim() == 1 and 1 or 2
    local C = input.shape[cdim]
    if input:dim() >= 2 and target.shape[1] ~= input.shape[1] then
      error(("Expected input batch_size (%d) to match target batch_size (%d)."):format(input.shape[1], target.shape[1]), 3)
    end
    local keep = target:ne(ignore)
    local safe = target:masked_fill(keep:logical_not(), 1)
    -- gather checks the bounds; its error is reworded as the native kernel words it (the check
    -- costs nothing on the common path)
    local ok, picked = pcall(input.gather, input, cdim, safe:unsqueeze(cdim))
    if not ok then
      local bad = torch.logical_or(safe:lt(1), safe:gt(C))
      if bad:any():item() then
        error(("Target %s is out of bounds. (Class indices are 1-based: 1 to %d.)"):format(
          tostring(safe:masked_select(bad)[1]:item()), C), 0)
      end
      error(picked, 0)
    end
    picked = -picked:squeeze(cdim)
    local w = keep:to(input.dtype)
    if weight ~= nil then w = w * weight:gather(1, safe:reshape(-1)):view(safe.shape) end
    local loss = picked * w
    if reduction == "none" then return loss end
    if reduction == "sum" then return loss:sum() end
    return loss:sum() / w:sum()
  end

  function F.nll_loss(input, target, opts)
    opts = opts_of("nll_loss", opts, nll_loss_options)
    local ignore = opts.ignore_index or -100
    local reduction = opts.reduction or "mean"
    local enum = reduction_enum[reduction]
    if enum == nil then error(tostring(reduction) .. " is not a valid value for reduction", 2) end
    local dev = input.device.type
    if dev == "cpu" or dev == "meta" then
      return torch.nll_loss_nd(input, target, opts.weight, enum, ignore)
    end
    -- not a tail call: the composition's errors name the caller of F.nll_loss (level 3)
    local loss = nll_loss_composed(input, target, opts.weight, ignore, reduction)
    return loss
  end

  -- cross_entropy(input, target, {weight=, ignore_index=-100, reduction="mean",
  -- label_smoothing=0}): target holds class indices (1-based) or class probabilities
  local cross_entropy_options = { reduction = any, weight = any, ignore_index = any, label_smoothing = any }
  function F.cross_entropy(input, target, opts)
    opts = opts_of("cross_entropy", opts, cross_entropy_options)
    local cdim = input:dim() == 1 and 1 or 2
    local logp = input:log_softmax(cdim)
    local eps = opts.label_smoothing or 0.0
    if eps < 0 or eps > 1 then error(("label_smoothing must be between 0.0 and 1.0. Got: %s"):format(eps), 2) end
    local reduction = opts.reduction or "mean"
    local C = input.shape[cdim]
    if target:is_floating_point() then -- class probabilities
      local t = target
      if eps > 0 then t = t * (1 - eps) + eps / C end
      local terms = logp * t
      if opts.weight ~= nil then
        local shape = {}
        for i = 1, input:dim() do shape[i] = i == cdim and C or 1 end
        terms = terms * opts.weight:view(shape)
      end
      local loss = -terms:sum(cdim)
      if reduction == "mean" then return loss:sum() / (input:numel() / C) end
      return reduce(loss, reduction)
    end
    local nll = F.nll_loss(logp, target, { weight = opts.weight, ignore_index = opts.ignore_index, reduction = reduction })
    if eps == 0 then return nll end
    local ignore = opts.ignore_index or -100
    local keep = target:ne(ignore)
    local smooth
    if opts.weight ~= nil then
      local shape = {}
      for i = 1, input:dim() do shape[i] = i == cdim and C or 1 end
      smooth = -(logp * opts.weight:view(shape)):sum(cdim)
    else
      smooth = -logp:sum(cdim)
    end
    smooth = smooth * keep:to(smooth.dtype)
    if reduction == "mean" then
      if opts.weight ~= nil then
        local safe = target:masked_fill(keep:logical_not(), 1)
        -- gather, as PyTorch's: it refuses a uint8 target here ("gather(): Expected dtype int64")
        local wsum = (opts.weight:gather(1, safe:reshape(-1)):view(safe.shape) * keep:to(smooth.dtype)):sum()
        smooth = smooth:sum() / wsum
      else
        smooth = smooth:sum() / keep:sum()
      end
    elseif reduction == "sum" then
      smooth = smooth:sum()
    end
    return nll * (1 - eps) + smooth * (eps / C)
  end

  local binary_cross_entropy_options = { reduction = any, weight = any }
  function F.binary_cross_entropy(input, target, opts)
    opts = opts_of("binary_cross_entropy", opts, binary_cross_entropy_options)
    check_same_size(input, target)
    -- log clamped at -100, as PyTorch does (a probability of exactly 0 or 1 stays finite)
    local loss = -(target * input:log():clamp(-100) + (1 - target) * (1 - input):log():clamp(-100))
    if opts.weight ~= nil then loss = loss * opts.weight end
    return reduce(loss, opts.reduction)
  end

  local binary_cross_entropy_with_logits_options = { reduction = any, weight = any, pos_weight = any }
  function F.binary_cross_entropy_with_logits(input, target, opts)
    opts = opts_of("binary_cross_entropy_with_logits", opts, binary_cross_entropy_with_logits_options)
    check_same_size(input, target)
    -- stable: max(-x, 0) + log(1 + exp(-|x|)) is log(1 + exp(-x))
    local log_sig_neg = (-input):clamp(0) + (-input:abs()):exp():log1p()
    local loss
    if opts.pos_weight ~= nil then
      local lw = (opts.pos_weight - 1) * target + 1
      loss = (1 - target) * input + lw * log_sig_neg
    else
      loss = (1 - target) * input + log_sig_neg
    end
    if opts.weight ~= nil then loss = loss * opts.weight end
    return reduce(loss, opts.reduction)
  end

  local kl_div_options = { reduction = any, log_target = any }
  function F.kl_div(input, target, opts)
    opts = opts_of("kl_div", opts, kl_div_options)
    local loss
    if opts.log_target then
      loss = target:exp() * (target - input)
    else -- target * (log target - input), 0 where target is 0
      local safe = torch.where(target:gt(0), target, torch.ones_like(target))
      loss = torch.where(target:gt(0), target * (safe:log() - input), torch.zeros_like(input * target))
    end
    local reduction = opts.reduction or "mean"
    if reduction == "batchmean" then return loss:sum() / input.shape[1] end
    return reduce(loss, reduction)
  end

  nn.functional = F
  return F
end
