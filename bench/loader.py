# loader: the twin of loader.lua (PyTorch's DataLoader, fork workers).
import time

import torch
from torch.utils.data import DataLoader, Dataset

from common import result, time_per_call


class Work(Dataset):
    def __init__(self, cost):
        self.x = torch.randn(1024, 784)
        self.cost = cost

    def __len__(self):
        return 1024

    def __getitem__(self, i):
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < self.cost:
            pass
        return self.x[i] * 2, i


def epoch(loader):
    n = 0
    for x, _ in loader:
        n += x.shape[0]
    assert n == 1024


for ms in (0.2, 1):
    ds = Work(ms * 1e-3)
    for nw in (0, 2):
        loader = DataLoader(ds, batch_size=32, shuffle=True, num_workers=nw)
        t = time_per_call(lambda: epoch(loader), 1, 3)
        result("loader_epoch_1024x%gms_w%d" % (ms, nw), t * 1e3, "ms")
