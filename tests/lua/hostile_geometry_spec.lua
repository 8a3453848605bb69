-- Sizes, strides and offsets from users never reach memory unchecked: every product and sum is
-- checked (numel, byte extents, storage offsets), every view stays inside its storage, and a
-- tensor whose storage was resized smaller is refused at use. Regression tests for the
-- memory-corruption findings of the hostile-input issue; errors are PyTorch 1.13's wording.
local torch = require "mindtorch"

local function error_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

local function assert_error(expected, f, ...)
  local err = error_of(f, ...)
  assert.is_truthy(err:find(expected, 1, true), "expected '" .. expected .. "', got '" .. err .. "'")
end

describe("sizes whose byte count overflows", function()
  it("resize_ refuses instead of wrapping the byte count to 0", function()
    local t = torch.zeros(2)
    assert_error("Storage size calculation overflowed with sizes=[4611686018427387904]",
      function() t:resize_(1 << 62) end)
    assert_error("Storage size calculation overflowed with sizes=[2147483648, 2147483648]",
      function() t:resize_(1 << 31, 1 << 31) end)
    assert_error("numel: integer multiplication overflow", function() t:resize_(-1) end)
    -- the tensor is untouched and still usable
    assert.are.same({ 2 }, t:size())
    assert.are.equal(0.0, t:sum():item())
  end)

  it("as_strided checks the extent, whatever its offset or strides", function()
    local t = torch.zeros(4)
    assert_error("Storage size calculation overflowed with sizes=[1] and strides=[1]",
      function() t:as_strided({ 1 }, { 1 }, math.maxinteger) end)
    assert_error("Storage size calculation overflowed with sizes=[2] and strides=[4611686018427387904]",
      function() t:as_strided({ 2 }, { 1 << 62 }, 0) end)
    assert_error("setStorage: sizes [2], strides [1], storage offset 3, and itemsize 4 requiring a "
      .. "storage size of 20 are out of bounds for storage of size 16",
      function() t:as_strided({ 2 }, { 1 }, 3) end)
    assert_error("Tensor: invalid storage offset -1", function() t:as_strided({ 1 }, { 1 }, -1) end)
    assert_error("Storage size calculation overflowed with sizes=[-2] and strides=[1]",
      function() t:as_strided({ -2 }, { 1 }, 1) end)
    assert_error("as_strided: Negative strides are not supported at the moment, got strides: [-1]",
      function() t:as_strided({ 2 }, { -1 }, 1) end)
    -- the largest legal view still works
    assert.are.same({ 0.0, 0.0 }, t:as_strided({ 2 }, { 3 }, 0):tolist())
  end)

  it("view, reshape and expand refuse element counts that overflow", function()
    assert_error("numel: integer multiplication overflow",
      function() torch.empty(0):view(1 << 32, 1 << 32) end)
    assert_error("numel: integer multiplication overflow",
      function() torch.empty(0):reshape(1 << 32, 1 << 32) end)
    assert_error("numel: integer multiplication overflow",
      function() torch.ones(1, 1):expand(1 << 62, 2) end)
    assert_error("numel: integer multiplication overflow",
      function() torch.ones(1, 1):expand(1 << 62, 4) end)
    -- empty tensors need no bytes: a huge outermost size makes no stride (found by fuzz_embed)
    assert.are.same({ 32, 16, 8, 4, 2, 1, 1 }, torch.empty(87882937810368568, 2, 2, 2, 2, 2, 0):stride())
    assert.are.same({ 1, 4611686018427387904, 0 }, torch.empty(0):as_strided({ 1, 1 << 62, 0 }, { 8, 3, 4 }):size())
    -- a legal huge expand: numel fits, no memory behind it; positions past 2^31 still work
    local e = torch.ones(1, 1):expand(1 << 40, 2)
    assert.are.equal((1 << 40) * 2, e:numel())
    assert.are.same({ 3, 2 }, e:narrow(1, (1 << 40) - 2, 3):size())
    assert.are.same({ 1, 2 }, e:narrow(1, -1, 1):size())
  end)

  it("storages refuse sizes whose byte count overflows", function()
    local s = torch.ones(4, { dtype = torch.float64 }):storage()
    assert_error("Storage size calculation overflowed", function() s:resize_(1 << 61) end)
    assert.are.equal(4, #s)
    assert_error("Storage size calculation overflowed: 4611686018427387904 elements of 4 bytes",
      function() torch.TypedStorage(1 << 62, { dtype = torch.float32 }) end)
    assert_error("Storage size must be non-negative, got -3", function() torch.UntypedStorage(-3) end)
    local u = torch.ones(4):untyped_storage()
    assert_error("Storage size must be non-negative, got -1", function() u:resize_(-1) end)
    assert.are.equal(16, u:nbytes())
  end)
end)

describe("a storage resized under a live tensor", function()
  local function shrunk()
    local t = torch.ones(4)
    t:untyped_storage():resize_(0)
    return t
  end
  local message = "The tensor's storage is smaller than its geometry needs (was the storage resized?)"

  it("is refused by every op, read or write", function()
    assert_error(message, function() shrunk():sum() end)
    assert_error(message, function() shrunk():add_(1) end)
    assert_error(message, function() shrunk():clone() end)
    assert_error(message, function() return torch.ones(4) + shrunk() end)
    assert_error(message, function() tostring(shrunk()) end)
    assert_error(message, function() shrunk():tolist() end)
    assert_error(message, function() shrunk():data_ptr() end)
    assert_error(message, function() torch._tensor_bytes(shrunk()) end)
    local function shrunk_scalar()
      local t = torch.ones({})
      t:untyped_storage():resize_(0)
      return t
    end
    assert_error(message, function() shrunk_scalar():item() end)
    assert_error(message, function() torch.zeros(2):fill_(shrunk_scalar()) end)
    assert_error(message, function() torch.zeros(2):add(shrunk_scalar()) end)
  end)

  it("refuses views of it, naming the sizes", function()
    local err = error_of(function() shrunk():view(2, 2) end)
    assert.is_truthy(err:find("sizes [4], strides [1], storage offset 0, and itemsize 4 require a storage "
      .. "size of 16, but the storage has 0 bytes", 1, true), err)
  end)

  it("works again once the storage is big enough", function()
    local t = torch.arange(4.0)
    local head = t:narrow(1, 1, 2)
    local s = t:untyped_storage()
    s:resize_(8)
    assert_error(message, function() t:sum() end)
    assert.are.same({ 0.0, 1.0 }, head:tolist()) -- a view the smaller storage still covers
    s:resize_(16)
    assert.are.equal(4, t:numel())
    t:fill_(1)
    assert.are.equal(4.0, t:sum():item())
  end)
end)

describe("index_copy_ and index_add_", function()
  local z = torch.zeros

  it("check slice shapes before writing (no row past the buffer)", function()
    local t = z(4, 4)
    assert_error("index_copy_(): Source/destination tensor must have same slice shapes. Destination "
      .. "slice shape: 4 at dimension 2 and source slice shape: 9 at dimension 1.",
      function() t:index_copy_(2, torch.tensor { 1 }, torch.ones(9, 1)) end)
    assert_error("Destination slice shape: 4 3 at dimension 2 and source slice shape: 9 2",
      function() z(4, 4, 3):index_copy_(2, torch.tensor { 1 }, torch.ones(9, 1, 2)) end)
    assert.are.equal(0.0, t:sum():item())
    assert_error("The size of tensor a (4) must match the size of tensor b (9) at non-singleton dimension 1",
      function() t:index_add_(2, torch.tensor { 1 }, torch.ones(9, 1)) end)
    assert.are.equal(0.0, t:sum():item())
  end)

  it("refuse sources of fewer dims with PyTorch's messages", function()
    assert_error("index_copy_(): When source and destination are not scalars, their dimensionality must "
      .. "match. Source dimensionality (1), destination dimensionality (2)",
      function() z(4, 4):index_copy_(2, torch.tensor { 1 }, torch.ones(4)) end)
    assert_error("index_add_(): Indexing dim 2 is out of bounds of the source tensor with dim 1",
      function() z(4, 4):index_add_(2, torch.tensor { 1 }, torch.ones(4)) end)
    assert_error("select() cannot be applied to a 0-dim tensor.",
      function() z(4, 4):index_add_(1, torch.tensor { 1 }, torch.tensor(2.0)) end)
    assert_error("index_add_(): Number of indices (1) should be equal to source.size(dim): (4), for dim: 2",
      function() z(4, 4):index_add_(2, torch.tensor { 1 }, torch.ones(1, 4)) end)
    assert_error("index_copy_(): When source is scalar, index should have one element (got 2)",
      function() z(4):index_copy_(1, torch.tensor { 1, 2 }, torch.tensor(1.0)) end)
    assert_error("index_copy_(): Index should have dimension 1 or 0 (got 2)",
      function() z(4, 4):index_copy_(2, torch.tensor { { 1 } }, torch.ones(4, 1)) end)
    assert_error("output with shape [4] doesn't match the broadcast shape [4, 4]",
      function() z(4, 4):index_add_(1, torch.tensor { 1 }, torch.ones(1, 4, 4)) end)
  end)

  it("broadcast an index_add_ source slice as PyTorch does", function()
    local t = z(4, 4):index_add_(1, torch.tensor { 1, 2, 3, 4 }, torch.arange(1.0, 5.0))
    assert.are.same({ 1.0, 1.0, 1.0, 1.0 }, t[1]:tolist())
    assert.are.same({ 4.0, 4.0, 4.0, 4.0 }, t[4]:tolist())
    t = z(4, 4):index_add_(1, torch.tensor { 1, 3 }, torch.tensor { { 1.0 }, { 2.0 } })
    assert.are.same({ { 1, 1, 1, 1 }, { 0, 0, 0, 0 }, { 2, 2, 2, 2 }, { 0, 0, 0, 0 } }, t:tolist())
    local s = torch.ones(2, 1, { requires_grad = true })
    z(4, 4):index_add(1, torch.tensor { 1, 2 }, s * 3):sum():backward()
    assert.are.same({ { 12.0 }, { 12.0 } }, s.grad:tolist())
  end)

  it("accept scalars and empty tensors", function()
    assert.are.same({ 0, 5, 0, 0 }, z(4):index_copy_(1, torch.tensor { 2 }, torch.tensor(5.0)):tolist())
    assert.are.equal(1.0, torch.tensor(0.0):index_copy_(1, torch.tensor { 1 }, torch.ones(1)):item())
    local h = torch.zeros(2, 0, 3, { dtype = torch.float16 })
    local r = h:index_copy(2, torch.tensor({}, { dtype = torch.int64 }), torch.zeros(2, 0, 3, { dtype = torch.float16 }))
    assert.are.same({ 2, 0, 3 }, r:size())
  end)
end)

describe("max_pool2d_with_indices_backward", function()
  it("refuses indices outside their plane, quoting them as written, with every plane on a thread", function()
    local x = torch.randn(8, 3, 4, 4)
    local v, i = torch.max_pool2d_with_indices(x, { 2, 2 })
    local g = torch.ones(v:size())
    for _, case in ipairs { { 17, "index 17" }, { 0, "index 0" }, { -20, "index -20" } } do
      local bad = i:clone()
      bad[8][3][2][2] = case[1] -- the last plane's last output: another thread's part
      assert.has_error(function()
        torch.max_pool2d_with_indices_backward(g, x, { 2, 2 }, { 2, 2 }, { 0, 0 }, { 1, 1 }, false, bad)
      end, "max_pool2d_with_indices_backward: " .. case[2] .. " is out of bounds for a plane of 16 elements")
    end
    -- the gradient of every maximum, each plane's in its own plane
    local gin = torch.max_pool2d_with_indices_backward(g, x, { 2, 2 }, { 2, 2 }, { 0, 0 }, { 1, 1 }, false, i)
    assert.are.equal(8 * 3 * 4, gin:sum():item())
    assert.is_true(torch.equal(gin:view(24, 16):sum(2), torch.full({ 24 }, 4.0)))
  end)
end)

describe("random_ bounds", function()
  it("terminates at the ends of int64's range", function()
    assert_error("random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype",
      function() torch.zeros(3):random_(math.maxinteger, nil) end)
    local x = torch.zeros(3):random_(math.mininteger, math.mininteger + 1)
    assert.are.equal(3, x:numel())
    assert.is_true(torch.zeros(3):random_(math.maxinteger):ge(0):all():item())
  end)

  it("refuses float16 bounds past its finite range", function()
    local h = function() return torch.zeros(3, { dtype = torch.float16 }) end
    assert_error("to - 1 is out of bounds for c10::Half", function() h():random_(70000) end)
    assert_error("to - 1 is out of bounds for c10::Half", function() h():random_(math.maxinteger) end)
    assert_error("from is out of bounds for c10::Half", function() h():random_(-70000, nil) end)
    assert.is_true(h():random_(100):lt(100):all():item())
  end)
end)
