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

-- The ops whose results follow their input's layout, as PyTorch 1.13's CPU kernels give them (the
-- strides below are PyTorch's for the same calls), so a channels-last network stays channels-last.
describe("results in their input's memory format", function()
  local F = torch.nn.functional
  local x = torch.randn(2, 3, 5, 6)
  local xc = x:contiguous({ memory_format = cl })
  local function strides(t) return t:stride() end

  it("convolves channels-last input or weight into a channels-last result, the same values", function()
    local w = torch.randn(4, 3, 3, 3)
    local want = F.conv2d(x, w, nil, 1, 1)
    local y = F.conv2d(xc, w, nil, 1, 1)
    assert.are.same({ 120, 1, 24, 4 }, strides(y))
    assert.is_true(torch.equal(want, y))
    assert.are.same({ 120, 1, 24, 4 }, strides(F.conv2d(x, w:contiguous({ memory_format = cl }), nil, 1, 1)))
    assert.are.same({ 16, 1, 8, 4 }, strides(F.conv2d(xc, w, torch.randn(4), 2)))
    assert.are.same({ 48, 1, 16, 4 }, strides(F.conv2d(torch.randn(2, 4, 5, 6):contiguous({ memory_format = cl }),
      torch.randn(4, 1, 3, 3), nil, 1, 0, 1, 4)))
    -- PyTorch's transposed convolutions and one-channel inputs (either layout at once) stay contiguous
    assert.are.same({ 224, 56, 8, 1 }, strides(F.conv_transpose2d(xc, torch.randn(3, 4, 3, 3))))
    assert.are.same({ 48, 12, 4, 1 },
      strides(F.conv2d(torch.randn(2, 1, 5, 6):contiguous({ memory_format = cl }), torch.randn(4, 1, 3, 3))))
  end)

  it("reads the format from the strides as PyTorch's suggest_memory_format does", function()
    -- weights over one storage with the given strides; the result's layout says what was read
    local cases = { -- sizes, strides, the convolution's result's strides in PyTorch
      { { 4, 1, 3, 3 }, { 9, 1, 3, 1 }, { 36, 1, 12, 4 } },
      { { 4, 1, 3, 3 }, { 9, 1, 1, 3 }, { 36, 9, 3, 1 } },
      { { 4, 1, 3, 3 }, { 9, 9, 3, 1 }, { 36, 9, 3, 1 } },
      { { 4, 3, 1, 1 }, { 3, 1, 3, 3 }, { 100, 1, 20, 4 } },
      { { 4, 3, 1, 1 }, { 3, 1, 1, 1 }, { 100, 25, 5, 1 } },
      { { 2, 3, 1, 3 }, { 9, 1, 9, 3 }, { 30, 1, 6, 2 } },
      { { 4, 3, 3, 3 }, { 1, 36, 12, 4 }, { 36, 9, 3, 1 } },
    }
    for _, c in ipairs(cases) do
      local w = torch.randn(120):as_strided(c[1], c[2])
      local y = F.conv2d(torch.randn(1, c[1][2], 5, 5), w)
      assert.are.same(c[3], strides(y), table.concat(c[2], ","))
    end
  end)

  it("pools into the input's layout, indices too", function()
    local v, i = F.max_pool2d(xc, 2, nil, 0, 1, false, true)
    local v0, i0 = F.max_pool2d(x, 2, nil, 0, 1, false, true)
    assert.are.same({ 18, 1, 9, 3 }, strides(v))
    assert.are.same({ 18, 1, 9, 3 }, strides(i))
    assert.is_true(torch.equal(v0, v) and torch.equal(i0, i))
    assert.are.same({ 27, 1, 9, 3 }, strides(F.max_pool2d(xc, 2, nil, 0, 1, true)))
    assert.are.same({ 18, 1, 9, 3 }, strides(F.avg_pool2d(xc, 2)))
    assert.are.same({ 90, 1, 18, 3 }, strides(F.avg_pool2d(xc, 3, 1, 1)))
    assert.are.same({ 12, 1, 6, 3 }, strides(F.adaptive_avg_pool2d(xc, { 2, 2 })))
    assert.are.same({ 3, 1, 3, 3 }, strides(F.adaptive_avg_pool2d(xc, 1)))
    assert.are.same({ 3, 1, 1, 1 }, strides(F.adaptive_avg_pool2d(x, 1)))
    local av, ai = F.adaptive_max_pool2d(xc, { 2, 2 }, true)
    assert.are.same({ 12, 1, 6, 3 }, strides(av))
    assert.are.same({ 12, 1, 6, 3 }, strides(ai))
    local av0, ai0 = F.adaptive_max_pool2d(x, { 2, 2 }, true)
    assert.is_true(torch.equal(av0, av) and torch.equal(ai0, ai))
  end)

  it("concatenates channels-last tensors into one, mixed layouts into a contiguous one", function()
    assert.are.same({ 180, 1, 36, 6 }, strides(torch.cat({ xc, xc }, 2)))
    assert.are.same({ 90, 1, 18, 3 }, strides(torch.cat({ xc, xc }, 1)))
    assert.are.same({ 180, 30, 6, 1 }, strides(torch.cat({ xc, x }, 2)))
    assert.are.same({ 90, 30, 6, 1 }, strides(torch.cat({ torch.empty(0), xc }, 2)))
    assert.is_true(torch.equal(torch.cat({ x, x }, 2), torch.cat({ xc, xc }, 2)))
    assert.are.same({ 180, 90, 1, 18, 3 }, strides(torch.stack({ xc, xc })))
    assert.are.same({ 9, 3, 1 }, strides(torch.stack({ torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3) }, 2)))
    assert.is_true(torch.equal(torch.stack({ x, x }), torch.stack({ xc, xc })))
  end)

  it("interpolates, normalizes, pads and shuffles in PyTorch's layouts", function()
    assert.are.same({ 360, 1, 36, 3 }, strides(F.interpolate(xc, { scale_factor = 2 })))
    assert.are.same({ 360, 1, 36, 3 },
      strides(F.interpolate(xc, { scale_factor = 2, mode = "bilinear", align_corners = false })))
    assert.are.same({ 189, 1, 27, 3 }, strides(F.interpolate(xc, { size = { 7, 9 } })))
    assert.are.same({ 360, 120, 12, 1 },
      strides(F.interpolate(xc, { scale_factor = 2, mode = "bicubic", align_corners = false })))
    assert.is_true(torch.equal(F.interpolate(x, { scale_factor = 2, mode = "bilinear", align_corners = false }),
      F.interpolate(xc, { scale_factor = 2, mode = "bilinear", align_corners = false })))
    assert.are.same({ 90, 1, 18, 3 }, strides(F.group_norm(xc, 1)))
    assert.are.same({ 90, 30, 6, 1 }, strides(F.layer_norm(xc, { 6 })))
    assert.are.same({ 168, 1, 24, 3 }, strides(F.pad(xc, { 1, 1, 1, 1 })))
    assert.are.same({ 224, 1, 32, 4 }, strides(F.pad(torch.randn(2, 4, 5, 6):contiguous({ memory_format = cl }),
      { 1, 1, 1, 1 }, "constant", 2.0)))
    assert.is_true(torch.equal(F.pad(x, { 1, 1, -1, 2 }, "constant", 3), F.pad(xc, { 1, 1, -1, 2 }, "constant", 3)))
    assert.are.same({ 168, 56, 8, 1 }, strides(F.pad(xc, { 1, 1, 1, 1 }, "reflect")))
    local p = torch.randn(1, 4, 2, 2)
    assert.are.same({ 16, 1, 4, 1 }, strides(F.pixel_shuffle(p:contiguous({ memory_format = cl }), 2)))
    assert.is_true(torch.equal(F.pixel_shuffle(p, 2), F.pixel_shuffle(p:contiguous({ memory_format = cl }), 2)))
    assert.are.same({ 32, 1, 16, 8 },
      strides(F.pixel_unshuffle(torch.randn(2, 2, 4, 4):contiguous({ memory_format = cl }), 2)))
    assert.are.same({ 36, 1, 12, 4 },
      strides(F.channel_shuffle(torch.randn(2, 4, 3, 3):contiguous({ memory_format = cl }), 2)))
  end)

  it("keeps or drops a permuted input's layout as PyTorch's ops do", function()
    local p = torch.randn(3, 4, 5):permute(3, 1, 2) -- (5, 3, 4), strides (1, 20, 5)
    local i1 = torch.ones(5, 1, 4, { dtype = torch.int64 })
    local one = torch.tensor({ 1 }, { dtype = torch.int64 })
    local v, i = p:sort(2)
    assert.are.same({ 1, 20, 5 }, strides(v))
    assert.are.same({ 1, 20, 5 }, strides(i))
    assert.is_true(torch.equal(v, (p:contiguous():sort(2))))
    assert.are.same({ 1, 20, 5 }, strides(p:argsort(2)))
    assert.are.same({ 3, 1 }, strides((torch.randn(5, 6)[{ {}, { 1, -1, 2 } }]:sort(2)))) -- not dense: contiguous
    assert.are.same({ 1, 20, 5 }, strides(p:nan_to_num()))
    assert.are.same({ 1, 20, 5 }, strides(p:index_put({ one }, torch.tensor(1.0))))
    for name, r in pairs {
      scatter = p:scatter(2, i1, 1.0),
      scatter_add = p:scatter_add(2, i1, torch.ones(5, 1, 4)),
      index_add = p:index_add(2, one, torch.ones(5, 1, 4)),
      index_copy = p:index_copy(2, one, torch.ones(5, 1, 4)),
      bernoulli = torch.bernoulli(p:sigmoid()),
      bernoulli_p = p:bernoulli(0.5),
      masked_fill = p:masked_fill(p:gt(0), 0),
    } do
      assert.are.same({ 12, 4, 1 }, strides(r), name)
    end
    assert.is_true(torch.equal(p:scatter(2, i1, 1.0), p:contiguous():scatter(2, i1, 1.0)))
  end)

  it("gives input gradients in the forward's layout: convolution and pooling", function()
    local seen = {}
    local function probe(name, t)
      local r = torch.relu(t)
      r:register_hook(function(g) seen[name] = g:stride() end)
      return r
    end
    local xg = xc:clone():requires_grad_()
    local wg = torch.randn(4, 3, 3, 3):requires_grad_() -- saves the input, whose layout decides
    F.conv2d(probe("conv", xg), wg, nil, 1, 1):sum():backward()
    F.conv2d(probe("conv_wcl", x:clone():requires_grad_()), torch.randn(4, 3, 3, 3):contiguous({ memory_format = cl }),
      nil, 1, 1):sum():backward()
    F.conv2d(probe("conv_plain", x:clone():requires_grad_()), wg, nil, 1, 1):sum():backward()
    local x6 = torch.randn(2, 3, 6, 6):contiguous({ memory_format = cl }):requires_grad_()
    F.max_pool2d(probe("max_pool", x6), 2):sum():backward()
    F.avg_pool2d(probe("avg_pool", x6), 2):sum():backward()
    F.adaptive_avg_pool2d(probe("adaptive", x6), { 2, 2 }):sum():backward()
    assert.are.same({ 90, 1, 18, 3 }, seen.conv) -- PyTorch's strides, each
    assert.are.same({ 90, 1, 18, 3 }, seen.conv_wcl)
    assert.are.same({ 90, 30, 6, 1 }, seen.conv_plain)
    assert.are.same({ 108, 1, 18, 3 }, seen.max_pool)
    assert.are.same({ 108, 1, 18, 3 }, seen.avg_pool)
    assert.are.same({ 108, 1, 18, 3 }, seen.adaptive)
    local plain = x6:detach():contiguous():requires_grad_()
    local go = torch.randn(2, 3, 3, 3)
    assert.is_true(torch.equal(torch.autograd.grad(F.max_pool2d(plain, 2), { plain }, go)[1],
      torch.autograd.grad(F.max_pool2d(x6, 2), { x6 }, go)[1]))
  end)

  it("trains a channels-last network to the contiguous one's values", function()
    local function net()
      torch.manual_seed(3)
      return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, { padding = 1 }), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 4, 1), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
        torch.nn.Linear(4, 2))
    end
    local input, target = torch.randn(4, 3, 8, 8), torch.tensor({ 1, 2, 2, 1 })
    local function step(m, xin)
      local out = m(xin)
      local loss = F.cross_entropy(out, target)
      loss:backward()
      return loss, m[1].weight.grad
    end
    local plain, last = net(), net():to({ memory_format = cl })
    local feat = input:contiguous({ memory_format = cl })
    for i = 1, 4 do feat = last[i](feat) end
    assert.are.same({ 128, 1, 32, 8 }, strides(feat)) -- every layer kept the layout
    local l1, g1 = step(plain, input)
    local l2, g2 = step(last, input:contiguous({ memory_format = cl }))
    assert.is_true(torch.allclose(l1, l2, 1e-6, 1e-6))
    assert.is_true(torch.allclose(g1, g2, 1e-5, 1e-6))
    assert.are.same({ 27, 1, 9, 3 }, strides(g2)) -- the weight's gradient in the weight's layout
  end)

  it("is differentiable through channels-last convolution and pooling (gradcheck)", function()
    local xd = torch.randn(1, 2, 4, 4, { dtype = torch.float64 }):contiguous({ memory_format = cl }):requires_grad_()
    local wd = torch.randn(3, 2, 3, 3, { dtype = torch.float64 }):requires_grad_()
    assert.is_true(torch.autograd.gradcheck(function(a, b)
      return F.max_pool2d(F.conv2d(a, b, nil, 1, 1), 2)
    end, { xd, wd }))
    assert.is_true(torch.autograd.gradcheck(function(a) return F.adaptive_avg_pool2d(a, 1) end, { xd }))
    assert.is_true(torch.autograd.gradcheck(function(a) return torch.cat({ a, a * 2 }, 2) end, { xd }))
  end)
end)
