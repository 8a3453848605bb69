-- Lua-side behaviour of nn/activation.lua and nn/loss.lua (PyTorch's values are in
-- tests/contract/nn_actloss_spec.lua): options tables, names refused, 1-based classes and
-- blank, the CTC gradient against gradcheck, group_norm by name, Sequential subclasses.
local torch = require "mindtorch"
local nn = torch.nn
local F = nn.functional
local D = torch.float64

local function close(a, b, tol) return torch.allclose(a, b, { rtol = 0, atol = tol or 1e-12 }) end

describe("activations", function()
  it("take their arguments positionally or in an options table", function()
    local x = torch.linspace(-3, 3, 12, { dtype = D }):reshape(3, 4)
    assert.is_true(close(F.celu(x, 0.5), F.celu(x, { alpha = 0.5 })))
    assert.is_true(close(F.rrelu(x, 0.1, 0.3), F.rrelu(x, { lower = 0.1, upper = 0.3 })))
    assert.is_true(close(F.glu(x, 2), F.glu(x, { dim = 2 })))
    assert.is_true(close(F.normalize(x, 1.0, 1), F.normalize(x, { p = 1.0, dim = 1 })))
    assert.are.equal(0.5, nn.CELU({ alpha = 0.5 }).alpha)
    assert.are.equal(3, nn.PReLU({ num_parameters = 3 }).weight:numel())
    assert.are.equal("Threshold(threshold=0.5, value=2.0, inplace=True)",
      tostring(nn.Threshold(0.5, 2.0, { inplace = true })))
  end)

  it("refuse unknown names with Python's words", function()
    local x = torch.randn(3, 4)
    assert.has_error(function() F.softmin(x, { dim = 1, dtpye = D }) end,
      "softmin() got an unexpected keyword argument 'dtpye'")
    assert.has_error(function() F.celu(x, { alhpa = 1 }) end, "celu() got an unexpected keyword argument 'alhpa'")
    assert.has_error(function() nn.Hardshrink({ lambda = 1 }) end,
      "__init__() got an unexpected keyword argument 'lambda'")
    assert.has_error(function() F.dropout2d(x, { pp = 0.1 }) end, "dropout2d() got an unexpected keyword argument 'pp'")
  end)

  it("softmax, log_softmax and softmin take dim and dtype by name", function()
    local x = torch.randn(3, 4)
    assert.is_true(torch.equal(F.softmax(x, { dim = -1 }), x:softmax(-1)))
    assert.is_true(torch.equal(F.log_softmax(x, { dim = 1 }), x:log_softmax(1)))
    assert.is_true(torch.equal(F.softmin(x, { dim = 2 }), (-x):softmax(2)))
    assert.are.equal(D, F.softmax(x, { dim = 2, dtype = D }).dtype)
    -- no dim: PyTorch's implicit choice (dim 2 of a 2-D input, with a warning)
    assert.is_true(torch.equal(F.softmin(x), (-x):softmax(2)))
  end)

  it("in-place forms write into their input", function()
    local x = torch.tensor({ -2.0, -0.5, 0.5, 4.0 })
    local y = F.hardswish(x, true)
    assert.is_true(rawequal(x, y))
    assert.is_true(close(x, torch.tensor({ -2.0 * 1 / 6, -0.5 * 2.5 / 6, 0.5 * 3.5 / 6, 4.0 }), 1e-6))
    local z = torch.tensor({ -1.0, 1.0 })
    F.celu_(z)
    assert.is_true(close(z, torch.tensor({ math.exp(-1) - 1, 1.0 }), 1e-6))
  end)

  it("PReLU's weight is a parameter, filled with init", function()
    local m = nn.PReLU(2, 0.3)
    assert.are.equal(1, #m:parameters())
    assert.is_true(torch.equal(m.weight:detach(), torch.full({ 2 }, 0.3)))
  end)
end)

describe("losses", function()
  it("take class targets 1-based (multi_margin, multilabel_margin with 0 or -1 as the end)", function()
    local x = torch.randn(2, 4, { dtype = D })
    local a = F.multilabel_margin_loss(x, torch.tensor({ { 4, 1, 0, 2 }, { 2, 0, 0, 0 } }))
    local b = F.multilabel_margin_loss(x, torch.tensor({ { 4, 1, -1, 3 }, { 2, -1, 4, 4 } }))
    assert.is_true(close(a, b))
    assert.has_error(function() F.multi_margin_loss(x, torch.tensor({ 0, 2 })) end, "target out of range")
  end)

  it("nll_loss runs PyTorch's nodes, refuses a weight that requires grad, and treats ignore_index as a class", function()
    local x = torch.randn(4, 3, { requires_grad = true, dtype = D })
    local t = torch.tensor({ 1, 3, 2, 3 })
    local loss = F.cross_entropy(x, t)
    assert.are.equal("NllLossBackward0", loss.grad_fn:name())
    assert.are.equal("LogSoftmaxBackward0", loss.grad_fn.next_functions[1][1]:name())
    assert.are.equal("NllLoss2DBackward0", F.nll_loss(torch.randn(2, 3, 2, 2, { requires_grad = true }),
      torch.ones(2, 2, 2, { dtype = torch.int64 })).grad_fn:name())
    -- by hand: the mean of -x[i, t_i] over the kept rows
    local lp = x:detach():log_softmax(2)
    local want = -(lp[1][1] + lp[2][3] + lp[3][2] + lp[4][3]) / 4
    assert.is_true(close(loss:detach(), want))
    -- class 3 ignored: rows 2 and 4 drop out of the mean
    local kept = F.nll_loss(lp, t, { ignore_index = 3 })
    assert.is_true(close(kept, -(lp[1][1] + lp[3][2]) / 2))
    local w = torch.ones(3, { dtype = D, requires_grad = true })
    local ok, e = pcall(F.nll_loss, lp, t, { weight = w })
    assert.is_false(ok)
    assert.are.equal("The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'. "
      .. "This input cannot have requires_grad True.", tostring(e))
    assert.is_true(close(torch.no_grad(function() return F.nll_loss(lp, t, { weight = w }) end), F.nll_loss(lp, t)))
    ok, e = pcall(F.nll_loss, lp, t, { reduction = "avg" })
    assert.are.equal("avg is not a valid value for reduction", tostring(e))
  end)

  it("ctc_loss: blank 1 by default, 1-based labels, lists or tensors of lengths", function()
    torch.manual_seed(0)
    local lp = torch.randn(8, 2, 4, { dtype = D }):log_softmax(3)
    local tg = torch.tensor({ { 2, 3, 3 }, { 4, 2, 1 } })
    local a = F.ctc_loss(lp, tg, { 8, 7 }, { 3, 2 })
    local b = F.ctc_loss(lp, tg, torch.tensor({ 8, 7 }), torch.tensor({ 3, 2 }), { blank = 1 })
    assert.is_true(close(a, b))
    -- the same loss with the blank moved to class 4 and labels renamed
    local perm = torch.tensor({ 4, 2, 3, 1 })
    local lp2 = lp:index_select(3, perm)
    local tg2 = torch.tensor({ { 2, 3, 3 }, { 1, 2, 1 } })
    assert.is_true(close(a, F.ctc_loss(lp2, tg2, { 8, 7 }, { 3, 2 }, { blank = 4 }), 1e-10))
  end)

  it("ctc_loss's gradient through log_softmax passes gradcheck", function()
    torch.manual_seed(1)
    local x = torch.randn(5, 2, 4, { dtype = D, requires_grad = true })
    local tg = torch.tensor({ { 2, 3 }, { 4, 4 } })
    assert.is_true(torch.autograd.gradcheck(function(t)
      return F.ctc_loss(t:log_softmax(3), tg, { 5, 5 }, { 2, 2 }, { reduction = "sum" })
    end, { x }))
  end)

  it("ctc_loss runs a realistic size quickly", function()
    torch.manual_seed(2)
    local lp = torch.randn(60, 4, 20):log_softmax(3):requires_grad_()
    local tg = torch.randint(2, 21, { 4, 15 })
    local t0 = os.clock()
    local loss = F.ctc_loss(lp, tg, torch.full({ 4 }, 60), torch.tensor({ 15, 12, 10, 5 }))
    loss:backward()
    assert.is_true(os.clock() - t0 < 20)
    assert.is_true(loss:isfinite():item())
  end)

  it("losses refuse unknown names and keep PyTorch's legacy arguments", function()
    assert.has_error(function() nn.MarginRankingLoss({ margn = 1 }) end,
      "__init__() got an unexpected keyword argument 'margn'")
    assert.has_error(function() F.soft_margin_loss(torch.randn(3), torch.randn(3), { reduce_ = true }) end,
      "soft_margin_loss() got an unexpected keyword argument 'reduce_'")
    assert.are.equal("none", nn.HingeEmbeddingLoss({ reduce = false }).reduction)
    assert.are.equal("sum", nn.TripletMarginLoss({ size_average = false }).reduction)
    assert.are.equal(0.5, nn.MarginRankingLoss(0.5).margin)
  end)

  it("multi-tensor modules check each tensor by PyTorch's name", function()
    assert.has_error(function() nn.TripletMarginLoss()(torch.randn(2), torch.randn(2), 3) end,
      "forward(): argument 'negative' (position 3) must be Tensor, not int")
    assert.has_error(function() F.gaussian_nll_loss(torch.randn(2), torch.randn(2), 1.0) end,
      "gaussian_nll_loss(): argument 'var' (position 3) must be Tensor, not float")
  end)

  it("AdaptiveLogSoftmaxWithLoss predicts 1-based classes; log_prob sums to one", function()
    torch.manual_seed(3)
    local m = nn.AdaptiveLogSoftmaxWithLoss(6, 9, { 2, 5 })
    local x = torch.randn(7, 6)
    local lp = m:log_prob(x)
    assert.is_true(close(lp:exp():sum(2), torch.ones(7), 1e-5))
    local pred = m:predict(x)
    assert.is_true(torch.equal(pred, select(2, lp:max(2))))
    assert.is_true(pred:ge(1):all():item() and pred:le(9):all():item())
    local out, loss = m(x, pred)
    assert.is_true(close(out, lp:gather(2, pred:unsqueeze(2)):squeeze(2), 1e-5))
    assert.is_true(close(loss, -out:mean(), 1e-6))
  end)
end)

describe("warnings", function()
  -- what the library says through Lua's warn(), collected
  local function warnings_of(fn)
    local seen, saved = {}, _G.warn
    _G.warn = function(...) seen[#seen + 1] = table.concat({ ... }) end
    local ok, err = pcall(fn)
    _G.warn = saved
    assert(ok, err)
    return seen
  end

  it("as PyTorch's: implicit softmax dims, dropout ranks, legacy reductions, NLLLoss2d", function()
    local w = warnings_of(function() F.softmin(torch.randn(2, 3)) end)
    assert.are.same({ "Implicit dimension choice for softmin has been deprecated. Change the call to include dim=X as "
      .. "an argument." }, w)
    w = warnings_of(function() F.dropout2d(torch.randn(2, 3, 4)) end)
    assert.are.equal(1, #w)
    assert.is_truthy(w[1]:match("^dropout2d: Received a 3D input to dropout2d and assuming"))
    w = warnings_of(function() F.dropout3d(torch.randn(2, 3)) end)
    assert.is_truthy(w[1]:match("^dropout3d: Received a 2%-D input to dropout3d, which is deprecated"))
    assert.are.same({}, warnings_of(function() F.dropout2d(torch.randn(2, 3, 4, 4)) end))
    w = warnings_of(function() nn.SoftMarginLoss({ reduce = false }) end)
    assert.are.same({ "size_average and reduce args will be deprecated, please use reduction='none' instead." }, w)
    w = warnings_of(function() nn.NLLLoss2d() end)
    assert.is_truthy(w[1]:match("^NLLLoss2d has been deprecated"))
  end)
end)

describe("fixes named in issue 19", function()
  it("F.group_norm takes num_groups by name", function()
    local x = torch.randn(2, 4, 3)
    assert.is_true(torch.equal(F.group_norm(x, { num_groups = 2 }), F.group_norm(x, 2)))
    assert.is_true(torch.equal(F.group_norm(x, 2, { eps = 1e-3 }), F.group_norm(x, 2, nil, nil, 1e-3)))
    assert.has_error(function() F.group_norm(x, { eps = 1e-3 }) end,
      "group_norm() missing 1 required positional argument: 'num_groups'")
    assert.has_error(function() F.group_norm(x, { num_groups = 2, groups = 1 }) end,
      "group_norm() got an unexpected keyword argument 'groups'")
  end)

  it("a Sequential subclass keeps indexing, length, call and repr", function()
    local S = nn.Sequential:subclass("MySeq")
    function S:__init(...)
      nn.Sequential.__init(self, ...)
      self.scale = 2
    end
    function S:forward(x) return nn.Sequential.forward(self, x) * self.scale end
    local s = S(nn.Linear(2, 3), nn.ReLU())
    assert.are.equal(2, #s)
    assert.are.equal("ReLU()", tostring(s[2]))
    assert.are.equal("ReLU()", tostring(s[-1]))
    assert.are.equal(2, s.scale)
    assert.are.same({ 1, 3 }, { table.unpack(s(torch.ones(1, 2)).shape) })
    assert.is_truthy(tostring(s):match("^MySeq%(\n  %(0%): Linear"))
    local T = S:subclass("MySeq2")
    local t = T(nn.Tanh())
    assert.are.equal(1, #t)
    assert.are.equal("Tanh()", tostring(t[1]))
    local C = torch.class("MySeq3", nn.Sequential)
    local c = C(nn.ReLU(), nn.Tanh())
    assert.are.equal(2, #c)
    assert.are.equal("Tanh()", tostring(c[2]))
  end)
end)
