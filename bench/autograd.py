"""autograd: the cost of recording a graph and running backward through it."""
import time

import torch

from common import result, time_per_call

torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)


def small():
    y = ((x * 2).exp() + x).sum()
    y.backward()


result("autograd_small_graph_fwd_bwd", time_per_call(small, 50000) * 1e6, "us")

inp = torch.randn(64, 784)
target = torch.randint(0, 10, (64,))
w1 = (torch.randn(784, 256) * 0.05).requires_grad_()
b1 = torch.zeros(256, requires_grad=True)
w2 = (torch.randn(256, 10) * 0.05).requires_grad_()
b2 = torch.zeros(10, requires_grad=True)
onehot = torch.zeros(64, 10).scatter_(1, target.view(64, 1), 1.0)


def loss_of():
    h = (inp @ w1 + b1).relu()
    logits = h @ w2 + b2
    return -(logits.log_softmax(1) * onehot).sum() / 64


total, n = 0.0, 0
for rnd in range(300):
    loss = loss_of()
    t0 = time.process_time()
    loss.backward()
    dt = time.process_time() - t0
    if rnd >= 20:
        total, n = total + dt, n + 1
result("autograd_mlp_backward_64x784", total / n * 1e6, "us")
result("autograd_mlp_fwd_bwd_64x784", time_per_call(lambda: loss_of().backward(), 300) * 1e6, "us")

# the gradient of one input only: the pass computes no other gradient
cx = torch.randn(32, 64, 56, 56, requires_grad=True)
cw = (torch.randn(64, 64, 3, 3) * 0.05).requires_grad_()
cy = torch.nn.functional.conv2d(cx, cw, None, 1, 1)
cg = torch.randn(32, 64, 56, 56)
result("autograd_grad_input_only_conv_32x64x56x56",
       time_per_call(lambda: torch.autograd.grad(cy, cx, cg, True), 3) * 1e3, "ms")
