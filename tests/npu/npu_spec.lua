-- The NPU backend against the ACL stand-in (tests/ascend_standin: CANN's library names and
-- C signatures over host memory and worker threads; NOT Ascend software). run_all.sh runs this
-- suite with ASCEND_HOME_PATH=build/ascend-standin and a delay on every stream task, so work
-- that is not ordered by streams and events shows as wrong values.
local torch = require "mindtorch"
local npu = torch.npu
-- the stand-in's test controls (fault injection, live allocations): a test-only Lua module
-- built with it (tests/ascend_standin/standin_lua.c), not part of the NPU module
local standin = assert(package.loadlib(os.getenv("ASCEND_HOME_PATH") .. "/lua/ascend_standin.so",
                                       "luaopen_ascend_standin"))()
local MiB = 1024 * 1024

local function stats() return npu.memory_stats() end

-- drop Lua's references and let the collector return tensor memory to the allocator
local function collect()
  collectgarbage()
  collectgarbage()
end

describe("the NPU runtime on the stand-in", function()
  it("is available with the stand-in's devices", function()
    assert.is_true(npu.is_available(), npu.unavailable_reason())
    assert.are.equal(2, npu.device_count())
    assert.are.equal(0, npu.current_device())
    assert.are.equal("Ascend-standin", npu.get_device_name())
    assert.are.equal(require "mindtorch.backends.npu", require "mindtorch.backends.ascend")
    assert.are.equal(require "mindtorch.npu", require "mindtorch.backends.npu")
  end)

  it("raises torch_npu's and PyTorch's device errors", function()
    assert.has_error(function() npu.set_device("cpu") end, "Expected a npu device, but got: cpu")
    assert.has_error(function() npu.set_device(7) end, "Invalid device id")
    assert.has_error(function() torch.add(torch.ones(2, { device = "npu" }), torch.ones(2)) end,
      "Expected all tensors to be on the same device, but found at least two devices, npu:0 and cpu!")
    -- an op the backend does not have says so as PyTorch's dispatcher does
    local ok, err = pcall(torch.sin, torch.ones(2, { device = "npu" }))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("Could not run 'aten::sin' with arguments from the 'NPU' backend", 1, true))
  end)

  it("switches devices with set_device and the device scope", function()
    local y = npu.device(1, function()
      assert.are.equal(1, npu.current_device())
      return torch.ones(3, { device = "npu" })
    end)
    assert.are.equal("npu:1", tostring(y.device))
    assert.are.equal(0, npu.current_device())
    do
      local _ <close> = npu.device("npu:1")
      assert.are.equal(1, npu.current_device())
    end
    assert.are.equal(0, npu.current_device())
  end)
end)

describe("NPU tensors", function()
  it("create and copy as on the CPU", function()
    local x = torch.arange(12, { dtype = torch.float32 }):view(3, 4)
    local n = x:to("npu")
    assert.are.equal("npu:0", tostring(n.device))
    assert.is_true(n:cpu():equal(x))
    assert.is_true(torch.zeros(2, 3, { device = "npu" }):cpu():equal(torch.zeros(2, 3)))
    assert.is_true(torch.ones(2, 3, { device = "npu", dtype = torch.int32 }):cpu():equal(torch.ones(2, 3, { dtype = torch.int32 })))
    assert.is_true(torch.full({ 4 }, 2.5, { device = "npu" }):cpu():equal(torch.full({ 4 }, 2.5)))
    local e = torch.empty(0, 5, { device = "npu" })
    assert.are.same({ 0, 5, 0 }, { e.shape[1], e.shape[2], e:numel() })
    assert.are.equal("tensor([1, 2], device='npu:0')", tostring(torch.tensor({ 1, 2 }):npu()))
    -- a summarized device tensor prints the shown elements read on the device, as the CPU prints
    local big = torch.arange(5000.0):view(50, 100)
    assert.are.equal((tostring(big):gsub("%)$", ", device='npu:0')")), tostring(big:npu()))
    -- strided sources and destinations, dtype changes, both directions
    assert.is_true(x:t():to("npu"):cpu():equal(x:t()))
    assert.is_true(n:t():cpu():equal(x:t()))
    assert.is_true(n:to(torch.float64):cpu():equal(x:double()))
    assert.is_true(n:narrow(2, 2, 2):cpu():equal(x:narrow(2, 2, 2)))
    local z = torch.zeros(3, 4, { device = "npu" })
    z:narrow(2, 2, 2):copy_(torch.ones(3, 2))
    z[1] = torch.tensor({ 9, 8, 7, 6 })
    local expect = torch.zeros(3, 4)
    expect:narrow(2, 2, 2):fill_(1)
    expect[1] = torch.tensor({ 9, 8, 7, 6 })
    assert.is_true(z:cpu():equal(expect))
    -- device to device, on one device and across two
    local c = torch.empty(3, 4, { device = "npu" })
    c:copy_(n)
    assert.is_true(c:cpu():equal(x))
    local other = n:to("npu:1")
    assert.are.equal("npu:1", tostring(other.device))
    assert.is_true(other:cpu():equal(x))
    assert.is_true(n:to(torch.int64):cpu():equal(x:long()))
    local b = torch.tensor({ true, false, true }):npu()
    assert.are.same({ true, false, true }, b:cpu():tolist())
  end)
end)

describe("the NPU caching allocator", function()
  before_each(function()
    collect()
    npu.synchronize()
    npu.empty_cache()
    npu.reset_peak_memory_stats()
    npu.reset_accumulated_memory_stats()
  end)

  it("keeps torch.cuda's 107 statistics", function()
    local keys = {}
    for k in pairs(stats()) do keys[#keys + 1] = k end
    assert.are.equal(107, #keys)
    assert.are.equal(-1, stats().max_split_size)
    assert.are.equal(0, stats()["allocated_bytes.all.current"])
  end)

  it("rounds, pools, splits and caches as PyTorch's allocator does", function()
    local a = torch.empty(250, { dtype = torch.float32, device = "npu" }) -- 1000 bytes
    local s = stats()
    assert.are.equal(1024, s["allocated_bytes.all.current"])
    assert.are.equal(1024, s["allocated_bytes.small_pool.current"])
    assert.are.equal(2 * MiB, s["reserved_bytes.all.current"])
    assert.are.equal(1, s["segment.small_pool.current"])
    assert.are.equal(1, s["inactive_split.all.current"])
    assert.are.equal(2 * MiB - 1024, s["inactive_split_bytes.all.current"])
    a = nil
    collect()
    s = stats()
    assert.are.equal(0, s["allocated_bytes.all.current"])
    assert.are.equal(0, s["active_bytes.all.current"])
    assert.are.equal(0, s["inactive_split.all.current"])
    assert.are.equal(2 * MiB, s["reserved_bytes.all.current"]) -- cached
    assert.are.equal(2 * MiB, npu.memory_reserved())
    npu.empty_cache()
    assert.are.equal(0, npu.memory_reserved())
    assert.are.equal(1, stats()["segment.all.freed"])
    -- the large pool: 5 MiB takes a 20 MiB segment, 12 MiB then reuses its remainder
    local big = torch.empty(5 * MiB, { dtype = torch.uint8, device = "npu" })
    s = stats()
    assert.are.equal(20 * MiB, s["reserved_bytes.large_pool.current"])
    assert.are.equal(15 * MiB, s["inactive_split_bytes.large_pool.current"])
    local more = torch.empty(12 * MiB, { dtype = torch.uint8, device = "npu" })
    s = stats()
    assert.are.equal(1, s["segment.large_pool.current"])
    assert.are.equal(17 * MiB, s["allocated_bytes.large_pool.current"])
    assert.are.equal(3 * MiB, s["inactive_split_bytes.large_pool.current"])
    assert.are.equal(17 * MiB, npu.max_memory_allocated())
    big, more = nil, nil
    collect()
    assert.are.equal(0, npu.memory_allocated())
    assert.are.equal(17 * MiB, npu.max_memory_allocated())
    npu.reset_peak_memory_stats()
    assert.are.equal(0, npu.max_memory_allocated())
    -- a cached segment serves a request it can hold: 11 MiB comes from the 20 MiB one
    local eleven = torch.empty(11 * MiB + 1, { dtype = torch.uint8, device = "npu" })
    assert.are.equal(20 * MiB, npu.memory_reserved())
    eleven = nil
    collect()
    -- without a cache, 11 MiB gets a segment of its own size rounded to 2 MiB
    npu.empty_cache()
    eleven = torch.empty(11 * MiB + 1, { dtype = torch.uint8, device = "npu" })
    assert.are.equal(12 * MiB, npu.memory_reserved())
    eleven = nil
    collect()
  end)

  it("describes segments and blocks in memory_snapshot and memory_summary", function()
    local keep = torch.empty(256, { dtype = torch.uint8, device = "npu" })
    local snap = npu.memory_snapshot()
    assert.are.equal(1, #snap)
    local seg = snap[1]
    assert.are.same({ 0, 2 * MiB, 512, 512, "small" },
      { seg.device, seg.total_size, seg.allocated_size, seg.active_size, seg.segment_type })
    assert.are.same({ { size = 512, state = "active_allocated" }, { size = 2 * MiB - 512, state = "inactive" } },
      seg.blocks)
    local summary = npu.memory_summary()
    local lines = {}
    for l in summary:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.are.equal(43, #lines)
    for _, l in ipairs(lines) do assert.are.equal(77, #l, l) end
    assert.are.equal("|                  PyTorch NPU memory summary, device ID 0                  |", lines[2])
    assert.are.equal("| Allocated memory      |     512 B  |     512 B  |     512 B  |       0 B  |", lines[8])
    assert.are.equal("| NPU reserved memory   |    2048 KB |    2048 KB |    2048 KB |       0 B  |", lines[16])
    local _, abbreviated_lines = npu.memory_summary(nil, true):gsub("\n", "")
    assert.are.equal(27, abbreviated_lines)
    keep = nil
    collect()
  end)

  it("frees cached blocks and retries before running out of memory, then says so as torch_npu", function()
    -- the stand-in has 1024 MiB per device
    local a = torch.empty(600 * MiB, { dtype = torch.uint8, device = "npu" })
    a = nil
    collect() -- 600 MiB stays cached
    local b = torch.empty(700 * MiB, { dtype = torch.uint8, device = "npu" }) -- fits only after the cache goes
    assert.are.equal(1, stats().num_alloc_retries)
    assert.are.equal(700 * MiB, npu.memory_reserved())
    local ok, err = pcall(torch.empty, 512 * MiB, { dtype = torch.uint8, device = "npu" })
    assert.is_false(ok)
    assert.are.equal("NPU out of memory. Tried to allocate 512.00 MiB (NPU 0; 1024.00 MiB total capacity; " ..
      "700.00 MiB already allocated; 700.00 MiB current active; 324.00 MiB free; 700.00 MiB reserved in total by " ..
      "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.", err)
    assert.are.equal(1, stats().num_ooms)
    b = nil
    collect()
    npu.empty_cache()
    assert.are.equal(0, npu.memory_reserved())
  end)

  it("keeps within set_per_process_memory_fraction", function()
    assert.has_error(function() npu.set_per_process_memory_fraction(2.0) end, "Invalid fraction value: 2.0. Allowed range: 0~1")
    assert.has_error(function() npu.set_per_process_memory_fraction(1) end, "Invalid type for fraction argument, must be `float`")
    npu.set_per_process_memory_fraction(0.25)
    local ok, err = pcall(torch.empty, 300 * MiB, { dtype = torch.uint8, device = "npu" })
    assert.is_false(ok)
    assert.truthy(err:find("; 256.00 MiB allowed; 0 bytes reserved in total by PyTorch)", 1, true), err)
    npu.set_per_process_memory_fraction(1.0)
    local fits = torch.empty(300 * MiB, { dtype = torch.uint8, device = "npu" })
    assert.are.equal(300 * MiB, npu.memory_allocated())
    fits = nil
    collect()
  end)

  it("turns injected faults into clear errors and leaks nothing", function()
    local x = torch.ones(64, { device = "npu" })
    local before = npu.memory_allocated()
    -- an allocation that fails once is retried after the cache is freed
    standin.fault("aclrtMalloc", 1, 207001)
    local y = torch.empty(4 * MiB, { dtype = torch.uint8, device = "npu" })
    assert.are.equal(1, stats().num_alloc_retries)
    y = nil
    -- a copy that fails names the call, the ACL code and the runtime's message
    standin.fault("aclrtMemcpyAsync", 1, 507015)
    local ok, err = pcall(function() return x:cpu() end)
    assert.is_false(ok)
    assert.truthy(err:find("aclrtMemcpyAsync failed: NPU function error: error code is 507015\n" ..
      "EZ9999: [stand-in] fault injected into aclrtMemcpyAsync", 1, true), err)
    standin.fault("aclrtMemcpyAsync", 1, 507015)
    ok = pcall(function() return torch.ones(8):npu() end)
    assert.is_false(ok)
    collect()
    assert.are.equal(before, npu.memory_allocated()) -- the failed results were freed
    assert.is_true(x:cpu():equal(torch.ones(64)))
    x = nil
    collect()
    npu.empty_cache()
    assert.are.equal(0, (standin.live_allocations()))
  end)
end)

describe("NPU streams and events", function()
  it("order work across streams through events", function()
    local s = npu.Stream()
    assert.are_not.equal(npu.default_stream(), s)
    local z
    npu.stream(s, function() z = torch.zeros(1024, { device = "npu" }) end) -- a memset queued on s
    local done = s:record_event()
    npu.current_stream():wait_event(done)
    -- the copy to the host runs on the default stream, after the memset
    assert.is_true(z:cpu():equal(torch.zeros(1024)))
    assert.is_true(done:query())
    -- wait_stream: the same through a stream
    local w
    npu.stream(s, function() w = torch.zeros(1024, { device = "npu" }) end)
    npu.current_stream():wait_stream(s)
    assert.is_true(w:cpu():equal(torch.zeros(1024)))
  end)

  it("shows work that is not ordered (the stand-in's queues are really asynchronous)", function()
    local s = npu.Stream()
    local z
    -- five memsets queued on s; the last one writes z
    npu.stream(s, function() for _ = 1, 5 do z = torch.zeros(1024, { device = "npu" }) end end)
    -- no wait: the default stream reads before s has written (the stand-in delays each task)
    local early = z:cpu()
    s:synchronize()
    assert.is_false(early:equal(torch.zeros(1024)))
    assert.is_true(z:cpu():equal(torch.zeros(1024)))
  end)

  it("query, synchronize and time events as torch.cuda's", function()
    local s = npu.Stream({ priority = -1 })
    assert.are.equal(-1, s.priority)
    local e0, e1 = npu.Event({ enable_timing = true }), npu.Event({ enable_timing = true })
    assert.is_true(e0:query()) -- never recorded
    assert.has_error(function() e0:elapsed_time(e1) end, "Both events must be recorded before calculating elapsed time.")
    e0:record(s)
    npu.stream(s, function() local _ = torch.zeros(16, { device = "npu" }) end)
    e1:record(s)
    assert.is_false(s:query()) -- the stand-in's delay keeps the work pending
    e1:synchronize()
    assert.is_true(e1:query() and s:query())
    assert.is_true(e0:elapsed_time(e1) > 0)
    local plain0, plain1 = npu.Event(), npu.Event()
    plain0:record()
    plain1:record()
    plain1:synchronize()
    local ok, err = pcall(plain0.elapsed_time, plain0, plain1)
    assert.is_false(ok)
    assert.truthy(err:find("aclrtEventElapsedTime failed: NPU function error", 1, true), err)
    local other = npu.device(1, function() return npu.current_stream() end)
    assert.has_error(function() e0:record(other) end, "Event device 0 does not match recording stream's device 1.")
  end)
end)
