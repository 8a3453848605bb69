-- _linalg_extra.lua: the linear-algebra names PyTorch 1.13 writes in Python rather than as ops:
-- torch.lu (linalg_lu_factor_ex with the old argument names), the functions 1.13 removed and
-- kept as errors (torch.solve, torch.lstsq, torch.matrix_rank), and the randomized low-rank
-- SVD and PCA (torch.svd_lowrank, torch.pca_lowrank: Halko, Martinsson and Tropp 2009,
-- algorithms 4.4 and 5.1, drawing their random matrix from the default generator as PyTorch
-- does, so a seeded run gives PyTorch's numbers).
local torch = require "mindtorch"
local args = require "mindtorch._args"
local Tensor = torch.Tensor

-- torch.lu(A, pivot=true, get_infos=false) -> LU, pivots[, infos]
function torch.lu(...)
  local o = args.parse("lu", { "A", "pivot", "get_infos" }, { pivot = true, get_infos = false }, ...)
  args.tensor("lu", "A", 1, o.A)
  local LU, piv, info = torch.linalg_lu_factor_ex(o.A, { pivot = o.pivot })
  if o.get_infos then return LU, piv, info end
  return LU, piv
end
Tensor.lu = torch.lu

-- removed in 1.9: PyTorch 1.13 keeps the names, which raise
local removed = { solve = "solve", lstsq = "lstsq", matrix_rank = "matrix_rank" }
for name, repl in pairs(removed) do
  local msg = ("This function was deprecated since version 1.9 and is now removed. Please use the "
    .. "`torch.linalg.%s` function instead."):format(repl)
  torch[name] = function() error(msg, 2) end
  if name ~= "matrix_rank" then Tensor[name] = torch[name] end
end

-- ---- randomized low-rank SVD ------------------------------------------------------------------

local function floating(A) return A:is_floating_point() and A.dtype or torch.float32 end

-- Q with q orthonormal columns whose span approximates A's range (M: A's mean, subtracted)
local function approximate_basis(A, q, niter, M)
  local n = A:size(-1)
  local R = torch.randn(n, q, { dtype = floating(A), device = A.device })
  local AH, MH = A.mT, M and M.mT
  local function times(X, Y, MX) -- X @ Y, less MX @ Y
    local P = X:matmul(Y)
    if MX then P = P - MX:matmul(Y) end
    return P
  end
  local Q = torch.linalg.qr(times(A, R, M))
  for _ = 1, niter do
    Q = torch.linalg.qr(times(AH, Q, MH))
    Q = torch.linalg.qr(times(A, Q, M))
  end
  return Q
end

local function svd_lowrank(A, q, niter, M)
  local m, n = A:size(-2), A:size(-1)
  local U, S, Vh, V
  if m < n or n > q then -- the transpose's approximation keeps the small factor small
    local Q = approximate_basis(A.mT, q, niter, M and M.mT)
    local Bt = A:matmul(Q)
    if M then Bt = Bt - M:matmul(Q) end
    U, S, Vh = torch.linalg.svd(Bt, { full_matrices = false })
    V = Q:matmul(Vh.mT)
  else
    local Q = approximate_basis(A, q, niter, M)
    local B = A.mT:matmul(Q)
    if M then B = B - M.mT:matmul(Q) end
    U, S, Vh = torch.linalg.svd(B.mT, { full_matrices = false })
    V = Vh.mT
    U = Q:matmul(U)
  end
  return U, S, V
end

-- torch.svd_lowrank(A, q=6, niter=2, M=nil) -> U, S, V with A ~ U diag(S) V^T
function torch.svd_lowrank(...)
  local o = args.parse("svd_lowrank", { "A", "q", "niter", "M" }, { q = 6, niter = 2 }, ...)
  local A = args.tensor("svd_lowrank", "A", 1, o.A)
  local q, k = o.q or 6, math.min(A:size(-2), A:size(-1))
  if q < 0 or q > k then -- PyTorch fails an internal assertion there
    error(("q(=%s) must be non-negative integer and not greater than min(m, n)=%d"):format(q, k), 2)
  end
  return svd_lowrank(A, q, o.niter or 2, o.M)
end

-- torch.pca_lowrank(A, q=nil, center=true, niter=2) -> U, S, V of A less its column means
function torch.pca_lowrank(...)
  local o = args.parse("pca_lowrank", { "A", "q", "center", "niter" }, { center = true, niter = 2 }, ...)
  local A = args.tensor("pca_lowrank", "A", 1, o.A)
  local m, n = A:size(-2), A:size(-1)
  local q = o.q
  if q == nil then
    q = math.min(6, m, n)
  elseif not (q >= 0 and q <= math.min(m, n)) then
    error(("q(=%s) must be non-negative integer and not greater than min(m, n)=%d"):format(q, math.min(m, n)), 2)
  end
  if not (o.niter >= 0) then error(("niter(=%s) must be non-negative integer"):format(o.niter), 2) end
  if not o.center then return svd_lowrank(A, q, o.niter) end
  return svd_lowrank(A - A:mean(-2, true), q, o.niter)
end
