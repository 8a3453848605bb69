-- train: one training step of a 784-256-10 MLP at batch 64 (forward, cross-entropy, backward,
-- SGD with momentum), and one epoch of the demo's model on Fashion-MNIST when it is installed.
local torch = require "mindtorch"
local B = dofile("bench/common.lua")
local nn, optim = torch.nn, torch.optim

torch.manual_seed(0)
local x, y = torch.randn(64, 784), torch.randint(1, 11, { 64 })
local net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
local loss_fn = nn.CrossEntropyLoss()
local opt = optim.SGD(net:parameters(), { lr = 0.01, momentum = 0.9 })
local function step()
  opt:zero_grad()
  loss_fn(net(x), y):backward()
  opt:step()
end
B.result("train_mlp_step_64x784", B.time_per_call(step, 200) * 1e6, "us")

-- LeNet-style CNN on 28x28 at batch 64, and its two convolutions and a pooling alone
local img, lab = torch.randn(64, 1, 28, 28), torch.randint(1, 11, { 64 })
local lenet = nn.Sequential(nn.Conv2d(1, 6, 5, { padding = 2 }), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5),
  nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
  nn.Linear(84, 10))
local sgd = optim.SGD(lenet:parameters(), { lr = 0.01, momentum = 0.9 })
B.result("train_lenet_step_64", B.time_per_call(function()
  sgd:zero_grad()
  loss_fn(lenet(img), lab):backward()
  sgd:step()
end, 40) * 1e6, "us")
local c1, c2 = torch.randn(6, 1, 5, 5), torch.randn(16, 6, 5, 5)
local a2, p1 = torch.randn(64, 6, 14, 14), torch.randn(64, 6, 28, 28)
B.result("conv2d_64x1x28x28_k5", B.time_per_call(function() return torch.conv2d(img, c1, nil, 1, 2) end, 50) * 1e6, "us")
B.result("conv2d_64x6x14x14_k5", B.time_per_call(function() return torch.conv2d(a2, c2) end, 50) * 1e6, "us")
B.result("max_pool2d_64x6x28x28", B.time_per_call(function() return torch.max_pool2d(p1, 2) end, 50) * 1e6, "us")
-- a ResNet's average poolings: a 2x2 one over a block's activations, the global one before its classifier
local act, last = torch.randn(32, 64, 56, 56), torch.randn(32, 512, 7, 7)
B.result("avg_pool2d_32x64x56x56", B.time_per_call(function() return torch.avg_pool2d(act, 2) end, 5) * 1e3, "ms")
B.result("adaptive_avg_pool2d_32x512x7x7", B.time_per_call(function()
  return torch.adaptive_avg_pool2d(last, 1)
end, 50) * 1e6, "us")

local data = torch.utils.data
local ok, train = pcall(data.datasets.FashionMNIST, { train = true })
if ok then
  local loader = data.DataLoader(train, { batch_size = 64, shuffle = true })
  local model = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
  local adam = optim.Adam(model:parameters(), { lr = 1e-3 })
  local t0 = torch._monotonic()
  for xb, yb in loader() do
    adam:zero_grad()
    loss_fn(model((xb - 0.2860) / 0.3530), yb):backward()
    adam:step()
  end
  B.result("train_demo_epoch_mlp", torch._monotonic() - t0, "s")
end
