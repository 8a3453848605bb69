-- Hostile input from Lua never hangs, grows memory without bound or surfaces an internal
-- Lua error: sizes and counts, keys and lists are checked where they enter.
local torch = require "mindtorch"
local nn = torch.nn

-- a table whose length is whatever the caller says (a hostile __len)
local function claims(n, ...)
  return setmetatable({ ... }, { __len = function() return n end })
end

local function fails_with(f, text)
  local ok, err = pcall(f)
  assert.is_false(ok)
  assert.is_truthy(tostring(err):find(text, 1, true), tostring(err))
end

describe("module constructors", function()
  it("refuse layer counts that could never be allocated, before looping", function()
    fails_with(function() nn.RNN(2, 1, math.mininteger) end, "num_layers must be a positive integer, got")
    fails_with(function() nn.RNN(2, 1, 0) end, "num_layers must be a positive integer, got 0")
    fails_with(function() nn.GRU(2, 1, 1 << 62) end, "needs more memory than can ever be allocated")
    fails_with(function() nn.LSTM(2, 1, 1.5) end, "'float' object cannot be interpreted as an integer")
    fails_with(function() nn.RNN(2) end, "__init__() missing 1 required positional argument: 'hidden_size'")
    fails_with(function() nn.LSTM(2, 3, { proj_size = -1 }) end,
      "proj_size should be a positive integer or zero to disable projections")
    local layer = nn.TransformerEncoderLayer(4, 2, { dim_feedforward = 8 })
    fails_with(function() nn.TransformerEncoder(layer, math.huge) end, "'float' object cannot be interpreted as an integer")
    fails_with(function() nn.TransformerEncoder(layer, 1 << 40) end, "needs more memory than can ever be allocated")
    assert.are.equal(2, #nn.TransformerEncoder(layer, 2).layers)
    assert.are.equal(3, nn.RNN(2, 1, 3).num_layers)
  end)

  it("name missing required arguments as Python does", function()
    fails_with(function() nn.ConvTranspose1d(1, 1) end,
      "ConvTranspose1d.__init__() missing 1 required positional argument: 'kernel_size'")
    fails_with(function() nn.Conv2d(1) end,
      "Conv2d.__init__() missing 2 required positional arguments: 'out_channels' and 'kernel_size'")
    fails_with(function() nn.MultiheadAttention(4, 0) end, "integer division or modulo by zero")
  end)

  it("check a transposed convolution's output_size length before walking it", function()
    local m = nn.ConvTranspose2d(1, 1, 3)
    local x = torch.zeros(1, 1, 4, 4)
    fails_with(function() m(x, claims(1 << 40)) end,
      "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements (got 1099511627776)")
    fails_with(function() m(x, { 1, 2, 3, 4, 5 }) end,
      "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements (got 5)")
    assert.are.same({ 1, 1, 10, 10 }, { table.unpack(nn.ConvTranspose2d(1, 1, 3, 2)(x, { 1, 1, 10, 10 }).shape) })
  end)
end)

describe("indexing keys", function()
  it("are bounded by the tensor's dims whatever their __len says", function()
    local x = torch.zeros(2, 3)
    fails_with(function() return x[claims(1 << 40)] end, "too many indices for tensor of dimension 2")
    fails_with(function() return x[claims(-1)] end, "__len__() should return >= 0")
    local dots = setmetatable({}, { __len = function() return 1 << 40 end, __index = function() return "..." end })
    fails_with(function() return x[dots] end, "too many indices for tensor of dimension 2")
  end)
end)

describe("tensor lists", function()
  it("are read by their real length, never a __len's", function()
    local x = torch.ones(2)
    fails_with(function() torch.stack(claims(-1)) end, "stack expects a non-empty TensorList")
    fails_with(function() torch.stack(claims(1 << 40)) end, "stack expects a non-empty TensorList")
    assert.are.same({ 2, 2 }, { table.unpack(torch.cat(claims(-1, x:view(1, 2), x:view(1, 2))).shape) })
    assert.are.same({}, torch.tensor(claims(1 << 40)):tolist())
  end)
end)

describe("printing", function()
  after_each(function() torch.set_printoptions { profile = "default" } end)

  it("converts only the elements it shows", function()
    -- 2^32 elements would need 16 GiB (and far more as a Lua list) if converted
    local s = tostring(torch.ones(1):expand(1 << 32))
    assert.are.equal("tensor([1., 1., 1.,  ..., 1., 1., 1.])", s)
    local before = collectgarbage("count")
    tostring(torch.ones(1, 1):expand(3, 1 << 32))
    assert.is_true(collectgarbage("count") - before < 1024)
  end)

  it("prints at any precision PyTorch accepts, digit for digit", function()
    torch.set_printoptions { precision = 100 }
    assert.are.equal("tensor([1.5000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e+00,\n"
      .. "        1.0000000149011611938476562500000000000000000000000000000000000000000000000000000000000000000000000000e-01,\n"
      .. "        9.9999996826552253889678874634872052240552875446155667304992675781250000000000000000000000000000000000e-21])",
      tostring(torch.tensor({ 1.5, 0.1, 1e-20 })))
    torch.set_printoptions { precision = 101 }
    assert.are.equal("tensor([-0." .. string.rep("0", 101) .. ",\n        0.5" .. string.rep("0", 100) .. "],\n       dtype=torch.float64)",
      tostring(torch.tensor({ -0.0, 0.5 }, { dtype = torch.float64 })))
  end)

  it("refuses options it could never print with, when they are set", function()
    fails_with(function() torch.set_printoptions { precision = -1 } end, "precision must be a non-negative integer")
    fails_with(function() torch.set_printoptions { edgeitems = 1.5 } end, "edgeitems must be a non-negative integer")
    fails_with(function() torch.set_printoptions { threshold = "x" } end, "threshold must be a number")
    fails_with(function() torch.set_printoptions("x") end, "precision must be a non-negative integer, got x")
    fails_with(function() torch.set_printoptions { foo = 1 } end, "set_printoptions() got an unexpected keyword argument 'foo'")
    torch.set_printoptions(2) -- PyTorch's positional precision
    assert.are.equal("tensor([1.23])", tostring(torch.tensor({ 1.2345 })))
    torch.set_printoptions { profile = "default" }
    assert.are.equal("tensor([1., 2.])", tostring(torch.tensor({ 1.0, 2.0 })))
    torch.set_printoptions { edgeitems = math.maxinteger, threshold = 1 } -- 2 * edgeitems would overflow
    assert.are.equal("tensor([1., 2.])", tostring(torch.tensor({ 1.0, 2.0 })))
  end)
end)

describe("a module that contains itself", function()
  it("is walked once, as PyTorch's named_modules memo does, by every traversal", function()
    local m = nn.Sequential(nn.Linear(1, 1))
    m[1].b = m
    local keys = {}
    for k in pairs(m:state_dict()) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.are.same({ "0.bias", "0.weight" }, keys)
    local names = {}
    for n in m:named_modules() do names[#names + 1] = n end
    assert.are.same({ "", "0" }, names)
    assert.are.equal(2, #m:parameters())
    local visited = 0
    m:apply(function() visited = visited + 1 end)
    assert.are.equal(2, visited)
    m:to(torch.float64):train(false):zero_grad()
    assert.are.equal(torch.float64, m[1].weight.dtype)
    assert.is_truthy(tostring(m):find("(b): Sequential(...)", 1, true))
    assert.are.same({}, m:load_state_dict(m:state_dict()).missing_keys)
  end)

  it("still lists a module shared by two parents under both names", function()
    local shared = nn.Linear(1, 1)
    local keys = {}
    for k in pairs(nn.Sequential(shared, shared):state_dict()) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.are.same({ "0.bias", "0.weight", "1.bias", "1.weight" }, keys)
  end)
end)

describe("optimizers", function()
  it("refuse bad params and options with PyTorch's errors", function()
    local p = torch.zeros(2, { requires_grad = true })
    for _, name in ipairs { "SGD", "Adam", "AdamW", "RMSprop", "Adagrad" } do
      local O = torch.optim[name]
      fails_with(function() O(nil, { lr = 0.1 }) end, "'NoneType' object is not iterable")
      fails_with(function() O(3, { lr = 0.1 }) end, "'int' object is not iterable")
      fails_with(function() O({ "a" }, { lr = 0.1 }) end, "optimizer can only optimize Tensors, but one of the params is str")
      fails_with(function() O({ p }, { lr = -1 }) end, "Invalid learning rate: -1")
      fails_with(function() O({ p }, { lr = "x" }) end, "'<' not supported between instances of 'str' and 'float'")
      fails_with(function() O({ { params = 3 } }, { lr = 0.1 }) end, "'int' object is not iterable")
      local o = O({ p }, { lr = 0.1 })
      fails_with(function() o:add_param_group(3) end, "param group must be a dict")
      fails_with(function() o:load_state_dict(3) end, "'int' object is not subscriptable")
      fails_with(function() o:load_state_dict({}) end, "'param_groups'")
    end
    fails_with(function() torch.optim.Adam({ p }, { betas = -1 }) end, "'int' object is not subscriptable")
    fails_with(function() torch.optim.Adam({ p }, { betas = { 0.9 } }) end, "tuple index out of range")
    fails_with(function() torch.optim.AdamW({ p }, { betas = { 0.9, "a" } }) end,
      "'<=' not supported between instances of 'float' and 'str'")
    fails_with(function() torch.optim.Adam({ p }, { betas = { 2, 3 } }) end, "Invalid beta parameter at index 0: 2")
  end)
end)

describe("userdata reached from a finalizer after their own __gc", function()
  it("give a clear error, never a use after free", function()
    local results = {}
    do
      -- the holder's finalizer runs after theirs (Lua finalizes in reverse order of marking),
      -- with them resurrected for it
      local holder = setmetatable({}, { __gc = function(h)
        results.storage = { pcall(function() return h.s:size() end) }
        results.generator = { pcall(function() return h.g:initial_seed() end) }
        results.node = { pcall(function() return h.n:name() end) }
        results.tensor = { pcall(function() return h.t:sum() end) }
      end })
      holder.s = torch.UntypedStorage(8)
      holder.g = torch.Generator()
      holder.n = (torch.ones(2, { requires_grad = true }) * 2).grad_fn
      holder.t = torch.ones(3)
    end
    collectgarbage()
    collectgarbage()
    assert.are.same({ false, "this storage has been freed (its __gc ran) and can no longer be used" }, results.storage)
    assert.are.same({ false, "this Generator has been freed (its __gc ran) and can no longer be used" }, results.generator)
    assert.are.same({ false, "this graph Node has been freed (its __gc ran) and can no longer be used" }, results.node)
    assert.are.same({ false, "this tensor has been freed (its __gc ran) and can no longer be used" }, results.tensor)
  end)
end)

describe("autograd hooks", function()
  local function backward_with(hook, on_tensor)
    local x = torch.ones(2, { requires_grad = true })
    local y = x:exp()
    if on_tensor then x:register_hook(hook) else y.grad_fn:register_hook(hook) end
    y:sum():backward()
    return x.grad
  end

  it("may not change a leaf gradient's type or size", function()
    fails_with(function() backward_with(function(g) return g:long() end, true) end,
      "hook 'hook' has changed the type of value (was torch.FloatTensor got torch.LongTensor)")
    fails_with(function() backward_with(function() return torch.ones(3) end, true) end,
      "hook 'hook' has changed the size of value")
    fails_with(function() backward_with(function() return torch.empty(2, { device = "meta" }) end, true) end,
      "hook 'hook' has changed the type of value (was torch.FloatTensor got torch.meta.FloatTensor)")
    fails_with(function() backward_with(function() return "a" end, true) end, "expected Variable, but hook returned 'str'")
    assert.are.equal(torch.float32, backward_with(function(g) return g * 3 end, true).dtype)
  end)

  it("on a node must return as many gradients as the node has, of the same kind", function()
    fails_with(function() backward_with(function(gi) return { gi[1], gi[1] } end) end,
      "hook 'hook' has returned an incorrect number of values (got 2, but expected 1)")
    fails_with(function() backward_with(function(gi) return { gi[1]:double() } end) end,
      "hook 'hook' has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)")
    fails_with(function() backward_with(function() return { torch.ones(3) } end) end,
      "hook 'hook' has changed the size of value")
    fails_with(function() backward_with(function(gi) return gi[1] end) end, "expected tuple, but hook returned 'Tensor'")
    fails_with(function() backward_with(function() return { "a" } end) end, "expected Variable, but hook returned 'str'")
    assert.is_nil(backward_with(function() return { nil, n = 1 } end))
    local g = backward_with(function(gi) return { gi[1] * 2 } end)
    assert.is_true(torch.allclose(g, torch.full({ 2 }, 2 * math.exp(1))))
  end)
end)

describe("custom autograd Functions", function()
  local Inplace = torch.autograd.Function:extend("Inplace")
  function Inplace.forward(ctx, x)
    x:mul_(2)
    ctx:mark_dirty(x)
    return x
  end
  function Inplace.backward(_, g) return g * 2 end

  it("mark a view of their input dirty as PyTorch does (its base gets CopySlices)", function()
    local a = torch.ones(4, { requires_grad = true })
    local b = a * 1
    local y = Inplace.apply(b:view(2, 2))
    y:sum():backward()
    assert.are.same({ 2, 2, 2, 2 }, a.grad:tolist())
    a = torch.ones(4, { requires_grad = true })
    b = a * 1
    Inplace.apply(b[{ { 1, 2 } }]):sum():backward()
    assert.are.same({ 2, 2, 0, 0 }, a.grad:tolist())
    assert.are.same({ 2, 2, 1, 1 }, b:tolist())
    assert.are.equal("CopySlices", b.grad_fn:name())
    fails_with(function() Inplace.apply(torch.ones(2, { requires_grad = true })) end,
      "a leaf Variable that requires grad is being used in an in-place operation.")
  end)

  it("refuse gradients on another device or of an incompatible shape", function()
    local Meta = torch.autograd.Function:extend("Meta")
    function Meta.forward(_, x) return x * 2 end
    function Meta.backward() return torch.empty(2, { device = "meta" }) end
    local a = torch.ones(2, { requires_grad = true })
    fails_with(function() Meta.apply(a):sum():backward() end,
      "Function MetaBackward returned an invalid gradient at index 1 - expected device cpu but got meta")
    local Bad = torch.autograd.Function:extend("Bad")
    function Bad.forward(_, x) return x * 2 end
    function Bad.backward() return torch.ones(3) end
    fails_with(function() Bad.apply(a):sum():backward() end,
      "Function BadBackward returned an invalid gradient at index 1 - got [3] but expected shape compatible with [2]")
  end)

  it("leave meta gradients unread by anomaly detection", function()
    local g = torch.autograd.detect_anomaly(function()
      local a = torch.empty(2, { device = "meta", requires_grad = true })
      ;(a * 2):sum():backward()
      return a.grad
    end)
    assert.are.equal("meta", g.device.type)
  end)
end)

describe("nn modules given arguments of the wrong kind", function()
  -- every built-in module, constructed or called with odd values: a clean error, never
  -- "attempt to index a nil value" from inside the library
  local function internal(err)
    err = tostring(err)
    return err:find("attempt to", 1, true) or err:find("bad argument", 1, true) or err:find("%.c:%d")
  end

  it("constructors", function()
    local bad = {}
    for name, cls in pairs(nn) do
      if type(cls) == "table" and name:match("^%u") and getmetatable(cls) and name ~= "Module" then
        for pos = 1, 3 do
          for _, v in ipairs { "nil", -1, 1.5, "x", {}, true } do
            local a = { 4, 4, 2 }
            a[pos] = v ~= "nil" and v or nil
            local ok, err = pcall(cls, table.unpack(a, 1, 3))
            if not ok and internal(err) then bad[#bad + 1] = name .. ": " .. tostring(err) end
          end
        end
      end
    end
    assert.are.same({}, bad)
    assert.are.equal(0.2, nn.BatchNorm1d(4, 1e-3, 0.2).momentum) -- PyTorch's positional order
    fails_with(function() nn.ModuleList(3) end, "ModuleList.extend should be called with an iterable, but got int")
    fails_with(function() nn.Dropout("x") end, "'<' not supported between instances of 'str' and 'int'")
    fails_with(function() nn.RNNCell(4) end, "missing 1 required positional argument: 'hidden_size'")
  end)

  it("forward calls", function()
    local x2, x3 = torch.zeros(2, 4), torch.zeros(3, 2, 4)
    local mods = {
      nn.Linear(4, 4), nn.Conv1d(1, 1, 3), nn.RNN(4, 4), nn.LSTM(4, 4), nn.GRU(4, 4), nn.RNNCell(4, 4), nn.LSTMCell(4, 4),
      nn.GRUCell(4, 4), nn.Embedding(5, 4), nn.LayerNorm(4), nn.GroupNorm(2, 4), nn.BatchNorm1d(4),
      nn.MultiheadAttention(4, 2), nn.TransformerEncoderLayer(4, 2), nn.Flatten(), nn.MSELoss(), nn.CrossEntropyLoss(),
      nn.BCELoss(), nn.Bilinear(4, 4, 2), nn.ReLU(), nn.GELU(), nn.Softmax(2), nn.MaxPool1d(2),
    }
    local bad = {}
    for _, m in ipairs(mods) do
      for _, a in ipairs { {}, { 1 }, { "x" }, { {} }, { true }, { x2, "x" }, { x2, 3 }, { x2, {} }, { x3, torch.zeros(1) } } do
        local ok, err = pcall(function() return m(table.unpack(a, 1, 2)) end)
        if not ok and internal(err) then bad[#bad + 1] = getmetatable(m).__name .. ": " .. tostring(err) end
      end
    end
    assert.are.same({}, bad)
    fails_with(function() nn.Linear(4, 4)("x") end, "forward(): argument 'input' (position 1) must be Tensor, not str")
    fails_with(function() nn.Linear(4, 4)() end, "forward() missing 1 required positional argument: 'input'")
    fails_with(function() nn.GRU(4, 4)(x3, "x") end, "gru(): argument 'hx' (position 2) must be Tensor, not str")
    fails_with(function() nn.LSTM(4, 4)(x3, 3) end, "lstm(): argument 'hx' (position 2) must be tuple of Tensors, not int")
    fails_with(function() nn.MSELoss()(x2, 3) end, "forward(): argument 'target' (position 2) must be Tensor, not int")
  end)
end)

describe("size lists given to nn constructors", function()
  it("are bounded before they are walked and copied", function()
    fails_with(function() nn.LayerNorm(claims(1 << 40, 4)) end, "normalized_shape: too many entries")
    fails_with(function() nn.Unflatten(2, claims(1 << 40, 2, 2)) end, "unflattened_size: too many entries")
    fails_with(function() nn.Unflatten(2, 4) end, "unflattened_size must be a tuple of ints, but found type int")
    assert.are.equal("Unflatten(dim=2, unflattened_size=(2, 2))", tostring(nn.Unflatten(2, { 2, 2 })))
  end)
end)

describe("learning-rate schedulers given odd arguments", function()
  it("raise clean errors, never internal ones", function()
    local S = torch.optim.lr_scheduler
    local bad = {}
    for name, cls in pairs(S) do
      for pos = 1, 3 do
        for _, v in ipairs { "nil", -1, 0, 1.5, "x", {}, true, { 1, 2 }, function() return 1 end } do
          local o = torch.optim.SGD({ torch.ones(1, { requires_grad = true }) }, { lr = 0.1 })
          local a = { o, 2, 0.5 }
          a[pos] = v ~= "nil" and v or nil
          local ok, err = pcall(function()
            local s = cls(table.unpack(a, 1, 3))
            s:step()
            s:step()
          end)
          err = tostring(err)
          if not ok and (err:find("attempt to", 1, true) or err:find("bad argument", 1, true)) then
            bad[#bad + 1] = name .. ": " .. err
          end
        end
      end
    end
    assert.are.same({}, bad)
    fails_with(function() S.StepLR(3, 1) end, "int is not an Optimizer")
    local o = torch.optim.SGD({ torch.ones(1, { requires_grad = true }) }, { lr = 0.1 })
    fails_with(function() S.OneCycleLR(o, { max_lr = 1, total_steps = 1.5 }) end,
      "Expected positive integer total_steps, but got 1.5")
    fails_with(function() S.LambdaLR(o, { 1, 2 }) end, "Expected 1 lr_lambdas, but got 2")
  end)
end)

describe("nn.functional given arguments of the wrong kind", function()
  it("raises PyTorch's TypeErrors, never internal ones", function()
    local F = nn.functional
    local x = torch.zeros(2, 4)
    local bad = {}
    for name, fn in pairs(F) do
      if type(fn) == "function" and not name:match("^_") then
        for _, a in ipairs { {}, { 1 }, { "x" }, { {} }, { true }, { x, "x" }, { x, 3 }, { x, {} }, { x, x, "x" },
          { x, x, {} }, { x, { foo = 1 } }, { torch.zeros(1, 1, 4, 4), 2, "x" } } do
          local ok, err = pcall(fn, table.unpack(a, 1, 3))
          err = tostring(err)
          if not ok and (err:find("attempt to", 1, true) or err:find("bad argument", 1, true) or err:find("%.c:%d")) then
            bad[#bad + 1] = name .. ": " .. err
          end
        end
      end
    end
    assert.are.same({}, bad)
    fails_with(function() F.relu("x") end, "relu(): argument 'input' (position 1) must be Tensor, not str")
    fails_with(function() F.mse_loss(x, 3) end, "mse_loss(): argument 'target' (position 2) must be Tensor, not int")
    fails_with(function() F.pad(x, 3) end, "pad(): argument 'pad' (position 2) must be tuple of ints, not int")
    fails_with(function() F.dropout(x, "x") end, "'<' not supported between instances of 'str' and 'float'")
  end)
end)

-- found by make api-fuzz-asan (seeds 1 and 8 after this session's new ops moved the sequence)
describe("sizes from the API fuzzer", function()
  it("give tril_indices/triu_indices of no columns at once, however many rows", function()
    local huge = math.maxinteger
    assert.are.equal(0, torch.tril_indices(huge, 0).shape[2])
    assert.are.equal(0, torch.triu_indices(huge, 0, -huge).shape[2])
    assert.are.equal(0, torch.tril_indices(0, huge, 5).shape[2])
  end)

  it("refuse a 0-d B in linalg.solve_ex before reading its sizes", function()
    fails_with(function() torch.linalg.solve_ex(torch.randn(3, 3), torch.tensor(1.5), { left = false }) end,
      "linalg.solve: The input tensor B must have at least 2 dimensions.")
  end)
end)

-- found by the API fuzzer (seed 157 on the asan build): a NaN count made binomial's samplers loop
-- forever (PyTorch 1.13's hang too); a NaN count samples NaN now, and no count or probability,
-- however extreme, keeps a sampler from returning
describe("samplers on values that are not finite", function()
  it("return for every count and probability binomial takes, and poisson for every rate", function()
    local counts = { 0 / 0, math.huge, -math.huge, 1e30, 2 ^ 53, 0, 3 }
    local probs = { 0 / 0, math.huge, -math.huge, 0, 1, 1e-30, 1e-7, 0.5, 0.999999 }
    for _, dt in ipairs { torch.float32, torch.float64 } do
      local c, p = torch.tensor(counts, { dtype = dt }):view(-1, 1), torch.tensor(probs, { dtype = dt })
      local s = torch.binomial(c:expand(#counts, #probs):contiguous(), p:expand(#counts, #probs):contiguous())
      assert.are.same({ #counts, #probs }, { s.shape[1], s.shape[2] })
      -- a NaN count samples 0 where prob <= 0 (as PyTorch), NaN otherwise; no sample is negative
      for j = 1, #probs do
        local want_zero = probs[j] <= 0
        assert.is_true(want_zero and s[{ 1, j }]:item() == 0 or s[{ 1, j }]:isnan():item(), dt.name .. " NaN count")
      end
      assert.is_true(s:isfinite():logical_not():logical_or(s:ge(0)):all():item())
      local r = torch.poisson(torch.tensor({ math.huge, 1e30, 2 ^ 53, 0, 3 }, { dtype = dt }))
      assert.are.equal(5, r.shape[1])
    end
  end)
end)
