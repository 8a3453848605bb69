"""The poolings of nn/pooling_more.lua: max_pool3d's indices, avg_pool3d, adaptive_avg_pool3d,
adaptive_max_pool1d/2d/3d, lp_pool1d/2d, fractional_max_pool2d/3d (explicit samples) and
max_unpool1d/2d/3d: values, indices (0-based here; the Lua side subtracts 1) and float64 input
gradients; the modules' reprs; PyTorch's error texts."""
import warnings

import torch
from torch import nn
from torch.nn import functional as F

warnings.simplefilter("ignore")
D = torch.float64


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def X(shape, dtype=D):
    return ((torch.arange(numel(shape), dtype=dtype) * 7 % 13) / 4 - 1.5).reshape(shape).requires_grad_()


def XU(shape, dtype=D):
    """distinct values (no ties between window members): a permutation of the grid"""
    n = numel(shape)
    return ((torch.arange(n, dtype=dtype) * 37 % n) / 8 - 3).reshape(shape).requires_grad_()


def run(fn, x):
    """fn(x): its values (and indices when a tuple), then the input's gradient for fixed weights"""
    out = fn(x)
    y, idx = (out if isinstance(out, tuple) else (out, None))
    w = ((torch.arange(y.numel(), dtype=y.dtype) * 5 % 11) / 8 - 0.6).reshape(y.shape)
    (y * w).sum().backward()
    return (y.detach(), x.grad) if idx is None else (y.detach(), idx, x.grad)


def samples(shape, dtype=D):
    return ((torch.arange(numel(shape), dtype=dtype) * 0.37 + 0.11) % 1).reshape(shape)


def unpool(n, shape, k, s, p, output_size=None):
    x = XU(shape)
    pool = [None, F.max_pool1d, F.max_pool2d, F.max_pool3d][n]
    unp = [None, F.max_unpool1d, F.max_unpool2d, F.max_unpool3d][n]
    v, i = pool(x.detach(), k, s, p, return_indices=True)
    v = v.clone().requires_grad_()
    y = unp(v, i, k, s, p, output_size=output_size)
    w = ((torch.arange(y.numel(), dtype=D) * 5 % 11) / 8 - 0.6).reshape(y.shape)
    (y * w).sum().backward()
    return (y.detach(), v.grad)


CASES = {
    "max_pool3d_idx": lambda: run(lambda x: F.max_pool3d(x, 2, return_indices=True), XU([2, 2, 4, 5, 6])),
    "max_pool3d_idx_full": lambda: run(lambda x: F.max_pool3d(x, (3, 2, 3), (2, 1, 2), 1, (1, 2, 1), True, True),
                                       XU([1, 2, 5, 6, 7])),
    "max_pool3d_idx_unbatched": lambda: run(lambda x: F.max_pool3d_with_indices(x, 2, 1), XU([2, 3, 4, 3])),
    "avg_pool3d": lambda: run(lambda x: F.avg_pool3d(x, 2), X([2, 2, 4, 5, 6])),
    "avg_pool3d_pad_ceil": lambda: run(lambda x: F.avg_pool3d(x, (3, 2, 3), (2, 1, 2), 1, True), X([1, 2, 5, 6, 7])),
    "avg_pool3d_exclude_pad": lambda: run(lambda x: F.avg_pool3d(x, (3, 2, 3), (2, 1, 2), 1, True, False),
                                          X([1, 2, 5, 6, 7])),
    "avg_pool3d_divisor": lambda: run(lambda x: F.avg_pool3d(x, 2, 1, 1, divisor_override=3), X([2, 3, 4, 3])),
    "avg_pool3d_long": lambda: F.avg_pool3d(torch.arange(64).reshape(1, 1, 4, 4, 4) * 3 % 17, 2),
    "adaptive_avg_pool3d": lambda: run(lambda x: F.adaptive_avg_pool3d(x, (2, 3, 4)), X([2, 2, 5, 6, 7])),
    "adaptive_avg_pool3d_int": lambda: run(lambda x: F.adaptive_avg_pool3d(x, 3), X([2, 4, 5, 7])),
    "adaptive_max_pool1d": lambda: run(lambda x: F.adaptive_max_pool1d(x, 4, True), XU([2, 3, 7])),
    "adaptive_max_pool2d": lambda: run(lambda x: F.adaptive_max_pool2d(x, (3, 4), True), XU([2, 3, 7, 9])),
    "adaptive_max_pool2d_unbatched": lambda: run(lambda x: F.adaptive_max_pool2d_with_indices(x, 2), XU([3, 5, 5])),
    "adaptive_max_pool2d_values": lambda: run(lambda x: F.adaptive_max_pool2d(x, 3), XU([1, 2, 6, 8])),
    "adaptive_max_pool3d": lambda: run(lambda x: F.adaptive_max_pool3d(x, (2, 3, 2), True), XU([1, 2, 5, 7, 4])),
    "lp_pool1d_2": lambda: run(lambda x: F.lp_pool1d(x, 2, 3), X([2, 3, 8])),
    "lp_pool1d_3_stride": lambda: run(lambda x: F.lp_pool1d(x, 3, 2, stride=1, ceil_mode=True), X([2, 3, 7])),
    "lp_pool2d_15": lambda: run(lambda x: F.lp_pool2d(x.abs() + 0.5, 1.5, (2, 3)), X([1, 2, 6, 7])),
    "lp_pool2d_2_ceil": lambda: run(lambda x: F.lp_pool2d(x, 2, 2, 2, True), X([1, 2, 5, 5])),
    "fractional2d_size": lambda: run(lambda x: F.fractional_max_pool2d(
        x, 2, output_size=(4, 5), return_indices=True, _random_samples=samples([2, 3, 2])), XU([2, 3, 7, 9])),
    "fractional2d_ratio": lambda: run(lambda x: F.fractional_max_pool2d(
        x, (3, 2), output_ratio=(0.5, 0.6), return_indices=True, _random_samples=samples([1, 2, 2])), XU([1, 2, 9, 8])),
    "fractional2d_unbatched": lambda: run(lambda x: F.fractional_max_pool2d_with_indices(
        x, 2, output_size=3, _random_samples=samples([1, 2, 2])), XU([2, 6, 6])),
    "fractional2d_float32": lambda: F.fractional_max_pool2d(
        XU([1, 2, 17, 13], torch.float32).detach(), 3, output_size=(6, 7), return_indices=True,
        _random_samples=samples([1, 2, 2], torch.float32)),
    "fractional3d_size": lambda: run(lambda x: F.fractional_max_pool3d(
        x, 2, output_size=(3, 4, 2), return_indices=True, _random_samples=samples([1, 2, 3])), XU([1, 2, 6, 7, 5])),
    "fractional3d_ratio": lambda: run(lambda x: F.fractional_max_pool3d(
        x, (2, 3, 2), output_ratio=0.5, _random_samples=samples([2, 1, 3])), XU([2, 1, 6, 8, 6])),
    "unpool1d": lambda: unpool(1, [2, 3, 8], 2, 2, 0),
    "unpool1d_stride_pad": lambda: unpool(1, [1, 2, 9], 3, 2, 1),
    "unpool2d": lambda: unpool(2, [2, 2, 6, 8], 2, 2, 0),
    "unpool2d_size": lambda: unpool(2, [1, 2, 7, 7], 2, 2, 0, output_size=(7, 7)),
    "unpool2d_pad": lambda: unpool(2, [1, 1, 6, 7], (3, 2), (2, 1), (1, 0)),
    "unpool3d": lambda: unpool(3, [1, 2, 4, 4, 6], 2, 2, 0),
    "unpool3d_full_size": lambda: unpool(3, [1, 1, 5, 4, 5], 2, 2, 0, output_size=(1, 1, 5, 4, 5)),
    "reprs": lambda: [repr(m) for m in (
        nn.AdaptiveAvgPool3d((2, 3, 4)), nn.AdaptiveAvgPool3d(2), nn.AdaptiveMaxPool1d(3),
        nn.AdaptiveMaxPool2d((2, 3), return_indices=True), nn.AdaptiveMaxPool3d(2), nn.AvgPool3d(3),
        nn.AvgPool3d((1, 2, 3), stride=(2, 1, 1), padding=1, ceil_mode=True, count_include_pad=False,
                     divisor_override=2),
        nn.LPPool1d(2, 3), nn.LPPool2d(1.5, (2, 3), stride=1, ceil_mode=True),
        nn.FractionalMaxPool2d(2, output_size=(3, 4)), nn.FractionalMaxPool3d(2, output_ratio=0.5),
        nn.MaxUnpool1d(2), nn.MaxUnpool2d((2, 3), stride=1, padding=(0, 1)), nn.MaxUnpool3d(2),
        nn.MaxPool3d(2, return_indices=True))],
    "modules": lambda: (
        nn.AvgPool3d(2, ceil_mode=True)(X([1, 2, 3, 5, 4])).detach(),
        nn.AdaptiveAvgPool3d((1, 2, 3))(X([1, 2, 3, 5, 4])).detach(),
        nn.AdaptiveMaxPool2d(2)(XU([1, 2, 5, 5])).detach(),
        nn.LPPool2d(2, 2)(X([1, 2, 4, 4])).detach(),
        nn.MaxUnpool2d(2)(torch.tensor([[[[5., 6], [7, 8]]]]), torch.tensor([[[[0, 3], [8, 15]]]])),
    ),
    "error_fractional_neither": lambda: F.fractional_max_pool2d(X([1, 2, 5, 5]), 2),
    "error_fractional_too_large": lambda: F.fractional_max_pool2d(X([1, 2, 5, 5]), 3, output_size=4),
    "error_fractional3d_too_large": lambda: F.fractional_max_pool3d(X([1, 1, 4, 4, 4]), 2, output_size=4),
    "error_unpool_index": lambda: F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor([[[[0, 1], [2, 99]]]]), 2),
    "error_unpool_size": lambda: F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.tensor([[[[0, 1], [2, 3]]]]), 2,
                                                output_size=(9, 9)),
    "error_unpool_len": lambda: F.max_unpool1d(torch.ones(1, 1, 2), torch.tensor([[[0, 1]]]), 2,
                                               output_size=(1, 1, 9, 9)),
    "error_unpool_shape": lambda: F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.zeros(1, 1, 2, 3, dtype=torch.long), 2),
    "error_unpool_dtype": lambda: F.max_unpool2d(torch.ones(1, 1, 2, 2), torch.zeros(1, 1, 2, 2), 2),
    "error_adaptive_max2d_dims": lambda: F.adaptive_max_pool2d(torch.randn(2, 3), 2),
    "error_adaptive_max2d_empty": lambda: F.adaptive_max_pool2d(torch.randn(1, 2, 0, 3), 2),
    "error_adaptive_max2d_long": lambda: F.adaptive_max_pool2d(torch.ones(1, 2, 3, 3, dtype=torch.long), 2),
    "error_adaptive_max3d_size": lambda: F.adaptive_max_pool3d(torch.randn(1, 2, 3, 3, 3), (2, 2)),
    "error_adaptive_max3d_long": lambda: F.adaptive_max_pool3d(torch.ones(1, 2, 3, 3, 3, dtype=torch.long), 2),
    "error_adaptive_avg3d_dims": lambda: F.adaptive_avg_pool3d(torch.randn(3, 3), 2),
    "error_adaptive_avg3d_size": lambda: F.adaptive_avg_pool3d(torch.randn(1, 1, 3, 3, 3), (2, 2)),
    "error_adaptive_avg3d_long": lambda: F.adaptive_avg_pool3d(torch.ones(1, 1, 3, 3, 3, dtype=torch.long), 2),
    "error_avg3d_small": lambda: F.avg_pool3d(torch.randn(1, 1, 2, 2, 2), 3),
    "error_avg3d_kernel": lambda: F.avg_pool3d(torch.randn(1, 1, 4, 4, 4), (2, 2)),
    "error_avg3d_stride": lambda: F.avg_pool3d(torch.randn(1, 1, 4, 4, 4), 2, stride=0),
    "error_avg3d_divisor": lambda: F.avg_pool3d(torch.randn(1, 1, 4, 4, 4), 2, divisor_override=0),
    "error_avg3d_pad": lambda: F.avg_pool3d(torch.randn(1, 1, 4, 4, 4), 2, padding=2),
    "error_avg3d_dims": lambda: F.avg_pool3d(torch.randn(4, 4), 2),
    "error_max3d_idx_pad": lambda: F.max_pool3d(torch.randn(1, 1, 4, 4, 4), 2, padding=2, return_indices=True),
    "error_lp_pool_small": lambda: F.lp_pool1d(torch.randn(1, 1, 4), 2, 5),
    "error_adaptive_avg3d_list_dims": lambda: F.adaptive_avg_pool3d(torch.randn(3, 3), (2, 2, 2)),
    "error_adaptive_max2d_list_dims": lambda: F.adaptive_max_pool2d(torch.randn(4), (2, 2)),
    "error_fractional_size_len": lambda: F.fractional_max_pool2d(torch.randn(1, 1, 4, 4), 2, output_size=(2,)),
    "error_unpool1d_dims": lambda: F.max_unpool1d(torch.randn(2), torch.zeros(2, dtype=torch.long), 2),
    "error_unpool2d_dims": lambda: F.max_unpool2d(torch.randn(2, 2), torch.zeros(2, 2, dtype=torch.long), 2),
    "error_unpool3d_dims": lambda: F.max_unpool3d(torch.randn(2, 2, 2), torch.zeros(2, 2, 2, dtype=torch.long), 2),
}
