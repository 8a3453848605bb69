"""Products against PyTorch (src/ops/products.lua): kron, inner, ger, vdot, tensordot,
chain_matmul, addbmm, addr, trace, vander, einsum (contracted left to right, as PyTorch)."""
import torch

from _opcase import ALL, FLOATS, INTS, T, call

CASES = {}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


def star(fn):  # PyTorch's varargs form, called with the list the Lua side passes
    return lambda ts, **kw: getattr(torch, fn)(*ts, **kw)


F, D = "float32", "float64"
TOL = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 1e-2, "float16": 1e-2}
# bfloat16 sums rounded in another order (one mm where PyTorch adds rounded products)
LOOSE = dict(TOL, bfloat16=0.15)
MM = ["float32", "float64", "bfloat16"] + INTS  # what mm computes on PyTorch 1.13's CPU

for dt in ALL:
    add("kron_%s" % dt, call("kron", T(dt, [2, 3]), T(dt, [2, 2])))
for dt in MM:
    add("inner_%s" % dt, call("inner", T(dt, [2, 3]), T(dt, [4, 3]), tol=TOL))
    add("tensordot_%s" % dt, call("tensordot", T(dt, [2, 3, 4]), T(dt, [4, 3, 2]), kw={"dims": ([1, 2], [1, 0])},
                                   dims=("dims",), tol=TOL))
    add("addbmm_%s" % dt, call("addbmm", T(dt, [2, 4]), T(dt, [3, 2, 5]), T(dt, [3, 5, 4]), tol=LOOSE))
    add("addr_%s" % dt, call("addr", T(dt, [2, 3]), T(dt, [2]), T(dt, [3]), tol=TOL))
    add("einsum_mm_%s" % dt, call("einsum", "ij,jk->ik", [T(dt, [2, 3]), T(dt, [3, 4])], tol=TOL))
    add("chain_matmul_%s" % dt, call("chain_matmul", [T(dt, [2, 3]), T(dt, [3, 4]), T(dt, [4, 2])],
                                     via=star("chain_matmul"), tol=LOOSE))
for dt in ["float32", "float64", "bfloat16", "int64", "uint8"]:
    add("trace_%s" % dt, call("trace", T(dt, [3, 4]), tol=TOL))
    add("vander_%s" % dt, call("vander", T(dt, [4]), tol=TOL))
    add("vdot_%s" % dt, call("vdot", T(dt, [5]), T(dt, [5]), tol=TOL))
    add("ger_%s" % dt, call("ger", T(dt, [2]), T(dt, [3])))

# kron
add("kron_ranks", call("kron", T(F, [2]), T(F, [2, 3, 2])))
add("kron_0d", call("kron", T(F, []), T(F, [3])))
add("kron_both_0d", call("kron", T("int64", []), T("int64", [])))
add("kron_mixed", call("kron", T("int32", [2, 2]), T(D, [2])))
add("kron_empty", call("kron", T(F, [0, 2]), T(F, [2, 2])))
add("kron_transposed", call("kron", T(F, [2, 3], "t"), T(F, [2, 2], "t")))
# inner, ger, vdot
add("inner_1d", call("inner", T(F, [3]), T(F, [3]), tol=TOL))
add("inner_0d", call("inner", T(F, []), T(F, [2, 3])))
add("inner_bad", call("inner", T(F, [2, 3]), T(F, [2, 4])))
add("inner_transposed", call("inner", T(D, [3, 2], "t"), T(D, [3]), tol=TOL))
add("ger_bad", call("ger", T(F, [2, 2]), T(F, [3])))
add("vdot_2d", call("vdot", T(F, [2, 3]), T(F, [2])))
add("vdot_dtypes", call("vdot", T(F, [3]), T(D, [3])))
add("vdot_sizes", call("vdot", T(F, [3]), T(F, [4])))
add("vdot_empty", call("vdot", T(F, [0]), T(F, [0])))
# tensordot
add("tensordot_int_dims", call("tensordot", T(D, [2, 3, 4]), T(D, [3, 4, 5]), kw={"dims": 2}, tol=TOL))
add("tensordot_zero_dims", call("tensordot", T(D, [2, 3]), T(D, [4]), kw={"dims": 0}, tol=TOL))
add("tensordot_default", call("tensordot", T(D, [2, 3, 4]), T(D, [3, 4, 2]), tol=TOL))
add("tensordot_negative", call("tensordot", T(D, [2, 3]), T(D, [2, 3], "t"), kw={"dims": ([-1], [0])},
                               dims=("dims",), tol=TOL, expect=["dims"]))
add("tensordot_broadcast_one", call("tensordot", T(D, [2, 1]), T(D, [3, 4]), kw={"dims": ([1], [0])},
                                    dims=("dims",), tol=TOL))
add("tensordot_mismatch", call("tensordot", T(F, [2, 3]), T(F, [4, 2]), kw={"dims": ([1], [0])},
                               dims=("dims",), expect=["dims"]))
add("tensordot_lengths", call("tensordot", T(F, [2, 3]), T(F, [3, 2]), kw={"dims": ([1], [0, 1])},
                              dims=("dims",)))
add("tensordot_dtypes", call("tensordot", T(F, [2, 3]), T(D, [3, 2]), kw={"dims": 1}))
# chain_matmul
add("chain_matmul_one", call("chain_matmul", [T(F, [2, 3])], via=star("chain_matmul")))
add("chain_matmul_two", call("chain_matmul", [T(D, [2, 3], "t"), T(D, [3, 2])], via=star("chain_matmul"), tol=TOL))
add("chain_matmul_3d", call("chain_matmul", [T(F, [2, 3, 3])], via=star("chain_matmul")))
add("chain_matmul_1d", call("chain_matmul", [T(F, [2, 3]), T(F, [3])], via=star("chain_matmul")))
add("chain_matmul_bad", call("chain_matmul", [T(F, [2, 3]), T(F, [4, 2])], via=star("chain_matmul")))
# addbmm, addr
add("addbmm_scaled", call("addbmm", T(D, [2, 4]), T(D, [3, 2, 5]), T(D, [3, 5, 4]), kw={"beta": 0.5, "alpha": 2},
                          tol=TOL))
add("addbmm_broadcast", call("addbmm", T(D, [4]), T(D, [3, 2, 5], "t"), T(D, [3, 5, 4]), tol=TOL))
add("addbmm_beta0_nan", call("addbmm", T(D, [2, 4]), T(D, [1, 2, 1]), T(D, [1, 1, 4]), kw={"beta": 0}, tol=TOL))
add("addbmm_empty_batch", call("addbmm", T(F, [2, 4]), T(F, [0, 2, 5]), T(F, [0, 5, 4])))
add("addbmm_2d", call("addbmm", T(F, [2, 2]), T(F, [2, 3]), T(F, [2, 3, 2]), expect=["dims"]))
add("addbmm_batches", call("addbmm", T(F, [2, 2]), T(F, [3, 2, 3]), T(F, [2, 3, 2])))
add("addbmm_inner", call("addbmm", T(F, [2, 2]), T(F, [3, 2, 3]), T(F, [3, 4, 2])))
add("addbmm_method", call("addbmm", T(D, [2, 4]), T(D, [3, 2, 5]), T(D, [3, 5, 4]), method=True, tol=TOL))
add("addr_scaled", call("addr", T(D, [2, 3]), T(D, [2]), T(D, [3]), kw={"beta": 2, "alpha": -0.5}, tol=TOL))
add("addr_broadcast", call("addr", T(D, [3]), T(D, [2]), T(D, [3]), tol=TOL))
add("addr_beta0", call("addr", T(D, [2, 3]), T(D, [2]), T(D, [3]), kw={"beta": 0}, tol=TOL))
add("addr_mixed", call("addr", T("int32", [2, 3]), T(F, [2]), T(F, [3]), tol=TOL))
add("addr_vec1_2d", call("addr", T(F, [2, 2]), T(F, [2, 2]), T(F, [2])))
add("addr_vec2_2d", call("addr", T(F, [2, 2]), T(F, [2]), T(F, [2, 1])))
add("addr_int_float_beta", call("addr", T("int32", [2, 2]), T("int32", [2]), T("int32", [2]), kw={"beta": 0.5}))
add("addr_int_float_alpha", call("addr", T("int64", [2, 2]), T("int64", [2]), T("int64", [2]), kw={"alpha": 1.5}))
add("addr_int", call("addr", T("int64", [2, 2]), T("int64", [2]), T("int64", [2]), kw={"beta": 2, "alpha": 3}))
add("addr_method", call("addr", T(D, [2, 3]), T(D, [2]), T(D, [3]), method=True, tol=TOL))
# trace, vander
add("trace_1d", call("trace", T(F, [3])))
add("trace_half", call("trace", T("float16", [3, 3])))
add("trace_bool", call("trace", T("bool", [3, 3])))
add("trace_int32", call("trace", T("int32", [3, 2])))
add("trace_transposed", call("trace", T(D, [3, 4], "t"), tol=TOL))
add("trace_empty", call("trace", T(F, [0, 3])))
add("trace_method", call("trace", T(F, [2, 2]), method=True, tol=TOL))
add("vander_N", call("vander", T(D, [3]), 5, tol=TOL))
add("vander_increasing", call("vander", T("int64", [3]), kw={"N": 4, "increasing": True}))
add("vander_N0", call("vander", T(F, [3]), 0))
add("vander_N1", call("vander", T(F, [3]), 1))
add("vander_bool", call("vander", T("bool", [3])))
add("vander_int32", call("vander", T("int32", [3])))
add("vander_half", call("vander", T("float16", [3])))
add("vander_2d", call("vander", T(F, [2, 2])))
add("vander_negative", call("vander", T(F, [3]), -1))
add("vander_empty", call("vander", T(F, [0])))
# einsum
E = [
    ("dot", "i,i->", [[4], [4]]),
    ("outer", "i,j->ij", [[2], [3]]),
    ("implicit_outer", "i,j", [[2], [3]]),
    ("transpose", "ij->ji", [[2, 3]]),
    ("implicit_transpose", "ji", [[2, 3]]),
    ("sum_all", "ij->", [[2, 3]]),
    ("sum_rows", "ij->i", [[2, 3]]),
    ("trace", "ii", [[3, 3]]),
    ("diagonal", "ii->i", [[3, 3]]),
    ("batch_diagonal", "bii->bi", [[2, 3, 3]]),
    ("bmm", "bij,bjk->bik", [[2, 2, 3], [2, 3, 4]]),
    ("ellipsis_bmm", "...ij,...jk", [[5, 2, 3], [3, 4]]),
    ("ellipsis_broadcast", "...ij,...jk->...ik", [[3, 2, 3], [1, 3, 4]]),
    ("ellipsis_sum", "i...->...", [[2, 3, 4]]),
    ("ellipsis_middle", "a...b->b...a", [[2, 3, 4, 5]]),
    ("bilinear", "bn,anm,bm->ba", [[2, 3], [4, 3, 5], [2, 5]]),
    ("three_chain", "ij,jk,kl->il", [[2, 3], [3, 4], [4, 2]]),
    ("hadamard", "ij,ij->ij", [[2, 3], [2, 3]]),
    ("broadcast_one", "ij,ij->ij", [[2, 1], [2, 3]]),
    ("upper_labels", "Ab,bC->AC", [[2, 3], [3, 2]]),
    ("mixed_case_order", "bA,Ab", [[2, 3], [3, 2]]),
    ("spaces", "i j , j k -> i k", [[2, 3], [3, 2]]),
    ("repeated_three", "iii->i", [[2, 2, 2]]),
    ("scalar", ",i->i", [[], [3]]),
    ("empty", "ij,jk->ik", [[2, 0], [0, 3]]),
    ("sum_twice", "ij,ij->", [[2, 3], [2, 3]]),
    ("label_unused_later", "ij,jk,k->i", [[2, 3], [3, 4], [4]]),
]
for name, eq, shapes in E:
    add("einsum_" + name, call("einsum", eq, [T(D, s) for s in shapes], tol=TOL))
add("einsum_transposed", call("einsum", "ij,jk->ik", [T(D, [3, 2], "t"), T(D, [4, 3], "t")], tol=TOL))
add("einsum_int", call("einsum", "i,i", [T("int32", [3]), T("int32", [3])]))
add("einsum_bad_broadcast", call("einsum", "ij,jk", [T(F, [2, 3]), T(F, [4, 2])]))
add("einsum_fewer", call("einsum", "ij,jk", [T(F, [2, 3])]))
add("einsum_more", call("einsum", "ij", [T(F, [2, 3]), T(F, [3])]))
add("einsum_subscripts", call("einsum", "ijk", [T(F, [2, 3])]))
add("einsum_invalid", call("einsum", "i1", [T(F, [2, 3])]))
add("einsum_output_twice", call("einsum", "ij->ii", [T(F, [2, 3])]))
add("einsum_output_unknown", call("einsum", "ij->k", [T(F, [2, 3])]))
add("einsum_repeated_sizes", call("einsum", "ii", [T(F, [2, 3])]))
add("einsum_dtypes", call("einsum", "i,i", [T(F, [2]), T(D, [2])]))
add("einsum_ellipsis_more", call("einsum", "...ij", [T(F, [2])]))
add("einsum_stray_dot", call("einsum", "i.j", [T(F, [2, 2])]))
add("einsum_varargs", call("einsum", "ij,jk", T(D, [2, 3]), T(D, [3, 2]), tol=TOL))
# in-place forms
add("addbmm_", call("addbmm_", T(D, [2, 4]), T(D, [3, 2, 5]), T(D, [3, 5, 4]), kw={"beta": 0.5}, method=True, tol=TOL))
add("addbmm_broadcast_self", call("addbmm_", T(D, [4]), T(D, [3, 2, 5]), T(D, [3, 5, 4]), method=True, tol=TOL))
add("addr_", call("addr_", T(D, [2, 3]), T(D, [2]), T(D, [3]), kw={"alpha": 2}, method=True, tol=TOL))
add("addr_int_into_float", call("addr_", T(F, [2, 3]), T("int64", [2]), T("int64", [3]), method=True, tol=TOL))
add("addr_1d_self", call("addr_", T(D, [3]), T(D, [2]), T(D, [3]), method=True))
