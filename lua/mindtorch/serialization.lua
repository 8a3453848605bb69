-- serialization.lua: torch.save / torch.load (mindtorch's own format, doc/serialization.md) and
-- torch.save_safetensors / torch.load_safetensors (the safetensors format, for weights that
-- move to and from the PyTorch ecosystem). Files are written to a temporary name in the same
-- directory and renamed, so a crash never leaves a half-written file under the real name.
return function(torch)
  local MAGIC = "MTSAVE\0\1" -- format name and version 1
  local dtype_by_name = {}
  for _, name in ipairs({ "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool" }) do
    dtype_by_name[name] = torch[name]
  end

  local function write_atomically(path, chunks)
    local tmp = ("%s.tmp-%d-%d"):format(path, os.time(), math.random(1, 1 << 30))
    local f, err = io.open(tmp, "wb")
    if not f then error(err, 3) end
    local ok, werr = true, nil
    for _, c in ipairs(chunks) do
      local r, e = f:write(c)
      if not r then ok, werr = false, e break end
    end
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
  end

  local function read_all(path)
    local f, err = io.open(path, "rb")
    if not f then error(err, 3) end
    local s = f:read("a")
    f:close()
    return s
  end

  -- ---- mindtorch's format -----------------------------------------------------------------------
  -- value := tag payload; tags: "0" nil, "b" boolean, "i" integer, "f" float, "s" string,
  -- "t" table (count, then key/value pairs), "T" tensor (dtype name, ndim, sizes, bytes).
  -- The file is MAGIC, the encoded value, then the CRC-32 of both (4 bytes).
  local function encode(v, out, seen)
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
      local parts = { string.pack("<c1s1B", "T", t.dtype.name, t:dim()) }
      for i = 1, t:dim() do parts[#parts + 1] = string.pack("<i8", t.shape[i]) end
      parts[#parts + 1] = string.pack("<s8", torch._tensor_bytes(t))
      out[#out + 1] = table.concat(parts)
    elseif ty == "table" then
      if seen[v] then error("cannot save a table that contains itself", 4) end
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
        encode(k, out, seen)
        encode(v[k], out, seen)
      end
      seen[v] = nil
    else
      error("cannot save a value of type " .. ty, 4)
    end
  end

  -- torch.save(obj, path): obj is a tensor, a number, a string, a boolean, or a table of them
  function torch.save(obj, path)
    if type(path) ~= "string" then error("torch.save(obj, path): path must be a string", 2) end
    local out = { MAGIC }
    encode(obj, out, {})
    local body = table.concat(out)
    write_atomically(path, { body, string.pack("<I4", torch._crc32(body)) })
  end

  local function corrupt(path, why) error(("%s: not a valid mindtorch file (%s)"):format(path, why), 0) end

  local function decode(s, pos, path)
    if pos > #s then corrupt(path, "truncated") end
    local tag = s:sub(pos, pos)
    local ok, a, b, c = pcall(function()
      if tag == "0" then return nil, pos + 1 end
      if tag == "b" then return s:byte(pos + 1) == 1, pos + 2 end
      if tag == "i" then return string.unpack("<i8", s, pos + 1) end
      if tag == "f" then return string.unpack("<d", s, pos + 1) end
      if tag == "s" then return string.unpack("<s4", s, pos + 1) end
      return nil, nil, tag
    end)
    if not ok then corrupt(path, "truncated") end
    if c == nil and b ~= nil then return a, b end
    if tag == "T" then
      local okh, dname, ndim, p = pcall(string.unpack, "<s1B", s, pos + 1)
      if not okh then corrupt(path, "truncated") end
      local dt = dtype_by_name[dname]
      if not dt then corrupt(path, "unknown dtype " .. tostring(dname)) end
      local sizes, n = {}, 1
      for i = 1, ndim do
        local oks, v, np = pcall(string.unpack, "<i8", s, p)
        if not oks or v < 0 then corrupt(path, "bad tensor size") end
        sizes[i], p, n = v, np, n * v
      end
      local okb, bytes, np = pcall(string.unpack, "<s8", s, p)
      if not okb then corrupt(path, "truncated") end
      local t = torch.frombuffer(bytes, { dtype = dt })
      if t:numel() ~= n then corrupt(path, "tensor data does not match its shape") end
      return t:view(sizes), np
    end
    if tag == "t" then
      local okc, count, p = pcall(string.unpack, "<I4", s, pos + 1)
      if not okc then corrupt(path, "truncated") end
      local tbl = {}
      for _ = 1, count do
        local k, v
        k, p = decode(s, p, path)
        v, p = decode(s, p, path)
        if k == nil then corrupt(path, "a table key is nil") end
        tbl[k] = v
      end
      return tbl, p
    end
    corrupt(path, "unknown tag " .. ("%q"):format(tag))
  end

  -- torch.load(path): what torch.save wrote (tensors on the CPU)
  function torch.load(path)
    if type(path) ~= "string" then error("torch.load(path): path must be a string", 2) end
    local s = read_all(path)
    if #s < #MAGIC + 4 or s:sub(1, 6) ~= MAGIC:sub(1, 6) then corrupt(path, "no mindtorch header") end
    if s:sub(1, #MAGIC) ~= MAGIC then corrupt(path, "unsupported format version " .. s:byte(8)) end
    local body = s:sub(1, -5)
    if string.unpack("<I4", s, #s - 3) ~= torch._crc32(body) then corrupt(path, "checksum mismatch: the file is damaged or truncated") end
    local v, pos = decode(body, #MAGIC + 1, path)
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

  -- a small JSON reader for safetensors headers (objects, arrays, strings, integers)
  local function json_decode(s, path)
    local pos = 1
    local function fail(why) error(("%s: invalid safetensors header (%s)"):format(path, why), 0) end
    local function ws() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
    local value
    local function str()
      local out = {}
      pos = pos + 1
      while true do
        local c = s:sub(pos, pos)
        if c == "" then fail("unterminated string") end
        if c == '"' then pos = pos + 1 break end
        if c == "\\" then
          local e = s:sub(pos + 1, pos + 1)
          local map = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
          if map[e] then
            out[#out + 1] = map[e]
            pos = pos + 2
          elseif e == "u" then
            out[#out + 1] = utf8.char(tonumber(s:sub(pos + 2, pos + 5), 16) or fail("bad escape"))
            pos = pos + 6
          else
            fail("bad escape")
          end
        else
          out[#out + 1] = c
          pos = pos + 1
        end
      end
      return table.concat(out)
    end
    function value()
      ws()
      local c = s:sub(pos, pos)
      if c == "{" then
        local obj = {}
        pos = pos + 1
        ws()
        if s:sub(pos, pos) == "}" then pos = pos + 1 return obj end
        while true do
          ws()
          if s:sub(pos, pos) ~= '"' then fail("expected a key") end
          local k = str()
          ws()
          if s:sub(pos, pos) ~= ":" then fail("expected ':'") end
          pos = pos + 1
          obj[k] = value()
          ws()
          local d = s:sub(pos, pos)
          pos = pos + 1
          if d == "}" then return obj end
          if d ~= "," then fail("expected ',' or '}'") end
        end
      elseif c == "[" then
        local arr = {}
        pos = pos + 1
        ws()
        if s:sub(pos, pos) == "]" then pos = pos + 1 return arr end
        while true do
          arr[#arr + 1] = value()
          ws()
          local d = s:sub(pos, pos)
          pos = pos + 1
          if d == "]" then return arr end
          if d ~= "," then fail("expected ',' or ']'") end
        end
      elseif c == '"' then
        return str()
      else
        local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
        if not num or num == "" then fail("unexpected character") end
        pos = pos + #num
        return math.tointeger(tonumber(num)) or tonumber(num)
      end
    end
    local v = value()
    return v
  end

  -- torch.save_safetensors({name = tensor, ...}, path, metadata)
  function torch.save_safetensors(tensors, path, metadata)
    if type(path) ~= "string" then error("torch.save_safetensors(tensors, path): path must be a string", 2) end
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
      for k in pairs(metadata) do keys[#keys + 1] = k end
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

  -- torch.load_safetensors(path) -> {name = tensor}, metadata
  function torch.load_safetensors(path)
    if type(path) ~= "string" then error("torch.load_safetensors(path): path must be a string", 2) end
    local s = read_all(path)
    local function bad(why) error(("%s: not a valid safetensors file (%s)"):format(path, why), 0) end
    if #s < 8 then bad("too short") end
    local n = string.unpack("<I8", s)
    if n > #s - 8 then bad("header length beyond the end of the file") end
    local header = json_decode(s:sub(9, 8 + n), path)
    if type(header) ~= "table" then bad("header is not an object") end
    local data_start, data_len = 8 + n, #s - 8 - n
    local out, meta = {}, header.__metadata__
    for name, e in pairs(header) do
      if name ~= "__metadata__" then
        local dt = st_dtypes[e.dtype]
        if not dt then bad("unsupported dtype " .. tostring(e.dtype)) end
        local b, f = e.data_offsets[1], e.data_offsets[2]
        if type(b) ~= "number" or type(f) ~= "number" or b < 0 or f < b or f > data_len then
          bad("data offsets of " .. name .. " are out of range")
        end
        local count = 1
        for _, d in ipairs(e.shape) do count = count * d end
        local t = torch.frombuffer(s, { dtype = dt, offset = data_start + b, count = (f - b) // torch.empty(0, { dtype = dt }).itemsize })
        if t:numel() ~= count then bad("data of " .. name .. " does not match its shape") end
        out[name] = t:view(e.shape)
      end
    end
    return out, meta
  end
end
