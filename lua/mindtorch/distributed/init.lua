-- torch.distributed: PyTorch's process groups and collectives over Open MPI (the "mpi"
-- backend; doc/distributed.md). The transport is the C module mindtorch.distributed_mpi,
-- built when Open MPI is installed; without it is_available() is false and every call says
-- how to get it. Ranks are 0-based, as MPI's, mpirun's and PyTorch's (like DataLoader worker
-- ids); a list with one entry per rank holds rank r at index r + 1.
local torch = require "mindtorch"
local args = require "mindtorch._args"

local dist = {}

local ok_mod, C = pcall(require, "mindtorch.distributed_mpi")
local load_error = not ok_mod and tostring(C) or nil
if not ok_mod then C = nil end

local INSTALL = "install Open MPI (apt-get install libopenmpi-dev openmpi-bin) and rebuild mindtorch, "
  .. "then launch with mpirun"

function dist.is_available() return C ~= nil end
function dist.is_mpi_available() return C ~= nil end
function dist.is_gloo_available() return false end
function dist.is_nccl_available() return false end
function dist.is_ucc_available() return false end
function dist.is_torchelastic_launched() return os.getenv("TORCHELASTIC_RUN_ID") ~= nil end

local function need_module()
  if not C then
    error("torch.distributed is not available: the MPI module did not load (" .. tostring(load_error) .. "); "
      .. INSTALL, 3)
  end
end

-- ---- ReduceOp -----------------------------------------------------------------------------------
local ReduceOp = { __name = "ReduceOp" }
ReduceOp.__index = ReduceOp
ReduceOp.__tostring = function(op) return "ReduceOp." .. op.name end
dist.ReduceOp = {}
for _, name in ipairs({ "SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "AVG", "PREMUL_SUM" }) do
  dist.ReduceOp[name] = setmetatable({ name = name }, ReduceOp)
end
dist.reduce_op = dist.ReduceOp -- PyTorch's deprecated alias

local function check_op(op, fname)
  if op == nil then return dist.ReduceOp.SUM end
  if type(op) == "string" then
    local o = dist.ReduceOp[op:upper()]
    if o then return o end
  end
  if getmetatable(op) == ReduceOp then return op end
  error(("%s(): op must be a torch.distributed.ReduceOp, got %s"):format(fname, tostring(op)), 3)
end

local integral = { int8 = true, int16 = true, int32 = true, int64 = true, uint8 = true, bool = true }
-- the transport's name of op for dtype (bool reduces logically: SUM and MAX are "or", PRODUCT
-- and MIN "and", as they are on 0/1 values)
local function mpi_op(op, dtype, fname)
  local n, dn = op.name, dtype.name
  if n == "PREMUL_SUM" then error(("%s(): ReduceOp.PREMUL_SUM is only supported by NCCL"):format(fname), 3) end
  if (n == "BAND" or n == "BOR" or n == "BXOR") and not integral[dn] then
    error(("Cannot use ReduceOp.%s with non-integral dtype"):format(n), 3)
  end
  if n == "AVG" and integral[dn] then
    error(("%s(): ReduceOp.AVG needs a floating-point tensor, got %s"):format(fname, dn), 3)
  end
  if dn == "bool" then
    return ({ SUM = "lor", MAX = "lor", PRODUCT = "land", MIN = "land", BAND = "land", BOR = "lor", BXOR = "lxor" })[n]
  end
  return ({ SUM = "sum", AVG = "sum", PRODUCT = "prod", MIN = "min", MAX = "max", BAND = "band", BOR = "bor",
    BXOR = "bxor" })[n]
end

-- ---- process groups -----------------------------------------------------------------------------
local Group = { __name = "ProcessGroup" }
Group.__index = Group
Group.__tostring = function(g) return ("<torch.distributed.ProcessGroupMPI of ranks {%s}>"):format(table.concat(g.ranks, ", ")) end
dist.GroupMember = { WORLD = nil, NON_GROUP_MEMBER = setmetatable({ non_member = true, ranks = {} }, Group) }

local world -- the default group, once initialized
local timeout_s = 1800 -- PyTorch's default_pg_timeout: 30 minutes
local groups = {}

local NOT_INIT = "Default process group has not been initialized, please make sure to call init_process_group."

local function default_group(level)
  if not world then error(NOT_INIT, level or 3) end
  return world
end

local function group_of(group)
  if group == nil then return default_group(4) end
  if getmetatable(group) ~= Group then error("Invalid process group specified", 3) end
  if not world then error(NOT_INIT, 3) end
  return group
end

function dist.is_initialized() return world ~= nil end

local BACKENDS = { gloo = true, nccl = true, ucc = true, mpi = true }

-- init_process_group(backend, {init_method=, timeout= (seconds), world_size=, rank=, store=, group_name=})
-- or init_process_group{backend = "mpi", ...}
function dist.init_process_group(...)
  local o = args.parse_at(2, "init_process_group", { "backend", "init_method", "timeout", "world_size", "rank", "store",
    "group_name", "pg_options" }, { world_size = -1, rank = -1, group_name = "" }, ...)
  if world then error("trying to initialize the default process group twice!", 2) end
  local backend = o.backend
  if backend == nil then backend = "mpi" end
  if type(backend) ~= "string" then error("Backend name must be a string, but got: " .. tostring(backend), 2) end
  backend = backend:lower()
  if backend == "tcp" then
    error("TCP backend has been deprecated. Please use Gloo or MPI backend for collective operations on CPU tensors.", 2)
  end
  if not BACKENDS[backend] then error(("Invalid backend: '%s'"):format(o.backend), 2) end
  if backend ~= "mpi" then
    error(("Distributed package doesn't have %s built in: mindtorch's backend is \"mpi\" (Open MPI)"):format(
      backend == "nccl" and "NCCL" or backend == "ucc" and "UCC" or "Gloo"), 2)
  end
  if o.timeout ~= nil then
    if type(o.timeout) ~= "number" or o.timeout <= 0 then
      error("Expected timeout argument to be a number of seconds > 0", 2)
    end
  end
  if not C then
    error("Distributed package doesn't have MPI built in: " .. INSTALL .. " (" .. tostring(load_error) .. ")", 2)
  end
  if o.world_size ~= -1 or o.rank ~= -1 then
    io.stderr:write(("UserWarning: For MPI backend, world_size (%s) and rank (%s) are ignored since they are "
      .. "assigned by the MPI runtime.\n"):format(tostring(o.world_size), tostring(o.rank)))
  end
  local comm = C.init()
  timeout_s = o.timeout or 1800
  local ranks = {}
  for r = 0, comm:size() - 1 do ranks[#ranks + 1] = r end
  world = setmetatable({ comm = comm, ranks = ranks, rank = comm:rank(), size = comm:size(), timeout = timeout_s,
    backend = "mpi", name = o.group_name ~= "" and o.group_name or "0" }, Group)
  groups = { world }
  dist.GroupMember.WORLD = world
  dist.group = { WORLD = world }
end

-- destroy_process_group(group=None): frees the group (all of them for the default), collectively
function dist.destroy_process_group(group)
  if group == nil then
    if not world then return end
    for i = #groups, 2, -1 do
      if not groups[i].non_member and groups[i].comm then groups[i].comm:free() end
    end
    world, groups = nil, {}
    dist.GroupMember.WORLD = nil
    dist.group = { WORLD = nil }
    return
  end
  group = group_of(group)
  if group == world then return dist.destroy_process_group() end
  if not group.non_member and group.comm then group.comm:free() end
  group.comm = nil
end

-- new_group(ranks=None, timeout=None, backend=None): every rank of the world calls it
function dist.new_group(...)
  local o = args.parse_at(2, "new_group", { "ranks", "timeout", "backend", "pg_options" }, {}, ...)
  local w = default_group()
  local ranks = o.ranks
  if ranks == nil then
    ranks = {}
    for r = 0, w.size - 1 do ranks[#ranks + 1] = r end
  end
  if type(ranks) ~= "table" then error("new_group(): ranks must be a list of ranks", 2) end
  if #ranks > w.size then
    error("the new group's world size should be less or equal to the world size set by init_process_group", 2)
  end
  local sorted = {}
  for i, r in ipairs(ranks) do
    if math.type(r) ~= "integer" or r < 0 or r >= w.size then
      error("The new group's rank should be within the the world_size set by init_process_group", 2)
    end
    sorted[i] = r
  end
  table.sort(sorted) -- PyTorch orders a group's ranks
  local comm = w.comm:create(sorted)
  local g
  if comm:is_member() then
    g = setmetatable({ comm = comm, ranks = sorted, rank = comm:rank(), size = comm:size(),
      timeout = o.timeout or w.timeout, backend = "mpi", name = tostring(#groups) }, Group)
  else
    g = setmetatable({ non_member = true, ranks = sorted, size = #sorted, backend = "mpi" }, Group)
  end
  groups[#groups + 1] = g
  return g
end

function dist.get_rank(group)
  local g = group_of(group)
  if g.non_member then return -1 end
  return g.rank
end

function dist.get_world_size(group)
  local g = group_of(group)
  if g.non_member then return -1 end
  return g.size
end

function dist.get_backend(group)
  group_of(group)
  return "mpi"
end

function dist.get_process_group_ranks(group)
  local g = group_of(group)
  return { table.unpack(g.ranks) }
end

function dist.get_global_rank(group, group_rank)
  local g = group_of(group)
  local r = g.ranks[group_rank + 1]
  if r == nil then error(("Group rank %s is not part of group %s"):format(tostring(group_rank), tostring(g)), 2) end
  return r
end

function dist.get_group_rank(group, global_rank)
  local g = group_of(group)
  for i, r in ipairs(g.ranks) do
    if r == global_rank then return i - 1 end
  end
  error(("Global rank %s is not part of group %s"):format(tostring(global_rank), tostring(g)), 2)
end

-- the group rank of a global rank given to a collective (src, dst), checked
local function group_rank(g, global, what, fname)
  if math.type(global) ~= "integer" then error(("%s(): %s must be an integer rank"):format(fname, what), 3) end
  for i, r in ipairs(g.ranks) do
    if r == global then return i - 1 end
  end
  if global < 0 or global >= world.size then
    error(("Invalid %s rank %d: the world has ranks 0 to %d"):format(what, global, world.size - 1), 3)
  end
  error(("Global rank %d is not part of group %s"):format(global, tostring(g)), 3)
end

-- ---- work ---------------------------------------------------------------------------------------
-- A Work: the requests of one call and what to do once they are done (copy results into
-- non-contiguous outputs, divide for AVG, split gathered results into a list).
local Work = { __name = "Work" }
Work.__index = Work
dist.Work = Work

local function new_work(group, name, reqs, finish)
  return setmetatable({ group = group, name = name, reqs = reqs, finish = finish, completed = false }, Work)
end

local function settle(w)
  if w.completed then return end
  w.completed = true
  w.reqs = nil
  if w.finish then w.finish() end
end

-- waits for w's requests, then finishes it; past the limit an error at `level` above the caller
local function wait_work(w, timeout, level)
  if w.completed then return true end
  local limit = timeout or w.group.timeout
  local deadline = torch._monotonic() + limit
  for _, r in ipairs(w.reqs) do
    local left = deadline - torch._monotonic()
    if not r:wait(left > 0 and left or 0) then
      error(("[Rank %d] Timed out waiting %dms for %s operation to complete"):format(
        world and world.rank or -1, math.floor(limit * 1000 + 0.5), w.name), level + 1)
    end
  end
  settle(w)
  return true
end

-- work:wait([timeout seconds]) -> true; past the group's timeout an error names the call
function Work:wait(timeout) return wait_work(self, timeout, 2) end

function Work:is_completed()
  if self.completed then return true end
  for _, r in ipairs(self.reqs) do
    if not r:test() then return false end
  end
  settle(self)
  return true
end

function Work:is_success() return self:is_completed() end

-- the rank a receive took its message from (irecv with no src)
function Work:_source_rank() return self.source end

-- Every collective is queued on the C module's communication thread; a synchronous call waits
-- for it at once, async_op = true returns the Work. Past the group's timeout the wait raises a
-- Lua error (the rank then ends, and mpirun ends the job).
-- (called in tail position by the collectives: level 2 is the user's code)
local function finish_call(w, async_op)
  if async_op then return w end
  wait_work(w, nil, 2)
  return nil
end

-- ---- tensors in, tensors out -------------------------------------------------------------------
local function check_tensor(t, param, fname)
  if not torch.is_tensor(t) then
    error(("Invalid function argument. Expected parameter `%s` to be of type torch.Tensor."):format(param), 3)
  end
  if t.device.type ~= "cpu" then
    error(("%s(): the MPI backend takes CPU tensors, got one on %s"):format(fname, tostring(t.device)), 3)
  end
  return t
end

local function check_list(l, param, fname)
  if type(l) ~= "table" or getmetatable(l) ~= nil then
    error(("Invalid function argument. Expected parameter `%s` to be of type List[torch.Tensor]."):format(param), 3)
  end
  for _, t in ipairs(l) do check_tensor(t, param, fname) end
  return l
end

-- a contiguous buffer for t: t itself, or a copy (written back into t by the returned function)
local function buffer_of(t)
  if t:is_contiguous() then return t, nil end
  local c = t:contiguous()
  return c, function() t:copy_(c) end
end

-- what a reduction does once its request completes: AVG's division (MPI sums), then the copy
-- back into a non-contiguous output
local function reduced(op, buf, back, g)
  return function()
    if op.name == "AVG" then buf:div_(g.size) end
    if back then back() end
  end
end

local function same_shape(a, b)
  if a:dim() ~= b:dim() then return false end
  for i = 1, a:dim() do
    if a.shape[i] ~= b.shape[i] then return false end
  end
  return true
end

local function member(g, fname)
  if g.non_member then return false end
  if not g.comm then error(("%s(): the process group was destroyed"):format(fname), 3) end
  return true
end

local function call(fname, ...)
  local o = args.parse_at(3, fname, ...)
  return o
end

-- all_reduce(tensor, op=SUM, group=None, async_op=False)
function dist.all_reduce(...)
  local o = call("all_reduce", { "tensor", "op", "group", "async_op" }, { async_op = false }, ...)
  local g = group_of(o.group)
  local t = check_tensor(o.tensor, "tensor", "all_reduce")
  local op = check_op(o.op, "all_reduce")
  local name = mpi_op(op, t.dtype, "all_reduce")
  if not member(g, "all_reduce") then return nil end
  local buf, back = buffer_of(t)
  local req = g.comm:allreduce(buf, name)
  return finish_call(new_work(g, "all_reduce", { req }, reduced(op, buf, back, g)), o.async_op)
end

-- broadcast(tensor, src, group=None, async_op=False)
function dist.broadcast(...)
  local o = call("broadcast", { "tensor", "src", "group", "async_op" }, { async_op = false }, ...)
  local g = group_of(o.group)
  local t = check_tensor(o.tensor, "tensor", "broadcast")
  if not member(g, "broadcast") then return nil end
  local root = group_rank(g, o.src, "source", "broadcast")
  local buf, back = buffer_of(t)
  return finish_call(new_work(g, "broadcast", { g.comm:bcast(buf, root) }, back), o.async_op)
end

-- reduce(tensor, dst, op=SUM, group=None, async_op=False): the result in dst's tensor
function dist.reduce(...)
  local o = call("reduce", { "tensor", "dst", "op", "group", "async_op" }, { async_op = false }, ...)
  local g = group_of(o.group)
  local t = check_tensor(o.tensor, "tensor", "reduce")
  local op = check_op(o.op, "reduce")
  local name = mpi_op(op, t.dtype, "reduce")
  if not member(g, "reduce") then return nil end
  local root = group_rank(g, o.dst, "destination", "reduce")
  local buf, back = buffer_of(t)
  local req = g.comm:reduce(buf, name, root)
  return finish_call(new_work(g, "reduce", { req }, function()
    if g.rank == root then reduced(op, buf, back, g)() end
  end), o.async_op)
end

-- the list's tensors must all be like t (dtype, shape), one per rank of g
local function check_like(list, t, g, param, fname)
  if #list ~= g.size then
    error(("%s(): %s must hold one tensor per rank of the group (%d), got %d"):format(fname, param, g.size, #list), 3)
  end
  for _, x in ipairs(list) do
    if x.dtype ~= t.dtype then
      error(("Invalid usage of tensors with different dtypesFound %s and %s"):format(tostring(t.dtype), tostring(x.dtype)), 3)
    end
    if not same_shape(x, t) then
      error(("%s(): every tensor of %s must have the shape of the input"):format(fname, param), 3)
    end
  end
end

-- a flat contiguous tensor of n elements of dtype, viewed as the per-rank blocks of shape
local function blocks(flat, n, shape, count)
  local out = {}
  for r = 1, count do out[r] = flat:narrow(1, (r - 1) * n + 1, n):view(shape) end
  return out
end

local function shape_of(t)
  local s = {}
  for i = 1, t:dim() do s[i] = t.shape[i] end
  return s
end

-- all_gather(tensor_list, tensor, group=None, async_op=False)
function dist.all_gather(...)
  local o = call("all_gather", { "tensor_list", "tensor", "group", "async_op" }, { async_op = false }, ...)
  local g = group_of(o.group)
  local list = check_list(o.tensor_list, "tensor_list", "all_gather")
  local t = check_tensor(o.tensor, "tensor", "all_gather")
  if not member(g, "all_gather") then return nil end
  check_like(list, t, g, "tensor_list", "all_gather")
  local src = t:contiguous()
  local n = src:numel()
  local flat = torch.empty(n * g.size, { dtype = t.dtype })
  local req = g.comm:allgather(src, flat)
  return finish_call(new_work(g, "all_gather", { req }, function()
    for r, b in ipairs(blocks(flat, n, shape_of(t), g.size)) do list[r]:copy_(b) end
  end), o.async_op)
end

-- all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False): output is
-- the inputs concatenated along dim 1 or stacked
function dist.all_gather_into_tensor(...)
  local o = call("all_gather_into_tensor", { "output_tensor", "input_tensor", "group", "async_op" },
    { async_op = false }, ...)
  local g = group_of(o.group)
  local out = check_tensor(o.output_tensor, "output_tensor", "all_gather_into_tensor")
  local t = check_tensor(o.input_tensor, "input_tensor", "all_gather_into_tensor")
  if not member(g, "all_gather_into_tensor") then return nil end
  if out.dtype ~= t.dtype then
    error(("Invalid usage of tensors with different dtypesFound %s and %s"):format(tostring(t.dtype), tostring(out.dtype)), 2)
  end
  if out:numel() ~= t:numel() * g.size then
    error("output tensor size must be equal to world_size times input tensor size", 2)
  end
  local buf, back = buffer_of(out)
  local req = g.comm:allgather(t:contiguous(), buf:view(-1))
  return finish_call(new_work(g, "all_gather_into_tensor", { req }, back), o.async_op)
end
dist._all_gather_base = dist.all_gather_into_tensor

-- gather(tensor, gather_list=None, dst=0, group=None, async_op=False)
function dist.gather(...)
  local o = call("gather", { "tensor", "gather_list", "dst", "group", "async_op" }, { dst = 0, async_op = false }, ...)
  local g = group_of(o.group)
  local t = check_tensor(o.tensor, "tensor", "gather")
  if not member(g, "gather") then return nil end
  local root = group_rank(g, o.dst, "destination", "gather")
  local list = o.gather_list
  local flat
  if g.rank == root then
    if list == nil or (type(list) == "table" and #list == 0) then
      error("Argument ``gather_list`` must be specified on destination rank.", 2)
    end
    check_list(list, "gather_list", "gather")
    check_like(list, t, g, "gather_list", "gather")
    flat = torch.empty(t:numel() * g.size, { dtype = t.dtype })
  elseif list ~= nil and (type(list) ~= "table" or #list > 0) then
    error("Argument ``gather_list`` must NOT be specified on non-destination ranks.", 2)
  end
  local req = g.comm:gather(t:contiguous(), flat, root)
  return finish_call(new_work(g, "gather", { req }, function()
    if flat then
      for r, b in ipairs(blocks(flat, t:numel(), shape_of(t), g.size)) do list[r]:copy_(b) end
    end
  end), o.async_op)
end

-- scatter(tensor, scatter_list=None, src=0, group=None, async_op=False)
function dist.scatter(...)
  local o = call("scatter", { "tensor", "scatter_list", "src", "group", "async_op" }, { src = 0, async_op = false }, ...)
  local g = group_of(o.group)
  local t = check_tensor(o.tensor, "tensor", "scatter")
  if not member(g, "scatter") then return nil end
  local root = group_rank(g, o.src, "source", "scatter")
  local list = o.scatter_list
  local flat
  if g.rank == root then
    if list == nil or (type(list) == "table" and #list == 0) then
      error("Argument ``scatter_list`` must be specified on source rank.", 2)
    end
    check_list(list, "scatter_list", "scatter")
    check_like(list, t, g, "scatter_list", "scatter")
    local parts = {}
    for r, x in ipairs(list) do parts[r] = x:reshape(-1) end
    flat = torch.cat(parts)
  elseif list ~= nil and (type(list) ~= "table" or #list > 0) then
    error("Argument ``scatter_list`` must NOT be specified on non-source ranks.", 2)
  end
  local buf, back = buffer_of(t)
  local req = g.comm:scatter(flat, buf, root)
  return finish_call(new_work(g, "scatter", { req }, back), o.async_op)
end

-- reduce_scatter(output, input_list, op=SUM, group=None, async_op=False)
function dist.reduce_scatter(...)
  local o = call("reduce_scatter", { "output", "input_list", "op", "group", "async_op" }, { async_op = false }, ...)
  local g = group_of(o.group)
  local out = check_tensor(o.output, "output", "reduce_scatter")
  local list = check_list(o.input_list, "input_list", "reduce_scatter")
  local op = check_op(o.op, "reduce_scatter")
  local name = mpi_op(op, out.dtype, "reduce_scatter")
  if not member(g, "reduce_scatter") then return nil end
  check_like(list, out, g, "input_list", "reduce_scatter")
  local parts = {}
  for r, x in ipairs(list) do parts[r] = x:reshape(-1) end
  local buf, back = buffer_of(out)
  local req = g.comm:reduce_scatter(torch.cat(parts), buf, name)
  return finish_call(new_work(g, "reduce_scatter", { req }, reduced(op, buf, back, g)), o.async_op)
end

-- reduce_scatter_tensor(output, input, op=SUM, group=None, async_op=False)
function dist.reduce_scatter_tensor(...)
  local o = call("reduce_scatter_tensor", { "output", "input", "op", "group", "async_op" }, { async_op = false }, ...)
  local g = group_of(o.group)
  local out = check_tensor(o.output, "output", "reduce_scatter_tensor")
  local t = check_tensor(o.input, "input", "reduce_scatter_tensor")
  local op = check_op(o.op, "reduce_scatter_tensor")
  local name = mpi_op(op, out.dtype, "reduce_scatter_tensor")
  if not member(g, "reduce_scatter_tensor") then return nil end
  if out.dtype ~= t.dtype then
    error(("Invalid usage of tensors with different dtypesFound %s and %s"):format(tostring(t.dtype), tostring(out.dtype)), 2)
  end
  if t:numel() ~= out:numel() * g.size then
    error("input tensor must be the same size as output size times world size", 2)
  end
  local buf, back = buffer_of(out)
  local req = g.comm:reduce_scatter(t:contiguous():view(-1), buf, name)
  return finish_call(new_work(g, "reduce_scatter_tensor", { req }, reduced(op, buf, back, g)), o.async_op)
end
dist._reduce_scatter_base = dist.reduce_scatter_tensor

-- element counts per rank of splits along dim 1 (sizes per rank, or equal parts)
local function split_counts(t, sizes, g, param, fname)
  local rows = t:dim() > 0 and t.shape[1] or 1
  local per_row = rows > 0 and t:numel() // rows or 0
  local counts = {}
  if sizes == nil or #sizes == 0 then
    if rows % g.size ~= 0 then
      error(("%s(): the first dimension (%d) must divide evenly among the %d ranks when %s is not given")
        :format(fname, rows, g.size, param), 3)
    end
    for r = 1, g.size do counts[r] = rows // g.size * per_row end
  else
    if #sizes ~= g.size then error(("%s(): %s must hold one size per rank (%d)"):format(fname, param, g.size), 3) end
    local sum = 0
    for r, s in ipairs(sizes) do
      if math.type(s) ~= "integer" or s < 0 then error(("%s(): %s must be non-negative integers"):format(fname, param), 3) end
      sum = sum + s
      counts[r] = s * per_row
    end
    if sum ~= rows then
      error(("Split sizes doesn't match total dim 0 size"), 3)
    end
  end
  return counts
end

-- all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False)
function dist.all_to_all_single(...)
  local o = call("all_to_all_single", { "output", "input", "output_split_sizes", "input_split_sizes", "group",
    "async_op" }, { async_op = false }, ...)
  local g = group_of(o.group)
  local out = check_tensor(o.output, "output", "all_to_all_single")
  local t = check_tensor(o.input, "input", "all_to_all_single")
  if not member(g, "all_to_all_single") then return nil end
  if out.dtype ~= t.dtype then
    error(("Invalid usage of tensors with different dtypesFound %s and %s"):format(tostring(t.dtype), tostring(out.dtype)), 2)
  end
  local sc = split_counts(t, o.input_split_sizes, g, "input_split_sizes", "all_to_all_single")
  local rc = split_counts(out, o.output_split_sizes, g, "output_split_sizes", "all_to_all_single")
  local buf, back = buffer_of(out)
  local req = g.comm:alltoallv(t:contiguous():view(-1), sc, buf:view(-1), rc)
  return finish_call(new_work(g, "all_to_all_single", { req }, back), o.async_op)
end

-- all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False)
function dist.all_to_all(...)
  local o = call("all_to_all", { "output_tensor_list", "input_tensor_list", "group", "async_op" },
    { async_op = false }, ...)
  local g = group_of(o.group)
  local outs = check_list(o.output_tensor_list, "output_tensor_list", "all_to_all")
  local ins = check_list(o.input_tensor_list, "input_tensor_list", "all_to_all")
  if not member(g, "all_to_all") then return nil end
  if #outs ~= g.size or #ins ~= g.size then
    error(("all_to_all(): both lists must hold one tensor per rank of the group (%d)"):format(g.size), 2)
  end
  local sc, rc, parts, dtype = {}, {}, {}, ins[1].dtype
  for r = 1, g.size do
    if ins[r].dtype ~= dtype or outs[r].dtype ~= dtype then
      error(("Invalid usage of tensors with different dtypesFound %s and %s"):format(tostring(dtype),
        tostring(ins[r].dtype ~= dtype and ins[r].dtype or outs[r].dtype)), 2)
    end
    parts[r] = ins[r]:reshape(-1)
    sc[r], rc[r] = ins[r]:numel(), outs[r]:numel()
  end
  local total = 0
  for r = 1, g.size do total = total + rc[r] end
  local flat = torch.empty(total, { dtype = dtype })
  local req = g.comm:alltoallv(torch.cat(parts), sc, flat, rc)
  return finish_call(new_work(g, "all_to_all", { req }, function()
    local at = 1
    for r = 1, g.size do
      outs[r]:copy_(flat:narrow(1, at, rc[r]):view(shape_of(outs[r])))
      at = at + rc[r]
    end
  end), o.async_op)
end

-- isend(tensor, dst, group=None, tag=0) -> Work; send(...) waits
function dist.isend(...)
  local o = call("isend", { "tensor", "dst", "group", "tag" }, { tag = 0 }, ...)
  local g = group_of(o.group)
  local t = check_tensor(o.tensor, "tensor", "isend")
  if not member(g, "isend") then return nil end
  local peer = group_rank(g, o.dst, "destination", "isend")
  if peer == g.rank then error("Invalid destination rank: should not be the same as rank of the current process.", 2) end
  return new_work(g, "send", { g.comm:send(t:contiguous(), peer, o.tag) }, nil)
end

function dist.send(...)
  local w = dist.isend(...)
  if w then w:wait() end
end

-- irecv(tensor, src=None, group=None, tag=0) -> Work (src nil: any rank); recv(...) waits and
-- returns the sender's rank
function dist.irecv(...)
  local o = call("irecv", { "tensor", "src", "group", "tag" }, { tag = 0 }, ...)
  local g = group_of(o.group)
  local t = check_tensor(o.tensor, "tensor", "irecv")
  if not member(g, "irecv") then return nil end
  local peer = -1
  if o.src ~= nil then
    peer = group_rank(g, o.src, "source", "irecv")
    if peer == g.rank then error("Invalid source rank: should not be the same as rank of the current process.", 2) end
  end
  local buf, back = buffer_of(t)
  local req = g.comm:recv(buf, peer, o.tag)
  local w
  w = new_work(g, "recv", { req }, function()
    w.source = g.ranks[req:source() + 1]
    if back then back() end
  end)
  return w
end

function dist.recv(...)
  local w = dist.irecv(...)
  if not w then return -1 end
  w:wait()
  return w.source
end

-- barrier(group=None, async_op=False, device_ids=None)
function dist.barrier(...)
  local o = call("barrier", { "group", "async_op", "device_ids" }, { async_op = false }, ...)
  local g = group_of(o.group)
  if o.device_ids ~= nil then
    error("Function argument device_ids not supported for the selected backend mpi", 2)
  end
  if not member(g, "barrier") then return nil end
  return finish_call(new_work(g, "barrier", { g.comm:barrier() }, nil), o.async_op)
end

-- ---- objects: through mindtorch's safe serializer (no code is ever loaded) ----------------------
local function to_bytes(obj)
  local s = torch._encode_value(obj)
  return torch.frombuffer(s, { dtype = torch.uint8 }), #s
end
local function from_bytes(t, n)
  if n == 0 then return nil end
  return torch._decode_value(torch._tensor_bytes(t:narrow(1, 1, n)), "a distributed object")
end

-- broadcast_object_list(object_list, src=0, group=None): src's objects replace the list's
function dist.broadcast_object_list(...)
  local o = call("broadcast_object_list", { "object_list", "src", "group", "device" }, { src = 0 }, ...)
  local g = group_of(o.group)
  local list = o.object_list
  if type(list) ~= "table" then error("broadcast_object_list(): object_list must be a list", 2) end
  if not member(g, "broadcast_object_list") then return nil end
  local root = group_rank(g, o.src, "source", "broadcast_object_list")
  local n = #list
  local sizes = torch.zeros(n, { dtype = torch.int64 })
  local payload
  if g.rank == root then
    local parts = {}
    for i = 1, n do
      local bytes, len = to_bytes(list[i])
      parts[i] = bytes
      sizes[i] = len
    end
    payload = n > 0 and torch.cat(parts) or torch.empty(0, { dtype = torch.uint8 })
  end
  dist.broadcast(sizes, o.src, o.group)
  if g.rank ~= root then payload = torch.empty(sizes:sum():item(), { dtype = torch.uint8 }) end
  dist.broadcast(payload, o.src, o.group)
  if g.rank ~= root then
    local at = 1
    for i = 1, n do
      local len = sizes[i]:item()
      list[i] = from_bytes(payload:narrow(1, at, len), len)
      at = at + len
    end
  end
end

-- all_gather_object(object_list, obj, group=None): object_list[r + 1] = rank r's obj
function dist.all_gather_object(...)
  -- obj may be a plain table: with two arguments they are positional, never options
  local o = select("#", ...) == 2 and { object_list = select(1, ...), obj = select(2, ...) }
    or call("all_gather_object", { "object_list", "obj", "group" }, {}, ...)
  local g = group_of(o.group)
  local list = o.object_list
  if type(list) ~= "table" then error("all_gather_object(): object_list must be a list", 2) end
  if not member(g, "all_gather_object") then return nil end
  local bytes, len = to_bytes(o.obj)
  local lens = {}
  for r = 1, g.size do lens[r] = torch.zeros(1, { dtype = torch.int64 }) end
  dist.all_gather(lens, torch.tensor({ len }, { dtype = torch.int64 }), o.group)
  local maxlen = 0
  for r = 1, g.size do maxlen = math.max(maxlen, lens[r]:item()) end
  local padded = torch.zeros(maxlen, { dtype = torch.uint8 })
  if len > 0 then padded:narrow(1, 1, len):copy_(bytes) end
  local outs = {}
  for r = 1, g.size do outs[r] = torch.empty(maxlen, { dtype = torch.uint8 }) end
  dist.all_gather(outs, padded, o.group)
  for r = 1, g.size do list[r] = from_bytes(outs[r], lens[r]:item()) end
end

-- gather_object(obj, object_gather_list=None, dst=0, group=None)
function dist.gather_object(...)
  local o = select("#", ...) == 1 and { obj = (...), dst = 0 }
    or call("gather_object", { "obj", "object_gather_list", "dst", "group" }, { dst = 0 }, ...)
  local g = group_of(o.group)
  if not member(g, "gather_object") then return nil end
  local root = group_rank(g, o.dst, "destination", "gather_object")
  local all = {}
  dist.all_gather_object(all, o.obj, o.group)
  if g.rank == root then
    if type(o.object_gather_list) ~= "table" then
      error("Argument ``object_gather_list`` must be specified on destination rank.", 2)
    end
    for r = 1, g.size do o.object_gather_list[r] = all[r] end
  end
end

-- scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None)
function dist.scatter_object_list(...)
  local o = call("scatter_object_list", { "scatter_object_output_list", "scatter_object_input_list", "src", "group" },
    { src = 0 }, ...)
  local g = group_of(o.group)
  local out = o.scatter_object_output_list
  if type(out) ~= "table" or #out < 1 then
    error("Expected argument scatter_object_output_list to be a list of size at least 1.", 2)
  end
  if not member(g, "scatter_object_list") then return nil end
  local root = group_rank(g, o.src, "source", "scatter_object_list")
  local list = { false }
  if g.rank == root then list = { o.scatter_object_input_list } end
  dist.broadcast_object_list(list, o.src, o.group)
  out[1] = list[1][g.rank + 1]
end

dist._C = C
return dist
