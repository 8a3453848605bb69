-- serialization.lua: torch.save / torch.load (mindtorch's own format, doc/serialization.md) and
-- torch.save_safetensors / torch.load_safetensors (the safetensors format, for weights that
-- move to and from the PyTorch ecosystem). Files are written to a temporary name in the same
-- directory, fsynced and renamed, so a crash never leaves a half-written file under the real
-- name. Files read are hostile (doc/security.md): every length, count, size and offset is checked
-- against the file, with overflow-checked arithmetic, before anything is allocated.
return function(torch)
  local ordered = require "mindtorch._ordered"
  local MAGIC = "MTSAVE\0\1" -- format name and version 1: trees of plain values (still read)
  local MAGIC2 = "MTSAVE\0\2" -- version 2: object graphs (serialization_graph.lua), what torch.save writes
  local dtype_by_name = {}
  for _, name in ipairs({ "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool" }) do
    dtype_by_name[name] = torch[name]
  end

  local MAX_DIM = 16 -- MT_MAX_DIM
  local MAX_DEPTH = 200 -- tables nested deeper are refused by save and load

  -- a * b for non-negative integers, or nil when it does not fit in an int64
  local function mul(a, b)
    if a ~= 0 and b > math.maxinteger // a then return nil end
    return a * b
  end

  -- the number of elements of sizes (non-negative integers), or nil when it overflows; the
  -- product of the sizes with zeros taken as ones must fit as well (it is the largest stride)
  local function checked_numel(sizes)
    local n, span = 1, 1
    for _, d in ipairs(sizes) do
      n, span = mul(n, d), mul(span, math.max(d, 1))
      if not n or not span then return nil end
    end
    return n
  end
  torch._checked_numel = checked_numel

  -- PyTorch's wording for a file that cannot be opened ("[Errno 2] No such file or directory: 'x'")
  local function os_error(path, msg, code)
    msg = tostring(msg)
    local prefix = path .. ": "
    if msg:sub(1, #prefix) == prefix then msg = msg:sub(#prefix + 1) end
    return ("[Errno %d] %s: '%s'"):format(code or 0, msg, path)
  end

  -- The temporary file has one name per target (path .. ".mt-tmp"): a save killed midway leaves
  -- at most that one file, which the next save of the same path replaces. It is fsynced before
  -- the rename and the directory after, and removed on every error.
  local function write_atomically(path, chunks)
    local tmp = path .. ".mt-tmp"
    os.remove(tmp) -- a stale one from a killed save (even read-only) must not stop this one
    local f, err, code = io.open(tmp, "wb")
    if not f then error(("could not write %s: %s"):format(path, os_error(tmp, err, code)), 3) end
    local ok, werr = true, nil
    for _, c in ipairs(chunks) do
      local r, e = f:write(c)
      if not r then ok, werr = false, e break end
    end
    if ok then ok, werr = pcall(torch._fsync, f) end
    local closed, cerr = f:close()
    if not ok or not closed then
      os.remove(tmp)
      error(("could not write %s: %s"):format(path, tostring(werr or cerr)), 3)
    end
    local renamed, rerr = os.rename(tmp, path)
    if not renamed then
      os.remove(tmp)
      error(("could not write %s: %s"):format(path, tostring(rerr)), 3)
    end
    local dir = path:match("^(.*)/[^/]*$") or "."
    pcall(torch._fsync, dir == "" and "/" or dir) -- the rename's durability; the data is safe already
  end

  -- The whole file, read as large as it is when opened and no larger: a device such as
  -- /dev/zero, or a file that keeps growing, is an error instead of memory without bound.
  local function read_all(path)
    local f, err, code = io.open(path, "rb")
    if not f then error(os_error(path, err, code), 3) end
    local function fail(msg, c)
      f:close()
      error(c and os_error(path, msg, c) or ("%s: %s"):format(path, msg), 4)
    end
    local probe, perr, pcode = f:read(0) -- a directory fails here (EISDIR)
    if not probe and perr then fail(perr, pcode) end
    local size, serr, scode = f:seek("end")
    if not size then fail(serr, scode) end
    f:seek("set")
    local s, rerr, rcode = f:read(size)
    if not s and rerr then fail(rerr, rcode) end
    if f:read(0) then fail("not a regular file (reading goes past its size)") end
    f:close()
    return s or ""
  end

  -- ---- mindtorch's format -----------------------------------------------------------------------
  -- value := tag payload; tags: "0" nil, "b" boolean, "i" integer, "f" float, "s" string,
  -- "t" table (count, then key/value pairs), "T" tensor (dtype name, ndim, sizes, bytes).
  -- The file is MAGIC, the encoded value, then the CRC-32 of both (4 bytes).
  -- With `sink` (a list), tensors are not written inline: "R" (dtype, sizes) stands for the
  -- next tensor of sink, whose bytes travel apart (the DataLoader's shared slots).
  local function encode(v, out, seen, depth, sink)
    local ty = type(v)
    if v == nil then
      out[#out + 1] = "0"
    elseif ty == "boolean" then
      out[#out + 1] = v and "b\1" or "b\0"
    elseif math.type(v) == "integer" then
      out[#out + 1] = string.pack("<c1i8", "i", v)
    elseif ty == "number" then
      out[#out + 1] = string.pack("<c1d", "f", v)
    elseif ty == "string" then
      out[#out + 1] = string.pack("<c1s4", "s", v)
    elseif torch.is_tensor(v) then
      local t = v:detach()
      if t.device.type ~= "cpu" then t = t:cpu() end
      local parts = { string.pack("<c1s1B", sink and "R" or "T", t.dtype.name, t:dim()) }
      for i = 1, t:dim() do parts[#parts + 1] = string.pack("<i8", t.shape[i]) end
      if sink then
        sink[#sink + 1] = t
      else
        parts[#parts + 1] = string.pack("<s8", torch._tensor_bytes(t))
      end
      out[#out + 1] = table.concat(parts)
    elseif ty == "table" then
      if seen[v] then error("cannot save a table that contains itself", 4) end
      if depth >= MAX_DEPTH then error(("cannot save tables nested deeper than %d levels"):format(MAX_DEPTH), 4) end
      seen[v] = true
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = k end
      table.sort(keys, function(a, b)
        if type(a) == type(b) then return a < b end
        return type(a) < type(b)
      end)
      out[#out + 1] = string.pack("<c1I4", "t", #keys)
      for _, k in ipairs(keys) do
        if type(k) ~= "string" and type(k) ~= "number" then
          error("cannot save a table key of type " .. type(k), 4)
        end
        encode(k, out, seen, depth + 1, sink)
        encode(v[k], out, seen, depth + 1, sink)
      end
      seen[v] = nil
    else
      error("cannot save a value of type " .. ty, 4)
    end
  end

  local graph -- version 2's encoder and decoder (serialization_graph.lua), defined below
  local PT -- serialization_pt.lua: PyTorch's checkpoint format, loaded when first used
  local function pt() PT = PT or require("mindtorch.serialization_pt")(torch) return PT end

  -- whether v holds what only mindtorch's format can keep: instances of classes (modules,
  -- optimizers), functions, dtypes or devices
  local function holds_objects(v, seen)
    local ty = type(v)
    if ty == "function" or ty == "userdata" and not torch.is_tensor(v) then return true end
    if ty ~= "table" or seen[v] then return false end
    seen[v] = true
    local mt = getmetatable(v)
    if mt ~= nil and not ordered.is(v) then return true end
    for k, x in next, v do
      if holds_objects(k, seen) or holds_objects(x, seen) then return true end
    end
    return false
  end

  -- which format torch.save writes: {format = "pt" | "mindtorch"}, else PyTorch's for paths
  -- ending in .pt or .pth (what PyTorch users name their checkpoints) when the value is tensors
  -- and plain tables, mindtorch's otherwise (.t7, Torch7's habit, every other name, and whole
  -- modules or optimizers, which PyTorch's format cannot hold as Lua objects)
  local function save_format(path, opts, obj)
    if opts ~= nil and type(opts) ~= "table" then error("torch.save(obj, path, opts): opts must be a table", 3) end
    local f = opts and opts.format
    for k in pairs(opts or {}) do
      if k ~= "format" then error(("torch.save() got an unexpected keyword argument '%s'"):format(tostring(k)), 3) end
    end
    if f == nil then return (path:match("%.pth?$") and not holds_objects(obj, {}) and "pt") or "mindtorch" end
    if f ~= "pt" and f ~= "mindtorch" then
      error(("torch.save: format must be \"pt\" or \"mindtorch\", got %s"):format(tostring(f)), 3)
    end
    return f
  end

  -- torch.save(obj, path [, {format =}]): obj is a tensor, a number, a string, a boolean, or a
  -- table of them
  function torch.save(obj, path, opts)
    if type(path) ~= "string" then error("torch.save(obj, path): path must be a string", 2) end
    if save_format(path, opts, obj) == "pt" then
      -- PyTorch names the archive's folder after the file
      local folder = path:match("([^/]+)$"):gsub("%.[^.]*$", "")
      if folder == "" or folder:find("[^%w_%-%.]") then folder = "archive" end
      local ok, bytes = pcall(pt().encode, obj, folder)
      if not ok then error(bytes, 2) end
      write_atomically(path, { bytes })
      return
    end
    local ok, bytes = pcall(graph().encode, obj)
    if not ok then error(bytes, 2) end
    local body = MAGIC2 .. bytes
    write_atomically(path, { body, string.pack("<I4", torch._crc32(body)) })
  end

  local function corrupt(path, why) error(("%s: not a valid mindtorch file (%s)"):format(path, why), 0) end

  -- decode(s, pos, path, depth) -> value, next position. s is the body (magic and value, the
  -- checksum already checked and cut off); every read is checked against #s.
  local decode
  local function unpack(fmt, s, pos, path)
    local r = table.pack(pcall(string.unpack, fmt, s, pos))
    if not r[1] then corrupt(path, "truncated") end
    return table.unpack(r, 2, r.n)
  end

  local GRAPH -- serialization_graph.lua: version 2, loaded when first used
  function graph()
    GRAPH = GRAPH or require("mindtorch.serialization_graph")(torch, { corrupt = corrupt, unpack = unpack,
      dtype_by_name = dtype_by_name, MAX_DIM = MAX_DIM, MAX_DEPTH = MAX_DEPTH })
    return GRAPH
  end

  -- dtype and sizes of a tensor, checked; then nil or the element count and item size
  local function decode_tensor_head(s, pos, path)
    local dname, p = unpack("<s1", s, pos, path)
    local dt = dtype_by_name[dname]
    if not dt then corrupt(path, "unknown dtype " .. ("%q"):format(dname)) end
    local ndim
    ndim, p = unpack("B", s, p, path)
    if ndim > MAX_DIM then corrupt(path, ("a tensor of %d dimensions (at most %d)"):format(ndim, MAX_DIM)) end
    local sizes = {}
    for i = 1, ndim do
      sizes[i], p = unpack("<i8", s, p, path)
      if sizes[i] < 0 then corrupt(path, "bad tensor size " .. sizes[i]) end
    end
    return dt, sizes, p
  end

  local function decode_tensor(s, pos, path)
    local dt, sizes, p = decode_tensor_head(s, pos, path)
    local n = checked_numel(sizes)
    local nbytes
    nbytes, p = unpack("<i8", s, p, path) -- a u64; values past 2^63 read as negative
    local isz = torch.empty(0, { dtype = dt }).itemsize
    if not n or n > #s // isz or nbytes ~= n * isz then corrupt(path, "tensor data does not match its shape") end
    if nbytes > #s - p + 1 then corrupt(path, "truncated") end
    if n == 0 then return torch.empty(sizes, { dtype = dt }), p end
    return torch.frombuffer(s, { dtype = dt, offset = p - 1, count = n }):view(sizes), p + nbytes
  end

  -- "R": a tensor whose bytes travel apart; it is made empty here and listed in sink (the
  -- element count is checked; the bytes are checked against where they come from)
  local function decode_tensor_ref(s, pos, path, sink)
    if not sink then corrupt(path, "a tensor without its bytes") end
    local dt, sizes, p = decode_tensor_head(s, pos, path)
    if not checked_numel(sizes) then corrupt(path, "tensor sizes overflow") end
    local t = torch.empty(sizes, { dtype = dt })
    sink[#sink + 1] = t
    return t, p
  end

  local function decode_table(s, pos, path, depth, sink)
    if depth >= MAX_DEPTH then corrupt(path, ("tables nested deeper than %d levels"):format(MAX_DEPTH)) end
    local count, p = unpack("<I4", s, pos, path)
    -- each pair takes at least two bytes: a larger count cannot be what the file holds
    if count > (#s - p + 1) // 2 then corrupt(path, "a table count larger than the file") end
    local tbl = {}
    for _ = 1, count do
      local k, v
      k, p = decode(s, p, path, depth + 1, sink)
      if type(k) ~= "string" and type(k) ~= "number" then corrupt(path, "a table key is " .. type(k)) end
      if k ~= k then corrupt(path, "a table key is NaN") end
      v, p = decode(s, p, path, depth + 1, sink)
      tbl[k] = v
    end
    return tbl, p
  end

  function decode(s, pos, path, depth, sink)
    if pos > #s then corrupt(path, "truncated") end
    local tag = s:sub(pos, pos)
    if tag == "0" then return nil, pos + 1 end
    if tag == "b" then
      local byte = s:byte(pos + 1)
      if byte ~= 0 and byte ~= 1 then corrupt(path, byte and "bad boolean" or "truncated") end
      return byte == 1, pos + 2
    end
    if tag == "i" then return unpack("<i8", s, pos + 1, path) end
    if tag == "f" then return unpack("<d", s, pos + 1, path) end
    if tag == "s" then return unpack("<s4", s, pos + 1, path) end
    if tag == "T" then return decode_tensor(s, pos + 1, path) end
    if tag == "t" then return decode_table(s, pos + 1, path, depth, sink) end
    if tag == "R" then return decode_tensor_ref(s, pos + 1, path, sink) end
    corrupt(path, "unknown tag " .. ("%q"):format(tag))
  end

  -- torch._encode_value(v [, sink]) / torch._decode_value(s, what [, sink]): the format above
  -- without the file (DataLoader workers send batches with it); decoding checks every size
  -- against s. With sink, tensors' bytes are left out and the tensors listed in it instead
  -- (on decoding: new, uninitialized tensors the caller fills).
  function torch._encode_value(v, sink)
    local out = {}
    encode(v, out, {}, 0, sink)
    return table.concat(out)
  end
  function torch._decode_value(s, what, sink)
    local v, pos = decode(s, 1, what, 0, sink)
    if pos ~= #s + 1 then corrupt(what, "trailing bytes") end
    return v
  end

  -- torch.load(path): what torch.save wrote (tensors on the CPU)
  -- torch.load(path [, {map_location =}]): mindtorch's format, or PyTorch's (a zip archive:
  -- serialization_pt.lua), told apart by their first bytes
  function torch.load(path, opts)
    if type(path) ~= "string" then error("torch.load(path): path must be a string, got " .. type(path), 2) end
    if opts ~= nil and type(opts) ~= "table" then
      opts = { map_location = opts } -- torch.load(path, "cpu"), as PyTorch's positional map_location
    end
    for k in pairs(opts or {}) do
      if k ~= "map_location" and k ~= "weights_only" then
        error(("torch.load() got an unexpected keyword argument '%s'"):format(tostring(k)), 2)
      end
    end
    local s = read_all(path)
    if s:sub(1, 4) == "PK\3\4" then return pt().load(s, path, opts and opts.map_location) end
    if #s >= 262 and s:sub(258, 262) == "ustar" then
      error(("%s: a PyTorch checkpoint in the tar format of PyTorch 0.3 and earlier, which mindtorch does not "
        .. "read: load it in PyTorch and save it again"):format(path), 2)
    end
    -- a pickle first: PyTorch's legacy format
    if s:byte(1) == 0x80 then return pt().load_legacy(s, path, opts and opts.map_location) end
    if #s < #MAGIC + 4 or s:sub(1, 6) ~= MAGIC:sub(1, 6) then corrupt(path, "no mindtorch header") end
    local version = s:sub(1, #MAGIC)
    if version ~= MAGIC and version ~= MAGIC2 then corrupt(path, "unsupported format version " .. s:byte(8)) end
    local body = s:sub(1, -5)
    if string.unpack("<I4", s, #s - 3) ~= torch._crc32(body) then corrupt(path, "checksum mismatch: the file is damaged or truncated") end
    local v, pos
    if version == MAGIC2 then
      v, pos = graph().decode(body, #MAGIC + 1, path)
    else
      v, pos = decode(body, #MAGIC + 1, path, 0)
    end
    if pos ~= #body + 1 then corrupt(path, "trailing data") end
    return v
  end

  -- ---- safetensors ---------------------------------------------------------------------------------
  local st_names = { float64 = "F64", float32 = "F32", float16 = "F16", bfloat16 = "BF16", int64 = "I64",
    int32 = "I32", int16 = "I16", int8 = "I8", uint8 = "U8", bool = "BOOL" }
  local st_dtypes = {}
  for k, v in pairs(st_names) do st_dtypes[v] = dtype_by_name[k] end

  local function json_string(s)
    return '"' .. s:gsub('[%c"\\]', function(c)
      if c == '"' then return '\\"' end
      if c == "\\" then return "\\\\" end
      return ("\\u%04x"):format(c:byte())
    end) .. '"'
  end

  -- a small JSON reader for safetensors headers (objects, arrays, strings, numbers): the whole
  -- of s must be one object (trailing spaces allowed, as the writers pad), nested at most 32
  -- deep, keys unique, arrays of at most 64 elements
  local JSON_ARRAY = {} -- the metatable that tells decoded arrays from objects
  local function is_array(v) return getmetatable(v) == JSON_ARRAY end
  local function is_object(v) return type(v) == "table" and not is_array(v) end
  local function json_decode(s, path)
    local pos, depth = 1, 0
    local function fail(why) error(("%s: not a valid safetensors file (invalid header: %s)"):format(path, why), 0) end
    local function ws() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
    local value
    local escapes = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
    -- a string: runs of plain characters are taken whole (memory stays a small multiple of
    -- the header), escapes one by one; raw control characters are not JSON
    local function str()
      local out = {}
      pos = pos + 1
      while true do
        local stop = s:find('[%z\1-\31"\\]', pos)
        if not stop then fail("unterminated string") end
        out[#out + 1] = s:sub(pos, stop - 1)
        pos = stop
        local c = s:sub(pos, pos)
        if c == '"' then pos = pos + 1 break end
        if c ~= "\\" then fail("a control character in a string") end
        local e = s:sub(pos + 1, pos + 1)
        if escapes[e] then
          out[#out + 1] = escapes[e]
          pos = pos + 2
        elseif e == "u" then
          local hex = s:sub(pos + 2, pos + 5)
          if not hex:match("^%x%x%x%x$") then fail("bad escape") end
          out[#out + 1] = utf8.char(tonumber(hex, 16))
          pos = pos + 6
        else
          fail("bad escape")
        end
      end
      return table.concat(out)
    end
    function value()
      ws()
      local c = s:sub(pos, pos)
      if c == "{" or c == "[" then
        depth = depth + 1
        if depth > 32 then fail("nested too deeply") end
      end
      if c == "{" then
        local obj = {}
        pos = pos + 1
        ws()
        if s:sub(pos, pos) == "}" then pos, depth = pos + 1, depth - 1 return obj end
        while true do
          ws()
          if s:sub(pos, pos) ~= '"' then fail("expected a key") end
          local k = str()
          if obj[k] ~= nil then fail("duplicate key " .. json_string(k)) end
          ws()
          if s:sub(pos, pos) ~= ":" then fail("expected ':'") end
          pos = pos + 1
          obj[k] = value()
          ws()
          local d = s:sub(pos, pos)
          pos = pos + 1
          if d == "}" then depth = depth - 1 return obj end
          if d ~= "," then fail("expected ',' or '}'") end
        end
      elseif c == "[" then
        local arr = setmetatable({}, JSON_ARRAY)
        pos = pos + 1
        ws()
        if s:sub(pos, pos) == "]" then pos, depth = pos + 1, depth - 1 return arr end
        while true do
          -- safetensors' lists are shapes and offsets: a long one is an attack on memory
          if #arr == 64 then fail("an array of more than 64 elements") end
          arr[#arr + 1] = value()
          ws()
          local d = s:sub(pos, pos)
          pos = pos + 1
          if d == "]" then depth = depth - 1 return arr end
          if d ~= "," then fail("expected ',' or ']'") end
        end
      elseif c == '"' then
        return str()
      else
        -- JSON's number grammar: an integer part without leading zeros, then an optional
        -- fraction and exponent. Integers stay Lua integers, exact to 2^63 - 1 (a JSON library
        -- that reads every number as a double rounds past 2^53); one with a fraction or an
        -- exponent, or past int64, is a float, which no size or offset accepts
        local int = s:match("^-?%d+", pos)
        if not int then fail("unexpected character") end
        local stop = pos + #int
        local frac = s:match("^%.%d+", stop) or ""
        local exp = s:match("^[eE][-+]?%d+", stop + #frac) or ""
        local after = s:sub(stop + #frac + #exp, stop + #frac + #exp)
        if int:match("^-?0%d") or after:match("[%.eE%d]") then fail("a malformed number") end
        local num = s:sub(pos, stop + #frac + #exp - 1)
        pos = pos + #num
        return tonumber(num)
      end
    end
    ws()
    if s:sub(pos, pos) ~= "{" then fail("it does not start with '{'") end
    local v = value()
    ws()
    if pos <= #s then fail("trailing data after the JSON object") end
    return v
  end

  -- torch.save_safetensors({name = tensor, ...}, path, metadata)
  function torch.save_safetensors(tensors, path, metadata)
    if type(path) ~= "string" then error("torch.save_safetensors(tensors, path): path must be a string", 2) end
    if type(tensors) ~= "table" then error("save_safetensors expects a table of name = tensor, got " .. type(tensors), 2) end
    if metadata ~= nil and type(metadata) ~= "table" then
      error("save_safetensors: metadata must be a table of strings, got " .. type(metadata), 2)
    end
    local names = {}
    for k, v in pairs(tensors) do
      if type(k) ~= "string" or not torch.is_tensor(v) then
        error("save_safetensors expects a table of name = tensor", 2)
      end
      names[#names + 1] = k
    end
    table.sort(names)
    local entries, blobs, offset = {}, {}, 0
    if metadata then
      local m = {}
      local keys = {}
      for k in pairs(metadata) do
        if type(k) ~= "string" then error("save_safetensors: metadata keys must be strings", 2) end
        keys[#keys + 1] = k
      end
      table.sort(keys)
      for _, k in ipairs(keys) do m[#m + 1] = json_string(k) .. ":" .. json_string(tostring(metadata[k])) end
      entries[#entries + 1] = '"__metadata__":{' .. table.concat(m, ",") .. "}"
    end
    for _, name in ipairs(names) do
      local t = tensors[name]:detach()
      if t.device.type ~= "cpu" then t = t:cpu() end
      local bytes = torch._tensor_bytes(t)
      local shape = {}
      for i = 1, t:dim() do shape[i] = tostring(t.shape[i]) end
      entries[#entries + 1] = ('%s:{"dtype":"%s","shape":[%s],"data_offsets":[%d,%d]}'):format(
        json_string(name), st_names[t.dtype.name], table.concat(shape, ","), offset, offset + #bytes)
      blobs[#blobs + 1] = bytes
      offset = offset + #bytes
    end
    local header = "{" .. table.concat(entries, ",") .. "}"
    header = header .. string.rep(" ", (8 - #header % 8) % 8) -- aligned data, as the reference writer pads
    local chunks = { string.pack("<I8", #header), header }
    for _, b in ipairs(blobs) do chunks[#chunks + 1] = b end
    write_atomically(path, chunks)
  end

  -- The checks of the safetensors format's reference reader: a header length (u64) of at most
  -- 100 MB inside the file, a header that is one JSON object, entries with a known dtype, a
  -- shape of non-negative integers and data_offsets [begin, end] whose length is the shape's
  -- byte size, and byte ranges that, sorted, tile the data buffer from 0 to its end exactly.
  local MAX_HEADER = 100000000

  local function st_entry(name, e, bad)
    if not is_object(e) then bad("the entry of " .. name .. " is not an object") end
    local dt = st_dtypes[e.dtype]
    if not dt then bad(("unsupported dtype %s for %s"):format(tostring(e.dtype), name)) end
    local shape, offs = e.shape, e.data_offsets
    if not is_array(shape) or #shape > MAX_DIM then bad("the shape of " .. name .. " is not a list of at most 16 sizes") end
    for i, d in pairs(shape) do
      if math.type(i) ~= "integer" or math.type(d) ~= "integer" or d < 0 then
        bad("the shape of " .. name .. " is not a list of non-negative integers")
      end
    end
    if not is_array(offs) or #offs ~= 2 or math.type(offs[1]) ~= "integer" or math.type(offs[2]) ~= "integer"
      or offs[1] < 0 or offs[2] < offs[1] then
      bad("the data offsets of " .. name .. " are not [begin, end] with 0 <= begin <= end")
    end
    shape = table.move(shape, 1, #shape, 1, {}) -- a plain list for torch.empty and view
    local n = checked_numel(shape)
    local isz = torch.empty(0, { dtype = dt }).itemsize
    if not n or n > math.maxinteger // isz or offs[2] - offs[1] ~= n * isz then
      bad(("the data of %s (%d bytes) does not match its shape and dtype"):format(name, offs[2] - offs[1]))
    end
    return { name = name, dtype = dt, shape = shape, numel = n, first = offs[1], last = offs[2] }
  end

  -- torch.load_safetensors(path) -> {name = tensor}, metadata
  function torch.load_safetensors(path)
    if type(path) ~= "string" then error("torch.load_safetensors(path): path must be a string, got " .. type(path), 2) end
    local s = read_all(path)
    local function bad(why) error(("%s: not a valid safetensors file (%s)"):format(path, why), 0) end
    if #s < 8 then bad("too short") end
    local n = string.unpack("<i8", s) -- a u64; values past 2^63 read as negative
    if n < 0 or n > MAX_HEADER then bad("header too large") end
    if n > #s - 8 then bad("header length beyond the end of the file") end
    local json = s:sub(9, 8 + n)
    if not utf8.len(json) then bad("the header is not UTF-8") end
    local header = json_decode(json, path)
    local data_start, data_len = 8 + n, #s - 8 - n
    local meta, entries = header.__metadata__, {}
    if meta ~= nil then
      if not is_object(meta) then bad("__metadata__ is not an object") end
      for k, v in pairs(meta) do
        if type(k) ~= "string" or type(v) ~= "string" then bad("__metadata__ maps strings to strings only") end
      end
    end
    for name, e in pairs(header) do
      if name ~= "__metadata__" then entries[#entries + 1] = st_entry(name, e, bad) end
    end
    table.sort(entries, function(a, b)
      if a.first ~= b.first then return a.first < b.first end
      if a.last ~= b.last then return a.last < b.last end
      return a.name < b.name
    end)
    local at = 0
    for _, e in ipairs(entries) do
      if e.first ~= at then bad("data offsets of " .. e.name .. " are out of range: the byte ranges must tile the data") end
      at = e.last
    end
    if at ~= data_len then
      bad(("data offsets are out of range: the tensors cover %d bytes of a %d-byte data buffer"):format(at, data_len))
    end
    local out = {}
    for _, e in ipairs(entries) do
      if e.numel == 0 then
        out[e.name] = torch.empty(e.shape, { dtype = e.dtype })
      else
        out[e.name] = torch.frombuffer(s, { dtype = e.dtype, offset = data_start + e.first, count = e.numel }):view(e.shape)
      end
    end
    return out, meta
  end
end
