-- ops: throughput of the hot paths of issue 3 (element-wise, reductions, matmul) and the
-- overhead of a call on a tiny tensor. Twin: bench/ops.py.
local torch = require "mindtorch"
local B = dofile("bench/common.lua")

local N = 10 * 1000 * 1000
torch.manual_seed(0)
local a, b = torch.rand(N), torch.rand(N)
local function gbps(bytes, secs) return bytes / secs / 1e9 end

-- element-wise, 10M float32: bytes moved = inputs read + result written
B.result("ew_add_10M", gbps(12 * N, B.time_per_call(function() return a + b end, 5)), "GB/s")
B.result("ew_add_10M_inplace", gbps(12 * N, B.time_per_call(function() return a:add_(b) end, 5)), "GB/s")
B.result("ew_mul_scalar_10M_inplace", gbps(8 * N, B.time_per_call(function() return a:mul_(1.0000001) end, 5)), "GB/s")
B.result("ew_exp_10M", gbps(8 * N, B.time_per_call(function() return b:exp() end, 5)), "GB/s")
local m, row = a:view(1000, 10000), torch.rand(10000)
B.result("ew_add_broadcast_10M", gbps(12 * N, B.time_per_call(function() return m + row end, 5)), "GB/s")
local at, bt = a:view(10000, 1000):t(), b:view(1000, 10000)
B.result("ew_add_transposed_10M", gbps(12 * N, B.time_per_call(function() return at + bt end, 5)), "GB/s")

-- out=, copies and casts, 10M float32 (bytes moved)
local w, c, i32 = torch.empty(N), torch.empty(N), torch.empty(N, { dtype = torch.int32 })
B.result("ew_add_10M_out", gbps(12 * N, B.time_per_call(function() return torch.add(a, b, { out = w }) end, 5)), "GB/s")
B.result("copy_10M", gbps(8 * N, B.time_per_call(function() return c:copy_(a) end, 5)), "GB/s")
B.result("copy_cast_f32_i32_10M", gbps(8 * N, B.time_per_call(function() return i32:copy_(b) end, 5)), "GB/s")
B.result("clone_10M", gbps(8 * N, B.time_per_call(function() return a:clone() end, 5)), "GB/s")

-- reductions over 10M float32 (bytes read)
local r = a:view(1000, 10000)
B.result("reduce_sum_all_10M", gbps(4 * N, B.time_per_call(function() return a:sum() end, 5)), "GB/s")
B.result("reduce_mean_all_10M", gbps(4 * N, B.time_per_call(function() return a:mean() end, 5)), "GB/s")
B.result("reduce_max_all_10M", gbps(4 * N, B.time_per_call(function() return a:max() end, 5)), "GB/s")
B.result("reduce_sum_rows_10M", gbps(4 * N, B.time_per_call(function() return r:sum(2) end, 5)), "GB/s")
B.result("reduce_sum_cols_10M", gbps(4 * N, B.time_per_call(function() return r:sum(1) end, 5)), "GB/s")
B.result("reduce_max_dim_10M", gbps(4 * N, B.time_per_call(function() return r:max(2) end, 5)), "GB/s")

-- random fills, 10M float32 (one generator stream: PyTorch's values, so serial in both)
B.result("rand_10M", B.time_per_call(function() return torch.rand(N) end, 3) * 1e3, "ms")
B.result("randn_10M", B.time_per_call(function() return torch.randn(N) end, 3) * 1e3, "ms")

-- a training step's nn hot paths: a classifier's loss with its gradient, batch norm's forward in
-- training and its gradient, and ReLU's gradient on a ResNet block's 32x64x56x56 activations
local logits, classes = torch.randn(64, 10, { requires_grad = true }), torch.randint(1, 11, { 64 })
B.result("cross_entropy_64x10_fwd_bwd", B.time_per_call(function()
  torch.nn.functional.cross_entropy(logits, classes):backward()
end, 2000) * 1e6, "us")
local scores = torch.randn(16, 4, 128, 128) -- a Transformer's attention, 16 x 4 heads x 128
B.result("softmax_16x4x128x128", B.time_per_call(function() return scores:softmax(4) end, 20) * 1e3, "ms")
local act = torch.randn(32, 64, 56, 56)
B.result("batch_norm_train_32x64x56x56", B.time_per_call(function()
  return torch.batch_norm(act, nil, nil, nil, nil, true, 0.1, 1e-5, false)
end, 5) * 1e3, "ms")
local bn_in, bn_w, bn_b = act:clone():requires_grad_(), torch.rand(64):requires_grad_(), torch.rand(64):requires_grad_()
local bn_out, bn_grad = torch.batch_norm(bn_in, bn_w, bn_b, nil, nil, true, 0.1, 1e-5, false), torch.randn(32, 64, 56, 56)
B.result("batch_norm_train_backward_32x64x56x56", B.time_per_call(function()
  return torch.autograd.grad({ bn_out }, { bn_in, bn_w, bn_b }, { grad_outputs = { bn_grad }, retain_graph = true })
end, 5) * 1e3, "ms")
local act_in = act:clone():requires_grad_()
local act_out, act_grad = act_in:relu(), torch.randn(32, 64, 56, 56)
B.result("relu_backward_32x64x56x56", B.time_per_call(function()
  return torch.autograd.grad({ act_out }, { act_in }, { grad_outputs = { act_grad }, retain_graph = true })
end, 5) * 1e3, "ms")

-- matmul, float32 square matrices
for _, n in ipairs({ 256, 512, 1024, 2048 }) do
  local x, y = torch.rand(n, n), torch.rand(n, n)
  local calls = n >= 2048 and 1 or n >= 1024 and 3 or 20
  local t = B.time_per_call(function() return x:matmul(y) end, calls, 3)
  B.result("matmul_" .. n, 2 * n ^ 3 / t / 1e9, "GFLOP/s")
end

-- torch.linalg on 256x256 matrices (LAPACK through liblapacke; PyTorch uses the same OpenBLAS)
for _, dt in ipairs({ torch.float32, torch.float64 }) do
  local n, L = 256, torch.linalg
  local g = torch.rand(n, n, { dtype = dt })
  local A = g:matmul(g.mT) + torch.eye(n, { dtype = dt }) * n -- symmetric positive-definite
  local rhs = torch.rand(n, 8, { dtype = dt })
  local tag = "_256_" .. (dt == torch.float32 and "f32" or "f64")
  local cases = {
    inv = function() return L.inv(A) end,
    det = function() return L.det(A) end,
    solve = function() return L.solve(A, rhs) end,
    cholesky = function() return L.cholesky(A) end,
    qr = function() return L.qr(g) end,
    eigh = function() return L.eigh(A) end,
    svd = function() return L.svd(g) end,
    lstsq = function() return L.lstsq(g, rhs) end,
  }
  for _, name in ipairs({ "inv", "det", "solve", "cholesky", "qr", "eigh", "svd", "lstsq" }) do
    B.result("linalg_" .. name .. tag, B.time_per_call(cases[name], 10, 3) * 1e3, "ms")
  end
end

-- the fixed cost of a call on 4 elements
local s, u = torch.rand(4), torch.rand(4)
local K = 200000
B.result("tiny_add", B.time_per_call(function() return s + u end, K) * 1e6, "us")
B.result("tiny_mul_scalar", B.time_per_call(function() return s * 2 end, K) * 1e6, "us")
B.result("tiny_exp", B.time_per_call(function() return s:exp() end, K) * 1e6, "us")
B.result("tiny_sum", B.time_per_call(function() return s:sum() end, K) * 1e6, "us")
B.result("tiny_add_inplace", B.time_per_call(function() return s:add_(u) end, K) * 1e6, "us")
local p2, q2 = torch.rand(2, 2), torch.rand(2, 2)
B.result("tiny_mm", B.time_per_call(function() return p2:mm(q2) end, K) * 1e6, "us")
B.result("tiny_index", B.time_per_call(function() return s[{ { 2, 3 } }] end, K) * 1e6, "us")
