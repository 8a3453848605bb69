-- syncbn.lua: run by tests/lua/distributed_spec.lua under mpirun (2 and 4 ranks). SyncBatchNorm
-- on each rank's share of a batch against BatchNorm on the whole batch in one process (each
-- rank computes that reference itself): outputs, input gradients, the weight's and bias's
-- gradients summed over ranks, running statistics, float64. Prints "FAIL ..." lines and
-- "rank <r> checks <n> failed <k>".
local torch = require "mindtorch"
local nn, dist = torch.nn, torch.distributed
dist.init_process_group("mpi")
local rank, size = dist.get_rank(), dist.get_world_size()
torch.set_default_dtype(torch.float64)
local checks, failed = 0, 0
local function close(a, b, what)
  checks = checks + 1
  local d = (a - b):abs():max():item()
  if not (d < 1e-12) then
    failed = failed + 1
    print(("FAIL rank %d: %s (%g)"):format(rank, what, d))
  end
end

for _, shape in ipairs({ { 8, 3 }, { 8, 3, 5 }, { 4 * size, 2, 3, 3 } }) do
  local N = shape[1]
  local per = N // size
  local full = (torch.arange(torch.tensor(shape):prod():item()) * 0.37):sin():view(shape)
  local w = (torch.arange(full:numel()) * 0.11):cos():view(shape)
  local ref = nn.BatchNorm1d(shape[2])
  if #shape == 4 then ref = nn.BatchNorm2d(shape[2]) end
  local sbn = nn.SyncBatchNorm(shape[2])
  torch.no_grad(function()
    ref.weight:copy_(torch.linspace(0.5, 1.5, shape[2]))
    ref.bias:copy_(torch.linspace(-0.2, 0.3, shape[2]))
    sbn.weight:copy_(ref.weight)
    sbn.bias:copy_(ref.bias)
  end)
  local what = ("shape %s"):format(table.concat(shape, "x"))
  for step = 1, 2 do -- two steps: the running statistics are updated twice
    local x = full:clone():requires_grad_()
    local y = ref(x)
    ;(y * w):sum():backward()
    local mine = full:narrow(1, rank * per + 1, per):clone():requires_grad_()
    local ys = sbn(mine)
    ;(ys * w:narrow(1, rank * per + 1, per)):sum():backward()
    close(ys, y:narrow(1, rank * per + 1, per):detach(), what .. " output, step " .. step)
    close(mine.grad, x.grad:narrow(1, rank * per + 1, per), what .. " input gradient, step " .. step)
    local gw, gb = sbn.weight.grad:clone(), sbn.bias.grad:clone()
    dist.all_reduce(gw)
    dist.all_reduce(gb)
    close(gw, ref.weight.grad, what .. " weight gradient summed over ranks, step " .. step)
    close(gb, ref.bias.grad, what .. " bias gradient summed over ranks, step " .. step)
    close(sbn.running_mean, ref.running_mean, what .. " running_mean, step " .. step)
    close(sbn.running_var, ref.running_var, what .. " running_var, step " .. step)
    ref:zero_grad()
    sbn:zero_grad()
  end
  sbn:eval()
  ref:eval()
  close(sbn(full:narrow(1, 1, per)), ref(full:narrow(1, 1, per)), what .. " eval")
end
-- convert_sync_batchnorm inside DDP trains as one process with the whole batch
do
  torch.manual_seed(0)
  local model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))
  local ref = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))
  ref:load_state_dict(model:state_dict())
  local ddp = nn.parallel.DistributedDataParallel(nn.SyncBatchNorm.convert_sync_batchnorm(model))
  local opt = torch.optim.SGD(ddp:parameters(), { lr = 0.1 })
  local ropt = torch.optim.SGD(ref:parameters(), { lr = 0.1 })
  local gen = torch.Generator():manual_seed(5)
  local per = 16 // size
  for _ = 1, 5 do
    local x = torch.randn({ 16, 4 }, { generator = gen })
    local t = torch.randn({ 16, 2 }, { generator = gen })
    local mine = { rank * per + 1, (rank + 1) * per }
    opt:zero_grad()
    nn.functional.mse_loss(ddp(x[{ mine }]), t[{ mine }]):backward()
    opt:step()
    ropt:zero_grad()
    nn.functional.mse_loss(ref(x), t):backward()
    ropt:step()
  end
  for i, p in ipairs(ddp.module:parameters()) do close(p, ref:parameters()[i], "DDP + SyncBatchNorm parameter " .. i) end
  close(ddp.module[2].running_var, ref[2].running_var, "DDP + SyncBatchNorm running_var")
end
dist.destroy_process_group()
print(("rank %d checks %d failed %d"):format(rank, checks, failed))
