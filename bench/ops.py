"""ops: throughput of the hot paths of issue 3 (element-wise, reductions, matmul) and the
overhead of a call on a tiny tensor. Twin of bench/ops.lua."""
import torch

from common import result, time_per_call

N = 10 * 1000 * 1000
torch.manual_seed(0)
a, b = torch.rand(N), torch.rand(N)


def gbps(nbytes, secs):
    return nbytes / secs / 1e9


result("ew_add_10M", gbps(12 * N, time_per_call(lambda: a + b, 5)), "GB/s")
result("ew_add_10M_inplace", gbps(12 * N, time_per_call(lambda: a.add_(b), 5)), "GB/s")
result("ew_mul_scalar_10M_inplace", gbps(8 * N, time_per_call(lambda: a.mul_(1.0000001), 5)), "GB/s")
result("ew_exp_10M", gbps(8 * N, time_per_call(lambda: b.exp(), 5)), "GB/s")
m, row = a.view(1000, 10000), torch.rand(10000)
result("ew_add_broadcast_10M", gbps(12 * N, time_per_call(lambda: m + row, 5)), "GB/s")
at, bt = a.view(10000, 1000).t(), b.view(1000, 10000)
result("ew_add_transposed_10M", gbps(12 * N, time_per_call(lambda: at + bt, 5)), "GB/s")

w, c, i32 = torch.empty(N), torch.empty(N), torch.empty(N, dtype=torch.int32)
result("ew_add_10M_out", gbps(12 * N, time_per_call(lambda: torch.add(a, b, out=w), 5)), "GB/s")
result("copy_10M", gbps(8 * N, time_per_call(lambda: c.copy_(a), 5)), "GB/s")
result("copy_cast_f32_i32_10M", gbps(8 * N, time_per_call(lambda: i32.copy_(b), 5)), "GB/s")
result("clone_10M", gbps(8 * N, time_per_call(lambda: a.clone(), 5)), "GB/s")

r = a.view(1000, 10000)
result("reduce_sum_all_10M", gbps(4 * N, time_per_call(lambda: a.sum(), 5)), "GB/s")
result("reduce_mean_all_10M", gbps(4 * N, time_per_call(lambda: a.mean(), 5)), "GB/s")
result("reduce_max_all_10M", gbps(4 * N, time_per_call(lambda: a.max(), 5)), "GB/s")
result("reduce_sum_rows_10M", gbps(4 * N, time_per_call(lambda: r.sum(1), 5)), "GB/s")
result("reduce_sum_cols_10M", gbps(4 * N, time_per_call(lambda: r.sum(0), 5)), "GB/s")
result("reduce_max_dim_10M", gbps(4 * N, time_per_call(lambda: r.max(1), 5)), "GB/s")

# random fills, 10M float32
result("rand_10M", time_per_call(lambda: torch.rand(N), 3) * 1e3, "ms")
result("randn_10M", time_per_call(lambda: torch.randn(N), 3) * 1e3, "ms")

logits, classes = torch.randn(64, 10, requires_grad=True), torch.randint(0, 10, (64,))
result("cross_entropy_64x10_fwd_bwd",
       time_per_call(lambda: torch.nn.functional.cross_entropy(logits, classes).backward(), 2000) * 1e6, "us")
scores = torch.randn(16, 4, 128, 128)
result("softmax_16x4x128x128", time_per_call(lambda: scores.softmax(3), 20) * 1e3, "ms")
act = torch.randn(32, 64, 56, 56)
result("batch_norm_train_32x64x56x56",
       time_per_call(lambda: torch.batch_norm(act, None, None, None, None, True, 0.1, 1e-5, False), 5) * 1e3, "ms")
bn_in, bn_w, bn_b = act.clone().requires_grad_(), torch.rand(64).requires_grad_(), torch.rand(64).requires_grad_()
bn_out, bn_grad = torch.batch_norm(bn_in, bn_w, bn_b, None, None, True, 0.1, 1e-5, False), torch.randn(32, 64, 56, 56)
result("batch_norm_train_backward_32x64x56x56",
       time_per_call(lambda: torch.autograd.grad([bn_out], [bn_in, bn_w, bn_b], [bn_grad], retain_graph=True), 5) * 1e3,
       "ms")
act_in = act.clone().requires_grad_()
act_out, act_grad = act_in.relu(), torch.randn(32, 64, 56, 56)
result("relu_backward_32x64x56x56",
       time_per_call(lambda: torch.autograd.grad([act_out], [act_in], [act_grad], retain_graph=True), 5) * 1e3, "ms")

for n in (256, 512, 1024, 2048):
    x, y = torch.rand(n, n), torch.rand(n, n)
    calls = 1 if n >= 2048 else 3 if n >= 1024 else 20
    t = time_per_call(lambda: x.matmul(y), calls, 3)
    result("matmul_%d" % n, 2 * n ** 3 / t / 1e9, "GFLOP/s")

# torch.linalg on 256x256 matrices (twin of bench/ops.lua's)
for dt in (torch.float32, torch.float64):
    n, L = 256, torch.linalg
    g = torch.rand(n, n, dtype=dt)
    A = g @ g.mT + torch.eye(n, dtype=dt) * n  # symmetric positive-definite
    rhs = torch.rand(n, 8, dtype=dt)
    tag = "_256_" + ("f32" if dt == torch.float32 else "f64")
    cases = {
        "inv": lambda: L.inv(A),
        "det": lambda: L.det(A),
        "solve": lambda: L.solve(A, rhs),
        "cholesky": lambda: L.cholesky(A),
        "qr": lambda: L.qr(g),
        "eigh": lambda: L.eigh(A),
        "svd": lambda: L.svd(g),
        "lstsq": lambda: L.lstsq(g, rhs),
    }
    for name in ("inv", "det", "solve", "cholesky", "qr", "eigh", "svd", "lstsq"):
        result("linalg_" + name + tag, time_per_call(cases[name], 10, 3) * 1e3, "ms")

s, u = torch.rand(4), torch.rand(4)
K = 200000
result("tiny_add", time_per_call(lambda: s + u, K) * 1e6, "us")
result("tiny_mul_scalar", time_per_call(lambda: s * 2, K) * 1e6, "us")
result("tiny_exp", time_per_call(lambda: s.exp(), K) * 1e6, "us")
result("tiny_sum", time_per_call(lambda: s.sum(), K) * 1e6, "us")
result("tiny_add_inplace", time_per_call(lambda: s.add_(u), K) * 1e6, "us")
p2, q2 = torch.rand(2, 2), torch.rand(2, 2)
result("tiny_mm", time_per_call(lambda: p2.mm(q2), K) * 1e6, "us")
result("tiny_index", time_per_call(lambda: s[1:3], K) * 1e6, "us")
