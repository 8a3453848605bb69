-- normalization.lua: Embedding, LayerNorm, GroupNorm, BatchNorm1d/2d, written with
-- differentiable ops (autograd derives them). Initialisation and running statistics follow
-- PyTorch (running_var takes the unbiased batch variance; momentum 0.1).
return function(torch, nn)
  local Module, F, init, py = nn.Module, nn.functional, nn.init, nn._py
  local args = require "mindtorch._args"
  local layout = require "mindtorch._layout"

  -- the arguments after the sizes: PyTorch's positional order, or an options table
  local function options(names, ...)
    return args.parse_at(3, "__init__", names, nil, ...) -- a tail call: seen from the __init
  end

  local function shape_list(s)
    if type(s) == "number" then return { s } end
    local out = {}
    for i = 1, args.len(s, 16, "normalized_shape", 4) do out[i] = s[i] end
    return out
  end

  -- ---- functional forms --------------------------------------------------------------------------
  -- F.embedding(input, weight, padding_idx, max_norm, norm_type = 2, scale_grad_by_freq = false,
  -- sparse = false), positionally or in an options table. padding_idx is 1-based (negative counts
  -- from the end): its rows come out as stored and get no gradient. max_norm renormalises the
  -- looked-up rows of weight in place first. scale_grad_by_freq divides each row's gradient by
  -- how often its index occurs in input. sparse is accepted; the gradient is dense (mindtorch has
  -- no sparse tensors).
  local embedding_names = { "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse" }
  function F.embedding(input, weight, ...)
    local o = args.parse_at(2, "embedding", embedding_names, { norm_type = 2.0 }, ...)
    local pad = o.padding_idx
    if pad ~= nil then
      args.int("padding_idx", pad)
      local n = weight.shape[1]
      if pad > n or pad < -n or pad == 0 then error("Padding_idx must be within num_embeddings", 2) end
      if pad < 0 then pad = n + pad + 1 end
    end
    if o.max_norm ~= nil then
      torch.no_grad(function() torch.embedding_renorm_(weight, input:contiguous(), o.max_norm, o.norm_type) end)
    end
    args.embedding_indices(input, "embedding", 2)
    local shape = {}
    for i = 1, input:dim() do shape[i] = input.shape[i] end
    shape[#shape + 1] = weight.shape[2]
    local flat = input:reshape(-1)
    local out = weight:index_select(1, flat)
    if out.requires_grad and (pad ~= nil or o.scale_grad_by_freq) then
      -- the gradient of each looked-up row, scaled before it reaches weight: 0 for the padding
      -- row, 1 / (its index's count in input) with scale_grad_by_freq
      local scale = torch.ones(flat:numel(), { dtype = out.dtype, device = out.device })
      if o.scale_grad_by_freq then
        local counts = torch.bincount(flat - 1, { minlength = weight.shape[1] }):to(out.dtype)
        scale = counts:index_select(1, flat):reciprocal()
      end
      if pad ~= nil then scale = scale:masked_fill(flat:eq(pad), 0) end
      scale = scale:unsqueeze(-1)
      out:register_hook(function(g) return g * scale end)
    end
    return out:view(shape)
  end

  function F.layer_norm(input, normalized_shape, weight, bias, eps)
    eps = eps or 1e-5
    local nd = #shape_list(normalized_shape)
    local dims = {}
    for i = input:dim() - nd + 1, input:dim() do dims[#dims + 1] = i end
    local mean = input:mean(dims, true)
    local var = torch.var(input, dims, { correction = 0, keepdim = true })
    local out = (input - mean) / (var + eps):sqrt()
    if weight ~= nil then out = out * weight end
    if bias ~= nil then out = out + bias end
    return out:contiguous() -- PyTorch's is contiguous whatever the input's layout
  end

  local group_norm_names = { "num_groups", "weight", "bias", "eps" }
  function F.group_norm(input, ...)
    local num_groups, weight, bias, eps = ...
    if args.is_options(select(select("#", ...), ...)) then -- by name: group_norm(x, {num_groups = 2})
      local o = args.parse_at(2, "group_norm", group_norm_names, nil, ...)
      num_groups, weight, bias, eps = o.num_groups, o.weight, o.bias, o.eps
      if num_groups == nil then error("group_norm() missing 1 required positional argument: 'num_groups'", 2) end
    end
    eps = eps or 1e-5
    local n, c = input.shape[1], input.shape[2]
    if math.type(num_groups) ~= "integer" then
      error(("unsupported operand type(s) for //: 'int' and '%s'"):format(args.py_type(num_groups)), 2)
    end
    if num_groups == 0 then error("integer division or modulo by zero", 2) end
    if c % num_groups ~= 0 then
      error(("Expected number of channels in input to be divisible by num_groups, but got input of shape %s and num_groups=%d"):format(
        tostring(input.shape), num_groups), 2)
    end
    local g = input:reshape(n, num_groups, -1)
    local mean = g:mean(3, true)
    local var = torch.var(g, 3, { correction = 0, keepdim = true })
    local out = ((g - mean) / (var + eps):sqrt()):view(input.shape)
    local shape = { 1, c }
    for _ = 3, input:dim() do shape[#shape + 1] = 1 end
    if weight ~= nil then out = out * weight:view(shape) end
    if bias ~= nil then out = out + bias:view(shape) end
    return layout.follow(input, out)
  end

  -- batch_norm(input, running_mean, running_var, {weight=, bias=, training=, momentum=, eps=}):
  -- torch.native_batch_norm (one node to autograd, whose backward is fused on the CPU), with the
  -- batch's statistics when training or when there are no running ones
  local batch_norm_options = { weight = "any", bias = "any", training = "any", momentum = "any", eps = "any" }
  function F.batch_norm(input, running_mean, running_var, opts)
    opts = args.options("batch_norm", opts, batch_norm_options)
    local eps, momentum = opts.eps or 1e-5, opts.momentum == nil and 0.1 or opts.momentum
    local training = opts.training or running_mean == nil
    if training and input:dim() >= 2 then
      local count = input.shape[1] -- values per channel, as PyTorch's _verify_batch_size counts them
      for i = 3, input:dim() do count = count * input.shape[i] end
      if count == 1 then
        error(("Expected more than 1 value per channel when training, got input size %s"):format(tostring(input.shape)), 2)
      end
    end
    return (torch.native_batch_norm(input, opts.weight, opts.bias, running_mean, running_var, training, momentum, eps))
  end

  -- ---- modules -------------------------------------------------------------------------------------
  local Embedding = Module:subclass("nn.Embedding")
  -- nn.Embedding(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type = 2,
  -- scale_grad_by_freq = false, sparse = false, _weight, device, dtype), or an options table
  function Embedding:__init(num_embeddings, embedding_dim, ...)
    local opts = options({ "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse", "_weight",
      "device", "dtype" }, ...)
    args.require("Embedding.__init__", { num_embeddings = num_embeddings, embedding_dim = embedding_dim },
      { "num_embeddings", "embedding_dim" })
    args.int("num_embeddings", num_embeddings)
    args.int("embedding_dim", embedding_dim)
    if opts.padding_idx ~= nil then args.int("padding_idx", opts.padding_idx) end
    Module.__init(self)
    self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
    local pad = opts.padding_idx
    if pad ~= nil then
      if pad < 0 then pad = num_embeddings + pad + 1 end
      if pad < 1 or pad > num_embeddings then error("Padding_idx must be within num_embeddings", 2) end
    end
    self.padding_idx = pad
    self.max_norm, self.norm_type = opts.max_norm, opts.norm_type or 2.0
    self.scale_grad_by_freq, self.sparse = opts.scale_grad_by_freq or false, opts.sparse or false
    nn._embedding_weight(self, num_embeddings, embedding_dim, opts)
  end
  -- an embedding table's weight (Embedding's and EmbeddingBag's): opts._weight, checked, or a
  -- new one that reset_parameters fills
  function nn._embedding_weight(self, num_embeddings, embedding_dim, opts)
    if opts._weight ~= nil then
      local w = opts._weight
      if not torch.is_tensor(w) or w:dim() ~= 2 or w.shape[1] ~= num_embeddings or w.shape[2] ~= embedding_dim then
        error("Shape of weight does not match num_embeddings and embedding_dim", 3)
      end
      self.weight = nn.Parameter(w)
    else
      self.weight = nn.Parameter(nn._new_tensor(torch.empty, { num_embeddings, embedding_dim }, opts))
      self:reset_parameters()
    end
  end
  function Embedding:reset_parameters()
    init.normal_(self.weight)
    if self.padding_idx then torch.no_grad(function() self.weight[self.padding_idx]:fill_(0) end) end
  end
  function Embedding:forward(x)
    return F.embedding(x, self.weight, self.padding_idx, self.max_norm, self.norm_type, self.scale_grad_by_freq,
      self.sparse)
  end
  function Embedding:extra_repr()
    local s = ("%d, %d"):format(self.num_embeddings, self.embedding_dim)
    if self.padding_idx then s = s .. ", padding_idx=" .. self.padding_idx end
    if self.max_norm ~= nil then s = s .. ", max_norm=" .. py(self.max_norm) end
    if self.norm_type ~= 2 then s = s .. ", norm_type=" .. py(self.norm_type) end
    if self.scale_grad_by_freq then s = s .. ", scale_grad_by_freq=True" end
    if self.sparse then s = s .. ", sparse=True" end
    return s
  end
  -- nn.Embedding.from_pretrained(embeddings, freeze = true, padding_idx, max_norm, norm_type,
  -- scale_grad_by_freq, sparse), or from_pretrained(embeddings, {freeze = ..., ...})
  function Embedding.from_pretrained(embeddings, ...)
    local o = args.parse_at(2, "from_pretrained", { "freeze", "padding_idx", "max_norm", "norm_type",
      "scale_grad_by_freq", "sparse" }, { freeze = true }, ...)
    args.tensor("from_pretrained", "embeddings", 1, embeddings)
    if embeddings:dim() ~= 2 then error("Embeddings parameter is expected to be 2-dimensional", 2) end
    local m = Embedding(embeddings.shape[1], embeddings.shape[2], { _weight = embeddings, padding_idx = o.padding_idx,
      max_norm = o.max_norm, norm_type = o.norm_type, scale_grad_by_freq = o.scale_grad_by_freq, sparse = o.sparse })
    m.weight.requires_grad = not o.freeze
    return m
  end
  nn.Embedding = Embedding

  local LayerNorm = Module:subclass("nn.LayerNorm")
  function LayerNorm:__init(normalized_shape, ...)
    local opts = options({ "eps", "elementwise_affine", "device", "dtype" }, ...)
    if type(normalized_shape) ~= "table" and math.type(normalized_shape) ~= "integer" then
      error(("'%s' object is not iterable"):format(args.py_type(normalized_shape)), 2)
    end
    Module.__init(self)
    self.normalized_shape = shape_list(normalized_shape)
    self.eps = opts.eps or 1e-5
    self.elementwise_affine = opts.elementwise_affine ~= false
    if self.elementwise_affine then
      self.weight = nn.Parameter(nn._new_tensor(torch.ones, self.normalized_shape, opts))
      self.bias = nn.Parameter(nn._new_tensor(torch.zeros, self.normalized_shape, opts))
    end
  end
  function LayerNorm:forward(x)
    return F.layer_norm(x, self.normalized_shape, self.weight or nil, self.bias or nil, self.eps)
  end
  function LayerNorm:extra_repr()
    local parts = {}
    for i, s in ipairs(self.normalized_shape) do parts[i] = tostring(s) end
    return ("(%s%s), eps=%s, elementwise_affine=%s"):format(table.concat(parts, ", "), #parts == 1 and "," or "",
      py(self.eps), py(self.elementwise_affine))
  end
  nn.LayerNorm = LayerNorm

  local GroupNorm = Module:subclass("nn.GroupNorm")
  function GroupNorm:__init(num_groups, num_channels, ...)
    local opts = options({ "eps", "affine", "device", "dtype" }, ...)
    args.require("GroupNorm.__init__", { num_groups = num_groups, num_channels = num_channels },
      { "num_groups", "num_channels" })
    args.int("num_groups", num_groups)
    args.int("num_channels", num_channels)
    if num_groups == 0 then error("integer division or modulo by zero", 2) end
    Module.__init(self)
    if num_channels % num_groups ~= 0 then error("num_channels must be divisible by num_groups", 2) end
    self.num_groups, self.num_channels = num_groups, num_channels
    self.eps, self.affine = opts.eps or 1e-5, opts.affine ~= false
    if self.affine then
      self.weight = nn.Parameter(nn._new_tensor(torch.ones, { num_channels }, opts))
      self.bias = nn.Parameter(nn._new_tensor(torch.zeros, { num_channels }, opts))
    end
  end
  function GroupNorm:forward(x) return F.group_norm(x, self.num_groups, self.weight or nil, self.bias or nil, self.eps) end
  function GroupNorm:extra_repr()
    return ("%d, %d, eps=%s, affine=%s"):format(self.num_groups, self.num_channels, py(self.eps), py(self.affine))
  end
  nn.GroupNorm = GroupNorm

  -- the weight and bias (affine) and running statistics (track_running_stats) of the batch
  -- and instance norms, in PyTorch's order, dtype and device
  local function add_affine_and_stats(self, num_features, opts)
      local new = nn._new_tensor
      if self.affine then
        self.weight = nn.Parameter(new(torch.ones, { num_features }, opts))
        self.bias = nn.Parameter(new(torch.zeros, { num_features }, opts))
      end
      if self.track_running_stats then
        self:register_buffer("running_mean", new(torch.zeros, { num_features }, opts))
        self:register_buffer("running_var", new(torch.ones, { num_features }, opts))
        self:register_buffer("num_batches_tracked", new(torch.zeros, {}, { dtype = torch.int64, device = opts.device }))
      end
  end

  local function batch_norm_class(name, dims)
    local cls = Module:subclass("nn." .. name)
    function cls:__init(num_features, ...)
      local opts = options({ "eps", "momentum", "affine", "track_running_stats", "device", "dtype" }, ...)
      args.require(name .. ".__init__", { num_features = num_features }, { "num_features" })
      args.int("num_features", num_features)
      Module.__init(self)
      self.num_features = num_features
      self.eps = opts.eps or 1e-5
      self.momentum = opts.momentum == nil and 0.1 or opts.momentum
      self.affine = opts.affine ~= false
      self.track_running_stats = opts.track_running_stats ~= false
      add_affine_and_stats(self, num_features, opts)
    end
    function cls:forward(x)
      if not dims[x:dim()] then
        error(("expected %s input (got %dD input)"):format(dims.text, x:dim()), 2)
      end
      local training = self.training or not self.track_running_stats
      if self.training and self.track_running_stats then
        torch.no_grad(function() self.num_batches_tracked:add_(1) end)
      end
      return F.batch_norm(x, self.running_mean or nil, self.running_var or nil, { weight = self.weight or nil,
        bias = self.bias or nil, training = training, momentum = self.momentum, eps = self.eps })
    end
    function cls:extra_repr()
      return ("%d, eps=%s, momentum=%s, affine=%s, track_running_stats=%s"):format(self.num_features, py(self.eps),
        py(self.momentum), py(self.affine), py(self.track_running_stats))
    end
    nn[name] = cls
  end
  batch_norm_class("BatchNorm1d", { [2] = true, [3] = true, text = "2D or 3D" })
  batch_norm_class("BatchNorm2d", { [4] = true, text = "4D" })
  batch_norm_class("BatchNorm3d", { [5] = true, text = "5D" })

  -- F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats = true,
  -- momentum = 0.1, eps = 1e-5), positionally or by name
  local in_names = { "running_mean", "running_var", "weight", "bias", "use_input_stats", "momentum", "eps" }
  function F.instance_norm(input, ...)
    local o = args.parse_at(2, "instance_norm", in_names, { use_input_stats = true, momentum = 0.1, eps = 1e-5 }, ...)
    return torch.instance_norm(input, o.weight, o.bias, o.running_mean, o.running_var, o.use_input_stats, o.momentum,
      o.eps, false)
  end

  -- InstanceNorm1d/2d/3d(num_features, eps = 1e-5, momentum = 0.1, affine = false,
  -- track_running_stats = false): unbatched input (one dim fewer) is taken as a batch of one
  local function instance_norm_class(name, nsp)
    local cls = Module:subclass("nn." .. name)
    function cls:__init(num_features, ...)
      local opts = options({ "eps", "momentum", "affine", "track_running_stats", "device", "dtype" }, ...)
      args.require(name .. ".__init__", { num_features = num_features }, { "num_features" })
      args.int("num_features", num_features)
      Module.__init(self)
      self.num_features, self.eps = num_features, opts.eps or 1e-5
      self.momentum = opts.momentum == nil and 0.1 or opts.momentum
      self.affine, self.track_running_stats = opts.affine or false, opts.track_running_stats or false
      add_affine_and_stats(self, num_features, opts)
    end
    function cls:forward(x)
      if x:dim() ~= nsp + 1 and x:dim() ~= nsp + 2 then
        error(("expected %dD or %dD input (got %dD input)"):format(nsp + 1, nsp + 2, x:dim()), 2)
      end
      local unbatched = x:dim() == nsp + 1
      if unbatched then x = x:unsqueeze(1) end
      local out = F.instance_norm(x, self.running_mean or nil, self.running_var or nil, self.weight or nil,
        self.bias or nil, self.training or not self.track_running_stats, self.momentum, self.eps)
      if unbatched then out = out:squeeze(1) end
      return out
    end
    function cls:extra_repr()
      return ("%d, eps=%s, momentum=%s, affine=%s, track_running_stats=%s"):format(self.num_features, py(self.eps),
        py(self.momentum), py(self.affine), py(self.track_running_stats))
    end
    nn[name] = cls
  end
  instance_norm_class("InstanceNorm1d", 1)
  instance_norm_class("InstanceNorm2d", 2)
  instance_norm_class("InstanceNorm3d", 3)
end
