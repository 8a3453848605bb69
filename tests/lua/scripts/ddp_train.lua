-- ddp_train.lua: run by tests/lua/distributed_spec.lua under mpirun (2 and 4 ranks). DDP with a
-- per-rank batch of 64 / ranks against one process with the batch of 64 (each rank trains that
-- reference itself), 20 SGD steps with momentum, float64; then no_sync accumulation, unused
-- parameters, the module checks and small buckets. Prints "FAIL ..." lines and
-- "rank <r> checks <n> failed <k>".
local torch = require "mindtorch"
local nn, dist = torch.nn, torch.distributed
dist.init_process_group("mpi")
local rank, size = dist.get_rank(), dist.get_world_size()
torch.set_default_dtype(torch.float64)
local checks, failed = 0, 0
local per = 64 // size -- each rank's share of the batch of 64
local function check(cond, what)
  checks = checks + 1
  if not cond then
    failed = failed + 1
    print(("FAIL rank %d: %s"):format(rank, what))
  end
end
local function max_diff(a, b)
  local m = 0
  for i, p in ipairs(a) do m = math.max(m, (p - b[i]):abs():max():item()) end
  return m
end

local function net(hidden)
  return nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, hidden or 16), nn.ReLU(), nn.Linear(hidden or 16, 3))
end
local function model(seed, hidden)
  torch.manual_seed(seed + rank * 1000) -- different on each rank: DDP's broadcast makes them equal
  return net(hidden)
end
local function reference_model(seed, hidden)
  torch.manual_seed(seed) -- rank 0's initial weights
  return net(hidden)
end

-- 20 steps; then a wider model whose first bucket (at most 1 MiB) holds 4 parameters and the
-- second (bucket_cap_mb = 0.001) the other 2: PyTorch's _compute_bucket_assignment_by_size
-- gives [[0, 1, 2, 3], [4, 5]] for it
for _, cap in ipairs({ 25, 0.001 }) do
  local hidden = cap < 1 and 4096 or 16
  local ddp = nn.parallel.DistributedDataParallel(model(0, hidden), { bucket_cap_mb = cap })
  local ref = reference_model(0, hidden)
  if cap < 1 then
    local b = ddp._buckets
    check(#b == 2 and table.concat(b[1].members, ",") == "6,5,4,3" and table.concat(b[2].members, ",") == "2,1",
      "buckets as PyTorch's with bucket_cap_mb = 0.001")
  end
  check(max_diff(ddp.module:parameters(), ref:parameters()) == 0, "parameters broadcast from rank 0")
  local opt = torch.optim.SGD(ddp:parameters(), { lr = 0.1, momentum = 0.9 })
  local ropt = torch.optim.SGD(ref:parameters(), { lr = 0.1, momentum = 0.9 })
  local gen = torch.Generator():manual_seed(7)
  for step = 1, 20 do
    local x = torch.randn({ 64, 10 }, { generator = gen })
    local y = torch.randn({ 64, 3 }, { generator = gen })
    local mine = { rank * per + 1, (rank + 1) * per }
    opt:zero_grad()
    local loss = nn.functional.mse_loss(ddp(x[{ mine }]), y[{ mine }])
    loss:backward()
    opt:step()
    ropt:zero_grad()
    nn.functional.mse_loss(ref(x), y):backward()
    ropt:step()
  end
  local d = max_diff(ddp.module:parameters(), ref:parameters())
  check(d < 1e-12, ("20 steps, bucket_cap_mb %g: parameters within 1e-12 of one process with batch 64 (%g)"):format(
    cap, d))
  check(ddp:state_dict()["module.0.weight"] ~= nil, "state_dict keys keep the module. prefix")
end

-- no_sync: two half-batches accumulated locally, then a synced one: the gradient of all three
do
  local ddp = nn.parallel.DistributedDataParallel(model(1))
  local ref = reference_model(1)
  local gen = torch.Generator():manual_seed(11)
  local xs, ys = {}, {}
  for k = 1, 3 do
    xs[k] = torch.randn({ 64, 10 }, { generator = gen })
    ys[k] = torch.randn({ 64, 3 }, { generator = gen })
  end
  local mine = { rank * per + 1, (rank + 1) * per }
  do
    local _ <close> = ddp:no_sync()
    for k = 1, 2 do nn.functional.mse_loss(ddp(xs[k][{ mine }]), ys[k][{ mine }]):backward() end
  end
  local local_grad = ddp.module[1].weight.grad:clone()
  nn.functional.mse_loss(ddp(xs[3][{ mine }]), ys[3][{ mine }]):backward()
  for k = 1, 3 do nn.functional.mse_loss(ref(xs[k]), ys[k]):backward() end
  local gd = {}
  for _, p in ipairs(ddp.module:parameters()) do gd[#gd + 1] = p.grad end
  local rg = {}
  for _, p in ipairs(ref:parameters()) do rg[#rg + 1] = p.grad end
  check(max_diff(gd, rg) < 1e-12, "no_sync then a synced backward: the averaged sum of the three gradients")
  check(max_diff({ local_grad }, { rg[1] }) > 1e-6, "inside no_sync the gradient stayed local")
end

-- unused parameters: rank 1 skips the second head; find_unused_parameters lets the reduction end
do
  local Two = nn.Module:subclass("Two")
  function Two:__init()
    nn.Module.__init(self)
    self.body = nn.Linear(4, 4)
    self.a = nn.Linear(4, 1)
    self.b = nn.Linear(4, 1)
  end
  function Two:forward(x, use_b)
    local h = self.body(x)
    if use_b then return self.a(h) + self.b(h) end
    return self.a(h)
  end
  torch.manual_seed(3)
  local ddp = nn.parallel.DistributedDataParallel(Two(), { find_unused_parameters = true })
  local x = torch.ones(2, 4) * (rank + 1)
  ddp(x, rank == 0):sum():backward()
  check(ddp.module.b.weight.grad ~= nil, "a parameter used by another rank gets the averaged gradient")
  -- rank 0 used b: its summed gradient over 2 rows of ones (x 1), halved by the average
  local hb = ddp.module.body(torch.ones(2, 4)):detach()
  local expect = hb:sum(1):view(1, 4) / size
  check((ddp.module.b.weight.grad - expect):abs():max():item() < 1e-12, "unused on rank 1: rank 0's gradient / 2")
  ddp(x, false):sum():backward() -- a second iteration runs (the first finished)
  check(true, "second iteration with unused parameters")

  torch.manual_seed(3)
  local strict = nn.parallel.DistributedDataParallel(Two())
  strict(x, false):sum():backward()
  local ok, err = pcall(function() strict(x, false) end)
  check(not ok and tostring(err):find("Expected to have finished reduction in the prior iteration", 1, true) ~= nil,
    "unused parameters without find_unused_parameters: " .. tostring(err))
end

-- misuse
local ok, err = pcall(nn.parallel.DistributedDataParallel, nn.ReLU())
check(not ok and tostring(err):find("DistributedDataParallel is not needed when a module doesn't have any parameter "
  .. "that requires a gradient.", 1, true) ~= nil, "no parameters: " .. tostring(err))
ok, err = pcall(nn.parallel.DistributedDataParallel, nn.Linear(rank + 2, 2))
check(not ok and tostring(err):find("DDP expects same model across all ranks", 1, true) ~= nil,
  "different models: " .. tostring(err))
ok, err = pcall(nn.parallel.DistributedDataParallel, nn.Linear(2, 2), { device_ids = { 0 } })
check(not ok and tostring(err):find("device_ids and output_device arguments only work with", 1, true) ~= nil,
  "device_ids: " .. tostring(err))

dist.destroy_process_group()
print(("rank %d checks %d failed %d"):format(rank, checks, failed))
