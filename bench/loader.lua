-- loader: one epoch of a DataLoader (1024 samples, batch 32) whose dataset works 0.2 ms and
-- 1 ms per item (a timed spin, the same cost in both twins, then a 784-float sample), with
-- num_workers = 0 and 2. Workers are processes in both: the figure includes starting them
-- (each epoch forks its workers anew, as persistent_workers = false does).
local torch = require "mindtorch"
local B = dofile("bench/common.lua")
local data = torch.utils.data

local Work = data.Dataset:subclass("Work")
function Work:__init(cost) self.x, self.cost = torch.randn(1024, 784), cost end
function Work:len() return 1024 end
function Work:get(i)
  local t0 = torch._monotonic()
  while torch._monotonic() - t0 < self.cost do end
  return self.x[i] * 2, i
end

for _, ms in ipairs({ 0.2, 1 }) do
  local ds = Work(ms * 1e-3)
  for _, nw in ipairs({ 0, 2 }) do
    local loader = data.DataLoader(ds, { batch_size = 32, shuffle = true, num_workers = nw })
    local t = B.time_per_call(function()
      local n = 0
      for x in loader() do n = n + x.shape[1] end
      assert(n == 1024)
    end, 1, 3)
    B.result(("loader_epoch_1024x%gms_w%d"):format(ms, nw), t * 1e3, "ms")
  end
end
