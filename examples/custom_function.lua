-- custom_function.lua: differentiable functions written in Lua with torch.autograd.Function.
-- Run: build/luamt examples/custom_function.lua
--
-- A Function subclass has forward(ctx, ...) (run without recording a graph) and
-- backward(ctx, grad_output...) returning one gradient per forward argument (nil for the
-- ones that are not tensors). ctx:save_for_backward keeps tensors for backward, which reads
-- them back from ctx.saved_tensors. gradcheck compares backward with finite differences.
-- the command line: --help only (Debian's lua-argparse); this example has no options
require "argparse"("luamt examples/custom_function.lua",
  "Differentiable functions written in Lua with torch.autograd.Function, checked with gradcheck."):parse()
local torch = require "mindtorch"
torch.manual_seed(0)

-- 1. softplus(x) = log(1 + exp(x)), computed without overflow:
--    max(x, 0) + log1p(exp(-|x|)); its derivative is sigmoid(x).
local StableSoftplus = torch.autograd.Function:subclass("StableSoftplus")
function StableSoftplus.forward(ctx, x)
  ctx:save_for_backward(x)
  return x:clamp({ min = 0 }) + (-x:abs()):exp():log1p()
end
function StableSoftplus.backward(ctx, grad_output)
  local x = table.unpack(ctx.saved_tensors)
  return grad_output * x:sigmoid()
end

print("-- a numerically stable softplus")
local x = torch.tensor({ -1000.0, 0.0, 1000.0 }, { requires_grad = true })
local y = StableSoftplus.apply(x)
print("stable:", y)
print("naive: ", torch.no_grad(function() return (x:exp() + 1):log() end))
print("node:  ", y.grad_fn:name())
y:sum():backward()
print("grad:  ", x.grad)

print("-- gradcheck: backward against central finite differences (float64 input)")
local x64 = torch.randn(6, { dtype = torch.float64, requires_grad = true })
print("gradcheck:", torch.autograd.gradcheck(StableSoftplus.apply, { x64 }))
-- backward is itself made of differentiable ops, so second derivatives work too
print("gradgradcheck:", torch.autograd.gradgradcheck(StableSoftplus.apply, { x64 }))
print("agrees with F.softplus:",
  torch.allclose(StableSoftplus.apply(x64), torch.nn.functional.softplus(x64)))

-- 2. A clamp with a straight-through gradient: the forward clamps, the backward passes the
--    gradient through unchanged (as if the op were the identity). Non-tensor arguments get nil.
local STClamp = torch.autograd.Function:subclass("STClamp")
function STClamp.forward(ctx, x, lo, hi)
  return x:clamp(lo, hi)
end
function STClamp.backward(ctx, grad_output)
  return grad_output, nil, nil
end

print("-- straight-through clamp")
local a = torch.linspace(-2, 2, 5):requires_grad_()
local b = STClamp.apply(a, -1, 1)
b:sum():backward()
print("forward:", b)
print("straight-through grad:", a.grad)
local a2 = torch.linspace(-2, 2, 5):requires_grad_()
a2:clamp(-1, 1):sum():backward()
print("true clamp grad:      ", a2.grad)
-- it is not the true derivative, and gradcheck says so (raise_exception = false: a boolean)
local v = torch.tensor({ -2.0, 0.5, 3.0 }, { dtype = torch.float64, requires_grad = true })
print("gradcheck of the straight-through clamp:",
  torch.autograd.gradcheck(function(t) return STClamp.apply(t, -1, 1) end, { v }, { raise_exception = false }))
