-- tour.lua: a first look at mindtorch tensors. Run: build/luamt examples/tour.lua
-- the command line: --help only (Debian's lua-argparse); this example has no options
require "argparse"("luamt examples/tour.lua",
  "A first look at mindtorch tensors: creation, views, indexing, dtypes, devices."):parse()
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

print("-- operators, reductions, matrix products")
local a = torch.arange(6.0):view(2, 3)
print(a * 2 + 1, a:sum(2), a:max(1))
print(a:matmul(a:t()), a:softmax(2))

print("-- Torch7-style indexing: ranges are inclusive, tensors gather, masks select")
print(a[{ ":", { 2, 3 } }], a[{ 2, -1 }], a[a:gt(2)], a[{ ":", torch.tensor({ 3, 1 }) }])
a[{ ":", 1 }] = -1
print(a)

print("-- random numbers: PyTorch's streams for the same seed")
torch.manual_seed(0)
print(torch.rand(3), torch.randn(2, 2), torch.randperm(5))

print("-- pipeline mode: ops recorded with meta shapes, run when data is needed")
local r = torch.pipeline(function()
  local y = (a + 1):exp()
  return y:sum()
end)
print(r)
