-- overhead: the fixed cost of one call on a tiny (4-element) tensor.
local torch = require "mindtorch"
local B = dofile("bench/common.lua")

local x = torch.ones(4)
local N = 200000
B.result("call_small_op_clone", B.time_per_call(function() return x:clone() end, N) * 1e6, "us")
B.result("call_method_view", B.time_per_call(function() return x:view(2, 2) end, N) * 1e6, "us")
B.result("call_fill_inplace", B.time_per_call(function() return x:fill_(1.5) end, N) * 1e6, "us")
B.result("create_zeros", B.time_per_call(function() return torch.zeros(4) end, N) * 1e6, "us")
B.result("create_tensor_from_list", B.time_per_call(function() return torch.tensor({ 1.0, 2.0, 3.0, 4.0 }) end, N) * 1e6, "us")
B.result("read_item", B.time_per_call(function() return x[2]:item() end, N) * 1e6, "us")
