"""Lazy modules, ParameterList/ParameterDict, Container and SyncBatchNorm (issue 19): seeded
initialization equal to the ordinary class's, outputs and gradients, reprs before and after
the first forward, state_dict keys, loading into a lazy module, PyTorch's errors."""
import warnings

import torch
from torch import nn

warnings.simplefilter("ignore")
D = torch.float64


def wave(*shape):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=D).reshape(shape) * 0.37).sin().requires_grad_()


def run(make, x, seed=1):
    torch.manual_seed(seed)
    m = make()
    before = repr(m)
    out = m(x)
    (out * torch.arange(out.numel(), dtype=D).reshape(out.shape).cos()).sum().backward()
    res = [out.detach(), x.grad]
    for p in m.parameters():
        res += [p.detach(), p.grad]
    for _, b in m.named_buffers():
        res.append(b)
    return tuple(res), before, repr(m), type(m).__name__


def case(make, *shape):
    def tensors():
        return run(make, wave(*shape))[0]

    def reprs():
        _, before, after, name = run(make, wave(*shape))
        return [before, after, name]
    return tensors, reprs


LAZY = {
    "linear": (lambda: nn.LazyLinear(3, dtype=D), 2, 4),
    "linear_nobias": (lambda: nn.LazyLinear(2, bias=False, dtype=D), 3, 5),
    "conv1d": (lambda: nn.LazyConv1d(4, 3, padding=1, dtype=D), 2, 3, 6),
    "conv2d": (lambda: nn.LazyConv2d(4, (3, 2), stride=2, groups=2, dtype=D), 1, 6, 5, 5),
    "conv3d": (lambda: nn.LazyConv3d(2, 2, dtype=D), 1, 2, 3, 3, 3),
    "conv1d_unbatched": (lambda: nn.LazyConv1d(2, 2, dtype=D), 3, 5),
    "conv_transpose1d": (lambda: nn.LazyConvTranspose1d(3, 3, stride=2, dtype=D), 2, 2, 4),
    "conv_transpose2d": (lambda: nn.LazyConvTranspose2d(4, 3, groups=2, dtype=D), 1, 4, 3, 3),
    "conv_transpose3d": (lambda: nn.LazyConvTranspose3d(2, 2, bias=False, dtype=D), 1, 2, 2, 2, 2),
    "batch_norm1d": (lambda: nn.LazyBatchNorm1d(dtype=D), 4, 3),
    "batch_norm2d": (lambda: nn.LazyBatchNorm2d(momentum=0.3, dtype=D), 2, 3, 2, 2),
    "batch_norm3d": (lambda: nn.LazyBatchNorm3d(affine=False, dtype=D), 2, 2, 2, 2, 2),
    "instance_norm1d": (lambda: nn.LazyInstanceNorm1d(dtype=D), 2, 3, 4),
    "instance_norm2d": (lambda: nn.LazyInstanceNorm2d(affine=False, track_running_stats=False, dtype=D), 2, 3, 2, 2),
    "instance_norm3d": (lambda: nn.LazyInstanceNorm3d(dtype=D), 1, 2, 2, 2, 3),
}


def linear_init():
    torch.manual_seed(0)
    m = nn.LazyLinear(3)
    m(torch.zeros(2, 5))
    return (m.weight.detach(), m.bias.detach())


def conv_init():
    torch.manual_seed(0)
    m = nn.LazyConv2d(3, 2)
    m(torch.zeros(1, 2, 3, 3))
    return (m.weight.detach(), m.bias.detach())


def state_keys(m):
    return [k + "=" + ("uninit" if isinstance(v, nn.parameter.UninitializedTensorMixin) else "tensor")
            for k, v in m.state_dict().items()]


def load_into_lazy():
    torch.manual_seed(3)
    sd = nn.Linear(4, 3).double().state_dict()
    m = nn.LazyLinear(3, dtype=D)
    m.load_state_dict(sd)
    r, u = repr(m), m.has_uninitialized_params()
    out = m(wave(2, 4).detach())
    return [r, repr(m), out.sum().item(), u]


def load_bn_into_lazy():
    torch.manual_seed(3)
    bn = nn.BatchNorm1d(3).double()
    bn(wave(4, 3).detach())
    m = nn.LazyBatchNorm1d(dtype=D)
    m.load_state_dict(bn.state_dict())
    m.eval()
    return (m(wave(4, 3).detach()).detach(), m.running_mean, m.running_var)


def saved_model():
    """A model PyTorch trains one step on, its state_dict written as a safetensors file."""
    from state_dicts import safetensors_bytes
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.Flatten(), nn.Linear(12, 2)).double()
    m(wave(2, 2, 4, 4).detach())
    return m, safetensors_bytes(m.state_dict()).hex()


def saved_output():
    m, _ = saved_model()
    m.eval()
    return (m(wave(2, 2, 4, 4).detach()).detach(), m[0].weight.detach(), m[1].running_mean)


def param_list():
    pl = nn.ParameterList([nn.Parameter(torch.ones(2, 3, dtype=D)), torch.zeros(3)])
    pl.append(5)
    pl.extend([torch.ones(1, 2, 2)])
    return [repr(pl), len(pl), list(pl.state_dict().keys()), type(pl[1]).__name__]


def param_list_grad():
    pl = nn.ParameterList([wave(2, 3).detach(), wave(3).detach()])
    out = (pl[0] * pl[1]).sin().sum()
    out.backward()
    return (out.detach(), pl[0].grad, pl[1].grad)


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = nn.ParameterList([torch.ones(2)])
        self.d = nn.ParameterDict({"b": torch.ones(2), "a": torch.zeros(1, 2, dtype=D)})


def param_dict():
    pd = nn.ParameterDict({"b": torch.ones(2), "a": nn.Parameter(torch.zeros(1, 2, dtype=D))})
    pd["c"] = torch.zeros(3)
    return [repr(pd), list(pd.keys()), len(pd), list(pd.state_dict().keys())]


def sync_bn_convert():
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Sequential(nn.BatchNorm1d(2, affine=False)))
    r = nn.SyncBatchNorm.convert_sync_batchnorm(m)
    return [repr(r), r[1].weight is m[1].weight, r[1].running_mean is m[1].running_mean, list(r.state_dict().keys())]


def lazy_conv_groups():
    nn.LazyConv1d(4, 3, groups=4)(torch.zeros(1, 6, 5))


CASES = {
    "linear_init": linear_init,
    "conv_init": conv_init,
    "state_keys_linear": lambda: state_keys(nn.LazyLinear(3)),
    "state_keys_bn": lambda: state_keys(nn.LazyBatchNorm2d()),
    "state_keys_in": lambda: state_keys(nn.LazyInstanceNorm1d(affine=False)),
    "has_uninit": lambda: [nn.LazyLinear(2).has_uninitialized_params(), nn.LazyBatchNorm1d(affine=False,
                           track_running_stats=False).has_uninitialized_params()],
    "load_into_lazy": load_into_lazy,
    "load_bn_into_lazy": load_bn_into_lazy,
    "param_list": param_list,
    "saved_file": lambda: saved_model()[1],
    "saved_output": saved_output,
    "param_list_grad": param_list_grad,
    "param_dict": param_dict,
    "holder": lambda: [repr(Holder()), [n for n, _ in Holder().named_parameters()]],
    "container": lambda: repr(nn.Container(a=nn.Linear(2, 2), b=nn.ReLU())),
    "sync_bn_repr": lambda: [repr(nn.SyncBatchNorm(4)), repr(nn.SyncBatchNorm(3, 1e-3, 0.2, False, False)),
                             list(nn.SyncBatchNorm(4).state_dict().keys())],
    "sync_bn_convert": sync_bn_convert,
    "error_uninit_shape": lambda: nn.LazyLinear(3).weight.shape,
    "error_uninit_numel": lambda: nn.LazyLinear(3).weight.numel(),
    "error_uninit_add": lambda: nn.LazyLinear(3).weight + 1,
    "error_lazy_conv_groups": lazy_conv_groups,
    "error_lazy_conv_dims": lambda: nn.LazyConv2d(4, 3)(torch.zeros(6, 5)),
    "error_lazy_bn_dims": lambda: nn.LazyBatchNorm1d()(torch.zeros(2, 3, 4, 5)),
    "error_load_uninit_into_linear": lambda: nn.Linear(3, 3).load_state_dict(
        {"weight": nn.LazyLinear(3).weight, "bias": torch.zeros(3)}),
    "error_param_list_index": lambda: nn.ParameterList([torch.ones(1)])[7],
    "error_param_dict_key": lambda: nn.ParameterDict()["zz"],
}
for _name, (_make, *_shape) in LAZY.items():
    _t, _r = case(_make, *_shape)
    CASES["lazy_" + _name] = _t
    CASES["lazy_" + _name + "_repr"] = _r
