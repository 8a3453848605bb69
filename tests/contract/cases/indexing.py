"""Torch7-style indexing and assignment (LUA_API.md) against PyTorch's Python indexing.

Each case is written once as the Lua key: numbers are 1-based positions (negatives from the
end), R(a, b, step) is the inclusive range {a, b, step}, ":" and "..." are themselves, and
tensors are index tensors (0-based values here, shifted for Lua) or bool masks. The same key
is translated to the Python index PyTorch runs; the harness rebuilds the Lua key.
"""
import torch

from _opcase import ALL, T, V

CASES = {}


class R:
    """A Lua range: {} (the whole dim), {a} (a..a), {a, b} or {a, b, step}, inclusive."""

    def __init__(self, *v):
        self.v = list(v)

    def py(self):
        if not self.v:
            return slice(None)
        a = self.v[0]
        b = self.v[1] if len(self.v) > 1 else a
        step = self.v[2] if len(self.v) > 2 else None
        start = a - 1 if a > 0 else a
        stop = b if b > 0 else (b + 1 if b + 1 != 0 else None)
        return slice(start, stop, step)


def I(values):  # an int64 index tensor, 0-based values
    return V(values, "int64")


def B(values):  # a bool mask
    return V(values, "bool")


def py_entry(k):
    if isinstance(k, bool):
        raise TypeError(k)
    if isinstance(k, int):
        return k - 1 if k > 0 else k
    if k == ":":
        return slice(None)
    if k == "...":
        return Ellipsis
    if isinstance(k, R):
        return k.py()
    raise TypeError(k)


def describe_entry(k, made):
    if isinstance(k, R):
        return {"range": k.v}
    if isinstance(k, T):
        return {"tensor": k.describe(made), "index": k.dtype == "int64"}
    return {"value": k}


def case(x, key, value=None, expect=None):
    """x[key] (get), or x[key] = value, then x (set)."""

    def run():
        xt = x.make()
        entries = key if isinstance(key, list) else [key]
        made = [k.make() if isinstance(k, T) else None for k in entries]
        pyk = [m if m is not None else py_entry(k) for k, m in zip(entries, made)]
        pykey = tuple(pyk) if isinstance(key, list) else pyk[0]
        args = [{"tensor": x.describe(xt)},
                {"key": [describe_entry(k, m) for k, m in zip(entries, made)], "table": isinstance(key, list)}]
        v = value
        if isinstance(value, T):
            v = value.make()
            args.append({"tensor": value.describe(v)})
        elif value is not None:
            args.append({"value": value})
        run.described = args
        if value is None:
            return xt[pykey]
        xt[pykey] = v
        return xt

    c = {"make": run, "describe_args": lambda: run.described,
         "call": {"fn": "__index" if value is None else "__setindex", "method": False, "kw": {},
                  "dims": [], "index": [], "index_out": []}}
    if expect is not None:
        c["expect"] = expect
    return c


def add(name, c):
    assert name not in CASES, name
    CASES[name] = c


X = lambda dt="float32", layout="contig": T(dt, [3, 4, 5], layout)  # noqa: E731

# ---- numbers, ranges, ":" and "..." (views) --------------------------------------------------
for dt in ALL:
    add("number_%s" % dt, case(X(dt), 2))
    add("ranges_%s" % dt, case(X(dt), [R(2, 3), ":", R(1, -1, 2)]))
    add("set_number_%s" % dt, case(X(dt), [2, ":", 1], 1))
    add("index_tensor_%s" % dt, case(X(dt), [":", I([3, 0, 3])]))
    add("mask_%s" % dt, case(X(dt), T("bool", [3, 4, 5])))
    add("set_mask_%s" % dt, case(X(dt), T("bool", [3, 4, 5]), 0))
add("number_last", case(X(), -1))
add("number_transposed", case(X("float32", "t"), 2))
add("numbers_all", case(X(), [3, 4, 5]))
add("numbers_negative", case(X(), [-1, -4, 1]))
add("numbers_two", case(X(), [2, 3]))
add("range_single", case(X(), [R(2)]))
add("range_single_negative", case(X(), [R(-1), R(-2)]))
add("range_whole", case(X(), [R(), R(2, 3)]))
add("range_step", case(X(), [R(1, 3, 2), "...", R(2, 5, 2)]))
add("range_step_transposed", case(X("float32", "t"), [R(1, 3, 2), "...", R(2, 5, 2)]))
add("range_negative", case(X(), [":", R(-3, -2)]))
add("range_empty", case(X(), [R(3, 2)]))
add("range_empty_at_end", case(X(), [R(4, 3)]))
add("range_sliced_layout", case(X("float32", "sliced"), [":", R(2, 4)]))
add("ellipsis_first", case(X(), ["...", 2]))
add("ellipsis_last", case(X(), [2, "..."]))
add("ellipsis_middle", case(X(), [1, "...", 2]))
add("ellipsis_alone", case(X(), ["..."]))
add("colons", case(X(), [":", ":", R(-2, -1)]))
add("empty_key", case(X(), []))
# ---- index tensors and masks (copies) --------------------------------------------------------
add("index_whole_key", case(X(), I([2, 0])))
add("index_2d", case(X(), [":", I([[1, 0], [2, 2]])]))
add("index_negative", case(X(), [I([-1, 0])]))
add("index_0d", case(X(), I(1)))
add("index_empty", case(X(), I([])))
add("index_two_adjacent", case(X(), [I([0, 1]), I([1, 2])]))
add("index_two_apart", case(X(), [I([0, 1]), ":", I([1, 2])]))
add("index_two_trailing", case(X(), [":", I([0, 1]), I([1, 2])]))
add("index_after_number", case(X(), [1, ":", I([4, 0])]))
add("index_after_range", case(X(), [R(2, 3), I([[0, 1]])]))
add("index_broadcast", case(X(), [I([[0], [1]]), I([0, 2, 3])]))
add("index_three", case(X(), [I([0, 2]), I([1, 3]), I([4, 0])]))
add("index_transposed", case(X("float32", "t"), [":", I([1, 3])]))
add("mask_leading", case(X(), B([True, False, True])))
add("mask_leading_two", case(X(), T("bool", [3, 4])))
add("mask_after_colon", case(X(), [":", B([True, False, False, True])]))
add("mask_and_index", case(X(), [B([True, False, True]), 2, I([1, 4])]))
add("mask_0d_true", case(X(), B(True)))
add("mask_0d_false", case(X(), B(False)))
add("mask_byte", case(T("float32", [3, 4]), V([[1, 0, 0, 1]] * 3, "uint8")))
add("mask_transposed", case(X("float32", "t"), T("bool", [3, 4, 5])))
add("mask_all_false", case(X(), V([False] * 3, "bool")))
# ---- assignment -------------------------------------------------------------------------------
add("set_row", case(X(), 2, 7))
add("set_row_tensor", case(X(), 2, T("float32", [4, 5])))
add("set_broadcast", case(X(), [":", 1], T("float32", [5])))
add("set_range", case(X(), [R(1, 2), R(2, 3)], T("float32", [2, 2, 5])))
add("set_step", case(X(), [R(1, 3, 2), "...", R(1, 5, 2)], -1))
add("set_transposed", case(X("float32", "t"), [":", 2], 5))
add("set_converts_value", case(X("int64"), 1, 2.75))
add("set_converts_tensor", case(X("int64"), [1, 1], T("float32", [5])))
add("set_mask_value_tensor", case(X(), B([True, False, True]), V([2.5], "float32")))
add("set_mask_leading", case(X(), B([True, False, True]), -3))
add("set_mask_rows", case(T("float32", [3, 4]), B([True, False, True]), V([[1, 2, 3, 4], [5, 6, 7, 8]], "float32")))
add("set_index", case(X(), I([0, 2]), T("float32", [2, 4, 5])))
add("set_index_broadcast", case(X(), [":", I([0, 2])], T("float32", [5])))
add("set_index_apart", case(X(), [I([0, 1]), ":", I([1, 3])], 9))
add("set_index_apart_tensor", case(X(), [I([0, 1]), ":", I([1, 3])], T("float32", [2, 4])))
add("set_index_trailing", case(X(), [":", I([0, 1]), I([1, 2])], T("float32", [3, 1])))
add("set_index_transposed", case(X("float32", "t"), [I([0, 2]), I([1, 3])], T("float32", [5])))
add("set_index_sliced", case(X("float32", "sliced"), [":", ":", I([4, 0])], 1))
add("set_mask_after_colon", case(X(), [":", B([True, False, True, True])], T("float32", [3, 3, 1])))
# ---- misuse -----------------------------------------------------------------------------------
add("number_out_of_range", case(X(), 4, expect=["dims", "indices"]))
add("number_negative_out_of_range", case(X(), -4, expect=["dims"]))
add("number_second_dim_out_of_range", case(X(), [1, 5], expect=["dims", "indices"]))
add("too_many", case(X(), [1, 1, 1, 1]))
add("too_many_with_mask", case(X(), [T("bool", [3, 4]), 1, 1]))
add("index_out_of_range", case(X(), I([3]), expect=["dims", "indices"]))
add("index_negative_out_of_range", case(X(), I([-4]), expect=["dims"]))
add("index_second_out_of_range", case(X(), [I([0, 1]), ":", I([1, 7])], expect=["dims", "indices"]))
add("index_float", case(X(), V([1.0], "float32")))
add("index_int32", case(X(), V([1], "int32")))
add("index_no_broadcast", case(X(), [I([0, 1]), I([0, 1, 2])]))
add("mask_bad_shape", case(X(), B([True, False]), expect=["indices"]))
add("mask_bad_shape_two", case(X(), T("bool", [3, 5]), expect=["indices"]))
add("set_bad_value_shape", case(X(), I([0, 1]), T("float32", [3])))
add("set_mask_bad_value_shape", case(X(), B([True, False, True]), T("float32", [3])))
add("set_index_dtype", case(X(), I([0, 1]), T("int64", [5])))
