-- conv.lua: convolution and pooling layers (Conv1d/2d/3d, ConvTranspose1d/2d/3d,
-- MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d) and their nn.functional forms, over
-- the C ops of src/ops/nn.lua (the 3-D poolings' functions and the other poolings are
-- pooling_more.lua's). Arguments come positionally, as PyTorch's, or in an options table.
return function(torch, nn)
  local Module, F, init, py = nn.Module, nn.functional, nn.init, nn._py
  local args = require "mindtorch._args"

  -- the arguments after the fixed ones, in `names` order: positional, then by name in a
  -- trailing options table (mindtorch._args): f(x, 3, 2, { ceil_mode = true }). level: as
  -- parse_at's, seen from named's caller.
  local function named(level, fname, names, ...)
    local o = args.parse_at(level + 1, fname, names, nil, ...)
    local out = {}
    for i, n in ipairs(names) do out[i] = o[n] end
    return out
  end

  -- a size as Python prints it: 2, (3, 3), (3,)
  local function tuple(v)
    if type(v) ~= "table" then return py(v) end
    local parts = {}
    for i, x in ipairs(v) do parts[i] = py(x) end
    return "(" .. table.concat(parts, ", ") .. (#v == 1 and ",)" or ")")
  end
  nn._named, nn._tuple = named, tuple -- (pooling_more.lua's too)
  local function ntuple(v, n)
    if type(v) == "table" then return v end
    local t = {}
    for i = 1, n do t[i] = v end
    return t
  end

  -- ---- functional: convolutions ---------------------------------------------------------------
  -- padding = "valid" | "same" | ints: "same" pads (dilation * (k - 1)) in all, any odd one
  -- on the right/bottom (PyTorch's choice), by an explicit pad of the input
  local function conv_padding(input, weight, padding, stride, dilation, nsp)
    if type(padding) ~= "string" then return input, padding or 0 end
    if padding == "valid" then return input, 0 end
    if padding ~= "same" then error(("Invalid padding string: '%s'"):format(padding), 3) end
    for _, s in ipairs(ntuple(stride or 1, nsp)) do
      if s ~= 1 then error("padding='same' is not supported for strided convolutions", 3) end
    end
    local dil, pads, extra, odd = ntuple(dilation or 1, nsp), {}, {}, false
    for i = 1, nsp do
      local total = dil[i] * (weight.shape[2 + i] - 1)
      pads[i] = total // 2
      extra[i] = total - 2 * pads[i]
      odd = odd or extra[i] ~= 0
    end
    if odd then -- F.pad lists the last dim first
      local p = {}
      for i = nsp, 1, -1 do p[#p + 1] = 0; p[#p + 1] = extra[i] end
      input = F.pad(input, p)
    end
    return input, pads
  end

  local conv_names = { "bias", "stride", "padding", "dilation", "groups" }
  local function conv_fn(op, nsp)
    return function(input, weight, ...)
      local a = named(2, op, conv_names, ...)
      local x, padding = conv_padding(input, weight, a[3], a[2], a[4], nsp)
      return torch[op](x, weight, a[1], a[2] or 1, padding, a[4] or 1, a[5] or 1)
    end
  end
  F.conv1d = conv_fn("conv1d", 1)
  F.conv2d = conv_fn("conv2d", 2)
  F.conv3d = conv_fn("conv3d", 3)

  local tconv_names = { "bias", "stride", "padding", "output_padding", "groups", "dilation" }
  local function tconv_fn(op)
    return function(input, weight, ...)
      local a = named(2, op, tconv_names, ...)
      return torch[op](input, weight, a[1], a[2] or 1, a[3] or 0, a[4] or 0, a[5] or 1, a[6] or 1)
    end
  end
  F.conv_transpose1d = tconv_fn("conv_transpose1d")
  F.conv_transpose2d = tconv_fn("conv_transpose2d")
  F.conv_transpose3d = tconv_fn("conv_transpose3d")

  -- ---- functional: pooling -----------------------------------------------------------------------
  local max_names = { "stride", "padding", "dilation", "ceil_mode", "return_indices" }
  local function max_pool(nsp)
    return function(input, kernel_size, ...)
      local a = named(2, "max_pool" .. nsp .. "d", max_names, ...)
      local stride, padding, dilation, ceil = a[1] or {}, a[2] or 0, a[3] or 1, a[4] or false
      if not a[5] then
        return torch[nsp == 1 and "max_pool1d" or "max_pool2d"](input, kernel_size, stride, padding, dilation, ceil)
      end
      if nsp == 2 then return torch.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil) end
      -- 1-D with indices: a height-1 2-D pooling
      local one = function(v, d) return { 1, type(v) == "table" and v[1] or v or d } end
      local s = (type(stride) == "table" and #stride == 0) and kernel_size or stride
      local v, i = torch.max_pool2d_with_indices(input:unsqueeze(-2), one(kernel_size), one(s),
        { 0, type(padding) == "table" and padding[1] or padding }, one(dilation), ceil)
      return v:squeeze(-2), i:squeeze(-2)
    end
  end
  F.max_pool1d = max_pool(1)
  F.max_pool2d = max_pool(2)
  -- (F.max_pool3d, with its indices, is pooling_more.lua's)
  for nsp = 1, 2 do
    local pool = F["max_pool" .. nsp .. "d"]
    F["max_pool" .. nsp .. "d_with_indices"] = function(input, k, ...)
      local a = named(2, "max_pool" .. nsp .. "d_with_indices", max_names, ...)
      return pool(input, k, a[1], a[2], a[3], a[4], true)
    end
  end

  local avg_names = { "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override" }
  F.avg_pool1d = function(input, kernel_size, ...)
    local a = named(2, "avg_pool1d", avg_names, ...)
    local cip = a[4]
    if cip == nil then cip = true end
    return torch.avg_pool1d(input, kernel_size, a[1] or {}, a[2] or 0, a[3] or false, cip)
  end
  F.avg_pool2d = function(input, kernel_size, ...)
    local a = named(2, "avg_pool2d", avg_names, ...)
    local cip = a[4]
    if cip == nil then cip = true end
    return torch.avg_pool2d(input, kernel_size, a[1] or {}, a[2] or 0, a[3] or false, cip, a[5])
  end
  F.adaptive_avg_pool1d = function(input, output_size) return torch.adaptive_avg_pool1d(input, output_size) end
  F.adaptive_avg_pool2d = function(input, output_size) return torch.adaptive_avg_pool2d(input, output_size) end

  -- ---- convolution modules -----------------------------------------------------------------------
  local function conv_class(name, nsp, transposed)
    local cls = Module:subclass("nn." .. name)
    local names = transposed
      and { "stride", "padding", "output_padding", "groups", "bias", "dilation", "padding_mode", "device", "dtype" }
      or { "stride", "padding", "dilation", "groups", "bias", "padding_mode", "device", "dtype" }
    function cls:__init(in_channels, out_channels, kernel_size, ...)
      local given = { in_channels = in_channels, out_channels = out_channels, kernel_size = kernel_size }
      args.require(name .. ".__init__", given, { "in_channels", "out_channels", "kernel_size" })
      args.int("in_channels", in_channels)
      args.int("out_channels", out_channels)
      Module.__init(self)
      local a = named(3, "__init__", names, ...)
      local o = {}
      for i, n in ipairs(names) do o[n] = a[i] end
      local groups = o.groups or 1
      if math.type(groups) ~= "integer" or groups <= 0 then error("groups must be a positive integer", 2) end
      if in_channels % groups ~= 0 then error("in_channels must be divisible by groups", 2) end
      if out_channels % groups ~= 0 then error("out_channels must be divisible by groups", 2) end
      local padding = o.padding or 0
      if type(padding) == "string" then
        if padding ~= "same" and padding ~= "valid" then
          error(("Invalid padding string '%s', should be one of {'valid', 'same'}"):format(padding), 2)
        end
        if transposed then error(("padding='%s' is not supported for transposed convolutions"):format(padding), 2) end
        for _, s in ipairs(ntuple(o.stride or 1, nsp)) do
          if s ~= 1 then error("padding='same' is not supported for strided convolutions", 2) end
        end
      end
      local mode = o.padding_mode or "zeros"
      local modes = { zeros = true, reflect = true, replicate = true, circular = true }
      if not modes[mode] then
        error(("padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got padding_mode='%s'")
          :format(mode), 2)
      end
      if transposed and mode ~= "zeros" then error(('Only "zeros" padding mode is supported for %s'):format(name), 2) end
      self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
      self.kernel_size = ntuple(kernel_size, nsp)
      self.stride = ntuple(o.stride or 1, nsp)
      self.padding = type(padding) == "string" and padding or ntuple(padding, nsp)
      self.dilation = ntuple(o.dilation or 1, nsp)
      self.output_padding = ntuple(o.output_padding or 0, nsp)
      self.transposed, self.padding_mode = transposed, mode
      local wshape = transposed and { in_channels, out_channels // groups } or { out_channels, in_channels // groups }
      for _, k in ipairs(self.kernel_size) do wshape[#wshape + 1] = k end
      self.weight = nn.Parameter(nn._new_tensor(torch.empty, wshape, o))
      if o.bias == false then
        self.bias = false
      else
        self.bias = nn.Parameter(nn._new_tensor(torch.empty, { out_channels }, o))
      end
      self:reset_parameters()
    end
    function cls:reset_parameters()
      init.kaiming_uniform_(self.weight, { a = math.sqrt(5) })
      if self.bias then
        local fan_in = init._calculate_fan_in_and_fan_out(self.weight)
        local bound = fan_in > 0 and 1 / math.sqrt(fan_in) or 0
        init.uniform_(self.bias, -bound, bound)
      end
    end
    -- the input padded for reflect/replicate/circular modes (then the convolution pads nothing)
    local function mode_padded(self, x)
      local p = {}
      for i = nsp, 1, -1 do
        local v = self.padding[i]
        p[#p + 1] = v; p[#p + 1] = v
      end
      return F.pad(x, p, self.padding_mode)
    end
    function cls:forward(x, output_size)
      local bias = self.bias or nil
      if transposed then
        local opad = self.output_padding
        if output_size then opad = self:_output_padding(x, output_size) end
        return torch["conv_transpose" .. nsp .. "d"](x, self.weight, bias, self.stride, self.padding, opad,
          self.groups, self.dilation)
      end
      if self.padding_mode ~= "zeros" and type(self.padding) == "table" then
        return F["conv" .. nsp .. "d"](mode_padded(self, x), self.weight, bias, self.stride, 0, self.dilation,
          self.groups)
      end
      return F["conv" .. nsp .. "d"](x, self.weight, bias, self.stride, self.padding, self.dilation, self.groups)
    end
    if transposed then
      -- output_padding that makes the output the requested size (PyTorch's _output_padding)
      function cls:_output_padding(x, output_size)
        -- the length is checked before anything walks it (a hostile __len may claim 2^40)
        local n = type(output_size) == "table" and #output_size or -1
        if math.type(n) ~= "integer" or (n ~= nsp and n ~= nsp + 2) then
          error(("ConvTranspose%dD: for %dD input, output_size must have %d or %d elements (got %s)")
            :format(nsp, x:dim(), nsp, nsp + 2, tostring(n)), 2)
        end
        local sizes = {}
        for d = 1, nsp do
          local v = output_size[n - nsp + d]
          if math.type(v) ~= "integer" then
            error(("output_size must be a list of ints, but got %s"):format(args.py_type(v)), 2)
          end
          sizes[d] = v
        end
        local res = {}
        for d = 1, nsp do
          local in_size = x.shape[x:dim() - nsp + d]
          local min = (in_size - 1) * self.stride[d] - 2 * self.padding[d] + self.dilation[d] * (self.kernel_size[d] - 1) + 1
          local max = min + self.stride[d] - 1
          if sizes[d] < min or sizes[d] > max then
            error(("requested an output size of %s, but valid sizes range from %d to %d (for an input of %s)")
              :format(tuple(sizes), min, max, tuple({ table.unpack(x.shape, x:dim() - nsp + 1) })), 2)
          end
          res[d] = sizes[d] - min
        end
        return res
      end
    end
    function cls:extra_repr()
      local s = ("%d, %d, kernel_size=%s, stride=%s"):format(self.in_channels, self.out_channels,
        tuple(self.kernel_size), tuple(self.stride))
      local function nonzero(t, d)
        if type(t) ~= "table" then return true end
        for _, v in ipairs(t) do if v ~= d then return true end end
        return false
      end
      if nonzero(self.padding, 0) then
        s = s .. ", padding=" .. (type(self.padding) == "string" and self.padding or tuple(self.padding))
      end
      if nonzero(self.dilation, 1) then s = s .. ", dilation=" .. tuple(self.dilation) end
      if nonzero(self.output_padding, 0) then s = s .. ", output_padding=" .. tuple(self.output_padding) end
      if self.groups ~= 1 then s = s .. ", groups=" .. self.groups end
      if not self.bias then s = s .. ", bias=False" end
      if self.padding_mode ~= "zeros" then s = s .. ", padding_mode=" .. self.padding_mode end
      return s
    end
    nn[name] = cls
  end
  conv_class("Conv1d", 1, false)
  conv_class("Conv2d", 2, false)
  conv_class("ConvTranspose1d", 1, true)
  conv_class("ConvTranspose2d", 2, true)
  conv_class("Conv3d", 3, false)
  conv_class("ConvTranspose3d", 3, true)

  -- ---- pooling modules ---------------------------------------------------------------------------
  local function max_pool_class(name, nsp)
    local cls = Module:subclass("nn." .. name)
    function cls:__init(kernel_size, ...)
      Module.__init(self)
      local a = named(3, "__init__", max_names, ...)
      self.kernel_size = kernel_size
      self.stride = a[1] or kernel_size
      self.padding, self.dilation = a[2] or 0, a[3] or 1
      self.ceil_mode, self.return_indices = a[4] or false, a[5] or false
    end
    function cls:forward(x)
      return F["max_pool" .. nsp .. "d"](x, self.kernel_size, self.stride, self.padding, self.dilation,
        self.ceil_mode, self.return_indices)
    end
    function cls:extra_repr()
      return ("kernel_size=%s, stride=%s, padding=%s, dilation=%s, ceil_mode=%s"):format(tuple(self.kernel_size),
        tuple(self.stride), tuple(self.padding), tuple(self.dilation), py(self.ceil_mode))
    end
    nn[name] = cls
  end
  max_pool_class("MaxPool1d", 1)
  max_pool_class("MaxPool2d", 2)
  max_pool_class("MaxPool3d", 3)

  local function avg_pool_class(name, nsp)
    local cls = Module:subclass("nn." .. name)
    function cls:__init(kernel_size, ...)
      Module.__init(self)
      local a = named(3, "__init__", avg_names, ...)
      -- AvgPool1d keeps its sizes as 1-tuples, AvgPool2d as given (PyTorch's reprs show it)
      local keep = nsp == 1 and function(v) return ntuple(v, 1) end or function(v) return v end
      self.kernel_size = keep(kernel_size)
      self.stride = keep(a[1] or kernel_size)
      self.padding = keep(a[2] or 0)
      self.ceil_mode = a[3] or false
      self.count_include_pad = a[4] == nil and true or a[4]
      self.divisor_override = a[5]
      if nsp == 1 and a[5] ~= nil then error("AvgPool1d has no divisor_override", 2) end
    end
    function cls:forward(x)
      return F["avg_pool" .. nsp .. "d"](x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
        self.count_include_pad, self.divisor_override)
    end
    function cls:extra_repr()
      return ("kernel_size=%s, stride=%s, padding=%s"):format(tuple(self.kernel_size), tuple(self.stride),
        tuple(self.padding))
    end
    nn[name] = cls
  end
  avg_pool_class("AvgPool1d", 1)
  avg_pool_class("AvgPool2d", 2)
  avg_pool_class("AvgPool3d", 3) -- F.avg_pool3d: pooling_more.lua

  local function adaptive_class(name, nsp)
    local cls = Module:subclass("nn." .. name)
    function cls:__init(output_size)
      Module.__init(self)
      self.output_size = output_size
    end
    function cls:forward(x) return F["adaptive_avg_pool" .. nsp .. "d"](x, self.output_size) end
    function cls:extra_repr() return "output_size=" .. tuple(self.output_size) end
    nn[name] = cls
  end
  adaptive_class("AdaptiveAvgPool1d", 1)
  adaptive_class("AdaptiveAvgPool2d", 2)
  adaptive_class("AdaptiveAvgPool3d", 3) -- F.adaptive_avg_pool3d: pooling_more.lua
end
