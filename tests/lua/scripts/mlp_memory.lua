-- A training loop as a user script runs it (no collectgarbage calls in the loop): prints the
-- resident set and the tensor bytes after a warm-up and after 100000 more forward/backward/step
-- iterations. Each figure is taken after a full collection: between collections the garbage
-- tensors the pacer allows (up to 8 MB, src/lua/lmt_tensor.c) come and go, and where in that
-- cycle a reading lands would say nothing about growth.
local function rss_kib()
  local f = assert(io.open("/proc/self/statm"))
  local pages = f:read("*n") and f:read("*n")
  f:close()
  return pages * 4
end
torch.manual_seed(0)
local x, y = torch.randn(16, 8), torch.randn(16, 4)
local w1 = (torch.randn(8, 32) * 0.1):requires_grad_()
local b1 = torch.zeros(32, { requires_grad = true })
local w2 = (torch.randn(32, 4) * 0.1):requires_grad_()
local params = { w1, b1, w2 }
local function step()
  local h = (x:matmul(w1) + b1):tanh()
  local loss = ((h:matmul(w2) - y) ^ 2):mean()
  loss:backward()
  torch.no_grad(function()
    for _, p in ipairs(params) do
      p:sub_(p.grad * 0.01)
      p.grad:zero_()
    end
  end)
  return loss:item()
end
-- pools, caches and the Lua heap reach their working size: under the generational collector
-- the heap's peak between major collections (where the resident set settles) is reached after
-- 30000-60000 steps; after 20000 the next 100000 still added 2-5%, then nothing
local warm = tonumber(arg[1]) or 60000
local first
for _ = 1, warm do first = step() end
collectgarbage()
local rss0, bytes0 = rss_kib(), torch._cpu_allocated_bytes()
local last
for _ = 1, 100000 do last = step() end
collectgarbage()
print(rss0, rss_kib(), bytes0, torch._cpu_allocated_bytes(), first, last)
