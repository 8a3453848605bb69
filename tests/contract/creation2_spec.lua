-- More creation ops against PyTorch (cases/creation2.py).
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()

local DTYPES = { "float32", "float64", "bfloat16", "int64", "int32", "int16", "int8", "uint8" }
local cases = {
  logspace = function() return torch.logspace(0, 2, 5) end,
  logspace_ints_default_dtype = function() return torch.logspace(0, 3, 4) end,
  logspace_base2_int64 = function() return torch.logspace(0, 4, 5, { base = 2, dtype = torch.int64 }) end,
  logspace_base_half = function() return torch.logspace(2, 2, 3, { base = 0.5 }) end,
  logspace_zero = function() return torch.logspace(0, 3, 0) end,
  logspace_float64_long = function() return torch.logspace(-3, 3, 101, { dtype = torch.float64 }) end,
  logspace_negative_steps = function() return torch.logspace(0, 1, -1) end,
  logspace_half = function() return torch.logspace(0, 1, 3, { dtype = torch.float16 }) end,
  logspace_bool = function() return torch.logspace(0, 1, 3, { dtype = torch.bool }) end,
  range = function() return torch.range(1, 4) end,
  range_fractional = function() return torch.range(0, 1, 0.1) end,
  range_fractional_float64 = function() return torch.range(0, 1, 0.1, { dtype = torch.float64 }) end,
  range_single = function() return torch.range(3, 3) end,
  range_int64_down = function() return torch.range(5, 1, -2, { dtype = torch.int64 }) end,
  range_requires_grad = function() return torch.range(0, 2, { requires_grad = true }) end,
  range_reversed = function() return torch.range(4, 1) end,
  range_infinite = function() return torch.range(0, math.huge) end,
  range_zero_step = function() return torch.range(0, 1, 0) end,
  range_int_truncated_step = function() return torch.range(0, 1, 0.5, { dtype = torch.int64 }) end,
  range_half = function() return torch.range(0, 1, { dtype = torch.float16 }) end,
  range_bool = function() return torch.range(0, 1, { dtype = torch.bool }) end,
}
for _, dt in ipairs(DTYPES) do
  local d = torch[dt]
  cases["logspace_" .. dt] = dt ~= "uint8" and function() return torch.logspace(-1, 2.5, 9, { dtype = d }) end
    or function() return torch.logspace(0, 2, 9, { dtype = d }) end
  cases["logspace_base3_" .. dt] = function() return torch.logspace(0.3, 1.7, 6, 3, { dtype = d }) end
  cases["logspace_one_" .. dt] = function() return torch.logspace(1.5, 9, 1, { dtype = d }) end
  cases["range_" .. dt] = function() return torch.range(-1, 2.5, 0.25, { dtype = d }) end
  cases["range_down_" .. dt] = function() return torch.range(1, 0.3, -0.1, { dtype = d }) end
  cases["range_int_step_" .. dt] = function() return torch.range(2, 11, 3, { dtype = d }) end
end

-- cos may differ from PyTorch's vectorised one in the last bits (as cases/creation2.py says)
local TOL = { float32 = 2e-6, float64 = 1e-13, bfloat16 = 8e-3 }
local windows = {}
for _, w in ipairs { "hann_window", "hamming_window", "bartlett_window", "blackman_window" } do
  local f = torch[w]
  for _, dt in ipairs { "float32", "float64", "bfloat16" } do
    windows[w .. "_" .. dt] = { function() return f(7, { dtype = torch[dt] }) end, tol = TOL[dt] }
    windows[w .. "_symmetric_" .. dt] = { function() return f(8, false, { dtype = torch[dt] }) end, tol = TOL[dt] }
  end
  windows[w .. "_one"] = function() return f(1) end
  windows[w .. "_zero"] = function() return f(0) end
  windows[w .. "_long"] = { function() return f(100) end, tol = TOL.float32 }
  windows[w .. "_negative"] = function() return f(-1) end
  windows[w .. "_int"] = function() return f(4, { dtype = torch.int64 }) end
  windows[w .. "_requires_grad"] = function() return f(3, { requires_grad = true }) end
end
windows.hamming_window_alpha = { function() return torch.hamming_window(6, true, 0.6) end, tol = TOL.float32 }
windows.hamming_window_alpha_beta = { function() return torch.hamming_window(6, true, 0.6, 0.3) end, tol = TOL.float32 }
windows.hann_window_half = function() return torch.hann_window(6, { dtype = torch.float16 }) end

local function aliases(f)
  return function()
    local x = torch.arange(4.0)
    local y = f(x)
    return { rawequal(y, x), y:data_ptr() == x:data_ptr(), y.dtype == x.dtype }
  end
end
windows.as_tensor_same = aliases(function(x) return torch.as_tensor(x) end)
windows.as_tensor_same_dtype = aliases(function(x) return torch.as_tensor(x, { dtype = torch.float32 }) end)
windows.as_tensor_other_dtype = aliases(function(x) return torch.as_tensor(x, { dtype = torch.float64 }) end)
windows.as_tensor_list = function() return torch.as_tensor({ 1, 2.5 }) end
windows.as_tensor_list_dtype = function() return torch.as_tensor({ { 1, 2 }, { 3, 4 } }, { dtype = torch.int16 }) end
windows.as_tensor_number = function() return torch.as_tensor(3) end
windows.asarray_same = aliases(function(x) return torch.asarray(x) end)
windows.asarray_copy = aliases(function(x) return torch.asarray(x, { copy = true }) end)
windows.asarray_other_dtype = aliases(function(x) return torch.asarray(x, { dtype = torch.int32 }) end)
windows.asarray_no_copy_dtype = function() return torch.asarray(torch.ones(2), { dtype = torch.float64, copy = false }) end
windows.asarray_no_copy_device = function() return torch.asarray(torch.ones(2), { device = "meta", copy = false }) end
windows.asarray_list = function() return torch.asarray({ 1, 2 }) end
windows.asarray_list_no_copy = function() return torch.asarray({ 1, 2 }, { copy = false }) end
windows.asarray_number = function() return torch.asarray(3.5) end
windows.asarray_requires_grad = function() return torch.asarray({ 1.0, 2.0 }, { requires_grad = true }) end
for k, v in pairs(windows) do cases[k] = v end
H.run("creation2", cases)
