-- parallel.lua: nn.parallel.DistributedDataParallel over torch.distributed (doc/distributed.md).
--   * construction checks that every rank has the same parameters (count and shapes), then
--     broadcasts parameters and buffers from rank 0, coalesced per dtype;
--   * gradients are averaged in buckets (PyTorch's: parameters in reverse order, split by
--     dtype, the first bucket at most 1 MiB, the others bucket_cap_mb): a post-hook on each
--     parameter's gradient accumulator copies its gradient into its bucket, and a bucket whose
--     gradients are all in is reduced asynchronously while backward goes on. Buckets start in
--     index order on every rank (collectives must match across ranks). The hook that completes
--     the last bucket waits for all of them and writes the averages back into .grad;
--   * no_sync() (a to-be-closed value) lets gradients accumulate locally; the next synced
--     backward reduces the accumulated gradients;
--   * find_unused_parameters = true walks the autograd graph from the forward's outputs and
--     counts the parameters it does not reach as ready (zeros in their buckets); without it a
--     parameter that gets no gradient is an error at the next forward, as PyTorch's;
--   * broadcast_buffers = true broadcasts rank 0's buffers before each forward.
return function(torch, nn)
  local Module = nn.Module
  local args = require "mindtorch._args"
  local parallel = nn.parallel or {}
  nn.parallel = parallel

  local FIRST_BUCKET_BYTES = 1024 * 1024 -- PyTorch's _DEFAULT_FIRST_BUCKET_BYTES

  local DDP = Module:subclass("nn.DistributedDataParallel")
  parallel.DistributedDataParallel = DDP

  local names = { "module", "device_ids", "output_device", "dim", "broadcast_buffers", "process_group", "bucket_cap_mb",
    "find_unused_parameters", "check_reduction", "gradient_as_bucket_view", "static_graph" }
  local defaults = { dim = 0, broadcast_buffers = true, bucket_cap_mb = 25, find_unused_parameters = false,
    check_reduction = false, gradient_as_bucket_view = false, static_graph = false }

  local function dist() return torch.distributed end

  -- tensors of one dtype broadcast from rank 0 as one flat tensor
  local function broadcast_coalesced(tensors, group)
    local by_dtype, order = {}, {}
    for _, t in ipairs(tensors) do
      local k = t.dtype.name
      if not by_dtype[k] then
        by_dtype[k] = {}
        order[#order + 1] = k
      end
      table.insert(by_dtype[k], t)
    end
    torch.no_grad(function()
      for _, k in ipairs(order) do
        local parts = {}
        for i, t in ipairs(by_dtype[k]) do parts[i] = t:reshape(-1) end
        local flat = torch.cat(parts)
        dist().broadcast(flat, dist().get_global_rank(group or dist().group.WORLD, 0), group)
        local at = 1
        for _, t in ipairs(by_dtype[k]) do
          local n = t:numel()
          t:copy_(flat:narrow(1, at, n):view_as(t))
          at = at + n
        end
      end
    end)
  end

  function DDP:__init(...)
    local o = args.parse_at(3, "__init__", names, defaults, ...)
    Module.__init(self)
    local d = dist()
    if not d.is_initialized() then
      error("Default process group has not been initialized, please make sure to call init_process_group.", 3)
    end
    local module = o.module
    if type(module) ~= "table" or not rawget(module, "_modules") then
      error("DistributedDataParallel(): module must be an nn.Module", 3)
    end
    local params = {}
    for _, p in ipairs(module:parameters()) do
      if p.requires_grad then params[#params + 1] = p end
    end
    if #params == 0 then
      error("DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient.", 3)
    end
    if o.device_ids ~= nil or o.output_device ~= nil then
      error(("DistributedDataParallel device_ids and output_device arguments only work with single-device/"
        .. "multiple-device GPU modules or CPU modules, but got device_ids %s, output_device %s, and module "
        .. "parameters {device(type='cpu')}."):format(tostring(o.device_ids), tostring(o.output_device)), 3)
    end
    for _, p in ipairs(params) do
      if p.device.type ~= "cpu" then
        error("DistributedDataParallel over the MPI backend takes modules on the CPU, got a parameter on "
          .. tostring(p.device), 3)
      end
    end
    if type(o.bucket_cap_mb) ~= "number" or o.bucket_cap_mb <= 0 then
      error("DistributedDataParallel(): bucket_cap_mb must be a positive number", 3)
    end
    self.module = module
    rawset(self, "process_group", o.process_group)
    rawset(self, "broadcast_buffers", o.broadcast_buffers)
    rawset(self, "find_unused_parameters", o.find_unused_parameters)
    rawset(self, "bucket_cap_mb", o.bucket_cap_mb)
    rawset(self, "dim", o.dim)
    rawset(self, "gradient_as_bucket_view", o.gradient_as_bucket_view)
    rawset(self, "static_graph", o.static_graph)
    rawset(self, "_world", d.get_world_size(o.process_group))
    rawset(self, "_params", params)
    rawset(self, "_require_sync", true)
    rawset(self, "_overlap", true) -- false: every bucket waits for the end of backward (bench/ddp)
    self:_verify_same_model()
    local states = {}
    for _, p in ipairs(module:parameters()) do states[#states + 1] = p end
    for _, b in ipairs(module:buffers()) do states[#states + 1] = b end
    broadcast_coalesced(states, o.process_group)
    self:_build_buckets()
    self:_register_hooks()
  end

  -- every rank must hold the same parameters: counts, then shapes, compared through objects
  function DDP:_verify_same_model()
    local shapes = {}
    for i, p in ipairs(self._params) do
      local s = {}
      for k = 1, p:dim() do s[k] = p.shape[k] end
      shapes[i] = table.concat(s, "x") .. ":" .. p.dtype.name
    end
    local all = {}
    dist().all_gather_object(all, { n = #shapes, shapes = table.concat(shapes, ",") }, self.process_group)
    local me = dist().get_rank(self.process_group)
    for r, other in ipairs(all) do
      if other.n ~= #shapes then
        error(("DDP expects same model across all ranks, but Rank %d has %d params, while rank %d has inconsistent %d "
          .. "params."):format(me, #shapes, r - 1, other.n), 4)
      end
      if other.shapes ~= table.concat(shapes, ",") then
        error(("DDP expects same model across all ranks, but rank %d's parameter shapes differ from rank %d's"):format(
          r - 1, me), 4)
      end
    end
  end

  -- PyTorch's bucket assignment: reverse order of the parameters, one dtype per bucket, the
  -- first bucket up to 1 MiB and the others up to bucket_cap_mb
  function DDP:_build_buckets()
    local cap = self.bucket_cap_mb * 1024 * 1024
    local buckets, open = {}, {}
    local function close(b)
      local total = 0
      for _, i in ipairs(b.members) do total = total + self._params[i]:numel() end
      b.flat = torch.zeros(total, { dtype = b.dtype })
      b.offset = {}
      local at = 1
      for _, i in ipairs(b.members) do
        b.offset[i] = at
        at = at + self._params[i]:numel()
      end
      buckets[#buckets + 1] = b
    end
    for i = #self._params, 1, -1 do
      local p = self._params[i]
      local k = p.dtype.name
      local b = open[k]
      if not b then
        b = { dtype = p.dtype, members = {}, bytes = 0 }
        open[k] = b
      end
      table.insert(b.members, i)
      b.bytes = b.bytes + p:numel() * p.itemsize
      local limit = #buckets == 0 and FIRST_BUCKET_BYTES or cap
      if b.bytes >= limit then
        close(b)
        open[k] = nil
      end
    end
    -- the open buckets, in the order of their first parameter
    local rest = {}
    for _, b in pairs(open) do rest[#rest + 1] = b end
    table.sort(rest, function(a, b) return a.members[1] > b.members[1] end)
    for _, b in ipairs(rest) do close(b) end
    local bucket_of = {}
    for bi, b in ipairs(buckets) do
      for _, i in ipairs(b.members) do bucket_of[i] = bi end
    end
    rawset(self, "_buckets", buckets)
    rawset(self, "_bucket_of", bucket_of)
  end

  function DDP:_register_hooks()
    local hooks, accs = {}, {}
    for i, p in ipairs(self._params) do
      local acc = p:expand_as(p).grad_fn.next_functions[1][1]
      accs[i] = acc -- kept: the accumulator lives as long as a reference to it
      hooks[i] = acc:register_hook(function() self:_mark_ready(i) end)
    end
    rawset(self, "_accumulators", accs)
    rawset(self, "_hooks", hooks)
  end

  -- the state of one synced backward
  function DDP:_prepare_for_backward(outputs)
    local pending = {}
    for bi, b in ipairs(self._buckets) do
      pending[bi] = #b.members
      b.work = nil
      b.ready = false
    end
    rawset(self, "_pending", pending)
    rawset(self, "_ready", {})
    rawset(self, "_next_bucket", 1)
    rawset(self, "_expect_reduce", true)
    rawset(self, "_unused", {})
    if self.find_unused_parameters then
      local reached = {}
      local seen = {}
      local stack = {}
      local function push(v)
        if torch.is_tensor(v) then
          if v.grad_fn then stack[#stack + 1] = v.grad_fn end
        elseif type(v) == "table" then
          for _, x in pairs(v) do push(x) end
        end
      end
      push(outputs)
      while #stack > 0 do
        local node = table.remove(stack)
        local key = tostring(node)
        if not seen[key] then
          seen[key] = true
          for _, e in ipairs(node.next_functions) do
            local nx = e[1]
            if nx then
              if nx:name() == "torch::autograd::AccumulateGrad" then reached[tostring(nx)] = true end
              stack[#stack + 1] = nx
            end
          end
        end
      end
      for i, acc in ipairs(self._accumulators) do
        if not reached[tostring(acc)] then self._unused[i] = true end
      end
      for i in pairs(self._unused) do self:_mark_ready(i) end
    end
  end

  -- parameter i's gradient is in (or it is unused this iteration)
  function DDP:_mark_ready(i)
    if not self._expect_reduce or self._ready[i] then return end
    self._ready[i] = true
    local bi = self._bucket_of[i]
    local b = self._buckets[bi]
    local p = self._params[i]
    local slice = b.flat:narrow(1, b.offset[i], p:numel())
    local g = p.grad
    if g == nil or self._unused[i] then slice:zero_() else slice:copy_(g:reshape(-1)) end
    self._pending[bi] = self._pending[bi] - 1
    if self._pending[bi] == 0 then
      b.ready = true
      if self._overlap then self:_launch_ready() end
    end
    if self._next_bucket > #self._buckets or (not self._overlap and self:_all_ready()) then self:_finish() end
  end

  function DDP:_all_ready()
    for _, b in ipairs(self._buckets) do
      if not b.ready then return false end
    end
    return true
  end

  -- starts the ready buckets from the next in index order (the same order on every rank)
  function DDP:_launch_ready()
    local d = dist()
    while self._next_bucket <= #self._buckets and self._buckets[self._next_bucket].ready do
      local b = self._buckets[self._next_bucket]
      b.flat:div_(self._world)
      b.work = d.all_reduce(b.flat, d.ReduceOp.SUM, self.process_group, true)
      rawset(self, "_next_bucket", self._next_bucket + 1)
    end
  end

  -- every bucket reduced: the averages back into the gradients
  function DDP:_finish()
    if not self._overlap then self:_launch_ready() end
    rawset(self, "_expect_reduce", false)
    torch.no_grad(function()
      for _, b in ipairs(self._buckets) do
        b.work:wait()
        for _, i in ipairs(b.members) do
          local p = self._params[i]
          local avg = b.flat:narrow(1, b.offset[i], p:numel()):view_as(p)
          if p.grad ~= nil then
            p.grad:copy_(avg)
          elseif not self._unused[i] or avg:ne(0):any():item() then
            p.grad = avg:clone() -- unused here, used by another rank
          end
        end
      end
    end)
  end

  function DDP:forward(...)
    if self._expect_reduce and torch.is_grad_enabled() then
      error("Expected to have finished reduction in the prior iteration before starting a new one. This error "
        .. "indicates that your module has parameters that were not used in producing loss. You can enable unused "
        .. "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
        .. "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
        .. "participate in calculating loss.", 2)
    end
    if self.broadcast_buffers and self._world > 1 then
      local bufs = self.module:buffers()
      if #bufs > 0 then broadcast_coalesced(bufs, self.process_group) end
    end
    local out = table.pack(self.module(...))
    if torch.is_grad_enabled() and self._require_sync then self:_prepare_for_backward(out) end
    return table.unpack(out, 1, out.n)
  end

  -- no_sync(): `local _ <close> = ddp:no_sync()`: the backwards inside accumulate locally
  function DDP:no_sync()
    local before = self._require_sync
    rawset(self, "_require_sync", false)
    return setmetatable({}, { __close = function() rawset(self, "_require_sync", before) end })
  end

  function DDP:_remove_hooks()
    for _, h in ipairs(self._hooks or {}) do h:remove() end
    rawset(self, "_hooks", {})
  end
end
