-- ddp_fashion_mnist.lua: examples/fashion_mnist.lua's classifiers trained data-parallel on
-- several processes with DistributedDataParallel over Open MPI (doc/distributed.md):
--
--   mpirun -np 2 build/luamt examples/ddp_fashion_mnist.lua [--model mlp|cnn] [--epochs N]
--       [--batch-size 32 (per rank)] [--lr 0.001] [--seed 0] [--data DIR] [--overlap 1|0]
--   (as root add --allow-run-as-root; with more ranks than cores, --oversubscribe)
--
-- Each rank reads its share of the training set (DistributedSampler, reshuffled each epoch),
-- gradients are averaged across ranks in buckets while backward runs (--overlap 0 reduces
-- them all after backward instead, to see what the overlap saves), and rank 0 prints the
-- mean step time, the test accuracy after each epoch and "test accuracy: 0.XXXX". With
-- N ranks and --batch-size B this trains as one process with batches of N x B.
local torch = require "mindtorch"
local nn, optim, data, dist = torch.nn, torch.optim, torch.utils.data, torch.distributed

local function parse(argv)
  local o = { model = "mlp", epochs = 1, ["batch-size"] = 32, lr = 0.001, seed = 0,
    data = "/usr/share/datasets/fashion-mnist", overlap = 1 }
  local i = 1
  while i <= #argv do
    local k = argv[i]:match("^%-%-(.+)$")
    if not k or o[k] == nil then error("unknown argument " .. argv[i] .. " (see the header of this script)", 0) end
    local v = argv[i + 1]
    if v == nil then error("--" .. k .. " needs a value", 0) end
    o[k] = type(o[k]) == "number" and assert(tonumber(v), "--" .. k .. " takes a number") or v
    i = i + 2
  end
  return o
end

local MEAN, STD = 0.2860, 0.3530
local Standardize = nn.Module:subclass("Standardize")
function Standardize:__init() nn.Module.__init(self) end
function Standardize:forward(x) return (x - MEAN) / STD end

local models = {
  mlp = function()
    return nn.Sequential(Standardize(), nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
  end,
  cnn = function()
    return nn.Sequential(Standardize(), nn.Conv2d(1, 16, 5, { padding = 2 }), nn.ReLU(), nn.MaxPool2d(2),
      nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 5 * 5, 120), nn.ReLU(),
      nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
  end,
}

local o = parse(arg)
if not models[o.model] then error("unknown model '" .. o.model .. "' (available: mlp, cnn)", 0) end
dist.init_process_group("mpi")
local rank, world = dist.get_rank(), dist.get_world_size()
torch.set_num_threads(1) -- one core per rank
torch.manual_seed(o.seed)

local train = data.datasets.FashionMNIST(o.data, { train = true })
local test = data.datasets.FashionMNIST(o.data, { train = false })
local sampler = data.DistributedSampler(train, { shuffle = true, seed = o.seed })
local loader = data.DataLoader(train, { batch_size = o["batch-size"], sampler = sampler })
local test_loader = data.DataLoader(test, { batch_size = 1000 })

local model = nn.parallel.DistributedDataParallel(models[o.model]())
model._overlap = o.overlap ~= 0
local opt = optim.Adam(model:parameters(), { lr = o.lr })
local loss_fn = nn.CrossEntropyLoss()

local function evaluate()
  model:eval()
  local correct, n = 0, 0
  torch.no_grad(function()
    for x, y in test_loader() do
      correct = correct + model.module(x):argmax(2):eq(y):sum():item()
      n = n + y:numel()
    end
  end)
  model:train()
  return correct / n
end

local acc = 0
for epoch = 1, o.epochs do
  sampler:set_epoch(epoch - 1)
  local steps, busy, total = 0, 0, 0
  for x, y in loader() do
    local t0 = torch._monotonic()
    opt:zero_grad()
    local loss = loss_fn(model(x), y)
    loss:backward()
    opt:step()
    busy = busy + torch._monotonic() - t0
    steps, total = steps + 1, total + loss:item()
  end
  if rank == 0 then acc = evaluate() end
  if rank == 0 then
    print(("epoch %d: %d ranks x batch %d, train loss %.4f, %.2f ms per step, test accuracy %.4f"):format(epoch,
      world, o["batch-size"], total / steps, busy / steps * 1e3, acc))
  end
end
if rank == 0 then print(("test accuracy: %.4f"):format(acc)) end
dist.destroy_process_group()
