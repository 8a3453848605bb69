-- _layout.lua: the memory format of the results of ops written in Lua. PyTorch's kernels for
-- these (interpolation, adaptive max pooling, group norm, constant padding, pixel and channel
-- shuffles) give results in the memory format their input suggests, so a channels-last network
-- stays channels-last; the C ops do the same in their meta functions (backends/common/shape.c's
-- mt_outspec_layout).
local M = {}

-- the channels-last format input's strides suggest, or nil
function M.format_of(input)
  local fmt = input:_suggest_memory_format()
  if fmt ~= "contiguous_format" then return fmt end
end

-- result laid out as input suggests, when that is a channels-last format of result's rank: kept
-- when it already is, else copied with that format's strides (a result that is both contiguous and
-- channels-last, with size-1 dims, gets them too, as PyTorch's)
function M.follow(input, result)
  local fmt = M.format_of(input)
  if not fmt or result:dim() ~= input:dim() then return result end
  if result:is_contiguous({ memory_format = fmt }) and not result:is_contiguous() then return result end
  return result:clone({ memory_format = fmt })
end

return M
