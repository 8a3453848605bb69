-- _context.lua: PyTorch's context managers, the two Lua ways of LUA_API.md:
--   do local _ <close> = torch.pipeline() ... end    -- a to-be-closed value
--   torch.pipeline(function() ... end)               -- runs the function inside, returns its results
-- make(enter, exit) builds such a constructor: enter(...) runs at once and returns the state
-- exit(state) needs; exit runs once, when the value is closed or the function returns or fails.
local class = require "mindtorch._class"
local M = {}

-- a context manager's value: closing it runs exit once
local Context = class.class("mindtorch.context")
function Context:__init(state, exit)
  self.state, self.open, self._exit = state, true, exit
end
function Context:__close()
  if self.open then
    self.open = false
    self._exit(self.state)
  end
end
M.Context = Context

-- make(enter, exit, methods, name, arity): the constructor; methods (a table) gives its values
-- more methods, in a subclass of Context named `name`. A body is the last argument when it is a
-- function; with arity, only an argument past enter's arity first ones is (saved_tensors_hooks
-- takes two functions itself).
function M.make(enter, exit, methods, name, arity)
  local cls = Context
  if methods then
    cls = class.class(name or "mindtorch.context", Context)
    for k, v in pairs(methods) do cls[k] = v end
  end
  return function(...)
    local n = select("#", ...)
    local fn = n > 0 and select(n, ...) or nil
    if type(fn) ~= "function" or (arity and n <= arity) then
      return cls(enter(...), exit)
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
