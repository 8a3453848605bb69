-- _compositions.lua: PyTorch names that are compositions of existing ops, written once here:
-- the *_copy forms of the views, the in-place forms of addmm/addmv/baddbmm/cumsum/cumprod, the
-- complex-number queries that are identities on real dtypes, Lua callbacks over elements
-- (apply_, map_, map2_), torch.fill, the torch.* forms of functional ops (torch.layer_norm ...),
-- and the warn-always switch.
local torch = require "mindtorch"
local Tensor = torch.Tensor

-- ---- x_copy: the view's values in a tensor of their own (PyTorch's *_copy ops) ---------------
local function cloned(r)
  if torch.is_tensor(r) then return r:clone() end
  local out = {} -- split/unbind: a list of views
  for i, t in ipairs(r) do out[i] = t:clone() end
  return out
end

for _, name in ipairs { "as_strided", "detach", "diagonal", "expand", "permute", "select", "squeeze", "t",
  "transpose", "unsqueeze", "view", "unfold", "split", "split_with_sizes", "unbind", "narrow" } do
  torch[name .. "_copy"] = function(self, ...)
    local view = Tensor[name]
    if view == nil then error(("torch.%s_copy: Tensor.%s is not available"):format(name, name), 2) end
    return cloned(view(self, ...))
  end
end
torch.alias_copy = function(self) return self:clone() end
Tensor.narrow_copy = torch.narrow_copy

-- ---- in-place forms of ops that have only their functional one ---------------------------------
for _, name in ipairs { "addmm", "addmv", "baddbmm", "cumsum", "cumprod" } do
  Tensor[name .. "_"] = function(self, ...)
    return self:copy_(torch[name](self, ...))
  end
end

-- ---- complex numbers on real tensors: identities, as PyTorch's ------------------------------
local function itself(self) return self end
for _, name in ipairs { "conj", "resolve_conj", "resolve_neg", "conj_physical", "conj_physical_" } do
  Tensor[name] = itself
  torch[name] = itself
end
function Tensor:is_conj() return false end
function Tensor:is_neg() return false end
torch.is_conj, torch.is_neg = Tensor.is_conj, Tensor.is_neg

-- x:adjoint(): the last two dims swapped (the conjugate is the identity on real dtypes)
function Tensor:adjoint()
  if self:dim() == 1 then
    error("tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor.", 2)
  end
  return self.mT
end
torch.adjoint = Tensor.adjoint

-- ---- Lua callbacks over elements (CPU, outside autograd, as PyTorch's) ----------------------
-- fn(elements...) for every element of self in order, the results written back into self
local function map_into(self, what, fn, ...)
  if self.device.type ~= "cpu" then error(what .. " is only implemented on CPU tensors", 3) end
  if self.requires_grad then
    error(("Can't call %s on Variable that requires grad. Use var.detach().%s instead."):format(what, what), 3)
  end
  local others = { ... }
  local lists = { self:flatten():tolist() }
  for i, o in ipairs(others) do lists[i + 1] = o:expand_as(self):flatten():tolist() end
  local out, n = {}, #lists[1]
  local args = {}
  for k = 1, n do
    for i = 1, #lists do args[i] = lists[i][k] end
    out[k] = fn(table.unpack(args, 1, #lists))
  end
  if n > 0 then self:copy_(torch.tensor(out, { dtype = self.dtype }):view(self.shape)) end
  return self
end

function Tensor:apply_(fn) return map_into(self, "apply_()", fn) end
function Tensor:map_(other, fn) return map_into(self, "map_()", fn, other) end
function Tensor:map2_(x, y, fn) return map_into(self, "map2_()", fn, x, y) end

-- torch.fill(x, value): a new tensor shaped like x, filled with value (a number or a 0-d tensor)
function torch.fill(self, value)
  return self:clone():fill_(value)
end

-- ---- element-wise compositions ------------------------------------------------------------------
-- x:positive(): x itself (refused on bool, as PyTorch's unary plus)
function Tensor:positive()
  if self.dtype == torch.bool then error("The `+` operator, on a bool tensor is not supported.", 2) end
  return self
end
torch.positive = Tensor.positive

-- sgn: sign on real dtypes
torch.sgn = torch._op_alias("sgn", "sign", false)
Tensor.sgn = torch._op_alias("sgn", "sign", true)
Tensor.sgn_ = torch._op_alias("sgn_", "sign_", true)

-- isreal: every element of a real tensor is real
function torch.isreal(self) return torch.ones_like(self, { dtype = torch.bool }) end
Tensor.isreal = torch.isreal

-- square: pow(x, 2) (bool squares to int64, as pow with an integer exponent)
function torch.square(self, opts)
  if torch.is_tensor(self) and self.dtype == torch.bool then self = self:to(torch.int64) end
  if opts ~= nil then return torch.pow(self, 2, opts) end -- out=
  return torch.pow(self, 2)
end
Tensor.square = torch.square
function Tensor:square_() return self:pow_(2) end

-- nan_to_num(x, nan = 0, posinf = the dtype's largest, neginf = its lowest): floats only
-- change; the gradient flows where x was finite
local function nan_to_num(self, nan, posinf, neginf, inplace)
  if not self.dtype.is_floating_point then return inplace and self or self:clone() end
  local info = torch.finfo(self.dtype)
  -- out of place: filled in a copy in self's layout (PyTorch's result keeps it)
  local r = inplace and self or self:clone()
  r:masked_fill_(r:isnan(), nan or 0.0)
  r:masked_fill_(r:isposinf(), posinf or info.max)
  return r:masked_fill_(r:isneginf(), neginf or info.min)
end
function torch.nan_to_num(self, nan, posinf, neginf)
  if type(nan) == "table" then nan, posinf, neginf = nan.nan, nan.posinf, nan.neginf end
  return nan_to_num(self, nan, posinf, neginf, false)
end
Tensor.nan_to_num = torch.nan_to_num
function torch.nan_to_num_(self, nan, posinf, neginf)
  if type(nan) == "table" then nan, posinf, neginf = nan.nan, nan.posinf, nan.neginf end
  return nan_to_num(self, nan, posinf, neginf, true)
end
Tensor.nan_to_num_ = torch.nan_to_num_

-- clamp_min(x, min) and clamp_max(x, max): clamp with one bound (a number or a tensor)
function torch.clamp_min(self, min, opts)
  if opts ~= nil then return torch.clamp(self, min, nil, opts) end -- out=
  return torch.clamp(self, min, nil)
end
function torch.clamp_max(self, max, opts)
  if opts ~= nil then return torch.clamp(self, nil, max, opts) end
  return torch.clamp(self, nil, max)
end
Tensor.clamp_min, Tensor.clamp_max = torch.clamp_min, torch.clamp_max
function Tensor:clamp_min_(min) return self:clamp_(min, nil) end
function Tensor:clamp_max_(max) return self:clamp_(nil, max) end
torch.clamp_min_, torch.clamp_max_ = Tensor.clamp_min_, Tensor.clamp_max_

-- threshold(x, threshold, value): value where x <= threshold (NaN kept), x elsewhere
local function threshold(self, th, value, inplace)
  if self.dtype == torch.bool then error("\"threshold_cpu\" not implemented for 'Bool'", 3) end
  local mask = self:le(th)
  if inplace then return self:masked_fill_(mask, value) end
  return self:masked_fill(mask, value)
end
function torch.threshold(self, th, value) return threshold(self, th, value, false) end
function torch.threshold_(self, th, value) return threshold(self, th, value, true) end

-- selu and celu: elu with PyTorch's constants (selu) or input scale 1/alpha (celu)
local SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
function torch.selu(self) return torch.elu(self, SELU_ALPHA, SELU_SCALE) end
function torch.selu_(self) return self:elu_(SELU_ALPHA, SELU_SCALE) end
local function celu_alpha(alpha)
  alpha = alpha or 1.0
  if alpha == 0 then error("ZeroDivisionError: alpha cannot be 0 for CELU", 3) end
  return alpha
end
function torch.celu(self, alpha)
  alpha = celu_alpha(alpha)
  return torch.elu(self, alpha, 1, 1 / alpha)
end
function torch.celu_(self, alpha)
  alpha = celu_alpha(alpha)
  return self:elu_(alpha, 1, 1 / alpha)
end

-- float_power(a, b): pow computed in float64
local function double(v) return torch.is_tensor(v) and v:to(torch.float64) or v end
function torch.float_power(a, b, opts)
  if opts ~= nil then return torch.pow(double(a), double(b), opts) end
  return torch.pow(double(a), double(b))
end
Tensor.float_power = torch.float_power
function Tensor:float_power_(e)
  if self.dtype ~= torch.float64 then
    error(("the base given to float_power_ has dtype %s but the operation's result requires dtype Double")
      :format(({ float32 = "Float", float16 = "Half", bfloat16 = "BFloat16", int64 = "Long", int32 = "Int",
        int16 = "Short", int8 = "Char", uint8 = "Byte", bool = "Bool" })[self.dtype.name]), 2)
  end
  return self:pow_(double(e))
end

-- ldexp(x, e): x * 2^e
function torch.ldexp(self, e) return torch.mul(self, torch.pow(2.0, e)) end
Tensor.ldexp = torch.ldexp
function Tensor:ldexp_(e) return self:mul_(torch.pow(2.0, e)) end

-- ---- legacy and alias forms ------------------------------------------------------------------
-- chunk and split without view tracking in PyTorch; here the same views
torch.unsafe_chunk, torch.unsafe_split = torch.chunk, torch.split
Tensor.unsafe_chunk, Tensor.unsafe_split = Tensor.chunk, Tensor.split
torch.is_inference = Tensor.is_inference

-- x:storage_type(): the class name of the typed storage of x's dtype ("torch.FloatStorage")
function Tensor:storage_type()
  return (self:type():gsub("Tensor$", "Storage"))
end

-- x:new(...): the legacy constructor: sizes give an uninitialised tensor, a table of values a
-- tensor of them, both in x's dtype and on its device
function Tensor:new(...)
  local n, first = select("#", ...), ...
  local opts = { dtype = self.dtype, device = self.device }
  if n == 0 then return torch.empty(0, opts) end
  if n == 1 and type(first) == "table" and getmetatable(first) == nil then return torch.tensor(first, opts) end
  if n == 1 and torch.is_tensor(first) then return first end
  local sizes = { ... }
  if n == 1 and type(first) ~= "number" then sizes = first end -- a torch.Size
  return torch.empty(sizes, opts)
end

-- x:resize(sizes...): deprecated in PyTorch; a view of x's values under another shape of the
-- same number of elements
function Tensor:resize(...)
  warn("non-inplace resize is deprecated")
  local sizes = select("#", ...) == 1 and type((...)) ~= "number" and ... or { ... }
  local numel = 1
  for i = 1, #sizes do numel = numel * sizes[i] end
  if numel ~= self:numel() then
    error(("requested resize to %s (%d elements in total), but the given tensor has a size of %s (%d elements). " ..
      "autograd's resize can only change the shape of a given tensor, while preserving the number of elements. ")
      :format(table.concat(sizes, "x"), numel, table.concat(self:size(), "x"), self:numel()), 2)
  end
  return self:contiguous():view(sizes)
end

-- torch.set_default_tensor_type(t): the default dtype from a tensor type (torch.DoubleTensor's
-- name "torch.DoubleTensor")
local tensor_types = { ["torch.FloatTensor"] = torch.float32, ["torch.DoubleTensor"] = torch.float64,
  ["torch.HalfTensor"] = torch.float16, ["torch.BFloat16Tensor"] = torch.bfloat16 }
function torch.set_default_tensor_type(t)
  local dt = tensor_types[t]
  if dt == nil then
    if type(t) == "string" and t:match("^torch%.%a+Tensor$") then
      error("only floating-point types are supported as the default type", 2)
    end
    error(("invalid type: '%s'"):format(tostring(t)), 2)
  end
  torch.set_default_dtype(dt)
end

-- ---- torch.* forms of functional ops, in ATen's argument order --------------------------------
local REDUCTIONS = { [0] = "none", [1] = "mean", [2] = "sum" } -- ATen's reduction enum

local function F() return torch.nn.functional end
-- (torch.kl_div and torch.binary_cross_entropy_with_logits without one do not reduce in
-- PyTorch 1.13, as its binding reads ATen's default)
local function reduction(r, fname)
  if r == nil then return "none" end
  local name = REDUCTIONS[r]
  if not name then error(("%s: %s is not a valid value for reduction"):format(fname, tostring(r)), 3) end
  return name
end

function torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
  return F().batch_norm(input, running_mean, running_var,
    { weight = weight, bias = bias, training = training, momentum = momentum, eps = eps })
end
function torch.layer_norm(input, normalized_shape, weight, bias, eps)
  return F().layer_norm(input, normalized_shape, weight, bias, eps)
end
function torch.group_norm(input, num_groups, weight, bias, eps)
  return F().group_norm(input, num_groups, weight, bias, eps)
end
-- torch.embedding(weight, indices, padding_idx = -1, scale_grad_by_freq = false, sparse = false):
-- the table first, as ATen's (whose -1 means no padding row)
function torch.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)
  if padding_idx == -1 then padding_idx = nil end
  return F().embedding(indices, weight, { padding_idx = padding_idx, scale_grad_by_freq = scale_grad_by_freq,
    sparse = sparse })
end
function torch.bilinear(input1, input2, weight, bias)
  return F().bilinear(input1, input2, weight, bias)
end
function torch.kl_div(input, target, r, opts)
  local log_target = type(opts) == "table" and opts.log_target or false
  return F().kl_div(input, target, { reduction = reduction(r, "kl_div"), log_target = log_target })
end
function torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, r)
  return F().binary_cross_entropy_with_logits(input, target,
    { weight = weight, pos_weight = pos_weight, reduction = reduction(r, "binary_cross_entropy_with_logits") })
end
function torch.max_pool1d_with_indices(input, ...)
  return F().max_pool1d_with_indices(input, ...)
end

-- ---- warnings ------------------------------------------------------------------------------------
local warn_always = false
function torch.set_warn_always(b) warn_always = not not b end
function torch.is_warn_always_enabled() return warn_always end

-- ---- nonzero(x, {as_tuple = true}) and where(condition): one index tensor per dim --------------
-- (a Lua list of 1-D tensors of 1-based positions, as split's results are a list)
local nonzero = torch.nonzero
local function as_tuple(x)
  if x:dim() == 0 then return { nonzero(x:reshape(1)):reshape(-1) } end -- a 0-d x as one element
  return nonzero(x):unbind(2)
end
local function nonzero_with_options(self, ...)
  local n = select("#", ...)
  local opts = n > 0 and select(n, ...) or nil
  if not (torch.is_tensor(self) and type(opts) == "table" and getmetatable(opts) == nil and opts.as_tuple ~= nil) then
    return nonzero(self, ...)
  end
  local rest = {}
  for k, v in pairs(opts) do if k ~= "as_tuple" then rest[k] = v end end
  if not opts.as_tuple then return next(rest) == nil and nonzero(self) or nonzero(self, rest) end
  if next(rest) ~= nil then error(("nonzero() got an unexpected keyword argument '%s'"):format(next(rest)), 2) end
  return as_tuple(self)
end
torch.nonzero = nonzero_with_options
Tensor.nonzero = nonzero_with_options

local where = torch.where
function torch.where(condition, ...)
  if select("#", ...) == 0 and torch.is_tensor(condition) then return as_tuple(condition) end
  return where(condition, ...)
end

-- ---- torch.get_file_path(...): a path under the directory that holds the mindtorch package ------
local package_parent = (debug.getinfo(1, "S").source:gsub("^@", "")):match("^(.*)/mindtorch/[^/]+$") or "."
function torch.get_file_path(...)
  local parts = { package_parent }
  for i = 1, select("#", ...) do
    local p = select(i, ...)
    if type(p) ~= "string" then
      error(("get_file_path(): expected str path components, got %s"):format(type(p)), 2)
    end
    parts[#parts + 1] = p
  end
  return table.concat(parts, "/")
end

return torch
