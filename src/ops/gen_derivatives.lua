-- gen_derivatives.lua: the derivative formulas written in the op declarations, turned into C.
--
-- A declaration's `grad` field says how the gradients of the op's tensor arguments follow from
-- the gradient of its result, in the manner of PyTorch's derivatives.yaml:
--
--   grad = { node = "AsinhBackward0", self = "grad / sqrt(self * self + 1)" }
--
-- Each formula is an expression of `grad` (the result's gradient), `result`, and the op's
-- arguments by name (tensors, and Scalars as numbers), with + - * / ^, comparisons, unary minus,
-- numbers, 'strings' and calls of declared ops by name (`where(c, a, b)`, `masked_fill(g, m, 0)`):
-- the overload is picked from the operand types as the Lua binding would, and missing
-- arguments take their declared defaults. An argument whose formula is "zeros" gets zeros; a
-- Scalar argument of the overload gets no gradient. What each gradient reads (PyTorch saves
-- only those tensors) is found from the names the formula uses. A formula that needs more
-- than an expression is a C function named with `fn` (and its `uses` string), written in
-- src/autograd/deriv_*.c. Formulas may also call the helpers in HELPERS below, C functions
-- declared in src/autograd/formula.h (as derivatives.yaml calls FunctionsManual).
local M = {}

local function fail(op, msg) error(("%s: grad: %s"):format(op.text, msg), 0) end

-- ---- parsing formulas --------------------------------------------------------------------------

local function tokenize(op, s)
  local toks, i = {}, 1
  while i <= #s do
    local c = s:sub(i, i)
    if c:match("%s") then
      i = i + 1
    elseif c:match("[%a_]") then
      local w = s:match("^[%w_]+", i)
      toks[#toks + 1] = { k = "id", v = w }
      i = i + #w
    elseif c:match("%d") or (c == "." and s:sub(i + 1, i + 1):match("%d")) then
      local n = s:match("^%d*%.?%d*[eE][-+]?%d+", i) or s:match("^%d*%.?%d*", i)
      toks[#toks + 1] = { k = "num", v = n }
      i = i + #n
    elseif c == "'" then
      local str = s:match("^'([^']*)'", i) or fail(op, "unterminated string in " .. s)
      toks[#toks + 1] = { k = "str", v = str }
      i = i + #str + 2
    else
      local two = s:sub(i, i + 1)
      if two == "<=" or two == ">=" or two == "==" or two == "~=" then
        toks[#toks + 1] = { k = "op", v = two }
        i = i + 2
      elseif c:match("[-+*/%^(),<>]") then
        toks[#toks + 1] = { k = "op", v = c }
        i = i + 1
      else
        fail(op, ("unexpected '%s' in %s"):format(c, s))
      end
    end
  end
  return toks
end

local function parse_formula(op, s)
  local toks, pos = tokenize(op, s), 1
  local function peek() return toks[pos] end
  local function accept(v)
    local t = toks[pos]
    if t and t.k == "op" and t.v == v then pos = pos + 1; return true end
    return false
  end
  local function expect(v) if not accept(v) then fail(op, ("expected '%s' in %s"):format(v, s)) end end
  local expr
  local function primary()
    local t = peek() or fail(op, "formula ends early: " .. s)
    pos = pos + 1
    if t.k == "num" then return { k = "num", v = t.v } end
    if t.k == "str" then return { k = "str", v = t.v } end
    if t.k == "op" and t.v == "(" then
      local e = expr()
      expect(")")
      return e
    end
    if t.k == "id" then
      if accept("(") then
        local args = {}
        if not accept(")") then
          repeat args[#args + 1] = expr() until not accept(",")
          expect(")")
        end
        return { k = "call", f = t.v, args = args }
      end
      return { k = "name", v = t.v }
    end
    fail(op, ("unexpected '%s' in %s"):format(t.v, s))
  end
  local function power()
    local base = primary()
    if accept("^") then return { k = "bin", op = "^", a = base, b = power() } end
    return base
  end
  local function unary()
    if accept("-") then return { k = "neg", a = unary() } end
    return power()
  end
  local function level(sub, ops)
    return function()
      local a = sub()
      while true do
        local t = peek()
        if not (t and t.k == "op" and ops[t.v]) then return a end
        pos = pos + 1
        a = { k = "bin", op = t.v, a = a, b = sub() }
      end
    end
  end
  local term = level(unary, { ["*"] = true, ["/"] = true })
  local arith = level(term, { ["+"] = true, ["-"] = true })
  expr = level(arith, { ["<"] = true, ["<="] = true, [">"] = true, [">="] = true, ["=="] = true, ["~="] = true })
  local e = expr()
  if pos <= #toks then fail(op, ("unexpected '%s' in %s"):format(toks[pos].v, s)) end
  return e
end

-- ---- typing and C code ---------------------------------------------------------------------------
-- A value is { t = "T", c = <mt_tensor * expression> }, { t = "S", v = <mt_value expression>,
-- d = <double expression> } or { t = "str", c = <C string> }.

local function tensor_arg(a) return a.type.base == "Tensor" and not a.type.list end

local function scalar_of_double(d) return { t = "S", v = ("SD(%s)"):format(d), d = d } end

local function literal(n)
  local i = math.tointeger(tonumber(n))
  if i and not n:find("[.eE]") then return { t = "S", v = ("SI(%d)"):format(i), d = ("%d.0"):format(i), int = i } end
  return scalar_of_double(n)
end

-- @A and @B stand for the left and right operands (a Scalar operand is an mt_value)
local BIN = {
  ["+"] = { TT = "add_Tensor(@A, @B, SI(1))", TS = "add_Scalar(@A, @B, SI(1))", ST = "add_Scalar(@B, @A, SI(1))" },
  ["-"] = { TT = "sub_Tensor(@A, @B, SI(1))", TS = "sub_Scalar(@A, @B, SI(1))", ST = "rsub_Scalar(@B, @A, SI(1))" },
  ["*"] = { TT = "mul_Tensor(@A, @B)", TS = "mul_Scalar(@A, @B)", ST = "mul_Scalar(@B, @A)" },
  ["/"] = { TT = "div_Tensor(@A, @B)", TS = "div_Scalar(@A, @B)" },
  ["^"] = { TT = "pow_Tensor_Tensor(@A, @B)", TS = "pow_Tensor_Scalar(@A, @B)", ST = "pow_Scalar(@A, @B)" },
}
local CMP = { ["<"] = { "lt", "gt" }, ["<="] = { "le", "ge" }, [">"] = { "gt", "lt" }, [">="] = { "ge", "le" },
  ["=="] = { "eq", "eq" }, ["~="] = { "ne", "ne" } }

local function fmt(pattern, a, b)
  return (pattern:gsub("@([AB])", function(w) return w == "A" and a or b end))
end

local function keep(call) return { t = "T", c = ("K(mto_%s)"):format(call) } end

-- a C value for an argument left out of a call: its declared default
local function default_code(a)
  local d = a.default
  if not d then return nil end
  local base = a.type.base
  if d.tag == "NONE" then
    if base == "str" or base == "Generator" then return "NULL" end
    if base == "ScalarType" then return "-1" end
    if base == "Tensor" then return "NULL" end
    if base == "Device" then return "NODEV" end
    if a.type.list then return "(mt_ilist){NULL, -1}" end
    return "MT_NONE"
  end
  if a.type.list then return nil end
  if base == "Scalar" or (a.type.optional and (d.tag == "INT" or d.tag == "DOUBLE")) then
    return d.tag == "INT" and ("SI(%d)"):format(d.v) or ("SD(%.17g)"):format(d.v)
  end
  if d.tag == "INT" then return ("%d"):format(d.v) end
  if d.tag == "DOUBLE" then return ("%.17g"):format(d.v) end
  if d.tag == "BOOL" then return tostring(d.v) end
  if d.tag == "STR" then return ('"%s"'):format(d.v) end
  return nil
end

-- the overload of `name` the operands fit (Tensor, Scalar and str arguments by position)
local function resolve_call(op, ops_by_name, name, vals)
  for _, cand in ipairs(ops_by_name[name] or fail(op, "no op named " .. name)) do
    local codes, ok = {}, true
    for i, a in ipairs(cand.args) do
      local v = vals[i]
      local base = a.type.base
      if v then
        if v.t == "T" and tensor_arg(a) then codes[i] = v.c
        elseif v.t == "S" and base == "Scalar" then codes[i] = v.v
        elseif v.t == "S" and (base == "float") then codes[i] = v.d
        elseif v.t == "S" and (base == "int") and v.int then codes[i] = tostring(v.int)
        elseif v.t == "str" and base == "str" then codes[i] = v.c
        else ok = false; break end
      else
        codes[i] = default_code(a)
        if not codes[i] then ok = false; break end
      end
    end
    if ok and #vals <= #cand.args and #cand.rets == 1 and cand.rets[1].type.base == "Tensor" then
      return keep(("%s(%s)"):format(cand.cname:sub(5), table.concat(codes, ", ")))
    end
  end
  fail(op, "no overload of " .. name .. " takes these operands")
end

-- Helpers written in C that formulas call by name. Each parameter is one of: T (a tensor
-- expression), meta (the name of a tensor argument: its sizes, without saving the tensor),
-- value (the name of any argument: its mt_value, MT_NONE when the overload lacks it), bool (the
-- name of a bool argument, false when the overload lacks it). Trailing parameters may be left out.
local HELPERS = {
  -- sum_backward(grad, self, dim, keepdim): a sum's gradient brought back to self's shape
  sum_backward = { c = "mt_f_sum_backward", params = { "T", "meta", "value", "bool" } },
}

local function helper_call(op, h, args, gen)
  local codes = {}
  for i, kind in ipairs(h.params) do
    local a = args[i]
    if kind == "T" then
      local v = a and gen(a) or fail(op, h.c .. ": argument " .. i .. " is missing")
      if v.t ~= "T" then fail(op, h.c .. ": argument " .. i .. " must be a tensor") end
      codes[i] = v.c
    else
      local idx
      if a then
        if a.k ~= "name" then fail(op, h.c .. ": argument " .. i .. " must be an argument's name") end
        for k, arg in ipairs(op.args) do if arg.name == a.v then idx = k - 1 end end
        if not idx then fail(op, "unknown name " .. a.v) end
      end
      if kind == "meta" then
        codes[i] = idx and ("META(%d)"):format(idx) or fail(op, h.c .. ": argument " .. i .. " is missing")
      elseif kind == "value" then
        codes[i] = idx and ("V(%d)"):format(idx) or "MT_NONE"
      else
        codes[i] = idx and ("V(%d).b"):format(idx) or "false"
      end
    end
  end
  if #args > #h.params then fail(op, h.c .. " takes " .. #h.params .. " arguments") end
  return { t = "T", c = ("%s(b, %s)"):format(h.c, table.concat(codes, ", ")) }
end

local function compile(op, ops_by_name, node, reads)
  local function gen(n)
    if n.k == "num" then return literal(n.v) end
    if n.k == "str" then return { t = "str", c = ('"%s"'):format(n.v) } end
    if n.k == "name" then
      if n.v == "grad" then return { t = "T", c = "G(0)" } end
      if n.v == "result" then reads.result = true; return { t = "T", c = "R(0)" } end
      for i, a in ipairs(op.args) do
        if a.name == n.v then
          if tensor_arg(a) then
            reads[a.name] = true
            return { t = "T", c = ("A(%d)"):format(i - 1) }
          end
          if a.type.base == "Scalar" or a.type.base == "float" or a.type.base == "int" then
            return { t = "S", v = ("V(%d)"):format(i - 1), d = ("NUM(%d)"):format(i - 1) }
          end
          fail(op, "argument " .. n.v .. " cannot be used in a formula")
        end
      end
      fail(op, "unknown name " .. n.v)
    end
    if n.k == "neg" then
      local a = gen(n.a)
      if a.t == "S" then return scalar_of_double(("(-%s)"):format(a.d)) end
      return keep(("neg(%s)"):format(a.c))
    end
    if n.k == "call" and HELPERS[n.f] then return helper_call(op, HELPERS[n.f], n.args, gen) end
    if n.k == "call" then
      local vals = {}
      for i, a in ipairs(n.args) do vals[i] = gen(a) end
      return resolve_call(op, ops_by_name, n.f, vals)
    end
    -- binary
    local a, b = gen(n.a), gen(n.b)
    if a.t == "str" or b.t == "str" then fail(op, "a string is not an operand of " .. n.op) end
    if CMP[n.op] then
      if a.t == "T" then return keep(("%s_%s(%s, %s)"):format(CMP[n.op][1], b.t == "T" and "Tensor" or "Scalar", a.c,
        b.t == "T" and b.c or b.v)) end
      if b.t == "T" then return keep(("%s_Scalar(%s, %s)"):format(CMP[n.op][2], b.c, a.v)) end
      fail(op, "comparison of two numbers")
    end
    if a.t == "S" and b.t == "S" then
      if n.op == "^" then return scalar_of_double(("pow(%s, %s)"):format(a.d, b.d)) end
      return scalar_of_double(("(%s %s %s)"):format(a.d, n.op, b.d))
    end
    local form = (a.t == "T" and "T" or "S") .. (b.t == "T" and "T" or "S")
    if n.op == "/" and form == "ST" then -- number / tensor
      local r = keep(("reciprocal(%s)"):format(b.c))
      if a.int == 1 then return r end
      return keep(("mul_Scalar(%s, %s)"):format(r.c, a.v))
    end
    local pattern = BIN[n.op][form]
    local x = a.t == "T" and a.c or a.v
    local y = b.t == "T" and b.c or b.v
    return keep(fmt(pattern, x, y))
  end
  local v = gen(node)
  if v.t ~= "T" then fail(op, "a formula must give a tensor") end
  return v.c
end

-- ---- per op -------------------------------------------------------------------------------------

-- "AsinhBackward0" from "asinh_" (PyTorch's node names, where they follow the rule)
local function default_node(op)
  local base = op.name:gsub("_$", "")
  local camel = base:gsub("^%l", string.upper):gsub("_(%w)", string.upper)
  return camel .. "Backward0"
end

-- The C of one op's derivative: a formula function (nil when `fn` names one or an earlier op's
-- function has the same body) and the table entry.
local fns_by_body = {}
function M.derivative(op, ops_by_name)
  local g = op.decl.grad
  local node = g.node
  if type(node) == "table" then node = node[op.overload] or node[1] end
  node = node or default_node(op)
  local flags = g.flags or "0"
  local message = g.message and ('"%s"'):format(g.message) or "NULL"
  if g.fn then
    return nil, ('    {%s, "%s", %s, "%s", %s, %s, NULL, 0, {0}, {0}},'):format(op.id, node, g.fn, g.uses or "",
      flags, message)
  end
  local body, uses = {}, {}
  for i, a in ipairs(op.args) do
    local formula = g[a.name]
    if formula and tensor_arg(a) then
      local reads = {}
      local code
      if formula == "zeros" then
        code = ("mt_bw_zeros(b, %d)"):format(i - 1)
      else
        code = compile(op, ops_by_name, parse_formula(op, formula), reads)
      end
      body[#body + 1] = ("    if (NEEDS(%d)) SET(%d, %s);"):format(i - 1, i - 1, code)
      local names = {}
      for _, b in ipairs(op.args) do if reads[b.name] then names[#names + 1] = b.name end end
      if reads.result then names[#names + 1] = "result" end
      uses[#uses + 1] = a.name .. ":" .. (#names > 0 and (" " .. table.concat(names, ", ")) or "")
    end
  end
  if #body == 0 then fail(op, "no formula for any tensor argument") end
  -- ops with the same formulas (the in-place and Tensor/Scalar forms) share one function
  local text = table.concat(body, "\n")
  local fname = fns_by_body[text]
  local fn
  if not fname then
    fname = "dgen_" .. op.cname:sub(5)
    fns_by_body[text] = fname
    fn = ("static void %s(mt_bw *b) {\n%s\n}"):format(fname, text)
  end
  return fn, ('    {%s, "%s", %s, "%s", %s, %s, NULL, 0, {0}, {0}},'):format(op.id, node, fname,
    table.concat(uses, "; "), flags, message)
end

-- build/gen/mt_derivatives_gen.c: every declared formula and the table that registers them
function M.write(ops, ops_by_name)
  local fns, entries, externs = {}, {}, {}
  for _, op in ipairs(ops) do
    if op.decl.grad then
      local fn, entry = M.derivative(op, ops_by_name)
      if fn then fns[#fns + 1] = fn
      elseif op.decl.grad.fn and not op.decl.grad.fn:match("^mt_bw_") and not externs[op.decl.grad.fn] then
        externs[op.decl.grad.fn] = true
        externs[#externs + 1] = ("void %s(mt_bw *b);"):format(op.decl.grad.fn)
      end
      entries[#entries + 1] = entry
    end
  end
  local C = {
    "/* mt_derivatives_gen.c: GENERATED by src/ops/opgen.lua from the `grad` fields of the op",
    " * declarations in src/ops/. Do not edit. */",
    '#include "autograd/formula.h"',
    '#include "mt_ops_gen.h"',
    "",
    "/* formulas written in C (src/autograd/deriv_*.c) */",
  }
  for _, e in ipairs(externs) do C[#C + 1] = e end
  C[#C + 1] = ""
  for _, f in ipairs(fns) do C[#C + 1] = f end
  C[#C + 1] = ""
  C[#C + 1] = "static mt_derivative table[] = {"
  for _, e in ipairs(entries) do C[#C + 1] = e end
  C[#C + 1] = "};"
  C[#C + 1] = ""
  C[#C + 1] = "void mt_deriv_declared_register(void) { mt_derivatives_register(table, (int)MT_ARRAY_LEN(table)); }"
  return C
end

return M
