-- Every op with derivative formulas passes gradcheck (analytical Jacobians against central
-- finite differences in float64), and a set of them gradgradcheck (second derivatives through
-- create_graph). A case is keyed by the op it checks; the spec fails when an op with formulas
-- has no case, and each case must really record that op (its graph is walked for it).
local torch = require "mindtorch"
local gradcheck, gradgradcheck = torch.autograd.gradcheck, torch.autograd.gradgradcheck

local gen = torch.Generator():manual_seed(2024)
local f64 = torch.float64
local function leaf(t) return t:detach():requires_grad_() end
local function r(...) return leaf(torch.randn(table.pack(...), { dtype = f64, generator = gen })) end
-- away from zero (log, sqrt, division)
local function pos(...) return leaf(torch.rand(table.pack(...), { dtype = f64, generator = gen }) + 0.5) end
-- inside (-0.8, 0.8) (asin, acos)
local function unit(...) return leaf(torch.rand(table.pack(...), { dtype = f64, generator = gen }) * 1.6 - 0.8) end
-- inside (1.2, 3.2) (acosh)
local function above1(...) return leaf(torch.rand(table.pack(...), { dtype = f64, generator = gen }) * 2 + 1.2) end
local function ix(t) return torch.tensor(t) end
local function fixed(seed) return { generator = torch.Generator():manual_seed(seed) } end
-- an in-place method applied to a copy (gradcheck's inputs are leaves)
local function inplace(m, ...)
  local extra = table.pack(...)
  return function(x, ...)
    local args = table.pack(...)
    for i = 1, extra.n do args[args.n + i] = extra[i] end
    return x:clone()[m](x:clone(), table.unpack(args, 1, args.n + extra.n))
  end
end
local function call(m, ...)
  local extra = table.pack(...)
  return function(x, ...)
    local args = table.pack(...)
    for i = 1, extra.n do args[args.n + i] = extra[i] end
    return x[m](x, table.unpack(args, 1, args.n + extra.n))
  end
end

-- name -> { fn, inputs (a function returning them), gg = run gradgradcheck too }
local C = {}
local function case(name, fn, inputs, gg, records, opts)
  C[name] = { fn = fn, inputs = inputs, gg = gg, records = records, opts = opts }
end
-- ops PyTorch gives zero gradients by definition (random samplers: the sample is treated as
-- independent of the parameters), which finite differences would not see as zero
local function zero_case(name, fn, inputs) C[name] = { fn = fn, inputs = inputs, zero = true } end
local function both(name, fn, ifn, inputs, gg) -- an op and its in-place form
  case(name, fn, inputs, gg)
  case(name:gsub("^([%w_]+)", "%1_", 1), ifn, inputs)
end

-- copies and fills
case("clone", call("clone"), function() return { r(2, 3) } end, true)
case("copy_", function(x, y) return x:clone():copy_(y) end, function() return { r(2, 3), r(3) } end)
case("fill_.Scalar", function(x) return x * 1 + x:clone():fill_(2) end, function() return { r(2, 2) } end)
case("fill_.Tensor", function(x, v) return x:clone():fill_(v) end, function() return { r(2, 2), r() } end)
case("zero_", function(x) return x * 2 + x:clone():zero_() end, function() return { r(2, 2) } end)
case("_to_copy", function(x) return x:to(torch.float32):to(f64) end, function() return { r(3) } end, false, nil,
  { eps = 1e-2, atol = 1e-4 }) -- float32 in the middle: a coarser step

-- arithmetic
both("add.Tensor", function(x, y) return torch.add(x, y, { alpha = 2 }) end,
  function(x, y) return x:clone():add_(y, { alpha = 2 }) end, function() return { r(2, 3), r(3) } end, true)
both("add.Scalar", function(x) return x + 3 end, function(x) return x:clone():add_(3) end, function() return { r(2) } end)
both("sub.Tensor", function(x, y) return torch.sub(x, y, { alpha = 3 }) end,
  function(x, y) return x:clone():sub_(y, { alpha = 3 }) end, function() return { r(2, 3), r(2, 1) } end)
both("sub.Scalar", function(x) return x - 3 end, function(x) return x:clone():sub_(3) end, function() return { r(2) } end)
both("mul.Tensor", function(x, y) return x * y end, function(x, y) return x:clone():mul_(y) end,
  function() return { r(2, 3), r(3) } end, true)
both("mul.Scalar", function(x) return x * 3 end, function(x) return x:clone():mul_(3) end, function() return { r(2) } end)
both("div.Tensor", function(x, y) return x / y end, function(x, y) return x:clone():div_(y) end,
  function() return { r(2, 3), pos(3) } end, true)
both("div.Scalar", function(x) return x / 3 end, function(x) return x:clone():div_(3) end, function() return { r(2) } end)
both("div.Tensor_mode", function(x, y) return torch.div(x, y, { rounding_mode = "floor" }) + x end,
  function(x, y) return x:clone():div_(y, { rounding_mode = "trunc" }) end, function() return { r(2, 3), pos(3) } end)
both("div.Scalar_mode", function(x) return torch.div(x, 3, { rounding_mode = "floor" }) end,
  function(x) return x:clone():div_(3, { rounding_mode = "trunc" }) end, function() return { r(4) } end)
both("true_divide.Tensor", function(x, y) return torch.true_divide(x, y) end, function(x, y) return x:clone():true_divide_(y) end,
  function() return { r(3), pos(3) } end)
both("true_divide.Scalar", function(x) return torch.true_divide(x, 4) end, function(x) return x:clone():true_divide_(4) end,
  function() return { r(3) } end)
both("remainder.Tensor", function(x, y) return torch.remainder(x, y) end, function(x, y) return x:clone():remainder_(y) end,
  function() return { r(2, 3), pos(3) } end)
both("remainder.Scalar", function(x) return torch.remainder(x, 0.7) end, function(x) return x:clone():remainder_(0.7) end,
  function() return { r(4) } end)
both("fmod.Tensor", function(x, y) return torch.fmod(x, y) end, function(x, y) return x:clone():fmod_(y) end,
  function() return { r(2, 3), pos(3) } end)
both("fmod.Scalar", function(x) return torch.fmod(x, 0.7) end, function(x) return x:clone():fmod_(0.7) end,
  function() return { r(4) } end)
case("pow.Tensor_Tensor", function(x, y) return x:pow(y) end, function() return { pos(2, 3), r(2, 3) } end, true)
case("pow_.Tensor", function(x, y) return x:clone():pow_(y) end, function() return { pos(2, 3), r(3) } end)
case("pow.Tensor_Scalar", function(x) return x:pow(3) + x:pow(0) end, function() return { r(2, 3) } end, true)
case("pow_.Scalar", function(x) return x:clone():pow_(2.5) end, function() return { pos(2, 3) } end)
case("pow.Scalar", function(y) return torch.pow(2.5, y) end, function() return { r(3) } end, true)
case("rsub.Tensor", function(x, y) return torch.rsub(x, y, { alpha = 2 }) end, function() return { r(2, 3), r(3) } end)
case("rsub.Scalar", function(x) return torch.rsub(x, 2, 3) end, function() return { r(3) } end)
both("atan2", function(x, y) return torch.atan2(x, y) end, function(x, y) return x:clone():atan2_(y) end,
  function() return { r(2, 3), r(2, 3) } end, true)
case("maximum", function(x, y) return torch.maximum(x, y) end, function() return { r(2, 3), r(3) } end)
case("minimum", function(x, y) return torch.minimum(x, y) end, function() return { r(2, 3), r(3) } end)
case("fmax", function(x, y) return torch.fmax(x, y) end, function() return { r(2, 3), r(3) } end, true)
case("fmin", function(x, y) return torch.fmin(x, y) end, function() return { r(2, 3), r(3) } end)
both("hypot", function(x, y) return torch.hypot(x, y) end, function(x, y) return x:clone():hypot_(y) end,
  function() return { r(2, 3), r(3) } end, true)
case("logaddexp", function(x, y) return torch.logaddexp(x, y) end, function() return { r(2, 3), r(3) } end, true)
case("logaddexp2", function(x, y) return torch.logaddexp2(x, y) end, function() return { r(2, 3), r(3) } end, true)
both("copysign.Tensor", function(x, y) return torch.copysign(x, y) end, function(x, y) return x:clone():copysign_(y) end,
  function() return { r(2, 3), r(3) } end)
both("copysign.Scalar", function(x) return torch.copysign(x, -1.5) end, function(x) return x:clone():copysign_(-1.5) end,
  function() return { r(2, 3) } end)
both("xlogy.Tensor", function(x, y) return torch.xlogy(x, y) end, function(x, y) return x:clone():xlogy_(y) end,
  function() return { r(2, 3), pos(3) } end, true)
both("xlogy.Scalar", function(x) return torch.xlogy(x, 2.5) end, function(x) return x:clone():xlogy_(2.5) end,
  function() return { r(2, 3) } end)
for _, c in ipairs { "eq", "ne", "lt", "le", "gt", "ge" } do
  case(c .. "_.Tensor", function(x, y) return x:clone()[c .. "_"](x:clone(), y) * x end, function() return { r(2, 3), r(3) } end)
  case(c .. "_.Scalar", function(x) return x:clone()[c .. "_"](x:clone(), 0.1) * x end, function() return { r(2, 3) } end)
end

-- unary math
local unary = {
  neg = r, abs = r, sign = r, reciprocal = pos, sqrt = pos, rsqrt = pos, exp = r, exp2 = r, expm1 = r,
  log = pos, log2 = pos, log10 = pos, log1p = pos, sin = r, cos = r, tan = unit, asin = unit, acos = unit,
  atan = r, sinh = r, cosh = r, tanh = r, sigmoid = r, relu = r, floor = r, ceil = r, round = r,
  trunc = r, frac = r, silu = r, hardtanh = r, leaky_relu = r, elu = r, erf = r, erfc = r, erfinv = unit,
  asinh = r, acosh = above1, atanh = unit, deg2rad = r, rad2deg = r, sinc = r,
}
local second = { exp = true, log = true, sin = true, tanh = true, sigmoid = true, sqrt = true, reciprocal = true,
  cos = true, atan = true, silu = true, abs = true, expm1 = true, rsqrt = true, log1p = true, tan = true, asin = true,
  erf = true, erfinv = true, asinh = true, acosh = true, atanh = true, sinc = true }
for name, make in pairs(unary) do
  both(name, call(name), inplace(name .. "_"), function() return { make(2, 3) } end, second[name])
end
both("round.decimals", function(x) return x:round({ decimals = 1 }) end,
  function(x) return x:clone():round_({ decimals = 1 }) end, function() return { r(4) } end)
both("gelu", call("gelu"), inplace("gelu_"), function() return { r(2, 3) } end, true)
case("gelu.tanh", function(x) return x:gelu({ approximate = "tanh" }) end, function() return { r(2, 3) } end, true)
case("softplus", function(x) return x:softplus(2, 1) end, function() return { r(2, 3) } end, true)
case("elu.params", function(x) return x:elu(0.5, 1.5, 2) end, function() return { r(2, 3) } end)
both("clamp", function(x) return x:clamp(-0.5, 0.5) end, inplace("clamp_", -0.5, 0.5), function() return { r(2, 3) } end)
both("clip", function(x) return x:clip(-0.5) end, inplace("clip_", nil, 0.5), function() return { r(2, 3) } end)
case("clamp.Tensor", function(x, lo, hi) return x:clamp(lo, hi) end, function() return { r(2, 3), r(3) - 0.5, r(3) + 0.5 } end)
case("clamp_.Tensor", function(x, lo, hi) return x:clone():clamp_(lo, hi) end, function() return { r(2, 3), r(3) - 0.5, r(3) + 0.5 } end)
case("clip.Tensor", function(x, lo) return x:clip(lo) end, function() return { r(2, 3), r(3) } end)
both("lerp.Scalar", function(x, y) return x:lerp(y, 0.3) end, function(x, y) return x:clone():lerp_(y, 0.3) end,
  function() return { r(2, 3), r(3) } end, true)
both("lerp.Tensor", function(x, y, w) return x:lerp(y, w) end, function(x, y, w) return x:clone():lerp_(y, w) end,
  function() return { r(2, 3), r(3), r(2, 3) } end)
both("addcmul", function(x, a, b) return x:addcmul(a, b, { value = 0.5 }) end,
  function(x, a, b) return x:clone():addcmul_(a, b, { value = 0.5 }) end, function() return { r(2, 3), r(3), r(2, 3) } end, true)
both("addcdiv", function(x, a, b) return x:addcdiv(a, b, { value = 0.5 }) end,
  function(x, a, b) return x:clone():addcdiv_(a, b, { value = 0.5 }) end, function() return { r(2, 3), r(3), pos(2, 3) } end)
case("where.self", function(x, y) return torch.where(x:gt(0), x, y) end, function() return { r(2, 3), r(3) } end)
case("where.ScalarSelf", function(y) return torch.where(y:gt(0), 1.5, y) end, function() return { r(2, 3) } end)
case("where.ScalarOther", function(x) return torch.where(x:gt(0), x, 2.5) end, function() return { r(2, 3) } end)

-- joins, splits and reorderings
case("cat", function(a, b) return torch.cat({ a, b }, 2) end, function() return { r(2, 3), r(2, 1) } end, true)
case("stack", function(a, b) return torch.stack({ a, b }, 2) end, function() return { r(2, 3), r(2, 3) } end)
local function joined(parts) return torch.cat({ parts[1] * 2, parts[#parts] }, 1) end
case("split.Tensor", function(x) return joined(x:split(2, 1)) end, function() return { r(5, 2) } end)
case("split.sizes", function(x) return joined(x:split({ 1, 3 }, 1)) end, function() return { r(4, 2) } end)
case("chunk", function(x) return joined(x:chunk(2, 2)) end, function() return { r(2, 4) } end)
case("unbind.int", function(x) local p = x:unbind(2) return p[1] * p[3] end, function() return { r(2, 3) } end)
case("flip", function(x) return x:flip({ 1, 2 }) end, function() return { r(2, 3) } end)
case("roll", function(x) return x:roll({ 1, -2 }, { 1, 2 }) end, function() return { r(2, 3) } end)
case("repeat", function(x) return x:repeat_tensor(2, 1, 3) end, function() return { r(2, 3) } end, true)

-- gathers, scatters, masks, sorting (index values are 1-based in Lua)
local function gidx() return ix({ { 1, 3 }, { 2, 2 } }) end
case("gather", function(x) return x:gather(2, gidx()) end, function() return { r(2, 3) } end, true)
both("scatter.src", function(x, s) return x:scatter(2, ix({ { 1, 3 }, { 3, 2 } }), s) end,
  function(x, s) return x:clone():scatter_(2, ix({ { 1, 3 }, { 2, 1 } }), s) end, function() return { r(2, 3), r(2, 2) } end)
both("scatter.value", function(x) return x:scatter(2, gidx(), 1.5) end,
  function(x) return x:clone():scatter_(2, gidx(), 1.5) end, function() return { r(2, 3) } end)
both("scatter_add", function(x, s) return x:scatter_add(2, gidx(), s) end,
  function(x, s) return x:clone():scatter_add_(2, gidx(), s) end, function() return { r(2, 3), r(2, 2) } end)
case("_index_int", function(x) return x[ix({ 1, 2, 2 })] + x[x:gt(0)]:sum() end, function() return { r(2, 3) } end, true)
case("_index_put_int_", function(x, v) local y = x:clone(); y[ix({ 2 })] = v; return y end,
  function() return { r(2, 3), r(3) } end)
case("index_put.accumulate", function(x, v) return x:index_put({ ix({ 1, 1 }) }, v, true) end,
  function() return { r(2, 3), r(3) } end, false, "_index_put_int_")
case("index_select", function(x) return x:index_select(1, ix({ 2, 1, 2 })) end, function() return { r(2, 3) } end, true)
both("index_add", function(x, s) return x:index_add(1, ix({ 2, 2 }), s, { alpha = 2 }) end,
  function(x, s) return x:clone():index_add_(1, ix({ 2, 1 }), s) end, function() return { r(2, 3), r(2, 3) } end)
both("index_copy", function(x, s) return x:index_copy(2, ix({ 3, 1 }), s) end,
  function(x, s) return x:clone():index_copy_(2, ix({ 3, 1 }), s) end, function() return { r(2, 3), r(2, 2) } end)
both("masked_fill.Scalar", function(x) return x:masked_fill(x:gt(0), 2) end,
  function(x) return x:clone():masked_fill_(x:gt(0), 2) end, function() return { r(2, 3) } end)
both("masked_fill.Tensor", function(x, v) return x:masked_fill(x:gt(0), v) end,
  function(x, v) return x:clone():masked_fill_(x:gt(0), v) end, function() return { r(2, 3), r() } end)
case("masked_select", function(x) return x:masked_select(ix({ true, false, true })) end, function() return { r(2, 3) } end)
both("masked_scatter", function(x, s) return x:masked_scatter(x:gt(0), s) end,
  function(x, s) return x:clone():masked_scatter_(x:gt(0), s) end, function() return { r(2, 3), r(7) } end)
case("take", function(x) return x:take(ix({ { 1, 6 }, { -1, 2 } })) end, function() return { r(2, 3) } end)
case("sort", function(x) return (x:sort(2)) end, function() return { r(2, 4) } end, true)
case("sort.stable", function(x) return (x:sort({ stable = true, dim = 1, descending = true })) end, function() return { r(3, 2) } end)
case("topk", function(x) return (x:topk(2)) end, function() return { r(2, 4) } end)
case("kthvalue", function(x) return (x:kthvalue(2, 1)) end, function() return { r(3, 2) } end)
both("tril", function(x) return x:tril() end, inplace("tril_", 1), function() return { r(3, 3) } end)
both("triu", function(x) return x:triu(-1) end, inplace("triu_"), function() return { r(3, 4) } end)
case("diagonal", function(x) return x:diagonal(1, 1, 2) end, function() return { r(3, 4) } end, true)

-- matrix products
case("mm", function(a, b) return a:mm(b) end, function() return { r(2, 3), r(3, 2) } end, true)
case("bmm", function(a, b) return a:bmm(b) end, function() return { r(2, 2, 3), r(2, 3, 2) } end, true)
case("mv", function(a, v) return a:mv(v) end, function() return { r(2, 3), r(3) } end, true)
case("dot", function(a, b) return a:dot(b) end, function() return { r(3), r(3) } end, true)
case("addmm", function(c, a, b) return torch.addmm(c, a, b, { beta = 0.5, alpha = 2 }) end,
  function() return { r(2, 2), r(2, 3), r(3, 2) } end, true)
case("addmv", function(c, a, v) return torch.addmv(c, a, v, { beta = 0.5, alpha = 2 }) end,
  function() return { r(2), r(2, 3), r(3) } end)
case("baddbmm", function(c, a, b) return torch.baddbmm(c, a, b, { beta = 0.5, alpha = 2 }) end,
  function() return { r(2, 2, 2), r(2, 2, 3), r(2, 3, 2) } end)

-- batch normalization: first derivatives through the fused CPU backward, second ones through the
-- formula made of ops (taken under create_graph); training, evaluation, with and without affine
case("_batch_norm_with_var", function(x, w, b) return torch.batch_norm(x, w, b, nil, nil, true, 0.1, 1e-5, false) end,
  function() return { r(4, 3, 2, 2), r(3), r(3) } end, true)
case("_batch_norm_with_var.plain", function(x) return torch.batch_norm(x, nil, nil, nil, nil, true, 0.1, 1e-5, false) end,
  function() return { r(5, 2, 3) } end, true)
case("_batch_norm_with_var.eval", function(x, w, b)
  local rm, rv = torch.tensor({ 0.3, -0.2, 0.1 }, { dtype = f64 }), torch.tensor({ 0.5, 2.0, 1.5 }, { dtype = f64 })
  return torch.batch_norm(x, w, b, rm, rv, false, 0.1, 1e-5, false)
end, function() return { r(4, 3, 2), r(3), r(3) } end, true)
case("_batch_norm_with_var.running", function(x)
  local rm, rv = torch.zeros(2, { dtype = f64 }), torch.ones(2, { dtype = f64 })
  return torch.batch_norm(x, nil, nil, rm, rv, true, 0.3, 1e-5, false)
end, function() return { r(6, 2) } end)

-- convolution and pooling (the backward ops are checked directly and through gradgradcheck)
case("convolution", function(x, w, b) return torch.conv2d(x, w, b, { 2, 1 }, { 1, 0 }, { 1, 2 }, 2) end,
  function() return { r(2, 4, 5, 6), r(4, 2, 3, 2), r(4) } end)
case("convolution.transposed", function(x, w, b) return torch.conv_transpose2d(x, w, b, 2, 1, 1, 2, { 2, 1 }) end,
  function() return { r(2, 4, 3, 3), r(4, 1, 2, 3), r(2) } end)
case("convolution.1d", function(x, w) return torch.conv1d(x, w, nil, 2, 1, 2) end,
  function() return { r(2, 3, 7), r(2, 3, 2) } end)
case("convolution.gg", function(x) return torch.conv2d(x, torch.arange(12.0, { dtype = f64 }):reshape(2, 1, 2, 3):cos(), nil, 2, 1) end,
  function() return { r(1, 1, 4, 5) } end, true)
case("max_pool2d_with_indices", function(x) return (torch.max_pool2d_with_indices(x, 3, 2, 1)) end,
  function() return { r(2, 2, 5, 6) } end, true)
case("max_pool2d_with_indices_backward", function(g, x)
  local _, idx = torch.max_pool2d_with_indices(x:detach(), 2, 1, 0, 2)
  return torch.max_pool2d_with_indices_backward(g, x:detach(), 2, 1, 0, 2, false, idx)
end, function() return { r(1, 2, 3, 2), r(1, 2, 5, 4) } end)
case("avg_pool2d", function(x) return torch.avg_pool2d(x, 3, 2, 1, true, false) end,
  function() return { r(2, 2, 5, 6) } end, true)
case("avg_pool2d_backward", function(g, x)
  return torch.avg_pool2d_backward(g, x:detach(), 3, 2, 1, false, true, 5)
end, function() return { r(1, 2, 3, 3), r(1, 2, 5, 6) } end)
case("_adaptive_avg_pool2d", function(x) return torch.adaptive_avg_pool2d(x, { 3, 4 }) end,
  function() return { r(2, 2, 5, 6) } end, true)
case("_adaptive_avg_pool2d.one", function(x) return torch._adaptive_avg_pool2d(x, { 1, 1 }) end,
  function() return { r(2, 2, 5, 6) } end, true)
-- adaptive_avg_pool2d to 1x1 is a mean, as in PyTorch
case("mean.dim.adaptive_pool", function(x) return torch.adaptive_avg_pool2d(x, { 1, 1 }) end,
  function() return { r(2, 2, 5, 6) } end, true)
case("_adaptive_avg_pool2d_backward", function(g, x) return torch._adaptive_avg_pool2d_backward(g, x:detach()) end,
  function() return { r(1, 2, 3, 4), r(1, 2, 5, 6) } end)

-- relu's gradient as one op: grad_output passes where self is above the threshold
case("_threshold_grad", function(g) return torch._threshold_grad(torch.tensor({ -1.0, 0.5, 2.0, 0.1 }, { dtype = f64 }), g, 0.3) end,
  function() return { r(4) } end, true)

-- the negative log-likelihood loss (1-based targets, one ignored): reductions, class weights, a
-- class given as ignore_index, maps; the backwards' own derivative through gradgradcheck
local nll_t, nll_w = torch.tensor({ 3, 1, 4, -100, 2 }), torch.tensor({ 1.0, 2.0, 0.5, 1.5 }, { dtype = f64 })
local nll_t4 = torch.tensor({ { { 1, 3 }, { 2, 2 } }, { { 3, 1 }, { -100, 2 } } })
case("nll_loss_forward", function(x) return (torch.nll_loss_forward(x, nll_t, nll_w, 1, -100)) end,
  function() return { r(5, 4) } end, true)
case("nll_loss_forward.none", function(x) return (torch.nll_loss_forward(x, torch.tensor({ 3, 1, 4, 2, 2 }), nil, 0, 2)) end,
  function() return { r(5, 4) } end, true, "nll_loss_forward")
case("nll_loss_forward.1d", function(x) return (torch.nll_loss_forward(x, torch.tensor(2), nil, 2, -100)) end,
  function() return { r(4) } end, true, "nll_loss_forward")
case("nll_loss2d_forward", function(x) return (torch.nll_loss2d_forward(x, nll_t4, nil, 1, -100)) end,
  function() return { r(2, 3, 2, 2) } end, true)
case("nll_loss2d_forward.none", function(x) return (torch.nll_loss2d_forward(x, nll_t4:clamp(1, 3), nll_w:narrow(1, 1, 3), 0, 1)) end,
  function() return { r(2, 3, 2, 2) } end, true, "nll_loss2d_forward")
case("nll_loss_nd.3d", function(x) return torch.nll_loss_nd(x, nll_t4:view(2, 4), nil, 2, -100) end,
  function() return { r(2, 3, 4) } end, true, "nll_loss2d_forward")
case("nll_loss_backward", function(g, x)
  -- total_weight as the forward gives it (the weights of the kept targets' classes)
  return torch.nll_loss_backward(g, x:detach(), nll_t, nll_w, 1, -100, torch.tensor(5.0, { dtype = f64 }))
end, function() return { r(), r(5, 4) } end)
case("nll_loss2d_backward", function(g, x)
  return torch.nll_loss2d_backward(g, x:detach(), nll_t4, nil, 0, -100, torch.tensor(0.0, { dtype = f64 }))
end, function() return { r(2, 2, 2), r(2, 3, 2, 2) } end)

-- random in-place ops and samplers: zero gradients (PyTorch's definition)
zero_case("uniform_", function(x) return x:clone():uniform_(0, 1, fixed(1)) end, function() return { r(3) } end)
zero_case("normal_", function(x) return x:clone():normal_(0, 1, fixed(1)) end, function() return { r(3) } end)
zero_case("random_.to", function(x) return x:clone():random_(5, fixed(1)) end, function() return { r(3) } end)
zero_case("random_.from", function(x) return x:clone():random_(2, 5, fixed(1)) end, function() return { r(3) } end)
zero_case("random_", function(x) return x:clone():random_(fixed(1)) end, function() return { r(3) } end)
zero_case("exponential_", function(x) return x:clone():exponential_(1, fixed(1)) end, function() return { r(3) } end)
zero_case("bernoulli_.Tensor", function(x, p) return x:clone():bernoulli_(p:sigmoid(), fixed(1)) end,
  function() return { r(3), r(3) } end)
zero_case("bernoulli_.float", function(x) return x:clone():bernoulli_(0.5, fixed(1)) end, function() return { r(3) } end)
zero_case("bernoulli", function(x) return torch.bernoulli(x:sigmoid(), fixed(1)) end, function() return { r(3) } end)
zero_case("normal.Tensor_float", function(m) return torch.normal(m, 1.0, fixed(1)) end, function() return { r(3) } end)
zero_case("normal.float_Tensor", function(s) return torch.normal(1.0, s, fixed(1)) end, function() return { pos(3) } end)
zero_case("normal.Tensor_Tensor", function(m, s) return torch.normal(m, s, fixed(1)) end, function() return { r(3), pos(3) } end)
zero_case("cauchy_", function(x) return x:clone():cauchy_(0, 1, fixed(1)) end, function() return { r(3) } end)
zero_case("log_normal_", function(x) return x:clone():log_normal_(0, 1, fixed(1)) end, function() return { r(3) } end)
zero_case("geometric_", function(x) return x:clone():geometric_(0.5, fixed(1)) end, function() return { r(3) } end)
zero_case("poisson", function(x) return torch.poisson(x:exp(), fixed(1)) end, function() return { r(3) } end)

-- reductions
case("sum", function(x) return x:sum() end, function() return { r(2, 3) } end, true)
case("sum.dim_IntList", function(x) return x:sum({ 1, 3 }) + x:sum(2, true):sum() end, function() return { r(2, 3, 2) } end, true)
-- NaN entries (put in by masked_fill) get no gradient
case("nansum", function(x)
  local m = ix({ { false, true, false }, { true, true, false } })
  return torch.nansum(x:masked_fill(m, 0 / 0), 2) + x:masked_fill(m, 0 / 0):nansum()
end, function() return { r(2, 3) } end, true)
case("mean", function(x) return x:mean() end, function() return { r(2, 3) } end)
case("mean.dim", function(x) return x:mean(2) end, function() return { r(2, 3) } end, true)
case("prod", function(x) return x:prod() end, function() return { r(2, 3) } end, true)
case("prod.zeros", function(x) return (x * ix({ 1.0, 0.0, 1.0 })):prod() end, function() return { r(2, 3) } end, true)
case("prod.dim_int.zeros", function(x) return (x * ix({ 1.0, 0.0, 1.0 })):prod(2) end, function() return { r(2, 3) } end, true)
case("prod.dim_int", function(x) return x:prod(1) end, function() return { r(2, 3) } end)
case("max", function(x) return x:max() end, function() return { r(2, 3) } end)
case("min", function(x) return x:min() end, function() return { r(2, 3) } end)
case("max.dim", function(x) return (x:max(2)) end, function() return { r(2, 3) } end, true)
case("min.dim", function(x) return (x:min(1, true)) end, function() return { r(2, 3) } end)
case("amax", function(x) return x:amax(2) end, function() return { r(2, 3) } end)
case("amin", function(x) return x:amin({ 1, 2 }, true) end, function() return { r(2, 3) } end)
case("var", function(x) return x:var() end, function() return { r(2, 3) } end, true)
case("var.dim", function(x) return x:var(2, false, true) end, function() return { r(2, 3) } end)
case("var.correction", function(x) return torch.var(x, 2, { correction = 0 }) end, function() return { r(2, 3) } end)
case("std", function(x) return x:std() end, function() return { r(2, 3) } end, true)
case("std.dim", function(x) return x:std(1) end, function() return { r(3, 2) } end)
case("std.correction", function(x) return torch.std(x, 1, { correction = 2, keepdim = true }) end, function() return { r(4, 2) } end)
local function both_outputs(v, m) return v * 2 + m end
case("var_mean", function(x) return both_outputs(torch.var_mean(x)) end, function() return { r(2, 3) } end)
case("var_mean.dim", function(x) return both_outputs(torch.var_mean(x, 2)) end, function() return { r(2, 3) } end)
case("var_mean.correction", function(x) return both_outputs(torch.var_mean(x, 2, { correction = 0 })) end, function() return { r(2, 3) } end)
case("std_mean", function(x) return both_outputs(torch.std_mean(x)) end, function() return { r(2, 3) } end)
case("std_mean.dim", function(x) return both_outputs(torch.std_mean(x, 1)) end, function() return { r(2, 3) } end)
case("std_mean.correction", function(x) return both_outputs(torch.std_mean(x, 1, { correction = 0 })) end, function() return { r(3, 2) } end)
case("norm.Scalar", function(x) return x:norm() + x:norm(1) + x:norm(3) + x:norm(math.huge) end, function() return { r(2, 3) } end, true)
case("norm.ScalarOpt_dim", function(x) return torch.norm(x, 2, 2) + torch.norm(x, 3, 2) end, function() return { r(2, 3) } end)
case("logsumexp", function(x) return x:logsumexp(2) end, function() return { r(2, 3) } end, true)
case("cumsum", function(x) return x:cumsum(2) end, function() return { r(2, 3) } end, true)
case("cumprod", function(x) return x:cumprod(2) end, function() return { r(2, 3) } end, true)
case("cumprod.zeros", function(x) return (x * ix({ 1.0, 0.0, 1.0, 0.0 })):cumprod(1) end, function() return { r(4) } end)
case("softmax.int", function(x) return x:softmax(2) end, function() return { r(2, 3) } end, true)
case("log_softmax.int", function(x) return x:log_softmax(1) end, function() return { r(2, 3) } end, true)

-- views
case("view", function(x) return x:view(3, 2) end, function() return { r(2, 3) } end)
case("reshape", function(x) return x:t():reshape(6) + x:reshape(6) end, function() return { r(2, 3) } end)
case("transpose.int", function(x) return x:transpose(1, 3) end, function() return { r(2, 3, 2) } end)
case("t", function(x) return x:t() end, function() return { r(2, 3) } end)
case("permute", function(x) return x:permute(3, 1, 2) end, function() return { r(2, 3, 2) } end)
case("expand", function(x) return x:expand(2, 3, 2) end, function() return { r(3, 1) } end, true)
case("narrow", function(x) return x:narrow(2, 2, 2) end, function() return { r(2, 3) } end, true)
case("select.int", function(x) return x:select(2, 3) end, function() return { r(2, 3) } end, true)
case("squeeze", function(x) return x:squeeze() end, function() return { r(2, 1, 3) } end)
case("squeeze.dim", function(x) return x:squeeze(2) end, function() return { r(2, 1, 3) } end)
case("unsqueeze", function(x) return x:unsqueeze(2) end, function() return { r(2, 3) } end)
case("as_strided", function(x) return x:as_strided({ 2, 2 }, { 1, 2 }, 1) end, function() return { r(2, 3) } end, true)

-- torch.special (src/ops/special.lua)
for name, inputs in pairs { erfcx = r, ndtr = r, ndtri = function(n) return unit(n) * 0.5 + 0.5 end,
  log_ndtr = r, entr = pos, i0e = r, i1 = r, i1e = r } do
  case("special_" .. name, torch["special_" .. name], function() return { inputs(4) } end, true)
end
case("special_xlog1py", torch.special_xlog1py, function() return { r(3), pos(3) } end, true)
case("special_xlog1py.self_scalar", function(y) return torch.special_xlog1py(2.5, y) end,
  function() return { pos(3) } end, false, "special_xlog1py.self_scalar")
case("special_xlog1py.other_scalar", function(x) return torch.special_xlog1py(x, 0.5) end,
  function() return { r(3) } end, false, "special_xlog1py.other_scalar")

-- torch.linalg (src/ops/linalg_lapack.lua): inputs shifted by a multiple of I to keep them
-- well conditioned; symmetric positive-definite ones built inside the function
local function wc(x) return x + torch.eye(x:size(-1), { dtype = f64 }) * 4 end
local function spd(x) return x:matmul(x.mT) + torch.eye(x:size(-1), { dtype = f64 }) * 3 end
local L = torch.linalg
case("linalg_det", function(x) return L.det(wc(x)) end, function() return { r(2, 3, 3) } end, true)
case("linalg_det.singular", function(x) -- rank 2: the cofactors come from the SVD
  return L.det(torch.cat({ x, (x[1] + x[2]):view(1, 3) }, 1))
end, function() return { r(2, 3) } end)
case("linalg_slogdet", function(x) local _, l = L.slogdet(wc(x)); return l end, function() return { r(3, 3) } end, true)
case("linalg_inv_ex", function(x) return (L.inv_ex(wc(x))) end, function() return { r(3, 3) } end, true)
case("linalg_solve_ex", function(a, b) return (L.solve_ex(wc(a), b)) end, function() return { r(3, 3), r(3, 2) } end, true)
case("linalg_solve_ex.vector", function(a, b) return L.solve(wc(a), b) end, function() return { r(2, 3, 3), r(3) } end)
case("linalg_solve_ex.right", function(a, b) return L.solve(wc(a), b, { left = false }) end,
  function() return { r(3, 3), r(2, 3) } end)
case("linalg_cholesky_ex", function(x) return (L.cholesky_ex(spd(x))) end, function() return { r(3, 3) } end, true)
case("linalg_cholesky_ex.upper", function(x) return L.cholesky(spd(x), { upper = true }) end,
  function() return { r(2, 3, 3) } end)
case("linalg_solve_triangular", function(a, b) return L.solve_triangular(wc(a):triu(), b, { upper = true }) end,
  function() return { r(3, 3), r(3, 2) } end, true)
case("linalg_solve_triangular.right_unit", function(a, b)
  return L.solve_triangular(wc(a):tril(), b, { upper = false, left = false, unitriangular = true })
end, function() return { r(3, 3), r(2, 3) } end)
case("linalg_lu_factor_ex", function(x) return (L.lu_factor_ex(wc(x))) end, function() return { r(3, 3) } end)
case("linalg_lu_factor_ex.wide", function(x) return (L.lu_factor_ex(x + torch.eye(3, 5, { dtype = f64 }) * 4)) end,
  function() return { r(3, 5) } end)
case("linalg_lu_factor_ex.tall", function(x) return (L.lu_factor_ex(x + torch.eye(5, 3, { dtype = f64 }) * 4)) end,
  function() return { r(2, 5, 3) } end)
case("linalg_lu", function(x) local p, l, u = L.lu(x); return l:sum(-1) + u:sum(-2) end,
  function() return { r(4, 4) } end, false, "linalg_lu_factor_ex")
case("lu_unpack", function(x)
  local _, l, u = torch.lu_unpack(x, torch.tensor({ 2, 3, 3 }, { dtype = torch.int32 }))
  return l:sum(-1) + u:sum(-2)
end, function() return { r(3, 3) } end)
case("lu_unpack.wide", function(x)
  local _, l, u = torch.lu_unpack(x, torch.tensor({ 1, 2 }, { dtype = torch.int32 }))
  return l:sum() + u:sum() * 2
end, function() return { r(2, 4) } end)
local lu_fixed, piv_fixed = L.lu_factor(wc(torch.randn(3, 3, { dtype = f64, generator = gen })))
case("linalg_lu_solve", function(b)
  return L.lu_solve(lu_fixed, piv_fixed, b) + L.lu_solve(lu_fixed, piv_fixed, b, { adjoint = true }) * 2
end, function() return { r(3, 2) } end, true)
case("linalg_lu_solve.LU", function(a, b)
  local lu, piv = L.lu_factor(wc(a))
  return L.lu_solve(lu, piv, b, { left = false }) + L.lu_solve(lu, piv, b, { left = false, adjoint = true })
end, function() return { r(3, 3), r(2, 3) } end)
case("linalg_lu_solve.solve", function(a, b)
  local lu, piv = L.lu_factor(wc(a))
  return L.lu_solve(lu, piv, b)
end, function() return { r(3, 3), r(3, 2) } end)
case("cholesky_solve", function(b, x) return torch.cholesky_solve(b, L.cholesky(spd(x))) end,
  function() return { r(3, 2), r(3, 3) } end, false, "linalg_solve_triangular")
case("matrix_power", function(x) return L.matrix_power(wc(x), -2) + L.matrix_power(x, 3) end,
  function() return { r(3, 3) } end, false, "linalg_inv_ex")
case("linalg_cross", function(x, y) return L.cross(x, y) end, function() return { r(2, 3), r(2, 3) } end, false, "roll")

case("linalg_qr", function(x) local q, r = L.qr(x); return q:sum(-1) * 2 + r:sum(-2):sum() end,
  function() return { r(4, 3) } end, true)
case("linalg_qr.wide", function(x) local q, r = L.qr(x); return q:sum() + (r * r):sum() end,
  function() return { r(2, 4) } end)
case("linalg_qr.batch_complete_square", function(x) local q, r = L.qr(x, "complete"); return q * 2 + r end,
  function() return { r(2, 3, 3) } end)
-- eigh reads one triangle: the functions take symmetric inputs, and eigenvectors enter through
-- quantities that do not depend on their signs
case("linalg_eigh", function(x)
  local l, v = L.eigh(x + x.mT)
  return l:sum() + (v * v:matmul(torch.diag(l))):sum(-2) + v:pow(2):matmul(l)
end, function() return { r(3, 3) } end, true)
case("linalg_eigvalsh", function(x) return L.eigvalsh(x + x.mT, "U") end, function() return { r(2, 3, 3) } end,
  false, "linalg_eigh")
case("_linalg_svd", function(x)
  local u, s, vh = L.svd(x, { full_matrices = false })
  return s + u:matmul(torch.diag_embed(s)):matmul(vh):sum(-2):narrow(1, 1, 3)
end, function() return { r(4, 3) } end, true)
case("_linalg_svd.uv_products", function(x)
  local u, s, vh = L.svd(x, { full_matrices = false })
  return u:matmul(u.mT) + vh.mT:matmul(vh):sum()
end, function() return { r(2, 4) } end)
case("_linalg_svd.full_values", function(x) local _, s = L.svd(x); return s end, function() return { r(3, 5) } end)
case("linalg_pinv", function(x) return L.pinv(x) end, function() return { r(4, 3) } end, false, "_linalg_svd")
case("linalg_matrix_norm", function(x) return L.matrix_norm(x, "nuc") + L.matrix_norm(x, 2) + L.matrix_norm(x, 1) end,
  function() return { r(3, 4) } end, false, "_linalg_svd")
case("linalg_matrix_exp", function(x) return L.matrix_exp(x) end, function() return { r(3, 3) } end, false,
  "linalg_solve_ex")
case("linalg_lstsq_solve", function(a, b) return L.pinv(a):matmul(b) end, function() return { r(4, 3), r(4, 2) } end,
  false, "_linalg_svd")
case("linalg_lstsq", function(a, b) return (L.lstsq(a, b)) end, function() return { r(5, 3), r(5, 2) } end, false,
  "_linalg_svd")
case("linalg_lstsq.wide_vector", function(a, b) return (L.lstsq(a, b, { driver = "gelsd" })) end,
  function() return { r(2, 4), r(2) } end, false, "_linalg_svd")

-- scatter_reduce (src/ops/scatter_reduce.lua): every reduction, with and without self; prod
-- with zeros among the contributions (one and two in a group)
local sr_index = torch.tensor({ { 1, 2, 1 }, { 3, 3, 2 } })
for _, red in ipairs({ "sum", "prod", "mean", "amax", "amin" }) do
  for _, incl in ipairs({ true, false }) do
    local name = "scatter_reduce.two" .. (red == "sum" and incl and "" or ("." .. red .. (incl and "" or "_noself")))
    case(name, function(x, y) return x:scatter_reduce(1, sr_index, y, red, { include_self = incl }) end,
      function() return { r(3, 3), r(2, 3) } end, red == "sum" and incl, "scatter_reduce.two")
  end
end
case("scatter_reduce.two.prod_zeros", function(x, y)
  local z = y * torch.tensor({ { 0.0, 1, 1 }, { 1, 0, 0 } }, { dtype = f64 })
  return x:scatter_reduce(1, sr_index, z, "prod")
end, function() return { r(3, 3), r(2, 3) } end, false, "scatter_reduce.two")
case("index_reduce", function(x, y) return x:index_reduce(1, torch.tensor({ 1, 3, 1 }), y, "prod") end,
  function() return { r(3, 2), r(3, 2) } end, false, "scatter_reduce.two")
-- the gamma family (src/ops/gamma.lua) and its compositions (lua/mindtorch/_queries.lua)
local function gpos(n) return leaf(torch.rand(n, { dtype = f64, generator = gen }) * 3 + 0.5) end
local function prob(n) return leaf(torch.rand(n, { dtype = f64, generator = gen }) * 0.4 + 0.3) end
both("digamma", call("digamma"), inplace("digamma_"), function() return { gpos(4) } end, true)
both("lgamma", call("lgamma"), inplace("lgamma_"), function() return { gpos(4) } end, true)
case("_polygamma", function(x) return torch.polygamma(1, x) end, function() return { gpos(4) } end, true)
case("polygamma_", inplace("polygamma_", 2), function() return { gpos(4) } end)
both("i0", call("i0"), inplace("i0_"), function() return { r(4) } end, true)
for _, name in ipairs { "igamma", "igammac" } do
  local a = torch.tensor({ 0.5, 1.5, 3.0, 7.0 }, { dtype = f64 })
  case(name, function(x) return torch[name](a, x) end, function() return { gpos(4) } end, true)
  case(name .. "_", function(x) return a:clone()[name .. "_"](a:clone(), x) end, function() return { gpos(4) } end)
end
both("logit", call("logit"), inplace("logit_"), function() return { prob(4) } end, true)
case("logit.eps", call("logit", 0.2), function() return { prob(4) } end, false, "logit")
case("hardshrink", call("hardshrink", 0.3), function() return { r(5) } end, true)
case("mvlgamma", function(x) return torch.mvlgamma(x, 3) end, function() return { gpos(4) + 1.5 } end, true, "lgamma")
case("prelu", torch.prelu, function() return { r(2, 3, 2), leaf(torch.tensor({ 0.1, 0.2, 0.3 }, { dtype = f64 })) } end,
  true, "where.self")
case("rrelu.training", function(x) return torch.rrelu(x, 0.1, 0.3, true, torch.Generator():manual_seed(5)) end,
  function() return { r(6) } end, false, "mul.Tensor")
case("frexp", function(x) return (torch.frexp(x)) end, function() return { r(4) } end, false, "mul.Tensor")

-- statistics (src/ops/statistics.lua): the ops that declare PyTorch's node (picks along a dim,
-- the whole tensor's median shared by its equals); the compositions are in statistics_grad_spec
case("median", call("median"), function() return { r(3, 5) } end)
case("median.dim", function(x) return (x:median(2)) end, function() return { r(3, 4) } end, true)
case("nanmedian", function(x) return x:masked_fill(ix({ { false, true, false }, { false, false, false } }), 0 / 0):nanmedian() end,
  function() return { r(2, 3) } end)
case("nanmedian.dim", function(x) return (x:masked_fill(ix({ { false, true, false }, { true, false, false } }), 0 / 0):nanmedian(2, true)) end,
  function() return { r(2, 3) } end)
case("mode", function(x) return (torch.cat({ x, x:narrow(2, 1, 1) }, 2):mode(2)) end, function() return { r(3, 4) } end, true)
case("cummax", function(x) return (torch.cummax(x, 2)) end, function() return { r(3, 5) } end, true)
case("cummin", function(x) return (x:cummin(1)) end, function() return { r(4, 3) } end)
case("logcumsumexp", function(x) return torch.logcumsumexp(x, 2) end, function() return { r(3, 6) } end, true)

local function walk(outs)
  local seen, ops = {}, {}
  local function visit(fn)
    if fn == nil then return end
    local key = tostring(fn)
    if seen[key] then return end
    seen[key] = true
    if fn._op then ops[fn._op] = true end
    for _, nf in ipairs(fn.next_functions) do visit(nf[1]) end
  end
  for _, o in ipairs(outs) do if torch.is_tensor(o) then visit(o.grad_fn) end end
  return ops
end

local differentiable = {}
for _, name in ipairs(torch._autograd.differentiable_ops()) do differentiable[name] = true end

describe("gradcheck", function()
  it("has a case for every op with derivative formulas", function()
    local missing = {}
    for name in pairs(differentiable) do
      -- alias is internal (no Lua binding): its formula is the identity
      if not C[name] and name ~= "alias" then missing[#missing + 1] = name end
    end
    table.sort(missing)
    assert.are.same({}, missing)
  end)

  local names = {}
  for name in pairs(C) do names[#names + 1] = name end
  table.sort(names)
  local gg = 0
  for _, name in ipairs(names) do
    local c = C[name]
    if c.gg then gg = gg + 1 end
    it(name, function()
      local inputs = c.inputs()
      -- the case really records the op it is named after ("prod.zeros" checks prod)
      local want = c.records or (differentiable[name] and name or name:match("^(.*)%.[^.]*$"))
      local ops = walk(table.pack(c.fn(table.unpack(inputs))))
      assert.is_true(ops[want] == true, name .. " does not record " .. tostring(want))
      if c.zero then
        local out = c.fn(table.unpack(inputs))
        local grads = torch.autograd.grad({ out:sum() }, inputs, { allow_unused = true })
        for i = 1, #inputs do
          assert.is_true(grads[i] == nil or grads[i]:eq(0):all():item(), name .. ": nonzero gradient")
        end
        return
      end
      assert.is_true(gradcheck(c.fn, inputs, c.opts))
      if c.gg then assert.is_true(gradgradcheck(c.fn, inputs)) end
    end)
  end
  it("runs gradgradcheck on at least 30 ops", function()
    assert.is_true(gg >= 30, gg .. " gradgradchecks")
    print(("# %d ops under gradcheck, %d under gradgradcheck"):format(#names, gg))
  end)
end)

-- torch.* functions of the nn layer written as compositions (lua/mindtorch/_nn_functions.lua):
-- their gradients are those of the ops they are made of, checked end to end
describe("gradcheck of nn-layer compositions", function()
  local pm = function() return torch.tensor({ 1.0, -1.0, 1.0, -1.0 }, { dtype = f64 }) end
  local N = {
    cosine_similarity = { function(a, b) return torch.cosine_similarity(a, b) end, function() return { r(4, 3), r(4, 3) } end },
    pairwise_distance = { function(a, b) return torch.pairwise_distance(a, b, 3.0) end, function() return { r(4, 3), r(4, 3) } end },
    pdist = { function(a) return torch.pdist(a) end, function() return { r(4, 3) } end },
    margin_ranking_loss = { function(a, b) return torch.margin_ranking_loss(a, b, pm(), 0.1, 1) end,
      function() return { r(4), r(4) } end },
    hinge_embedding_loss = { function(a) return torch.hinge_embedding_loss(a, pm(), 0.5, 2) end, function() return { r(4) } end },
    triplet_margin_loss = { function(a, p, n) return torch.triplet_margin_loss(a, p, n, 1.0, 2.0, 1e-6, true, 1) end,
      function() return { r(4, 3), r(4, 3), r(4, 3) } end },
    cosine_embedding_loss = { function(a, b) return torch.cosine_embedding_loss(a, b, pm(), -0.5, 0) end,
      function() return { r(4, 3), r(4, 3) } end },
    poisson_nll_loss = { function(a, t) return torch.poisson_nll_loss(a, t, false, true, 1e-8, 1) end,
      function() return { pos(2, 3), above1(2, 3) } end },
    pixel_shuffle = { function(x) return torch.pixel_shuffle(x, 2) end, function() return { r(1, 4, 2, 3) } end },
    pixel_unshuffle = { function(x) return torch.pixel_unshuffle(x, 2) end, function() return { r(1, 1, 4, 2) } end },
    channel_shuffle = { function(x) return torch.channel_shuffle(x, 2) end, function() return { r(1, 4, 3) } end },
    constant_pad_nd = { function(x) return torch.constant_pad_nd(x, { 1, -1, 2, 0 }, 1.5) end, function() return { r(2, 3) } end },
    alpha_dropout = { function(x)
      torch.manual_seed(3)
      return torch.alpha_dropout(x, 0.4, true)
    end, function() return { r(3, 4) } end },
    feature_dropout = { function(x)
      torch.manual_seed(3)
      return torch.feature_dropout(x, 0.4, true)
    end, function() return { r(3, 4, 2) } end },
    instance_norm = { function(x, w, b) return torch.instance_norm(x, w, b, nil, nil, true, 0.1, 1e-5, false) end,
      function() return { r(2, 3, 4), r(3), r(3) } end },
    norm_except_dim = { function(v) return torch.norm_except_dim(v, 2, 2) end, function() return { r(3, 2, 4) } end },
    rnn_tanh_cell = { function(x, h, wi, wh, bi, bh) return torch.rnn_tanh_cell(x, h, wi, wh, bi, bh) end,
      function() return { r(2, 3), r(2, 4), r(4, 3), r(4, 4), r(4), r(4) } end },
    lstm_cell = { function(x, h, c, wi, wh)
      local hy, cy = torch.lstm_cell(x, { h, c }, wi, wh)
      return hy + cy
    end, function() return { r(2, 3), r(2, 2), r(2, 2), r(8, 3), r(8, 2) } end },
    gru_cell = { function(x, h, wi, wh, bi, bh) return torch.gru_cell(x, h, wi, wh, bi, bh) end,
      function() return { r(2, 3), r(2, 2), r(6, 3), r(6, 2), r(6), r(6) } end },
    slice_copy = { function(x) return torch.slice_copy(x, 2, 1, 6, 2) end, function() return { r(2, 6) } end },
    lstm = { function(x, h, c, wi, wh, bi, bh)
      local out, hn, cn = torch.lstm(x, { h, c }, { wi, wh, bi, bh }, true, 1, 0.0, false, false, true)
      return out, hn, cn
    end, function() return { r(2, 3, 2), r(1, 2, 2), r(1, 2, 2), r(8, 2), r(8, 2), r(8), r(8) } end },
    adaptive_max_pool1d = { function(x) return torch.adaptive_max_pool1d(x, 3) end, function() return { r(2, 2, 7) } end },
    max_pool3d = { function(x) return torch.max_pool3d(x, 2, { 1, 2, 1 }, 1, 1, true) end,
      function() return { r(1, 2, 3, 4, 3) } end },
    conv3d = { function(x, w, b) return torch.conv3d(x, w, b, { 2, 1, 1 }, 1, { 1, 1, 2 }, 2) end,
      function() return { r(1, 2, 4, 3, 4), r(2, 1, 2, 2, 2), r(2) } end },
    conv_transpose3d = { function(x, w, b) return torch.conv_transpose3d(x, w, b, 2, { 1, 0, 0 }, { 1, 0, 0 }, 1, 1) end,
      function() return { r(1, 2, 2, 2, 2), r(2, 2, 2, 1, 2), r(2) } end },
    hardshrink = { function(x) return torch.hardshrink(x, 0.3) end, function() return { r(3, 4) } end },
    renorm = { function(x) return torch.renorm(x, 2, 1, 1.0) end, function() return { r(3, 4) } end },
    renorm_ = { function(x) return (x * 1):renorm_(1.5, 2, 0.8) end, function() return { r(3, 4) } end },
    grid_sampler_bilinear = { function(x, g) return torch.grid_sampler(x, g, 0, 2, false) end,
      function() return { r(1, 2, 3, 4), unit(1, 2, 3, 2) } end },
    grid_sampler_3d = { function(x, g) return torch.grid_sampler(x, g, 0, 1, false) end,
      function() return { r(1, 2, 2, 3, 2), unit(1, 2, 1, 2, 3) } end },
    grid_sampler_bicubic = { function(x, g) return torch.grid_sampler_2d(x, g, 2, 1, true) end,
      function() return { r(1, 2, 3, 4), unit(1, 2, 2, 2) } end },
    conv_tbc = { function(x, w, b) return torch.conv_tbc(x, w, b, 1) end, function() return { r(4, 2, 3), r(2, 3, 2), r(2) } end },
    affine_grid_generator = { function(t) return torch.affine_grid_generator(t, { 2, 1, 3, 2 }, false) end,
      function() return { r(2, 2, 3) } end },
    rrelu = { function(x) return torch.rrelu(x, 0.1, 0.3, true, torch.Generator():manual_seed(5)) end,
      function() return { r(3, 4) } end },
    prelu = { function(x, w) return torch.prelu(x, w) end, function() return { r(2, 3, 2), r(3) } end },
    cdist = { function(a, b) return torch.cdist(a, b, 1.5) end, function() return { r(2, 3, 2), r(4, 2) } end },
    native_layer_norm = { function(x, w, b)
      local out, mean, rstd = torch.native_layer_norm(x, { 4 }, w, b, 1e-5)
      return out, mean, rstd
    end, function() return { r(2, 3, 4), r(4), r(4) } end },
    native_group_norm = { function(x, w, b)
      local out, mean, rstd = torch.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5)
      return out, mean, rstd
    end, function() return { r(2, 4, 3), r(4), r(4) } end },
    gru = { function(x, h, wi, wh, wi2, wh2)
      return torch.gru(x, h, { wi, wh, wi2, wh2 }, false, 1, 0.0, false, true, false)
    end, function() return { r(3, 1, 2), r(2, 1, 2), r(6, 2), r(6, 2), r(6, 2), r(6, 2) } end },
  }
  local names = {}
  for name in pairs(N) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    it(name, function() assert.is_true(gradcheck(N[name][1], N[name][2]())) end)
  end
end)
