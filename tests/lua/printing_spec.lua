-- The printing API around tostring (the repr itself is checked against PyTorch in contracts).
local torch = require "mindtorch"

describe("set_printoptions", function()
  after_each(function() torch.set_printoptions { profile = "default" } end)

  it("changes precision until reset by a profile", function()
    torch.set_printoptions { precision = 1 }
    assert.are.equal("tensor([1.2, 3.5])", tostring(torch.tensor({ 1.23, 3.45 })))
    torch.set_printoptions { profile = "default" }
    assert.are.equal("tensor([1.2300, 3.4500])", tostring(torch.tensor({ 1.23, 3.45 })))
  end)

  it("rejects unknown profiles", function()
    assert.has_error(function() torch.set_printoptions { profile = "loud" } end, "unknown print profile 'loud'")
  end)

  it("prints views and non-contiguous tensors by value", function()
    local x = torch.arange(6):view(2, 3):t()
    assert.are.equal("tensor([[0, 3],\n        [1, 4],\n        [2, 5]])", tostring(x))
  end)
end)
