-- allreduce: torch.distributed.all_reduce (float32 SUM, in place) of 1, 10 and 100 MB on 2
-- ranks under mpirun (loopback, shared memory), as bus bandwidth in GB/s (2 (n - 1) / n bytes
-- per element moved, NCCL's convention), against a plain C MPI_Allreduce program in the same
-- run (allreduce_mpi.c: the "_c_mpi" lines; the goal is mindtorch >= 0.9 x C). The twin
-- (allreduce.py) is PyTorch's gloo backend on 2 processes: PyTorch 1.13 has no MPI backend
-- here. Each figure is the best call of 20 (the slowest rank's time), each size warmed up.
local B = dofile("bench/common.lua")
local build = os.getenv("BUILD") or "build"
local sizes = { 1e6, 1e7, 1e8 }
local ranks = 2

if os.execute("command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1") ~= true then
  io.stderr:write("allreduce: Open MPI is not installed (apt-get install libopenmpi-dev openmpi-bin): skipped\n")
  return
end
local tmp = os.tmpname()
assert(os.execute(("mpicc -O2 -o %s bench/allreduce_mpi.c"):format(tmp)) == true, "mpicc failed")

local mpirun = ("mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np %d "):format(ranks)
local args = " 20"
for _, s in ipairs(sizes) do args = args .. (" %d"):format(s) end

local function times(cmd)
  local t = {}
  for line in B.capture(cmd .. args):gmatch("[^\n]+") do
    local bytes, secs = line:match("^(%d+) ([%d.e-]+)$")
    if bytes then t[tonumber(bytes)] = tonumber(secs) end
  end
  return t
end
local mt = times(mpirun .. build .. "/luamt bench/allreduce_rank.lua")
local c = times(mpirun .. tmp)
os.remove(tmp)

local factor = 2 * (ranks - 1) / ranks
for _, s in ipairs(sizes) do
  local name = ("allreduce_%dMB_busbw"):format(s // 1e6)
  local bw_mt = s * factor / mt[s] / 1e9
  local bw_c = s * factor / c[s] / 1e9
  B.result(name, bw_mt, "GB/s")
  B.result(name .. "_c_mpi", bw_c, "GB/s")
end
