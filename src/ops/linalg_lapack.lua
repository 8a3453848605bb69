-- torch.linalg and the legacy top-level factorizations, on LAPACK (liblapacke over OpenBLAS).
-- Declared under their ATen names (linalg_<name>); lua/mindtorch/linalg.lua names them without
-- the prefix. The factorizations (lu_factor_ex, lu_solve, lu_unpack, cholesky_ex,
-- solve_triangular ...) are kernels: a meta function (backends/common/linalg_lapack.c) checks
-- and shapes, the CPU kernel (backends/cpu/cpu_lapack.c) calls LAPACK on column-major copies,
-- and their results are laid out column-major as PyTorch's are. Everything else is written
-- with them (backends/common/linalg_comp.c); det, slogdet, inv_ex and solve_ex keep formulas
-- of their own, as PyTorch's do. float32 and float64 only (complex waits for the complex-number
-- issue). Pivots are LAPACK's, 1-based, which is also what a Lua user indexes with.
local fm = "function, method"

local function lu_grad(node, fn, uses) return { node = node, fn = fn, uses = uses } end

-- ---- LU --------------------------------------------------------------------------------------
op { "linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> (Tensor LU, Tensor pivots, Tensor info)",
     doc = "LU factorization with partial pivoting (P A = L U packed in LU), LAPACK's info per matrix.",
     grad = lu_grad("LinalgLuFactorExBackward0", "mt_d_lu_factor_ex", "A: result0, result1") }
op { "linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)",
     doc = "linalg_lu_factor_ex that errors when a U is singular." }
op { "linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)",
     doc = "The LU factorization A = P L U, unpacked." }
op { "lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True) -> (Tensor P, Tensor L, Tensor U)",
     doc = "P, L and U from linalg_lu_factor's packed result.",
     grad = lu_grad("LuUnpackBackward0", "mt_d_lu_unpack", "LU_data:") }
op { "linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> Tensor",
     doc = "Solves A X = B (X A = B when left is false; with A^T when adjoint) from A's LU factorization.",
     grad = lu_grad("LinalgLuSolveBackward0", "mt_d_lu_solve", "LU: LU, pivots, result; B: LU, pivots") }
op { "lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor", variants = fm,
     doc = "linalg_lu_solve(LU_data, LU_pivots, self) (deprecated)." }

-- ---- determinants, inverse, solve ---------------------------------------------------------------
op { "linalg_det(Tensor A) -> Tensor", doc = "The determinant of each square matrix.",
     grad = lu_grad("LinalgDetBackward0", "mt_d_linalg_det", "A: A, result") }
op { "det(Tensor self) -> Tensor", variants = fm, doc = "linalg_det." }
op { "linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)",
     doc = "The sign and the log of the absolute value of the determinant.",
     grad = lu_grad("LinalgSlogdetBackward0", "mt_d_linalg_slogdet", "A: A") }
op { "slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)", variants = fm, doc = "linalg_slogdet." }
op { "logdet(Tensor self) -> Tensor", variants = fm,
     doc = "The log of the determinant (nan when it is negative, -inf when zero)." }
op { "linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)",
     doc = "The inverse of each square matrix, LAPACK's info per matrix.",
     grad = lu_grad("LinalgInvExBackward0", "mt_d_linalg_inv_ex", "A: result0") }
op { "linalg_inv(Tensor A) -> Tensor", doc = "The inverse of each square matrix (errors when singular)." }
op { "inverse(Tensor self) -> Tensor", variants = fm, doc = "linalg_inv." }
op { "linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (Tensor result, Tensor info)",
     doc = "Solves A X = B (X A = B when left is false); B may be a vector; batches broadcast.",
     grad = lu_grad("LinalgSolveExBackward0", "mt_d_linalg_solve_ex", "A: A, result0; B: A") }
op { "linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor",
     doc = "linalg_solve_ex that errors when A is singular." }

-- ---- Cholesky, triangular solves -----------------------------------------------------------------
op { "linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> (Tensor L, Tensor info)",
     doc = "The Cholesky factor (lower, or upper when asked) of symmetric positive-definite matrices.",
     grad = lu_grad("LinalgCholeskyExBackward0", "mt_d_cholesky_ex", "self: result0") }
op { "linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor",
     doc = "linalg_cholesky_ex that errors when a matrix is not positive-definite." }
op { "cholesky(Tensor self, bool upper=False) -> Tensor", variants = fm, doc = "linalg_cholesky (deprecated)." }
op { "cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor", variants = fm,
     doc = "Solves A X = self given A's Cholesky factor input2." }
op { "cholesky_inverse(Tensor self, bool upper=False) -> Tensor", variants = fm,
     doc = "The inverse of A given its Cholesky factor." }
op { "linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False) -> Tensor",
     doc = "Solves self X = B (X self = B when left is false) for triangular self.",
     grad = lu_grad("LinalgSolveTriangularBackward0", "mt_d_solve_triangular", "self: self, result; B: self") }
op { "triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)",
     variants = fm, doc = "Solves A X = self for triangular A (deprecated: linalg_solve_triangular)." }

-- ---- products and helpers of torch.linalg --------------------------------------------------------
op { "linalg_matrix_power(Tensor self, int n) -> Tensor", doc = "The n-th power of each square matrix (the inverse's when n < 0)." }
op { "matrix_power(Tensor self, int n) -> Tensor", variants = fm, doc = "linalg_matrix_power." }
op { "linalg_multi_dot(Tensor[] tensors) -> Tensor",
     doc = "The product of matrices in the cheapest order; the first and last may be vectors." }
op { "linalg_cross(Tensor self, Tensor other, *, Dim dim=-1) -> Tensor", doc = "The cross product of 3-vectors along dim." }
op { "cross(Tensor self, Tensor other, Dim? dim=None) -> Tensor", variants = fm,
     doc = "The cross product along dim (the first dim of size 3 when nil)." }
op { "linalg_diagonal(Tensor(a) A, *, int offset=0, Dim dim1=-2, Dim dim2=-1) -> Tensor(a)",
     doc = "diagonal with the last two dims as default." }
op { "linalg_matmul(Tensor self, Tensor other) -> Tensor", doc = "matmul." }
op { "linalg_vecdot(Tensor x, Tensor y, *, Dim dim=-1) -> Tensor", doc = "Sums of x * y along dim." }
op { "linalg_vander(Tensor x, *, int? N=None) -> Tensor", doc = "The Vandermonde matrix of increasing powers x^0 ... x^(N-1)." }
