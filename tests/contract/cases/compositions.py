"""Names written as compositions of other ops (lua/mindtorch/_compositions.lua, _dtype_info.lua)."""
import torch

CASES = {}


def info(i):
    keys = ["bits", "eps", "max", "min", "resolution", "smallest_normal", "tiny"]
    d = {k: getattr(i, k) for k in keys if hasattr(i, k)}
    d["dtype"] = i.dtype
    d["str"] = str(i)
    return d


for dt in ["float16", "bfloat16", "float32", "float64"]:
    CASES["finfo_%s" % dt] = lambda dt=dt: info(torch.finfo(getattr(torch, dt)))
for dt in ["uint8", "int8", "int16", "int32", "int64"]:
    CASES["iinfo_%s" % dt] = lambda dt=dt: info(torch.iinfo(getattr(torch, dt)))
CASES.update({
    "finfo_default": lambda: info(torch.finfo()),
    "finfo_int": lambda: torch.finfo(torch.int32),
    "iinfo_float": lambda: torch.iinfo(torch.float32),
    "iinfo_bool": lambda: torch.iinfo(torch.bool),
})


def m():
    return torch.arange(24.0).view(2, 3, 4)


CASES.update({
    "mT": lambda: m().mT,
    "mT_2d": lambda: m()[0].mT,
    "mT_0d": lambda: torch.tensor(2.0).mT,
    "mT_1d": lambda: torch.ones(3).mT,
    "mH": lambda: m().mH,
    "mH_1d": lambda: torch.ones(3).mH,
    "H": lambda: m()[0].H,
    "H_1d": lambda: torch.ones(3).H,
    "H_3d": lambda: m().H,
    "adjoint": lambda: m().adjoint(),
    "adjoint_fn": lambda: torch.adjoint(m()[1]),
    "adjoint_1d": lambda: torch.ones(3).adjoint(),
    "t_copy": lambda: torch.t_copy(m()[0]),
    "transpose_copy": lambda: torch.transpose_copy(m(), 0, 2),
    "permute_copy": lambda: torch.permute_copy(m(), (2, 0, 1)),
    "expand_copy": lambda: torch.expand_copy(m()[:, :1], (2, 5, 4)),
    "diagonal_copy": lambda: torch.diagonal_copy(m()[0]),
    "as_strided_copy": lambda: torch.as_strided_copy(m(), (2, 2), (1, 2)),
    "view_copy": lambda: torch.view_copy(m(), (4, 6)),
    "select_copy": lambda: torch.select_copy(m(), 1, 2),
    "squeeze_copy": lambda: torch.squeeze_copy(m()[None]),
    "unsqueeze_copy": lambda: torch.unsqueeze_copy(m(), 1),
    "detach_copy": lambda: torch.detach_copy(m()),
    "alias_copy": lambda: torch.alias_copy(m()),
    "split_copy": lambda: tuple(torch.split_copy(m(), 2, 2)),
    "unbind_copy": lambda: tuple(torch.unbind_copy(m(), 1)),
    "narrow_copy": lambda: torch.narrow_copy(m(), 2, 1, 2),
    "narrow_copy_method": lambda: m()[0].narrow_copy(0, 1, 2),
    "addmm_": lambda: torch.ones(2, 2).addmm_(torch.arange(6.0).view(2, 3), torch.arange(6.0).view(3, 2), beta=2, alpha=0.5),
    "addmv_": lambda: torch.ones(2).addmv_(torch.arange(6.0).view(2, 3), torch.arange(3.0)),
    "baddbmm_": lambda: torch.ones(2, 2, 2).baddbmm_(torch.ones(2, 2, 3), torch.ones(2, 3, 2), alpha=3),
    "cumsum_": lambda: torch.arange(6.0).view(2, 3).cumsum_(1),
    "cumprod_": lambda: torch.arange(1.0, 7.0).view(2, 3).cumprod_(0),
    "cumsum_int": lambda: torch.arange(6).cumsum_(0),
    "conj_real": lambda: (lambda x: [x.conj() is x, torch.conj(x) is x, x.resolve_conj() is x, x.resolve_neg() is x,
                                     x.conj_physical() is x, x.is_conj(), torch.is_neg(x)])(torch.ones(2)),
    "fill": lambda: torch.fill(torch.ones(2, 3), 2.5),
    "fill_tensor": lambda: torch.fill(torch.ones(2, dtype=torch.int32), torch.tensor(7)),
    "apply_requires_grad": lambda: torch.ones(2, requires_grad=True).apply_(lambda v: v),
})

# torch.* forms of functional ops (ATen's argument order, reductions as ATen's enum)
X = lambda: torch.arange(24.0).view(2, 3, 4).sin()
CASES.update({
    "torch_batch_norm": lambda: torch.batch_norm(X(), torch.ones(3) * 2, torch.ones(3), torch.zeros(3), torch.ones(3) * 4,
                                                 False, 0.1, 1e-5, False),
    "torch_batch_norm_training": lambda: torch.batch_norm(X(), None, None, None, None, True, 0.1, 1e-5, False),
    "torch_layer_norm": lambda: torch.layer_norm(X(), [4]),
    "torch_layer_norm_affine": lambda: torch.layer_norm(X(), [3, 4], torch.ones(3, 4) * 2, torch.ones(3, 4), 1e-3),
    "torch_group_norm": lambda: torch.group_norm(X(), 3),
    "torch_embedding": lambda: torch.embedding(torch.arange(12.0).view(4, 3), torch.tensor([[1, 2], [3, 0]])),
    "torch_bilinear": lambda: torch.bilinear(torch.ones(2, 3), torch.ones(2, 4) * 2, torch.arange(60.0).view(5, 3, 4), None),
    "torch_kl_div": lambda: torch.kl_div(X().log_softmax(-1), X().softmax(-1)),
    "torch_kl_div_none": lambda: torch.kl_div(X().log_softmax(-1), X().softmax(-1), 0),
    "torch_kl_div_sum_log_target": lambda: torch.kl_div(X().log_softmax(-1), X().log_softmax(0), 2, log_target=True),
    "torch_bce_with_logits": lambda: torch.binary_cross_entropy_with_logits(X(), X().sigmoid(), None, None, 2),
    "torch_bce_with_logits_weights": lambda: torch.binary_cross_entropy_with_logits(X(), X().sigmoid(), torch.ones(4) * 2,
                                                                                    torch.ones(4) * 3, 0),
    "torch_bce_with_logits_default": lambda: torch.binary_cross_entropy_with_logits(X(), X().sigmoid()),
    "torch_max_pool1d_with_indices": lambda: torch.max_pool1d_with_indices(X().view(1, 2, 12), 3),
})

import warnings
warnings.simplefilter("ignore")  # resize's deprecation warning


def _default_after(t):
    torch.set_default_tensor_type(t)
    d = str(torch.get_default_dtype()).replace("torch.", "")
    torch.set_default_dtype(torch.float32)
    return d


CASES.update({
    "storage_type": lambda: str(torch.ones(2, dtype=torch.int16).storage_type()).split("'")[1],
    "new_sizes": lambda: torch.ones(2, dtype=torch.float64).new(2, 3).shape,
    "new_values": lambda: torch.ones(2, dtype=torch.int32).new([1, 2]),
    "new_empty_args": lambda: torch.ones(2).new().shape,
    "resize": lambda: torch.arange(6.0).resize(2, 3),
    "resize_wrong_numel": lambda: torch.arange(6.0).resize(2, 2),
    "unsafe_chunk": lambda: tuple(torch.unsafe_chunk(torch.arange(6.0), 2)),
    "unsafe_split": lambda: tuple(torch.unsafe_split(torch.arange(6.0), 4)),
    "is_inference": lambda: torch.is_inference(torch.ones(2)),
    "set_default_tensor_type_double": lambda: _default_after("torch.DoubleTensor"),
    "set_default_tensor_type_long": lambda: torch.set_default_tensor_type("torch.LongTensor"),
})

# set_, is_set_to, from_file
FROM_FILE = "/tmp/mindtorch_contract_from_file.bin"


def from_file(*a, **kw):
    with open(FROM_FILE, "wb") as f:
        f.write(bytes(range(40)))
    return torch.from_file(FROM_FILE, *a, **kw)


def _set_to():
    x = torch.arange(6.0)
    y = torch.empty(0)
    y.set_(x)
    return [y.is_set_to(x), x.is_set_to(x.clone()), y.tolist()]


def _set_storage():
    x = torch.arange(6.0)
    return torch.empty(0).set_(x.storage(), 1, (2, 2), (2, 1))


def _set_grows():
    x = torch.arange(6.0)
    y = torch.empty(0).set_(x.storage(), 0, (10,), (1,))
    return [y.shape[0], len(x.storage())]


CASES.update({
    "set_to": _set_to,
    "set_storage": _set_storage,
    "set_storage_grows": _set_grows,
    "set_empty": lambda: torch.ones(3).set_(),
    "set_negative_offset": lambda: torch.empty(0).set_(torch.arange(6.0).storage(), -1, (1,), (1,)),
    "set_requires_grad": lambda: torch.ones(2, requires_grad=True).set_(torch.arange(2.0)),
    "from_file_int32": lambda: from_file(size=4, dtype=torch.int32),
    "from_file_uint8": lambda: from_file(False, 40, dtype=torch.uint8),
    "from_file_empty": lambda: from_file(),
    "from_file_too_small": lambda: from_file(size=11, dtype=torch.int32),
})

# PyTorch's other names for ops (lua/mindtorch/_aliases.lua)
A = lambda: torch.tensor([[-1.5, 0.25], [2.0, -0.75]])
B = lambda: torch.tensor([[0.5, -2.0], [2.0, 1.5]])
UNARY_ALIASES = ["absolute", "arccos", "arcsin", "arctan", "arcsinh", "negative", "fix"]
BINARY_ALIASES = ["multiply", "divide", "subtract", "greater", "greater_equal", "less", "less_equal", "not_equal",
                  "arctan2"]
for n in UNARY_ALIASES:
    CASES["alias_" + n] = lambda n=n: getattr(torch, n)(A())
    CASES["alias_method_" + n] = lambda n=n: getattr(A(), n)()
    CASES["alias_inplace_" + n] = lambda n=n: getattr(A(), n + "_")()
for n in BINARY_ALIASES:
    CASES["alias_" + n] = lambda n=n: getattr(torch, n)(A(), B())
    CASES["alias_method_" + n] = lambda n=n: getattr(A(), n)(B())
CASES.update({
    "alias_arccosh": lambda: torch.arccosh(B().abs() + 1),
    "alias_arctanh": lambda: torch.arctanh(A() / 3),
    "alias_subtract_alpha": lambda: torch.subtract(A(), B(), alpha=2),
    "alias_divide_mode": lambda: torch.divide(A(), B(), rounding_mode="floor"),
    "alias_multiply_scalar": lambda: A().multiply(3),
    "alias_greater_inplace": lambda: A().greater_(0),
    "alias_bad_argument": lambda: torch.absolute("a"),
})

# element-wise compositions
SPECIALS = lambda: torch.tensor([float("nan"), float("inf"), -float("inf"), 1.5, -0.0])
CASES.update({
    "positive": lambda: torch.positive(torch.tensor([1.0, -2.0])),
    "positive_bool": lambda: torch.positive(torch.tensor([True])),
    "sgn_int": lambda: torch.sgn(torch.tensor([-2, 0, 3])),
    "sgn_float": lambda: torch.tensor([-2.0, 0.0, 3.0]).sgn(),
    "isreal": lambda: torch.isreal(torch.ones(2, 3, dtype=torch.int32)),
    "square_bool": lambda: torch.square(torch.tensor([True, False])),
    "square_int8": lambda: torch.square(torch.tensor([3, -12], dtype=torch.int8)),
    "square_float": lambda: torch.tensor([1.5, -2.0]).square(),
    "square_inplace": lambda: torch.tensor([1.5, -2.0]).square_(),
    "nan_to_num": lambda: torch.nan_to_num(SPECIALS()),
    "nan_to_num_values": lambda: torch.nan_to_num(SPECIALS(), 1.0, 2.0, -3.0),
    "nan_to_num_float16": lambda: torch.nan_to_num(SPECIALS().half()),
    "nan_to_num_float64": lambda: SPECIALS().double().nan_to_num(posinf=7.0),
    "nan_to_num_int": lambda: torch.nan_to_num(torch.tensor([1, 2])),
    "nan_to_num_inplace": lambda: SPECIALS().nan_to_num_(neginf=-1.0),
})

CL = lambda: torch.tensor([-2.0, 0.5, float("nan"), 3.0])
CASES.update({
    "clamp_min": lambda: torch.clamp_min(CL(), 0),
    "clamp_max": lambda: torch.clamp_max(CL(), 1),
    "clamp_min_inplace": lambda: CL().clamp_min_(0),
    "clamp_max_inplace": lambda: CL().clamp_max_(0.25),
    "clamp_min_tensor": lambda: torch.clamp_min(CL(), torch.tensor([0.0, 1, 0, 5])),
    "clamp_min_int_float": lambda: torch.clamp_min(torch.tensor([1, 5]), 2.5),
    "threshold": lambda: torch.threshold(CL(), 0.5, -9.0),
    "threshold_int": lambda: torch.threshold(torch.tensor([1, 2, 3]), 2, 0),
    "threshold_inplace": lambda: torch.threshold_(CL(), 0, 7),
    "threshold_bool": lambda: torch.threshold(torch.tensor([True]), 0, 1),
})

ACT = lambda: torch.tensor([-1.5, 0.0, 2.0, -0.25])
CASES.update({
    "selu": {"make": lambda: torch.selu(ACT()), "tol": 1e-6},
    "selu_inplace": {"make": lambda: torch.selu_(ACT()), "tol": 1e-6},
    "selu_int": lambda: torch.selu(torch.tensor([1, 2])),
    "celu": {"make": lambda: torch.celu(ACT(), 0.5), "tol": 1e-6},
    "celu_default": {"make": lambda: torch.celu(ACT()), "tol": 1e-6},
    "celu_inplace": {"make": lambda: torch.celu_(ACT(), 2.0), "tol": 1e-6},
    "celu_zero_alpha": lambda: torch.celu(ACT(), 0.0),
    "float_power_int": lambda: torch.float_power(torch.tensor([2, 3]), 2),
    "float_power_tensor": lambda: torch.float_power(torch.tensor([2.0]), torch.tensor([0.5])),
    "float_power_number_base": lambda: torch.float_power(2, torch.tensor([3])),
    "float_power_inplace_float": lambda: torch.tensor([2.0]).float_power_(2),
    "float_power_inplace": lambda: torch.tensor([2.0], dtype=torch.float64).float_power_(3),
    "ldexp": lambda: torch.ldexp(torch.tensor([1.0, 2.0]), torch.tensor([2, 3])),
    "ldexp_int": lambda: torch.ldexp(torch.tensor([1, 2]), torch.tensor([2, -1])),
    "ldexp_inplace": lambda: torch.tensor([1.0]).ldexp_(torch.tensor([3])),
})
