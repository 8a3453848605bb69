-- _factories.lua: factories written with other ops: torch.from_file, torch.as_tensor and torch.asarray (a
-- tensor kept as it is where PyTorch keeps it, else converted or built from Lua data), and
-- the signal windows (hann, hamming, bartlett, blackman), computed by the same sequence of
-- ops as PyTorch 1.13's, so their values match in every dtype.
local torch = require "mindtorch"
local args = require "mindtorch._args"

-- ---- as_tensor, asarray -------------------------------------------------------------------------

local function same_device(t, device)
  if device == nil then return true end
  local d = torch.device(device)
  return d.type == t.device.type and (d.index == nil or d.index == t.device.index)
end

-- whether t already has the dtype and device asked for
local function fits(t, dtype, device)
  return (dtype == nil or dtype == t.dtype) and same_device(t, device)
end

-- t in the dtype and on the device asked for (nil: t's own), outside the graph as PyTorch's
local function convert(t, dtype, device, copy)
  return torch.no_grad(function()
    return t:to(device or t.device, dtype or t.dtype, { copy = copy or false })
  end)
end

-- torch.as_tensor(data, {dtype, device}): data itself when it fits, a converted copy (outside
-- the graph, as PyTorch's) when it does not, a new tensor from Lua data otherwise
function torch.as_tensor(...)
  local o = args.parse("as_tensor", { "data", "dtype", "device" }, nil, ...)
  local data = o.data
  if torch.is_tensor(data) then
    if fits(data, o.dtype, o.device) then return data end
    return convert(data, o.dtype, o.device)
  end
  return torch.tensor(data, { dtype = o.dtype, device = o.device })
end

-- torch.asarray(obj, {dtype, device, copy, requires_grad}): copy = true always copies,
-- copy = false never does (refusing what would need one), nil copies only when it must
function torch.asarray(...)
  local o = args.parse("asarray", { "obj", "dtype", "device", "copy", "requires_grad" },
    { requires_grad = false }, ...)
  local obj, r = o.obj, nil
  if torch.is_tensor(obj) then
    if o.copy == false then
      if o.dtype ~= nil and o.dtype ~= obj.dtype then
        error(("can't alias tensor with dtype '%s' into dtype '%s'."):format(args.scalar_name(obj.dtype),
          args.scalar_name(o.dtype)), 2)
      end
      if not same_device(obj, o.device) then
        error(("can't alias tensor from device '%s' to '%s'."):format(tostring(obj.device),
          tostring(torch.device(o.device))), 2)
      end
    end
    if o.copy then
      r = convert(obj, o.dtype, o.device, true)
    elseif fits(obj, o.dtype, o.device) then
      r = obj
    else
      r = convert(obj, o.dtype, o.device)
    end
  else
    if o.copy == false then error("can't alias arbitrary sequence into a tensor.", 2) end
    r = torch.tensor(obj, { dtype = o.dtype, device = o.device })
  end
  if o.requires_grad then r:requires_grad_(true) end
  return r
end

-- torch.from_file(filename, shared = false, size = 0, {dtype, ...}): size elements of the dtype
-- mapped from the file (shared: writes reach the file)
function torch.from_file(...)
  local o = args.parse("from_file", { "filename", "shared", "size", "dtype", "device", "requires_grad",
    "pin_memory", "layout" }, { shared = false, size = 0, requires_grad = false }, ...)
  local dtype = o.dtype or torch.get_default_dtype()
  local s = torch.UntypedStorage.from_file(o.filename, o.shared, o.size * dtype.itemsize)
  local t = torch.empty(0, { dtype = dtype }):set_(s)
  if o.device ~= nil then t = t:to(o.device) end
  if o.requires_grad then t:requires_grad_(true) end
  return t
end

-- ---- windows ------------------------------------------------------------------------------------

-- C++'s name of each dtype, as PyTorch prints TensorOptions in the windows' dtype error
local cpp_names = {
  bool = "bool", uint8 = "unsigned char", int8 = "signed char", int16 = "short int", int32 = "int",
  int64 = "long int", float16 = "c10::Half", bfloat16 = "c10::BFloat16", float32 = "float", float64 = "double",
}

-- a window's common arguments: (window_length, periodic, <its own>..., {dtype, device,
-- requires_grad}); returns the parsed table, or the finished tensor for lengths 0 and 1
local function window_args(fname, names, defaults, ...)
  local all = { "window_length", "periodic" }
  for _, n in ipairs(names) do all[#all + 1] = n end
  for _, n in ipairs { "dtype", "device", "requires_grad", "layout", "pin_memory" } do all[#all + 1] = n end
  defaults.periodic = true
  defaults.requires_grad = false
  local o = args.parse_at(3, fname, all, defaults, ...)
  args.require(fname, o, { "window_length" })
  local n = o.window_length
  if math.type(n) ~= "integer" then
    error(("%s(): argument 'window_length' must be int, not %s"):format(fname, args.py_type(n)), 3)
  end
  o.dtype = o.dtype or torch.get_default_dtype()
  if n < 0 then error(("%s requires non-negative window_length, got window_length=%d"):format(fname, n), 3) end
  if not o.dtype.is_floating_point then
    local dev = torch.device(o.device or "cpu")
    error(("%s expects floating point dtypes, got: TensorOptions(dtype=%s, device=%s, layout=Strided (default), " ..
      "requires_grad=%s, pinned_memory=false, memory_format=(nullopt))"):format(fname, cpp_names[o.dtype.name],
      tostring(dev), o.requires_grad and "true" or "false (default)"), 3)
  end
  local opts = { dtype = o.dtype, device = o.device, requires_grad = o.requires_grad }
  if n == 0 then return nil, torch.empty(0, opts) end
  if n == 1 then return nil, torch.ones(1, opts) end
  o.n = o.periodic and n + 1 or n -- a periodic window is the symmetric one of n + 1, less its last
  return o
end

-- the window w (of o.n points) as the caller gets it: periodic ones drop the last point
local function finish(o, w)
  if o.periodic then w = w:narrow(1, 1, o.n - 1) end
  if o.requires_grad then w:requires_grad_(true) end
  return w
end

local function arange(o)
  return torch.arange(o.n, { dtype = o.dtype, device = o.device })
end

local function hamming(fname, names, defaults, ...)
  local o, done = window_args(fname, names, defaults, ...)
  if not o then return done end
  local w = arange(o):mul_(math.pi * 2 / (o.n - 1)):cos_():mul_(-o.beta):add_(o.alpha)
  return finish(o, w)
end

function torch.hamming_window(...)
  return hamming("hamming_window", { "alpha", "beta" }, { alpha = 0.54, beta = 0.46 }, ...)
end

function torch.hann_window(...)
  local o, done = window_args("hann_window", {}, {}, ...)
  if not o then return done end
  local w = arange(o):mul_(math.pi * 2 / (o.n - 1)):cos_():mul_(-0.5):add_(0.5)
  return finish(o, w)
end

function torch.bartlett_window(...)
  local o, done = window_args("bartlett_window", {}, {}, ...)
  if not o then return done end
  local w = arange(o):mul_(2 / (o.n - 1))
  local first_half = ((o.n - 1) >> 1) + 1
  w:narrow(1, first_half + 1, o.n - first_half):mul_(-1):add_(2)
  return finish(o, w)
end

function torch.blackman_window(...)
  local o, done = window_args("blackman_window", {}, {}, ...)
  if not o then return done end
  local w = arange(o):mul_(math.pi / (o.n - 1))
  w = w:mul(4):cos_():mul_(0.08) - w:mul(2):cos_():mul_(0.5) + 0.42
  return finish(o, w)
end

-- kaiser_window: I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta), a = (n - 1) / 2; PyTorch's CPU
-- kernel refuses float16
function torch.kaiser_window(...)
  local o, done = window_args("kaiser_window", { "beta" }, { beta = 12.0 }, ...)
  if o and o.dtype == torch.float16 then error("\"kaiser_window_cpu\" not implemented for 'Half'", 2) end
  if not o then return done end
  local a = (o.n - 1) / 2
  local k = arange(o):sub_(a):div_(a)
  local w = torch.i0(k:mul_(k):neg_():add_(1):sqrt_():mul_(o.beta)):div_(torch.i0(torch.tensor(o.beta, { dtype = o.dtype })))
  return finish(o, w)
end

return torch
