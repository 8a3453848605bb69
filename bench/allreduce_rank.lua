-- allreduce_rank.lua: one rank of bench/allreduce.lua (launched by it under mpirun): the best
-- time of torch.distributed.all_reduce (float32 SUM, in place) per size, printed by rank 0 as
-- "<bytes> <seconds per call>", measured as allreduce_mpi.c measures MPI_Allreduce.
local torch = require "mindtorch"
local dist = torch.distributed
dist.init_process_group("mpi")
local iters = tonumber(arg[1])
for a = 2, #arg do
  local bytes = tonumber(arg[a])
  local x = torch.ones(bytes // 4)
  dist.all_reduce(x) -- warm up
  local best = math.huge
  for _ = 1, iters do
    dist.barrier()
    local t0 = torch._monotonic()
    dist.all_reduce(x)
    local t = torch.tensor({ torch._monotonic() - t0 }, { dtype = torch.float64 })
    dist.all_reduce(t, dist.ReduceOp.MAX)
    best = math.min(best, t:item())
  end
  if dist.get_rank() == 0 then print(("%d %.9f"):format(bytes, best)) end
end
dist.destroy_process_group()
