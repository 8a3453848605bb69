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

# the signal windows: the same op sequence as PyTorch's; cos may differ from PyTorch's vectorised
# one in the last bits
TOL = {"float32": 2e-6, "float64": 1e-13, "bfloat16": 8e-3}
WINDOWS = ["hann_window", "hamming_window", "bartlett_window", "blackman_window"]
for w in WINDOWS:
    f = getattr(torch, w)
    for dt in ["float32", "float64", "bfloat16"]:
        CASES["%s_%s" % (w, dt)] = {"make": lambda f=f, dt=dt: f(7, dtype=getattr(torch, dt)), "tol": TOL}
        CASES["%s_symmetric_%s" % (w, dt)] = {"make": lambda f=f, dt=dt: f(8, False, dtype=getattr(torch, dt)),
                                              "tol": TOL}
    CASES["%s_one" % w] = lambda f=f: f(1)
    CASES["%s_zero" % w] = lambda f=f: f(0)
    CASES["%s_long" % w] = {"make": lambda f=f: f(100), "tol": TOL}
    CASES["%s_negative" % w] = lambda f=f: f(-1)
    CASES["%s_int" % w] = lambda f=f: f(4, dtype=torch.int64)
    CASES["%s_requires_grad" % w] = lambda f=f: f(3, requires_grad=True)
CASES["hamming_window_alpha"] = {"make": lambda: torch.hamming_window(6, True, 0.6), "tol": TOL}
CASES["hamming_window_alpha_beta"] = {"make": lambda: torch.hamming_window(6, True, 0.6, 0.3), "tol": TOL}
CASES["hann_window_half"] = lambda: torch.hann_window(6, dtype=torch.float16)

# as_tensor and asarray: aliasing where PyTorch aliases
def _aliases(f):
    def run():
        x = torch.arange(4.0)
        y = f(x)
        return [y is x, y.data_ptr() == x.data_ptr(), y.dtype == x.dtype]
    return run

CASES.update({
    "as_tensor_same": _aliases(lambda x: torch.as_tensor(x)),
    "as_tensor_same_dtype": _aliases(lambda x: torch.as_tensor(x, dtype=torch.float32)),
    "as_tensor_other_dtype": _aliases(lambda x: torch.as_tensor(x, dtype=torch.float64)),
    "as_tensor_list": lambda: torch.as_tensor([1, 2.5]),
    "as_tensor_list_dtype": lambda: torch.as_tensor([[1, 2], [3, 4]], dtype=torch.int16),
    "as_tensor_number": lambda: torch.as_tensor(3),
    "asarray_same": _aliases(lambda x: torch.asarray(x)),
    "asarray_copy": _aliases(lambda x: torch.asarray(x, copy=True)),
    "asarray_other_dtype": _aliases(lambda x: torch.asarray(x, dtype=torch.int32)),
    "asarray_no_copy_dtype": lambda: torch.asarray(torch.ones(2), dtype=torch.float64, copy=False),
    "asarray_no_copy_device": lambda: torch.asarray(torch.ones(2), device="meta", copy=False),
    "asarray_list": lambda: torch.asarray([1, 2]),
    "asarray_list_no_copy": lambda: torch.asarray([1, 2], copy=False),
    "asarray_number": lambda: torch.asarray(3.5),
    "asarray_requires_grad": lambda: torch.asarray([1.0, 2.0], requires_grad=True),
})
