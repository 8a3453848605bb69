-- mindtorch.backends.npu: the NPU backend's Lua API (torch.npu, lua/mindtorch/npu.lua).
return require "mindtorch.npu"
