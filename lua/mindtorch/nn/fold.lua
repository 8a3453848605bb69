-- fold.lua: the layers that rearrange elements: F.unfold / F.fold (ATen's im2col / col2im)
-- with the modules Unfold and Fold, and PixelShuffle, PixelUnshuffle, ChannelShuffle with
-- their functional forms (over torch.pixel_shuffle, pixel_unshuffle, channel_shuffle). unfold
-- is one index_select of the padded input flattened per channel, fold the matching index_add,
-- so each is the other's gradient.
return function(torch, nn)
  local Module, F, py = nn.Module, nn.functional, nn._py
  local args = require "mindtorch._args"

  local LEGACY = { int64 = "Long", int32 = "Int", int16 = "Short", int8 = "Char", uint8 = "Byte", bool = "Bool" }
  local function sizes(t) return "[" .. table.concat(t:size(), ", ") .. "]" end

  -- an int or a list of two (PyTorch's _pair), checked as ATen's IntArrayRef[2]
  local function pair(v, name)
    if math.type(v) == "integer" then return { v, v } end
    if type(v) ~= "table" or torch.is_tensor(v) then
      error(("%s must be an int or a tuple of two ints, not %s"):format(name, args.py_type(v)), 3)
    end
    local n = args.len(v, 16, name, 3)
    if n ~= 2 then error(("It is expected %s equals to 2, but got size %d"):format(name, n), 3) end
    for i = 1, 2 do
      if math.type(v[i]) ~= "integer" then
        error(("%s must be a tuple of ints, but found element of type %s at pos %d"):format(name,
          args.py_type(v[i]), i), 3)
      end
    end
    return { v[1], v[2] }
  end

  local function check_params(k, d, p, s)
    if k[1] <= 0 or k[2] <= 0 then
      error(("kernel size should be greater than zero, but got kernel_height: %d kernel_width: %d"):format(k[1], k[2]),
        3)
    end
    if s[1] <= 0 or s[2] <= 0 then
      error(("stride should be greater than zero, but got stride_height: %d stride_width: %d"):format(s[1], s[2]), 3)
    end
    if d[1] <= 0 or d[2] <= 0 then
      error(("dilation should be greater than zero, but got dilation_height: %d dilation_width: %d"):format(d[1],
        d[2]), 3)
    end
    if p[1] < 0 or p[2] < 0 then
      error(("padding should be non-negative, but got pad_height: %d pad_width: %d"):format(p[1], p[2]), 3)
    end
  end

  -- the sliding blocks' positions in the padded plane (Hp x Wp, flattened, 1-based), in im2col's
  -- order: kernel row, kernel column, block row, block column
  local function block_index(k, d, s, blocks, Wp, device)
    local o = { dtype = torch.int64, device = device }
    local rows = torch.arange(k[1], o):mul(d[1]):view(k[1], 1, 1, 1)
      + torch.arange(blocks[1], o):mul(s[1]):view(1, 1, blocks[1], 1)
    local cols = torch.arange(k[2], o):mul(d[2]):view(1, k[2], 1, 1)
      + torch.arange(blocks[2], o):mul(s[2]):view(1, 1, 1, blocks[2])
    return (rows * Wp + cols + 1):reshape(-1)
  end
  local function block_count(n, k, d, p, s) return (n + 2 * p - d * (k - 1) - 1) // s + 1 end

  -- unfold(input, kernel_size, dilation = 1, padding = 0, stride = 1): (N, C, H, W) or (C, H, W)
  -- -> (N, C kh kw, L) or (C kh kw, L)
  function F.unfold(input, ...)
    local o = args.parse_at(2, "unfold", { "kernel_size", "dilation", "padding", "stride" }, nil, ...)
    args.require("unfold", o, { "kernel_size" })
    local k, d = pair(o.kernel_size, "kernel_size"), pair(o.dilation or 1, "dilation")
    local p, s = pair(o.padding or 0, "padding"), pair(o.stride or 1, "stride")
    check_params(k, d, p, s)
    local nd = input:dim()
    local ok = nd == 3 or nd == 4
    for i = nd - 2, nd do ok = ok and input:size(i) ~= 0 end
    if not ok then
      error(("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
        .. "input, but got: %s"):format(sizes(input)), 2)
    end
    local x = nd == 3 and input:unsqueeze(1) or input
    local N, C, H, W = table.unpack(x:size())
    local blocks = { block_count(H, k[1], d[1], p[1], s[1]), block_count(W, k[2], d[2], p[2], s[2]) }
    if blocks[1] < 1 or blocks[2] < 1 then
      -- (ATen prints the input's height twice)
      error(("Given input with spatial size (%d, %d), kernel_size=(%d, %d), dilation=(%d, %d), padding=(%d, %d), "
        .. "calculated shape of the array of sliding blocks as (%d, %d), but its components must be at least one.")
        :format(H, H, k[1], k[2], d[1], d[2], p[1], p[2], blocks[1], blocks[2]), 2)
    end
    if not x.dtype.is_floating_point then
      error(('"im2col_out_cpu" not implemented for \'%s\''):format(LEGACY[x.dtype.name]), 2)
    end
    if p[1] > 0 or p[2] > 0 then x = F.pad(x, { p[2], p[2], p[1], p[1] }) end
    local Hp, Wp = H + 2 * p[1], W + 2 * p[2]
    local idx = block_index(k, d, s, blocks, Wp, x.device)
    local out = x:reshape(N, C, Hp * Wp):index_select(3, idx):view(N, C * k[1] * k[2], blocks[1] * blocks[2])
    if nd == 3 then out = out:squeeze(1) end
    return out
  end

  -- fold(input, output_size, kernel_size, dilation = 1, padding = 0, stride = 1): (N, C kh kw, L)
  -- or (C kh kw, L) -> (N, C, H, W) or (C, H, W), overlapping blocks summed
  function F.fold(input, ...)
    local o = args.parse_at(2, "fold", { "output_size", "kernel_size", "dilation", "padding", "stride" }, nil, ...)
    args.require("fold", o, { "output_size", "kernel_size" })
    local size, k = pair(o.output_size, "output_size"), pair(o.kernel_size, "kernel_size")
    local d, p, s = pair(o.dilation or 1, "dilation"), pair(o.padding or 0, "padding"), pair(o.stride or 1, "stride")
    check_params(k, d, p, s)
    local nd = input:dim()
    local ok = nd == 2 or nd == 3
    for i = nd - 1, nd do ok = ok and input:size(i) ~= 0 end
    if not ok then
      error(("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for "
        .. "input, but got: %s"):format(sizes(input)), 2)
    end
    local x = nd == 2 and input:unsqueeze(1) or input
    local N, CK, L = table.unpack(x:size())
    if CK % (k[1] * k[2]) ~= 0 then
      error(("Expected size of input's dimension 2 to be divisible by the product of kernel_size, but got "
        .. "input.size(2)=%d and kernel_size=(%d, %d)."):format(CK, k[1], k[2]), 2)
    end
    local blocks = { block_count(size[1], k[1], d[1], p[1], s[1]), block_count(size[2], k[2], d[2], p[2], s[2]) }
    if blocks[1] * blocks[2] ~= L then
      error(("Given output_size=(%d, %d), kernel_size=(%d, %d), dilation=(%d, %d), padding=(%d, %d), stride=(%d, %d), "
        .. "expected size of input's dimension 3 to match the calculated number of sliding blocks %d * %d = %d, but "
        .. "got input.size(3)=%d."):format(size[1], size[2], k[1], k[2], d[1], d[2], p[1], p[2], s[1], s[2],
          blocks[1], blocks[2], blocks[1] * blocks[2], L), 2)
    end
    if not x.dtype.is_floating_point then
      error(('"col2im_out_cpu" not implemented for \'%s\''):format(LEGACY[x.dtype.name]), 2)
    end
    local C = CK // (k[1] * k[2])
    local Hp, Wp = size[1] + 2 * p[1], size[2] + 2 * p[2]
    local idx = block_index(k, d, s, blocks, Wp, x.device)
    local out = torch.zeros(N, C, Hp * Wp, { dtype = x.dtype, device = x.device })
      :index_add(3, idx, x:reshape(N, C, k[1] * k[2] * L)):view(N, C, Hp, Wp)
    if p[1] > 0 or p[2] > 0 then out = out:narrow(3, p[1] + 1, size[1]):narrow(4, p[2] + 1, size[2]):contiguous() end
    if nd == 2 then out = out:squeeze(1) end
    return out
  end

  F.pixel_shuffle = function(input, ...) return torch.pixel_shuffle(input, ...) end
  F.pixel_unshuffle = function(input, ...) return torch.pixel_unshuffle(input, ...) end
  F.channel_shuffle = function(input, ...) return torch.channel_shuffle(input, ...) end
  F.native_channel_shuffle = function(input, ...) return torch.native_channel_shuffle(input, ...) end

  -- ---- modules ---------------------------------------------------------------------------------
  local function shown(v)
    if type(v) ~= "table" then return py(v) end
    local parts = {}
    for i, x in ipairs(v) do parts[i] = py(x) end
    return "(" .. table.concat(parts, ", ") .. (#v == 1 and ",)" or ")")
  end
  local function fields_class(name, names, required, forward, repr_names)
    local cls = Module:subclass("nn." .. name)
    function cls:__init(...)
      Module.__init(self)
      local o = args.parse_at(3, "__init__", names, nil, ...)
      args.require(name .. ".__init__", o, required)
      for _, n in ipairs(names) do self[n] = o[n] end
    end
    cls.forward = forward
    function cls:extra_repr()
      local parts = {}
      for i, n in ipairs(repr_names or names) do parts[i] = n .. "=" .. shown(self[n]) end
      return table.concat(parts, ", ")
    end
    nn[name] = cls
    return cls
  end

  local Fold = fields_class("Fold", { "output_size", "kernel_size", "dilation", "padding", "stride" },
    { "output_size", "kernel_size" }, function(self, x)
      return F.fold(x, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)
    end)
  local Unfold = fields_class("Unfold", { "kernel_size", "dilation", "padding", "stride" }, { "kernel_size" },
    function(self, x) return F.unfold(x, self.kernel_size, self.dilation, self.padding, self.stride) end)
  for _, cls in ipairs { Fold, Unfold } do
    local init = cls.__init
    function cls:__init(...)
      init(self, ...)
      self.dilation, self.padding, self.stride = self.dilation or 1, self.padding or 0, self.stride or 1
    end
  end

  fields_class("PixelShuffle", { "upscale_factor" }, { "upscale_factor" },
    function(self, x) return torch.pixel_shuffle(x, self.upscale_factor) end)
  fields_class("PixelUnshuffle", { "downscale_factor" }, { "downscale_factor" },
    function(self, x) return torch.pixel_unshuffle(x, self.downscale_factor) end)
  fields_class("ChannelShuffle", { "groups" }, { "groups" },
    function(self, x) return torch.channel_shuffle(x, self.groups) end)
end
