-- dist_collectives.lua: run by tests/lua/distributed_spec.lua under mpirun (2 and 4 ranks).
-- Every collective on every dtype (and every ReduceOp that applies) against a reference that
-- each rank computes alone from all ranks' inputs; non-contiguous and 0-d tensors; groups;
-- async work; point-to-point; object collectives; PyTorch's errors for misuse. Prints
-- "FAIL <what>" for each mismatch and "rank <r> checks <n> failed <k>" at the end.
local torch = require "mindtorch"
local dist = torch.distributed

dist.init_process_group("mpi", { timeout = 60 })
local rank, size = dist.get_rank(), dist.get_world_size()
local checks, failed = 0, 0

local function check(cond, what)
  checks = checks + 1
  if not cond then
    failed = failed + 1
    print(("FAIL rank %d: %s"):format(rank, what))
  end
end
local function same(a, b, what)
  local ok = a.dtype == b.dtype and a:dim() == b:dim() and torch.equal(a, b)
  if not ok and a.dtype == b.dtype and a:is_floating_point() and a:dim() == b:dim() then
    ok = torch.allclose(a:double(), b:double(), 1e-3, 1e-3)
  end
  check(ok, what .. (ok and "" or (": got " .. tostring(a) .. " expected " .. tostring(b))))
end
local function raises(pattern, fn, what)
  local ok, err = pcall(fn)
  check(not ok and tostring(err):find(pattern, 1, true) ~= nil, what .. ": " .. tostring(err))
end

local dtypes = { torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int16, torch.int32,
  torch.int64, torch.uint8, torch.bool }
local floating = { float32 = true, float64 = true, float16 = true, bfloat16 = true }

-- rank r's input: small values (products of 4 ranks fit int8; sums are exact in half)
local function input(r, dt, shape)
  shape = shape or { 2, 3 }
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  local v = (torch.arange(n) % 3 + 1 + (torch.arange(n) + r) % 2):view(shape)
  if dt == torch.bool then return ((torch.arange(n) + r) % 3):eq(0):view(shape) end
  return v:to(dt)
end

-- the reference of op over all ranks' inputs
local function reference(op, dt, shape)
  local acc = input(0, dt, shape)
  for r = 1, size - 1 do
    local x = input(r, dt, shape)
    if dt == torch.bool then
      if op == "SUM" or op == "MAX" or op == "BOR" then acc = acc:logical_or(x)
      elseif op == "PRODUCT" or op == "MIN" or op == "BAND" then acc = acc:logical_and(x)
      else acc = acc:logical_xor(x) end
    elseif op == "SUM" or op == "AVG" then acc = acc + x
    elseif op == "PRODUCT" then acc = acc * x
    elseif op == "MIN" then acc = torch.minimum(acc, x)
    elseif op == "MAX" then acc = torch.maximum(acc, x)
    elseif op == "BAND" then acc = acc:bitwise_and(x)
    elseif op == "BOR" then acc = acc:bitwise_or(x)
    else acc = acc:bitwise_xor(x) end
  end
  if op == "AVG" then acc = acc / size end
  return acc:to(dt)
end

local function ops_for(dt)
  if dt == torch.bool or not floating[dt.name] and dt ~= torch.bool then
    if dt == torch.bool then return { "SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR" } end
    return { "SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR" }
  end
  return { "SUM", "PRODUCT", "MIN", "MAX", "AVG" }
end

-- all_reduce of 32 MiB and more runs as a ring through a scratch buffer the module keeps
-- (distributed/mpi_module.c): counts that do not split evenly over the ranks, a user-defined op
-- (float16's), twice each (the scratch and the ring's communicator reused)
for _, case in ipairs({ { torch.float32, 9000001, "SUM" }, { torch.float32, 8388608, "MAX" },
  { torch.float16, 17000003, "SUM" }, { torch.int64, 4500007, "PRODUCT" }, { torch.bool, 34000001, "BOR" } }) do
  local dt, n, op = case[1], case[2], case[3]
  local want = reference(op, dt, { n })
  for rep = 1, 2 do
    local t = input(rank, dt, { n })
    dist.all_reduce(t, dist.ReduceOp[op])
    same(t, want, ("all_reduce %s %s of %d elements, call %d"):format(dt.name, op, n, rep))
  end
end

-- all_reduce and reduce: every dtype and op; contiguous, transposed (non-contiguous) and 0-d
for _, dt in ipairs(dtypes) do
  for _, op in ipairs(ops_for(dt)) do
    local what = ("all_reduce %s %s"):format(dt.name, op)
    local t = input(rank, dt)
    dist.all_reduce(t, dist.ReduceOp[op])
    same(t, reference(op, dt), what)
    local nc = input(rank, dt, { 3, 2 }):t()
    check(not nc:is_contiguous(), what .. " input is non-contiguous")
    dist.all_reduce(nc, { op = dist.ReduceOp[op] })
    same(nc, reference(op, dt, { 3, 2 }):t(), what .. " non-contiguous")
    local z = input(rank, dt, { 1 }):view({})
    dist.all_reduce(z, dist.ReduceOp[op])
    same(z, reference(op, dt, { 1 }):view({}), what .. " 0-d")
    local root = size - 1
    local rt = input(rank, dt)
    dist.reduce(rt, root, dist.ReduceOp[op])
    same(rt, rank == root and reference(op, dt) or input(rank, dt), "reduce " .. dt.name .. " " .. op)
  end
  -- data movement: every dtype
  local b = rank == 1 and input(1, dt) or torch.zeros({ 2, 3 }, { dtype = dt })
  dist.broadcast(b, 1)
  same(b, input(1, dt), "broadcast " .. dt.name)
  local list = {}
  for r = 1, size do list[r] = torch.zeros({ 2, 3 }, { dtype = dt }) end
  dist.all_gather(list, input(rank, dt))
  for r = 1, size do same(list[r], input(r - 1, dt), ("all_gather %s from %d"):format(dt.name, r - 1)) end
  local cat = torch.zeros({ 2 * size, 3 }, { dtype = dt })
  dist.all_gather_into_tensor(cat, input(rank, dt))
  local parts = {}
  for r = 1, size do parts[r] = input(r - 1, dt) end
  same(cat, torch.cat(parts), "all_gather_into_tensor " .. dt.name)
  local stacked = torch.zeros({ size, 2, 3 }, { dtype = dt })
  dist.all_gather_into_tensor(stacked, input(rank, dt))
  same(stacked, torch.stack(parts), "all_gather_into_tensor stacked " .. dt.name)
  local glist = nil
  if rank == 0 then
    glist = {}
    for r = 1, size do glist[r] = torch.zeros({ 2, 3 }, { dtype = dt }) end
  end
  dist.gather(input(rank, dt), glist, 0)
  if rank == 0 then
    for r = 1, size do same(glist[r], input(r - 1, dt), ("gather %s from %d"):format(dt.name, r - 1)) end
  end
  local out = torch.zeros({ 2, 3 }, { dtype = dt })
  dist.scatter(out, rank == 0 and parts or nil, 0)
  same(out, input(rank, dt), "scatter " .. dt.name)
  -- a2a: rank r sends block s (its input + s) to rank s
  local ins = {}
  for s = 1, size do ins[s] = input(rank + s, dt) end
  local outs = {}
  for s = 1, size do outs[s] = torch.zeros({ 2, 3 }, { dtype = dt }) end
  dist.all_to_all(outs, ins)
  for s = 1, size do same(outs[s], input(s - 1 + rank + 1, dt), ("all_to_all %s from %d"):format(dt.name, s - 1)) end
end

-- reduce_scatter(_tensor), all_to_all_single with uneven splits, on float64 and int32
for _, dt in ipairs({ torch.float64, torch.int32 }) do
  for _, op in ipairs({ "SUM", "MAX" }) do
    local ins = {}
    for s = 1, size do ins[s] = input(rank + s, dt) end
    local out = torch.zeros({ 2, 3 }, { dtype = dt })
    dist.reduce_scatter(out, ins, dist.ReduceOp[op])
    local ref
    for r = 0, size - 1 do
      local x = input(r + rank + 1, dt)
      ref = ref and (op == "SUM" and ref + x or torch.maximum(ref, x)) or x
    end
    same(out, ref, "reduce_scatter " .. dt.name .. " " .. op)
    local out2 = torch.zeros({ 2, 3 }, { dtype = dt })
    dist.reduce_scatter_tensor(out2, torch.cat(ins), dist.ReduceOp[op])
    same(out2, ref, "reduce_scatter_tensor " .. dt.name .. " " .. op)
  end
  -- rank r sends s + 1 rows of value 10 r + s to rank s; receives r + 1 rows from each
  local in_splits, rows = {}, {}
  for s = 0, size - 1 do
    in_splits[s + 1] = s + 1
    rows[#rows + 1] = torch.full({ s + 1, 2 }, 10 * rank + s, { dtype = dt })
  end
  local out_splits, expect = {}, {}
  for s = 0, size - 1 do
    out_splits[s + 1] = rank + 1
    expect[#expect + 1] = torch.full({ rank + 1, 2 }, 10 * s + rank, { dtype = dt })
  end
  local out = torch.zeros({ size * (rank + 1), 2 }, { dtype = dt })
  dist.all_to_all_single(out, torch.cat(rows), out_splits, in_splits)
  same(out, torch.cat(expect), "all_to_all_single uneven " .. dt.name)
  local even_in = torch.arange(size * 2, { dtype = dt }) + 100 * rank
  local even_out = torch.zeros(size * 2, { dtype = dt })
  dist.all_to_all_single(even_out, even_in)
  local ev = {}
  for s = 0, size - 1 do ev[#ev + 1] = torch.tensor({ 2 * rank, 2 * rank + 1 }, { dtype = dt }) + 100 * s end
  same(even_out, torch.cat(ev), "all_to_all_single even " .. dt.name)
end

-- async work: several in flight, completed by wait, then is_completed
local works, ts = {}, {}
for i = 1, 3 do
  ts[i] = torch.full({ 1000 }, rank + i, { dtype = torch.float64 })
  works[i] = dist.all_reduce(ts[i], dist.ReduceOp.SUM, nil, true)
end
for i = 3, 1, -1 do
  check(works[i]:wait() == true, "async wait")
  check(works[i]:is_completed(), "async is_completed")
  same(ts[i], torch.full({ 1000 }, size * i + size * (size - 1) / 2, { dtype = torch.float64 }), "async all_reduce " .. i)
end
check(dist.barrier(nil, true):wait(), "async barrier")

-- point to point: a ring, blocking and non-blocking; recv from any source
local right, left = (rank + 1) % size, (rank - 1) % size
local sendbuf = torch.tensor({ rank, rank * 2 }, { dtype = torch.int64 })
local recvbuf = torch.zeros(2, { dtype = torch.int64 })
local rw = dist.irecv(recvbuf, left)
local sw = dist.isend(sendbuf, right)
sw:wait()
rw:wait()
same(recvbuf, torch.tensor({ left, left * 2 }, { dtype = torch.int64 }), "isend/irecv ring")
if rank == 0 then
  local got = {}
  for _ = 1, size - 1 do
    local t = torch.zeros(1, { dtype = torch.int32 })
    local src = dist.recv(t)
    got[src] = t[1]:item()
  end
  for r = 1, size - 1 do check(got[r] == r * 7, "recv from any source " .. r) end
else
  dist.send(torch.tensor({ rank * 7 }, { dtype = torch.int32 }), 0)
end
local tagged = torch.zeros(3)
if rank == 0 then
  dist.send(torch.ones(3) * 5, 1, nil, 9)
elseif rank == 1 then
  dist.recv(tagged, 0, nil, 9)
  same(tagged, torch.ones(3) * 5, "send/recv with a tag")
end

-- groups: the even ranks, and one that leaves rank 0 out
local evens = {}
for r = 0, size - 1, 2 do evens[#evens + 1] = r end
local ge = dist.new_group(evens)
local gt = torch.tensor({ rank + 1.0 })
dist.all_reduce(gt, dist.ReduceOp.SUM, ge)
if rank % 2 == 0 then
  local s = 0
  for _, r in ipairs(evens) do s = s + r + 1 end
  same(gt, torch.tensor({ s + 0.0 }), "all_reduce in a group")
  check(dist.get_rank(ge) == rank // 2, "get_rank(group)")
  check(dist.get_world_size(ge) == #evens, "get_world_size(group)")
  check(dist.get_global_rank(ge, 0) == 0, "get_global_rank")
else
  same(gt, torch.tensor({ rank + 1.0 }), "all_reduce outside the group leaves the tensor")
  check(dist.get_rank(ge) == -1, "get_rank outside the group is -1")
end
local rest = {}
for r = 1, size - 1 do rest[#rest + 1] = r end
local gr = dist.new_group(rest)
local bt = torch.tensor({ rank * 1.0 })
dist.broadcast(bt, size - 1, gr) -- src is a global rank
same(bt, torch.tensor({ rank == 0 and 0.0 or (size - 1.0) }), "broadcast in a group from a global rank")
check(#dist.get_process_group_ranks(gr) == size - 1, "get_process_group_ranks")

-- objects
local objs = { rank == 0 and { lr = 0.1, name = "run", t = torch.arange(3) } or false, rank == 0 and 42 or 0 }
dist.broadcast_object_list(objs, 0)
check(objs[1].lr == 0.1 and objs[1].name == "run" and torch.equal(objs[1].t, torch.arange(3)) and objs[2] == 42,
  "broadcast_object_list")
local gathered = {}
dist.all_gather_object(gathered, { rank = rank, word = ("w"):rep(rank + 1) })
for r = 1, size do
  check(gathered[r].rank == r - 1 and gathered[r].word == ("w"):rep(r), "all_gather_object " .. r)
end
local gl = rank == 0 and {} or nil
dist.gather_object(rank * 3, gl, 0)
if rank == 0 then
  for r = 1, size do check(gl[r] == (r - 1) * 3, "gather_object " .. r) end
end
local so = { false }
local sin = nil
if rank == 0 then
  sin = {}
  for r = 1, size do sin[r] = "for " .. (r - 1) end
end
dist.scatter_object_list(so, sin, 0)
check(so[1] == "for " .. rank, "scatter_object_list")

-- misuse: PyTorch's errors
raises("trying to initialize the default process group twice!", function() dist.init_process_group("mpi") end,
  "init twice")
raises("Cannot use ReduceOp.BAND with non-integral dtype", function() dist.all_reduce(torch.ones(2), dist.ReduceOp.BAND) end,
  "BAND on float")
raises("Invalid source rank " .. size, function() dist.broadcast(torch.ones(2), size) end, "src out of range")
raises("Invalid function argument. Expected parameter `tensor` to be of type torch.Tensor.",
  function() dist.all_reduce({ 1, 2 }) end, "not a tensor")
raises("tensor_list must hold one tensor per rank", function() dist.all_gather({ torch.ones(2) }, torch.ones(2)) end,
  "all_gather list size")
raises("output tensor size must be equal to world_size times input tensor size",
  function() dist.all_gather_into_tensor(torch.ones(1), torch.ones(2)) end, "all_gather_into_tensor size")
raises("all_reduce() got an unexpected keyword argument 'opp'",
  function() dist.all_reduce(torch.ones(2), { opp = dist.ReduceOp.SUM }) end, "unknown option")
raises("Split sizes doesn't match total dim 0 size",
  function()
    local sp = {}
    for r = 1, size do sp[r] = 0 end
    dist.all_to_all_single(torch.zeros(size), torch.zeros(size), sp, sp)
  end, "split sizes")

dist.barrier()
dist.destroy_process_group()
check(not dist.is_initialized(), "destroyed")
raises("Default process group has not been initialized, please make sure to call init_process_group.",
  function() dist.get_rank() end, "after destroy")
raises("Invalid backend: 'nope'", function() dist.init_process_group("nope") end, "bad backend")
raises("Distributed package doesn't have NCCL built in", function() dist.init_process_group("nccl") end, "nccl")
print(("rank %d checks %d failed %d"):format(rank, checks, failed))
