"""tostring(tensor) must equal PyTorch's repr. Each case is rebuilt in Lua from its recorded
dtype, shape and exact values, with the same print options, and printed."""
import torch

nan, inf = float("nan"), float("inf")


def P(make, default_dtype=None, **printopts):
    def fn():
        if default_dtype is not None:
            torch.set_default_dtype(getattr(torch, default_dtype))
        if printopts:
            torch.set_printoptions(**printopts)
        return make()
    return {"make": fn, "repr": True, "print": printopts or None, "default_dtype": default_dtype}


CASES = {
    "float_vector": P(lambda: torch.tensor([1.5, 2.0, 3.25])),
    "float_int_mode": P(lambda: torch.tensor([1.0, 2.0, 3.0])),
    "float_sci_big": P(lambda: torch.tensor([1e10, 1.0])),
    "float_sci_small": P(lambda: torch.tensor([1e-5, 1.0])),
    "float_sci_ratio": P(lambda: torch.tensor([0.001, 10.0])),
    "float_negative": P(lambda: torch.tensor([-1.5, 2.25, -3.0])),
    "float_nan_inf": P(lambda: torch.tensor([nan, inf, -inf, 1.5])),
    "float_nan_inf_ints": P(lambda: torch.tensor([nan, inf, 2.0])),
    "float_all_nan": P(lambda: torch.tensor([nan, nan])),
    "float_zeros": P(lambda: torch.zeros(3)),
    "float_0d": P(lambda: torch.tensor(3.14159)),
    "float_0d_int_mode": P(lambda: torch.tensor(-7.0)),
    "float_neg_zero": P(lambda: torch.tensor([-0.0, 1.0])),
    "float_int_mode_sci": P(lambda: torch.tensor([1e9, 1.0])),
    "float_wide": P(lambda: torch.tensor([123456.789, 1.5])),
    "float_decimals": P(lambda: torch.tensor([0.1, 0.25, 100.5])),
    "float_neg_sci": P(lambda: torch.tensor([-1e-8, 1.0])),
    "float64": P(lambda: torch.tensor([1.0 / 3, 2.5], dtype=torch.float64)),
    "float16": P(lambda: torch.tensor([1.1, 2.2, 65504.0], dtype=torch.float16)),
    "bfloat16": P(lambda: torch.tensor([1.1, -2.2, 3e38], dtype=torch.bfloat16)),
    "int_0d": P(lambda: torch.tensor(42)),
    "int64_vector": P(lambda: torch.tensor([1, -20, 300])),
    "int64_large": P(lambda: torch.tensor([2**40, 1, -(2**62)])),
    "int32": P(lambda: torch.tensor([1, 2, -3], dtype=torch.int32)),
    "int16": P(lambda: torch.tensor([[100, -2], [3, 4]], dtype=torch.int16)),
    "int8": P(lambda: torch.tensor([-128, 127], dtype=torch.int8)),
    "uint8": P(lambda: torch.tensor([0, 255, 7], dtype=torch.uint8)),
    "bool_vector": P(lambda: torch.tensor([True, False, True])),
    "bool_0d": P(lambda: torch.tensor(False)),
    "empty": P(lambda: torch.tensor([])),
    "empty_2d": P(lambda: torch.zeros(0, 3)),
    "empty_3d": P(lambda: torch.zeros(2, 0, 3)),
    "empty_int64": P(lambda: torch.tensor([], dtype=torch.int64)),
    "empty_bool_2d": P(lambda: torch.zeros(1, 0, dtype=torch.bool)),
    "matrix": P(lambda: torch.arange(12).reshape(3, 4).float() / 3),
    "tensor_3d": P(lambda: torch.arange(24).reshape(2, 3, 4)),
    "tensor_4d_summarized": P(lambda: torch.arange(5 * 5 * 5 * 10).reshape(5, 5, 5, 10).float()),
    "transposed": P(lambda: torch.arange(6).reshape(2, 3).t()),
    "large_summarized": P(lambda: torch.arange(2000).float()),
    "large_2d_summarized": P(lambda: torch.arange(10000).reshape(100, 100)),
    "line_wrap": P(lambda: torch.arange(30).float() * 1.5),
    "line_wrap_2d": P(lambda: torch.arange(40).reshape(2, 20).double() / 7),
    "meta": P(lambda: torch.zeros(2, 3, device="meta")),
    "meta_float64": P(lambda: torch.zeros(4, dtype=torch.float64, device="meta")),
    "meta_int64_0d": P(lambda: torch.zeros((), dtype=torch.int64, device="meta")),
    "requires_grad": P(lambda: torch.ones(2, requires_grad=True)),
    "requires_grad_0d": P(lambda: torch.tensor(1.5, requires_grad=True)),
    "requires_grad_float64": P(lambda: torch.ones(2, dtype=torch.float64, requires_grad=True)),
    "requires_grad_wrap": P(lambda: (torch.arange(24).float() * 1.125).requires_grad_()),
    "precision_2": P(lambda: torch.tensor([1.23456, 2.5]), precision=2),
    "precision_8": P(lambda: torch.tensor([1.0 / 3, 2.0], dtype=torch.float64), precision=8),
    "sci_mode_off": P(lambda: torch.tensor([1e-5, 1.0]), sci_mode=False),
    "sci_mode_on": P(lambda: torch.tensor([1.5, 2.0]), sci_mode=True),
    "threshold_5": P(lambda: torch.arange(10), threshold=5),
    "edgeitems_1": P(lambda: torch.arange(20).reshape(4, 5), threshold=5, edgeitems=1),
    "linewidth_20": P(lambda: torch.arange(12).float(), linewidth=20),
    "profile_short": P(lambda: torch.arange(30).float() / 7, profile="short"),
    "default_float64": P(lambda: torch.tensor([1.5, 2.5]), default_dtype="float64"),
    "default_float64_f32": P(lambda: torch.tensor([1.5, 2.5], dtype=torch.float32), default_dtype="float64"),
}
