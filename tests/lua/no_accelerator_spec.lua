-- torch.cuda without a CUDA backend module: what PyTorch's CPU-only build answers, so that
-- PyTorch-shaped scripts run (lua/mindtorch/_no_accelerator.lua).
local torch = require "mindtorch"

local function err(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

describe("torch.cuda without its backend", function()
  if package.searchpath("mindtorch.cuda_backend", package.cpath) then
    pending("a CUDA backend module is installed")
    return
  end

  it("says it is not available, with no devices", function()
    assert.is_false(torch.cuda.is_available())
    assert.are.equal(0, torch.cuda.device_count())
    assert.is_false(torch.cuda.is_initialized())
    assert.are.equal("Torch not compiled with CUDA enabled", torch.cuda.unavailable_reason())
  end)

  it("accepts seeding and answers the statistics of an unused device, as PyTorch's CPU build", function()
    assert.is_nil(torch.cuda.manual_seed(1))
    assert.is_nil(torch.cuda.manual_seed_all(1))
    assert.is_nil(torch.cuda.seed())
    assert.is_nil(torch.cuda.seed_all())
    assert.are.equal(0, torch.cuda.memory_allocated())
    assert.are.equal(0, torch.cuda.max_memory_allocated(0))
    assert.are.equal(0, torch.cuda.memory_reserved())
    assert.are.equal(0, torch.cuda.max_memory_reserved())
    assert.are.same({}, torch.cuda.memory_stats())
    assert.is_nil(torch.cuda.empty_cache())
    assert.are.same({}, torch.cuda.get_rng_state_all())
    assert.are.same({}, torch.cuda.get_arch_list())
    assert.are.equal("", torch.cuda.get_gencode_flags())
  end)

  it("refuses the rest in PyTorch's words", function()
    for _, name in ipairs { "current_device", "set_device", "synchronize", "get_device_name", "get_device_capability",
      "get_device_properties", "init", "current_stream", "default_stream", "mem_get_info", "get_rng_state",
      "initial_seed", "is_bf16_supported", "ipc_collect", "Stream", "Event" } do
      assert.are.equal("Torch not compiled with CUDA enabled", err(torch.cuda[name], 0), name)
    end
    assert.is_nil(torch.cuda.__index)
  end)

  it("gives a clear error for a tensor on cuda", function()
    local msg = "CUDA is not available: the CUDA backend module (mindtorch/cuda_backend.so) was not found"
    assert.are.equal(msg, err(torch.zeros, 2, { device = "cuda" }))
    assert.are.equal(msg, err(function() return torch.ones(2):cuda() end))
    assert.are.equal(msg, err(function() return torch.ones(2):to("cuda:0") end))
  end)
end)
