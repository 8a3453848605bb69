-- conv: the convolutions of LeNet (batch 64) and of a ResNet-style block, forward and the two
-- backward passes (input and weight gradients) each alone. Twin: bench/conv.py.
local torch = require "mindtorch"
local B = dofile("bench/common.lua")

torch.manual_seed(0)
local cases = {
  -- name, input sizes, weight sizes, padding, calls
  { "conv2d_64x1x28x28_k5p2", { 64, 1, 28, 28 }, { 6, 1, 5, 5 }, 2, 50 },
  { "conv2d_64x6x14x14_k5", { 64, 6, 14, 14 }, { 16, 6, 5, 5 }, 0, 50 },
  { "conv2d_8x64x56x56_k3p1", { 8, 64, 56, 56 }, { 64, 64, 3, 3 }, 1, 5 },
  { "conv2d_8x64x56x56_k1", { 8, 64, 56, 56 }, { 64, 64, 1, 1 }, 0, 10 },
}
for _, c in ipairs(cases) do
  local name, x, w, pad, n = c[1], torch.randn(c[2]), torch.randn(c[3]), c[4], c[5]
  local y = torch.conv2d(x, w, nil, 1, pad)
  local g = torch.randn(y:size())
  local opad = { 0, 0 }
  B.result(name, B.time_per_call(function() return torch.conv2d(x, w, nil, 1, pad) end, n) * 1e6, "us")
  B.result(name .. "_bw_input", B.time_per_call(function()
    return torch.convolution(g, w, nil, { 1 }, { pad }, { 1 }, true, opad, 1)
  end, n) * 1e6, "us")
  B.result(name .. "_bw_weight", B.time_per_call(function()
    return torch.convolution_backward_weight(g, x, c[3], { 1 }, { pad }, { 1 }, false, 1)
  end, n) * 1e6, "us")
end

-- a decoder's upsampling layer: ConvTranspose2d 64 -> 32 channels, 4x4, stride 2, padding 1
-- (28x28 -> 56x56), batch 16; forward, and the backward pass (input and weight gradients)
local xt, wt = torch.randn(16, 64, 28, 28), torch.randn(64, 32, 4, 4)
B.result("conv_transpose2d_16x64x28x28_k4s2p1", B.time_per_call(function()
  return torch.conv_transpose2d(xt, wt, nil, 2, 1)
end, 5) * 1e6, "us")
local xtg, wtg = xt:clone():requires_grad_(), wt:clone():requires_grad_()
local yt = torch.conv_transpose2d(xtg, wtg, nil, 2, 1)
local gt = torch.randn(yt:size())
B.result("conv_transpose2d_16x64x28x28_k4s2p1_bw", B.time_per_call(function()
  return torch.autograd.grad({ yt }, { xtg, wtg }, { grad_outputs = { gt }, retain_graph = true })
end, 5) * 1e6, "us")
