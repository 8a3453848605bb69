-- _no_accelerator.lua: torch.<dev> for an accelerator type the device registry knows but whose
-- backend module is not installed (torch.cuda until the CUDA backend exists). It answers as
-- PyTorch's own build without that backend does, so PyTorch-shaped scripts run on the CPU:
-- is_available() is false, device_count() 0; seeding is accepted and dropped (PyTorch queues it
-- for a device that never initialises); the allocator's statistics are those of a device never
-- used (0, {}), empty_cache does nothing; everything else (current_device, set_device,
-- synchronize, get_device_name, Stream, ...) raises "Torch not compiled with CUDA enabled".
-- An installed backend module replaces this table (init.lua's device_table: mindtorch.<dev>,
-- or mindtorch._accelerator over mindtorch.<dev>_backend).
return function(dev_type)
  local NAME = dev_type:upper()
  local missing = ("Torch not compiled with %s enabled"):format(NAME)
  local function nothing() end
  local function zero() return 0 end
  local function empty() return {} end
  local M = {
    is_available = function() return false end,
    unavailable_reason = function() return missing end,
    is_initialized = function() return false end,
    device_count = zero,
    manual_seed = nothing, manual_seed_all = nothing, seed = nothing, seed_all = nothing,
    memory_allocated = zero, max_memory_allocated = zero, memory_reserved = zero, max_memory_reserved = zero,
    memory_cached = zero, max_memory_cached = zero,
    memory_stats = empty, memory_stats_as_nested_dict = empty,
    empty_cache = nothing,
    get_rng_state_all = empty, set_rng_state_all = nothing, default_generators = {},
    get_arch_list = empty,
    get_gencode_flags = function() return "" end,
  }
  return setmetatable(M, {
    __index = function(_, name)
      if type(name) ~= "string" or name:sub(1, 2) == "__" then return nil end
      return function() error(missing, 2) end
    end,
  })
end
