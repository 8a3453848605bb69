-- lazy.lua: PyTorch's lazy modules. nn.UninitializedParameter / nn.UninitializedBuffer stand
-- for tensors whose shape is not known yet; LazyLinear, LazyConv*, LazyConvTranspose*,
-- LazyBatchNorm* and LazyInstanceNorm* hold them until the first forward, where a forward
-- pre-hook sizes them from the input (initialize_parameters), runs reset_parameters (the same
-- random stream as the ordinary class under the same seed) and turns the module into its
-- ordinary class (cls_to_become: nn.Linear, nn.Conv2d, ...). load_state_dict sizes them from the
-- loaded tensors. Differences from PyTorch: an uninitialized parameter is a Lua object, not a
-- tensor (torch.is_tensor is false), and materializing it makes a new tensor, so an optimizer
-- built before the first forward keeps the placeholders.
return function(torch, nn)
  local class = require "mindtorch._class"
  local Module = nn.Module

  -- ---- the placeholders ----------------------------------------------------------------------------
  local SHAPE_MSG = "Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
    .. "in `load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
    .. "`forward` to initialize the parameters before accessing their attributes."
  local USE_MSG = "Attempted to use an uninitialized parameter in <method '%s' of 'torch._C._TensorBase' "
    .. "objects>. This error happens when you are using a `LazyModule` or explicitly manipulating "
    .. "`torch.nn.parameter.UninitializedParameter` objects. When using LazyModules Call `forward` with a dummy "
    .. "batch to initialize the parameters before calling torch functions"

  nn._UNINIT_SHAPE_MSG = SHAPE_MSG
  local Uninit = {} -- the methods both placeholders answer (their own fields come first)
  local function is_uninit(v) return type(v) == "table" and rawget(v, "_uninitialized") == true end
  nn._is_uninitialized = is_uninit
  local dtype_mt = getmetatable(torch.float32)

  local function make(name, requires_grad_default)
    local mt = { __name = name }
    function mt.__index(self, k)
      if k == "shape" then error(SHAPE_MSG, 2) end
      local m = Uninit[k]
      if m ~= nil then return m end
      if type(torch.Tensor[k]) == "function" then
        return function() error(USE_MSG:format(k), 2) end
      end
      return nil
    end
    mt.__tostring = function() return "<" .. name .. ">" end
    for op, meth in pairs { __add = "add", __sub = "sub", __mul = "mul", __div = "div", __unm = "neg",
      __pow = "pow", __mod = "remainder", __idiv = "floor_divide" } do
      mt[op] = function() error(USE_MSG:format(meth), 2) end
    end
    -- nn.UninitializedParameter(requires_grad = true, device, dtype), or an options table
    local function new(...)
      local o = require("mindtorch._args").parse_at(2, "__new__", { "requires_grad", "device", "dtype" },
        { requires_grad = requires_grad_default }, ...)
      return setmetatable({ _uninitialized = true, _is_parameter = name == "UninitializedParameter" or nil,
        requires_grad = o.requires_grad, dtype = o.dtype or torch.get_default_dtype(),
        device = torch.device(o.device or "cpu"), _kind = name }, mt)
    end
    class.register_metatable("nn." .. name, mt)
    return setmetatable({ __name = name, new = new, isinstance = function(_, v) return getmetatable(v) == mt end },
      { __call = function(_, ...) return new(...) end, __tostring = function()
        return "<class 'torch.nn.parameter." .. name .. "'>" end })
  end
  nn.UninitializedParameter = make("UninitializedParameter", true)
  nn.UninitializedBuffer = make("UninitializedBuffer", false)
  nn.parameter = nn.parameter or {}
  nn.parameter.Parameter = nn.Parameter
  nn.parameter.UninitializedParameter = nn.UninitializedParameter
  nn.parameter.UninitializedBuffer = nn.UninitializedBuffer
  nn.parameter.is_lazy = is_uninit

  -- p:materialize(shape, device, dtype): the tensor p stands for (a Parameter for an
  -- UninitializedParameter, a plain tensor for a buffer), uninitialized memory of that shape
  function Uninit:materialize(shape, device, dtype)
    if type(shape) ~= "table" and not (math.type(shape) == "integer") then
      error(("empty() received an invalid combination of arguments - got (%s, dtype=torch.dtype, "
        .. "device=torch.device)"):format(require("mindtorch._args").py_type(shape)), 2)
    end
    local t = torch.empty(shape, { dtype = dtype or self.dtype, device = device or self.device })
    if self._kind == "UninitializedParameter" then return nn.Parameter(t, self.requires_grad) end
    t.requires_grad = self.requires_grad
    return t
  end
  function Uninit:detach() return self end
  function Uninit:is_floating_point() return self.dtype.is_floating_point end
  function Uninit:requires_grad_(on)
    rawset(self, "requires_grad", on == nil or on)
    return self
  end
  -- conversions change the placeholder's dtype or device (Module:to/float/double reach it)
  function Uninit:to(...)
    for i = 1, select("#", ...) do
      local a = select(i, ...)
      if getmetatable(a) == dtype_mt then
        rawset(self, "dtype", a)
      elseif type(a) == "string" or (type(a) == "userdata" and not torch.is_tensor(a)) then
        rawset(self, "device", torch.device(a))
      elseif type(a) == "table" and not getmetatable(a) then
        if a.dtype then rawset(self, "dtype", a.dtype) end
        if a.device then rawset(self, "device", torch.device(a.device)) end
      end
    end
    return self
  end
  function Uninit:float() return self:to(torch.float32) end
  function Uninit:double() return self:to(torch.float64) end
  function Uninit:half() return self:to(torch.float16) end
  function Uninit:bfloat16() return self:to(torch.bfloat16) end
  function Uninit:cpu() return self:to("cpu") end
  function Uninit:type(dt) return self:to(dt) end
  function Uninit:size() return torch.empty(0):size() end -- PyTorch answers torch.Size([0])

  -- ---- the lazy mixin ---------------------------------------------------------------------------------
  local function own_entries(self)
    local out = {}
    for _, reg in ipairs { "_parameters", "_buffers" } do
      local r = self[reg]
      for _, name in ipairs(r.order) do out[#out + 1] = { r, name, r.items[name] } end
    end
    return out
  end

  local Lazy = {}
  function Lazy:has_uninitialized_params()
    for _, e in ipairs(own_entries(self)) do
      if is_uninit(e[3]) then return true end
    end
    return false
  end
  -- self:_materialize(name, shape): the placeholder called name replaced by its tensor
  function Lazy:_materialize(name, shape)
    for _, reg in ipairs { "_parameters", "_buffers" } do
      local r = self[reg]
      if r.present[name] and is_uninit(r.items[name]) then
        r.items[name] = r.items[name]:materialize(shape)
        return
      end
    end
  end
  -- the forward pre-hook: size from the input, then become cls_to_become
  function Lazy:_infer_parameters(args)
    local x = args[1]
    if not torch.is_tensor(x) then -- the check call() makes after the hooks, made before sizing
      if x == nil then error("forward() missing 1 required positional argument: 'input'", 3) end
      error(("forward(): argument 'input' (position 1) must be Tensor, not %s"):format(
        require("mindtorch._args").py_type(x)), 3)
    end
    self:initialize_parameters(table.unpack(args, 1, args.n))
    if self:has_uninitialized_params() then
      error(("module %s has not been fully initialized"):format(self:_get_name()), 3)
    end
    rawget(self, "_initialize_hook"):remove()
    rawset(self, "_initialize_hook", nil)
    rawset(self, "_lazy_load_hook", nil)
    class.set_class(self, getmetatable(self).cls_to_become)
  end
  -- load_state_dict's hook (module.lua): each placeholder with a tensor under its key takes
  -- that tensor's shape
  function Lazy:_load_lazy(sd, prefix)
    for _, e in ipairs(own_entries(self)) do
      local v = sd[prefix .. e[2]]
      if is_uninit(e[3]) and torch.is_tensor(v) then
        torch.no_grad(function() e[1].items[e[2]] = e[3]:materialize(v.shape) end)
      end
    end
  end

  -- placeholders in place of the tensors the parent's __init made (same dtype and device)
  local function to_placeholders(self, names)
    for _, name in ipairs(names) do
      for _, reg in ipairs { "_parameters", "_buffers" } do
        local r = self[reg]
        local t = r.present[name] and r.items[name]
        if t then
          local ctor = reg == "_parameters" and nn.UninitializedParameter or nn.UninitializedBuffer
          r.items[name] = ctor({ requires_grad = t.requires_grad, dtype = t.dtype, device = t.device })
        end
      end
    end
  end

  -- the forward pre-hook of every lazy module (a named function: torch.save writes it by name)
  function nn._lazy_initialize_hook(m, args) return m:_infer_parameters(args) end

  local WARN = "Lazy modules are a new feature under heavy development so changes to the API or functionality "
    .. "can happen at any moment."
  local function lazy_class(name, parent, cls_to_become)
    local cls = parent:subclass("nn." .. name)
    for k, v in pairs(Lazy) do cls[k] = v end
    cls.cls_to_become = cls_to_become
    cls._lazy_setup = function(self)
      warn(WARN)
      rawset(self, "_initialize_hook", self:register_forward_pre_hook(nn._lazy_initialize_hook))
      rawset(self, "_lazy_load_hook", true)
    end
    nn[name] = cls
    return cls
  end

  -- ---- LazyLinear ---------------------------------------------------------------------------------------
  -- LazyLinear(out_features, bias = true, device, dtype): in_features from input.shape[-1]
  local LazyLinear = lazy_class("LazyLinear", nn.Linear, nn.Linear)
  function LazyLinear:__init(out_features, ...)
    nn.Linear.__init(self, 0, out_features, ...)
    to_placeholders(self, { "weight", "bias" })
    self:_lazy_setup()
  end
  function LazyLinear:reset_parameters()
    if not self:has_uninitialized_params() and self.in_features ~= 0 then nn.Linear.reset_parameters(self) end
  end
  function LazyLinear:initialize_parameters(input, ...)
    if select("#", ...) > 0 then
      error(("LazyLinear.initialize_parameters() takes 2 positional arguments but %d were given"):format(
        select("#", ...) + 2), 2)
    end
    if self:has_uninitialized_params() then
      torch.no_grad(function()
        self.in_features = input.shape[input:dim()]
        self:_materialize("weight", { self.out_features, self.in_features })
        self:_materialize("bias", { self.out_features })
        self:reset_parameters()
      end)
    end
  end

  -- ---- lazy convolutions ---------------------------------------------------------------------------------
  local function lazy_conv(name, nsp, transposed)
    local base = nn[name]
    local cls = lazy_class("Lazy" .. name, base, base)
    -- LazyConv2d(out_channels, kernel_size, ...): the rest as Conv2d's after its in_channels
    function cls:__init(out_channels, kernel_size, ...)
      base.__init(self, 0, 0, kernel_size, ...)
      self.out_channels = out_channels
      to_placeholders(self, { "weight", "bias" })
      self:_lazy_setup()
    end
    function cls:reset_parameters()
      if not self:has_uninitialized_params() and self.in_channels ~= 0 then base.reset_parameters(self) end
    end
    function cls:initialize_parameters(input)
      if not self:has_uninitialized_params() then return end
      local d = input:dim()
      if d ~= nsp + 1 and d ~= nsp + 2 then
        error(("Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s"):format(
          nsp + 1, nsp + 2, self:_get_name(), tostring(input.shape)), 3)
      end
      local in_channels = d == nsp + 1 and input.shape[1] or input.shape[2]
      self.in_channels = in_channels
      if in_channels % self.groups ~= 0 then error("in_channels must be divisible by groups", 3) end
      local w = transposed and { in_channels, self.out_channels // self.groups }
        or { self.out_channels, in_channels // self.groups }
      for _, k in ipairs(self.kernel_size) do w[#w + 1] = k end
      torch.no_grad(function()
        self:_materialize("weight", w)
        self:_materialize("bias", { self.out_channels })
        self:reset_parameters()
      end)
    end
  end
  for nsp = 1, 3 do
    lazy_conv("Conv" .. nsp .. "d", nsp, false)
    lazy_conv("ConvTranspose" .. nsp .. "d", nsp, true)
  end

  -- ---- lazy norms -------------------------------------------------------------------------------------------
  -- LazyBatchNorm1d(eps = 1e-5, momentum = 0.1, affine = true, track_running_stats = true, device,
  -- dtype); LazyInstanceNorm* has the same defaults (affine and running stats on, as PyTorch 1.13's)
  local norm_names = { "eps", "momentum", "affine", "track_running_stats", "device", "dtype" }
  local function lazy_norm(name, check)
    local base = nn[name]
    local cls = lazy_class("Lazy" .. name, base, base)
    function cls:__init(...)
      local o = require("mindtorch._args").parse_at(3, "__init__", norm_names,
        { eps = 1e-5, momentum = 0.1, affine = true, track_running_stats = true }, ...)
      base.__init(self, 0, o)
      to_placeholders(self, { "weight", "bias", "running_mean", "running_var" })
      self:_lazy_setup()
    end
    function cls:reset_parameters()
      if self:has_uninitialized_params() or self.num_features == 0 then return end
      torch.no_grad(function()
        if self.track_running_stats then
          self.running_mean:zero_()
          self.running_var:fill_(1)
          self.num_batches_tracked:zero_()
        end
        if self.affine then
          self.weight:fill_(1)
          self.bias:zero_()
        end
      end)
    end
    function cls:initialize_parameters(input)
      if not self:has_uninitialized_params() then return end
      check(self, input)
      self.num_features = input.shape[2]
      torch.no_grad(function()
        for _, n in ipairs { "weight", "bias", "running_mean", "running_var" } do
          self:_materialize(n, { self.num_features })
        end
        self:reset_parameters()
      end)
    end
  end
  local function dims_check(ok, text)
    return function(_, x)
      if not ok[x:dim()] then error(("expected %s input (got %dD input)"):format(text, x:dim()), 4) end
    end
  end
  lazy_norm("BatchNorm1d", dims_check({ [2] = true, [3] = true }, "2D or 3D"))
  lazy_norm("BatchNorm2d", dims_check({ [4] = true }, "4D"))
  lazy_norm("BatchNorm3d", dims_check({ [5] = true }, "5D"))
  for nsp = 1, 3 do
    lazy_norm("InstanceNorm" .. nsp .. "d", function(_, x)
      if x:dim() ~= nsp + 1 and x:dim() ~= nsp + 2 then
        error(("expected %dD or %dD input (got %dD input)"):format(nsp + 1, nsp + 2, x:dim()), 4)
      end
    end)
  end
end
