-- autograd: the cost of recording a graph and running backward through it.
--   small_graph: three ops on a 4-element tensor, forward and backward (the fixed cost)
--   mlp_backward: the backward pass of a 784-256-10 MLP on a batch of 64 (the throughput)
local torch = require "mindtorch"
local B = dofile("bench/common.lua")

torch.manual_seed(0)
local x = torch.randn(4, { requires_grad = true })
B.result("autograd_small_graph_fwd_bwd", B.time_per_call(function()
  local y = ((x * 2):exp() + x):sum()
  y:backward()
end, 50000) * 1e6, "us")

local input = torch.randn(64, 784)
local target = torch.randint(1, 11, { 64 }) -- 1-based class indices
local w1 = (torch.randn(784, 256) * 0.05):requires_grad_()
local b1 = torch.zeros(256, { requires_grad = true })
local w2 = (torch.randn(256, 10) * 0.05):requires_grad_()
local b2 = torch.zeros(10, { requires_grad = true })
local onehot = torch.zeros(64, 10):scatter_(2, target:view(64, 1), 1.0)
local function loss_of()
  local h = (input:matmul(w1) + b1):relu()
  local logits = h:matmul(w2) + b2
  return -(logits:log_softmax(2) * onehot):sum() / 64
end
-- backward alone: each round builds the graph outside the timed part
local total, n = 0, 0
for round = 1, 300 do
  local loss = loss_of()
  local t0 = os.clock()
  loss:backward()
  local dt = os.clock() - t0
  if round > 20 then total, n = total + dt, n + 1 end
end
B.result("autograd_mlp_backward_64x784", total / n * 1e6, "us")
B.result("autograd_mlp_fwd_bwd_64x784", B.time_per_call(function() loss_of():backward() end, 300) * 1e6, "us")

-- the gradient of one input only (a gradient penalty, an input's saliency): the pass computes
-- no other gradient, so a convolution's weight gradient is skipped
local cx = torch.randn(32, 64, 56, 56, { requires_grad = true })
local cw = (torch.randn(64, 64, 3, 3) * 0.05):requires_grad_()
local cy = torch.nn.functional.conv2d(cx, cw, nil, 1, 1)
local cg = torch.randn(32, 64, 56, 56)
B.result("autograd_grad_input_only_conv_32x64x56x56", B.time_per_call(function()
  return torch.autograd.grad(cy, cx, cg, true)
end, 3) * 1e3, "ms")
