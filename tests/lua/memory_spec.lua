-- Memory: Lua's collector sees tensor bytes, so loops stay flat without collectgarbage().
local torch = require "mindtorch"

describe("tensor memory", function()
  it("stays flat in a loop that allocates without calling collectgarbage", function()
    collectgarbage()
    local base = torch._cpu_allocated_bytes()
    local x = torch.ones(256, 256) -- 256 KiB
    local peak = 0
    for _ = 1, 2000 do -- 500 MiB allocated in total
      local y = x:clone()
      local z = y:t():contiguous()
      peak = math.max(peak, torch._cpu_allocated_bytes() - base)
      assert(z)
    end
    -- a bounded working set (a few dozen MiB at most), not the 500 MiB allocated
    assert.is_true(peak < 64 * 1024 * 1024, ("peak %d bytes"):format(peak))
  end)

  -- the largest tensor bytes a script of tests/lua/scripts reports, run in its own process with
  -- the given collector mode
  local function script_peak(script, mode)
    local luamt = (os.getenv("BUILD") or "build") .. "/luamt"
    local p = assert(io.popen("MINDTORCH_GC=" .. mode .. " " .. luamt .. " tests/lua/scripts/" .. script))
    local out = p:read("a")
    p:close()
    return assert(tonumber(out:match("(%d+)")), "no result from the script: " .. out)
  end

  -- under the generational collector, a tensor still referenced when a collection runs ages into
  -- an old object that only a major collection frees: the binding's pacer runs a young collection
  -- by tensor bytes, and a full one when that freed too little, so neither mode lets it grow
  for _, mode in ipairs { "incremental", "generational" } do
    it("stays flat when tensors are held across ops, with the " .. mode .. " collector", function()
      local peak = script_peak("held_tensors_memory.lua", mode)
      -- 8 MiB of garbage between collections plus one iteration's tensors, not the 2 GB allocated
      assert.is_true(peak < 24 * 1024 * 1024, ("peak %d bytes"):format(peak))
    end)
    -- tensors dropped only after they aged into old objects: young collections free none of them
    it("stays flat when tensors live across collections, with the " .. mode .. " collector", function()
      local peak = script_peak("aged_tensors_memory.lua", mode)
      -- the ring's 32 MiB plus 8 MiB of garbage between collections (12 MiB when they are
      -- old: the generational pacer tries a second young collection first), not the 2 GiB
      -- allocated
      assert.is_true(peak < 48 * 1024 * 1024, ("peak %d bytes"):format(peak))
    end)
  end

  -- `local c = a + b` in a loop: the slot still holds the last c while the next is made, so a
  -- full collection ages it, and a young one cannot free it at the next call. One full
  -- collection must not lead to one a call (each walks the whole Lua heap).
  it("runs young collections, not a full one per call, for a loop's local results", function()
    local mode = torch._gc_mode()
    torch._gc_mode("generational")
    local a, b = torch.rand(4 * 1024 * 1024), torch.rand(4 * 1024 * 1024) -- 16 MiB each
    local young0, full0 = torch._gc_collections()
    collectgarbage() -- the state after a full collection: the loop's first c ages at once
    for _ = 1, 40 do
      local c = a + b
      assert(c)
    end
    local young, full = torch._gc_collections()
    torch._gc_mode(mode)
    assert.is_true(young - young0 >= 30, ("%d young collections"):format(young - young0))
    assert.is_true(full - full0 <= 4, ("%d full collections in 40 calls"):format(full - full0))
  end)

  it("runs Lua's collector in generational mode unless told otherwise, and switches with _gc_mode", function()
    local want = os.getenv("MINDTORCH_GC") == "incremental" and "incremental" or "generational"
    assert.are.equal(want, torch._gc_mode())
    local other = want == "generational" and "incremental" or "generational"
    assert.are.equal(other, torch._gc_mode(other))
    -- Lua's own switch answers with the mode it found
    assert.are.equal(other, collectgarbage(other))
    assert.are.equal(want, torch._gc_mode(want))
    assert.are.equal(want, collectgarbage(want))
    assert.has_error(function() torch._gc_mode("manual") end, "bad argument #1 to '_gc_mode' (invalid option 'manual')")
    assert.are.equal(want, torch._gc_mode())
  end)

  it("frees a tensor's storage at the end of a <close> scope", function()
    collectgarbage()
    collectgarbage("stop")
    local ok, err = pcall(function()
      local base = torch._cpu_allocated_bytes()
      do
        local big <close> = torch.empty(1024, 1024)
        assert.are.equal(4 * 1024 * 1024, torch._cpu_allocated_bytes() - base)
      end
      assert.are.equal(0, torch._cpu_allocated_bytes() - base)
    end)
    collectgarbage("restart")
    assert(ok, err)
  end)

  it("refuses a tensor used after <close>", function()
    local keep
    do
      local t <close> = torch.zeros(2)
      keep = t
    end
    assert.has_error(function() return keep:numel() end,
      "this tensor was released by <close> and can no longer be used")
    -- operators say the same, not that no overload matched
    assert.has_error(function() return keep:sum() end,
      "this tensor was released by <close> and can no longer be used")
    assert.has_error(function() return torch.add(torch.ones(2), keep) end,
      "this tensor was released by <close> and can no longer be used")
  end)

  it("keeps a storage alive while a view uses it", function()
    local v
    do
      local x = torch.arange(10.0)
      v = x:narrow(1, 5, 3)
    end
    collectgarbage()
    collectgarbage()
    assert.are.same({ 4, 5, 6 }, v:tolist())
  end)
  -- blocks of 4 MiB and more are 2 MiB huge pages (src/mt_pool.c): aligned to one, and sized in
  -- whole ones, so a freed block serves the next tensor that rounds to the same size
  it("puts tensors of 4 MiB and more on 2 MiB boundaries, sized in whole huge pages", function()
    local huge = 2 * 1024 * 1024
    local x = torch.empty(1100 * 1024) -- 4.3 MiB of float32: rounds to 6 MiB
    assert.are.equal(0, x:data_ptr() % huge)
    local p = x:data_ptr()
    x = nil
    collectgarbage()
    collectgarbage()
    local y = torch.empty(1500 * 1024) -- 5.9 MiB: the same 6 MiB block
    assert.are.equal(p, y:data_ptr())
    assert.are.equal(0, torch.empty(3 * 1024 * 1024, { dtype = torch.uint8 }):data_ptr() % 64)
  end)
end)
