-- torch.distributed over Open MPI: the collectives on 2 and 4 ranks (tests/lua/scripts/
-- dist_collectives.lua checks each against a single-process reference), a failing rank ends
-- the job, a missing peer times out, and a build without the MPI module says how to get it.
-- Every run is on loopback (mpirun on this machine only).
local build = os.getenv("BUILD") or "build"
local luamt = build .. "/luamt"
local run = require "tests.lua.support.run"

local have_mpirun = os.execute("command -v mpirun >/dev/null 2>&1")
local have_module = io.open(build .. "/lib/lua/5.4/mindtorch/distributed_mpi.so") ~= nil

-- mpirun on loopback. Under the sanitizers leak checking is off in the ranks: Open MPI's
-- plugins (loaded and unloaded with dlopen) keep allocations to the end that LeakSanitizer can
-- neither attribute nor suppress by library; the rest of the suite checks mindtorch's leaks.
local function mpirun(np, script)
  local env = ""
  if os.getenv("MT_PRELOAD") then env = "-x ASAN_OPTIONS=detect_leaks=0 " end
  -- (no single-copy transfers between ranks: containers often forbid the ptrace-like access
  -- they need, and a refused transfer aborts the job)
  return run(("timeout 300 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader,tcp "
    .. "--mca btl_vader_single_copy_mechanism none --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo "
    .. "%s-np %d %s %s"):format(env, np, luamt, script))
end

local function script(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

describe("torch.distributed", function()
  it("says whether the MPI module is there, and without it how to install it", function()
    local torch = require "mindtorch"
    assert.are.equal(have_module, torch.distributed.is_available())
    local s = script([[
      package.preload["mindtorch.distributed_mpi"] = function() error("libmpi.so.40: cannot open shared object file") end
      local dist = torch.distributed
      print(dist.is_available(), dist.is_initialized())
      local ok, err = pcall(dist.init_process_group, "mpi")
      print(err)
      ok, err = pcall(dist.get_rank)
      print(err)]])
    local out, status = run(luamt .. " " .. s)
    os.remove(s)
    assert.are.equal(0, status, out)
    assert.matches("^false\tfalse\n", out)
    assert.truthy(out:find("Distributed package doesn't have MPI built in: install Open MPI (apt-get install "
      .. "libopenmpi-dev openmpi-bin) and rebuild mindtorch, then launch with mpirun (", 1, true), out)
    assert.truthy(out:find("libmpi.so.40: cannot open shared object file", 1, true), out)
    assert.truthy(out:find("Default process group has not been initialized, please make sure to call "
      .. "init_process_group.", 1, true), out)
  end)

  for _, np in ipairs({ 2, 4 }) do
    it(("matches a single-process reference for every collective, dtype and op on %d ranks"):format(np), function()
      if not (have_mpirun and have_module) then pending("Open MPI is not installed") return end
      local out, status = mpirun(np, "tests/lua/scripts/dist_collectives.lua")
      assert.are.equal(0, status, out)
      assert.falsy(out:find("FAIL", 1, true), out)
      for r = 0, np - 1 do
        local n, failed = out:match(("rank %d checks (%%d+) failed (%%d+)"):format(r))
        assert.truthy(n, out)
        assert.is_true(tonumber(n) > 400, out)
        assert.are.equal("0", failed, out)
      end
    end)
  end

  for _, np in ipairs({ 2, 4 }) do
    it(("trains with DistributedDataParallel as one process with the whole batch, on %d ranks"):format(np), function()
      if not (have_mpirun and have_module) then pending("Open MPI is not installed") return end
      local out, status = mpirun(np, "tests/lua/scripts/ddp_train.lua")
      assert.are.equal(0, status, out)
      assert.falsy(out:find("FAIL", 1, true), out)
      for r = 0, np - 1 do
        assert.truthy(out:find(("rank %d checks 16 failed 0"):format(r), 1, true), out)
      end
    end)
  end

  for _, np in ipairs({ 2, 4 }) do
    it(("reduces SyncBatchNorm's statistics and gradients across %d ranks, as one process's BatchNorm"):format(np),
      function()
        if not (have_mpirun and have_module) then pending("Open MPI is not installed") return end
        local out, status = mpirun(np, "tests/lua/scripts/syncbn.lua")
        assert.are.equal(0, status, out)
        assert.falsy(out:find("FAIL", 1, true), out)
        for r = 0, np - 1 do
          assert.truthy(out:find(("rank %d checks 46 failed 0"):format(r), 1, true), out)
        end
      end)
  end

  it("ends the job when a rank raises an error, while the others wait in a collective", function()
    if not (have_mpirun and have_module) then pending("Open MPI is not installed") return end
    local s = script([[
      local dist = torch.distributed
      dist.init_process_group{ backend = "mpi" } -- the default timeout: 30 minutes
      if dist.get_rank() == 1 then error("rank 1 gives up") end
      dist.all_reduce(torch.ones(4))
      print("rank " .. dist.get_rank() .. " should not get here")]])
    local t0 = os.time()
    local out, status = mpirun(2, s)
    os.remove(s)
    assert.are_not.equal(0, status, out)
    assert.truthy(out:find("rank 1 gives up", 1, true), out)
    assert.falsy(out:find("should not get here", 1, true), out)
    assert.is_true(os.time() - t0 < 60, "the job ended within a minute")
  end)

  it("raises a timeout error in a rank whose collective a peer never joins, sync or async", function()
    if not (have_mpirun and have_module) then pending("Open MPI is not installed") return end
    local s = script([[
      local dist = torch.distributed
      dist.init_process_group{ backend = "mpi", timeout = 1.5 }
      if dist.get_rank() == 1 then torch._proc.sleep(6) os.exit(0) end
      local ok, err = pcall(function() dist.all_reduce(torch.ones(4), nil, nil, true):wait() end)
      print(ok, err)
      dist.broadcast(torch.ones(4), 1)
      print("rank 0 should not get here")]])
    local t0 = os.time()
    local out, status = mpirun(2, s)
    os.remove(s)
    assert.are_not.equal(0, status, out)
    assert.truthy(out:find("false\t[^\n]*%[Rank 0%] Timed out waiting 1500ms for all_reduce operation to complete"), out)
    assert.truthy(out:find("[Rank 0] Timed out waiting 1500ms for broadcast operation to complete", 1, true), out)
    assert.falsy(out:find("should not get here", 1, true), out)
    assert.is_true(os.time() - t0 < 30, "the job ended")
  end)
end)
