"""Queries, global modes and the random and autograd sides of the gamma family's neighbours
(lua/mindtorch/_queries.lua): rrelu's training draws from a generator, derivatives and their
errors, is_nonzero and the other queries, result_type, the deterministic, matmul-precision,
interop and anomaly switches. Each case has its Lua twin in queries_spec.lua."""
import torch

CASES = {}
NAN = float("nan")


def dt(d):
    return str(d).replace("torch.", "")


def rrelu_train(seed, lower=1 / 8, upper=1 / 3, dtype=torch.float32, inplace=False):
    x = torch.tensor([-2.0, -1.0, 0.0, 1.0, 2.0, -0.5, -3.0, 0.25, -1e-3], dtype=dtype)
    g = torch.Generator().manual_seed(seed)
    if inplace:
        return torch.rrelu_(x, lower, upper, True, g)
    return torch.rrelu(x, lower, upper, training=True, generator=g)


def rrelu_grad():
    x = torch.tensor([-2.0, -1.0, 0.5, 1.0, -0.25], dtype=torch.float64, requires_grad=True)
    torch.rrelu(x, 0.1, 0.3, True, torch.Generator().manual_seed(9)).sum().backward()
    return x.grad


def grad_of(fn, x):
    x = x.clone().requires_grad_()
    fn(x).sum().backward()
    return x.grad


def igamma_self_grad():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.igamma(a, torch.tensor([1.0, 3.0])).sum().backward()


def igammac_self_grad():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.igammac(a, torch.tensor([1.0, 3.0])).sum().backward()


def frexp_grad():
    x = torch.tensor([2.5, -0.75, 1e-3, 100.0, 0.0, float("inf")], dtype=torch.float64, requires_grad=True)
    m, e = torch.frexp(x)
    (m * torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=torch.float64)).sum().backward()
    return x.grad


def detach_():
    x = torch.ones(2, requires_grad=True) * 2
    r = x.detach_()
    return [r is x, x.requires_grad, x.grad_fn is None, x.is_leaf]


def detach_leaf():
    x = torch.ones(2, requires_grad=True)
    x.detach_()
    return [x.requires_grad, x.is_leaf]


def retains_grad():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    before = y.retains_grad
    y.retain_grad()
    return [x.retains_grad, before, y.retains_grad]


def deterministic():
    out = []
    torch.use_deterministic_algorithms(True)
    out += [torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
            torch.get_deterministic_debug_mode()]
    torch.use_deterministic_algorithms(True, warn_only=True)
    out += [torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
            torch.get_deterministic_debug_mode()]
    torch.set_deterministic_debug_mode("error")
    out += [torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()]
    torch.set_deterministic_debug_mode(1)
    out += [torch.get_deterministic_debug_mode()]
    torch.set_deterministic_debug_mode("default")
    out += [torch.are_deterministic_algorithms_enabled(), torch.get_deterministic_debug_mode()]
    torch.use_deterministic_algorithms(False)
    return out


def precision():
    out = [torch.get_float32_matmul_precision()]
    torch.set_float32_matmul_precision("medium")
    out.append(torch.get_float32_matmul_precision())
    torch.set_float32_matmul_precision("high")
    out.append(torch.get_float32_matmul_precision())
    torch.set_float32_matmul_precision("highest")
    return out


def anomaly():
    out = [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
    torch.set_anomaly_enabled(True, False)
    out += [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
    torch.set_anomaly_enabled(True)
    out += [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
    torch.set_anomaly_enabled(False)
    out += [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
    return out


def anomaly_nan_unchecked():
    # with check_nan off, a NaN gradient passes
    torch.set_anomaly_enabled(True, False)
    try:
        x = torch.tensor([0.0], requires_grad=True)
        torch.sqrt(x * -1.0).sum().backward()
        return x.grad
    finally:
        torch.set_anomaly_enabled(False)


def anomaly_nan_checked():
    torch.set_anomaly_enabled(True)
    try:
        x = torch.tensor([-1.0], requires_grad=True)
        torch.sqrt(x).sum().backward()
    finally:
        torch.set_anomaly_enabled(False)


CASES.update({
    "rrelu_train": lambda: rrelu_train(3),
    "rrelu_train_bounds": lambda: rrelu_train(11, 0.2, 0.4),
    "rrelu_train_equal_bounds": lambda: rrelu_train(1, 0.3, 0.3),
    "rrelu_train_float64": lambda: rrelu_train(5, dtype=torch.float64),
    "rrelu_train_bfloat16": lambda: rrelu_train(5, dtype=torch.bfloat16),
    "rrelu_train_inplace": lambda: rrelu_train(7, inplace=True),
    "rrelu_grad": rrelu_grad,
    "digamma_grad": lambda: grad_of(torch.digamma, torch.tensor([0.5, 1.0, 2.5, 10.0], dtype=torch.float64)),
    "lgamma_grad": lambda: grad_of(torch.lgamma, torch.tensor([0.5, 1.0, 2.5, -1.5], dtype=torch.float64)),
    "polygamma_grad": lambda: grad_of(lambda x: torch.polygamma(2, x), torch.tensor([0.5, 3.0], dtype=torch.float64)),
    "i0_grad": lambda: grad_of(torch.i0, torch.tensor([-1.0, 0.0, 2.0], dtype=torch.float64)),
    "logit_grad": lambda: grad_of(torch.logit, torch.tensor([-0.5, 0.0, 0.25, 1.0, 2.0], dtype=torch.float64)),
    "logit_grad_eps": lambda: grad_of(lambda x: torch.logit(x, 0.3),
                                      torch.tensor([-0.5, 0.0, 0.25, 0.5, 0.8, 1.0], dtype=torch.float64)),
    "hardshrink_grad": lambda: grad_of(lambda x: torch.hardshrink(x, 1.0),
                                       torch.tensor([-2.0, -1.0, 0.0, 1.0, 1.5], dtype=torch.float64)),
    "igamma_grad_other": lambda: grad_of(lambda x: torch.igamma(torch.tensor([0.5, 2.0, 4.0], dtype=torch.float64), x),
                                         torch.tensor([1.0, 0.5, 6.0], dtype=torch.float64)),
    "igammac_grad_other": lambda: grad_of(lambda x: torch.igammac(torch.tensor([0.5, 2.0, 4.0], dtype=torch.float64), x),
                                          torch.tensor([1.0, 0.5, 6.0], dtype=torch.float64)),
    "igamma_grad_self": igamma_self_grad,
    "igammac_grad_self": igammac_self_grad,
    "mvlgamma_grad": lambda: grad_of(lambda x: torch.mvlgamma(x, 3), torch.tensor([2.5, 4.0], dtype=torch.float64)),
    "prelu_grad_weight": lambda: (lambda w: (torch.prelu(torch.tensor([[-1.0, 2.0], [-3.0, -4.0]]), w).sum().backward(),
                                             w.grad)[1])(torch.tensor([0.5, 0.25], requires_grad=True)),
    "frexp_grad": frexp_grad,
    "grad_fn_digamma": lambda: torch.digamma(torch.ones(1, requires_grad=True)).grad_fn.name(),
    "grad_fn_polygamma": lambda: torch.polygamma(1, torch.ones(1, requires_grad=True)).grad_fn.name(),
    "grad_fn_logit": lambda: torch.logit(torch.ones(1, requires_grad=True)).grad_fn.name(),
    "grad_fn_hardshrink": lambda: torch.hardshrink(torch.ones(1, requires_grad=True)).grad_fn.name(),
    "grad_fn_igamma": lambda: torch.igamma(torch.ones(1), torch.ones(1, requires_grad=True)).grad_fn.name(),
    "isin_out": lambda: torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2]), out=torch.empty(5, dtype=torch.bool)),
    "isin_out_dtype": lambda: torch.isin(torch.tensor([1, 2]), torch.tensor([2]), out=torch.empty(2, dtype=torch.int64)),
    # queries
    "is_nonzero": lambda: [torch.is_nonzero(torch.tensor([1])), torch.is_nonzero(torch.tensor([[0.0]])),
                           torch.is_nonzero(torch.tensor(NAN)), torch.is_nonzero(torch.tensor([False])),
                           torch.tensor([2.5]).is_nonzero()],
    "is_nonzero_empty": lambda: torch.is_nonzero(torch.tensor([])),
    "is_nonzero_many": lambda: torch.is_nonzero(torch.tensor([1, 2])),
    "is_signed": lambda: [torch.ones(1, dtype=d).is_signed() for d in
                          [torch.float32, torch.float16, torch.int8, torch.int64, torch.uint8, torch.bool]]
    + [torch.is_signed(torch.ones(1))],
    "is_floating_point": lambda: [torch.is_floating_point(torch.ones(1)), torch.is_floating_point(torch.ones(1).int()),
                                  torch.ones(1).bfloat16().is_floating_point()],
    "is_complex": lambda: [torch.is_complex(torch.ones(1)), torch.ones(1).is_complex()],
    "is_same_size": lambda: [torch.is_same_size(torch.ones(2, 3), torch.zeros(2, 3)),
                             torch.is_same_size(torch.ones(2), torch.ones(2, 1)),
                             torch.ones(2, 3).is_same_size(torch.ones(3, 2)),
                             torch.ones(()).is_same_size(torch.ones(()))],
    "numel": lambda: [torch.numel(torch.ones(2, 3)), torch.numel(torch.ones(())), torch.numel(torch.ones(0, 4))],
    "get_device": lambda: [torch.ones(2).get_device(), torch.get_device(torch.ones(2)),
                           torch.empty(2, device="meta").get_device()],
    "is_storage": lambda: [torch.is_storage(torch.ones(2)), torch.is_storage(3), torch.is_storage("x")],
    "device_properties": lambda: [getattr(torch.ones(1), n) for n in
                                  ["is_cuda", "is_meta", "is_xpu", "is_ipu", "is_mps", "is_mkldnn", "is_vulkan", "is_ort",
                                   "is_nested", "is_sparse", "is_quantized"]],
    "retains_grad": retains_grad,
    "detach_": detach_,
    "detach_leaf": detach_leaf,
    "detach_view": lambda: torch.ones(2, requires_grad=True).view(2).detach_(),
    "resize_as": lambda: torch.arange(6.0).view(2, 3).resize_as(torch.ones(3, 2)),
    "resize_as_mismatch": lambda: torch.ones(2, 3).resize_as(torch.ones(3)),
    "result_type": lambda: [dt(torch.result_type(*a)) for a in [
        (torch.ones(2, dtype=torch.int32), 2.5), (torch.tensor(2.5, dtype=torch.float64), torch.ones(2, dtype=torch.int32)),
        (2, 3.0), (torch.tensor(1, dtype=torch.uint8), torch.tensor(1, dtype=torch.int8)),
        (torch.ones(2).half(), torch.tensor(1.0, dtype=torch.float64)), (True, torch.tensor(1, dtype=torch.uint8)),
        (torch.ones(2, dtype=torch.bool), 3), (torch.ones(2, dtype=torch.int8), torch.tensor(300)),
        (torch.ones(2, dtype=torch.uint8), -1), (torch.ones(2, dtype=torch.bool), True), (1, 2),
        (torch.ones(2, dtype=torch.int16), torch.ones(2, dtype=torch.float16)),
        (torch.tensor(1.0), torch.ones(2, dtype=torch.int64)), (torch.ones(2, dtype=torch.bfloat16), torch.ones(2).half())]],
    # modes
    "deterministic": deterministic,
    "deterministic_bad_mode": lambda: torch.use_deterministic_algorithms(1),
    "deterministic_bad_warn_only": lambda: torch.use_deterministic_algorithms(True, warn_only=1),
    "debug_mode_bad_str": lambda: torch.set_deterministic_debug_mode("foo"),
    "debug_mode_bad_int": lambda: torch.set_deterministic_debug_mode(3),
    "debug_mode_bad_type": lambda: torch.set_deterministic_debug_mode(1.5),
    "matmul_precision": precision,
    "matmul_precision_bad": lambda: (torch.set_float32_matmul_precision("foo"), torch.get_float32_matmul_precision())[1],
    "matmul_precision_type": lambda: torch.set_float32_matmul_precision(1),
    "interop_threads_zero": lambda: torch.set_num_interop_threads(0),
    "anomaly": anomaly,
    "anomaly_bad": lambda: torch.set_anomaly_enabled(1),
    "anomaly_nan_unchecked": anomaly_nan_unchecked,
    "anomaly_nan_checked": anomaly_nan_checked,
})
