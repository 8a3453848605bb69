"""scatter_reduce, index_reduce and scatter's reduce= forms against PyTorch
(src/ops/scatter_reduce.lua). Index tensors are 1-based on the Lua side (index=)."""
import torch

from _opcase import T, V, call

CASES = {}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


TOL = {"float32": 1e-5, "float64": 1e-12, "float16": 1e-2, "bfloat16": 2e-2}
IDX = V([[0, 1, 0], [2, 2, 1]], "int64")
REDS = ("sum", "prod", "mean", "amax", "amin")
for red in REDS:
    for dt in ("float32", "float64", "int64", "int32", "float16", "bfloat16"):
        add("scatter_reduce_%s_%s" % (red, dt), call("scatter_reduce", T(dt, [3, 3]), 0, IDX, T(dt, [2, 3]), red,
                                                      dims=(1,), index=(2,), tol=TOL))
    add("scatter_reduce_noself_%s" % red, call("scatter_reduce", T("float64", [3, 3]), 0, IDX, T("float64", [2, 3]),
                                                red, kw={"include_self": False}, dims=(1,), index=(2,), tol=TOL))
    add("scatter_reduce_dim1_%s" % red, call("scatter_reduce", T("float32", [2, 4]), 1,
                                              V([[3, 0, 3], [1, 1, 1]], "int64"), T("float32", [2, 3]), red,
                                              dims=(1,), index=(2,), tol=TOL))
    add("scatter_reduce_method_%s" % red, call("scatter_reduce", T("float64", [4]), 0, V([1, 1, 3], "int64"),
                                                T("float64", [3]), red, method=True, dims=(1,), index=(2,), tol=TOL))
    add("scatter_reduce_inplace_%s" % red, call("scatter_reduce_", T("float64", [4]), 0, V([1, 1, 3], "int64"),
                                                 T("float64", [3]), red, method=True, dims=(1,), index=(2,), tol=TOL))
add("scatter_reduce_mean_int_floor", call("scatter_reduce", V([1, 2, 3, 4], "int64"), 0, V([0, 0, 1], "int64"),
                                          V([-5, -3, 7], "int64"), "mean", dims=(1,), index=(2,)))
add("scatter_reduce_bool_sum", call("scatter_reduce", V([True, False, False], "bool"), 0, V([1, 2], "int64"),
                                    V([True, False], "bool"), "sum", dims=(1,), index=(2,)))
add("scatter_reduce_nan_amax", call("scatter_reduce", V([1.0, 2.0]), 0, V([0, 0, 1], "int64"),
                                    V([float("nan"), 5.0, 1.0]), "amax", dims=(1,), index=(2,)))
add("scatter_reduce_neg_dim", call("scatter_reduce", T("float32", [2, 3]), -1, V([[2, 2], [0, 1]], "int64"),
                                   T("float32", [2, 2]), "sum", dims=(1,), index=(2,), tol=TOL))
add("scatter_reduce_bad_reduce", call("scatter_reduce", T("float32", [3]), 0, V([0], "int64"), T("float32", [1]),
                                      "foo", dims=(1,), index=(2,)))
add("scatter_reduce_dtypes", call("scatter_reduce", T("float32", [3]), 0, V([0], "int64"), T("float64", [1]),
                                  "sum", dims=(1,), index=(2,)))
add("scatter_reduce_oob", call("scatter_reduce", T("float32", [3]), 0, V([0, 5], "int64"), T("float32", [2]),
                               "sum", dims=(1,), index=(2,), expect=["indices", "dims"]))
add("scatter_reduce_index_dtype", call("scatter_reduce", T("float32", [3]), 0, V([0.0, 1.0]), T("float32", [2]),
                                       "sum", dims=(1,)))
for red, name in (("add", "add"), ("multiply", "multiply")):
    add("scatter_src_reduce_%s" % name, call("scatter", T("float64", [4]), 0, V([0, 1, 0], "int64"),
                                              T("float64", [3]), kw={"reduce": red}, dims=(1,), index=(2,), tol=TOL))
    add("scatter_value_reduce_%s" % name, call("scatter", T("float64", [4]), 0, V([0, 1, 0], "int64"), 2.0,
                                                kw={"reduce": red}, dims=(1,), index=(2,), tol=TOL))
    add("scatter__reduce_%s" % name, call("scatter_", T("float32", [2, 2]), 1, V([[1], [0]], "int64"),
                                           T("float32", [2, 1]), kw={"reduce": red}, method=True, dims=(1,),
                                           index=(2,), tol=TOL))
add("scatter_reduce_bad_legacy", call("scatter", T("float32", [4]), 0, V([0], "int64"), 2.0, kw={"reduce": "foo"},
                                      dims=(1,), index=(2,)))
SRC = V([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]])
for red in ("prod", "mean", "amax", "amin"):
    for dt in ("float32", "float64", "int64"):
        add("index_reduce_%s_%s" % (red, dt), call("index_reduce", T(dt, [3, 2]), 0, V([0, 2, 0], "int64"),
                                                    T(dt, [3, 2]), red, dims=(1,), index=(2,), tol=TOL))
    add("index_reduce_noself_%s" % red, call("index_reduce", T("float64", [3, 2]), 0, V([0, 2, 0], "int64"),
                                              T("float64", [3, 2]), red, kw={"include_self": False}, dims=(1,),
                                              index=(2,), tol=TOL))
    add("index_reduce_dim1_%s" % red, call("index_reduce", T("float64", [2, 3]), 1, V([2, 2], "int64"),
                                            T("float64", [2, 2]), red, dims=(1,), index=(2,), tol=TOL))
    add("index_reduce__%s" % red, call("index_reduce_", T("float64", [3, 2]), 0, V([1, 1], "int64"),
                                        T("float64", [2, 2]), red, method=True, dims=(1,), index=(2,), tol=TOL))
add("index_reduce_sum", call("index_reduce", T("float32", [3, 2]), 0, V([0], "int64"), T("float32", [1, 2]), "sum",
                             dims=(1,), index=(2,)))
add("index_reduce_oob", call("index_reduce", T("float32", [3, 2]), 0, V([0, 5], "int64"), T("float32", [2, 2]),
                             "prod", dims=(1,), index=(2,)))
add("index_reduce_2d_index", call("index_reduce", T("float32", [3, 2]), 0, V([[0, 1]], "int64"), T("float32", [2, 2]),
                                  "prod", dims=(1,), index=(2,)))
add("index_reduce_count", call("index_reduce", T("float32", [3, 2]), 0, V([0, 1], "int64"), T("float32", [3, 2]),
                               "prod", dims=(1,), index=(2,), expect=["dims"]))
add("index_reduce_dtypes", call("index_reduce", T("float32", [3, 2]), 0, V([0, 1], "int64"), T("float64", [2, 2]),
                                "prod", dims=(1,), index=(2,)))
