-- torch.linalg beyond the PyTorch goldens (tests/contract/linalg_spec.lua): pivots from users
-- (LAPACK would read out of bounds on bad ones), the functions PyTorch 1.13 keeps only as
-- errors, the low-rank helpers' checks, and the namespace itself.
local torch = require "mindtorch"
local L = torch.linalg

local function err(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return tostring(e)
end

describe("torch.linalg", function()
  it("names every linalg_ op without the prefix", function()
    for _, name in ipairs({ "inv", "det", "solve", "cholesky", "qr", "eigh", "svd", "lstsq", "pinv", "norm",
      "matrix_exp", "lu_factor", "ldl_solve", "householder_product", "vander", "vecdot", "tensorsolve" }) do
      assert.are.equal(torch["linalg_" .. name], L[name], name)
    end
  end)

  it("refuses pivots that are not LAPACK's, instead of reading past the matrix", function()
    local A = torch.tensor({ { 4.0, 1.0 }, { 2.0, 3.0 } })
    local LU, piv = L.lu_factor(A)
    for _, bad in ipairs({ { 0, 2 }, { 3, 2 }, { -1, 2 }, { 2147483647, 1 } }) do
      local p = torch.tensor(bad, { dtype = torch.int32 })
      assert.truthy(err(L.lu_solve, LU, p, torch.ones(2, 1)):find("pivots must be between 1 and n", 1, true))
      assert.truthy(err(torch.lu_unpack, LU, p):find("pivots passed to lu_unpack must be between 1", 1, true))
    end
    local LD = L.ldl_factor(torch.tensor({ { 0.0, 1.0 }, { 1.0, 0.0 } }))
    for _, bad in ipairs({ { 0, 1 }, { 3, 1 }, { -1, 1 }, { 1, -2 }, { -1, -2 } }) do
      local p = torch.tensor(bad, { dtype = torch.int32 })
      assert.truthy(err(L.ldl_solve, LD, p, torch.ones(2, 1)):find("pivots are not those of linalg.ldl_factor", 1, true))
    end
    -- the same pivots, well formed, solve
    assert.is_true(L.lu_solve(LU, piv, A):allclose(torch.eye(2), 1e-5, 1e-6))
  end)

  it("factors and unpacks empty matrices to PyTorch's shapes", function()
    -- (found by the API fuzzer: the permutation of a matrix with no rows cleared a null pointer)
    local P, Lo, U = L.lu(torch.empty(2, 0, 3))
    assert.are.same({ 2, 0, 0 }, P:size())
    assert.are.same({ 2, 0, 0 }, Lo:size())
    assert.are.same({ 2, 0, 3 }, U:size())
    P, Lo, U = L.lu(torch.empty(2, 3, 0))
    assert.are.same({ 2, 3, 3 }, P:size())
    assert.is_true(P:equal(torch.eye(3):expand(2, 3, 3)))
    assert.are.same({ 2, 3, 0 }, Lo:size())
    assert.are.same({ 2, 0, 0 }, U:size())
    local LU, piv = L.lu_factor(torch.empty(3, 0, 0))
    P = torch.lu_unpack(LU, piv)
    assert.are.same({ 3, 0, 0 }, P:size())
  end)

  it("raises matrices to the largest powers an int64 holds", function()
    -- (found by the API fuzzer: 2^63 - 1 needs 125 products, and the helper that kept every one
    -- ran out of room and failed with an empty message)
    local D = torch.tensor({ { 1.0, 0.0 }, { 0.0, -1.0 } })
    assert.is_true(L.matrix_power(D, math.maxinteger):equal(D))
    assert.is_true(L.matrix_power(D, math.maxinteger - 1):equal(torch.eye(2)))
    -- PyTorch 1.13 does not return from this one (it negates the exponent); D^-(2^63) is I
    assert.is_true(L.matrix_power(D, math.mininteger):equal(torch.eye(2)))
    local A = torch.tensor({ { 1.0, 1.0 }, { 0.0, 1.0 } }, { dtype = torch.float64 })
    assert.is_true(L.matrix_power(A, 13):equal(torch.tensor({ { 1.0, 13.0 }, { 0.0, 1.0 } }, { dtype = torch.float64 })))
    assert.is_true(L.matrix_power(A, -3):equal(torch.tensor({ { 1.0, -3.0 }, { 0.0, 1.0 } }, { dtype = torch.float64 })))
    local first = L.matrix_power(A, 1)
    first[1][1] = 7 -- a copy, not A
    assert.are.equal(1, A[1][1]:item())
  end)

  it("exponentiates matrices of large norm (many squarings) as PyTorch does", function()
    -- a rotation by 1e12 radians takes 38 squarings, more than the helper's scope once held
    local R = torch.linalg.matrix_exp(torch.tensor({ { 0, 1e12 }, { -1e12, 0 } }, { dtype = torch.float64 }))
    -- PyTorch 1.13: [[0.7914, -0.6111], [0.6111, 0.7914]] (the squarings amplify rounding)
    assert.is_true(R:allclose(torch.tensor({ { 0.7914, -0.6111 }, { 0.6111, 0.7914 } }, { dtype = torch.float64 }), 0, 1e-3))
    assert.is_true(R:isfinite():all():item())
    assert.is_true(torch.linalg.matrix_exp(torch.tensor({ { 1e30, 0 }, { 0, -1e30 } })):isnan():all():item())
  end)

  it("keeps solve, lstsq and matrix_rank as the errors PyTorch 1.13 raises", function()
    local A = torch.eye(2)
    assert.truthy(err(torch.solve, A, A):find("removed. Please use the `torch.linalg.solve` function", 1, true))
    assert.truthy(err(torch.lstsq, A, A):find("`torch.linalg.lstsq`", 1, true))
    assert.truthy(err(torch.matrix_rank, A):find("`torch.linalg.matrix_rank`", 1, true))
    assert.truthy(err(A.solve, A, A):find("torch.linalg.solve", 1, true))
  end)

  it("checks q and niter of the low-rank helpers", function()
    local A = torch.randn(3, 7)
    assert.truthy(err(torch.svd_lowrank, A):find("q(=6) must be non-negative integer and not greater than min(m, n)=3", 1, true))
    assert.truthy(err(torch.pca_lowrank, A, 5):find("q(=5) must be", 1, true))
    assert.truthy(err(torch.pca_lowrank, A, { niter = -1 }):find("niter(=-1) must be non-negative integer", 1, true))
    local U, S, V = torch.svd_lowrank(A, { q = 3 })
    assert.are.equal(3, U:size(1))
    assert.are.equal(3, U:size(2))
    assert.is_true((U:matmul(torch.diag(S)):matmul(V.mT)):allclose(A, 1e-4, 1e-4))
  end)

  it("factors float64 batches of many small matrices", function()
    local A = torch.randn(50, 3, 3, { dtype = torch.float64 }) + torch.eye(3, { dtype = torch.float64 }) * 4
    local X = L.inv(A)
    assert.is_true(A:matmul(X):allclose(torch.eye(3, { dtype = torch.float64 }):expand(50, 3, 3), 1e-10, 1e-10))
    local s, logabs = L.slogdet(A)
    assert.is_true((s * logabs:exp()):allclose(L.det(A), 1e-10, 1e-10))
  end)
end)

describe("torch.lobpcg", function()
  local f64 = torch.float64
  -- a symmetric positive-definite matrix with a known, well separated spectrum
  local function spd(m, seed)
    local g = torch.Generator():manual_seed(seed)
    local Q = torch.linalg.qr(torch.randn(m, m, { dtype = f64, generator = g }))
    local e = torch.arange(1, m + 1, { dtype = f64 })
    return Q:matmul(torch.diag(e)):matmul(Q.mT), e
  end

  it("finds the largest and the smallest eigenpairs", function()
    local A, e = spd(30, 1)
    torch.manual_seed(0)
    local E, X = torch.lobpcg(A, { k = 3 })
    assert.is_true(E:allclose(torch.tensor({ 30.0, 29.0, 28.0 }, { dtype = f64 }), 1e-6, 1e-6))
    assert.is_true(A:matmul(X):allclose(X * E:view(1, 3), 1e-5, 1e-5))
    local Es = torch.lobpcg(A, { k = 2, largest = false, niter = 500 })
    assert.is_true(Es:allclose(torch.tensor({ 1.0, 2.0 }, { dtype = f64 }), 1e-6, 1e-6))
  end)

  it("solves the generalized problem A x = e B x from a given start", function()
    local A = spd(24, 2)
    local B = spd(24, 3) * 0.1 + torch.eye(24, { dtype = f64 })
    local X0 = torch.randn(24, 2, { dtype = f64, generator = torch.Generator():manual_seed(4) })
    local E, X = torch.lobpcg(A, { B = B, X = X0 })
    local L = torch.linalg.cholesky(B)
    local Li = torch.linalg.inv(L)
    local ref = torch.linalg.eigvalsh(Li:matmul(A):matmul(Li.mT))
    assert.is_true(E:allclose(ref:flip(1):narrow(1, 1, 2), 1e-6, 1e-6))
    assert.is_true(A:matmul(X):allclose(B:matmul(X) * E:view(1, 2), 1e-5, 1e-5))
  end)

  it("runs over a batch and refuses what PyTorch refuses", function()
    local A1, A2 = spd(12, 5), spd(12, 6)
    local E = torch.lobpcg(torch.stack({ A1, A2 }), { k = 1 })
    assert.are.equal(2, E:size(1))
    assert.is_true(E:allclose(torch.tensor({ { 12.0 }, { 12.0 } }, { dtype = f64 }), 1e-6, 1e-6))
    local ok, e = pcall(torch.lobpcg, torch.eye(5), { k = 2 })
    assert.is_false(ok)
    assert.truthy(tostring(e):find("number of A rows (=5) is smaller than 3 x the number of requested eigenpairs (=2)", 1, true))
    ok, e = pcall(torch.lobpcg, A1:clone():requires_grad_(), { k = 1 })
    assert.is_false(ok)
    assert.truthy(tostring(e):find("not implemented", 1, true))
  end)
end)

describe("torch.linalg sizes", function()
  it("refuses matrices past what LAPACK's int workspaces hold, before allocating them", function()
    -- a zero-stride view: no memory behind its 2^30 elements
    local A = torch.zeros(1):expand(32768, 32768)
    local ok, e = pcall(torch.linalg.svdvals, A)
    assert.is_false(ok)
    assert.truthy(tostring(e):find("exceed LAPACK's int sizes", 1, true), tostring(e))
  end)
end)

describe("torch.linalg.multi_dot", function()
  it("multiplies chains of any length (past 64 matrices, left to right)", function()
    local g = torch.Generator():manual_seed(3)
    local ms = { torch.randn(5, { dtype = torch.float64, generator = g }) }
    for i = 2, 99 do ms[i] = torch.randn(5, 5, { dtype = torch.float64, generator = g }) * 0.4 end
    ms[100] = torch.randn(5, { dtype = torch.float64, generator = g })
    local ref = ms[1]
    for i = 2, 100 do ref = ref:matmul(ms[i]) end
    local got = torch.linalg.multi_dot(ms)
    assert.are.equal(0, got:dim())
    assert.is_true(got:allclose(ref, 1e-9, 1e-12))
    local short = torch.linalg.multi_dot({ ms[2], ms[3], ms[4] })
    assert.is_true(short:allclose(ms[2]:matmul(ms[3]):matmul(ms[4]), 1e-12, 1e-12))
  end)
end)
