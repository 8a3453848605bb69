-- nn.utils and nn.utils.rnn: the Lua side of PackedSequence (a 4-field tuple), options by name,
-- hooks and parametrizations kept in step with the module, and a training step through packed
-- sequences. Values against PyTorch are in tests/contract/nn_utils_spec.lua.
local torch = require "mindtorch"
local nn = torch.nn
local R, parametrize, parametrizations = nn.utils.rnn, nn.utils.parametrize, nn.utils.parametrizations
local D = torch.float64

local function fails_with(fn, msg)
  local ok, err = pcall(fn)
  assert.is_false(ok)
  assert.are.equal(msg, (tostring(err):gsub("^[^:\n]*:%d+: ", "")))
end

local function state_keys(m)
  local out = {}
  for i, k in ipairs(m:_state_keys()) do out[i] = k[1] end
  return out
end

describe("PackedSequence", function()
  local x = torch.arange(12, { dtype = D }):reshape(4, 3)
  local p = R.pack_padded_sequence(x, { 2, 4, 1 }, { enforce_sorted = false })

  it("is a tuple of its four fields, indices 1-based", function()
    assert.are.equal(4, #p)
    local data, batch_sizes, sorted, unsorted = table.unpack(p)
    assert.are.equal(p.data, data)
    assert.are.same({ 3, 2, 1, 1 }, batch_sizes:tolist())
    assert.are.same({ 2, 1, 3 }, sorted:tolist())
    assert.are.same({ 2, 1, 3 }, unsorted:tolist())
    assert.are.same({ 1.0, 0.0, 4.0, 7.0 }, { data[1]:item(), data[2]:item(), data[4]:item(), data[6]:item() })
  end)

  it("converts its data with to(), double() and friends", function()
    assert.are.equal(p, p:to(D))
    local f = p:float()
    assert.are.equal(torch.float32, f.data.dtype)
    assert.are.equal(p.batch_sizes, f.batch_sizes)
    assert.are.same(p.sorted_indices:tolist(), f.sorted_indices:tolist())
    assert.are.equal(torch.int64, p:long().data.dtype)
    assert.are.equal(p, p:cpu())
    assert.is_false(p.is_cuda)
    assert.is_false(p:is_pinned())
  end)

  it("is built from (data, batch_sizes) or {data, batch_sizes}, unsorted indices derived", function()
    local q = R.PackedSequence({ p.data, p.batch_sizes }, nil, torch.tensor({ 3, 1, 2 }))
    assert.are.same({ 2, 3, 1 }, q.unsorted_indices:tolist())
    assert.is_nil(R.PackedSequence(p.data, p.batch_sizes).sorted_indices)
  end)

  it("round-trips through unpack_sequence and pack_sequence", function()
    local ss = { torch.ones(2, 3), torch.zeros(4, 3), torch.full({ 1, 3 }, 2.0) }
    local back = R.unpack_sequence(R.pack_sequence(ss, { enforce_sorted = false }))
    for i = 1, 3 do assert.is_true(torch.equal(ss[i], back[i])) end
    assert.are.equal(torch.tensor({ 3, 1, 2 }):tolist()[1], R.invert_permutation(torch.tensor({ 2, 3, 1 }))[1]:item())
  end)

  it("refuses unknown options by name", function()
    fails_with(function() R.pack_padded_sequence(x, { 2, 4, 1 }, { sorted = false }) end,
      "pack_padded_sequence() got an unexpected keyword argument 'sorted'")
    fails_with(function() R.pad_sequence({ x }, { batchfirst = true }) end,
      "pad_sequence() got an unexpected keyword argument 'batchfirst'")
  end)

  it("unpad_sequence leaves its input as it was", function()
    local padded = R.pad_sequence({ torch.ones(2), torch.ones(3) })
    R.unpad_sequence(padded, { 2, 3 })
    assert.are.same({ 3, 2 }, { padded:size(1), padded:size(2) })
  end)
end)

describe("RNNs over packed sequences", function()
  it("match the padded run for each sequence's own steps, and train", function()
    torch.manual_seed(0)
    local m = nn.LSTM(3, 4, { bidirectional = true }):double()
    local x = torch.randn(5, 3, 3, { dtype = D })
    local out, hc = m(R.pack_padded_sequence(x, { 5, 2, 4 }, { enforce_sorted = false }))
    local padded = R.pad_packed_sequence(out)
    -- the sequence of length 5 sees no padding: its outputs are the unpacked run's
    local full = m(x:narrow(2, 1, 1))
    assert.is_true(torch.allclose(padded:narrow(2, 1, 1), full, { atol = 1e-12 }))
    -- a short sequence's h_n (forward direction) is its output at its last step
    assert.is_true(torch.allclose(hc[1][1][2], padded[2][2]:narrow(1, 1, 4), { atol = 1e-12 }))
    local opt = torch.optim.SGD(m:parameters(), { lr = 0.1 })
    local loss = padded:pow(2):sum() + hc[2]:sum()
    loss:backward()
    opt:step()
    for _, p in ipairs(m:parameters()) do assert.is_not_nil(p.grad) end
  end)

  it("refuse a non-tensor input with PyTorch's words", function()
    fails_with(function() nn.GRU(2, 3)("x") end, "forward(): argument 'input' (position 1) must be Tensor, not str")
  end)
end)

describe("weight_norm and spectral_norm", function()
  it("recompute the weight before each forward", function()
    local m = nn.utils.weight_norm(nn.Linear(3, 2):double())
    local x = torch.ones(1, 3, { dtype = D })
    local y1 = m(x)
    torch.no_grad(function() m.weight_g:mul_(2) end)
    local y2 = m(x)
    assert.is_true(torch.allclose(y2 - m.bias, (y1 - m.bias) * 2))
    assert.are.same({ "bias", "weight_g", "weight_v" }, state_keys(m))
  end)

  it("spectral_norm does not iterate in eval mode", function()
    torch.manual_seed(1)
    local m = nn.utils.spectral_norm(nn.Linear(3, 2):double()):eval()
    local u = m.weight_u:clone()
    m(torch.ones(1, 3, { dtype = D }))
    assert.is_true(torch.equal(u, m.weight_u))
    m:train()
    m(torch.ones(1, 3, { dtype = D }))
    assert.is_false(torch.equal(u, m.weight_u))
  end)
end)

describe("parametrize", function()
  local Double = nn.Module:subclass("Double")
  function Double:forward(x) return x * 2 end
  function Double:right_inverse(x) return x / 2 end

  it("computes the tensor on each read, and caches it inside cached()", function()
    local m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Double())
    assert.are.equal("ParametrizedLinear", getmetatable(m).__name)
    assert.is_false(rawequal(m.weight, m.weight))
    do
      local _ <close> = parametrize.cached()
      assert.is_true(rawequal(m.weight, m.weight))
    end
    assert.is_false(rawequal(m.weight, m.weight))
    assert.are.equal(nn.Linear, parametrize.type_before_parametrizations(m))
    assert.is_true(torch.allclose(m.weight, m.parametrizations.weight.original * 2))
  end)

  it("parametrizes a buffer, and unregisters back to the module's class", function()
    local m = nn.BatchNorm1d(2)
    parametrize.register_parametrization(m, "running_var", Double())
    -- right_inverse gave the original: 0.5, doubled back to the 1 it was
    assert.is_true(torch.equal(m.parametrizations.running_var.original, torch.full({ 2 }, 0.5)))
    assert.is_true(torch.equal(m.running_var, torch.ones(2)))
    m.running_var = torch.full({ 2 }, 3.0)
    assert.is_true(torch.equal(m.parametrizations.running_var.original, torch.full({ 2 }, 1.5)))
    parametrize.remove_parametrizations(m, "running_var")
    assert.are.equal("BatchNorm1d", getmetatable(m).__name)
    assert.is_true(torch.equal(m.running_var, torch.full({ 2 }, 3.0)))
    -- registered again, so last (as PyTorch)
    assert.are.same({ "weight", "bias", "running_mean", "num_batches_tracked", "running_var" }, state_keys(m))
  end)

  it("keeps the original the same object (Tensor.set_ under no_grad), so an optimizer keeps it", function()
    local m = nn.Linear(2, 2)
    local w = m.weight
    ;(m(torch.ones(1, 2))):sum():backward() -- autograd has seen the parameter
    parametrize.register_parametrization(m, "weight", Double())
    assert.are.equal(w, m.parametrizations.weight.original)
    m.weight = torch.full({ 2, 2 }, 4.0)
    assert.is_true(torch.equal(w, torch.full({ 2, 2 }, 2.0)))
    parametrize.remove_parametrizations(m, "weight")
    assert.are.equal(w, m.weight)
    assert.is_true(torch.equal(w, torch.full({ 2, 2 }, 4.0)))
    fails_with(function() w:set_(torch.ones(3)) end,
      "a leaf Variable that requires grad is being used in an in-place operation.")
    torch.no_grad(function() w:set_(torch.ones(3)) end)
    assert.are.same({ 3 }, { table.unpack(w.shape) })
  end)

  it("transfers parametrizations and the originals to another module", function()
    local a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    parametrize.register_parametrization(a, "weight", Double())
    parametrize.transfer_parametrizations_and_params(a, b)
    assert.is_true(parametrize.is_parametrized(b, "weight"))
    assert.is_true(torch.equal(a.weight, b.weight))
  end)

  it("orthogonal keeps the weight orthogonal through training", function()
    torch.manual_seed(3)
    local m = parametrizations.orthogonal(nn.Linear(4, 4):double())
    local opt = torch.optim.SGD(m:parameters(), { lr = 0.5 })
    for _ = 1, 3 do
      opt:zero_grad()
      m(torch.randn(3, 4, { dtype = D })):pow(2):sum():backward()
      opt:step()
    end
    local w = m.weight
    assert.is_true(torch.allclose(w:matmul(w:t()), torch.eye(4, { dtype = D }), { atol = 1e-10 }))
  end)

  it("refuses unknown options by name", function()
    fails_with(function()
      parametrize.register_parametrization(nn.Linear(2, 2), "weight", Double(), { safe = true })
    end,
      "register_parametrization() got an unexpected keyword argument 'safe'")
  end)
end)

describe("what is not a module or a sequence", function()
  it("gets Python's words, never a Lua error from inside", function()
    local U = nn.utils
    fails_with(function() U.weight_norm(5) end, "'int' object has no attribute '_forward_pre_hooks'")
    fails_with(function() U.remove_spectral_norm("x") end, "'str' object has no attribute '_forward_pre_hooks'")
    fails_with(function() parametrize.register_parametrization(5, "weight", nn.Identity()) end,
      "'int' object has no attribute 'training'")
    assert.is_false(parametrize.is_parametrized(5))
    fails_with(function() parametrizations.orthogonal(5) end,
      "Module '5' has no parameter or buffer with name 'weight'")
    fails_with(function() U.fuse_conv_bn_eval(5, nn.BatchNorm2d(2)) end, "'int' object has no attribute 'training'")
    fails_with(function() R.unpack_sequence(5) end, "'int' object has no attribute 'batch_sizes'")
    fails_with(function() nn.LSTM(3, 2)(R.pack_sequence({ torch.ones(2, 3) }), torch.zeros(1, 1, 2)) end,
      "lstm(): argument 'hx' (position 2) must be tuple of Tensors, not Tensor")
  end)
end)

describe("nn.utils", function()
  it("convert_conv2d_weight_memory_format lays out the convolutions' weights, in place", function()
    local m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Linear(3, 4), nn.ConvTranspose2d(2, 5, 2))
    local w, v = m[1].weight, m[3].weight
    local before = w:clone()
    assert.are.equal(m, nn.utils.convert_conv2d_weight_memory_format(m, torch.channels_last))
    assert.are.equal(w, m[1].weight) -- the same parameter
    assert.are.same({ 9, 1, 3, 1 }, w:stride()) -- PyTorch 1.13's strides for (2, 1, 3, 3)
    assert.are.same({ 20, 1, 10, 5 }, v:stride()) -- and for (2, 5, 2, 2)
    assert.is_true(torch.equal(before, w))
    assert.are.same({ 3, 1 }, m[2].weight:stride())
    nn.utils.convert_conv2d_weight_memory_format(m, torch.contiguous_format)
    assert.are.same({ 9, 9, 3, 1 }, w:stride())
    assert.is_true(torch.equal(before, w))
  end)

  it("skip_init refuses what is not a Module class, and modules without a device argument", function()
    fails_with(function() nn.utils.skip_init(nn.ReLU) end, "Module must support a 'device' arg to skip initialization")
    fails_with(function() nn.utils.skip_init(5) end, "Expected a Module; got 5")
  end)
end)
