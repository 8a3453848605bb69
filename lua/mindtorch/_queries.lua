-- _queries.lua: the gamma family's functions that are compositions or argument reorderings of
-- declared ops (polygamma, mvlgamma, frexp), the activations rrelu and prelu, isin, the
-- top-level in-place forms PyTorch has (torch.gcd_ ...), and the small queries and global modes
-- (is_nonzero, result_type, use_deterministic_algorithms, float32 matmul precision, interop
-- threads, anomaly mode).
local torch = require "mindtorch"
local args = require "mindtorch._args"
local Tensor = torch.Tensor

local function is_options(v) return args.is_options(v) end

-- PyTorch's C++ names of the dtypes, as its "not implemented for" errors print them
local cpp_name = args.scalar_name
-- and as C++ spells the types themselves ("long int")
local cpp_long_names = { bool = "bool", uint8 = "unsigned char", int8 = "signed char", int16 = "short int",
  int32 = "int", int64 = "long int", float16 = "c10::Half", bfloat16 = "c10::BFloat16", float32 = "float",
  float64 = "double" }

-- ---- polygamma: PyTorch puts n first; the op (src/ops/gamma.lua) takes self first -------------
local function check_n(n, level)
  if math.type(n) ~= "integer" then
    error(("polygamma(): argument 'n' (position 1) must be int, not %s"):format(args.py_type(n)), level + 1)
  end
  if n < 0 then error("polygamma(n, x) does not support negative n.", level + 1) end
end
-- PyTorch's kernel for float16 is refused under digamma's or trigamma's name for n = 0, 1
local function check_half(n, self, level)
  if torch.is_tensor(self) and self.dtype == torch.float16 and n <= 1 then
    error(("\"%s\" not implemented for 'Half'"):format(n == 0 and "digamma" or "trigamma"), level + 1)
  end
end

function torch.polygamma(n, self, opts)
  check_n(n, 2)
  args.tensor("polygamma", "input", 2, self)
  check_half(n, self, 2)
  if opts ~= nil then return torch._polygamma(self, n, opts) end
  return torch._polygamma(self, n)
end
function Tensor:polygamma(n)
  check_n(n, 2)
  check_half(n, self, 2)
  return torch._polygamma(self, n)
end
local polygamma_ = Tensor.polygamma_
function Tensor:polygamma_(n)
  check_n(n, 2)
  check_half(n, self, 2)
  return polygamma_(self, n)
end

-- ---- mvlgamma: the multivariate log-gamma function, as PyTorch composes it -----------------------
-- sum over i < p of lgamma(x - i/2), plus p (p - 1) / 4 log(pi)
function torch.mvlgamma(self, p, opts)
  args.tensor("mvlgamma", "input", 1, self)
  if is_options(p) then p, opts = p.p, (p.out ~= nil) and { out = p.out } or nil end
  opts = args.options("mvlgamma", opts, { out = "Tensor" })
  if math.type(p) ~= "integer" then
    error(("mvlgamma(): argument 'p' (position 2) must be int, not %s"):format(args.py_type(p)), 2)
  end
  if self.dtype == torch.bool then error("The input tensor may not be a boolean tensor.", 2) end
  if p < 1 then error("p has to be greater than or equal to 1", 2) end
  local dtype = self.dtype.is_floating_point and self.dtype or torch.get_default_dtype()
  local offsets = torch.arange(-p * 0.5 + 0.5, 0.5, 0.5, { dtype = dtype, device = self.device })
  local r = (offsets + self:unsqueeze(-1)):lgamma():sum(-1) + p * (p - 1) * math.log(math.pi) * 0.25
  if opts.out then return opts.out:resize_(r.shape):copy_(r) end
  return r
end
Tensor.mvlgamma = torch.mvlgamma
function Tensor:mvlgamma_(p) return self:copy_(torch.mvlgamma(self, p)) end

-- ---- frexp: x = mantissa * 2^exponent, |mantissa| in [0.5, 1) ---------------------------------
-- The exponent from log2 (exact at powers of two), corrected by one where the rounding of log2
-- put the mantissa just outside [0.5, 1); 2^-e is applied in two halves so that neither
-- overflows. Zeros, infinities and NaN keep their value with exponent 0. The mantissa's
-- derivative is 1 / 2^exponent, as PyTorch's.
function torch.frexp(self, opts)
  args.tensor("frexp", "input", 1, self)
  opts = args.options("frexp", opts, { out = "table" })
  if not self.dtype.is_floating_point then error("torch.frexp() only supports floating-point dtypes", 2) end
  local x = self:detach():to(torch.float64)
  local regular = x:isfinite():logical_and(x:ne(0))
  local ax = x:abs():masked_fill(regular:logical_not(), 1)
  local e = ax:log2():floor():add(1)
  local function scaled(ex)
    local h = ex:neg():div(2):floor()
    return ax * torch.pow(2.0, h) * torch.pow(2.0, ex:neg() - h)
  end
  local m = scaled(e)
  e = e:add(m:ge(1):to(torch.float64)):sub(m:lt(0.5):to(torch.float64))
  local scale = scaled(e) / ax -- 2^-e
  -- (laid out as self, as PyTorch's element-wise results)
  local mantissa = torch.empty_like(self, { requires_grad = false }):copy_(torch.where(regular, scaled(e):copysign(x), x))
  local exponent = torch.empty_like(self, { dtype = torch.int32, requires_grad = false })
    :copy_(e:masked_fill(regular:logical_not(), 0))
  if self.requires_grad then -- mantissa's value, with the gradient of self * 2^-e (self where e = 0)
    mantissa = torch.where(regular, mantissa + (self - self:detach()) * scale:to(self.dtype), self)
  end
  if opts.out ~= nil then
    local om, oe = opts.out[1], opts.out[2]
    om:resize_(mantissa.shape):copy_(mantissa)
    oe:resize_(exponent.shape):copy_(exponent)
    return om, oe
  end
  return mantissa, exponent
end
Tensor.frexp = torch.frexp

-- ---- rrelu: leaky_relu with a random slope in [lower, upper] while training -----------------------
-- Training draws one uniform slope per element at or below zero, in order, from the generator
-- (as PyTorch's CPU kernel draws them); evaluation uses the mean slope. The gradient follows
-- the slopes used.
local rrelu_names = { "input", "lower", "upper", "training", "generator" }
local function rrelu(inplace, fname, ...)
  local o = args.parse_at(3, fname, rrelu_names, { lower = 1 / 8, upper = 1 / 3, training = false }, ...)
  local self = args.tensor(fname, "input", 1, o.input, false, 4)
  local lower, upper = o.lower, o.upper
  if lower > upper then error("Lower bound should be less than or equal to the upper bound", 3) end
  if not o.training then
    local slope = (lower + upper) / 2
    if inplace then return self:leaky_relu_(slope) end
    return self:leaky_relu(slope)
  end
  if self.device.type == "meta" then -- its draws depend on the data, as PyTorch's kernel says
    error("Could not run 'aten::rrelu_with_noise' with arguments from the 'Meta' backend.", 3)
  end
  local dt = self.dtype
  if not dt.is_floating_point or dt == torch.float16 then
    error(("\"rrelu_with_noise_out_cpu\" not implemented for '%s'"):format(cpp_name(dt)), 3)
  end
  local neg = self:detach():le(0)
  local count = neg:sum():item()
  local noise = torch.ones(self.shape, { dtype = dt, device = self.device })
  if count > 0 then
    -- the bounds in self's dtype first, as PyTorch's kernel takes them
    local lo = torch.tensor(lower, { dtype = dt }):item()
    local hi = torch.tensor(upper, { dtype = dt }):item()
    local u = torch.rand(count, { dtype = torch.float64, generator = o.generator })
    noise[neg] = (u * (hi - lo) + lo):to(dt)
  end
  if inplace then return self:mul_(noise) end
  return self * noise
end
function torch.rrelu(...) return rrelu(false, "rrelu", ...) end
function torch.rrelu_(...) return rrelu(true, "rrelu_", ...) end

-- ---- prelu: x, or weight * x below 0; weight has one value or one per channel (dim 2) ---------------
function torch.prelu(self, weight, ...)
  if select("#", ...) > 0 then args.parse("prelu", { "input", "weight" }, nil, self, weight, ...) end
  args.tensor("prelu", "input", 1, self)
  args.tensor("prelu", "weight", 2, weight)
  local dt = self.dtype
  if not dt.is_floating_point or dt == torch.float16 then
    error(("\"prelu_cpu\" not implemented for '%s'"):format(cpp_name(dt)), 2)
  end
  if weight.dtype ~= dt then
    error(("Found dtype %s but expected %s"):format(cpp_name(weight.dtype), cpp_name(dt)), 2)
  end
  -- PyTorch's checks, in its order
  local nw = weight:numel()
  if nw ~= 1 and self:dim() == 0 then error("Not allow zero-dim input tensor.", 2) end
  local channels = self:dim() >= 2 and self:size(2) or 1
  if nw ~= 1 and nw ~= channels then
    error(("Mismatch of parameter numbers and input channel size. Found parameter numbers = %d and channel size = %d.")
      :format(nw, channels), 2)
  end
  if weight:dim() > 1 then
    error(("prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = %d"):format(weight:dim()), 2)
  end
  if self:dim() == 0 then return torch.where(self:gt(0), self, weight:reshape({}) * self) end
  local shape = {}
  for i = 1, self:dim() do shape[i] = 1 end
  if nw ~= 1 then shape[2] = nw end
  return torch.where(self:gt(0), self, weight:reshape(shape) * self):contiguous()
end
Tensor.prelu = torch.prelu

-- ---- isin: whether each element is among test_elements ---------------------------------------
-- by binary search in the sorted test elements (NaN is never found); numbers on either side
-- take part in type promotion as PyTorch's Scalar overloads
local isin_names = { "elements", "test_elements", "assume_unique", "invert", "out" }
function torch.isin(...)
  local o = args.parse_at(2, "isin", isin_names, { assume_unique = false, invert = false }, ...)
  args.require("isin", o, { "elements", "test_elements" })
  local e, t = o.elements, o.test_elements
  if not torch.is_tensor(e) and not torch.is_tensor(t) then
    error("isin() received an invalid combination of arguments - got (" .. args.py_type(e) .. ", " ..
      args.py_type(t) .. "), but expected one of:\n * (Tensor elements, Tensor test_elements, *, bool assume_unique, " ..
      "bool invert)\n * (Number element, Tensor test_elements, *, bool assume_unique, bool invert)\n * (Tensor " ..
      "elements, Number test_element, *, bool assume_unique, bool invert)", 2)
  end
  local function is_bool(v) return type(v) == "boolean" or (torch.is_tensor(v) and v.dtype == torch.bool) end
  if is_bool(e) or is_bool(t) then error("Unsupported input type encountered for isin(): Bool", 2) end
  for _, v in ipairs { e, t } do
    if torch.is_tensor(v) and v.dtype == torch.bfloat16 then
      error("Unsupported input type encountered for isin(): BFloat16", 2)
    end
  end
  local common = torch.result_type(e, t)
  if common == torch.float16 and torch.is_tensor(e) then error("\"isin_default_cpu\" not implemented for 'Half'", 2) end
  local dev = torch.is_tensor(e) and e.device or t.device
  local function as_tensor(v)
    if torch.is_tensor(v) then return v:detach():to(common) end
    return torch.tensor(v, { dtype = common, device = dev })
  end
  local et, tt = as_tensor(e), as_tensor(t)
  local flat = tt:reshape(-1)
  local r
  if flat:numel() == 0 then
    r = torch.zeros(et.shape, { dtype = torch.bool, device = dev })
  else
    local sorted = flat:sort()
    local n = sorted:numel()
    local pos = torch.searchsorted(sorted, et:reshape(-1)):clamp(1, n)
    r = sorted:index_select(1, pos):eq(et:reshape(-1)):reshape(et.shape)
  end
  if o.invert then r = r:logical_not() end
  if o.out ~= nil then
    args.tensor("isin", "out", 5, o.out)
    if o.out.dtype ~= torch.bool then
      error(("Expected out tensor to have dtype bool, but got %s instead"):format(cpp_long_names[o.out.dtype.name]), 2)
    end
    return o.out:resize_(r.shape):copy_(r)
  end
  return r
end

-- ---- torch.X_ for the in-place forms PyTorch also has as functions ---------------------------------
for _, name in ipairs { "gcd_", "lcm_", "xlogy_", "ldexp_", "square_" } do
  if torch[name] == nil then
    torch[name] = function(self, ...)
      args.tensor(name, "input", 1, self)
      local last = select("#", ...) > 0 and select(-1, ...) or nil
      if args.is_options(last) then
        for k in pairs(last) do error(("%s() got an unexpected keyword argument '%s'"):format(name, k), 2) end
      end
      return self[name](self, ...)
    end
  end
end

-- ---- queries ------------------------------------------------------------------------------
function torch.is_floating_point(self) return args.tensor("is_floating_point", "input", 1, self).dtype.is_floating_point end
function Tensor:is_complex() return false end -- mindtorch has no complex dtypes
function torch.is_complex(self)
  args.tensor("is_complex", "input", 1, self)
  return false
end
function Tensor:is_signed() return self.dtype ~= torch.uint8 and self.dtype ~= torch.bool end
function torch.is_signed(self) return args.tensor("is_signed", "input", 1, self):is_signed() end
function Tensor:is_nonzero()
  local n = self:numel()
  if n == 0 then error("Boolean value of Tensor with no values is ambiguous", 2) end
  if n > 1 then error("Boolean value of Tensor with more than one value is ambiguous", 2) end
  local v = self:item()
  return v ~= 0 and v ~= false
end
function torch.is_nonzero(self) return args.tensor("is_nonzero", "input", 1, self):is_nonzero() end
function Tensor:is_same_size(other)
  args.tensor("is_same_size", "other", 1, other)
  if self:dim() ~= other:dim() then return false end
  for i = 1, self:dim() do if self:size(i) ~= other:size(i) then return false end end
  return true
end
function torch.is_same_size(self, other) return args.tensor("is_same_size", "input", 1, self):is_same_size(other) end
function torch.numel(self) return args.tensor("numel", "input", 1, self):numel() end
-- the device's index; -1 on the CPU and the meta device (which have none)
function Tensor:get_device()
  local d = self.device
  if d.type == "cpu" then return -1 end
  return d.index or -1
end
function torch.get_device(self) return args.tensor("get_device", "input", 1, self):get_device() end
function torch.is_storage(obj)
  local mt = getmetatable(obj)
  return type(mt) == "table" and type(rawget(mt, "__name")) == "string" and rawget(mt, "__name"):find("Storage") ~= nil
end

-- the device kinds and layouts mindtorch has none of, as PyTorch's properties
for _, name in ipairs { "is_mkldnn", "is_vulkan", "is_ort", "is_nested", "is_xpu", "is_ipu", "is_mps", "is_meta" } do
  if Tensor.__getters[name] == nil then
    Tensor.__getters[name] = function(self)
      local t = self.device.type
      return name == "is_" .. t
    end
  end
end

-- x:resize_as(other): deprecated in PyTorch; the values under other's shape, same element count
function Tensor:resize_as(other)
  warn("non-inplace resize_as is deprecated")
  local n = other:numel()
  if n ~= self:numel() then
    local function dims(t) return t:dim() == 0 and "" or table.concat(t:size(), "x") end
    error(("requested resize to %s (%d elements in total), but the given tensor has a size of %s (%d elements). " ..
      "autograd's resize can only change the shape of a given tensor, while preserving the number of elements. ")
      :format(dims(other), n, dims(self), self:numel()), 2)
  end
  return self:contiguous():view(other.shape)
end

-- x:detach_(): x leaves the graph in place (not a view)
Tensor.detach_ = torch._autograd.detach_

-- ---- result_type: PyTorch's promotion of tensors (by dimension) and numbers --------------------
-- dimensioned tensors win over zero-dim ones, which win over numbers, unless a later group
-- is of a higher category (bool < integer < floating)
local function category(dt)
  if dt == nil then return 0 end
  if dt == torch.bool then return 1 end
  return dt.is_floating_point and 3 or 2
end
local function promote(a, b)
  if a == nil then return b end
  if b == nil then return a end
  return torch.promote_types(a, b)
end
local function combine(higher, lower)
  if higher ~= nil and higher.is_floating_point then return higher end
  if higher == torch.bool or category(lower) == 3 then return promote(higher, lower) end
  if higher ~= nil then return higher end
  return lower
end
function torch.result_type(a, b)
  local dim, zero, wrapped
  for i, v in ipairs { a, b } do
    if torch.is_tensor(v) then
      if v:dim() > 0 then dim = promote(dim, v.dtype) else zero = promote(zero, v.dtype) end
    elseif math.type(v) == "integer" then
      wrapped = promote(wrapped, torch.int64)
    elseif type(v) == "number" then
      wrapped = promote(wrapped, torch.get_default_dtype())
    elseif type(v) == "boolean" then
      wrapped = promote(wrapped, torch.bool)
    else
      error(("result_type(): argument '%s' (position %d) must be Tensor, not %s"):format(i == 1 and "tensor" or "other",
        i, args.py_type(v)), 2)
    end
  end
  return combine(dim, combine(zero, wrapped))
end

-- ---- global modes -------------------------------------------------------------------------
local deterministic, warn_only = false, false
function torch.use_deterministic_algorithms(mode, opts)
  if type(mode) ~= "boolean" then
    error(("_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not %s"):format(args.py_type(mode)), 2)
  end
  local o = args.options("use_deterministic_algorithms", opts, { warn_only = "any" }, { warn_only = false })
  if type(o.warn_only) ~= "boolean" then
    error(("_set_deterministic_algorithms(): argument 'warn_only' must be bool, not %s"):format(args.py_type(o.warn_only)), 2)
  end
  deterministic, warn_only = mode, o.warn_only
end
function torch.are_deterministic_algorithms_enabled() return deterministic end
function torch.is_deterministic_algorithms_warn_only_enabled() return warn_only end
local debug_modes = { default = 0, warn = 1, error = 2 }
function torch.set_deterministic_debug_mode(mode)
  if type(mode) == "string" then
    local m = debug_modes[mode]
    if m == nil then
      error(("invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got %s"):format(mode), 2)
    end
    mode = m
  elseif math.type(mode) == "integer" then
    if mode < 0 or mode > 2 then
      error(("invalid value of debug_mode, expected 0, 1, or 2, but got %d"):format(mode), 2)
    end
  else
    error(("debug_mode must be str or int, but got <class '%s'>"):format(args.py_type(mode)), 2)
  end
  deterministic, warn_only = mode > 0, mode == 1
end
function torch.get_deterministic_debug_mode()
  if not deterministic then return 0 end
  return warn_only and 1 or 2
end

local matmul_precision = "highest"
local precisions = { highest = true, high = true, medium = true }
function torch.set_float32_matmul_precision(precision)
  if type(precision) ~= "string" then
    error(("set_float32_matmul_precision expects a str, but got %s"):format(args.py_type(precision)), 2)
  end
  if not precisions[precision] then
    warn(precision, " is not one of 'highest', 'high', or 'medium'; the current",
      "setFloat32MatmulPrecision call has no effect.")
    return
  end
  matmul_precision = precision
end
function torch.get_float32_matmul_precision() return matmul_precision end

-- inter-op parallelism: mindtorch runs ops one after another (one inter-op thread); the number
-- may be set once, as PyTorch allows
local interop, interop_set = 1, false
function torch.get_num_interop_threads() return interop end
function torch.set_num_interop_threads(n)
  if math.type(n) ~= "integer" then
    error(("set_num_interop_threads(): argument 'int' (position 1) must be int, not %s"):format(args.py_type(n)), 2)
  end
  if n <= 0 then error("set_num_interop_threads expects a positive integer", 2) end
  if interop_set then
    error("Error: cannot set number of interop threads after parallel work has started or set_num_interop_threads called", 2)
  end
  interop, interop_set = n, true
end

-- anomaly mode (the autograd engine's): torch.set_anomaly_enabled(enabled, check_nan=true)
local C = torch._autograd
function torch.is_anomaly_enabled() return C.is_anomaly_enabled() end
function torch.is_anomaly_check_nan_enabled() return C.is_anomaly_check_nan_enabled() end
function torch.set_anomaly_enabled(enabled, check_nan)
  if type(enabled) ~= "boolean" then
    error(("set_anomaly_enabled(): argument 'enabled' (position 1) must be bool, not %s"):format(args.py_type(enabled)), 2)
  end
  if check_nan == nil then check_nan = true end
  if type(check_nan) ~= "boolean" then
    error(("set_anomaly_enabled(): argument 'check_nan' (position 2) must be bool, not %s"):format(args.py_type(check_nan)), 2)
  end
  C.set_anomaly_enabled(enabled, check_nan)
end

return torch
