-- opgen.lua: turns the operator declarations of src/ops/*.lua into C.
--
--   lua5.4 src/ops/opgen.lua OUTDIR decl1.lua decl2.lua ...
--
-- writes OUTDIR/mt_ops_gen.h (op ids and typed C wrappers), OUTDIR/mt_ops_gen.c (the schema
-- table the dispatcher and the Lua binding read), OUTDIR/reference.md (one line per op), and
-- what the declarations' other fields say: OUTDIR/mt_ew_gen.{h,c} (element-wise descriptions,
-- gen_elementwise.lua), OUTDIR/mt_red_gen.{h,c} (reductions and ops along a dim,
-- gen_reductions.lua) and OUTDIR/mt_derivatives_gen.c (derivative formulas, gen_derivatives.lua).
-- A declaration file calls op{ "schema", variants = "function, method", doc = "..." } once
-- per operator; doc/contributing.md walks through adding one. The schema language is PyTorch's, plus four types that mark where the Lua
-- convention of 1-based numbering applies: Dim (a dimension), Dim[], Index (a position
-- along a dimension) and IndexTensor (a tensor of positions). Their defaults are written as
-- a Lua user sees them (Dim start_dim=1) and stored 0-based.

local outdir = assert(arg[1], "usage: opgen.lua OUTDIR decl.lua...")
local here = arg[0]:match("^(.*)/") or "."
local schema_text = dofile(here .. "/schema_text.lua")
local gen_elementwise = dofile(here .. "/gen_elementwise.lua")
local gen_derivatives = dofile(here .. "/gen_derivatives.lua")
local gen_reductions = dofile(here .. "/gen_reductions.lua")
local ops = {}

local function fail(decl, msg)
  error(("%s: %s"):format(decl and decl[1] or "?", msg), 0)
end

-- ---- parsing ------------------------------------------------------------------------------

local base_types = {
  Tensor = "MT_A_TENSOR", IndexTensor = "MT_A_INDEXTENSOR", int = "MT_A_INT", SymInt = "MT_A_INT",
  Dim = "MT_A_DIM", Index = "MT_A_INDEX", float = "MT_A_FLOAT", bool = "MT_A_BOOL",
  Scalar = "MT_A_SCALAR", ScalarType = "MT_A_DTYPE", Device = "MT_A_DEVICE", str = "MT_A_STR",
  Generator = "MT_A_GENERATOR",
}
local list_types = {
  Tensor = "MT_A_TENSORLIST", IndexTensor = "MT_A_INDEXTENSORLIST", int = "MT_A_INTLIST", SymInt = "MT_A_INTLIST", Dim = "MT_A_DIMLIST",
  float = "MT_A_FLOATLIST",
}

local function parse_type(decl, ty)
  local t = { text = ty }
  local base, rest = ty:match("^([%a_]+)(.*)$")
  if not base then fail(decl, "bad type " .. ty) end
  local alias = rest:match("^%((%w!?)%)")
  if alias then
    t.alias = alias:find("!") and "MT_ALIAS_WRITE" or "MT_ALIAS_VIEW"
    rest = rest:gsub("^%(%w!?%)", "")
  end
  if rest:match("^%?%[") then -- Tensor?[]: a list whose entries may be None (false in Lua)
    t.optional_entries = true
    rest = rest:sub(2)
  end
  local len = rest:match("^%[(%d*)%]")
  if len then
    t.list = true
    t.fixed_len = tonumber(len) or 0
    rest = rest:gsub("^%[%d*%]", "")
  end
  if rest == "?" then
    t.optional = true
  elseif rest ~= "" then
    fail(decl, "bad type " .. ty)
  end
  t.base = base
  t.kind = t.list and list_types[base] or base_types[base]
  if not t.kind then fail(decl, "unknown type " .. ty) end
  return t
end

local function parse_default(decl, arg, text)
  local t = arg.type
  if text == "None" then return { tag = "NONE" } end
  if text == "True" or text == "False" then return { tag = "BOOL", v = text == "True" } end
  if t.list then
    local items = {}
    if text:match("^%[") then
      for v in text:gmatch("%-?%d+") do items[#items + 1] = tonumber(v) end
    else
      local v = tonumber(text) or fail(decl, "bad default " .. text)
      for i = 1, math.max(t.fixed_len, 1) do items[i] = v end
    end
    if t.base == "Dim" then
      for i, v in ipairs(items) do items[i] = v > 0 and v - 1 or v end
    end
    return { tag = t.base == "float" and "DOUBLELIST" or "INTLIST", list = items }
  end
  if text:match("^['\"]") then return { tag = "STR", v = text:sub(2, -2) } end
  if t.base == "ScalarType" then return { tag = "DTYPE", v = "MT_" .. text:upper() } end
  local n = tonumber(text)
  if not n then fail(decl, "bad default " .. text) end
  if t.base == "Dim" or t.base == "Index" then
    if n == 0 then fail(decl, "Dim/Index defaults are 1-based: 0 is not valid") end
    n = n > 0 and n - 1 or n
  end
  if t.base == "float" or (t.base == "Scalar" and text:find("[%.eE]")) then
    return { tag = "DOUBLE", v = n + 0.0 }
  end
  if t.base == "bool" then return { tag = "BOOL", v = n ~= 0 } end
  return { tag = "INT", v = math.tointeger(n) or fail(decl, "bad integer default " .. text) }
end

local function parse(decl)
  local text = decl[1]
  local parts, err = schema_text.parse(text)
  if not parts then fail(decl, err) end
  local name, overload = parts.name, parts.overload
  local op = { name = name, overload = overload, text = text, args = {}, rets = {}, decl = decl }
  for _, a in ipairs(parts.args) do
    local arg = { name = a.name, type = parse_type(decl, a.type), kwonly = a.kwonly }
    if a.default then arg.default = parse_default(decl, arg, a.default) end
    op.args[#op.args + 1] = arg
  end
  local rets = parts.rets
  if rets ~= "()" then
    local list = rets:match("^%((.*)%)$") and schema_text.split_commas(rets:sub(2, -2)) or { rets }
    for _, r in ipairs(list) do
      local ty, rname = r:match("^(%S+)%s+([%w_]+)$")
      ty = ty or r
      op.rets[#op.rets + 1] = { name = rname or "", type = parse_type(decl, ty) }
    end
  end
  -- flags
  local variants = decl.variants or "function"
  local flags = {}
  if variants:find("function") then flags[#flags + 1] = "MT_S_FUNCTION" end
  if variants:find("method") then flags[#flags + 1] = "MT_S_METHOD" end
  if name:sub(-1) == "_" then flags[#flags + 1] = "MT_S_INPLACE" end
  for _, r in ipairs(op.rets) do
    if r.type.alias == "MT_ALIAS_VIEW" then flags[#flags + 1] = "MT_S_VIEW"; break end
  end
  local has_tensor = false
  for _, a in ipairs(op.args) do
    if a.type.base == "Tensor" or a.type.base == "IndexTensor" then has_tensor = true end
    if a.type.alias == "MT_ALIAS_WRITE" and not name:find("_$") then
      flags[#flags + 1] = "MT_S_INPLACE"
    end
  end
  if not has_tensor then flags[#flags + 1] = "MT_S_FACTORY" end
  if decl.mixed_device then flags[#flags + 1] = "MT_S_MIXED_DEVICE" end
  if decl.hidden then flags[#flags + 1] = "MT_S_HIDDEN" end
  -- no gradient flows through ops that return only indices or plain values (argmax, nonzero, equal)
  local differentiable_ret = false
  for _, r in ipairs(op.rets) do
    if r.type.base == "Tensor" then differentiable_ret = true end
  end
  if decl.nondiff or (#op.rets > 0 and not differentiable_ret and not name:find("_$")) then
    flags[#flags + 1] = "MT_S_NONDIFF"
  end
  local seen = {}
  op.flags = {}
  for _, f in ipairs(flags) do
    if not seen[f] then seen[f] = true; op.flags[#op.flags + 1] = f end
  end
  op.doc = decl.doc or ""
  -- the generic kernel that serves the op (backends register one kernel per group)
  local group = decl.group or (decl.ew and "elementwise") or (decl.reduce and "reduction")
    or (decl.dimop and "dimop") or "none"
  op.group = "MT_GROUP_" .. group:upper()
  op.id = "MT_OP_" .. name .. (overload ~= "" and ("_" .. overload) or "")
  op.cname = "mto_" .. name .. (overload ~= "" and ("_" .. overload) or "")
  return op
end

-- ---- declarations ---------------------------------------------------------------------------

local files = {}
for i = 2, #arg do files[#files + 1] = arg[i] end
for _, f in ipairs(files) do
  local env = setmetatable({
    op = function(decl) ops[#ops + 1] = parse(decl) end,
  }, { __index = _G })
  local chunk = assert(loadfile(f, "t", env))
  chunk()
end
do
  local ids = {}
  for _, op in ipairs(ops) do
    if ids[op.id] then error("operator declared twice: " .. op.text, 0) end
    ids[op.id] = true
  end
end

-- ---- C output --------------------------------------------------------------------------------

local function cstr(s)
  return '"' .. s:gsub("\\", "\\\\"):gsub('"', '\\"'):gsub("\n", "\\n") .. '"'
end

local function cdefault(op, i, d)
  if not d then return "{.tag = MT_V_NONE}" end
  if d.tag == "NONE" then return "{.tag = MT_V_NONE}" end
  if d.tag == "BOOL" then return ("{.tag = MT_V_BOOL, .b = %s}"):format(tostring(d.v)) end
  if d.tag == "INT" then return ("{.tag = MT_V_INT, .i = %dLL}"):format(d.v) end
  if d.tag == "DOUBLE" then return ("{.tag = MT_V_DOUBLE, .d = %.17g}"):format(d.v) end
  if d.tag == "STR" then return ("{.tag = MT_V_STR, .s = %s}"):format(cstr(d.v)) end
  if d.tag == "DTYPE" then return ("{.tag = MT_V_DTYPE, .dtype = %s}"):format(d.v) end
  if d.tag == "INTLIST" or d.tag == "DOUBLELIST" then
    local arr = ("%s_d%d"):format(op.cname, i)
    return ("{.tag = MT_V_%s, .n = %d, .%s = %s}"):format(d.tag, #d.list,
      d.tag == "INTLIST" and "il" or "dl", #d.list > 0 and arr or "NULL"), arr, d
  end
  error("default")
end

local H, C = {}, {}
local function h(s) H[#H + 1] = s end
local function c(s) C[#C + 1] = s end

c("/* mt_ops_gen.c: GENERATED by src/ops/opgen.lua from the declarations in src/ops/. Do not edit. */")
c('#include "mt_schema.h"')
c("")
local entries = {}
for _, op in ipairs(ops) do
  local arglines = {}
  for i, a in ipairs(op.args) do
    local def, arr, d = cdefault(op, i, a.default)
    if arr then
      local vals = {}
      for _, v in ipairs(d.list) do vals[#vals + 1] = tostring(v) end
      if #vals > 0 then
        c(("static const %s %s[] = {%s};"):format(d.tag == "INTLIST" and "int64_t" or "double", arr,
          table.concat(vals, ", ")))
      end
    end
    arglines[#arglines + 1] = ("    {%s, %s, %d, %d, %s, %d, %d, %s},"):format(cstr(a.name), a.type.kind,
      a.type.optional and 1 or 0, a.kwonly and 1 or 0, a.type.alias or "MT_ALIAS_NONE",
      a.type.fixed_len or 0, a.default and 1 or 0, def)
  end
  if #arglines > 0 then
    c(("static const mt_arg %s_args[] = {"):format(op.cname))
    for _, l in ipairs(arglines) do c(l) end
    c("};")
  end
  if #op.rets > 0 then
    c(("static const mt_ret %s_rets[] = {"):format(op.cname))
    for _, r in ipairs(op.rets) do
      c(("    {%s, %s, %s},"):format(cstr(r.name), r.type.kind, r.type.alias or "MT_ALIAS_NONE"))
    end
    c("};")
  end
  entries[#entries + 1] = ("    {%s, %s, %s, %s, %s, %s, %d, %d, %s, %s},"):format(cstr(op.name),
    cstr(op.overload), cstr(op.text), cstr(op.doc), #op.flags > 0 and table.concat(op.flags, " | ") or "0",
    op.group, #op.args, #op.rets, #op.args > 0 and (op.cname .. "_args") or "NULL",
    #op.rets > 0 and (op.cname .. "_rets") or "NULL")
end
c("")
c("const mt_schema mt_schemas[] = {")
for _, e in ipairs(entries) do c(e) end
c("};")
c(("const int mt_num_schemas = %d;"):format(#ops))

-- typed wrappers
local function ctype(a)
  local t = a.type
  if t.kind == "MT_A_TENSOR" or t.kind == "MT_A_INDEXTENSOR" then return "mt_tensor *" end
  if t.kind == "MT_A_TENSORLIST" or t.kind == "MT_A_INDEXTENSORLIST" then return "mt_tensor **", true end
  if t.list then return "mt_ilist " end
  if t.optional then
    if t.base == "ScalarType" then return "int " end
    if t.base == "Device" then return "mt_device " end
    if t.base == "str" then return "const char *" end
    if t.base == "Generator" then return "void *" end
    return "mt_value "
  end
  if t.base == "Scalar" then return "mt_scalar " end
  if t.kind == "MT_A_INT" or t.kind == "MT_A_DIM" or t.kind == "MT_A_INDEX" then return "int64_t " end
  if t.base == "float" then return "double " end
  if t.base == "bool" then return "bool " end
  if t.base == "ScalarType" then return "mt_dtype " end
  if t.base == "Device" then return "mt_device " end
  if t.base == "str" then return "const char *" end
  if t.base == "Generator" then return "void *" end
  error("no C type for " .. t.text)
end

local function boxed(a, n)
  local t = a.type
  if t.kind == "MT_A_TENSOR" or t.kind == "MT_A_INDEXTENSOR" then return ("mt_vtensor(%s)"):format(n) end
  if t.kind == "MT_A_TENSORLIST" or t.kind == "MT_A_INDEXTENSORLIST" then
    return ("mt_vtlist(%s, %s_n)"):format(n, n)
  end
  if t.list then
    return ("(%s.n < 0 ? MT_NONE : (mt_value){.tag = MT_V_INTLIST, .n = %s.n, .il = %s.v})"):format(n, n, n)
  end
  if t.optional then
    if t.base == "ScalarType" then return ("mt_vdtype(%s)"):format(n) end
    if t.base == "Device" then return ("mt_vdevice(%s)"):format(n) end
    if t.base == "str" then return ("mt_vstr(%s)"):format(n) end
    if t.base == "Generator" then
      return ("(%s ? (mt_value){.tag = MT_V_GENERATOR, .gen = %s} : MT_NONE)"):format(n, n)
    end
    return n
  end
  if t.base == "Scalar" then return n end
  if t.kind == "MT_A_INT" or t.kind == "MT_A_DIM" or t.kind == "MT_A_INDEX" then return ("mt_vint(%s)"):format(n) end
  if t.base == "float" then return ("mt_vdouble(%s)"):format(n) end
  if t.base == "bool" then return ("mt_vbool(%s)"):format(n) end
  if t.base == "ScalarType" then return ("mt_vdtype((int)%s)"):format(n) end
  if t.base == "Device" then return ("mt_vdevice(%s)"):format(n) end
  if t.base == "str" then return ("mt_vstr(%s)"):format(n) end
  if t.base == "Generator" then return ("(mt_value){.tag = MT_V_GENERATOR, .gen = %s}"):format(n) end
end

local reserved = { default = true, int = true, float = true, double = true, char = true, long = true,
  short = true, signed = true, unsigned = true, const = true, register = true, ["if"] = true }
local function cname_arg(n) return reserved[n] and (n .. "_") or n end

h("/* mt_ops_gen.h: GENERATED by src/ops/opgen.lua from the declarations in src/ops/. Do not edit.")
h(" * Op ids and typed C wrappers: mto_<name>_<overload>(...) calls the op through the")
h(" * dispatcher. A single-tensor result is returned (NULL on error); other results come")
h(" * back through out-parameters with an int status (0 ok, -1 error). */")
h("#ifndef MT_OPS_GEN_H")
h("#define MT_OPS_GEN_H")
h('#include "mt_dispatch.h"')
h("")
h("enum mt_opid {")
for _, op in ipairs(ops) do h(("    %s,"):format(op.id)) end
h("    MT_NUM_OPS")
h("};")
h("")
for _, op in ipairs(ops) do
  local params, boxes = {}, {}
  for _, a in ipairs(op.args) do
    local ty, two = ctype(a)
    local n = cname_arg(a.name)
    params[#params + 1] = ty .. n
    if two then params[#params + 1] = "int " .. n .. "_n" end
    boxes[#boxes + 1] = boxed(a, n)
  end
  local nr = #op.rets
  local single = nr == 1 and (op.rets[1].type.kind == "MT_A_TENSOR" or op.rets[1].type.kind == "MT_A_INDEXTENSOR")
  local rettype = single and "mt_tensor *" or "int "
  if not single then
    for i, r in ipairs(op.rets) do
      local rn = r.name ~= "" and r.name or ("out" .. i)
      if r.type.kind == "MT_A_TENSOR" or r.type.kind == "MT_A_INDEXTENSOR" then
        params[#params + 1] = "mt_tensor **" .. rn
      elseif r.type.kind == "MT_A_TENSORLIST" then
        params[#params + 1] = "mt_tlist *" .. rn
      else
        params[#params + 1] = "mt_value *" .. rn
      end
    end
  end
  h(("static inline %s%s(%s) {"):format(rettype, op.cname, #params > 0 and table.concat(params, ", ") or "void"))
  h(("    mt_value a_[%d] = {%s};"):format(math.max(#boxes, 1), #boxes > 0 and table.concat(boxes, ", ") or "MT_NONE"))
  h(("    mt_value r_[%d];"):format(math.max(nr, 1)))
  if single then
    h(("    return mt_call_op(%s, a_, r_) ? NULL : r_[0].t;"):format(op.id))
  else
    h(("    if (mt_call_op(%s, a_, r_)) return -1;"):format(op.id))
    for i, r in ipairs(op.rets) do
      local rn = r.name ~= "" and r.name or ("out" .. i)
      if r.type.kind == "MT_A_TENSOR" or r.type.kind == "MT_A_INDEXTENSOR" then
        h(("    *%s = r_[%d].t;"):format(rn, i - 1))
      elseif r.type.kind == "MT_A_TENSORLIST" then
        h(("    %s->v = r_[%d].tl;"):format(rn, i - 1))
        h(("    %s->n = r_[%d].n;"):format(rn, i - 1))
      else
        h(("    *%s = r_[%d];"):format(rn, i - 1))
      end
    end
    h("    return 0;")
  end
  h("}")
end
h("")
h("#endif")

-- ---- reference -----------------------------------------------------------------------------

local R = {}
R[#R + 1] = "# Operator reference"
R[#R + 1] = ""
R[#R + 1] = "Generated from the operator schemas in `src/ops/` by `src/ops/opgen.lua`; do not edit."
R[#R + 1] = "Types `Dim`, `Index` and `IndexTensor` are 1-based, as everywhere in mindtorch's Lua API."
R[#R + 1] = "Variants: `torch.f(...)` (function) and `x:f(...)` (method)."
R[#R + 1] = ""
R[#R + 1] = "| op | variants | schema | description |"
R[#R + 1] = "|---|---|---|---|"
for _, op in ipairs(ops) do
  if not op.decl.hidden then
    R[#R + 1] = ("| `%s` | %s | `%s` | %s |"):format(op.name, op.decl.variants or "function",
      op.text:gsub("|", "\\|"), op.doc)
  end
end

local function write(path, lines)
  local new = table.concat(lines, "\n") .. "\n"
  local f = io.open(path, "rb")
  if f then
    local old = f:read("a")
    f:close()
    if old == new then return end -- keep the timestamp: nothing recompiles needlessly
  end
  f = assert(io.open(path, "wb"))
  f:write(new)
  f:close()
end

local ops_by_name = {}
for _, op in ipairs(ops) do
  ops_by_name[op.name] = ops_by_name[op.name] or {}
  table.insert(ops_by_name[op.name], op)
end
local EH, EC = gen_elementwise.write(ops)
write(outdir .. "/mt_ew_gen.h", EH)
write(outdir .. "/mt_ew_gen.c", EC)
local RH, RC = gen_reductions.write(ops)
write(outdir .. "/mt_red_gen.h", RH)
write(outdir .. "/mt_red_gen.c", RC)
write(outdir .. "/mt_derivatives_gen.c", gen_derivatives.write(ops, ops_by_name))
write(outdir .. "/mt_ops_gen.h", H)
write(outdir .. "/mt_ops_gen.c", C)
write(outdir .. "/reference.md", R)
