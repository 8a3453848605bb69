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

-- Random numbers: one Philox4x32-10 generator per device (counter-based: doc/cuda.md), made on
-- first use. torch.cuda.default_generators[i + 1] is cuda:i's (a Lua sequence, 1-based as every
-- list here); torch.manual_seed seeds them all, as PyTorch's does. The functions taking a device
-- take what torch.cuda's take (nil: the current device, an index, "cuda:1", a torch.device).
local torch = require "mindtorch"
local function generator(d)
  return torch._device_generator(("cuda:%d"):format(cuda._device_index(d)))
end
cuda.default_generators = setmetatable({}, {
  __index = function(_, i)
    if math.type(i) == "integer" and i >= 1 and i <= cuda.device_count() then return generator(i - 1) end
  end,
  __len = function() return cuda.device_count() end,
})
local function seed_arg(seed)
  return math.tointeger(seed) or error("manual_seed expects an integer", 3)
end
-- manual_seed and seed act on the current device's, the _all forms on every device's (seed_all:
-- one new seed from the OS for all); without a GPU they are silent, as PyTorch's (which would
-- apply them when CUDA starts)
function cuda.manual_seed(seed)
  seed = seed_arg(seed)
  if cuda.is_available() then generator():manual_seed(seed) end
end
function cuda.manual_seed_all(seed) C.manual_seed_all(seed_arg(seed)) end
function cuda.seed()
  if cuda.is_available() then generator():seed() end
end
function cuda.seed_all()
  if cuda.is_available() then C.manual_seed_all(generator(0):seed()) end
end
function cuda.initial_seed() return generator():initial_seed() end
-- a device's state (its seed and offset, 16 bytes as PyTorch's), and every device's
function cuda.get_rng_state(d) return generator(d):get_state() end
function cuda.set_rng_state(state, d) generator(d):set_state(state) end
function cuda.get_rng_state_all()
  local states = {}
  for i = 1, cuda.device_count() do states[i] = cuda.default_generators[i]:get_state() end
  return states
end
function cuda.set_rng_state_all(states)
  for i, s in ipairs(states) do cuda.default_generators[i]:set_state(s) end
end

-- the NVIDIA driver's version (cuDriverGetVersion: 12040 for 12.4), or nil without one
cuda._driver_version = C.driver_version

return cuda
