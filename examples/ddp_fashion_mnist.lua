-- ddp_fashion_mnist.lua: examples/fashion_mnist.lua's classifiers trained data-parallel on
-- several processes with DistributedDataParallel over Open MPI (doc/distributed.md):
--
--   mpirun -np 2 build/luamt examples/ddp_fashion_mnist.lua [--model mlp|cnn] [--epochs N]
--       [--batch-size 32 (per rank)] [--lr 0.001] [--seed 0] [--data DIR] [--overlap 1|0]
--   (--help: the options)
--   (as root add --allow-run-as-root; with more ranks than cores, --oversubscribe)
--
-- Each rank reads its share of the training set (DistributedSampler, reshuffled each epoch),
-- gradients are averaged across ranks in buckets while backward runs (--overlap 0 reduces
-- them all after backward instead, to see what the overlap saves), and rank 0 prints the
-- mean step time, the test accuracy after each epoch and "test accuracy: 0.XXXX". With
-- N ranks and --batch-size B this trains as one process with batches of N x B.
-- the command line (Debian's lua-argparse: apt-get install lua-argparse); --help lists the options
local argparse = require "argparse"
local function integer(min)
  return function(v)
    local n = math.tointeger(tonumber(v))
    if not n or n < min then return nil, ("expected an integer of at least %d, got '%s'"):format(min, v) end
    return n
  end
end
local function positive(v)
  local n = tonumber(v)
  if not n or n <= 0 then return nil, ("expected a positive number, got '%s'"):format(v) end
  return n
end
local parser = argparse("mpirun -np N luamt examples/ddp_fashion_mnist.lua",
  "Trains examples/fashion_mnist.lua's classifiers data-parallel over Open MPI (DistributedDataParallel).")
parser:option("--model", "The network: an MLP or a LeNet-style CNN.", "mlp"):choices { "mlp", "cnn" }
parser:option("--epochs", "Passes over the training set.", "1"):convert(integer(1))
parser:option("--batch-size", "Examples per step and rank.", "32"):convert(integer(1))
parser:option("--lr", "Adam's learning rate.", "0.001"):convert(positive)
parser:option("--seed", "The random seed.", "0"):convert(integer(0))
parser:option("--data", "The folder of the IDX files.", "/usr/share/datasets/fashion-mnist")
parser:option("--overlap", "1: reduce gradients in buckets while backward runs; 0: after it.", "1")
  :choices { "1", "0" }:convert(tonumber)
local o = parser:parse()

local torch = require "mindtorch"
local nn, optim, data, dist = torch.nn, torch.optim, torch.utils.data, torch.distributed

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

dist.init_process_group("mpi")
local rank, world = dist.get_rank(), dist.get_world_size()
torch.set_num_threads(1) -- one core per rank
torch.manual_seed(o.seed)

local train = data.datasets.FashionMNIST(o.data, { train = true })
local test = data.datasets.FashionMNIST(o.data, { train = false })
local sampler = data.DistributedSampler(train, { shuffle = true, seed = o.seed })
local loader = data.DataLoader(train, { batch_size = o.batch_size, sampler = sampler })
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
      world, o.batch_size, total / steps, busy / steps * 1e3, acc))
  end
end
if rank == 0 then print(("test accuracy: %.4f"):format(acc)) end
dist.destroy_process_group()
