-- out=: PyTorch 1.13's rules for writing an op's results into given tensors (the core's
-- mt_call_op_out): casting, resizing, autograd, aliasing, devices, several results, factories.
local torch = require "mindtorch"

local function values(t) return t:tolist() end

describe("out=", function()
  it("writes the result into out and returns out itself", function()
    local x, y = torch.tensor({ 1, 2, 3 }, { dtype = torch.float32 }), torch.tensor({ 10, 20, 30 }, { dtype = torch.float32 })
    local out = torch.empty(3)
    local v0 = out._version
    assert.are.equal(out, torch.add(x, y, { out = out }))
    assert.are.same({ 11, 22, 33 }, values(out))
    assert.is_true(out._version > v0)
    assert.are.equal(out, x:mul(2, { out = out }))
    assert.are.same({ 2, 4, 6 }, values(out))
  end)

  it("casts the result to out's dtype when PyTorch can, and says why not otherwise", function()
    local i = torch.tensor({ 1, 2, 3 })
    local f = torch.empty(3, { dtype = torch.float64 })
    torch.add(i, i, { out = f })
    assert.are.equal(torch.float64, f.dtype)
    assert.are.same({ 2, 4, 6 }, values(f))
    local b = torch.empty(3)
    torch.eq(i, torch.tensor({ 1, 0, 3 }), { out = b })
    assert.are.same({ 1, 0, 1 }, values(b))
    assert.has_error(function() torch.add(torch.ones(3), 1, { out = torch.empty(3, { dtype = torch.int64 }) }) end,
      "result type Float can't be cast to the desired output type Long")
    assert.has_error(function() torch.neg(torch.ones(2), { out = torch.empty(2, { dtype = torch.bool }) }) end,
      "result type Float can't be cast to the desired output type Bool")
    assert.has_error(function()
      torch.mm(torch.ones(2, 2), torch.ones(2, 2), { out = torch.empty(2, 2, { dtype = torch.int32 }) })
    end, "result type Float can't be cast to the desired output type Int")
  end)

  it("resizes an out of another shape, empty or not", function()
    local x = torch.ones(2, 3)
    for _, out in ipairs({ torch.empty(0), torch.zeros(1), torch.zeros(7), torch.zeros(3, 2) }) do
      torch.add(x, 1, { out = out })
      assert.are.equal(torch.Size { 2, 3 }, out.shape)
      assert.are.same({ { 2, 2, 2 }, { 2, 2, 2 } }, values(out))
    end
    local s = torch.zeros(4)
    torch.sum(torch.ones(2, 3), { out = s })
    assert.are.equal(torch.Size {}, s.shape)
    assert.are.equal(6, s:item())
  end)

  it("writes through views: only the view's elements change", function()
    local base = torch.zeros(10)
    local x = torch.tensor({ 1, 2, 3, 4 }, { dtype = torch.float32 })
    torch.mul(x, 10, { out = base:narrow(1, 3, 4) })
    assert.are.same({ 0, 0, 10, 20, 30, 40, 0, 0, 0, 0 }, values(base))
    local t = torch.zeros(3, 2):t() -- not contiguous
    torch.add(torch.ones(2, 3), torch.arange(6):view(2, 3), { out = t })
    assert.are.same({ { 1, 2, 3 }, { 4, 5, 6 } }, values(t))
    local m = torch.zeros(20)
    torch.mm(torch.ones(3, 2), torch.ones(2, 3), { out = m:narrow(1, 2, 9):view(3, 3) })
    assert.are.same({ 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0 }, values(m:narrow(1, 1, 11)))
  end)

  it("writes an element-wise result straight into a dense out of another layout", function()
    -- large enough for the iterator's tiles (a transposed operand), small edges included
    local a, b = torch.randn(301, 259), torch.randn(259, 301)
    local want = a:t() + b
    for _, out in ipairs({ torch.zeros(259, 301), torch.zeros(301, 259):t() }) do
      local ptr, strides = out:data_ptr(), out:stride()
      assert.are.equal(out, torch.add(a:t(), b, { out = out }))
      assert.are.equal(ptr, out:data_ptr())
      assert.are.same(strides, out:stride())
      assert.is_true(torch.equal(want, out))
      torch.mul(b, a:t(), { out = out })
      assert.is_true(torch.equal(b * a:t(), out))
      torch.exp(a:t(), { out = out })
      assert.is_true(torch.equal(a:t():exp(), out))
    end
    -- a permuted 3-d out
    local x = torch.randn(4, 5, 6)
    local o = torch.zeros(6, 4, 5):permute(2, 3, 1)
    torch.sub(x, 1, { out = o })
    assert.are.same({ 5, 1, 20 }, o:stride())
    assert.is_true(torch.equal(x - 1, o))
    -- an out whose elements share memory is refused as before
    assert.has_error(function() torch.add(torch.ones(3), 1, { out = torch.zeros(1):expand(3) }) end,
      "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.")
  end)

  it("takes an out that is one of the inputs", function()
    local x = torch.tensor({ 1, 2, 3 }, { dtype = torch.float32 })
    local y = torch.tensor({ 10, 20, 30 }, { dtype = torch.float32 })
    assert.are.equal(x, torch.add(x, y, { out = x }))
    assert.are.same({ 11, 22, 33 }, values(x))
    torch.add(x, x, { out = x })
    assert.are.same({ 22, 44, 66 }, values(x))
    local a = torch.tensor({ { 1, 2 }, { 3, 4 } }, { dtype = torch.float32 })
    torch.mm(a, a, { out = a }) -- the product of the inputs as they were
    assert.are.same({ { 7, 10 }, { 15, 22 } }, values(a))
    local c = torch.tensor({ 1, 2, 3, 4 }, { dtype = torch.float32 })
    torch.cumsum(c:narrow(1, 1, 3), 1, { out = c:narrow(1, 2, 3) })
    assert.are.same({ 1, 1, 3, 6 }, values(c))
  end)

  it("refuses automatic differentiation as PyTorch does", function()
    local msg = "add(): functions with out=... arguments don't support automatic differentiation, " ..
      "but one of the arguments requires grad."
    local w = torch.ones(3, { requires_grad = true })
    assert.has_error(function() torch.add(w, 1, { out = torch.empty(3) }) end, msg)
    assert.has_error(function() torch.add(torch.ones(3), 1, { out = torch.empty(3, { requires_grad = true }) }) end, msg)
    assert.has_error(function() torch.sum(w, 1, { out = torch.empty(0) }) end,
      "sum(): functions with out=... arguments don't support automatic differentiation, " ..
      "but one of the arguments requires grad.")
    local out = torch.empty(3)
    torch.no_grad(function() torch.add(w, 1, { out = out }) end)
    assert.are.same({ 2, 2, 2 }, values(out))
    assert.is_false(out.requires_grad)
    -- ops without a derivative take inputs that require grad
    local b = torch.empty(3, { dtype = torch.bool })
    torch.eq(w, 1, { out = b })
    assert.are.same({ true, true, true }, values(b))
  end)

  it("wants out on the op's device", function()
    assert.has_error(function() torch.add(torch.ones(3), 1, { out = torch.empty(3, { device = "meta" }) }) end,
      "Expected all tensors to be on the same device, but found at least two devices, meta and cpu!")
    local m = torch.empty(0, { device = "meta" })
    torch.add(torch.ones(2, { device = "meta" }), 1, { out = m })
    assert.are.equal(torch.Size { 2 }, m.shape)
  end)

  it("checks what out is", function()
    assert.has_error(function() torch.add(torch.ones(2), 1, { out = 3 }) end,
      "add(): argument 'out' must be Tensor, not integer")
    assert.has_error(function() torch.ones(2):chunk(2, { out = torch.empty(2) }) end,
      "chunk() got an unexpected keyword argument 'out'")
    assert.has_error(function() torch.max(torch.ones(2, 2), 2, { out = torch.empty(0) }) end,
      "max(): argument 'out' must be tuple of Tensors, not Tensor")
    assert.has_error(function() torch.max(torch.ones(2, 2), 2, { out = { torch.empty(0) } }) end,
      "expected tuple of 2 elements but got 1")
  end)

  it("writes each of several results into its out, indices 1-based", function()
    local x = torch.tensor({ { 1, 5, 2 }, { 7, 3, 9 } }, { dtype = torch.float32 })
    local v, i = torch.empty(0), torch.empty(0, { dtype = torch.int64 })
    local rv, ri = torch.max(x, 2, { out = { v, i } })
    assert.are.equal(v, rv)
    assert.are.equal(i, ri)
    assert.are.same({ 5, 9 }, values(v))
    assert.are.same({ 2, 3 }, values(i))
    local a = torch.empty(2, { dtype = torch.int64 })
    assert.are.equal(a, torch.argmax(x, 2, { out = a }))
    assert.are.same({ 2, 3 }, values(a))
  end)

  it("gives a factory its dtype and device from out unless they are given", function()
    local z = torch.full({ 2, 2 }, 5, { dtype = torch.int32 })
    torch.zeros(3, { out = z })
    assert.are.equal(torch.int32, z.dtype)
    assert.are.same({ 0, 0, 0 }, values(z))
    local a = torch.empty(2)
    torch.arange(4, { out = a })
    assert.are.same({ 0, 1, 2, 3 }, values(a))
    local m = torch.empty(1, { device = "meta" })
    torch.ones(3, { out = m })
    assert.are.equal(torch.Size { 3 }, m.shape)
    assert.has_error(function() torch.zeros(3, { dtype = torch.float32, out = torch.empty(3, { dtype = torch.int64 }) }) end,
      "dtype Float does not match dtype of out parameter (Long)")
    assert.has_error(function() torch.zeros(3, { device = "cpu", out = torch.empty(3, { device = "meta" }) }) end,
      "device type cpu does not match device type of out parameter (meta)")
  end)

  it("works in pipeline mode", function()
    local x = torch.ones(4)
    local out = torch.empty(0)
    torch.pipeline(function()
      local y = torch.mul(x, 3)
      torch.add(y, 1, { out = out })
    end)
    assert.are.same({ 4, 4, 4, 4 }, values(out))
  end)
end)
