"""Joining, reordering and indexing ops against PyTorch (index values are 0-based here and
1-based in the replayed Lua calls; index results are compared shifted)."""
import torch

from _opcase import ALL, T, V, call

CASES = {}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


def I(values):  # an int64 index tensor with explicit values
    return V(values, "int64")


def B(values):  # a bool mask with explicit values
    return V(values, "bool")


for dt in ALL:
    add("cat_%s" % dt, call("cat", [T(dt, [2, 3]), T(dt, [1, 3], "t" if False else "contig")]))
    add("stack_%s" % dt, call("stack", [T(dt, [2, 3]), T(dt, [2, 3])], 1, dims=(1,)))
    add("flip_%s" % dt, call("flip", T(dt, [3, 4]), [0, 1], dims=(1,)))
    add("gather_%s" % dt, call("gather", T(dt, [3, 4]), 1, I([[0, 3], [2, 0], [1, 1]]), dims=(1,), index=(2,)))
    add("index_select_%s" % dt, call("index_select", T(dt, [3, 4]), 1, I([3, 0, 3]), dims=(1,), index=(2,)))
    add("masked_fill_%s" % dt, call("masked_fill", T(dt, [3, 4]), T("bool", [4]), 1))
    add("masked_select_%s" % dt, call("masked_select", T(dt, [3, 4]), T("bool", [3, 4])))
    add("sort_%s" % dt, call("sort", T(dt, [3, 5]), kw={"stable": True}, index_out=(1,)))
    add("repeat_%s" % dt, call("repeat", T(dt, [2, 3]), 2, 1, 2, method=True))
    add("tril_%s" % dt, call("tril", T(dt, [3, 4])))
    add("nonzero_%s" % dt, call("nonzero", T(dt, [3, 4]), index_out=(0,)))
    add("take_%s" % dt, call("take", T(dt, [3, 4]), I([[0, 11], [5, -1]]), index=(1,)))
    add("scatter_%s" % dt, call("scatter", T(dt, [3, 4]), 1, I([[0, 1], [2, 0]]), T(dt, [2, 2]), dims=(1,), index=(2,)))

# cat
add("cat_dim1", call("cat", [T("float32", [2, 3]), T("float32", [2, 1])], 1, dims=(1,)))
add("cat_negative_dim", call("cat", [T("float32", [2, 3]), T("float32", [2, 2])], -1, dims=(1,)))
add("cat_transposed", call("cat", [T("float32", [3, 2], "t"), T("float32", [3, 2], "t")], 1, dims=(1,)))
add("cat_mixed_dtypes", call("cat", [T("float32", [2, 3]), T("int64", [1, 3])]))
add("cat_bad_sizes", call("cat", [T("float32", [3, 4]), T("float32", [3, 5])], expect=["dims", "positions"]))
add("cat_bad_dims", call("cat", [T("float32", [3, 4]), T("float32", [3])]))
add("cat_legacy_empty", call("cat", [T("float32", [3, 4]), T("float32", [0])]))
add("cat_zero_dim", call("cat", [T("float32", []), T("float32", [])], expect=["positions"]))
add("cat_three", call("cat", [T("int64", [1, 2]), T("int64", [2, 2]), T("int64", [3, 2])]))
# stack, split, chunk, unbind
add("stack_new_last", call("stack", [T("float32", [2, 3]), T("float32", [2, 3])], -1, dims=(1,)))
add("stack_bad", call("stack", [T("float32", [3, 4]), T("float32", [4, 3])], expect=["positions"]))
add("split_int", call("split", T("float32", [3, 5]), 2, 1, dims=(2,)))
add("split_sizes", call("split", T("float32", [3, 5]), [1, 4], 1, dims=(2,)))
add("split_sizes_bad", call("split", T("float32", [3, 5]), [1, 2], 1, dims=(2,), expect=["dims"]))
add("split_zero", call("split", T("float32", [3, 5]), 0, 1, dims=(2,)))
add("split_method", call("split", T("float32", [6, 2]), 4, method=True))
add("chunk", call("chunk", T("float32", [3, 5]), 2, 1, dims=(2,)))
add("chunk_more_than_size", call("chunk", T("float32", [3, 5]), 7, 1, dims=(2,)))
add("chunk_zero", call("chunk", T("float32", [3, 5]), 0, 1, dims=(2,)))
add("unbind", call("unbind", T("float32", [3, 2]), 1, dims=(1,)))
add("unbind_default", call("unbind", T("int64", [2, 3])))
# flip, roll, repeat, tile, broadcast_to
add("flip_transposed", call("flip", T("float32", [3, 4], "t"), [0], dims=(1,)))
add("flip_duplicate", call("flip", T("float32", [3, 4]), [0, 0], dims=(1,), expect=["dims"]))
add("flip_none", call("flip", T("float32", [3, 4]), []))
add("roll", call("roll", T("float32", [3, 4]), 1, 1, dims=(2,)))
add("roll_negative", call("roll", T("float32", [3, 4]), -5, 0, dims=(2,)))
add("roll_flat", call("roll", T("float32", [3, 4]), 2))
add("roll_multi", call("roll", T("float32", [3, 4]), [1, -1], [0, 1], dims=(2,)))
add("roll_mismatch", call("roll", T("float32", [3, 4]), [1, 2], [0], dims=(2,)))
add("repeat_bad", call("repeat", T("float32", [3, 4]), 2, method=True))
add("repeat_zero", call("repeat", T("float32", [3, 4]), 0, 1, method=True))
add("repeat_transposed", call("repeat", T("float32", [3, 4], "t"), 1, 2, method=True))
add("tile", call("tile", T("float32", [3, 4]), [2]))
add("tile_more", call("tile", T("int64", [2]), [2, 3]))
add("broadcast_to", call("broadcast_to", T("float32", [3]), [2, 3]))
# gather / scatter
add("gather_dim0", call("gather", T("float32", [3, 4]), 0, I([[0, 2, 1, 0]]), dims=(1,), index=(2,)))
add("gather_out_of_bounds", call("gather", T("float32", [3, 4]), 1, I([[5]]), dims=(1,), index=(2,), expect=["dims", "indices"]))
add("gather_float_index", call("gather", T("float32", [3, 4]), 1, V([[1.0]]), dims=(1,)))
add("gather_index_dims", call("gather", T("float32", [3, 4]), 1, I([1]), dims=(1,), index=(2,)))
add("gather_index_size", call("gather", T("float32", [3, 4]), 1, I([[0, 0]] * 4), dims=(1,), index=(2,),
                               expect=["dims"]))
add("scatter_value", call("scatter", T("float32", [3, 4]), 1, I([[0, 1], [2, 0]]), 5.0, dims=(1,), index=(2,)))
add("scatter_inplace", call("scatter_", T("float32", [3, 4]), 0, I([[2, 1, 0, 0]]), T("float32", [1, 4]),
                            method=True, dims=(1,), index=(2,)))
add("scatter_dtype", call("scatter", T("float32", [3, 4]), 1, I([[0]]), T("float64", [1, 1]), dims=(1,), index=(2,)))
add("scatter_out_of_bounds", call("scatter", T("float32", [3, 4]), 1, I([[9]]), T("float32", [1, 1]), dims=(1,),
                                  index=(2,), expect=["dims", "indices"]))
add("scatter_add", call("scatter_add", T("float32", [3, 4]), 1, I([[0, 0], [1, 1]]), T("float32", [2, 2]),
                        dims=(1,), index=(2,)))
add("scatter_add_int", call("scatter_add", T("int64", [3, 4]), 0, I([[0, 0, 2, 2]]), T("int64", [1, 4]),
                            dims=(1,), index=(2,)))
# index_select / index_add / index_copy
add("index_select_dim0", call("index_select", T("float32", [3, 4], "t"), 0, I([2, 2, 0]), dims=(1,), index=(2,)))
add("index_select_int32_index", call("index_select", T("float32", [3, 4]), 1, V([1], "int32"), dims=(1,), index=(2,)))
add("index_select_out_of_bounds", call("index_select", T("float32", [3, 4]), 1, I([4]), dims=(1,), index=(2,), expect=["indices"]))
add("index_select_2d_index", call("index_select", T("float32", [3, 4]), 1, I([[1]]), dims=(1,), index=(2,)))
add("index_select_float_index", call("index_select", T("float32", [3, 4]), 1, V([1.0]), dims=(1,)))
add("index_add", call("index_add", T("float32", [3, 4]), 0, I([0, 0]), T("float32", [2, 4]), kw={"alpha": 2},
                      dims=(1,), index=(2,)))
add("index_add_out_of_range", call("index_add", T("float32", [3, 4]), 0, I([5]), T("float32", [1, 4]),
                                   dims=(1,), index=(2,)))
add("index_copy", call("index_copy", T("float32", [3, 4]), 1, I([0, 2]), T("float32", [3, 2]), dims=(1,), index=(2,)))
add("index_copy_inplace", call("index_copy_", T("int64", [3, 4]), 0, I([2, 0]), T("int64", [2, 4]), method=True,
                               dims=(1,), index=(2,)))
# masks
add("masked_fill_bool_mask", call("masked_fill", T("float32", [3, 4]), B([True, False, True, False]), -1.5))
add("masked_fill_tensor_value", call("masked_fill", T("float32", [3, 4]), T("bool", [3, 4]), V([], "float32")
                                     if False else T("float32", [])))
add("masked_fill_tensor_value_1d", call("masked_fill", T("float32", [3, 4]), T("bool", [3, 4]), T("float32", [1])))
add("masked_fill_inplace", call("masked_fill_", T("int64", [3, 4], "t"), T("bool", [3, 4]), 7, method=True))
add("masked_fill_broadcast_self", call("masked_fill", T("float32", [4]), T("bool", [3, 4]), 0.0))
add("masked_select_broadcast", call("masked_select", T("float32", [3, 4]), B([True, False, False, True])))
add("masked_scatter", call("masked_scatter", T("float32", [3, 4]), T("bool", [3, 4]), T("float32", [12])))
add("masked_scatter_few", call("masked_scatter", T("float32", [3, 4]), B([True] * 4), T("float32", [2])))
add("nonzero_0d", call("nonzero", T("float32", []), index_out=(0,)))
add("nonzero_3d", call("nonzero", T("bool", [2, 3, 4]), index_out=(0,)))
add("argwhere", call("argwhere", T("int64", [3, 4]), index_out=(0,)))
add("take_out_of_range", call("take", T("float32", [3, 4]), I([12]), index=(1,), expect=["indices"]))
# sorting
add("sort_descending", call("sort", T("float32", [3, 5]), 0, True, dims=(1,), index_out=(1,)))
add("sort_nan", call("sort", V([2.0, float("nan"), 1.0, float("nan"), 0.5]), index_out=(1,)))
add("sort_nan_descending", call("sort", V([2.0, float("nan"), 1.0, float("nan"), 0.5]), kw={"descending": True},
                                index_out=(1,)))
add("sort_stable_ties", call("sort", V([1, 0, 1, 0, 2, 0], "int64"), kw={"stable": True}, index_out=(1,)))
add("sort_stable_ties_desc", call("sort", V([1, 0, 1, 0, 2, 0], "int64"), kw={"stable": True, "descending": True},
                                  index_out=(1,)))
add("sort_0d", call("sort", T("float32", []), index_out=(1,)))
add("argsort", call("argsort", T("float32", [3, 5]), 1, True, dims=(1,), index_out=(0,)))
add("topk", call("topk", T("float32", [3, 5]), 2, 1, dims=(2,), index_out=(1,)))
add("topk_smallest", call("topk", T("float64", [3, 5]), 3, kw={"largest": False}, index_out=(1,)))
add("topk_dim0", call("topk", T("int64", [4, 3]) and V([[5, 1, 9], [2, 8, 0], [7, 3, 6], [4, 10, 11]], "int64"), 2, 0,
                      dims=(2,), index_out=(1,)))
add("topk_too_big", call("topk", T("float32", [3, 5]), 6, 1, dims=(2,), index_out=(1,)))
add("kthvalue", call("kthvalue", T("float32", [3, 5]), 2, 1, dims=(2,), index_out=(1,)))
add("kthvalue_keepdim", call("kthvalue", T("float32", [3, 5]), 4, 0, True, dims=(2,), index_out=(1,), expect=["dims"]))
add("kthvalue_bad", call("kthvalue", T("float32", [3, 5]), 6, 1, dims=(2,), index_out=(1,), expect=["dims"]))
# unique
add("unique", call("unique", V([3, 1, 3, 2, 1], "int64")))
add("unique_inverse_counts", call("unique", V([3, 1, 3, 2, 1], "int64"), return_inverse=True,
                                  return_counts=True, index_out=(1,)) if False else
    call("unique", V([3, 1, 3, 2, 1], "int64"), kw={"return_inverse": True, "return_counts": True}, index_out=(1,)))
add("unique_2d", call("unique", V([[2.0, 1.0], [2.0, 0.5]])))
add("unique_dim", call("unique", V([[1, 2], [1, 2], [0, 1]], "int64"), kw={"dim": 0, "return_inverse": True},
                       dims=("dim",), index_out=(1,)))
add("unique_dim1", call("unique", V([[1, 1, 0], [2, 2, 1]], "int64"), kw={"dim": 1}, dims=("dim",)))
# triangles and diagonals
for k in (-1, 0, 2):
    add("tril_%d" % (k + 5), call("tril", T("float32", [3, 4]), k))
    add("triu_%d" % (k + 5), call("triu", T("int64", [2, 3, 4]), k))
    add("diag_1d_%d" % (k + 5), call("diag", T("float32", [3]), k))
    add("diag_2d_%d" % (k + 5), call("diag", T("float32", [3, 4]), k))
    add("diagonal_%d" % (k + 5), call("diagonal", T("float32", [3, 4]), k))
add("tril_1d", call("tril", T("float32", [3]), expect=["range"]))
add("triu_inplace", call("triu_", T("float32", [3, 3], "t"), method=True))
add("diag_3d", call("diag", T("float32", [2, 2, 2])))
add("diagonal_dims", call("diagonal", T("float32", [2, 3, 4]), 0, 0, 2, dims=(2, 3)))
add("diagonal_same", call("diagonal", T("float32", [3, 4]), 0, 1, 1, dims=(2, 3), expect=["numbers"]))
# index_put / index_put_ (what x[{...}] = v runs)
for dt in ALL:
    add("index_put_%s" % dt, call("index_put", T(dt, [3, 4]), [I([2, 0]), I([1, 3])], T(dt, [2]), index=(1,)))
add("index_put_accumulate", call("index_put", T("float32", [3, 4]), [I([0, 0, 2])], T("float32", [3, 4]),
                                 kw={"accumulate": True}, index=(1,)))
add("index_put_accumulate_int", call("index_put", T("int64", [5]), [I([0, 0, 4, 0])], V([1, 2, 3, 4], "int64"),
                                     kw={"accumulate": True}, index=(1,)))
add("index_put_inplace", call("index_put_", T("float32", [3, 4]), [I([1])], V(7.0), index=(1,), method=True))
add("index_put_transposed", call("index_put", T("float32", [3, 4], "t"), [I([[0], [2]]), I([1, 3])], V(-1.0),
                                 index=(1,)))
add("index_put_mask", call("index_put", T("float32", [3, 4]), [B([True, False, True])], T("float32", [4]), index=(1,)))
add("index_put_broadcast_value", call("index_put", T("float32", [3, 4]), [I([0, 2])], T("float32", [4]), index=(1,)))
add("index_put_bad_value", call("index_put", T("float32", [3, 4]), [I([0, 2])], T("float32", [3]), index=(1,)))
add("index_put_dtype", call("index_put", T("float32", [3, 4]), [I([0, 2])], T("int64", [4]), index=(1,)))
add("index_put_out_of_range", call("index_put", T("float32", [3, 4]), [I([0, 3])], V(1.0), index=(1,),
                                   expect=["dims", "indices"]))
add("index_put_too_many", call("index_put", T("float32", [3]), [I([0]), I([0])], V(1.0), index=(1,)))
add("index_put_float_index", call("index_put", T("float32", [3]), [V([0.0])], V(1.0)))
add("index_put_no_broadcast", call("index_put", T("float32", [3, 4]), [I([0, 1]), I([0, 1, 2])], V(1.0), index=(1,)))
add("index_put_empty_index", call("index_put", T("float32", [3, 4]), [I([])], V(1.0), index=(1,)))
# resize_ (what out= does with a tensor of the wrong shape); growing leaves new elements
# uninitialised, so the cases here keep or shrink the element count
add("resize_reshape", call("resize_", T("float32", [2, 3]), [3, 2], method=True))
add("resize_shrink", call("resize_", T("int64", [3, 4]), [5], method=True))
add("resize_same_shape_keeps_strides", call("resize_", T("float32", [3, 4], "t"), [3, 4], method=True))
add("resize_transposed", call("resize_", T("float32", [3, 4], "t"), [4, 3], method=True))
add("resize_empty", call("resize_", T("float32", [3, 4]), [0, 2], method=True))
add("resize_negative", call("resize_", T("float32", [3]), [-1], method=True))
