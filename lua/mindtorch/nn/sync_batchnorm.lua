-- sync_batchnorm.lua: nn.SyncBatchNorm, single-process part. Construction, repr, state_dict
-- and convert_sync_batchnorm are PyTorch 1.13's; forward needs a GPU in PyTorch (its CPU error
-- is raised here for a CPU input). The cross-process statistics belong to the distributed
-- work (issue 22): on an accelerator the forward is BatchNorm's over the local batch.
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
    local o = args.parse_at(3, "__init__", names, nil, ...)
    nn.BatchNorm1d.__init(self, num_features, { eps = o.eps, momentum = o.momentum, affine = o.affine,
      track_running_stats = o.track_running_stats, device = o.device, dtype = o.dtype })
    self.process_group = o.process_group
  end
  function SyncBatchNorm:forward(x)
    if x.device.type == "cpu" then error("SyncBatchNorm expected input tensor to be on GPU", 2) end
    if x:dim() < 2 then error(("expected at least 2D input (got %dD input)"):format(x:dim()), 2) end
    local training = self.training or not self.track_running_stats
    if self.training and self.track_running_stats then
      torch.no_grad(function() self.num_batches_tracked:add_(1) end)
    end
    return nn.functional.batch_norm(x, self.running_mean or nil, self.running_var or nil, { weight = self.weight or nil,
      bias = self.bias or nil, training = training, momentum = self.momentum, eps = self.eps })
  end
  local batch_norms = { "BatchNorm1d", "BatchNorm2d", "BatchNorm3d" }
  -- SyncBatchNorm.convert_sync_batchnorm(module, process_group): module with every
  -- BatchNorm*d (not a subclass such as a SyncBatchNorm) replaced by a SyncBatchNorm that shares
  -- its parameters and buffers; the converted modules keep their training mode
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
      rawset(out, "training", module.training)
    end
    for name, child in module:named_children() do
      out:add_module(name, SyncBatchNorm.convert_sync_batchnorm(child, process_group))
    end
    return out
  end
  nn.SyncBatchNorm = SyncBatchNorm
end
