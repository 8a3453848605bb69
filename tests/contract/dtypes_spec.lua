-- dtype rules against PyTorch (cases/dtypes.py): promotion, casting, half/bfloat16 rounding.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()

local DTYPES = { "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64" }
local cases = {}
for _, a in ipairs(DTYPES) do
  for _, b in ipairs(DTYPES) do
    cases["promote_" .. a .. "_" .. b] = function() return torch.promote_types(torch[a], torch[b]) end
    cases["can_cast_" .. a .. "_" .. b] = function() return torch.can_cast(torch[a], torch[b]) end
  end
end
local R = { 0.0, -0.0, 1.0, 1.0009765625, 1.00048828125, 1.000732421875, 65504.0, 65519.0, 65520.0,
  1e-8, 5.960464477539063e-08, 2.9802322387695312e-08, 2.98023223876953125e-08 * 1.5,
  6.103515625e-05, 3.0e38, 3.4e38, math.huge, -math.huge, 0 / 0,
  1.00390625, 1.005859375, -2.5e-41, 1e-40, 123.456, -7.77e-3 }
cases.round_float16 = function() return torch.tensor(R, { dtype = torch.float32 }):to(torch.float16) end
cases.round_bfloat16 = function() return torch.tensor(R, { dtype = torch.float32 }):to(torch.bfloat16) end
cases.round_float16_from_double = function() return torch.tensor(R, { dtype = torch.float64 }):to(torch.float16) end
cases.float_to_int8 = function() return torch.tensor({ 1.9, -1.9, 127.5, -128.7, 0.5 }):to(torch.int8) end
cases.float_to_uint8 = function() return torch.tensor({ 1.9, 255.4, 0.0, 3.7 }):to(torch.uint8) end
cases.float_to_bool = function() return torch.tensor({ 0.0, -0.0, 0.1, 0 / 0 }):to(torch.bool) end
cases.int_to_float16 = function() return torch.tensor({ 2049, 65519, 65520, -3 }):to(torch.float16) end
cases.int64_to_int8_wrap = function() return torch.tensor({ 300, -129, 255 }):to(torch.int8) end
cases.bool_to_float = function() return torch.tensor({ true, false }):to(torch.float32) end
cases.float16_to_float32 = function()
  return torch.tensor({ 1.5, 6.1e-5, 65504.0 }, { dtype = torch.float16 }):to(torch.float32)
end
cases.default_dtype_int_error = function() return torch.set_default_dtype(torch.int64) end

H.run("dtypes", cases)
