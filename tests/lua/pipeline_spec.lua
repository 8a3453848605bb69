-- Pipeline mode: ops are recorded and run later (when data is read, on flush, on exit), with the
-- results of eager mode. Every contract call is also replayed in pipeline mode
-- (tests/contract/harness.lua); these specs cover the mode itself.
local torch = require("mindtorch")

local function work(x)
  local y = (x * 2 + 1):t()
  local z = y:softmax(1):matmul(x)
  y:add_(1)
  local w = torch.cat({ y, y * y }, 1)[{ { 2, -1 }, ":" }]
  return { y, z, w:sum(2), w:amax(), x[{ torch.tensor({ 2, 1 }) }], torch.where(w:gt(3), w, -w) }
end

describe("pipeline mode", function()
  it("gives the results of eager mode", function()
    local x = torch.arange(12.0):view(3, 4):t():contiguous():view(3, 4)
    local eager = work(x)
    local piped = torch.pipeline(function() return work(x) end)
    for i = 1, #eager do assert.is_true(torch.equal(eager[i], piped[i]), "result " .. i) end
  end)

  it("defers ops until data is read, flushed or the mode ends", function()
    local x = torch.ones(4)
    local y, z
    do
      local ctx <close> = torch.pipeline()
      assert.is_true(torch.pipeline.is_enabled())
      y = x + 1
      z = y * 3
      assert.are.equal(2, torch._pipeline_pending())
      assert.are.same({ 6, 6, 6, 6 }, z:tolist()) -- reading runs what was recorded
      assert.are.equal(0, torch._pipeline_pending())
      local w = z:neg()
      assert.are.equal(1, torch._pipeline_pending())
      ctx:flush()
      assert.are.equal(0, torch._pipeline_pending())
      y:mul_(10)
      assert.are.equal(1, torch._pipeline_pending())
      assert.are.same({ -6, -6, -6, -6 }, w:tolist())
    end
    assert.is_false(torch.pipeline.is_enabled())
    assert.are.same({ 20, 20, 20, 20 }, y:tolist()) -- the exit ran the in-place op
  end)

  it("takes views at once, over pending storage", function()
    local x = torch.arange(6.0)
    torch.pipeline(function()
      local y = x * 2
      local v = y:view(2, 3):t()
      assert.are.equal(torch.Size({ 3, 2 }), v.shape)
      assert.are.equal(1, torch._pipeline_pending())
      assert.are.same({ { 0, 6 }, { 2, 8 }, { 4, 10 } }, v:tolist())
    end)
  end)

  it("refuses ops that have no meta kernel", function()
    local x = torch.tensor({ 0, 1, 2 })
    assert.has_error(function() torch.pipeline(function() return x:nonzero() end) end,
      "pipeline requires meta kernel for op nonzero")
    assert.has_error(function() torch.pipeline(function() return x[x:gt(0)] end) end,
      "pipeline requires meta kernel for op masked_select")
    assert.is_false(torch.pipeline.is_enabled()) -- the error left the mode
  end)

  it("reports a failing kernel when the work runs, and refuses the tensors after it", function()
    local x = torch.zeros(3)
    local idx = torch.tensor({ 1, 7 }) -- out of range: found by the kernel
    local after
    local ok, err = pcall(torch.pipeline, function()
      local g = x:gather(1, idx)
      after = g + 1
    end)
    assert.is_false(ok)
    assert.are.equal("index 7 is out of bounds for dimension 1 with size 3", err)
    assert.has_error(function() after:tolist() end,
      "this tensor was never computed: an op before it failed in pipeline mode")
  end)

  it("nests, running the work when the outermost mode ends", function()
    local y
    torch.pipeline(function()
      torch.pipeline(function() y = torch.ones(2) * 5 end)
      assert.are.equal(2, torch._pipeline_pending()) -- ones, then the product
    end)
    assert.are.same({ 5, 5 }, y:tolist())
  end)

  it("draws random numbers in the same order as eager mode", function()
    torch.manual_seed(3)
    local a, b = torch.rand(5), torch.randn(20)
    local c, d = torch.pipeline(function()
      torch.manual_seed(3)
      local c_ = torch.rand(5)
      local d_ = torch.randn(20)
      torch.manual_seed(3) -- reseeding runs the pending draws first
      return c_, d_, torch.rand(1)
    end)
    assert.is_true(torch.equal(a, c))
    assert.is_true(torch.equal(b, d))
  end)

  it("works on the meta device", function()
    local x = torch.empty(3, 4, { device = "meta" })
    local y = torch.pipeline(function() return (x * 2):sum(1) end)
    assert.are.equal("meta", y.device.type)
    assert.are.equal(torch.Size({ 4 }), y.shape)
  end)
end)
