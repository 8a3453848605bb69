#!/usr/bin/python3
"""Trains examples/fashion_mnist.lua's CNN in PyTorch (one epoch of Fashion-MNIST) and saves it as a
PyTorch checkpoint: examples/data/fashion_mnist_cnn_pytorch.pth, which examples/from_pytorch.lua
loads into the same mindtorch model. The checkpoint also holds the test accuracy PyTorch measured
and its logits for the first test images, so the Lua side can check it computes the same.

    /usr/bin/python3 examples/from_pytorch_train.py [--epochs 1] [--out PATH]

Needs python3-torch (PyTorch 1.13 on Debian 12) and dataset-fashion-mnist."""
import argparse
import collections
import gzip
import os

import numpy as np
import torch
from torch import nn

DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530


def idx(name):
    with gzip.open(os.path.join(DATA, name)) as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return torch.from_numpy(np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape).copy())


class Standardize(nn.Module):
    def forward(self, x):
        return (x - MEAN) / STD


def cnn():
    # the layers of fashion_mnist.lua's cnn(), index for index, so the state_dict keys match
    return nn.Sequential(Standardize(), nn.Conv2d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 5 * 5, 120),
                         nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                                                 "fashion_mnist_cnn_pytorch.pth"))
    a = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(2)
    x_train = idx("train-images-idx3-ubyte.gz").float().div(255).unsqueeze(1)
    y_train = idx("train-labels-idx1-ubyte.gz").long()
    x_test = idx("t10k-images-idx3-ubyte.gz").float().div(255).unsqueeze(1)
    y_test = idx("t10k-labels-idx1-ubyte.gz").long()
    model = cnn()
    opt = torch.optim.Adam(model.parameters(), lr=0.001)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(a.epochs):
        perm = torch.randperm(len(x_train))
        for i in range(0, len(x_train), 64):
            b = perm[i:i + 64]
            opt.zero_grad()
            loss_fn(model(x_train[b]), y_train[b]).backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(x_test[i:i + 1000]) for i in range(0, len(x_test), 1000)])
    accuracy = (logits.argmax(1) == y_test).float().mean().item()
    torch.save(collections.OrderedDict(model=model.state_dict(), test_accuracy=accuracy,
                                       test_logits=logits[:4].clone(), torch_version=str(torch.__version__)), a.out)
    print("test accuracy %.4f; wrote %s" % (accuracy, a.out))


if __name__ == "__main__":
    main()
