-- serialization_graph.lua: mindtorch's format, version 2 (doc/serialization.md): whole object
-- graphs, as Torch7's torch.save and PyTorch's pickling keep them.
--   * every table and tensor is written once; meeting it again writes a reference, so shared
--     values stay shared and cycles (a module's parent links) are kept;
--   * tensors are views of storages: each storage's bytes are written once, and every tensor
--     over it keeps its dtype, sizes, strides and offset (views stay views), requires_grad and
--     its user attributes (nn.Parameter's mark is one);
--   * instances of classes declared through the class helper (nn modules, optimizers,
--     schedulers, users' classes) are written with their class's full name and restored by
--     looking that name up in the class registry: nothing in a file is ever executed. A class
--     that is not defined when loading is an error naming it;
--   * functions are written by name when torch, math, string or table reach them
--     (torch.nn.functional.relu), and are looked up by that name again; any other function (a
--     closure, a user's function) is an error naming where it is, as pickle refuses lambdas.
-- Loading checks every count, size and offset against the file (doc/security.md).
local class = require "mindtorch._class"
local ordered = require "mindtorch._ordered"

return function(torch, h)
  -- h: serialization.lua's helpers: corrupt(path, why), unpack(fmt, s, pos, path),
  -- dtype_by_name, MAX_DIM, MAX_DEPTH
  local G = {}
  local ROOTS = { torch = torch, math = math, string = string, table = table }
  local dtype_mt, device_mt = getmetatable(torch.float32), getmetatable(torch.device("cpu"))

  -- functions reachable by name from ROOTS: function -> "torch.nn.functional.relu" (raw fields only:
  -- walking never loads a lazily loaded module)
  local function function_names()
    local names, seen = {}, {}
    local function walk(t, prefix, depth)
      if seen[t] or depth > 5 then return end
      seen[t] = true
      for k, v in next, t do
        if type(k) == "string" and k:match("^[%a_][%w_]*$") then
          if type(v) == "function" then
            names[v] = names[v] or prefix .. k
          elseif type(v) == "table" and not class.typename(v) then
            walk(v, prefix .. k .. ".", depth + 1)
          end
        end
      end
    end
    for _, root in ipairs({ "torch", "math", "string", "table" }) do walk(ROOTS[root], root .. ".", 1) end
    return names
  end

  -- the function a name written by function_names stands for, or nil
  local function function_by_name(name)
    local root, rest = name:match("^([%a_][%w_]*)%.(.+)$")
    local v = root and ROOTS[root]
    if not v then return nil end
    for part in rest:gmatch("[^.]+") do
      if type(v) ~= "table" or not part:match("^[%a_][%w_]*$") then return nil end
      local ok, nxt = pcall(function() return v[part] end)
      if not ok then return nil end
      v = nxt
    end
    return type(v) == "function" and v or nil
  end

  local function sorted_keys(t)
    local plain, other = {}, {}
    for k in next, t do
      local ty = type(k)
      if ty == "string" or ty == "number" then plain[#plain + 1] = k else other[#other + 1] = k end
    end
    table.sort(plain, function(a, b)
      if type(a) == type(b) then return a < b end
      return type(a) == "number"
    end)
    for _, k in ipairs(other) do plain[#plain + 1] = k end
    return plain
  end

  -- G.encode(v) -> the bytes of v (without the file's magic and checksum)
  function G.encode(v)
    local out, ids, nids, storages, nstorages = {}, {}, 0, {}, 0
    local path, fnames = {}, nil
    local function w(x) out[#out + 1] = x end
    local function fail(msg)
      local where = #path == 0 and "the value itself" or "value" .. table.concat(path)
      error(("torch.save: %s (at %s)"):format(msg, where), 0)
    end
    local function step(k)
      if type(k) == "string" and k:match("^[%a_][%w_]*$") then return "." .. k end
      if type(k) == "string" then return ("[%q]"):format(k) end
      if type(k) == "number" then return "[" .. tostring(k) .. "]" end
      return "[" .. type(k) .. " key]"
    end

    local value
    local function body(t, keys, depth)
      w(string.pack("<I4", #keys))
      for _, k in ipairs(keys) do
        path[#path + 1] = "(key)"
        value(k, depth + 1)
        path[#path] = step(k)
        value(rawget(t, k), depth + 1)
        path[#path] = nil
      end
    end

    local function tensor(x, depth)
      local t = x:detach()
      if t.device.type ~= "cpu" then t = t:cpu() end
      local st = t:untyped_storage()
      local key = st:data_ptr() .. ":" .. st:nbytes()
      local index = storages[key]
      if index then
        w(string.pack("<c1I4", "V", index))
      else
        nstorages = nstorages + 1
        storages[key] = nstorages
        local bytes = st:nbytes() > 0 and torch._tensor_bytes(torch.empty(0, { dtype = torch.uint8 }):set_(st)) or ""
        w(string.pack("<c1I4s8", "V", nstorages, bytes))
      end
      local sizes, strides = t:size(), t:stride()
      local parts = { string.pack("<s1B", t.dtype.name, #sizes) }
      for i = 1, #sizes do parts[#parts + 1] = string.pack("<i8i8", sizes[i], strides[i]) end
      parts[#parts + 1] = string.pack("<i8B", t:storage_offset(), x.requires_grad and 1 or 0)
      w(table.concat(parts))
      path[#path + 1] = ".(attributes)"
      value(torch._tensor_attributes(x), depth + 1)
      path[#path] = nil
    end

    function value(x, depth)
      local ty = type(x)
      if x == nil then
        w("0")
      elseif ty == "boolean" then
        w(x and "b\1" or "b\0")
      elseif math.type(x) == "integer" then
        w(string.pack("<c1i8", "i", x))
      elseif ty == "number" then
        w(string.pack("<c1d", "f", x))
      elseif ty == "string" then
        w(string.pack("<c1s4", "s", x))
      elseif ids[x] then
        w(string.pack("<c1I4", "r", ids[x]))
      elseif torch.is_tensor(x) then
        nids = nids + 1
        ids[x] = nids
        tensor(x, depth)
      elseif ty == "table" then
        if depth >= h.MAX_DEPTH then fail(("tables nested deeper than %d levels"):format(h.MAX_DEPTH)) end
        local mt = getmetatable(x)
        local name = class.typename(x)
        nids = nids + 1
        ids[x] = nids
        if mt == nil then
          w("t")
          body(x, sorted_keys(x), depth)
        elseif name then
          if class.class_of(name) ~= class.type_of(x) then
            fail(("an instance of a class %s that another class of that name has replaced"):format(name))
          end
          w(string.pack("<c1s2", "o", name))
          body(x, sorted_keys(x), depth)
        elseif class.metatable_name(mt) then
          w(string.pack("<c1s2", "m", class.metatable_name(mt)))
          body(x, sorted_keys(x), depth)
        elseif ordered.is(x) then
          local keys = {}
          for k in pairs(x) do keys[#keys + 1] = k end
          w("O")
          body(x, keys, depth)
        elseif type(mt) == "table" and type(rawget(mt, "__mode")) == "string" and next(mt, next(mt)) == nil then
          w(string.pack("<c1s1", "w", mt.__mode)) -- a weak table (a cache), kept weak
          body(x, sorted_keys(x), depth)
        else
          fail("a table with a metatable that is not a class (declare its class with torch.class)")
        end
      elseif ty == "function" then
        fnames = fnames or function_names()
        local name = fnames[x]
        if not name then
          fail("a function that torch, math, string and table do not reach by name (a closure or a function of "
            .. "your own) cannot be saved: set it to nil before saving, or save the state_dict")
        end
        w(string.pack("<c1s2", "F", name))
      elseif getmetatable(x) == dtype_mt then
        w(string.pack("<c1s1", "d", x.name))
      elseif getmetatable(x) == device_mt then
        w(string.pack("<c1s1", "D", tostring(x)))
      else
        fail("a value of type " .. (torch.typename and torch.typename(x) or ty) .. " cannot be saved")
      end
    end

    value(v, 0)
    return table.concat(out)
  end

  -- G.decode(s, pos, path) -> value, next position; s is the body (checksum checked and cut off)
  function G.decode(s, pos, path)
    local corrupt, unpack = h.corrupt, h.unpack
    local objects, storages = {}, {}
    local instances = {} -- {table, class}: given their class once filled, so filling is raw
    local decode

    -- a body's pairs into t with set: rawset, or a plain assignment (an ordered table records
    -- its keys as they are set)
    local function fill(t, p, depth, set)
      local count
      count, p = unpack("<I4", s, p, path)
      if count > (#s - p + 1) // 2 then corrupt(path, "a table count larger than the file") end
      for _ = 1, count do
        local k, v
        k, p = decode(p, depth + 1)
        if k == nil or k ~= k then corrupt(path, "a table key that is nil or NaN") end
        v, p = decode(p, depth + 1)
        set(t, k, v)
      end
      return p
    end
    local function assign(t, k, v) t[k] = v end

    local function tensor(p, depth)
      local index
      index, p = unpack("<I4", s, p, path)
      local st
      if index == #storages + 1 then
        local bytes
        bytes, p = unpack("<s8", s, p, path)
        st = #bytes > 0 and torch.frombuffer(bytes, { dtype = torch.uint8 }):untyped_storage()
          or torch.empty(0, { dtype = torch.uint8 }):untyped_storage()
        storages[index] = st
      elseif index >= 1 and index <= #storages then
        st = storages[index]
      else
        corrupt(path, ("a tensor on storage %d of %d"):format(index, #storages))
      end
      local dname, ndim
      dname, ndim, p = unpack("<s1B", s, p, path)
      local dt = h.dtype_by_name[dname]
      if not dt then corrupt(path, "unknown dtype " .. ("%q"):format(dname)) end
      if ndim > h.MAX_DIM then corrupt(path, ("a tensor of %d dimensions (at most %d)"):format(ndim, h.MAX_DIM)) end
      local sizes, strides = {}, {}
      for i = 1, ndim do
        sizes[i], strides[i], p = unpack("<i8i8", s, p, path)
        if sizes[i] < 0 or strides[i] < 0 then corrupt(path, "a negative tensor size or stride") end
      end
      local offset, flags
      offset, flags, p = unpack("<i8B", s, p, path)
      -- an element count that fits (a broadcast view may have many more elements than its storage)
      local count = torch._checked_numel(sizes)
      if not count or count > math.maxinteger // dt.itemsize then corrupt(path, "tensor sizes overflow") end
      -- the farthest element, in checked arithmetic, inside the storage
      local numel = st:nbytes() // dt.itemsize
      local last, empty = offset, false
      for i = 1, ndim do
        if sizes[i] == 0 then empty = true end
      end
      for i = 1, empty and 0 or ndim do
        if strides[i] > 0 and sizes[i] - 1 > (math.maxinteger - last) // strides[i] then
          corrupt(path, "a tensor's extent overflows")
        end
        last = last + (sizes[i] - 1) * strides[i]
      end
      if offset < 0 or (empty and offset > numel) or (not empty and last >= numel) then
        corrupt(path, "a tensor reaches past its storage")
      end
      local t = torch.empty(0, { dtype = dt }):set_(st, offset, sizes, strides)
      if flags & 1 == 1 then
        if not dt.is_floating_point then corrupt(path, "an integer tensor that requires grad") end
        t:requires_grad_(true)
      end
      objects[#objects + 1] = t
      local attrs
      attrs, p = decode(p, depth + 1)
      if attrs ~= nil then
        if type(attrs) ~= "table" or getmetatable(attrs) ~= nil then corrupt(path, "tensor attributes not a table") end
        local into = torch._tensor_attributes(t, true)
        for k, v in next, attrs do
          if type(k) ~= "string" then corrupt(path, "a tensor attribute named by a " .. type(k)) end
          rawset(into, k, v)
        end
      end
      return t, p
    end

    function decode(p, depth)
      if depth >= h.MAX_DEPTH then corrupt(path, ("tables nested deeper than %d levels"):format(h.MAX_DEPTH)) end
      if p > #s then corrupt(path, "truncated") end
      local tag = s:sub(p, p)
      p = p + 1
      if tag == "0" then return nil, p end
      if tag == "b" then
        local byte = s:byte(p)
        if byte ~= 0 and byte ~= 1 then corrupt(path, byte and "bad boolean" or "truncated") end
        return byte == 1, p + 1
      end
      if tag == "i" then return unpack("<i8", s, p, path) end
      if tag == "f" then return unpack("<d", s, p, path) end
      if tag == "s" then return unpack("<s4", s, p, path) end
      if tag == "r" then
        local id
        id, p = unpack("<I4", s, p, path)
        if id < 1 or id > #objects then corrupt(path, ("a reference to object %d of %d"):format(id, #objects)) end
        return objects[id], p
      end
      if tag == "V" then return tensor(p, depth) end
      if tag == "t" or tag == "O" or tag == "o" or tag == "w" or tag == "m" then
        local t, cls = {}, nil
        if tag == "m" then
          local name
          name, p = unpack("<s2", s, p, path)
          cls = class.metatable_of(name)
          if not cls then corrupt(path, ("objects of an unknown kind %s"):format(name)) end
        elseif tag == "o" then
          local name
          name, p = unpack("<s2", s, p, path)
          cls = class.class_of(name)
          if not cls then
            error(("%s: class '%s' is not defined: require or declare it (torch.class) before torch.load"):format(
              path, name), 0)
          end
        elseif tag == "O" then
          t = ordered.new()
        elseif tag == "w" then
          local mode
          mode, p = unpack("<s1", s, p, path)
          if mode ~= "k" and mode ~= "v" and mode ~= "kv" then corrupt(path, "a weak table of mode " .. mode) end
          setmetatable(t, { __mode = mode })
        end
        objects[#objects + 1] = t
        p = fill(t, p, depth, tag == "O" and assign or rawset)
        if cls then instances[#instances + 1] = { t, cls } end
        return t, p
      end
      if tag == "F" then
        local name
        name, p = unpack("<s2", s, p, path)
        local f = function_by_name(name)
        if not f then corrupt(path, ("function %s is not defined here"):format(name)) end
        return f, p
      end
      if tag == "d" then
        local name
        name, p = unpack("<s1", s, p, path)
        local dt = h.dtype_by_name[name]
        if not dt then corrupt(path, "unknown dtype " .. ("%q"):format(name)) end
        return dt, p
      end
      if tag == "D" then
        local name
        name, p = unpack("<s1", s, p, path)
        local ok, dev = pcall(torch.device, name)
        if not ok then corrupt(path, "an unknown device " .. ("%q"):format(name)) end
        return dev, p
      end
      corrupt(path, "unknown tag " .. ("%q"):format(tag))
    end

    local v
    v, pos = decode(pos, 0)
    -- instances get their class last, so that filling them never ran a class's __newindex
    for _, pair in ipairs(instances) do
      if class.is_class(pair[2]) then class.set_class(pair[1], pair[2]) else setmetatable(pair[1], pair[2]) end
    end
    return v, pos
  end

  return G
end
