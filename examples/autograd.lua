-- autograd.lua: reverse-mode differentiation in mindtorch. Run: build/luamt examples/autograd.lua
--
-- Shows requires_grad, backward and .grad, the recorded graph (grad_fn, next_functions),
-- torch.autograd.grad, no_grad, retain_graph, a second derivative with create_graph, and
-- tensor hooks.
-- the command line: --help only (Debian's lua-argparse); this example has no options
require "argparse"("luamt examples/autograd.lua",
  "Reverse-mode differentiation: backward, the graph, autograd.grad, no_grad, higher derivatives, hooks."):parse()
local torch = require "mindtorch"
torch.manual_seed(0)

print("-- backward fills .grad of the leaves")
local x = torch.tensor({ 1.0, 2.0, 3.0 }, { requires_grad = true })
local y = (3 * x ^ 2):sum() -- y = sum(3 x^2), so dy/dx = 6 x
y:backward()
print("y =", y)
print("dy/dx =", x.grad)
print("expected 6 * x:", torch.equal(x.grad, 6 * x:detach()))
print("leaves:", x.is_leaf, y.is_leaf)

print("-- the graph: each result remembers the node that made it")
local w = torch.randn(2, 3, { requires_grad = true })
local out = (w:mm(x:view(3, 1)) + 1):relu():sum()
print("out.grad_fn:", out.grad_fn:name())
local function walk(node, depth)
  print(string.rep("  ", depth) .. node:name())
  for _, edge in ipairs(node.next_functions) do -- {node, input_nr}; nil node: no gradient flows
    if edge[1] then walk(edge[1], depth + 1) end
  end
end
walk(out.grad_fn, 1)

print("-- torch.autograd.grad returns gradients instead of accumulating them")
local s = x:sin():sum()
local grads = torch.autograd.grad({ s }, { x }) -- one gradient per input, in a sequence
print("d sum(sin x)/dx =", grads[1])
print("matches cos(x):", torch.allclose(grads[1], x:detach():cos()))

print("-- gradients accumulate; zero them between steps")
x.grad = nil
local e = x:exp():sum()
e:backward(nil, { retain_graph = true }) -- keep the saved tensors for a second pass
e:backward()
print("2 * exp(x) =", x.grad)
local ok, err = pcall(function() e:backward() end) -- the graph is freed now
print("third backward fails:", not ok, (tostring(err):match("^(.-) %(")))

print("-- no_grad: nothing is recorded (with a function or a <close> value)")
print("inside no_grad:", torch.no_grad(function() return (x * 2).requires_grad end))
do
  local _ <close> = torch.no_grad()
  print("in a no_grad block:", (x * 2).requires_grad, torch.is_grad_enabled())
end
print("after it:", (x * 2).requires_grad)
print("detach():", x:detach().requires_grad)

print("-- second derivative: create_graph records the backward pass itself")
local t = torch.tensor(2.0, { requires_grad = true })
local f = t ^ 3
local df = torch.autograd.grad(f, t, { create_graph = true })[1] -- 3 t^2 = 12
local d2f = torch.autograd.grad(df, t)[1] -- 6 t = 12
print("f'(2) =", df, "f''(2) =", d2f)

print("-- hooks see (and may replace) a gradient as it flows")
local h = x:register_hook(function(g)
  print("hook sees", g)
  return g * 10 -- the returned tensor replaces the gradient
end)
x.grad = nil
;(x * 5):sum():backward()
print("x.grad after the hook =", x.grad)
h:remove()
x.grad = nil
;(x * 5):sum():backward()
print("without the hook =", x.grad)

print("-- retain_grad keeps the gradient of a non-leaf")
local m = x * 2
m:retain_grad()
m:sum():backward()
print("m.grad =", m.grad)
