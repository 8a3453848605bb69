-- models: a training step (forward, loss, backward, optimizer step) of the models people train,
-- and the peak resident memory of the process that trains it. Each model runs in a process of
-- its own (this script with the model's name), so that its peak memory is its own. Twin:
-- bench/models.py (the same models, sizes and optimizers).
--   lenet        LeNet-style CNN, batch 64, 1x28x28, SGD with momentum
--   resnet_block a ResNet basic block: 64 channels, 56x56, 3x3, batch 32, SGD with momentum
--   lstm         2-layer LSTM, input and hidden 256, sequence 64, batch 16, Adam
--   transformer  a Transformer encoder layer: d_model 256, 4 heads, sequence 128, batch 16, Adam
local torch = require "mindtorch"
local B = dofile("bench/common.lua")
local nn, optim = torch.nn, torch.optim

local function peak_rss_mib()
  for line in io.lines("/proc/self/status") do
    local kib = line:match("^VmHWM:%s+(%d+) kB")
    if kib then return tonumber(kib) / 1024 end
  end
end

local Block = nn.Module:subclass("BenchBasicBlock")
function Block:__init(c)
  nn.Module.__init(self)
  self.conv1 = nn.Conv2d(c, c, 3, { padding = 1, bias = false })
  self.bn1 = nn.BatchNorm2d(c)
  self.conv2 = nn.Conv2d(c, c, 3, { padding = 1, bias = false })
  self.bn2 = nn.BatchNorm2d(c)
end
function Block:forward(x)
  local h = self.bn1(self.conv1(x)):relu()
  return (self.bn2(self.conv2(h)) + x):relu()
end

-- each model: a step function and its timing (calls per round)
local MODELS = {
  lenet = function()
    local model = nn.Sequential(nn.Conv2d(1, 6, 5, { padding = 2 }), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5),
      nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
      nn.Linear(84, 10))
    local x, y = torch.randn(64, 1, 28, 28), torch.randint(1, 11, { 64 })
    local opt, loss_fn = optim.SGD(model:parameters(), { lr = 0.01, momentum = 0.9 }), nn.CrossEntropyLoss()
    return function()
      opt:zero_grad()
      loss_fn(model(x), y):backward()
      opt:step()
    end, 20
  end,
  resnet_block = function()
    local model = Block(64)
    local x = torch.randn(32, 64, 56, 56)
    local opt = optim.SGD(model:parameters(), { lr = 0.01, momentum = 0.9 })
    return function()
      opt:zero_grad()
      model(x):mean():backward()
      opt:step()
    end, 2
  end,
  lstm = function()
    local model = nn.LSTM(256, 256, { num_layers = 2 })
    local x = torch.randn(64, 16, 256)
    local opt = optim.Adam(model:parameters(), { lr = 1e-3 })
    return function()
      opt:zero_grad()
      local out = model(x)
      out:pow(2):mean():backward()
      opt:step()
    end, 3
  end,
  transformer = function()
    local model = nn.TransformerEncoderLayer(256, 4, { dim_feedforward = 1024, dropout = 0.1, batch_first = true })
    local x = torch.randn(16, 128, 256)
    local opt = optim.Adam(model:parameters(), { lr = 1e-3 })
    return function()
      opt:zero_grad()
      model(x):pow(2):mean():backward()
      opt:step()
    end, 5
  end,
}
local ORDER = { "lenet", "resnet_block", "lstm", "transformer" }

local which = arg[1]
if which then -- the child: one model
  torch.manual_seed(0)
  local step, n = MODELS[which]()
  B.result("model_" .. which .. "_step", B.time_per_call(step, n, 3) * 1e3, "ms")
  B.result("model_" .. which .. "_peak_rss", peak_rss_mib(), "MiB")
  return
end
local luamt = (os.getenv("BUILD") or "build") .. "/luamt"
for _, name in ipairs(ORDER) do
  io.write(B.capture(luamt .. " bench/models.lua " .. name))
  io.stdout:flush()
end
