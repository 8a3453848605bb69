-- The CUDA backend (backends/cuda). run_all.sh runs this suite twice: against the NVIDIA driver
-- of the machine, where the cases are skipped (and counted) when it has no GPU, and against the
-- driver stand-in (tests/cuda_standin: libcuda's calls over host memory with the module's own
-- kernel sources compiled for the host; NOT NVIDIA software), selected by MINDTORCH_CUDA_DRIVER.
-- Every case computes on cuda and on the CPU and compares.
local torch = require "mindtorch"
local cuda = torch.cuda
local STANDIN = (os.getenv("MINDTORCH_CUDA_DRIVER") or ""):find("cuda%-standin") ~= nil

local function err(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

local function collect()
  collectgarbage()
  collectgarbage()
end

-- the same values, dtype and shape (floating values to a tolerance)
local function same(want, got, tol)
  assert.are.equal("cpu", got.device.type)
  assert.are.equal(want.dtype, got.dtype)
  assert.are.same(want:size(), got:size())
  if want.dtype.is_floating_point then
    assert.is_true(torch.allclose(got:double(), want:double(), tol or 1e-6, tol or 1e-6, true),
      tostring(want) .. "\n" .. tostring(got))
  else
    assert.are.same(want:tolist(), got:tolist())
  end
end

if not cuda.is_available() then
  describe("torch.cuda without a usable GPU", function()
    it("says why, in PyTorch's words, and refuses CUDA tensors with it", function()
      local why = cuda.unavailable_reason()
      assert.truthy(why:find("NVIDIA driver", 1, true) or why == "No CUDA GPUs are available"
        or why:find("MINDTORCH_CUDA_DRIVER", 1, true), why)
      assert.are.equal(0, cuda.device_count())
      assert.is_false(cuda.is_initialized())
      assert.are.equal(why, err(torch.zeros, 2, { device = "cuda" }))
      assert.are.equal(why, err(function() return torch.ones(2):cuda() end))
      assert.are.same({}, cuda.get_arch_list())
      assert.is_false(cuda.is_bf16_supported())
    end)
  end)
  describe("the CUDA backend on a GPU", function()
    pending("no CUDA device here: " .. cuda.unavailable_reason())
  end)
  return
end

describe("the CUDA runtime", function()
  it("reports its devices as torch.cuda does", function()
    assert.is_true(cuda.device_count() >= 1)
    assert.are.equal(0, cuda.current_device())
    local p = cuda.get_device_properties(0)
    assert.truthy(tostring(p):find("^_CudaDeviceProperties%(name='"), tostring(p))
    assert.is_true(p.total_memory > 0 and p.multi_processor_count > 0)
    if STANDIN then
      assert.are.equal(2, cuda.device_count())
      assert.are.equal("mindtorch CUDA stand-in", cuda.get_device_name())
      assert.are.same({ 9, 0 }, cuda.get_device_capability())
    end
    assert.is_true(cuda.is_bf16_supported() == (cuda.get_device_capability()[1] >= 8))
  end)

  it("raises PyTorch's device errors", function()
    local n = cuda.device_count()
    assert.are.equal("CUDA error: invalid device ordinal", err(torch.zeros, 2, { device = "cuda:" .. n }))
    assert.are.equal("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
      err(torch.add, torch.ones(2, { device = "cuda" }), torch.ones(2)))
    local e = err(torch.gelu_, torch.ones(2):cuda())
    assert.truthy(e:find("Could not run 'aten::gelu_' with arguments from the 'CUDA' backend", 1, true), e)
  end)

  it("counts its memory in the caching allocator and gives it back", function()
    collect()
    local base = cuda.memory_allocated()
    local x = torch.empty(1000, { device = "cuda" })
    assert.are.equal(base + 4096, cuda.memory_allocated()) -- 4000 bytes rounded to 512
    assert.is_true(cuda.memory_reserved() >= cuda.memory_allocated())
    x = nil
    collect()
    assert.are.equal(base, cuda.memory_allocated())
    assert.truthy(cuda.memory_summary():find("PyTorch CUDA memory summary, device ID 0", 1, true))
  end)

  if STANDIN then
    it("says CUDA out of memory as PyTorch does", function()
      local e = err(torch.empty, 2 ^ 31, { device = "cuda", dtype = torch.uint8 }) -- the stand-in has 1 GiB
      assert.truthy(e:find("^CUDA out of memory%. Tried to allocate 2%.00 GiB"), e)
    end)
  end
end)

describe("copies between the host and CUDA devices", function()
  it("round-trips every dtype", function()
    for _, dt in ipairs { torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
      torch.bfloat16, torch.float32, torch.float64 } do
      local x = (torch.arange(12) - 5):to(dt):view(3, 4)
      local g = x:cuda()
      assert.are.equal("cuda", g.device.type)
      assert.are.equal(dt, g.dtype)
      same(x, g:cpu())
    end
  end)

  it("lays out views, casts and broadcasts on the device", function()
    local x = torch.randn(4, 6)
    local g = x:cuda()
    same(x:t():contiguous(), g:t():contiguous():cpu())
    same(x[{ { 2, 3 }, { 2, 5 } }]:clone(), g[{ { 2, 3 }, { 2, 5 } }]:clone():cpu())
    for _, dt in ipairs { torch.int32, torch.float64, torch.float16, torch.bfloat16, torch.bool, torch.uint8 } do
      same(x:t():to(dt), g:t():to(dt):cpu(), 1e-2)
    end
    -- into a strided destination: the elements between stay as they were
    local d, dd = torch.zeros(6, 4), torch.zeros(6, 4, { device = "cuda" })
    d:t():copy_(x)
    dd:t():copy_(g)
    same(d, dd:cpu())
    local row = torch.arange(6):float()
    d:copy_(row:view(6, 1):expand(6, 4))
    dd:copy_(row:view(6, 1):expand(6, 4)) -- from the host, broadcast
    same(d, dd:cpu())
    -- a non-contiguous CPU source and a dtype change on the way up
    local up = torch.empty(6, 4, { device = "cuda", dtype = torch.float64 })
    up:copy_(x:t())
    same(x:t():double(), up:cpu())
  end)

  it("moves between devices", function()
    if cuda.device_count() < 2 then return end
    local x = torch.randn(3, 5)
    local g1 = x:cuda():to("cuda:1")
    assert.are.equal(1, g1.device.index)
    same(x, g1:cpu())
    same(x:t():contiguous(), g1:t():to("cuda:0"):cpu())
  end)

  it("copies pinned host memory without waiting when asked", function()
    local p = torch.randn(1000):pin_memory()
    assert.is_true(p:is_pinned())
    local g = torch.empty(1000, { device = "cuda" })
    g:copy_(p, true)
    local back = torch.empty(1000):pin_memory()
    back:copy_(g, true)
    cuda.synchronize()
    same(p, back)
  end)
end)

describe("factories on cuda", function()
  it("fill as on the CPU", function()
    same(torch.zeros(2, 3), torch.zeros(2, 3, { device = "cuda" }):cpu())
    same(torch.ones(5, { dtype = torch.int64 }), torch.ones(5, { device = "cuda", dtype = torch.int64 }):cpu())
    same(torch.full({ 2, 2 }, 2.5, { dtype = torch.float64 }),
      torch.full({ 2, 2 }, 2.5, { device = "cuda", dtype = torch.float64 }):cpu())
    local g = torch.zeros(4, 4, { device = "cuda" })
    g:t()[2]:fill_(7)
    local c = torch.zeros(4, 4)
    c:t()[2]:fill_(7)
    same(c, g:cpu())
  end)

  it("count, space and place ones as on the CPU, in every dtype", function()
    local function both(f, ...)
      local args = { ... }
      local n = #args
      local opts = type(args[n]) == "table" and args[n] or {}
      local dev = {}
      for k, v in pairs(opts) do dev[k] = v end
      dev.device = "cuda"
      args[n + (type(args[n]) == "table" and 0 or 1)] = opts
      local want = f(table.unpack(args))
      args[#args] = dev
      local got = f(table.unpack(args))
      assert.are.equal("cuda", got.device.type)
      same(want, got:cpu(), 0)
    end
    for _, dt in ipairs { torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.uint8 } do
      both(torch.arange, 7, { dtype = dt })
      both(torch.arange, 2, 9, { dtype = dt })
      both(torch.linspace, 1, 9, 7, { dtype = dt })
      both(torch.eye, 3, 5, { dtype = dt })
      both(torch.eye, 4, 2, { dtype = dt })
      if dt.is_floating_point then
        both(torch.arange, -1, 1, 0.1, { dtype = dt })
        both(torch.linspace, -3.3, 7.1, 1001, { dtype = dt })
        if dt ~= torch.float16 then -- the CPU's logspace has no float16 kernel
          both(torch.logspace, -2, 1.5, 9, { dtype = dt })
          both(torch.logspace, 0.3, 1, 1, { dtype = dt })
        end
      else
        both(torch.logspace, 1, 3, 5, { base = 2, dtype = dt })
      end
      if dt ~= torch.float16 then both(torch.range, 1, 4, dt.is_floating_point and 0.3 or 1, { dtype = dt }) end
    end
    both(torch.arange, 1e6, 1e6 + 3000, 3, { dtype = torch.float32 })
    both(torch.arange, 10, 0, -3, { dtype = torch.int64 })
    both(torch.linspace, 5, -5, 1, { dtype = torch.float32 })
    both(torch.linspace, 0, 1, 0, { dtype = torch.float32 })
    both(torch.eye, 3, { dtype = torch.float32 })
    assert.are.equal("step must be nonzero", err(torch.arange, 0, 1, 0, { device = "cuda" }))
  end)
end)

-- op(args...) on the CPU and on cuda (tensor arguments moved there)
local function check(name, op, args, tol)
  local dev = {}
  for i, a in ipairs(args) do dev[i] = torch.is_tensor(a) and a:cuda() or a end
  local want, got = op(table.unpack(args)), op(table.unpack(dev))
  assert.are.equal("cuda", got.device.type, name)
  same(want, got:cpu(), tol)
end

describe("element-wise ops on cuda", function()
  local a, b = torch.randn(3, 1), torch.randn(1, 4)
  local pos = torch.rand(3, 4) + 0.1
  local i, j = torch.randint(-5, 6, { 3, 4 }), torch.randint(1, 6, { 4 })
  local special = torch.tensor({ 0, -0.5, 1.5, math.huge, -math.huge, 0 / 0 })

  it("computes arithmetic with broadcasting, alpha, scalars and type promotion", function()
    check("add", torch.add, { a, b })
    check("add alpha", function(x, y) return torch.add(x, y, { alpha = 2.5 }) end, { a, b })
    check("sub", torch.sub, { a, b })
    check("rsub", torch.rsub, { a, b })
    check("mul", torch.mul, { a, b })
    check("div", torch.div, { a, b }, 1e-5)
    check("add scalar", function(x) return x + 3 end, { a })
    check("mul scalar", function(x) return x * -1.5 end, { b })
    check("div scalar", function(x) return x / 4 end, { pos })
    check("int add", torch.add, { i, j })
    check("int mul scalar", function(x) return x * 3 end, { i })
    check("int div is true division", torch.div, { i, j }, 1e-6)
    check("int + float", torch.add, { i, pos })
    check("float16", function(x, y) return x:half() * y:half() end, { a, b }, 1e-2)
    check("bfloat16", function(x, y) return x:bfloat16() + y:bfloat16() end, { a, b }, 1e-2)
    check("float64", function(x, y) return x:double() - y end, { a, b })
  end)

  it("compares into bool, in the inputs' common type", function()
    for _, name in ipairs { "eq", "ne", "lt", "le", "gt", "ge" } do
      check(name, torch[name], { i, j })
      check(name .. " float", torch[name], { a, b })
      check(name .. " scalar", function(x) return torch[name](x, 0.5) end, { pos })
      check(name .. " int with float scalar", function(x) return torch[name](x, 1.5) end, { i })
    end
  end)

  it("computes unary math as the CPU does, NaN and infinities included", function()
    for _, name in ipairs { "neg", "abs", "exp", "log", "sqrt", "relu", "sigmoid", "tanh" } do
      check(name, torch[name], { special }, 1e-5)
      check(name .. " 2-d", torch[name], { pos:t() }, 1e-5)
    end
    check("logical_not", torch.logical_not, { i })
    check("maximum", torch.maximum, { special, special:flip(1) })
    check("minimum", torch.minimum, { special, special:flip(1) })
  end)

  it("selects and fuses three operands", function()
    check("where", torch.where, { pos:gt(0.5), a:expand(3, 4), b })
    check("addcmul", function(x, y, z) return torch.addcmul(x, y, z, { value = 0.5 }) end, { pos, a, b })
    check("addcdiv", function(x, y, z) return torch.addcdiv(x, y, z, { value = 2 }) end, { a, b, pos }, 1e-5)
  end)

  it("writes in place into views", function()
    local c, g = torch.randn(4, 5), nil
    g = c:cuda()
    c:t():add_(1):mul_(2)
    g:t():add_(1):mul_(2)
    same(c, g:cpu())
    c[2]:exp_()
    g[2]:exp_()
    same(c, g:cpu(), 1e-5)
  end)

  it("runs autograd on cuda tensors", function()
    local x = torch.randn(5)
    local xg = x:cuda():requires_grad_()
    local z = xg * xg * 3 + xg
    z:backward(torch.ones(5, { device = "cuda" }))
    assert.are.equal("cuda", xg.grad.device.type)
    same(x * 6 + 1, xg.grad:cpu(), 1e-5)
  end)
end)

describe("streams and events on cuda", function()
  it("time and order work as torch.cuda's", function()
    local s = cuda.Stream()
    local start, stop = cuda.Event({ enable_timing = true }), cuda.Event({ enable_timing = true })
    local x = torch.randn(100)
    local y
    cuda.stream(s, function()
      start:record()
      y = (x:cuda() * 2):cpu()
      stop:record()
    end)
    stop:synchronize()
    assert.is_true(start:elapsed_time(stop) >= 0)
    assert.is_true(s:query())
    same(x * 2, y)
  end)
end)

-- Work queued on a GPU runs later, in order per stream, while the host goes on: these cases hold
-- on a GPU only because the module waits where it must. The stand-in queues work the same way,
-- and MINDTORCH_STANDIN_DELAY_US (each queued operation sleeps first) makes a missing wait show.
describe("synchronisation with the work queued on cuda", function()
  local DELAYED = STANDIN and tonumber(os.getenv("MINDTORCH_STANDIN_DELAY_US") or "0") > 0

  -- n queued operations on the current stream, so that what follows waits behind them
  local function busy(n)
    local w = torch.zeros(1000, { device = "cuda" })
    for _ = 1, n do w = w + 1 end
    return w
  end

  it("reads a result on the host right after the op that makes it, on any stream", function()
    local x = torch.randn(100000)
    local y = x:cuda()
    for _ = 1, 4 do y = y * 2 + 1 end
    local want = x:clone()
    for _ = 1, 4 do want = want * 2 + 1 end
    same(want, y:cpu())
    local s = cuda.Stream()
    s:wait_stream(cuda.current_stream())
    cuda.stream(s, function()
      local z = busy(4)
      same(torch.full({ 1000 }, 4.0), z:cpu())
      assert.are.equal(4000, z:sum():item())
      z = y + 1
      same(want + 1, z:cpu())
    end)
  end)

  it("orders two streams with wait_stream", function()
    local x = torch.randn(10000)
    local g = x:cuda()
    local s = cuda.Stream()
    s:wait_stream(cuda.current_stream()) -- g's upload comes first
    local y
    cuda.stream(s, function()
      busy(6)
      y = g * 3
    end)
    cuda.current_stream():wait_stream(s) -- y is read on the default stream
    local z = y + 1
    same(x * 3 + 1, z:cpu())
  end)

  it("orders the streams of another device than the current one", function()
    if cuda.device_count() < 2 then return end
    local x = torch.randn(1000)
    local g = x:to("cuda:1")
    local s = cuda.Stream(1)
    s:wait_stream(cuda.current_stream(1)) -- recorded and waited for with device 0 current
    local y
    cuda.stream(s, function()
      busy(6)
      y = g * 3
    end)
    assert.are.equal(0, cuda.current_device())
    local e = s:record_event()
    cuda.current_stream(1):wait_event(e)
    same(x * 3, y:cpu())
    s:synchronize()
    assert.is_true(s:query() and e:query())
  end)

  it("answers an event's and a stream's queries once their work is done", function()
    local s = cuda.Stream()
    local e = cuda.Event({ enable_timing = true })
    local start = cuda.Event({ enable_timing = true })
    local w
    cuda.stream(s, function()
      start:record()
      w = busy(6)
      e:record()
    end)
    if DELAYED then -- the stand-in's work is still queued; a GPU may or may not be done
      assert.is_false(e:query())
      assert.is_false(s:query())
    end
    e:synchronize()
    assert.is_true(e:query())
    assert.is_true(s:query())
    assert.is_true(start:elapsed_time(e) >= 0)
    cuda.current_stream():wait_stream(s)
    same(torch.full({ 1000 }, 6.0), w:cpu())
  end)

  it("keeps a pinned block until its queued non_blocking copy read it", function()
    local n = 10000
    local g = torch.empty(n, { device = "cuda" })
    busy(6) -- the copy waits behind this work
    local p = torch.full({ n }, 7.0):pin_memory()
    g:copy_(p, true)
    p = nil
    collect()
    local q = torch.empty(n):pin_memory() -- the cache may hand out p's block only after the copy
    q:fill_(-1)
    local back = torch.empty(n):pin_memory()
    back:copy_(g * 2, true)
    cuda.synchronize()
    same(torch.full({ n }, 14.0), back)
    same(torch.full({ n }, -1.0), q)
  end)

  it("reuses freed memory only after the work queued on it, on its stream and on others", function()
    local n = 4 * 1024 * 1024 -- 16 MiB: a segment of its own, which empty_cache gives back
    local x = torch.full({ n }, 2.0, { device = "cuda" })
    busy(6)
    local y = x * 3
    x = nil
    collect()
    cuda.empty_cache() -- x's segment goes back to the driver only once y was computed from it
    local z = torch.full({ n }, 5.0, { device = "cuda" })
    assert.are.equal(6 * n, y:sum():item())
    assert.are.equal(5 * n, z:sum():item())
    -- used on another stream: record_stream keeps the block from the default stream until then
    local a = torch.full({ 1000 }, 2.0, { device = "cuda" })
    local s = cuda.Stream()
    s:wait_stream(cuda.current_stream())
    local b
    cuda.stream(s, function()
      busy(6)
      b = a * 3
    end)
    a:record_stream(s)
    a = nil
    collect()
    local c = torch.full({ 1000 }, 5.0, { device = "cuda" })
    cuda.current_stream():wait_stream(s)
    same(torch.full({ 1000 }, 6.0), b:cpu())
    same(torch.full({ 1000 }, 5.0), c:cpu())
  end)
end)

describe("reductions, products and indexing on cuda", function()
  local x = torch.randn(3, 5, 7)

  it("sums, averages and takes extremes over everything and over dims", function()
    check("sum", torch.sum, { x }, 1e-5)
    check("mean", torch.mean, { x }, 1e-5)
    check("max", torch.max, { x })
    check("min", torch.min, { x })
    check("sum dims", function(t) return t:sum({ 1, 3 }) end, { x }, 1e-5)
    check("sum keepdim", function(t) return t:sum(2, { keepdim = true }) end, { x }, 1e-5)
    check("mean dim of a view", function(t) return t:transpose(1, 3):mean(2) end, { x }, 1e-5)
    check("amax", function(t) return t:amax(2) end, { x })
    check("amin", function(t) return t:amin({ 1, 2 }) end, { x })
    check("argmax dim", function(t) return t:argmax(2) end, { x })
    check("argmin keepdim", function(t) return t:argmin(3, { keepdim = true }) end, { x })
    check("argmax of a view, flattened", function(t) return t:transpose(1, 3):argmax() end, { x })
    check("argmax with NaN", function(t) return t:argmax() end, { torch.tensor({ 1, 0 / 0, 3, 0 / 0 }) })
    check("int sum to int64", function(t) return t:sum(1) end, { torch.randint(-9, 9, { 4, 6 }):int() })
    check("float16 sum in float", function(t) return t:half():sum(2) end, { x }, 1e-2)
    check("NaN propagates", torch.max, { torch.tensor({ 1, 0 / 0, 3 }) })
    -- large enough to be split into partial sums, reduced again
    local big = torch.rand(300000)
    check("partials", torch.sum, { big }, 1e-4)
    check("partials mean", torch.mean, { big:view(3, 100000) }, 1e-5)
  end)

  it("multiplies matrices: mm of views, addmm, bmm, mv, dot, matmul", function()
    local a, b = torch.randn(5, 3), torch.randn(3, 4)
    check("mm", torch.mm, { a, b }, 1e-5)
    check("mm of transposed views", function(p, q) return torch.mm(q:t(), p:t()) end, { a, b }, 1e-5)
    check("mm of a strided view", function(p, q) return torch.mm(p[{ {}, { 1, 2 } }], q[{ { 1, 2 }, {} }]) end,
      { a, b }, 1e-5)
    check("addmm", function(s, p, q) return torch.addmm(s, p, q, { beta = 0.5, alpha = 2 }) end,
      { torch.randn(4), a, b }, 1e-5)
    check("bmm", torch.bmm, { torch.randn(2, 5, 3), torch.randn(2, 3, 4) }, 1e-5)
    check("mv", torch.mv, { a, torch.randn(3) }, 1e-5)
    check("dot", torch.dot, { torch.randn(7), torch.randn(7) }, 1e-5)
    check("matmul broadcast", torch.matmul, { torch.randn(2, 5, 3), b }, 1e-5)
    check("float64", torch.mm, { a:double(), b:double() })
  end)

  it("softmax and log_softmax along any dim", function()
    check("softmax", function(t) return t:softmax(2) end, { x }, 1e-6)
    check("log_softmax", function(t) return t:log_softmax(1) end, { x }, 1e-5)
    check("log_softmax of a view", function(t) return t:transpose(1, 3):log_softmax(3) end, { x }, 1e-5)
  end)

  it("gathers, scatters and selects with 1-based indices, refusing bad ones", function()
    local src, idx = torch.randn(3, 4), torch.tensor({ { 1, 4 }, { 2, 2 }, { 3, 1 } })
    check("gather", function(s, i) return s:gather(2, i) end, { src, idx })
    check("scatter_add", function(i, o) return torch.zeros(3, 4, { device = o.device }):scatter_add(2, i, o) end,
      { idx, torch.ones(3, 2) })
    check("scatter", function(i, o) return torch.zeros(3, 4, { device = o.device }):scatter(2, i, o) end,
      { idx, torch.randn(3, 2) })
    check("index_select", function(s, i) return s:index_select(2, i) end, { src, torch.tensor({ 4, 1, 1 }) })
    check("masked_fill", function(s) return s:masked_fill(s:gt(0), -1) end, { src })
    local g = src:cuda()
    assert.are.equal("index 5 is out of bounds for dimension 2 with size 4",
      err(function() return g:gather(2, torch.tensor({ { 5 } }):cuda()) end))
    -- these do not wrap negative positions: a negative one and a 0 are out of range too
    for _, k in ipairs { 0, -1, -4, 5 } do
      local i, one = torch.tensor({ { k } }), torch.ones(1, 1)
      for _, f in ipairs {
        function(s, ix) return s:gather(2, ix) end,
        function(s, ix, o) return s:clone():scatter_(2, ix, o) end,
        function(s, ix) return s:clone():scatter_(2, ix, 2.5) end,
        function(s, ix, o) return s:clone():scatter_add_(2, ix, o) end,
        function(s, ix) return s:index_select(2, ix:view(1)) end,
        function(s, ix, o) return s:clone():index_add_(2, ix:view(1), o:expand(3, 1)) end,
      } do
        assert.are.equal(err(f, src, i, one), err(f, g, i:cuda(), one:cuda()))
      end
    end
  end)
end)

describe("autograd and training on cuda", function()
  it("gives the CPU's gradients", function()
    torch.manual_seed(5)
    local w, b, x = torch.randn(4, 3), torch.randn(3), torch.randn(6, 4)
    local function grads(device)
      local W, B, X = w:to(device):requires_grad_(), b:to(device):requires_grad_(), x:to(device):requires_grad_()
      local h = torch.addmm(B, X, W):relu()
      local s = (h:sigmoid() * h:tanh()):log_softmax(2)
      local loss = s:sum() / 3 + (X:exp() - 1):mean() + X:matmul(W):softmax(1):sum(1):sum()
      return torch.autograd.grad(loss, { W, B, X })
    end
    local c, d = grads("cpu"), grads("cuda")
    for i = 1, 3 do same(c[i], d[i]:cpu(), 1e-5) end
  end)

  it("trains an MLP with cross-entropy to the CPU's losses (SGD with momentum, Adam)", function()
    local train = dofile("tests/fixtures/train_mlp.lua")
    for name, make in pairs {
      sgd = function(p) return torch.optim.SGD(p, 0.1, { momentum = 0.9 }) end,
      adam = function(p) return torch.optim.Adam(p, { lr = 0.01 }) end,
    } do
      local cl, gl = train("cpu", make, 20), train("cuda", make, 20)
      assert.is_true(gl[20] < gl[1] * 0.8, name .. ": the loss falls")
      for i = 1, #cl do
        assert.is_true(math.abs(cl[i] - gl[i]) <= 1e-5 * math.abs(cl[i]), ("%s step %d: %s vs %s"):format(name, i, cl[i], gl[i]))
      end
    end
  end)
end)

describe("convolution and pooling on cuda", function()
  local x = torch.randn(3, 4, 9, 8)

  it("convolves with groups, strides, dilation and bias, and transposed", function()
    local w, b = torch.randn(6, 2, 3, 3), torch.randn(6)
    check("conv2d", function(i, k, c) return torch.conv2d(i, k, c, 1, 1, 1, 2) end, { x, w, b }, 1e-5)
    check("strided, dilated", function(i, k) return torch.conv2d(i, k, nil, 2, 2, 2) end,
      { x, torch.randn(5, 4, 3, 2) }, 1e-5)
    check("1x1", function(i, k) return torch.conv2d(i, k) end, { x, torch.randn(7, 4, 1, 1) }, 1e-5)
    check("conv1d", function(i, k, c) return torch.conv1d(i, k, c, 2, 1) end,
      { torch.randn(2, 3, 11), torch.randn(4, 3, 3), torch.randn(4) }, 1e-5)
    check("conv_transpose2d", function(i, k, c) return torch.conv_transpose2d(i, k, c, 2, 1, 1) end,
      { x, torch.randn(4, 3, 3, 3), torch.randn(3) }, 1e-5)
    check("a view as input", function(i, k) return torch.conv2d(i:transpose(3, 4), k, nil, 1, 1) end,
      { x, torch.randn(2, 4, 3, 3) }, 1e-5)
  end)

  it("keeps a channels-last input's layout, as the CPU does", function()
    local xc = x:contiguous({ memory_format = torch.channels_last })
    for name, op in pairs {
      conv2d = function(i) return torch.conv2d(i, torch.ones(5, 4, 3, 3):to(i.device), nil, 1, 1) end,
      max_pool2d = function(i) return torch.max_pool2d(i, 2) end,
      avg_pool2d = function(i) return torch.avg_pool2d(i, 2) end,
      adaptive_avg_pool2d = function(i) return torch.adaptive_avg_pool2d(i, { 2, 3 }) end,
      cat = function(i) return torch.cat({ i, i }, 2) end,
    } do
      local want, got = op(xc), op(xc:cuda())
      assert.are.same(want:stride(), got:stride(), name)
      assert.are.same(want:stride(), want:contiguous({ memory_format = torch.channels_last }):stride(), name)
      same(want, got:cpu(), 1e-5)
      -- the input gradient, laid out channels-last as well
      local xg, xd = xc:clone():requires_grad_(), xc:cuda():requires_grad_()
      local gc = torch.autograd.grad(op(xg):sum(), { xg })[1]
      local gd = torch.autograd.grad(op(xd):sum(), { xd })[1]
      assert.are.same(gc:stride(), gd:stride(), name)
      same(gc, gd:cpu(), 1e-4)
    end
  end)

  it("gives the CPU's input and weight gradients", function()
    local w = torch.randn(6, 2, 3, 3)
    local function grads(device)
      local X, W = x:to(device):requires_grad_(), w:to(device):requires_grad_()
      local y = torch.conv2d(X, W, nil, 2, 1, 1, 2)
      return torch.autograd.grad((y * y):sum(), { X, W })
    end
    local c, g = grads("cpu"), grads("cuda")
    same(c[1], g[1]:cpu(), 1e-4)
    same(c[2], g[2]:cpu(), 1e-4)
  end)

  it("gives the CPU's weight gradients, the samples' products summed by cuBLAS", function()
    local function weight_grad(conv, input, weight, device, dt)
      local X, W = input:to(device, dt), weight:to(device, dt):requires_grad_()
      local y = conv(X, W)
      return torch.autograd.grad(torch.sum(y * y:detach()), { W })[1]
    end
    local function check_wg(name, conv, input, weight, tol, dt)
      local want = weight_grad(conv, input, weight, "cpu", torch.float64):to(dt or torch.float32)
      local got = weight_grad(conv, input, weight, "cuda", dt):cpu()
      assert.is_true(torch.allclose(got:double(), want:double(), tol, tol), name .. "\n" .. tostring(want - got))
    end
    local x7 = torch.randn(7, 6, 8, 9)
    check_wg("groups, stride, dilation", function(i, k) return torch.conv2d(i, k, nil, 2, 1, 2, 3) end,
      x7, torch.randn(9, 2, 3, 2), 1e-4)
    check_wg("transposed, groups", function(i, k) return torch.conv_transpose2d(i, k, nil, 2, 1, 1, 2) end,
      x7, torch.randn(6, 4, 3, 3), 1e-4)
    check_wg("1x1, one sample", function(i, k) return torch.conv2d(i, k) end, x7:narrow(1, 1, 1),
      torch.randn(5, 6, 1, 1), 1e-5)
    check_wg("float64", function(i, k) return torch.conv2d(i, k, nil, 1, 1) end, x7, torch.randn(4, 6, 3, 3), 1e-10,
      torch.float64)
    check_wg("bfloat16", function(i, k) return torch.conv2d(i, k, nil, 1, 1) end, x7:mul(0.1), torch.randn(4, 6, 3, 3):mul(0.1), 0.05,
      torch.bfloat16)
    -- columns of more than one chunk: each chunk's sum added to the last one's
    check_wg("chunks", function(i, k) return torch.conv1d(i, k, nil, 1, 1) end, torch.randn(4, 2, 700000),
      torch.randn(3, 2, 3), 1e-3)
  end)

  it("max-pools with indices and routes the gradient to the maxima", function()
    check("max_pool2d", function(i) return torch.max_pool2d(i, 3, 2, 1) end, { x })
    check("indices", function(i) return select(2, torch.max_pool2d_with_indices(i, 2)) end, { x })
    local function grad(device)
      local X = x:clone():to(device):requires_grad_()
      local p = torch.max_pool2d(X, 2, 1)
      return torch.autograd.grad(torch.sum(p * p), { X })[1]
    end
    same(grad("cpu"), grad("cuda"):cpu(), 1e-6)
  end)

  it("trains a small CNN to the CPU's losses", function()
    local nn = torch.nn
    local function train(device)
      torch.manual_seed(3)
      local model = nn.Sequential(nn.Conv2d(1, 4, 3, { padding = 1 }), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 8, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 2 * 2, 3))
      model:to(device)
      local opt = torch.optim.SGD(model:parameters(), 0.05, { momentum = 0.9 })
      torch.manual_seed(4)
      local xb, yb = torch.randn(16, 1, 8, 8):to(device), torch.randint(1, 4, { 16 }):to(device)
      local losses = {}
      for step = 1, 15 do
        opt:zero_grad()
        local loss = nn.functional.cross_entropy(model(xb), yb)
        loss:backward()
        opt:step()
        losses[step] = loss:item()
      end
      return losses
    end
    local cl, gl = train("cpu"), train("cuda")
    assert.is_true(gl[15] < gl[1] * 0.8, "the loss falls")
    for i = 1, #cl do
      assert.is_true(math.abs(cl[i] - gl[i]) <= 1e-4 * math.abs(cl[i]), ("step %d: %s vs %s"):format(i, cl[i], gl[i]))
    end
  end)
end)

describe("more element-wise math, cat, var and std on cuda", function()
  local x, pos = torch.randn(4, 6), torch.rand(4, 6) + 0.1

  it("computes pow, gelu, erf, silu, trigonometry and friends as the CPU does", function()
    check("pow scalar", function(t) return t:pow(3) end, { x }, 1e-5)
    check("pow fractional", function(t) return t:pow(0.5) end, { pos }, 1e-6)
    check("pow tensor", torch.pow, { pos, x }, 1e-5)
    check("int pow", function(t) return t:pow(2) end, { torch.randint(-5, 5, { 7 }) })
    check("gelu", torch.nn.functional.gelu, { x }, 1e-6)
    check("gelu tanh", function(t) return torch.nn.functional.gelu(t, { approximate = "tanh" }) end, { x }, 1e-6)
    for _, name in ipairs { "erf", "silu", "sin", "cos", "rsqrt", "reciprocal", "log1p", "expm1", "sign" } do
      check(name, torch[name], { name == "rsqrt" and pos or x }, 1e-5)
    end
  end)

  it("concatenates along any dim, converting dtypes", function()
    check("cat dim 1", function(a, b) return torch.cat({ a, b }, 1) end, { x, torch.randn(2, 6) })
    check("cat dim 2 of views", function(a, b) return torch.cat({ a:t(), b }, 2) end, { x, torch.randn(6, 3) })
    check("cat promotes", function(a, b) return torch.cat({ a, b }) end, { x, torch.ones(1, 6, { dtype = torch.int32 }) })
  end)

  it("computes var, std and var_mean with corrections", function()
    local y = torch.randn(3, 5, 4)
    check("var", torch.var, { y }, 1e-5)
    check("var dim", function(t) return t:var(2) end, { y }, 1e-5)
    check("var biased keepdim", function(t) return torch.var(t, { 1, 3 }, { unbiased = false, keepdim = true }) end, { y }, 1e-5)
    check("std", function(t) return t:std(3) end, { y }, 1e-5)
    local vm, mm = torch.var_mean(y, 2)
    local gv, gm = torch.var_mean(y:cuda(), 2)
    same(vm, gv:cpu(), 1e-5)
    same(mm, gm:cpu(), 1e-5)
  end)

  it("runs a Transformer encoder layer, an LSTM and the norms as the CPU does", function()
    local nn = torch.nn
    local function both(make, input)
      torch.manual_seed(7)
      local m = make()
      local cpu_out = m(input)
      m:to("cuda")
      local out = m(input:cuda())
      if type(out) == "table" or not torch.is_tensor(out) then out, cpu_out = out[1] or out, cpu_out[1] or cpu_out end
      same(cpu_out:detach(), out:detach():cpu(), 1e-4)
    end
    both(function() return nn.TransformerEncoderLayer(16, 2, { dim_feedforward = 32, dropout = 0.0, batch_first = true }) end,
      torch.randn(2, 5, 16))
    both(function() return nn.LSTM(8, 8, { num_layers = 2 }) end, torch.randn(5, 2, 8))
    both(function() return nn.LayerNorm(6) end, x)
    both(function() return nn.BatchNorm2d(3) end, torch.randn(2, 3, 4, 4))
  end)
end)

describe("random draws on cuda", function()
  it("replay with a seed and differ without one", function()
    cuda.manual_seed(123)
    local a = torch.rand(1000, { device = "cuda" }):cpu()
    local b = torch.rand(1000, { device = "cuda" }):cpu()
    cuda.manual_seed(123)
    same(a, torch.rand(1000, { device = "cuda" }):cpu())
    assert.is_false(torch.equal(a, b))
    torch.manual_seed(5) -- seeds the CUDA generator too
    local c = torch.randn(10, { device = "cuda" }):cpu()
    torch.manual_seed(5)
    same(c, torch.randn(10, { device = "cuda" }):cpu())
  end)

  it("draw from the distributions asked for", function()
    cuda.manual_seed(0)
    local u = torch.rand(20000, { device = "cuda" }):cpu()
    assert.is_true(u:min():item() >= 0 and u:max():item() < 1)
    assert.is_true(math.abs(u:mean():item() - 0.5) < 0.01)
    local h = torch.empty(20000, { device = "cuda", dtype = torch.float16 }):uniform_(2, 3):cpu():float()
    assert.is_true(h:min():item() >= 2 and h:max():item() < 3)
    local n = torch.randn(20000, { device = "cuda", dtype = torch.float64 }):cpu()
    assert.is_true(math.abs(n:mean():item()) < 0.03 and math.abs(n:std():item() - 1) < 0.03)
    local n2 = torch.empty(20000, { device = "cuda" }):normal_(3, 0.5):cpu()
    assert.is_true(math.abs(n2:mean():item() - 3) < 0.02 and math.abs(n2:std():item() - 0.5) < 0.02)
    local bern = torch.empty(20000, { device = "cuda" }):bernoulli_(0.25):cpu()
    assert.is_true(math.abs(bern:mean():item() - 0.25) < 0.015)
    local p = torch.tensor({ 0, 1, 0, 1 }):float()
    same(p, torch.bernoulli(p:cuda()):cpu())
    -- dropout keeps about 1 - p of the elements, scaled by 1 / (1 - p)
    local d = torch.nn.functional.dropout(torch.ones(20000, { device = "cuda" }), 0.2, true):cpu()
    assert.is_true(math.abs(d:eq(0):float():mean():item() - 0.2) < 0.015)
    assert.is_true(math.abs(d:max():item() - 1.25) < 1e-6)
  end)
end)

describe("the rest of the element-wise family on cuda", function()
  local x, unit = torch.randn(5, 7) * 3, torch.rand(5, 7) * 1.8 - 0.9

  it("computes the float functions, rounding and the parametrised activations", function()
    for _, name in ipairs { "exp2", "log2", "log10", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
      "atanh", "erfc", "trunc", "floor", "ceil", "round", "frac" } do
      local arg = (name == "asin" or name == "acos" or name == "atanh") and unit
        or (name == "log2" or name == "log10") and x:abs() + 0.1 or name == "acosh" and x:abs() + 1 or x
      check(name, torch[name], { arg }, 1e-5)
    end
    check("round halves to even", torch.round, { torch.tensor({ 0.5, 1.5, 2.5, -0.5, -1.5 }) })
    check("clamp", function(t) return t:clamp(-1, 2) end, { x })
    check("clamp min only", function(t) return t:clamp({ min = 0.5 }) end, { x })
    check("clamp int", function(t) return t:clamp(-2, 3) end, { torch.randint(-9, 9, { 10 }) })
    check("hardtanh", torch.nn.functional.hardtanh, { x })
    check("leaky_relu", function(t) return torch.nn.functional.leaky_relu(t, 0.2) end, { x })
    check("softplus", function(t) return torch.nn.functional.softplus(t, { beta = 2, threshold = 3 }) end, { x }, 1e-6)
  end)

  it("computes fmod, remainder, floor_divide and atan2 with Python's signs", function()
    local a, b = torch.randn(5, 7) * 5, torch.randn(5, 7)
    check("fmod", torch.fmod, { a, b }, 1e-5)
    check("remainder", torch.remainder, { a, b }, 1e-5)
    check("remainder scalar", function(t) return torch.remainder(t, -1.5) end, { a }, 1e-5)
    check("floor_divide", torch.floor_divide, { a, b }, 1e-5)
    check("atan2", torch.atan2, { a, b }, 1e-6)
    local i, j = torch.tensor({ 7, -7, 7, -7, 5 }), torch.tensor({ 3, 3, -3, -3, 5 })
    check("int remainder", torch.remainder, { i, j })
    check("int fmod", torch.fmod, { i, j })
    check("int floor_divide", torch.floor_divide, { i, j })
  end)

  it("converts numbers and mixed operands to the common dtype first, as the CPU does", function()
    local x, u8 = torch.randn(5, 7) * 3, torch.tensor({ 0, 1, 5, 200, 255 }, { dtype = torch.uint8 })
    check("clamp with min > max gives max", function(t) return t:clamp(1, -1) end, { x })
    check("uint8 clamp: -1 is 255", function(t) return t:clamp(-1, 2) end, { u8 })
    check("int8 clamp, min only", function(t) return t:clamp({ min = -3 }) end, { torch.randint(-9, 9, { 10 }):to(torch.int8) })
    check("int16 clamp, max only", function(t) return t:clamp({ max = 3 }) end, { torch.randint(-9, 9, { 10 }):to(torch.int16) })
    check("uint8 floor division by -2 (254)", function(t) return torch.div(t, -2, { rounding_mode = "floor" }) end, { u8 })
    check("uint8 + -1", function(t) return t + -1 end, { u8 })
    check("uint8 eq -1", function(t) return t:eq(-1) end, { u8 })
    check("sign of NaN is 0", torch.sign, { torch.tensor({ 0 / 0, -0.0, 2, -3, math.huge }) })
    local h = torch.randn(12)
    check("float16 + a float32 0-d tensor", function(t, s) return t:half() + s end, { h, torch.tensor(1 / 3) }, 0)
    check("bfloat16 * a float64 0-d tensor", function(t, s) return t:bfloat16() * s end,
      { h, torch.tensor(0.1, { dtype = torch.float64 }) }, 0)
    check("float16 / a float32 0-d tensor", function(t, s) return t:half() / s end, { h, torch.tensor(0.3) }, 0)
  end)

  it("computes the logical, bitwise and two-argument functions and the activations nn uses", function()
    local x, y = torch.randn(6, 5) * 3, torch.randn(5) * 3
    local sp = torch.tensor({ 0, -0.0, 1, -1, math.huge, -math.huge, 0 / 0, 0.5, -2 })
    local sq = torch.tensor({ 0, 3, -0.0, 2, math.huge, math.huge, 1, 0 / 0, -math.huge })
    local i, j = torch.randint(-50, 50, { 6, 5 }), torch.randint(0, 9, { 5 })
    local b = torch.tensor({ true, false, true, false })
    x[1][1], x[2][3] = 0, 0
    for _, name in ipairs { "logical_and", "logical_or", "logical_xor" } do
      check(name, torch[name], { x, y })
      check(name .. " int and float", torch[name], { i, y })
      check(name .. " bool", torch[name], { b, b:flip(1) })
      check(name .. "_ in place", function(t, u) return t[name .. "_"](t, u) end, { x:clone(), y })
    end
    for _, name in ipairs { "fmax", "fmin", "hypot", "logaddexp", "logaddexp2", "copysign", "xlogy", "heaviside" } do
      check(name, torch[name], { x, y }, 1e-5)
      check(name .. " special values", torch[name], { sp, sq }, 1e-5)
    end
    check("fmax int", torch.fmax, { i, j })
    check("copysign scalar", function(t) return torch.copysign(t, -1) end, { x })
    check("xlogy scalar", function(t) return torch.xlogy(t, 2.5) end, { x })
    check("copysign of ints is float", torch.copysign, { i, j })
    for _, name in ipairs { "isposinf", "isneginf", "signbit", "sinc", "deg2rad", "rad2deg" } do
      check(name, torch[name], { sp }, 1e-6)
      check(name .. " 2-d", torch[name], { x:t() }, 1e-6)
    end
    check("signbit int", torch.signbit, { i })
    check("deg2rad int", torch.deg2rad, { i }, 1e-6)
    check("deg2rad bfloat16", torch.deg2rad, { x:bfloat16() }, 1e-2)
    for _, name in ipairs { "bitwise_and", "bitwise_or", "bitwise_xor" } do
      check(name, torch[name], { i, j })
      check(name .. " bool", torch[name], { b, b:flip(1) })
      check(name .. " uint8 and a number", function(t) return torch[name](t, -3) end, { j:to(torch.uint8) })
    end
    check("bitwise_not", torch.bitwise_not, { i })
    check("bitwise_not bool", torch.bitwise_not, { b })
    check("left shift", torch.bitwise_left_shift, { i, j })
    check("right shift", torch.bitwise_right_shift, { i, j })
    -- counts masked to 32 bits below int64, as x86 (and the CPU) shift
    check("int32 left shift by 33", function(t) return torch.bitwise_left_shift(t, 33) end, { i:to(torch.int32) })
    check("int16 right shift by 35", function(t) return torch.bitwise_right_shift(t, 35) end, { i:to(torch.int16) })
    check("int8 right shift", function(t, u) return torch.bitwise_right_shift(t, u) end, { i:to(torch.int8), j:to(torch.int8) })
    local F = torch.nn.functional
    check("elu", function(t) return F.elu(t, 0.7) end, { x }, 1e-6)
    check("selu", F.selu, { x }, 1e-6)
    check("celu", function(t) return F.celu(t, 1.3) end, { x }, 1e-6)
    check("elu float64", function(t) return torch.elu(t, 0.3, 1.5, 2) end, { x:double() })
    check("hardshrink", function(t) return F.hardshrink(t, 1) end, { x })
    check("logit", torch.logit, { torch.rand(20) }, 1e-5)
    check("logit with eps", function(t) return torch.logit(t, 0.1) end, { torch.tensor({ 0, 0.05, 0.5, 0.95, 1 }) }, 1e-6)
    check("logit at 1", torch.logit, { torch.tensor({ 0, 1, 1.5, -0.5 }) })
    check("eq_ in place", function(t, u) return t:eq_(u) end, { x:clone(), x:clone():flip(2) })
    check("lt_ in place with a number", function(t) return t:lt_(0.5) end, { x:clone() })
    check("number ** tensor", function(t) return torch.pow(2, t) end, { x }, 1e-5)
    check("pow_ by a tensor", function(t, u) return t:abs():pow_(u) end, { x:clone(), y }, 1e-5)
    check("number % tensor", function(t) return torch.remainder(5, t) end, { x }, 1e-5)
    check("true_divide", torch.true_divide, { i, j:add(1) })
    check("clip", function(t) return t:clip(-1, 1) end, { x })
    check("float16 += float32 tensor computes in float32", function(t, u) return t:half():add_(u) end, { x, y / 3 }, 0)
  end)

  it("differentiates the activations and losses that use them", function()
    local F = torch.nn.functional
    for _, f in ipairs { F.elu, F.selu, F.relu6, F.hardsigmoid, F.hardtanh, F.hardshrink, torch.logit } do
      local x = torch.rand(4, 5) * 0.98 + 0.01
      if f ~= torch.logit then x = torch.randn(4, 5) * 4 end
      local xc, xg = x:clone():requires_grad_(), x:cuda():requires_grad_()
      f(xc):sum():backward()
      f(xg):sum():backward()
      same(xc.grad, xg.grad:cpu(), 1e-5)
    end
  end)
end)

describe("tests, flips, norms, any/all, max along a dim and index_add on cuda", function()
  local x = torch.randn(4, 6, 3)

  it("tests for NaN and infinities, flips, any and all", function()
    local special = torch.tensor({ 0, 1 / 0, -1 / 0, 0 / 0, 2.5 })
    check("isnan", torch.isnan, { special })
    check("isinf", torch.isinf, { special })
    check("isfinite", torch.isfinite, { special })
    check("isfinite int", torch.isfinite, { torch.tensor({ 1, 2 }) })
    check("flip", function(t) return t:flip({ 1, 3 }) end, { x })
    check("flip of a view", function(t) return t:transpose(1, 2):flip(2) end, { x })
    check("any", function(t) return t:gt(2):any() end, { x })
    check("all dim", function(t) return t:gt(-3):all(2) end, { x })
    check("any keepdim, NaN counts", function(t) return t:any(1, { keepdim = true }) end, { torch.tensor({ { 0, 0 / 0 }, { 0, 0 } }) })
  end)

  it("takes values and positions along a dim, and p-norms", function()
    for _, keep in ipairs { false, true } do
      local v, i = x:max(2, { keepdim = keep })
      local gv, gi = x:cuda():max(2, { keepdim = keep })
      same(v, gv:cpu())
      same(i, gi:cpu())
      local mv, mi = x:min(3, { keepdim = keep })
      local gmv, gmi = x:cuda():min(3, { keepdim = keep })
      same(mv, gmv:cpu())
      same(mi, gmi:cpu())
    end
    for _, p in ipairs { 2, 1, 3, 0, math.huge, -math.huge } do
      check("norm " .. p, function(t) return t:norm(p) end, { x }, 1e-5)
    end
    check("norm over dims", function(t) return torch.norm(t, 2, { 1, 3 }, true) end, { x }, 1e-5)
  end)

  it("adds rows at indices, and gives an embedding's gradient", function()
    check("index_add_", function(s, i, src) return s:clone():index_add_(1, i, src, { alpha = 2 }) end,
      { torch.zeros(5, 3), torch.tensor({ 1, 3, 1, 5 }), torch.randn(4, 3) }, 1e-6)
    local function grad(device)
      torch.manual_seed(2)
      local e = torch.nn.Embedding(10, 4):to(device)
      local y = e(torch.tensor({ { 1, 2, 2 }, { 9, 1, 10 } }):to(device))
      torch.sum(y * y):backward()
      return e.weight.grad
    end
    same(grad("cpu"), grad("cuda"):cpu(), 1e-6)
    local l = torch.nn.Linear(3, 2):to("cuda")
    torch.sum(l(torch.randn(5, 3):cuda())):backward()
    local total = torch.nn.utils.clip_grad_norm_(l:parameters(), 0.5)
    assert.is_true(total:item() > 0)
  end)
end)

describe("average pooling and triangles on cuda", function()
  local x = torch.randn(2, 3, 7, 6)

  it("averages windows as avg_pool2d and adaptive_avg_pool2d do, with gradients", function()
    check("avg_pool2d", function(t) return torch.avg_pool2d(t, 3, 2, 1) end, { x }, 1e-6)
    check("avg_pool2d no pad count, ceil", function(t)
      return torch.nn.functional.avg_pool2d(t, 3, { stride = 2, padding = 1, ceil_mode = true, count_include_pad = false })
    end, { x }, 1e-6)
    check("divisor_override", function(t) return torch.nn.functional.avg_pool2d(t, 2, { divisor_override = 3 }) end, { x }, 1e-6)
    check("adaptive", function(t) return torch.nn.functional.adaptive_avg_pool2d(t, { 3, 4 }) end, { x }, 1e-6)
    check("adaptive to 1", function(t) return torch.nn.functional.adaptive_avg_pool2d(t, 1) end, { x }, 1e-6)
    local function grads(device)
      local X = x:clone():to(device):requires_grad_()
      local a = torch.avg_pool2d(X, 3, 2, 1)
      local b = torch.nn.functional.adaptive_avg_pool2d(X, { 3, 4 })
      return torch.autograd.grad(torch.sum(a * a) + torch.sum(b * b), { X })[1]
    end
    same(grads("cpu"), grads("cuda"):cpu(), 1e-5)
  end)

  it("keeps the lower or upper triangle, in place too", function()
    local m = torch.randn(2, 4, 5)
    check("tril", function(t) return t:tril() end, { m })
    check("triu 1", function(t) return t:triu(1) end, { m })
    check("tril -1 of a view", function(t) return t:transpose(2, 3):tril(-1) end, { m })
    check("triu_", function(t) return t:clone():triu_(-1) end, { m })
  end)
end)

describe("running sums, products and where with numbers on cuda", function()
  local x = torch.rand(3, 5) + 0.5

  it("computes cumsum, cumprod and prod as the CPU does", function()
    check("cumsum", function(t) return t:cumsum(2) end, { x }, 1e-6)
    check("cumsum of a view", function(t) return t:t():cumsum(1) end, { x }, 1e-6)
    check("cumprod", function(t) return t:cumprod(1) end, { x }, 1e-6)
    check("int cumsum to int64", function(t) return t:cumsum(1) end, { torch.randint(-5, 5, { 6 }):int() })
    check("prod", torch.prod, { x }, 1e-5)
    check("prod dim", function(t) return t:prod(2, { keepdim = true }) end, { x }, 1e-6)
    check("int prod", torch.prod, { torch.tensor({ 2, -3, 4 }) })
  end)

  it("selects between a tensor and a number, and logsumexp works", function()
    local c = x:gt(1)
    check("where scalar other", function(cond, t) return torch.where(cond, t, 0) end, { c, x })
    check("where scalar self", function(cond, t) return torch.where(cond, -1.5, t) end, { c, x })
    check("where two numbers", function(cond) return torch.where(cond, 1, 0) end, { c })
    check("logsumexp", function(t) return t:logsumexp(2) end, { x }, 1e-6)
  end)
end)

-- every result of op (a tensor or several) on the CPU and on cuda, compared; with `strides`,
-- their layouts too
local function check_all(name, op, args, tol, strides)
  local dev = {}
  for i, a in ipairs(args) do dev[i] = torch.is_tensor(a) and a:cuda() or a end
  local want, got = table.pack(op(table.unpack(args))), table.pack(op(table.unpack(dev)))
  assert.are.equal(want.n, got.n, name)
  for k = 1, want.n do
    assert.are.equal("cuda", got[k].device.type, name)
    same(want[k], got[k]:cpu(), tol)
    if strides and want[k]:numel() > 1 then
      assert.are.same(want[k]:stride(), got[k]:stride(), name .. " strides")
    end
  end
end

describe("sort, topk, kthvalue and the medians on cuda", function()
  local x = torch.randn(5, 7, 6)
  -- ties, NaN and infinities: the order of equal values and where NaN goes are checked
  local special = torch.tensor({ { 3, 0 / 0, 1, 2, 1, -1 / 0, 0 / 0, 1 }, { 5, 4, 0 / 0, 4, 1 / 0, 0, -0.0, 4 } })

  it("sorts along any dim, both ways, stably, with NaN greater than everything", function()
    for d = 1, 3 do
      for _, desc in ipairs { false, true } do
        check_all("sort " .. d, function(t) return t:sort(d, desc) end, { x })
      end
    end
    check_all("sort of a view", function(t) return t:transpose(1, 3):sort(2) end, { x })
    check_all("sort of a strided view", function(t) return t:select(2, 3):narrow(2, 1, 5):sort(1, true) end, { x })
    for _, desc in ipairs { false, true } do
      check_all("special", function(t) return t:sort(2, desc) end, { special })
      check_all("special dim 1", function(t) return t:sort(1, desc) end, { special })
      check_all("float64", function(t) return t:sort(2, desc) end, { special:double() })
      check_all("float16", function(t) return t:sort(2, desc) end, { special:half() })
      check_all("int64 ties", function(t) return t:sort(2, desc) end, { torch.randint(-3, 3, { 4, 50 }) })
      check_all("int32", function(t) return t:sort(1, desc) end, { torch.randint(-9, 9, { 40, 3 }):int() })
      check_all("bool", function(t) return t:sort(1, desc) end, { torch.tensor({ true, false, true, false }) })
    end
    check_all("sort.stable", function(t) return torch.sort(t, { stable = true, dim = 1, descending = true }) end,
      { torch.randint(0, 3, { 30, 2 }) })
    -- longer than the threads of one launch: the grid-stride loops go round
    check_all("long row", function(t) return t:sort(1, true) end, { torch.randint(-50, 50, { 20000 }) })
    check_all("long float row", function(t) return t:sort() end, { torch.randn(9000) })
    check_all("empty rows", function(t) return t:sort(1) end, { torch.randn(0, 3) })
    check_all("empty dim", function(t) return t:sort(2) end, { torch.randn(3, 0) })
    check_all("0-d", function(t) return t:sort() end, { torch.tensor(2.5) })
    check("argsort", function(t) return t:argsort(2, true) end, { x })
    check("msort", torch.msort, { special })
  end)

  it("takes the k largest or smallest, and the k-th smallest", function()
    for _, largest in ipairs { true, false } do
      check_all("topk", function(t) return t:topk(3, 2, largest) end, { x })
      check_all("topk dim 1 of a view", function(t) return t:t():topk(2, 1, largest) end, { special })
      check_all("topk int", function(t) return t:topk(5, 1, largest) end, { torch.randint(0, 4, { 12 }) })
      check_all("topk float64", function(t) return t:topk(4, 3, largest) end, { x:double() })
    end
    check_all("topk 0", function(t) return t:topk(0, 2) end, { x })
    check_all("topk of empty", function(t) return t:topk(0, 2) end, { torch.randn(3, 0) })
    for _, keep in ipairs { false, true } do
      check_all("kthvalue", function(t) return t:kthvalue(4, 2, keep) end, { x })
      check_all("kthvalue NaN", function(t) return t:kthvalue(7, 2, keep) end, { special })
      check_all("kthvalue int", function(t) return t:kthvalue(2, 1, keep) end, { torch.randint(0, 5, { 6, 3 }) })
      check_all("kthvalue of a view", function(t) return t:transpose(1, 2):kthvalue(1, 3, keep) end, { x })
    end
    check_all("kthvalue 0-d", function(t) return t:kthvalue(1) end, { torch.tensor(-1.5) })
    local c = x:cuda()
    assert.are.equal("selected index k out of range", err(function() return c:topk(8, 2) end))
    assert.are.equal("selected index k out of range", err(function() return c:topk(-1) end))
    assert.are.equal("kthvalue(): selected number k out of range for dimension 2",
      err(function() return c:kthvalue(8, 2) end))
    assert.are.equal("kthvalue(): selected number k out of range for dimension 3",
      err(function() return c:kthvalue(0) end))
    assert.are.equal("Dimension out of range (expected to be in range of [-3, 3], but got 4)",
      err(function() return c:sort(4) end))
  end)

  it("gives the medians, the mode and quantiles, which sort underlies", function()
    check("median", torch.median, { x })
    check("median NaN", torch.median, { special })
    check_all("median dim", function(t) return t:median(2) end, { x })
    check_all("median dim NaN", function(t) return t:median(2, true) end, { special })
    check_all("nanmedian dim", function(t) return t:nanmedian(2) end, { special })
    check("nanmedian", torch.nanmedian, { special })
    check_all("mode", function(t) return t:mode(2) end, { torch.randint(0, 3, { 4, 9 }) })
    check("quantile", function(t) return torch.quantile(t, 0.3, 2) end, { x }, 1e-6)
    check("quantiles", function(t, q) return torch.quantile(t, q, 1, true) end, { x, torch.tensor({ 0, 0.25, 1 }) }, 1e-6)
    local e = torch.randn(2, 0):cuda()
    assert.are.equal("median(): Expected reduction dim 2 to have non-zero size.", err(function() return e:median(2) end))
  end)
end)

describe("division with rounding modes and lerp on cuda (nanmedian and quantile use them)", function()
  it("rounds quotients toward zero or down, and interpolates", function()
    local a, b = torch.randn(4, 5) * 10, torch.randn(5) + 3
    local i, j = torch.randint(-20, 20, { 4, 5 }), torch.tensor({ 3, -3, 7, 1, -1 })
    for _, mode in ipairs { "trunc", "floor" } do
      check("div " .. mode, function(x, y) return torch.div(x, y, { rounding_mode = mode }) end, { a, b }, 1e-6)
      check("int div " .. mode, function(x, y) return torch.div(x, y, { rounding_mode = mode }) end, { i, j })
      check("div scalar " .. mode, function(x) return torch.div(x, -4, { rounding_mode = mode }) end, { i })
      check("div_ " .. mode, function(x, y) return x:clone():div_(y, { rounding_mode = mode }) end, { a:t(), b:view(5, 1) }, 1e-6)
    end
    check("lerp scalar", function(x, y) return torch.lerp(x, y, 0.3) end, { a, b }, 1e-6)
    check("lerp tensor", function(x, y, w) return torch.lerp(x, y, w) end, { a, b, torch.rand(4, 1) }, 1e-6)
    check("lerp_", function(x, y) return x:clone():lerp_(y, 0.75) end, { a:double(), b:double() })
  end)
end)

describe("nonzero, masked_select and indexing with tensors on cuda", function()
  local x = torch.randn(4, 5, 3)
  local special = torch.tensor({ { 0, 1.5, 0 / 0 }, { -0.0, 0, -2 } })

  it("finds the nonzero elements in C order, laid out as PyTorch's", function()
    check("nonzero", torch.nonzero, { x:gt(0.3) })
    check("nonzero NaN and -0", torch.nonzero, { special })
    check("nonzero float64 of a view", function(t) return t:transpose(1, 3):nonzero() end, { x:double():clamp(0) })
    check("nonzero int", torch.nonzero, { torch.randint(-1, 2, { 6, 7 }) })
    check("nonzero float16", torch.nonzero, { special:half() })
    check("nonzero none", torch.nonzero, { torch.zeros(3, 2) })
    check("nonzero empty", torch.nonzero, { torch.zeros(0, 4) })
    check("nonzero 0-d", torch.nonzero, { torch.tensor(3) })
    check("nonzero 0-d zero", torch.nonzero, { torch.tensor(0) })
    check("argwhere", torch.argwhere, { x:lt(0) })
    -- several parts of the count and fill passes
    local long = torch.rand(5000):lt(0.1)
    check("nonzero long", torch.nonzero, { long })
    check("nonzero long 2-d view", function(t) return t:view(50, 100):t():nonzero() end, { long })
    assert.are.same(long:view(50, 100):nonzero():stride(), long:cuda():view(50, 100):nonzero():stride())
  end)

  it("selects by a mask, the two broadcast together", function()
    local m = x:gt(0)
    check("masked_select", torch.masked_select, { x, m })
    check("mask broadcast", torch.masked_select, { x, torch.tensor({ true, false, true }) })
    check("self broadcast", torch.masked_select, { torch.randn(3), m })
    check("uint8 mask", torch.masked_select, { x, m:byte() })
    check("of views", function(t, k) return t:transpose(1, 2):masked_select(k:transpose(1, 2)) end, { x, m })
    for _, dt in ipairs { torch.float64, torch.int64, torch.float16, torch.int8, torch.bool } do
      check("masked_select " .. tostring(dt), torch.masked_select, { x:mul(3):to(dt), m })
    end
    check("long mask", torch.masked_select, { torch.arange(3000), torch.rand(3000):gt(0.7) })
    check("empty", torch.masked_select, { torch.randn(0, 3), torch.ones(0, 3):bool() })
    check("none", torch.masked_select, { x, x:gt(100) })
    check("x[mask]", function(t) return t[t:gt(0)] end, { x })
    local g = x:cuda()
    assert.are.equal("masked_select: expected BoolTensor for mask", err(function() return g:masked_select(g) end))
    assert.are.equal(err(function() return x:masked_select(torch.ones(2):bool()) end),
      err(function() return g:masked_select(torch.ones(2, { device = "cuda" }):bool()) end))
    assert.are.equal("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
      err(function() return g:masked_select(m) end))
  end)

  it("picks elements with index tensors and masks, as PyTorch's advanced indexing", function()
    local i, j = torch.tensor({ 4, 1, -1, 2 }), torch.tensor({ { 1 }, { 3 } })
    check("x[i]", function(t, k) return t[k] end, { x, i })
    check("x[i] with a CPU index", function(t) return t[i] end, { x })
    check("x[:, j]", function(t, k) return t[{ ":", k }] end, { x, j })
    check("x[i, j] broadcast", function(t, a, b) return torch._index(t, { a, b }) end, { x, torch.tensor({ 1, 4 }), j })
    check("x[j, :, k] apart", function(t, a, b) return torch._index(t, { a, false, b }) end, { x, j, torch.tensor({ 2, 1 }) })
    check("x[mask 2-d]", function(t, k) return torch._index(t, { k }) end, { x, x:select(3, 1):gt(0) })
    check("x[:, mask]", function(t, k) return t[{ ":", k }] end, { x, torch.tensor({ true, false, false, true, true }) })
    check("of a view", function(t, k) return t:transpose(1, 3)[k] end, { x, torch.tensor({ 3, 1 }) })
    for _, dt in ipairs { torch.float64, torch.int64, torch.float16, torch.bool, torch.int16 } do
      check("x[i] " .. tostring(dt), function(t, k) return t[k] end, { x:mul(2):to(dt), i })
    end
    check("empty index", function(t, k) return t[k] end, { x, torch.tensor({}, { dtype = torch.int64 }) })
    check("empty self", function(t, k) return t[{ ":", k }] end, { torch.randn(0, 3), torch.tensor({ 2, 3 }) })
    local g = x:cuda()
    assert.are.equal(err(function() return x[torch.tensor({ 5 })] end), err(function() return g[torch.tensor({ 5 }):cuda()] end))
    assert.are.equal("index 5 is out of bounds for dimension 1 with size 4", err(function() return g[torch.tensor({ 2, 5 })] end))
    assert.are.equal("index -6 is out of bounds for dimension 2 with size 5",
      err(function() return torch._index(g, { torch.tensor({ 1 }), torch.tensor({ -6 }) }) end))
    assert.are.equal(err(function() return torch._index(x, { i, torch.tensor({ 1, 2 }) }) end),
      err(function() return torch._index(g, { i, torch.tensor({ 1, 2 }) }) end))
  end)

  it("writes and adds at index tensors and masks, checking every index first", function()
    local i = torch.tensor({ 2, 4, -1 })
    check("put", function(t, k, v) return t:clone():index_put_({ k }, v) end, { x, i, torch.randn(3, 5, 3) })
    check("put broadcast values", function(t, k, v) return t:clone():index_put_({ k }, v) end, { x, i, torch.randn(3) })
    check("put 2 indices", function(t, a, b, v) return t:clone():index_put_({ a, false, b }, v) end,
      { x, torch.tensor({ 1, 3 }), torch.tensor({ 3, 1 }), torch.randn(2, 5) })
    check("put by mask", function(t, v) local c = t:clone(); c[c:gt(0)] = v; return c end, { x, torch.tensor(7.5) })
    check("put tensor by mask", function(t) local c = t:clone(); c[c:lt(0)] = c[c:lt(0)] * 2; return c end, { x })
    check("put into a view", function(t, k, v) local c = t:clone(); c:transpose(1, 2):index_put_({ k }, v); return c end,
      { x, torch.tensor({ 5, 1 }), torch.randn(2, 4, 3) })
    check("put int64", function(t, k, v) return t:clone():index_put_({ k }, v) end, { torch.arange(6), i, torch.tensor({ 7, 8, 9 }) })
    check("put bool", function(t, k, v) return t:clone():index_put_({ k }, v) end,
      { torch.zeros(5):bool(), i, torch.tensor({ true, true, false }) })
    -- repeated positions add up
    local rep = torch.tensor({ 1, 3, 1, 1, -1 })
    check("accumulate", function(t, k, v) return t:clone():index_put_({ k }, v, true) end, { x:double(), rep, torch.randn(5, 5, 3):double() }, 1e-12)
    check("accumulate float", function(t, k, v) return t:clone():index_put_({ k }, v, true) end, { x, rep, torch.randn(5, 1, 3) }, 1e-5)
    check("accumulate int64", function(t, k, v) return t:clone():index_put_({ k }, v, true) end,
      { torch.arange(6), rep, torch.tensor({ 1, 2, 3, 4, 5 }) })
    check("accumulate int32", function(t, k, v) return t:clone():index_put_({ k }, v, true) end,
      { torch.arange(6):int(), rep, torch.tensor({ 1, 2, 3, 4, 5 }):int() })
    check("index_put", function(t, k, v) return torch.index_put(t, { k }, v) end, { x, i, torch.tensor(1.0) })
    -- a bad index leaves self as it was
    local g = x:cuda()
    assert.are.equal("index 5 is out of bounds for dimension 1 with size 4",
      err(function() g:index_put_({ torch.tensor({ 1, 5 }) }, torch.tensor(0.0):cuda()) end))
    assert.is_true(torch.equal(x, g:cpu()))
    assert.are.equal(err(function() x:clone():index_put_({ i }, torch.randn(2, 5, 3)) end),
      err(function() g:index_put_({ i }, torch.randn(2, 5, 3):cuda()) end))
    assert.are.equal(err(function() x:clone():index_put_({ i }, torch.randn(3, 5, 3):double()) end),
      err(function() g:index_put_({ i }, torch.randn(3, 5, 3):double():cuda()) end))
  end)
end)

describe("lgamma, digamma and erfinv on cuda", function()
  -- poles, signed zeros, infinities, NaN, tiny and large arguments, the reflection below 0
  local g = torch.tensor({ -2.5, -1, -0.0, 0, 0.5, 1, 2, 3.7, 9.99, 10.5, 100, 1e10, 1 / 0, -1 / 0, 0 / 0, 1e-8, -3.3, -1e-3 })
  -- erfinv's tails are ill-conditioned (near 1 an ulp of erf moves the result by much more): a
  -- GPU's erf and exp, not the host's, may round differently there, hence its looser tolerances
  local e = torch.tensor({ -1, -0.99, -0.7, -0.5, 0, 0.3, 0.7, 0.71, 0.9999, 1, 1.5, -2, 0 / 0, 1e-9 })

  it("computes them as the CPU does, for floats, doubles and integers, in place too", function()
    for _, f in ipairs { "lgamma", "digamma", "erfinv" } do
      local x, ftol, dtol = g, 1e-5, 1e-12
      if f == "erfinv" then x, ftol, dtol = e, 1e-4, 1e-9 end
      check(f, torch[f], { x }, ftol)
      check(f .. " float64", torch[f], { x:double() }, dtol)
      check(f .. " of a view", function(t) return torch[f](t:view(2, -1):t()) end, { x }, ftol)
      check(f .. "_", function(t) local c = t:clone(); return c[f .. "_"](c) end, { x:double() }, dtol)
      check(f .. " empty", torch[f], { torch.randn(0, 2) })
    end
    check("lgamma int", torch.lgamma, { torch.randint(-3, 30, { 20 }) }, 1e-5)
    check("digamma int", torch.digamma, { torch.randint(-3, 30, { 20 }) }, 1e-5)
    check("erfinv int", torch.erfinv, { torch.tensor({ -1, 0, 1, 2 }) })
    check("random lgamma", torch.lgamma, { torch.randn(300):mul(20) }, 1e-5)
    check("random erfinv", torch.erfinv, { torch.rand(300):mul(1.8):sub(0.9):double() }, 1e-12)
    for n = 0, 3 do
      check("polygamma " .. n, function(t) return torch.polygamma(n, t) end, { g }, 1e-5)
      check("polygamma_ " .. n, function(t) return t:clone():polygamma_(n) end, { g:double() }, 1e-12)
    end
    local c = g:cuda()
    assert.are.equal(err(function() return torch.polygamma(-1, g) end), err(function() return torch.polygamma(-1, c) end))
  end)

  it("differentiates through them", function()
    local x = torch.rand(6):double() * 0.8 + 0.1
    local function grads(device)
      local X = x:clone():to(device):requires_grad_()
      local y = torch.sum(torch.lgamma(X) + torch.erfinv(X) * torch.digamma(X))
      return torch.autograd.grad(y, { X })[1]
    end
    same(grads("cpu"), grads("cuda"):cpu(), 1e-9)
  end)
end)

-- the CPU refuses float16 for these (PyTorch 1.13's CPU kernels do) and CUDA takes float16 and
-- bfloat16: op of a half tensor on cuda against op of the same values as float on the CPU, the
-- floating results rounded to the half type
local function half_like_float(name, op, t, tol)
  local want, got = table.pack(op(t:float())), table.pack(op(t:cuda()))
  assert.are.equal(want.n, got.n, name)
  for k = 1, want.n do
    local w = want[k].dtype.is_floating_point and want[k]:to(t.dtype) or want[k]
    same(w, got[k]:cpu(), tol)
  end
end

describe("the scans cummax, cummin and logcumsumexp on cuda", function()
  local x = torch.randn(5, 7, 6)
  -- ties, NaN (later NaN take over) and infinities, both signs of zero
  local special = torch.tensor({ { 3, 0 / 0, 1, 3, 1, -1 / 0, 0 / 0, 1 }, { 5, 4, 4, -1 / 0, 1 / 0, 0, -0.0, 4 },
    { -1 / 0, -1 / 0, 1 / 0, 1 / 0, 0 / 0, 2, 0 / 0, -1 / 0 } })

  it("takes running extremes and their last positions, NaN propagating, as the CPU does", function()
    for _, m in ipairs { "cummax", "cummin" } do
      for d = 1, 3 do check_all(m .. " " .. d, function(t) return t[m](t, d) end, { x }) end
      check_all(m .. " -1", function(t) return t[m](t, -1) end, { x })
      check_all(m .. " of a view", function(t) return t:transpose(1, 3)[m](t:transpose(1, 3), 2) end, { x })
      check_all(m .. " of a strided view", function(t) local v = t:select(2, 3):narrow(2, 2, 4); return v[m](v, 1) end, { x })
      for _, d in ipairs { 1, 2 } do
        check_all(m .. " special " .. d, function(t) return t[m](t, d) end, { special })
        check_all(m .. " float64 " .. d, function(t) return t[m](t, d) end, { special:double() })
        for _, dt in ipairs { torch.float16, torch.bfloat16 } do
          half_like_float(m .. " " .. tostring(dt) .. " " .. d, function(t) return t[m](t, d) end, special:to(dt))
        end
      end
      for _, dt in ipairs { torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8 } do
        check_all(m .. " ties " .. tostring(dt), function(t) return t[m](t, 2) end, { torch.randint(0, 4, { 3, 40 }):to(dt) })
      end
      check_all(m .. " int extremes", function(t) return t[m](t, 1) end,
        { torch.tensor({ 9223372036854775807, -9223372036854775807 - 1, 0, 9223372036854775807 }) })
      check_all(m .. " bool", function(t) return t[m](t, 1) end, { torch.tensor({ false, true, false, true }) })
      check_all(m .. " 0-d", function(t) return t[m](t, 1) end, { torch.tensor(2.5) })
      check_all(m .. " empty dim", function(t) return t[m](t, 2) end, { torch.randn(3, 0) })
      check_all(m .. " empty rows", function(t) return t[m](t, 2) end, { torch.randn(0, 4) })
      -- more rows than a block's threads, and a long row
      check_all(m .. " many rows", function(t) return t[m](t, 2) end, { torch.randn(3000, 3) })
      check_all(m .. " long row", function(t) return t[m](t, 1) end, { torch.randint(-50, 50, { 5000 }) })
      check_all(m .. " out=", function(t, v, i) torch[m](t, 2, { out = { v, i } }); return v, i end,
        { x, torch.empty(0), torch.empty(0, { dtype = torch.int64 }) })
    end
  end)

  it("computes logcumsumexp stably, with PyTorch's rules for infinities and NaN", function()
    for d = 1, 3 do check("logcumsumexp " .. d, function(t) return t:logcumsumexp(d) end, { x }, 1e-5) end
    check("logcumsumexp of a view", function(t) return t:transpose(1, 3):logcumsumexp(1) end, { x }, 1e-5)
    check("logcumsumexp large", function(t) return t:logcumsumexp(2) end, { x * 300 }, 1e-5)
    for _, d in ipairs { 1, 2 } do
      check("logcumsumexp special " .. d, function(t) return t:logcumsumexp(d) end, { special }, 1e-5)
      check("logcumsumexp float64 " .. d, function(t) return t:logcumsumexp(d) end, { special:double() }, 1e-12)
      for _, dt in ipairs { torch.float16, torch.bfloat16 } do
        half_like_float("logcumsumexp " .. tostring(dt) .. " " .. d, function(t) return t:logcumsumexp(d) end, special:to(dt), 1e-2)
      end
    end
    check("logcumsumexp float64", function(t) return t:logcumsumexp(3) end, { x:double() }, 1e-12)
    check("logcumsumexp many rows", function(t) return t:logcumsumexp(2) end, { torch.randn(3000, 3) }, 1e-5)
    check("logcumsumexp 0-d", function(t) return t:logcumsumexp(1) end, { torch.tensor(-1.5) })
    check("logcumsumexp empty", function(t) return t:logcumsumexp(1) end, { torch.randn(0, 3) })
  end)

  it("differentiates through them and refuses what the CPU refuses", function()
    local function grads(device)
      local X = x:double():to(device):requires_grad_()
      local y = X:cummax(2)[1]:sum() + (X:cummin(3)[1] * X):sum() + X:logcumsumexp(1):sum()
      return torch.autograd.grad(y, { X })[1]
    end
    same(grads("cpu"), grads("cuda"):cpu(), 1e-9)
    local g, i = x:cuda(), torch.randint(0, 5, { 4 })
    for _, f in ipairs {
      function(t) return t:cummax(4) end,
      function(t) return t:cummin(-4) end,
      function(t) return t:logcumsumexp(4) end,
    } do
      assert.are.equal(err(f, x), err(f, g))
    end
    assert.are.equal(err(function() return i:logcumsumexp(1) end), err(function() return i:cuda():logcumsumexp(1) end))
    assert.are.equal(err(function() return i:bool():logcumsumexp(1) end), err(function() return i:bool():cuda():logcumsumexp(1) end))
  end)
end)

describe("take and masked_scatter_ on cuda", function()
  local x = torch.randn(4, 5, 3)
  local m = x:gt(0)

  it("takes elements of the flattened self, wrapping negative positions", function()
    local i = torch.tensor({ { 1, 60, -1 }, { 7, -60, 7 } })
    check("take", torch.take, { x, i })
    check("take of a view", function(t, k) return t:transpose(1, 3):take(k) end, { x, i })
    check("take of a strided view", function(t, k) return t:select(2, 2):narrow(1, 2, 3):take(k) end, { x, torch.tensor({ 9, -2, 1 }) })
    check("take by an index view", function(t, k) return t:take(k:t()) end, { x, i })
    for _, dt in ipairs { torch.float64, torch.int64, torch.float16, torch.bfloat16, torch.bool, torch.int8, torch.int16 } do
      check("take " .. tostring(dt), torch.take, { x:mul(3):to(dt), i })
    end
    check("take 0-d index", torch.take, { x, torch.tensor(5) })
    check("take of 0-d", torch.take, { torch.tensor(2.5), torch.tensor({ 1, -1, 1 }) })
    check("take empty index", torch.take, { x, torch.tensor({}, { dtype = torch.int64 }) })
    check("take from empty", torch.take, { torch.randn(0, 3), torch.zeros(2, 0):long() })
    -- more positions than one block's threads
    check("take long", torch.take, { torch.randn(300, 7), torch.randint(1, 2101, { 5000 }) * (torch.randint(0, 2, { 5000 }) * 2 - 1) })
    local g = x:cuda()
    for _, bad in ipairs { { 61 }, { -61 }, { 0 }, { 3, 99, 4 } } do
      local k = torch.tensor(bad)
      assert.are.equal(err(torch.take, x, k), err(torch.take, g, k:cuda()))
    end
    assert.are.equal("out of range: tried to access index 61 on a tensor of 60 elements.",
      err(torch.take, g, torch.tensor({ 61 }):cuda()))
    assert.are.equal(err(torch.take, x, i:int()), err(torch.take, g, i:int():cuda()))
    assert.are.equal(err(torch.take, torch.randn(0), i), err(torch.take, torch.randn(0):cuda(), i:cuda()))
    assert.are.equal("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
      err(torch.take, g, i))
  end)

  it("writes the source's elements in order where the mask is true, in place", function()
    local src = torch.randn(70)
    check("masked_scatter_", function(t, k, s) return t:clone():masked_scatter_(k, s) end, { x, m, src })
    check("masked_scatter", torch.masked_scatter, { x, m, src })
    check("mask broadcast", function(t, k, s) return t:clone():masked_scatter_(k, s) end,
      { x, torch.tensor({ true, false, true }), src })
    check("into a view", function(t, k, s) local c = t:clone(); c:transpose(1, 3):masked_scatter_(k, s); return c end,
      { x, m:transpose(1, 3), src })
    check("source a view", function(t, k, s) return t:clone():masked_scatter_(k, s) end, { x, m, torch.randn(9, 8):t() })
    check("uint8 mask", function(t, k, s) return t:clone():masked_scatter_(k, s) end, { x, m:byte(), src })
    for _, dt in ipairs { torch.float64, torch.int64, torch.float16, torch.bfloat16, torch.bool, torch.int8, torch.int32 } do
      check("masked_scatter_ " .. tostring(dt), function(t, k, s) return t:clone():masked_scatter_(k, s) end,
        { x:mul(3):to(dt), m, src:mul(5):to(dt) })
    end
    -- several parts of the count and fill passes
    check("long", function(t, k, s) return t:clone():masked_scatter_(k, s) end,
      { torch.arange(3000), torch.rand(3000):gt(0.4), torch.arange(3000):neg() })
    check("none", function(t, k, s) return t:clone():masked_scatter_(k, s) end, { x, x:gt(100), torch.randn(0) })
    check("empty", function(t, k, s) return t:clone():masked_scatter_(k, s) end,
      { torch.randn(0, 3), torch.ones(0, 3):bool(), torch.randn(2) })
    check("0-d", function(t, k, s) return t:clone():masked_scatter_(k, s) end, { torch.tensor(1.5), torch.tensor(true), torch.randn(2) })
    -- a short source is refused before anything is written
    local g = x:cuda()
    assert.are.equal("Number of elements of source < number of ones in mask",
      err(function() g:masked_scatter_(m:cuda(), torch.randn(3):cuda()) end))
    assert.is_true(torch.equal(x, g:cpu()))
    local function ms(t, k, v) return t:clone():masked_scatter_(k, v) end
    for _, bad in ipairs { { m, torch.randn(3) }, { m:double(), src }, { m, src:double() }, { m:view(-1), src },
      { torch.ones(2, 1, 1):bool(), src } } do
      assert.are.equal(err(ms, x, bad[1], bad[2]), err(ms, g, bad[1]:cuda(), bad[2]:cuda()))
    end
    assert.are.equal("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
      err(ms, g, m:cuda(), src))
  end)

  it("differentiates through them", function()
    local src, i = torch.randn(70):double(), torch.tensor({ 3, 3, -1, 17 })
    local function grads(device)
      local X, S = x:double():to(device):requires_grad_(), src:to(device):requires_grad_()
      local y = (X:masked_scatter(m:to(device), S) * X):sum() + torch.take(X, i:to(device)):mul(2):sum()
      return torch.autograd.grad(y, { X, S })
    end
    local a, b = grads("cpu"), grads("cuda")
    same(a[1], b[1]:cpu(), 1e-12)
    same(a[2], b[2]:cpu(), 1e-12)
  end)
end)

describe("scatter_add_, index_add_ and accumulating index_put_ of the narrow dtypes on cuda", function()
  -- no atomic addition is narrower than 32 bits: these swap the word that holds the element, so
  -- neighbours in one word, hit by different threads, must both keep their sums. Integer values:
  -- the sums are exact in any order (the half types' too, being small), and integers wrap as on
  -- the CPU
  local narrow = { torch.uint8, torch.int8, torch.int16, torch.float16, torch.bfloat16, torch.bool }
  local function values(dt, n) return dt == torch.bool and torch.rand(n):gt(0.7) or torch.randint(-4, 5, n):to(dt) end

  it("adds at repeated indices, every element of a word kept", function()
    local i = torch.randint(1, 6, { 4, 30 })
    for _, dt in ipairs(narrow) do
      local name = tostring(dt)
      check("scatter_add_ " .. name, function(s, k, v) return s:clone():scatter_add_(2, k, v) end, { values(dt, { 4, 5 }), i, values(dt, { 4, 30 }) })
      check("scatter_add_ dim 1 " .. name, function(s, k, v) return s:clone():scatter_add_(1, k, v) end,
        { values(dt, { 7, 3 }), torch.randint(1, 8, { 50, 3 }), values(dt, { 50, 3 }) })
      check("scatter_add into a view " .. name, function(s, k, v) local c = s:clone(); c:t():scatter_add_(2, k, v); return c end,
        { values(dt, { 5, 4 }), i, values(dt, { 4, 30 }) })
      check("scatter_add " .. name, function(s, k, v) return torch.scatter_add(s, 1, k, v) end,
        { values(dt, { 9 }), torch.randint(1, 10, { 400 }), values(dt, { 400 }) })
      check("index_add_ " .. name, function(s, k, v) return s:clone():index_add_(1, k, v) end,
        { values(dt, { 6, 3 }), torch.randint(1, 7, { 40 }), values(dt, { 40, 3 }) })
      check("index_put_ accumulate " .. name, function(s, k, v) return s:clone():index_put_({ k }, v, true) end,
        { values(dt, { 11 }), torch.randint(-11, 11, { 300 }):add(1):clamp(1, 11), values(dt, { 300 }) })
      check("scatter_add_ empty " .. name, function(s, k, v) return s:clone():scatter_add_(1, k, v) end,
        { values(dt, { 3 }), torch.zeros(0):long(), values(dt, { 0 }) })
    end
    for _, dt in ipairs { torch.uint8, torch.int8, torch.int16, torch.float16, torch.bfloat16 } do
      check("index_add_ alpha " .. tostring(dt), function(s, k, v) return s:clone():index_add_(2, k, v, { alpha = 3 }) end,
        { values(dt, { 2, 6 }), torch.tensor({ 6, 1, 6, 2 }), values(dt, { 2, 4 }) })
    end
    -- wrapping, and the half types' rounding of sums that are not exact
    check("uint8 wraps", function(s, k, v) return s:clone():scatter_add_(1, k, v) end,
      { torch.full({ 3 }, 250):byte(), torch.tensor({ 1, 1, 3 }), torch.tensor({ 4, 9, 200 }):byte() })
    check("int8 wraps", function(s, k, v) return s:clone():index_add_(1, k, v) end,
      { torch.full({ 2 }, 120):char(), torch.tensor({ 2, 2 }), torch.tensor({ 7, 100 }):char() })
    check("float16 rounds", function(s, k, v) return s:clone():scatter_add_(1, k, v) end,
      { torch.tensor({ 2048, 1 }):half(), torch.tensor({ 1, 2 }), torch.tensor({ 1, 0.1 }):half() })
    check("float16 random", function(s, k, v) return s:clone():scatter_add_(1, k, v) end,
      { torch.randn(5):half(), torch.tensor({ 1, 2, 3, 4, 5 }), torch.randn(5):half() }, 1e-3)
    local g = torch.zeros(3, { dtype = torch.int16 }):cuda()
    assert.are.equal(err(function() torch.zeros(3, { dtype = torch.int16 }):scatter_add_(1, torch.tensor({ 4 }), torch.ones(1):short()) end),
      err(function() g:scatter_add_(1, torch.tensor({ 4 }):cuda(), torch.ones(1):short():cuda()) end))
    assert.are.equal(err(function() torch.zeros(3):half():index_add_(1, torch.tensor({ 0 }), torch.ones(1):half()) end),
      err(function() g:half():index_add_(1, torch.tensor({ 0 }):cuda(), torch.ones(1):half():cuda()) end))
    assert.is_true(torch.equal(torch.zeros(3, { dtype = torch.int16 }), g:cpu()))
  end)
end)

describe("unique and unique_consecutive on cuda", function()
  -- every result (values, 1-based inverse, counts), exactly, with the CPU's layout of the values
  local function all(t, dim) return torch.unique(t, true, true, true, dim) end
  local function check_unique(name, x, dim)
    check_all(name, function(t) return all(t, dim) end, { x }, 0)
    local want, got = all(x, dim), all(x:cuda(), dim)
    assert.are.same(want:stride(), got:stride(), name)
  end
  -- ties, -0.0 against 0.0, infinities and NaN (after every number, each NaN on its own)
  local special = torch.tensor({ 2, 0 / 0, 1, -0.0, 0 / 0, 1 / 0, 0, 2, -1 / 0, 1, 0 / 0 })

  it("gives the sorted distinct values, the inverse and the counts of every dtype", function()
    check_unique("int64", torch.randint(-4, 5, { 7, 6 }))
    check_unique("special", special)
    check_unique("float64", special:double())
    check_unique("float16", special:half())
    check_unique("bfloat16", special:bfloat16())
    check_unique("int32", torch.randint(-3, 3, { 40 }):int())
    check_unique("uint8", torch.randint(0, 6, { 5, 4 }):byte())
    check_unique("bool", torch.tensor({ { true, false }, { true, true } }))
    check_unique("a view", torch.randint(0, 4, { 5, 6 }):t():narrow(1, 2, 3))
    -- many parts of the count and fill passes, runs of equal values across their borders
    check_unique("long", torch.randint(-30, 30, { 5000 }))
    check_unique("long float", torch.randn(3000):mul(8):round())
    check_unique("distinct", torch.randperm(2100):double())
    check_unique("one value", torch.full({ 1500 }, 7))
    check_unique("empty", torch.zeros(0, 3))
    check_unique("0-d", torch.tensor(-2.5))
    -- sorted = false sorts too, as on the CPU; the Lua front returns what was asked for
    local x = torch.randint(0, 5, { 30 })
    check("unsorted", function(t) return torch.unique(t, false) end, { x })
    check_all("counts only", function(t) return torch.unique(t, { return_counts = true }) end, { x })
    check_all("method", function(t) return t:unique(true, true) end, { x })
  end)

  it("gives the distinct slices along a dim, lexicographically ordered", function()
    local m = torch.randint(0, 2, { 6, 3, 4 })
    for d = -3, 3 do
      if d ~= 0 then check_unique("int dim " .. d, m, d) end
    end
    check_unique("float rows with NaN", torch.tensor({ { 1, 0 / 0 }, { 1, 0 / 0 }, { 0, 5 }, { 0 / 0, 1 }, { 0, 5 } }), 1)
    check_unique("float16 columns", special:view(1, 11):expand(2, 11):half(), 2)
    check_unique("bool rows", torch.tensor({ { true, false }, { false, true }, { true, false } }), 1)
    check_unique("a view's rows", torch.randint(0, 2, { 4, 7 }):t(), 1)
    -- the merge sort of rows over several launches and parts
    check_unique("many rows", torch.randint(0, 3, { 1300, 3 }), 1)
    check_unique("no rows", torch.zeros(0, 3), 1)
    check_unique("empty rows", torch.zeros(3, 0), 2)
    -- other dims empty: PyTorch's refusal, the same on both devices
    local cpu_err = err(torch.unique, torch.zeros(3, 0), true, true, true, 1)
    assert.are.equal(cpu_err, err(torch.unique, torch.zeros(3, 0, { device = "cuda" }), true, true, true, 1))
    assert.truthy(cpu_err:find("aren't selected", 1, true))
    check_unique("0-d", torch.tensor(4), 1)
    check_all("options table", function(t) return torch.unique(t, { dim = 2, return_inverse = true }) end, { m })
    local c = m:cuda()
    assert.are.equal(err(function() return torch.unique(m, { dim = 4 }) end), err(function() return torch.unique(c, { dim = 4 }) end))
    assert.are.equal(err(function() return torch.unique(m, { dim = -4 }) end), err(function() return torch.unique(c, { dim = -4 }) end))
    assert.are.equal(err(function() return torch.unique(m:float():requires_grad_()):sum():backward() end),
      err(function() return torch.unique(c:float():requires_grad_()):sum():backward() end))
  end)

  it("removes consecutive repeats of values and of slices", function()
    local function uc(t, dim) return torch.unique_consecutive(t, true, true, dim) end
    local runs = torch.tensor({ 1, 1, 2, 2, 3, 1, 1, 0 / 0, 0 / 0, 2, -0.0, 0 })
    check_all("values", uc, { runs }, 0)
    check_all("int64 2-d", uc, { torch.randint(0, 2, { 5, 4 }) })
    check_all("bfloat16", uc, { runs:bfloat16() }, 0)
    check_all("long", uc, { torch.randint(0, 2, { 3000 }) })
    check_all("dim 1", function(t) return uc(t, 1) end, { torch.tensor({ { 1, 1 }, { 1, 1 }, { 2, 3 }, { 2, 3 }, { 1, 1 } }) })
    check_all("dim 2 with NaN", function(t) return uc(t, 2) end, { torch.tensor({ { 1, 1, 0 / 0, 0 / 0 }, { 2, 2, 3, 3 } }) }, 0)
    check_all("empty", uc, { torch.zeros(0) })
    local h = runs:half()
    assert.are.equal(err(function() return torch.unique_consecutive(h) end),
      err(function() return torch.unique_consecutive(h:cuda()) end))
  end)
end)

describe("float16 and bfloat16 pooling on cuda", function()
  local x, w = torch.randn(2, 3, 9, 8), torch.randn(2, 3, 9, 8)
  -- the CPU in float32 over the same rounded values, its result rounded once: what accumulating
  -- in float, as PyTorch's CUDA kernels do, gives up to the order of the additions
  local function like(dt, pool, tol)
    local X = x:to(dt)
    local want = pool(X:float()):to(dt)
    local got = pool(X:cuda())
    assert.are.equal(dt, got.dtype)
    same(want, got:cpu(), tol)
  end
  -- the input's gradient of sum(pool(x) * g) for a g of the pooled shape (ones when not given)
  local function grad_like(dt, pool, tol, ones)
    local function grad(X, device)
      X = X:to(device):requires_grad_()
      local y = pool(X)
      local g = ones and torch.ones_like(y) or w:flatten():narrow(1, 1, y:numel()):view(y.shape):to(dt):to(y)
      return torch.autograd.grad(torch.sum(y * g), { X })[1]
    end
    local X = x:to(dt)
    same(grad(X:float(), "cpu"):to(dt), grad(X, "cuda"):cpu(), tol)
  end
  local pools = {
    max = function(t) return torch.max_pool2d(t, 3, 1, 1) end,
    ["max strided, dilated, ceil"] = function(t) return torch.max_pool2d(t, 2, 2, 1, 2, true) end,
    avg = function(t) return torch.avg_pool2d(t, 3, 1, 1) end,
    ["avg no pad count, ceil"] = function(t)
      return torch.nn.functional.avg_pool2d(t, 3, { stride = 2, padding = 1, ceil_mode = true, count_include_pad = false })
    end,
    ["avg divisor"] = function(t) return torch.nn.functional.avg_pool2d(t, 2, { divisor_override = 3 }) end,
    adaptive = function(t) return torch.nn.functional.adaptive_avg_pool2d(t, { 4, 3 }) end,
    ["1-d max"] = function(t) return torch.nn.functional.max_pool1d(t[1], 3, 1) end,
    ["1-d avg"] = function(t) return torch.nn.functional.avg_pool1d(t[1], 4, 2, 1) end,
  }

  it("pools in float, each result rounded once to the dtype", function()
    for _, dt in ipairs { torch.float16, torch.bfloat16 } do
      local tol = dt == torch.float16 and 1e-3 or 1e-2
      for name, pool in pairs(pools) do
        like(dt, pool, name:find("max") and 0 or tol)
      end
      local _, want = torch.max_pool2d_with_indices(x:to(dt):float(), 3, 2)
      local _, got = torch.max_pool2d_with_indices(x:to(dt):cuda(), 3, 2)
      same(want, got:cpu())
    end
    -- PyTorch 1.13's CPU has no float16 pooling; CUDA has
    assert.are.equal('"max_pool2d" not implemented for \'Half\'', err(function() return torch.max_pool2d(x:half(), 2) end))
    assert.are.equal('"avg_pool2d" not implemented for \'Half\'', err(function() return torch.avg_pool2d(x:half(), 2) end))
  end)

  it("accumulates the gradients in float, rounding each once", function()
    for _, dt in ipairs { torch.float16, torch.bfloat16 } do
      local tol = dt == torch.float16 and 2e-3 or 2e-2
      for name, pool in pairs(pools) do
        grad_like(dt, pool, tol)
        -- overlapping windows: nine additions of 1/9 are exactly 1 in float, not in the dtype
        grad_like(dt, pool, 0, true)
      end
    end
  end)
end)

describe("repeat, nansum, std_mean, equal, index_copy_ and scatter_reduce on cuda", function()
  local x = torch.randn(3, 4)

  it("tiles with repeat, views and new leading dims included", function()
    check("repeat", function(t) return t:repeat_tensor(2, 3) end, { x })
    check("repeat of a view, new dims", function(t) return t:t():repeat_tensor(2, 1, 3) end, { x })
    check("repeat of ints and bools", function(t) return t:repeat_tensor(3) end, { torch.tensor({ 1, -2, 7 }) })
    check("repeat bools", function(t) return t:repeat_tensor(2, 2) end, { torch.tensor({ true, false }) })
    check("repeat 0-d", function(t) return t:repeat_tensor(4) end, { torch.tensor(2.5) })
    check("repeat zero times", function(t) return t:repeat_tensor(0, 2) end, { x })
    -- nine dims: twice that passes the limit, so one copy per tile
    local y = torch.randn(2, 1, 2, 1, 1, 2, 1, 1, 1)
    check("repeat of many dims", function(t) return t:repeat_tensor(1, 2, 1, 1, 2, 1, 1, 1, 3) end, { y })
    check("repeat's gradient", function(t)
      t = t:clone():requires_grad_()
      torch.sum(t:repeat_tensor(2, 3) * torch.arange(72, { dtype = t.dtype, device = t.device }):view(6, 12)):backward()
      return t.grad
    end, { x })
    local inorm = torch.nn.InstanceNorm2d(3, { affine = true })
    local input = torch.randn(2, 3, 4, 5)
    local want = inorm(input)
    same(want:detach(), inorm:to("cuda")(input:cuda()):detach():cpu(), 1e-5)
    assert.are.equal(
      "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
      err(function() return x:cuda():repeat_tensor(2) end))
  end)

  it("sums without NaN, over everything, over dims and long enough to split", function()
    local n = torch.tensor({ { 1, 0 / 0, 2 }, { 0 / 0, 0 / 0, 3 } })
    check("nansum", torch.nansum, { n })
    check("nansum dim", function(t) return t:nansum(2) end, { n })
    check("nansum keepdim dtype", function(t) return torch.nansum(t, 1, true, { dtype = torch.float64 }) end, { n })
    check("nansum ints", function(t) return t:nansum() end, { torch.tensor({ 1, 2, 3 }, { dtype = torch.int32 }) })
    local long = torch.randn(5000)
    long[{ { 1, 5000, 7 } }] = 0 / 0
    check("nansum split", torch.nansum, { long }, 1e-4)
    -- infinities of both signs give NaN, in one part (a NaN partial) or in two
    local inf = torch.zeros(5000)
    inf[1], inf[2] = math.huge, -math.huge
    assert.is_true(torch.isnan(torch.nansum(inf)):item())
    assert.is_true(torch.isnan(torch.nansum(inf:cuda())):item())
    inf[2], inf[5000] = 0, -math.huge
    assert.is_true(torch.isnan(torch.nansum(inf:cuda())):item())
  end)

  it("computes std_mean with each overload", function()
    local y = torch.randn(3, 5, 4)
    for name, f in pairs {
      all = function(t) return torch.std_mean(t) end,
      biased = function(t) return torch.std_mean(t, false) end,
      dim = function(t) return torch.std_mean(t, 2) end,
      dims_keepdim = function(t) return torch.std_mean(t, { 1, 3 }, true, true) end,
      correction = function(t) return torch.std_mean(t, { dim = 3, correction = 2 }) end,
    } do
      local s, m = f(y)
      local gs, gm = f(y:cuda())
      assert.are.equal("cuda", gs.device.type, name)
      same(s, gs:cpu(), 1e-5)
      same(m, gm:cpu(), 1e-5)
    end
  end)

  it("compares whole tensors with equal", function()
    local a = torch.randn(3, 4)
    local b = a:clone()
    assert.is_true(torch.equal(a:cuda(), b:cuda()))
    b[2][3] = 0
    assert.is_false(torch.equal(a:cuda(), b:cuda()))
    assert.is_false(torch.equal(a:cuda(), a:view(4, 3):cuda()))
    assert.is_true(torch.equal(a:t():cuda(), a:t():contiguous():cuda()))
    assert.is_true(torch.equal(torch.tensor({ 1, 2 }):cuda(), torch.tensor({ 1.0, 2.0 }):cuda()))
    assert.is_false(torch.equal(torch.tensor({ 0 / 0 }):cuda(), torch.tensor({ 0 / 0 }):cuda()))
    assert.is_true(torch.equal(torch.zeros(0, 3):cuda(), torch.zeros(0, 3):cuda()))
    assert.are.equal(torch.equal(a, b), a:cuda():equal(b:cuda()))
  end)

  it("copies slices at indices with index_copy_, refusing bad ones", function()
    local src = torch.randn(3, 4)
    check("index_copy_ dim 1", function(s, i, t) return s:clone():index_copy_(1, i, t) end,
      { torch.zeros(5, 4), torch.tensor({ 5, 1, 3 }), src })
    check("index_copy_ dim 2 of a view", function(s, i, t) return s:clone():t():index_copy_(2, i, t) end,
      { torch.zeros(5, 4), torch.tensor({ 2, 5, 4 }), src:t() })
    check("index_copy ints", function(s, i, t) return torch.index_copy(s, 1, i, t) end,
      { torch.zeros(4, { dtype = torch.int16 }), torch.tensor({ 4, 2 }), torch.tensor({ 7, -3 }, { dtype = torch.int16 }) })
    check("index_copy_ a 0-d source", function(s, i, t) return s:clone():index_copy_(1, i, t) end,
      { torch.zeros(4), torch.tensor({ 3 }), torch.tensor(1.5) })
    local s = torch.zeros(5, 4)
    local want = err(function() return s:index_copy_(1, torch.tensor({ 1, 6, 2 }), src) end)
    assert.are.equal("index_copy_(): index 6 is out of bounds for dimension 1 with size 5", want)
    assert.are.equal(want, err(function() return s:cuda():index_copy_(1, torch.tensor({ 1, 6, 2 }):cuda(), src:cuda()) end))
    assert.are.equal(err(function() return s:index_copy_(1, torch.tensor({ 1, 2 }), src) end),
      err(function() return s:cuda():index_copy_(1, torch.tensor({ 1, 2 }):cuda(), src:cuda()) end))
  end)

  it("reduces into positions with scatter_reduce, in every reduction, dtype and include_self", function()
    local index = torch.tensor({ { 1, 3, 1, 2 }, { 2, 2, 2, 1 } })
    local src = torch.tensor({ { 1.5, -2, 3, 0 / 0 }, { 4, 0.25, -1, 2 } })
    for _, red in ipairs { "sum", "prod", "mean", "amax", "amin" } do
      for _, incl in ipairs { true, false } do
        local f = function(s, i, t) return torch.scatter_reduce(s, 1, i, t, red, { include_self = incl }) end
        check(red .. " dim 1", f, { torch.randn(3, 5), index, src })
        check(red .. " dim 2", function(s, i, t)
          return torch.scatter_reduce(s, 2, i, t, red, { include_self = incl })
        end, { torch.randn(2, 3), index, src })
        check(red .. " int", f, { torch.randint(-9, 9, { 3, 5 }), index, torch.tensor({ { 5, -7, 3, 2 }, { 4, 1, -1, 2 } }) })
        check(red .. " bool", f, { torch.tensor({ { true, false }, { false, false }, { true, true } }),
          index:narrow(2, 1, 2), torch.tensor({ { false, true }, { true, false } }) })
        check(red .. " float16", f, { torch.randn(3, 5):half(), index, src:half() }, 1e-3)
      end
    end
    check("scatter_reduce_ in place", function(s, i, t) return s:clone():scatter_reduce_(1, i, t, "sum") end,
      { torch.zeros(3, 4), index, src })
    check("scatter reduce=multiply", function(s, i, t) return s:scatter(1, i, t, { reduce = "multiply" }) end,
      { torch.ones(3, 4), index, src })
    local want = err(function() return torch.scatter_reduce(torch.zeros(3, 4), 1, torch.tensor({ { 4 } }), src, "sum") end)
    assert.are.equal("index 4 is out of bounds for dimension 1 with size 3", want)
    assert.are.equal(want, err(function()
      return torch.scatter_reduce(torch.zeros(3, 4):cuda(), 1, torch.tensor({ { 4 } }):cuda(), src:cuda(), "sum")
    end))
    local a = torch.randn(3, 5):requires_grad_()
    local b = src:clone():nan_to_num(0):requires_grad_()
    local function g(dev)
      local x, y = a:detach():to(dev):requires_grad_(), b:detach():to(dev):requires_grad_()
      torch.scatter_reduce(x, 1, index:to(dev), y, "amax"):sum():backward()
      return x.grad:cpu(), y.grad:cpu()
    end
    local gx, gy = g("cpu")
    local cx, cy = g("cuda")
    same(gx, cx)
    same(gy, cy)
  end)
end)

describe("addmv, baddbmm, gcd, lcm and nextafter on cuda", function()
  it("adds matrix-vector and batched products to a scaled self (cuBLAS)", function()
    local m, v = torch.randn(5, 3), torch.randn(3)
    check("addmv", torch.addmv, { torch.randn(5), m, v }, 1e-5)
    check("addmv broadcast self, beta, alpha", function(s, a, b)
      return torch.addmv(s, a, b, { beta = 0.5, alpha = -2 })
    end, { torch.randn(1), m, v }, 1e-5)
    check("addmv of views", function(s, a, b) return torch.addmv(s, a:t(), b) end,
      { torch.randn(5), torch.randn(3, 5), torch.randn(6)[{ { 1, 6, 2 } }] }, 1e-5)
    check("addmv float64", torch.addmv, { torch.randn(5):double(), m:double(), v:double() }, 1e-12)
    check("addmv beta 0 ignores NaN", function(s, a, b) return torch.addmv(s, a, b, { beta = 0 }) end,
      { torch.full({ 5 }, 0 / 0), m, v }, 1e-5)
    check("addmv_", function(s, a, b) return s:clone():addmv_(a, b, { alpha = 3 }) end, { torch.randn(5), m, v }, 1e-5)
    local b1, b2 = torch.randn(4, 2, 3), torch.randn(4, 3, 5)
    check("baddbmm", torch.baddbmm, { torch.randn(4, 2, 5), b1, b2 }, 1e-5)
    check("baddbmm broadcast self, beta, alpha", function(s, a, b)
      return torch.baddbmm(s, a, b, { beta = -1, alpha = 0.25 })
    end, { torch.randn(2, 1), b1, b2 }, 1e-5)
    check("baddbmm of transposed views", function(s, a, b)
      return torch.baddbmm(s, a:transpose(2, 3), b)
    end, { torch.randn(4, 2, 5), torch.randn(4, 2, 3):transpose(2, 3):contiguous(), b2 }, 1e-5)
    check("baddbmm beta 0 ignores NaN", function(s, a, b) return torch.baddbmm(s, a, b, { beta = 0 }) end,
      { torch.full({ 4, 2, 5 }, 0 / 0), b1, b2 }, 1e-5)
    check("baddbmm_ float64", function(s, a, b) return s:clone():baddbmm_(a, b) end,
      { torch.randn(4, 2, 5):double(), b1:double(), b2:double() }, 1e-12)
    assert.are.equal(err(torch.addmv, torch.randn(5), m, torch.randn(4)),
      err(torch.addmv, torch.randn(5):cuda(), m:cuda(), torch.randn(4):cuda()))
    local grads = {}
    for _, dev in ipairs { "cpu", "cuda" } do
      torch.manual_seed(3)
      local s, a, b = torch.randn(4, 2, 5), torch.randn(4, 2, 3), torch.randn(4, 3, 5)
      s, a, b = s:to(dev):requires_grad_(), a:to(dev):requires_grad_(), b:to(dev):requires_grad_()
      torch.baddbmm(s, a, b, { beta = 2, alpha = 3 }):pow(2):sum():backward()
      grads[dev] = { s.grad, a.grad, b.grad }
    end
    for k = 1, 3 do same(grads.cpu[k], grads.cuda[k]:cpu(), 1e-4) end
  end)

  it("computes gcd and lcm of every integer dtype, signs and zeros included", function()
    local x = torch.tensor({ 12, -18, 0, 7, 0, -4, 100 })
    local y = torch.tensor({ 18, 12, 5, 13, 0, -6, 75 })
    for _, dt in ipairs { torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8 } do
      local a, b = x:to(dt), y:to(dt)
      check("gcd " .. tostring(dt), torch.gcd, { a, b })
      check("lcm " .. tostring(dt), torch.lcm, { a, b })
    end
    check("gcd broadcast", torch.gcd, { x:view(7, 1), y })
    check("lcm_", function(a, b) return a:clone():lcm_(b) end, { x, y })
    check("gcd_", function(a, b) return a:clone():gcd_(b) end, { x, y })
    -- PyTorch's CUDA kernel bears its own name
    assert.are.equal("\"gcd_cpu\" not implemented for 'Float'", err(torch.gcd, torch.ones(2), torch.ones(2)))
    assert.are.equal("\"gcd_cuda\" not implemented for 'Float'", err(torch.gcd, torch.ones(2):cuda(), torch.ones(2):cuda()))
  end)

  it("steps to the next representable value with nextafter, in float, double and bfloat16", function()
    local x = torch.tensor({ 1, 0, -2, 0, 1 / 0, 3, 0 / 0, -1e-40, 65504 })
    local y = torch.tensor({ 2, -1, -3, 1, 0, 3, 1, 0, 1 / 0 })
    for _, dt in ipairs { torch.float32, torch.float64, torch.bfloat16 } do
      local a, b = x:to(dt), y:to(dt)
      local want, got = torch.nextafter(a, b), torch.nextafter(a:cuda(), b:cuda()):cpu()
      assert.are.equal(want.dtype, got.dtype)
      -- exact: the bits of every value (NaN to NaN)
      assert.is_true(torch.equal(torch.isnan(want), torch.isnan(got)))
      assert.is_true(torch.equal(want:nan_to_num(0), got:nan_to_num(0)), tostring(dt) .. tostring(want) .. tostring(got))
      assert.is_false(torch.equal(want, a))
    end
    check("nextafter_", function(a, b) return a:clone():nextafter_(b) end, { torch.randn(6), torch.randn(6) })
    -- PyTorch's CUDA kernel, as its CPU one, takes bfloat16 and not float16
    assert.are.equal("\"nextafter_cpu\" not implemented for 'Half'", err(torch.nextafter, torch.ones(2):half(), torch.ones(2):half()))
    assert.are.equal("\"nextafter_cuda\" not implemented for 'Half'",
      err(torch.nextafter, torch.ones(2):half():cuda(), torch.ones(2):half():cuda()))
  end)
end)

describe("the other random distributions on cuda", function()
  local N = 20000
  local function near(got, want, tol, what)
    assert.is_true(math.abs(got - want) < tol, string.format("%s: %g, want %g +- %g", what, got, want, tol))
  end
  local function integral(t) return torch.equal(t, t:floor()) end

  it("replay with a seed, and differ from draw to draw", function()
    local draws = {
      exponential = function() return torch.empty(500, { device = "cuda" }):exponential_() end,
      cauchy = function() return torch.empty(500, { device = "cuda" }):cauchy_() end,
      log_normal = function() return torch.empty(500, { device = "cuda", dtype = torch.float64 }):log_normal_() end,
      geometric = function() return torch.empty(500, { device = "cuda" }):geometric_(0.5) end,
      random = function() return torch.empty(500, { device = "cuda", dtype = torch.int64 }):random_() end,
      poisson = function() return torch.poisson(torch.full({ 500 }, 20.0, { device = "cuda" })) end,
      binomial = function()
        return torch.binomial(torch.full({ 500 }, 50.0, { device = "cuda" }), torch.full({ 500 }, 0.4, { device = "cuda" }))
      end,
      multinomial = function() return torch.multinomial(torch.rand(5, 50, { device = "cuda" }), 20) end,
    }
    for name, f in pairs(draws) do
      cuda.manual_seed(77)
      local a, b = f():cpu(), f():cpu()
      cuda.manual_seed(77)
      assert.is_true(torch.equal(a, f():cpu()), name)
      assert.is_false(torch.equal(a, b), name)
    end
  end)

  it("draw exponential, Cauchy, log-normal and geometric values", function()
    cuda.manual_seed(1)
    for _, dt in ipairs { torch.float32, torch.float64 } do
      local e = torch.empty(N, { device = "cuda", dtype = dt }):exponential_(2):cpu():double()
      assert.is_true(e:min():item() >= 0)
      near(e:mean():item(), 0.5, 0.02, "exponential mean")
      near(e:var():item(), 0.25, 0.03, "exponential variance")
      local c = torch.empty(N, { device = "cuda", dtype = dt }):cauchy_(1, 2):cpu():double()
      near(c:median():item(), 1, 0.1, "cauchy median")
      near((c - 1):abs():lt(2):double():mean():item(), 0.5, 0.02, "cauchy quartiles")
      local l = torch.empty(N, { device = "cuda", dtype = dt }):log_normal_(0.5, 0.25):cpu():double()
      assert.is_true(l:min():item() > 0)
      near(l:log():mean():item(), 0.5, 0.01, "log-normal's log mean")
      near(l:log():std():item(), 0.25, 0.01, "log-normal's log std")
    end
    for _, dt in ipairs { torch.float32, torch.float64, torch.int64, torch.int16 } do
      local g = torch.empty(N, { device = "cuda", dtype = dt }):geometric_(0.3):cpu():double()
      assert.is_true(g:min():item() >= 1 and integral(g))
      near(g:mean():item(), 1 / 0.3, 0.1, "geometric mean")
      near(g:var():item(), 0.7 / 0.09, 0.6, "geometric variance")
    end
    local h = torch.empty(N, { device = "cuda", dtype = torch.bfloat16 }):exponential_():cpu():float()
    near(h:mean():item(), 1, 0.05, "bfloat16 exponential mean")
    for _, f in ipairs {
      function(t) return t:exponential_(-1) end,
      function(t) return t:log_normal_(1, 0) end,
      function(t) return t:geometric_(1) end,
      function(t) return t:int():cauchy_() end,
    } do
      assert.are.equal(err(f, torch.empty(3)), err(f, torch.empty(3, { device = "cuda" })))
    end
    -- a view is written in place
    local base = torch.zeros(4, 6, { device = "cuda" })
    base[{ {}, { 2, 3 } }]:exponential_()
    assert.are.equal(8, base:ne(0):sum():item())
  end)

  it("draw integers with random_ over the CPU's ranges", function()
    cuda.manual_seed(2)
    local r = torch.empty(N, { device = "cuda", dtype = torch.int64 }):random_(3, 7):cpu()
    assert.are.same({ 3, 6 }, { r:min():item(), r:max():item() })
    near(r:double():mean():item(), 4.5, 0.03, "random_ 3..6 mean")
    local f = torch.empty(N, { device = "cuda" }):random_(10):cpu()
    assert.is_true(f:min():item() == 0 and f:max():item() == 9 and integral(f))
    for dt, hi in pairs { [torch.int8] = 127, [torch.uint8] = 255, [torch.int16] = 32767, [torch.float16] = 2048, [torch.bool] = 1 } do
      local d = torch.empty(N, { device = "cuda", dtype = dt }):random_():cpu():double()
      assert.is_true(d:min():item() <= hi * 0.01 and d:max():item() >= hi * 0.95 and d:max():item() <= hi, tostring(dt))
      near(d:mean():item(), hi / 2, hi * 0.02 + 0.01, tostring(dt) .. " mean")
    end
    local w = torch.empty(N, { device = "cuda", dtype = torch.int64 }):random_():cpu()
    assert.is_true(w:min():item() >= 0 and w:max():item() > (1 << 62))
    local from = torch.empty(N, { device = "cuda", dtype = torch.int16 }):random_(30000, nil):cpu()
    assert.are.same({ 30000, 32767 }, { from:min():item(), from:max():item() })
    local full = torch.empty(N, { device = "cuda", dtype = torch.int64 }):random_(math.mininteger, nil):cpu()
    assert.is_true(full:min():item() < -(1 << 62) and full:max():item() > (1 << 62))
    local big = torch.empty(N, { device = "cuda", dtype = torch.int64 }):random_(0, 1 << 40):cpu()
    assert.is_true(big:max():item() > (1 << 39) and big:max():item() < (1 << 40))
    for _, f in ipairs {
      function(t) return t:random_(5, 5) end,
      function(t) return t:char():random_(0, 300) end,
      function(t) return t:half():random_(0, 70000) end,
    } do
      assert.are.equal(err(f, torch.empty(3)), err(f, torch.empty(3, { device = "cuda" })))
    end
  end)

  it("draw poisson and binomial counts of each branch of their samplers", function()
    cuda.manual_seed(3)
    for _, dt in ipairs { torch.float32, torch.float64 } do
      for _, lambda in ipairs { 0.5, 3.5, 40 } do
        local p = torch.poisson(torch.full({ N }, lambda, { device = "cuda", dtype = dt })):cpu()
        assert.are.equal(dt, p.dtype)
        assert.is_true(p:min():item() >= 0 and integral(p))
        near(p:double():mean():item(), lambda, 4 * math.sqrt(lambda / N) + 1e-3, "poisson mean " .. lambda)
        near(p:double():var():item(), lambda, 0.06 * lambda, "poisson variance " .. lambda)
      end
      for _, cp in ipairs { { 20, 0.2 }, { 200, 0.3 }, { 30, 0.9 }, { 500, 0.75 } } do
        local n, q = cp[1], cp[2]
        local b = torch.binomial(torch.full({ N }, n, { device = "cuda", dtype = dt }),
          torch.full({ 1 }, q, { device = "cuda", dtype = dt })):cpu():double()
        assert.is_true(b:min():item() >= 0 and b:max():item() <= n and integral(b))
        near(b:mean():item(), n * q, 4 * math.sqrt(n * q * (1 - q) / N), "binomial mean")
        near(b:var():item(), n * q * (1 - q), 0.06 * n * q * (1 - q), "binomial variance")
      end
    end
    local rates = torch.tensor({ { 0.0, 2 }, { 5, 100 } }, { device = "cuda" })
    assert.are.equal(0, torch.poisson(rates):cpu()[1][1]:item())
    local edge = torch.binomial(torch.tensor({ 5, 0, 7 }, { device = "cuda" }):float(), torch.tensor({ 1, 0.5, 0 }, { device = "cuda" }))
    assert.are.same({ 5, 0, 0 }, edge:cpu():tolist())
    -- a NaN count: NaN past the prob checks (the samplers' loops would never end), as on the CPU
    local nan_count = torch.binomial(torch.full({ 4 }, 0 / 0, { device = "cuda" }),
      torch.tensor({ 0.3, 0.7, 0, 1 }, { device = "cuda" })):cpu()
    assert.are.same({ true, true, false, true }, nan_count:isnan():tolist())
    assert.are.equal(err(torch.poisson, torch.tensor({ 1, -1.0 })), err(torch.poisson, torch.tensor({ 1, -1.0 }, { device = "cuda" })))
    assert.are.equal(err(torch.poisson, torch.tensor({ 1, 0 / 0 })), err(torch.poisson, torch.tensor({ 1, 0 / 0 }, { device = "cuda" })))
  end)

  it("draw multinomial positions with and without replacement", function()
    cuda.manual_seed(4)
    local probs = torch.tensor({ { 0.1, 0, 0.6, 0.3 }, { 2, 1, 1, 0 } })
    for _, dt in ipairs { torch.float32, torch.float64, torch.bfloat16 } do
      local m = torch.multinomial(probs:to(dt):cuda(), N, true):cpu()
      assert.are.same({ 2, N }, m:size())
      assert.are.equal(torch.int64, m.dtype)
      for row = 1, 2 do
        local total = probs[row]:sum():item()
        for cat = 1, 4 do
          local freq = m[row]:eq(cat):double():mean():item()
          near(freq, probs[row][cat]:item() / total, 0.015, "multinomial frequency")
        end
      end
    end
    local one = torch.multinomial(torch.tensor({ 0, 0, 5.0 }):cuda(), 3, true):cpu()
    assert.are.same({ 3, 3, 3 }, one:tolist())
    -- without replacement: distinct positions, all of them when as many as the categories
    local w = torch.multinomial(torch.rand(50, 6):cuda(), 6):cpu()
    assert.is_true(torch.equal(w:sort(2), torch.arange(1, 7):expand(50, 6)))
    local firsts = torch.multinomial(torch.tensor({ 1, 3, 0, 6.0 }):expand(N, 4):cuda(), 2):cpu()
    near(firsts[{ {}, 1 }]:eq(4):double():mean():item(), 0.6, 0.015, "first pick")
    assert.are.equal(0, firsts:eq(3):sum():item())
    for _, bad in ipairs {
      { torch.tensor({ 0.5, -0.1 }), 1, true }, { torch.tensor({ 0.5, 1 / 0 }), 1, true },
      { torch.tensor({ { 1, 1 }, { 0, 0.0 } }), 1, true }, { torch.tensor({ 0 / 0, 1 }), 1, true },
      { torch.tensor({ { 0, 0 }, { 1, -1.0 } }), 1, false }, { torch.tensor({ 0, 0.0 }), 1, false },
      { torch.tensor({ { 0, 0 }, { 1, 1.0 } }), 1, false },
      { torch.tensor({ 1, 1.0 }), 3, false }, { torch.tensor({ 1, 1 }), 1, false },
    } do
      local want = err(torch.multinomial, bad[1], bad[2], bad[3])
      assert.are.equal(want, err(torch.multinomial, bad[1]:cuda(), bad[2], bad[3]))
    end
  end)
end)

describe("CPU scalars and index tensors beside cuda tensors, as PyTorch allows", function()
  it("computes a number on the left of // and the shifts on the tensor's device, promoting as a number", function()
    for _, x in ipairs { torch.tensor({ 2, 3, -4 }, { dtype = torch.int32 }), torch.tensor({ 2.5, -3, 4 }),
      torch.tensor(3, { dtype = torch.int16 }), torch.tensor({ 1, 2 }, { dtype = torch.uint8 }) } do
      check("7 // x", function(t) return 7 // t end, { x })
      check("7.5 // x", function(t) return 7.5 // t end, { x })
      if not x.dtype.is_floating_point then
        check("1 << x", function(t) return 1 << t end, { x })
        check("64 >> x", function(t) return 64 >> t end, { x })
      end
    end
  end)

  it("writes a 0-d tensor of another device at index tensors, as index_put_ moves it", function()
    local idx = torch.tensor({ 1, 3 })
    check("x[idx] = cpu 0-d", function(t, i) t = t:clone(); t[i] = torch.tensor(7.0); return t end, { torch.zeros(4), idx })
    check("x[cpu idx] = cpu 0-d", function(t) t = t:clone(); t[idx] = torch.tensor(7.0); return t end, { torch.zeros(4) })
    check("index_put_ accumulating a cpu 0-d", function(t, i)
      return t:clone():index_put_({ i }, torch.tensor(2.0), true)
    end, { torch.zeros(4), torch.tensor({ 1, 1, 4 }) })
    local v = torch.tensor(2.0, { requires_grad = true })
    torch.zeros(4, { device = "cuda" }):index_put({ idx:cuda() }, v):sum():backward()
    assert.are.equal(2, v.grad:item())
    -- a 1-d value stays refused, as in PyTorch; a dtype mismatch says what the CPU says
    local want = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    assert.are.equal(want, err(function() local x = torch.zeros(4):cuda(); x[idx:cuda()] = torch.tensor({ 5.0, 6.0 }) end))
    assert.are.equal(err(function() local x = torch.zeros(4); x[idx] = torch.tensor(7) end),
      err(function() local x = torch.zeros(4):cuda(); x[idx] = torch.tensor(7) end))
  end)

  it("runs nn.EmbeddingBag and nn.FractionalMaxPool2d on cuda, their index tensors made there", function()
    local function both(make, ...)
      local inputs = { ... }
      torch.manual_seed(5)
      local m = make()
      local want = m(table.unpack(inputs))
      m:to("cuda")
      for i, t in ipairs(inputs) do inputs[i] = t:cuda() end
      local got = m(table.unpack(inputs))
      assert.are.equal("cuda", got.device.type)
      same(want:detach(), got:detach():cpu(), 1e-5)
    end
    for _, mode in ipairs { "sum", "mean", "max" } do
      both(function() return torch.nn.EmbeddingBag(10, 3, { mode = mode }) end,
        torch.tensor({ 1, 2, 4, 5, 4, 3 }), torch.tensor({ 1, 3, 3 }))
      both(function() return torch.nn.EmbeddingBag(10, 3, { mode = mode, padding_idx = 2 }) end,
        torch.tensor({ { 1, 2 }, { 4, 5 } }))
    end
    local w = torch.randn(10, 3)
    local want = { torch.embedding_bag(w, torch.tensor({ 1, 2, 4, 5 }), torch.tensor({ 1, 3 }), false, 2) }
    local got = { torch.embedding_bag(w:cuda(), torch.tensor({ 1, 2, 4, 5 }):cuda(), torch.tensor({ 1, 3 }):cuda(), false, 2) }
    for k = 1, 4 do same(want[k], got[k]:cpu()) end
    local x, s = torch.randn(2, 3, 7, 8), torch.rand(2, 3, 2)
    local a, ai = torch.nn.functional.fractional_max_pool2d(x, 2, { output_size = { 3, 4 }, return_indices = true, _random_samples = s })
    local b, bi = torch.nn.functional.fractional_max_pool2d(x:cuda(), 2,
      { output_size = { 3, 4 }, return_indices = true, _random_samples = s:cuda() })
    same(a, b:cpu())
    same(ai, bi:cpu())
    assert.are.same({ 2, 3, 3, 4 }, torch.nn.FractionalMaxPool2d(2, { output_ratio = 0.5 }):to("cuda")(x:cuda()):size())
  end)
end)

describe("torch.linalg on cuda (cuSOLVER, cuBLAS trsm)", function()
  -- well-conditioned batches: random matrices moved away from singularity, and SPD ones
  local function square(dt, ...)
    local A = torch.randn({ ... }, { dtype = dt })
    local n = A:size(-1)
    return A + torch.eye(n, { dtype = dt }) * n
  end
  local function spd(dt, ...)
    local A = torch.randn({ ... }, { dtype = dt })
    return A:matmul(A:transpose(-2, -1)) + torch.eye(A:size(-1), { dtype = dt })
  end
  local tols = { [torch.float32] = 2e-4, [torch.float64] = 1e-9 }
  local dtypes = { torch.float32, torch.float64 }
  -- values and layout (strides) of every result as the CPU gives them
  local function check_la(name, op, args, tol) check_all(name, op, args, tol, true) end
  -- the same value up to each column's sign (eigenvectors and singular vectors)
  local function same_columns(want, got, tol)
    local s = (want * got):sum(-2, true):sign()
    same(want, got * s, tol)
  end

  it("factorizes, inverts and solves as the CPU does (LU, Cholesky, triangular), batches and float64", function()
    for _, dt in ipairs(dtypes) do
      local tol = tols[dt]
      local A, S, B = square(dt, 2, 3, 4, 4), spd(dt, 3, 4, 4), torch.randn(3, 4, 2, { dtype = dt })
      check_la("lu_factor", torch.linalg.lu_factor, { A }, tol)
      check_la("lu_factor_ex", torch.linalg.lu_factor_ex, { A:transpose(-2, -1) }, tol)
      check_la("lu of a tall matrix", torch.linalg.lu, { torch.randn(5, 3, { dtype = dt }) }, tol)
      check_la("lu of a wide batch", torch.linalg.lu, { torch.randn(2, 3, 5, { dtype = dt }) }, tol)
      check_la("inv", torch.linalg.inv, { A }, tol)
      check_la("inverse", torch.inverse, { A[1][2] }, tol)
      check_la("inv_ex", torch.linalg.inv_ex, { A }, tol)
      check_la("det", torch.linalg.det, { A }, tol * 100)
      check_la("slogdet", torch.linalg.slogdet, { A }, tol)
      check_la("logdet", torch.logdet, { S }, tol)
      check_la("solve", torch.linalg.solve, { A, B }, tol)
      check_la("solve of a vector", torch.linalg.solve, { A[1][1], B[1][{ {}, 1 }] }, tol)
      check_la("solve, right", function(a, b) return torch.linalg.solve(a, b, { left = false }) end,
        { A[2], B:transpose(-2, -1) }, tol)
      local LU, piv = torch.linalg.lu_factor(A)
      check_la("lu_solve", torch.linalg.lu_solve, { LU, piv, B }, tol)
      check_la("lu_solve, adjoint", function(l, p, b) return torch.linalg.lu_solve(l, p, b, { adjoint = true }) end,
        { LU, piv, B }, tol)
      check_la("lu_solve, right", function(l, p, b) return torch.linalg.lu_solve(l, p, b, { left = false }) end,
        { LU, piv, B:transpose(-2, -1) }, tol)
      check_la("lu_unpack", torch.lu_unpack, { LU, piv }, tol)
      check_la("matrix_power -2", torch.linalg.matrix_power, { A, -2 }, tol * 10)
      check_la("cholesky", torch.linalg.cholesky, { S }, tol)
      check_la("cholesky, upper", function(x) return torch.linalg.cholesky(x, { upper = true }) end, { S }, tol)
      check_la("cholesky_ex", torch.linalg.cholesky_ex, { S[1] }, tol)
      local L = torch.linalg.cholesky(S)
      check_la("cholesky_solve", torch.cholesky_solve, { B, L }, tol)
      check_la("cholesky_inverse", torch.cholesky_inverse, { L[2] }, tol)
      for _, upper in ipairs { true, false } do
        for _, left in ipairs { true, false } do
          for _, unit in ipairs { true, false } do
            check_la("solve_triangular", function(t, b)
              return torch.linalg.solve_triangular(t, b, { upper = upper, left = left, unitriangular = unit })
            end, { L:transpose(-2, -1):contiguous(), left and B or B:transpose(-2, -1) }, tol)
          end
        end
      end
      check_la("triangular_solve", torch.triangular_solve, { B, L, false, true }, tol)
    end
  end)

  it("factorizes symmetric matrices as L D L^T (sytrf) and solves with it", function()
    for _, dt in ipairs(dtypes) do
      local tol = tols[dt]
      local A = torch.randn(2, 5, 5, { dtype = dt })
      A = A + A:transpose(-2, -1) -- indefinite: 2x2 blocks are likely
      check_la("ldl_factor", torch.linalg.ldl_factor, { A }, tol)
      check_la("ldl_factor_ex", torch.linalg.ldl_factor_ex, { A[1] }, tol)
      local LD, piv = torch.linalg.ldl_factor(A)
      local B = torch.randn(2, 5, 3, { dtype = dt })
      check_la("ldl_solve", torch.linalg.ldl_solve, { LD, piv, B }, tol * 10)
      check_la("ldl_solve of int64 pivots", torch.linalg.ldl_solve, { LD, piv:long(), B }, tol * 10)
    end
    local LD = torch.eye(2)
    for _, bad in ipairs { torch.tensor({ 0, 1 }, { dtype = torch.int32 }), torch.tensor({ -1, 2 }, { dtype = torch.int32 }) } do
      assert.are.equal(err(torch.linalg.ldl_solve, LD, bad, torch.ones(2, 1)),
        err(torch.linalg.ldl_solve, LD:cuda(), bad:cuda(), torch.ones(2, 1):cuda()))
    end
    local sing = torch.zeros(2, 3, 3)
    assert.are.equal(err(torch.linalg.ldl_factor, sing), err(torch.linalg.ldl_factor, sing:cuda()))
  end)

  it("factorizes without pivoting, which only CUDA does (pivots 1..k, P empty)", function()
    local A = square(torch.float64, 2, 4, 4)
    local LU, piv, info = torch.linalg.lu_factor_ex(A:cuda(), { pivot = false })
    assert.are.same({ { 1, 2, 3, 4 }, { 1, 2, 3, 4 } }, piv:cpu():tolist())
    assert.are.same({ 0, 0 }, info:cpu():tolist())
    local P, L, U = torch.linalg.lu(A:cuda(), { pivot = false })
    assert.are.same({ 0 }, P:size())
    same(A, L:matmul(U):cpu(), 1e-10)
    same(LU:cpu():tril(-1) + torch.eye(4, { dtype = torch.float64 }), L:cpu(), 1e-12)
    local _, _, bad = torch.linalg.lu_factor_ex(torch.tensor({ { 0, 1 }, { 1, 0.0 } }):cuda(), { pivot = false })
    assert.are.equal(1, bad:item())
  end)

  it("computes QR, its reflectors, eigh and the SVD as the CPU does", function()
    for _, dt in ipairs(dtypes) do
      local tol = tols[dt]
      for _, shape in ipairs { { 2, 5, 3 }, { 3, 5 }, { 4, 4 } } do
        local A = torch.randn(shape, { dtype = dt })
        for _, mode in ipairs { "reduced", "complete", "r" } do
          check_la("qr " .. mode, function(x) return torch.linalg.qr(x, mode) end, { A }, tol)
        end
        check_la("geqrf", torch.geqrf, { A }, tol)
        local a, tau = torch.geqrf(A)
        if A:size(-2) >= A:size(-1) then
          check_la("householder_product", torch.linalg.householder_product, { a, tau }, tol)
        end
        local C = torch.randn(A:size(-2), 2, { dtype = dt })
        if A:dim() == 3 then C = C:expand(A:size(1), -1, -1):contiguous() end
        check_la("ormqr", torch.ormqr, { a, tau, C }, tol)
        check_la("ormqr transposed", function(x, t, c) return torch.ormqr(x, t, c, true, true) end, { a, tau, C }, tol)
        -- the SVD: values as the CPU's, vectors up to their signs, Vh row-major as PyTorch's on CUDA
        local k = math.min(A:size(-2), A:size(-1))
        for _, driver in ipairs { false, "gesvd", "gesvdj" } do
          for _, full in ipairs { true, false } do
            local U, Sv, Vh = torch.linalg.svd(A:cuda(), { full_matrices = full, driver = driver or nil })
            local Uw, Sw, Vw = torch.linalg.svd(A, { full_matrices = full })
            same(Sw, Sv:cpu(), tol)
            same_columns(Uw:narrow(-1, 1, k), U:cpu():narrow(-1, 1, k), tol * 10)
            same_columns(Vw:transpose(-2, -1):narrow(-1, 1, k), Vh:cpu():transpose(-2, -1):narrow(-1, 1, k), tol * 10)
            local n = A:size(-1)
            assert.are.same(A:dim() == 3 and { Vh:size(2) * n, n, 1 } or { n, 1 }, Vh:stride())
            assert.are.same(Uw:stride(), U:stride())
            if full then -- the completed bases are orthonormal
              local I = torch.eye(A:size(-1), { dtype = dt })
              same(I:expand(Vh:size()), Vh:matmul(Vh:transpose(-2, -1)):cpu(), tol * 10)
            end
          end
        end
        check_la("svdvals", torch.linalg.svdvals, { A }, tol)
        check_la("matrix_rank", torch.linalg.matrix_rank, { A }, tol)
        check_la("pinv", torch.linalg.pinv, { A }, tol * 10)
        check_la("nuclear norm", function(x) return torch.linalg.matrix_norm(x, "nuc") end, { A }, tol)
        check_la("2-norm", function(x) return torch.linalg.matrix_norm(x, 2) end, { A }, tol)
      end
      local S = spd(dt, 2, 5, 5)
      for _, uplo in ipairs { "L", "U" } do
        local w, V = torch.linalg.eigh(S:cuda(), uplo)
        local ww, Vw = torch.linalg.eigh(S, uplo)
        same(ww, w:cpu(), tol * 10)
        same_columns(Vw, V:cpu(), tol * 10)
        assert.are.same(Vw:stride(), V:stride())
      end
      check_la("eigvalsh", torch.linalg.eigvalsh, { S }, tol * 10)
      check_la("cond", torch.linalg.cond, { S }, tol * 100)
    end
  end)

  it("solves least squares by QR (gels, CUDA's driver): tall, wide, batches, residuals", function()
    for _, dt in ipairs(dtypes) do
      local tol = tols[dt]
      local tall, wide = torch.randn(2, 6, 3, { dtype = dt }), torch.randn(3, 5, { dtype = dt })
      check_la("lstsq tall", function(a, b) return torch.linalg.lstsq(a, b, nil, { driver = "gels" }) end,
        { tall, torch.randn(1, 6, 2, { dtype = dt }) }, tol * 10)
      -- the default driver on cuda is gels; the CPU's gelsd gives the same least-norm solution
      local b = torch.randn(3, 2, { dtype = dt })
      local X = torch.linalg.lstsq(wide:cuda(), b:cuda())
      same(torch.linalg.lstsq(wide, b, nil, { driver = "gelsd" }), X:cpu(), tol * 10)
      local v = torch.randn(2, 6, { dtype = dt })
      same(torch.linalg.lstsq(tall, v, nil, { driver = "gels" }), torch.linalg.lstsq(tall:cuda(), v:cuda()):cpu(), tol * 10)
    end
    assert.are.equal("torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA",
      err(torch.linalg.lstsq, torch.eye(3):cuda(), torch.ones(3, 1):cuda(), nil, { driver = "gelsd" }))
  end)

  it("raises the CPU's errors, in PyTorch's words", function()
    local sing = torch.tensor({ { { 1, 2 }, { 2, 4.0 } }, { { 1, 0 }, { 0, 1.0 } } })
    local notpd = torch.tensor({ { { 2, 0 }, { 0, 1.0 } }, { { 1, 2 }, { 2, 1.0 } } })
    local cases = {
      { torch.linalg.inv, sing[1] }, { torch.linalg.inv, sing:flip(1) },
      { torch.linalg.solve, sing, torch.ones(2, 2, 1) }, { torch.linalg.lu_factor, sing:flip(1) },
      { function(x) return torch.linalg.lu_factor_ex(x, { check_errors = true }) end, sing },
      { function(x) return torch.linalg.inv_ex(x, { check_errors = true }) end, sing },
      { torch.linalg.cholesky, notpd }, { torch.linalg.cholesky, notpd[2] },
      { function(x) return torch.linalg.cholesky_ex(x, { check_errors = true }) end, notpd },
      { torch.linalg.inv, torch.ones(2, 3) }, { torch.linalg.det, torch.ones(3) },
      { torch.linalg.cholesky, torch.eye(2, { dtype = torch.float16 }) },
      { torch.linalg.lu_solve, torch.eye(2), torch.tensor({ 1, 3 }, { dtype = torch.int32 }), torch.ones(2, 1) },
      { torch.lu_unpack, torch.eye(2), torch.tensor({ 0, 2 }, { dtype = torch.int32 }) },
      { torch.linalg.qr, torch.ones(2, 2), "thin" },
    }
    for i, case in ipairs(cases) do
      local args = { table.unpack(case, 2) }
      local want = err(case[1], table.unpack(args))
      for k, a in ipairs(args) do if torch.is_tensor(a) then args[k] = a:cuda() end end
      assert.are.equal(want, err(case[1], table.unpack(args)), "case " .. i)
    end
    assert.are.equal("torch.linalg.svd: unknown svd driver qr in svd_cusolver computation. Check doc at "
      .. "https://pytorch.org/docs/stable/generated/torch.linalg.svd.html",
      err(torch.linalg.svd, torch.eye(2):cuda(), true, { driver = "qr" }))
    assert.are.equal("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
      .. "cuSOLVER backend.", err(torch.linalg.svd, torch.eye(2), true, { driver = "gesvd" }))
    -- the infos stay on the device until asked for
    local _, info = torch.linalg.inv_ex(sing:cuda())
    assert.are.equal("cuda", info.device.type)
    assert.are.same({ 2, 0 }, info:cpu():tolist())
  end)

  it("differentiates through them on cuda as on the CPU", function()
    local dt = torch.float64
    local A, S, B = square(dt, 2, 3, 3), spd(dt, 2, 3, 3), torch.randn(2, 3, 2, { dtype = dt })
    local W, C = torch.randn(3, 5, { dtype = dt }), torch.randn(5, 2, { dtype = dt })
    local losses = {
      det = function(a) return torch.linalg.det(a[1]):sum() end,
      slogdet = function(a) local _, l = torch.linalg.slogdet(a[1]); return l:sum() end,
      inv = function(a) return torch.linalg.inv(a[1]):pow(2):sum() end,
      solve = function(a) return torch.linalg.solve(a[1], a[3]):sin():sum() end,
      cholesky = function(a) return torch.linalg.cholesky(a[2]):pow(2):sum() end,
      qr = function(a) local q, r = torch.linalg.qr(a[1]); return (q:sum(-1) * r:sum(-1)):sum() end,
      eigh = function(a) local w, v = torch.linalg.eigh(a[2]); return w:sum() + v:pow(2):sum(-1):mul(w):sum() end,
      svd = function(a) local u, s, vh = torch.linalg.svd(a[4], false); return s:sum() + u:matmul(vh):pow(2):sum() end,
      pinv = function(a) return torch.linalg.pinv(a[4]):sum() end,
      lstsq = function(a) return torch.linalg.lstsq(a[4]:t(), a[5]):pow(2):sum() end,
      lu_solve = function(a)
        local lu, piv = torch.linalg.lu_factor(a[1])
        return torch.linalg.lu_solve(lu, piv, a[3]):sum()
      end,
    }
    for name, loss in pairs(losses) do
      local cpu, dev = { A, S, B, W, C }, {}
      for i, t in ipairs(cpu) do
        cpu[i] = t:clone():requires_grad_()
        dev[i] = t:cuda():requires_grad_()
      end
      loss(cpu):backward()
      loss(dev):backward()
      for i = 1, #cpu do
        if cpu[i].grad then same(cpu[i].grad, dev[i].grad:cpu(), 1e-8) end
        assert.are.equal(cpu[i].grad == nil, dev[i].grad == nil, name)
      end
    end
  end)
end)

describe("a CPU 0-d tensor as an operand of element-wise ops on cuda, as TensorIterator allows", function()
  local x = torch.tensor({ { 1.5, -2, 0 }, { 4, 0.25, -1 } })

  it("computes with it as with a number, the result on cuda, promoting as a 0-d tensor", function()
    for _, s in ipairs { torch.tensor(2.5), torch.tensor(3), torch.tensor(2.5, { dtype = torch.float64 }),
      torch.tensor(true), torch.tensor(-1, { dtype = torch.int8 }) } do
      check("add", function(t) return torch.add(t, s) end, { x })
      check("add with alpha", function(t) return torch.add(t, s, { alpha = 2 }) end, { x })
      check("0-d first", function(t) return torch.mul(s, t) end, { x })
      check("mul of ints", function(t) return t * s end, { x:long() })
      check("gt", function(t) return t:gt(s) end, { x })
      check("where", function(c, t) return torch.where(c, t, s) end, { x:gt(0), x })
      check("in place", function(t) return t:clone():mul_(s) end, { x:double() })
    end
    check("0-d first, sub", function(t) return torch.sub(torch.tensor(1), t) end, { x })
    check("pow", function(t) return torch.pow(t, torch.tensor(2)) end, { x })
    check("addcmul of one", function(t) return torch.addcmul(t, t, torch.tensor(0.5)) end, { x })
    -- the CPU tensor itself is left where it is
    local s = torch.tensor(2.0)
    assert.are.equal("cuda", (x:cuda() + s).device.type)
    assert.are.equal("cpu", s.device.type)
  end)

  it("differentiates through it, the 0-d tensor's gradient on the CPU", function()
    local function grads(device)
      local s = torch.tensor(1.5, { requires_grad = true })
      local X = x:clone():to(device):requires_grad_()
      local y = (X * s + s):sum()
      y:backward()
      return X.grad:cpu(), s.grad
    end
    local gx, gs = grads("cpu")
    local cx, cs = grads("cuda")
    same(gx, cx)
    assert.are.equal("cpu", cs.device.type)
    same(gs, cs)
  end)

  it("refuses what PyTorch refuses: a written CPU tensor, two of them, a 1-d one, another device", function()
    local c = x:cuda()
    local want = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    assert.are.equal(want, err(function() return torch.tensor(1.0):add_(c) end))
    assert.are.equal(want, err(torch.add, c, torch.ones(3)))
    assert.are.equal("Trying to pass too many CPU scalars to non-CPU kernel!",
      err(torch.addcmul, c, torch.tensor(1.0), torch.tensor(2.0)))
    if cuda.device_count() >= 2 then
      assert.are.equal("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1!",
        err(torch.add, c, torch.ones(3, { device = "cuda:1" })))
    end
  end)
end)

describe("a random generator per cuda device", function()
  local n = cuda.device_count()

  it("keeps one default generator per device, as torch.cuda.default_generators", function()
    assert.are.equal(n, #cuda.default_generators)
    for i = 1, n do
      assert.are.equal("cuda:" .. (i - 1), tostring(cuda.default_generators[i].device))
      assert.is_true(cuda.default_generators[i] == cuda.default_generators[i])
    end
    assert.is_nil(cuda.default_generators[n + 1])
    assert.are.equal("cuda:0", tostring(torch.Generator("cuda").device))
    assert.are.equal("cuda:" .. (n - 1), tostring(torch.Generator { device = "cuda:" .. (n - 1) }.device))
    torch.manual_seed(11) -- every device's too
    for i = 1, n do assert.are.equal(11, cuda.default_generators[i]:initial_seed()) end
    assert.are.equal(11, cuda.initial_seed())
  end)

  it("seeds the current device with manual_seed and every device with manual_seed_all", function()
    if n < 2 then return end -- one device: nothing to tell apart
    local function draw(d) return torch.rand(6, { device = "cuda:" .. d }):cpu() end
    cuda.manual_seed_all(7)
    local a0, a1 = draw(0), draw(1)
    same(a0, a1) -- the same seed and offset on both
    cuda.manual_seed(3) -- cuda:0 alone
    assert.are.equal(3, cuda.initial_seed())
    assert.are.equal(7, cuda.default_generators[2]:initial_seed())
    local b1 = draw(1)
    assert.is_false(torch.equal(a1, b1)) -- cuda:1 went on with its own stream
    do
      local _ <close> = cuda.device(1)
      cuda.manual_seed(7)
      assert.are.equal(7, cuda.initial_seed())
    end
    same(a1, draw(1))
    assert.are.equal(3, cuda.default_generators[1]:initial_seed())
    cuda.seed_all()
    assert.are.equal(cuda.default_generators[1]:initial_seed(), cuda.default_generators[2]:initial_seed())
  end)

  it("saves and restores a device's state, and draws from a generator given", function()
    local d = "cuda:" .. (n - 1)
    local state = cuda.get_rng_state(n - 1)
    assert.are.equal(torch.uint8, state.dtype)
    assert.are.same({ 16 }, state:size())
    local a = torch.randn(5, { device = d }):cpu()
    cuda.set_rng_state(state, n - 1)
    same(a, torch.randn(5, { device = d }):cpu())
    local all = cuda.get_rng_state_all()
    assert.are.equal(n, #all)
    local b = torch.rand(4, { device = d }):cpu()
    cuda.set_rng_state_all(all)
    same(b, torch.rand(4, { device = d }):cpu())
    assert.are.equal("RNG state is wrong size", err(cuda.set_rng_state, torch.zeros(8, { dtype = torch.uint8 }), n - 1))
    local g = torch.Generator { device = d }
    g:manual_seed(5)
    local c = torch.rand(4, { device = d, generator = g }):cpu()
    cuda.default_generators[n]:manual_seed(5)
    same(c, torch.rand(4, { device = d }):cpu())
    g:manual_seed(5)
    same(c, torch.rand(4, { device = d, generator = g }):cpu())
    assert.are.equal("Expected a 'cpu' device type for generator but found 'cuda'",
      err(torch.rand, 2, { generator = g }))
  end)
end)

describe("torch.special's functions, i0, igamma, igammac and airy_ai on cuda", function()
  local S = torch.special
  -- both signs, zeros, small and large arguments, the asymptotic ranges, infinities and NaN
  local x = torch.tensor({ -30, -8.5, -2, -0.5, -0.0, 0, 1e-3, 0.3, 1, 2.5, 7, 24.9, 26.5, 100, 700, 1 / 0, -1 / 0, 0 / 0 })
  local p = torch.tensor({ 0, 1e-30, 1e-5, 0.01, 0.25, 0.5, 0.7, 0.99, 1 - 1e-9, 1, -0.1, 1.1, 0 / 0 })
  -- a GPU has no long double: its Airy series loses about 1e-6 of float64 near 6.5 (doc/cuda.md)
  local airy_tol = STANDIN and 1e-12 or 1e-5
  local unary = {
    erfcx = S.erfcx, log_ndtr = S.log_ndtr, ndtr = S.ndtr, entr = S.entr, i0 = torch.i0, i0e = S.i0e, i1 = S.i1,
    i1e = S.i1e, bessel_j0 = S.bessel_j0, bessel_j1 = S.bessel_j1, bessel_y0 = S.bessel_y0, bessel_y1 = S.bessel_y1,
    modified_bessel_i0 = S.modified_bessel_i0, modified_bessel_i1 = S.modified_bessel_i1,
    modified_bessel_k0 = S.modified_bessel_k0, modified_bessel_k1 = S.modified_bessel_k1,
    scaled_modified_bessel_k0 = S.scaled_modified_bessel_k0, scaled_modified_bessel_k1 = S.scaled_modified_bessel_k1,
    spherical_bessel_j0 = S.spherical_bessel_j0,
  }

  it("computes the functions of one argument as the CPU does, float32 and float64, views and integers", function()
    for name, f in pairs(unary) do
      check(name, f, { x }, 1e-5)
      check(name .. " float64", f, { x:double() }, 1e-12)
      check(name .. " of a view", function(t) return f(t:view(3, -1):t()) end, { x }, 1e-5)
      check(name .. " of integers", f, { torch.arange(-3, 4) }, 1e-5)
      check(name .. " empty", f, { torch.randn(0, 3) })
    end
    check("ndtri", S.ndtri, { p }, 1e-5)
    check("ndtri float64", S.ndtri, { p:double() }, 1e-12)
    check("airy_ai", S.airy_ai, { x }, 1e-5)
    check("airy_ai float64", S.airy_ai, { torch.linspace(-12, 12, 97):double() }, airy_tol)
    check("i0_", function(t) return t:clone():i0_() end, { x:double() }, 1e-12)
    check("random erfcx", S.erfcx, { torch.randn(300):mul(10):double() }, 1e-12)
  end)

  it("computes the functions of two arguments, numbers on either side, and the polynomials", function()
    local a, q = torch.tensor({ 0.5, 1, 2, 3.5, 10, 50, 0, -1, 1 / 0, 0 / 0 }), torch.tensor({ 0.1, 1, 2.5, 3, 12, 40, 1, 2, 3, 1 })
    for _, f in ipairs { "igamma", "igammac" } do
      check(f, torch[f], { a, q }, 1e-5)
      check(f .. " float64", torch[f], { a:double(), q:double() }, 1e-12)
      check(f .. " broadcast", torch[f], { a:view(-1, 1):double(), q:double() }, 1e-12)
      check(f .. "_", function(s, o) return s:clone()[f .. "_"](s:clone(), o) end, { a:double(), q:double() }, 1e-12)
    end
    check("gammainc", S.gammainc, { a, q }, 1e-5)
    local zx, zq = torch.tensor({ 2, 1.5, 1, 0.5, 3, 4.5, 10, 2, 2 }), torch.tensor({ 1, 2, 3, 1, -2, -2.5, 0.5, 0, 1 / 0 })
    check("zeta", S.zeta, { zx, zq }, 1e-5)
    check("zeta float64", S.zeta, { zx:double(), zq:double() }, 1e-12)
    check("zeta of a number", function(t) return S.zeta(3, t) end, { zq:abs():add(0.5) }, 1e-5)
    check("zeta by a number", function(t) return S.zeta(t, 2) end, { zx }, 1e-5)
    local y = torch.tensor({ -1, -0.5, 0, 0.5, 3, 0 / 0, 1 / 0 })
    local w = torch.tensor({ 0, 1, -2, 0, 2.5, 1, 0 })
    check("xlog1py", S.xlog1py, { w, y }, 1e-5)
    check("xlog1py float64", S.xlog1py, { w:double(), y:double() }, 1e-12)
    check("xlog1py of a number", function(t) return S.xlog1py(2, t) end, { y }, 1e-5)
    check("xlog1py by a number", function(t) return S.xlog1py(t, 0.5) end, { w }, 1e-5)
    local px, pn = torch.tensor({ -1, -0.7, -0.2, 0, 0.3, 0.5, 0.9, 1, 2.5 }), torch.tensor({ 0, 1, 2, 3, 5, 8, 9, 12, 30 })
    for _, name in ipairs { "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
      "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
      "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
      "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p" } do
      local f = S[name]
      check(name, f, { px, pn }, 1e-4)
      check(name .. " float64", f, { px:double(), pn:double() }, 1e-10)
      check(name .. " all pairs", f, { px:view(-1, 1):double(), pn:double() }, 1e-10)
      check(name .. " of a number", function(t) return f(0.25, t) end, { pn }, 1e-4)
      check(name .. " of degree a number", function(t) return f(t, 4) end, { px }, 1e-4)
    end
  end)

  it("takes the half types where PyTorch's CUDA kernels do, with their names where they do not", function()
    local h = torch.tensor({ -3, -0.5, 0, 0.25, 1, 2.5, 8 })
    for _, dt in ipairs { torch.float16, torch.bfloat16 } do
      local t = h:to(dt)
      half_like_float("entr", S.entr, t:abs(), 1e-2)
      half_like_float("i0", torch.i0, t, 1e-2)
      half_like_float("i0e", S.i0e, t, 1e-2)
      half_like_float("xlog1py", function(u) return S.xlog1py(u, u:abs()) end, t, 1e-2)
      half_like_float("ndtr", S.ndtr, t, 1e-2)
      local dname = dt == torch.float16 and "Half" or "BFloat16"
      for name, kernel in pairs { erfcx = "erfcx_cuda", ndtri = "ndtri_cuda", log_ndtr = "log_ndtr_cuda",
        i1 = "i1_cuda", i1e = "i1e_cuda", bessel_j0 = "bessel_j0_cuda", modified_bessel_k1 = "modified_bessel_k1_cuda",
        spherical_bessel_j0 = "spherical_bessel_j0_cuda", airy_ai = "airy_ai_cuda" } do
        assert.are.equal(('"%s" not implemented for \'%s\''):format(kernel, dname), err(S[name], t:cuda()))
      end
      assert.are.equal(('"zeta_cuda" not implemented for \'%s\''):format(dname), err(S.zeta, t:cuda(), t:cuda()))
      assert.are.equal(('"igamma_cuda" not implemented for \'%s\''):format(dname), err(torch.igamma, t:cuda(), t:cuda()))
      assert.are.equal(('"legendre_polynomial_p_cuda" not implemented for \'%s\''):format(dname),
        err(S.legendre_polynomial_p, t:cuda(), 2))
    end
    -- bfloat16 ndtr is PyTorch's composition, each step rounded: the CPU's own numbers
    check("ndtr bfloat16", S.ndtr, { h:bfloat16() }, 1e-6)
  end)

  it("differentiates through them as on the CPU", function()
    local v = torch.tensor({ -2.5, -0.7, 0.2, 0.9, 1.7, 3 }):double()
    local function grads(device)
      local X = v:clone():to(device):requires_grad_()
      local P = v:abs():div(4):add(0.05):clamp(0, 0.95):to(device):requires_grad_()
      local y = S.erfcx(X):sum() + S.log_ndtr(X):sum() + S.ndtr(X):sum() + torch.i0(X):sum() + S.i0e(X):sum()
        + S.i1(X):sum() + S.i1e(X):sum() + S.ndtri(P):sum() + S.entr(P):sum() + S.xlog1py(X, P):sum()
        + torch.igammac(X:detach():abs() + 1, P):sum() -- PyTorch has no derivative in the first
      return torch.autograd.grad(y, { X, P })
    end
    local want, got = grads("cpu"), grads("cuda")
    same(want[1], got[1]:cpu(), 1e-10)
    same(want[2], got[2]:cpu(), 1e-10)
    local z = torch.tensor({ 2.0, 3.0 }, { device = "cuda", requires_grad = true })
    local e = err(function() S.zeta(z, 1.5):sum():backward() end)
    assert.truthy(e:find("zeta", 1, true), e)
  end)
end)
