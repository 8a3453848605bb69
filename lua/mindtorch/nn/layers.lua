-- layers.lua: the basic layers (Identity, Linear, Flatten, Unflatten, Dropout), the
-- activations, the containers (Sequential, ModuleList, ModuleDict) and the loss modules.
-- Each repr is PyTorch's.
return function(torch, nn)
  local Module, F, init = nn.Module, nn.functional, nn.init
  local args = require "mindtorch._args"
  local class = require "mindtorch._class"
  local function is_module(v) return type(v) == "table" and rawget(v, "_modules") ~= nil end

  local function py(v) -- a value as Python prints it in a repr
    if v == true then return "True" end
    if v == false then return "False" end
    if v == nil then return "None" end
    if type(v) == "string" then return "'" .. v .. "'" end
    if math.type(v) == "float" and v == math.floor(v) and math.abs(v) < 1e16 then return ("%.1f"):format(v) end
    return tostring(v)
  end
  nn._py = py

  -- ---- basic layers ----------------------------------------------------------------------------------
  -- the arguments after the sizes: bias, device, dtype (PyTorch's order) or an options table
  local layer_names, layer_defaults = { "bias", "device", "dtype" }, { bias = true }
  -- nn._new_tensor(fn, sizes, o): fn(sizes) with the dtype and device of a constructor's
  -- options o (PyTorch's factory_kwargs), when it has any
  function nn._new_tensor(fn, sizes, o)
    if o.dtype or o.device then return fn(sizes, { dtype = o.dtype, device = o.device }) end
    return fn(sizes)
  end
  local function empty_like_opts(o, ...)
    if o.dtype or o.device then return torch.empty({ ... }, { dtype = o.dtype, device = o.device }) end
    return torch.empty(...)
  end

  local Identity = Module:subclass("nn.Identity")
  function Identity:__init() Module.__init(self) end
  function Identity:forward(x) return x end
  nn.Identity = Identity

  local Linear = Module:subclass("nn.Linear")
  function Linear:__init(in_features, out_features, ...)
    local o = args.parse_at(3, "__init__", layer_names, layer_defaults, ...)
    Module.__init(self)
    self.in_features, self.out_features = in_features, out_features
    self.weight = nn.Parameter(empty_like_opts(o, out_features, in_features))
    if o.bias then self.bias = nn.Parameter(empty_like_opts(o, out_features)) else self:register_parameter("bias", nil) end
    self:reset_parameters()
  end
  -- PyTorch's: kaiming_uniform_(a = sqrt(5)) for the weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias
  function Linear:reset_parameters()
    init.kaiming_uniform_(self.weight, { a = math.sqrt(5) })
    if self.bias then
      local fan_in = self.in_features
      local bound = fan_in > 0 and 1 / math.sqrt(fan_in) or 0
      init.uniform_(self.bias, -bound, bound)
    end
  end
  function Linear:forward(x) return F.linear(x, self.weight, self.bias or nil) end
  function Linear:extra_repr()
    return ("in_features=%d, out_features=%d, bias=%s"):format(self.in_features, self.out_features, py(self.bias ~= false))
  end
  nn.Linear = Linear

  -- Flatten(start_dim = 2, end_dim = -1): dims are 1-based (PyTorch's default start_dim=1)
  local Flatten = Module:subclass("nn.Flatten")
  function Flatten:__init(start_dim, end_dim)
    Module.__init(self)
    self.start_dim, self.end_dim = start_dim or 2, end_dim or -1
  end
  function Flatten:forward(x) return x:flatten(self.start_dim, self.end_dim) end
  function Flatten:extra_repr() return ("start_dim=%d, end_dim=%d"):format(self.start_dim, self.end_dim) end
  nn.Flatten = Flatten

  local Unflatten = Module:subclass("nn.Unflatten")
  function Unflatten:__init(dim, sizes)
    args.require("Unflatten.__init__", { dim = dim, unflattened_size = sizes }, { "dim", "unflattened_size" })
    if math.type(dim) ~= "integer" then error(("invalid type for dim: %s"):format(args.py_type(dim)), 2) end
    if type(sizes) ~= "table" then
      error(("unflattened_size must be a tuple of ints, but found type %s"):format(args.py_type(sizes)), 2)
    end
    local copy = {} -- a plain copy: the repr and forward never see the caller's __len again
    for i = 1, args.len(sizes, 16, "unflattened_size") do
      local v = sizes[i]
      if math.type(v) ~= "integer" then
        error(("unflattened_size must be tuple of ints, but found element of type %s at pos %d"):format(
          args.py_type(v), i), 2)
      end
      copy[i] = v
    end
    Module.__init(self)
    self.dim, self.unflattened_size = dim, copy
  end
  function Unflatten:forward(x) return x:unflatten(self.dim, self.unflattened_size) end
  function Unflatten:extra_repr()
    return ("dim=%d, unflattened_size=(%s)"):format(self.dim, table.concat(self.unflattened_size, ", "))
  end
  nn.Unflatten = Unflatten

  local Bilinear = Module:subclass("nn.Bilinear")
  function Bilinear:__init(in1_features, in2_features, out_features, ...)
    local o = args.parse_at(3, "__init__", layer_names, layer_defaults, ...)
    Module.__init(self)
    self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
    self.weight = nn.Parameter(empty_like_opts(o, out_features, in1_features, in2_features))
    self.bias = o.bias and nn.Parameter(empty_like_opts(o, out_features)) or false
    self:reset_parameters()
  end
  function Bilinear:reset_parameters()
    local bound = 1 / math.sqrt(self.weight.shape[2])
    init.uniform_(self.weight, -bound, bound)
    if self.bias then init.uniform_(self.bias, -bound, bound) end
  end
  function Bilinear:forward(x1, x2) return F.bilinear(x1, x2, self.weight, self.bias or nil) end
  function Bilinear:extra_repr()
    return ("in1_features=%d, in2_features=%d, out_features=%d, bias=%s"):format(self.in1_features,
      self.in2_features, self.out_features, py(self.bias ~= false))
  end
  nn.Bilinear = Bilinear

  local Dropout = Module:subclass("nn.Dropout")
  function Dropout:__init(...)
    Module.__init(self)
    local o = args.parse_at(3, "__init__", { "p", "inplace" }, nil, ...)
    local p, inplace = o.p or 0.5, o.inplace
    if type(p) ~= "number" then
      error(("'<' not supported between instances of '%s' and 'int'"):format(args.py_type(p)), 2)
    end
    if p < 0 or p > 1 then error(("dropout probability has to be between 0 and 1, but got %s"):format(p), 2) end
    self.p, self.inplace = p, inplace or false
  end
  function Dropout:forward(x) return F.dropout(x, self.p, self.training, self.inplace) end
  function Dropout:extra_repr() return ("p=%s, inplace=%s"):format(py(self.p), py(self.inplace)) end
  nn.Dropout = Dropout

  -- ---- activations ---------------------------------------------------------------------------------
  local function opts_of(fname, opts, spec) return args.options(fname, opts, spec, nil, 3) end -- a tail call
  local function activation(name, fields, forward, repr)
    local cls = Module:subclass("nn." .. name)
    local spec = {}
    for _, f in ipairs(fields) do spec[f[1]] = "any" end
    function cls:__init(...)
      Module.__init(self)
      local args = table.pack(...)
      local opts = type(args[1]) == "table" and opts_of("__init__", args[1], spec) or nil
      for i, f in ipairs(fields) do
        local v
        if opts then v = opts[f[1]] else v = args[i] end
        if v == nil then v = f[2] end
        self[f[1]] = v
      end
    end
    cls.forward = forward
    function cls:extra_repr()
      if repr then return repr(self) end
      local parts = {}
      for _, f in ipairs(fields) do parts[#parts + 1] = f[1] .. "=" .. py(self[f[1]]) end
      return table.concat(parts, ", ")
    end
    nn[name] = cls
    return cls
  end
  local function inplace_repr(self) return self.inplace and "inplace=True" or "" end
  activation("ReLU", { { "inplace", false } }, function(self, x) return F.relu(x, self.inplace) end, inplace_repr)
  activation("SiLU", { { "inplace", false } }, function(self, x) return F.silu(x, self.inplace) end, inplace_repr)
  activation("Tanh", {}, function(_, x) return x:tanh() end)
  activation("Sigmoid", {}, function(_, x) return x:sigmoid() end)
  activation("Mish", { { "inplace", false } }, function(_, x) return F.mish(x) end, inplace_repr)
  activation("GELU", { { "approximate", "none" } }, function(self, x) return F.gelu(x, { approximate = self.approximate }) end)
  activation("LeakyReLU", { { "negative_slope", 0.01 }, { "inplace", false } },
    function(self, x) return F.leaky_relu(x, self.negative_slope, self.inplace) end,
    function(self) return "negative_slope=" .. py(self.negative_slope) .. (self.inplace and ", inplace=True" or "") end)
  activation("ELU", { { "alpha", 1.0 }, { "inplace", false } }, function(self, x) return F.elu(x, self.alpha, self.inplace) end,
    function(self) return "alpha=" .. py(self.alpha) .. (self.inplace and ", inplace=True" or "") end)
  activation("Softplus", { { "beta", 1 }, { "threshold", 20 } }, function(self, x) return F.softplus(x, self.beta, self.threshold) end)
  activation("Hardtanh", { { "min_val", -1.0 }, { "max_val", 1.0 }, { "inplace", false } },
    function(self, x) return F.hardtanh(x, self.min_val, self.max_val, self.inplace) end,
    function(self) return ("min_val=%s, max_val=%s"):format(py(self.min_val), py(self.max_val)) .. (self.inplace and ", inplace=True" or "") end)
  activation("Softmax", { { "dim", nil } }, function(self, x) return F.softmax(x, self.dim) end,
    function(self) return "dim=" .. py(self.dim) end)
  activation("LogSoftmax", { { "dim", nil } }, function(self, x) return F.log_softmax(x, self.dim) end,
    function(self) return "dim=" .. py(self.dim) end)

  -- ---- containers -----------------------------------------------------------------------------------------
  local module_index = Module.__index

  -- Sequential(m1, m2, ...): submodules named "0", "1", ... (PyTorch's names); seq[i] is the
  -- i-th (1-based), #seq their number
  local Sequential = Module:subclass("nn.Sequential")
  function Sequential:__init(...)
    Module.__init(self)
    for i, m in ipairs({ ... }) do self:add_module(tostring(i - 1), m) end
  end
  function Sequential:forward(x)
    for _, m in ipairs(self:children()) do x = m(x) end
    return x
  end
  function Sequential:append(m)
    self:add_module(tostring(#self._modules.order), m)
    return self
  end
  Sequential.__index = function(self, k)
    if math.type(k) == "integer" then
      local n = #self._modules.order
      if k == n + 1 then return nil end -- the end of a Lua list: ipairs(seq) stops here
      if k < 0 then k = n + k + 1 end
      if k < 1 or k > n then error(("index %d is out of range"):format(k), 2) end
      return self._modules.items[self._modules.order[k]]
    end
    return module_index(self, k)
  end
  Sequential.__len = function(self) return #self._modules.order end

  -- the children in order, and a reset of the registry to list, named "0", "1", ... again
  -- (PyTorch renumbers after a deletion or an insertion)
  local function child_list(self)
    local out = {}
    for i, name in ipairs(self._modules.order) do out[i] = self._modules.items[name] end
    return out
  end
  local function renumber(self, list)
    local r = self._modules
    r.order, r.items, r.present = {}, {}, {}
    for i, m in ipairs(list) do self:add_module(tostring(i - 1), m) end
  end
  -- a 1-based position (negative counts from the end) checked against n entries
  local function position(k, n, level)
    if math.type(k) ~= "integer" then
      error(("indices must be integers, not %s"):format(args.py_type(k)), level + 1)
    end
    local i = k < 0 and n + k + 1 or k
    if i < 1 or i > n then error(("index %d is out of range"):format(k), level + 1) end
    return i
  end

  -- seq:insert(index, module): module at position index (1-based; n + 1 appends; negative
  -- counts from the end as PyTorch's), the rest shifted and renamed
  function Sequential:insert(index, module)
    if not is_module(module) then error("module should be of type: <class 'torch.nn.modules.module.Module'>", 2) end
    local list = child_list(self)
    local n = #list
    if math.type(index) ~= "integer" or index < -n or index > n + 1 or index == 0 then
      error(("Index out of range: %s"):format(tostring(index)), 2)
    end
    table.insert(list, index < 0 and n + index + 1 or index, module)
    renumber(self, list)
    return self
  end
  -- seq:pop(index): removes and returns the module at index (1-based, negative from the end)
  function Sequential:pop(index)
    local list = child_list(self)
    local m = table.remove(list, position(index, #list, 2))
    renumber(self, list)
    return m
  end
  nn.Sequential = Sequential

  local ModuleList = Module:subclass("nn.ModuleList")
  local function check_iterable(mods, level)
    if type(mods) ~= "table" or is_module(mods) then
      error(("ModuleList.extend should be called with an iterable, but got %s"):format(
        is_module(mods) and getmetatable(mods).__name or args.py_type(mods)), level + 1)
    end
  end
  function ModuleList:__init(mods)
    Module.__init(self)
    if mods ~= nil then
      check_iterable(mods, 2)
      for _, m in ipairs(mods) do self:append(m) end
    end
  end
  function ModuleList:append(m)
    self:add_module(tostring(#self._modules.order), m)
    return self
  end
  -- ml:extend(mods): PyTorch's, appends each module of the list. On the class itself it is the
  -- older spelling of ModuleList:subclass(name).
  function ModuleList:extend(mods)
    if class.is_class(self) then return class.class(mods, self) end
    check_iterable(mods, 2)
    for _, m in ipairs(mods) do self:append(m) end
    return self
  end
  ModuleList.extend_with = ModuleList.extend -- the name extend had before it was free
  -- ml:insert(index, module): as Sequential's, but with PyTorch's ModuleList rule that a
  -- position past the end appends
  function ModuleList:insert(index, module)
    local list = child_list(self)
    if math.type(index) ~= "integer" then
      error(("'%s' object cannot be interpreted as an integer"):format(args.py_type(index)), 2)
    end
    local n = #list
    local i = index < 0 and math.max(n + index + 1, 1) or math.min(math.max(index, 1), n + 1)
    table.insert(list, i, module)
    renumber(self, list)
  end
  ModuleList.pop = Sequential.pop
  ModuleList.__index = Sequential.__index
  ModuleList.__len = Sequential.__len
  ModuleList.__pairs = function(self)
    local i = 0
    return function()
      i = i + 1
      if i <= #self._modules.order then return i, self._modules.items[self._modules.order[i]] end
    end, self, nil
  end
  nn.ModuleList = ModuleList

  local ModuleDict = Module:subclass("nn.ModuleDict")
  function ModuleDict:__init(mods)
    Module.__init(self)
    if mods ~= nil and (type(mods) ~= "table" or is_module(mods)) then
      error(("ModuleDict.update should be called with an iterable of key/value pairs, but got %s"):format(
        is_module(mods) and getmetatable(mods).__name or args.py_type(mods)), 2)
    end
    if mods then
      local names = {}
      for k in pairs(mods) do names[#names + 1] = k end
      table.sort(names)
      for _, k in ipairs(names) do self:add_module(k, mods[k]) end
    end
  end
  function ModuleDict:keys() return { table.unpack(self._modules.order) } end
  function ModuleDict:items() return self:named_children() end
  function ModuleDict:values() return child_list(self) end
  function ModuleDict:clear()
    local r = self._modules
    r.order, r.items, r.present = {}, {}, {}
  end
  -- md:pop(key): removes and returns the module named key
  function ModuleDict:pop(key)
    local m = self._modules.present[key] and self._modules.items[key] or nil
    if m == nil then error(("KeyError: '%s'"):format(tostring(key)), 2) end
    local list, keys = {}, {}
    for _, name in ipairs(self._modules.order) do
      if name ~= key then keys[#keys + 1], list[#list + 1] = name, self._modules.items[name] end
    end
    self:clear()
    for i, name in ipairs(keys) do self:add_module(name, list[i]) end
    return m
  end
  -- md:update(modules): adds or replaces modules from a table of name = module (in sorted
  -- name order, as the constructor) or a list of {name, module} pairs (in their order)
  function ModuleDict:update(mods)
    if type(mods) ~= "table" or is_module(mods) then
      error(("ModuleDict.update should be called with an iterable of key/value pairs, but got %s"):format(
        is_module(mods) and getmetatable(mods).__name or args.py_type(mods)), 2)
    end
    if mods[1] ~= nil then
      for j, pair in ipairs(mods) do
        if type(pair) ~= "table" or #pair ~= 2 then
          error(("ModuleDict update sequence element #%d should be Iterable; is %s"):format(j - 1,
            args.py_type(pair)), 2)
        end
        self:add_module(pair[1], pair[2])
      end
      return
    end
    local names = {}
    for k in pairs(mods) do names[#names + 1] = k end
    table.sort(names)
    for _, k in ipairs(names) do self:add_module(k, mods[k]) end
  end
  nn.ModuleDict = ModuleDict

  -- ---- losses -------------------------------------------------------------------------------------------------
  local function loss_class(name, fn, fields)
    local cls = Module:subclass("nn." .. name)
    local spec = { reduction = "any" }
    for _, f in ipairs(fields or {}) do spec[f[1]] = "any" end
    function cls:__init(opts)
      if opts ~= nil and (type(opts) ~= "table" or torch.is_tensor(opts)) then
        error(("%s.__init__() takes its options in a table ({reduction = ...}), got %s"):format(name,
          args.py_type(opts)), 2)
      end
      opts = args.options("__init__", opts, spec, nil, 3)
      Module.__init(self)
      self.reduction = opts.reduction or "mean"
      for _, f in ipairs(fields or {}) do
        local v = opts[f[1]]
        if v == nil then v = f[2] end
        if torch.is_tensor(v) then self:register_buffer(f[1], v) else self[f[1]] = v end
      end
    end
    function cls:forward(input, target)
      local o = { reduction = self.reduction }
      for _, f in ipairs(fields or {}) do o[f[1]] = self[f[1]] end
      return fn(input, target, o)
    end
    nn[name] = cls
  end
  loss_class("MSELoss", F.mse_loss)
  loss_class("L1Loss", F.l1_loss)
  loss_class("SmoothL1Loss", F.smooth_l1_loss, { { "beta", 1.0 } })
  loss_class("HuberLoss", F.huber_loss, { { "delta", 1.0 } })
  loss_class("CrossEntropyLoss", F.cross_entropy, { { "weight" }, { "ignore_index", -100 }, { "label_smoothing", 0.0 } })
  loss_class("NLLLoss", F.nll_loss, { { "weight" }, { "ignore_index", -100 } })
  loss_class("BCELoss", F.binary_cross_entropy, { { "weight" } })
  loss_class("BCEWithLogitsLoss", F.binary_cross_entropy_with_logits, { { "weight" }, { "pos_weight" } })
  loss_class("KLDivLoss", F.kl_div, { { "log_target", false } })
end
