-- from_pytorch.lua: runs a model PyTorch trained. examples/from_pytorch_train.py trained
-- fashion_mnist.lua's CNN in PyTorch 1.13 and saved it as a .pth checkpoint; this script builds
-- the same network in mindtorch, loads PyTorch's weights into it with load_state_dict (the keys
-- are PyTorch's), checks it computes PyTorch's logits, measures the test accuracy, and saves the
-- weights again as a .pt file that PyTorch's torch.load reads.
--
--   build/luamt examples/from_pytorch.lua [--checkpoint PATH] [--out PATH] [--data DIR]
local torch = require "mindtorch"
local argparse = require "argparse"
local nn, data = torch.nn, torch.utils.data

local parser = argparse("from_pytorch.lua", "Load a PyTorch-trained Fashion-MNIST CNN and evaluate it in mindtorch.")
parser:option("--checkpoint", "The PyTorch checkpoint.", "examples/data/fashion_mnist_cnn_pytorch.pth")
parser:option("--out", "Where to save the weights again (PyTorch's format).", "build/demo/fashion_mnist_cnn.pt")
parser:option("--data", "The Fashion-MNIST IDX files.", "/usr/share/datasets/fashion-mnist")
local o = parser:parse(arg)

-- the network of fashion_mnist.lua --model cnn; Standardize has no weights but keeps the indices
local MEAN, STD = 0.2860, 0.3530
local Standardize = nn.Module:subclass("Standardize")
function Standardize:__init() nn.Module.__init(self) end
function Standardize:forward(x) return (x - MEAN) / STD end
local model = nn.Sequential(Standardize(), nn.Conv2d(1, 16, 5, { padding = 2 }), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 5 * 5, 120), nn.ReLU(),
  nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))

local ckpt = torch.load(o.checkpoint, { map_location = "cpu" })
print(("%s: saved by PyTorch %s, keys:"):format(o.checkpoint, ckpt.torch_version))
for k, v in pairs(ckpt.model) do print(("  %-12s %s"):format(k, table.concat(v:size(), "x"))) end
model:load_state_dict(ckpt.model)
model:eval()

local test = data.datasets.FashionMNIST(o.data, { train = false })
local loader = data.DataLoader(test, { batch_size = 1000 })
local correct, n, first = 0, 0, nil
torch.no_grad(function()
  for x, y in loader do
    local logits = model(x)
    first = first or logits:narrow(1, 1, ckpt.test_logits:size(1))
    correct = correct + logits:argmax(2):eq(y):sum():item()
    n = n + y:numel()
  end
end)
local diff = (first - ckpt.test_logits):abs():max():item()
local acc = correct / n
print(("logits of the first test images: largest difference from PyTorch's %.2e"):format(diff))
print(("test accuracy: %.4f (PyTorch measured %.4f)"):format(acc, ckpt.test_accuracy))

os.execute("mkdir -p '" .. o.out:match("^(.*)/[^/]*$") .. "'")
torch.save(model:state_dict(), o.out)
print("wrote " .. o.out .. " (PyTorch reads it: torch.load(path, weights_only=True))")
if diff > 1e-3 or math.abs(acc - ckpt.test_accuracy) > 1e-3 then
  io.stderr:write("mindtorch and PyTorch disagree on this model\n")
  os.exit(1)
end
