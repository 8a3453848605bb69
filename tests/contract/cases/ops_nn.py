"""Convolution and pooling ops against PyTorch: shapes, strides, padding, dilation, groups,
transposed convolutions, ceil mode, dtypes, layouts, NaN, and the misuse errors."""
import torch
import torch.nn.functional as F

from _opcase import T, V, call

CASES = {}
TOL = {"float32": 2e-5, "float64": 1e-12, "bfloat16": 2e-2}


def add(name, case):
    assert name not in CASES, name
    CASES[name] = case


# bfloat16: PyTorch (oneDNN) rounds the product and the bias separately, mindtorch once
CONV_TOL = dict(TOL, bfloat16=7e-2)


def conv(name, x, w, *args, fn="conv2d", **kw):
    add(name, call(fn, x, w, *args, kw=kw, tol=CONV_TOL))


# ---- conv2d ------------------------------------------------------------------------------------
for dt in ("float32", "float64", "bfloat16", "int64", "int32", "float16", "bool"):
    conv("conv2d_%s" % dt, T(dt, [2, 3, 6, 5]), T(dt, [4, 3, 3, 2]), T(dt, [4]))
for lay in ("t", "sliced"):
    conv("conv2d_input_%s" % lay, T("float32", [2, 3, 6, 5], lay), T("float32", [4, 3, 3, 2]))
    conv("conv2d_weight_%s" % lay, T("float32", [2, 3, 6, 5]), T("float32", [4, 3, 3, 2], lay))
conv("conv2d_no_bias", T("float64", [2, 3, 7, 7]), T("float64", [5, 3, 3, 3]))
conv("conv2d_stride", T("float64", [2, 3, 7, 8]), T("float64", [4, 3, 3, 3]), stride=(2, 3))
conv("conv2d_padding", T("float64", [2, 3, 5, 4]), T("float64", [4, 3, 3, 3]), padding=(1, 2))
conv("conv2d_dilation", T("float64", [2, 3, 8, 7]), T("float64", [4, 3, 3, 2]), dilation=(2, 3))
conv("conv2d_all", T("float64", [3, 4, 9, 8]), T("float64", [6, 2, 3, 3]), T("float64", [6]),
     stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2)
conv("conv2d_groups", T("float64", [2, 6, 5, 5]), T("float64", [6, 2, 3, 3]), groups=3)
conv("conv2d_depthwise", T("float32", [2, 4, 6, 6]), T("float32", [8, 1, 3, 3]), T("float32", [8]), groups=4)
conv("conv2d_1x1", T("float32", [2, 5, 4, 3]), T("float32", [7, 5, 1, 1]), T("float32", [7]))
conv("conv2d_full_kernel", T("float32", [2, 3, 4, 4]), T("float32", [2, 3, 4, 4]))
conv("conv2d_unbatched", T("float32", [3, 6, 5]), T("float32", [4, 3, 3, 3]), padding=1)
conv("conv2d_empty_batch", T("float32", [0, 3, 6, 5]), T("float32", [4, 3, 3, 3]))
conv("conv2d_big_plane", T("float32", [2, 2, 20, 20]), T("float32", [3, 2, 5, 5]), stride=2, padding=2)
# errors
conv("conv2d_bad_channels", T("float32", [2, 3, 8, 8]), T("float32", [4, 2, 3, 3]))
conv("conv2d_bad_weight_dim", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3]))
conv("conv2d_bad_input_dim", T("float32", [2, 3, 8, 8, 2]), T("float32", [4, 3, 3, 3]))
conv("conv2d_2d_input", T("float32", [2, 3]), T("float32", [4, 3, 3, 3]))
conv("conv2d_kernel_too_big", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 9, 9]))
conv("conv2d_dilated_too_big", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), dilation=5)
conv("conv2d_bad_bias", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), T("float32", [3]))
conv("conv2d_bias_2d", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), T("float32", [4, 1]))
conv("conv2d_bias_dtype", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), T("float64", [4]))
conv("conv2d_bias_long", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), T("int64", [4]))
conv("conv2d_weight_dtype", T("float32", [2, 3, 8, 8]), T("float64", [4, 3, 3, 3]))
conv("conv2d_weight_dtype_long", T("int64", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]))
conv("conv2d_stride_zero", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), stride=0)
conv("conv2d_padding_negative", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), padding=-1)
conv("conv2d_dilation_zero", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), dilation=0)
conv("conv2d_groups_zero", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), groups=0)
conv("conv2d_groups_channels", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), groups=2)
conv("conv2d_groups_weight", T("float32", [2, 6, 8, 8]), T("float32", [1, 3, 3, 3]), groups=2)
conv("conv2d_groups_divisible", T("float32", [2, 6, 8, 8]), T("float32", [3, 3, 3, 3]), groups=2)
conv("conv2d_stride_len", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), stride=(1, 2, 3))
conv("conv2d_padding_len", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3]), padding=(1, 2, 3))

# ---- conv1d --------------------------------------------------------------------------------------
conv("conv1d", T("float64", [2, 3, 9]), T("float64", [4, 3, 3]), T("float64", [4]), fn="conv1d")
conv("conv1d_float32", T("float32", [2, 3, 9]), T("float32", [4, 3, 3]), fn="conv1d")
conv("conv1d_all", T("float64", [2, 4, 11]), T("float64", [6, 2, 3]), stride=2, padding=1, dilation=2, groups=2,
     fn="conv1d")
conv("conv1d_unbatched", T("float32", [3, 9]), T("float32", [4, 3, 3]), fn="conv1d")
conv("conv1d_bad_input", T("float32", [9]), T("float32", [4, 3, 3]), fn="conv1d")
conv("conv1d_bad_bias", T("float32", [2, 3, 8]), T("float32", [4, 3, 3]), T("float32", [3]), fn="conv1d")
conv("conv1d_half", T("float16", [2, 3, 8]), T("float16", [4, 3, 3]), fn="conv1d")

# ---- transposed ----------------------------------------------------------------------------------
TR = "conv_transpose2d"
conv("conv_t2d", T("float64", [2, 3, 4, 5]), T("float64", [3, 2, 3, 3]), T("float64", [2]), fn=TR)
conv("conv_t2d_float32", T("float32", [2, 3, 4, 5]), T("float32", [3, 2, 3, 3]), T("float32", [2]), fn=TR)
conv("conv_t2d_int64", T("int64", [2, 3, 4, 5]), T("int64", [3, 2, 3, 3]), fn=TR)
conv("conv_t2d_stride", T("float64", [2, 3, 4, 5]), T("float64", [3, 2, 3, 2]), stride=2, output_padding=1, fn=TR)
conv("conv_t2d_padding", T("float64", [2, 3, 4, 5]), T("float64", [3, 2, 3, 3]), padding=(1, 0), fn=TR)
conv("conv_t2d_all", T("float64", [2, 4, 4, 3]), T("float64", [4, 3, 3, 2]), T("float64", [6]), stride=(2, 3),
     padding=(1, 1), output_padding=(1, 2), groups=2, dilation=(1, 2), fn=TR)
conv("conv_t2d_unbatched", T("float32", [3, 4, 5]), T("float32", [3, 2, 3, 3]), fn=TR)
conv("conv_t2d_input_t", T("float32", [2, 3, 4, 5], "t"), T("float32", [3, 2, 3, 3]), fn=TR)
conv("conv_t2d_bad_output_padding", T("float32", [2, 3, 8, 8]), T("float32", [3, 2, 3, 3]), output_padding=1, fn=TR)
conv("conv_t2d_bad_output_padding_2", T("float32", [2, 3, 8, 8]), T("float32", [3, 2, 3, 3]), stride=2,
     output_padding=2, fn=TR)
conv("conv_t2d_bad_channels", T("float32", [2, 3, 8, 8]), T("float32", [4, 2, 3, 3]), fn=TR)
conv("conv_t2d_bad_bias", T("float32", [2, 3, 8, 8]), T("float32", [3, 2, 3, 3]), T("float32", [3]), fn=TR)
conv("conv_t2d_too_small", T("float32", [2, 3, 8, 8]), T("float32", [3, 2, 3, 3]), padding=9, fn=TR)
conv("conv_t2d_half", T("float16", [2, 3, 8, 8]), T("float16", [3, 2, 3, 3]), fn=TR)
conv("conv_t2d_dtype", T("float32", [2, 3, 8, 8]), T("float64", [3, 2, 3, 3]), fn=TR)
conv("conv_t1d", T("float64", [2, 3, 6]), T("float64", [3, 2, 3]), T("float64", [2]), stride=2, padding=1,
     output_padding=1, fn="conv_transpose1d")
conv("conv_t1d_bad_output_padding", T("float32", [2, 3, 8]), T("float32", [3, 3, 3]), output_padding=1,
     fn="conv_transpose1d")
add("convolution", call("convolution", T("float64", [2, 3, 6, 5]), T("float64", [4, 3, 3, 2]), T("float64", [4]),
                        [2, 1], [1, 0], [1, 1], False, [0, 0], 1, tol=TOL))
add("convolution_transposed", call("convolution", T("float64", [2, 4, 3, 3]), T("float64", [4, 3, 2, 2]), None,
                                   [2], [0], [1], True, [1], 1, tol=TOL))
add("convolution_3d_weight", call("convolution", T("float32", [2, 3, 8, 8]), T("float32", [4, 3, 3, 3, 3]), None,
                                  [1], [0], [1], False, [0], 1))
add("convolution_unbatched", call("convolution", T("float32", [3, 8, 8]), T("float32", [4, 3, 3, 3]), None,
                                  [1, 1], [0, 0], [1, 1], False, [0, 0], 1))

# ---- pooling -------------------------------------------------------------------------------------
X = [2, 3, 7, 6]


def pool(name, fn, shape, *args, dt="float32", via=None, lay="contig", index_out=(), **kw):
    add(name, call(fn, T(dt, shape, lay), *args, kw=kw, tol=TOL, via=via, index_out=index_out))


for dt in ("float32", "float64", "bfloat16", "int64", "float16", "bool"):
    pool("max_pool2d_%s" % dt, "max_pool2d", X, 2, dt=dt)
    pool("avg_pool2d_%s" % dt, "avg_pool2d", X, 2, dt=dt, via=F.avg_pool2d)
    pool("adaptive_avg_pool2d_%s" % dt, "adaptive_avg_pool2d", X, 3, dt=dt, via=F.adaptive_avg_pool2d)
pool("avg_pool2d_int32", "avg_pool2d", X, 3, dt="int32", via=F.avg_pool2d, padding=1)
for lay in ("t", "sliced"):
    pool("max_pool2d_%s" % lay, "max_pool2d", X, 3, lay=lay, stride=2)
    pool("avg_pool2d_%s" % lay, "avg_pool2d", X, 3, lay=lay, via=F.avg_pool2d, stride=2)
    pool("adaptive_avg_pool2d_%s" % lay, "adaptive_avg_pool2d", X, (4, 5), lay=lay, via=F.adaptive_avg_pool2d)
pool("max_pool2d_stride", "max_pool2d", X, (3, 2), (2, 1))
pool("max_pool2d_padding", "max_pool2d", X, 3, 2, 1, dt="float64")
pool("max_pool2d_dilation", "max_pool2d", X, 2, 1, 0, (2, 3), dt="float64")
pool("max_pool2d_ceil", "max_pool2d", [1, 2, 5, 5], 2, ceil_mode=True, dt="float64")
pool("max_pool2d_ceil_pad", "max_pool2d", [1, 2, 5, 5], 2, padding=1, ceil_mode=True, dt="float64")
pool("max_pool2d_unbatched", "max_pool2d", [3, 7, 6], 2)
pool("max_pool2d_empty_batch", "max_pool2d", [0, 3, 4, 4], 2)
add("max_pool2d_nan", call("max_pool2d", V([[[[float("nan"), 1.0], [1.0, float("nan")]]]]), 2))
add("max_pool2d_inf", call("max_pool2d", V([[[[-float("inf"), -float("inf")], [-float("inf"), -float("inf")]]]]), 2))
add("max_pool2d_with_indices", call("max_pool2d_with_indices", T("float64", X), 3, 2, 1, via=F.max_pool2d_with_indices,
                                    index_out=[1]))
add("max_pool2d_with_indices_nan", call("max_pool2d_with_indices", V([[[[float("nan"), 1.0], [1.0, float("nan")]]]]),
                                        2, via=F.max_pool2d_with_indices, index_out=[1]))
add("max_pool2d_with_indices_ties", call("max_pool2d_with_indices", V([[[[1.0, 1.0], [1.0, 1.0]]]]), 2,
                                         via=F.max_pool2d_with_indices, index_out=[1]))
# 2 x 2 windows at stride 2 on float32 (16 windows at a time on AVX-512): rows of several steps with
# a part step, odd sizes, ties and NaNs among the taps, indices included
pool("max_pool2d_2x2_wide", "max_pool2d", [2, 3, 9, 70], 2)
pool("max_pool2d_2x2_odd_width", "max_pool2d", [1, 2, 5, 33], 2)
pool("max_pool2d_2x2_transposed", "max_pool2d", [2, 3, 40, 36], 2, lay="t")
TIES = [[[[float((3 * i + 7 * j) % 4) for j in range(37)] for i in range(6)]]]
TIES[0][0][0][5] = TIES[0][0][1][4] = TIES[0][0][1][20] = float("nan")
TIES[0][0][2][9] = TIES[0][0][3][9] = -float("inf")
add("max_pool2d_with_indices_2x2_ties_nan", call("max_pool2d_with_indices", V(TIES), 2, via=F.max_pool2d_with_indices,
                                                 index_out=[1]))
for name, args, kw in (("kernel_len", [(2, 2, 2)], {}), ("stride_len", [2, (1, 1, 1)], {}),
                       ("padding_len", [2], {"padding": (1, 1, 1)}), ("dilation_len", [2], {"dilation": (1, 1, 1)}),
                       ("kernel_zero", [0], {}), ("kernel_negative", [-1], {}), ("stride_zero", [3], {"stride": 0}),
                       ("padding_negative", [3], {"padding": -1}), ("padding_big", [3], {"padding": 2}),
                       ("dilation_zero", [2], {"dilation": 0})):
    pool("max_pool2d_%s" % name, "max_pool2d", X, *args, **kw)
pool("max_pool2d_too_small", "max_pool2d", [2, 3, 1, 1], 2)
pool("max_pool2d_1d", "max_pool2d", [8], 2)
pool("max_pool2d_5d", "max_pool2d", [2, 3, 4, 4, 4], 2)
pool("max_pool2d_zero_channels", "max_pool2d", [2, 0, 4, 4], 2)
pool("max_pool2d_zero_height", "max_pool2d", [2, 2, 0, 4], 2)

pool("avg_pool2d_padding", "avg_pool2d", X, 3, 2, 1, dt="float64", via=F.avg_pool2d)
pool("avg_pool2d_exclude_pad", "avg_pool2d", X, 3, 2, 1, count_include_pad=False, dt="float64", via=F.avg_pool2d)
pool("avg_pool2d_ceil", "avg_pool2d", [1, 2, 5, 5], 2, ceil_mode=True, dt="float64", via=F.avg_pool2d)
pool("avg_pool2d_ceil_pad", "avg_pool2d", [1, 2, 5, 5], 3, 2, 1, ceil_mode=True, dt="float64", via=F.avg_pool2d)
pool("avg_pool2d_ceil_exclude", "avg_pool2d", [1, 2, 5, 5], 3, 2, 1, ceil_mode=True, count_include_pad=False,
     dt="float64", via=F.avg_pool2d)
pool("avg_pool2d_divisor", "avg_pool2d", X, 2, divisor_override=3, dt="float64", via=F.avg_pool2d)
pool("avg_pool2d_divisor_zero", "avg_pool2d", X, 2, divisor_override=0, via=F.avg_pool2d)
pool("avg_pool2d_unbatched", "avg_pool2d", [3, 7, 6], 2, via=F.avg_pool2d)
pool("avg_pool2d_kernel_len", "avg_pool2d", X, (2, 2, 2), via=F.avg_pool2d)
pool("avg_pool2d_padding_len", "avg_pool2d", X, 2, padding=(1, 1, 1), via=F.avg_pool2d)
pool("avg_pool2d_padding_big", "avg_pool2d", X, 3, padding=2, via=F.avg_pool2d)
pool("avg_pool2d_stride_zero", "avg_pool2d", X, 2, stride=0, via=F.avg_pool2d)
pool("avg_pool2d_1d", "avg_pool2d", [8], 2, via=F.avg_pool2d)
pool("avg_pool2d_2d", "avg_pool2d", [3, 4], 2, via=F.avg_pool2d)
pool("avg_pool2d_5d", "avg_pool2d", [2, 3, 4, 4, 4], 2, via=F.avg_pool2d)
pool("avg_pool2d_too_small", "avg_pool2d", [2, 3, 1, 1], 2, via=F.avg_pool2d)

AD = F.adaptive_avg_pool2d
for name, size in (("same", (7, 6)), ("one", 1), ("uneven", (4, 5)), ("bigger", (9, 8)), ("zero", (0, 2))):
    pool("adaptive_avg_pool2d_%s" % name, "adaptive_avg_pool2d", X, size, dt="float64", via=AD)
pool("adaptive_avg_pool2d_unbatched", "adaptive_avg_pool2d", [3, 7, 6], (2, 3), via=AD)
pool("adaptive_avg_pool2d_len", "adaptive_avg_pool2d", X, (2, 2, 2), via=AD)
pool("adaptive_avg_pool2d_negative", "adaptive_avg_pool2d", X, -1, via=AD)
pool("adaptive_avg_pool2d_1d", "adaptive_avg_pool2d", [8], 2, via=AD)
pool("adaptive_avg_pool2d_5d", "adaptive_avg_pool2d", [2, 3, 4, 4, 4], 2, via=AD)
pool("adaptive_avg_pool2d_empty_plane", "adaptive_avg_pool2d", [2, 3, 0, 4], 2, via=AD)
pool("adaptive_avg_pool2d_empty_batch", "adaptive_avg_pool2d", [0, 3, 4, 4], 2, via=AD)
# to 1x1, PyTorch takes the mean over the last two dims: whatever dims and dtypes mean takes
for dt in ("float32", "float16", "bfloat16", "int64"):
    pool("adaptive_avg_pool2d_one_%s" % dt, "adaptive_avg_pool2d", [2, 5, 9, 11], 1, dt=dt, via=AD)
pool("adaptive_avg_pool2d_one_t", "adaptive_avg_pool2d", X, (1, 1), lay="t", via=AD)
pool("adaptive_avg_pool2d_one_2d", "adaptive_avg_pool2d", [3, 4], 1, via=AD)
pool("adaptive_avg_pool2d_one_5d", "adaptive_avg_pool2d", [2, 3, 4, 4, 4], 1, via=AD)
add("adaptive_avg_pool2d_one_1d", call("adaptive_avg_pool2d", T("float32", [8]), 1, via=AD, expect=["range"]))
pool("adaptive_avg_pool2d_one_empty_plane", "adaptive_avg_pool2d", [2, 3, 0, 4], 1, via=AD)
pool("adaptive_avg_pool2d_one_empty_batch", "adaptive_avg_pool2d", [0, 3, 4, 4], 1, via=AD)

Y = [2, 3, 9]
pool("max_pool1d", "max_pool1d", Y, 3, 2, 1, dt="float64")
pool("max_pool1d_dilation_ceil", "max_pool1d", Y, 2, 2, 0, 2, True, dt="float64")
pool("max_pool1d_unbatched", "max_pool1d", [3, 9], 2)
pool("max_pool1d_1d", "max_pool1d", [8], 2)
pool("max_pool1d_5d", "max_pool1d", [2, 3, 8, 8, 8], 2)
pool("max_pool1d_kernel_zero", "max_pool1d", Y, 0)
pool("max_pool1d_stride_zero", "max_pool1d", Y, 2, 0)
pool("max_pool1d_padding_negative", "max_pool1d", Y, 2, padding=-1)
pool("max_pool1d_padding_big", "max_pool1d", Y, 2, padding=2)
pool("max_pool1d_dilation_zero", "max_pool1d", Y, 2, dilation=0)
pool("max_pool1d_kernel_len", "max_pool1d", Y, (2, 2))
pool("max_pool1d_long", "max_pool1d", Y, 2, dt="int64")
pool("avg_pool1d", "avg_pool1d", Y, 3, 2, 1, dt="float64")
pool("avg_pool1d_exclude", "avg_pool1d", Y, 3, 2, 1, False, False, dt="float64")
pool("avg_pool1d_ceil", "avg_pool1d", Y, 2, ceil_mode=True, dt="float64")
pool("avg_pool1d_long", "avg_pool1d", Y, 2, dt="int64")
pool("avg_pool1d_unbatched", "avg_pool1d", [3, 9], 2)
pool("avg_pool1d_1d", "avg_pool1d", [8], 2)
pool("avg_pool1d_kernel_len", "avg_pool1d", Y, (2, 2))
pool("avg_pool1d_kernel_zero", "avg_pool1d", Y, 0)
pool("avg_pool1d_padding_negative", "avg_pool1d", Y, 2, padding=-1)
pool("adaptive_avg_pool1d", "adaptive_avg_pool1d", Y, 4, dt="float64")
pool("adaptive_avg_pool1d_unbatched", "adaptive_avg_pool1d", [3, 9], 2)
pool("adaptive_avg_pool1d_1d", "adaptive_avg_pool1d", [8], 2)
pool("adaptive_avg_pool1d_len", "adaptive_avg_pool1d", Y, (2, 2))
pool("adaptive_avg_pool1d_negative", "adaptive_avg_pool1d", Y, -1)

# ---- the negative log-likelihood loss (targets 1-based in Lua: index=(1,); a class given as
# ignore_index is 1-based too: dims=(4,) shifts it) ---------------------------------------------
ND = torch._C._nn.nll_loss_nd
NLL_TOL = dict(TOL, bfloat16=0.0)


def I(values):
    return V(values, "int64")


def nll(name, x, t, w=None, reduction=1, ignore=-100, fn="nll_loss_nd", via=ND):
    add(name, call(fn, x, t, w, reduction, ignore, index=(1,), dims=(4,), via=via, tol=NLL_TOL))


T2 = [2, 0, 3, 3, 1]
for dt in ("float32", "float64", "bfloat16"):
    for red in (0, 1, 2):
        nll("nll_loss_%s_r%d" % (dt, red), T(dt, [5, 4]), I(T2), reduction=red)
    nll("nll_loss_%s_weight" % dt, T(dt, [5, 4]), I(T2), T(dt, [4], domain="pos"))
nll("nll_loss_weight_sum", T("float64", [5, 4]), I(T2), T("float64", [4], domain="pos"), 2)
nll("nll_loss_weight_none", T("float64", [5, 4]), I(T2), T("float64", [4], domain="pos"), 0)
nll("nll_loss_ignore_default", T("float32", [5, 4]), I([2, -100, 3, -100, 1]))
nll("nll_loss_ignore_class", T("float32", [5, 4]), I(T2), ignore=3)
nll("nll_loss_ignore_class_weight", T("float64", [5, 4]), I(T2), T("float64", [4], domain="pos"), ignore=3)
nll("nll_loss_ignore_all", T("float32", [3, 4]), I([1, 1, 1]), ignore=1)
nll("nll_loss_ignore_all_sum", T("float32", [3, 4]), I([1, 1, 1]), reduction=2, ignore=1)
nll("nll_loss_transposed", T("float32", [5, 4], "t"), I(T2))
nll("nll_loss_sliced", T("float64", [5, 4], "sliced"), I(T2), reduction=0)
nll("nll_loss_1d", T("float32", [4]), I(2))
nll("nll_loss_1d_none", T("float32", [4]), I(2), reduction=0)
nll("nll_loss_1d_target_1d", T("float32", [1]), I([0]))
nll("nll_loss_empty_mean", T("float32", [0, 4]), I([]))
nll("nll_loss_empty_sum", T("float32", [0, 4]), I([]), reduction=2)
nll("nll_loss_long_batch", T("float32", [300, 3]), I([i % 3 for i in range(300)]))
nll("nll_loss_long_batch_weight", T("float32", [300, 3]), I([(i * 7) % 3 for i in range(300)]),
    T("float32", [3], domain="pos"), 2)
# the cascade of partial sums, in bfloat16 where each order rounds differently (compared exactly)
nll("nll_loss_long_batch_bf16", T("bfloat16", [300, 3]), I([(i * 5) % 3 for i in range(300)]), reduction=2)
nll("nll_loss_4d_long_bf16", T("bfloat16", [3, 2, 10, 10]), I([[[(i + j + b) % 2 for j in range(10)] for i in range(10)]
                                                               for b in range(3)]), T("bfloat16", [2], domain="pos"))
T3 = [[0, 2, 1], [3, 3, 0]]
nll("nll_loss_3d", T("float32", [2, 4, 3]), I(T3))
nll("nll_loss_3d_none", T("float64", [2, 4, 3]), I(T3), reduction=0)
nll("nll_loss_3d_weight_ignore", T("float64", [2, 4, 3]), I([[0, 2, -100], [3, 3, 0]]),
    T("float64", [4], domain="pos"))
T4 = [[[0, 1], [2, 2], [1, 0]], [[2, 0], [0, 1], [1, 1]]]
nll("nll_loss_4d", T("float32", [2, 3, 3, 2]), I(T4))
nll("nll_loss_4d_none", T("float32", [2, 3, 3, 2]), I(T4), reduction=0)
nll("nll_loss_4d_sum_weight", T("float64", [2, 3, 3, 2]), I(T4), T("float64", [3], domain="pos"), 2)
nll("nll_loss_4d_transposed", T("float32", [2, 3, 3, 2], "t"), I(T4))
nll("nll_loss_5d_none", T("float32", [2, 3, 2, 1, 2]), I([[[[0, 1]], [[2, 2]]], [[[1, 0]], [[0, 2]]]]), reduction=0)
nll("nll_loss_3d_empty_none", T("float32", [0, 3, 2]), V([], "int64"), reduction=0)
nll("nll_loss_forward", T("float32", [5, 4]), I(T2), fn="nll_loss_forward", via=torch.ops.aten.nll_loss_forward)
nll("nll_loss_forward_none", T("float32", [5, 4]), I(T2), reduction=0, fn="nll_loss_forward",
    via=torch.ops.aten.nll_loss_forward)
nll("nll_loss2d_forward", T("float64", [2, 3, 3, 2]), I(T4), T("float64", [3], domain="pos"),
    fn="nll_loss2d_forward", via=torch.ops.aten.nll_loss2d_forward)
# the backwards, called directly (what autograd calls)
for name, go, red, w in (("mean", V(1.5), 1, None), ("sum_weight", V(-0.5), 2, T("float32", [4], domain="pos")),
                         ("none", T("float32", [5]), 0, None)):
    add("nll_loss_backward_%s" % name, call("nll_loss_backward", go, T("float32", [5, 4]), I([2, -100, 3, 3, 1]),
                                            w, red, -100, V(2.5), index=(2,), via=torch.ops.aten.nll_loss_backward))
add("nll_loss2d_backward", call("nll_loss2d_backward", V(2.0, "float64"), T("float64", [2, 3, 3, 2]), I(T4), None,
                                1, -100, V(12.0, "float64"), index=(2,), via=torch.ops.aten.nll_loss2d_backward))
# misuse (the meta functions' checks: every device)
nll("nll_loss_half", T("float16", [5, 4]), I(T2))
nll("nll_loss_int_input", T("int32", [5, 4]), I(T2))
nll("nll_loss_int_target", T("float32", [5, 4]), V(T2, "int32"))
nll("nll_loss_int8_target", T("float32", [5, 4]), V(T2, "int8"))
nll("nll_loss_float_target", T("float32", [5, 4]), V(T2, "float32"))
# uint8 targets: nll_loss_forward (1-D and 2-D inputs) takes them, nll_loss2d refuses them
for red in (0, 1, 2):
    nll("nll_loss_uint8_target_r%d" % red, T("float32", [5, 4]), V(T2, "uint8"), reduction=red)
nll("nll_loss_uint8_target_weight_ignore", T("float64", [5, 4]), V(T2, "uint8"), T("float64", [4], domain="pos"),
    ignore=3)
nll("nll_loss_uint8_target_1d", T("float32", [4]), V(2, "uint8"))
nll("nll_loss_uint8_target_large", T("float32", [3, 300]), V([254, 0, 200], "uint8"), reduction=0)
nll("nll_loss_uint8_target_3d", T("float32", [2, 4, 3]), V(T3, "uint8"))
nll("nll_loss_uint8_target_4d", T("float32", [2, 3, 3, 2]), V(T4, "uint8"))
add("nll_loss_backward_uint8", call("nll_loss_backward", V(1.5), T("float32", [5, 4]), V(T2, "uint8"), None, 1,
                                    -100, V(2.5), index=(2,), via=torch.ops.aten.nll_loss_backward))
nll("nll_loss_weight_size", T("float32", [5, 4]), I(T2), T("float32", [5]))
nll("nll_loss_weight_dtype", T("float32", [5, 4]), I(T2), T("float64", [4]))
nll("nll_loss_batch_mismatch", T("float32", [5, 4]), I([1, 2]))
nll("nll_loss_0d_input", T("float32", []), I(1))
nll("nll_loss_2d_target", T("float32", [1, 4]), I([[1, 2]]))
nll("nll_loss_1d_size_mismatch", T("float32", [4]), I([1]))
nll("nll_loss_3d_target_size", T("float32", [2, 4, 3]), I([[0, 1], [2, 3]]))
nll("nll_loss_4d_target_size", T("float32", [2, 3, 3, 2]), I([[[0, 1]], [[2, 2]]]))
nll("nll_loss_forward_3d", T("float32", [2, 4, 3]), I([1, 2]), fn="nll_loss_forward", via=torch.ops.aten.nll_loss_forward)
nll("nll_loss2d_forward_target_dim", T("float32", [2, 3, 3, 2]), I([1, 2]), fn="nll_loss2d_forward",
    via=torch.ops.aten.nll_loss2d_forward)
nll("nll_loss2d_forward_weight", T("float32", [2, 3, 3, 2]), I(T4), T("float32", [2]), fn="nll_loss2d_forward",
    via=torch.ops.aten.nll_loss2d_forward)

# ---- threshold_backward (relu's gradient in one pass), as _threshold_grad(self, grad_output) -----
def TB(self, grad, threshold):
    return torch.ops.aten.threshold_backward(grad, self, threshold)


def tb(name, s, g, threshold):
    add("threshold_backward_" + name, call("_threshold_grad", s, g, threshold, via=TB))


for dt in ("float32", "float64", "bfloat16", "int32", "uint8", "int64"):
    tb(dt, T(dt, [3, 4]), T(dt, [3, 4]), 0)
tb("nan", V([-1.0, float("nan"), 0.5, 2.0]), T("float32", [4]), 0.5)
tb("broadcast", T("float32", [4]), T("float32", [3, 4]), -0.25)
tb("promote", V([-1.0, 0.25, 2.0]), T("int64", [3]), 0.5)
tb("int_threshold_fraction", V([0, 1, 2], "int32"), T("int32", [3]), 0.5)
tb("transposed_grad", T("float32", [4, 3]), T("float32", [4, 3], "t"), 0)
tb("transposed_self", T("float32", [4, 3], "t"), T("float32", [4, 3]), 0)
tb("half", T("float16", [3]), T("float16", [3]), 0)
tb("bool", T("bool", [3]), T("bool", [3]), 0)
