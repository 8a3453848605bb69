-- Device strings and device types (src/mt_device.c's registry): parsed as PyTorch 1.13 parses
-- them, with its error texts (taken from torch.device); no accelerator module is needed to name
-- a device, only to use one.
local torch = require "mindtorch"

local TYPES = "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, ort, xla, lazy, vulkan, " ..
  "mps, meta, hpu, privateuseone"

local function err(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^.-:%d+: ", ""))
end

describe("torch.device", function()
  it("parses what PyTorch parses, for any known type", function()
    for _, c in ipairs {
      { "cpu", "cpu", nil }, { "cpu:1", "cpu", 1 }, { "cuda:0", "cuda", 0 }, { "cuda:127", "cuda", 127 },
      { "meta:0", "meta", 0 }, { "xla:1", "xla", 1 }, { "mps", "mps", nil }, { "privateuseone:0", "privateuseone", 0 },
      { "npu", "npu", nil }, { "npu:3", "npu", 3 },
    } do
      local d = torch.device(c[1])
      assert.are.equal(c[2], d.type, c[1])
      assert.are.equal(c[3], d.index, c[1])
      assert.are.equal(c[1], tostring(d))
    end
    assert.are.equal("cpu:1", tostring(torch.device("cpu", 1)))
    assert.is_false(torch.device("cpu:1") == torch.device("cpu"))
  end)

  it("refuses malformed strings with PyTorch's words", function()
    for _, s in ipairs { "cpu:", "cuda:0x", "cuda:-1", "cuda:01", "cuda:00", "cuda:1:2", "cuda: 1", " cpu", "cpu ",
      "cuda:+1", "cpu0", ":1", "xyz:abc", "cuda::1" } do
      assert.are.equal("Invalid device string: '" .. s .. "'", err(torch.device, s))
    end
    assert.are.equal("Device string must not be empty", err(torch.device, ""))
    assert.are.equal("Could not parse device index '99999999999999' in device string 'cuda:99999999999999'",
      err(torch.device, "cuda:99999999999999"))
    assert.are.equal("Device index must not be negative", err(torch.device, "cuda", -1))
    -- an index is an int8 as PyTorch's, which wraps larger ones silently: refused here
    assert.are.equal("Could not parse device index '128' in device string 'cuda:128'", err(torch.device, "cuda:128"))
    assert.are.equal("Device index must be at most 127, got 128", err(torch.device, "cuda", 128))
  end)

  it("names the known types for an unknown one (PyTorch's, then npu)", function()
    for s, name in pairs { xyz = "xyz", ["xyz:1"] = "xyz", CUDA = "CUDA" } do
      assert.are.equal("Expected one of " .. TYPES .. ", npu device type at start of device string: " .. name,
        err(torch.device, s))
    end
  end)
end)

describe("tensors and device types", function()
  it("put cpu and meta tensors on the device without an index, as PyTorch", function()
    assert.are.equal(torch.device("cpu"), torch.zeros(2, { device = "cpu:1" }).device)
    assert.are.equal(torch.device("cpu"), torch.zeros(2):to("cpu:1").device)
    assert.are.equal(torch.device("meta"), torch.zeros(2, { device = "meta:1" }).device)
    local y = torch.zeros(2, { device = "cpu:1" }) + torch.ones(2)
    assert.are.equal("cpu", tostring(y.device))
  end)

  it("answer is_<type> for every known type", function()
    local x, m = torch.zeros(2), torch.zeros(2, { device = "meta" })
    assert.is_true(x.is_cpu)
    assert.is_false(x.is_meta)
    assert.is_true(m.is_meta)
    assert.is_false(m.is_cpu)
    for _, t in ipairs { "cuda", "npu", "xpu", "mps", "ipu", "vulkan", "ort", "mkldnn" } do
      assert.is_false(x["is_" .. t], t)
      assert.is_false(m["is_" .. t], t)
    end
    assert.is_nil(x.is_nosuchdevice)
  end)

  it("say a known type without its module is not available, and why", function()
    local e = err(torch.zeros, 2, { device = "xpu" })
    assert.are.equal("XPU is not available: the XPU backend module (mindtorch/xpu_backend.so) was not found", e)
    e = err(function() return torch.ones(2):to("xla:1") end)
    assert.truthy(e:find("XLA is not available: ", 1, true), e)
  end)
end)

describe("Tensor:<accelerator>()", function()
  it("moves to the device type of its name, or says why it cannot", function()
    local x = torch.ones(2)
    assert.are.equal("XPU is not available: the XPU backend module (mindtorch/xpu_backend.so) was not found",
      err(x.xpu, x))
    assert.truthy(err(x.ipu, x, 1):find("IPU is not available: ", 1, true))
    assert.is_nil(x.mps) -- PyTorch 1.13 has no Tensor.mps
  end)
end)

describe("torch.<accelerator>", function()
  it("answers is_available() = false for a known type without its module, as PyTorch does", function()
    assert.is_false(torch.xpu.is_available())
    assert.are.equal(0, torch.xpu.device_count())
    assert.is_false(torch.xpu.is_initialized())
    assert.are.equal("Torch not compiled with XPU enabled", err(torch.xpu.synchronize))
    assert.are.equal("Torch not compiled with XPU enabled", err(torch.xpu.current_device))
    assert.is_false(torch.ipu.is_available())
    assert.are.equal(torch.xpu, torch.xpu) -- made once
  end)

  it("is the device module's own table where one is installed", function()
    assert.are.equal(require "mindtorch.npu", torch.npu)
  end)

  it("is nil for names that are not accelerator types", function()
    assert.is_nil(torch.nosuchdevice)
    assert.is_nil(rawget(torch, "nosuchdevice"))
    assert.is_nil(torch.cpu)
    assert.is_nil(torch.meta)
  end)

  it("record_stream refuses a CPU tensor with PyTorch's text", function()
    assert.are.equal("Could not run 'aten::record_stream' with arguments from the 'CPU' backend.",
      err(function() torch.ones(2):record_stream(nil) end))
  end)
end)
