-- mindtorch.help: help(x) and ?name in the luamt shell, torch.help(x) everywhere.
--
--   torch.help(torch.add)      the operator's signatures and descriptions (the schemas the core
--   torch.help("torch.add")    was built from: the text of doc/reference.md)
--   torch.help(nn.Linear)      a class: its name, parents, constructor, where it is defined,
--                              the comments above it, its own methods
--   torch.help(F.leaky_relu)   a Lua function: its parameters, where it is defined and the
--                              comment lines above its definition
--   torch.help(x)              a tensor, a module, a table: what it is and what it offers
--   torch.help()               a short guide to the shell
--
-- help.text(x) returns the text instead of printing it. A name ("torch.add", "x:add",
-- "nn.Linear") is looked up from the globals, so the help can say which name it was given.
local torch = require "mindtorch"
local class = require "mindtorch._class"

local help = {}

local GUIDE = [[
mindtorch: PyTorch 1.13's tensors, autograd, nn and optim for Lua 5.4. The global `torch` is
the library; `nn = torch.nn`, `F = torch.nn.functional` and `optim = torch.optim` are yours to
set. Lua's own rules apply: methods take ':' (x:sum()), dims and indices are 1-based, keyword
arguments go in a trailing table (torch.sum(x, 1, {keepdim = true})).

In the shell:
  help(torch.add), ?torch.add   signatures and descriptions (operators, classes, functions)
  ?x:add                        the same for a method of a value
  <TAB>                         completes globals, fields (torch.ze<TAB>) and methods (x:<TAB>)
  _                             the last result that was not nil
  expr;                         a trailing ';' runs without printing the result
  Ctrl-C                        interrupts a running chunk, or drops the line being typed
  Ctrl-D, os.exit()             leave the shell (history is kept in ~/.luamt_history)

More: doc/guide.md (a tour), doc/reference.md (every operator), README.md.]]

-- ---- names -------------------------------------------------------------------------------------

-- the mindtorch namespaces searched for a value's name, breadth first (the shortest name wins)
local ROOTS = { "nn", "optim", "linalg", "special", "utils" }

-- Lua's own libraries, for the names of their functions
local STDLIB = { string = true, table = true, math = true, io = true, os = true, coroutine = true, utf8 = true,
  debug = true, package = true }

local names -- value -> "torch.nn.Linear", built on first use (again when a value is not found)
local function name_index(refresh)
  if names and not refresh then return names end
  names = {}
  for _, k in ipairs(ROOTS) do local _ = torch[k] end -- load the lazy submodules
  local queue, seen = { { torch, "torch" } }, { [torch] = true, [_G] = true }
  local head = 1
  while queue[head] do
    local t, prefix = queue[head][1], queue[head][2]
    head = head + 1
    local keys = {}
    for k in next, t do
      if type(k) == "string" and k:match("^[%a_][%w_]*$") then keys[#keys + 1] = k end
    end
    table.sort(keys)
    if t == torch and head == 2 then queue[#queue + 1] = { _G, "" } end -- then the globals
    for _, k in ipairs(keys) do
      local v = rawget(t, k)
      local tv = type(v)
      if (tv == "function" or tv == "table") and names[v] == nil then
        names[v] = prefix == "" and k or (prefix .. "." .. k)
        -- namespaces (not classes, not tensors' method tables' values) are walked further
        if tv == "table" and not class.is_class(v) and not seen[v] and select(2, prefix:gsub("%.", "")) < 3
           and (prefix ~= "" or STDLIB[k]) then
          seen[v] = true
          queue[#queue + 1] = { v, prefix == "" and k or (prefix .. "." .. k) }
        end
      end
    end
  end
  return names
end

-- a dotted name ("torch.nn.Linear", "x:add") to its value, without raising
local function resolve(path)
  local v = _G
  for name in path:gmatch("[^%.:]+") do
    local ok, r = pcall(function() return v[name] end)
    if not ok or r == nil then return nil end
    v = r
  end
  return v
end

-- ---- sources: where a Lua function is defined, and the comment lines above it ---------------

local file_cache = {}
local function file_lines(path)
  if file_cache[path] == nil then
    local lines = false
    local f = io.open(path)
    if f then
      lines = {}
      for l in f:lines() do lines[#lines + 1] = l end
      f:close()
    end
    file_cache[path] = lines
  end
  return file_cache[path] or nil
end

-- a source path as the user knows it: "mindtorch/nn/layers.lua" for the library's files
local function short_path(path)
  return path:match("/share/lua/5%.4/(mindtorch/.*)$") or path:match("/lua/(mindtorch/.*)$") or path
end

-- the comment block right above line n (blank lines end it), without the "--"
local function comments_above(lines, n)
  local out = {}
  local i = n - 1
  while i >= 1 and lines[i]:match("^%s*%-%-") do
    local text = lines[i]:gsub("^%s*%-%-+ ?", "")
    -- "---- SGD ----" section rulers are not documentation
    if not lines[i]:match("^%s*%-%-%s*%-%-%-") then table.insert(out, 1, text) end
    i = i - 1
  end
  return out
end

-- a Lua function's parameter names ("self" left out for methods)
local function params(f, drop_self)
  local info = debug.getinfo(f, "u")
  local ps = {}
  for i = 1, info.nparams do
    local n = debug.getlocal(f, i)
    if not (i == 1 and drop_self and n == "self") then ps[#ps + 1] = n end
  end
  if info.isvararg then ps[#ps + 1] = "..." end
  return table.concat(ps, ", ")
end

-- the function a wrapper calls: an upvalue named fn (how nn.functional's argument checks
-- and similar wrappers keep the function they wrap)
local function unwrap(f)
  for _ = 1, 4 do
    local inner
    for i = 1, 16 do
      local n, v = debug.getupvalue(f, i)
      if n == nil then break end
      if n == "fn" and type(v) == "function" then inner = v break end
    end
    if not inner then return f end
    f = inner
  end
  return f
end

-- "defined in FILE:LINE" and its comments, for a Lua function
local function lua_source(f)
  local info = debug.getinfo(f, "S")
  if info.what == "C" or info.source:sub(1, 1) ~= "@" then return nil end
  local path = info.source:sub(2)
  local out = { ("  defined in %s:%d"):format(short_path(path), info.linedefined) }
  local lines = file_lines(path)
  if lines and lines[info.linedefined] then
    for _, c in ipairs(comments_above(lines, info.linedefined)) do out[#out + 1] = "  " .. c end
  end
  return table.concat(out, "\n"), path
end

-- ---- operators: the core's schemas ----------------------------------------------------------

local NAMESPACED = { linalg = true, special = true, fft = true }

-- the schemas of the op a name stands for: torch.linalg.det is linalg_det, x:add and
-- torch.Tensor.add are the method variants of add
local function schemas_for(name)
  local parts = {}
  for p in name:gmatch("[^%.:]+") do parts[#parts + 1] = p end
  local last, ns = parts[#parts], parts[#parts - 1]
  local candidates = {}
  if ns and NAMESPACED[ns] then candidates[#candidates + 1] = ns .. "_" .. last end
  candidates[#candidates + 1] = last
  local method = name:find(":", 1, true) ~= nil or ns == "Tensor"
  for _, c in ipairs(candidates) do
    local all = torch._op_schemas(c)
    if #all > 0 then
      local kept = {}
      for _, s in ipairs(all) do
        if (method and s.method) or (not method and s["function"]) then kept[#kept + 1] = s end
      end
      return #kept > 0 and kept or all
    end
  end
  return {}
end

local function schema_text(name, list)
  local op = list[1].name
  local ns, rest = op:match("^(%a+)_(.+)$")
  local fname = (ns and NAMESPACED[ns]) and ("torch." .. ns .. "." .. rest) or ("torch." .. op)
  local variants = {}
  if list[1]["function"] then variants[#variants + 1] = fname .. "(...)" end
  if list[1].method then variants[#variants + 1] = "x:" .. op .. "(...)" end
  local out = { ("%s  [operator %s: %s]"):format(name, op, table.concat(variants, ", ")) }
  local one_based, keyword = false, nil
  for _, s in ipairs(list) do
    out[#out + 1] = "  " .. s.schema
    if s.doc ~= "" then out[#out + 1] = "      " .. s.doc end
    if s.schema:find("Dim", 1, true) or s.schema:find("Index", 1, true) then one_based = true end
    keyword = keyword or s.schema:match("%*, [%w_%[%]%?]+ ([%w_]+)")
  end
  if keyword then
    out[#out + 1] = ("Arguments after '*' are keywords, in a trailing table: {%s = ...}."):format(keyword)
  end
  if one_based then out[#out + 1] = "Dim, Index and IndexTensor arguments are 1-based." end
  return table.concat(out, "\n")
end

-- ---- the kinds of values ---------------------------------------------------------------------

local function class_text(cls, name)
  local full = class.name(cls)
  local chain, p = {}, class.parent(cls)
  while p do
    chain[#chain + 1] = class.name(p)
    p = class.parent(p)
  end
  local out = { ("<class '%s'>%s"):format(full, #chain > 0 and ("  (a subclass of " .. table.concat(chain, " < ") .. ")") or "") }
  local store = getmetatable(cls).__index
  local init = rawget(store, "__init")
  local shown = name and name:match("^torch%.(.*)$") or name or full
  if type(init) == "function" and debug.getinfo(init, "S").what ~= "C" then
    out[#out + 1] = ("  %s(%s)"):format(shown, params(init, true))
  end
  -- the comment above the line that names the class, then the constructor's own
  local any = init
  if type(any) ~= "function" then
    for _, v in next, store do if type(v) == "function" then any = v break end end
  end
  if type(any) == "function" then
    local src, path = lua_source(any)
    local lines = path and file_lines(path)
    if lines then
      for i, l in ipairs(lines) do
        if l:find('"' .. full .. '"', 1, true) then
          out[#out + 1] = ("  defined in %s:%d"):format(short_path(path), i)
          for _, c in ipairs(comments_above(lines, i)) do out[#out + 1] = "  " .. c end
          break
        end
      end
    end
    if type(init) == "function" and src then
      local _, _, body = src:find("\n(.*)$")
      if body then out[#out + 1] = body end
    end
  end
  local methods = {}
  for k, v in next, store do
    if type(k) == "string" and type(v) == "function" and k:sub(1, 1) ~= "_" then methods[#methods + 1] = k end
  end
  table.sort(methods)
  if #methods > 0 then out[#out + 1] = "  methods: " .. table.concat(methods, ", ") end
  return table.concat(out, "\n")
end

-- f's help; name: what the user called it, qual: its name in mindtorch ("torch.Tensor.mean" for
-- x:mean), where the operator's schemas are looked up
local function function_text(f, name, qual)
  local shown = name or "function"
  local op_name = (qual and qual:match("^torch[%.:]") and qual) or (name and name:match("^torch[%.:]") and name)
  if debug.getinfo(f, "S").what == "C" then
    if op_name then
      local list = schemas_for(op_name)
      if #list > 0 then return schema_text(shown, list) end
    end
    local lib = name and name:match("^(%a+)%.") or name
    if lib and (STDLIB[lib] or rawget(_G, lib) == f) and not (name or ""):match("^torch") then
      return ("%s: a function of Lua's standard library (the Lua 5.4 manual, section 6)"):format(shown)
    end
    return ("%s: a C function (no schema; doc/reference.md and doc/guide.md list the API)"):format(shown)
  end
  f = unwrap(f)
  local method = name and name:find(":", 1, true)
  local out = { ("%s(%s)"):format(shown, params(f, method)) }
  local src = lua_source(f)
  if src then out[#out + 1] = src end
  -- a Lua function standing for an operator (a wrapper): the operator's schemas too
  if op_name then
    local list = schemas_for(op_name)
    if #list > 0 then out[#out + 1] = schema_text(shown, list) end
  end
  return table.concat(out, "\n")
end

local function list_names(t, title)
  local fns, tables, others = {}, {}, {}
  for k, v in next, t do
    if type(k) == "string" and k:sub(1, 1) ~= "_" then
      local bucket = type(v) == "function" and fns or (type(v) == "table" and tables) or others
      bucket[#bucket + 1] = k
    end
  end
  local out = { title }
  local function add(label, list)
    if #list == 0 then return end
    table.sort(list)
    local line, lines = "", {}
    for _, k in ipairs(list) do
      if #line + #k + 2 > 96 then lines[#lines + 1] = line; line = "" end
      line = line == "" and k or (line .. ", " .. k)
    end
    lines[#lines + 1] = line
    out[#out + 1] = ("  %s (%d):"):format(label, #list)
    for _, l in ipairs(lines) do out[#out + 1] = "    " .. l end
  end
  add("functions", fns)
  add("tables and classes", tables)
  add("values", others)
  return table.concat(out, "\n")
end

-- help.text(x): the help for x (a value, or a name to look up) as a string
function help.text(x, ...)
  if select("#", ...) > 0 then error("help() takes one argument: a value or a name", 2) end
  if x == nil then return GUIDE end
  local name
  if type(x) == "string" then
    name = x
    x = resolve(name)
    if x == nil then
      return ("no help for '%s': nothing of that name (help() shows how to look things up)"):format(name)
    end
  end
  local qual
  if type(x) == "function" or type(x) == "table" then qual = name_index()[x] or name_index(true)[x] end
  name = name or qual
  if class.is_class(x) then return class_text(x, name) end
  if type(x) == "function" then return function_text(x, name, qual) end
  if torch.is_tensor(x) then
    return ("a torch.Tensor: %s, dtype %s, on %s. Its methods: x:<TAB> in the shell, help(torch.Tensor); "
      .. "one of them: help(\"x:name\") or ?x:name"):format(tostring(x.shape), tostring(x.dtype), tostring(x.device))
  end
  local cls = class.type_of(x)
  if cls then
    return ("an instance of %s\n%s"):format(class.name(cls), class_text(cls, nil))
  end
  if type(x) == "table" then
    return list_names(x, ("%s: a table"):format(name or tostring(x)))
  end
  return ("%s: a %s (%s)"):format(name or tostring(x), type(x), tostring(x))
end

-- help(x): print help.text(x)
function help.show(...)
  io.stdout:write(help.text(...), "\n")
  io.stdout:flush()
end

return setmetatable(help, { __call = function(_, ...) return help.show(...) end })
