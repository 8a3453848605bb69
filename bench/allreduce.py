# allreduce: the twin of allreduce.lua: PyTorch's gloo all_reduce (float32 SUM, in place) of
# 1, 10 and 100 MB on 2 processes over loopback, as bus bandwidth in GB/s (best call of 20,
# the slowest rank's time, each size warmed up).
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from common import result

SIZES = (10**6, 10**7, 10**8)
RANKS = 2


def run(rank, port, queue):
    torch.set_num_threads(int(os.environ.get("MT_BENCH_THREADS", "1")))
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=RANKS)
    out = {}
    for s in SIZES:
        x = torch.ones(s // 4)
        dist.all_reduce(x)
        best = float("inf")
        for _ in range(20):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(x)
            t = torch.tensor([time.perf_counter() - t0], dtype=torch.float64)
            dist.all_reduce(t, dist.ReduceOp.MAX)
            best = min(best, t.item())
        out[s] = best
    if rank == 0:
        queue.put(out)
    dist.destroy_process_group()


if __name__ == "__main__":
    port = 29500 + os.getpid() % 1000
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=run, args=(r, port, queue)) for r in range(RANKS)]
    for p in procs:
        p.start()
    times = queue.get()
    for p in procs:
        p.join()
    factor = 2 * (RANKS - 1) / RANKS
    for s in SIZES:
        result("allreduce_%dMB_busbw" % (s // 10**6), s * factor / times[s] / 1e9, "GB/s")
