"""cuda.py: PyTorch's twin of bench/cuda.lua on the same GPU (no figures without one)."""
import os
import sys
import time

import torch
from torch import nn, optim

from common import result

if not torch.cuda.is_available():
    sys.stderr.write("bench/cuda.py: no figures: CUDA is not available\n")
    sys.exit(0)
small = os.environ.get("MT_BENCH_CUDA_SMALL") == "1"
N, M = (64, 100000) if small else (4096, 100 * 1000 * 1000)


def per_call(fn, n):
    fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


torch.manual_seed(0)
for dt, name in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
    a = torch.randn(N, N, device="cuda", dtype=dt)
    b = torch.randn(N, N, device="cuda", dtype=dt)
    t = per_call(lambda: torch.mm(a, b), 2 if small else 10)
    result("cuda_matmul_4096_" + name, 2 * N ** 3 / t / 1e12, "TFLOP/s")

x, y, w = torch.rand(M, device="cuda"), torch.rand(M, device="cuda"), torch.empty(M, device="cuda")
result("cuda_copy_100M", 8 * M / per_call(lambda: w.copy_(x), 10) / 1e9, "GB/s")
result("cuda_ew_add_100M", 12 * M / per_call(lambda: torch.add(x, y, out=w), 10) / 1e9, "GB/s")
del x, y, w

lenet = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                      nn.Linear(84, 10)).cuda()
bs = 4 if small else 64
img, lab = torch.randn(bs, 1, 28, 28, device="cuda"), torch.randint(0, 10, (bs,), device="cuda")
sgd, loss_fn = optim.SGD(lenet.parameters(), lr=0.01, momentum=0.9), nn.CrossEntropyLoss()


def lenet_step():
    sgd.zero_grad()
    loss_fn(lenet(img), lab).backward()
    sgd.step()


result("cuda_lenet_step", per_call(lenet_step, 2 if small else 50) * 1e3, "ms")

d = 16 if small else 256
layer = nn.TransformerEncoderLayer(d, 4, dim_feedforward=4 * d, dropout=0.1, batch_first=True).cuda()
seq = torch.randn(2 if small else 16, 8 if small else 128, d, device="cuda")
adam = optim.Adam(layer.parameters(), lr=1e-3)


def transformer_step():
    adam.zero_grad()
    layer(seq).pow(2).mean().backward()
    adam.step()


result("cuda_transformer_step", per_call(transformer_step, 2 if small else 20) * 1e3, "ms")
