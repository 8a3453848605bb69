"""startup: the cost of `import torch` (wall time, resident memory)."""
import statistics
import subprocess
import sys
import time

from common import result

PY = sys.executable


def wall(code, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run([PY, "-c", code], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


RSS = ("def rss():\n"
       " for l in open('/proc/self/status'):\n"
       "  if l.startswith('VmRSS:'): return int(l.split()[1])\n")
base = wall("", 5)
with_torch = wall("import torch", 5)
result("startup_time", (with_torch - base) * 1000, "ms")
out = subprocess.run([PY, "-c", RSS + "r0 = rss()\nimport torch\nprint(rss() - r0, rss())"],
                     capture_output=True, text=True, check=True).stdout.split()
result("startup_rss_added", int(out[0]) / 1024, "MiB")
result("startup_rss_total", int(out[1]) / 1024, "MiB")
