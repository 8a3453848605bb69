-- Names written as compositions of other ops, against PyTorch (cases/compositions.py).
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local argtypes = H.lua_type_names

local function info(i)
  local d = { bits = i.bits, eps = i.eps, max = i.max, min = i.min, resolution = i.resolution,
    smallest_normal = i.smallest_normal, tiny = i.tiny, dtype = i.dtype, str = tostring(i) }
  return d
end
local function m() return torch.arange(24.0):view(2, 3, 4) end

local cases = {
  finfo_default = function() return info(torch.finfo()) end,
  finfo_int = function() return torch.finfo(torch.int32) end,
  iinfo_float = function() return torch.iinfo(torch.float32) end,
  iinfo_bool = function() return torch.iinfo(torch.bool) end,
  mT = function() return m().mT end,
  mT_2d = function() return m()[1].mT end,
  mT_0d = function() return torch.tensor(2.0).mT end,
  mT_1d = function() return torch.ones(3).mT end,
  mH = function() return m().mH end,
  mH_1d = function() return torch.ones(3).mH end,
  H = function() return m()[1].H end,
  H_1d = function() return torch.ones(3).H end,
  H_3d = function() return m().H end,
  adjoint = function() return m():adjoint() end,
  adjoint_fn = function() return torch.adjoint(m()[2]) end,
  adjoint_1d = function() return torch.ones(3):adjoint() end,
  t_copy = function() return torch.t_copy(m()[1]) end,
  transpose_copy = function() return torch.transpose_copy(m(), 1, 3) end,
  permute_copy = function() return torch.permute_copy(m(), { 3, 1, 2 }) end,
  expand_copy = function() return torch.expand_copy(m()[{ {}, { 1, 1 } }], { 2, 5, 4 }) end,
  diagonal_copy = function() return torch.diagonal_copy(m()[1]) end,
  as_strided_copy = function() return torch.as_strided_copy(m(), { 2, 2 }, { 1, 2 }) end,
  view_copy = function() return torch.view_copy(m(), { 4, 6 }) end,
  select_copy = function() return torch.select_copy(m(), 2, 3) end,
  squeeze_copy = function() return torch.squeeze_copy(m():unsqueeze(1)) end,
  unsqueeze_copy = function() return torch.unsqueeze_copy(m(), 2) end,
  detach_copy = function() return torch.detach_copy(m()) end,
  alias_copy = function() return torch.alias_copy(m()) end,
  split_copy = function() return torch.split_copy(m(), 2, 3) end,
  unbind_copy = function() return torch.unbind_copy(m(), 2) end,
  narrow_copy = function() return torch.narrow_copy(m(), 3, 2, 2) end,
  narrow_copy_method = function() return m()[1]:narrow_copy(1, 2, 2) end,
  addmm_ = function()
    return torch.ones(2, 2):addmm_(torch.arange(6.0):view(2, 3), torch.arange(6.0):view(3, 2), { beta = 2, alpha = 0.5 })
  end,
  addmv_ = function() return torch.ones(2):addmv_(torch.arange(6.0):view(2, 3), torch.arange(3.0)) end,
  baddbmm_ = function() return torch.ones(2, 2, 2):baddbmm_(torch.ones(2, 2, 3), torch.ones(2, 3, 2), { alpha = 3 }) end,
  cumsum_ = function() return torch.arange(6.0):view(2, 3):cumsum_(2) end,
  cumprod_ = function() return torch.arange(1.0, 7.0):view(2, 3):cumprod_(1) end,
  cumsum_int = function() return torch.arange(6):cumsum_(1) end,
  conj_real = function()
    local x = torch.ones(2)
    return { x:conj() == x, torch.conj(x) == x, x:resolve_conj() == x, x:resolve_neg() == x,
      x:conj_physical() == x, x:is_conj(), torch.is_neg(x) }
  end,
  fill = function() return torch.fill(torch.ones(2, 3), 2.5) end,
  fill_tensor = function() return torch.fill(torch.ones(2, { dtype = torch.int32 }), torch.tensor(7)) end,
  apply_requires_grad = function() return torch.ones(2, { requires_grad = true }):apply_(function(v) return v end) end,
}
for _, dt in ipairs { "float16", "bfloat16", "float32", "float64" } do
  cases["finfo_" .. dt] = function() return info(torch.finfo(torch[dt])) end
end
for _, dt in ipairs { "uint8", "int8", "int16", "int32", "int64" } do
  cases["iinfo_" .. dt] = function() return info(torch.iinfo(torch[dt])) end
end
local function X() return torch.arange(24.0):view(2, 3, 4):sin() end
local TOL = 1e-6
local more = {
  torch_batch_norm = function()
    return torch.batch_norm(X(), torch.ones(3) * 2, torch.ones(3), torch.zeros(3), torch.ones(3) * 4, false, 0.1, 1e-5, false)
  end,
  torch_batch_norm_training = function() return torch.batch_norm(X(), nil, nil, nil, nil, true, 0.1, 1e-5, false) end,
  torch_layer_norm = function() return torch.layer_norm(X(), { 4 }) end,
  torch_layer_norm_affine = function() return torch.layer_norm(X(), { 3, 4 }, torch.ones(3, 4) * 2, torch.ones(3, 4), 1e-3) end,
  torch_group_norm = function() return torch.group_norm(X(), 3) end,
  torch_embedding = function() return torch.embedding(torch.arange(12.0):view(4, 3), torch.tensor({ { 2, 3 }, { 4, 1 } })) end,
  torch_bilinear = function()
    return torch.bilinear(torch.ones(2, 3), torch.ones(2, 4) * 2, torch.arange(60.0):view(5, 3, 4), nil)
  end,
  torch_kl_div = function() return torch.kl_div(X():log_softmax(-1), X():softmax(-1)) end,
  torch_kl_div_none = function() return torch.kl_div(X():log_softmax(-1), X():softmax(-1), 0) end,
  torch_kl_div_sum_log_target = function()
    return torch.kl_div(X():log_softmax(-1), X():log_softmax(1), 2, { log_target = true })
  end,
  torch_bce_with_logits = function() return torch.binary_cross_entropy_with_logits(X(), X():sigmoid(), nil, nil, 2) end,
  torch_bce_with_logits_weights = function()
    return torch.binary_cross_entropy_with_logits(X(), X():sigmoid(), torch.ones(4) * 2, torch.ones(4) * 3, 0)
  end,
  torch_max_pool1d_with_indices = function() -- indices 1-based: PyTorch's + 1
    local v, i = torch.max_pool1d_with_indices(X():view(1, 2, 12), 3)
    return { v, i - 1 }
  end,
  torch_bce_with_logits_default = function() return torch.binary_cross_entropy_with_logits(X(), X():sigmoid()) end,
}
for k, f in pairs(more) do cases[k] = { f, tol = TOL } end

local function default_after(t)
  torch.set_default_tensor_type(t)
  local d = torch.get_default_dtype().name
  torch.set_default_dtype(torch.float32)
  return d
end
cases.storage_type = function() return torch.ones(2, { dtype = torch.int16 }):storage_type() end
cases.new_sizes = function() return torch.ones(2, { dtype = torch.float64 }):new(2, 3).shape end
cases.new_values = function() return torch.ones(2, { dtype = torch.int32 }):new({ 1, 2 }) end
cases.new_empty_args = function() return torch.ones(2):new().shape end
cases.resize = function() return torch.arange(6.0):resize(2, 3) end
cases.resize_wrong_numel = function() return torch.arange(6.0):resize(2, 2) end
cases.unsafe_chunk = function() return torch.unsafe_chunk(torch.arange(6.0), 2) end
cases.unsafe_split = function() return torch.unsafe_split(torch.arange(6.0), 4) end
cases.is_inference = function() return torch.is_inference(torch.ones(2)) end
cases.set_default_tensor_type_double = function() return default_after("torch.DoubleTensor") end
local FROM_FILE = "/tmp/mindtorch_contract_from_file.bin"
local function from_file(...)
  local f = assert(io.open(FROM_FILE, "wb"))
  local bytes = {}
  for i = 0, 39 do bytes[#bytes + 1] = string.char(i) end
  f:write(table.concat(bytes))
  f:close()
  return torch.from_file(FROM_FILE, ...)
end
cases.set_to = function()
  local x, y = torch.arange(6.0), torch.empty(0)
  y:set_(x)
  return { y:is_set_to(x), x:is_set_to(x:clone()), y:tolist() }
end
cases.set_storage = function() return torch.empty(0):set_(torch.arange(6.0):storage(), 1, { 2, 2 }, { 2, 1 }) end
cases.set_storage_grows = function()
  local x = torch.arange(6.0)
  local y = torch.empty(0):set_(x:storage(), 0, { 10 }, { 1 })
  return { y.shape[1], #x:storage() }
end
cases.set_empty = function() return torch.ones(3):set_() end
cases.set_negative_offset = function() return torch.empty(0):set_(torch.arange(6.0):storage(), -1, { 1 }, { 1 }) end
cases.set_requires_grad = function() return torch.ones(2, { requires_grad = true }):set_(torch.arange(2.0)) end
cases.from_file_int32 = function() return from_file({ size = 4, dtype = torch.int32 }) end
cases.from_file_uint8 = function() return from_file(false, 40, { dtype = torch.uint8 }) end
cases.from_file_empty = function() return from_file() end
cases.from_file_too_small = function() return from_file({ size = 11, dtype = torch.int32 }) end
local function A() return torch.tensor({ { -1.5, 0.25 }, { 2.0, -0.75 } }) end
local function B() return torch.tensor({ { 0.5, -2.0 }, { 2.0, 1.5 } }) end
for _, n in ipairs { "absolute", "arccos", "arcsin", "arctan", "arcsinh", "negative", "fix" } do
  cases["alias_" .. n] = { function() return torch[n](A()) end, tol = 1e-6 }
  cases["alias_method_" .. n] = { function() return A()[n](A()) end, tol = 1e-6 }
  cases["alias_inplace_" .. n] = { function() local a = A() return a[n .. "_"](a) end, tol = 1e-6 }
end
for _, n in ipairs { "multiply", "divide", "subtract", "greater", "greater_equal", "less", "less_equal", "not_equal",
  "arctan2" } do
  cases["alias_" .. n] = { function() return torch[n](A(), B()) end, tol = 1e-6 }
  cases["alias_method_" .. n] = { function() local a = A() return a[n](a, B()) end, tol = 1e-6 }
end
cases.alias_arccosh = { function() return torch.arccosh(B():abs() + 1) end, tol = 1e-6 }
cases.alias_arctanh = { function() return torch.arctanh(A() / 3) end, tol = 1e-6 }
cases.alias_subtract_alpha = function() return torch.subtract(A(), B(), { alpha = 2 }) end
cases.alias_divide_mode = function() return torch.divide(A(), B(), { rounding_mode = "floor" }) end
cases.alias_multiply_scalar = function() return A():multiply(3) end
cases.alias_greater_inplace = function() return A():greater_(0) end
cases.alias_bad_argument = { function() return torch.absolute("a") end, expect = argtypes }
local function SPECIALS() return torch.tensor({ 0 / 0, 1 / 0, -1 / 0, 1.5, -0.0 }) end
cases.positive = function() return torch.positive(torch.tensor({ 1.0, -2.0 })) end
cases.positive_bool = function() return torch.positive(torch.tensor({ true })) end
cases.sgn_int = function() return torch.sgn(torch.tensor({ -2, 0, 3 })) end
cases.sgn_float = function() return torch.tensor({ -2.0, 0.0, 3.0 }):sgn() end
cases.isreal = function() return torch.isreal(torch.ones(2, 3, { dtype = torch.int32 })) end
cases.square_bool = function() return torch.square(torch.tensor({ true, false })) end
cases.square_int8 = function() return torch.square(torch.tensor({ 3, -12 }, { dtype = torch.int8 })) end
cases.square_float = function() return torch.tensor({ 1.5, -2.0 }):square() end
cases.square_inplace = function() return torch.tensor({ 1.5, -2.0 }):square_() end
cases.nan_to_num = function() return torch.nan_to_num(SPECIALS()) end
cases.nan_to_num_values = function() return torch.nan_to_num(SPECIALS(), 1.0, 2.0, -3.0) end
cases.nan_to_num_float16 = function() return torch.nan_to_num(SPECIALS():half()) end
cases.nan_to_num_float64 = function() return SPECIALS():double():nan_to_num({ posinf = 7.0 }) end
cases.nan_to_num_int = function() return torch.nan_to_num(torch.tensor({ 1, 2 })) end
cases.nan_to_num_inplace = function() return SPECIALS():nan_to_num_({ neginf = -1.0 }) end
local function CL() return torch.tensor({ -2.0, 0.5, 0 / 0, 3.0 }) end
cases.clamp_min = function() return torch.clamp_min(CL(), 0) end
cases.clamp_max = function() return torch.clamp_max(CL(), 1) end
cases.clamp_min_inplace = function() return CL():clamp_min_(0) end
cases.clamp_max_inplace = function() return CL():clamp_max_(0.25) end
cases.clamp_min_tensor = function() return torch.clamp_min(CL(), torch.tensor({ 0.0, 1, 0, 5 })) end
cases.clamp_min_int_float = function() return torch.clamp_min(torch.tensor({ 1, 5 }), 2.5) end
cases.threshold = function() return torch.threshold(CL(), 0.5, -9.0) end
cases.threshold_int = function() return torch.threshold(torch.tensor({ 1, 2, 3 }), 2, 0) end
cases.threshold_inplace = function() return torch.threshold_(CL(), 0, 7) end
cases.threshold_bool = function() return torch.threshold(torch.tensor({ true }), 0, 1) end
local function ACT() return torch.tensor({ -1.5, 0.0, 2.0, -0.25 }) end
cases.selu = { function() return torch.selu(ACT()) end, tol = 1e-6 }
cases.selu_inplace = { function() return torch.selu_(ACT()) end, tol = 1e-6 }
cases.selu_int = function() return torch.selu(torch.tensor({ 1, 2 })) end
cases.celu = { function() return torch.celu(ACT(), 0.5) end, tol = 1e-6 }
cases.celu_default = { function() return torch.celu(ACT()) end, tol = 1e-6 }
cases.celu_inplace = { function() return torch.celu_(ACT(), 2.0) end, tol = 1e-6 }
cases.celu_zero_alpha = function() return torch.celu(ACT(), 0.0) end
cases.float_power_int = function() return torch.float_power(torch.tensor({ 2, 3 }), 2) end
cases.float_power_tensor = function() return torch.float_power(torch.tensor({ 2.0 }), torch.tensor({ 0.5 })) end
cases.float_power_number_base = function() return torch.float_power(2, torch.tensor({ 3 })) end
cases.float_power_inplace_float = function() return torch.tensor({ 2.0 }):float_power_(2) end
cases.float_power_inplace = function() return torch.tensor({ 2.0 }, { dtype = torch.float64 }):float_power_(3) end
cases.ldexp = function() return torch.ldexp(torch.tensor({ 1.0, 2.0 }), torch.tensor({ 2, 3 })) end
cases.ldexp_int = function() return torch.ldexp(torch.tensor({ 1, 2 }), torch.tensor({ 2, -1 })) end
cases.ldexp_inplace = function() return torch.tensor({ 1.0 }):ldexp_(torch.tensor({ 3 })) end
cases.set_default_tensor_type_long = function() return torch.set_default_tensor_type("torch.LongTensor") end
H.run("compositions", cases)

describe("Lua callbacks over elements", function()
  it("apply_, map_ and map2_ write fn's results in place, in order", function()
    local x = torch.arange(6.0):view(2, 3):t() -- not contiguous
    local seen = {}
    assert.are.equal(x, x:apply_(function(v) seen[#seen + 1] = v return v * 10 end))
    assert.are.same({ 0, 3, 1, 4, 2, 5 }, seen) -- x's element order
    assert.is_true(x:equal(torch.arange(0.0, 60, 10):view(2, 3):t()))
    local y = torch.zeros(2, 3)
    y:map_(torch.tensor({ 1.0, 2.0, 3.0 }), function(a, b) return a + b end) -- broadcast
    assert.is_true(y:equal(torch.tensor({ { 1.0, 2.0, 3.0 }, { 1.0, 2.0, 3.0 } })))
    y:map2_(y, torch.ones(2, 3), function(a, b, c) return a * b + c end)
    assert.is_true(y:equal(torch.tensor({ { 2.0, 5.0, 10.0 }, { 2.0, 5.0, 10.0 } })))
    local i = torch.arange(4, { dtype = torch.int32 }):apply_(function(v) return v * v end)
    assert.are.same({ 0, 1, 4, 9 }, i:tolist())
  end)
end)
