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
