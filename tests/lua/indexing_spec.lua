-- Torch7-style indexing: the parts PyTorch's Python indexing has no counterpart for (Lua ranges,
-- Lua types, index lists with whole-dim placeholders). The rest is checked against PyTorch in
-- tests/contract/indexing_spec.lua.
local torch = require("mindtorch")

local function x34() return torch.arange(12):view(3, 4) end

describe("indexing", function()
  it("reads a range {a} as a..a, keeping the dim", function()
    assert.are.same({ { 4, 5, 6, 7 } }, x34()[{ { 2 } }]:tolist())
    assert.are.same({ { 7 }, { 11 } }, x34()[{ { 2, 3 }, { -1 } }]:tolist())
    assert.are.same({ { 0, 2 }, { 8, 10 } }, x34()[{ { 1, -1, 2 }, { 1, 3, 2 } }]:tolist())
  end)

  it("returns views for numbers, ranges, \":\" and \"...\"", function()
    local x = x34()
    x[{ ":", { 2, 3 } }]:fill_(-1)
    assert.are.same({ 0, -1, -1, 3 }, x[1]:tolist())
    x[{ "...", -1 }]:zero_()
    assert.are.same({ 0, 0, 0 }, x[{ ":", 4 }]:tolist())
  end)

  it("refuses ranges and steps outside the dim", function()
    local x = x34()
    assert.has_error(function() return x[{ ":", { 2, 5 } }] end, "index 5 is out of bounds for dimension 2 with size 4")
    assert.has_error(function() return x[{ { 5, 5 } }] end, "index 5 is out of bounds for dimension 1 with size 3")
    assert.has_error(function() return x[{ { 1, 3, 0 } }] end, "range step must be a positive integer")
    assert.has_error(function() return x[{ { 1, 3, -1 } }] end, "range step must be a positive integer")
    assert.are.equal(torch.Size({ 0, 4 }), x[{ { 4, 3 } }]:size())
  end)

  it("says which key entries are not indices", function()
    local x = x34()
    local msg = 'only integers, ranges ({a, b}), ":", "..." and long or bool tensors are valid indices (got %s)'
    assert.has_error(function() return x[1.5] end, msg:format("float"))
    assert.has_error(function() return x[{ 1, 2.5 }] end, msg:format("float"))
    assert.has_error(function() return x[{ true }] end, msg:format("boolean"))
    assert.has_error(function() return x[{ { 1, 2.5 } }] end, msg:format("float"))
    assert.has_error(function() return torch.tensor(3)[1] end,
      "invalid index of a 0-dim tensor. Use `tensor:item()` to convert a 0-dim tensor to a number")
    assert.has_error(function() local t = torch.tensor(3); t[1] = 2 end, "invalid index of a 0-dim tensor")
  end)

  it("leaves the tensor as it was when an index is out of range", function()
    local x = x34()
    assert.has_error(function() x[{ torch.tensor({ 1, 4 }) }] = 0 end,
      "index 4 is out of bounds for dimension 1 with size 3")
    assert.are.same(x34():tolist(), x:tolist())
  end)

  it("writes a value read from the tensor itself as it was before the write", function()
    local x = torch.tensor({ 1, 2, 3, 4 })
    x:index_put_({ torch.tensor({ 2, 3, 4 }) }, x[{ { 1, 3 } }])
    assert.are.same({ 1, 1, 2, 3 }, x:tolist())
  end)

  it("index_put_ takes false for a whole dim and adds with accumulate", function()
    local x = torch.zeros(2, 3)
    x:index_put_({ false, torch.tensor({ 1, 1, 3 }) }, torch.tensor(1.0), true)
    assert.are.same({ { 2, 0, 1 }, { 2, 0, 1 } }, x:tolist())
    x:index_put_({ torch.tensor({ 2 }), torch.tensor({ -1 }) }, torch.tensor(9.0))
    assert.are.same({ { 2, 0, 1 }, { 2, 0, 9 } }, x:tolist())
    assert.has_error(function() x:index_put_({ 1 }, torch.tensor(1.0)) end)
  end)

  it("gives result shapes on the meta device; masks need data", function()
    local m = torch.empty(3, 4, 5, { device = "meta" })
    local r = m[{ ":", torch.tensor({ { 1, 2 } }), torch.tensor({ 1, 2 }) }]
    assert.are.equal("meta", r.device.type)
    assert.are.equal(torch.Size({ 3, 1, 2 }), r:size())
    assert.has_error(function() return m[torch.ones(3, { dtype = torch.bool, device = "meta" })] end)
    assert.are.equal(torch.Size({ 2, 4, 5 }), m[torch.tensor({ true, false, true })]:size()) -- a CPU mask
    assert.has_error(function() return torch.zeros(3)[torch.tensor({ 1 }, { device = "meta" })] end,
      "indices should be either on cpu or on the same device as the indexed tensor (cpu)")
  end)
end)
