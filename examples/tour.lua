-- tour.lua: a first look at mindtorch tensors. Run: build/luamt examples/tour.lua
local torch = require "mindtorch"

print("-- creation")
local x = torch.tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
print(x)
print(x.shape, x.dtype, x.device)
print(torch.zeros(2, 3, { dtype = torch.float64 }))
print(torch.arange(0, 1, 0.25))
print(torch.linspace(-1, 1, 5))
print(torch.eye(3))

print("-- views share storage (dims and indices are 1-based)")
local v = x:t()
print(v, v:is_contiguous(), v:stride())
x[1] = 0 -- writes through every view
print(v)
print(x:view(3, 2), x:view(-1):narrow(1, 2, 3))
print(torch.arange(24):view(2, 3, 4):permute(3, 1, 2).shape)

print("-- dtypes and conversions")
local f = torch.tensor({ 1.1, 2.2, 65504 }, { dtype = torch.float16 })
print(f, f:float(), f:to(torch.int32))

print("-- meta tensors: shapes without data")
local m = torch.empty(1000, 1000, { device = "meta" })
print(m, m:view(-1, 10):t().shape)

print("-- storages")
local s = x:untyped_storage()
print(s:nbytes(), s:size(), x:storage():size())
