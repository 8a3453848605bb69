-- The accelerator API on the NPU (backends/accel's shared layer, lua/mindtorch/_accelerator.lua)
-- against the ACL stand-in: pinned memory and its cache, init, device properties, peer access,
-- streams and events as classes, ACL_LAUNCH_BLOCKING. run_all.sh runs this suite with a delay
-- on every stream task, so a copy left queued shows as not yet done.
local torch = require "mindtorch"
local npu = torch.npu

-- the stand-in's test controls: torch.npu._standin, or the test-only Lua module built with the
-- stand-in (ASCEND_HOME_PATH/lua/ascend_standin.so) where the NPU module has none
local standin = torch.npu._standin or assert(package.loadlib(os.getenv("ASCEND_HOME_PATH") ..
  "/lua/ascend_standin.so", "luaopen_ascend_standin"))()

local function collect()
  collectgarbage()
  collectgarbage()
end

-- run a Lua chunk in a fresh luamt (what only process start-up decides: initialisation,
-- environment variables); returns its output and whether it succeeded
local luamt = (os.getenv("BUILD") or "build") .. "/luamt"
local run_shell = require "tests.lua.support.run"
local function run(env, code)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(code)
  f:close()
  local out, status = run_shell(("env %s %s %s"):format(env, luamt, path))
  os.remove(path)
  return out, status == 0
end

describe("pinned memory", function()
  before_each(function()
    collect()
    npu.synchronize()
    npu._host_empty_cache()
  end)

  it("pins CPU tensors and storages, and says so", function()
    local t = torch.arange(6.0):view(2, 3)
    assert.is_false(t:is_pinned())
    local p = t:pin_memory()
    assert.is_true(p:is_pinned())
    assert.is_false(t:is_pinned())
    assert.is_true(p:equal(t))
    assert.are.equal("cpu", p.device.type)
    assert.are.same({ 2, 3 }, { p.shape[1], p.shape[2] })
    assert.is_true(p:narrow(2, 2, 2):is_pinned()) -- a view of pinned memory is pinned
    assert.are.equal(p, p:pin_memory()) -- already pinned: the same tensor
    assert.is_true(torch.ones(4, { pin_memory = true }):is_pinned())
    assert.is_true(torch.empty(0):pin_memory():is_pinned())
    local s = torch.tensor({ 1, 2, 3 }):untyped_storage()
    assert.is_false(s:is_pinned())
    assert.is_true(s:pin_memory():is_pinned())
    -- the pinned memory is the driver's page-locked host memory, not the device's
    local st = npu._host_memory_stats()
    assert.is_true(st.allocated_blocks >= 3)
    assert.are.equal(0, st.cached_blocks)
  end)

  it("caches freed blocks and reuses them", function()
    local p = torch.empty(1000):pin_memory()
    local addr = p:untyped_storage():data_ptr()
    assert.are.equal(4096, npu._host_memory_stats().allocated_bytes) -- 4000 bytes, a power of two
    p = nil
    collect()
    local st = npu._host_memory_stats()
    assert.are.same({ 0, 1, 4096 }, { st.allocated_blocks, st.cached_blocks, st.cached_bytes })
    local q = torch.empty(900):pin_memory() -- fits the cached block
    assert.are.equal(addr, q:untyped_storage():data_ptr())
    q = nil
    collect()
    npu._host_empty_cache()
    assert.are.same({ 0, 0 }, { npu._host_memory_stats().segments, npu._host_memory_stats().reserved_bytes })
  end)

  it("frees its idle blocks and retries when pinned memory runs out, then says so", function()
    local idle = torch.empty(100000):pin_memory()
    idle = nil
    collect()
    assert.are.equal(1, npu._host_memory_stats().cached_blocks)
    standin.fault("aclrtMallocHost", 1, 207001)
    local p = torch.empty(300000):pin_memory() -- too big for the idle block: a new one, on the retry
    assert.are.same({ 1, 0 }, { npu._host_memory_stats().segments, npu._host_memory_stats().cached_blocks })
    standin.fault("aclrtMallocHost", 1, 207001)
    standin.fault("aclrtMallocHost", 1, 207001) -- the retry fails too
    local ok, err = pcall(function() return torch.empty(300000):pin_memory() end)
    assert.is_false(ok)
    assert.truthy(err:find("aclrtMallocHost failed: NPU function error: error code is 207001\n" ..
      "EZ9999: [stand-in] fault injected into aclrtMallocHost", 1, true), err)
    assert.is_true(p:is_pinned())
  end)

  it("copies to and from the device asynchronously with non_blocking", function()
    local x = torch.arange(4096.0):pin_memory()
    local d = torch.empty(4096, { device = "npu" })
    for _ = 1, 4 do torch.zeros(16, { device = "npu" }) end -- work ahead of the copy
    d:copy_(x, true)
    assert.is_false(npu.current_stream():query()) -- queued, not waited for
    npu.synchronize()
    assert.is_true(d:cpu():equal(x))
    local back = torch.zeros(4096):pin_memory()
    for _ = 1, 4 do torch.zeros(16, { device = "npu" }) end
    back:copy_(d * 2, true)
    assert.is_false(npu.current_stream():query())
    npu.synchronize()
    assert.is_true(back:equal(x * 2))
    -- to() with non_blocking from pinned memory; pageable memory is copied synchronously
    assert.is_true(x:to("npu", { non_blocking = true }):cpu():equal(x))
    local pageable = torch.arange(4096.0)
    d:copy_(pageable, true)
    assert.is_true(npu.current_stream():query())
    -- to("cpu") with non_blocking lands in pinned memory and stays queued, as PyTorch's
    for _ = 1, 4 do torch.zeros(16, { device = "npu" }) end
    local h = (d * 3):to("cpu", { non_blocking = true })
    assert.is_true(h:is_pinned())
    assert.is_false(npu.current_stream():query())
    npu.synchronize()
    assert.is_true(h:equal(pageable * 3))
    assert.is_false(d:to("cpu"):is_pinned())
    -- a transposed source and a new dtype: pinned too, with the source's strides
    local m = torch.arange(12.0, { device = "npu" }):view(3, 4):t()
    local hm = m:to("cpu", { non_blocking = true, dtype = torch.float64 })
    assert.is_true(hm:is_pinned())
    npu.synchronize()
    assert.is_true(hm:equal(torch.arange(12.0, { dtype = torch.float64 }):view(3, 4):t()))
    assert.are.same({ 1, 4 }, { hm:stride(1), hm:stride(2) })
  end)

  it("reuses a block only after the copies that read it", function()
    local x = torch.arange(4096.0):pin_memory()
    local addr = x:untyped_storage():data_ptr()
    local d = torch.empty(4096, { device = "npu" })
    for _ = 1, 5 do torch.zeros(16, { device = "npu" }) end
    d:copy_(x, true)
    x = nil
    collect()
    local y = torch.empty(4096):pin_memory() -- the copy still reads x's block
    assert.are_not.equal(addr, y:untyped_storage():data_ptr())
    npu.synchronize()
    assert.is_true(d:cpu():equal(torch.arange(4096.0)))
    local z = torch.empty(4096):pin_memory() -- now it is free
    assert.are.equal(addr, z:untyped_storage():data_ptr())
  end)

  it("cannot pin without a device, and says so as PyTorch", function()
    local out, ok = run("ASCEND_HOME_PATH=/nonexistent", [[
      local torch = require "mindtorch"
      local ok, err = pcall(function() return torch.ones(2):pin_memory() end)
      print(ok, err)
      print(torch.ones(2):is_pinned())]])
    assert.is_true(ok, out)
    assert.truthy(out:find("false\t[^\n]*Cannot access accelerator device when none is available.\n"), out)
    assert.truthy(out:find("\nfalse\n", 1, true), out)
  end)
end)

describe("the device API", function()
  it("initialises lazily, or at init()", function()
    local out, ok = run("", [[
      local npu = require("mindtorch").npu
      print(npu.is_initialized(), npu.is_available(), npu.device_count(), npu.is_initialized())
      npu.init()
      print(npu.is_initialized())]])
    assert.is_true(ok, out)
    assert.are.equal("false\ttrue\t2\tfalse\ntrue\n", out)
    out = run("", [[
      local torch = require "mindtorch"
      local _ = torch.ones(2, { device = "npu" })
      print(torch.npu.is_initialized())]])
    assert.are.equal("true\n", out)
    out = run("ASCEND_HOME_PATH=/nonexistent", [[
      local npu = require("mindtorch").npu
      print(pcall(npu.init))
      print(npu.is_initialized())]])
    assert.truthy(out:find("^false\t[^\n]*NPU is not available: ASCEND_HOME_PATH=/nonexistent does not exist\nfalse\n$"), out)
  end)

  it("gives device properties as torch.cuda's", function()
    local p = npu.get_device_properties(0)
    assert.are.same({ "Ascend-standin", 0, 0, 1024 * 1024 * 1024, 24 },
      { p.name, p.major, p.minor, p.total_memory, p.multi_processor_count })
    assert.are.equal("_NPUDeviceProperties(name='Ascend-standin', major=0, minor=0, total_memory=1024MB, " ..
      "multi_processor_count=24)", tostring(p))
    assert.are.equal("Ascend-standin", npu.get_device_properties("npu:1").name)
    assert.are.equal(npu.get_device_properties(torch.device("npu:1")).total_memory, p.total_memory)
    assert.are.same({ 0, 0 }, npu.get_device_capability())
    assert.are.equal("Ascend-standin", npu.get_device_name(1))
    assert.has_error(function() npu.get_device_properties(2) end, "Invalid device id")
    assert.has_error(function() npu.get_device_properties("cpu") end, "Expected a npu device, but got: cpu")
  end)

  it("asks for and enables peer access", function()
    assert.is_true(npu.can_device_access_peer(0, 1))
    assert.is_true(npu.can_device_access_peer("npu:1", torch.device("npu:0")))
    assert.is_false(npu.can_device_access_peer(1, 1)) -- a device and itself, as CUDA answers
    assert.has_error(function() npu.can_device_access_peer(0, 2) end, "Invalid peer device id")
    assert.has_error(function() npu.can_device_access_peer(3, 0) end, "Invalid device id")
    assert.has_error(function() npu.can_device_access_peer(0) end,
      "can_device_access_peer() missing 1 required positional argument: 'peer_device'")
    npu.enable_peer_access(0, 1)
    npu.enable_peer_access(1, 0)
    assert.are.equal(0, npu.current_device()) -- the device scope is left as it was
    local ok, err = pcall(npu.enable_peer_access, 0, 0)
    assert.is_false(ok)
    assert.truthy(err:find("aclrtDeviceEnablePeerAccess failed: NPU function error: error code is 100000", 1, true), err)
  end)

  it("has streams and events as classes, each stream on its torch.device", function()
    local s = npu.Stream()
    assert.is_true(npu.Stream:isinstance(s))
    assert.are.equal(torch.device("npu:0"), s.device)
    assert.are.equal("npu:0", tostring(s.device))
    local s1 = npu.Stream({ device = 1, priority = -1 })
    assert.are.same({ "npu:1", -1 }, { tostring(s1.device), s1.priority })
    assert.are.equal("npu:1", tostring(npu.current_stream(1).device))
    assert.are.equal("npu:0", tostring(npu.default_stream().device))
    assert.truthy(tostring(s):match("^<torch%.npu%.Stream device=npu:0 npu_stream=0x%x+>$"), tostring(s))
    -- npu_stream: the runtime's handle as an integer (torch.cuda.Stream's cuda_stream)
    assert.are.equal("integer", math.type(s.npu_stream))
    assert.are.equal(("0x%x"):format(s.npu_stream), tostring(s):match("npu_stream=(0x%x+)"))
    assert.are.equal(npu.current_stream().npu_stream, npu.default_stream().npu_stream)
    assert.are_not.equal(s.npu_stream, s1.npu_stream)
    assert.are.equal(npu.current_stream(), npu.default_stream())
    assert.has_error(function() npu.Stream({ bogus = 1 }) end, "Stream() got an unexpected keyword argument 'bogus'")
    local e = npu.Event(true)
    assert.is_true(npu.Event:isinstance(e) and e.enable_timing)
    assert.is_false(npu.Event({ blocking = true }).enable_timing)
    assert.are.equal("<torch.npu.Event uninitialized>", tostring(e))
    e:record(s1)
    assert.are.equal("<torch.npu.Event>", tostring(e))
    e:synchronize()
    assert.has_error(function() npu.Event({ bogus = 1 }) end, "Event() got an unexpected keyword argument 'bogus'")
  end)
end)

describe("ACL_LAUNCH_BLOCKING", function()
  -- an injected failure of the device's work (the stand-in's "<op>:kernel" fault)
  local script = [[
    local torch = require "mindtorch"
    local npu = torch.npu
    local standin = npu._standin or assert(package.loadlib(os.getenv("ASCEND_HOME_PATH") ..
      "/lua/ascend_standin.so", "luaopen_ascend_standin"))()
    local x = torch.ones(8):npu()
    standin.fault("aclnnExp:kernel", 1, 507015)
    local ok, err = pcall(function() return x:exp() end)
    print("launch", npu._launch_blocking(), ok, not ok and err or "")
    ok, err = pcall(npu.synchronize)
    print("synchronize", ok, err)
    print(x:exp():cpu():sum():item())]]

  it("=1 reports the device's failure at the op that launched it", function()
    local out, ok = run("ACL_LAUNCH_BLOCKING=1", script)
    assert.is_true(ok, out)
    assert.truthy(out:find("launch\ttrue\tfalse\taclnnExp failed: NPU function error: error code is 507015\n" ..
      "EZ9999: [stand-in] fault injected into aclnnExp:kernel", 1, true), out)
    assert.truthy(out:find("synchronize\ttrue\tnil", 1, true), out)
    assert.truthy(out:find("\n21.7", 1, true), out) -- the device works on
  end)

  it("unset, leaves the failure to the next synchronisation", function()
    local out, ok = run("ACL_LAUNCH_BLOCKING=0", script)
    assert.is_true(ok, out)
    assert.truthy(out:find("launch\tfalse\ttrue", 1, true), out)
    assert.truthy(out:find("synchronize\tfalse\t[^\n]*aclrtSynchronizeDevice failed: NPU function error: error code is 507015"),
      out)
  end)
end)
