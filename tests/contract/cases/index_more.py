"""More indexing ops against PyTorch (src/ops/index_more.lua): scatters into views, index_fill,
put, searchsorted/bucketize (1-based results in Lua), unique_consecutive, msort, fill_diagonal_,
resize_as_, type_as, the new_* factories."""
import torch

from _opcase import ALL, NUMS, T, V, call

CASES = {}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


def I(values):  # an int64 index tensor with explicit values
    return V(values, "int64")


F, D = "float32", "float64"
for dt in ALL:
    add("slice_scatter_%s" % dt, call("slice_scatter", T(dt, [4, 3]), T(dt, [2, 3]), 0, 0, 4, 2, dims=(2,)))
    add("select_scatter_%s" % dt, call("select_scatter", T(dt, [4, 3]), T(dt, [4]), 1, 2, dims=(2, 3)))
    add("diagonal_scatter_%s" % dt, call("diagonal_scatter", T(dt, [3, 4]), T(dt, [3]), 1))
    add("as_strided_scatter_%s" % dt, call("as_strided_scatter", T(dt, [3, 3]), T(dt, [2, 2]), [2, 2], [1, 3], 1))
    add("index_fill_%s" % dt, call("index_fill", T(dt, [3, 4]), 1, I([0, 2]), 1, dims=(1,), index=(2,)))
    add("put_%s" % dt, call("put", T(dt, [3, 4]), I([0, 11, 5]), T(dt, [3]), index=(1,)))
    add("msort_%s" % dt, call("msort", T(dt, [4, 3])))
    add("unique_consecutive_%s" % dt, call("unique_consecutive", T(dt, [8]), kw={"return_inverse": True,
                                           "return_counts": True}, index_out=(1,)))
    add("fill_diagonal_%s" % dt, call("fill_diagonal_", T(dt, [3, 4]), 1, method=True))
    add("new_full_%s" % dt, call("new_full", T(dt, [2]), [2, 3], 1, method=True))
for dt in NUMS:
    if dt == "float16":
        continue
    add("searchsorted_%s" % dt, call("searchsorted", V([0, 1, 3, 5, 7], dt), T(dt, [2, 3]), index_out=(0,)))
    add("bucketize_%s" % dt, call("bucketize", T(dt, [2, 3]), V([0, 1, 3, 5, 7], dt), index_out=(0,)))

# slice_scatter, select_scatter, diagonal_scatter, as_strided_scatter
add("slice_scatter_whole", call("slice_scatter", T(F, [2, 3]), T(F, [2, 3]), 0, 0, 2, 1, dims=(2,)))
add("slice_scatter_dim", call("slice_scatter", T(F, [2, 5]), T(F, [2, 2]), 1, 1, 5, 3, dims=(2,)))
add("slice_scatter_negative_dim", call("slice_scatter", T(F, [2, 5]), T(F, [2, 2]), -1, 2, 4, 1, dims=(2,)))
add("slice_scatter_transposed", call("slice_scatter", T(F, [3, 4], "t"), T(F, [3, 2]), 1, 0, 4, 2, dims=(2,)))
add("slice_scatter_bad", call("slice_scatter", T(F, [4, 3]), T(F, [3, 3]), 0, 0, 4, 2, dims=(2,)))
add("slice_scatter_empty", call("slice_scatter", T(F, [4, 3]), T(F, [0, 3]), 0, 2, 2, 1, dims=(2,)))
add("slice_scatter_dtypes", call("slice_scatter", T(F, [4, 3]), T("int64", [4, 3]), 0, 0, 4, 1, dims=(2,)))
add("select_scatter_negative", call("select_scatter", T(F, [4, 3]), T(F, [3]), 0, -1, dims=(2, 3)))
add("select_scatter_bad", call("select_scatter", T(F, [4, 3]), T(F, [4]), 0, 1, dims=(2, 3)))
add("select_scatter_0d_src", call("select_scatter", T(F, [4]), T(F, []), 0, 1, dims=(2, 3)))
add("diagonal_scatter_dims", call("diagonal_scatter", T(F, [2, 3, 3]), T(F, [3, 2]), 0, 0, 2, dims=(3, 4)))
add("diagonal_scatter_negative", call("diagonal_scatter", T(F, [3, 3]), T(F, [2]), -1))
add("diagonal_scatter_bad", call("diagonal_scatter", T(F, [3, 3]), T(F, [2]), 0))
add("as_strided_scatter_bad", call("as_strided_scatter", T(F, [3, 3]), T(F, [2]), [3], [1]))
add("as_strided_scatter_offset", call("as_strided_scatter", T(F, [3, 3]), T(F, [3]), [3], [4]))
# index_fill
add("index_fill_tensor_value", call("index_fill", T(F, [3, 4]), 0, I([2]), V(2.5), dims=(1,), index=(2,)))
add("index_fill_negative_dim", call("index_fill", T(F, [3, 4]), -1, I([-1, 0]), -1, dims=(1,), index=(2,)))
add("index_fill_0d_index", call("index_fill", T(F, [3, 4]), 0, I(1), 9, dims=(1,), index=(2,)))
add("index_fill_2d_index", call("index_fill", T(F, [3, 4]), 0, I([[0]]), 1, dims=(1,), index=(2,)))
add("index_fill_1d_value", call("index_fill", T(F, [3, 4]), 0, I([0]), V([1.0]), dims=(1,), index=(2,)))
add("index_fill_float_index", call("index_fill", T(F, [3, 4]), 0, V([0.0]), 1, dims=(1,)))
add("index_fill_out_of_range", call("index_fill", T(F, [3, 4]), 0, I([5]), 1, dims=(1,), index=(2,),
                                    expect=["dims", "indices"]))
add("index_fill_0d", call("index_fill", T(F, []), 0, I([0]), 3, dims=(1,), index=(2,)))
add("index_fill_transposed", call("index_fill", T(F, [3, 4], "t"), 1, I([1]), 0, dims=(1,), index=(2,)))
add("index_fill_method_", call("index_fill_", T(F, [3, 4]), 1, I([1, 3]), 2, method=True, dims=(1,), index=(2,)))
add("index_fill_bool_value", call("index_fill", T("bool", [3, 4]), 1, I([1]), True, dims=(1,), index=(2,)))
# put
add("put_accumulate", call("put", T(F, [3, 4]), I([0, 0, 5]), T(F, [3]), True, index=(1,)))
add("put_negative", call("put", T(F, [3, 4]), I([-1, -12]), T(F, [2]), index=(1,)))
add("put_transposed", call("put", T(F, [3, 4], "t"), I([1, 4]), T(F, [2]), index=(1,)))
add("put_2d_index", call("put", T(F, [3, 4]), I([[1, 2], [3, 4]]), T(F, [2, 2]), index=(1,)))
add("put_numel", call("put", T(F, [3, 3]), I([1, 2]), T(F, [3]), index=(1,)))
add("put_out_of_range", call("put", T(F, [3, 3]), I([1, 20]), T(F, [2]), index=(1,), expect=["indices"]))
add("put_out_of_range_negative", call("put", T(F, [3, 3]), I([1, -20]), T(F, [2]), index=(1,)))
add("put_method_", call("put_", T(D, [2, 3]), I([4]), T(D, [1]), method=True, index=(1,)))
# searchsorted, bucketize
SEQ = V([1.0, 2.0, 2.0, 3.0, 5.0])
add("searchsorted_left", call("searchsorted", SEQ, V([0.0, 2.0, 2.5, 5.0, 6.0]), index_out=(0,)))
add("searchsorted_right", call("searchsorted", V([1.0, 2.0, 2.0, 3.0, 5.0]), V([0.0, 2.0, 2.5, 5.0, 6.0]),
                               kw={"right": True}, index_out=(0,)))
add("searchsorted_side", call("searchsorted", V([1.0, 2.0, 2.0, 3.0, 5.0]), V([2.0, 5.0]), kw={"side": "right"},
                              index_out=(0,)))
add("searchsorted_out_int32", call("searchsorted", V([1.0, 2.0, 3.0]), V([2.0]), kw={"out_int32": True}, index_out=(0,)))
add("searchsorted_nd", call("searchsorted", V([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]), V([[3.0, 6.0], [1.0, 4.5]]),
                            index_out=(0,)))
add("searchsorted_scalar", call("searchsorted", V([1.0, 3.0, 5.0]), 4, index_out=(0,)))
add("searchsorted_mixed_dtypes", call("searchsorted", V([1, 3, 5], "int64"), V([2.5, 3.0]), index_out=(0,)))
add("searchsorted_empty_values", call("searchsorted", V([1.0, 3.0]), T(F, [0]), index_out=(0,)))
add("searchsorted_bad_side", call("searchsorted", V([1.0, 3.0]), V([2.0]), kw={"side": "up"}))
add("searchsorted_opposite", call("searchsorted", V([1.0, 3.0]), V([2.0]), kw={"side": "left", "right": True}))
add("searchsorted_0d", call("searchsorted", V(1.0), V([2.0])))
add("searchsorted_shapes", call("searchsorted", T(F, [2, 3]), T(F, [3, 1])))
add("bucketize_right", call("bucketize", V([0.0, 1.0, 4.0, 7.0]), V([1.0, 4.0, 6.0]), kw={"right": True},
                            index_out=(0,)))
add("bucketize_scalar", call("bucketize", 4, V([1.0, 4.0, 6.0]), index_out=(0,)))
add("bucketize_out_int32", call("bucketize", V([[0.0, 5.0]]), V([1.0, 4.0, 6.0]), kw={"out_int32": True},
                            index_out=(0,)))
add("bucketize_2d", call("bucketize", V([1.0]), V([[1.0, 4.0]])))
# unique_consecutive
add("unique_consecutive_values", call("unique_consecutive", V([1, 1, 2, 2, 3, 1, 1], "int64")))
add("unique_consecutive_counts", call("unique_consecutive", V([1, 1, 2, 2, 3, 1, 1], "int64"),
                                      kw={"return_counts": True}))
add("unique_consecutive_inverse_2d", call("unique_consecutive", V([[1, 1], [2, 2], [2, 1]], "int64"),
                                          kw={"return_inverse": True}, index_out=(1,)))
add("unique_consecutive_dim0", call("unique_consecutive", V([[1, 1], [1, 1], [2, 3], [2, 3]], "int64"),
                                    kw={"return_inverse": True, "return_counts": True, "dim": 0}, dims=("dim",),
                                    index_out=(1,)))
add("unique_consecutive_dim1", call("unique_consecutive", V([[1, 1, 2], [3, 3, 4]], "int64"),
                                    kw={"return_inverse": True, "return_counts": True, "dim": 1}, dims=("dim",),
                                    index_out=(1,)))
add("unique_consecutive_0d", call("unique_consecutive", V(3.0), kw={"return_inverse": True, "return_counts": True},
                                  index_out=(1,)))
add("unique_consecutive_empty", call("unique_consecutive", T(F, [0]), kw={"return_inverse": True,
                                     "return_counts": True}, index_out=(1,)))
add("unique_consecutive_nan", call("unique_consecutive", V([1.0, float("nan"), float("nan"), 2.0])))
add("unique_consecutive_method", call("unique_consecutive", V([2, 2, 1], "int64"), method=True))
# msort
add("msort_1d", call("msort", T(F, [5])))
add("msort_0d", call("msort", T(F, [])))
# fill_diagonal_, resize_as_, type_as, new_*
add("fill_diagonal_tall", call("fill_diagonal_", T(F, [7, 3]), 2, method=True))
add("fill_diagonal_wrap", call("fill_diagonal_", T(F, [7, 3]), 2, True, method=True))
add("fill_diagonal_wrap_short", call("fill_diagonal_", T(F, [4, 3]), 2, True, method=True))
add("fill_diagonal_cube", call("fill_diagonal_", T(F, [3, 3, 3]), -1, method=True))
add("fill_diagonal_bad_cube", call("fill_diagonal_", T(F, [2, 3, 3]), 1, method=True))
add("fill_diagonal_1d", call("fill_diagonal_", T(F, [3]), 1, method=True))
add("fill_diagonal_transposed", call("fill_diagonal_", T(F, [3, 4], "t"), 5, method=True))
add("resize_as_", call("resize_as_", T(F, [2, 3]), T(F, [3, 2]), method=True))
add("resize_as_smaller", call("resize_as_", T("int64", [2, 3]), T(F, [4]), method=True))
add("type_as", call("type_as", T(F, [2, 3]), T("int32", [1]), method=True))
add("type_as_same", call("type_as", T(F, [2, 3], "t"), T(F, [1]), method=True))
add("new_zeros", call("new_zeros", T("int32", [2]), [2, 3], method=True))
add("new_ones_dtype", call("new_ones", T("int32", [2]), [3], kw={"dtype": torch.float64}, method=True))
add("new_full_dtype", call("new_full", T(F, [2]), [2], 7, kw={"dtype": torch.int64}, method=True))
add("new_empty_shape", call("new_empty", T(F, [2]), [0, 3], method=True))
add("new_tensor", call("new_tensor", T("int32", [2]), [[1, 2], [3, 4]], method=True))
add("new_tensor_dtype", call("new_tensor", T("int32", [2]), [1.5, 2], kw={"dtype": torch.float64}, method=True))
