#!/usr/bin/python3
"""The demo (examples/fashion_mnist.lua) in PyTorch, for its accuracy and epoch times next to
mindtorch's: the same models, normalisation, batch size, optimiser and learning rate.

    /usr/bin/python3 bench/demo_twin.py [--model mlp|cnn] [--epochs N] [--seed 0]
"""
import argparse
import gzip
import time

import numpy as np
import torch
from torch import nn

DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530


def idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return torch.from_numpy(np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims).copy())


def models():
    return {
        "mlp": lambda: nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)),
        "cnn": lambda: nn.Sequential(nn.Conv2d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                                     nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                                     nn.Linear(32 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                                     nn.Linear(84, 10)),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="mlp")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    o = ap.parse_args()
    torch.manual_seed(o.seed)
    xs = ((idx(DATA + "/train-images-idx3-ubyte.gz").float() / 255 - MEAN) / STD).unsqueeze(1)
    ys = idx(DATA + "/train-labels-idx1-ubyte.gz").long()
    xt = ((idx(DATA + "/t10k-images-idx3-ubyte.gz").float() / 255 - MEAN) / STD).unsqueeze(1)
    yt = idx(DATA + "/t10k-labels-idx1-ubyte.gz").long()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xs, ys), batch_size=64, shuffle=True)
    model = models()[o.model]()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(1, o.epochs + 1):
        t0 = time.perf_counter()
        model.train()
        for x, y in loader:
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            acc = sum((model(xt[i:i + 1000]).argmax(1) == yt[i:i + 1000]).sum().item()
                      for i in range(0, 10000, 1000)) / 10000
        print("epoch %d: test accuracy %.4f (%.1fs)" % (epoch, acc, time.perf_counter() - t0))


if __name__ == "__main__":
    main()
