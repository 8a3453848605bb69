-- common.lua: helpers for mindtorch benchmarks. A benchmark prints lines
--   RESULT <name> <value> <unit>
-- which bench/run.sh pairs with the PyTorch twin's lines (bench/<name>.py).
local torch = require "mindtorch"
local B = {}

B.threads = tonumber(os.getenv("MT_BENCH_THREADS") or "1")
torch.set_num_threads(B.threads)

-- Best time per call (seconds) of fn over `reps` runs of `n` calls.
function B.time_per_call(fn, n, reps)
  reps = reps or 5
  local best = math.huge
  fn() -- warm up
  for _ = 1, reps do
    local t0 = torch._monotonic()
    for _ = 1, n do fn() end
    local t = (torch._monotonic() - t0) / n
    if t < best then best = t end
  end
  return best
end

function B.result(name, value, unit)
  print(("RESULT %s %.6g %s"):format(name, value, unit))
  io.stdout:flush()
end

function B.median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

-- Run a shell command, returning its stdout.
function B.capture(cmd)
  local p = io.popen(cmd)
  local out = p:read("a")
  p:close()
  return out
end

return B
