-- out= on NPU tensors, on the ACL stand-in (tests/ascend_standin; NOT Ascend software): the core
-- computes NPU operators straight into out when it can (views inside larger tensors included),
-- else computes and copies; out must be on the op's device.
local torch = require "mindtorch"

describe("out= on the NPU", function()
  it("writes results into NPU tensors and views of them", function()
    local x = torch.tensor({ 1, 2, 3, 4 }, { dtype = torch.float32 }):to("npu")
    local out = torch.empty(4, { device = "npu" })
    assert.are.equal(out, torch.add(x, x, { out = out }))
    assert.are.same({ 2, 4, 6, 8 }, out:cpu():tolist())
    local big = torch.zeros(10, { device = "npu" })
    torch.mul(x, 3, { out = big:narrow(1, 3, 4) })
    assert.are.same({ 0, 0, 3, 6, 9, 12, 0, 0, 0, 0 }, big:cpu():tolist())
    local m = torch.ones(3, 3, { device = "npu" })
    local buf = torch.zeros(11, { device = "npu" })
    torch.mm(m, m, { out = buf:narrow(1, 2, 9):view(3, 3) })
    assert.are.same({ 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0 }, buf:cpu():tolist())
    local s = torch.empty(0, { device = "npu" })
    torch.sum(x, 1, { out = s })
    assert.are.equal(10, s:cpu():item())
    local d = torch.empty(4, { dtype = torch.float64, device = "npu" }) -- computed, then cast
    torch.add(x, 1, { out = d })
    assert.are.same({ 2, 3, 4, 5 }, d:cpu():tolist())
  end)

  it("wants out on the op's device, CPU scalars aside", function()
    local x = torch.ones(2, { device = "npu" })
    assert.has_error(function() torch.add(x, x, { out = torch.empty(2) }) end,
      "Expected all tensors to be on the same device, but found at least two devices, cpu and npu:0!")
    assert.has_error(function() torch.add(torch.ones(2), 1, { out = torch.empty(2, { device = "npu" }) }) end,
      "Expected all tensors to be on the same device, but found at least two devices, npu:0 and cpu!")
    local o = torch.empty(0, { device = "npu" })
    torch.add(torch.tensor(1.5), 2, { out = o })
    assert.are.equal(3.5, o:cpu():item())
    local z = torch.empty(1, { device = "npu" })
    torch.zeros(3, { out = z })
    assert.are.same({ 0, 0, 0 }, z:cpu():tolist())
  end)
end)
