-- _nn_functions.lua: the top-level torch.* functions of ATen's neural-network layer (what
-- torch.nn.functional calls) written as compositions of existing ops, in ATen's argument order
-- with its defaults: distances, losses (reduction as ATen's int enum: 0 none, 1 mean, 2 sum; left
-- out it is 0, as PyTorch 1.13's binding of these functions reads it), pixel and channel
-- shuffles, constant padding, activations, the dropout variants, the normalizations and their
-- native_* forms, pooling and 3-D convolutions, the RNN cells and layers, and a few function
-- forms of methods. Gradients come from the ops they are made of.
local torch = require "mindtorch"
local args = require "mindtorch._args"
local layout = require "mindtorch._layout"
local Tensor = torch.Tensor

-- Arguments as the Python binding reads them: a signature "Tensor x1, Tensor x2, int dim=2, ...",
-- values given positionally or by name in a trailing options table, missing ones and values of
-- another type refused with the binding's words. Types: Tensor, Tensor?, Tensor[], int, int?,
-- int[], float, bool, Scalar.
local EXPECTED = { ["Tensor?"] = "Tensor", ["Tensor[]"] = "tuple of Tensors", ["int[]"] = "tuple of ints", ["int[N]"] = "tuple of ints",
  ["int?"] = "int", ["bool?"] = "bool", Scalar = "Number",
  ["Generator?"] = "torch.Generator" }
local function is_list_of(v, ok)
  if type(v) ~= "table" or torch.is_tensor(v) or args.is_options(v) and next(v) ~= nil then return false end
  for i = 1, #v do if not ok(v[i]) then return false end end
  return true
end
local CHECK = {
  Tensor = torch.is_tensor,
  ["Tensor?"] = torch.is_tensor,
  ["Tensor[]"] = function(v) return is_list_of(v, torch.is_tensor) end,
  int = function(v) return math.type(v) == "integer" end,
  ["int?"] = function(v) return math.type(v) == "integer" end,
  ["int[]"] = function(v) return is_list_of(v, function(x) return math.type(x) == "integer" end) end,
  -- an int or a list of them (int[N] in a schema: one value stands for all N)
  ["int[N]"] = function(v)
    return math.type(v) == "integer" or is_list_of(v, function(x) return math.type(x) == "integer" end)
  end,
  float = function(v) return type(v) == "number" end,
  bool = function(v) return type(v) == "boolean" end,
  ["bool?"] = function(v) return type(v) == "boolean" end,
  Scalar = function(v) return type(v) == "number" or type(v) == "boolean" end,
  ["Generator?"] = function(v)
    local mt = getmetatable(v)
    return type(mt) == "table" and mt.__name == "torch.Generator"
  end,
}
-- the binding's name for a Lua value's type, as mindtorch's C binding writes it
local function got(v)
  if torch.is_tensor(v) then return "Tensor" end
  if math.type(v) == "integer" then return "integer" end
  return type(v)
end
local function literal(text)
  if text == "None" then return nil end
  if text == "True" or text == "False" then return text == "True" end
  return math.tointeger(tonumber(text)) or tonumber(text)
end

-- def(name, signature, fn): torch[name]; fn receives the arguments in the signature's order
local function def(name, signature, fn)
  local params, names, defaults = {}, {}, {}
  for item in signature:gmatch("[^,]+") do
    local ty, nm, dflt = item:match("^%s*(%S+)%s+([%w_]+)%s*=?%s*(.-)%s*$")
    assert(CHECK[ty], ty)
    params[#params + 1] = { type = ty, name = nm, required = dflt == "" and ty:sub(-1) ~= "?" }
    names[#names + 1] = nm
    if dflt ~= "" then defaults[nm] = literal(dflt) end
  end
  torch[name] = function(...)
    local o = args.parse(name, names, defaults, ...)
    local vals = {}
    for i, p in ipairs(params) do
      local v = o[p.name]
      if v == nil then
        if p.required then error(("%s() missing 1 required positional arguments: \"%s\""):format(name, p.name), 2) end
      elseif not CHECK[p.type](v) then
        error(("%s(): argument '%s' (position %d) must be %s, not %s"):format(name, p.name, i,
          EXPECTED[p.type] or p.type, got(v)), 2)
      end
      vals[i] = v
    end
    return fn(table.unpack(vals, 1, #params))
  end
  return torch[name]
end

-- "[2, 3]": a shape as ATen's messages print it
local function sizes(t) return "[" .. table.concat(t:size(), ", ") .. "]" end

-- ATen's apply_loss_reduction: 1 mean, 2 sum, anything else the unreduced loss
local function reduce(loss, reduction)
  if reduction == 1 then return loss:mean() end
  if reduction == 2 then return loss:sum() end
  return loss
end

-- the dtype two tensors promote to (at::result_type): an empty addition in their dtypes and ranks
local function result_type(a, b)
  local function probe(t) return torch.empty(t:dim() == 0 and {} or { 0 }, { dtype = t.dtype }) end
  return (probe(a) + probe(b)).dtype
end

local type_name = args.scalar_name

-- ---- distances ------------------------------------------------------------------------------
-- cosine_similarity: each input divided by its norm (clamped to eps outside autograd) first, as
-- ATen 1.13 does, so the result stays within [-1, 1]
def("cosine_similarity", "Tensor x1, Tensor x2, int dim=2, float eps=1e-8", function(x1, x2, dim, eps)
  local dt = result_type(x1, x2)
  if not dt.is_floating_point then
    error("expected common dtype to be floating point, yet common dtype is " .. type_name(dt), 2)
  end
  if not x1.dtype.is_floating_point then x1 = x1:to(dt) end
  if not x2.dtype.is_floating_point then x2 = x2:to(dt) end
  x1, x2 = table.unpack(torch.broadcast_tensors(x1, x2))
  local n1 = torch.linalg.vector_norm(x1, 2, dim, true):clone()
  local n2 = torch.linalg.vector_norm(x2, 2, dim, true):clone()
  torch.no_grad(function()
    n1:clamp_min_(eps)
    n2:clamp_min_(eps)
  end)
  return ((x1 / n1) * (x2 / n2)):sum(dim)
end)

-- pairwise_distance: the p-norm of x1 - x2 + eps over the last dim of the broadcast shape
def("pairwise_distance", "Tensor x1, Tensor x2, float p=2.0, float eps=1e-6, bool keepdim=False",
  function(x1, x2, p, eps, keepdim)
    return torch.norm(x1 - x2 + eps, p, -1, keepdim)
  end)

-- ---- losses ---------------------------------------------------------------------------------
def("margin_ranking_loss", "Tensor input1, Tensor input2, Tensor target, float margin=0.0, int reduction=0",
  function(input1, input2, target, margin, reduction)
    return reduce((-target * (input1 - input2) + margin):clamp_min(0), reduction)
  end)

def("hinge_embedding_loss", "Tensor input, Tensor target, float margin=1.0, int reduction=0",
  function(self, target, margin, reduction)
    local zeros = torch.zeros_like(self)
    local margin_clamp = (-self + margin):clamp_min(0)
    local out = torch.where(target:ne(1), margin_clamp, zeros) + torch.where(target:ne(-1), self, zeros)
    return reduce(out, reduction)
  end)

def("triplet_margin_loss", "Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, float p=2.0, "
  .. "float eps=1e-6, bool swap=False, int reduction=0",
  function(anchor, positive, negative, margin, p, eps, swap, reduction)
    local a, pd, nd = anchor:dim(), positive:dim(), negative:dim()
    if not (a == pd and pd == nd) then
      error(("All inputs should have same dimension but got %dD, %dD and %dD inputs."):format(a, pd, nd), 2)
    end
    local dist_pos = torch.pairwise_distance(anchor, positive, p, eps)
    local dist_neg = torch.pairwise_distance(anchor, negative, p, eps)
    if swap then dist_neg = torch.min(dist_neg, torch.pairwise_distance(positive, negative, p, eps)) end
    return reduce((dist_pos + margin - dist_neg):clamp_min(0), reduction)
  end)

def("cosine_embedding_loss", "Tensor input1, Tensor input2, Tensor target, float margin=0.0, int reduction=0",
  function(input1, input2, target, margin, reduction)
    local td = target:dim()
    if td ~= 0 and td ~= 1 then error("0D or 1D target tensor expected, multi-target not supported", 2) end
    if td == 1 and (input1:dim() ~= 2 or input2:dim() ~= 2) then
      error(("1D target tensor expects 2D input tensors, but found inputs with sizes %s and %s.")
        :format(sizes(input1), sizes(input2)), 2)
    elseif td == 0 and (input1:dim() ~= 1 or input2:dim() ~= 1) then
      error(("0D target tensor expects 1D input tensors, but found inputs with sizes %s and %s.")
        :format(sizes(input1), sizes(input2)), 2)
    end
    local EPSILON = 1e-12
    local d = td + 1
    local prod_sum = (input1 * input2):sum(d)
    local mag1 = (input1 * input1):sum(d) + EPSILON
    local mag2 = (input2 * input2):sum(d) + EPSILON
    local cos = prod_sum / (mag1 * mag2):sqrt()
    local zeros = torch.zeros_like(cos)
    local pos, neg = -cos + 1, (cos - margin):clamp_min(0)
    return reduce(torch.where(target:eq(1), pos, zeros) + torch.where(target:eq(-1), neg, zeros), reduction)
  end)

def("poisson_nll_loss", "Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction",
  function(input, target, log_input, full, eps, reduction)
    local loss
    if log_input then
      loss = torch.exp(input) - target * input
    else
      loss = input - target * torch.log(input + eps)
    end
    if full then
      local stirling = target * torch.log(target) - target + torch.log(target * (2 * math.pi)) * 0.5
      loss = loss + stirling:masked_fill(target:le(1), 0)
    end
    return reduce(loss, reduction)
  end)

-- ---- pixel and channel shuffles -------------------------------------------------------------
-- a contiguous copy with fresh strides (contiguous() keeps the strides of size-1 dims)
local function dense(x) return x:clone({ memory_format = torch.contiguous_format }) end
local function lead_dims(t, n) return { table.unpack(t:size(), 1, t:dim() - n) } end
local function append(list, ...)
  local out = { table.unpack(list) }
  for _, v in ipairs { ... } do out[#out + 1] = v end
  return out
end

-- (*, C r^2, H, W) -> (*, C, H r, W r)
def("pixel_shuffle", "Tensor input, int upscale_factor", function(self, r)
  if self:dim() < 3 then
    error(("pixel_shuffle expects input to have at least 3 dimensions, but got input with %d dimension(s)")
      :format(self:dim()), 2)
  end
  if r <= 0 then error(("pixel_shuffle expects a positive upscale_factor, but got %d"):format(r), 2) end
  local c, h, w = self:size(-3), self:size(-2), self:size(-1)
  if c % (r * r) ~= 0 then
    error(("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
      .. "but input.size(-3)=%d is not divisible by %d"):format(c, r * r), 2)
  end
  local lead, nd = lead_dims(self, 3), self:dim() - 3
  local x = self:reshape(append(lead, c // (r * r), r, r, h, w))
  local perm = {}
  for i = 1, nd do perm[i] = i end
  for _, d in ipairs { 1, 4, 2, 5, 3 } do perm[#perm + 1] = nd + d end
  return layout.follow(self, dense(x:permute(perm)):view(append(lead, c // (r * r), h * r, w * r)))
end)

-- (*, C, H r, W r) -> (*, C r^2, H, W)
def("pixel_unshuffle", "Tensor input, int downscale_factor", function(self, r)
  if self:dim() < 3 then
    error(("pixel_unshuffle expects input to have at least 3 dimensions, but got input with %d dimension(s)")
      :format(self:dim()), 2)
  end
  if r <= 0 then error(("pixel_unshuffle expects a positive downscale_factor, but got %d"):format(r), 2) end
  local c, h, w = self:size(-3), self:size(-2), self:size(-1)
  if h % r ~= 0 then
    error(("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=%d is not "
      .. "divisible by %d"):format(h, r), 2)
  end
  if w % r ~= 0 then
    error(("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=%d is not "
      .. "divisible by %d"):format(w, r), 2)
  end
  local lead, nd = lead_dims(self, 3), self:dim() - 3
  local x = self:reshape(append(lead, c, h // r, r, w // r, r))
  local perm = {}
  for i = 1, nd do perm[i] = i end
  for _, d in ipairs { 1, 3, 5, 2, 4 } do perm[#perm + 1] = nd + d end
  return layout.follow(self, dense(x:permute(perm)):view(append(lead, c * r * r, h // r, w // r)))
end)

-- (N, C, *) with C = g k -> the channels taken k-major: (N, g, k, *) transposed to (N, k, g, *)
def("channel_shuffle", "Tensor input, int groups", function(self, groups)
  if self:dim() <= 2 then
    error(("channel_shuffle expects input with > 2 dims, but got input with sizes %s"):format(sizes(self)), 2)
  end
  if groups <= 0 then
    error(("Number of groups to divide channels in must be positive. Value of groups:%d"):format(groups), 2)
  end
  local c = self:size(2)
  if c % groups ~= 0 then
    error(("Number of channels must be divisible by groups. Got %d channels and %d groups."):format(c, groups), 2)
  end
  local shape = self:size()
  local split = { shape[1], groups, c // groups, table.unpack(shape, 3) }
  return layout.follow(self, dense(self:reshape(split):transpose(2, 3)):view(shape))
end)

torch.native_channel_shuffle = torch.channel_shuffle

-- constant_pad_nd(input, pad, value = 0): {left, right} pairs from the last dim backwards;
-- negative pads crop
def("constant_pad_nd", "Tensor input, int[] pad, Scalar value=0", function(self, pad, value)
  local n = #pad
  if n % 2 ~= 0 then error(("Length of pad must be even but instead it equals %d"):format(n), 2) end
  if n // 2 > self:dim() then
    error(("Length of pad should be no more than twice the number of dimensions of the input. Pad length is "
      .. "%dwhile the input has %ddimensions."):format(n, self:dim()), 2)
  end
  local shape = self:size()
  local nonpositive = true
  for i = 1, n // 2 do
    local d = self:dim() - i + 1
    local l, r = pad[2 * i - 1], pad[2 * i]
    if l > 0 or r > 0 then nonpositive = false end
    shape[d] = shape[d] + l + r
  end
  -- crop: narrow the input where pads are negative (ATen's order: the dims from the first padded)
  local src = self
  for d = self:dim() - n // 2 + 1, self:dim() do
    local i = self:dim() - d + 1
    local l, r = pad[2 * i - 1], pad[2 * i]
    if l < 0 then src = src:narrow(d, -l + 1, src:size(d) + l) end
    if r < 0 then src = src:narrow(d, 1, src:size(d) + r) end
  end
  if nonpositive then return src:clone() end
  for d = 1, self:dim() do
    if shape[d] < 0 then
      local i = self:dim() - d + 1
      error(("The input size %d, plus negative padding %d and %d resulted in a negative output size, which is "
        .. "invalid. Check dimension %d of your input."):format(self:size(d), pad[2 * i - 1], pad[2 * i], d), 2)
    end
  end
  local out = torch.empty(shape, { dtype = self.dtype, device = self.device, memory_format = layout.format_of(self) })
    :fill_(value)
  local dst = out
  for d = self:dim() - n // 2 + 1, self:dim() do
    local i = self:dim() - d + 1
    dst = dst:narrow(d, math.max(0, pad[2 * i - 1]) + 1, src:size(d))
  end
  dst:copy_(src)
  return out
end)

-- ---- activations -------------------------------------------------------------------------------
-- native_dropout(input, p, train): the output and the kept-elements mask (bool); train nil is true
def("native_dropout", "Tensor input, float p, bool? train", function(input, p, train)
  if input:numel() == 0 then return input, torch.empty_like(input) end
  if train == false then return input:clone(), torch.ones_like(input, { dtype = torch.bool }) end
  local q = 1 - p
  if not (q >= 0 and q <= 1) then error(("bernoulli_ expects p to be in [0, 1], but got p=%s"):format(q), 2) end
  local mask = torch.empty_like(input):bernoulli_(q)
  return (input * mask):mul_(q == 0 and 0.0 or 1 / q), mask:to(torch.bool)
end)

-- ---- dropout variants (ATen's _dropout_impl): noise drawn by bernoulli_(1 - p) from the
-- default generator, over the whole input or one draw per (sample, channel) for the feature forms
local ALPHA = 1.7580993408473766 -- SELU's alpha times its scale
local function dropout_impl(name, feature, alpha, inplace)
  local fname = name .. (inplace and "_" or "")
  def(fname, "Tensor input, float p, bool train", function(input, p, train)
    if not (p >= 0 and p <= 1) then
      error(("dropout probability has to be between 0 and 1, but got %s"):format(p), 2)
    end
    if p == 0 or not train or input:numel() == 0 then return input end
    local function multiply(x, y) if inplace then return x:mul_(y) end return x * y end
    if p == 1 then return multiply(input, torch.zeros({}, { dtype = input.dtype, device = input.device })) end
    local noise
    if feature then
      if input:dim() < 2 then error("Feature dropout requires at least 2 dimensions in the input", 2) end
      local shape = { input:size(1), input:size(2) }
      for i = 3, input:dim() do shape[i] = 1 end
      noise = input:new_empty(shape)
    else
      noise = torch.empty_like(input)
    end
    noise:bernoulli_(1 - p)
    if not alpha then return multiply(input, noise:div_(1 - p)) end
    local a = 1 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    local b = noise:add(-1):mul_(ALPHA * a):add_(ALPHA * a * p)
    noise:mul_(a)
    return multiply(input, noise):add_(b)
  end)
end
for _, inplace in ipairs { false, true } do
  dropout_impl("feature_dropout", true, false, inplace)
  dropout_impl("alpha_dropout", false, true, inplace)
  dropout_impl("feature_alpha_dropout", true, true, inplace)
end

-- ---- normalization --------------------------------------------------------------------------
-- instance_norm: batch_norm over (1, N C, *), the affine parameters and running stats repeated
-- per sample; the running stats written back as their mean over the samples
def("instance_norm", "Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
  .. "bool use_input_stats, float momentum, float eps, bool cudnn_enabled", function(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps)
  if not use_input_stats and (running_mean == nil or running_var == nil) then
    error("Expected running_mean and running_var to be defined when use_input_stats is false", 2)
  end
  local b, c = input:size(1), input:size(2)
  local shape = input:size()
  shape[1], shape[2] = 1, b * c
  local function rep(t) return t ~= nil and t:repeat_tensor(b) or nil end
  local rm, rv = rep(running_mean), rep(running_var)
  local out = torch.batch_norm(input:contiguous():view(shape), rep(weight), rep(bias), rm, rv, use_input_stats,
    momentum, eps)
  torch.no_grad(function()
    if running_mean ~= nil then running_mean:copy_(rm:view(b, c):mean(1)) end
    if running_var ~= nil then running_var:copy_(rv:view(b, c):mean(1)) end
  end)
  return out:view(input:size())
end)

-- native_layer_norm, native_group_norm: the normalized tensor (layer_norm, group_norm) with the
-- statistics ATen saves for backward: the mean and 1/sqrt(var + eps) (biased variance) over the
-- normalized elements (native_batch_norm is an op of the core: src/ops/nn.lua)
local function stats(x, dims, eps)
  local mean = x:mean(dims, true)
  return mean, (x:var(dims, { unbiased = false, keepdim = true }) + eps):rsqrt()
end
def("native_layer_norm", "Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps",
  function(input, normalized_shape, weight, bias, eps)
    local out = torch.layer_norm(input, normalized_shape, weight, bias, eps)
    local dims = {}
    for d = input:dim() - #normalized_shape + 1, input:dim() do dims[#dims + 1] = d end
    if #dims == 0 then return out, input:clone(), torch.full_like(input, 1 / math.sqrt(eps)) end
    local mean, rstd = stats(input, dims, eps)
    return out, mean, rstd
  end)
def("native_group_norm", "Tensor input, Tensor? weight, Tensor? bias, int N, int C, int HxW, int group, float eps",
  function(input, weight, bias, N, C, HxW, group, eps)
    local out = torch.group_norm(input, group, weight, bias, eps)
    local mean, rstd = stats(input:reshape(N, group, -1), 3, eps)
    return out, mean:view(N, group), rstd:view(N, group)
  end)

-- batch_norm_update_stats(input, running_mean, running_var, momentum) -> the batch's mean and
-- (biased) variance per channel; the running statistics moved towards the mean and the unbiased
-- variance in place
def("batch_norm_update_stats", "Tensor input, Tensor? running_mean, Tensor? running_var, float momentum",
  function(input, running_mean, running_var, momentum)
    local dims = { 1 }
    for d = 3, input:dim() do dims[#dims + 1] = d end
    local mean, var = input:mean(dims), input:var(dims, { unbiased = false })
    torch.no_grad(function()
      if running_mean ~= nil then running_mean:mul_(1 - momentum):add_(mean * momentum) end
      if running_var ~= nil then running_var:mul_(1 - momentum):add_(input:var(dims) * momentum) end
    end)
    return mean, var
  end)

-- norm_except_dim(v, pow = 2, dim = 1): the pow-norm of each slice along dim, shaped to broadcast
-- against v (weight_norm's g); dim = -1 takes the norm of the whole tensor, as ATen's
def("norm_except_dim", "Tensor v, int pow=2, int dim=1", function(v, pow, dim)
  if dim == -1 then return v:norm(pow) end
  local nd = v:dim()
  if dim == 0 or dim > nd or dim < -nd then
    error(("Dimension out of range (expected to be in range of [%d, %d], but got %d)"):format(-nd, nd, dim), 2)
  end
  if dim < 0 then dim = dim + nd + 1 end
  local out = {}
  for i = 1, nd do out[i] = 1 end
  if dim == 1 then
    out[1] = v:size(1)
    return v:contiguous():view(v:size(1), -1):norm(pow, 2):view(out)
  elseif dim == nd then
    out[nd] = v:size(nd)
    return v:contiguous():view(-1, v:size(nd)):norm(pow, 1):view(out)
  end
  return torch.norm_except_dim(v:transpose(1, dim), pow, 1):transpose(1, dim)
end)

-- embedding_renorm_(weight, indices, max_norm, norm_type): the rows named by indices (1-based)
-- whose norm exceeds max_norm scaled to max_norm / (norm + 1e-7), in place, outside autograd
def("embedding_renorm_", "Tensor input, Tensor indices, float max_norm, float norm_type", function(self, indices, max_norm, norm_type)
  if indices.dtype ~= torch.int64 and indices.dtype ~= torch.int32 then
    error(("Expected tensor for argument #2 'indices' to have one of the following scalar types: Long, Int; but got "
      .. "%s instead (while checking arguments for embedding_renorm_)"):format(indices:type()), 2)
  end
  local n = self:size(1)
  local rows = indices:flatten():to(torch.int64):unique()
  if rows:numel() == 0 then return self end
  local lo, hi = rows:min():item(), rows:max():item()
  if lo < 1 or hi > n then
    local bad = lo < 1 and lo or hi
    error(("select(): index %d out of range for tensor of size %s at dimension 1"):format(bad, sizes(self)), 2)
  end
  torch.no_grad(function()
    local sel = self:index_select(1, rows)
    local norms = sel:norm(norm_type, 2):double()
    local scale = torch.where(norms:gt(max_norm), (norms + 1e-7):reciprocal() * max_norm, torch.ones_like(norms))
    self:index_copy_(1, rows, sel * scale:to(self.dtype):unsqueeze(2))
  end)
  return self
end)

-- ---- RNN cells (ATen's SimpleCell, LSTMCell and GRUCell on 2-d inputs) -----------------------
local function linear(x, w, b)
  if b ~= nil then return torch.addmm(b, x, w:t()) end
  return x:matmul(w:t())
end
local function check_input(input, input_size)
  if input:size(2) ~= input_size then
    error(("input has inconsistent input_size: got %d expected %d"):format(input:size(2), input_size), 3)
  end
end
local function check_hidden(input, hx, hidden_size, label)
  if input:size(1) ~= hx:size(1) then
    error(("Input batch size %d doesn't match hidden%d batch size %d"):format(input:size(1), label, hx:size(1)), 3)
  end
  if hx:size(2) ~= hidden_size then
    error(("hidden%d has inconsistent hidden_size: got %d, expected %d"):format(label, hx:size(2), hidden_size), 3)
  end
end
local CELL_ARGS = "Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None"
for name, act in pairs { rnn_tanh_cell = "tanh", rnn_relu_cell = "relu" } do
  def(name, CELL_ARGS, function(input, hx, w_ih, w_hh, b_ih, b_hh)
    check_input(input, w_ih:size(2))
    check_hidden(input, hx, w_hh:size(2), 0)
    local h = linear(hx, w_hh, b_hh) + linear(input, w_ih, b_ih)
    return h[act](h)
  end)
end

-- lstm_cell(input, {hx, cx}, ...) -> hy, cy
def("lstm_cell", (CELL_ARGS:gsub("Tensor hx", "Tensor[] hx")), function(input, hx, w_ih, w_hh, b_ih, b_hh)
  if #hx ~= 2 then error("lstm_cell expects two hidden states", 2) end
  check_input(input, w_ih:size(2))
  check_hidden(input, hx[1], w_hh:size(2), 0)
  check_hidden(input, hx[2], w_hh:size(2), 0) -- (ATen labels both hidden0)
  local gates = (linear(hx[1], w_hh, b_hh) + linear(input, w_ih, b_ih)):chunk(4, 2)
  local i, f, g, o = gates[1]:sigmoid(), gates[2]:sigmoid(), gates[3]:tanh(), gates[4]:sigmoid()
  local cy = f * hx[2] + i * g
  return o * cy:tanh(), cy
end)

def("gru_cell", CELL_ARGS, function(input, hx, w_ih, w_hh, b_ih, b_hh)
  check_input(input, w_ih:size(2))
  check_hidden(input, hx, w_hh:size(2), 0)
  local ig = linear(input, w_ih, b_ih):chunk(3, 2)
  local hg = linear(hx, w_hh, b_hh):chunk(3, 2)
  local reset = (hg[1] + ig[1]):sigmoid()
  local update = (hg[2] + ig[2]):sigmoid()
  local new = (ig[3] + hg[3] * reset):tanh()
  return (hx - new) * update + new
end)

-- ---- pooling -----------------------------------------------------------------------------------
local function listed(v) if type(v) == "table" then return v end return { v } end

-- adaptive_max_pool1d(input, output_size) -> values, 1-based indices: output i takes the max of
-- [floor(i L / n), ceil((i + 1) L / n)) along the last dim
def("adaptive_max_pool1d", "Tensor input, int[N] output_size", function(self, output_size)
  output_size = listed(output_size)
  if #output_size ~= 1 then
    error(("adaptive_max_pool1d() argument 'output_size' should contain one int (got %d)"):format(#output_size), 2)
  end
  local n = output_size[1]
  if self:dim() ~= 2 and self:dim() ~= 3 then
    error(("Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while checking "
      .. "arguments for adaptive_max_pool1d)"):format(self:dim()), 2)
  end
  local shape4 = self:size()
  table.insert(shape4, #shape4, 1)
  for d = 2, #shape4 do
    if shape4[d] == 0 then
      error(("adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has "
        .. "sizes %s with dimension %d being empty"):format("[" .. table.concat(shape4, ", ") .. "]", d), 2)
    end
  end
  if not self.dtype.is_floating_point then
    error(("\"adaptive_max_pool2d\" not implemented for '%s'"):format(type_name(self.dtype)), 2)
  end
  if n < 0 then
    shape4[#shape4] = n
    error(("Trying to create tensor with negative dimension %d: %s"):format(n, "[" .. table.concat(shape4, ", ") .. "]"), 2)
  end
  local L = self:size(-1)
  if n == 0 then
    local shape = self:size()
    shape[#shape] = 0
    return torch.empty(shape, { dtype = self.dtype, device = self.device }),
      torch.empty(shape, { dtype = torch.int64, device = self.device })
  end
  local values, indices = {}, {}
  for i = 0, n - 1 do
    local s, e = (i * L) // n, -((-(i + 1) * L) // n)
    local v, idx = self:narrow(-1, s + 1, e - s):max(-1, true)
    values[i + 1], indices[i + 1] = v, idx + s
  end
  return torch.cat(values, -1), torch.cat(indices, -1)
end)

-- max_pool3d(input, kernel_size, stride = kernel_size, padding = 0, dilation = 1, ceil_mode = false):
-- the windows unfolded along the three last dims (padding as -inf, dilation by stepping), the max
-- of each (its gradient goes to one element, as max pooling's)
def("max_pool3d", "Tensor input, int[N] kernel_size, int[N] stride=None, int[N] padding=0, int[N] dilation=1, "
  .. "bool ceil_mode=False", function(self, kernel_size, stride, padding, dilation, ceil_mode)
  local function three(v, what, words)
    v = listed(v)
    if #v ~= 1 and #v ~= 3 then error(("max_pool3d: %s %s"):format(what, words), 3) end
    return #v == 1 and { v[1], v[1], v[1] } or v
  end
  local k = three(kernel_size, "kernel_size", "must either be a single int, or a tuple of three ints")
  if stride ~= nil and type(stride) == "table" and #stride == 0 then stride = nil end
  local st = stride == nil and k or three(stride, "stride", "must either be omitted, a single int, or a tuple of three ints")
  local pd = three(padding, "padding", "must be either be a single int, or a tuple of three ints")
  local dl = three(dilation, "dilation", "must be either a single int, or a tuple of three ints")
  local nd = self:dim()
  if nd ~= 4 and nd ~= 5 then error("non-empty 4D or 5D (batch mode) tensor expected for input", 2) end
  local out = {}
  for i = 1, 3 do
    if st[i] == 0 then error("stride should not be zero", 2) end
    local L = self:size(nd - 3 + i)
    local span = dl[i] * (k[i] - 1) + 1
    local num = L + 2 * pd[i] - span + (ceil_mode and st[i] - 1 or 0)
    local o = num // st[i] + 1
    if ceil_mode and (o - 1) * st[i] >= L + pd[i] then o = o - 1 end
    out[i] = o
  end
  if k[1] <= 0 or k[2] <= 0 or k[3] <= 0 then
    error(("kernel size should be greater than zero, but got kT: %d kH: %d kW: %d"):format(k[1], k[2], k[3]), 2)
  end
  if st[1] <= 0 or st[2] <= 0 or st[3] <= 0 then
    error(("stride should be greater than zero, but got dT: %d dH: %d dW: %d"):format(st[1], st[2], st[3]), 2)
  end
  if dl[1] <= 0 or dl[2] <= 0 or dl[3] <= 0 then
    error(("dilation should be greater than zero, but got dilationT: %d dilationH: %d dilationW: %d")
      :format(dl[1], dl[2], dl[3]), 2)
  end
  for i = 1, 3 do
    if pd[i] < 0 then error(("pad must be non-negative, but got pad: %d"):format(pd[i]), 2) end
    if pd[i] > k[i] // 2 then
      error(("pad should be at most half of kernel size, but got pad=%d and kernel_size=%d"):format(pd[i], k[i]), 2)
    end
  end
  for d = nd - 3, nd do -- (PyTorch 1.13 numbers the dimension 0 whichever it is)
    if self:size(d) == 0 then
      error(("max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions to have positive "
        .. "length, but input has a shape of %s and non-batch dimension %d has length zero!"):format(sizes(self), d), 2)
    end
  end
  if out[1] < 1 or out[2] < 1 or out[3] < 1 then
    error(("Given input size: (%dx%dx%dx%d). Calculated output size: (%dx%dx%dx%d). Output size is too small")
      :format(self:size(nd - 3), self:size(nd - 2), self:size(nd - 1), self:size(nd), self:size(nd - 3), out[1], out[2],
        out[3]), 2)
  end
  if not self.dtype.is_floating_point then
    error(("\"max_pool3d_with_indices_cpu\" not implemented for '%s'"):format(type_name(self.dtype)), 2)
  end
  -- padding: the given one on the left, on the right what the last window needs
  local pad = {}
  for i = 3, 1, -1 do
    local L = self:size(nd - 3 + i)
    local need = (out[i] - 1) * st[i] + dl[i] * (k[i] - 1) + 1 - (L + pd[i])
    pad[#pad + 1] = pd[i]
    pad[#pad + 1] = math.max(need, 0)
  end
  local x = torch.constant_pad_nd(self, pad, -math.huge)
  for i = 1, 3 do
    local d = nd - 3 + i
    x = x:narrow(d, 1, (out[i] - 1) * st[i] + dl[i] * (k[i] - 1) + 1):unfold(d, dl[i] * (k[i] - 1) + 1, st[i])
    if dl[i] > 1 then x = x:index_select(-1, torch.arange(1, dl[i] * (k[i] - 1) + 2, dl[i], { device = x.device })) end
  end
  local shape = x:size()
  for _ = 1, 3 do table.remove(shape) end
  shape[#shape + 1] = k[1] * k[2] * k[3]
  return (x:reshape(shape):max(-1))
end)

-- ---- 3-D convolutions: one 2-D convolution per kernel depth, the depth positions folded into
-- the batch (the C convolution serves 1-D and 2-D; its checks run first, on meta tensors)
local function three(v)
  v = listed(v)
  if #v == 1 then return { v[1], v[1], v[1] } end
  return v
end
local function meta_of(t)
  if t == nil then return nil end
  return torch.empty_strided(t:size(), t:stride(), { dtype = t.dtype, device = "meta" })
end
local function dims3(v) return ("(%d x %d x %d)"):format(v[1], v[2], v[3]) end

-- the batched input, after convolution's checks and the output-size ones (level: the user's)
local function conv3d_input(name, input, weight, bias, stride, padding, dilation, transposed, opad, groups)
  if input:dim() ~= 4 and input:dim() ~= 5 then
    error(("Expected 4D (unbatched) or 5D (batched) input to %s, but got input of size: %s"):format(name,
      sizes(input)), 3)
  end
  local x = input:dim() == 4 and input:unsqueeze(1) or input
  local ok, err = pcall(torch.convolution, meta_of(x), meta_of(weight), meta_of(bias), listed(stride),
    listed(padding), listed(dilation), transposed, listed(opad), groups)
  if not ok and not tostring(err):find("3-D convolutions are not implemented", 1, true) then error(err, 0) end
  local st, pd, dl, op = three(stride), three(padding), three(dilation), three(opad)
  local insz, k = { x:size(3), x:size(4), x:size(5) }, { weight:size(3), weight:size(4), weight:size(5) }
  if not transposed then
    local padded, kern, small = {}, {}, false
    for i = 1, 3 do
      padded[i], kern[i] = insz[i] + 2 * pd[i], dl[i] * (k[i] - 1) + 1
      small = small or padded[i] < kern[i]
    end
    if small then
      error(("Calculated padded input size per channel: %s. Kernel size: %s. Kernel size can't be greater than "
        .. "actual input size"):format(dims3(padded), dims3(kern)), 3)
    end
  else
    for i = 1, 3 do
      if op[i] >= st[i] and op[i] >= dl[i] then
        error(("output padding must be smaller than either stride or dilation, but got output_padding_depth: %d "
          .. "output_padding_height: %d output_padding_width: %d stride_depth: %d stride_height: %d stride_width: "
          .. "%d dilation_depth: %d dilation_height: %d dilation_width: %d"):format(op[1], op[2], op[3], st[1],
            st[2], st[3], dl[1], dl[2], dl[3]), 3)
      end
    end
    local outsz, small = {}, false
    for i = 1, 3 do
      outsz[i] = (insz[i] - 1) * st[i] - 2 * pd[i] + dl[i] * (k[i] - 1) + op[i] + 1
      small = small or outsz[i] < 1
    end
    if small then
      error(("Given input size per channel: %s. Calculated output size per channel: %s. Output size is too small")
        :format(dims3(insz), dims3(outsz)), 3)
    end
  end
  if x.dtype ~= weight.dtype then
    error(("expected scalar type %s but found %s"):format(type_name(x.dtype), type_name(weight.dtype)), 3)
  end
  return x, st, pd, dl, op
end

def("conv3d", "Tensor input, Tensor weight, Tensor? bias=None, int[N] stride=1, int[N] padding=0, "
  .. "int[N] dilation=1, int groups=1", function(input, weight, bias, stride, padding, dilation, groups)
  local x, st, pd, dl = conv3d_input("conv3d", input, weight, bias, stride, padding, dilation, false, 0, groups)
  local N, C, D, H, W = table.unpack(x:size())
  local kD = weight:size(3)
  local oD = (D + 2 * pd[1] - dl[1] * (kD - 1) - 1) // st[1] + 1
  local xp = pd[1] > 0 and torch.constant_pad_nd(x, { 0, 0, 0, 0, pd[1], pd[1] }) or x
  local out
  for j = 0, kD - 1 do
    local xs = xp:narrow(3, j * dl[1] + 1, (oD - 1) * st[1] + 1)
    if st[1] > 1 then xs = xs:index_select(3, torch.arange(1, (oD - 1) * st[1] + 2, st[1], { device = x.device })) end
    local y = torch.conv2d(xs:transpose(2, 3):reshape(N * oD, C, H, W), weight:select(3, j + 1), nil,
      { st[2], st[3] }, { pd[2], pd[3] }, { dl[2], dl[3] }, groups)
    out = out and out + y or y
  end
  local O, oH, oW = out:size(2), out:size(3), out:size(4)
  out = dense(out:view(N, oD, O, oH, oW):transpose(2, 3))
  if bias ~= nil then out = out + bias:to(out.dtype):view(1, O, 1, 1, 1) end
  if input:dim() == 4 then out = out:squeeze(1) end
  return out
end)

def("conv_transpose3d", "Tensor input, Tensor weight, Tensor? bias=None, int[N] stride=1, int[N] padding=0, "
  .. "int[N] output_padding=0, int groups=1, int[N] dilation=1",
  function(input, weight, bias, stride, padding, output_padding, groups, dilation)
    local x, st, pd, dl, op = conv3d_input("conv_transpose3d", input, weight, bias, stride, padding, dilation, true,
      output_padding, groups)
    local N, C, D, H, W = table.unpack(x:size())
    local kD = weight:size(3)
    local full = (D - 1) * st[1] + dl[1] * (kD - 1) + 1 + op[1]
    local x2 = x:transpose(2, 3):reshape(N * D, C, H, W)
    local out
    for j = 0, kD - 1 do
      local y = torch.conv_transpose2d(x2, weight:select(3, j + 1), nil, { st[2], st[3] }, { pd[2], pd[3] },
        { op[2], op[3] }, groups, { dl[2], dl[3] })
      y = y:view(N, D, y:size(2), y:size(3), y:size(4))
      if out == nil then
        out = torch.zeros(N, full, y:size(3), y:size(4), y:size(5), { dtype = y.dtype, device = y.device })
      end
      out = out:index_add(2, torch.arange(0, D, { device = y.device }) * st[1] + (j * dl[1] + 1), y)
    end
    local oD = full - 2 * pd[1]
    local O = out:size(3)
    out = dense(out:narrow(2, pd[1] + 1, oD):transpose(2, 3))
    if bias ~= nil then out = out + bias:to(out.dtype):view(1, O, 1, 1, 1) end
    if input:dim() == 4 then out = out:squeeze(1) end
    return out
  end)

-- conv_tbc(input (time, batch, in), weight (kernel, in, out), bias (out), pad = 0): conv1d in the
-- time-batch-channel layout
def("conv_tbc", "Tensor input, Tensor weight, Tensor bias, int pad=0", function(self, weight, bias, pad)
  if self:dim() ~= 3 then error("Input must have 3 dims: time, batch, in_channel", 2) end
  if weight:dim() ~= 3 then
    error("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.", 2)
  end
  if bias:dim() ~= 1 then error("Bias must be 1-D", 2) end
  if self:size(3) ~= weight:size(2) then
    error("Input dim 3 (input channels) is not == dim 2 in the weight tensor", 2)
  end
  if weight:size(3) ~= bias:size(1) then
    error("Bias size must equal dim 3 in the weight tensor (output channels).", 2)
  end
  local olen = self:size(1) - weight:size(1) + 1 + 2 * pad
  if olen < 0 then
    error(("Trying to create tensor with negative dimension %d: [%d, %d, %d]"):format(olen, olen, self:size(2),
      weight:size(3)), 2)
  end
  if olen == 0 then return torch.empty(0, self:size(2), weight:size(3), { dtype = self.dtype, device = self.device }) end
  local y = torch.conv1d(self:permute(2, 3, 1), weight:permute(3, 2, 1), bias, 1, pad)
  return dense(y:permute(3, 1, 2))
end)

-- affine_grid_generator(theta, size, align_corners): the sampling grid theta maps the output's
-- normalized coordinates ([-1, 1], x fastest) to, (N, H, W, 2) or (N, D, H, W, 3)
def("affine_grid_generator", "Tensor theta, int[] size, bool align_corners", function(theta, size, align_corners)
  if #size ~= 4 and #size ~= 5 then
    error("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.", 2)
  end
  local fo = { dtype = theta.dtype, device = theta.device }
  local function steps(n)
    if n <= 1 then return torch.zeros({}, fo) end
    local r = torch.linspace(-1, 1, n, fo)
    if not align_corners then r = r * (n - 1) / n end
    return r
  end
  local N, spatial = size[1], { table.unpack(size, 3) }
  local k = #spatial
  local shape = { N, table.unpack(spatial) }
  shape[#shape + 1] = k + 1
  local base = torch.empty(shape, fo)
  for i = 1, k do -- coordinate i runs along spatial dim k - i + 1 (x along the last)
    local r = steps(spatial[k - i + 1])
    for _ = 1, i - 1 do r = r:unsqueeze(-1) end
    base:select(-1, i):copy_(r)
  end
  base:select(-1, k + 1):fill_(1)
  local count = 1
  for _, n in ipairs(spatial) do count = count * n end
  local grid = base:view(N, count, k + 1):bmm(theta:transpose(2, 3))
  local out = { N, table.unpack(spatial) }
  out[#out + 1] = k
  return grid:view(out)
end)

-- ---- grid sampling (ATen's grid_sampler_2d/3d): interpolation 0 bilinear, 1 nearest, 2 bicubic
-- (2-D only); padding 0 zeros, 1 border, 2 reflection; grid (N, Ho, Wo, 2) holds (x, y) in [-1, 1]
-- ((x, y, z) for 3-D). Each tap
-- is a gather from the flattened input, out-of-bounds taps read 0; the gradient reaches the input
-- through the gathers and the grid through the weights and the coordinate maps.
local function unnormalize(coord, size, align_corners)
  if align_corners then return (coord + 1) * ((size - 1) / 2) end
  return (coord + 1) * (size / 2) - 0.5
end
local function clip(coord, size) return coord:clamp(0, size - 1) end
local function reflect(coord, twice_low, twice_high)
  if twice_low == twice_high then return torch.zeros_like(coord) end
  local min, span = twice_low / 2, (twice_high - twice_low) / 2
  local c = (coord - min):abs()
  local extra = torch.fmod(c, span)
  local flips = (c / span):floor()
  local even = torch.fmod(flips, 2):eq(0)
  return torch.where(even, extra + min, -extra + (span + min))
end
-- the padding mode applied to source coordinates
local function pad_coord(coord, size, padding_mode, align_corners)
  if padding_mode == 1 then return clip(coord, size) end
  if padding_mode == 2 then
    if align_corners then return clip(reflect(coord, 0, 2 * (size - 1)), size) end
    return clip(reflect(coord, -1, 2 * size - 1), size)
  end
  return coord
end

local function grid_checks(fname, input, grid)
  local function both() return sizes(input), sizes(grid) end
  if input:size(1) ~= grid:size(1) then
    error(("grid_sampler(): expected grid and input to have same batch size, but got input with sizes %s and grid "
      .. "with sizes %s"):format(both()), 3)
  end
  if grid:size(-1) ~= input:dim() - 2 then
    error(("grid_sampler(): expected grid to have size %d in last dimension, but got grid with sizes %s")
      :format(input:dim() - 2, sizes(grid)), 3)
  end
  for d = 3, input:dim() do
    if input:size(d) == 0 then
      error(("grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes %s with "
        .. "dimension %d being empty"):format(sizes(input), d), 3)
    end
  end
end

local function grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)
  if input:dim() ~= 4 or grid:dim() ~= 4 then
    error(("grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with sizes %s "
      .. "and grid with sizes %s"):format(sizes(input), sizes(grid)), 3)
  end
  if input.dtype ~= grid.dtype then
    error(("expected scalar type %s but found %s"):format(type_name(input.dtype), type_name(grid.dtype)), 3)
  end
  if not input.dtype.is_floating_point then
    error(("grid_sampler_2d_cpu not implemented for %s"):format(type_name(input.dtype)), 3)
  end
  local N, C, H, W = table.unpack(input:size())
  local Ho, Wo = grid:size(2), grid:size(3)
  local flat = input:reshape(N, C, H * W)
  -- the input at integer positions (x, y) (N, Ho, Wo), 0 outside: (N, C, Ho, Wo)
  local function tap(x, y)
    local inside = x:ge(0):logical_and(x:le(W - 1)):logical_and(y:ge(0)):logical_and(y:le(H - 1))
    local idx = (y:clamp(0, H - 1) * W + x:clamp(0, W - 1)):to(torch.int64):reshape(N, 1, Ho * Wo)
    local v = flat:gather(3, idx:expand(N, C, Ho * Wo) + 1):view(N, C, Ho, Wo)
    return v * inside:unsqueeze(2):to(v.dtype)
  end
  local gx, gy = grid:select(4, 1), grid:select(4, 2)
  local ix, iy = unnormalize(gx, W, align_corners), unnormalize(gy, H, align_corners)
  if interpolation_mode == 2 then -- bicubic: 4 x 4 taps, each padded on its own
    local x0, y0 = ix:floor(), iy:floor()
    local tx, ty = ix - x0, iy - y0
    local A = -0.75
    local function coeffs(t)
      local function near(v) return ((v * (A + 2) - (A + 3)) * v) * v + 1 end
      local function far(v) return ((v * A - 5 * A) * v + 8 * A) * v - 4 * A end
      return { far(t + 1), near(t), near(-t + 1), far(-t + 2) }
    end
    local cx, cy = coeffs(tx), coeffs(ty)
    local out
    for j = 1, 4 do
      local row
      local yy = pad_coord(y0 + (j - 2), H, padding_mode, align_corners)
      for i = 1, 4 do
        local xx = pad_coord(x0 + (i - 2), W, padding_mode, align_corners)
        local v = tap(xx:detach(), yy:detach()) * cx[i]:unsqueeze(2)
        row = row and row + v or v
      end
      row = row * cy[j]:unsqueeze(2)
      out = out and out + row or row
    end
    return out
  end
  ix = pad_coord(ix, W, padding_mode, align_corners)
  iy = pad_coord(iy, H, padding_mode, align_corners)
  if interpolation_mode == 1 then
    return tap(ix:detach():round(), iy:detach():round())
  end
  local x0, y0 = ix:detach():floor(), iy:detach():floor()
  local x1, y1 = x0 + 1, y0 + 1
  local wx1, wy1 = ix - x0, iy - y0
  local wx0, wy0 = -ix + x1, -iy + y1
  local function w(a, b) return (a * b):unsqueeze(2) end
  return tap(x0, y0) * w(wx0, wy0) + tap(x1, y0) * w(wx1, wy0) + tap(x0, y1) * w(wx0, wy1) + tap(x1, y1) * w(wx1, wy1)
end

-- grid_sampler_3d: trilinear (0) or nearest (1) over (N, C, D, H, W) with grid (N, Do, Ho, Wo, 3)
local function grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners)
  if input:dim() ~= 5 or grid:dim() ~= 5 then
    error(("grid_sampler(): expected 5D input and grid with same number of dimensions, but got input with sizes %s "
      .. "and grid with sizes %s"):format(sizes(input), sizes(grid)), 3)
  end
  if interpolation_mode == 2 then error("grid_sampler(): bicubic interpolation only supports 4D input", 3) end
  if input.dtype ~= grid.dtype then
    error(("expected scalar type %s but found %s"):format(type_name(input.dtype), type_name(grid.dtype)), 3)
  end
  if not input.dtype.is_floating_point then
    error(("\"grid_sampler3d_cpu\" not implemented for '%s'"):format(type_name(input.dtype)), 3)
  end
  local N, C, D, H, W = table.unpack(input:size())
  local Do, Ho, Wo = grid:size(2), grid:size(3), grid:size(4)
  local M = Do * Ho * Wo
  local flat = input:reshape(N, C, D * H * W)
  local function tap(x, y, z)
    local inside = x:ge(0):logical_and(x:le(W - 1)):logical_and(y:ge(0)):logical_and(y:le(H - 1))
      :logical_and(z:ge(0)):logical_and(z:le(D - 1))
    local idx = ((z:clamp(0, D - 1) * H + y:clamp(0, H - 1)) * W + x:clamp(0, W - 1)):to(torch.int64)
    local v = flat:gather(3, idx:reshape(N, 1, M):expand(N, C, M) + 1):view(N, C, Do, Ho, Wo)
    return v * inside:unsqueeze(2):to(v.dtype)
  end
  local coords, size = {}, { W, H, D }
  for i = 1, 3 do
    coords[i] = pad_coord(unnormalize(grid:select(5, i), size[i], align_corners), size[i], padding_mode, align_corners)
  end
  if interpolation_mode == 1 then
    return tap(coords[1]:detach():round(), coords[2]:detach():round(), coords[3]:detach():round())
  end
  local lo, w = {}, {}
  for i = 1, 3 do
    lo[i] = coords[i]:detach():floor()
    w[i] = { -coords[i] + (lo[i] + 1), coords[i] - lo[i] } -- the weights of lo and lo + 1
  end
  local out
  for c = 0, 7 do
    local b = { c & 1, (c >> 1) & 1, (c >> 2) & 1 }
    local v = tap(lo[1] + b[1], lo[2] + b[2], lo[3] + b[3])
      * (w[1][b[1] + 1] * w[2][b[2] + 1] * w[3][b[3] + 1]):unsqueeze(2)
    out = out and out + v or v
  end
  return out
end

local SAMPLER_ARGS = "Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners"
def("grid_sampler_2d", SAMPLER_ARGS, function(input, grid, interpolation_mode, padding_mode, align_corners)
  grid_checks("grid_sampler_2d", input, grid)
  return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)
end)
def("grid_sampler", SAMPLER_ARGS, function(input, grid, interpolation_mode, padding_mode, align_corners)
  grid_checks("grid_sampler", input, grid)
  if input:dim() == 4 then return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners) end
  return grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners)
end)
def("grid_sampler_3d", SAMPLER_ARGS, function(input, grid, interpolation_mode, padding_mode, align_corners)
  grid_checks("grid_sampler_3d", input, grid)
  return grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners)
end)

-- ---- the multi-layer recurrent functions (ATen's rnn_tanh, rnn_relu, lstm, gru on padded input):
-- params is the flat list nn's modules hold, per layer and direction w_ih, w_hh (b_ih, b_hh when
-- has_biases) (w_hr for an LSTM whose h is smaller than its c); dropout between layers when train
local rnn = require "mindtorch._rnn"
local function recurrent(name, mode)
  local lstm = mode == "LSTM"
  def(name, "Tensor input, " .. (lstm and "Tensor[] hx" or "Tensor hx") .. ", Tensor[] params, bool has_biases, "
    .. "int num_layers, float dropout, bool train, bool bidirectional, bool batch_first",
    function(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
      local h0, c0 = hx, nil
      if lstm then
        if #hx ~= 2 then error("lstm expects two hidden states", 2) end
        h0, c0 = hx[1], hx[2]
      end
      if input:dim() ~= 3 then error(("input must have 3 dimensions, got %d"):format(input:dim()), 2) end
      local nd = bidirectional and 2 or 1
      local proj = lstm and h0:dim() == 3 and c0:dim() == 3 and h0:size(3) ~= c0:size(3)
      local per = (has_biases and 4 or 2) + (proj and 1 or 0)
      if #params % per ~= 0 or #params < per * num_layers * nd then
        error("got an incorrect number of RNN parameters", 2)
      end
      if h0:dim() ~= 3 or h0:size(1) < num_layers * nd or (lstm and (c0:dim() ~= 3 or c0:size(1) < num_layers * nd)) then
        error("Expected more hidden states in stacked_rnn", 2)
      end
      local weights = {}
      for i = 1, num_layers * nd do
        local k = (i - 1) * per
        local w = { w_ih = params[k + 1], w_hh = params[k + 2] }
        if has_biases then w.b_ih, w.b_hh = params[k + 3], params[k + 4] end
        if proj then w.w_hr = params[k + per] end
        weights[i] = w
      end
      if batch_first then input = input:transpose(1, 2) end
      local out, hn, cn = rnn.run(mode, input, h0:narrow(1, 1, num_layers * nd),
        c0 and c0:narrow(1, 1, num_layers * nd), weights, num_layers, bidirectional, dropout, train)
      if batch_first then out = out:transpose(1, 2) end
      if lstm then return out, hn, cn end
      return out, hn
    end)
end
recurrent("rnn_tanh", "RNN_TANH")
recurrent("rnn_relu", "RNN_RELU")
recurrent("lstm", "LSTM")
recurrent("gru", "GRU")

-- ---- function forms of methods, and the complex parts of real tensors -------------------------
-- real: the tensor itself; imag: refused (every dtype here is real)
-- (x.real and x.imag, the attributes, are src/lua/lmt_tensor.c's)
local function tensor_arg(fname, v)
  if torch.is_tensor(v) then return v end
  error(("%s(): argument 'input' (position 1) must be Tensor, not %s"):format(fname,
    math.type(v) == "integer" and "integer" or type(v)), 3)
end
function torch.real(self) return tensor_arg("real", self) end
function torch.imag(self)
  tensor_arg("imag", self)
  error("imag is not implemented for tensors with non-complex dtypes.", 2)
end

-- torch.detach_(x): x:detach_() (the method is _queries.lua's; pdist, cdist, renorm, hardshrink,
-- prelu and rrelu are statistics.lua's, gamma.lua's and _queries.lua's)
torch.detach_ = torch._autograd.detach_
torch.addmv_ = Tensor.addmv_
torch.as_strided_ = Tensor.as_strided_
torch.index_put_ = Tensor.index_put_

-- slice_copy(input, dim = 1, start = nil, end = nil, step = 1): input[start:end:step] along dim as
-- a new tensor; start and end are Python slice bounds, as slice_scatter's
def("slice_copy", "Tensor input, int dim=1, int? start=None, int? end=None, int step=1", function(self, dim, s, e, step)
  if step <= 0 then error("slice step must be positive", 2) end
  local n = self:size(dim)
  local function bound(v, default)
    if v == nil then return default end
    if v < 0 then v = v + n end
    return math.min(math.max(v, 0), n)
  end
  s, e = bound(s, 0), bound(e, n)
  if e < s then e = s end
  local view = self:narrow(dim, s + 1, e - s)
  if step > 1 and e > s then
    return view:index_select(dim, torch.arange(1, e - s + 1, step, { device = self.device }))
  end
  return view:clone()
end)

-- unsafe_split_with_sizes: split_with_sizes (PyTorch's skips the views' version checks)
torch.unsafe_split_with_sizes = torch.split_with_sizes
Tensor.unsafe_split_with_sizes = Tensor.split_with_sizes

return torch
