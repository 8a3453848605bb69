"""More shape and indexing ops against PyTorch (src/ops/shape_more.lua): stacks and splits,
moves and rotations, repeats, grids, windows. Dims are 0-based here, 1-based in the replayed
Lua calls; index tensors and index results likewise."""
import torch

from _opcase import ALL, T, V, call

CASES = {}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


def I(values):  # an int64 index tensor with explicit values
    return V(values, "int64")


def star(fn):  # PyTorch's varargs form, called with the list the Lua side passes
    return lambda ts, **kw: getattr(torch, fn)(*ts, **kw)


F = "float32"
for dt in ALL:
    add("hstack_%s" % dt, call("hstack", [T(dt, [2, 3]), T(dt, [2, 1])]))
    add("block_diag_%s" % dt, call("block_diag", [T(dt, [2, 3]), T(dt, [2])], via=star("block_diag")))
    add("rot90_%s" % dt, call("rot90", T(dt, [3, 4])))
    add("repeat_interleave_%s" % dt, call("repeat_interleave", T(dt, [2, 3]), 2, 1, dims=(2,)))
    add("take_along_dim_%s" % dt, call("take_along_dim", T(dt, [3, 4]), I([[0, 3], [2, 0], [1, 1]]), 1,
                                       dims=(2,), index=(1,)))
    add("diag_embed_%s" % dt, call("diag_embed", T(dt, [2, 3])))
    add("movedim_%s" % dt, call("movedim", T(dt, [2, 3, 4]), 0, 2, dims=(1, 2)))

# atleast_Nd: views of self (0-d, 1-d, 2-d inputs), the list form
for n in (1, 2, 3):
    for shape in ([], [3], [2, 3], [2, 3, 4]):
        add("atleast_%dd_%dd" % (n, len(shape)), call("atleast_%dd" % n, T(F, shape)))
    add("atleast_%dd_list" % n, call("atleast_%dd" % n, [T(F, []), T(F, [2, 3])]))
add("atleast_3d_transposed", call("atleast_3d", T(F, [3, 4], "t")))
# stacks
add("hstack_1d", call("hstack", [T(F, [2]), T(F, [3]), T(F, [])]))
add("hstack_empty_list", call("hstack", [[]][0]) if False else call("hstack", [T(F, [2, 0]), T(F, [2, 3])]))
add("vstack", call("vstack", [T(F, [3]), T(F, [2, 3])]))
add("vstack_0d", call("vstack", [T(F, []), T(F, [1])]))
add("row_stack", call("row_stack", [T("int64", [2, 3]), T("int64", [1, 3])]))
add("dstack", call("dstack", [T(F, [3]), T(F, [3])]))
add("dstack_2d", call("dstack", [T(F, [2, 3]), T(F, [2, 3, 2])]))
add("column_stack", call("column_stack", [T(F, [3]), T(F, [3, 2]), T(F, [3])]))
add("column_stack_0d", call("column_stack", [T(F, []), T(F, [])]))
add("column_stack_bad", call("column_stack", [T(F, [3]), T(F, [3, 2]), T(F, [])], expect=["dims", "positions"]))
add("hstack_mixed_dtypes", call("hstack", [T("int32", [2]), T("float64", [2])]))
add("concat", call("concat", [T(F, [2, 3]), T(F, [2, 2])], -1, dims=(1,)))
add("concatenate", call("concatenate", [T(F, [2, 3]), T(F, [1, 3])], 0, dims=(1,)))
# block_diag, cartesian_prod, combinations, meshgrid
add("block_diag_mixed", call("block_diag", [T("int32", [1, 2]), T(F, []), T("int64", [3])], via=star("block_diag")))
add("block_diag_none", call("block_diag", [], via=star("block_diag")) if False else
    call("block_diag", [T(F, [0, 2]), T(F, [2, 0])], via=star("block_diag")))
add("block_diag_3d", call("block_diag", [T(F, [2, 2, 2])], via=star("block_diag")))
add("cartesian_prod", call("cartesian_prod", [T("int64", [2]), T("int64", [3]), T("int64", [2])],
                           via=star("cartesian_prod")))
add("cartesian_prod_one", call("cartesian_prod", [T(F, [3])], via=star("cartesian_prod")))
add("cartesian_prod_2d", call("cartesian_prod", [T(F, [2, 2])], via=star("cartesian_prod")))
add("combinations", call("combinations", T(F, [4])))
add("combinations_3", call("combinations", T("int64", [5]), 3))
add("combinations_replacement", call("combinations", T(F, [3]), 2, True))
add("combinations_r1", call("combinations", T(F, [3]), 1))
add("combinations_r0", call("combinations", T(F, [3]), 0))
add("combinations_negative", call("combinations", T(F, [3]), -1))
add("combinations_2d", call("combinations", T(F, [2, 2])))
add("meshgrid_ij", call("meshgrid", [T(F, [2]), T(F, [3]), T(F, [])], kw={"indexing": "ij"}, via=star("meshgrid")))
add("meshgrid_xy", call("meshgrid", [T(F, [2]), T(F, [3]), T(F, [4])], kw={"indexing": "xy"}, via=star("meshgrid")))
add("meshgrid_xy_one", call("meshgrid", [T(F, [2])], kw={"indexing": "xy"}, via=star("meshgrid")))
add("meshgrid_bad_indexing", call("meshgrid", [T(F, [2])], kw={"indexing": "yx"}, via=star("meshgrid")))
add("meshgrid_dtypes", call("meshgrid", [T(F, [2]), T("int64", [2])], kw={"indexing": "ij"}, via=star("meshgrid")))
# splits (split points count elements: no shift)
add("tensor_split_sections", call("tensor_split", T(F, [7, 2]), 3))
add("tensor_split_sections_dim", call("tensor_split", T(F, [2, 5]), 3, 1, dims=(2,)))
add("tensor_split_more_sections", call("tensor_split", T(F, [2]), 4))
add("tensor_split_indices", call("tensor_split", T(F, [7]), [1, 5]))
add("tensor_split_indices_unordered", call("tensor_split", T(F, [7]), [5, 2, 9, -2]))
add("tensor_split_tensor", call("tensor_split", T(F, [7]), V([1, 4], "int64")))
add("tensor_split_tensor_0d", call("tensor_split", T(F, [7]), V(3, "int64")))
add("tensor_split_tensor_float", call("tensor_split", T(F, [7]), V([1.0])))
add("tensor_split_zero", call("tensor_split", T(F, [7]), 0))
add("tensor_split_0d", call("tensor_split", T(F, []), 2))
add("tensor_split_method", call("tensor_split", T(F, [4, 4], "t"), 2, -1, method=True, dims=(2,)))
add("hsplit", call("hsplit", T(F, [2, 6]), 3))
add("hsplit_1d", call("hsplit", T(F, [6]), [2, 3]))
add("hsplit_0d", call("hsplit", T(F, []), 1))
add("vsplit", call("vsplit", T(F, [4, 2]), 2))
add("vsplit_1d", call("vsplit", T(F, [4]), 2))
add("dsplit", call("dsplit", T(F, [2, 2, 4]), [1]))
add("split_with_sizes", call("split_with_sizes", T(F, [5, 2]), [2, 3]))
add("split_with_sizes_dim", call("split_with_sizes", T(F, [2, 5]), [1, 4], -1, dims=(2,)))
add("split_with_sizes_bad", call("split_with_sizes", T(F, [2, 5]), [1, 1], 1, dims=(2,), expect=["dims"]))
# diag_embed, diagflat, fliplr/flipud, ravel
add("diag_embed_offset", call("diag_embed", T(F, [2, 3]), 1, 0, 2, dims=(2, 3)))
add("diag_embed_negative_offset", call("diag_embed", T(F, [3]), -2))
add("diag_embed_0d", call("diag_embed", T(F, []), expect=["range"]))
add("diag_embed_same_dims", call("diag_embed", T(F, [3]), 0, -1, -1, dims=(2, 3)))
add("diagflat", call("diagflat", T(F, [2, 2])))
add("diagflat_offset", call("diagflat", T("int64", [3]), -1))
add("diagflat_0d", call("diagflat", T(F, [])))
add("fliplr", call("fliplr", T(F, [2, 3, 2])))
add("fliplr_1d", call("fliplr", T(F, [3])))
add("flipud", call("flipud", T(F, [3, 2], "t")))
add("flipud_0d", call("flipud", T(F, [])))
add("ravel_contiguous", call("ravel", T(F, [2, 3])))
add("ravel_transposed", call("ravel", T(F, [2, 3], "t")))
add("ravel_0d", call("ravel", T(F, [])))
# movedim, moveaxis, swapaxes, swapdims
add("movedim_list", call("movedim", T(F, [2, 3, 4, 5]), [0, 1], [2, -1], dims=(1, 2)))
add("movedim_negative", call("movedim", T(F, [2, 3, 4]), -1, 0, dims=(1, 2)))
add("movedim_0d", call("movedim", T(F, []), 0, 0, dims=(1, 2)))
add("movedim_count", call("movedim", T(F, [2, 3]), [0, 1], [0], dims=(1, 2)))
add("movedim_repeated", call("movedim", T(F, [2, 3]), [1, 1], [0, 1], dims=(1, 2), expect=["numbers"]))
add("movedim_out_of_range", call("movedim", T(F, [2, 3]), 2, 0, dims=(1, 2), expect=["range"]))
add("moveaxis", call("moveaxis", T(F, [2, 3, 4]), [2, 0], [0, 1], dims=(1, 2)))
add("movedim_method", call("movedim", T(F, [2, 3, 4]), 0, -1, method=True, dims=(1, 2)))
add("swapaxes", call("swapaxes", T(F, [2, 3, 4]), 0, 2, dims=(1, 2)))
add("swapdims", call("swapdims", T(F, [2, 3, 4]), -1, 1, dims=(1, 2)))
add("swapaxes_bad", call("swapaxes", T(F, [2, 3]), 0, 2, dims=(1, 2), expect=["range"]))
# rot90
for k in (-1, 0, 1, 2, 3, 6):
    add("rot90_k%d" % k, call("rot90", T(F, [2, 3]), k))
add("rot90_dims", call("rot90", T(F, [2, 3, 4]), 1, [2, 0], dims=(2,)))
add("rot90_negative_dims", call("rot90", T(F, [2, 3, 4], "t"), 3, [-1, -3], dims=(2,)))
add("rot90_one_dim", call("rot90", T(F, [2, 3]), 1, [0], dims=(2,)))
add("rot90_1d", call("rot90", T(F, [3])))
add("rot90_same_dims", call("rot90", T(F, [2, 3]), 1, [-1, -1], dims=(2,)))
add("rot90_out_of_range", call("rot90", T(F, [2, 3]), 1, [0, -5], dims=(2,)))
add("rot90_empty", call("rot90", T(F, [0, 3])))
# repeat_interleave
add("repeat_interleave_flat", call("repeat_interleave", T(F, [2, 3]), 2))
add("repeat_interleave_tensor_dim", call("repeat_interleave", T(F, [2, 3]), V([1, 0, 2], "int64"), 1, dims=(2,)))
add("repeat_interleave_tensor_flat", call("repeat_interleave", T(F, [2, 2]), V([1, 0, 2, 1], "int64")))
add("repeat_interleave_tensor_one", call("repeat_interleave", T(F, [2, 3]), V([2], "int64"), 0, dims=(2,)))
add("repeat_interleave_tensor_int32", call("repeat_interleave", T(F, [3]), V([1, 2, 3], "int32"), 0, dims=(2,)))
add("repeat_interleave_repeats_only", call("repeat_interleave", V([2, 0, 3], "int64"), index_out=(0,)))
add("repeat_interleave_repeats_empty", call("repeat_interleave", V([], "int64"), index_out=(0,)))
add("repeat_interleave_negative", call("repeat_interleave", T(F, [2, 3]), -1, 0, dims=(2,)))
add("repeat_interleave_negative_tensor", call("repeat_interleave", T(F, [2]), V([1, -2], "int64"), 0, dims=(2,)))
add("repeat_interleave_size_mismatch", call("repeat_interleave", T(F, [2, 3]), V([1, 2], "int64"), 1, dims=(2,)))
add("repeat_interleave_2d_repeats", call("repeat_interleave", V([[1]], "int64")))
add("repeat_interleave_0d", call("repeat_interleave", T(F, []), 3))
add("repeat_interleave_output_size", call("repeat_interleave", T(F, [2]), 2, 0, kw={"output_size": 4}, dims=(2,)))
add("repeat_interleave_method", call("repeat_interleave", T(F, [2, 3], "t"), 2, -1, method=True, dims=(2,)))
# take_along_dim
add("take_along_dim_flat", call("take_along_dim", T(F, [3, 4]), I([0, 11, 5]), index=(1,)))
add("take_along_dim_broadcast", call("take_along_dim", T(F, [3, 4]), I([[0], [3]]), 1, dims=(2,), index=(1,)) if False else
    call("take_along_dim", T(F, [1, 4]), I([[0, 1], [3, 2]]), 1, dims=(2,), index=(1,)))
add("take_along_dim_argsort", call("take_along_dim", T(F, [2, 3, 4], "t"), I([[[0]], [[2]]]), -1, dims=(2,), index=(1,)))
add("take_along_dim_ndim", call("take_along_dim", T(F, [3, 4]), I([1]), 0, dims=(2,), index=(1,)))
add("take_along_dim_float", call("take_along_dim", T(F, [3, 4]), V([[1.0]]), 0, dims=(2,)))
add("take_along_dim_method", call("take_along_dim", T(F, [3, 4]), I([[2, 0]]), 0, method=True, dims=(2,), index=(1,),
                                         expect=["dims"]))
# tril_indices, triu_indices (1-based coordinates in Lua)
for fn in ("tril_indices", "triu_indices"):
    for args in ((3, 3), (3, 4, 1), (4, 3, -1), (3, 3, -5), (3, 3, 7), (0, 3), (1, 1), (5, 2, 1), (2, 5, -1),
                 (6, 3, 2), (3, 6, -2), (4, 4, -3), (4, 4, 3)):
        add("%s_%s" % (fn, "_".join(str(a).replace("-", "m") for a in args)), call(fn, *args, index_out=(0,)))
    add(fn + "_int32", call(fn, 3, 2, kw={"dtype": torch.int32}, index_out=(0,)))
    add(fn + "_float", call(fn, 3, 2, kw={"dtype": torch.float32}))
    add(fn + "_negative", call(fn, -1, 2))
# unfold (Tensor), sum_to_size
add("unfold", call("unfold", T(F, [3, 7]), 1, 3, 2, method=True, dims=(1,)))
add("unfold_dim0", call("unfold", T(F, [5, 2], "t"), 0, 2, 1, method=True, dims=(1,)))
add("unfold_negative_dim", call("unfold", T(F, [2, 3, 4]), -2, 3, 3, method=True, dims=(1,)))
add("unfold_whole", call("unfold", T("int64", [4]), 0, 4, 4, method=True, dims=(1,)))
add("unfold_size0", call("unfold", T(F, [4]), 0, 0, 1, method=True, dims=(1,)))
add("unfold_0d", call("unfold", T(F, []), 0, 1, 1, method=True, dims=(1,)))
add("unfold_too_big", call("unfold", T(F, [3, 4]), 0, 5, 1, method=True, dims=(1,), expect=["dims"]))
add("unfold_step0", call("unfold", T(F, [3, 4]), 0, 2, 0, method=True, dims=(1,)))
add("sum_to_size", call("sum_to_size", T(F, [3, 4]), [1, 4], method=True, tol=1e-6))
add("sum_to_size_lead", call("sum_to_size", T(F, [2, 3, 4]), [3, 1], method=True, tol=1e-6))
add("sum_to_size_same", call("sum_to_size", T(F, [3, 4]), [3, 4], method=True))
add("sum_to_size_int", call("sum_to_size", T("int32", [3, 4]), [1], method=True))
add("sum_to_size_bad", call("sum_to_size", T(F, [3, 4]), [2, 4], method=True))
# in-place shape changes (self takes the view's geometry)
add("t_", call("t_", T(F, [2, 3]), method=True))
add("t_1d", call("t_", T(F, [3]), method=True))
add("t_3d", call("t_", T(F, [2, 3, 4]), method=True))
add("transpose_", call("transpose_", T(F, [2, 3, 4]), 0, -1, method=True, dims=(1, 2)))
add("transpose_bad", call("transpose_", T(F, [2, 3]), 0, 2, method=True, dims=(1, 2), expect=["range"]))
add("swapaxes_", call("swapaxes_", T("int64", [2, 3], "t"), 0, 1, method=True, dims=(1, 2)))
add("swapdims_", call("swapdims_", T(F, [2, 3, 4]), 1, 2, method=True, dims=(1, 2)))
add("squeeze_", call("squeeze_", T(F, [2, 1, 3, 1]), method=True))
add("squeeze_dim", call("squeeze_", T(F, [2, 1, 3]), 1, method=True, dims=(1,)))
add("squeeze_dim_not_one", call("squeeze_", T(F, [2, 1, 3]), 0, method=True, dims=(1,)))
add("squeeze_bad_dim", call("squeeze_", T(F, [2, 3]), 5, method=True, dims=(1,), expect=["range"]))
add("unsqueeze_", call("unsqueeze_", T(F, [2, 3]), 1, method=True, dims=(1,)))
add("unsqueeze_last", call("unsqueeze_", T(F, [2, 3], "t"), -1, method=True, dims=(1,)))
add("unsqueeze_0d", call("unsqueeze_", T(F, []), 0, method=True, dims=(1,)))
add("as_strided_", call("as_strided_", T(F, [9]), [2, 2], [1, 2], 1, method=True))
add("as_strided_default_offset", call("as_strided_", T(F, [3, 3]), [3], [4], method=True))
