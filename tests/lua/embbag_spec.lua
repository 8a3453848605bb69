-- Lua-side behaviour of nn/embedding_bag.lua and nn/local_response_norm.lua (PyTorch's values are in
-- tests/contract/embbag_spec.lua): options tables, names refused, mindtorch's own errors (bad
-- indices and offsets, sparse), gradients against gradcheck, torch.* names reachable before nn.
local torch = require "mindtorch"
local nn = torch.nn
local F = nn.functional
local D = torch.float64

local function close(a, b, tol) return torch.allclose(a, b, { rtol = 0, atol = tol or 1e-12 }) end
local function err(fn)
  local ok, e = pcall(fn)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^:\n]*:%d+: ", ""))
end

local IDX = torch.tensor({ 1, 3, 3, 5, 4, 2, 3, 1 })
local OFFS = torch.tensor({ 1, 4, 4, 6 })
local function weight() return (torch.arange(15, { dtype = D }):reshape(5, 3) * 0.37):sin():requires_grad_() end

describe("embedding_bag", function()
  it("takes its arguments positionally or in an options table", function()
    local w = weight()
    assert.is_true(close(F.embedding_bag(IDX, w, OFFS, nil, 2.0, false, "max"),
      F.embedding_bag(IDX, w, { offsets = OFFS, mode = "max" })))
    local m = nn.EmbeddingBag(5, 3, { mode = "sum", _weight = w:detach() })
    local p = torch.rand(8, { dtype = D })
    assert.is_true(close(m(IDX, OFFS, p), m(IDX, { offsets = OFFS, per_sample_weights = p })))
    assert.is_true(close(m(IDX, OFFS, p), F.embedding_bag(IDX, w, OFFS, { mode = "sum", per_sample_weights = p })))
    local out = { torch.embedding_bag(w, IDX, OFFS, { mode = 2 }) }
    assert.are.equal(4, #out)
    assert.is_true(close(out[1], F.embedding_bag(IDX, w, OFFS, { mode = "max" })))
  end)

  it("refuses unknown names with Python's words", function()
    assert.has_error(function() F.embedding_bag(IDX, weight(), { ofsets = OFFS }) end,
      "embedding_bag() got an unexpected keyword argument 'ofsets'")
    assert.has_error(function() nn.EmbeddingBag(5, 3, { mdoe = "sum" }) end,
      "__init__() got an unexpected keyword argument 'mdoe'")
    assert.has_error(function() nn.EmbeddingBag(5) end,
      "EmbeddingBag.__init__() missing 1 required positional argument: 'embedding_dim'")
  end)

  it("says what is wrong with indices, offsets, weight and sparse", function()
    local w = weight()
    assert.are.equal("embedding_bag: index 3 of input is out of bounds: 6, range 1 to 5",
      err(function() return F.embedding_bag(torch.tensor({ 1, 2, 6 }), w, torch.tensor({ 1 })) end))
    assert.are.equal("embedding_bag: index 1 of input is out of bounds: 0, range 1 to 5",
      err(function() return F.embedding_bag(torch.tensor({ 0, 2 }), w, torch.tensor({ 1 })) end))
    assert.are.equal("offsets has to be non-decreasing, but got offsets[3] = 3 after offsets[2] = 5",
      err(function() return F.embedding_bag(IDX, w, torch.tensor({ 1, 5, 3 })) end))
    assert.are.equal("embedding_bag: sparse=true is not supported (mindtorch has no sparse tensors)",
      err(function() return F.embedding_bag(IDX, w, OFFS, { sparse = true }) end))
    assert.are.equal("EmbeddingBag: sparse=true is not supported (mindtorch has no sparse tensors)",
      err(function() return nn.EmbeddingBag(5, 3, { sparse = true }) end))
    assert.are.equal("padding_idx must be within the number of embeddings, -5 through 5, but got 0",
      err(function() return F.embedding_bag(IDX, w, OFFS, { padding_idx = 0 }) end))
    assert.are.equal("padding_idx must be within num_embeddings",
      err(function() return nn.EmbeddingBag(5, 3, { padding_idx = 0 }) end))
    assert.are.equal("embedding_bag: mode has to be 0 (sum), 1 (mean) or 2 (max), but got 3",
      err(function() return torch.embedding_bag(w, IDX, OFFS, false, 3) end))
    assert.matches("^Expected tensor for argument #1 'weight' to have one of the following scalar types",
      err(function() return F.embedding_bag(IDX, torch.ones(5, 3, { dtype = torch.int64 }), OFFS) end))
    assert.are.equal("embedding_bag(): argument 'weight' (position 2) must be Tensor, not list",
      err(function() return F.embedding_bag(IDX, { 1, 2 }, OFFS) end))
    assert.are.equal("offsets has to be a 1D Tensor",
      err(function() return torch.embedding_bag(w, IDX, OFFS:view(2, 2)) end))
  end)

  it("gives max mode's gradient to the first of equal maxima, and none to empty bags", function()
    local w = torch.tensor({ { 1.0, 5.0 }, { 1.0, 2.0 }, { 0.0, 5.0 } }, { dtype = D }):requires_grad_()
    local out, _, _, mx = torch.embedding_bag(w, torch.tensor({ 2, 1, 3 }), torch.tensor({ 1, 4 }), false, 2)
    assert.are.same({ { 2, 1 }, { 1, 1 } }, mx:tolist())
    out:sum():backward()
    assert.are.same({ { 0, 1 }, { 1, 0 }, { 0, 0 } }, w.grad:tolist())
  end)

  it("passes gradcheck in sum and mean modes with per_sample_weights and padding", function()
    local p = torch.rand(8, { dtype = D }):requires_grad_()
    assert.is_true(torch.autograd.gradcheck(function(w, ps)
      return F.embedding_bag(IDX, w, OFFS, { mode = "sum", per_sample_weights = ps, padding_idx = 3 })
    end, { weight(), p }))
    assert.is_true(torch.autograd.gradcheck(function(w)
      return F.embedding_bag(IDX, w, OFFS, { padding_idx = -1 })
    end, { weight() }))
  end)

  it("reset_parameters zeroes the padding row; the state_dict loads by name", function()
    torch.manual_seed(1)
    local m = nn.EmbeddingBag(5, 3, { padding_idx = 2, dtype = D })
    assert.are.same({ 0, 0, 0 }, m.weight[2]:tolist())
    assert.are.equal(torch.float64, m.weight.dtype)
    local m2 = nn.EmbeddingBag(5, 3, { padding_idx = 2, dtype = D })
    m2:load_state_dict(m:state_dict())
    assert.is_true(close(m2.weight, m.weight, 0))
  end)
end)

describe("local response norm", function()
  it("passes gradcheck (LocalResponseNorm); CrossMapLRN2d's forward equals it for odd sizes", function()
    local x = torch.randn(2, 5, 2, 2, { dtype = D }):requires_grad_()
    assert.is_true(torch.autograd.gradcheck(function(t) return F.local_response_norm(t, 3, 0.5, 0.7, 1.2) end, { x }))
    -- the legacy form keeps channel 1 in every window: equal where windows do not reach past it
    local a = nn.LocalResponseNorm(3, 0.5, 0.7, 1.2)(x)
    local b = nn.CrossMapLRN2d(3, 0.5, 0.7, 1.2)(x)
    assert.is_true(close(a:narrow(2, 1, 2), b:narrow(2, 1, 2)))
  end)

  it("refuses bad sizes and inputs", function()
    assert.are.equal("size must be a positive integer, got 0",
      err(function() return F.local_response_norm(torch.ones(1, 2, 3), 0) end))
    assert.are.equal("CrossMapLRN2d: expected a 4-D input, but got Tensor of dimension 3",
      err(function() return nn.CrossMapLRN2d(3)(torch.ones(1, 2, 3)) end))
    assert.has_error(function() nn.LocalResponseNorm(3, { aplha = 1 }) end,
      "__init__() got an unexpected keyword argument 'aplha'")
    assert.are.equal("LocalResponseNorm(2, alpha=0.5, beta=0.75, k=1.0)",
      tostring(nn.LocalResponseNorm(2, { alpha = 0.5 })))
  end)

  it("returns an empty input as it is", function()
    local x = torch.ones(0, 3, 2)
    assert.are.equal(x, F.local_response_norm(x, 2))
  end)
end)

describe("torch.* defined by nn", function()
  it("are there before torch.nn is first used", function()
    local luamt = (os.getenv("BUILD") or "build") .. "/luamt"
    local p = io.popen(luamt .. [[ -e 'local t = require "mindtorch"
      print(rawget(t, "nn") == nil, type(t.ctc_loss), type(t.embedding_bag))' 2>&1]])
    local out = p:read("a")
    p:close()
    assert.are.equal("true\tfunction\tfunction\n", out)
  end)
end)
