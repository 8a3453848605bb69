"""conv: the convolutions of LeNet and of a ResNet-style block, forward and backward (PyTorch)."""
import torch

from common import result, time_per_call

torch.manual_seed(0)
cases = [
    ("conv2d_64x1x28x28_k5p2", (64, 1, 28, 28), (6, 1, 5, 5), 2, 50),
    ("conv2d_64x6x14x14_k5", (64, 6, 14, 14), (16, 6, 5, 5), 0, 50),
    ("conv2d_8x64x56x56_k3p1", (8, 64, 56, 56), (64, 64, 3, 3), 1, 5),
    ("conv2d_8x64x56x56_k1", (8, 64, 56, 56), (64, 64, 1, 1), 0, 10),
]
bw = torch.ops.aten.convolution_backward
for name, xs, ws, pad, n in cases:
    x, w = torch.randn(xs), torch.randn(ws)
    y = torch.conv2d(x, w, None, 1, pad)
    g = torch.randn(y.shape)
    result(name, time_per_call(lambda: torch.conv2d(x, w, None, 1, pad), n) * 1e6, "us")
    result(name + "_bw_input", time_per_call(
        lambda: bw(g, x, w, None, [1, 1], [pad, pad], [1, 1], False, [0, 0], 1, [True, False, False]), n) * 1e6, "us")
    result(name + "_bw_weight", time_per_call(
        lambda: bw(g, x, w, None, [1, 1], [pad, pad], [1, 1], False, [0, 0], 1, [False, True, False]), n) * 1e6, "us")

xt, wt = torch.randn(16, 64, 28, 28), torch.randn(64, 32, 4, 4)
result("conv_transpose2d_16x64x28x28_k4s2p1",
       time_per_call(lambda: torch.conv_transpose2d(xt, wt, None, 2, 1), 5) * 1e6, "us")
xtg, wtg = xt.clone().requires_grad_(), wt.clone().requires_grad_()
yt = torch.conv_transpose2d(xtg, wtg, None, 2, 1)
gt = torch.randn(yt.shape)
result("conv_transpose2d_16x64x28x28_k4s2p1_bw",
       time_per_call(lambda: torch.autograd.grad([yt], [xtg, wtg], [gt], retain_graph=True), 5) * 1e6, "us")
