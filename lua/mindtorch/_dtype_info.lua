-- _dtype_info.lua: torch.finfo and torch.iinfo, the numeric limits of the floating and integer
-- dtypes, with PyTorch's fields and printing.
local torch = require "mindtorch"
local class = require "mindtorch._class"

-- bits, eps, max, smallest normal, resolution (10^-decimal digits) per floating dtype
local FLOATS = {
  float16 = { bits = 16, eps = 2 ^ -10, max = 65504.0, tiny = 2 ^ -14, resolution = 0.001 },
  bfloat16 = { bits = 16, eps = 2 ^ -7, max = 0x1.fep127, tiny = 2 ^ -126, resolution = 0.01 },
  float32 = { bits = 32, eps = 2 ^ -23, max = 0x1.fffffep127, tiny = 2 ^ -126, resolution = 1e-06 },
  float64 = { bits = 64, eps = 2 ^ -52, max = 0x1.fffffffffffffp1023, tiny = 2 ^ -1022,
    resolution = 1e-15 },
}
local INTS = {
  uint8 = { bits = 8, min = 0, max = 255 },
  int8 = { bits = 8, min = -128, max = 127 },
  int16 = { bits = 16, min = -32768, max = 32767 },
  int32 = { bits = 32, min = -2147483648, max = 2147483647 },
  int64 = { bits = 64, min = math.mininteger, max = math.maxinteger },
}

local finfo = class.class("torch.finfo")
torch.finfo = finfo

-- torch.finfo(dtype = the default dtype)
function finfo.new(cls, dtype)
  dtype = dtype or torch.get_default_dtype()
  local f = FLOATS[dtype.name]
  if not f then
    error(("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"), 2)
  end
  local o = class.alloc(cls)
  o.bits, o.eps, o.max, o.min, o.resolution = f.bits, f.eps, f.max, -f.max, f.resolution
  o.tiny, o.smallest_normal, o.dtype = f.tiny, f.tiny, dtype.name
  return o
end

finfo.__tostring = function(o)
  return ("finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, dtype=%s)"):format(
    o.resolution, o.min, o.max, o.eps, o.smallest_normal, o.tiny, o.dtype)
end

local iinfo = class.class("torch.iinfo")
torch.iinfo = iinfo

function iinfo.new(cls, dtype)
  if dtype == torch.bool then error("torch.bool is not supported by torch.iinfo", 2) end
  local i = dtype and INTS[dtype.name]
  if not i then
    error("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'", 2)
  end
  local o = class.alloc(cls)
  o.bits, o.min, o.max, o.dtype = i.bits, i.min, i.max, dtype.name
  return o
end

iinfo.__tostring = function(o)
  return ("iinfo(min=%g, max=%g, dtype=%s)"):format(o.min, o.max, o.dtype) -- as Python prints them
end

return torch
