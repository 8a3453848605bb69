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
