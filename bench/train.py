"""train: one MLP training step at batch 64, and one epoch of the demo's model (PyTorch)."""
import gzip
import os
import time

import numpy as np
import torch
from torch import nn

from common import result, time_per_call

torch.manual_seed(0)
x, y = torch.randn(64, 784), torch.randint(0, 10, (64,))
net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)


def step():
    opt.zero_grad()
    loss_fn(net(x), y).backward()
    opt.step()


result("train_mlp_step_64x784", time_per_call(step, 200) * 1e6, "us")

img, lab = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
lenet = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                      nn.Linear(84, 10))
sgd = torch.optim.SGD(lenet.parameters(), lr=0.01, momentum=0.9)


def lenet_step():
    sgd.zero_grad()
    loss_fn(lenet(img), lab).backward()
    sgd.step()


result("train_lenet_step_64", time_per_call(lenet_step, 40) * 1e6, "us")
c1, c2 = torch.randn(6, 1, 5, 5), torch.randn(16, 6, 5, 5)
a2, p1 = torch.randn(64, 6, 14, 14), torch.randn(64, 6, 28, 28)
result("conv2d_64x1x28x28_k5", time_per_call(lambda: torch.conv2d(img, c1, None, 1, 2), 50) * 1e6, "us")
result("conv2d_64x6x14x14_k5", time_per_call(lambda: torch.conv2d(a2, c2), 50) * 1e6, "us")
result("max_pool2d_64x6x28x28", time_per_call(lambda: torch.max_pool2d(p1, 2), 50) * 1e6, "us")
act, last = torch.randn(32, 64, 56, 56), torch.randn(32, 512, 7, 7)
result("avg_pool2d_32x64x56x56", time_per_call(lambda: torch.nn.functional.avg_pool2d(act, 2), 5) * 1e3, "ms")
result("adaptive_avg_pool2d_32x512x7x7", time_per_call(lambda: torch.nn.functional.adaptive_avg_pool2d(last, 1), 50) * 1e6, "us")

root = "/usr/share/datasets/fashion-mnist"
if os.path.exists(root + "/train-images-idx3-ubyte.gz"):
    with gzip.open(root + "/train-images-idx3-ubyte.gz") as f:
        images = torch.from_numpy(np.frombuffer(f.read(), np.uint8, offset=16).copy()).view(-1, 1, 28, 28)
    with gzip.open(root + "/train-labels-idx1-ubyte.gz") as f:
        labels = torch.from_numpy(np.frombuffer(f.read(), np.uint8, offset=8).copy()).long()
    ds = torch.utils.data.TensorDataset(images, labels)
    loader = torch.utils.data.DataLoader(ds, batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    adam = torch.optim.Adam(model.parameters(), lr=1e-3)
    t0 = time.perf_counter()
    for xb, yb in loader:
        adam.zero_grad()
        loss_fn(model((xb.float() / 255 - 0.2860) / 0.3530), yb).backward()
        adam.step()
    result("train_demo_epoch_mlp", time.perf_counter() - t0, "s")
