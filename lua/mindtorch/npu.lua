-- mindtorch.npu: torch.npu, the Ascend NPU API shaped as torch.cuda's. The shape every
-- accelerator shares (devices, properties, peer access, streams, events, the caching
-- allocator's statistics) is lua/mindtorch/_accelerator.lua; this file adds the NPU's own. The C
-- side is the NPU module (backends/npu over backends/accel, loaded here and by the core on first
-- use of an "npu" device); CANN itself is opened at run time, so without it this loads and
-- is_available() says false.
local C = require "mindtorch.npu_backend"

local npu = require("mindtorch._accelerator")(C, { type = "npu", name = "NPU", props = "_NPUDeviceProperties" })

-- whether ACL_LAUNCH_BLOCKING=1 made every launch synchronous (read when the NPU initialised)
npu._launch_blocking = C.launch_blocking

return npu
