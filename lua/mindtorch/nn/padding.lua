-- padding.lua: F.pad (constant, reflect, replicate, circular) with PyTorch 1.13's dispatch and
-- messages, and the padding modules ZeroPad2d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d,
-- ReplicationPad1d/2d/3d. The non-constant modes are an index_select per padded dim (the
-- indices computed once per dim), so autograd derives the gradients.
return function(torch, nn)
  local Module, F, py = nn.Module, nn.functional, nn._py
  local args = require "mindtorch._args"
  local layout = require "mindtorch._layout"

  local LEGACY = { float32 = "Float", float64 = "Double", float16 = "Half", bfloat16 = "BFloat16", int64 = "Long",
    int32 = "Int", int16 = "Short", int8 = "Char", uint8 = "Byte", bool = "Bool" }
  local function sizes(t) return "[" .. table.concat(t:size(), ", ") .. "]" end
  local function legacy(t)
    return ("[ torch.%sTensor{%s} ]"):format(LEGACY[t.dtype.name] or t.dtype.name, table.concat(t:size(), ","))
  end

  -- the checks of ATen's reflection_pad{1,2,3}d and replication_pad{1,2,3}d: k padded dims
  local function check_padding(input, pad, mode, k)
    local nd = input:dim()
    local nonempty = true
    for d = 2, nd do nonempty = nonempty and input:size(d) ~= 0 end
    if not nonempty then
      if mode == "reflect" and k < 3 then
        error(("%dD or %dD (batch mode) tensor expected for input, but got: %s"):format(k + 1, k + 2, legacy(input)), 3)
      end
      error(("Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
        .. "input, but got: %s"):format(k + 1, k + 2, sizes(input)), 3)
    end
    local kind = mode == "reflect" and "reflection_pad" or "replication_pad"
    if not input.dtype.is_floating_point then
      local name = kind .. k .. "d" .. ((mode == "replicate" or k == 3) and "_cpu" or "")
      error(('"%s" not implemented for \'%s\''):format(name, LEGACY[input.dtype.name]), 3)
    end
    local ins, outs = {}, {}
    for i = 1, k do -- i = 1 the last dim (W), then H, then D
      local d = nd - i + 1
      ins[i], outs[i] = input:size(d), input:size(d) + pad[2 * i - 1] + pad[2 * i]
      if mode == "reflect" and (pad[2 * i - 1] >= ins[i] or pad[2 * i] >= ins[i]) then
        error(("Argument #%d: Padding size should be less than the corresponding input dimension, but got: padding "
          .. "(%d, %d) at dimension %d of input %s"):format(2 + 2 * i, pad[2 * i - 1], pad[2 * i], d,
            k == 2 and tostring(nd) or sizes(input)), 3)
      end
    end
    local any_positive = false
    for i = 1, k do any_positive = any_positive or outs[i] >= 1 end
    if k == 1 and outs[1] < 1 then
      if mode == "reflect" then
        error(("2input (W: %d)is too small. Calculated output W: %d"):format(ins[1], outs[1]), 3)
      end
      error(("input (W: %d) is too small. Calculated output W: %d"):format(ins[1], outs[1]), 3)
    elseif k == 2 and not any_positive then
      local fmt = mode == "reflect" and "input (H: %d, W: %d)is too small. Calculated output H: %d W: %d"
        or "input (H: %d, W: %d ) is too small. Calculated output H: %d W: %d"
      error(fmt:format(ins[2], ins[1], outs[2], outs[1]), 3)
    elseif k == 3 and not any_positive and mode == "replicate" then
      error(("input (D: %d H: %d, W: %d) is too small. Calculated output D: %d H: %d W: %d"):format(ins[3], ins[2],
        ins[1], outs[3], outs[2], outs[1]), 3)
    end
    local shape = input:size()
    for i = 1, k do shape[nd - i + 1] = outs[i] end
    for d = 1, nd do
      if shape[d] < 0 then
        error(("Trying to create tensor with negative dimension %d: [%s]"):format(shape[d], table.concat(shape, ", ")),
          3)
      end
    end
  end

  local WHERE = {
    reflect = function(j, n)
      if j < 0 then return -j elseif j >= n then return 2 * (n - 1) - j end
      return j
    end,
    replicate = function(j, n) return math.min(math.max(j, 0), n - 1) end,
    circular = true, -- (its indices: F.pad)
  }

  -- pad(input, pad, mode = "constant", value = nil): {left, right} pairs from the last dim
  -- backwards; constant (negative pads crop), reflect, replicate and circular
  function F.pad(input, pad, ...)
    local o = args.parse_at(2, "pad", { "mode", "value" }, nil, ...)
    local mode, value = o.mode or "constant", o.value
    if type(pad) ~= "table" or torch.is_tensor(pad) then
      error(("pad(): argument 'pad' (position 2) must be tuple of ints, not %s"):format(args.py_type(pad)), 2)
    end
    local n = args.len(pad, 64, "pad")
    for i = 1, n do
      if math.type(pad[i]) ~= "integer" then
        error(("pad(): argument 'pad' must be tuple of ints, but found element of type %s at pos %d"):format(
          args.py_type(pad[i]), i), 2)
      end
    end
    if value ~= nil and type(value) ~= "number" then
      error(("pad(): argument 'value' must be float, not %s"):format(torch.is_tensor(value) and "Tensor"
        or args.py_type(value)), 2)
    end
    if n % 2 ~= 0 then error("Padding length must be divisible by 2", 2) end
    local nd = n // 2
    if nd > input:dim() then error("Padding length too large", 2) end
    if mode == "constant" then
      local shape = { table.unpack(input.shape) }
      for i = 1, nd do
        local d = input:dim() - i + 1
        shape[d] = shape[d] + pad[2 * i - 1] + pad[2 * i]
        if shape[d] < 0 then
          error(("The input size %d, plus negative padding %d and %d resulted in a negative output size, which is "
            .. "invalid. Check dimension %d of your input."):format(input.shape[d], pad[2 * i - 1], pad[2 * i], d), 2)
        end
      end
      -- in the layout the input suggests, as PyTorch's constant_pad_nd
      local out = torch.empty(shape, { dtype = input.dtype, device = input.device,
        memory_format = layout.format_of(input) }):fill_(value or 0)
      local src, dst = input, out
      for i = 1, nd do
        local d, l, r = input:dim() - i + 1, pad[2 * i - 1], pad[2 * i]
        local len = input.shape[d]
        local from, to = math.max(0, -l), len - math.max(0, -r)
        if to <= from then -- cropped away: an empty copy keeps the output in the graph
          src, dst = src:narrow(d, 1, 0), dst:narrow(d, 1, 0)
        else
          src = src:narrow(d, from + 1, to - from)
          dst = dst:narrow(d, math.max(0, l) + 1, to - from)
        end
      end
      dst:copy_(src)
      return out
    end
    if not WHERE[mode] then error(("Unrecognised padding mode %s"):format(tostring(mode)), 2) end
    if value ~= nil and value ~= 0 then
      error(('Padding mode "%s" doesn\'t take in value argument'):format(mode), 2)
    end
    local dim = input:dim()
    if not (nd >= 1 and nd <= 3 and (dim == nd + 1 or dim == nd + 2)) then
      error("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now", 2)
    end
    if mode == "circular" then
      if n ~= 2 * (dim - 2) then
        error(("Invalid padding size, expected %d but got %d"):format(2 * (dim - 2), n), 2)
      end
      for i = nd, 1, -1 do -- the first padded dim first, as ATen checks them
        local len, l, r = input:size(dim - i + 1), pad[2 * i - 1], pad[2 * i]
        if l > len or r > len then error("Padding value causes wrapping around more than once.", 2) end
        if len + l + r < 0 or (len + l + r > 0 and len - math.max(-l, 0) - math.max(-r, 0) < 1) then
          error("Negative padding value is resulting in an empty dimension", 2)
        end
      end
    else
      check_padding(input, pad, mode, nd)
    end
    local where = WHERE[mode]
    local shape, count = input:size(), 1.0 -- (a float: the product may pass 2^63)
    for i = 1, nd do shape[dim - i + 1] = shape[dim - i + 1] + pad[2 * i - 1] + pad[2 * i] end
    for _, v in ipairs(shape) do count = count * v end
    if count > (1 << 26) then -- fails at once, with the allocator's words, where no memory could hold it
      torch.empty(shape, { dtype = input.dtype, device = input.device })
    end
    local x = input
    for i = 1, nd do
      local d, l, r = dim - i + 1, pad[2 * i - 1], pad[2 * i]
      local len = input:size(d)
      local idx = {}
      if mode == "circular" then -- negative pads crop first, then the cropped run wraps around
        local from, m = math.max(-l, 0), len - math.max(-l, 0) - math.max(-r, 0)
        for j = -math.max(l, 0), m + math.max(r, 0) - 1 do idx[#idx + 1] = from + j % math.max(m, 1) + 1 end
      else
        for j = -l, len + r - 1 do idx[#idx + 1] = where(j, len) + 1 end
      end
      x = x:index_select(d, torch.tensor(idx, { dtype = torch.int64, device = x.device }))
    end
    return x
  end

  -- ---- modules ---------------------------------------------------------------------------------
  -- padding as PyTorch keeps it: an int repeated to a tuple of n, a sequence copied
  local function ntuple(v, n, name)
    local t = {}
    if type(v) == "table" then
      for i = 1, args.len(v, 64, name) do t[i] = v[i] end
    else
      for i = 1, n do t[i] = v end
    end
    return t
  end
  local function tuple(t)
    local parts = {}
    for i, v in ipairs(t) do parts[i] = py(v) end
    return "(" .. table.concat(parts, ", ") .. (#t == 1 and ",)" or ")")
  end

  local function pad_class(name, n, mode)
    local cls = Module:subclass("nn." .. name)
    local constant = mode == "constant"
    function cls:__init(...)
      Module.__init(self)
      local names = constant and { "padding", "value" } or { "padding" }
      local o = args.parse_at(3, "__init__", names, nil, ...)
      local given = { padding = o.padding, value = o.value }
      args.require(name .. ".__init__", given, names)
      self.padding = ntuple(o.padding, 2 * n, "padding")
      if constant then self.value = o.value end
    end
    function cls:forward(x) return F.pad(x, self.padding, mode, self.value) end
    function cls:extra_repr()
      if constant then return ("padding=%s, value=%s"):format(tuple(self.padding), py(self.value)) end
      return tuple(self.padding)
    end
    nn[name] = cls
    return cls
  end
  for n = 1, 3 do
    pad_class("ConstantPad" .. n .. "d", n, "constant")
    pad_class("ReflectionPad" .. n .. "d", n, "reflect")
    pad_class("ReplicationPad" .. n .. "d", n, "replicate")
  end

  local ZeroPad2d = nn.ConstantPad2d:subclass("nn.ZeroPad2d")
  function ZeroPad2d:__init(...)
    local o = args.parse_at(3, "__init__", { "padding" }, nil, ...)
    args.require("ZeroPad2d.__init__", o, { "padding" })
    nn.ConstantPad2d.__init(self, o.padding, 0.0)
  end
  function ZeroPad2d:extra_repr() return tuple(self.padding) end
  nn.ZeroPad2d = ZeroPad2d
end
