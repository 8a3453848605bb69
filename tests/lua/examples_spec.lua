-- Every script in examples/ runs with luamt and exits with status 0; those listed in `checks`
-- must also print what they claim to show. fashion_mnist.lua is left out: it needs the
-- Fashion-MNIST dataset and trains for a while (make demo runs it). A script that is a module
-- for a host program (embed_model.lua, loaded by embed_host.c) prints nothing when run alone.
local build = os.getenv("BUILD") or "build"
local luamt = build .. "/luamt"

local run = require "tests.lua.support.run"

local function has(out, text)
  assert(out:find(text, 1, true), ("expected the output to contain %q; it was:\n%s"):format(text, out))
end

-- checks on the output of each example, by file name
local checks = {
  ["tour.lua"] = function(out)
    has(out, "torch.Size([2, 3])\ttorch.int64\tcpu")
    has(out, "-- pipeline mode")
  end,

  ["autograd.lua"] = function(out)
    -- d/dx sum(3 x^2) = 6 x at x = 1, 2, 3
    has(out, "dy/dx =\ttensor([ 6., 12., 18.])")
    has(out, "expected 6 * x:\ttrue")
    has(out, "matches cos(x):\ttrue")
    has(out, "    ReluBackward0\n      AddBackward0\n        MmBackward0\n")
    has(out, "2 * exp(x) =\ttensor([ 5.4366, 14.7781, 40.1711])")
    has(out, "third backward fails:\ttrue\tTrying to backward through the graph a second time")
    has(out, "in a no_grad block:\tfalse\tfalse")
    -- t^3 at t = 2: 3 t^2 = 12 and 6 t = 12
    has(out, "f'(2) =\ttensor(12., grad_fn=<MulBackward0>)\tf''(2) =\ttensor(12.)")
    has(out, "hook sees\ttensor([5., 5., 5.])")
    has(out, "x.grad after the hook =\ttensor([50., 50., 50.])")
    has(out, "without the hook =\ttensor([5., 5., 5.])")
    has(out, "m.grad =\ttensor([1., 1., 1.])")
  end,

  ["custom_function.lua"] = function(out)
    has(out, "naive: \ttensor([0.0000, 0.6931,    inf])")
    has(out, "node:  \tStableSoftplusBackward")
    has(out, "grad:  \ttensor([0.0000, 0.5000, 1.0000])")
    has(out, "gradcheck:\ttrue")
    has(out, "gradgradcheck:\ttrue")
    has(out, "agrees with F.softplus:\ttrue")
    has(out, "straight-through grad:\ttensor([1., 1., 1., 1., 1.])")
    has(out, "true clamp grad:      \ttensor([0., 1., 1., 1., 0.])")
    has(out, "gradcheck of the straight-through clamp:\tfalse")
  end,

  -- a module: loaded on its own it trains and returns the table the C host calls
  ["embed_model.lua"] = {
    command = luamt .. " -e 'local m = dofile(\"examples/embed_model.lua\"); print(type(m.predict))'",
    check = function(out) has(out, "function") end,
  },

  ["training_loop.lua"] = function(out)
    local first, final = out:match("first loss (%d+%.%d+), final loss (%d+%.%d+)")
    assert.is_not_nil(first, out)
    assert.is_true(tonumber(final) < tonumber(first) / 5, out)
    local acc = tonumber(out:match("final test accuracy: (%d+%.%d+)"))
    assert.is_not_nil(acc, out)
    assert.is_true(acc > 0.9, out)
    has(out, "state_dict keys: 0.bias 0.weight 2.bias 2.weight 5.bias 5.weight")
    has(out, "reloaded model gives the same outputs:\ttrue")
  end,

  -- PyTorch's weights (a committed .pth that from_pytorch_train.py wrote) run in mindtorch
  ["from_pytorch.lua"] = {
    command = luamt .. " examples/from_pytorch.lua --out " .. build .. "/tests/from_pytorch.pt",
    check = function(out)
      has(out, "saved by PyTorch 1.13")
      has(out, "  12.weight    10x84")
      local diff = tonumber(out:match("largest difference from PyTorch's (%S+)"))
      assert.is_true(diff ~= nil and diff < 1e-4, out)
      local mine, theirs = out:match("test accuracy: (%d%.%d+) %(PyTorch measured (%d%.%d+)%)")
      assert.are.equal(theirs, mine, out)
    end,
  },

  ["transformer_copy.lua"] = function(out)
    local first = tonumber(out:match("step  50  loss (%d+%.%d+)"))
    local last = tonumber(out:match("step 300  loss (%d+%.%d+)"))
    assert.is_true(first ~= nil and last ~= nil and last < first / 10, out)
    local acc = tonumber(out:match("copy accuracy: (%d+%.%d+)"))
    assert.is_true(acc ~= nil and acc > 0.9, out) -- greedy decoding of unseen sequences
  end,
}

local function examples()
  local p = io.popen("ls examples/*.lua")
  local list = {}
  for path in p:lines() do
    if not path:find("fashion_mnist.lua", 1, true) then list[#list + 1] = path end
  end
  p:close()
  return list
end

describe("examples/", function()
  local list = examples()

  it("has the examples this spec checks", function()
    local found = {}
    for _, path in ipairs(list) do found[path:match("[^/]+$")] = true end
    for name in pairs(checks) do assert.is_true(found[name] == true, "missing examples/" .. name) end
  end)

  for _, path in ipairs(list) do
    it(path .. " runs and prints what it shows", function()
      local check = checks[path:match("[^/]+$")]
      local command = luamt .. " " .. path
      if type(check) == "table" then command, check = check.command, check.check end
      local out, status = run(command)
      assert.are.equal(0, status, out)
      if check then check(out) end
    end)
  end
end)

-- Every script parses its command line with lua-argparse: --help prints the usage and exits 0,
-- an unknown option or a bad value fails with a message that names it. embed_model.lua is a
-- module for a host program and has no command line.
describe("examples/ command lines", function()
  -- the options (and their defaults) of the scripts that take some
  local options = {
    ["fashion_mnist.lua"] = { "--model {mlp,cnn}", "--epochs <epochs>", "--batch-size <batch_size>", "(default: 64)",
                              "--optim {adam,sgd}", "--lr <lr>", "(default: 0.001)", "--seed <seed>", "--data <data>",
                              "(default: /usr/share/datasets/fashion-mnist)", "--out <out>", "(default: build/demo)" },
    ["ddp_fashion_mnist.lua"] = { "--model {mlp,cnn}", "--epochs <epochs>", "--batch-size <batch_size>",
                                  "(default: 32)", "--lr <lr>", "--seed <seed>", "--data <data>", "--overlap {1,0}" },
  }
  local p = io.popen("ls examples/*.lua")
  local scripts = {}
  for path in p:lines() do
    if not path:find("embed_model.lua", 1, true) then scripts[#scripts + 1] = path end
  end
  p:close()

  for _, path in ipairs(scripts) do
    local name = path:match("[^/]+$")
    it(path .. " --help prints its usage and exits 0; an unknown option fails", function()
      local out, status = run(luamt .. " " .. path .. " --help")
      assert.are.equal(0, status, out)
      has(out, "Usage: ")
      has(out, name .. " [-h]")
      has(out, "-h, --help")
      for _, text in ipairs(options[name] or {}) do has(out, text) end
      out, status = run(luamt .. " " .. path .. " --no-such-option 1")
      assert.are_not.equal(0, status, out)
      has(out, "Error: unknown option '--no-such-option'")
      has(out, "Usage: ")
    end)
  end

  it("rejects bad option values with a message that names the option or the value", function()
    for _, path in ipairs { "examples/fashion_mnist.lua", "examples/ddp_fashion_mnist.lua" } do
      for args, message in pairs {
        ["--epochs x"] = "Error: expected an integer of at least 1, got 'x'",
        ["--epochs 0"] = "Error: expected an integer of at least 1, got '0'",
        ["--batch-size 2.5"] = "Error: expected an integer of at least 1, got '2.5'",
        ["--lr=-1"] = "Error: expected a positive number, got '-1'",
        ["--model rnn"] = "Error: argument for option '--model' must be one of 'mlp', 'cnn'",
        ["--epochs"] = "Error: option '--epochs' requires an argument",
      } do
        local out, status = run(luamt .. " " .. path .. " " .. args)
        assert.are_not.equal(0, status, out)
        has(out, message)
      end
    end
    local out, status = run(luamt .. " examples/fashion_mnist.lua --optim rmsprop")
    assert.are_not.equal(0, status, out)
    has(out, "Error: argument for option '--optim' must be one of 'adam', 'sgd'")
    out, status = run(luamt .. " examples/ddp_fashion_mnist.lua --overlap 2")
    assert.are_not.equal(0, status, out)
    has(out, "Error: argument for option '--overlap' must be one of '1', '0'")
  end)

  it("fashion_mnist.lua writes plain progress lines (no carriage returns) and an SVG chart when logged to a file",
    function()
      if not io.open("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz") then
        pending("dataset-fashion-mnist is not installed")
        return
      end
      local dir = os.tmpname()
      os.remove(dir)
      local out, status = run(luamt .. " examples/fashion_mnist.lua --epochs 1 --batch-size 256 --out " .. dir)
      assert.are.equal(0, status, out)
      assert.is_nil(out:find("\r", 1, true), "a carriage return in a log")
      assert.is_nil(out:find("\27", 1, true), "an escape sequence in a log")
      has(out, "epoch 1: 100% 235/235 [")
      assert.is_not_nil(out:match("test accuracy: 0%.8%d%d%d"), out)
      local svg = assert(io.open(dir .. "/fashion_mnist_loss.svg")):read("a")
      has(svg, "<svg")
      has(svg, "training loss (moving average)")
      os.execute("rm -rf '" .. dir .. "'")
    end)
end)
