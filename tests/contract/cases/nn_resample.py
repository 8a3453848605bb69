"""Resampling and rearranging layers: F.interpolate in every mode (sizes, scale factors,
align_corners, recompute_scale_factor, antialias, 1-D/2-D/3-D), Upsample and its 2-D forms, the padding
modules and F.pad's non-constant modes, Fold/Unfold, the pixel and channel shuffles,
grid_sample and affine_grid: values and float64 gradients, reprs and PyTorch's error texts.
Inputs are exact dyadic values, so both sides start from the same doubles."""
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


def run(fn, shape, dtype=D, grad=True):
    """fn(x) on the fixed input: its value, and the input's gradient for fixed upstream weights."""
    x = X(shape, dtype)
    y = fn(x)
    if not grad:
        return y.detach()
    w = ((torch.arange(y.numel(), dtype=dtype) * 5 % 11) / 8 - 0.6).reshape(y.shape)
    (y * w).sum().backward()
    return (y.detach(), x.grad)


# name -> (input shape, interpolate's keyword arguments); the Lua spec lists the same
INTERP = {
    "nearest_1d_size": ([2, 2, 5], dict(size=8)),
    "nearest_1d_scale": ([2, 2, 5], dict(scale_factor=1.7)),
    "nearest_2d_scale2": ([1, 2, 3, 4], dict(scale_factor=2)),
    "nearest_2d_frac": ([1, 2, 4, 5], dict(scale_factor=(1.3, 0.7))),
    "nearest_2d_size_down": ([1, 2, 7, 6], dict(size=(3, 4))),
    "nearest_2d_recompute": ([1, 2, 4, 5], dict(scale_factor=(1.3, 2.6), recompute_scale_factor=True)),
    "nearest_3d_size": ([1, 2, 3, 4, 2], dict(size=(5, 3, 4))),
    "nearest_3d_scale": ([1, 1, 3, 2, 4], dict(scale_factor=(1.5, 2.0, 0.75))),
    "nearest_exact_1d": ([2, 2, 5], dict(size=7, mode="nearest-exact")),
    "nearest_exact_2d": ([1, 2, 4, 5], dict(scale_factor=(1.5, 0.6), mode="nearest-exact")),
    "nearest_exact_3d": ([1, 1, 3, 2, 4], dict(size=(4, 5, 3), mode="nearest-exact")),
    "nearest_exact_recompute": ([1, 2, 4, 5], dict(scale_factor=1.3, mode="nearest-exact",
                                                   recompute_scale_factor=True)),
    "linear_default": ([2, 2, 5], dict(size=3, mode="linear")),
    "linear_size_ac_false": ([2, 2, 5], dict(size=8, mode="linear", align_corners=False)),
    "linear_size_ac_true": ([2, 2, 5], dict(size=8, mode="linear", align_corners=True)),
    "linear_scale_ac_false": ([2, 2, 6], dict(scale_factor=0.6, mode="linear", align_corners=False)),
    "linear_scale_ac_true": ([2, 2, 6], dict(scale_factor=1.7, mode="linear", align_corners=True)),
    "linear_recompute": ([2, 2, 5], dict(scale_factor=1.7, mode="linear", recompute_scale_factor=True)),
    "bilinear_size_ac_false": ([1, 2, 3, 4], dict(size=(5, 7), mode="bilinear")),
    "bilinear_size_ac_true": ([1, 2, 3, 4], dict(size=(5, 7), mode="bilinear", align_corners=True)),
    "bilinear_scale_ac_false": ([1, 2, 4, 5], dict(scale_factor=(1.5, 0.6), mode="bilinear", align_corners=False)),
    "bilinear_scale_ac_true": ([1, 2, 4, 5], dict(scale_factor=(2.5, 1.3), mode="bilinear", align_corners=True)),
    "bilinear_recompute": ([1, 2, 4, 5], dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)),
    "bilinear_down": ([1, 2, 7, 6], dict(size=(3, 2), mode="bilinear")),
    "bicubic_size_ac_false": ([1, 2, 4, 5], dict(size=(7, 3), mode="bicubic")),
    "bicubic_size_ac_true": ([1, 2, 4, 5], dict(size=(7, 3), mode="bicubic", align_corners=True)),
    "bicubic_scale_ac_false": ([1, 2, 4, 5], dict(scale_factor=(1.6, 2.0), mode="bicubic", align_corners=False)),
    "bicubic_scale_ac_true": ([1, 2, 4, 5], dict(scale_factor=(0.7, 1.5), mode="bicubic", align_corners=True)),
    "bicubic_recompute": ([1, 2, 4, 5], dict(scale_factor=1.3, mode="bicubic", recompute_scale_factor=True)),
    "trilinear_size_ac_false": ([1, 2, 3, 2, 4], dict(size=(4, 3, 5), mode="trilinear")),
    "trilinear_size_ac_true": ([1, 2, 3, 2, 4], dict(size=(4, 3, 5), mode="trilinear", align_corners=True)),
    "trilinear_scale_ac_false": ([1, 1, 3, 2, 4], dict(scale_factor=(1.5, 2.0, 0.75), mode="trilinear")),
    "trilinear_scale_ac_true": ([1, 1, 3, 2, 4], dict(scale_factor=(2.0, 1.5, 1.3), mode="trilinear",
                                                      align_corners=True)),
    "aa_bilinear_down": ([1, 2, 9, 7], dict(size=(4, 3), mode="bilinear", antialias=True)),
    "aa_bilinear_scale_ac": ([1, 2, 8, 6], dict(scale_factor=(0.4, 0.7), mode="bilinear", align_corners=True,
                                                antialias=True)),
    "aa_bicubic_down": ([1, 2, 9, 7], dict(size=(4, 5), mode="bicubic", antialias=True)),
    "aa_bicubic_up": ([1, 2, 3, 4], dict(scale_factor=(2.0, 1.5), mode="bicubic", antialias=True)),
    "area_1d": ([2, 2, 7], dict(size=3, mode="area")),
    "area_1d_scale": ([2, 2, 7], dict(scale_factor=0.6, mode="area")),
    "area_2d": ([1, 2, 7, 5], dict(size=(3, 2), mode="area")),
    "area_2d_scale": ([1, 2, 6, 5], dict(scale_factor=(0.5, 1.5), mode="area")),
    "area_3d": ([1, 2, 5, 4, 3], dict(size=(2, 3, 2), mode="area")),
    "area_3d_scale": ([1, 1, 4, 5, 3], dict(scale_factor=0.7, mode="area")),
}
# float32 forwards: the indices and weights computed in float, as ATen does for float32
INTERP32 = {
    "f32_nearest": ([1, 2, 9, 11], dict(scale_factor=(1.3, 0.7))),
    "f32_nearest_exact": ([1, 2, 9, 11], dict(scale_factor=(2.3, 0.45), mode="nearest-exact")),
    "f32_linear": ([2, 3, 13], dict(scale_factor=1.37, mode="linear")),
    "f32_bilinear": ([1, 2, 9, 11], dict(size=(14, 5), mode="bilinear", align_corners=True)),
    "f32_bicubic": ([1, 2, 9, 11], dict(scale_factor=(1.3, 0.7), mode="bicubic")),
    "f32_trilinear": ([1, 1, 5, 3, 4], dict(size=(7, 4, 3), mode="trilinear")),
}

P = {"padding": 1}


def padded(make, shape):
    return run(lambda x: make()(x), shape)


def fold_input(shape):
    return run(lambda x: x, shape, grad=False)


def grid(shape, scale=1.5):
    g = ((torch.arange(numel(shape), dtype=D) * 3 % 17) / 8 - 1.0625) * scale + 0.01
    return g.reshape(shape).requires_grad_()


def sample(mode, padding_mode, align_corners, three=False):
    x = X([2, 2, 3, 4, 5] if three else [2, 2, 4, 5])
    g = grid([2, 2, 3, 2, 3] if three else [2, 3, 4, 2])
    y = F.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    w = ((torch.arange(y.numel(), dtype=D) * 5 % 11) / 8 - 0.6).reshape(y.shape)
    (y * w).sum().backward()
    return (y.detach(), x.grad, g.grad if g.grad is not None else torch.zeros_like(g))


def affine(three, align_corners):
    if three:
        theta = torch.tensor([[[0.75, 0.25, -0.125, 0.5], [0.0, 1.25, 0.5, -0.25], [0.25, 0.0, 0.875, 0.125]]],
                             dtype=D, requires_grad=True)
        size = (1, 2, 3, 4, 2)
    else:
        theta = torch.tensor([[[0.75, 0.25, -0.125], [-0.5, 1.25, 0.25]], [[1.0, 0.0, 0.5], [0.0, 0.5, -0.25]]],
                             dtype=D, requires_grad=True)
        size = (2, 1, 3, 5)
    g = F.affine_grid(theta, size, align_corners=align_corners)
    w = ((torch.arange(g.numel(), dtype=D) * 5 % 11) / 8 - 0.6).reshape(g.shape)
    (g * w).sum().backward()
    return (g.detach(), theta.grad)


def rotate():
    theta = torch.tensor([[[0.8, -0.6, 0.1], [0.6, 0.8, -0.05]]], dtype=D, requires_grad=True)
    x = X([1, 2, 5, 6])
    y = F.grid_sample(x, F.affine_grid(theta, (1, 2, 4, 4), align_corners=False), align_corners=False)
    w = ((torch.arange(y.numel(), dtype=D) * 5 % 11) / 8 - 0.6).reshape(y.shape)
    (y * w).sum().backward()
    return (y.detach(), x.grad, theta.grad)


CASES = {}
for _name, (_shape, _kw) in INTERP.items():
    CASES["interp_" + _name] = (lambda s, k: lambda: run(lambda x: F.interpolate(x, **k), s))(_shape, _kw)
for _name, (_shape, _kw) in INTERP32.items():
    CASES["interp_" + _name] = (lambda s, k: lambda: run(lambda x: F.interpolate(x, **k), s, torch.float32,
                                                         grad=False))(_shape, _kw)
for _mode in ("bilinear", "nearest", "bicubic"):
    for _pm in ("zeros", "border", "reflection"):
        for _ac in (False, True):
            CASES["grid_sample_2d_%s_%s_%s" % (_mode, _pm, _ac)] = (lambda m, p, a: lambda: sample(m, p, a))(
                _mode, _pm, _ac)
            if _mode != "bicubic":
                CASES["grid_sample_3d_%s_%s_%s" % (_mode, _pm, _ac)] = (lambda m, p, a: lambda: sample(
                    m, p, a, True))(_mode, _pm, _ac)

CASES.update({
    "upsample_module": lambda: run(lambda x: nn.Upsample(scale_factor=2, mode="bilinear")(x), [1, 2, 3, 3]),
    "upsample_module_size": lambda: run(lambda x: nn.Upsample((4, 3, 5), mode="trilinear", align_corners=True)(x),
                                        [1, 1, 2, 3, 2]),
    "upsampling_nearest2d": lambda: run(lambda x: nn.UpsamplingNearest2d(size=(5, 4))(x), [1, 2, 3, 3]),
    "upsampling_bilinear2d": lambda: run(lambda x: nn.UpsamplingBilinear2d(scale_factor=2)(x), [1, 2, 3, 3]),
    "f_upsample": lambda: run(lambda x: F.upsample(x, size=5, mode="linear"), [2, 2, 3]),
    "f_upsample_nearest": lambda: run(lambda x: F.upsample_nearest(x, scale_factor=2), [1, 2, 2, 3]),
    "f_upsample_bilinear": lambda: run(lambda x: F.upsample_bilinear(x, size=(5, 6)), [1, 2, 2, 3]),
    "upsample_repr": lambda: repr(nn.Sequential(
        nn.Upsample(size=4), nn.Upsample(scale_factor=(2, 3)), nn.Upsample(scale_factor=1.5, mode="bicubic",
                                                                           align_corners=True),
        nn.Upsample((3, 4), mode="bilinear"), nn.UpsamplingNearest2d(scale_factor=2),
        nn.UpsamplingBilinear2d(size=(3, 4)))),
    "upsample_attrs": lambda: [nn.Upsample(scale_factor=2).scale_factor, nn.UpsamplingBilinear2d(size=3).mode,
                               nn.UpsamplingBilinear2d(size=3).align_corners, nn.Upsample(size=3).mode],
    "error_interp_both": lambda: F.interpolate(X([1, 2, 3]), size=4, scale_factor=2.0),
    "error_interp_neither": lambda: F.interpolate(X([1, 2, 3])),
    "error_interp_size_len": lambda: F.interpolate(X([1, 2, 3, 4]), size=(3,)),
    "error_interp_scale_len": lambda: F.interpolate(X([1, 2, 3, 4]), scale_factor=(3.0, 2.0, 1.0)),
    "error_interp_align_nearest": lambda: F.interpolate(X([1, 2, 3, 4]), size=(3, 2), align_corners=True),
    "error_interp_recompute_size": lambda: F.interpolate(X([1, 2, 3, 4]), size=(3, 2), recompute_scale_factor=True),
    "error_interp_mode": lambda: F.interpolate(X([1, 2, 3, 4]), size=3, mode="foo"),
    "error_interp_linear_4d": lambda: F.interpolate(X([1, 2, 3, 4]), size=3, mode="linear"),
    "error_interp_trilinear_3d": lambda: F.interpolate(X([1, 2, 3]), size=3, mode="trilinear"),
    "error_interp_bicubic_5d": lambda: F.interpolate(X([1, 1, 2, 3, 4]), size=3, mode="bicubic"),
    "error_interp_2d_input": lambda: F.interpolate(X([2, 3]), size=3),
    "error_interp_zero_1d": lambda: F.interpolate(X([1, 1, 4]), size=0, mode="linear"),
    "error_interp_zero_2d": lambda: F.interpolate(X([1, 2, 3, 4]), scale_factor=0.1),
    "error_interp_zero_3d": lambda: F.interpolate(X([1, 1, 2, 3, 4]), size=(1, 0, 1), mode="trilinear"),
    "error_interp_empty_channels": lambda: F.interpolate(torch.zeros(1, 0, 3, 4), size=(3, 5)),
    "error_interp_long_linear": lambda: F.interpolate(torch.zeros(1, 2, 4, dtype=torch.long), size=2, mode="linear"),
    "error_interp_long_bicubic": lambda: F.interpolate(torch.zeros(1, 2, 4, 3, dtype=torch.long), size=2,
                                                       mode="bicubic"),
    "error_interp_antialias": lambda: F.interpolate(X([1, 2, 4]), size=2, mode="linear", antialias=True),
    "error_interp_antialias_3d": lambda: F.interpolate(X([1, 1, 2, 3, 4]), size=2, mode="trilinear", antialias=True),

    "zero_pad2d": lambda: padded(lambda: nn.ZeroPad2d((1, 2, 0, 3)), [2, 2, 3, 4]),
    "constant_pad1d": lambda: padded(lambda: nn.ConstantPad1d(2, 3.5), [2, 3, 4]),
    "constant_pad2d": lambda: padded(lambda: nn.ConstantPad2d((1, 0, 2, 1), -1.0), [1, 2, 3, 3]),
    "constant_pad3d": lambda: padded(lambda: nn.ConstantPad3d(1, 0.5), [1, 2, 2, 2, 3]),
    "reflection_pad1d": lambda: padded(lambda: nn.ReflectionPad1d((2, 1)), [2, 3, 4]),
    "reflection_pad1d_unbatched": lambda: padded(lambda: nn.ReflectionPad1d(3), [3, 4]),
    "reflection_pad2d": lambda: padded(lambda: nn.ReflectionPad2d((1, 2, 2, 0)), [1, 2, 3, 4]),
    "reflection_pad2d_unbatched": lambda: padded(lambda: nn.ReflectionPad2d(1), [2, 3, 4]),
    "reflection_pad3d": lambda: padded(lambda: nn.ReflectionPad3d((1, 2, 1, 0, 0, 1)), [1, 2, 3, 3, 4]),
    "reflection_pad3d_unbatched": lambda: padded(lambda: nn.ReflectionPad3d(1), [2, 3, 3, 4]),
    "replication_pad1d": lambda: padded(lambda: nn.ReplicationPad1d((3, 1)), [2, 3, 4]),
    "replication_pad2d": lambda: padded(lambda: nn.ReplicationPad2d((2, 0, 1, 3)), [1, 2, 3, 4]),
    "replication_pad3d": lambda: padded(lambda: nn.ReplicationPad3d(2), [1, 1, 2, 3, 2]),
    "replication_pad3d_unbatched": lambda: padded(lambda: nn.ReplicationPad3d((0, 1, 2, 0, 1, 1)), [2, 2, 3, 2]),
    "pad_negative_reflect": lambda: run(lambda x: F.pad(x, (-1, 2), mode="reflect"), [2, 3, 4]),
    "pad_negative_replicate": lambda: run(lambda x: F.pad(x, (2, -1, -1, 1), mode="replicate"), [1, 2, 3, 4]),
    "pad_negative_circular": lambda: run(lambda x: F.pad(x, (-1, 2, 1, -1), mode="circular"), [1, 2, 3, 4]),
    "pad_circular_3d": lambda: run(lambda x: F.pad(x, (1, 1, 0, 2, 1, 0), mode="circular"), [1, 1, 2, 3, 3]),
    "pad_repr": lambda: repr(nn.Sequential(
        nn.ZeroPad2d(2), nn.ZeroPad2d((1, 2, 3, 4)), nn.ConstantPad1d((1, 2), 3.5), nn.ConstantPad2d(1, 2),
        nn.ConstantPad3d((1, 0, 0, 1, 2, 2), -0.5), nn.ReflectionPad1d(2), nn.ReflectionPad2d((1, 0, 2, 3)),
        nn.ReflectionPad3d(1), nn.ReplicationPad1d((0, 3)), nn.ReplicationPad2d(2), nn.ReplicationPad3d(1))),
    "error_pad_reflect3d": lambda: F.pad(X([1, 2, 3, 4]), (1, 1, 3, 1, 1, 1), mode="reflect"),
    "error_pad_reflect2d": lambda: nn.ReflectionPad2d((1, 1, 3, 1))(X([1, 2, 3, 4])),
    "error_pad_reflect1d": lambda: nn.ReflectionPad1d((4, 1))(X([2, 3, 4])),
    "error_pad_nonconstant_dims": lambda: F.pad(X([2, 3]), (1, 1, 1, 1), mode="replicate"),
    "error_pad_value": lambda: F.pad(X([2, 3, 4]), (1, 1), mode="reflect", value=1.0),
    "error_pad_circular_size": lambda: F.pad(X([2, 3, 4]), (1, 1, 1, 1), mode="circular"),
    "error_pad_circular_wrap": lambda: F.pad(X([2, 3, 4]), (5, 1), mode="circular"),
    "error_pad_replicate_small": lambda: F.pad(X([2, 3, 4]), (-3, -1), mode="replicate"),
    "error_pad_replicate_small_2d": lambda: F.pad(X([2, 3, 4]), (0, -4, -3, 0), mode="replicate"),
    "error_pad_reflect_empty": lambda: F.pad(torch.zeros(2, 0, 3), (1, 1), mode="reflect"),
    "error_pad_replicate_empty": lambda: F.pad(torch.zeros(2, 0, 3), (1, 1), mode="replicate"),
    "error_pad_mode": lambda: F.pad(X([2, 3, 4]), (1, 1), mode="foo"),
    "error_pad_long_reflect": lambda: F.pad(torch.zeros(2, 3, 4, dtype=torch.long), (1, 1), mode="reflect"),
    "error_pad_long_replicate": lambda: F.pad(torch.zeros(1, 2, 3, 4, dtype=torch.long), (1, 1, 1, 1),
                                              mode="replicate"),

    "unfold_module": lambda: run(lambda x: nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1))(x),
                                 [2, 3, 5, 6]),
    "unfold_unbatched": lambda: run(lambda x: F.unfold(x, 2), [3, 4, 5]),
    "fold_module": lambda: run(lambda x: nn.Fold((4, 5), 2, padding=1, stride=(1, 2))(x), [2, 8, 15]),
    "fold_unbatched": lambda: run(lambda x: F.fold(x, (3, 4), 2), [12, 6]),
    "fold_dilation": lambda: run(lambda x: nn.Fold((5, 5), (2, 3), dilation=2)(x), [1, 12, 3]),
    "fold_unfold_roundtrip": lambda: run(lambda x: F.fold(F.unfold(x, 3, padding=1), (4, 5), 3, padding=1),
                                         [1, 2, 4, 5]),
    "fold_repr": lambda: repr(nn.Sequential(nn.Fold((3, 4), 2), nn.Fold(5, (2, 3), dilation=2, padding=(1, 0),
                                                                        stride=3),
                                            nn.Unfold(2, padding=1), nn.Unfold((2, 3), 1, 2, 3))),
    "error_unfold_5d": lambda: F.unfold(torch.zeros(1, 2, 3, 5, 6), (2, 3)),
    "error_unfold_kernel": lambda: F.unfold(X([2, 3, 5, 6]), (0, 3)),
    "error_unfold_stride": lambda: F.unfold(X([2, 3, 5, 6]), (2, 3), stride=0),
    "error_unfold_padding": lambda: F.unfold(X([2, 3, 5, 6]), (2, 3), padding=-1),
    "error_unfold_too_big": lambda: F.unfold(X([2, 3, 5, 6]), (7, 3)),
    "error_unfold_long": lambda: F.unfold(torch.zeros(2, 3, 5, 6, dtype=torch.long), 2),
    "error_fold_4d": lambda: F.fold(torch.zeros(12, 6, 1, 1), (3, 4), (2, 2)),
    "error_fold_divisible": lambda: F.fold(torch.zeros(2, 13, 6), (3, 4), (2, 2)),
    "error_fold_blocks": lambda: F.fold(torch.zeros(2, 12, 5), (3, 4), (2, 2)),
    "error_fold_dilation": lambda: F.fold(torch.zeros(2, 12, 6), (3, 4), (2, 2), dilation=0),

    "pixel_shuffle_module": lambda: run(lambda x: nn.PixelShuffle(2)(x), [1, 8, 2, 3]),
    "pixel_shuffle_unbatched": lambda: run(lambda x: F.pixel_shuffle(x, 2), [8, 2, 3]),
    "pixel_unshuffle_module": lambda: run(lambda x: nn.PixelUnshuffle(2)(x), [1, 2, 4, 6]),
    "pixel_unshuffle_f": lambda: run(lambda x: F.pixel_unshuffle(x, 3), [2, 1, 3, 6]),
    "channel_shuffle_module": lambda: run(lambda x: nn.ChannelShuffle(3)(x), [2, 6, 2, 2], grad=False),
    "channel_shuffle_f": lambda: run(lambda x: F.channel_shuffle(x, 2), [2, 4, 3], grad=False),
    "shuffle_repr": lambda: repr(nn.Sequential(nn.PixelShuffle(2), nn.PixelUnshuffle(3), nn.ChannelShuffle(4))),
    "error_pixel_shuffle": lambda: nn.PixelShuffle(3)(X([1, 8, 2, 2])),
    "error_pixel_unshuffle": lambda: nn.PixelUnshuffle(2)(X([1, 2, 3, 4])),
    "error_channel_shuffle": lambda: nn.ChannelShuffle(4)(X([1, 6, 2, 2])),
    "state_dict_keys": lambda: sorted(nn.Sequential(nn.Upsample(scale_factor=2), nn.ZeroPad2d(1), nn.Fold(3, 2),
                                                    nn.PixelShuffle(2), nn.ReflectionPad1d(1)).state_dict().keys()),

    "affine_grid_2d": lambda: affine(False, False),
    "affine_grid_2d_ac": lambda: affine(False, True),
    "affine_grid_3d": lambda: affine(True, False),
    "affine_grid_3d_ac": lambda: affine(True, True),
    "affine_rotate_sample": rotate,
    "error_grid_sample_mode": lambda: F.grid_sample(X([1, 2, 3, 4]), grid([1, 5, 6, 2]), mode="foo"),
    "error_grid_sample_padding": lambda: F.grid_sample(X([1, 2, 3, 4]), grid([1, 5, 6, 2]), padding_mode="foo"),
    "error_grid_sample_bicubic_3d": lambda: F.grid_sample(X([1, 2, 3, 4, 5]), grid([1, 5, 6, 7, 3]), mode="bicubic",
                                                          align_corners=False),
    "error_grid_sample_last_dim": lambda: F.grid_sample(X([1, 2, 3, 4]), grid([1, 5, 6, 3]), align_corners=False),
    "error_grid_sample_batch": lambda: F.grid_sample(X([1, 2, 3, 4]), grid([2, 5, 6, 2]), align_corners=False),
    "error_affine_theta_shape": lambda: F.affine_grid(torch.zeros(1, 2, 3, dtype=D), (1, 2, 3, 4, 5),
                                                      align_corners=False),
    "error_affine_size": lambda: F.affine_grid(torch.zeros(1, 2, 3, dtype=D), (1, 2, 3), align_corners=False),
    "error_affine_long": lambda: F.affine_grid(torch.zeros(1, 2, 3, dtype=torch.long), (1, 2, 3, 4),
                                               align_corners=False),
    "error_affine_zero": lambda: F.affine_grid(torch.zeros(1, 2, 3, dtype=D), (1, 2, 0, 4), align_corners=False),
})
