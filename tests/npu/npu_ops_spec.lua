-- NPU operators against the CPU's, on the ACL stand-in (tests/ascend_standin: CANN's library
-- names and C signatures computing on host memory; NOT Ascend software). Each op runs on the
-- same inputs on both devices; the NPU result must have the CPU result's dtype and shape and
-- its values: exactly where both compute the same correctly rounded operations (arithmetic,
-- comparisons, copies, selections), within float32 rounding where the two sum or evaluate
-- transcendental functions in different orders (reductions, products, exp, softmax ...).
local torch = require "mindtorch"
local npu = torch.npu
-- the stand-in's test controls (fault injection, live allocations): a test-only Lua module
-- built with it (tests/ascend_standin/standin_lua.c), not part of the NPU module
local standin = assert(package.loadlib(os.getenv("ASCEND_HOME_PATH") .. "/lua/ascend_standin.so",
                                       "luaopen_ascend_standin"))()

local function collect()
  collectgarbage()
  collectgarbage()
end

-- the CPU result and the NPU result agree (tol: nil for exact, else rtol = atol = tol)
local function agree(cpu, dev, tol, what)
  what = what or ""
  assert.are.equal("npu", dev.device.type, what)
  local back = dev:cpu()
  assert.are.equal(cpu.dtype, back.dtype, what)
  assert.are.same(cpu.shape, back.shape, what)
  local ok
  if back.dtype == torch.bool or not back:is_floating_point() then
    ok = torch.equal(back, cpu)
  else
    local t = tol or 0
    ok = torch.allclose(back:double(), cpu:double(), t, t, true)
  end
  if not ok then
    error(("%s: NPU %s\ndiffers from CPU %s"):format(what, tostring(back), tostring(cpu)), 2)
  end
end

-- run f on CPU tensors and on NPU copies of them
local function both(f, ...)
  local args, dargs = { ... }, {}
  for i, a in ipairs(args) do
    dargs[i] = torch.is_tensor(a) and a:to("npu") or a
  end
  return f(table.unpack(args)), f(table.unpack(dargs))
end

local function check(f, tol, what, ...)
  local c, d = both(f, ...)
  agree(c, d, tol, what)
end

local F32 = 2e-6 -- float32 results computed in another order

-- float16 ops the CPU lacks (PyTorch 1.13 has no CPU kernels for them): the NPU's float16
-- result against the CPU's float32 result rounded to float16
local function check_half(f, tol, what, ...)
  local args, dargs = { ... }, {}
  for i, a in ipairs(args) do
    dargs[i] = a:npu()
    args[i] = a:float()
  end
  agree(f(table.unpack(args)):half(), f(table.unpack(dargs)), tol, what)
end

local function sample(shape, dtype)
  if dtype == torch.bool then return torch.rand(shape):gt(0.5) end
  if dtype.is_floating_point then return torch.randn(shape):mul(3):to(dtype) end
  return torch.randint(dtype == torch.uint8 and 0 or -9, 10, shape, { dtype = dtype })
end

describe("NPU element-wise operators", function()
  before_each(function() torch.manual_seed(7) end)

  local binary = {
    add = function(a, b) return a + b end,
    add_alpha = function(a, b) return torch.add(a, b, { alpha = 2 }) end,
    sub = function(a, b) return torch.sub(a, b, { alpha = 3 }) end,
    rsub = function(a, b) return torch.rsub(a, b) end,
    mul = function(a, b) return a * b end,
    div = function(a, b) return a / b end,
    eq = torch.eq, ne = torch.ne, lt = torch.lt, le = torch.le, gt = torch.gt, ge = torch.ge,
  }
  local pairs_of_dtypes = {
    { torch.float32, torch.float32 }, { torch.float64, torch.float64 }, { torch.float16, torch.float16 },
    { torch.bfloat16, torch.bfloat16 }, { torch.int64, torch.int64 }, { torch.int32, torch.int64 },
    { torch.int64, torch.float32 }, { torch.float32, torch.float64 }, { torch.uint8, torch.int8 },
  }

  it("compute binary ops over dtype pairs with PyTorch's promotion", function()
    for name, f in pairs(binary) do
      for _, p in ipairs(pairs_of_dtypes) do
        local a, b = sample({ 3, 4 }, p[1]), sample({ 3, 4 }, p[2])
        if name == "div" then b = b:masked_fill(b:eq(0), 1) end
        check(f, nil, ("%s %s %s"):format(name, p[1], p[2]), a, b)
      end
    end
  end)

  it("broadcast, take strided views, numbers and CPU scalars", function()
    local a, b = torch.randn(3, 1), torch.randn(1, 4)
    for name, f in pairs(binary) do
      check(f, nil, name .. " broadcast", a, b)
      check(function(x, y) return f(x:t(), y:t()) end, nil, name .. " transposed", torch.randn(4, 3), torch.randn(4, 3))
      check(function(x, y) return f(x:narrow(2, 2, 3), y[{ {}, { 1, -1, 2 } }]) end, nil, name .. " sliced",
        torch.randn(5, 6), torch.randn(5, 6))
      check(function(x) return f(x, 2.5) end, nil, name .. " number", torch.randn(2, 3))
      check(function(x) return f(x, 3) end, nil, name .. " integer number", torch.randint(-5, 5, { 2, 3 }))
      -- a 0-d CPU tensor joins an NPU op, as in PyTorch
      local c, d = f(a, torch.tensor(1.5)), f(a:npu(), torch.tensor(1.5))
      agree(c, d, nil, name .. " CPU scalar")
    end
    check(function(x) return torch.add(x, 1.5, { alpha = 2.5 }) end, F32, "add alpha 2.5", torch.randn(4))
  end)

  it("work in place, keeping the tensor and its dtype", function()
    for _, name in ipairs { "add_", "sub_", "mul_", "div_" } do
      for _, dt in ipairs { torch.float32, torch.float64, torch.float16 } do
        local a, b = sample({ 2, 5 }, dt), sample({ 5 }, torch.float32)
        if name == "div_" then b = b:masked_fill(b:eq(0), 1) end
        local na = a:npu()
        local r = na[name](na, b:npu())
        assert.are.equal(na, r)
        agree(a[name](a, b), na, nil, name .. " " .. tostring(dt))
        -- and with a number
        local c, d = a:clone(), na:clone()
        agree(c[name](c, 3), d[name](d, 3), nil, name .. " number")
      end
    end
    -- an in-place op on a strided view writes through to its base
    local x = torch.zeros(4, 4)
    local nx = x:npu()
    x:t():narrow(1, 2, 2):add_(torch.arange(4.0))
    nx:t():narrow(1, 2, 2):add_(torch.arange(4.0):npu())
    agree(x, nx, nil, "view add_")
    local ok, err = pcall(function() torch.ones(3, { dtype = torch.int64, device = "npu" }):add_(1.5) end)
    assert.is_false(ok)
    assert.truthy(err:find("result type Float can't be cast to the desired output type Long", 1, true), err)
  end)

  it("compute unary math", function()
    local x = torch.randn(4, 5):mul(2)
    local unary = { "neg", "exp", "log", "sqrt", "relu", "sigmoid", "tanh", "logical_not" }
    for _, name in ipairs(unary) do
      for _, dt in ipairs { torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64 } do
        local input = x:to(dt)
        if name == "log" or name == "sqrt" then input = input:abs():add(0.5):to(dt) end
        local tol = (dt == torch.float32 or dt == torch.int64) and F32 or dt == torch.float64 and 1e-12 or 1e-2
        local f = function(t) return t[name](t) end
        local f_ = function(t)
          local c = t:clone()
          return c[name .. "_"](c)
        end
        if pcall(f, input) then
          check(f, tol, name .. " " .. tostring(dt), input)
          if dt.is_floating_point then check(f_, tol, name .. "_ " .. tostring(dt), input) end
        else
          assert.are.equal(torch.float16, dt) -- the CPU lacks some float16 kernels
          check_half(f, tol, name .. " float16", input)
          check_half(f_, tol, name .. "_ float16", input)
        end
      end
    end
    -- NaN and infinities pass through as on the CPU
    check(function(t) return t:relu() end, nil, "relu NaN", torch.tensor({ 0 / 0, -1, 1 / 0, -1 / 0 }))
    check(function(t) return t:log() end, nil, "log of 0 and -1", torch.tensor({ 0.0, -1.0 }))
    check(function(t) return t:sigmoid() end, F32, "sigmoid of extremes", torch.tensor({ -100.0, 100.0, 0.0 }))
  end)

  it("compute addcmul, addcdiv and maximum", function()
    local s, t1, t2 = torch.randn(3, 4), torch.randn(3, 1), torch.randn(4):abs():add(0.5)
    for _, name in ipairs { "addcmul", "addcdiv" } do
      check(function(a, b, c) return torch[name](a, b, c, { value = 0.25 }) end, F32, name, s, t1, t2)
      check(function(a, b, c) return a:clone()[name .. "_"](a:clone(), b, c, { value = -2 }) end, F32, name .. "_", s, t1, t2)
    end
    check(torch.addcmul, nil, "addcmul int", torch.randint(-5, 5, { 3 }), torch.randint(-5, 5, { 3 }), torch.randint(-5, 5, { 3 }))
    check(torch.maximum, nil, "maximum", torch.tensor({ 1.0, 0 / 0, -2.0, 3.0 }), torch.tensor({ 2.0, 1.0, 0 / 0, -3.0 }))
    check(torch.maximum, nil, "maximum int broadcast", torch.randint(-5, 5, { 3, 1 }), torch.randint(-5, 5, { 4 }))
  end)

  it("select with where and masked_fill, and fill", function()
    local c, a, b = torch.rand(3, 4):gt(0.5), torch.randn(3, 4), torch.randn(4)
    check(torch.where, nil, "where", c, a, b)
    check(function(m, x) return x:masked_fill(m, -2.5) end, nil, "masked_fill", c, a)
    check(function(m, x) return x:masked_fill(m, 7) end, nil, "masked_fill int", c, torch.randint(0, 5, { 3, 4 }))
    check(function(x) return x:fill_(3.25) end, nil, "fill_", torch.empty(2, 3))
    check(function(x) return x:t():fill_(-1) end, nil, "fill_ strided", torch.zeros(3, 2, { dtype = torch.int16 }))
    agree(torch.full({ 2, 2 }, 1.5), torch.full({ 2, 2 }, 1.5, { device = "npu" }), nil, "full")
    agree(torch.ones(3, { dtype = torch.bool }), torch.ones(3, { dtype = torch.bool, device = "npu" }), nil, "ones bool")
    agree(torch.zeros(0), torch.zeros(0, { device = "npu" }), nil, "empty zeros")
  end)
end)

describe("NPU reductions, products and softmax", function()
  before_each(function() torch.manual_seed(11) end)

  it("sum and mean over everything and over dims", function()
    local x = torch.randn(3, 4, 5)
    check(torch.sum, F32, "sum", x)
    check(torch.mean, F32, "mean", x)
    for _, dims in ipairs { 1, 2, 3, -1, { 1, 3 }, { -1, -2 }, {} } do
      for _, keep in ipairs { false, true } do
        check(function(t) return t:sum(dims, keep) end, F32, "sum dims", x)
        check(function(t) return t:mean(dims, keep) end, F32, "mean dims", x)
      end
    end
    check(function(t) return t:transpose(1, 3):sum(2) end, F32, "sum of a view", x)
    check(torch.sum, nil, "int sum", torch.randint(-100, 100, { 6, 7 }))
    check(function(t) return t:sum(1) end, nil, "bool sum", torch.rand(5, 3):gt(0.5))
    check(function(t) return t:sum({ dtype = torch.float64 }) end, 1e-12, "sum to float64", x)
    check(function(t) return t:sum(2, false, { dtype = torch.int32 }) end, nil, "int sum dtype", torch.randint(0, 9, { 3, 3 }))
    check(torch.sum, nil, "empty sum", torch.zeros(0, 3))
    check(torch.mean, nil, "empty mean", torch.zeros(0))
    check(torch.sum, nil, "0-d sum", torch.tensor(2.5))
  end)

  it("multiply matrices: mm, bmm, matmul's cases and addmm", function()
    local a, b = torch.randn(5, 7), torch.randn(7, 3)
    check(torch.mm, F32, "mm", a, b)
    check(function(x, y) return torch.mm(x:t(), y:t()) end, F32, "mm transposed", torch.randn(7, 5), torch.randn(3, 7))
    check(torch.bmm, F32, "bmm", torch.randn(4, 2, 3), torch.randn(4, 3, 5))
    check(torch.matmul, F32, "matmul dot", torch.randn(6), torch.randn(6))
    check(torch.matmul, F32, "matmul mv", torch.randn(4, 6), torch.randn(6))
    check(torch.matmul, F32, "matmul vm", torch.randn(6), torch.randn(6, 4))
    check(torch.matmul, F32, "matmul broadcast batch", torch.randn(2, 1, 3, 4), torch.randn(5, 4, 2))
    check(function(c, x, y) return torch.addmm(c, x, y, { beta = 0.5, alpha = 2 }) end, F32, "addmm", torch.randn(3), a, b)
    check(function(c, x, y) return torch.addmm(c, x, y, { beta = 0 }) end, F32, "addmm beta 0 ignores NaN",
      torch.full({ 5, 3 }, 0 / 0), a, b)
    check(torch.mm, 1e-12, "mm float64", a:double(), b:double())
    check_half(torch.mm, 1e-2, "mm float16", a:half(), b:half())
    local ok, err = pcall(torch.mm, a:npu(), torch.randn(6, 3):npu())
    assert.is_false(ok)
    assert.truthy(err:find("mat1 and mat2 shapes cannot be multiplied (5x7 and 6x3)", 1, true), err)
  end)

  it("softmax and log_softmax along any dim", function()
    local x = torch.randn(3, 4, 5):mul(4)
    for _, d in ipairs { 1, 2, 3, -1 } do
      check(function(t) return t:softmax(d) end, F32, "softmax", x)
      check(function(t) return t:log_softmax(d) end, F32, "log_softmax", x)
    end
    check(function(t) return t:softmax(1, { dtype = torch.float64 }) end, 1e-12, "softmax dtype", x)
    check(function(t) return t:log_softmax(2) end, 1e-12, "log_softmax float64", x:double())
    check(function(t) return t:t():softmax(1) end, F32, "softmax of a view", torch.randn(4, 6))
  end)

  it("gather and scatter_add with 1-based indices", function()
    local x = torch.randn(4, 5)
    local idx = torch.tensor({ { 1, 5, 2 }, { 3, 3, 1 }, { 5, 4, 4 }, { 2, 1, 1 } })
    check(function(t, i) return t:gather(2, i) end, nil, "gather", x, idx)
    local src = torch.randn(4, 3)
    check(function(t, i, s) return t:scatter_add(2, i, s) end, F32, "scatter_add", torch.zeros(4, 5), idx, src)
    check(function(t, i, s) return t:clone():scatter_(2, i, s) end, nil, "scatter_", torch.zeros(4, 5),
      torch.tensor({ { 1, 2, 3 }, { 3, 4, 5 }, { 5, 1, 2 }, { 2, 3, 4 } }), src)
  end)

  it("nll_loss composed of ops (the module has no kernel) as the CPU's kernel computes it", function()
    local F = torch.nn.functional
    local lp, w = torch.randn(5, 4):log_softmax(2), torch.rand(4)
    local t = torch.tensor({ 2, 1, 4, 4, 3 })
    for _, target in ipairs { t, t:to(torch.uint8) } do
      local what = "nll_loss " .. target.dtype.name
      check(function(x, y) return F.nll_loss(x, y) end, F32, what, lp, target)
      check(function(x, y, v) return F.nll_loss(x, y, { weight = v, reduction = "none" }) end, F32, what, lp, target, w)
      check(function(x, y) return F.nll_loss(x, y, { ignore_index = 4, reduction = "sum" }) end, F32, what, lp, target)
      check(function(x, y) return F.cross_entropy(x, y) end, F32, "cross_entropy " .. target.dtype.name, lp, target)
    end
    -- the kernel's refusals of target dtypes, in its words (a target out of bounds fails on the
    -- device, later, as a gather's index does)
    for _, case in ipairs {
      { lp, t:int(), "expected scalar type Long but found Int" },
      { lp, t:double(), "expected scalar type Long but found Double" },
      { torch.randn(2, 4, 3), torch.ones(2, 3, { dtype = torch.uint8 }), "expected scalar type Long but found Byte" },
    } do
      local ok, e = pcall(F.nll_loss, case[1]:npu(), case[2]:npu())
      assert.is_false(ok)
      assert.truthy(tostring(e):find(case[3], 1, true), tostring(e))
      ok, e = pcall(F.nll_loss, case[1], case[2])
      assert.truthy(tostring(e):find(case[3], 1, true), tostring(e))
    end
  end)
end)

describe("NPU copies and casts", function()
  local dtypes = { torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
    torch.int16, torch.int8, torch.uint8, torch.bool }

  it("cast between every pair of dtypes on the device", function()
    torch.manual_seed(3)
    local x = torch.randn(4, 6):mul(50)
    for _, from in ipairs(dtypes) do
      for _, to in ipairs(dtypes) do
        local src = from == torch.uint8 and x:abs():to(from) or x:to(from)
        check(function(t) return t:to(to) end, nil, ("%s -> %s"):format(from, to), src)
        check(function(t) return t:t():to(to) end, nil, ("strided %s -> %s"):format(from, to), src)
      end
    end
  end)

  it("copy between layouts, devices and with broadcasting", function()
    local x = torch.arange(24.0):view(2, 3, 4)
    check(function(t) return t:permute(3, 1, 2):contiguous() end, nil, "permute contiguous", x)
    check(function(t) return t[{ {}, { 1, -1, 2 }, { 2, 3 } }]:clone() end, nil, "sliced clone", x)
    -- into a strided device view, from the host and from the device, broadcasting
    local c, d = torch.zeros(4, 3), torch.zeros(4, 3, { device = "npu" })
    c:t():narrow(2, 2, 2):copy_(torch.tensor({ 1.0, 2.0, 3.0 }):view(3, 1))
    d:t():narrow(2, 2, 2):copy_(torch.tensor({ 1.0, 2.0, 3.0 }):view(3, 1))
    agree(c, d, nil, "host into strided device view")
    d:t():narrow(2, 1, 1):copy_(torch.tensor({ 7, 8, 9 }, { dtype = torch.int64, device = "npu" }):view(3, 1))
    c:t():narrow(2, 1, 1):copy_(torch.tensor({ 7, 8, 9 }, { dtype = torch.int64 }):view(3, 1))
    agree(c, d, nil, "device into strided device view")
    -- from the device into a strided host view
    local host = torch.zeros(3, 4)
    host:t():copy_(torch.arange(12.0, { device = "npu" }):view(4, 3))
    assert.is_true(host:equal(torch.arange(12.0):view(4, 3):t()))
    -- between devices
    local y = x:npu(0):to("npu:1")
    assert.are.equal("npu:1", tostring(y.device))
    agree(x, y, nil, "npu:0 -> npu:1")
    agree(x:transpose(1, 3), x:npu():transpose(1, 3):to("npu:1"), nil, "strided npu:0 -> npu:1")
  end)
end)

describe("autograd on NPU tensors", function()
  it("gives the CPU's gradients through the dispatcher", function()
    torch.manual_seed(5)
    local w, b, x = torch.randn(4, 3), torch.randn(3), torch.randn(6, 4)
    local function grads(device)
      local W = w:to(device):requires_grad_()
      local B = b:to(device):requires_grad_()
      local X = x:to(device):requires_grad_()
      local h = torch.addmm(B, X, W):relu()
      local s = (h:sigmoid() * h:tanh()):log_softmax(2)
      local loss = s:sum() / 3 + (X:exp() - 1):mean() + X:matmul(W):softmax(1):sum(1):sum()
      return torch.autograd.grad(loss, { W, B, X })
    end
    local c, d = grads("cpu"), grads("npu")
    for i = 1, 3 do agree(c[i], d[i], 1e-5, "gradient " .. i) end
  end)

  it("trains an MLP on npu with the CPU's losses (SGD with momentum, Adam, AdamW, RMSprop, Adagrad)", function()
    local train = dofile("tests/fixtures/train_mlp.lua")
    local optimizers = {
      sgd = function(p) return torch.optim.SGD(p, 0.1, { momentum = 0.9 }) end,
      adam = function(p) return torch.optim.Adam(p, { lr = 0.01 }) end,
      adamw = function(p) return torch.optim.AdamW(p, { lr = 0.01, amsgrad = true }) end,
      rmsprop = function(p) return torch.optim.RMSprop(p, { lr = 0.01, centered = true, momentum = 0.5 }) end,
      adagrad = function(p) return torch.optim.Adagrad(p, { lr = 0.1 }) end,
    }
    for name, make in pairs(optimizers) do
      local cl, cm = train("cpu", make, 25)
      local nl, nm = train("npu", make, 25)
      assert.is_true(nl[25] < nl[1] * 0.8, name .. ": the loss falls")
      for i = 1, #cl do
        assert.is_true(math.abs(cl[i] - nl[i]) <= 1e-5 * math.abs(cl[i]), ("%s step %d: %s vs %s"):format(name, i, cl[i], nl[i]))
      end
      local cp, np = cm:parameters(), nm:parameters()
      for i = 1, #cp do agree(cp[i]:detach(), np[i]:detach(), 1e-5, name .. " parameter " .. i) end
    end
  end)
end)

describe("NPU operator failures", function()

  local function fails(f, text)
    local ok, err = pcall(f)
    assert.is_false(ok, "expected an error with " .. text)
    assert.truthy(tostring(err):find(text, 1, true), err)
  end

  it("become clear errors and leak nothing", function()
    local x = torch.randn(16, 16):npu()
    collect()
    local base = npu.memory_allocated()
    -- the first phase refuses: the call, its code and the operator library's message
    standin.fault("aclnnAddGetWorkspaceSize", 1, 161002)
    fails(function() return x + x end, "aclnnAddGetWorkspaceSize failed: NPU function error: error code is 161002\n" ..
      "EZ9999: [stand-in] fault injected into aclnnAddGetWorkspaceSize")
    -- the launch refuses
    standin.fault("aclnnMul", 1, 361001)
    fails(function() return x * x end, "aclnnMul failed: NPU function error: error code is 361001")
    -- the workspace cannot be had: the operator asks for more than the device has
    standin.force_workspace(2 * 1024 * 1024 * 1024)
    local ok, err = pcall(function() return x:sum() end)
    standin.force_workspace(0)
    assert.is_false(ok)
    assert.truthy(err:find("NPU out of memory. Tried to allocate 2.00 GiB", 1, true), err)
    collect()
    assert.are.equal(base, npu.memory_allocated())
    -- the device's work fails later: the next synchronisation reports it, once
    standin.fault("aclnnExp:kernel", 1, 507015)
    local y = x:exp()
    fails(function() npu.synchronize() end, "aclrtSynchronizeDevice failed: NPU function error: error code is 507015\n" ..
      "EZ9999: [stand-in] fault injected into aclnnExp:kernel")
    npu.synchronize()
    -- an index out of range is found by the device, and reported by the next read
    local bad = torch.tensor({ { 1, 99 } }):npu()
    local g = x:narrow(1, 1, 1):gather(2, bad)
    fails(function() return g:cpu() end, "aclnnGather failed on the device: index 98 is out of bounds for dimension 1 with size 16")
    agree(x:cpu():exp(), x:exp(), F32, "after the failures") -- the device works on
    y, g, bad = nil, nil, nil
    collect()
    assert.are.equal(base, npu.memory_allocated())
    x = nil
    collect()
    npu.empty_cache()
    assert.are.equal(0, (standin.live_allocations()))
  end)
end)

describe("NPU operators and streams", function()
  it("run on the current stream, ordered by events", function()
    local s = npu.Stream()
    local x = torch.randn(256):npu()
    local y
    npu.stream(s, function()
      s:wait_stream(npu.default_stream())
      y = (x * 2):exp():sum()
    end)
    npu.current_stream():wait_stream(s)
    agree((x:cpu() * 2):exp():sum(), y, F32, "side stream")
  end)

  it("keep memory used on another stream until that work is done (record_stream)", function()
    local s = npu.Stream()
    local function race(record)
      -- no cached or pending blocks from earlier work: a block another free returned in the
      -- meantime (a recorded one whose event completed) could otherwise be the one z is given
      npu.synchronize()
      npu.empty_cache()
      local x = torch.ones(4096):npu()
      npu.synchronize()
      local addr, y = x:untyped_storage():data_ptr(), nil
      npu.stream(s, function()
        for _ = 1, 4 do torch.zeros(8, { device = "npu" }) end -- work ahead of the read
        y = x * 2
      end)
      if record then x:record_stream(s) end
      x = nil
      collect()
      local z = torch.zeros(4096, { device = "npu" }) -- on the default stream
      local reused = z:untyped_storage():data_ptr() == addr
      s:synchronize()
      npu.synchronize()
      return reused, y
    end
    local reused, y = race(true)
    assert.is_false(reused)
    agree(torch.full({ 4096 }, 2.0), y, nil, "read on the side stream")
    -- without record_stream the block goes straight back to the default stream's pool
    assert.is_true((race(false)))
    assert.has_error(function() torch.ones(2):record_stream(s) end,
      "Could not run 'aten::record_stream' with arguments from the 'CPU' backend.")
  end)
end)
