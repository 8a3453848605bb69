-- _linalg_extra.lua: the linear-algebra names PyTorch 1.13 writes in Python rather than as ops:
-- torch.lu (linalg_lu_factor_ex with the old argument names), the functions 1.13 removed and
-- kept as errors (torch.solve, torch.lstsq, torch.matrix_rank), and the randomized low-rank
-- SVD and PCA (torch.svd_lowrank, torch.pca_lowrank: Halko, Martinsson and Tropp 2009,
-- algorithms 4.4 and 5.1, drawing their random matrix from the default generator as PyTorch
-- does, so a seeded run gives PyTorch's numbers), and torch.lobpcg (Knyazev's LOBPCG for a few
-- extreme eigenpairs).
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

-- ---- torch.lobpcg: a few extreme eigenpairs of a symmetric positive-definite problem ----------
-- Knyazev's locally optimal block preconditioned conjugate gradient: each step a Rayleigh-Ritz
-- projection onto the span of the current block X, the (preconditioned) residuals W and the
-- previous search directions P, orthonormalized. A generalized problem A x = e B x is brought
-- to a standard one with B's Cholesky factor. Convergence as PyTorch measures it: the residual
-- of each of the k wanted pairs below tol * (|A| + |e|) * |x| (|x| = 1, B = I once transformed).
local function lobpcg_one(A, B, X, iK, k, niter, tol, largest)
  local Lb, Linv
  if B then -- A x = e B x  <=>  (L^-1 A L^-T) y = e y, x = L^-T y
    Lb = torch.linalg.cholesky(B)
    Linv = torch.linalg.solve_triangular(Lb, torch.eye(A:size(1), { dtype = A.dtype }), { upper = false })
    A = Linv:matmul(A):matmul(Linv.mT)
    X = Lb.mT:matmul(X)
  end
  local n = X:size(2)
  -- |A| estimated from the start block, |A X| / |X| (Frobenius), as PyTorch does: a 2-norm
  -- would cost an SVD of A, the O(m^3) work LOBPCG is there to avoid
  local normA = (torch.linalg.vector_norm(A:matmul(X)) / torch.linalg.vector_norm(X)):item()
  local function ritz(S) -- the n extreme Ritz pairs of span(S); S orthonormal
    local e, C = torch.linalg.eigh(S.mT:matmul(A):matmul(S))
    local m = e:size(1)
    local idx = largest and torch.arange(m, m - n, -1) or torch.arange(1, n + 1)
    return e:index_select(1, idx), C:index_select(2, idx)
  end
  X = torch.linalg.qr(X)
  local E, C = ritz(X)
  X = X:matmul(C)
  local P
  for _ = 1, niter < 0 and math.huge or niter do
    local R = A:matmul(X) - X * E:view(1, n)
    local rnorm = torch.linalg.vector_norm(R, 2, 1)
    local bound = (E:abs() + normA) * tol
    if (rnorm:narrow(1, 1, k) - bound:narrow(1, 1, k)):le(0):all():item() then break end
    local W = iK and iK:matmul(R) or R
    local parts = { X, W }
    if P then parts[3] = P end
    local S = torch.linalg.qr(torch.cat(parts, 2))
    local Enew, Cn = ritz(S)
    local Xnew = S:matmul(Cn)
    P = Xnew - X:matmul(X.mT:matmul(Xnew)) -- the new block's part outside span(X)
    X, E = Xnew, Enew
  end
  if Linv then X = Linv.mT:matmul(X) end
  return E:narrow(1, 1, k), X:narrow(2, 1, k)
end

-- torch.lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, ...) -> E, X: the k largest
-- (or smallest) eigenvalues of A x = e B x and their vectors; A and B symmetric, B
-- positive-definite; X (or n random columns) starts the iteration
function torch.lobpcg(...)
  local o = args.parse("lobpcg", { "A", "k", "B", "X", "n", "iK", "niter", "tol", "largest", "method", "tracker",
    "ortho_iparams", "ortho_fparams", "ortho_bparams" }, {}, ...)
  local A = args.tensor("lobpcg", "A", 1, o.A)
  if A:dim() < 2 or A:size(-1) ~= A:size(-2) then
    error(("lobpcg(): A must be a batch of square matrices, got size %s"):format(tostring(A:size())), 2)
  end
  if o.B ~= nil then
    local same = torch.is_tensor(o.B) and o.B:dim() == A:dim()
    for i = 1, A:dim() do same = same and o.B:size(i) == A:size(i) end
    if not same then error("lobpcg(): B must be a tensor of A's size", 2) end
  end
  if A.requires_grad or (o.B and o.B.requires_grad) then
    error("lobpcg(): the derivative with respect to A and B is not implemented: call it on detached tensors", 2)
  end
  local dtype = A:is_floating_point() and A.dtype or torch.float32
  local tol = o.tol or (dtype == torch.float64 and 2.23e-16 or 1.2e-07) ^ 0.5
  local m = A:size(-1)
  local k = o.k or (o.X == nil and 1 or o.X:size(-1))
  local n = o.X ~= nil and o.X:size(-1) or (o.n or k)
  if m < 3 * n then
    error(("LPBPCG algorithm is not applicable when the number of A rows (=%d) is smaller than 3 x the "
      .. "number of requested eigenpairs (=%d)"):format(m, n), 2)
  end
  if o.method ~= nil and o.method ~= "ortho" and o.method ~= "basic" then
    error(("lobpcg(): method must be 'ortho' or 'basic', got %s"):format(tostring(o.method)), 2)
  end
  local niter = o.niter or 1000
  local largest = o.largest == nil and true or o.largest
  A = A:to(dtype)
  local B = o.B and o.B:to(dtype)
  if A:dim() == 2 then
    local X = o.X and o.X:to(dtype) or torch.randn(m, n, { dtype = dtype })
    return lobpcg_one(A, B, X, o.iK, k, niter, tol, largest)
  end
  local lead = {}
  for i = 1, A:dim() - 2 do lead[i] = A:size(i) end
  local N = A:numel() // (m * m)
  local bA, bB = A:reshape(N, m, m), B and B:reshape(N, m, m)
  local bX = o.X and o.X:to(dtype):reshape(N, m, n)
  local Es, Xs = {}, {}
  for i = 1, N do
    Es[i], Xs[i] = lobpcg_one(bA[i], bB and bB[i], bX and bX[i] or torch.randn(m, n, { dtype = dtype }), o.iK, k,
      niter, tol, largest)
  end
  local eshape, xshape = { table.unpack(lead) }, { table.unpack(lead) }
  eshape[#eshape + 1] = k
  xshape[#xshape + 1], xshape[#xshape + 2] = m, k
  return torch.stack(Es):reshape(eshape), torch.stack(Xs):reshape(xshape)
end
