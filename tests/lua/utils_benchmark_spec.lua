-- torch.utils.benchmark: the monotonic clock, Timer's three ways to measure (with a fake clock,
-- so that the counts are exact), string statements, the thread count restored, and
-- Measurement's statistics and PyTorch-shaped repr.
local torch = require "mindtorch"
local bm = torch.utils.benchmark

-- a fake clock that only the timed statement moves: each run takes `cost` seconds (powers of
-- two, so that the sums are exact)
local function fake(cost)
  local now = 0.0
  return function() now = now + cost end, function() return now end
end

describe("torch.utils.benchmark", function()
  it("loads on first use and gives a monotonic clock in seconds", function()
    assert.are.equal(bm, require("mindtorch.utils.benchmark"))
    assert.are.equal(torch._monotonic, bm.time)
    local a = bm.time()
    local b = bm.time()
    assert.is_true(type(a) == "number" and b >= a)
  end)

  it("timeit(number): one block of `number` runs after a warm-up, setup outside the timing", function()
    local runs, setups = 0, 0
    local step, clock = fake(2 ^ -19)
    local m = bm.Timer { stmt = function() runs = runs + 1; step() end, setup = function() setups = setups + 1 end,
      timer = clock }:timeit(500)
    assert.are.equal(505, runs) -- the warm-up runs 500 // 100 = 5
    assert.are.equal(2, setups) -- once before the warm-up, once before the timed block
    assert.are.equal(500, m.number_per_run)
    assert.are.same({ 500 * 2 ^ -19 }, m.raw_times)
    assert.are.equal(2 ^ -19, m.median)
    assert.are.equal(2 ^ -19, m.mean)
    assert.are.equal(0, m.iqr)
    assert.are.equal(1, #m.times)
  end)

  it("blocked_autorange: blocks sized by the estimate until min_run_time is spent", function()
    local step, clock = fake(2 ^ -20)
    local blocks = {}
    local m = bm.Timer { stmt = step, timer = clock }:blocked_autorange {
      min_run_time = 0.2, callback = function(n, t) blocks[#blocks + 1] = { n, t } end }
    -- no overhead on this clock: the first block of at least 0.2 ms decides (1000 runs)
    assert.are.equal(1000, m.number_per_run)
    assert.are.equal(math.ceil(0.2 / (1000 * 2 ^ -20)), #m.times) -- blocks until 0.2 s is spent
    assert.are.equal(#m.times, #blocks)
    assert.are.same({ 1000, 1000 * 2 ^ -20 }, blocks[1])
    assert.are.equal(2 ^ -20, m.median)
    assert.is_false(m.has_warnings)
  end)

  it("adaptive_autorange: stops once the IQR is under the threshold after more than 3 blocks", function()
    local step, clock = fake(2 ^ -20)
    local m = bm.Timer { stmt = step, timer = clock }:adaptive_autorange { min_run_time = 0.0003 }
    assert.are.equal(100, m.number_per_run) -- blocks of at least 0.05 ms
    assert.are.equal(4, #m.times)
    m = bm.Timer { stmt = step, timer = clock }:adaptive_autorange { min_run_time = 0.001 }
    assert.are.equal(math.ceil(0.001 / (100 * 2 ^ -20)), #m.times) -- and min_run_time spent
    assert.is_true(m:meets_confidence(0.1))
    -- a noisy statement stops at max_run_time
    local now, k = 0.0, 0
    local noisy = function() k = k + 1; now = now + 1e-6 * (1 + k * 7919 % 13 / 13) end
    local m2 = bm.Timer { stmt = noisy, timer = function() return now end }:adaptive_autorange {
      threshold = 1e-9, max_run_time = 0.05 }
    assert.is_true(#m2.times > 4)
    local spent = 0
    for _, t in ipairs(m2.raw_times) do spent = spent + t end
    assert.is_true(spent > 0.05 and spent < 0.06, spent)
  end)

  it("compiles string statements into one environment with torch and the globals given", function()
    local t = bm.Timer { stmt = "y = bm_spec_x + k", setup = "bm_spec_x = torch.ones(3)", globals = { k = 2 } }
    t:timeit(10)
    assert.is_true(torch.equal(t._env.y, torch.full({ 3 }, 3.0)))
    assert.is_nil(rawget(_G, "bm_spec_x"))
    assert.has_error(function() bm.Timer { stmt = "y = = 1" } end,
      "Timer(): stmt does not compile: stmt:1: unexpected symbol near '='")
    assert.has_error(function() bm.Timer { stmt = 3 } end, "Timer(): stmt must be a function or a string of Lua, not int")
    assert.has_error(function() bm.Timer { foo = 1 } end, "Timer() got an unexpected keyword argument 'foo'")
    -- positional stmt and setup, as PyTorch's Timer(stmt, setup)
    local n = 0
    bm.Timer(function() n = n + 1 end, "z = 1"):timeit(100)
    assert.are.equal(102, n)
  end)

  it("sets num_threads while measuring (1 by default, as PyTorch) and restores the caller's", function()
    local before = torch.get_num_threads()
    local seen
    bm.Timer { stmt = function() seen = torch.get_num_threads() end }:timeit(2)
    assert.are.equal(1, seen)
    bm.Timer { stmt = function() seen = torch.get_num_threads() end, num_threads = 2 }:timeit(2)
    assert.are.equal(2, seen)
    assert.are.equal(before, torch.get_num_threads())
    -- also when the statement fails
    assert.has_error(function() bm.Timer { stmt = function() error("boom", 0) end, num_threads = 2 }:timeit(2) end, "boom")
    assert.are.equal(before, torch.get_num_threads())
    assert.has_error(function() bm.Timer { num_threads = 0 } end, "Timer(): num_threads must be a positive integer")
  end)

  it("Measurement: quantiles, IQR and PyTorch's repr", function()
    local m = bm.Measurement(10, { 10e-6, 11.8e-6, 12e-6, 12.2e-6, 30e-6 },
      { label = "mm", sub_label = "64x64", description = "float32", num_threads = 4 })
    assert.are.equal(5, #m.times)
    assert.is_true(math.abs(m.median - 1.2e-6) < 1e-15)
    assert.is_true(math.abs(m.iqr - 0.04e-6) < 1e-15)
    assert.is_true(math.abs(m.mean - 1.52e-6) < 1e-15)
    local s = tostring(m)
    local lines = {}
    for l in s:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.truthy(lines[1]:match("^<torch%.utils%.benchmark%.Measurement object at 0x%x+>$"), lines[1])
    assert.are.same({ "mm: 64x64", "float32", "  Median: 1.20 us", "  IQR:    0.04 us (1.18 to 1.22)",
      "  5 measurements, 10 runs per measurement, 4 threads" }, { table.unpack(lines, 2) })
    assert.is_false(m.has_warnings)
    local fluct = bm.Measurement(1, { 1.0, 1.1, 1.2, 1.3, 3.0 })
    assert.truthy(tostring(fluct):find("\n  WARNING: Interquartile range is 16.7% of the median measurement.\n"
      .. "           This could indicate system fluctuation.", 1, true), tostring(fluct))
    -- one measurement: no "Median:", no IQR line; a wide spread warns
    local one = bm.Measurement(1000, { 2.5e-3 }, { stmt = "x + 1" })
    assert.truthy(tostring(one):find("\nx + 1\n  2.50 us\n  1 measurement, 1000 runs , 1 thread", 1, true), tostring(one))
    local wide = bm.Measurement(1, { 1, 1, 2, 2, 3, 3 })
    assert.is_true(wide.has_warnings)
    assert.truthy(tostring(wide):find("  WARNING: Interquartile range is 75.0% of the median measurement.\n"
      .. "           This suggests significant environmental influence.", 1, true))
    -- units
    assert.are.same({ "ns", "us", "ms", "s" }, { bm._select_unit(5e-9), bm._select_unit(5e-6), bm._select_unit(5e-3),
      (bm._select_unit(5)) })
  end)

  it("titles a function statement with where it is defined", function()
    local m = bm.Timer { stmt = function() end }:timeit(1)
    assert.truthy(tostring(m):find("\n<function at [^\n]*utils_benchmark_spec%.lua:%d+>\n"), tostring(m))
  end)
end)
