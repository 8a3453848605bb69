-- sync_batchnorm.lua: nn.SyncBatchNorm. Construction, repr, state_dict and
-- convert_sync_batchnorm are PyTorch 1.13's. In training, with torch.distributed initialized
-- and more than one rank in the group, the batch statistics are those of every rank's batch:
-- each rank's mean, biased variance and count are gathered and combined (the parallel
-- formula, as PyTorch's batch_norm_gather_stats_with_counts), and backward reduces the two
-- sums the input's gradient needs; the weight's and bias's gradients stay local (DDP averages
-- them). Otherwise it is BatchNorm over the local batch. mindtorch's torch.distributed moves
-- CPU tensors, so unlike PyTorch 1.13 (which refuses a CPU input) it runs on the CPU.
return function(torch, nn)
  local args = require "mindtorch._args"
  local class = require "mindtorch._class"
  -- a sibling of BatchNorm1d/2d/3d (not a subclass: isinstance(m, nn.BatchNorm1d) is false, as PyTorch's)
  local SyncBatchNorm = nn.Module:subclass("nn.SyncBatchNorm")
  SyncBatchNorm.extra_repr = nn.BatchNorm1d.extra_repr
  local names = { "eps", "momentum", "affine", "track_running_stats", "process_group", "device", "dtype" }
  -- SyncBatchNorm(num_features, eps = 1e-5, momentum = 0.1, affine = true,
  -- track_running_stats = true, process_group, device, dtype)
  function SyncBatchNorm:__init(num_features, ...)
    if num_features == nil then
      error("SyncBatchNorm.__init__() missing 1 required positional argument: 'num_features'", 3)
    end
    local o = args.parse_at(3, "__init__", names, nil, ...)
    nn.BatchNorm1d.__init(self, num_features, { eps = o.eps, momentum = o.momentum, affine = o.affine,
      track_running_stats = o.track_running_stats, device = o.device, dtype = o.dtype })
    self.process_group = o.process_group
  end
  -- the Function of the synchronized forward: statistics over every rank, and the input's
  -- gradient from the group's sums of g and g * xhat
  local SyncBN = torch.autograd.Function:subclass("SyncBatchNormFunction")
  local function reduce_dims(x)
    local dims = {}
    for d = 1, x:dim() do if d ~= 2 then dims[#dims + 1] = d end end
    return dims
  end
  local function channel_shape(x)
    local shape = {}
    for d = 1, x:dim() do shape[d] = d == 2 and x.shape[2] or 1 end
    return shape
  end
  function SyncBN.forward(ctx, x, weight, bias, running_mean, running_var, eps, momentum, group)
    local dist = torch.distributed
    local C, dims, shape = x.shape[2], reduce_dims(x), channel_shape(x)
    local n = x:numel() // C
    local mean = x:mean(dims)
    local var = x:var(dims, { unbiased = false })
    local mine = torch.cat({ mean, var, torch.tensor({ n }, { dtype = x.dtype }) })
    local world = dist.get_world_size(group)
    local all = torch.empty({ world, 2 * C + 1 }, { dtype = x.dtype })
    dist.all_gather_into_tensor(all, mine, group)
    local counts = all:select(2, 2 * C + 1):view(world, 1)
    local total = counts:sum()
    local gmean = (all:narrow(2, 1, C) * counts):sum(1) / total
    local dev = all:narrow(2, 1, C) - gmean:view(1, C)
    local gvar = ((all:narrow(2, C + 1, C) + dev * dev) * counts):sum(1) / total
    local N = total:item()
    local invstd = (gvar + eps):rsqrt()
    local xhat = (x - gmean:view(shape)) * invstd:view(shape)
    local y = xhat
    if weight ~= nil then y = xhat * weight:view(shape) + bias:view(shape) end
    if running_mean ~= nil then
      running_mean:mul_(1 - momentum):add_(gmean * momentum)
      running_var:mul_(1 - momentum):add_(gvar * (N / math.max(N - 1, 1)) * momentum)
    end
    ctx:save_for_backward(xhat, invstd, weight)
    ctx.total, ctx.group, ctx.has_weight = N, group, weight ~= nil
    return y
  end
  function SyncBN.backward(ctx, g)
    local xhat, invstd, weight = table.unpack(ctx.saved_tensors)
    local C, dims, shape = g.shape[2], reduce_dims(g), channel_shape(g)
    local gsum, gxsum = g:sum(dims), (g * xhat):sum(dims)
    local both = torch.cat({ gsum, gxsum })
    torch.distributed.all_reduce(both, torch.distributed.ReduceOp.SUM, ctx.group)
    local mg, mgx = both:narrow(1, 1, C) / ctx.total, both:narrow(1, C + 1, C) / ctx.total
    local scale = invstd
    if ctx.has_weight then scale = scale * weight end
    local gx = (g - mg:view(shape) - xhat * mgx:view(shape)) * scale:view(shape)
    if ctx.has_weight then return gx, gxsum, gsum, nil, nil, nil, nil, nil end
    return gx, nil, nil, nil, nil, nil, nil, nil
  end

  function SyncBatchNorm:forward(x)
    if not torch.is_tensor(x) then
      error(("forward(): argument 'input' (position 1) must be Tensor, not %s"):format(args.py_type(x)), 2)
    end
    if x:dim() < 2 then error(("expected at least 2D input (got %dD input)"):format(x:dim()), 2) end
    local training = self.training or not self.track_running_stats
    if self.training and self.track_running_stats then
      torch.no_grad(function() self.num_batches_tracked:add_(1) end)
    end
    -- in training the group's size decides, as PyTorch's: without a process group that is
    -- PyTorch's "Default process group has not been initialized" error; one rank is BatchNorm
    local sync = false
    if self.training then
      local ok, dist = pcall(function() return torch.distributed end)
      if not ok or not dist or not dist.is_available() or not dist.is_initialized() then
        error("Default process group has not been initialized, please make sure to call init_process_group.", 2)
      end
      sync = dist.get_world_size(self.process_group) > 1
    end
    if not sync then
      return nn.functional.batch_norm(x, self.running_mean or nil, self.running_var or nil, {
        weight = self.weight or nil, bias = self.bias or nil, training = training, momentum = self.momentum,
        eps = self.eps })
    end
    local momentum = self.momentum
    if momentum == nil then -- a cumulative average, as BatchNorm's momentum = None
      momentum = 1 / self.num_batches_tracked:item()
    end
    local tracking = self.track_running_stats and self.running_mean or nil
    return SyncBN.apply(x, self.weight or nil, self.bias or nil, tracking, tracking and self.running_var or nil,
      self.eps, momentum, self.process_group)
  end
  local batch_norms = { "BatchNorm1d", "BatchNorm2d", "BatchNorm3d" }
  -- SyncBatchNorm.convert_sync_batchnorm(module, process_group): module with every
  -- BatchNorm*d (not a subclass such as a SyncBatchNorm) replaced by a SyncBatchNorm that shares
  -- its parameters and buffers; the new modules start in training mode, as PyTorch 1.13's
  function SyncBatchNorm.convert_sync_batchnorm(module, process_group)
    local out = module
    local is_bn = false
    for _, n in ipairs(batch_norms) do
      if class.type_of(module) == nn[n] then is_bn = true end
    end
    if is_bn then
      out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
        module.track_running_stats, process_group)
      if module.affine then
        out._parameters.items.weight = module.weight
        out._parameters.items.bias = module.bias
      end
      for _, b in ipairs { "running_mean", "running_var", "num_batches_tracked" } do
        out._buffers.items[b] = module._buffers.items[b]
        if not out._buffers.present[b] and module._buffers.present[b] then out:register_buffer(b, module[b]) end
      end
    end
    for name, child in module:named_children() do
      out:add_module(name, SyncBatchNorm.convert_sync_batchnorm(child, process_group))
    end
    return out
  end
  nn.SyncBatchNorm = SyncBatchNorm
end
