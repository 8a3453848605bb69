-- Calling conventions PyTorch users bring: NumPy's keyword names (axis, keepdims, x2), and the
-- tuple forms of nonzero and where, which come back as a Lua list of 1-based position tensors.
local torch = require "mindtorch"

describe("calling", function()
  it("takes NumPy's axis and keepdims for dim and keepdim", function()
    local x = torch.arange(6.0):view(2, 3)
    assert.is_true(torch.sum(x, { axis = 2 }):equal(x:sum(2)))
    assert.is_true(x:mean({ axis = 1, keepdims = true }):equal(x:mean(1, true)))
    assert.is_true(torch.amax(x, { axis = { 1, 2 } }):equal(x:amax({ 1, 2 })))
    local ok, e = pcall(torch.sum, x, { axis = 1, dim = 1 })
    assert.is_false(ok)
    assert.truthy(tostring(e):find("sum()", 1, true))
  end)

  it("gives nonzero(x, {as_tuple = true}) as one position tensor per dim", function()
    local x = torch.tensor({ { 0, 3, 0 }, { 5, 0, 6 } })
    local t = torch.nonzero(x, { as_tuple = true })
    assert.are.equal(2, #t)
    assert.is_true(t[1]:equal(torch.tensor({ 1, 2, 2 })))
    assert.is_true(t[2]:equal(torch.tensor({ 2, 1, 3 })))
    assert.is_true(x[{ t[1], t[2] }]:equal(torch.tensor({ 3, 5, 6 })))
    assert.is_true(x:nonzero({ as_tuple = false }):equal(torch.nonzero(x)))
    local z = torch.nonzero(torch.tensor(7), { as_tuple = true })
    assert.is_true(#z == 1 and z[1]:equal(torch.tensor({ 1 })))
    local ok, e = pcall(torch.nonzero, x, { as_tuple = true, foo = 1 })
    assert.is_false(ok)
    assert.truthy(tostring(e):find("unexpected keyword argument 'foo'", 1, true))
  end)

  it("gives where(condition) as nonzero's tuple form", function()
    local c = torch.tensor({ true, false, true })
    local t = torch.where(c)
    assert.are.equal(1, #t)
    assert.is_true(t[1]:equal(torch.tensor({ 1, 3 })))
    assert.is_true(torch.where(c, torch.ones(3), torch.zeros(3)):equal(torch.tensor({ 1.0, 0.0, 1.0 })))
  end)
end)

describe("torch.get_file_path", function()
  it("joins components under the directory that holds the mindtorch package", function()
    local p = torch.get_file_path("mindtorch", "init.lua")
    assert.truthy(p:find("/mindtorch/init.lua$"))
    local f = assert(io.open(p))
    f:close()
    assert.has_error(function() torch.get_file_path(1) end)
  end)
end)

describe("saved_tensors_hooks", function()
  it("takes its two hooks with <close> as well as with a body", function()
    local packed, unpacked = 0, 0
    local x = torch.randn(3, { requires_grad = true })
    local y
    do
      local _ <close> = torch.autograd.graph.saved_tensors_hooks(
        function(t) packed = packed + 1; return t end, function(t) unpacked = unpacked + 1; return t end)
      y = (x * x):sum()
    end
    y:backward()
    assert.are.same({ 2, 2 }, { packed, unpacked })
    assert.is_true(x.grad:allclose(x * 2))
    local r = torch.autograd.graph.saved_tensors_hooks(function(t) return t end, function(t) return t end,
      function() return 42 end)
    assert.are.equal(42, r)
    assert.has_error(function() torch.autograd.graph.saved_tensors_hooks(function() end) end)
  end)

  it("says when a method was called with '.' instead of ':'", function()
    local x = torch.ones(2, 3)
    local ok, e = pcall(function() return x.view(3, 2) end)
    assert.is_false(ok)
    assert.truthy(tostring(e):find("called torch.Tensor.view with '.' - use ':' (x:view(...)): its first argument, "
      .. "integer, took the tensor's place", 1, true), tostring(e))
    ok, e = pcall(function() return x.sum() end)
    assert.truthy(tostring(e):find("called torch.Tensor.sum with '.' - use ':'", 1, true), tostring(e))
    -- x.add(y): y took the tensor's place and add got nothing: a hint after the usual error
    ok, e = pcall(function() return x.add(x) end)
    assert.truthy(tostring(e):find("add() received an invalid combination of arguments", 1, true), tostring(e))
    assert.truthy(tostring(e):find("(a method called with '.' takes its first argument as the tensor: for x.add(...) "
      .. "write x:add(...))", 1, true), tostring(e))
    -- a call with ':' and wrong arguments gets no hint
    ok, e = pcall(function() return x:view("a") end)
    assert.falsy(tostring(e):find("'.'", 1, true), tostring(e))
  end)

  it("reminds that class indices are 1-based when a target is out of bounds", function()
    local ok, e = pcall(torch.nn.functional.cross_entropy, torch.randn(2, 3), torch.tensor({ 0, 1 }))
    assert.is_false(ok)
    assert.are.equal("Target 0 is out of bounds. (Class indices are 1-based: 1 to 3.)", tostring(e))
    ok, e = pcall(torch.nn.functional.nll_loss, torch.randn(2, 3), torch.tensor({ 1, 4 }))
    assert.are.equal("Target 4 is out of bounds. (Class indices are 1-based: 1 to 3.)", tostring(e))
    -- uint8 targets (PyTorch takes Byte for (C) and (N, C) inputs): a 0 has no room for the
    -- int64 mark of a user's 0, and is still quoted as written
    ok, e = pcall(torch.nn.functional.nll_loss, torch.randn(2, 3), torch.tensor({ 0, 1 }, { dtype = torch.uint8 }))
    assert.are.equal("Target 0 is out of bounds. (Class indices are 1-based: 1 to 3.)", tostring(e))
    ok, e = pcall(torch.nn.functional.nll_loss, torch.randn(2, 3), torch.tensor({ 255, 1 }, { dtype = torch.uint8 }))
    assert.are.equal("Target 255 is out of bounds. (Class indices are 1-based: 1 to 3.)", tostring(e))
    local lp = torch.randn(3, 300):log_softmax(2)
    local big = torch.tensor({ 255, 1, 254 }, { dtype = torch.uint8 })
    assert.are.equal(torch.nn.functional.nll_loss(lp, big:long()):item(), torch.nn.functional.nll_loss(lp, big):item())
    -- a 0 given as ignore_index skips a uint8 target's 0 as it does an int64 one's
    local t0 = torch.tensor({ 2, 0, 3 })
    assert.are.equal(torch.nn.functional.nll_loss(lp, t0, { ignore_index = 0 }):item(),
      torch.nn.functional.nll_loss(lp, t0:byte(), { ignore_index = 0 }):item())
  end)
end)
