-- _args.lua: PyTorch's calling convention for functions written in Lua (LUA_API.md,
-- "Arguments"): parameters positionally in PyTorch's order, or by name in a trailing options
-- table. The options table is a plain table (no metatable) whose [1] is empty, so a positional
-- list such as Adam's betas {0.9, 0.999} or MultiStepLR's milestones is never taken for one.
local args = {}

function args.is_options(v)
  return type(v) == "table" and getmetatable(v) == nil and rawget(v, 1) == nil
end

-- Python's TypeError for a name the function does not take; known: name -> true
local function refuse_unknown(fname, opts, known, level)
  for k in pairs(opts) do
    if not known[k] then error(("%s() got an unexpected keyword argument '%s'"):format(fname, tostring(k)), level + 1) end
  end
end

-- parse_at(level, fname, names, defaults, ...): a table name -> value; unknown names, too many
-- positional values and a name given twice are refused with Python's words. level: as
-- error's, seen from parse_at's caller (2: its caller; a class's __init passes 3, past `new`).
function args.parse_at(level, fname, names, defaults, ...)
  level = level + 1
  local n = select("#", ...)
  local vals = { ... }
  local out = {}
  local last = vals[n]
  local given = {}
  if n > 0 and args.is_options(last) then
    n = n - 1
    local known = {}
    for _, k in ipairs(names) do known[k] = true end
    refuse_unknown(fname, last, known, level)
    for k, v in pairs(last) do
      out[k] = v
      given[k] = true
    end
  end
  for i = 1, n do
    local k = names[i]
    if k == nil then error(("%s() takes %d positional arguments but %d were given"):format(fname, #names, n), level) end
    if given[k] then error(("%s() got multiple values for argument '%s'"):format(fname, k), level) end
    if vals[i] ~= nil then out[k] = vals[i] end
  end
  for k, v in pairs(defaults or {}) do
    if out[k] == nil then out[k] = v end
  end
  return out
end

-- parse(fname, names, defaults, ...): parse_at for a function called by the user (errors
-- point at parse's caller's caller)
function args.parse(fname, names, defaults, ...)
  return args.parse_at(2, fname, names, defaults, ...) -- a tail call: parse_at's caller is parse's
end

-- the Python type names a spec gives (the checks of options(), below)
local type_checks = {
  int = function(v) return math.type(v) == "integer" end,
  float = function(v) return type(v) == "number" end,
  bool = function(v) return type(v) == "boolean" end,
  str = function(v) return type(v) == "string" end,
  callable = function(v)
    local mt = getmetatable(v)
    return type(v) == "function" or (type(mt) == "table" and mt.__call ~= nil)
  end,
  Tensor = function(v) return require("mindtorch").is_tensor(v) end,
  table = function(v) return type(v) == "table" end,
}

-- options(fname, opts, spec, level): the options table a function takes last, checked: nil
-- gives {}; anything but an options table, a name spec lacks and a value of another type than
-- spec[name] ("int", "float", "bool", "str", "callable", "Tensor", "table" or "any"; nil values
-- pass) are refused with Python's words. Returns a copy with spec's defaults filled in
-- (defaults: name -> value). level: as error's, seen from options' caller (default 2: its caller).
function args.options(fname, opts, spec, defaults, level)
  level = (level or 2) + 1
  if opts == nil then opts = {} end
  if not args.is_options(opts) then
    error(("%s() takes its options in a table ({name = value}), got %s"):format(fname, args.py_type(opts)), level)
  end
  refuse_unknown(fname, opts, spec, level)
  local out = {}
  for k, v in pairs(opts) do
    local want = spec[k]
    if want ~= "any" and not type_checks[want](v) then
      error(("%s(): argument '%s' must be %s, not %s"):format(fname, k, want, args.py_type(v)), level)
    end
    out[k] = v
  end
  for k, v in pairs(defaults or {}) do
    if out[k] == nil then out[k] = v end
  end
  return out
end

-- Python's name for a Lua value's type, as its TypeErrors print it
local py_types = { number = "float", string = "str", boolean = "bool", ["nil"] = "NoneType", table = "list" }
function args.py_type(v)
  if math.type(v) == "integer" then return "int" end
  return py_types[type(v)] or type(v)
end

-- require(fname, o, names): Python's TypeError for required arguments left out
function args.require(fname, o, names)
  local miss = {}
  for _, k in ipairs(names) do
    if o[k] == nil then miss[#miss + 1] = "'" .. k .. "'" end
  end
  if #miss == 0 then return end
  local list = miss[1]
  if #miss == 2 then
    list = miss[1] .. " and " .. miss[2]
  elseif #miss > 2 then
    list = table.concat(miss, ", ", 1, #miss - 1) .. ", and " .. miss[#miss]
  end
  error(("%s() missing %d required positional argument%s: %s"):format(fname, #miss, #miss == 1 and "" or "s", list), 3)
end

-- tensor(fname, name, pos, v, optional, level): PyTorch's TypeError for a non-tensor argument
function args.tensor(fname, name, pos, v, optional, level)
  if v == nil and optional then return v end
  if not require("mindtorch").is_tensor(v) then
    error(("%s(): argument '%s' (position %d) must be Tensor, not %s"):format(fname, name, pos, args.py_type(v)),
      level or 3)
  end
  return v
end

-- len(v, max, what): the length of a list from the user, refused past `max` entries (a
-- __len may claim anything) before anything walks it
function args.len(v, max, what, level)
  local n = #v
  if math.type(n) ~= "integer" or n < 0 then error("__len__() should return >= 0", level or 3) end
  if n > max then error(("%s: too many entries (%d, at most %d)"):format(what or "list", n, max), level or 3) end
  return n
end

-- the most bytes any process can ever map (a 47-bit user address space): a count whose
-- objects would need more is refused before the loop that would make them
args.MAX_BYTES = 1 << 47

-- int(name, v, min): v as a Python int that drives a loop or an allocation; a float, a
-- string, a count below min or one whose items (item_bytes each) could never fit in memory
-- is refused before anything is made. level: as parse's.
function args.int(name, v, min, item_bytes, level)
  level = level or 3
  if math.type(v) ~= "integer" then
    error(("'%s' object cannot be interpreted as an integer"):format(args.py_type(v)), level)
  end
  if min and v < min then
    error(("%s must be %s, got %d"):format(name, min == 1 and "a positive integer" or "a non-negative integer", v), level)
  end
  item_bytes = math.max(item_bytes or 1, 1)
  if v > 0 and v > args.MAX_BYTES // item_bytes then
    error(("%s=%d needs more memory than can ever be allocated"):format(name, v), level)
  end
  return v
end

-- PyTorch's scalar name of a dtype ("Byte", "Long"), as its dtype errors print them
local scalar_names = {
  bool = "Bool", uint8 = "Byte", int8 = "Char", int16 = "Short", int32 = "Int", int64 = "Long",
  float16 = "Half", bfloat16 = "BFloat16", float32 = "Float", float64 = "Double",
}
function args.scalar_name(dtype) return scalar_names[dtype.name] or dtype.name end

-- PyTorch's check that class targets are int64 ("expected scalar type Long but found Int"),
-- as its loss kernels make it; level as error's
function args.long_targets(target, level)
  if target.dtype.name ~= "int64" then
    error(("expected scalar type Long but found %s"):format(args.scalar_name(target.dtype)), level + 1)
  end
end

-- PyTorch's check of an embedding's indices (Long or Int), naming the function; level as error's
function args.embedding_indices(t, fname, level)
  if t.dtype.name ~= "int64" and t.dtype.name ~= "int32" then
    error(("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
      .. "%s instead (while checking arguments for %s)"):format(t:type(), fname), level + 1)
  end
end

return args
