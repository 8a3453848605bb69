-- _tensor_str.lua: tostring(tensor), character for character as PyTorch's repr.
--
-- The rules are PyTorch's (torch/_tensor_str.py): one formatter per tensor chooses between
-- integer, fixed and scientific notation from the finite non-zero values it will show, pads
-- every element to one width, wraps lines at `linewidth`, and past `threshold` elements
-- shows `edgeitems` at each end of every dimension around "...".
local M = {}

local defaults = { precision = 4, threshold = 1000, edgeitems = 3, linewidth = 80, sci_mode = nil }
local opts = {}
for k, v in pairs(defaults) do opts[k] = v end
M.options = opts

local profiles = {
  default = { precision = 4, threshold = 1000, edgeitems = 3, linewidth = 80 },
  short = { precision = 2, threshold = 1000, edgeitems = 2, linewidth = 80 },
  full = { precision = 4, threshold = math.huge, edgeitems = 3, linewidth = 80 },
}

-- torch.set_printoptions{precision=, threshold=, edgeitems=, linewidth=, profile=, sci_mode=}, or positionally
function M.set_printoptions(...)
  -- PyTorch's positional order, or the options table
  local o = require("mindtorch._args").parse("set_printoptions",
    { "precision", "threshold", "edgeitems", "linewidth", "profile", "sci_mode" }, nil, ...)
  if o.profile ~= nil then
    local p = profiles[o.profile] or error(("unknown print profile '%s'"):format(tostring(o.profile)), 2)
    for k, v in pairs(p) do opts[k] = v end
  end
  -- checked here, so a bad value fails at once rather than every print after it
  for _, k in ipairs { "precision", "edgeitems", "linewidth" } do
    local v = o[k]
    if v ~= nil and (math.type(v) ~= "integer" or v < 0) then
      error(("set_printoptions(): %s must be a non-negative integer, got %s"):format(k, tostring(v)), 2)
    end
  end
  if o.precision ~= nil and o.precision > 0x7fffffff then error("precision too big", 2) end
  if o.threshold ~= nil and (type(o.threshold) ~= "number" or o.threshold ~= o.threshold) then
    error(("set_printoptions(): threshold must be a number, got %s"):format(tostring(o.threshold)), 2)
  end
  for _, k in ipairs { "precision", "threshold", "edgeitems", "linewidth" } do
    if o[k] ~= nil then opts[k] = o[k] end
  end
  opts.sci_mode = o.sci_mode -- like PyTorch: not given means "choose automatically"
end

-- ---- number formatting (Python's str.format semantics for the specs PyTorch uses) -------

local function special(v)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
end

-- Past 99 digits (string.format's limit) the digits come from the exact decimal value of the
-- double, rounded half to even as Python's format does.

-- a finite a > 0 as digits D (no leading zero) and P with a = D * 10^P, exactly
local function exact_digits(a)
  local frac, e = string.format("%a", a):match("^0x[01]%.?(%x*)p([-+]%d+)$")
  local m = tonumber("0x" .. string.format("%a", a):match("^0x([01])") .. frac)
  e = tonumber(e) - 4 * #frac
  local limbs, base = { m % 10000000, m // 10000000 % 10000000, m // 100000000000000 }, 10000000
  local function mul(k) -- limbs *= k (k < 2^24)
    local carry = 0
    for i = 1, #limbs do
      local x = limbs[i] * k + carry
      limbs[i], carry = x % base, x // base
    end
    while carry > 0 do limbs[#limbs + 1], carry = carry % base, carry // base end
  end
  local left, k = math.abs(e), e >= 0 and 2 or 5 -- M * 2^e = M * 5^-e * 10^e
  while left > 0 do
    local step = math.min(left, k == 2 and 23 or 10)
    mul(math.tointeger(k ^ step))
    left = left - step
  end
  while #limbs > 1 and limbs[#limbs] == 0 do limbs[#limbs] = nil end
  local parts = { tostring(limbs[#limbs]) }
  for i = #limbs - 1, 1, -1 do parts[#parts + 1] = string.format("%07d", limbs[i]) end
  return table.concat(parts), math.min(e, 0)
end

-- the digit string d cut to its first n digits, rounded half to even; the carry may lengthen it
local function round_digits(d, n)
  if #d <= n then return d .. string.rep("0", n - #d) end
  local keep, rest = n > 0 and d:sub(1, n) or "", d:sub(n + 1)
  local first = rest:byte(1) - 48
  local up = first > 5 or (first == 5 and (rest:find("[1-9]", 2) ~= nil or (keep:byte(-1) or 48) % 2 == 1))
  if not up then return keep == "" and "0" or keep end
  local digits = { keep:byte(1, -1) }
  local i = #digits
  while i >= 1 and digits[i] == 57 do digits[i], i = 48, i - 1 end
  if i >= 1 then digits[i] = digits[i] + 1 else table.insert(digits, 1, 49) end
  return string.char(table.unpack(digits))
end

local function exact_fixed(v, prec)
  local sign = (v < 0 or 1 / v < 0) and "-" or ""
  local n = "0"
  if v ~= 0 then
    local d, p = exact_digits(math.abs(v))
    n = round_digits(d, #d + p + prec) -- the integer v * 10^prec
    if n == "" then n = "0" end
  end
  if #n <= prec then n = string.rep("0", prec + 1 - #n) .. n end
  return sign .. n:sub(1, #n - prec) .. "." .. n:sub(#n - prec + 1)
end

local function exact_sci(v, prec)
  local sign = (v < 0 or 1 / v < 0) and "-" or ""
  local n, x = string.rep("0", prec + 1), 0
  if v ~= 0 then
    local d, p = exact_digits(math.abs(v))
    x = #d - 1 + p
    n = round_digits(d, prec + 1)
    if #n > prec + 1 then n, x = n:sub(1, prec + 1), x + 1 end
  end
  return ("%s%s.%se%s%02d"):format(sign, n:sub(1, 1), n:sub(2), x < 0 and "-" or "+", math.abs(x))
end

local function fmt_fixed(v, prec)
  if prec > 99 then return special(v) or exact_fixed(v, prec) end
  return special(v) or string.format("%." .. prec .. "f", v)
end
local function fmt_sci(v, prec)
  if prec > 99 then return special(v) or exact_sci(v, prec) end
  return special(v) or string.format("%." .. prec .. "e", v)
end

-- Python's repr(float): the shortest digits that read back as the same double.
function M.float_repr(v)
  local s = special(v)
  if s then return s end
  if v == 0 then return (1 / v < 0) and "-0.0" or "0.0" end
  local digits, exp
  for p = 1, 17 do
    local e = string.format("%." .. (p - 1) .. "e", v)
    if tonumber(e) == v then
      local m, x = e:match("^(-?[%d%.]+)e([-+]%d+)$")
      digits, exp = m, tonumber(x)
      break
    end
  end
  local neg = digits:sub(1, 1) == "-"
  local d = digits:gsub("^-", ""):gsub("%.", "")
  if exp >= -4 and exp < 16 then
    local out
    if exp >= 0 then
      if #d <= exp + 1 then
        out = d .. string.rep("0", exp + 1 - #d) .. ".0"
      else
        out = d:sub(1, exp + 1) .. "." .. d:sub(exp + 2)
      end
    else
      out = "0." .. string.rep("0", -exp - 1) .. d
    end
    return (neg and "-" or "") .. out
  end
  local mant = #d > 1 and (d:sub(1, 1) .. "." .. d:sub(2)) or d
  return ("%s%se%s%02d"):format(neg and "-" or "", mant, exp < 0 and "-" or "+", math.abs(exp))
end

-- ---- the formatter -------------------------------------------------------------------------

-- PyTorch's _Formatter: the width and mode every element of one tensor is printed with
local Formatter = require("mindtorch._class").class("_tensor_str._Formatter")

local function new_formatter(values, floating)
  local f = Formatter()
  f.floating, f.int_mode, f.sci_mode, f.max_width = floating, true, false, 1
  if not floating then
    for _, v in ipairs(values) do
      local s = type(v) == "boolean" and (v and "True" or "False") or tostring(v)
      if #s > f.max_width then f.max_width = #s end
    end
  else
    local finite = {}
    for _, v in ipairs(values) do
      if v == v and v ~= math.huge and v ~= -math.huge and v ~= 0 then finite[#finite + 1] = v end
    end
    if #finite == 0 then goto done end
    local mn, mx = math.huge, 0
    for _, v in ipairs(finite) do
      local a = math.abs(v)
      if a < mn then mn = a end
      if a > mx then mx = a end
      if f.int_mode and v ~= math.ceil(v) then f.int_mode = false end
    end
    local prec = opts.precision
    if f.int_mode then
      if mx / mn > 1000.0 or mx > 1.0e8 then
        f.sci_mode = true
        for _, v in ipairs(finite) do f.max_width = math.max(f.max_width, #fmt_sci(v, prec)) end
      else
        for _, v in ipairs(finite) do f.max_width = math.max(f.max_width, #fmt_fixed(v, 0) + 1) end
      end
    else
      if mx / mn > 1000.0 or mx > 1.0e8 or mn < 1.0e-4 then
        f.sci_mode = true
        for _, v in ipairs(finite) do f.max_width = math.max(f.max_width, #fmt_sci(v, prec)) end
      else
        for _, v in ipairs(finite) do f.max_width = math.max(f.max_width, #fmt_fixed(v, prec)) end
      end
    end
  end
  ::done::
  if opts.sci_mode ~= nil then f.sci_mode = opts.sci_mode end
  return f
end

function Formatter:format(v)
  local s
  if self.floating then
    if self.sci_mode then
      s = fmt_sci(v, opts.precision)
    elseif self.int_mode then
      s = fmt_fixed(v, 0)
      if not special(v) then s = s .. "." end
    else
      s = fmt_fixed(v, opts.precision)
    end
  elseif type(v) == "boolean" then
    s = v and "True" or "False"
  else
    s = tostring(v)
  end
  if #s < self.max_width then s = string.rep(" ", self.max_width - #s) .. s end
  return s
end

-- ---- layout ----------------------------------------------------------------------------------

-- The elements a 1-d tensor shows: the first and last `edgeitems` when summarizing, converted
-- alone (never the whole row: printing costs what it shows, PyTorch's get_summarized_data).
local function shown_list(t, summarize)
  local n, edge = t:size(1), opts.edgeitems
  if not (summarize and n - edge > edge) then return t:tolist(), nil end
  local head, tail = {}, {}
  for i = 1, edge do
    head[i] = t:select(1, i):item()
    tail[i] = t:select(1, n - edge + i):item()
  end
  return head, tail
end

-- The values the formatter must account for: all of them, or the edges when summarizing.
local function summarized_values(t, summarize, out)
  local dim, edge = t:dim(), opts.edgeitems
  if dim == 0 then
    out[#out + 1] = t:item()
    return out
  end
  local n = t:size(1)
  if dim == 1 then
    local head, tail = shown_list(t, summarize)
    for _, v in ipairs(head) do out[#out + 1] = v end
    for _, v in ipairs(tail or {}) do out[#out + 1] = v end
    return out
  end
  if summarize and n - edge > edge then
    for i = 1, edge do summarized_values(t:select(1, i), summarize, out) end
    for i = n - edge + 1, n do summarized_values(t:select(1, i), summarize, out) end
  else
    for i = 1, n do summarized_values(t:select(1, i), summarize, out) end
  end
  return out
end

local function vector_str(t, indent, summarize, f)
  local element_length = f.max_width + 2
  local per_line = math.max(1, math.floor((opts.linewidth - indent) / element_length))
  local head, tail = shown_list(t, summarize)
  local data = {}
  for _, v in ipairs(head) do data[#data + 1] = f:format(v) end
  if tail then
    data[#data + 1] = " ..."
    for _, v in ipairs(tail) do data[#data + 1] = f:format(v) end
  end
  local lines = {}
  for i = 1, #data, per_line do
    lines[#lines + 1] = table.concat(data, ", ", i, math.min(i + per_line - 1, #data))
  end
  return "[" .. table.concat(lines, ",\n" .. string.rep(" ", indent + 1)) .. "]"
end

local function tensor_str_with_formatter(t, indent, summarize, f)
  local dim = t:dim()
  if dim == 0 then return f:format(t:item()) end
  if dim == 1 then return vector_str(t, indent, summarize, f) end
  local n, edge, slices = t:size(1), opts.edgeitems, {}
  if summarize and n - edge > edge then
    for i = 1, edge do slices[#slices + 1] = tensor_str_with_formatter(t:select(1, i), indent + 1, summarize, f) end
    slices[#slices + 1] = "..."
    for i = n - edge + 1, n do
      slices[#slices + 1] = tensor_str_with_formatter(t:select(1, i), indent + 1, summarize, f)
    end
  else
    for i = 1, n do slices[#slices + 1] = tensor_str_with_formatter(t:select(1, i), indent + 1, summarize, f) end
  end
  return "[" .. table.concat(slices, "," .. string.rep("\n", dim - 1) .. string.rep(" ", indent + 1)) .. "]"
end

local function tensor_str(t, indent)
  if t:numel() == 0 then return "[]" end
  local summarize = t:numel() > opts.threshold
  local f = new_formatter(summarized_values(t, summarize, {}), t.dtype.is_floating_point)
  return tensor_str_with_formatter(t, indent, summarize, f)
end

local function add_suffixes(str, suffixes, indent)
  local parts = { str }
  local nl = str:match(".*()\n")
  local last_line_len = nl and (#str - nl + 2) or (#str + 2)
  for _, s in ipairs(suffixes) do
    if last_line_len + #s + 2 > opts.linewidth then
      parts[#parts + 1] = ",\n" .. string.rep(" ", indent) .. s
      last_line_len = indent + #s
    else
      parts[#parts + 1] = ", " .. s
      last_line_len = last_line_len + #s + 2
    end
  end
  parts[#parts + 1] = ")"
  return table.concat(parts)
end

local function size_tuple(t)
  local s = t:size()
  if #s == 1 then return "(" .. s[1] .. ",)" end
  return "(" .. table.concat(s, ", ") .. ")"
end

-- tostring(tensor)
function M.repr(torch, t, prefix)
  prefix = prefix or "tensor("
  local indent = #prefix
  local suffixes = {}
  local dev = t.device
  if dev.type ~= "cpu" then suffixes[#suffixes + 1] = "device='" .. tostring(dev) .. "'" end
  local dt = t.dtype
  local default = torch.get_default_dtype()
  local has_default_dtype = dt == default or dt == torch.int64 or dt == torch.bool
  local body
  if dev.type == "meta" then
    suffixes[#suffixes + 1] = "size=" .. size_tuple(t)
    if dt ~= default then suffixes[#suffixes + 1] = "dtype=" .. tostring(dt) end
    body = "..."
  elseif t:numel() == 0 then
    if t:dim() ~= 1 then suffixes[#suffixes + 1] = "size=" .. size_tuple(t) end
    if dt ~= default then suffixes[#suffixes + 1] = "dtype=" .. tostring(dt) end
    body = "[]"
  else
    if not has_default_dtype then suffixes[#suffixes + 1] = "dtype=" .. tostring(dt) end
    -- a summarized device tensor is read where it lives, element by shown element (a copy of
    -- all of it to the host would cost what printing must not)
    local host = (dev.type == "cpu" or t:numel() > opts.threshold) and t or t:cpu()
    body = tensor_str(host, indent)
  end
  local grad_fn = t.grad_fn
  if grad_fn ~= nil then
    suffixes[#suffixes + 1] = "grad_fn=<" .. grad_fn:name() .. ">"
  elseif t.requires_grad then
    suffixes[#suffixes + 1] = "requires_grad=True"
  end
  return add_suffixes(prefix .. body, suffixes, indent)
end

-- tostring(storage): one element per line, then a description (PyTorch's str(storage))
function M.storage_repr(s, typed)
  local lines = {}
  local dev = tostring(s.device)
  if dev ~= "meta" then
    for _, v in ipairs(s:tolist()) do
      if type(v) == "boolean" then lines[#lines + 1] = " " .. (v and "True" or "False")
      elseif math.type(v) == "float" then lines[#lines + 1] = " " .. M.float_repr(v)
      else lines[#lines + 1] = " " .. tostring(v) end
    end
  else
    lines[#lines + 1] = "..."
  end
  if typed then
    lines[#lines + 1] = ("[torch.storage.TypedStorage(dtype=%s, device=%s) of size %d]"):format(
      tostring(s.dtype), dev, s:size())
  else
    lines[#lines + 1] = ("[torch.storage.UntypedStorage(device=%s) of size %d]"):format(dev, s:size())
  end
  return table.concat(lines, "\n")
end

return M
