-- cuda: the CUDA backend against PyTorch on the same GPU (the CUDA issue's goals): matmul 4096
-- float32 and bfloat16 (TFLOP/s), the device-to-device copy and an element-wise add of 100M
-- float32 (GB/s), and the training steps of LeNet (batch 64) and a Transformer encoder layer
-- (d_model 256, 4 heads, sequence 128, batch 16) in ms. Twin: bench/cuda.py. Without a usable GPU
-- it prints no figure. MT_BENCH_CUDA_SMALL=1 shrinks every size (for the driver stand-in).
local torch = require "mindtorch"
local B = dofile("bench/common.lua")
local nn, optim = torch.nn, torch.optim
local cuda = torch.cuda

if not cuda.is_available() then
  io.stderr:write("bench/cuda: no figures: ", cuda.unavailable_reason(), "\n")
  return
end
local small = os.getenv("MT_BENCH_CUDA_SMALL") == "1"
local N, M = small and 64 or 4096, small and 100000 or 100 * 1000 * 1000

-- seconds per call of fn, the device synchronised around each round
local function per_call(fn, n)
  fn()
  cuda.synchronize()
  local best = math.huge
  for _ = 1, 3 do
    local t0 = torch._monotonic()
    for _ = 1, n do fn() end
    cuda.synchronize()
    best = math.min(best, (torch._monotonic() - t0) / n)
  end
  return best
end

torch.manual_seed(0)
for _, dt in ipairs { { torch.float32, "f32" }, { torch.bfloat16, "bf16" } } do
  local a = torch.randn(N, N, { device = "cuda", dtype = dt[1] })
  local b = torch.randn(N, N, { device = "cuda", dtype = dt[1] })
  local t = per_call(function() return torch.mm(a, b) end, small and 2 or 10)
  B.result("cuda_matmul_4096_" .. dt[2], 2 * N ^ 3 / t / 1e12, "TFLOP/s")
end

local x, y, w = torch.rand(M, { device = "cuda" }), torch.rand(M, { device = "cuda" }), torch.empty(M, { device = "cuda" })
B.result("cuda_copy_100M", 8 * M / per_call(function() return w:copy_(x) end, 10) / 1e9, "GB/s")
B.result("cuda_ew_add_100M", 12 * M / per_call(function() return torch.add(x, y, { out = w }) end, 10) / 1e9, "GB/s")
x, y, w = nil, nil, nil
collectgarbage()

local lenet = nn.Sequential(nn.Conv2d(1, 6, 5, { padding = 2 }), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5),
  nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
  nn.Linear(84, 10)):to("cuda")
local img, lab = torch.randn(small and 4 or 64, 1, 28, 28, { device = "cuda" }), torch.randint(1, 11, { small and 4 or 64 }):cuda()
local sgd, loss_fn = optim.SGD(lenet:parameters(), { lr = 0.01, momentum = 0.9 }), nn.CrossEntropyLoss()
B.result("cuda_lenet_step", per_call(function()
  sgd:zero_grad()
  loss_fn(lenet(img), lab):backward()
  sgd:step()
end, small and 2 or 50) * 1e3, "ms")

local d = small and 16 or 256
local layer = nn.TransformerEncoderLayer(d, 4, { dim_feedforward = 4 * d, dropout = 0.1, batch_first = true }):to("cuda")
local seq = torch.randn(small and 2 or 16, small and 8 or 128, d, { device = "cuda" })
local adam = optim.Adam(layer:parameters(), { lr = 1e-3 })
B.result("cuda_transformer_step", per_call(function()
  adam:zero_grad()
  layer(seq):pow(2):mean():backward()
  adam:step()
end, small and 2 or 20) * 1e3, "ms")
