"""Random streams against PyTorch: after the same seed, the same numbers (doc/rng.md).

Sizes below 16 take the scalar paths, 16 and more the fill paths (with a tail block when the
size is not a multiple of 16); transposed and sliced tensors are filled in memory order.
"""
import torch

from _opcase import ALL, FLOATS, G, T, V, call

CASES = {}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


SIZES = {"small": [5], "fill": [4, 10], "fill_exact": [32], "empty": [0, 3]}

for dt in FLOATS:
    for sname, size in SIZES.items():
        add("rand_%s_%s" % (dt, sname), call("rand", size, kw={"dtype": getattr(torch, dt)}, seed=7))
        add("randn_%s_%s" % (dt, sname), call("randn", size, kw={"dtype": getattr(torch, dt)}, seed=7))
for dt in ALL:
    hi = 2 if dt == "bool" else 100
    add("randint_%s" % dt, call("randint", 0, hi, [20], kw={"dtype": getattr(torch, dt)}, seed=3))
    add("random_default_%s" % dt, call("random_", T(dt, [7]), method=True, seed=3))
    add("random_to_%s" % dt, call("random_", T(dt, [7]), 2, method=True, seed=3))
    add("bernoulli_p_%s" % dt, call("bernoulli_", T(dt, [3, 5]), 0.3, method=True, seed=11))
for dt in ["uint8", "int8", "int16", "int32", "int64", "float32", "float64", "bfloat16"]:
    add("random_from_open_%s" % dt, call("random_", T(dt, [6]), 3, None, method=True, seed=5))
for dt in FLOATS:
    add("uniform_%s" % dt, call("uniform_", T(dt, [4, 5]), -2, 3, method=True, seed=2))
    add("uniform_small_%s" % dt, call("uniform_", T(dt, [3]), 0.5, 0.75, method=True, seed=2))
    add("normal_%s" % dt, call("normal_", T(dt, [3, 7]), 1.5, 0.25, method=True, seed=2))
    add("normal_transposed_%s" % dt, call("normal_", T(dt, [4, 5], "t"), method=True, seed=2))
    add("exponential_%s" % dt, call("exponential_", T(dt, [6]), 2.0, method=True, seed=2))
    add("dropout_%s" % dt, call("dropout", T(dt, [4, 6]), 0.3, True, seed=9))
    add("bernoulli_tensor_p_%s" % dt, call("bernoulli", V([[0.1, 0.5, 0.9, 0.0, 1.0]] * 4, dt), seed=9))

# the fill paths' edges and tails
for n in [15, 16, 17, 31, 33, 100]:
    add("randn_n%d" % n, call("randn", [n], seed=1234))
    add("randn_float64_n%d" % n, call("randn", [n], kw={"dtype": torch.float64}, seed=1234))
add("randn_2d", call("randn", [3, 11], seed=42))
add("randn_big_seed", call("randn", [20], seed=2**63 + 5 - 2**64))  # seed 2^63 + 5, as a Lua integer
add("rand_negative_seed", call("rand", [4], seed=-1))
add("normal_sliced", call("normal_", T("float32", [3, 8], "sliced"), 0.0, 2.0, method=True, seed=4))
add("normal_sliced_big", call("normal_", T("float32", [4, 8], "sliced"), method=True, seed=4))
add("uniform_transposed", call("uniform_", T("float32", [5, 4], "t"), method=True, seed=4))
add("uniform_sliced", call("uniform_", T("float64", [3, 4], "sliced"), 1, 2, method=True, seed=4))
add("rand_generator", call("rand", [6], kw={"generator": G(99)}, seed=1))
add("randn_generator", call("randn", [20], kw={"generator": G(99)}, seed=1))
add("normal_generator", call("normal_", T("float64", [5]), kw={"generator": G(3)}, method=True, seed=1))
# randint ranges: 32-bit draws, 64-bit draws for wide ranges, negative lows
add("randint_high_only", call("randint", 10, [12], seed=8))
add("randint_negative", call("randint", -50, -3, [12], seed=8))
add("randint_wide_int64", call("randint", -(2**40), 2**40, [6], seed=8))
add("randint_wide_float64", call("randint", 0, 2**33, [6], kw={"dtype": torch.float64}, seed=8))
add("randint_wide_float32", call("randint", 0, 2**33, [6], kw={"dtype": torch.float32}, seed=8))
add("randint_wide_float32_low", call("randint", -(2**33) - 1, 5, [6], kw={"dtype": torch.float32}, seed=8))
add("randint_half_to_rounds", call("randint", 0, 4099, [6], kw={"dtype": torch.float16}, seed=8))
add("random_from_open_half_rounds", call("random_", T("float16", [4]), 2049, None, method=True, seed=8))
add("randint_2d", call("randint", 3, 9, [3, 4], seed=8))
add("random_from_to", call("random_", T("int64", [8]), -7, 7, method=True, seed=8))
add("random_from_min", call("random_", T("int64", [4]), -(2**63), None, method=True, seed=8))
add("random_transposed", call("random_", T("int32", [3, 4], "t"), 0, 1000, method=True, seed=8))
# randperm
for n in [0, 1, 2, 10, 50]:
    add("randperm_%d" % n, call("randperm", n, seed=6, index_out=(0,)))
add("randperm_int32", call("randperm", 12, kw={"dtype": torch.int32}, seed=6, index_out=(0,)))
add("randperm_float32", call("randperm", 12, kw={"dtype": torch.float32}, seed=6, index_out=(0,)))
add("randperm_generator", call("randperm", 9, kw={"generator": G(5)}, seed=6, index_out=(0,)))
# normal with tensors
add("normal_tensor_float", call("normal", T("float32", [3, 4]), 0.5, seed=10))
add("normal_float_tensor", call("normal", 2.0, T("float32", [20], domain="pos"), seed=10))
add("normal_tensor_tensor", call("normal", T("float64", [2, 1]), T("float64", [3], domain="pos"), seed=10))
add("normal_float_float", call("normal", 1.0, 3.0, [5], seed=10))
add("normal_float_float_fill", call("normal", 1.0, 3.0, [2, 9], seed=10))
# bernoulli with tensors of probabilities, broadcast to self
add("bernoulli_tensor", call("bernoulli", V([[0.2, 0.8, 0.5]] * 4, "float32"), seed=12))
add("bernoulli__broadcast_p", call("bernoulli_", T("int64", [3, 4]), V([0.1, 0.9, 0.5, 0.5], "float64"), method=True,
                                   seed=12))
add("bernoulli__bf16_p", call("bernoulli_", T("float32", [2, 3]), V([0.3, 0.6, 0.9], "bfloat16"), method=True,
                              seed=12))
add("bernoulli__transposed", call("bernoulli_", T("float32", [3, 4], "t"), 0.5, method=True, seed=12))
# multinomial
P = [[0.1, 0.2, 0.3, 0.4, 0.0, 1.5], [2.0, 0.0, 0.0, 1.0, 1.0, 1.0]]
add("multinomial_1", call("multinomial", V(P[0], "float32"), 1, seed=13, index_out=(0,)))
add("multinomial_k", call("multinomial", V(P[0], "float32"), 4, seed=13, index_out=(0,)))
add("multinomial_rows", call("multinomial", V(P, "float64"), 3, seed=13, index_out=(0,)))
add("multinomial_replacement", call("multinomial", V(P[0], "float32"), 10, True, seed=13, index_out=(0,)))
add("multinomial_replacement_1", call("multinomial", V(P, "float32"), 1, True, seed=13, index_out=(0,)))
add("multinomial_replacement_rows", call("multinomial", V(P, "float64"), 7, True, seed=13, index_out=(0,)))
add("multinomial_bf16", call("multinomial", V(P, "bfloat16"), 5, True, seed=13, index_out=(0,)))
add("multinomial_generator", call("multinomial", V(P[1], "float32"), 3, kw={"generator": G(2)}, seed=13,
                                  index_out=(0,)))
add("multinomial_method", call("multinomial", V(P, "float32"), 2, method=True, seed=13, index_out=(0,)))
# dropout's edges: no draws
add("dropout_p0", call("dropout", T("float32", [5]), 0.0, True, seed=14))
add("dropout_eval", call("dropout", T("float32", [5]), 0.5, False, seed=14))
add("dropout_p1", call("dropout", T("float32", [5]), 1.0, True, seed=14))
add("dropout_inplace", call("dropout_", T("float64", [2, 9]), 0.5, True, seed=14))
# like
add("rand_like", call("rand_like", T("float64", [3, 4], "t"), seed=15))
add("randn_like", call("randn_like", T("float32", [4, 5]), seed=15))
add("randint_like", call("randint_like", T("int32", [6]), 5, seed=15))
add("randint_like_low", call("randint_like", T("float32", [6]), -5, 5, seed=15))
# misuse
add("rand_int_dtype", call("rand", [3], kw={"dtype": torch.int64}))
add("randn_int_dtype", call("randn", [3], kw={"dtype": torch.int64}))
add("rand_bool_dtype", call("rand", [3], kw={"dtype": torch.bool}))
add("randint_empty_range", call("randint", 5, 3, [2]))
add("randint_bool_range", call("randint", 5, [2], kw={"dtype": torch.bool}))
add("randint_int32_too_wide", call("randint", 0, 2**40, [2], kw={"dtype": torch.int32}))
add("randperm_negative", call("randperm", -1))
add("randperm_bool", call("randperm", 3, kw={"dtype": torch.bool}))
add("randperm_int8_overflow", call("randperm", 300, kw={"dtype": torch.int8}))
add("randperm_half_overflow", call("randperm", 3000, kw={"dtype": torch.float16}))
add("normal_negative_std", call("normal_", T("float32", [3]), 0, -1, method=True))
add("normal_nan_std", call("normal_", T("float32", [3]), 0, float("nan"), method=True))
add("normal_int", call("normal_", T("int64", [3]), method=True))
add("normal_tensor_negative_std", call("normal", T("float32", [3]), V([1.0, -1.0, 1.0]), seed=1))
add("normal_tensor_bad_shapes", call("normal", T("float32", [3]), T("float32", [2], domain="pos"), expect=["dims"]))
add("uniform_reversed", call("uniform_", T("float32", [3]), 2, 1, method=True))
add("uniform_int", call("uniform_", T("int64", [3]), method=True))
add("uniform_infinite", call("uniform_", T("float32", [3]), 0, float("inf"), method=True))
add("uniform_half_range", call("uniform_", T("float16", [3]), 0, 70000, method=True))
add("uniform_too_wide", call("uniform_", T("float32", [3]), -3.4e38, 3.4e38, method=True))
add("exponential_negative", call("exponential_", T("float32", [3]), -1.0, method=True))
add("exponential_int", call("exponential_", T("int64", [3]), method=True))
add("random_empty_range", call("random_", T("float32", [3]), 5, 5, method=True))
add("random_to_nonpositive", call("random_", T("int8", [3]), -5, method=True))
add("random_from_out_of_bounds", call("random_", T("uint8", [3]), -1, 5, method=True))
add("random_to_out_of_bounds", call("random_", T("int32", [3]), 0, 2**40, method=True))
add("bernoulli_p_out_of_range", call("bernoulli_", T("float32", [3]), 1.5, method=True))
add("bernoulli_tensor_p_out_of_range", call("bernoulli_", T("float32", [3]), V([0.5, 2.0, 0.1]), method=True))
add("bernoulli_int_p", call("bernoulli", T("int64", [3])))
add("bernoulli_half_self", call("bernoulli_", T("float16", [2]), V([0.5, 0.5]), method=True))
add("multinomial_int", call("multinomial", T("int64", [3]), 1))
add("multinomial_half", call("multinomial", T("float16", [3]), 1))
add("multinomial_3d", call("multinomial", T("float32", [2, 2, 2], domain="pos"), 1))
add("multinomial_zero_samples", call("multinomial", T("float32", [3], domain="pos"), 0))
add("multinomial_too_many", call("multinomial", T("float32", [3], domain="pos"), 4))
add("multinomial_negative", call("multinomial", V([1.0, -1.0]), 1))
add("multinomial_zero_sum", call("multinomial", V([0.0, 0.0]), 1))
add("multinomial_replacement_negative", call("multinomial", V([1.0, -1.0]), 2, True))
add("multinomial_replacement_inf", call("multinomial", V([1.0, float("inf")]), 2, True))
add("multinomial_replacement_zero_sum", call("multinomial", V([0.0, 0.0]), 2, True))
add("dropout_bad_p", call("dropout", T("float32", [3]), 1.5, True))
add("dropout_int", call("dropout", T("int64", [3]), 0.5, True, seed=1))

# cauchy_, log_normal_, geometric_, poisson, binomial (doc/rng.md, sections 11-15)
for dt in FLOATS:
    add("cauchy_%s" % dt, call("cauchy_", T(dt, [7]), 0.5, 2.0, method=True, seed=6))
    add("log_normal_%s" % dt, call("log_normal_", T(dt, [7]), 0.3, 0.7, method=True, seed=6))
    add("log_normal_defaults_%s" % dt, call("log_normal_", T(dt, [3]), method=True, seed=6))
for dt in ALL:
    if dt != "bool":
        add("geometric_%s" % dt, call("geometric_", T(dt, [9]), 0.3, method=True, seed=6))
add("cauchy_transposed", call("cauchy_", T("float64", [4, 5], "t"), method=True, seed=6))
add("cauchy_negative_sigma", call("cauchy_", T("float32", [3]), 0, -1, method=True, seed=6))
add("cauchy_int", call("cauchy_", T("int64", [3]), method=True))
add("log_normal_zero_std", call("log_normal_", T("float32", [3]), 1, 0, method=True))
add("log_normal_nan_std", call("log_normal_", T("float32", [3]), 0, float("nan"), method=True))
add("log_normal_int", call("log_normal_", T("int32", [3]), method=True))
add("geometric_small_p", call("geometric_", T("int64", [6]), 0.001, method=True, seed=6))
add("geometric_p_zero", call("geometric_", T("float32", [3]), 0, method=True))
add("geometric_p_one", call("geometric_", T("float32", [3]), 1, method=True))
add("geometric_bool", call("geometric_", T("bool", [3]), 0.5, method=True))
add("geometric_generator", call("geometric_", T("float32", [5]), 0.5, kw={"generator": G(5)}, method=True, seed=1))
RATES = [0, 0.5, 3, 9.9, 10, 30, 1000, 1e6]
for dt in ["float32", "float64"]:
    add("poisson_%s" % dt, call("poisson", V(RATES, dt), seed=6))
    add("poisson_2d_%s" % dt, call("poisson", V([[1.0, 20.0], [5.0, 50.0]], dt), seed=6))
    add("binomial_%s" % dt, call("binomial", V([0, 5, 10, 100, 1000, 1e6, 50, 7, 20, 3], dt),
                                 V([0.5, 0.3, 0.9, 0.5, 0.02, 0.7, 1, 0.999, 0, 0.5], dt), seed=6))
    add("binomial_broadcast_%s" % dt, call("binomial", V([[10.0], [40.0]], dt), V([0.2, 0.5, 0.8], dt), seed=6))
add("poisson_transposed", call("poisson", T("float32", [4, 3], "t", domain="pos"), seed=6))
add("poisson_empty", call("poisson", T("float32", [0, 3]), seed=6))
add("poisson_negative", call("poisson", V([1.0, -1.0])))
add("poisson_int", call("poisson", T("int64", [3])))
add("poisson_half", call("poisson", T("float16", [3])))
add("poisson_generator", call("poisson", V([4.0, 40.0]), kw={"generator": G(5)}, seed=1))
add("binomial_int", call("binomial", T("int64", [3]), T("int64", [3])))
add("binomial_dtype_mismatch", call("binomial", T("float32", [3]), T("float64", [3])))
add("binomial_long_count", call("binomial", T("int64", [3]), T("float32", [3])))
add("binomial_bad_shapes", call("binomial", T("float32", [2]), T("float32", [3]), expect=["dims"]))
add("binomial_nan_prob", call("binomial", V([10.0]), V([float("nan")]), seed=6))
add("binomial_many", call("binomial", V([37.0] * 64), V([0.41] * 64), seed=6))
