-- api_fuzz.lua: the Lua-level API fuzzer. It reads the operator schemas (src/ops/*.lua, the
-- declarations the C tables are generated from), then calls torch functions and tensor methods
-- with edge-case arguments of each declared type under pcall: every call must return or raise
-- a plain Lua error (a message with no C file name); a crash, a sanitizer report or a hang is a
-- finding. Deterministic by seed, so a finding replays.
--
--   luamt tests/fuzz/api_fuzz.lua [--seed N] [--calls N] [--log FILE] [--only NAME]
--
-- --log writes each call before it runs (flushed), so the last line names the call that
-- crashed; --only limits the calls to one op name. Run it with a memory limit (ulimit -v):
-- sizes near the limit are among the edge cases.
local torch = require "mindtorch"

local opts = { seed = 1, calls = 2000 }
do
  local i = 1
  while arg and arg[i] do
    local k, v = arg[i]:match("^%-%-(%w+)$"), arg[i + 1]
    if not k or v == nil then error("usage: api_fuzz.lua [--seed N] [--calls N] [--log FILE] [--only NAME]", 0) end
    opts[k] = tonumber(v) or v
    i = i + 2
  end
end

-- ---- the schemas --------------------------------------------------------------------------------
local schemas = {}
do
  local dir = "src/ops/"
  local p = assert(io.popen("ls " .. dir))
  for f in p:lines() do
    if f:match("%.lua$") and f ~= "opgen.lua" and f ~= "schema_text.lua" then
      local env = setmetatable({
        op = function(decl) schemas[#schemas + 1] = { text = decl[1], variants = decl.variants or "function" } end,
      }, { __index = _G })
      assert(loadfile(dir .. f, "t", env))()
    end
  end
  p:close()
end

local schema_text = dofile("src/ops/schema_text.lua")
local ops = {}
for _, s in ipairs(schemas) do
  local parts = assert(schema_text.parse(s.text))
  local name = parts.name
  local op = { name = name, text = s.text, args = {}, fn = s.variants:find("function") ~= nil,
    method = s.variants:find("method") ~= nil }
  for _, a in ipairs(parts.args) do
    op.args[#op.args + 1] = { type = a.type, name = a.name, default = a.default ~= nil, kwonly = a.kwonly }
  end
  if (not opts.only or opts.only == name) and (op.fn and torch[name] or op.method) then ops[#ops + 1] = op end
end
assert(#ops > 0, "no operator matches")

-- ---- deterministic choices ----------------------------------------------------------------------
local state = opts.seed
local function rand(n) -- 1..n, a 48-bit LCG (the same sequence on every machine)
  state = (state * 25214903917 + 11) % (1 << 48)
  return (state >> 17) % n + 1
end
local function pick(t) return t[rand(#t)] end

-- ---- edge-case values per type (each a function: fresh tensors every call) ----------------------
local huge = math.maxinteger
local function shrunk()
  local t = torch.ones(3)
  t:untyped_storage():resize_(4)
  return t
end
local tensors = {
  { "zeros(2,3)", function() return torch.zeros(2, 3) end },
  { "randn(3,4)", function() return torch.randn(3, 4) end },
  { "empty(0)", function() return torch.empty(0) end },
  { "empty(2,0,3)", function() return torch.empty(2, 0, 3) end },
  { "tensor(1.5)", function() return torch.tensor(1.5) end },
  { "tensor(3)", function() return torch.tensor(3) end },
  { "int64 {1,2,3}", function() return torch.tensor { 1, 2, 3 } end },
  { "int64 {0,-1,9}", function() return torch.tensor { 0, -1, 9 } end },
  { "bool", function() return torch.tensor { true, false } end },
  { "float16 (2,2)", function() return torch.ones(2, 2, { dtype = torch.float16 }) end },
  { "float64 (4)", function() return torch.arange(4.0, { dtype = torch.float64 }) end },
  { "uint8 (3)", function() return torch.tensor({ 1, 2, 255 }, { dtype = torch.uint8 }) end },
  { "t() view", function() return torch.randn(3, 2):t() end },
  { "narrowed view", function() return torch.randn(5, 4):narrow(1, 2, 3) end },
  { "expanded (1)->(65536)", function() return torch.ones(1):expand(65536) end },
  { "expanded (1,1)->(3000,3000)", function() return torch.ones(1, 1):expand(3000, 3000) end },
  { "meta (2,3)", function() return torch.empty(2, 3, { device = "meta" }) end },
  { "requires_grad (3)", function() return torch.randn(3, { requires_grad = true }) end },
  { "nan/inf", function() return torch.tensor { 0 / 0, math.huge, -math.huge } end },
  { "shrunk storage", shrunk },
  { "6-d", function() return torch.zeros(1, 2, 1, 2, 1, 2) end },
}
local ints = { 0, 1, -1, 2, 3, 7, -5, huge, math.mininteger, 1 << 31, 1 << 40, -(1 << 40), 1 << 62 }
local dims = { 1, 2, -1, 0, 3, 7, -9, huge, math.mininteger }
local scalars = { 0, 1, -1, 2.5, 0 / 0, math.huge, -math.huge, true, false, huge, math.mininteger, 1e308 }
local floats = { 0.0, 1.0, -1.0, 0.5, 0 / 0, math.huge, -math.huge, 1e-320, 1e308 }
local strs = { "", "mean", "sum", "none", "floor", "trunc", "x", "reflect", ("a"):rep(300),
  "channels_last", "channels_last_3d", "contiguous_format", "preserve_format" }
local dtypes = { torch.float32, torch.float64, torch.float16, torch.int64, torch.int8, torch.uint8, torch.bool }
local devices = { "cpu", "meta", "cpu:0", "bogus", "meta:7" }
local int_lists = {
  {}, { 2 }, { 2, 3 }, { -1 }, { 0 }, { 3, -1 }, { 1 << 62, 4 }, { huge }, { 1 << 32, 1 << 32 },
  { -2, -2 }, { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 },
  { 2.5 }, { "a" },
}
local len_bombs = {
  { "__len=-1", function() return setmetatable({}, { __len = function() return -1 end }) end },
  { "__len=2^40", function() return setmetatable({}, { __len = function() return 1 << 40 end }) end },
}

local function value_for(ty)
  local base = ty:match("^([%a_]+)")
  local list = ty:find("%[") ~= nil
  local optional = ty:find("%?") ~= nil
  if optional and rand(6) == 1 then return nil, "nil" end
  if rand(25) == 1 then -- a value of the wrong kind now and then
    local odd = { { "string", "x" }, { "table", {} }, { "function", function() end }, { "nan", 0 / 0 } }
    local o = pick(odd)
    return o[2], o[1]
  end
  if list and (base == "Tensor" or base == "IndexTensor") then
    if rand(8) == 1 then local b = pick(len_bombs); return b[2](), b[1] end
    local n, out, desc = rand(4) - 1, {}, {}
    for i = 1, n do
      local t = pick(tensors)
      out[i], desc[i] = t[2](), t[1]
    end
    return out, "{" .. table.concat(desc, ", ") .. "}"
  elseif base == "Tensor" or base == "IndexTensor" then
    local t = pick(tensors)
    return t[2](), t[1]
  elseif list and (base == "int" or base == "SymInt" or base == "Dim" or base == "float") then
    if rand(10) == 1 then local b = pick(len_bombs); return b[2](), b[1] end
    local l = pick(int_lists)
    local parts = {}
    for i, v in ipairs(l) do parts[i] = tostring(v) end
    return l, "{" .. table.concat(parts, ", ") .. "}"
  elseif base == "int" or base == "SymInt" or base == "Index" then
    local v = pick(ints); return v, tostring(v)
  elseif base == "Dim" then
    local v = pick(dims); return v, tostring(v)
  elseif base == "Scalar" then
    local v = pick(scalars); return v, tostring(v)
  elseif base == "float" then
    local v = pick(floats); return v, tostring(v)
  elseif base == "bool" then
    local v = rand(2) == 1; return v, tostring(v)
  elseif base == "str" then
    local v = pick(strs); return v, ("%q"):format(v:sub(1, 20))
  elseif base == "ScalarType" then
    local v = pick(dtypes); return v, tostring(v)
  elseif base == "Device" then
    local v = pick(devices); return v, v
  elseif base == "Generator" then
    return torch.Generator(), "Generator"
  end
  return nil, "nil"
end

-- ---- the calls ------------------------------------------------------------------------------------
local log = opts.log and assert(io.open(opts.log, "w"))
local function clean_error(err)
  return type(err) == "string" and #err > 0 and not err:find("%.c:%d+")
end

local findings, errors, returns = {}, 0, 0
for call = 1, opts.calls do
  local op = pick(ops)
  local args, desc, n = {}, {}, 0
  local kw
  for _, a in ipairs(op.args) do
    if a.default and rand(3) == 1 then
      -- leave it to its default
    else
      local v, d = value_for(a.type)
      if a.kwonly then
        kw = kw or {}
        kw[a.name] = v
        desc[#desc + 1] = a.name .. "=" .. d
      else
        n = n + 1
        args[n] = v
        desc[#desc + 1] = d
      end
    end
  end
  if kw then n = n + 1; args[n] = kw end
  local as_method = op.method and (not op.fn or rand(2) == 1) and torch.is_tensor(args[1])
  local line = ("#%d %s%s(%s)"):format(call, as_method and "Tensor:" or "torch.", op.name, table.concat(desc, ", "))
  if log then log:write(line, "\n"); log:flush() end
  local ok, err
  if as_method then
    local self = args[1]
    local m = self[op.name]
    if type(m) == "function" then ok, err = pcall(m, table.unpack(args, 1, n)) else ok = true end
  else
    local f = torch[op.name]
    ok, err = pcall(f, table.unpack(args, 1, n))
  end
  if ok then
    returns = returns + 1
  else
    errors = errors + 1
    if not clean_error(err) then findings[#findings + 1] = line .. "\n    -> " .. tostring(err) end
  end
  if call % 200 == 0 then collectgarbage() end
end
if log then log:close() end
for _, f in ipairs(findings) do io.stderr:write("finding: ", f, "\n") end
print(("api_fuzz: seed %d, %d calls over %d overloads: %d returned, %d raised errors, %d findings")
  :format(opts.seed, opts.calls, #ops, returns, errors, #findings))
os.exit(#findings == 0 and 0 or 1)
