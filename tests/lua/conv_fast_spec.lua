-- The float32 convolution routines for small layers (direct loops, chosen by geometry) against
-- float64 im2col + gemm results: forward with bias, input gradient (a stride-1 transposed
-- convolution) and weight gradient, over paddings, strides, dilations, groups and narrow or odd
-- widths, with one thread and with several; in this process (the routines this CPU gets) and in
-- children that pin the AVX2 routines and the im2col path (MT_CONV_DIRECT).
local torch = require("mindtorch")
local run = require "tests.lua.support.run"
local luamt = (os.getenv("BUILD") or "build") .. "/luamt"

-- N, C, H, W, O, kh, kw, stride, padding, dilation, groups
local cases = {
  { 64, 1, 28, 28, 6, 5, 5, { 1, 1 }, { 2, 2 }, { 1, 1 }, 1 },
  { 5, 6, 14, 14, 16, 5, 5, { 1, 1 }, { 0, 0 }, { 1, 1 }, 1 },
  { 3, 4, 9, 17, 6, 3, 3, { 2, 1 }, { 1, 2 }, { 1, 2 }, 2 },
  { 2, 3, 8, 30, 7, 1, 4, { 1, 1 }, { 0, 3 }, { 2, 1 }, 1 },
  { 2, 8, 10, 12, 8, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 }, 4 },
  { 3, 5, 7, 41, 13, 2, 7, { 1, 1 }, { 1, 0 }, { 1, 1 }, 1 },
  { 2, 2, 6, 9, 3, 3, 1, { 1, 1 }, { 0, 0 }, { 2, 1 }, 1 },
  { 2, 16, 12, 12, 4, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1 },
  { 2, 40, 9, 11, 8, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1 },
  -- 11 output rows: register blocks of 4, 4, 2 and 1 rows (the AVX-512 direct loop)
  { 2, 6, 11, 20, 9, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1 },
  -- weight gradients through the AVX-512 product (cpu_gemm_nt_avx512.c): rows, columns and the
  -- reduction not multiples of its 4 x 6 x 16 block, reductions longer than one stretch of it
  { 2, 37, 40, 40, 13, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1 },
  { 2, 20, 17, 17, 7, 1, 1, { 1, 1 }, { 0, 0 }, { 1, 1 }, 1 },
  -- wide stride-1 weight gradients over padded planes (cpu_conv_weight_padded.c): 40 samples in
  -- chunks of 32 and 8, a dilated 5x5 kernel
  { 40, 40, 30, 30, 24, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1 },
  { 3, 9, 21, 25, 6, 5, 5, { 1, 1 }, { 3, 2 }, { 2, 2 }, 1 },
  -- the forward with output channels across the vector (cpu_conv_cvec_avx512.c): two blocks of
  -- 16 channels, strides, padding and dilation; 15 output columns (a block of 14 and one)
  { 3, 5, 9, 17, 32, 3, 3, { 2, 2 }, { 1, 1 }, { 1, 2 }, 1 },
  { 2, 3, 8, 17, 16, 3, 3, { 1, 1 }, { 0, 0 }, { 1, 1 }, 1 },
  -- columns or 1x1 planes times the weight in the AVX-512 product (cpu_gemm_nn_avx512.c): rows,
  -- columns not multiples of its 6 x 48 block, reductions longer than one stretch (128) of it,
  -- the weight transposed for the input gradient; a 1x1 layer, and strided layers (no direct
  -- loop takes them)
  { 2, 150, 17, 19, 13, 1, 1, { 1, 1 }, { 0, 0 }, { 1, 1 }, 1 },
  { 3, 7, 15, 21, 11, 3, 3, { 2, 2 }, { 1, 1 }, { 1, 1 }, 1 },
  { 2, 20, 11, 13, 5, 3, 3, { 2, 2 }, { 0, 0 }, { 1, 1 }, 1 },
  -- the weight gradient with output channels across the vector (cpu_conv_cvec_weight_avx512.c):
  -- padding, vertical stride and dilation, two blocks of 16 channels, kernels 3 and 5 wide
  { 3, 4, 9, 12, 16, 5, 5, { 1, 1 }, { 2, 1 }, { 1, 1 }, 1 },
  { 2, 3, 7, 9, 32, 3, 3, { 2, 1 }, { 1, 1 }, { 2, 1 }, 1 },
  -- more output pixels than one chunk of the forward's channel transpose (256): 38 rows of 10
  { 2, 3, 40, 12, 16, 3, 3, { 1, 1 }, { 0, 0 }, { 1, 1 }, 1 },
  -- the forward's pairs of output rows: 5 rows (two pairs and one), vertical stride, a 5x5
  -- kernel; 13 output columns, too many for a pair (one row at a time)
  { 2, 4, 12, 13, 16, 5, 5, { 2, 1 }, { 1, 0 }, { 1, 1 }, 1 },
  { 2, 3, 7, 15, 16, 3, 3, { 1, 1 }, { 0, 0 }, { 1, 1 }, 1 },
  -- without padding the forward reads each sample in place: strides and dilation up to the
  -- input's last row and column
  { 3, 2, 11, 13, 16, 3, 3, { 2, 2 }, { 0, 0 }, { 2, 1 }, 1 },
}

local function rel_err(a, b)
  local scale = math.max(b:abs():max():item(), 1)
  return (a:double() - b):abs():max():item() / scale
end

-- plain asserts: the children run it outside busted
local function check(c)
  local N, C, H, W, O, kh, kw, st, pd, dl, G = table.unpack(c)
  local x, w, b = torch.randn(N, C, H, W), torch.randn(O, C // G, kh, kw), torch.randn(O)
  local y = torch.conv2d(x, w, b, st, pd, dl, G)
  local y64 = torch.conv2d(x:double(), w:double(), b:double(), st, pd, dl, G)
  assert(y64:size() == y:size(), "sizes")
  assert(rel_err(y, y64) < 1e-5, "forward")
  local g = torch.randn(y:size())
  local gw = torch.convolution_backward_weight(g, x, w:size(), st, pd, dl, false, G)
  local gw64 = torch.convolution_backward_weight(g:double(), x:double(), w:size(), st, pd, dl, false, G)
  assert(rel_err(gw, gw64) < 1e-5, "weight gradient")
  -- the input gradient through autograd (a transposed convolution with output_padding)
  local xr, wr = x:clone():requires_grad_(), w:clone():requires_grad_()
  torch.conv2d(xr, wr, nil, st, pd, dl, G):backward(g)
  local xd, wd = x:double():requires_grad_(), w:double():requires_grad_()
  torch.conv2d(xd, wd, nil, st, pd, dl, G):backward(g:double())
  assert(rel_err(xr.grad, xd.grad) < 1e-5, "input gradient")
  assert(rel_err(wr.grad, wd.grad) < 1e-5, "weight gradient through autograd")
  -- a transposed convolution forward with bias (stride 1 takes the flipped direct routine)
  if st[1] == 1 and st[2] == 1 then
    local bt = torch.randn(C)
    local wt = torch.randn(O, C // G, kh, kw)
    local t = torch.conv_transpose2d(y, wt, bt, 1, pd, 0, G, dl)
    local t64 = torch.conv_transpose2d(y:double(), wt:double(), bt:double(), 1, pd, 0, G, dl)
    assert(rel_err(t, t64) < 1e-5, "transposed forward")
  end
end

-- run as a script (the children): every case, "ok" when all pass
if ... == "run-all" then
  for i, c in ipairs(cases) do
    torch.manual_seed(i)
    for _, t in ipairs({ 1, 2 }) do
      torch.set_num_threads(t)
      check(c)
    end
  end
  print("ok")
  return
end

describe("float32 convolution of small layers", function()
  local saved
  before_each(function() saved = torch.get_num_threads() end)
  after_each(function() torch.set_num_threads(saved) end)

  for i, c in ipairs(cases) do
    it("matches float64 im2col, case " .. i, function()
      torch.manual_seed(i)
      torch.set_num_threads(1)
      check(c)
      torch.set_num_threads(2)
      check(c)
    end)
  end

  for _, variant in ipairs({ "avx2", "off" }) do
    it("matches float64 with MT_CONV_DIRECT=" .. variant, function()
      local out, status = run("MT_CONV_DIRECT=" .. variant .. " " .. luamt .. " tests/lua/conv_fast_spec.lua run-all")
      assert.are.equal(0, status, out)
      assert.are.equal("ok\n", out)
    end)
  end

  it("gives the same bits with one thread and with several", function()
    torch.manual_seed(3)
    local x, w = torch.randn(37, 6, 14, 14), torch.randn(16, 6, 5, 5)
    local g = torch.randn(37, 16, 10, 10)
    local res = {}
    for _, t in ipairs({ 1, 2, 3 }) do
      torch.set_num_threads(t)
      res[t] = {
        torch.conv2d(x, w, nil, 1, 1),
        torch.convolution(g, w, nil, { 1 }, { 0 }, { 1 }, true, { 0, 0 }, 1),
        torch.convolution_backward_weight(g, x, w:size(), { 1 }, { 0 }, { 1 }, false, 1),
      }
    end
    for i = 1, 3 do
      assert.is_true(torch.equal(res[1][i], res[2][i]))
      assert.is_true(torch.equal(res[1][i], res[3][i]))
    end
  end)

  it("keeps non-finite inputs where they belong", function()
    local x = torch.ones(2, 1, 6, 12)
    x[{ 1, 1, 3, 12 }] = math.huge
    local w = torch.ones(2, 1, 3, 3)
    local y = torch.conv2d(x, w)
    local y64 = torch.conv2d(x:double(), w:double())
    assert.are.same(y64:isinf():tolist(), y:isinf():tolist())
    local g = torch.ones(y:size())
    g[{ 1, 1 }] = -1
    local gw = torch.convolution_backward_weight(g, x, w:size(), { 1 }, { 0 }, { 1 }, false, 1)
    local gw64 = torch.convolution_backward_weight(g:double(), x:double(), w:size(), { 1 }, { 0 }, { 1 }, false, 1)
    assert.are.same(gw64:isnan():tolist(), gw:isnan():tolist())
    assert.are.same(gw64:isinf():tolist(), gw:isinf():tolist())
  end)

  it("keeps non-finite inputs where they belong in wide weight gradients", function()
    -- 20 channels of 3x3 (180 taps): the padded planes' extra terms would pair zeros with these
    torch.manual_seed(11)
    local x = torch.randn(2, 20, 9, 17)
    x[{ 1, 3, 4, 17 }] = math.huge -- the last column: next to the row's padding
    x[{ 2, 7, 9, 1 }] = -math.huge
    x[{ 2, 11, 1, 5 }] = 0 / 0
    local g = torch.randn(2, 8, 9, 17)
    local gw = torch.convolution_backward_weight(g, x, { 8, 20, 3, 3 }, { 1 }, { 1 }, { 1 }, false, 1)
    local gw64 = torch.convolution_backward_weight(g:double(), x:double(), { 8, 20, 3, 3 }, { 1 }, { 1 }, { 1 },
      false, 1)
    assert.are.same(gw64:isnan():tolist(), gw:isnan():tolist())
    assert.are.same(gw64:isinf():tolist(), gw:isinf():tolist())
    local finite = gw64:isfinite()
    assert.is_true(rel_err(gw[finite], gw64[finite]) < 1e-5)
  end)

  it("takes 1x1 stride-1 convolutions as one matrix product per sample, against einsum", function()
    -- N, C, H, W, O, groups: planes of at least 256 (the product path) and one sample of a small plane
    for _, c in ipairs({ { 2, 8, 20, 20, 4, 1 }, { 3, 6, 16, 17, 9, 3 }, { 1, 4, 5, 3, 6, 2 } }) do
      local N, C, H, W, O, G = table.unpack(c)
      for _, dt in ipairs({ torch.float32, torch.float64 }) do
        local x, w = torch.randn(N, C, H, W, { dtype = dt }), torch.randn(O, C // G, 1, 1, { dtype = dt })
        local b, g = torch.randn(O, { dtype = dt }), torch.randn(N, O, H, W, { dtype = dt })
        local y = torch.conv2d(x, w, b, 1, 0, 1, G)
        local gi = torch.convolution(g, w, nil, { 1 }, { 0 }, { 1 }, true, { 0, 0 }, G)
        local gw = torch.convolution_backward_weight(g, x, w:size(), { 1 }, { 0 }, { 1 }, false, G)
        local Cg, Og = C // G, O // G
        for k = 1, G do
          local xs, gs = x:narrow(2, (k - 1) * Cg + 1, Cg):double(), g:narrow(2, (k - 1) * Og + 1, Og):double()
          local ws = w:narrow(1, (k - 1) * Og + 1, Og):reshape(Og, Cg):double()
          local want = torch.einsum("oc,nchw->nohw", ws, xs) + b:narrow(1, (k - 1) * Og + 1, Og):double():view(1, Og, 1, 1)
          assert.is_true(rel_err(y:narrow(2, (k - 1) * Og + 1, Og), want) < 1e-5)
          assert.is_true(rel_err(gi:narrow(2, (k - 1) * Cg + 1, Cg), torch.einsum("oc,nohw->nchw", ws, gs)) < 1e-5)
          assert.is_true(rel_err(gw:narrow(1, (k - 1) * Og + 1, Og):reshape(Og, Cg), torch.einsum("nohw,nchw->oc", gs, xs))
            < 1e-5)
        end
      end
    end
  end)
end)
