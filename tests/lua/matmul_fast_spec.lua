-- The CPU's float32 matrix products (backends/cpu/cpu_gemm_avx512.c on CPUs with AVX-512, else
-- OpenBLAS): against the same product in float64, over the shapes where the blocked loop has
-- edges (rows past a 12-row block, last slivers of up to 4 and 8 rows, columns past a 32-column
-- sliver, a reduction past a 256-step stretch), every operand layout (transposed, neither stride
-- 1), alpha and beta, batches split between threads, and for one and two threads.
local torch = require "mindtorch"

-- the largest error of r against the float64 reference, relative to the reduction's length
local function err(r, ref, k)
  return (r:double() - ref):abs():max():item() / math.sqrt(k + 1)
end

-- a (rows x cols) float32 matrix in layout `how`: "row", "col" (a transpose) or "strided"
local function matrix(rows, cols, how)
  if how == "col" then return torch.randn(cols, rows):t() end
  if how == "strided" then return torch.randn(rows, cols, 2)[{ {}, {}, 2 }] end
  return torch.randn(rows, cols)
end

describe("CPU float32 matrix products", function()
  local saved
  before_each(function() saved = torch.get_num_threads() end)
  after_each(function() torch.set_num_threads(saved) end)

  it("match float64 at every block edge and operand layout, with alpha and beta", function()
    torch.manual_seed(3)
    local layouts = { "row", "col", "strided" }
    local worst, cases = 0, 0
    for _, threads in ipairs { 1, 2 } do
      torch.set_num_threads(threads)
      for _, m in ipairs { 1, 5, 8, 11, 12, 13, 64, 145 } do
        for _, k in ipairs { 1, 255, 257 } do
          for _, n in ipairs { 1, 31, 33, 520 } do
            local la, lb = layouts[(m + n) % 3 + 1], layouts[(k + n + threads) % 3 + 1]
            local a, b = matrix(m, k, la), matrix(k, n, lb)
            local c = torch.randn(m, n)
            local alpha, beta = ({ 1, 0.5, -2 })[(m + k) % 3 + 1], ({ 0, 1, 0.25 })[(n + k) % 3 + 1]
            local r = torch.addmm(c, a, b, { alpha = alpha, beta = beta })
            local ref = torch.addmm(c:double(), a:double(), b:double(), { alpha = alpha, beta = beta })
            worst = math.max(worst, err(r, ref, k))
            assert.are.same({ m, n }, { r:size(1), r:size(2) })
            assert.are.same({ m, n }, { torch.mm(a, b):size(1), torch.mm(a, b):size(2) })
            worst = math.max(worst, err(torch.mm(a, b), a:double():mm(b:double()), k))
            cases = cases + 1
          end
        end
      end
    end
    assert.are.equal(192, cases)
    assert.is_true(worst < 1e-5, "largest scaled error " .. worst)
  end)

  it("give large products their exact values (integers that float32 holds)", function()
    -- small integers: every partial sum is exact, so any lost or repeated block shows
    local a = torch.randint(-3, 4, { 300, 600 }):float()
    local b = torch.randint(-3, 4, { 600, 700 }):float()
    local ref = a:double():mm(b:double())
    for _, threads in ipairs { 1, 2 } do
      torch.set_num_threads(threads)
      assert.is_true(torch.equal(a:mm(b):double(), ref))
      assert.is_true(torch.equal(b:t():mm(a:t()):double(), ref:t()))
    end
  end)

  it("overwrite C when beta is 0 (NaN in C does not survive) and add nothing when k is 0", function()
    local c = torch.full({ 13, 40 }, 0 / 0)
    local r = torch.addmm(c, torch.ones(13, 3), torch.ones(3, 40), { beta = 0 })
    assert.is_true(torch.equal(r, torch.full({ 13, 40 }, 3)))
    assert.is_true(torch.equal(torch.mm(torch.ones(13, 0), torch.ones(0, 40)), torch.zeros(13, 40)))
    local c2 = torch.randn(5, 6)
    assert.is_true(torch.equal(torch.addmm(c2, torch.ones(5, 0), torch.ones(0, 6), { beta = 2 }), c2 * 2))
  end)

  it("add a broadcast or strided bias in addmm's product (read by the product's stores)", function()
    torch.manual_seed(7)
    -- m, k, n: rows past a 12-row block, reductions of one and of three 256-step stretches (the
    -- bias is added once), columns past a 32-column sliver
    for _, threads in ipairs { 1, 2 } do
      torch.set_num_threads(threads)
      for _, mkn in ipairs { { 13, 40, 70 }, { 64, 700, 45 } } do
        local m, k, n = table.unpack(mkn)
        local a, b = torch.randn(m, k), torch.randn(n, k):t()
        local biases = {
          torch.randn(n), torch.randn(1, n), torch.randn(m, 1), torch.tensor(1.5),
          torch.randn(n, m):t(), torch.randn(n):expand(m, n), torch.randn(m, n, 2)[{ {}, {}, 1 }],
        }
        for i, c in ipairs(biases) do
          for _, ab in ipairs { { 1, 1 }, { 0.5, -2 } } do
            local opts = { alpha = ab[1], beta = ab[2] }
            local r = torch.addmm(c, a, b, opts)
            local ref = torch.addmm(c:double(), a:double(), b:double(), opts)
            assert.are.same({ m, n }, { r:size(1), r:size(2) })
            assert.is_true(err(r, ref, k) < 1e-5, ("bias %d, %dx%dx%d, %d threads"):format(i, m, k, n, threads))
          end
        end
      end
    end
    -- beta 0 ignores a NaN bias; k 0 leaves beta times the bias
    local r = torch.addmm(torch.full({ 40 }, 0 / 0), torch.ones(13, 3), torch.ones(3, 40), { beta = 0 })
    assert.is_true(torch.equal(r, torch.full({ 13, 40 }, 3)))
    local bias = torch.randn(6)
    assert.is_true(torch.equal(torch.addmm(bias, torch.ones(5, 0), torch.ones(0, 6), { beta = 2 }),
      (bias * 2):expand(5, 6)))
    -- the linear layer's bias, and its gradient
    local x, w = torch.randn(64, 100), torch.randn(37, 100)
    local bb = torch.randn(37, { requires_grad = true })
    local y = torch.nn.functional.linear(x, w, bb)
    assert.is_true(err(y, x:double():mm(w:double():t()) + bb:double(), 100) < 1e-5)
    y:sum():backward()
    assert.is_true(torch.equal(bb.grad, torch.full({ 37 }, 64)))
  end)

  it("split batches of small products between threads, baddbmm's beta included", function()
    torch.manual_seed(4)
    for _, threads in ipairs { 1, 2 } do
      torch.set_num_threads(threads)
      local a, b = torch.randn(7, 33, 17), torch.randn(7, 40, 17):transpose(2, 3)
      local c = torch.randn(7, 33, 40)
      local r = torch.baddbmm(c, a, b, { alpha = 0.5, beta = -1 })
      local ref = torch.baddbmm(c:double(), a:double(), b:double(), { alpha = 0.5, beta = -1 })
      assert.is_true(err(r, ref, 17) < 1e-5)
      assert.is_true(err(torch.bmm(a, b), a:double():bmm(b:double()), 17) < 1e-5)
      -- each batch its own product: batch 3 alone gives batch 3's values
      assert.is_true(torch.equal(torch.bmm(a, b)[3], torch.mm(a[3], b[3])))
    end
  end)

  it("compute bfloat16 products in float with one rounding per result, alpha and beta included", function()
    torch.manual_seed(6)
    local a, b = torch.randn(70, 300):bfloat16(), torch.randn(40, 300):bfloat16():t()
    local c = torch.randn(70, 40):bfloat16()
    local r = torch.addmm(c, a, b, { alpha = 0.5, beta = 2 })
    assert.are.equal(torch.bfloat16, r.dtype)
    local ref = torch.addmm(c:double(), a:double(), b:double(), { alpha = 0.5, beta = 2 })
    -- within one bfloat16 step of the exact value (2^-7 relative), most of them its rounding
    local step = ref:abs():clamp(1e-3) * 2 ^ -7
    assert.is_true(((r:double() - ref):abs() - step):max():item() <= 0)
    assert.is_true(r:eq(ref:bfloat16()):double():mean():item() > 0.95)
    local nan = torch.full({ 70, 40 }, 0 / 0):bfloat16()
    assert.is_false(torch.addmm(nan, a, b, { beta = 0 }):isnan():any():item())
  end)

  it("give linear layers' products and their gradients (x W^T, g W, g^T x)", function()
    torch.manual_seed(5)
    local x = torch.randn(64, 100, { requires_grad = true })
    local w = torch.randn(37, 100, { requires_grad = true })
    local y = torch.nn.functional.linear(x, w)
    local g = torch.randn(64, 37)
    y:backward(g)
    local xd, wd, gd = x:detach():double(), w:detach():double(), g:double()
    assert.is_true(err(y:detach(), xd:mm(wd:t()), 100) < 1e-5)
    assert.is_true(err(x.grad, gd:mm(wd), 37) < 1e-5)
    assert.is_true(err(w.grad, gd:t():mm(xd), 64) < 1e-5)
  end)
end)
