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
