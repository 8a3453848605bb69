-- mindtorch.backends.ascend: the compatibility name of mindtorch.backends.npu (the same module).
return require "mindtorch.backends.npu"
