-- _args.lua: PyTorch's calling convention for functions written in Lua (LUA_API.md,
-- "Arguments"): parameters positionally in PyTorch's order, or by name in a trailing options
-- table. The options table is a plain table (no metatable) whose [1] is empty, so a positional
-- list such as Adam's betas {0.9, 0.999} or MultiStepLR's milestones is never taken for one.
local args = {}

function args.is_options(v)
  return type(v) == "table" and getmetatable(v) == nil and rawget(v, 1) == nil
end

-- parse(fname, names, defaults, ...): a table name -> value; unknown names, too many
-- positional values and a name given twice are refused with Python's words. level: the
-- error's level as seen from parse's caller's caller (default 3).
function args.parse(fname, names, defaults, ...)
  local n = select("#", ...)
  local vals = { ... }
  local out = {}
  local last = vals[n]
  local given = {}
  if n > 0 and args.is_options(last) then
    n = n - 1
    local known = {}
    for _, k in ipairs(names) do known[k] = true end
    for k, v in pairs(last) do
      if not known[k] then error(("%s() got an unexpected keyword argument '%s'"):format(fname, tostring(k)), 3) end
      out[k] = v
      given[k] = true
    end
  end
  for i = 1, n do
    local k = names[i]
    if k == nil then error(("%s() takes %d positional arguments but %d were given"):format(fname, #names, n), 3) end
    if given[k] then error(("%s() got multiple values for argument '%s'"):format(fname, k), 3) end
    if vals[i] ~= nil then out[k] = vals[i] end
  end
  for k, v in pairs(defaults or {}) do
    if out[k] == nil then out[k] = v end
  end
  return out
end

return args
