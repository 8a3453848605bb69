-- Autograd memory: a long training loop (forward, backward, SGD step) keeps flat memory. Graphs
-- are freed when their last tensor goes (reference counts, no cycles between nodes and tensors),
-- so neither the resident set nor the tensor bytes grow.
local torch = require "mindtorch"

describe("autograd memory", function()
  it("stays flat over 100000 forward/backward iterations of a small MLP", function()
    -- in a process of its own, as a user's script (the test runner's heap would blur the RSS)
    local luamt = (os.getenv("BUILD") or "build") .. "/luamt"
    local p = assert(io.popen(luamt .. " tests/lua/scripts/mlp_memory.lua"))
    local out = p:read("a")
    p:close()
    local rss0, rss1, bytes0, bytes1, first, last = out:match("(%d+)%s+(%d+)%s+(%d+)%s+(%d+)%s+(%S+)%s+(%S+)")
    assert(rss0, "no result from the script: " .. out)
    rss0, rss1, bytes0, bytes1 = tonumber(rss0), tonumber(rss1), tonumber(bytes0), tonumber(bytes1)
    assert.is_true(tonumber(last) < tonumber(first), "the loss went down")
    -- (under the sanitizers' build, ASan's quarantine keeps freed blocks resident by design:
    -- there the tensor bytes and LeakSanitizer stand for the RSS bound)
    if not os.getenv("MT_PRELOAD") then
      assert.is_true(rss1 <= rss0 * 1.05, ("RSS %d KiB -> %d KiB"):format(rss0, rss1))
    end
    assert.is_true(bytes1 <= bytes0 * 1.05 + 65536, ("tensor bytes %d -> %d"):format(bytes0, bytes1))
  end)

  it("frees a graph when its output goes, even with saved tensors and hooks", function()
    collectgarbage()
    collectgarbage()
    local base = torch._cpu_allocated_bytes()
    do
      local a = torch.randn(256, 256, { requires_grad = true })
      local b = a:exp()
      b:register_hook(function(g) return g * 2 end)
      local c = (b * a):sum()
      c:backward({ retain_graph = true })
      a, b, c = nil, nil, nil
    end
    collectgarbage()
    collectgarbage()
    assert.are.equal(0, torch._cpu_allocated_bytes() - base)
  end)
end)
