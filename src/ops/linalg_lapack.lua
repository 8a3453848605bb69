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

-- ---- QR, eigenvalues, SVD, least squares, LDL ---------------------------------------------------
op { "linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)",
     doc = "The QR factorization ('reduced', 'complete', or 'r': R only).",
     grad = lu_grad("LinalgQrBackward0", "mt_d_linalg_qr", "A: result0, result1") }
op { "qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)", variants = fm,
     doc = "linalg_qr, reduced when some (deprecated)." }
op { "geqrf(Tensor self) -> (Tensor a, Tensor tau)", variants = fm,
     doc = "LAPACK's geqrf: R above the diagonal, the Householder reflectors below, and their scales." }
op { "linalg_householder_product(Tensor input, Tensor tau) -> Tensor",
     doc = "The product of the Householder reflectors held below input's diagonal (LAPACK's orgqr)." }
op { "orgqr(Tensor self, Tensor input2) -> Tensor", variants = fm, doc = "linalg_householder_product." }
op { "ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False) -> Tensor", variants = fm,
     doc = "input3 multiplied by the Q of geqrf's (self, input2) (LAPACK's ormqr)." }
op { "linalg_eigh(Tensor self, str UPLO=\"L\") -> (Tensor eigenvalues, Tensor eigenvectors)",
     doc = "Eigenvalues (ascending) and eigenvectors of symmetric matrices, from the UPLO triangle.",
     grad = lu_grad("LinalgEighBackward0", "mt_d_linalg_eigh", "self: result0, result1") }
op { "linalg_eigvalsh(Tensor self, str UPLO=\"L\") -> Tensor", doc = "The eigenvalues of symmetric matrices." }
op { "symeig(Tensor self, bool eigenvectors=False, bool upper=True) -> (Tensor, Tensor)",
     variants = fm, doc = "linalg_eigh from the upper triangle by default (deprecated)." }
op { "_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)",
     doc = "The singular value decomposition A = U diag(S) Vh (LAPACK's gesdd).",
     grad = lu_grad("LinalgSvdBackward0", "mt_d_linalg_svd", "A: result0, result1, result2") }
op { "linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)",
     doc = "The singular value decomposition A = U diag(S) Vh." }
op { "linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor", doc = "The singular values, descending." }
op { "svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)", variants = fm,
     doc = "The singular value decomposition A = U diag(S) V^T (deprecated: linalg_svd)." }
op { "_linalg_lstsq_raw(Tensor A, Tensor B, float rcond, str driver) -> (Tensor X, Tensor rank, Tensor singular_values)",
     doc = "LAPACK's least-squares drivers on broadcast matrices: X has max(m, n) rows (linalg_lstsq's kernel)." }
op { "linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) -> (Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values)",
     doc = "The least-squares solution of self X = b (drivers gelsy, gels, gelsd, gelss)." }
op { "linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> (Tensor LD, Tensor pivots, Tensor info)",
     doc = "The LDL^T factorization of symmetric matrices (LAPACK's sytrf), with LAPACK's info." }
op { "linalg_ldl_factor(Tensor self, *, bool hermitian=False) -> (Tensor LD, Tensor pivots)",
     doc = "linalg_ldl_factor_ex that errors when it fails." }
op { "linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor",
     doc = "Solves A X = B from A's LDL^T factorization." }

-- ---- functions of the factorizations --------------------------------------------------------------
op { "linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor",
     doc = "The pseudo-inverse; singular values at most max(atol, rtol * the largest) count as zero." }
op { "linalg_pinv(Tensor self, float rcond, bool hermitian=False) -> Tensor", doc = "The pseudo-inverse with rtol = rcond." }
op { "pinverse(Tensor self, float rcond=1e-15) -> Tensor", variants = fm, doc = "linalg_pinv." }
op { "linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor",
     doc = "The number of singular values above max(atol, rtol * the largest)." }
op { "linalg_matrix_rank(Tensor self, float tol, bool hermitian=False) -> Tensor", doc = "The rank with atol = tol." }
op { "linalg_cond(Tensor self, Scalar? p=None) -> Tensor", doc = "The condition number in the p-norm (2 when nil)." }
op { "linalg_cond.p_str(Tensor self, str p) -> Tensor", doc = "The condition number in the 'fro' or 'nuc' norm." }
op { "linalg_vector_norm(Tensor self, Scalar ord=2, Dim[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     doc = "The ord-norm of vectors along dim (all elements when nil)." }
op { "linalg_matrix_norm(Tensor self, Scalar ord, Dim[] dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     doc = "The matrix norm of order 1, -1, 2, -2, inf or -inf over two dims." }
op { "linalg_matrix_norm.str_ord(Tensor self, str ord='fro', Dim[] dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     doc = "The Frobenius ('fro') or nuclear ('nuc') norm over two dims." }
op { "linalg_norm(Tensor self, Scalar? ord=None, Dim[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     doc = "A vector or matrix norm, as dim and the input's dims decide." }
op { "linalg_norm.ord_str(Tensor self, str ord, Dim[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
     doc = "linalg_norm with 'fro' or 'nuc'." }
op { "nuclear_norm(Tensor self, bool keepdim=False) -> Tensor", doc = "The sum of a matrix's singular values." }
op { "nuclear_norm.dim(Tensor self, Dim[2] dim, bool keepdim=False) -> Tensor", doc = "nuclear_norm over two dims." }
op { "frobenius_norm.dim(Tensor self, Dim[1] dim, bool keepdim=False) -> Tensor",
     doc = "The square root of the sum of squares over dims." }
op { "linalg_matrix_exp(Tensor self) -> Tensor", doc = "The matrix exponential (scaling and squaring with a Pade approximant)." }
op { "matrix_exp(Tensor self) -> Tensor", variants = fm, doc = "linalg_matrix_exp." }
op { "linalg_tensorinv(Tensor self, int ind=2) -> Tensor", doc = "The inverse of self seen as a matrix of its first ind dims by the rest." }
op { "linalg_tensorsolve(Tensor self, Tensor other, Dim[]? dims=None) -> Tensor",
     doc = "X with tensordot(self, X, X.ndim) = other." }
