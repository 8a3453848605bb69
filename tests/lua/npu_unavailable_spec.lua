-- Without Ascend CANN: the NPU module loads, torch.npu.is_available() is false, and creating an
-- NPU tensor raises an error that says NPU and why. Run in a child process with no
-- ASCEND_HOME_PATH, so the test does not depend on this process's environment.
local build = os.getenv("BUILD") or "build"
local luamt = build .. "/luamt"

local run_shell = require "tests.lua.support.run"

local function run(code, env)
  return run_shell(("env -u ASCEND_HOME_PATH -u ASCEND_TOOLKIT_HOME %s %s -e '%s'"):format(env or "", luamt, code))
end

describe("the NPU backend without CANN", function()
  it("loads and reports why the NPU is not available", function()
    if io.open("/usr/local/Ascend/ascend-toolkit/latest") or io.open("/usr/local/Ascend/latest") then
      return -- a machine with CANN installed: nothing to check here
    end
    local out, status = run('print(torch.npu.is_available(), torch.npu.device_count()); print(torch.npu.unavailable_reason())')
    assert.are.equal(0, status, out)
    assert.are.equal("false\t0\nthe Ascend CANN toolkit was not found (set ASCEND_HOME_PATH, or install it under " ..
      "/usr/local/Ascend/ascend-toolkit/latest)\n", out)
  end)

  it("refuses NPU tensors with a reason, whether or not torch.npu was touched first", function()
    local out = run('print(pcall(torch.zeros, 2, {device = "npu"})); print(pcall(function() return torch.ones(2):to("npu:1") end))',
      "ASCEND_HOME_PATH=/nonexistent/cann")
    assert.are.equal("false\tNPU is not available: ASCEND_HOME_PATH=/nonexistent/cann does not exist\n" ..
      "false\tNPU is not available: ASCEND_HOME_PATH=/nonexistent/cann does not exist\n", out)
    out = run('print(pcall(torch.npu.memory_allocated)); print(next(torch.npu.memory_stats()))',
      "ASCEND_HOME_PATH=/nonexistent/cann")
    -- the statistics of an NPU that never started are empty, as torch.cuda's
    assert.are.equal("true\t0\nnil\n", out)
  end)

  it("refuses the device API with the reason, and pinning as PyTorch does", function()
    local out = run('print(torch.npu.is_initialized(), pcall(torch.npu.init)); ' ..
      'print(pcall(torch.npu.get_device_properties, 0)); print(pcall(torch.npu.can_device_access_peer, 0, 1)); ' ..
      'print(pcall(function() return torch.ones(2):pin_memory() end)); print(torch.npu.is_initialized())',
      "ASCEND_HOME_PATH=/nonexistent/cann")
    local why = "NPU is not available: ASCEND_HOME_PATH=/nonexistent/cann does not exist"
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.truthy(lines[1]:find("^false\tfalse\t.*" .. why:gsub("%p", "%%%0") .. "$"), out)
    assert.truthy(lines[2]:find(why, 1, true), out)
    assert.truthy(lines[3]:find(why, 1, true), out)
    assert.truthy(lines[4]:find("^false\t.*Cannot access accelerator device when none is available%.$"), out)
    assert.are.equal("false", lines[5], out)
  end)

  it("names a missing library", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. "/lib64 " .. dir .. "/opp")
    local out = run('print(torch.npu.unavailable_reason())', "ASCEND_HOME_PATH=" .. dir)
    os.execute("rm -rf " .. dir)
    assert.truthy(out:find("cannot open " .. dir .. "/lib64/libascendcl.so", 1, true), out)
  end)
end)
