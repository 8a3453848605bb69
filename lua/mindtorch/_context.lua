-- _context.lua: PyTorch's context managers, the two Lua ways of LUA_API.md:
--   do local _ <close> = torch.pipeline() ... end    -- a to-be-closed value
--   torch.pipeline(function() ... end)               -- runs the function inside, returns its results
-- make(enter, exit) builds such a constructor: enter(...) runs at once and returns the state
-- exit(state) needs; exit runs once, when the value is closed or the function returns or fails.
local M = {}

function M.make(enter, exit, methods)
  local Ctx = {}
  Ctx.__index = methods or {}
  Ctx.__close = function(self)
    if self.open then
      self.open = false
      exit(self.state)
    end
  end
  Ctx.__name = "mindtorch.context"

  return function(...)
    local n = select("#", ...)
    local fn = n > 0 and select(n, ...) or nil
    if type(fn) ~= "function" then
      return setmetatable({ state = enter(...), open = true }, Ctx)
    end
    local state = enter(select(1, table.unpack({ ... }, 1, n - 1)))
    local results = table.pack(pcall(fn))
    if not results[1] then
      pcall(exit, state) -- the function's error is the one to report
      error(results[2], 0)
    end
    exit(state)
    return table.unpack(results, 2, results.n)
  end
end

return M
