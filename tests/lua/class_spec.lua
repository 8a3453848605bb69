-- class_spec.lua: the one class helper (mindtorch._class) every class in lua/mindtorch is
-- made with: names, construction, inheritance of methods and metamethods, isinstance, the
-- registry; and subclasses of the library's own classes (Sequential, ModuleList, optimizers,
-- schedulers, datasets, the DataLoader, autograd.Function) that behave as their parents.
local torch = require "mindtorch"
local class = require "mindtorch._class"
local nn, optim, data = torch.nn, torch.optim, torch.utils.data

local function fails_with(fn, text)
  local ok, err = pcall(fn)
  assert.is_false(ok)
  assert.is_truthy(tostring(err):find(text, 1, true), tostring(err))
end

describe("class(name, parent)", function()
  it("prints its full name and registers under it", function()
    local A = torch.class("spec.A")
    assert.are.equal("<class 'spec.A'>", tostring(A))
    assert.are.equal("A", A.__name)
    assert.are.equal(A, class.class_of("spec.A"))
    assert.are.equal("<class 'nn.Linear'>", tostring(nn.Linear))
    assert.are.equal(nn.Linear, class.class_of("nn.Linear"))
    assert.are.equal(optim.SGD, class.class_of("optim.SGD"))
    assert.are.equal(data.Dataset, class.class_of("utils.data.Dataset"))
    assert.is_nil(class.class_of("no.such.Class"))
  end)

  it("constructs with Cls(...) and Cls:new(...), running __init", function()
    local P = torch.class("spec.Point")
    function P:__init(x, y) self.x, self.y = x, y end
    function P:norm2() return self.x * self.x + self.y * self.y end
    assert.are.equal(25, P(3, 4):norm2())
    assert.are.equal(5, P:new(1, 2):norm2())
    fails_with(function() P(1, 2):new() end, "new() must be called on a class")
  end)

  it("inherits methods and metamethods, also ones the parent sets after the subclass exists", function()
    local Base = torch.class("spec.Base")
    function Base:__init(n) self.n = n end
    function Base:__len() return self.n end
    function Base:__tostring() return "Base(" .. self.n .. ")" end
    function Base.__eq(a, b) return a.n == b.n end
    function Base:twice() return 2 * self.n end
    local Child = Base:subclass("spec.Child")
    local Grand = class.class("spec.Grand", Child)
    function Base.__concat(a, b) return tostring(a) .. "|" .. tostring(b) end -- after the subclasses
    function Child:__tostring() return "Child(" .. self.n .. ")" end
    local g = Grand(3)
    assert.are.equal(3, #g)
    assert.are.equal(6, g:twice())
    assert.are.equal("Child(3)", tostring(g))
    assert.are.equal("Base(1)", tostring(Base(1)))
    assert.is_true(Grand(3) == Child(3))
    assert.are.equal("Child(3)|Child(1)", g .. Child(1))
    Child.__tostring = nil -- back to Base's, for Child and Grand
    assert.are.equal("Base(3)", tostring(g))
    assert.are.equal(Base, Child.super)
    assert.are.equal(Child, class.parent(Grand))
  end)

  it("answers isinstance and typename along the parent chain", function()
    local A = torch.class("spec.IA")
    local B = A:subclass("spec.IB")
    local b = B()
    assert.is_true(torch.isinstance(b, A))
    assert.is_true(torch.isinstance(b, B))
    assert.is_true(B:isinstance(b))
    assert.is_false(torch.isinstance(A(), B))
    assert.is_false(torch.isinstance({}, A))
    assert.is_false(torch.isinstance(3, A))
    assert.are.equal("spec.IB", torch.typename(b))
    assert.are.equal("nn.Linear", torch.typename(nn.Linear(2, 3)))
    assert.are.equal("torch.FloatTensor", torch.typename(torch.ones(2)))
    assert.is_nil(torch.typename(3))
    assert.is_true(torch.isinstance(nn.Linear(2, 3), nn.Module))
    assert.is_true(torch.isinstance(optim.Adam({ torch.ones(1, { requires_grad = true }) }), optim.Optimizer))
    fails_with(function() torch.isinstance(b, {}) end, "isinstance() arg 2 must be a class, not table")
  end)

  it("runs the parent's __init_subclass for each new subclass", function()
    local A = torch.class("spec.Hooked")
    local seen = {}
    function A.__init_subclass(cls) seen[#seen + 1] = tostring(cls) end
    local B = A:subclass("spec.HookedB")
    B:subclass("spec.HookedC")
    assert.are.same({ "<class 'spec.HookedB'>", "<class 'spec.HookedC'>" }, seen)
  end)

  it("refuses a class without a name, a parent that is no class, subclass on an instance", function()
    fails_with(function() torch.class() end, "class name must be a non-empty string, not nil")
    fails_with(function() torch.class("") end, "class name must be a non-empty string")
    fails_with(function() torch.class("X", {}) end, "class X: the parent must be a class, got table")
    fails_with(function() nn.Linear(2, 2):subclass("X") end, "subclass() must be called on a class")
  end)
end)

describe("subclasses of nn modules", function()
  it("subclass Sequential with its indexing, length, call, repr and state", function()
    local Scaled = nn.Sequential:subclass("Scaled")
    function Scaled:__init(scale, ...)
      nn.Sequential.__init(self, ...)
      self.scale = scale
    end
    function Scaled:forward(x) return nn.Sequential.forward(self, x) * self.scale end
    torch.manual_seed(0)
    local m = Scaled(2, nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    assert.are.equal(3, #m)
    assert.are.equal("nn.ReLU", torch.typename(m[2]))
    assert.are.equal(m[3], m[-1])
    local x = torch.randn(5, 3)
    local want = m[3](m[2](m[1](x))) * 2
    assert.is_true(torch.allclose(m(x), want))
    assert.is_true(tostring(m):find("^Scaled%(\n  %(0%): Linear") ~= nil, tostring(m))
    local keys = {}
    for k in pairs(m:state_dict()) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.are.same({ "0.bias", "0.weight", "2.bias", "2.weight" }, keys)
    assert.is_nil(m[4]) -- the end of the list, as ipairs reads it
    fails_with(function() return m[5] end, "index 5 is out of range")
    assert.is_true(torch.isinstance(m, nn.Sequential))
  end)

  it("subclass ModuleList (its __pairs too); ModuleList:extend(list) is PyTorch's", function()
    local Stack = nn.ModuleList:subclass("Stack")
    local s = Stack({ nn.Linear(2, 2) })
    s:extend({ nn.ReLU(), nn.Tanh() })
    assert.are.equal(3, #s)
    local names = {}
    for i, mod in pairs(s) do names[i] = mod.__name end
    assert.are.same({ "Linear", "ReLU", "Tanh" }, names)
    assert.are.equal(s, s:extend({}))
    fails_with(function() s:extend(nn.ReLU()) end, "ModuleList.extend should be called with an iterable, but got ReLU")
    fails_with(function() nn.ModuleList(3) end, "ModuleList.extend should be called with an iterable, but got int")
    -- the older spellings still work: extend on the class subclasses, extend_with appends
    local Old = nn.ModuleList:extend("OldList")
    assert.are.equal("<class 'OldList'>", tostring(Old))
    assert.are.equal(2, #Old():extend_with({ nn.ReLU(), nn.ReLU() }))
  end)

  it("subclass a layer, keeping its parameters and reset", function()
    local Positive = nn.Linear:subclass("Positive")
    function Positive:forward(x) return nn.Linear.forward(self, x):relu() end
    local m = Positive(3, 2)
    assert.are.equal(2, #m:parameters())
    assert.is_true(m(torch.randn(4, 3)):ge(0):all():item())
    assert.are.equal("Positive(in_features=3, out_features=2, bias=True)", tostring(m))
  end)

  it("refuses a subclass whose __init does not call Module.__init", function()
    local Bad = nn.Module:subclass("Bad")
    function Bad:__init() end
    fails_with(function() Bad() end, "Bad.__init must call nn.Module.__init(self)")
  end)
end)

describe("subclasses of optimizers and schedulers", function()
  local function problem()
    torch.manual_seed(1)
    local w = torch.randn(3, { requires_grad = true })
    local function loss() return (w * w):sum() end
    return w, loss
  end

  it("subclass SGD: PyTorch's signature, its step and repr", function()
    local Counting = optim.SGD:subclass("Counting")
    function Counting:step(closure)
      self.steps = (self.steps or 0) + 1
      return optim.SGD.step(self, closure)
    end
    local w, loss = problem()
    local w2 = w:detach():clone():requires_grad_()
    local a, b = Counting({ w }, 0.1, 0.9), optim.SGD({ w2 }, { lr = 0.1, momentum = 0.9 })
    for _ = 1, 3 do
      a:zero_grad(); loss():backward(); a:step()
      b:zero_grad(); (w2 * w2):sum():backward(); b:step()
    end
    assert.are.equal(3, a.steps)
    assert.is_true(torch.equal(w, w2))
    assert.is_true(tostring(a):find("^Counting %(\nParameter Group 0\n") ~= nil)
    fails_with(function() Counting({ w }, { lr = 0.1, nope = 1 }) end,
      "__init__() got an unexpected keyword argument 'nope'")
  end)

  it("subclass Optimizer itself, as PyTorch's own optimizers do", function()
    local SignSGD = optim.Optimizer:subclass("SignSGD")
    function SignSGD:__init(params, lr) optim.Optimizer.__init(self, params, { lr = lr or 0.01 }) end
    function SignSGD:_update(g)
      for _, p in ipairs(g.params) do
        if p.grad ~= nil then p:add_(p.grad:sign(), { alpha = -g.lr }) end
      end
    end
    local w, loss = problem()
    local before = w:detach():clone()
    local opt = SignSGD({ w }, 0.5)
    loss():backward()
    opt:step()
    assert.is_true(torch.allclose(w:detach(), before - before:sign() * 0.5))
    assert.are.equal(0.5, opt.param_groups[1].lr)
    fails_with(function() SignSGD({}, 0.5) end, "optimizer got an empty parameter list")
  end)

  it("subclass StepLR and LRScheduler", function()
    local w = problem()
    local Halving = optim.lr_scheduler.StepLR:subclass("Halving")
    local opt = optim.SGD({ w }, { lr = 1.0 })
    local s = Halving(opt, 2, 0.5)
    local lrs = {}
    for _ = 1, 4 do opt:step(); s:step(); lrs[#lrs + 1] = s:get_last_lr()[1] end
    assert.are.same({ 1.0, 0.5, 0.5, 0.25 }, lrs)

    local Linear = optim.lr_scheduler.LRScheduler:subclass("LinearDown")
    function Linear:__init(optimizer, steps)
      self.steps = steps
      optim.lr_scheduler.LRScheduler.__init(self, optimizer)
    end
    function Linear:get_lr()
      local out = {}
      for i, base in ipairs(self.base_lrs) do out[i] = base * (1 - self.last_epoch / self.steps) end
      return out
    end
    opt = optim.SGD({ w }, { lr = 1.0 })
    s = Linear(opt, 4)
    s:step()
    s:step()
    assert.are.equal(0.5, opt.param_groups[1].lr)
    assert.is_true(torch.isinstance(s, optim.lr_scheduler.LRScheduler))
    fails_with(function() optim.lr_scheduler.LRScheduler(optim.SGD({ w }, { lr = 1.0 })) end,
      "NotImplementedError: LRScheduler.get_lr() is not implemented")
  end)
end)

describe("subclasses of datasets and the DataLoader", function()
  it("subclass Dataset: len, #, get, a DataLoader over it", function()
    local Squares = data.Dataset:subclass("Squares")
    function Squares:__init(n) self.n = n end
    function Squares:len() return self.n end
    function Squares:get(i) return torch.tensor(i * i) end
    local ds = Squares(5)
    assert.are.equal(5, #ds)
    assert.are.equal(9, ds:get(3):item())
    local got = {}
    for xb in data.DataLoader(ds, { batch_size = 2 })() do got[#got + 1] = xb:tolist() end
    assert.are.same({ { 1, 4 }, { 9, 16 }, { 25 } }, got)
    fails_with(function() data.Dataset():len() end, "Dataset:len() is not implemented for Dataset")
  end)

  it("subclass TensorDataset and DataLoader", function()
    local Shifted = data.TensorDataset:subclass("Shifted")
    function Shifted:get(i) return data.TensorDataset.get(self, i) + 100 end
    function Shifted.get_batch() return nil end -- per sample, through get
    local ds = Shifted(torch.arange(4))
    assert.are.equal(4, #ds)
    assert.are.equal(102, ds:get(3):item())
    local Loader = data.DataLoader:subclass("EveryOther")
    function Loader:len() return data.DataLoader.len(self) // 2 end
    local dl = Loader(ds, { batch_size = 1 })
    assert.are.equal(2, #dl)
    local got = {}
    for xb in dl() do got[#got + 1] = xb:tolist()[1] end
    assert.are.same({ 100, 101 }, got)
  end)
end)

describe("subclasses of autograd.Function", function()
  it("each subclass applies its own forward and backward", function()
    local Double = torch.autograd.Function:subclass("Double")
    function Double.forward(_, x) return x * 2 end
    function Double.backward(_, g) return g * 2 end
    local Quad = Double:subclass("Quad")
    function Quad.forward(ctx, x) return Double.forward(ctx, x) * 2 end
    function Quad.backward(ctx, g) return Double.backward(ctx, g) * 2 end
    local x = torch.ones(2, { requires_grad = true })
    local y = Quad.apply(x)
    assert.are.equal("QuadBackward", y.grad_fn:name())
    y:sum():backward()
    assert.are.same({ 4.0, 4.0 }, x.grad:tolist())
    assert.are.same({ 2.0, 2.0 }, Double.apply(torch.ones(2)):tolist())
  end)
end)

describe("options tables (mindtorch._args)", function()
  it("refuse names the function does not take, with PyTorch's words", function()
    local ds = data.TensorDataset(torch.arange(4))
    fails_with(function() data.DataLoader(ds, { batch_size = 2, shufle = true }) end,
      "DataLoader() got an unexpected keyword argument 'shufle'")
    fails_with(function() nn.MSELoss({ reduce = "sum" }) end, "__init__() got an unexpected keyword argument 'reduce'")
    fails_with(function() nn.ReLU({ in_place = true }) end, "__init__() got an unexpected keyword argument 'in_place'")
    fails_with(function() nn.Conv2d(1, 1, 3, { strides = 2 }) end, "__init__() got an unexpected keyword argument 'strides'")
    fails_with(function() nn.functional.max_pool2d(torch.ones(1, 4, 4), 2, { ceil = true }) end,
      "max_pool2d() got an unexpected keyword argument 'ceil'")
    local x = torch.ones(2, { requires_grad = true })
    fails_with(function() (x * 2):sum():backward({ retain = true }) end,
      "backward() got an unexpected keyword argument 'retain'")
    fails_with(function() torch.autograd.grad({ (x * 2):sum() }, { x }, { allow_unusd = true }) end,
      "grad() got an unexpected keyword argument 'allow_unusd'")
    fails_with(function() data.random_split(ds, { 2, 2 }, { seed = 1 }) end,
      "random_split() got an unexpected keyword argument 'seed'")
    local F = nn.functional
    fails_with(function() F.mse_loss(torch.ones(2), torch.ones(2), { reduce = "sum" }) end,
      "mse_loss() got an unexpected keyword argument 'reduce'")
    fails_with(function() F.dropout(torch.ones(2), { prob = 0.1 }) end, "dropout() got an unexpected keyword argument 'prob'")
    fails_with(function() nn.init.kaiming_uniform_(torch.empty(2, 2), { gian = 1 }) end,
      "kaiming_uniform_() got an unexpected keyword argument 'gian'")
    fails_with(function() nn.init.xavier_normal_(torch.empty(2, 2), { gain = 1, seed = 3 }) end,
      "xavier_normal_() got an unexpected keyword argument 'seed'")
    fails_with(function() nn.Linear(2, 2, { biass = false }) end, "__init__() got an unexpected keyword argument 'biass'")
    fails_with(function() nn.Dropout({ p = 0.1, in_place = true }) end,
      "__init__() got an unexpected keyword argument 'in_place'")
    fails_with(function() nn.utils.clip_grad_norm_({ x }, 1.0, { norm = 2 }) end,
      "clip_grad_norm_() got an unexpected keyword argument 'norm'")
    fails_with(function() torch.autograd.functional.jacobian(function(a) return a * 2 end, x, { vectorise = true }) end,
      "jacobian() got an unexpected keyword argument 'vectorise'")
  end)

  it("check the types the function declares", function()
    local ds = data.TensorDataset(torch.arange(4))
    fails_with(function() data.DataLoader(ds, { shuffle = "yes" }) end,
      "DataLoader(): argument 'shuffle' must be bool, not str")
    fails_with(function() data.DataLoader(ds, { collate_fn = 3 }) end,
      "DataLoader(): argument 'collate_fn' must be callable, not int")
    fails_with(function() data.DataLoader(ds, 4) end, "DataLoader() takes its options in a table")
    fails_with(function() torch.autograd.gradcheck(function(a) return a end, { x = 1 }, { eps = "small" }) end,
      "gradcheck(): argument 'eps' must be float, not str")
    -- what they take still works, positionally and by name
    local got = {}
    for xb in data.DataLoader(ds, { batch_size = 3, drop_last = true, collate_fn = function(s) return #s end })() do
      got[#got + 1] = xb
    end
    assert.are.same({ 3 }, got)
    assert.are.equal("ReLU(inplace=True)", tostring(nn.ReLU({ inplace = true })))
    assert.are.equal("sum", nn.MSELoss({ reduction = "sum" }).reduction)
    assert.is_false(nn.Linear(2, 3, false).bias)
    assert.is_false(nn.Linear(2, 3, { bias = false }).bias)
    assert.are.equal(torch.float64, nn.Linear(2, 3, true, nil, torch.float64).weight.dtype)
    assert.are.equal(torch.float64, nn.Bilinear(2, 2, 3, { dtype = torch.float64 }).weight.dtype)
    assert.are.equal("Dropout(p=0.2, inplace=False)", tostring(nn.Dropout({ p = 0.2 })))
    assert.are.equal("Dropout(p=0.3, inplace=True)", tostring(nn.Dropout(0.3, true)))
    local g = torch.Generator():manual_seed(4)
    local a = nn.init.xavier_uniform_(torch.empty(3, 3), { gain = 2, generator = g })
    local b = nn.init.xavier_uniform_(torch.empty(3, 3), 2, { generator = torch.Generator():manual_seed(4) })
    assert.is_true(torch.equal(a, b))
  end)

  it("point their errors at the caller's line, constructors included", function()
    local function where(fn)
      local ok, err = pcall(fn)
      assert.is_false(ok)
      return tostring(err):match("^[^:]*class_spec%.lua:(%d+):")
    end
    local w = torch.ones(1, { requires_grad = true })
    local line = debug.getinfo(1, "l").currentline
    assert.are.equal(tostring(line + 1), where(function() nn.Linear(2, 2, { biass = 1 }) end))
    assert.are.equal(tostring(line + 2), where(function() optim.SGD({ w }, { nope = 1 }) end))
    assert.are.equal(tostring(line + 3), where(function() optim.lr_scheduler.StepLR(optim.SGD({ w }), { step = 1 }) end))
    assert.are.equal(tostring(line + 4), where(function() data.DataLoader({}, { x = 1 }) end))
    assert.are.equal(tostring(line + 5), where(function() nn.MaxPool2d(2, { y = 1 }) end))
    assert.are.equal(tostring(line + 6), where(function() nn.functional.mse_loss(w, w, { x = 1 }) end))
    assert.are.equal(tostring(line + 7), where(function() nn.LayerNorm(3, { x = 1 }) end))
  end)
end)
