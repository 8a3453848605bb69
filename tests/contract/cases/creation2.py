"""More creation ops against PyTorch: logspace, range (deprecated in PyTorch, still public)."""
import warnings

import torch

warnings.simplefilter("ignore")  # torch.range's deprecation warning

DTYPES = ["float32", "float64", "bfloat16", "int64", "int32", "int16", "int8", "uint8"]

CASES = {}
for dt in DTYPES:
    d = getattr(torch, dt)
    CASES["logspace_%s" % dt] = (lambda d=d: torch.logspace(-1, 2.5, 9, dtype=d)) if dt != "uint8" else (
        lambda d=d: torch.logspace(0, 2, 9, dtype=d))
    CASES["logspace_base3_%s" % dt] = lambda d=d: torch.logspace(0.3, 1.7, 6, 3, dtype=d)
    CASES["logspace_one_%s" % dt] = lambda d=d: torch.logspace(1.5, 9, 1, dtype=d)
    CASES["range_%s" % dt] = lambda d=d: torch.range(-1, 2.5, 0.25, dtype=d)
    CASES["range_down_%s" % dt] = lambda d=d: torch.range(1, 0.3, -0.1, dtype=d)
    CASES["range_int_step_%s" % dt] = lambda d=d: torch.range(2, 11, 3, dtype=d)
CASES.update({
    "logspace": lambda: torch.logspace(0, 2, 5),
    "logspace_ints_default_dtype": lambda: torch.logspace(0, 3, 4),
    "logspace_base2_int64": lambda: torch.logspace(0, 4, 5, base=2, dtype=torch.int64),
    "logspace_base_half": lambda: torch.logspace(2, 2, 3, base=0.5),
    "logspace_zero": lambda: torch.logspace(0, 3, 0),
    "logspace_float64_long": lambda: torch.logspace(-3, 3, 101, dtype=torch.float64),
    "logspace_negative_steps": lambda: torch.logspace(0, 1, -1),
    "logspace_half": lambda: torch.logspace(0, 1, 3, dtype=torch.float16),
    "logspace_bool": lambda: torch.logspace(0, 1, 3, dtype=torch.bool),
    "range": lambda: torch.range(1, 4),
    "range_fractional": lambda: torch.range(0, 1, 0.1),
    "range_fractional_float64": lambda: torch.range(0, 1, 0.1, dtype=torch.float64),
    "range_single": lambda: torch.range(3, 3),
    "range_int64_down": lambda: torch.range(5, 1, -2, dtype=torch.int64),
    "range_requires_grad": lambda: torch.range(0, 2, requires_grad=True),
    "range_reversed": lambda: torch.range(4, 1),
    "range_infinite": lambda: torch.range(0, float("inf")),
    "range_zero_step": lambda: torch.range(0, 1, 0),
    "range_int_truncated_step": lambda: torch.range(0, 1, 0.5, dtype=torch.int64),
    "range_half": lambda: torch.range(0, 1, dtype=torch.float16),
    "range_bool": lambda: torch.range(0, 1, dtype=torch.bool),
})
