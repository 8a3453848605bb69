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
H.run("creation2", cases)
