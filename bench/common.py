"""common.py: helpers for the PyTorch twins of the mindtorch benchmarks (same output lines)."""
import os
import subprocess
import time

import torch

THREADS = int(os.environ.get("MT_BENCH_THREADS", "1"))
torch.set_num_threads(THREADS)


def time_per_call(fn, n, reps=5):
    best = float("inf")
    fn()
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t = (time.perf_counter() - t0) / n
        best = min(best, t)
    return best


def result(name, value, unit):
    print("RESULT %s %.6g %s" % (name, value, unit), flush=True)


def median(values):
    values = sorted(values)
    return values[(len(values) - 1) // 2]


def capture(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout
