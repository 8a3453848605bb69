-- Tensors that live across several collections before they are dropped, as a queue of recent
-- batches or a replay buffer keeps them: each result stays in a ring of 32 for 32 iterations
-- (32 MiB live), long enough that the generational collector has made it old, and old objects
-- are freed only by a full collection. Prints the largest number of tensor bytes live at once
-- over 2000 iterations (2 GiB allocated). Run it under either collector mode.
local ring, size = {}, 32
collectgarbage()
local base, peak = torch._cpu_allocated_bytes(), 0
for i = 1, 2000 do
  ring[i % size + 1] = torch.empty(256, 1024) -- 1 MiB
  peak = math.max(peak, torch._cpu_allocated_bytes() - base)
end
print(#ring == size and peak)
