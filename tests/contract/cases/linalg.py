"""torch.linalg and the top-level factorizations against PyTorch (src/ops/linalg_lapack.lua).

Functions of torch.linalg are replayed as torch.linalg_<name> (the same function in Lua).
Matrices are random (uniform in [-3, 3], almost surely nonsingular) or, where a function needs
it, symmetric positive-definite (V: given values)."""
import torch

from _opcase import INTS, T, V, call

CASES = {}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


def la(name):
    return getattr(torch.linalg, name)


def spd(n, batch=(), seed=0, dtype="float32"):
    """A symmetric positive-definite matrix (batch) with fixed values."""
    g = torch.Generator().manual_seed(seed)
    m = torch.rand(list(batch) + [n, n], generator=g, dtype=torch.float64) * 2 - 1
    s = m @ m.mT + n * torch.eye(n, dtype=torch.float64)
    return V(s.tolist(), dtype)


def tri(n, upper, batch=(), seed=0, dtype="float32"):
    """A well-conditioned triangular matrix (batch) with fixed values."""
    g = torch.Generator().manual_seed(seed)
    m = torch.rand(list(batch) + [n, n], generator=g, dtype=torch.float64) * 2 - 1
    m = m + 3 * torch.eye(n, dtype=torch.float64)
    return V((m.triu() if upper else m.tril()).tolist(), dtype)


F, D = "float32", "float64"
TOL = {"float32": 1e-4, "float64": 1e-10}
ERR = {"expect": ["matrices"]}

# ---- LU -------------------------------------------------------------------------------------
for dt in (F, D):
    add("lu_factor_ex_%s" % dt, call("linalg_lu_factor_ex", T(dt, [4, 4]), via=la("lu_factor_ex"), tol=TOL))
    add("lu_factor_%s" % dt, call("linalg_lu_factor", T(dt, [3, 3]), via=la("lu_factor"), tol=TOL))
    add("lu_%s" % dt, call("linalg_lu", T(dt, [3, 3]), via=la("lu"), tol=TOL))
    add("lu_batch_%s" % dt, call("linalg_lu", T(dt, [2, 4, 3]), via=la("lu"), tol=TOL))
add("lu_factor_ex_batch", call("linalg_lu_factor_ex", T(F, [2, 3, 4]), via=la("lu_factor_ex"), tol=TOL))
add("lu_factor_ex_transposed", call("linalg_lu_factor_ex", T(D, [4, 4], "t"), via=la("lu_factor_ex"), tol=TOL))
add("lu_factor_ex_tall", call("linalg_lu_factor_ex", T(D, [5, 3]), via=la("lu_factor_ex"), tol=TOL))
add("lu_factor_ex_empty", call("linalg_lu_factor_ex", T(F, [0, 3, 3]), via=la("lu_factor_ex"), tol=TOL))
add("lu_factor_ex_singular", call("linalg_lu_factor_ex", V([[1.0, 2.0], [2.0, 4.0]]), via=la("lu_factor_ex"), tol=TOL))
add("lu_factor_singular", call("linalg_lu_factor", V([[0.0, 0.0], [0.0, 0.0]]), via=la("lu_factor")))
add("lu_factor_singular_batch", call("linalg_lu_factor", V([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]]),
                                     via=la("lu_factor"), **ERR))
add("lu_factor_ex_check", call("linalg_lu_factor_ex", V([[0.0, 0.0], [0.0, 0.0]]), kw={"check_errors": True},
                               via=la("lu_factor_ex")))
add("lu_factor_nopivot", call("linalg_lu_factor", T(F, [3, 3]), kw={"pivot": False}, via=la("lu_factor")))
add("lu_factor_1d", call("linalg_lu_factor", T(F, [3]), via=la("lu_factor")))
add("lu_factor_int", call("linalg_lu_factor", T("int64", [3, 3]), via=la("lu_factor")))
add("lu_factor_half", call("linalg_lu_factor", T("float16", [3, 3]), via=la("lu_factor")))
add("lu_wide", call("linalg_lu", T(F, [3, 5]), via=la("lu"), tol=TOL))
add("lu_tall", call("linalg_lu", T(D, [5, 2]), via=la("lu"), tol=TOL))


def lu_of(shape, dt=F, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.rand(shape, generator=g, dtype=torch.float64) * 6 - 3
    LU, piv = torch.linalg.lu_factor(a)
    return V(LU.tolist(), dt), V(piv.tolist(), "int32")


for dt in (F, D):
    LU, piv = lu_of([3, 3], dt, 1)
    add("lu_unpack_%s" % dt, call("lu_unpack", LU, piv, tol=TOL))
    add("lu_solve_%s" % dt, call("linalg_lu_solve", LU, piv, T(dt, [3, 2]), via=la("lu_solve"), tol=TOL))
    add("lu_solve_right_%s" % dt, call("linalg_lu_solve", LU, piv, T(dt, [2, 3]), kw={"left": False},
                                        via=la("lu_solve"), tol=TOL))
    add("lu_solve_adjoint_%s" % dt, call("linalg_lu_solve", LU, piv, T(dt, [3, 2]), kw={"adjoint": True},
                                          via=la("lu_solve"), tol=TOL))
    add("lu_solve_right_adjoint_%s" % dt, call("linalg_lu_solve", LU, piv, T(dt, [4, 3]),
                                                kw={"left": False, "adjoint": True}, via=la("lu_solve"), tol=TOL))
LU, piv = lu_of([3, 3], F, 2)
add("lu_solve_batch_b", call("linalg_lu_solve", LU, piv, T(F, [2, 3, 2]), via=la("lu_solve"), tol=TOL))
add("lu_solve_bad_shape", call("linalg_lu_solve", LU, piv, T(F, [2, 2]), via=la("lu_solve")))
add("lu_solve_1d", call("linalg_lu_solve", LU, piv, T(F, [3]), via=la("lu_solve")))
add("lu_solve_dtype", call("linalg_lu_solve", LU, piv, T(D, [3, 2]), via=la("lu_solve")))
add("lu_solve_legacy", call("lu_solve", T(F, [3, 2]), LU, piv, tol=TOL))
add("lu_solve_method", call("lu_solve", T(F, [3, 2]), LU, piv, method=True, tol=TOL))
LUb, pivb = lu_of([2, 4, 3], D, 3)
add("lu_unpack_batch_tall", call("lu_unpack", LUb, pivb, tol=TOL))
LUw, pivw = lu_of([3, 5], F, 4)
add("lu_unpack_wide", call("lu_unpack", LUw, pivw, tol=TOL))
add("lu_unpack_no_data", call("lu_unpack", LUw, pivw, False, tol=TOL))
add("lu_unpack_no_pivots", call("lu_unpack", LUw, pivw, kw={"unpack_pivots": False}, tol=TOL))
add("lu_unpack_long_pivots", call("lu_unpack", LU, V([1, 2, 3], "int64")))
add("lu_unpack_bad_pivot", call("lu_unpack", LU, V([5, 1, 1], "int32")))
add("lu_unpack_1d", call("lu_unpack", T(F, [3]), V([1, 2, 3], "int32")))

# ---- det, slogdet, logdet, inv, solve --------------------------------------------------------
for dt in (F, D):
    add("det_%s" % dt, call("linalg_det", T(dt, [4, 4]), via=la("det"), tol=TOL))
    add("det_top_%s" % dt, call("det", T(dt, [3, 3]), tol=TOL))
    add("slogdet_%s" % dt, call("linalg_slogdet", T(dt, [4, 4]), via=la("slogdet"), tol=TOL))
    add("logdet_%s" % dt, call("logdet", spd(3, dtype=dt), tol=TOL))
    add("inv_%s" % dt, call("linalg_inv", T(dt, [4, 4]), via=la("inv"), tol=TOL))
    add("inv_ex_%s" % dt, call("linalg_inv_ex", T(dt, [3, 3]), via=la("inv_ex"), tol=TOL))
    add("inverse_%s" % dt, call("inverse", T(dt, [3, 3]), tol=TOL))
    add("solve_%s" % dt, call("linalg_solve", T(dt, [3, 3]), T(dt, [3, 2]), via=la("solve"), tol=TOL))
    add("solve_ex_%s" % dt, call("linalg_solve_ex", T(dt, [3, 3]), T(dt, [3]), via=la("solve_ex"), tol=TOL))
add("det_batch", call("linalg_det", T(F, [2, 3, 3]), via=la("det"), tol=TOL))
add("det_transposed", call("linalg_det", T(D, [3, 3], "t"), via=la("det"), tol=TOL))
add("det_singular", call("linalg_det", V([[1.0, 2.0], [2.0, 4.0]]), via=la("det"), tol=TOL))
add("det_empty", call("linalg_det", T(F, [0, 0]), via=la("det"), tol=TOL))
add("det_method", call("det", T(F, [3, 3]), method=True, tol=TOL))
add("det_1d", call("linalg_det", T(F, [3]), via=la("det")))
add("det_nonsquare", call("linalg_det", T(F, [2, 3]), via=la("det")))
add("det_int", call("linalg_det", T("int32", [3, 3]), via=la("det")))
add("det_half", call("linalg_det", T("float16", [3, 3]), via=la("det")))
add("slogdet_batch", call("linalg_slogdet", T(D, [3, 2, 2]), via=la("slogdet"), tol=TOL))
add("slogdet_singular", call("linalg_slogdet", V([[1.0, 2.0], [2.0, 4.0]]), via=la("slogdet"), tol=TOL))
add("slogdet_top", call("slogdet", T(F, [3, 3]), tol=TOL))
add("slogdet_int", call("linalg_slogdet", T("int32", [3, 3]), via=la("slogdet")))
add("logdet_negative", call("logdet", V([[0.0, 1.0], [1.0, 0.0]]), tol=TOL))
add("logdet_singular", call("logdet", V([[1.0, 2.0], [2.0, 4.0]]), tol=TOL))
add("logdet_int", call("logdet", T("int32", [3, 3])))
add("logdet_1d", call("logdet", T(F, [3])))
add("inv_batch", call("linalg_inv", T(F, [2, 3, 3]), via=la("inv"), tol=TOL))
add("inv_transposed", call("linalg_inv", T(D, [3, 3], "t"), via=la("inv"), tol=TOL))
add("inv_empty", call("linalg_inv", T(F, [0, 0]), via=la("inv"), tol=TOL))
add("inv_singular", call("linalg_inv", V([[0.0, 0.0], [0.0, 0.0]]), via=la("inv")))
add("inv_singular_batch", call("linalg_inv", V([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [1.0, 1.0]]]),
                               via=la("inv"), **ERR))
add("inv_ex_singular", call("linalg_inv_ex", V([[1.0, 1.0], [1.0, 1.0]]), via=la("inv_ex")))
add("inv_1d", call("linalg_inv", T(F, [3]), via=la("inv")))
add("inv_nonsquare", call("linalg_inv", T(F, [2, 3]), via=la("inv")))
add("inv_int", call("linalg_inv", T("int64", [3, 3]), via=la("inv")))
add("inv_half", call("linalg_inv", T("float16", [3, 3]), via=la("inv")))
add("inverse_method", call("inverse", T(F, [3, 3]), method=True, tol=TOL))
add("solve_vector", call("linalg_solve", T(F, [3, 3]), T(F, [3]), via=la("solve"), tol=TOL))
add("solve_batch_b", call("linalg_solve", T(F, [3, 3]), T(F, [4, 3, 2]), via=la("solve"), tol=TOL))
add("solve_batch_vectors", call("linalg_solve", T(D, [2, 3, 3]), T(D, [2, 3]), via=la("solve"), tol=TOL))
add("solve_right", call("linalg_solve", T(F, [3, 3]), T(F, [2, 3]), kw={"left": False}, via=la("solve"), tol=TOL))
add("solve_right_vector", call("linalg_solve", T(D, [3, 3]), T(D, [3]), kw={"left": False}, via=la("solve"), tol=TOL))
add("solve_transposed", call("linalg_solve", T(D, [3, 3], "t"), T(D, [3, 2], "t"), via=la("solve"), tol=TOL))
add("solve_singular", call("linalg_solve", V([[0.0, 0.0], [0.0, 0.0]]), V([1.0, 2.0]), via=la("solve")))
add("solve_bad_shape", call("linalg_solve", T(F, [3, 3]), T(F, [2]), via=la("solve")))
add("solve_dtypes", call("linalg_solve", T(F, [3, 3]), T(D, [3]), via=la("solve")))
add("solve_1d", call("linalg_solve", T(F, [3]), T(F, [3]), via=la("solve")))
add("solve_int", call("linalg_solve", T("int32", [3, 3]), T("int32", [3]), via=la("solve")))

# ---- Cholesky, triangular ---------------------------------------------------------------------
for dt in (F, D):
    add("cholesky_%s" % dt, call("linalg_cholesky", spd(4, dtype=dt), via=la("cholesky"), tol=TOL))
    add("cholesky_upper_%s" % dt, call("linalg_cholesky", spd(3, seed=1, dtype=dt), kw={"upper": True},
                                        via=la("cholesky"), tol=TOL))
    add("cholesky_ex_%s" % dt, call("linalg_cholesky_ex", spd(3, seed=2, dtype=dt), via=la("cholesky_ex"), tol=TOL))
    add("cholesky_top_%s" % dt, call("cholesky", spd(3, seed=3, dtype=dt), tol=TOL))
    add("cholesky_solve_%s" % dt, call("cholesky_solve", T(dt, [3, 2]), V(torch.linalg.cholesky(
        torch.tensor(spd(3, seed=4).values, dtype=torch.float64)).tolist(), dt), tol=TOL))
    add("cholesky_inverse_%s" % dt, call("cholesky_inverse", V(torch.linalg.cholesky(
        torch.tensor(spd(3, seed=5).values, dtype=torch.float64)).tolist(), dt), tol=TOL))
    add("solve_triangular_%s" % dt, call("linalg_solve_triangular", tri(3, True, dtype=dt), T(dt, [3, 2]),
                                          kw={"upper": True}, via=la("solve_triangular"), tol=TOL))
    add("triangular_solve_%s" % dt, call("triangular_solve", T(dt, [3, 2]), tri(3, True, seed=1, dtype=dt), tol=TOL))
add("cholesky_batch", call("linalg_cholesky", spd(3, batch=(2,), seed=6), via=la("cholesky"), tol=TOL))
add("cholesky_not_pd", call("linalg_cholesky", V([[1.0, 2.0], [2.0, 1.0]]), via=la("cholesky")))
add("cholesky_not_pd_batch", call("linalg_cholesky", V([[[1.0, 0.0], [0.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]]]),
                                  via=la("cholesky"), **ERR))
add("cholesky_ex_not_pd", call("linalg_cholesky_ex", V([[1.0, 2.0], [2.0, 1.0]]), via=la("cholesky_ex"), tol=TOL))
add("cholesky_nonsquare", call("linalg_cholesky", T(F, [2, 3]), via=la("cholesky")))
add("cholesky_1d", call("linalg_cholesky", T(F, [3]), via=la("cholesky")))
add("cholesky_int", call("linalg_cholesky", T("int32", [3, 3]), via=la("cholesky")))
add("cholesky_half", call("linalg_cholesky", T("float16", [3, 3]), via=la("cholesky")))
add("cholesky_method", call("cholesky", spd(3, seed=7), method=True, tol=TOL))
add("cholesky_solve_upper", call("cholesky_solve", T(D, [3, 2]), V(torch.linalg.cholesky(
    torch.tensor(spd(3, seed=8).values, dtype=torch.float64), upper=True).tolist(), D), True, tol=TOL))
add("cholesky_solve_1d", call("cholesky_solve", T(F, [3]), tri(3, False)))
add("cholesky_solve_nonsquare", call("cholesky_solve", T(F, [3, 2]), T(F, [3, 2])))
add("cholesky_inverse_upper", call("cholesky_inverse", tri(3, True, seed=9), True, tol=TOL))
add("cholesky_inverse_1d", call("cholesky_inverse", T(F, [3])))
add("solve_triangular_lower", call("linalg_solve_triangular", tri(3, False, seed=2), T(F, [3, 4]),
                                   kw={"upper": False}, via=la("solve_triangular"), tol=TOL))
add("solve_triangular_right", call("linalg_solve_triangular", tri(3, True, seed=3), T(F, [2, 3]),
                                   kw={"upper": True, "left": False}, via=la("solve_triangular"), tol=TOL))
add("solve_triangular_unit", call("linalg_solve_triangular", tri(3, False, seed=4), T(D, [3, 2]),
                                  kw={"upper": False, "unitriangular": True}, via=la("solve_triangular"), tol=TOL))
add("solve_triangular_batch", call("linalg_solve_triangular", tri(3, True, batch=(2,), seed=5), T(F, [3, 2]),
                                   kw={"upper": True}, via=la("solve_triangular"), tol=TOL))
add("solve_triangular_dtypes", call("linalg_solve_triangular", tri(3, True, seed=6), T(D, [3, 2]),
                                    kw={"upper": True}, via=la("solve_triangular"), tol=TOL))
add("solve_triangular_1d", call("linalg_solve_triangular", tri(3, True), T(F, [3]), kw={"upper": True},
                                via=la("solve_triangular")))
add("solve_triangular_shape", call("linalg_solve_triangular", tri(3, True), T(F, [2, 2]), kw={"upper": True},
                                   via=la("solve_triangular")))
add("solve_triangular_int", call("linalg_solve_triangular", T("int32", [3, 3]), T("int32", [3, 2]),
                                 kw={"upper": True}, via=la("solve_triangular")))
add("triangular_solve_lower_t", call("triangular_solve", T(F, [3, 2]), tri(3, False, seed=7), False, True,
                                     tol=TOL))
add("triangular_solve_1d", call("triangular_solve", T(F, [3]), tri(3, True)))

# ---- matrix_power, multi_dot, cross, vecdot, vander, diagonal, matmul --------------------------
for dt in (F, D):
    add("matrix_power_3_%s" % dt, call("linalg_matrix_power", T(dt, [3, 3]), 3, via=la("matrix_power"), tol=TOL))
    add("matrix_power_neg_%s" % dt, call("linalg_matrix_power", spd(3, dtype=dt), -2, via=la("matrix_power"), tol=TOL))
add("matrix_power_0", call("linalg_matrix_power", T(F, [2, 3, 3]), 0, via=la("matrix_power"), tol=TOL))
add("matrix_power_1", call("linalg_matrix_power", T(F, [3, 3], "t"), 1, via=la("matrix_power"), tol=TOL))
add("matrix_power_int", call("linalg_matrix_power", T("int64", [3, 3]), 5, via=la("matrix_power")))
add("matrix_power_int_neg", call("linalg_matrix_power", T("int64", [3, 3]), -1, via=la("matrix_power")))
add("matrix_power_1d", call("linalg_matrix_power", T(F, [3]), 2, via=la("matrix_power")))
add("matrix_power_top", call("matrix_power", T(F, [3, 3]), 2, tol=TOL))
add("matrix_power_method", call("matrix_power", T(D, [2, 2]), 7, method=True, tol=TOL))
add("multi_dot_vectors", call("linalg_multi_dot", [T(F, [3]), T(F, [3, 4]), T(F, [4])], via=la("multi_dot"), tol=TOL))
add("multi_dot_chain", call("linalg_multi_dot", [T(D, [10, 2]), T(D, [2, 8]), T(D, [8, 3]), T(D, [3, 7])],
                            via=la("multi_dot"), tol=TOL))
add("multi_dot_two", call("linalg_multi_dot", [T(F, [2, 3]), T(F, [3])], via=la("multi_dot"), tol=TOL))
add("multi_dot_one", call("linalg_multi_dot", [T(F, [2, 3])], via=la("multi_dot")))
add("multi_dot_3d", call("linalg_multi_dot", [T(F, [3, 3]), T(F, [2, 3, 3])], via=la("multi_dot")))
add("multi_dot_dtypes", call("linalg_multi_dot", [T(F, [3, 3]), T(D, [3, 3])], via=la("multi_dot"), **ERR))
add("multi_dot_shapes", call("linalg_multi_dot", [T(F, [3, 3]), T(F, [2, 3])], via=la("multi_dot"), **ERR))
for dt in (F, D, "int64"):
    add("cross_%s" % dt, call("linalg_cross", T(dt, [2, 3]), T(dt, [2, 3]), via=la("cross"), tol=TOL))
add("cross_dim", call("linalg_cross", T(F, [3, 2]), T(F, [3, 2]), kw={"dim": 0}, dims=("dim",), via=la("cross"), tol=TOL))
add("cross_broadcast", call("linalg_cross", T(F, [2, 3]), T(F, [1, 3]), via=la("cross"), tol=TOL))
add("cross_bad_size", call("linalg_cross", T(F, [2, 4]), T(F, [2, 4]), via=la("cross")))
add("cross_ranks", call("linalg_cross", T(F, [2, 3]), T(F, [3]), via=la("cross")))
add("cross_top_dim", call("cross", T(F, [3, 2]), T(F, [3, 2]), 0, dims=(2,), tol=TOL))
add("cross_top_default", call("cross", T(F, [2, 3]), T(F, [2, 3]), tol=TOL))
add("cross_top_no_3", call("cross", T(F, [2, 4]), T(F, [2, 4])))
add("cross_top_bad", call("cross", T(F, [2, 3]), T(F, [3, 2]), expect=["dims"]))
add("cross_method", call("cross", T(D, [3]), T(D, [3]), method=True, tol=TOL))
add("vecdot", call("linalg_vecdot", T(F, [2, 3]), T(F, [3]), via=la("vecdot"), tol=TOL))
add("vecdot_dim", call("linalg_vecdot", T(D, [3, 2]), T(D, [3, 2]), kw={"dim": 0}, dims=("dim",),
                       via=la("vecdot"), tol=TOL))
add("vecdot_dtypes", call("linalg_vecdot", T(F, [3]), T(D, [3]), via=la("vecdot")))
for dt in (F, "int64"):
    add("vander_%s" % dt, call("linalg_vander", T(dt, [3]), via=la("vander"), tol=TOL))
add("vander_N", call("linalg_vander", T(F, [2, 3]), kw={"N": 4}, via=la("vander"), tol=TOL))
add("vander_N1", call("linalg_vander", T(F, [3]), kw={"N": 1}, via=la("vander")))
add("vander_0d", call("linalg_vander", T(F, []), via=la("vander")))
add("diagonal", call("linalg_diagonal", T(F, [2, 3, 4]), via=la("diagonal")))
add("diagonal_offset", call("linalg_diagonal", T(F, [3, 4, 2]), kw={"offset": 1, "dim1": 0, "dim2": 1},
                            dims=("dim1", "dim2"), via=la("diagonal")))
add("matmul", call("linalg_matmul", T(F, [2, 3]), T(F, [3, 4]), via=la("matmul"), tol=TOL))

# ---- QR, eigh, SVD, least squares, LDL -------------------------------------------------------------
for dt in (F, D):
    add("qr_%s" % dt, call("linalg_qr", T(dt, [4, 3]), via=la("qr"), tol=TOL))
    add("eigh_%s" % dt, call("linalg_eigh", spd(4, seed=11, dtype=dt), via=la("eigh"), tol=TOL))
    add("svd_%s" % dt, call("linalg_svd", T(dt, [4, 3]), via=la("svd"), tol=TOL))
    add("lstsq_%s" % dt, call("linalg_lstsq", T(dt, [5, 3]), T(dt, [5, 2]), via=la("lstsq"), tol=TOL))
    add("ldl_factor_%s" % dt, call("linalg_ldl_factor", spd(3, seed=12, dtype=dt), via=la("ldl_factor"), tol=TOL))
    add("geqrf_%s" % dt, call("geqrf", T(dt, [4, 3]), tol=TOL))
add("qr_complete", call("linalg_qr", T(F, [4, 3]), "complete", via=la("qr"), tol=TOL))
add("qr_r", call("linalg_qr", T(D, [4, 3]), kw={"mode": "r"}, via=la("qr"), tol=TOL))
add("qr_wide", call("linalg_qr", T(D, [2, 4]), via=la("qr"), tol=TOL))
add("qr_wide_complete", call("linalg_qr", T(D, [2, 4]), kw={"mode": "complete"}, via=la("qr"), tol=TOL))
add("qr_batch", call("linalg_qr", T(F, [2, 4, 3]), via=la("qr"), tol=TOL))
add("qr_transposed", call("linalg_qr", T(D, [3, 3], "t"), via=la("qr"), tol=TOL))
add("qr_bad_mode", call("linalg_qr", T(F, [3, 3]), "x", via=la("qr")))
add("qr_1d", call("linalg_qr", T(F, [3]), via=la("qr")))
add("qr_int", call("linalg_qr", T("int64", [3, 3]), via=la("qr")))
add("qr_half", call("linalg_qr", T("float16", [3, 3]), via=la("qr")))
add("qr_legacy", call("qr", T(F, [4, 3]), tol=TOL))
add("qr_legacy_full", call("qr", T(D, [4, 3]), False, tol=TOL))
add("qr_method", call("qr", T(D, [3, 3]), method=True, tol=TOL))
add("geqrf_wide", call("geqrf", T(D, [2, 4]), tol=TOL))
add("geqrf_1d", call("geqrf", T(F, [3])))
add("geqrf_int", call("geqrf", T("int64", [3, 3])))
a, tau = torch.geqrf(torch.rand(4, 3, generator=torch.Generator().manual_seed(5), dtype=torch.float64))
for dt in (F, D):
    add("householder_product_%s" % dt, call("linalg_householder_product", V(a.tolist(), dt), V(tau.tolist(), dt),
                                             via=la("householder_product"), tol=TOL))
    add("ormqr_%s" % dt, call("ormqr", V(a.tolist(), dt), V(tau.tolist(), dt), T(dt, [4, 2]), tol=TOL))
add("householder_product_fewer", call("linalg_householder_product", V(a.tolist(), D), V(tau[:2].tolist(), D),
                                      via=la("householder_product"), tol=TOL))
add("orgqr", call("orgqr", V(a.tolist(), F), V(tau.tolist(), F), tol=TOL))
add("householder_product_1d", call("linalg_householder_product", T(F, [4]), T(F, [2]), via=la("householder_product")))
add("householder_product_wide", call("linalg_householder_product", T(F, [3, 4]), T(F, [2]), via=la("householder_product")))
add("householder_product_tau", call("linalg_householder_product", T(F, [4, 3]), T(F, [4]), via=la("householder_product")))
add("householder_product_tau_dtype", call("linalg_householder_product", T(F, [4, 3]), T(D, [3]),
                                          via=la("householder_product")))
add("householder_product_batch", call("linalg_householder_product", T(F, [2, 4, 3]), T(F, [3, 3]),
                                      via=la("householder_product")))
add("householder_product_int", call("linalg_householder_product", T("int64", [4, 3]), T("int64", [3]),
                                    via=la("householder_product")))
add("ormqr_right_t", call("ormqr", V(a.tolist(), D), V(tau.tolist(), D), T(D, [2, 4]), False, True, tol=TOL))
add("ormqr_1d", call("ormqr", T(F, [4]), T(F, [3]), T(F, [4, 2])))
add("ormqr_other_1d", call("ormqr", T(F, [4, 3]), T(F, [3]), T(F, [4])))
add("ormqr_rows", call("ormqr", T(F, [4, 3]), T(F, [3]), T(F, [3, 2])))
add("ormqr_tau", call("ormqr", T(F, [4, 3]), T(F, [5]), T(F, [4, 2])))
add("ormqr_dtypes", call("ormqr", T(F, [4, 3]), T(F, [3]), T(D, [4, 2])))
add("eigh_upper", call("linalg_eigh", spd(3, seed=13, dtype=D), "U", via=la("eigh"), tol=TOL))
add("eigh_batch", call("linalg_eigh", spd(3, batch=(2,), seed=14), via=la("eigh"), tol=TOL))
add("eigh_bad_uplo", call("linalg_eigh", spd(3), "X", via=la("eigh")))
add("eigh_1d", call("linalg_eigh", T(F, [3]), via=la("eigh")))
add("eigh_int", call("linalg_eigh", T("int64", [3, 3]), via=la("eigh")))
add("eigh_nonsquare", call("linalg_eigh", T(F, [3, 2]), via=la("eigh")))
add("eigvalsh", call("linalg_eigvalsh", spd(4, seed=15, dtype=D), via=la("eigvalsh"), tol=TOL))
add("eigvalsh_nonsquare", call("linalg_eigvalsh", T(F, [3, 2]), via=la("eigvalsh")))
add("symeig", call("symeig", spd(3, seed=16, dtype=D), True, tol=TOL))
add("symeig_values", call("symeig", spd(3, seed=17, dtype=D), tol=TOL))
add("symeig_1d", call("symeig", T(F, [3])))
add("svd_reduced", call("linalg_svd", T(D, [4, 3]), False, via=la("svd"), tol=TOL))
add("svd_wide", call("linalg_svd", T(D, [2, 4]), via=la("svd"), tol=TOL))
add("svd_batch", call("linalg_svd", T(D, [2, 3, 3]), kw={"full_matrices": False}, via=la("svd"), tol=TOL))
add("svd_1d", call("linalg_svd", T(F, [3]), via=la("svd")))
add("svd_int", call("linalg_svd", T("int64", [3, 3]), via=la("svd")))
add("svd_half", call("linalg_svd", T("float16", [3, 3]), via=la("svd")))
add("svd_driver", call("linalg_svd", T(F, [3, 3]), kw={"driver": "gesvd"}, via=la("svd")))
add("svdvals", call("linalg_svdvals", T(D, [4, 3]), via=la("svdvals"), tol=TOL))
add("svdvals_1d", call("linalg_svdvals", T(F, [3]), via=la("svdvals")))
add("svd_legacy", call("svd", T(D, [4, 3]), tol=TOL))
add("svd_legacy_full", call("svd", T(D, [4, 3]), False, tol=TOL))
add("svd_legacy_no_uv", call("svd", T(D, [4, 3]), kw={"compute_uv": False}, tol=TOL))
add("svd_legacy_1d", call("svd", T(F, [3])))
add("svd_method", call("svd", T(D, [3, 3]), method=True, tol=TOL))
add("lstsq_vector", call("linalg_lstsq", T(D, [4, 3]), T(D, [4]), via=la("lstsq"), tol=TOL))
for drv in ("gels", "gelsd", "gelss", "gelsy"):
    add("lstsq_%s" % drv, call("linalg_lstsq", T(D, [5, 3]), T(D, [5, 2]), kw={"driver": drv}, via=la("lstsq"), tol=TOL))
    add("lstsq_wide_%s" % drv, call("linalg_lstsq", T(D, [2, 4]), T(D, [2, 3]), kw={"driver": drv}, via=la("lstsq"),
                                     tol=TOL))
add("lstsq_rank_deficient", call("linalg_lstsq", V([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]], D), T(D, [3, 2]),
                                 kw={"driver": "gelsd"}, via=la("lstsq"), tol=TOL))
add("lstsq_batch", call("linalg_lstsq", T(D, [2, 4, 3]), T(D, [4, 2]), kw={"driver": "gelsd"}, via=la("lstsq"),
                        tol=TOL))
add("lstsq_rcond", call("linalg_lstsq", T(D, [4, 3]), T(D, [4, 1]), 0.5, kw={"driver": "gelss"}, via=la("lstsq"),
                        tol=TOL))
add("lstsq_bad_driver", call("linalg_lstsq", T(F, [4, 3]), T(F, [4, 2]), kw={"driver": "foo"}, via=la("lstsq")))
add("lstsq_1d", call("linalg_lstsq", T(F, [3]), T(F, [3]), via=la("lstsq")))
add("lstsq_rows", call("linalg_lstsq", T(F, [3, 2]), T(F, [4, 2]), via=la("lstsq")))
add("lstsq_vector_rows", call("linalg_lstsq", T(F, [3, 2]), T(F, [2]), via=la("lstsq")))
add("lstsq_ranks", call("linalg_lstsq", T(F, [2, 0, 3]), T(F, [3]), via=la("lstsq")))
add("lstsq_ranks_b", call("linalg_lstsq", T(F, [4, 3]), T(F, [2, 3, 4, 1]), via=la("lstsq")))
add("lstsq_dtypes", call("linalg_lstsq", T(F, [3, 2]), T(D, [3, 2]), via=la("lstsq")))
add("lstsq_int", call("linalg_lstsq", T("int64", [3, 2]), T("int64", [3, 2]), via=la("lstsq")))
add("ldl_factor_ex", call("linalg_ldl_factor_ex", spd(3, seed=18, dtype=D), via=la("ldl_factor_ex"), tol=TOL))
add("ldl_factor_indefinite", call("linalg_ldl_factor", V([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]], D),
                                  via=la("ldl_factor"), tol=TOL))
add("ldl_factor_ex_singular", call("linalg_ldl_factor_ex", V([[0.0, 0.0], [0.0, 0.0]]), via=la("ldl_factor_ex"),
                                   tol=TOL))
add("ldl_factor_1d", call("linalg_ldl_factor", T(F, [3]), via=la("ldl_factor")))
add("ldl_factor_nonsquare", call("linalg_ldl_factor", T(F, [3, 2]), via=la("ldl_factor")))
add("ldl_factor_int", call("linalg_ldl_factor", T("int64", [3, 3]), via=la("ldl_factor")))
ld_in = torch.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]], dtype=torch.float64)
LD, ldp = torch.linalg.ldl_factor(ld_in)
add("ldl_solve", call("linalg_ldl_solve", V(LD.tolist(), D), V(ldp.tolist(), "int32"), T(D, [3, 2]),
                      via=la("ldl_solve"), tol=TOL))
add("ldl_solve_long_pivots", call("linalg_ldl_solve", V(LD.tolist(), D), V(ldp.tolist(), "int64"), T(D, [3, 2]),
                                  via=la("ldl_solve"), tol=TOL))
add("ldl_solve_shape", call("linalg_ldl_solve", V(LD.tolist(), D), V(ldp.tolist(), "int32"), T(D, [2, 2]),
                            via=la("ldl_solve")))
add("ldl_solve_dtypes", call("linalg_ldl_solve", V(LD.tolist(), D), V(ldp.tolist(), "int32"), T(F, [3, 2]),
                             via=la("ldl_solve")))

# ---- pinv, matrix_rank, cond, norms, matrix_exp, tensorinv, tensorsolve --------------------------------
for dt in (F, D):
    add("pinv_%s" % dt, call("linalg_pinv", T(dt, [4, 3]), via=la("pinv"), tol=TOL))
    add("matrix_rank_%s" % dt, call("linalg_matrix_rank", T(dt, [4, 3]), via=la("matrix_rank")))
    add("cond_%s" % dt, call("linalg_cond", T(dt, [3, 3]), via=la("cond"), tol=TOL))
    add("matrix_exp_%s" % dt, call("linalg_matrix_exp", T(dt, [3, 3]), via=la("matrix_exp"), tol=TOL))
    add("vector_norm_%s" % dt, call("linalg_vector_norm", T(dt, [3, 4]), via=la("vector_norm"), tol=TOL))
    add("matrix_norm_%s" % dt, call("linalg_matrix_norm", T(dt, [3, 4]), via=la("matrix_norm"), tol=TOL))
    add("norm_%s" % dt, call("linalg_norm", T(dt, [3, 4]), via=la("norm"), tol=TOL))
add("pinv_hermitian", call("linalg_pinv", spd(3, seed=19, dtype=D), kw={"hermitian": True}, via=la("pinv"), tol=TOL))
add("pinv_rcond", call("linalg_pinv", V([[1.0, 0.0], [0.0, 1e-3]], D), 0.01, via=la("pinv"), tol=TOL))
add("pinv_atol", call("linalg_pinv", V([[1.0, 0.0], [0.0, 1e-3]], D), kw={"atol": 0.01}, via=la("pinv"), tol=TOL))
add("pinv_rtol", call("linalg_pinv", V([[2.0, 0.0], [0.0, 1e-3]], D), kw={"rtol": 0.01}, via=la("pinv"), tol=TOL))
add("pinv_batch_wide", call("linalg_pinv", T(D, [2, 2, 3]), via=la("pinv"), tol=TOL))
add("pinv_1d", call("linalg_pinv", T(F, [3]), via=la("pinv")))
add("pinv_int", call("linalg_pinv", T("int64", [3, 3]), via=la("pinv")))
add("pinverse", call("pinverse", T(F, [4, 3]), tol=TOL))
add("pinverse_method", call("pinverse", V([[1.0, 0.0], [0.0, 1e-3]], D), 0.01, method=True, tol=TOL))
add("matrix_rank_deficient", call("linalg_matrix_rank", V([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]], D),
                                  via=la("matrix_rank")))
add("matrix_rank_tol", call("linalg_matrix_rank", V([[1.0, 0.0], [0.0, 1e-3]], D), 0.01, via=la("matrix_rank")))
add("matrix_rank_atol", call("linalg_matrix_rank", V([[1.0, 0.0], [0.0, 1e-3]], D), kw={"atol": 0.01},
                             via=la("matrix_rank")))
add("matrix_rank_hermitian", call("linalg_matrix_rank", V([[1.0, 1.0], [1.0, 1.0]], D), kw={"hermitian": True},
                                  via=la("matrix_rank")))
add("matrix_rank_batch", call("linalg_matrix_rank", T(F, [2, 3, 3]), via=la("matrix_rank")))
add("matrix_rank_1d", call("linalg_matrix_rank", T(F, [3]), via=la("matrix_rank")))
add("matrix_rank_int", call("linalg_matrix_rank", T("int64", [3, 3]), via=la("matrix_rank")))
for p in (2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc"):
    add("cond_p_%s" % p, call("linalg_cond", T(D, [3, 3]), p, via=la("cond"), tol=TOL))
add("cond_nonsquare_2", call("linalg_cond", T(D, [4, 3]), via=la("cond"), tol=TOL))
add("cond_bad_p", call("linalg_cond", T(F, [3, 3]), 3, via=la("cond")))
add("cond_1d", call("linalg_cond", T(F, [3]), via=la("cond")))
add("cond_nonsquare_1", call("linalg_cond", T(F, [3, 2]), 1, via=la("cond")))
for o in (0, 1, 3, float("inf"), float("-inf"), -1):
    add("vector_norm_ord_%s" % o, call("linalg_vector_norm", T(D, [3, 4]), o, via=la("vector_norm"), tol=TOL))
add("vector_norm_dim", call("linalg_vector_norm", T(D, [3, 4]), 2, 1, True, via=la("vector_norm"), dims=(2,), tol=TOL))
add("vector_norm_dims", call("linalg_vector_norm", T(D, [2, 3, 4]), kw={"dim": [0, 2]}, dims=("dim",),
                             via=la("vector_norm"), tol=TOL))
add("vector_norm_keepdim_all", call("linalg_vector_norm", T(F, [2, 3]), kw={"keepdim": True}, via=la("vector_norm"),
                                    tol=TOL))
add("vector_norm_dtype", call("linalg_vector_norm", T(F, [3]), kw={"dtype": torch.float64}, via=la("vector_norm"),
                              tol=TOL))
add("vector_norm_0d", call("linalg_vector_norm", T(F, []), via=la("vector_norm"), tol=TOL))
add("vector_norm_int", call("linalg_vector_norm", T("int64", [3]), via=la("vector_norm")))
for o in (1, -1, 2, -2, float("inf"), float("-inf"), "fro", "nuc"):
    add("matrix_norm_ord_%s" % o, call("linalg_matrix_norm", T(D, [3, 4]), o, via=la("matrix_norm"), tol=TOL))
add("matrix_norm_dims", call("linalg_matrix_norm", T(D, [3, 2, 4]), 1, [2, 0], via=la("matrix_norm"), dims=(2,),
                             tol=TOL))
add("matrix_norm_keepdim_nuc", call("linalg_matrix_norm", T(D, [2, 3, 4]), "nuc", kw={"keepdim": True},
                                    via=la("matrix_norm"), tol=TOL))
add("matrix_norm_keepdim_inf", call("linalg_matrix_norm", T(D, [3, 4]), float("inf"), kw={"keepdim": True},
                                    via=la("matrix_norm"), tol=TOL))
add("matrix_norm_bad", call("linalg_matrix_norm", T(F, [3, 4]), 3, via=la("matrix_norm")))
add("matrix_norm_bad_str", call("linalg_matrix_norm", T(F, [3, 4]), "foo", via=la("matrix_norm")))
add("matrix_norm_1d", call("linalg_matrix_norm", T(F, [3]), via=la("matrix_norm")))
add("matrix_norm_int", call("linalg_matrix_norm", T("int64", [3, 3]), via=la("matrix_norm")))
add("norm_ord_1d", call("linalg_norm", T(D, [4]), 3, via=la("norm"), tol=TOL))
add("norm_ord_2d", call("linalg_norm", T(D, [3, 4]), float("inf"), via=la("norm"), tol=TOL))
add("norm_nuc", call("linalg_norm", T(D, [3, 4]), "nuc", via=la("norm"), tol=TOL))
add("norm_dim", call("linalg_norm", T(D, [3, 4]), kw={"dim": 1}, dims=("dim",), via=la("norm"), tol=TOL))
add("norm_dims", call("linalg_norm", T(D, [2, 3, 4]), kw={"dim": [0, 2]}, dims=("dim",), via=la("norm"), tol=TOL))
add("norm_3d_ord", call("linalg_norm", T(F, [2, 2, 2]), 2, via=la("norm")))
add("norm_str_1d", call("linalg_norm", T(F, [2]), "fro", via=la("norm")))
add("nuclear_norm", call("nuclear_norm", T(D, [3, 4]), tol=TOL))
add("nuclear_norm_dim", call("nuclear_norm", T(D, [3, 2, 4]), [0, 2], True, dims=(1,), tol=TOL))
add("nuclear_norm_1d", call("nuclear_norm", T(F, [3])))
add("frobenius_norm", call("frobenius_norm", T(D, [3, 4]), [0, 1], dims=(1,), tol=TOL))
add("frobenius_norm_1", call("frobenius_norm", T(D, [3, 4]), [1], dims=(1,), tol=TOL))
add("matrix_exp_big", call("linalg_matrix_exp", V([[1.0, 20.0], [-3.0, 2.0]], D), via=la("matrix_exp"), tol=TOL))
add("matrix_exp_batch", call("linalg_matrix_exp", T(D, [2, 3, 3]), via=la("matrix_exp"), tol=TOL))
add("matrix_exp_top", call("matrix_exp", T(D, [2, 2]), tol=TOL))
add("matrix_exp_method", call("matrix_exp", T(D, [2, 2]), method=True, tol=TOL))
add("matrix_exp_1d", call("linalg_matrix_exp", T(F, [3]), via=la("matrix_exp")))
add("matrix_exp_int", call("linalg_matrix_exp", T("int64", [3, 3]), via=la("matrix_exp")))
add("matrix_exp_nonsquare", call("linalg_matrix_exp", T(F, [3, 2]), via=la("matrix_exp")))
add("tensorinv", call("linalg_tensorinv", T(D, [4, 6, 8, 3]), kw={"ind": 2}, via=la("tensorinv"), tol=TOL))
add("tensorinv_1", call("linalg_tensorinv", T(D, [6, 2, 3]), kw={"ind": 1}, via=la("tensorinv"), tol=TOL))
add("tensorinv_bad", call("linalg_tensorinv", T(F, [4, 6, 8, 2]), kw={"ind": 2}, via=la("tensorinv")))
add("tensorinv_ind", call("linalg_tensorinv", T(F, [4, 4]), kw={"ind": 0}, via=la("tensorinv")))
add("tensorsolve", call("linalg_tensorsolve", T(D, [2, 3, 6]), T(D, [2, 3]), via=la("tensorsolve"), tol=TOL))
add("tensorsolve_dims", call("linalg_tensorsolve", T(D, [6, 2, 3]), T(D, [2, 3]), kw={"dims": [0]}, dims=("dims",),
                             via=la("tensorsolve"), tol=TOL))
add("tensorsolve_bad", call("linalg_tensorsolve", T(F, [2, 3, 5]), T(F, [2, 3]), via=la("tensorsolve")))

# ---- Python-level functions: torch.lu, the randomized low-rank SVD and PCA (seeded) -----------------
add("lu_top", call("lu", T(F, [3, 3]), tol=TOL))
add("lu_top_infos", call("lu", V([[0.0, 0.0], [0.0, 0.0]]), kw={"get_infos": True}, tol=TOL))
add("lu_top_method", call("lu", T(D, [2, 3, 3]), method=True, tol=TOL))
add("svd_lowrank", call("svd_lowrank", T(D, [6, 4]), kw={"q": 3}, seed=3, tol=TOL))
add("svd_lowrank_wide", call("svd_lowrank", T(D, [3, 7]), kw={"q": 3}, seed=4, tol=TOL))
add("svd_lowrank_niter", call("svd_lowrank", T(F, [8, 5]), kw={"q": 5, "niter": 0}, seed=5, tol=TOL))
add("pca_lowrank", call("pca_lowrank", T(D, [7, 4]), seed=6, tol=TOL))
add("pca_lowrank_q", call("pca_lowrank", T(D, [7, 4]), kw={"q": 2, "center": False}, seed=7, tol=TOL))
