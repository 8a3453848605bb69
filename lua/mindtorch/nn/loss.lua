-- nn/loss.lua: the losses beyond functional.lua's (margin, embedding, Poisson and Gaussian NLL,
-- multi-label, CTC), the distance modules and AdaptiveLogSoftmaxWithLoss, as modules and
-- nn.functional forms with PyTorch 1.13's arguments, defaults and errors. Class indices are
-- 1-based as everywhere in mindtorch: targets of multi_margin_loss, multilabel_margin_loss
-- (a value below 1 ends a sample's list, PyTorch's -1), ctc_loss (labels and its blank, which
-- defaults to 1, PyTorch's 0) and AdaptiveLogSoftmaxWithLoss.
return function(torch, nn)
  local F, Module = nn.functional, nn.Module
  local args = require "mindtorch._args"

  -- ---- reductions ----------------------------------------------------------------------------------
  local ENUM = { none = 0, mean = 1, sum = 2 }
  -- PyTorch's legacy size_average/reduce mapping (each left out counts as true), with its warning
  local function legacy(size_average, reduce)
    warn("size_average and reduce args will be deprecated, please use reduction='",
      (size_average ~= false and reduce ~= false) and "mean" or (reduce ~= false and "sum" or "none"), "' instead.")
    if size_average == nil then size_average = true end
    if reduce == nil then reduce = true end
    if size_average and reduce then return "mean" end
    if reduce then return "sum" end
    return "none"
  end
  local function reduction_of(o, level)
    local r = o.reduction or "mean"
    if o.size_average ~= nil or o.reduce ~= nil then r = legacy(o.size_average, o.reduce) end
    if ENUM[r] == nil then error(("%s is not a valid value for reduction"):format(tostring(r)), level + 1) end
    return r
  end
  local function reduce(loss, r)
    if r == "mean" then return loss:mean() end
    if r == "sum" then return loss:sum() end
    return loss
  end
  local function sizes(t) return "[" .. table.concat(t:size(), ", ") .. "]" end

  -- def(name, ntensors, names, defaults, fn): F[name](t1, ..., tn, <names positionally or by name>);
  -- fn(t1, ..., tn, o) with o the parsed options
  local function def(name, ntensors, names, defaults, fn)
    F[name] = function(...)
      local tensors = { ... }
      local o = args.parse_at(2, name, names, defaults, select(ntensors + 1, ...))
      tensors[ntensors + 1] = o
      return fn(table.unpack(tensors, 1, ntensors + 1))
    end
  end
  local legacy_names = { "size_average", "reduce", "reduction" }
  local function with_legacy(names)
    local out = { table.unpack(names) }
    for _, n in ipairs(legacy_names) do out[#out + 1] = n end
    return out
  end

  -- ---- distances -------------------------------------------------------------------------------------
  def("cosine_similarity", 2, { "dim", "eps" }, { dim = 2, eps = 1e-8 }, function(x1, x2, o)
    return torch.cosine_similarity(x1, x2, o.dim, o.eps)
  end)
  def("pairwise_distance", 2, { "p", "eps", "keepdim" }, { p = 2.0, eps = 1e-6, keepdim = false }, function(x1, x2, o)
    return torch.pairwise_distance(x1, x2, o.p, o.eps, o.keepdim)
  end)
  def("pdist", 1, { "p" }, { p = 2.0 }, function(x, o) return torch.pdist(x, o.p) end)

  -- ---- margin and embedding losses ----------------------------------------------------------------------
  def("margin_ranking_loss", 3, with_legacy { "margin" }, { margin = 0.0 }, function(x1, x2, target, o)
    local r = reduction_of(o, 3)
    if x1:dim() ~= x2:dim() or x1:dim() ~= target:dim() then
      error(("margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
        .. "torch.Size(%s), input2: torch.Size(%s), target: torch.Size(%s) "):format(sizes(x1), sizes(x2),
          sizes(target)), 3)
    end
    return torch.margin_ranking_loss(x1, x2, target, o.margin, ENUM[r])
  end)
  def("hinge_embedding_loss", 2, with_legacy { "margin" }, { margin = 1.0 }, function(input, target, o)
    return torch.hinge_embedding_loss(input, target, o.margin, ENUM[reduction_of(o, 3)])
  end)
  def("cosine_embedding_loss", 3, with_legacy { "margin" }, { margin = 0.0 }, function(x1, x2, target, o)
    return torch.cosine_embedding_loss(x1, x2, target, o.margin, ENUM[reduction_of(o, 3)])
  end)
  def("soft_margin_loss", 2, legacy_names, nil, function(input, target, o)
    return reduce((-input * target):exp():log1p(), reduction_of(o, 3))
  end)
  def("triplet_margin_loss", 3, with_legacy { "margin", "p", "eps", "swap" },
    { margin = 1.0, p = 2.0, eps = 1e-6, swap = false }, function(a, p, n, o)
      return torch.triplet_margin_loss(a, p, n, o.margin, o.p, o.eps, o.swap, ENUM[reduction_of(o, 3)])
    end)
  def("triplet_margin_with_distance_loss", 3, { "distance_function", "margin", "swap", "reduction" },
    { margin = 1.0, swap = false }, function(a, p, n, o)
      local r = reduction_of(o, 3)
      local dist = o.distance_function or function(x, y) return torch.pairwise_distance(x, y) end
      local dpos, dneg = dist(a, p), dist(a, n)
      if o.swap then dneg = torch.min(dneg, dist(p, n)) end
      return reduce((dpos - dneg + o.margin):clamp_min(0.0), r)
    end)

  -- multi_margin_loss(input, target, p = 1, margin = 1, weight): sum over i ~= y of
  -- max(0, margin - x[y] + x[i])^p (times weight[y]) / C, per sample
  def("multi_margin_loss", 2, with_legacy { "p", "margin", "weight" }, { p = 1, margin = 1.0 },
    function(input, target, o)
      local r = reduction_of(o, 3)
      if o.p ~= 1 and o.p ~= 2 then error("only p == 1 and p == 2 supported", 3) end
      if o.weight ~= nil and o.weight:dim() ~= 1 then error("weight must be one-dimensional", 3) end
      local nd = input:dim()
      if not ((nd == 2 and input:size(2) ~= 0) or (nd == 1 and input:size(1) ~= 0) or nd == 0) then
        error(("Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s"):format(sizes(input)), 3)
      end
      local x = nd <= 1 and input:reshape(1, -1) or input
      local nframe, dim = x:size(1), x:size(2)
      if target:numel() ~= nframe or target:dim() > 1 then
        error(("inconsistent target size, got: %s"):format(sizes(target)), 3)
      end
      args.long_targets(target, 3)
      local t = target:reshape(-1, 1)
      if t:numel() > 0 and (t:min():item() < 1 or t:max():item() > dim) then error("target out of range", 3) end
      local xy = x:gather(2, t)
      local z = (x - xy + o.margin):clamp_min(0)
      if o.p == 2 then z = z * z end
      if o.weight ~= nil then z = z * o.weight:index_select(1, t:reshape(-1)):reshape(-1, 1) end
      -- the target's own term is left out
      z = z:masked_fill(torch.zeros_like(x, { dtype = torch.bool }):scatter_(2, t, true), 0)
      local loss = z:sum(2) / dim
      if input:dim() <= 1 then loss = loss:reshape({}) else loss = loss:reshape(-1) end
      return reduce(loss, r)
    end)

  -- multilabel_margin_loss(input, target): target holds each sample's classes (1-based) up to the
  -- first value below 1; sum over its classes j and the other classes i of max(0, 1 - (x[j] - x[i])) / C
  def("multilabel_margin_loss", 2, legacy_names, nil, function(input, target, o)
    local r = reduction_of(o, 3)
    local x = input:dim() <= 1 and input:reshape(1, -1) or input
    local C = x:size(2)
    local t = target:reshape(x:size(1), -1)
    if tostring(t.shape) ~= tostring(x.shape) or input:dim() > 2 then
      error(("inconsistent target size: %s for input of size: %s"):format(sizes(target), sizes(input)), 3)
    end
    args.long_targets(target, 3)
    -- valid: the positions before the first end marker
    local valid = t:lt(1):to(torch.int64):cumsum(2):eq(0)
    local safe = t:masked_fill(valid:logical_not(), 1)
    if valid:any():item() and safe:max():item() > C then error("target out of range", 3) end
    local is_target = torch.zeros_like(x):scatter_add_(2, safe, valid:to(x.dtype)):gt(0)
    local picked = x:gather(2, safe) -- (N, C): x at each listed class
    local margins = (x:unsqueeze(2) - picked:unsqueeze(3) + 1):clamp_min(0) -- (N, j, i)
    local mask = valid:unsqueeze(3):logical_and(is_target:logical_not():unsqueeze(2))
    local loss = (margins * mask:to(x.dtype)):sum({ 2, 3 }) / C
    if input:dim() <= 1 then loss = loss:reshape({}) end
    return reduce(loss, r)
  end)

  def("multilabel_soft_margin_loss", 2, with_legacy { "weight" }, nil, function(input, target, o)
    local r = reduction_of(o, 3)
    local loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if o.weight ~= nil then loss = loss * o.weight end
    local cdim = input:dim()
    loss = loss:sum(cdim) / input:size(cdim)
    return reduce(loss, r)
  end)

  -- ---- likelihood losses ---------------------------------------------------------------------------------
  def("poisson_nll_loss", 2, { "log_input", "full", "size_average", "eps", "reduce", "reduction" },
    { log_input = true, full = false, eps = 1e-8 }, function(input, target, o)
      local r = o.reduction or "mean"
      if o.size_average ~= nil or o.reduce ~= nil then r = legacy(o.size_average, o.reduce) end
      if ENUM[r] == nil then error(r .. " is not valid", 3) end
      return torch.poisson_nll_loss(input, target, o.log_input, o.full, o.eps, ENUM[r])
    end)

  def("gaussian_nll_loss", 3, { "full", "eps", "reduction" }, { full = false, eps = 1e-6, reduction = "mean" },
    function(input, target, var, o)
      if tostring(var.shape) ~= tostring(input.shape) then
        local ins, vs = input:size(), var:size()
        local lead_eq = #ins - 1 == #vs
        if lead_eq then for i = 1, #vs do if ins[i] ~= vs[i] then lead_eq = false end end end
        local hetero = #ins == #vs and vs[#vs] == 1
        if hetero then for i = 1, #vs - 1 do if ins[i] ~= vs[i] then hetero = false end end end
        if lead_eq then
          var = var:unsqueeze(-1)
        elseif not hetero then
          error("var is of incorrect size", 3)
        end
      end
      local r = o.reduction
      if ENUM[r] == nil then error(tostring(r) .. " is not valid", 3) end
      if var:lt(0):any():item() then error("var has negative entry/entries", 3) end
      var = var:clone()
      torch.no_grad(function() var:clamp_(o.eps) end)
      local loss = (var:log() + (input - target) ^ 2 / var) * 0.5
      if o.full then loss = loss + 0.5 * math.log(2 * math.pi) end
      return reduce(loss, r)
    end)

  -- ---- CTC -------------------------------------------------------------------------------------------------
  -- ctc_loss: -log p(target | input) by the forward (alpha) recursion in log space, vectorised
  -- over the batch and the extended label sequence (blank, l1, blank, l2, ..., blank), one step
  -- per time step; autograd derives the gradient. States that cannot be reached hold a very
  -- negative finite number instead of -inf, so the logsumexp gradients stay finite; a loss that
  -- stays near it is infinite. As PyTorch's kernel, the gradient of log_probs also carries
  -- exp(log_probs) times the incoming gradient (the softmax term, which a log_softmax before it
  -- cancels) over each sample's input length.
  local function lengths_of(v, name, n)
    if torch.is_tensor(v) then return v:to(torch.int64):reshape(-1):tolist() end
    if type(v) ~= "table" then
      error(("ctc_loss(): argument '%s' must be tuple of ints, not %s"):format(name, args.py_type(v)), 4)
    end
    local out = {}
    for i = 1, #v do out[i] = v[i] end
    return out
  end
  local function ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
    local batched = log_probs:dim() == 3
    local lp = batched and log_probs or log_probs:unsqueeze(2)
    if lp:dim() ~= 3 then error("ctc_loss(): log_probs must be 2-D (unbatched) or 3-D", 3) end
    local T, N, C = lp:size(1), lp:size(2), lp:size(3)
    if blank < 1 or blank > C then error("blank must be in label range", 3) end
    local il, tl = lengths_of(input_lengths, "input_lengths", N), lengths_of(target_lengths, "target_lengths", N)
    if #il ~= N then error("input_lengths must be of size batch_size", 3) end
    if #tl ~= N then error("target_lengths must be of size batch_size", 3) end
    local S = 0
    for i = 1, N do
      if il[i] > T then
        error(("Expected input_lengths to have value at most %d, but got value %d (while checking arguments for "
          .. "ctc_loss_cpu)"):format(T, il[i]), 3)
      end
      S = math.max(S, tl[i])
    end
    -- targets as (N, S) rows of labels
    local rows = {}
    local tg = targets
    if not batched and tg:dim() == 1 and N == 1 then tg = tg:unsqueeze(1) end
    if tg:dim() == 1 then -- concatenated
      local flat, pos, total = tg:tolist(), 0, 0
      for i = 1, N do total = total + tl[i] end
      if #flat ~= total then
        error(("Expected tensor to have size %d at dimension 1, but got size %d for argument #2 'targets' (while "
          .. "checking arguments for ctc_loss_cpu)"):format(total, #flat), 3)
      end
      for i = 1, N do
        local row = {}
        for j = 1, S do row[j] = j <= tl[i] and flat[pos + j] or blank end
        pos = pos + tl[i]
        rows[i] = row
      end
    else
      local all = tg:tolist()
      for i = 1, N do
        if tl[i] > #all[i] then
          error(("Expected tensor to have size at least %d at dimension 2, but got size %d for argument #2 'targets' "
            .. "(while checking arguments for ctc_loss_cpu)"):format(tl[i], #all[i]), 3)
        end
        local row = {}
        for j = 1, S do row[j] = j <= tl[i] and all[i][j] or blank end
        rows[i] = row
      end
    end
    local L = 2 * S + 1
    local ext, skip = {}, {}
    for i = 1, N do
      local e, k = {}, {}
      for s = 1, L do
        e[s] = s % 2 == 1 and blank or rows[i][s // 2]
        k[s] = s % 2 == 0 and s > 2 and e[s] ~= e[s - 2]
      end
      ext[i], skip[i] = e, k
    end
    for i = 1, N do
      for j = 1, tl[i] do
        local c = rows[i][j]
        if c < 1 or c > C then
          error(("Target %d is out of bounds. (Class indices are 1-based: 1 to %d.)"):format(c, C), 3)
        end
      end
    end
    local dt, dev = lp.dtype, lp.device
    local ext_t = torch.tensor(ext, { dtype = torch.int64, device = dev })
    local skip_t = torch.tensor(skip, { dtype = torch.bool, device = dev })
    local NEG = -torch.finfo(dt).max / 4
    local neg = torch.full({ N, L }, NEG, { dtype = dt, device = dev })
    local emit = lp:gather(3, ext_t:unsqueeze(1):expand(T, N, L)) -- (T, N, L)
    local reach0 = torch.zeros({ N, L }, { dtype = torch.bool, device = dev })
    reach0:narrow(2, 1, math.min(2, L)):fill_(true)
    local alpha = torch.where(reach0, emit[1], neg)
    local col = torch.full({ N, 1 }, NEG, { dtype = dt, device = dev })
    local col2 = torch.full({ N, 2 }, NEG, { dtype = dt, device = dev })
    local il_t = torch.tensor(il, { dtype = torch.int64, device = dev }):unsqueeze(2)
    for t = 2, T do
      local s1 = torch.cat({ col, alpha:narrow(2, 1, L - 1) }, 2)
      local s2 = L > 2 and torch.cat({ col2, alpha:narrow(2, 1, L - 2) }, 2) or neg
      s2 = torch.where(skip_t, s2, neg)
      local nxt = torch.stack({ alpha, s1, s2 }):logsumexp(1) + emit[t]
      alpha = torch.where(il_t:ge(t), nxt, alpha)
    end
    -- the end: the last label or the final blank
    local last, prev = {}, {}
    for i = 1, N do
      last[i] = { 2 * tl[i] + 1 }
      prev[i] = { math.max(2 * tl[i], 1) }
    end
    local a_last = alpha:gather(2, torch.tensor(last, { device = dev })):squeeze(2)
    local a_prev = alpha:gather(2, torch.tensor(prev, { device = dev })):squeeze(2)
    local has_label = torch.tensor(tl, { device = dev }):gt(0)
    a_prev = torch.where(has_label, a_prev, torch.full({ N }, NEG, { dtype = dt, device = dev }))
    local nll = -torch.stack({ a_last, a_prev }):logsumexp(1)
    local inf = nll:detach():gt(-NEG / 2)
    local inf_vals = torch.full({ N }, math.huge, { dtype = dt, device = dev })
    -- PyTorch's extra softmax term: value 0, gradient exp(log_probs) over the valid time steps
    local steps = torch.arange(1, T + 1, { device = dev }):unsqueeze(2):le(il_t:reshape(1, N)):to(dt):unsqueeze(3)
    local e = lp:detach():exp() * steps
    local extra = (e * lp):sum({ 1, 3 })
    nll = nll + (extra - extra:detach())
    if zero_infinity then
      nll = torch.where(inf, torch.zeros({ N }, { dtype = dt, device = dev }), nll)
    else
      nll = torch.where(inf, inf_vals, nll)
    end
    if reduction == 1 then
      local tlen = torch.tensor(tl, { dtype = dt, device = dev }):clamp_min(1)
      return (nll / tlen):mean()
    elseif reduction == 2 then
      return nll:sum()
    end
    if not batched then return nll:squeeze(1) end
    return nll
  end
  F.ctc_loss = function(log_probs, targets, input_lengths, target_lengths, ...)
    local o = args.parse_at(2, "ctc_loss", { "blank", "reduction", "zero_infinity" },
      { blank = 1, reduction = "mean", zero_infinity = false }, ...)
    if ENUM[o.reduction] == nil then
      error(("%s is not a valid value for reduction"):format(tostring(o.reduction)), 2)
    end
    return ctc(log_probs, targets, input_lengths, target_lengths, o.blank, ENUM[o.reduction], o.zero_infinity)
  end
  -- torch.ctc_loss: ATen's form, reduction as its int enum (left out: 0, none, as 1.13's binding)
  function torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, ...)
    local o = args.parse_at(2, "ctc_loss", { "blank", "reduction", "zero_infinity" },
      { blank = 1, reduction = 0, zero_infinity = false }, ...)
    return ctc(log_probs, targets, input_lengths, target_lengths, o.blank, o.reduction, o.zero_infinity)
  end

  -- ---- loss modules ----------------------------------------------------------------------------------------
  -- loss(name, names, defaults, forward): __init takes names positionally (PyTorch's order) or by
  -- name; size_average/reduce become a reduction; a weight tensor is a buffer
  local function loss(name, names, defaults, forward, setup)
    local cls = Module:subclass("nn." .. name)
    function cls:__init(...)
      local o = args.parse_at(3, "__init__", names, defaults, ...)
      Module.__init(self)
      for _, n in ipairs(names) do
        if n == "weight" then
          self:register_buffer("weight", o.weight)
        elseif n ~= "size_average" and n ~= "reduce" and n ~= "reduction" then
          self[n] = o[n]
        end
      end
      local r = o.reduction or "mean"
      if o.size_average ~= nil or o.reduce ~= nil then r = legacy(o.size_average, o.reduce) end
      self.reduction = r
      if setup then setup(self, o) end
    end
    cls.forward = forward
    nn[name] = cls
    return cls
  end
  local function w(self) return self.weight or nil end

  loss("MarginRankingLoss", with_legacy { "margin" }, { margin = 0.0 }, function(self, x1, x2, target)
    return F.margin_ranking_loss(x1, x2, target, { margin = self.margin, reduction = self.reduction })
  end)
  loss("HingeEmbeddingLoss", with_legacy { "margin" }, { margin = 1.0 }, function(self, input, target)
    return F.hinge_embedding_loss(input, target, { margin = self.margin, reduction = self.reduction })
  end)
  loss("CosineEmbeddingLoss", with_legacy { "margin" }, { margin = 0.0 }, function(self, x1, x2, target)
    return F.cosine_embedding_loss(x1, x2, target, { margin = self.margin, reduction = self.reduction })
  end)
  loss("SoftMarginLoss", legacy_names, nil, function(self, input, target)
    return F.soft_margin_loss(input, target, { reduction = self.reduction })
  end)
  loss("MultiLabelMarginLoss", legacy_names, nil, function(self, input, target)
    return F.multilabel_margin_loss(input, target, { reduction = self.reduction })
  end)
  loss("MultiLabelSoftMarginLoss", with_legacy { "weight" }, nil, function(self, input, target)
    return F.multilabel_soft_margin_loss(input, target, { weight = w(self), reduction = self.reduction })
  end)
  loss("MultiMarginLoss", with_legacy { "p", "margin", "weight" }, { p = 1, margin = 1.0 },
    function(self, input, target)
      return F.multi_margin_loss(input, target, { p = self.p, margin = self.margin, weight = w(self),
        reduction = self.reduction })
    end, function(self)
      if self.p ~= 1 and self.p ~= 2 then error("only p == 1 and p == 2 supported", 4) end
      if w(self) ~= nil and self.weight:dim() ~= 1 then error("weight must be one-dimensional", 4) end
    end)
  loss("PoissonNLLLoss", { "log_input", "full", "size_average", "eps", "reduce", "reduction" },
    { log_input = true, full = false, eps = 1e-8 }, function(self, input, target)
      return F.poisson_nll_loss(input, target, { log_input = self.log_input, full = self.full, eps = self.eps,
        reduction = self.reduction })
    end)
  loss("GaussianNLLLoss", { "full", "eps", "reduction" }, { full = false, eps = 1e-6 },
    function(self, input, target, var)
      return F.gaussian_nll_loss(input, target, var, { full = self.full, eps = self.eps, reduction = self.reduction })
    end)
  loss("TripletMarginLoss", with_legacy { "margin", "p", "eps", "swap" }, { margin = 1.0, p = 2.0, eps = 1e-6,
    swap = false }, function(self, a, p, n)
    return F.triplet_margin_loss(a, p, n, { margin = self.margin, p = self.p, eps = self.eps, swap = self.swap,
      reduction = self.reduction })
  end)
  loss("TripletMarginWithDistanceLoss", { "distance_function", "margin", "swap", "reduction" },
    { margin = 1.0, swap = false }, function(self, a, p, n)
      return F.triplet_margin_with_distance_loss(a, p, n, { distance_function = self.distance_function,
        margin = self.margin, swap = self.swap, reduction = self.reduction })
    end, function(self, o)
      -- PyTorch's default is a PairwiseDistance module (a child, so it shows in the repr)
      self.distance_function = o.distance_function or nn.PairwiseDistance()
    end)
  loss("NLLLoss2d", { "weight", "size_average", "ignore_index", "reduce", "reduction" }, { ignore_index = -100 },
    function(self, input, target)
      return F.nll_loss(input, target, { weight = w(self), ignore_index = self.ignore_index,
        reduction = self.reduction })
    end, function() warn("NLLLoss2d has been deprecated. Please use NLLLoss instead as a drop-in replacement and see "
      .. "https://pytorch.org/docs/master/nn.html#torch.nn.NLLLoss for more details.") end)
  loss("CTCLoss", { "blank", "reduction", "zero_infinity" }, { blank = 1, zero_infinity = false },
    function(self, log_probs, targets, input_lengths, target_lengths)
      return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, { blank = self.blank,
        reduction = self.reduction, zero_infinity = self.zero_infinity })
    end)

  -- distance modules
  local function distance(name, names, defaults, forward)
    local cls = Module:subclass("nn." .. name)
    function cls:__init(...)
      local o = args.parse_at(3, "__init__", names, defaults, ...)
      Module.__init(self)
      for _, n in ipairs(names) do self[n] = o[n] end
    end
    cls.forward = forward
    nn[name] = cls
  end
  distance("CosineSimilarity", { "dim", "eps" }, { dim = 2, eps = 1e-8 }, function(self, x1, x2)
    return F.cosine_similarity(x1, x2, self.dim, self.eps)
  end)
  distance("PairwiseDistance", { "p", "eps", "keepdim" }, { p = 2.0, eps = 1e-6, keepdim = false },
    function(self, x1, x2) return F.pairwise_distance(x1, x2, self.p, self.eps, self.keepdim) end)

  -- ---- AdaptiveLogSoftmaxWithLoss ------------------------------------------------------------------------------
  -- a head over the shortlist (cutoffs[1] most frequent classes) and one entry per cluster, and
  -- a two-layer tail per cluster; targets and predictions are 1-based classes
  local ALS = Module:subclass("nn.AdaptiveLogSoftmaxWithLoss")
  function ALS:__init(in_features, n_classes, cutoffs, ...)
    local o = args.parse_at(3, "__init__", { "div_value", "head_bias", "device", "dtype" },
      { div_value = 4.0, head_bias = false }, ...)
    args.require("AdaptiveLogSoftmaxWithLoss.__init__", { in_features = in_features, n_classes = n_classes,
      cutoffs = cutoffs }, { "in_features", "n_classes", "cutoffs" })
    local list, ok = {}, type(cutoffs) == "table"
    if ok then
      for i = 1, #cutoffs do
        local c = cutoffs[i]
        list[i] = c
        if math.type(c) ~= "integer" or c <= 0 or c > n_classes - 1 or (i > 1 and c <= cutoffs[i - 1]) then
          ok = false
        end
      end
    end
    if not ok then
      error("cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where each "
        .. "value is between 1 and n_classes-1", 3)
    end
    Module.__init(self)
    self.in_features, self.n_classes, self.div_value, self.head_bias = in_features, n_classes, o.div_value, o.head_bias
    list[#list + 1] = n_classes
    self.cutoffs = list
    self.shortlist_size = list[1]
    self.n_clusters = #list - 1
    self.head_size = self.shortlist_size + self.n_clusters
    local lin = { device = o.device, dtype = o.dtype }
    self.head = nn.Linear(in_features, self.head_size, { bias = o.head_bias, device = o.device, dtype = o.dtype })
    local tail = nn.ModuleList()
    for i = 1, self.n_clusters do
      local hsz = math.floor(in_features // (o.div_value ^ i))
      local osz = list[i + 1] - list[i]
      tail:append(nn.Sequential(nn.Linear(in_features, hsz, { bias = false, device = lin.device, dtype = lin.dtype }),
        nn.Linear(hsz, osz, { bias = false, device = lin.device, dtype = lin.dtype })))
    end
    self.tail = tail
  end
  function ALS:reset_parameters()
    self.head:reset_parameters()
    for _, seq in ipairs(self.tail:children()) do
      for _, m in ipairs(seq:children()) do m:reset_parameters() end
    end
  end
  -- forward(input, target): the log-probability of each target and the mean loss (two values)
  function ALS:forward(input, target)
    local td = target:dim()
    if td == 1 then
      if input:size(1) ~= target:size(1) then
        error("Input and target should have the same size in the batch dimension.", 2)
      end
      if input:dim() ~= 2 then error("1D target tensor expects 2D input tensors, but found inputs with size", 2) end
    elseif td == 0 then
      if input:dim() ~= 1 then error("0D target tensor expects 1D input tensors, but found inputs with size", 2) end
    else
      error("0D or 1D target tensor expected, multi-target not supported", 2)
    end
    local batched = td > 0
    local x = batched and input or input:unsqueeze(1)
    local t = (batched and target or target:unsqueeze(1)) - 1 -- 0-based classes from here
    local B = t:size(1)
    local output = x:new_zeros(B)
    local gather_inds = t:new_empty(B)
    local bounds = { 0, table.unpack(self.cutoffs) }
    local used = 0
    for i = 1, #bounds - 1 do
      local low, high = bounds[i], bounds[i + 1]
      local mask = t:ge(low):logical_and(t:lt(high))
      local rows = mask:nonzero():reshape(-1) -- 1-based rows
      if rows:numel() > 0 then
        if i == 1 then
          gather_inds:index_copy_(1, rows, t[mask])
        else
          local rel = t[mask] - low + 1
          local sub = x:index_select(1, rows)
          local cluster_out = self.tail[i - 1](sub)
          gather_inds:index_fill_(1, rows, self.shortlist_size + i - 2)
          local local_lp = cluster_out:log_softmax(2):gather(2, rel:unsqueeze(2))
          output = output:index_copy(1, rows, local_lp:squeeze(2))
        end
        used = used + rows:numel()
      end
    end
    if used ~= B then
      error(("Target values should be in [%d, %d], but values in range [%d, %d] were found. "):format(1,
        self.n_classes, target:min():item(), target:max():item()), 2)
    end
    local head_lp = self.head(x):log_softmax(2)
    output = output + head_lp:gather(2, (gather_inds + 1):unsqueeze(2)):squeeze(2)
    local l = (-output):mean()
    if not batched then output = output:squeeze(1) end
    return output, l
  end
  -- the log-probabilities of all classes from the head's output
  function ALS:_get_full_log_prob(x, head_output)
    local head_lp = head_output:log_softmax(2)
    local parts = { head_lp:narrow(2, 1, self.shortlist_size) }
    for i = 1, self.n_clusters do
      local cluster_lp = self.tail[i](x):log_softmax(2)
      parts[#parts + 1] = cluster_lp + head_lp:narrow(2, self.shortlist_size + i, 1)
    end
    return torch.cat(parts, 2)
  end
  function ALS:log_prob(input)
    local batched = input:dim() == 2
    local x = batched and input or input:unsqueeze(1)
    local out = self:_get_full_log_prob(x, self.head(x))
    return batched and out or out:squeeze(1)
  end
  function ALS:predict(input)
    local lp = self:log_prob(input)
    local _, idx = lp:max(-1)
    return idx
  end
  nn.AdaptiveLogSoftmaxWithLoss = ALS
end
