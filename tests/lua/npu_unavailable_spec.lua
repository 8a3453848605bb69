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

  it("names a missing library", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. "/lib64 " .. dir .. "/opp")
    local out = run('print(torch.npu.unavailable_reason())', "ASCEND_HOME_PATH=" .. dir)
    os.execute("rm -rf " .. dir)
    assert.truthy(out:find("cannot open " .. dir .. "/lib64/libascendcl.so", 1, true), out)
  end)
end)
