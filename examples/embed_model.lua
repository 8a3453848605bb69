-- embed_model.lua: the Lua side of examples/embed_host.c, a C program that embeds mindtorch.
--
-- Loading this file trains a small classifier of 28x28 drawings (a horizontal bar, a vertical
-- bar, a cross; shifted and noisy) and returns a table whose predict(image) the host calls
-- with a uint8 tensor over its own pixel buffer. Run: make examples &&
-- build/examples/embed_host examples/embed_model.lua vertical
local torch = require "mindtorch"
local nn = torch.nn

local classes = { "horizontal", "vertical", "cross" }
local SIZE = 28

-- one drawing as a float image in [0, 1]: a 4-pixel-wide bar (or two) at a random place
local function draw(kind, gen)
  local img = torch.rand(SIZE, SIZE, { generator = gen }):mul(0.3) -- background noise
  local at = torch.randint(6, SIZE - 9, {}, { generator = gen }):item()
  if kind ~= "vertical" then img:narrow(1, at, 4):fill_(1) end   -- rows at..at+3
  if kind ~= "horizontal" then img:narrow(2, at, 4):fill_(1) end -- columns at..at+3
  return img
end

local function dataset(n, gen)
  local images, labels = {}, {}
  for i = 1, n do
    local label = (i - 1) % #classes + 1
    images[i] = draw(classes[label], gen):view(1, SIZE * SIZE)
    labels[i] = label
  end
  return torch.cat(images, 1), torch.tensor(labels)
end

local gen = torch.Generator():manual_seed(7)
torch.manual_seed(7) -- the layers' initial weights
local model = nn.Sequential(nn.Linear(SIZE * SIZE, 16), nn.ReLU(), nn.Linear(16, #classes))
local x, y = dataset(150, gen)
local optimizer = torch.optim.Adam(model:parameters(), { lr = 0.01 })
local loss_fn = nn.CrossEntropyLoss() -- targets are 1-based class indices
for _ = 1, 40 do
  optimizer:zero_grad()
  local loss = loss_fn(model(x), y)
  loss:backward()
  optimizer:step()
end
model:eval()

local M = { classes = classes }

-- image: a uint8 SIZE x SIZE tensor (0..255). Returns the class name and a float32 tensor
-- of the three probabilities.
function M.predict(image)
  assert(torch.is_tensor(image) and image.dtype == torch.uint8, "predict expects a uint8 image")
  local input = image:float():div(255):view(1, SIZE * SIZE)
  local probs = torch.no_grad(function() return model(input):softmax(2):view(-1) end)
  local _, best = probs:max(1)
  return classes[best:item()], probs
end

return M
