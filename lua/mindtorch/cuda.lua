-- mindtorch.cuda: torch.cuda on NVIDIA GPUs. The shape every accelerator shares (devices,
-- properties, peer access, streams, events, the caching allocator's statistics) is
-- lua/mindtorch/_accelerator.lua; this file adds CUDA's own. The C side is the CUDA module
-- (backends/cuda over backends/accel, loaded here and by the core on first use of a "cuda"
-- device); the NVIDIA driver itself is opened at run time, so without one this loads and
-- is_available() says false.
local C = require "mindtorch.cuda_backend"

local cuda = require("mindtorch._accelerator")(C, { type = "cuda", name = "CUDA", props = "_CudaDeviceProperties" })

-- whether CUDA_LAUNCH_BLOCKING=1 made every launch synchronous (read when CUDA initialised)
cuda._launch_blocking = C.launch_blocking

-- the architectures this build's kernels hold ({"sm_80", "sm_90", "compute_90"}; {} when the
-- module was built without nvcc), and the nvcc flags that name them, as torch.cuda's
function cuda.get_arch_list()
  if not cuda.is_available() then return {} end
  return C.arch_list()
end

function cuda.get_gencode_flags()
  local flags = {}
  for _, arch in ipairs(cuda.get_arch_list()) do
    local kind, num = arch:match("^(%a+)_(%d+)$")
    flags[#flags + 1] = ("-gencode compute=compute_%s,code=%s_%s"):format(num, kind, num)
  end
  return table.concat(flags, " ")
end

-- bfloat16 needs compute capability 8.0 (Ampere) or later, as torch.cuda.is_bf16_supported says
function cuda.is_bf16_supported()
  return cuda.is_available() and cuda.get_device_capability(cuda.current_device())[1] >= 8
end

-- the generator of the cuda device type (Philox4x32-10, counter-based: doc/cuda.md); torch.manual_seed
-- seeds it too. One generator serves every device, so the _all forms are the same calls.
function cuda.manual_seed(seed) C.manual_seed(math.tointeger(seed) or error("manual_seed expects an integer", 2)) end
cuda.manual_seed_all = cuda.manual_seed
function cuda.seed() C.seed() end
cuda.seed_all = cuda.seed
cuda.initial_seed = C.initial_seed

-- the NVIDIA driver's version (cuDriverGetVersion: 12040 for 12.4), or nil without one
cuda._driver_version = C.driver_version

return cuda
