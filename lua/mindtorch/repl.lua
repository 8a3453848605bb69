-- mindtorch.repl: the Lua half of the luamt shell (src/luamt.c owns the terminal, readline
-- and the read-eval loop; this file decides what a result looks like and what <TAB> offers).
--
--   repl.format(v, opts)   a value as the shell shows it: tensors and modules with their
--                          PyTorch repr, tables nested and indented, strings quoted inside
--                          tables; opts.color adds ANSI colours (luamt sets it only when
--                          stdout is a terminal and NO_COLOR is unset)
--   repl.print(...)        the shell's printer for a line's results
--   repl.complete(word, before)  completion candidates for `word` (a.b.c, a:b, or a global);
--                          before: the chunk's text up to the word (nothing is offered when
--                          the word is inside a string or a comment)
--   repl.help(x)           help(x) and ?name at the prompt (lua/mindtorch/help.lua)
local repl = {}

repl.color = false
local WIDTH = 80 -- a table that fits in this many columns stays on one line
local MAX_ITEMS = 200 -- longer tables end with "..."
local MAX_DEPTH = 8

local palette = { number = "\27[36m", string = "\27[32m", boolean = "\27[35m", ["nil"] = "\27[35m",
                  key = "\27[33m", other = "\27[90m" }
local reset = "\27[0m"

local function paint(kind, s, color)
  if not color then return s end
  return (palette[kind] or palette.other) .. s .. reset
end

local function is_identifier(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") ~= nil and not repl.keywords[k]
end

repl.keywords = {}
for w in ([[and break do else elseif end false for function goto if in local nil not or repeat
           return then true until while]]):gmatch("%a+") do repl.keywords[w] = true end

-- a table's keys in a stable order: the array part 1..n, then the rest by type and text
local function sorted_keys(t)
  local n = #t
  local rest = {}
  for k in next, t do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then rest[#rest + 1] = k end
  end
  table.sort(rest, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  return n, rest
end

local function has_tostring(v)
  local mt = getmetatable(v)
  return type(mt) == "table" and rawget(mt, "__tostring") ~= nil
end

local format_value

-- a table as "{a = 1, b = {2, 3}}" when it fits, else one entry per line, indented
local function format_table(t, indent, seen, depth, color)
  if seen[t] then return paint("other", "<cycle " .. tostring(t) .. ">", color) end
  if depth > MAX_DEPTH then return paint("other", "{...}", color) end
  seen[t] = true
  local n, rest = sorted_keys(t)
  local parts, multiline, width = {}, false, 2
  local function add(key_text, v)
    if #parts >= MAX_ITEMS then return false end
    local s = format_value(v, indent .. "  ", seen, depth + 1, color, true)
    if key_text then s = key_text .. " = " .. s end
    parts[#parts + 1] = s
    if s:find("\n", 1, true) then multiline = true end
    width = width + #s + 2
    return true
  end
  local truncated = false
  for i = 1, n do
    if not add(nil, t[i]) then truncated = true break end
  end
  for _, k in ipairs(rest) do
    if truncated then break end
    local key_text
    if is_identifier(k) then key_text = paint("key", k, color)
    else key_text = "[" .. format_value(k, indent, seen, depth + 1, color, true) .. "]" end
    if not add(key_text, t[k]) then truncated = true end
  end
  seen[t] = nil
  if truncated then parts[#parts + 1] = "..." end
  if #parts == 0 then return "{}" end
  if not multiline and width + #indent <= WIDTH then return "{" .. table.concat(parts, ", ") .. "}" end
  local inner = indent .. "  "
  for i, s in ipairs(parts) do parts[i] = inner .. s:gsub("\n", "\n" .. inner) end
  return "{\n" .. table.concat(parts, ",\n") .. "\n" .. indent .. "}"
end

function format_value(v, indent, seen, depth, color, nested)
  local tv = type(v)
  if tv == "string" then
    if not nested then return v end
    return paint("string", string.format("%q", v):gsub("\\\n", "\\n"), color)
  elseif tv == "number" then
    return paint("number", tostring(v), color)
  elseif tv == "boolean" or tv == "nil" then
    return paint(tv, tostring(v), color)
  elseif tv == "table" and not has_tostring(v) then
    return format_table(v, indent, seen, depth, color)
  end
  -- tensors, modules, sizes, dtypes, functions: their own text
  local ok, s = pcall(tostring, v)
  if not ok then s = "<" .. tv .. ": __tostring failed: " .. tostring(s) .. ">" end
  return s
end

function repl.format(v, opts)
  local color = opts and opts.color
  if color == nil then color = repl.color end
  return format_value(v, "", {}, 1, color, false)
end

-- the results of one line: side by side when they are short, one per line otherwise
function repl.print(...)
  local n = select("#", ...)
  local parts, multiline = {}, false
  for i = 1, n do
    parts[i] = repl.format((select(i, ...)))
    if parts[i]:find("\n", 1, true) then multiline = true end
  end
  io.stdout:write(table.concat(parts, multiline and "\n" or "\t"), "\n")
  io.stdout:flush()
end

-- ---- completion -------------------------------------------------------------------------

-- the names reachable from v by `.` (methods_only: by `:`), without calling anything but
-- rawget/next: metatables' __index tables are walked, and an __index function's table
-- upvalues (how tensors, torch's lazy submodules and C types keep their members) are read
local function collect(v, methods_only, out, seen)
  if v == nil or seen[v] then return end
  seen[v] = true
  local function take(t, functions_only)
    for k, val in next, t do
      if type(k) == "string" and (not functions_only or type(val) == "function") then out[k] = true end
    end
  end
  if type(v) == "table" then
    take(v, methods_only)
    -- nn.Module: parameters, buffers and submodules live in ordered registries
    for _, reg in ipairs { "_parameters", "_buffers", "_modules" } do
      local r = rawget(v, reg)
      if not methods_only and type(r) == "table" and type(r.items) == "table" then take(r.items, false) end
    end
  end
  local mt = getmetatable(v)
  if type(mt) ~= "table" then return end
  local idx = rawget(mt, "__index")
  if type(idx) == "table" then
    collect(idx, methods_only, out, seen)
  elseif type(idx) == "function" then
    if type(v) == "table" then collect(mt, methods_only, out, seen) end -- a class used as metatable
    for i = 1, 8 do
      local name, up = debug.getupvalue(idx, i)
      if name == nil then break end
      if type(up) == "table" and up ~= _G then
        -- upvalues hold method tables and getter maps (values are C pointers) alike
        take(up, methods_only)
        local upmt = getmetatable(up)
        if type(upmt) == "table" and type(rawget(upmt, "__index")) == "table" then
          collect(rawget(upmt, "__index"), methods_only, out, seen)
        end
      end
    end
  end
end

-- walk a dotted path from the globals without triggering errors
local function resolve(path)
  local v = _G
  for name in path:gmatch("[^%.:]+") do
    local ok, r = pcall(function() return v[name] end)
    if not ok or r == nil then return nil end
    v = r
  end
  return v
end

-- whether the end of `code` is inside a string literal or a comment that is not closed yet
function repl.in_string_or_comment(code)
  local i, n = 1, #code
  while i <= n do
    local c = code:sub(i, i)
    if c == "-" and code:sub(i + 1, i + 1) == "-" then
      local eqs = code:match("^%[(=*)%[", i + 2)
      if eqs then -- --[[ ... ]] or --[==[ ... ]==]
        local close = code:find("]" .. eqs .. "]", i + 4 + #eqs, true)
        if not close then return true end
        i = close + #eqs + 2
      else
        local nl = code:find("\n", i + 2, true)
        if not nl then return true end
        i = nl + 1
      end
    elseif c == "[" and code:match("^%[=*%[", i) then
      local eqs = code:match("^%[(=*)%[", i)
      local close = code:find("]" .. eqs .. "]", i + 2 + #eqs, true)
      if not close then return true end
      i = close + #eqs + 2
    elseif c == '"' or c == "'" then
      local j = i + 1
      while true do
        local d = code:sub(j, j)
        if d == "" then return true end
        if d == "\\" then
          j = j + 2
        elseif d == c or d == "\n" then -- an unescaped newline ends it (a syntax error Lua reports)
          break
        else
          j = j + 1
        end
      end
      i = j + 1
    else
      i = i + 1
    end
  end
  return false
end

-- candidates for the word under the cursor: full words, sorted
function repl.complete(word, before)
  if before and repl.in_string_or_comment(before) then return {} end
  local base, sep, partial = word:match("^(.*)([%.:])([%w_]*)$")
  local names, prefix = {}, ""
  if base then
    if not base:match("^[%a_][%w_]*[%w_%.]*$") or base:find("..", 1, true) then return {} end
    local v = resolve(base)
    if v == nil then return {} end
    collect(v, sep == ":", names, {})
    prefix = base .. sep
  else
    partial = word
    collect(_G, false, names, {})
    for k in pairs(repl.keywords) do names[k] = true end
  end
  local out = {}
  local show_private = partial:sub(1, 1) == "_"
  for k in pairs(names) do
    if k:sub(1, #partial) == partial and k:match("^[%a_][%w_]*$")
       and (show_private or k:sub(1, 1) ~= "_") then
      out[#out + 1] = prefix .. k
    end
  end
  table.sort(out)
  -- a single function completes with its "(", as Python's shell does
  if #out == 1 and type(resolve(out[1])) == "function" then out[1] = out[1] .. "(" end
  return out
end

-- help(x), ?name: lua/mindtorch/help.lua, loaded on first use
function repl.help(...) return require("mindtorch.help").show(...) end

return repl
