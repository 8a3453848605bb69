-- The NPU module as a registered device (src/mt_device.c's registry; on the ACL stand-in): the
-- core loads it by the type's name, its key is named from the type, its tensors answer is_npu,
-- and its float16 capability comes from its backend, not from the core naming it.
local torch = require "mindtorch"

describe("the npu device type", function()
  it("is served by the module the core loads by name", function()
    local x = torch.ones(2, { device = "npu:1" })
    assert.are.equal("npu:1", tostring(x.device))
    assert.is_true(x.is_npu)
    assert.is_false(x.is_cpu)
    assert.is_false(x.is_cuda)
    assert.is_false(torch.ones(2).is_npu)
    assert.are.equal(0, torch.zeros(2, { device = "npu" }).device.index) -- the current device
  end)

  it("names its dispatch key after the type", function()
    local ok, err = pcall(torch.sin, torch.ones(2, { device = "npu" }))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("from the 'NPU' backend", 1, true), err)
    assert.truthy(tostring(err):find("available for these backends: [", 1, true), err)
  end)

  it("computes float16 where PyTorch's CPU has no kernel (its backend says it can)", function()
    local a = torch.tensor({ { 1, 2 }, { 3, 4 } }, { dtype = torch.float16 })
    assert.has_error(function() torch.mm(a, a) end, "\"addmm_impl_cpu_\" not implemented for 'Half'")
    local r = torch.mm(a:to("npu"), a:to("npu"))
    assert.are.equal(torch.float16, r.dtype)
    assert.are.same({ { 7, 10 }, { 15, 22 } }, r:cpu():tolist())
  end)
end)
