-- Memory formats: torch.channels_last and channels_last_3d in clone, contiguous, is_contiguous,
-- to, empty, the *_like factories and nn.Module:to. Expected strides and error texts are
-- PyTorch 1.13's for the same calls.
local torch = require "mindtorch"
local cl, cl3d = torch.channels_last, torch.channels_last_3d

local function err(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

describe("memory formats", function()
  local x = torch.randn(2, 3, 4, 5)

  it("lays out a copy channels last, with the same values", function()
    local y = x:contiguous({ memory_format = cl })
    assert.are.same({ 60, 1, 15, 3 }, y:stride())
    assert.is_true(torch.equal(x, y))
    assert.is_false(y:is_contiguous())
    assert.is_true(y:is_contiguous({ memory_format = cl }))
    assert.is_false(x:is_contiguous({ memory_format = cl }))
    assert.are.same({ 60, 20, 5, 1 }, y:contiguous():stride())
    assert.are.equal(y, y:contiguous({ memory_format = cl })) -- already laid out: itself
    assert.are.same({ 60, 1, 15, 3 }, x:clone({ memory_format = cl }):stride())
    assert.are.same({ 60, 1, 15, 3 }, y:clone():stride()) -- preserve_format keeps it
    assert.are.same({ 360, 1, 90, 18, 3 }, torch.randn(2, 3, 4, 5, 6):contiguous({ memory_format = cl3d }):stride())
    local strided = torch.randn(2, 3, 4, 5)[{ {}, {}, { 1, -1, 2 } }]
    assert.are.same({ 30, 1, 15, 3 }, strided:contiguous({ memory_format = cl }):stride())
    assert.is_true(torch.equal(strided, strided:contiguous({ memory_format = cl })))
  end)

  it("checks contiguity as PyTorch does: size-1 dims take any stride, empty tensors no exception", function()
    assert.is_true(torch.randn(1, 3, 1, 1):is_contiguous({ memory_format = cl }))
    assert.is_true(torch.randn(2, 1, 4, 5):is_contiguous({ memory_format = cl }))
    assert.is_false(torch.empty(2, 0, 4, 5):is_contiguous({ memory_format = cl }))
    assert.is_false(torch.randn(2, 3, 4):is_contiguous({ memory_format = cl }))
    assert.is_false(torch.randn(2, 3, 4, 5, 6):is_contiguous({ memory_format = cl3d }))
    assert.is_true(torch.randn(2, 3):is_contiguous({ memory_format = torch.preserve_format }))
    local e = torch.empty(2, 0, 4, 5, { memory_format = cl })
    assert.are.same({ 0, 1, 0, 0 }, e:stride())
    assert.is_true(e:is_contiguous())
    assert.is_true(e:is_contiguous({ memory_format = cl }))
  end)

  it("makes new tensors in a format: empty, the *_like factories", function()
    assert.are.same({ 60, 1, 15, 3 }, torch.empty(2, 3, 4, 5, { memory_format = cl }):stride())
    assert.are.same({ 0, 1, 15, 3 }, torch.empty(2, 3, 0, 5, { memory_format = cl }):stride())
    assert.are.same({ 3, 1 }, torch.empty(2, 3, { memory_format = torch.contiguous_format }):stride())
    local y = x:contiguous({ memory_format = cl })
    for _, f in ipairs({ torch.empty_like, torch.zeros_like, torch.ones_like, torch.rand_like, torch.randn_like }) do
      assert.are.same({ 60, 1, 15, 3 }, f(x, { memory_format = cl }):stride())
      assert.are.same({ 60, 1, 15, 3 }, f(y):stride())
      assert.are.same({ 60, 20, 5, 1 }, f(y, { memory_format = torch.contiguous_format }):stride())
    end
    local f = torch.full_like(x, 2, { memory_format = cl })
    assert.are.same({ 60, 1, 15, 3 }, f:stride())
    assert.are.equal(240, f:sum():item())
    assert.are.equal(0, torch.zeros_like(x, { memory_format = cl }):abs():sum():item())
  end)

  it("converts with to(), itself when nothing changes", function()
    local y = x:contiguous({ memory_format = cl })
    local d = x:to(torch.float64, { memory_format = cl })
    assert.are.same({ 60, 1, 15, 3 }, d:stride())
    assert.is_true(torch.equal(x:double(), d))
    assert.are.same({ 60, 1, 15, 3 }, y:to(torch.float64):stride())
    assert.are.same({ 60, 20, 5, 1 }, y:to({ memory_format = torch.contiguous_format }):stride())
    assert.are.equal(y, y:to({ memory_format = cl }))
    assert.are.equal(x, x:to({ memory_format = torch.contiguous_format }))
    assert.are_not.equal(x, x:to({ memory_format = torch.contiguous_format, copy = true }))
    assert.are.same({ 60, 1, 15, 3 }, x:to(x, { memory_format = cl }):stride())
  end)

  it("is differentiable: clone and to_copy", function()
    local a = torch.randn(2, 3, 4, 5, { dtype = torch.float64, requires_grad = true })
    local c = a:contiguous({ memory_format = cl })
    assert.are.equal("CloneBackward0", c.grad_fn:name())
    assert.are.equal("ToCopyBackward0", a:to({ memory_format = cl }).grad_fn:name())
    local w = torch.randn(2, 3, 4, 5, { dtype = torch.float64 })
    ;(c * w):sum():backward()
    assert.is_true(torch.equal(w, a.grad))
    assert.is_true(torch.autograd.gradcheck(function(t) return t:to({ memory_format = cl }) * 2 end, { a }))
  end)

  it("refuses a rank the format does not fit, and what is no format, in PyTorch's words", function()
    assert.are.equal("required rank 4 tensor to use channels_last format",
      err(function() return torch.randn(2, 3, 4):contiguous({ memory_format = cl }) end))
    assert.are.equal("required rank 4 tensor to use channels_last format",
      err(torch.empty, 2, 3, { memory_format = cl }))
    assert.are.equal("required rank 5 tensor to use channels_last_3d format",
      err(function() return x:contiguous({ memory_format = cl3d }) end))
    assert.are.equal("required rank 4 tensor to use channels_last format",
      err(function() return torch.randn(3, 4):to({ memory_format = cl }) end))
    assert.are.equal("required rank 4 tensor to use channels_last format",
      err(torch.empty_like, torch.randn(3, 4), { memory_format = cl }))
    assert.are.equal("unsupported memory format Preserve",
      err(torch.empty, 2, 3, { memory_format = torch.preserve_format }))
    assert.are.equal("is_contiguous(): argument 'memory_format' must be torch.memory_format, not integer",
      err(x.is_contiguous, x, { memory_format = 1 }))
    assert.are.equal("is_contiguous(): argument 'memory_format' must be torch.memory_format, not string",
      err(x.is_contiguous, x, { memory_format = "channels_first" }))
    assert.are.equal("is_contiguous() takes 0 positional arguments but 1 was given", err(x.is_contiguous, x, cl))
    assert.are.equal("is_contiguous() got an unexpected keyword argument 'foo'", err(x.is_contiguous, x, { foo = 1 }))
    assert.are.equal("clone(): argument 'memory_format' must be torch.memory_format, not integer",
      err(x.clone, x, { memory_format = 1 }))
  end)

  it("restrides with resize_ and resize_as_ when a format is given, even to the same sizes", function()
    assert.are.same({ 60, 1, 15, 3 }, torch.randn(2, 3, 4, 5):resize_({ 2, 3, 4, 5 }, { memory_format = cl }):stride())
    assert.are.same({ 60, 1, 15, 3 }, torch.randn(3):resize_({ 2, 3, 4, 5 }, { memory_format = cl }):stride())
    assert.are.same({ 0, 1, 0, 0 }, torch.empty(0):resize_({ 2, 0, 4, 5 }, { memory_format = cl }):stride())
    local y = torch.randn(2, 3, 4, 5):contiguous({ memory_format = cl })
    assert.are.same({ 60, 1, 15, 3 }, y:resize_({ 2, 3, 4, 5 }):stride()) -- same sizes, no format: kept
    assert.are.same({ 72, 24, 6, 1 }, y:resize_({ 2, 3, 4, 6 }):stride())
    assert.are.same({ 60, 20, 5, 1 }, y:resize_({ 2, 3, 4, 5 }, { memory_format = torch.contiguous_format }):stride())
    local template = torch.empty(2, 3, 4, 5, { memory_format = cl })
    assert.are.same({ 60, 20, 5, 1 }, torch.randn(2, 3, 4, 5):resize_as_(template):stride())
    assert.are.same({ 60, 1, 15, 3 },
      torch.randn(2, 3, 4, 5):resize_as_(torch.empty(2, 3, 4, 5), { memory_format = cl }):stride())
    local t = torch.randn(3)
    assert.are.equal("required rank 4 tensor to use channels_last format",
      err(function() return t:resize_({ 2, 3 }, { memory_format = cl }) end))
    assert.are.same({ 3 }, t.shape) -- refused before anything changed
    assert.are.equal("Unsupported memory formatPreserve",
      err(function() return t:resize_({ 3 }, { memory_format = torch.preserve_format }) end))
  end)

  it("lays out a module's 4-D and 5-D tensors with Module:to, the rest as they were", function()
    local m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.Linear(3, 4))
    m:to({ memory_format = cl })
    assert.are.same({ 27, 1, 9, 3 }, m[1].weight:stride())
    assert.are.same({ 1 }, m[1].bias:stride())
    assert.are.same({ 3, 1 }, m[2].weight:stride())
    m:to(torch.float64, { memory_format = torch.contiguous_format })
    assert.are.same({ 27, 9, 3, 1 }, m[1].weight:stride())
    assert.are.equal(torch.float64, m[2].weight.dtype)
    local out = m[1](torch.randn(2, 3, 5, 5, { dtype = torch.float64 }):contiguous({ memory_format = cl }))
    assert.are.same({ 2, 4, 3, 3 }, out.shape)
  end)
end)
