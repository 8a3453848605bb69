-- harness.lua: compares mindtorch with the goldens PyTorch wrote (tests/contract/goldens).
--
-- A contract spec names its cases exactly as cases/<module>.py does; every golden must have
-- a Lua case and every Lua case a golden, so the two sides cannot drift apart silently.
local torch = require "mindtorch"
local H = {}

local dir = "tests/contract/"

function H.load(module)
  return dofile(dir .. "goldens/" .. module .. ".lua")
end

function H.sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

-- Python's names for the types of values in argument errors -> the Lua names mindtorch uses.
local py_types = {
  str = "string", int = "integer", float = "number", bool = "boolean", NoneType = "nil",
  list = "table", tuple = "table",
}
function H.lua_type_names(msg)
  msg = msg:gsub("SymInts", "ints")
  msg = msg:gsub("(not )(%w+)$", function(p, ty) return p .. (py_types[ty] or ty) end)
  msg = msg:gsub("(element of type )(%w+)", function(p, ty) return p .. (py_types[ty] or ty) end)
  return msg
end

-- PyTorch's 0-based "dim N"/"dimension N" numbers -> mindtorch's 1-based ones.
function H.dims_1based(msg)
  msg = msg:gsub("(%f[%w]dim )(%d+)", function(p, n) return p .. (tonumber(n) + 1) end)
  msg = msg:gsub("(dimension )(%d+)", function(p, n) return p .. (tonumber(n) + 1) end)
  msg = msg:gsub("(for dim: )(%d+)", function(p, n) return p .. (tonumber(n) + 1) end)
  return msg
end

-- "expected to be in range of [-2, 1], but got 2" -> the 1-based range and the value a Lua
-- user wrote for the same dim (got >= 0 is shifted by one).
function H.dim_range_1based(msg)
  return (msg:gsub("%[(%-?%d+), (%-?%d+)%], but got (%-?%d+)", function(lo, hi, got)
    got = tonumber(got)
    return ("[%s, %d], but got %d"):format(lo, tonumber(hi) + 1, got >= 0 and got + 1 or got)
  end))
end

local function compose(...)
  local fns = { ... }
  return function(m)
    for _, f in ipairs(fns) do m = f(m) end
    return m
  end
end
H.compose = compose

-- ---- tensors ------------------------------------------------------------------------------

function H.build(desc)
  local dt = torch[desc.dtype]
  local t
  if desc.device == "meta" then
    t = torch.empty(desc.shape, { dtype = dt, device = "meta" })
  elseif #desc.values == 0 then
    t = torch.zeros(desc.shape, { dtype = dt })
  elseif #desc.shape == 0 then
    t = torch.tensor(desc.values[1], { dtype = dt })
  else
    t = torch.tensor(desc.values, { dtype = dt }):view(desc.shape)
  end
  if desc.requires_grad then t.requires_grad = true end
  return t
end

local function same_number(a, b, tol)
  if type(a) == "boolean" or type(b) == "boolean" then return a == b end
  if a ~= a then return b ~= b end
  if a == b then return true end
  if tol and math.type(a) == "float" and b == b then return math.abs(a - b) <= tol * (1 + math.abs(b)) end
  return a == b and (a ~= 0 or 1 / a == 1 / b or math.type(a) == "integer" or math.type(b) == "integer")
end

-- Check a tensor against a golden description; returns nil or a message saying what differs.
function H.tensor_diff(t, desc, opts)
  opts = opts or {}
  if not torch.is_tensor(t) then return "expected a tensor, got " .. type(t) end
  if t.dtype.name ~= desc.dtype then return ("dtype %s, expected %s"):format(t.dtype.name, desc.dtype) end
  local shape = t:size()
  if #shape ~= #desc.shape then return ("shape %s, expected %d dims"):format(tostring(shape), #desc.shape) end
  for i = 1, #shape do
    if shape[i] ~= desc.shape[i] then
      return ("shape %s, expected {%s}"):format(tostring(shape), table.concat(desc.shape, ", "))
    end
  end
  if not opts.ignore_strides then
    local st = t:stride()
    for i = 1, #st do
      if st[i] ~= desc.strides[i] then
        return ("strides {%s}, expected {%s}"):format(table.concat(st, ", "), table.concat(desc.strides, ", "))
      end
    end
    if opts.check_offset and t:storage_offset() ~= desc.offset then
      return ("storage offset %d, expected %d"):format(t:storage_offset(), desc.offset)
    end
  end
  if tostring(t.device) ~= desc.device and not (desc.device == "cpu" and t.device.type == "cpu") then
    return ("device %s, expected %s"):format(tostring(t.device), desc.device)
  end
  if desc.values then
    local flat = t:reshape(-1):tolist()
    if #flat ~= #desc.values then return ("%d values, expected %d"):format(#flat, #desc.values) end
    for i = 1, #flat do
      if not same_number(flat[i], desc.values[i], opts.tol) then
        return ("value %d is %s, expected %s"):format(i, tostring(flat[i]), tostring(desc.values[i]))
      end
    end
  end
  if t.requires_grad ~= desc.requires_grad then
    return ("requires_grad %s, expected %s"):format(tostring(t.requires_grad), tostring(desc.requires_grad))
  end
end

-- ---- running cases ---------------------------------------------------------------------------

local function describe_value(v)
  if torch.is_tensor(v) then return tostring(v) end
  return tostring(v)
end

local function check_plain(got, want)
  if type(want) == "table" then
    assert.are.same(want, got)
  elseif type(want) == "number" and math.type(want) == "float" then
    assert.is_true(same_number(got, want), ("got %s, expected %s"):format(tostring(got), tostring(want)))
  else
    assert.are.equal(want, got)
  end
end

-- One case: a function, or {fn, expect = transform-of-PyTorch's-message, tol = ..., ...}.
function H.check(golden, case)
  local fn, opts = case, {}
  if type(case) == "table" then fn, opts = case[1], case end
  if golden.error then
    local ok, err = pcall(fn)
    assert(not ok, "expected the error: " .. golden.error)
    local want = opts.expect and opts.expect(golden.error) or golden.error
    err = tostring(err):gsub("^[^:\n]*:%d+: ", "") -- a Lua position added by error(msg, level)
    assert.are.equal(want, err)
    return
  end
  local ok, got = pcall(fn)
  assert(ok, "unexpected error: " .. tostring(got))
  if golden.tensor then
    local diff = H.tensor_diff(got, golden.tensor, opts)
    assert(not diff, diff)
  elseif golden.tensors then
    for i, desc in ipairs(golden.tensors) do
      local diff = H.tensor_diff(got[i], desc, opts)
      assert(not diff, diff and ("result " .. i .. ": " .. diff))
    end
  else
    if torch.is_tensor(got) then error("got a tensor, expected " .. tostring(golden.value)) end
    if type(got) == "userdata" and got.name then got = got.name end -- a dtype
    if type(got) == "table" and getmetatable(got) then got = setmetatable({ table.unpack(got) }, nil) end
    check_plain(got, golden.value)
  end
  return describe_value(got)
end

-- ---- replayed op calls (cases written with cases/_opcase.py) -------------------------------

local function contiguous_strides(shape)
  local st, acc = {}, 1
  for i = #shape, 1, -1 do
    st[i] = acc
    acc = acc * math.max(shape[i], 1)
  end
  return st
end

local function make_contig(values, shape, dt)
  if #shape == 0 then return torch.tensor(values[1], { dtype = dt }) end
  if #values == 0 then return torch.zeros(shape, { dtype = dt }) end
  return torch.tensor(values, { dtype = dt }):view(shape)
end

-- An input tensor with the values and the strides PyTorch's case had.
function H.build_input(d)
  local dt = torch[d.dtype]
  if d.layout == "expand" then return make_contig(d.values, d.base_shape, dt):expand(d.shape) end
  local x = make_contig(d.values, d.shape, dt)
  local n = #d.shape
  if d.layout == "t" then
    local rev, perm = {}, {}
    for i = 1, n do
      rev[i] = d.shape[n - i + 1]
      perm[i] = n - i + 1
    end
    local y = torch.empty(rev, { dtype = dt }):permute(perm)
    y:copy_(x)
    return y
  elseif d.layout == "sliced" then
    local bshape = { table.unpack(d.shape) }
    bshape[n] = 2 * bshape[n]
    local strides = contiguous_strides(bshape)
    strides[n] = 2
    local y = torch.zeros(bshape, { dtype = dt }):as_strided(d.shape, strides)
    y:copy_(x)
    return y
  end
  return x
end

local function plain(v)
  if type(v) == "table" then
    if v.dtype_name then return torch[v.dtype_name] end
    if v.generator_seed then return torch.Generator():manual_seed(v.generator_seed) end
    local out = {}
    for i, x in ipairs(v) do out[i] = plain(x) end
    return out
  end
  return v
end

local function shift_dims(v)
  if math.type(v) == "integer" then return v >= 0 and v + 1 or v end
  if type(v) == "table" then
    local out = {}
    for i, x in ipairs(v) do out[i] = shift_dims(x) end
    return out
  end
  return v
end

H.operators = {
  __add__ = function(a, b) return a + b end, __radd__ = function(a, b) return b + a end,
  __sub__ = function(a, b) return a - b end, __rsub__ = function(a, b) return b - a end,
  __mul__ = function(a, b) return a * b end, __rmul__ = function(a, b) return b * a end,
  __truediv__ = function(a, b) return a / b end, __rtruediv__ = function(a, b) return b / a end,
  __floordiv__ = function(a, b) return a // b end, __rfloordiv__ = function(a, b) return b // a end,
  __mod__ = function(a, b) return a % b end, __rmod__ = function(a, b) return b % a end,
  __pow__ = function(a, b) return a ^ b end, __rpow__ = function(a, b) return b ^ a end,
  __neg__ = function(a) return -a end, __invert__ = function(a) return ~a end,
  __and__ = function(a, b) return a & b end, __or__ = function(a, b) return a | b end,
  __xor__ = function(a, b) return a ~ b end, __lshift__ = function(a, b) return a << b end,
  __rshift__ = function(a, b) return a >> b end, __rlshift__ = function(a, b) return b << a end,
  __index = function(x, key) return x[key] end,
  __setindex = function(x, key, value)
    x[key] = value
    return x
  end,
}

-- PyTorch's 0-based positions in a list of tensors -> 1-based ("tensor number 1", "entry 0").
function H.positions_1based(msg)
  for _, prefix in ipairs({ "tensor number ", "position ", "entry " }) do
    msg = msg:gsub("(" .. prefix .. ")(%d+)", function(p, n) return p .. (tonumber(n) + 1) end)
  end
  return msg
end

-- PyTorch's 0-based index values quoted in bounds errors -> the 1-based value a Lua user
-- wrote (negative indices are the same in both).
function H.indices_1based(msg)
  msg = msg:gsub("(index )(%d+)", function(p, n) return p .. (tonumber(n) + 1) end)
  msg = msg:gsub("(id=)(%d+)", function(p, n) return p .. (tonumber(n) + 1) end)
  return msg
end

local transforms = {
  -- every non-negative number is a dim ("diagonal dimensions cannot be identical 1, 1")
  numbers = function(m) return (m:gsub("%f[%w%-](%d+)", function(n) return tonumber(n) + 1 end)) end,
  positions = function(m) return H.positions_1based(m) end,
  indices = function(m) return H.indices_1based(m) end,
  dims = function(m) return H.dims_1based(m) end,
  range = function(m) return H.dim_range_1based(m) end,
  argtypes = function(m) return H.lua_type_names(m) end,
  -- torch.linalg's "(Batch element 0)" and multi_dot's "tensor 0", "tensors 0 and 1"
  matrices = function(m)
    m = m:gsub("(Batch element )(%d+)", function(p, n) return p .. (tonumber(n) + 1) end)
    m = m:gsub("(tensors? )(%d+)", function(p, n) return p .. (tonumber(n) + 1) end)
    return (m:gsub("(tensors %d+ and )(%d+)", function(p, n) return p .. (tonumber(n) + 1) end))
  end,
}

-- A 0-based index tensor from PyTorch as a Lua user writes it: 1-based, negatives unchanged.
function H.user_index(t)
  return torch.where(t:ge(0), t + 1, t)
end

-- The same tensor on the meta device: sizes, strides and dtype, no data.
local function on_meta(t)
  return torch.empty_strided(t:size(), t:stride(), { dtype = t.dtype, device = "meta" })
end

-- Replay a recorded call; returns ok, result-or-error (as pcall does). With meta = true the
-- tensor arguments are meta tensors of the same layouts; extra_kw adds keyword arguments.
function H.replay(call, meta, extra_kw)
  local args = {}
  local input = H.build_input
  if meta then input = function(d) return on_meta(H.build_input(d)) end end
  local shift, index = {}, {}
  for _, p in ipairs(call.dims) do shift[p] = true end
  for _, p in ipairs(call.index) do index[p] = true end
  for i, a in ipairs(call.args) do
    local v
    if a.tensor then
      v = input(a.tensor)
      if index[i - 1] then v = H.user_index(v) end
    elseif a.tensors then
      v = {}
      for j, d in ipairs(a.tensors) do
        v[j] = input(d)
        if index[i - 1] and v[j].dtype ~= torch.bool then v[j] = H.user_index(v[j]) end
      end
    elseif a.key then -- an indexing key (cases/indexing.py): a table of entries, or one entry
      v = {}
      for j, e in ipairs(a.key) do
        if e.range then v[j] = plain(e.range)
        elseif e.tensor then
          v[j] = input(e.tensor)
          if e.index then v[j] = H.user_index(v[j]) end
        else v[j] = plain(e.value) end
      end
      if not a.table then v = v[1] end
    else
      v = plain(a.value)
      if shift[i - 1] then v = shift_dims(v) end
    end
    args[i] = v
  end
  local kw, has_kw = {}, false
  for k, v in pairs(call.kw) do
    if type(v) == "table" and v.tensor then -- tensor keyword arguments
      v = input(v.tensor)
    elseif type(v) == "table" and v.tensors then
      local ts = {}
      for j, d in ipairs(v.tensors) do ts[j] = input(d) end
      v = ts
    else
      v = plain(v)
    end
    if shift[k] then v = shift_dims(v) end
    kw[k] = v
    has_kw = true
  end
  for k, v in pairs(extra_kw or {}) do
    kw[k] = v
    has_kw = true
  end
  local n = #call.args
  if has_kw then
    n = n + 1
    args[n] = kw
  end
  if call.seed and not meta then torch.manual_seed(call.seed) end
  local r = table.pack(pcall(function()
    if H.operators[call.fn] then return H.operators[call.fn](table.unpack(args, 1, n)) end
    if call.method then return args[1][call.fn](table.unpack(args, 1, n)) end
    local f = torch[call.fn]
    assert(f, "mindtorch has no torch." .. call.fn)
    return f(table.unpack(args, 1, n))
  end))
  if not r[1] then return false, r[2] end
  local results = { table.unpack(r, 2, r.n) }
  for _, i in ipairs(call.index_out or {}) do -- 1-based index results, 0-based in the golden
    if torch.is_tensor(results[i + 1]) then results[i + 1] = results[i + 1] - 1 end
  end
  return true, results
end

-- Ops whose result shape depends on the data: on meta they say so, as PyTorch's do.
local DATA_DEPENDENT = "^Could not run 'aten::([%w_]+)' with arguments from the 'Meta' backend"
local data_dependent = { nonzero = true, masked_select = true, unique = true, equal = true,
  repeat_interleave = true, tensor_split = true, unique_consecutive = true,
  linalg_lstsq = true, -- with gelsd/gelss, a tall A's residuals exist when its rank is full
  histc = true, bincount = true, histogram = true, histogramdd = true }

-- The call on meta tensors gives results of the golden's sizes, strides and dtypes.
local function check_meta(g)
  local ok, got = H.replay(g.call, true)
  if not ok then
    local op = tostring(got):match(DATA_DEPENDENT)
    assert(op and data_dependent[op], "on meta: " .. tostring(got))
    return
  end
  local want = g.tensor and { g.tensor } or g.tensors
  if #got == 1 and type(got[1]) == "table" and not torch.is_tensor(got[1]) then got = got[1] end
  for i, desc in ipairs(want) do
    local t = got[i]
    assert(torch.is_tensor(t) and t.device.type == "meta", "on meta: result " .. i .. " is not a meta tensor")
    local meta_desc = { dtype = desc.dtype, shape = desc.shape, strides = desc.strides, offset = desc.offset,
      device = "meta", requires_grad = false }
    local diff = H.tensor_diff(t, meta_desc, {})
    assert(not diff, "on meta: result " .. i .. ": " .. tostring(diff))
  end
end

-- A replay's outcome against the golden; `where` prefixes failure messages.
local function compare(g, ok, got, where, ignore_strides)
  if g.error then
    assert(not ok, where .. "expected the error: " .. g.error)
    local want = g.error
    for _, t in ipairs(g.expect or {}) do want = transforms[t](want) end
    assert.are.equal(want, (tostring(got):gsub("^[^:\n]*:%d+: ", "")))
    return
  end
  assert(ok, where .. "unexpected error: " .. tostring(got))
  local opts = { ignore_strides = ignore_strides }
  local function tol_for(t) -- a tolerance per result dtype, or one for all
    if type(g.tol) == "table" then return torch.is_tensor(t) and g.tol[t.dtype.name] or nil end
    return g.tol
  end
  opts.tol = tol_for(got[1])
  if g.tensor then
    local diff = H.tensor_diff(got[1], g.tensor, opts)
    assert(not diff, diff and where .. diff)
  elseif g.tensors then
    -- a list of tensors (split, unbind) comes back as one Lua table
    if #got == 1 and type(got[1]) == "table" and not torch.is_tensor(got[1]) then got = got[1] end
    assert(#got == #g.tensors, ("%s%d results, expected %d"):format(where, #got, #g.tensors))
    for i, desc in ipairs(g.tensors) do
      local diff = H.tensor_diff(got[i], desc, opts)
      assert(not diff, diff and (where .. "result " .. i .. ": " .. diff))
    end
  else
    local v = got[1]
    if type(v) == "table" and getmetatable(v) then v = setmetatable({ table.unpack(v) }, nil) end
    check_plain(v, g.value)
  end
end

-- The call in pipeline mode: recorded, run when the mode ends, with the eager results (and
-- errors, raised when the op is recorded or when it runs). Ops that need their data to size
-- their results refuse to be recorded.
local PIPELINE_REFUSES = "^pipeline requires meta kernel for op ([%w_]+)"

local function check_pipeline(g)
  local ok, got = pcall(torch.pipeline, function()
    local ok_, got_ = H.replay(g.call)
    if not ok_ then error(got_, 0) end
    return got_
  end)
  if not ok then
    local op = tostring(got):match(PIPELINE_REFUSES)
    if op and data_dependent[op] then return end
  end
  compare(g, ok, got, "in pipeline mode: ")
end

-- The call again with out=: into views inside larger buffers (the core computes straight into
-- them when it can: nothing outside the view may change) and into empty tensors (resized),
-- the results are the eager ones. Ops without out= (views, in-place ops, lists) refuse it.
local function check_out(g, got)
  -- (torch.unique gives no out= in PyTorch: its results vary with its flags)
  if g.error or g.call.method or H.operators[g.call.fn] or g.call.kw.out ~= nil or g.call.fn == "unique" then
    return
  end
  if not (g.tensor or g.tensors) or #got ~= (g.tensors and #g.tensors or 1) then return end
  for _, t in ipairs(got) do
    if not torch.is_tensor(t) or t.requires_grad or t.device.type ~= "cpu" then return end
  end
  for _, into in ipairs({ "view", "empty" }) do
    local outs, bufs = {}, {}
    for i, t in ipairs(got) do
      if into == "empty" then
        outs[i] = torch.empty(0, { dtype = t.dtype })
      else
        bufs[i] = torch.full({ t:numel() + 2 }, t.dtype == torch.bool and 1 or 7, { dtype = t.dtype })
        outs[i] = bufs[i]:narrow(1, 2, t:numel()):view(t:size())
      end
    end
    local ok, res = H.replay(g.call, false, { out = #outs == 1 and outs[1] or outs })
    if not ok and tostring(res):find("unexpected keyword argument 'out'", 1, true) then return end
    compare(g, ok, res, "with out= (" .. into .. "): ", true)
    for i, b in ipairs(bufs) do
      local n = b:numel()
      assert(b[1]:item() == b[n]:item() and b[1]:item() ~= (b.dtype == torch.bool and false or 0),
        "with out= (view): result " .. i .. " was written outside its view")
    end
  end
end

function H.check_call(g)
  local ok, got = H.replay(g.call)
  compare(g, ok, got, "")
  if ok then check_out(g, got) end
  local has_tensor_args = false -- factories make CPU tensors whatever their inputs' devices
  for _, a in ipairs(g.call.args) do has_tensor_args = has_tensor_args or a.tensor or a.tensors or a.key end
  if (g.tensor or g.tensors) and has_tensor_args then check_meta(g) end
  check_pipeline(g)
end

-- Register one busted `it` per golden of a module of replayed calls.
function H.run_calls(module)
  local goldens = H.load(module)
  describe("contract " .. module, function()
    for _, name in ipairs(H.sorted_keys(goldens)) do
      it(name, function() H.check_call(goldens[name]) end)
    end
  end)
end

-- Register one busted `it` per golden of `module`, run with the Lua `cases`.
function H.run(module, cases)
  local goldens = H.load(module)
  describe("contract " .. module, function()
    for _, name in ipairs(H.sorted_keys(goldens)) do
      it(name, function()
        local case = cases[name]
        assert(case ~= nil, "no Lua case for golden '" .. name .. "'")
        H.check(goldens[name], case)
      end)
    end
    it("has a golden for every Lua case", function()
      for name in pairs(cases) do assert(goldens[name] ~= nil, "no golden for Lua case '" .. name .. "'") end
    end)
  end)
end

return H
