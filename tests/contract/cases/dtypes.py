"""dtype rules: names, promotion of every pair, half/bfloat16 rounding."""
import torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]

CASES = {}
for a in DTYPES:
    for b in DTYPES:
        CASES["promote_%s_%s" % (a, b)] = (
            lambda a=a, b=b: torch.promote_types(getattr(torch, a), getattr(torch, b)))
        CASES["can_cast_%s_%s" % (a, b)] = (
            lambda a=a, b=b: torch.can_cast(getattr(torch, a), getattr(torch, b)))

# Values that exercise rounding to nearest-even, subnormals, overflow and NaN.
ROUNDING = [0.0, -0.0, 1.0, 1.0009765625, 1.00048828125, 1.000732421875, 65504.0, 65519.0, 65520.0,
            1e-8, 5.960464477539063e-08, 2.9802322387695312e-08, 2.98023223876953125e-08 * 1.5,
            6.103515625e-05, 3.0e38, 3.4e38, float("inf"), float("-inf"), float("nan"),
            1.00390625, 1.005859375, -2.5e-41, 1e-40, 123.456, -7.77e-3]
CASES["round_float16"] = lambda: torch.tensor(ROUNDING, dtype=torch.float32).to(torch.float16)
CASES["round_bfloat16"] = lambda: torch.tensor(ROUNDING, dtype=torch.float32).to(torch.bfloat16)
CASES["round_float16_from_double"] = lambda: torch.tensor(ROUNDING, dtype=torch.float64).to(torch.float16)
CASES["float_to_int8"] = lambda: torch.tensor([1.9, -1.9, 127.5, -128.7, 0.5]).to(torch.int8)
CASES["float_to_uint8"] = lambda: torch.tensor([1.9, 255.4, 0.0, 3.7]).to(torch.uint8)
CASES["float_to_bool"] = lambda: torch.tensor([0.0, -0.0, 0.1, float("nan")]).to(torch.bool)
CASES["int_to_float16"] = lambda: torch.tensor([2049, 65519, 65520, -3]).to(torch.float16)
CASES["int64_to_int8_wrap"] = lambda: torch.tensor([300, -129, 255]).to(torch.int8)
CASES["bool_to_float"] = lambda: torch.tensor([True, False]).to(torch.float32)
CASES["float16_to_float32"] = lambda: torch.tensor([1.5, 6.1e-5, 65504.0], dtype=torch.float16).to(torch.float32)
CASES["default_dtype_int_error"] = lambda: torch.set_default_dtype(torch.int64)
