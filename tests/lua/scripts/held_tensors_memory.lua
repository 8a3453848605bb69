-- A loop whose tensors stay referenced across a few ops (a batch taken from a dataset, then
-- converted and normalised), as a DataLoader loop holds them: prints the largest number of tensor
-- bytes live at once over 3000 iterations (about 2 GB allocated in total). Run it under either
-- collector mode (MINDTORCH_GC=generational selects the generational one).
local data = torch.randint(0, 256, { 6000, 28, 28 }, { dtype = torch.uint8 })
collectgarbage()
local base, peak = torch._cpu_allocated_bytes(), 0
for _ = 1, 3000 do
  local idx = torch.randint(1, 6001, { 64 })
  local batch = data:index_select(1, idx):to(torch.float32)
  batch = (batch - 0.286) / 0.353
  local out = batch:view(64, -1):sum(2)
  peak = math.max(peak, torch._cpu_allocated_bytes() - base)
  assert(out)
end
print(collectgarbage("count") > 0 and peak)
