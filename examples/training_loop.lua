-- training_loop.lua: a complete training loop on synthetic data (two interleaved spirals).
-- Run: build/luamt examples/training_loop.lua
--
-- An nn.Sequential classifier, CrossEntropyLoss, Adam, a StepLR schedule, a shuffling
-- DataLoader over a TensorDataset, train/eval modes, and a state_dict saved with torch.save,
-- loaded with torch.load into a fresh model that then gives the same outputs.
-- the command line: --help only (Debian's lua-argparse); this example has no options
require "argparse"("luamt examples/training_loop.lua",
  "A complete training loop on synthetic data (two interleaved spirals), saved and reloaded."):parse()
local torch = require "mindtorch"
local nn, optim, data = torch.nn, torch.optim, torch.utils.data
torch.manual_seed(0)

-- ---- data: n points per class on two spirals, with a little noise ----------------------------
local function spirals(n)
  local t = torch.linspace(0.25, 3 * math.pi, n)
  local xs, ys = {}, {}
  for class = 1, 2 do -- class labels are 1-based, like every index in mindtorch
    local phase = (class - 1) * math.pi
    local r = t / (3 * math.pi)
    local pts = torch.stack({ r * (t + phase):cos(), r * (t + phase):sin() }, 2) -- [n, 2]
    xs[class] = pts + 0.03 * torch.randn(n, 2)
    ys[class] = torch.full({ n }, class) -- int64
  end
  return torch.cat(xs, 1), torch.cat(ys, 1)
end

local X, Y = spirals(300)
local perm = torch.randperm(X:size(1)) -- 1-based indices
X, Y = X:index_select(1, perm), Y:index_select(1, perm)
local n_train = 480
local train_set = data.TensorDataset(X:narrow(1, 1, n_train), Y:narrow(1, 1, n_train))
local X_test, Y_test = X:narrow(1, n_train + 1, X:size(1) - n_train), Y:narrow(1, n_train + 1, X:size(1) - n_train)
local loader = data.DataLoader(train_set, { batch_size = 32, shuffle = true })
print(("%d training points, %d test points, %d batches per epoch"):format(#train_set, X_test:size(1), #loader))

-- ---- model, loss, optimizer, schedule ---------------------------------------------------------
local function make_model()
  return nn.Sequential(
    nn.Linear(2, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Dropout(0.05),
    nn.Linear(64, 2))
end
local model = make_model()
print(model)
local loss_fn = nn.CrossEntropyLoss()
local opt = optim.Adam(model:parameters(), { lr = 0.01 })
local scheduler = optim.lr_scheduler.StepLR(opt, { step_size = 40, gamma = 0.5 })

local function accuracy(m, x, y)
  m:eval() -- Dropout off
  local correct = torch.no_grad(function()
    return m(x):argmax(2):eq(y):sum():item() -- argmax gives 1-based classes, like the labels
  end)
  m:train()
  return correct / y:numel()
end

-- ---- training ---------------------------------------------------------------------------------
local epochs = 120
local first_loss, last_loss
for epoch = 1, epochs do
  model:train()
  local total, batches = 0, 0
  for xb, yb in loader() do
    opt:zero_grad()
    local loss = loss_fn(model(xb), yb)
    loss:backward()
    opt:step()
    total, batches = total + loss:item(), batches + 1
  end
  scheduler:step() -- once per epoch
  local mean = total / batches
  first_loss = first_loss or mean
  last_loss = mean
  if epoch == 1 or epoch % 20 == 0 then
    print(("epoch %3d  loss %.4f  lr %.5f  test accuracy %.3f"):format(epoch, mean, scheduler:get_last_lr()[1],
      accuracy(model, X_test, Y_test)))
  end
end
local acc = accuracy(model, X_test, Y_test)
print(("first loss %.4f, final loss %.4f"):format(first_loss, last_loss))
print(("final test accuracy: %.4f"):format(acc))

-- ---- save the weights, load them into a fresh model --------------------------------------------
local path = os.tmpname()
torch.save(model:state_dict(), path)
local sd = torch.load(path)
os.remove(path)
local keys = {}
for k in pairs(sd) do keys[#keys + 1] = k end
table.sort(keys)
print("state_dict keys: " .. table.concat(keys, " ")) -- PyTorch's names: 0.weight, 0.bias, ...

local fresh = make_model()
fresh:load_state_dict(sd)
model:eval()
fresh:eval()
local same = torch.no_grad(function() return torch.equal(model(X_test), fresh(X_test)) end)
print("reloaded model gives the same outputs:", same)
