"""models: PyTorch's twin of bench/models.lua: a training step of LeNet, a ResNet basic block, a
2-layer LSTM and a Transformer encoder layer, and each training process's peak resident memory
(each model in a process of its own)."""
import subprocess
import sys

import torch
from torch import nn

from common import result, time_per_call


def peak_rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        h = self.bn1(self.conv1(x)).relu()
        return (self.bn2(self.conv2(h)) + x).relu()


def lenet():
    model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                          nn.Linear(84, 10))
    x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
    opt, loss_fn = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9), nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    return step, 20


def resnet_block():
    model, x = Block(64), torch.randn(32, 64, 56, 56)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        model(x).mean().backward()
        opt.step()
    return step, 2


def lstm():
    model, x = nn.LSTM(256, 256, num_layers=2), torch.randn(64, 16, 256)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        out, _ = model(x)
        out.pow(2).mean().backward()
        opt.step()
    return step, 3


def transformer():
    model = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, dropout=0.1, batch_first=True)
    x = torch.randn(16, 128, 256)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    return step, 5


MODELS = {"lenet": lenet, "resnet_block": resnet_block, "lstm": lstm, "transformer": transformer}

if len(sys.argv) > 1:
    torch.manual_seed(0)
    step, n = MODELS[sys.argv[1]]()
    result("model_%s_step" % sys.argv[1], time_per_call(step, n, 3) * 1e3, "ms")
    result("model_%s_peak_rss" % sys.argv[1], peak_rss_mib(), "MiB")
else:
    for name in ("lenet", "resnet_block", "lstm", "transformer"):
        sys.stdout.write(subprocess.run([sys.executable, "models.py", name], capture_output=True, text=True,
                                        check=True).stdout)
        sys.stdout.flush()
