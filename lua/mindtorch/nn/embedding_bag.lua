-- nn/embedding_bag.lua: torch.embedding_bag (ATen's form: output, offset2bag, bag_size,
-- max_indices), F.embedding_bag and nn.EmbeddingBag. A bag is a run of input (1-D input cut at
-- offsets, or each row of a 2-D input) whose embedding rows are summed, averaged or maxed.
-- Indices, offsets and padding_idx are 1-based (PyTorch's + 1); so are offset2bag and, in "max"
-- mode, max_indices. Written with differentiable ops (index_select, index_add, gather), so
-- autograd derives the gradients of weight and per_sample_weights; the padding row's entries
-- are left out of their bags (not summed, not counted for "mean", never the max).
return function(torch, nn)
  local Module, F, init, py = nn.Module, nn.functional, nn.init, nn._py
  local args = require "mindtorch._args"
  local MODES = { sum = 0, mean = 1, max = 2 }
  local long = torch.int64

  local check_indices = args.embedding_indices

  -- padding_idx as a positive 1-based row, or nil; n: the rows of weight
  local function padding_row(pad, n, level)
    if pad == nil then return nil end
    args.int("padding_idx", pad, nil, nil, level + 1)
    if pad == 0 or pad > n or pad < -n then
      error(("padding_idx must be within the number of embeddings, -%d through %d, but got %d"):format(n, n, pad),
        level + 1)
    end
    if pad < 0 then pad = n + pad + 1 end
    return pad
  end

  local freq_scale
  local function same_shape(a, b)
    if a:dim() ~= b:dim() then return false end
    for i = 1, a:dim() do
      if a.shape[i] ~= b.shape[i] then return false end
    end
    return true
  end

  -- scale_grad_by_freq's factor for each entry of input (1-based rows). PyTorch 1.13's CPU backward
  -- divides the gradient of the r-th smallest distinct row by the count of the r-th entry of the
  -- sorted input, rather than by its own count (the same when each row occurs equally often);
  -- the factor here is that one, so gradients match PyTorch's
  function freq_scale(input, n, dtype)
    local counts = torch.bincount(input - 1, { minlength = n })
    local sorted = input:sort()
    local rank = torch.searchsorted(torch.unique(sorted), input) -- 1-based, among the distinct rows
    return counts:index_select(1, sorted:index_select(1, rank)):to(dtype):reciprocal()
  end

  -- the bags of 1-D indices cut at 1-D offsets: the core of torch.embedding_bag
  local function bags(weight, indices, offsets, scale_grad_by_freq, mode, psw, include_last_offset, pad, level)
    level = level + 1
    if weight:dim() ~= 2 then
      error(("embedding_bag: weight has to be a 2-D Tensor, but got Tensor of dimension %d"):format(weight:dim()),
        level)
    end
    local wt = weight.dtype
    if wt ~= torch.float32 and wt ~= torch.float64 and wt ~= torch.float16 then
      error(("Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, Float, Double; "
        .. "but got %s instead (while checking arguments for embedding_bag)"):format(weight:type()), level)
    end
    check_indices(indices, "embedding_bag", level)
    check_indices(offsets, "embedding_bag", level)
    if indices:dim() ~= 1 then
      error(("embedding_bag: input has to be a 1-D Tensor, but got Tensor of dimension %d"):format(indices:dim()),
        level)
    end
    if offsets:dim() ~= 1 then error("offsets has to be a 1D Tensor", level) end
    if mode ~= 0 and mode ~= 1 and mode ~= 2 then
      error(("embedding_bag: mode has to be 0 (sum), 1 (mean) or 2 (max), but got %s"):format(tostring(mode)), level)
    end
    local n, dim = weight.shape[1], weight.shape[2]
    pad = padding_row(pad, n, level)
    if psw ~= nil then
      if mode ~= 0 then error("embedding_bag: per_sample_weights only supported with mode='sum'", level) end
      if psw.dtype ~= weight.dtype then
        error(("Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
          .. "'per_sample_weights'; but type %s does not equal %s (while checking arguments for embedding_bag)")
          :format(weight:type(), psw:type()), level)
      end
      if psw:dim() ~= 1 or psw:numel() ~= indices:numel() then
        error(("embedding_bag: per_sample_weights has to be a 1-D Tensor of %d elements, as indices, but got shape %s")
          :format(indices:numel(), tostring(psw.shape)), level)
      end
    end
    local len = indices:numel()
    local ilong = { dtype = long, device = weight.device } -- every index tensor on weight's device
    local offs = offsets:to(long)
    local nb = offs:numel()
    if nb > 0 then
      local first, last = offs[1]:item(), offs[nb]:item()
      if first ~= 1 then
        error(("offsets[1] has to be 1, i.e., the first sequence in the mini-batch has to start from position 1. "
          .. "However, got %d"):format(first), level)
      end
      if last > len + 1 then
        error(("offsets[-1] can not be greater than input's length %d plus 1 but got offsets[-1] of %d")
          :format(len, last), level)
      end
    end
    local B = include_last_offset and math.max(nb - 1, 0) or nb
    local starts, ends = offs:narrow(1, 1, B), nil
    if include_last_offset then
      ends = offs:narrow(1, 2, B)
    else
      ends = torch.cat({ offs:narrow(1, 2, math.max(nb - 1, 0)), torch.tensor({ len + 1 }, ilong) })
    end
    local lens = ends - starts
    if B > 0 and lens:lt(0):any():item() then
      local k = lens:lt(0):nonzero()[1][1]:item()
      error(("offsets has to be non-decreasing, but got offsets[%d] = %d after offsets[%d] = %d")
        :format(k + 1, ends[k]:item(), k, starts[k]:item()), level)
    end
    local used = B > 0 and (ends[B]:item() - 1) or 0
    local input = indices:narrow(1, 1, used):to(long)
    if used > 0 then
      local lo, hi = input:min():item(), input:max():item()
      if lo < 1 or hi > n then
        local bad = input:lt(1):logical_or(input:gt(n)):nonzero()[1][1]:item()
        error(("embedding_bag: index %d of input is out of bounds: %d, range 1 to %d")
          :format(bad, input[bad]:item(), n), level)
      end
    end
    local bag_of = torch.repeat_interleave(torch.arange(1, B + 1, ilong), lens) -- 1-based
    local keep = pad and input:ne(pad) or nil
    local opts = { dtype = weight.dtype, device = weight.device }
    local count = keep and torch.bincount(bag_of:masked_select(keep) - 1, { minlength = B }):narrow(1, 1, B)
      or lens:clone()
    local rows = weight:index_select(1, input)
    if scale_grad_by_freq and rows.requires_grad and used > 0 then
      local scale = freq_scale(input, n, weight.dtype):unsqueeze(2)
      rows:register_hook(function(g) return g * scale end)
    end
    local out, max_indices, bag_size
    if mode == 2 then
      local L = B > 0 and lens:max():item() or 0
      local pos = torch.arange(used, ilong) - (starts:index_select(1, bag_of) - 1) -- 0-based in its bag
      local slot = (bag_of - 1) * L + pos + 1
      local vals = torch.full({ B * L, dim }, -math.huge, opts)
      local ids = torch.ones(B * L, ilong)
      local r, s, i = rows:detach(), slot, input
      if keep then
        local at = keep:nonzero():view(-1)
        r, s, i = r:index_select(1, at), slot:index_select(1, at), input:index_select(1, at)
      end
      max_indices = torch.ones(B, dim, ilong)
      if L > 0 then
        vals:index_copy_(1, s, r)
        ids:index_copy_(1, s, i)
        local _, at = vals:view(B, L, dim):max(2)
        max_indices = ids:view(B, L):gather(2, at)
      end
      local empty = count:eq(0):unsqueeze(2)
      max_indices = max_indices:masked_fill(empty, 1)
      out = weight:gather(1, max_indices):masked_fill(empty, 0)
      bag_size = count
    else
      local contrib = rows
      if keep or psw then
        local w = keep and keep:to(weight.dtype) or nil
        if psw then
          local p = psw:narrow(1, 1, used)
          w = w and w * p or p
        end
        contrib = rows * w:unsqueeze(2)
      end
      out = torch.zeros(B, dim, opts):index_add(1, bag_of, contrib)
      if mode == 1 then
        out = out / count:clamp(1):to(weight.dtype):unsqueeze(2)
        bag_size, max_indices = count, count:clone()
      else -- PyTorch's sum mode leaves these zeros, one per offset
        bag_size, max_indices = torch.zeros(nb, ilong), torch.zeros(nb, ilong)
      end
    end
    -- PyTorch's fast path (float32 and float16 weights, sum mode, no padding_idx) leaves offset2bag empty
    if mode == 0 and not keep and (weight.dtype == torch.float32 or weight.dtype == torch.float16) then
      bag_of = torch.zeros(0, ilong)
    end
    return out, bag_of, bag_size, max_indices
  end

  -- torch.embedding_bag(weight, indices, offsets, scale_grad_by_freq = false, mode = 0 (0 sum, 1 mean,
  -- 2 max), sparse = false, per_sample_weights, include_last_offset = false, padding_idx): ATen's
  -- form, returning output, offset2bag, bag_size, max_indices as PyTorch 1.13 (sum mode: offset2bag
  -- empty without padding_idx, bag_size and max_indices zeros; mean: max_indices = bag_size)
  local aten_names = { "scale_grad_by_freq", "mode", "sparse", "per_sample_weights", "include_last_offset",
    "padding_idx" }
  function torch.embedding_bag(weight, indices, offsets, ...)
    local o = args.parse_at(2, "embedding_bag", aten_names, { scale_grad_by_freq = false, mode = 0, sparse = false,
      include_last_offset = false }, ...)
    args.tensor("embedding_bag", "weight", 1, weight)
    args.tensor("embedding_bag", "indices", 2, indices)
    args.tensor("embedding_bag", "offsets", 3, offsets)
    args.tensor("embedding_bag", "per_sample_weights", 7, o.per_sample_weights, true)
    if o.sparse then error("embedding_bag: sparse=true is not supported (mindtorch has no sparse tensors)", 2) end
    return bags(weight, indices, offsets, o.scale_grad_by_freq, o.mode, o.per_sample_weights, o.include_last_offset,
      o.padding_idx, 2)
  end

  -- F.embedding_bag(input, weight, offsets, max_norm, norm_type = 2, scale_grad_by_freq = false,
  -- mode = "mean", sparse = false, per_sample_weights, include_last_offset = false, padding_idx),
  -- positionally or in an options table. A 2-D input is a batch of bags of its row length (offsets
  -- must be nil); a 1-D input is cut at offsets. max_norm renormalises the looked-up rows of weight
  -- in place first, as F.embedding.
  local names = { "offsets", "max_norm", "norm_type", "scale_grad_by_freq", "mode", "sparse", "per_sample_weights",
    "include_last_offset", "padding_idx" }
  function F.embedding_bag(input, weight, ...)
    local o = args.parse_at(2, "embedding_bag", names, { norm_type = 2.0, scale_grad_by_freq = false, mode = "mean",
      sparse = false, include_last_offset = false }, ...)
    args.tensor("embedding_bag", "weight", 2, weight)
    local offsets, psw = o.offsets, o.per_sample_weights
    args.tensor("embedding_bag", "per_sample_weights", 9, psw, true)
    if psw ~= nil and not same_shape(input, psw) then
      error(("embedding_bag: If per_sample_weights (%s) is not None, then it must have the same shape as the "
        .. "input (%s)"):format(tostring(psw.shape), tostring(input.shape)), 2)
    end
    if input:dim() == 2 then
      if offsets ~= nil then
        local kind = torch.is_tensor(offsets) and "torch.Tensor" or args.py_type(offsets)
        error(("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
          .. "sequences. However, found offsets of type <class '%s'>"):format(kind), 2)
      end
      offsets = torch.arange(1, input:numel() + 1, math.max(input.shape[2], 1), { dtype = input.dtype,
        device = input.device })
      if input.shape[2] == 0 then offsets = torch.ones(input.shape[1], { dtype = input.dtype, device = input.device }) end
      input = input:reshape(-1)
      if psw ~= nil then psw = psw:reshape(-1) end
    elseif input:dim() == 1 then
      if offsets == nil then error("offsets has to be a 1D Tensor but got None", 2) end
      args.tensor("embedding_bag", "offsets", 3, offsets)
      if offsets:dim() ~= 1 then error("offsets has to be a 1D Tensor", 2) end
    else
      error(("input has to be 1D or 2D Tensor, but got Tensor of dimension %d"):format(input:dim()), 2)
    end
    local mode = MODES[o.mode]
    if mode == nil then error("mode has to be one of sum, mean or max", 2) end
    if mode == 2 then
      if o.scale_grad_by_freq then error("max mode does not support scaling the gradient by the frequency", 2) end
      if o.sparse then error("max mode does not support sparse weights", 2) end
    end
    if o.sparse then error("embedding_bag: sparse=true is not supported (mindtorch has no sparse tensors)", 2) end
    if o.max_norm ~= nil then
      check_indices(input, "embedding_renorm_", 2)
      torch.no_grad(function() torch.embedding_renorm_(weight, input:contiguous(), o.max_norm, o.norm_type) end)
    end
    if psw ~= nil and mode ~= 0 then
      error(("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
        .. "(got mode='%s'). Please open a feature request on GitHub."):format(o.mode), 2)
    end
    return (bags(weight, input, offsets, o.scale_grad_by_freq, mode, psw, o.include_last_offset, o.padding_idx, 2))
  end

  -- ---- nn.EmbeddingBag -----------------------------------------------------------------------------
  local EmbeddingBag = Module:subclass("nn.EmbeddingBag")
  -- nn.EmbeddingBag(num_embeddings, embedding_dim, max_norm, norm_type = 2, scale_grad_by_freq = false,
  -- mode = "mean", sparse = false, _weight, include_last_offset = false, padding_idx, device, dtype),
  -- or an options table
  function EmbeddingBag:__init(num_embeddings, embedding_dim, ...)
    local opts = args.parse_at(2, "__init__", { "max_norm", "norm_type", "scale_grad_by_freq", "mode", "sparse",
      "_weight", "include_last_offset", "padding_idx", "device", "dtype" }, nil, ...)
    args.require("EmbeddingBag.__init__", { num_embeddings = num_embeddings, embedding_dim = embedding_dim },
      { "num_embeddings", "embedding_dim" })
    args.int("num_embeddings", num_embeddings)
    args.int("embedding_dim", embedding_dim)
    Module.__init(self)
    self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
    self.max_norm, self.norm_type = opts.max_norm, opts.norm_type or 2.0
    self.scale_grad_by_freq = opts.scale_grad_by_freq or false
    local pad = opts.padding_idx
    if pad ~= nil then
      args.int("padding_idx", pad)
      if pad < 0 then pad = num_embeddings + pad + 1 end
      if pad < 1 or pad > num_embeddings then error("padding_idx must be within num_embeddings", 2) end
    end
    self.padding_idx = pad
    local mode = opts.mode or "mean"
    if MODES[mode] == nil then error("mode has to be one of sum, mean or max", 2) end
    if opts.sparse then error("EmbeddingBag: sparse=true is not supported (mindtorch has no sparse tensors)", 2) end
    nn._embedding_weight(self, num_embeddings, embedding_dim, opts) -- (normalization.lua's, Embedding's)
    self.mode, self.sparse = mode, false
    self.include_last_offset = opts.include_last_offset or false
  end
  function EmbeddingBag:reset_parameters()
    init.normal_(self.weight)
    if self.padding_idx then torch.no_grad(function() self.weight[self.padding_idx]:fill_(0) end) end
  end
  -- forward(input, offsets, per_sample_weights), or forward(input, {offsets = ..., per_sample_weights = ...})
  function EmbeddingBag:forward(input, ...)
    local o = args.parse_at(2, "forward", { "offsets", "per_sample_weights" }, nil, ...)
    return F.embedding_bag(input, self.weight, o.offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
      self.mode, self.sparse, o.per_sample_weights, self.include_last_offset, self.padding_idx)
  end
  function EmbeddingBag:extra_repr()
    local s = ("%d, %d"):format(self.num_embeddings, self.embedding_dim)
    if self.max_norm ~= nil then s = s .. ", max_norm=" .. py(self.max_norm) end
    if self.norm_type ~= 2 then s = s .. ", norm_type=" .. py(self.norm_type) end
    if self.scale_grad_by_freq then s = s .. ", scale_grad_by_freq=True" end
    s = s .. ", mode=" .. self.mode
    if self.padding_idx then s = s .. ", padding_idx=" .. self.padding_idx end
    return s
  end
  -- nn.EmbeddingBag.from_pretrained(embeddings, freeze = true, max_norm, norm_type = 2,
  -- scale_grad_by_freq = false, mode = "mean", sparse = false, include_last_offset = false,
  -- padding_idx), or from_pretrained(embeddings, {freeze = ..., ...})
  function EmbeddingBag.from_pretrained(embeddings, ...)
    local o = args.parse_at(2, "from_pretrained", { "freeze", "max_norm", "norm_type", "scale_grad_by_freq", "mode",
      "sparse", "include_last_offset", "padding_idx" }, { freeze = true }, ...)
    args.tensor("from_pretrained", "embeddings", 1, embeddings)
    if embeddings:dim() ~= 2 then error("Embeddings parameter is expected to be 2-dimensional", 2) end
    local m = EmbeddingBag(embeddings.shape[1], embeddings.shape[2], { _weight = embeddings, max_norm = o.max_norm,
      norm_type = o.norm_type, scale_grad_by_freq = o.scale_grad_by_freq, mode = o.mode, sparse = o.sparse,
      include_last_offset = o.include_last_offset, padding_idx = o.padding_idx })
    m.weight.requires_grad = not o.freeze
    return m
  end
  nn.EmbeddingBag = EmbeddingBag
end
