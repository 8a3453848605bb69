-- serialization_pt.lua: PyTorch's checkpoint format (torch.save since PyTorch 1.6; doc/checkpoints.md),
-- read and written:
--   * the file is a zip archive of stored (uncompressed) entries under one folder:
--     <folder>/data.pkl (a pickle), <folder>/data/<key> (one per storage), <folder>/version;
--   * data.pkl is read by a restricted unpickler: the opcodes of pickle protocols 2 to 5 that
--     such files use, and PyTorch's weights_only allow-list of globals (tensor and parameter
--     rebuilders, OrderedDict, the typed storages). Any other global is an error naming it;
--     nothing is ever called but those rebuilders;
--   * tensors come back as views of their storages: tensors that shared a storage share one
--     here (views stay views), with their sizes, strides and offsets;
--   * files are hostile (doc/security.md): every length, count and offset is checked against
--     the file before it is used; entries' CRC-32s are verified.
-- Written by hand, not with a zip library: the entries are stored, so reading is a walk over
-- the central directory (doc/checkpoints.md says why).
local instance -- one per process: the fuzz target switches the CRC check off in the one torch.load uses
return function(torch)
  if instance then return instance end
  local PT = {}
  instance = PT

  local ordered = require "mindtorch._ordered"

  local function fail(path, why) error(("%s: not a valid PyTorch checkpoint (%s)"):format(path, why), 0) end

  local function u16(s, at) return string.unpack("<I2", s, at) end
  local function u32(s, at) return string.unpack("<I4", s, at) end
  local function u64(s, at) return string.unpack("<I8", s, at) end

  -- ---- zip ----------------------------------------------------------------------------------------
  local MAX_ENTRIES = 1 << 20

  -- the zip64 extended information of an entry: the fields that are 0xFFFFFFFF in the header
  local function zip64_fields(s, at, len, path, want)
    local stop = at + len
    while at + 4 <= stop do
      local id, size = u16(s, at), u16(s, at + 2)
      if at + 4 + size > stop then fail(path, "an extra field past its entry") end
      if id == 1 then
        local p, out = at + 4, {}
        for i, needed in ipairs(want) do
          if needed then
            if p + 8 > at + 4 + size then fail(path, "a short zip64 field") end
            out[i] = u64(s, p)
            if out[i] < 0 then fail(path, "a zip64 size past 2^63") end
            p = p + 8
          end
        end
        return out
      end
      at = at + 4 + size
    end
    fail(path, "a zip64 entry without its extended information")
  end

  -- read_zip(s, path) -> { [name] = { at = first byte, size = n, crc = c } }, names in order
  local function read_zip(s, path)
    local n = #s
    if n < 22 then fail(path, "too short for a zip archive") end
    -- the end of central directory record: within the last 64 KiB + 22 bytes
    local eocd
    for at = n - 21, math.max(1, n - 21 - 65535), -1 do
      if s:sub(at, at + 3) == "PK\5\6" then
        eocd = at
        break
      end
    end
    if not eocd then fail(path, "no zip end of central directory") end
    local count, cd_size, cd_at = u16(s, eocd + 10), u32(s, eocd + 12), u32(s, eocd + 16)
    if count == 0xFFFF or cd_size == 0xFFFFFFFF or cd_at == 0xFFFFFFFF then
      local loc = eocd - 20
      if loc < 1 or s:sub(loc, loc + 3) ~= "PK\6\7" then fail(path, "a zip64 archive without its locator") end
      local rec = u64(s, loc + 8) + 1
      if rec < 1 or rec + 56 > n or s:sub(rec, rec + 3) ~= "PK\6\6" then fail(path, "a bad zip64 end record") end
      count, cd_size, cd_at = u64(s, rec + 32), u64(s, rec + 40), u64(s, rec + 48)
    end
    if count > MAX_ENTRIES then fail(path, ("%d entries"):format(count)) end
    if cd_at < 0 or cd_size < 0 or cd_at + cd_size > n then fail(path, "a central directory past the end") end
    local entries, names = {}, {}
    local at = cd_at + 1
    for _ = 1, count do
      if at + 46 > n + 1 or s:sub(at, at + 3) ~= "PK\1\2" then fail(path, "a bad central directory entry") end
      local method, crc = u16(s, at + 10), u32(s, at + 16)
      local csize, usize = u32(s, at + 20), u32(s, at + 24)
      local nlen, xlen, clen = u16(s, at + 28), u16(s, at + 30), u16(s, at + 32)
      local lho = u32(s, at + 42)
      if at + 46 + nlen + xlen + clen > n + 1 then fail(path, "a central directory entry past the end") end
      local name = s:sub(at + 46, at + 45 + nlen)
      if usize == 0xFFFFFFFF or csize == 0xFFFFFFFF or lho == 0xFFFFFFFF then
        local f = zip64_fields(s, at + 46 + nlen, xlen, path,
          { usize == 0xFFFFFFFF, csize == 0xFFFFFFFF, lho == 0xFFFFFFFF })
        usize, csize, lho = f[1] or usize, f[2] or csize, f[3] or lho
      end
      if method ~= 0 then
        fail(path, ("entry '%s' is compressed (method %d): PyTorch writes stored entries"):format(name, method))
      end
      if csize ~= usize then fail(path, ("entry '%s' has two sizes"):format(name)) end
      if entries[name] then fail(path, ("entry '%s' twice"):format(name)) end
      -- its local header: the data follows the name and the extra field written there
      local h = lho + 1
      if h < 1 or h + 30 > n + 1 or s:sub(h, h + 3) ~= "PK\3\4" then
        fail(path, ("entry '%s' has no local header"):format(name))
      end
      local data = h + 30 + u16(s, h + 26) + u16(s, h + 28)
      if data + usize > n + 1 then fail(path, ("entry '%s' is truncated"):format(name)) end
      entries[name] = { at = data, size = usize, crc = crc }
      names[#names + 1] = name
      at = at + 46 + nlen + xlen + clen
    end
    -- entries whose data overlap would let a small file claim many copies of its bytes (the
    -- overlapping-entries zip bomb); PyTorch's writer never overlaps them
    local spans = {}
    for _, e in pairs(entries) do
      if e.size > 0 then spans[#spans + 1] = e end
    end
    table.sort(spans, function(a, b) return a.at < b.at end)
    for i = 2, #spans do
      if spans[i - 1].at + spans[i - 1].size > spans[i].at then fail(path, "entries whose data overlap") end
    end
    return entries, names
  end

  local function entry_bytes(s, e, name, path)
    local b = s:sub(e.at, e.at + e.size - 1)
    if not PT._skip_crc and torch._crc32(b) ~= e.crc then fail(path, ("entry '%s' fails its CRC-32 check"):format(name)) end
    return b
  end

  -- ---- the restricted unpickler ------------------------------------------------------------------
  -- Python values while unpickling: lists, tuples and dicts are tables with a kind; globals
  -- are {global = "module.name"}; None is NONE. They become Lua values at the end.
  local NONE = setmetatable({}, { __name = "None" })
  local LIST, TUPLE, DICT, MARK = {}, {}, {}, {}
  local function list() return { kind = LIST, n = 0 } end
  local function tuple(items) items.kind = TUPLE return items end
  local function dict() return { kind = DICT, keys = {}, vals = {} } end
  local function dict_set(d, k, v)
    if type(k) ~= "string" and type(k) ~= "number" then error("a dict key that is not a string or a number", 0) end
    if d.vals[k] == nil then d.keys[#d.keys + 1] = k end
    d.vals[k] = v
  end

  local STORAGES = { FloatStorage = "float32", DoubleStorage = "float64", HalfStorage = "float16",
    BFloat16Storage = "bfloat16", LongStorage = "int64", IntStorage = "int32", ShortStorage = "int16",
    CharStorage = "int8", ByteStorage = "uint8", BoolStorage = "bool" }
  local ALLOWED = { ["collections.OrderedDict"] = true, ["torch._utils._rebuild_tensor_v2"] = true,
    ["torch._utils._rebuild_tensor"] = true, ["torch._utils._rebuild_parameter"] = true,
    ["torch.nn.parameter.Parameter"] = true, ["torch.Size"] = true, ["_codecs.encode"] = true,
    ["builtins.set"] = true, ["__builtin__.set"] = true }
  for name in pairs(STORAGES) do ALLOWED["torch." .. name] = true end
  -- PyTorch allows these too; mindtorch has no such tensors
  local UNSUPPORTED = { ["torch._utils._rebuild_sparse_tensor"] = "sparse tensors",
    ["torch._utils._rebuild_sparse_csr_tensor"] = "sparse tensors",
    ["torch._utils._rebuild_meta_tensor_no_storage"] = "meta tensors", ["torch.ComplexFloatStorage"] = "complex dtypes",
    ["torch.ComplexDoubleStorage"] = "complex dtypes", ["torch.QInt8Storage"] = "quantized dtypes",
    ["torch.QUInt8Storage"] = "quantized dtypes", ["torch.QInt32Storage"] = "quantized dtypes" }

  local MAX_DIMS = 16

  -- the ints of a Python tuple (sizes, strides), checked
  local function ints(v, what, path)
    if type(v) ~= "table" or v.kind ~= TUPLE then fail(path, what .. " is not a tuple") end
    if #v > MAX_DIMS then fail(path, ("%s of %d dimensions"):format(what, #v)) end
    local out = {}
    for i = 1, #v do
      if math.type(v[i]) ~= "integer" or v[i] < 0 then fail(path, what .. " holds a value that is not a size") end
      out[i] = v[i]
    end
    return out
  end

  -- storage_offset + the farthest element of (sizes, strides) must be inside the storage
  local function check_extent(numel, offset, sizes, strides, path)
    if #sizes ~= #strides then fail(path, "sizes and strides of different lengths") end
    local last = offset
    for i = 1, #sizes do
      if sizes[i] == 0 then return end
      if strides[i] > 0 and sizes[i] - 1 > (math.maxinteger - last) // strides[i] then
        fail(path, "a tensor's extent overflows")
      end
      last = last + (sizes[i] - 1) * strides[i]
    end
    if offset < 0 or last >= numel then fail(path, "a tensor reaches past its storage") end
  end

  local function rebuild_tensor(storage, offset, size, stride, path)
    if type(storage) ~= "table" or not storage.is_storage then fail(path, "a tensor without a storage") end
    if math.type(offset) ~= "integer" then fail(path, "a storage offset that is not an int") end
    local sizes, strides = ints(size, "sizes", path), ints(stride, "strides", path)
    local count = torch._checked_numel(sizes)
    if not count or count > math.maxinteger // 8 then fail(path, "a tensor's sizes overflow") end
    check_extent(storage.numel, offset, sizes, strides, path)
    local numel = 1
    for _, d in ipairs(sizes) do numel = numel * d end
    if numel == 0 then return torch.empty(sizes, { dtype = storage.dtype }) end
    return storage.flat:as_strided(sizes, strides, offset)
  end

  local function call(fn, args, path)
    local g = fn.global
    if g == "collections.OrderedDict" then return dict() end
    if g == "torch.Size" then
      return tuple(args[1] and { table.unpack(args[1]) } or {})
    end
    -- protocol 2 writes bytes as _codecs.encode(text, "latin1"): each code point one byte
    if g == "_codecs.encode" then
      if type(args[1]) ~= "string" or args[2] ~= "latin1" then fail(path, "_codecs.encode of something else than latin1 text") end
      local ok, out = pcall(function()
        local bytes = {}
        for _, c in utf8.codes(args[1]) do
          if c > 255 then error("") end
          bytes[#bytes + 1] = string.char(c)
        end
        return table.concat(bytes)
      end)
      if not ok then fail(path, "latin1 text with a character past 255") end
      return out
    end
    -- protocol 2 writes a set as builtins.set([items]): read as a list, as protocol 4's sets are
    if g == "builtins.set" or g == "__builtin__.set" then
      local l = list()
      local items = args[1]
      if items ~= nil and (type(items) ~= "table" or items.kind ~= LIST) then fail(path, "a set of something else than a list") end
      for i = 1, items and items.n or 0 do l[i] = items[i] end
      l.n = items and items.n or 0
      return l
    end
    if g == "torch._utils._rebuild_tensor_v2" or g == "torch._utils._rebuild_tensor" then
      local t = rebuild_tensor(args[1], args[2], args[3], args[4], path)
      if g == "torch._utils._rebuild_tensor_v2" and args[5] == true then
        if not t.dtype.is_floating_point then fail(path, "an integer tensor that requires grad") end
        t:requires_grad_(true)
      end
      return t
    end
    if g == "torch._utils._rebuild_parameter" then
      if not torch.is_tensor(args[1]) then fail(path, "a parameter without its tensor") end
      local rg = args[2] ~= false
      if rg and not args[1].dtype.is_floating_point then rg = false end
      return torch.nn.Parameter(args[1], rg)
    end
    fail(path, ("Trying to call reduce for unrecognized function %s"):format(g))
  end

  -- unpickle(s, path, storage_of [, pos]) -> the value, the position after its STOP;
  -- storage_of(pid tuple) gives a storage
  local function unpickle(s, path, storage_of, start)
    local pos, n = start or 1, #s
    local stack, metastack, memo = {}, {}, {}
    local function need(k)
      if pos + k - 1 > n then fail(path, "the pickle is truncated") end
    end
    local function byte()
      need(1)
      pos = pos + 1
      return s:byte(pos - 1)
    end
    local function read(k)
      need(k)
      pos = pos + k
      return s:sub(pos - k, pos - 1)
    end
    local function unpack(fmt, k)
      need(k)
      local v = string.unpack(fmt, s, pos)
      pos = pos + k
      return v
    end
    local function push(v) stack[#stack + 1] = v end
    local function pop()
      if #stack == 0 then fail(path, "the pickle's stack underflows") end
      local v = stack[#stack]
      stack[#stack] = nil
      return v
    end
    local function top()
      if #stack == 0 then fail(path, "the pickle's stack underflows") end
      return stack[#stack]
    end
    local function pop_mark()
      local items = stack
      if #metastack == 0 then fail(path, "a pickle MARK is missing") end
      stack = table.remove(metastack)
      return items
    end
    local function line()
      local e = s:find("\n", pos, true)
      if not e then fail(path, "the pickle is truncated") end
      local v = s:sub(pos, e - 1)
      pos = e + 1
      return v
    end
    local function global(name)
      if UNSUPPORTED[name] then fail(path, ("%s holds %s, which mindtorch does not have"):format(name, UNSUPPORTED[name])) end
      if not ALLOWED[name] then
        error(("%s: Weights only load failed: Unsupported class %s (mindtorch reads only tensors, parameters, "
          .. "storages, OrderedDicts and plain values; nothing in the file is executed)"):format(path, name), 0)
      end
      return { global = name }
    end
    local function memo_put(i)
      if i > 1e7 then fail(path, "a memo index past 10^7") end
      memo[i] = top()
    end
    local function memo_get(i)
      local v = memo[i]
      if v == nil then fail(path, ("the pickle reads memo %d before writing it"):format(i)) end
      push(v)
    end
    local function append(l, v)
      if type(l) ~= "table" or l.kind ~= LIST then fail(path, "Can only append to lists") end
      l.n = l.n + 1
      l[l.n] = v
    end
    local function setitem(d, k, v)
      if type(d) ~= "table" or d.kind ~= DICT then fail(path, "SETITEM on something that is not a dict") end
      local ok, err = pcall(dict_set, d, k, v)
      if not ok then fail(path, err) end
    end

    local ops = {}
    ops[0x80] = function() -- PROTO
      local v = byte()
      if v < 2 or v > 5 then fail(path, ("pickle protocol %d"):format(v)) end
    end
    ops[0x95] = function() unpack("<I8", 8) end -- FRAME: the frames need no handling here
    ops[0x7d] = function() push(dict()) end -- EMPTY_DICT
    ops[0x5d] = function() push(list()) end -- EMPTY_LIST
    ops[0x29] = function() push(tuple({})) end -- EMPTY_TUPLE
    ops[0x8f] = function() push(list()) end -- EMPTY_SET (read as a list)
    ops[0x28] = function() -- MARK
      metastack[#metastack + 1] = stack
      stack = {}
    end
    ops[0x4e] = function() push(NONE) end -- NONE
    ops[0x88] = function() push(true) end -- NEWTRUE
    ops[0x89] = function() push(false) end -- NEWFALSE
    ops[0x4b] = function() push(byte()) end -- BININT1
    ops[0x4d] = function() push(unpack("<I2", 2)) end -- BININT2
    ops[0x4a] = function() push(unpack("<i4", 4)) end -- BININT
    ops[0x8a] = function() -- LONG1: little-endian two's complement
      local k = byte()
      if k == 0 then return push(0) end
      local b = read(k)
      if k > 8 then return push({ bigint = b }) end -- only the legacy magic number may be one
      push(string.unpack("<i" .. k, b))
    end
    ops[0x47] = function() push(unpack(">d", 8)) end -- BINFLOAT
    ops[0x58] = function() push(read(unpack("<I4", 4))) end -- BINUNICODE
    ops[0x8c] = function() push(read(byte())) end -- SHORT_BINUNICODE
    ops[0x8d] = function() -- BINUNICODE8
      local k = unpack("<I8", 8)
      if k < 0 or k > n then fail(path, "a string past the end") end
      push(read(k))
    end
    ops[0x55] = function() push(read(byte())) end -- SHORT_BINSTRING
    ops[0x54] = function() push(read(unpack("<I4", 4))) end -- BINSTRING
    ops[0x43] = function() push(read(byte())) end -- SHORT_BINBYTES
    ops[0x42] = function() push(read(unpack("<I4", 4))) end -- BINBYTES
    ops[0x71] = function() memo_put(byte()) end -- BINPUT
    ops[0x72] = function() memo_put(unpack("<I4", 4)) end -- LONG_BINPUT
    ops[0x94] = function() -- MEMOIZE
      local i = 0
      while memo[i] ~= nil do i = i + 1 end
      memo_put(i)
    end
    ops[0x68] = function() memo_get(byte()) end -- BINGET
    ops[0x6a] = function() memo_get(unpack("<I4", 4)) end -- LONG_BINGET
    ops[0x63] = function() -- GLOBAL "module\nname\n"
      local module = line()
      push(global(module .. "." .. line()))
    end
    ops[0x93] = function() -- STACK_GLOBAL
      local name, module = pop(), pop()
      if type(name) ~= "string" or type(module) ~= "string" then fail(path, "STACK_GLOBAL of non-strings") end
      push(global(module .. "." .. name))
    end
    ops[0x74] = function() push(tuple(pop_mark())) end -- TUPLE
    ops[0x85] = function() push(tuple({ pop() })) end -- TUPLE1
    ops[0x86] = function() -- TUPLE2
      local b, a = pop(), pop()
      push(tuple({ a, b }))
    end
    ops[0x87] = function() -- TUPLE3
      local c, b, a = pop(), pop(), pop()
      push(tuple({ a, b, c }))
    end
    ops[0x61] = function() -- APPEND
      local v = pop()
      append(top(), v)
    end
    ops[0x65] = function() -- APPENDS
      local items = pop_mark()
      local l = top()
      for i = 1, #items do append(l, items[i]) end
    end
    ops[0x90] = ops[0x65] -- ADDITEMS (a set read as a list)
    ops[0x73] = function() -- SETITEM
      local v, k = pop(), pop()
      setitem(top(), k, v)
    end
    ops[0x75] = function() -- SETITEMS
      local items = pop_mark()
      if #items % 2 ~= 0 then fail(path, "SETITEMS with an odd count") end
      local d = top()
      for i = 1, #items, 2 do setitem(d, items[i], items[i + 1]) end
    end
    ops[0x52] = function() -- REDUCE
      local a = pop()
      local fn = pop()
      if type(fn) ~= "table" or not fn.global then fail(path, "REDUCE of something that is not a global") end
      if type(a) ~= "table" or a.kind ~= TUPLE then fail(path, "REDUCE without an argument tuple") end
      push(call(fn, a, path))
    end
    ops[0x81] = function() -- NEWOBJ: only Parameter, as PyTorch's weights_only
      local a = pop()
      local cls = pop()
      if type(cls) ~= "table" or cls.global ~= "torch.nn.parameter.Parameter" then
        fail(path, "Trying to instantiate unsupported class " .. tostring(type(cls) == "table" and cls.global or cls))
      end
      if type(a) ~= "table" or a.kind ~= TUPLE then fail(path, "NEWOBJ without an argument tuple") end
      push(call({ global = "torch._utils._rebuild_parameter" }, a, path))
    end
    ops[0x62] = function() -- BUILD: an OrderedDict's or a Parameter's state; dropped
      pop()
      local inst = top()
      if not (torch.is_tensor(inst) or (type(inst) == "table" and inst.kind == DICT)) then
        fail(path, "Can only build Tensor, parameter or dict objects")
      end
    end
    ops[0x51] = function() -- BINPERSID: ('storage', type, key, location, numel)
      local pid = pop()
      if type(pid) ~= "table" or pid.kind ~= TUPLE or pid[1] ~= "storage" then
        fail(path, "unsupported persistent id encountered")
      end
      push(storage_of(pid))
    end
    ops[0x2e] = false -- STOP

    local steps = 0
    while true do
      local op = byte()
      steps = steps + 1
      local f = ops[op]
      if f == false then break end
      if not f then fail(path, ("pickle opcode 0x%02x is not supported"):format(op)) end
      f()
      if #stack > 1e7 or #metastack > 1e6 then fail(path, "the pickle's stack grows past its limit") end
    end
    if #metastack ~= 0 or #stack ~= 1 then fail(path, "the pickle ends with a bad stack") end
    return stack[1], pos
  end

  -- Python values -> Lua: dicts are tables (keys as they are), lists and tuples arrays (None in
  -- them a hole), None nil; a table met twice is the same Lua table
  local function to_lua(v, seen, depth)
    if v == NONE then return nil end
    if type(v) ~= "table" or torch.is_tensor(v) then return v end
    if v.is_storage then return v.flat end
    if seen[v] then return seen[v] end
    if depth > 200 then error("tables nested deeper than 200 levels", 0) end
    if v.bigint then error("an integer wider than 64 bits", 0) end
    local out = v.kind == DICT and ordered.new() or {}
    seen[v] = out
    if v.kind == DICT then
      for _, k in ipairs(v.keys) do out[k] = to_lua(v.vals[k], seen, depth + 1) end
    elseif v.kind == LIST or v.kind == TUPLE then
      for i = 1, (v.n or #v) do out[i] = to_lua(v[i], seen, depth + 1) end
    elseif v.global then
      error(("a bare global %s"):format(v.global), 0)
    end
    return out
  end

  local dtype_size = { float32 = 4, float64 = 8, float16 = 2, bfloat16 = 2, int64 = 8, int32 = 4, int16 = 2, int8 = 1,
    uint8 = 1, bool = 1 }

  -- the bytes of a big-endian storage in this machine's (little-endian) order
  local function swapped(bytes, isz)
    if isz == 1 or #bytes == 0 then return bytes end
    local b = torch.frombuffer(bytes, { dtype = torch.uint8 }):view(#bytes // isz, isz)
    return torch._tensor_bytes(b:flip({ 2 }):contiguous())
  end

  -- where map_location sends a storage saved at `location` ("cpu", "cuda:0", ...): a device
  -- name, a torch.device, a table from saved locations to new ones, or nil (where it was)
  local function target(map_location, location, path)
    local to = map_location
    if type(map_location) == "table" and not getmetatable(map_location) then to = map_location[location] end
    to = to or location
    local ok, dev = pcall(torch.device, to)
    if not ok or dev.type == "meta" then
      if to == location then fail(path, ("a storage location '%s' that is not a device"):format(tostring(to))) end
      error(("torch.load: map_location %s: PyTorch checkpoints load onto the CPU or an accelerator"):format(
        tostring(to)), 0)
    end
    if dev.type ~= "cpu" then
      local mod = torch[dev.type]
      if not (mod and mod.is_available and mod.is_available()) then
        if map_location == nil then
          error(("%s: Attempting to deserialize object on a %s device but torch.%s.is_available() is False. If "
            .. "you are running on a CPU-only machine, please use torch.load with map_location='cpu' to map your "
            .. "storages to the CPU."):format(path, dev.type:upper(), dev.type), 0)
        end
        error(("torch.load: map_location %s: no %s device here"):format(tostring(to), dev.type), 0)
      end
    end
    return dev
  end

  -- place(map_location, flat, location, path) -> the storage's elements where map_location says;
  -- a function is called as PyTorch calls one: with the storage (here its flat tensor) and the
  -- saved location, and returns the storage to use or nil (the default placement)
  local function place(map_location, flat, location, path)
    if type(map_location) == "function" then
      local out = map_location(flat, location)
      if out ~= nil then
        if not torch.is_tensor(out) or out.dtype ~= flat.dtype or out:numel() ~= flat:numel() or out:dim() ~= 1
          or not out:is_contiguous() then
          error("torch.load: map_location's function must return the storage it is given (moved or copied), or nil", 0)
        end
        return out
      end
      map_location = nil
    end
    local dev = target(map_location, location, path)
    if dev.type ~= "cpu" then flat = flat:to(dev) end
    return flat
  end

  local function check_map_location(m)
    local ty = type(m)
    if not (m == nil or ty == "string" or ty == "table" or ty == "function" or ty == "userdata") then
      error(("torch.load: map_location must be a device, a device name, a table of locations or a function, "
        .. "not a %s"):format(ty), 0)
    end
  end

  -- the checks of a persistent id ('storage', type, key, location, numel [, view]) -> dtype name
  local function storage_pid(pid, path)
    local stype, key, location, numel = pid[2], pid[3], pid[4], pid[5]
    if type(stype) ~= "table" or not stype.global then fail(path, "a storage without its type") end
    local dname = STORAGES[stype.global:match("^torch%.(.+)$") or ""]
    if not dname then fail(path, "a storage of type " .. tostring(stype.global)) end
    if type(key) ~= "string" then fail(path, "a storage key that is not a string") end
    if type(location) ~= "string" then fail(path, "a storage location that is not a string") end
    if math.type(numel) ~= "integer" or numel < 0 then fail(path, "a storage size that is not a count") end
    return dname
  end

  -- Python values -> Lua
  local function finish(v, path)
    local ok, out = pcall(to_lua, v, {}, 0)
    if not ok then fail(path, out) end
    return out
  end

  -- PT.load(s, path, map_location) -> value: s is the bytes of a zip checkpoint (PyTorch >= 1.6)
  function PT.load(s, path, map_location)
    check_map_location(map_location)
    local entries, names = read_zip(s, path)
    -- the single top folder (PyTorch names it after the file; any name is read)
    local prefix
    for _, name in ipairs(names) do
      local p = name:match("^([^/]+)/data%.pkl$")
      if p then
        if prefix then fail(path, "two data.pkl records") end
        prefix = p
      end
    end
    if not prefix then fail(path, "no data.pkl record") end
    local version = entries[prefix .. "/version"]
    if version then
      local v = tonumber((entry_bytes(s, version, prefix .. "/version", path):match("^(%d+)")))
      if not v or v > 3 then fail(path, ("file format version %s"):format(tostring(v))) end
    end
    -- PyTorch 2.x records the writer's byte order; 1.13 writes none (then it is little-endian)
    local big = false
    local bo = entries[prefix .. "/byteorder"]
    if bo then
      local order = entry_bytes(s, bo, prefix .. "/byteorder", path)
      if order ~= "little" and order ~= "big" then fail(path, "a byteorder record that is not 'little' or 'big'") end
      big = order == "big"
    end
    local storages = {}
    local function storage_of(pid)
      local dname = storage_pid(pid, path)
      local key, numel = pid[3], pid[5]
      local st = storages[key]
      if st then
        if st.dtype ~= torch[dname] then fail(path, ("storage %s read with two dtypes"):format(key)) end
        return st
      end
      local name = prefix .. "/data/" .. key
      local e = entries[name]
      if not e then fail(path, ("no record %s for storage %s"):format(name, key)) end
      local isz = dtype_size[dname]
      if numel > e.size // isz or numel * isz ~= e.size then
        fail(path, ("storage %s: %d elements of %d bytes in a record of %d bytes"):format(key, numel, isz, e.size))
      end
      local bytes = entry_bytes(s, e, name, path)
      if big then bytes = swapped(bytes, isz) end
      if dname == "bool" and bytes:find("[^%z\1]") then fail(path, ("storage %s: a bool that is not 0 or 1"):format(key)) end
      local flat = numel > 0 and torch.frombuffer(bytes, { dtype = torch[dname] })
        or torch.empty(0, { dtype = torch[dname] })
      flat = place(map_location, flat, pid[4], path)
      st = { is_storage = true, dtype = torch[dname], numel = numel, flat = flat }
      storages[key] = st
      return st
    end
    local v = unpickle(entry_bytes(s, entries[prefix .. "/data.pkl"], prefix .. "/data.pkl", path), path, storage_of)
    return finish(v, path)
  end

  -- the legacy format's first pickle: torch.serialization's MAGIC_NUMBER, 0x1950a86a20f9469cfc6c
  local LEGACY_MAGIC = "\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19"
  local LEGACY_PROTOCOL = 1001

  -- PT.load_legacy(s, path, map_location) -> value: PyTorch's format before 1.6 (torch.save with
  -- _use_new_zipfile_serialization=False): five pickles (magic number, protocol version, system
  -- information, the value, the storage keys), then each storage as an int64 element count and its
  -- little-endian bytes, in the order of the keys
  function PT.load_legacy(s, path, map_location)
    check_map_location(map_location)
    local none = function() fail(path, "a storage in a header pickle") end
    local magic, pos = unpickle(s, path, none)
    if type(magic) ~= "table" or magic.bigint ~= LEGACY_MAGIC then fail(path, "Invalid magic number; corrupt file?") end
    local protocol
    protocol, pos = unpickle(s, path, none, pos)
    if protocol ~= LEGACY_PROTOCOL then fail(path, ("Invalid protocol version: %s"):format(tostring(protocol))) end
    local info
    info, pos = unpickle(s, path, none, pos)
    if type(info) ~= "table" or info.kind ~= DICT then fail(path, "no system information") end
    -- storages are allocated as the value names them, and filled once their bytes are reached
    local storages, claimed = {}, 0
    local function storage_of(pid)
      local dname = storage_pid(pid, path)
      local key, numel, view = pid[3], pid[5], pid[6]
      local root = storages[key]
      if root then
        if root.dtype ~= torch[dname] then fail(path, ("storage %s read with two dtypes"):format(key)) end
      else
        -- no storage can be bigger than the file, nor all of them together (no amplification)
        local isz = dtype_size[dname]
        if numel > (#s - claimed) // isz then
          fail(path, ("storage %s: %d elements of %d bytes in a file of %d bytes"):format(key, numel, isz, #s))
        end
        claimed = claimed + numel * isz
        root = { is_storage = true, dtype = torch[dname], numel = numel, filled = false,
          flat = place(map_location, torch.empty(numel, { dtype = torch[dname] }), pid[4], path) }
        storages[key] = root
      end
      if view == nil or view == NONE then return root end
      -- PyTorch before 1.0 could save a view of a storage: (view key, offset, size)
      if type(view) ~= "table" or view.kind ~= TUPLE or type(view[1]) ~= "string"
        or math.type(view[2]) ~= "integer" or math.type(view[3]) ~= "integer" then
        fail(path, "a storage view that is not (key, offset, size)")
      end
      local offset, size = view[2], view[3]
      if offset < 0 or size < 0 or offset > root.numel - size then fail(path, "a storage view past its storage") end
      return { is_storage = true, dtype = root.dtype, numel = size, flat = root.flat:narrow(1, offset + 1, size) }
    end
    local v
    v, pos = unpickle(s, path, storage_of, pos)
    local keys
    keys, pos = unpickle(s, path, none, pos)
    if type(keys) ~= "table" or keys.kind ~= LIST then fail(path, "no list of storage keys") end
    for i = 1, keys.n do
      local key = keys[i]
      local st = type(key) == "string" and storages[key]
      if not st then fail(path, ("storage key %s is not a storage of the value"):format(tostring(key))) end
      if st.filled then fail(path, ("storage %s twice"):format(key)) end
      if pos + 8 > #s + 1 then fail(path, ("storage %s is truncated"):format(key)) end
      local numel = string.unpack("<i8", s, pos)
      local isz = dtype_size[st.dtype.name]
      if numel ~= st.numel then
        fail(path, ("storage has wrong byte size: expected %d got %d"):format(st.numel * isz, numel * isz))
      end
      pos = pos + 8
      if pos + numel * isz > #s + 1 then fail(path, ("storage %s is truncated"):format(key)) end
      local bytes = s:sub(pos, pos + numel * isz - 1)
      pos = pos + numel * isz
      if st.dtype == torch.bool and bytes:find("[^%z\1]") then
        fail(path, ("storage %s: a bool that is not 0 or 1"):format(key))
      end
      if numel > 0 then st.flat:copy_(torch.frombuffer(bytes, { dtype = st.dtype })) end
      st.filled = true
    end
    for key, st in pairs(storages) do
      if not st.filled then fail(path, ("storage %s has no data in the file"):format(key)) end
    end
    if pos ~= #s + 1 then fail(path, "trailing data after the last storage") end
    return finish(v, path)
  end

  -- ---- writer ---------------------------------------------------------------------------------------
  local STORAGE_OF = {}
  for k, v in pairs(STORAGES) do STORAGE_OF[v] = k end

  -- the pickle of v (protocol 2, as torch.save writes): tensors as _rebuild_tensor_v2 calls
  -- whose storages are persistent ids; tensors sharing a storage share its record
  local function pickle(v, records)
    local out = { "\128\2" }
    local function w(x) out[#out + 1] = x end
    local function str(x) w("X" .. string.pack("<s4", x)) end
    local function int(x)
      if x >= 0 and x < 256 then w("K" .. string.char(x))
      elseif x >= 0 and x < 65536 then w("M" .. string.pack("<I2", x))
      elseif x >= -2147483648 and x <= 2147483647 then w("J" .. string.pack("<i4", x))
      else w("\138\8" .. string.pack("<i8", x)) end
    end
    local function ints(t)
      if #t == 0 then return w(")") end
      w("(")
      for _, x in ipairs(t) do int(x) end
      w("t")
    end
    local by_ptr = {}
    local function storage_key(t)
      local st = t:untyped_storage()
      local ptr = st:data_ptr()
      local rec = by_ptr[ptr]
      if not rec then
        rec = { key = tostring(#records), dtype = t.dtype, numel = st:nbytes() // t.itemsize, tensor = t }
        by_ptr[ptr] = rec
        records[#records + 1] = rec
      elseif rec.dtype ~= t.dtype then
        error("torch.save: two tensors of different dtypes share a storage; PyTorch's format keeps one dtype per "
          .. "storage (save a copy of one)", 0)
      end
      return rec
    end
    local seen = {}
    local function value(x, depth)
      if depth > 200 then error("torch.save: tables nested deeper than 200 levels", 0) end
      local ty = type(x)
      if x == nil then w("N")
      elseif ty == "boolean" then w(x and "\136" or "\137")
      elseif math.type(x) == "integer" then int(x)
      elseif ty == "number" then w("G" .. string.pack(">d", x))
      elseif ty == "string" then str(x)
      elseif torch.is_tensor(x) then
        if x.device.type ~= "cpu" then x = x:cpu() end
        local name = STORAGE_OF[x.dtype.name]
        if not name then error("torch.save: no PyTorch storage for dtype " .. x.dtype.name, 0) end
        local rec = storage_key(x)
        w("ctorch._utils\n_rebuild_tensor_v2\n(")
        w("(")
        str("storage")
        w("ctorch\n" .. name .. "\n")
        str(rec.key)
        str("cpu")
        int(rec.numel)
        w("tQ")
        int(x:storage_offset())
        ints(x:size())
        ints(x:stride())
        w(x.requires_grad and "\136" or "\137")
        w("ccollections\nOrderedDict\n)R") -- backward hooks: an empty OrderedDict
        w("tR")
      elseif ty == "table" then
        if seen[x] then error("torch.save: a table that contains itself", 0) end
        if getmetatable(x) ~= nil and rawget(x, "_modules") then
          error("torch.save: a module in PyTorch's format: save module:state_dict(), or use a .t7 path for "
            .. "mindtorch's format", 0)
        end
        seen[x] = true
        local n, count = #x, 0
        for _ in pairs(x) do count = count + 1 end
        if ordered.is(x) then -- an OrderedDict, in its order (state_dicts are)
          w("ccollections\nOrderedDict\n)R")
          if count > 0 then
            w("(")
            for k, item in pairs(x) do
              if type(k) ~= "string" and math.type(k) ~= "integer" then
                error("torch.save: a table key of type " .. type(k) .. " in PyTorch's format", 0)
              end
              value(k, depth + 1)
              value(item, depth + 1)
            end
            w("u")
          end
        elseif n > 0 and count == n then -- a sequence: a list
          w("](")
          for i = 1, n do value(x[i], depth + 1) end
          w("e")
        else
          local keys = {}
          for k in pairs(x) do
            if type(k) ~= "string" and math.type(k) ~= "integer" then
              error("torch.save: a table key of type " .. type(k) .. " in PyTorch's format", 0)
            end
            keys[#keys + 1] = k
          end
          table.sort(keys, function(a, b)
            if type(a) == type(b) then return a < b end
            return type(a) == "number"
          end)
          w("}")
          if #keys > 0 then
            w("(")
            for _, k in ipairs(keys) do
              value(k, depth + 1)
              value(x[k], depth + 1)
            end
            w("u")
          end
        end
        seen[x] = nil
      else
        error("torch.save: a value of type " .. ty .. " in PyTorch's format", 0)
      end
    end
    value(v, 0)
    w(".")
    return table.concat(out)
  end

  -- a zip of stored entries, each entry's data on a 64-byte boundary (as PyTorch aligns them)
  local function zip(entries)
    local parts, central, at = {}, {}, 0
    for _, e in ipairs(entries) do
      local name, data = e[1], e[2]
      if #data >= 0xFFFFFFFF then error("torch.save: an entry of 4 GiB or more (zip64) is not written yet", 0) end
      local crc = torch._crc32(data)
      local head = 30 + #name
      local pad = (64 - (at + head + 4) % 64) % 64
      local extra = string.pack("<I2I2", 0x4246, pad) .. string.rep("\0", pad) -- "FB": padding
      local lh = string.pack("<I4I2I2I2I2I2I4I4I4I2I2", 0x04034b50, 20, 0, 0, 0, 0x21, crc, #data, #data, #name,
        #extra)
      central[#central + 1] = string.pack("<I4I2I2I2I2I2I2I4I4I4I2I2I2I2I2I4I4", 0x02014b50, 20, 20, 0, 0, 0, 0x21,
        crc, #data, #data, #name, 0, 0, 0, 0, 0, at) .. name
      parts[#parts + 1] = lh .. name .. extra
      parts[#parts + 1] = data
      at = at + #lh + #name + #extra + #data
    end
    local cd = table.concat(central)
    parts[#parts + 1] = cd
    parts[#parts + 1] = string.pack("<I4I2I2I2I2I4I4I2", 0x06054b50, 0, 0, #entries, #entries, #cd, at, 0)
    return table.concat(parts)
  end

  PT._zip = zip -- for the hostile-file tests, which build archives by hand

  -- PT.encode(v, folder) -> the bytes of a PyTorch checkpoint of v
  function PT.encode(v, folder)
    local records = {}
    local pkl = pickle(v, records)
    local entries = { { folder .. "/data.pkl", pkl } }
    for _, rec in ipairs(records) do
      local flat = rec.tensor:as_strided({ rec.numel }, { 1 }, 0)
      entries[#entries + 1] = { folder .. "/data/" .. rec.key, rec.numel > 0 and torch._tensor_bytes(flat) or "" }
    end
    entries[#entries + 1] = { folder .. "/version", "3\n" }
    return zip(entries)
  end

  return PT
end
