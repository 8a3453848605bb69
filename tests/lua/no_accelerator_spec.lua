-- torch.<dev> without a backend module (torch.xpu here; torch.cuda where the CUDA module is not built): what PyTorch's CPU-only build answers, so that
-- PyTorch-shaped scripts run (lua/mindtorch/_no_accelerator.lua).
local torch = require "mindtorch"

local function err(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

describe("torch.xpu without its backend", function()
  it("says it is not available, with no devices", function()
    assert.is_false(torch.xpu.is_available())
    assert.are.equal(0, torch.xpu.device_count())
    assert.is_false(torch.xpu.is_initialized())
    assert.are.equal("Torch not compiled with XPU enabled", torch.xpu.unavailable_reason())
  end)

  it("accepts seeding and answers the statistics of an unused device, as PyTorch's CPU build", function()
    assert.is_nil(torch.xpu.manual_seed(1))
    assert.is_nil(torch.xpu.manual_seed_all(1))
    assert.is_nil(torch.xpu.seed())
    assert.is_nil(torch.xpu.seed_all())
    assert.are.equal(0, torch.xpu.memory_allocated())
    assert.are.equal(0, torch.xpu.max_memory_allocated(0))
    assert.are.equal(0, torch.xpu.memory_reserved())
    assert.are.equal(0, torch.xpu.max_memory_reserved())
    assert.are.same({}, torch.xpu.memory_stats())
    assert.is_nil(torch.xpu.empty_cache())
    assert.are.same({}, torch.xpu.get_rng_state_all())
    assert.are.same({}, torch.xpu.get_arch_list())
    assert.are.equal("", torch.xpu.get_gencode_flags())
  end)

  it("refuses the rest in PyTorch's words", function()
    for _, name in ipairs { "current_device", "set_device", "synchronize", "get_device_name", "get_device_capability",
      "get_device_properties", "init", "current_stream", "default_stream", "mem_get_info", "get_rng_state",
      "initial_seed", "is_bf16_supported", "ipc_collect", "Stream", "Event" } do
      assert.are.equal("Torch not compiled with XPU enabled", err(torch.xpu[name], 0), name)
    end
    assert.is_nil(torch.xpu.__index)
  end)

  it("gives a clear error for a tensor on cuda", function()
    local msg = "XPU is not available: the XPU backend module (mindtorch/xpu_backend.so) was not found"
    assert.are.equal(msg, err(torch.zeros, 2, { device = "xpu" }))
    assert.are.equal(msg, err(function() return torch.ones(2):xpu() end))
    assert.are.equal(msg, err(function() return torch.ones(2):to("xpu:0") end))
  end)
end)

-- torch.npu's Lua file ships with the Lua files; its C module may not (an install without it, a
-- host embedding the core alone, the fuzz targets): the module decides (found by the libFuzzer
-- smoke: a checkpoint saved on "npu" made torch.load raise require's "module not found")
describe("torch.npu whose C module is not found", function()
  local function without_backend(f)
    local cpath, loaded, npu = package.cpath, package.loaded["mindtorch.npu_backend"], rawget(torch, "npu")
    package.cpath, package.loaded["mindtorch.npu_backend"] = "/nonexistent/?.so", nil
    rawset(torch, "npu", nil)
    local ok, e = pcall(f)
    package.cpath, package.loaded["mindtorch.npu_backend"] = cpath, loaded
    rawset(torch, "npu", npu)
    assert(ok, e)
  end

  it("answers as a build without the NPU", function()
    without_backend(function()
      assert.is_false(torch.npu.is_available())
      assert.are.equal(0, torch.npu.device_count())
      assert.are.equal("Torch not compiled with NPU enabled", torch.npu.unavailable_reason())
      assert.are.equal("Torch not compiled with NPU enabled", err(torch.npu.current_device))
    end)
  end)

  it("lets torch.load refuse a checkpoint saved on the NPU in PyTorch's words", function()
    without_backend(function()
      -- written by PyTorch 1.13: torch.arange(4.) with its storage's location set to "npu"
      local path = "tests/fuzz/corpus/ptload/location_npu.pt"
      assert.are.equal(path .. ": Attempting to deserialize object on a NPU device but torch.npu.is_available() "
        .. "is False. If you are running on a CPU-only machine, please use torch.load with map_location='cpu' "
        .. "to map your storages to the CPU.", err(torch.load, path))
      assert.are.same({ 0, 1, 2, 3 }, torch.load(path, { map_location = "cpu" }):tolist())
    end)
  end)
end)
