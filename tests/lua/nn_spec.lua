-- nn.Module's registration and traversal, layers under gradcheck, optimizers' state, data
-- loading and the Fashion-MNIST reader. Values against PyTorch are in tests/contract/nn_spec.lua.
local torch = require "mindtorch"
local nn, F, optim, data = torch.nn, torch.nn.functional, torch.optim, torch.utils.data
local D = torch.float64

describe("nn.Module", function()
  local Net = nn.Module:extend("Net")
  function Net:__init()
    nn.Module.__init(self)
    self.fc1 = nn.Linear(3, 4)
    self.act = nn.ReLU()
    self.fc2 = nn.Linear(4, 2)
    self:register_buffer("running", torch.zeros(2))
    self:register_buffer("scratch", torch.ones(1), false)
    self.scale = 2
  end
  function Net:forward(x) return self.fc2(self.act(self.fc1(x))) * self.scale + self.running end

  it("registers parameters, buffers and submodules by assignment, in order", function()
    local net = Net()
    local names = {}
    for n in net:named_parameters() do names[#names + 1] = n end
    assert.are.same({ "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias" }, names)
    assert.are.equal(4, #net:parameters())
    local bufs = {}
    for n in net:named_buffers() do bufs[#bufs + 1] = n end
    assert.are.same({ "running", "scratch" }, bufs)
    local mods = {}
    for n in net:named_modules() do mods[#mods + 1] = n end
    assert.are.same({ "", "fc1", "act", "fc2" }, mods)
    assert.are.equal(2, net.scale)
    local sd = net:state_dict()
    assert.truthy(sd.running)
    assert.is_nil(sd.scratch) -- not persistent
  end)

  it("runs forward through __call with hooks that can change inputs and outputs", function()
    local net = Net()
    local x = torch.randn(5, 3)
    local plain = net(x)
    local h1 = net:register_forward_pre_hook(function(_, args) return { args[1] * 0 } end)
    local h2 = net:register_forward_hook(function(_, _, out) return out + 1 end)
    local hooked = net(x)
    h1:remove()
    h2:remove()
    assert.is_true(torch.allclose(net(x), plain))
    assert.is_true(torch.allclose(hooked, net(torch.zeros(5, 3)) + 1))
  end)

  it("switches train/eval recursively, zeroes grads, converts dtypes, applies functions", function()
    local net = Net()
    net:eval()
    assert.is_false(net.fc1.training)
    net:train()
    assert.is_true(net.fc2.training)
    net(torch.randn(2, 3)):sum():backward()
    assert.truthy(net.fc1.weight.grad)
    net:zero_grad() -- PyTorch 1.13's default: zeroed in place
    assert.are.equal(0, net.fc1.weight.grad:abs():sum():item())
    net:zero_grad { set_to_none = true }
    assert.is_nil(net.fc1.weight.grad)
    net:double()
    assert.are.equal(D, net.fc1.weight.dtype)
    assert.is_true(net.fc1.weight.requires_grad)
    assert.is_true(nn.is_parameter(net.fc1.weight))
    local count = 0
    net:apply(function() count = count + 1 end)
    assert.are.equal(4, count)
  end)

  it("loads a state dict it saved and refuses assignments of the wrong kind", function()
    local a, b = Net(), Net()
    b:load_state_dict(a:state_dict())
    assert.is_true(torch.equal(a.fc1.weight, b.fc1.weight))
    assert.has_error(function() a.fc1 = 3 end, "cannot assign 'number' as child module 'fc1' (torch.nn.Module or None expected)")
    assert.has_error(function() nn.Module.forward(a) end, 'Module [Net] is missing the required "forward" function')
    local r = a:load_state_dict({ ["fc1.weight"] = a.fc1.weight }, false)
    assert.are.equal(4, #r.missing_keys)
  end)

  it("indexes Sequential from 1 and prints Parameters as PyTorch does", function()
    local seq = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    assert.are.equal("Tanh", getmetatable(seq[2]).__name)
    assert.are.equal(2, #seq)
    assert.are.equal("Parameter containing:", tostring(seq[1].bias):match("^[^\n]*"))
  end)
end)

describe("layers under gradcheck", function()
  local function check(m, x)
    m:double()
    assert.is_true(torch.autograd.gradcheck(function(input) return m(input) end, { x }))
  end
  it("Linear, activations and losses pass gradcheck for inputs and parameters", function()
    local x = torch.randn(3, 4, { dtype = D, requires_grad = true })
    for _, m in ipairs({ nn.Linear(4, 2), nn.GELU(), nn.SiLU(), nn.Mish(), nn.ELU(), nn.Softplus(), nn.LeakyReLU(),
      nn.Tanh(), nn.Sigmoid(), nn.Softmax(2), nn.LogSoftmax(2), nn.LayerNorm(4), nn.GroupNorm(2, 4),
      nn.BatchNorm1d(4) }) do
      check(m, x)
    end
    local lin = nn.Linear(4, 2):double()
    assert.is_true(torch.autograd.gradcheck(function(w, b) return F.linear(x:detach(), w, b) end,
      { lin.weight, lin.bias }))
    local ln = nn.LayerNorm(4):double()
    assert.is_true(torch.autograd.gradcheck(function(w, b) return torch.nn.functional.layer_norm(x:detach(), { 4 }, w, b) end,
      { ln.weight, ln.bias }))
    local emb = nn.Embedding(5, 3):double()
    assert.is_true(torch.autograd.gradcheck(function(w) return torch.nn.functional.embedding(torch.tensor({ 2, 5, 2 }), w) end,
      { emb.weight }))
    assert.are.same({ { 1, 0, 0 }, { 0, 0, 1 } }, F.one_hot(torch.tensor({ 1, 3 })):tolist()) -- 1-based classes
    local t = torch.tensor({ 1, 4, 2 })
    assert.is_true(torch.autograd.gradcheck(function(z) return F.cross_entropy(z, t, { label_smoothing = 0.1 }) end, { x }))
    local y = torch.rand(3, 4, { dtype = D })
    assert.is_true(torch.autograd.gradcheck(function(z) return F.binary_cross_entropy_with_logits(z, y) end, { x }))
    assert.is_true(torch.autograd.gradcheck(function(z) return F.huber_loss(z, y, { delta = 0.5 }) end, { x }))
  end)

  -- the module's own forward, with its parameters swapped for gradcheck's perturbed copies
  local function check_all(m, ...)
    m:double()
    local owners, params = {}, {}
    for _, mod in m:named_modules() do
      for _, name in ipairs(mod._parameters.order) do
        local p = mod._parameters.items[name]
        if p then
          owners[#owners + 1] = { mod, name }
          params[#params + 1] = p
        end
      end
    end
    local xs = table.pack(...)
    local inputs = { table.unpack(xs, 1, xs.n) }
    for _, p in ipairs(params) do inputs[#inputs + 1] = p end
    local ok = torch.autograd.gradcheck(function(...)
      local args = table.pack(...)
      for i, o in ipairs(owners) do o[1]._parameters.items[o[2]] = args[xs.n + i] end
      local out = m(table.unpack(args, 1, xs.n))
      for i, o in ipairs(owners) do o[1]._parameters.items[o[2]] = params[i] end
      return out
    end, inputs)
    assert.is_true(ok, tostring(m))
  end
  local function r(...) return torch.randn(table.pack(...), { dtype = D, requires_grad = true }) end

  it("convolution, pooling and Bilinear layers pass gradcheck for inputs and parameters", function()
    torch.manual_seed(11)
    check_all(nn.Conv2d(2, 4, 3, { stride = 2, padding = 1, groups = 2 }), r(2, 2, 5, 6))
    check_all(nn.Conv2d(2, 3, { 2, 3 }, { padding = "same", dilation = { 2, 1 }, padding_mode = "reflect" }), r(1, 2, 5, 5))
    check_all(nn.Conv2d(2, 2, 3, { padding = 1, padding_mode = "circular", bias = false }), r(1, 2, 4, 4))
    check_all(nn.Conv1d(3, 2, 3, { stride = 2, dilation = 2, padding = 2, padding_mode = "replicate" }), r(2, 3, 8))
    check_all(nn.ConvTranspose2d(4, 2, 3, { stride = 2, padding = 1, output_padding = 1, groups = 2 }), r(2, 4, 3, 3))
    check_all(nn.ConvTranspose1d(2, 3, 2, { stride = 3, dilation = 2 }), r(2, 2, 4))
    check_all(nn.MaxPool2d(3, { stride = 2, padding = 1, ceil_mode = true }), r(2, 2, 6, 5))
    check_all(nn.MaxPool1d(2, { dilation = 2 }), r(2, 2, 7))
    check_all(nn.AvgPool2d(3, { stride = 2, padding = 1, count_include_pad = false }), r(2, 2, 6, 5))
    check_all(nn.AvgPool1d(3, 2, 1), r(2, 2, 7))
    check_all(nn.AdaptiveAvgPool2d({ 3, 2 }), r(2, 2, 5, 7))
    check_all(nn.AdaptiveAvgPool1d(3), r(2, 2, 7))
    check_all(nn.Bilinear(3, 2, 4), r(5, 3), r(5, 2))
    check_all(nn.Sequential(nn.Conv2d(1, 2, 3, { padding = 1 }), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
      nn.Linear(8, 3)), r(2, 1, 4, 4))
  end)

  it("gives the same convolution when the batch is split into column chunks", function()
    -- 9 x 300 x 300 columns per sample pass the kernel's column budget: samples go in chunks of
    -- two; each sample alone takes the single-sample path
    torch.manual_seed(3)
    local x, w = torch.randn(3, 1, 300, 300), torch.randn(2, 1, 3, 3)
    local go = torch.randn(3, 2, 300, 300)
    local xg = x:clone():requires_grad_()
    local wg = w:clone():requires_grad_()
    local out = torch.conv2d(xg, wg, nil, 1, 1)
    ;(out * go):sum():backward()
    local wsum = torch.zeros(2, 1, 3, 3)
    for n = 1, 3 do
      local xn = x:narrow(1, n, 1):clone():requires_grad_()
      local wn = w:clone():requires_grad_()
      local on = torch.conv2d(xn, wn, nil, 1, 1)
      ;(on * go:narrow(1, n, 1)):sum():backward()
      assert.is_true(torch.allclose(out:narrow(1, n, 1), on, 1e-5, 1e-5))
      assert.is_true(torch.allclose(xg.grad:narrow(1, n, 1), xn.grad, 1e-5, 1e-5))
      wsum = wsum + wn.grad -- the weight gradient sums over samples
    end
    assert.is_true(torch.allclose(wg.grad, wsum, 1e-4, 1e-3))
  end)

  it("rejects bad convolution arguments with PyTorch's words", function()
    assert.has_error(function() nn.Conv2d(3, 4, 3, { padding_mode = "mirror" }) end,
      "padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got padding_mode='mirror'")
    assert.has_error(function() nn.ConvTranspose2d(3, 4, 3, { padding_mode = "reflect" }) end,
      'Only "zeros" padding mode is supported for ConvTranspose2d')
    local m = nn.ConvTranspose2d(2, 2, 3, { stride = 2 })
    assert.has_error(function() m(torch.randn(1, 2, 4, 4), { 20, 20 }) end,
      "requested an output size of (20, 20), but valid sizes range from 9 to 10 (for an input of (4, 4))")
    assert.are.equal(10, m(torch.randn(1, 2, 4, 4), { 10, 10 }).shape[4])
  end)
end)

describe("batch normalization's backward", function()
  -- the CPU's fused kernel (cpu_batch_norm.c) serves a plain backward; the formula made of ops
  -- (src/autograd/deriv_nn.c) serves create_graph and devices without the kernel: both agree
  for _, dt in ipairs({ torch.float32, D }) do
    for _, mode in ipairs({ "training", "eval", "no affine" }) do
      it(("gives the same gradients fused and as ops, %s, %s"):format(mode, tostring(dt)), function()
        torch.manual_seed(7)
        local x = torch.randn(5, 3, 4, 3, { dtype = dt }):requires_grad_()
        local w, b = (torch.rand(3, { dtype = dt }) + 0.5):requires_grad_(), torch.randn(3, { dtype = dt }):requires_grad_()
        local rm, rv = torch.randn(3, { dtype = dt }), torch.rand(3, { dtype = dt }) + 0.5
        local g = torch.randn(5, 3, 4, 3, { dtype = dt })
        local affine = mode ~= "no affine"
        local y = torch.batch_norm(x, affine and w or nil, affine and b or nil, mode == "eval" and rm or nil,
          mode == "eval" and rv or nil, mode ~= "eval", 0.1, 1e-5, false)
        local inputs = affine and { x, w, b } or { x }
        local fused = torch.autograd.grad({ y }, inputs, { grad_outputs = { g }, retain_graph = true })
        local ops = torch.autograd.grad({ y }, inputs, { grad_outputs = { g }, create_graph = true })
        local tol = dt == D and 1e-10 or 1e-4
        for i = 1, #inputs do
          assert.is_true(torch.allclose(fused[i], ops[i]:detach(), { rtol = tol, atol = tol }), mode .. " input " .. i)
        end
      end)
    end
  end
end)

describe("batch normalization's arguments", function()
  it("counts the values per channel as PyTorch does, so no channels is an empty result", function()
    local y = F.batch_norm(torch.randn(4, 0), nil, nil, { training = true })
    assert.are.equal(4, y.shape[1])
    assert.are.equal(0, y.shape[2])
    assert.has_error(function() F.batch_norm(torch.randn(1, 3), nil, nil, { training = true }) end,
      "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])")
  end)
end)

describe("optim", function()
  it("keeps per-parameter state and restores it from a state dict", function()
    local w = torch.randn(3, { requires_grad = true })
    local opt = optim.Adam({ w }, { lr = 0.1 })
    ;(w * w):sum():backward()
    opt:step()
    local sd = opt:state_dict()
    assert.are.equal(1, sd.state[0].step:item())
    local opt2 = optim.Adam({ w }, { lr = 0.5 })
    opt2:load_state_dict(sd)
    assert.are.equal(0.1, opt2.param_groups[1].lr)
    assert.is_true(torch.equal(opt2.state[w].exp_avg, opt.state[w].exp_avg))
    assert.has_error(function() optim.SGD({}, { lr = 0.1 }) end, "optimizer got an empty parameter list")
    assert.has_error(function() optim.SGD({ w }, { lr = -1 }) end, "Invalid learning rate: -1")
  end)

  it("takes options positionally in PyTorch's order or in a trailing table", function()
    local w = torch.randn(3, { requires_grad = true })
    local sgd = optim.SGD({ w }, 0.1, 0.9, { nesterov = true })
    assert.are.same({ 0.1, 0.9, true }, { sgd.defaults.lr, sgd.defaults.momentum, sgd.defaults.nesterov })
    local adam = optim.Adam({ w }, 0.01, { 0.8, 0.99 }) -- betas is a list, not an options table
    assert.are.same({ 0.8, 0.99 }, adam.defaults.betas)
    assert.has_error(function() optim.SGD({ w }, { lr = 0.1, foo = 1 }) end,
      "__init__() got an unexpected keyword argument 'foo'")
    assert.has_error(function() optim.SGD({ w }, 0.1, { lr = 0.2 }) end,
      "__init__() got multiple values for argument 'lr'")
    local S = optim.lr_scheduler
    local step = S.StepLR(adam, 30, { gamma = 0.5 })
    assert.are.same({ 30, 0.5 }, { step.step_size, step.gamma })
    assert.are.same({ [2] = 1, [4] = 1 }, S.MultiStepLR(adam, { 2, 4 }, 0.5).milestones)
    assert.are.equal(0.25, S.CosineAnnealingLR(adam, 10, { eta_min = 0.25 }).eta_min)
    assert.are.equal(7, S.StepLR(adam, 30, 0.5, 6).last_epoch) -- last_epoch, positionally as PyTorch
    assert.has_error(function() S.StepLR(adam, 30, 0.5, -1, false, 7) end,
      "__init__() takes 4 positional arguments but 5 were given")
    -- ReduceLROnPlateau: positional mode, and a state dict as the other schedulers
    local plateau = S.ReduceLROnPlateau(adam, "max", { patience = 0 })
    plateau:step(1)
    plateau:step(0.5)
    local sd = plateau:state_dict()
    assert.are.same({ "max", 1, 0 }, { sd.mode, sd.best, sd.num_bad_epochs })
    local again = S.ReduceLROnPlateau(adam)
    again:load_state_dict(sd)
    assert.are.same({ "max", 1 }, { again.mode, again.best })
  end)
end)

describe("utils.data", function()
  it("collates samples of a plain dataset and drops the last partial batch", function()
    local Squares = data.Dataset:extend("Squares")
    function Squares:len() return 7 end
    function Squares:get(i) return torch.tensor({ i, i * i }), i end
    local batches = {}
    for x, y in data.DataLoader(Squares(), { batch_size = 3, drop_last = true })() do batches[#batches + 1] = { x, y } end
    assert.are.equal(2, #batches)
    assert.are.same({ 3, 2 }, { batches[2][1].shape[1], batches[2][1].shape[2] })
    assert.are.same({ 4, 5, 6 }, batches[2][2]:tolist())
  end)

  local have_data = io.open("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz") ~= nil
  local it_data = have_data and it or pending
  it_data("reads Fashion-MNIST's IDX files", function()
    local ds = data.datasets.FashionMNIST({ train = false })
    assert.are.equal(10000, #ds)
    local x, y = ds:get(1)
    assert.are.same({ 1, 28, 28 }, { x.shape[1], x.shape[2], x.shape[3] })
    assert.are.equal(10, y) -- the first test image is an ankle boot (class 9, 1-based 10)
    assert.is_true(x:max():item() <= 1 and x:min():item() >= 0)
  end)

  it("refuses missing and corrupt gzip files with clear errors", function()
    assert.has_error(function() torch._gunzip("/nonexistent/file.gz") end)
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write("\31\139\8\0\0\0\0\0\0\3garbage")
    f:close()
    local ok, err = pcall(torch._gunzip, path)
    os.remove(path)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("corrupt or truncated", 1, true))
    assert.has_error(function() torch.frombuffer("abc", { dtype = torch.int32 }) end,
      "buffer length (3 bytes) after offset (0 bytes) must be a multiple of element size (4)")
  end)
end)
