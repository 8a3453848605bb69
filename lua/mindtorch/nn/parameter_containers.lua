-- parameter_containers.lua: nn.ParameterList, nn.ParameterDict (PyTorch 1.13's: tensors are
-- wrapped into Parameters and registered under "0", "1", ... or their keys; other values are kept
-- as plain entries) and the deprecated nn.Container.
return function(torch, nn)
  local Module = nn.Module
  local args = require "mindtorch._args"
  local module_index, module_newindex = Module.__index, Module.__newindex

  local function as_parameter(v)
    if torch.is_tensor(v) and not nn.is_parameter(v) then return nn.Parameter(v) end
    return v
  end
  -- one entry of the repr: "Parameter containing: [torch.float32 of size 2x3]"
  local function describe(v, type_name)
    if not torch.is_tensor(v) then return "Object of type: " .. args.py_type(v) end
    local sizes = {}
    for i, s in ipairs(v.shape) do sizes[i] = tostring(s) end
    local dev = v.device.type ~= "cpu" and (" (%s %d)"):format(v.device.type:upper(), v.device.index or 0) or ""
    local kind = nn.is_parameter(v) and "Parameter containing: " or "Tensor containing: "
    return ("%s[%s of size %s%s]"):format(kind, type_name(v), table.concat(sizes, "x"), dev)
  end
  -- entry name: a Parameter registers, anything else is a plain field
  local function put(self, name, v)
    v = as_parameter(v)
    local params = self._parameters
    if nn.is_parameter(v) then
      rawset(self, name, nil)
      if params.present[name] then params.items[name] = v else self:register_parameter(name, v) end
    else
      if params.present[name] then
        params.present[name], params.items[name] = nil, nil
        for i, n in ipairs(params.order) do if n == name then table.remove(params.order, i) break end end
      end
      rawset(self, name, v)
    end
  end
  local function get(self, name)
    local params = self._parameters
    if params.present[name] then return params.items[name] or nil end
    return rawget(self, name)
  end

  -- ---- ParameterList ---------------------------------------------------------------------------------
  -- ParameterList(values): pl[i] (1-based; negative from the end), #pl, ipairs/pairs in order
  local ParameterList = Module:subclass("nn.ParameterList")
  function ParameterList:__init(values)
    Module.__init(self)
    rawset(self, "_size", 0)
    if values ~= nil then self:extend(values) end
  end
  local function list_index(self, k, level)
    local n = rawget(self, "_size")
    if math.type(k) ~= "integer" then
      error(("list indices must be integers or slices, not %s"):format(args.py_type(k)), level + 1)
    end
    local i = k < 0 and n + k + 1 or k
    if i < 1 or i > n then error(("index %d is out of range"):format(k), level + 1) end
    return i
  end
  ParameterList.__index = function(self, k)
    if math.type(k) == "integer" then
      if k == rawget(self, "_size") + 1 then return nil end -- the end of the list for ipairs
      return get(self, tostring(list_index(self, k, 2) - 1))
    end
    return module_index(self, k)
  end
  ParameterList.__newindex = function(self, k, v)
    if math.type(k) == "integer" then return put(self, tostring(list_index(self, k, 2) - 1), v) end
    return module_newindex(self, k, v)
  end
  ParameterList.__len = function(self) return rawget(self, "_size") end
  ParameterList.__pairs = function(self)
    local i = 0
    return function()
      i = i + 1
      if i <= rawget(self, "_size") then return i, get(self, tostring(i - 1)) end
    end, self, nil
  end
  function ParameterList:append(v)
    local n = rawget(self, "_size")
    rawset(self, "_size", n + 1)
    put(self, tostring(n), v)
    return self
  end
  function ParameterList:extend(values)
    if type(values) ~= "table" or torch.is_tensor(values) then
      error(("ParameterList.extend should be called with an iterable, but got %s"):format(args.py_type(values)), 2)
    end
    for i = 1, #values do self:append(values[i]) end -- a list, or another ParameterList
    return self
  end
  function ParameterList:extra_repr()
    local lines = {}
    for i = 1, rawget(self, "_size") do
      local v = get(self, tostring(i - 1))
      lines[i] = ("  (%d): %s"):format(i - 1, describe(v, function(t) return tostring(t.dtype) end))
    end
    return table.concat(lines, "\n")
  end
  nn.ParameterList = ParameterList

  -- ---- ParameterDict ---------------------------------------------------------------------------------
  -- ParameterDict(values): a table of name = value (sorted by name, as PyTorch for a plain dict)
  -- or a list of {name, value} pairs; pd[name], pd[name] = v, keys/values/items in order
  local ParameterDict = Module:subclass("nn.ParameterDict")
  function ParameterDict:__init(values)
    Module.__init(self)
    rawset(self, "_keys", {})
    if values ~= nil then self:update(values) end
  end
  local function dict_set(self, key, v)
    if type(key) ~= "string" then
      error(("attribute name must be string, but got %s"):format(args.py_type(key)), 3)
    end
    local keys = rawget(self, "_keys")
    local known = false
    for _, k in ipairs(keys) do if k == key then known = true break end end
    if not known then keys[#keys + 1] = key end
    put(self, key, v)
  end
  local function has_key(self, key)
    for _, k in ipairs(rawget(self, "_keys") or {}) do if k == key then return true end end
    return false
  end
  ParameterDict.__index = function(self, k)
    if type(k) == "string" and has_key(self, k) then return get(self, k) end
    local v = module_index(self, k)
    if v == nil and type(k) == "string" and rawget(self, "_keys") then
      error(("'ParameterDict' object has no attribute '%s'"):format(k), 2)
    end
    return v
  end
  ParameterDict.__newindex = function(self, k, v)
    if type(k) == "string" and (has_key(self, k) or nn.is_parameter(v) or torch.is_tensor(v)) then
      return dict_set(self, k, v)
    end
    return module_newindex(self, k, v)
  end
  ParameterDict.__len = function(self) return #rawget(self, "_keys") end
  ParameterDict.__pairs = function(self)
    local i, keys = 0, { table.unpack(rawget(self, "_keys")) }
    return function()
      i = i + 1
      local k = keys[i]
      if k ~= nil then return k, get(self, k) end
    end, self, nil
  end
  function ParameterDict:keys() return { table.unpack(rawget(self, "_keys")) } end
  function ParameterDict:values()
    local out = {}
    for i, k in ipairs(rawget(self, "_keys")) do out[i] = get(self, k) end
    return out
  end
  function ParameterDict:items()
    local out = {}
    for i, k in ipairs(rawget(self, "_keys")) do out[i] = { k, get(self, k) } end
    return out
  end
  function ParameterDict:get(key, default)
    if has_key(self, key) then return get(self, key) end
    return default
  end
  function ParameterDict:setdefault(key, default)
    if not has_key(self, key) then dict_set(self, key, default) end
    return get(self, key)
  end
  function ParameterDict:pop(key)
    if not has_key(self, key) then error(("'ParameterDict' object has no attribute '%s'"):format(tostring(key)), 2) end
    local v = get(self, key)
    local keys = rawget(self, "_keys")
    for i, k in ipairs(keys) do if k == key then table.remove(keys, i) break end end
    put(self, key, nil)
    return v
  end
  function ParameterDict:popitem()
    local keys = rawget(self, "_keys")
    if #keys == 0 then error("'popitem(): dictionary is empty'", 2) end
    local k = keys[#keys]
    return k, self:pop(k)
  end
  function ParameterDict:clear()
    for _, k in ipairs(self:keys()) do self:pop(k) end
  end
  function ParameterDict:copy()
    local out = ParameterDict()
    for _, k in ipairs(rawget(self, "_keys")) do dict_set(out, k, get(self, k)) end
    return out
  end
  -- ParameterDict:fromkeys(keys, default) (or pd:fromkeys): each key with a copy of default
  function ParameterDict.fromkeys(a, b, c)
    local keys, default = a, b
    if require("mindtorch._class").is_class(a) or (type(a) == "table" and rawget(a, "_keys")) then
      keys, default = b, c
    end
    local out = ParameterDict()
    for _, k in ipairs(keys) do dict_set(out, k, default and default:clone() or nil) end
    return out
  end
  function ParameterDict:update(values)
    if type(values) ~= "table" or torch.is_tensor(values) then
      error(("ParametersDict.update should be called with an iterable of key/value pairs, but got %s"):format(
        args.py_type(values)), 2)
    end
    if rawget(values, "_keys") then -- another ParameterDict: its order
      for _, k in ipairs(rawget(values, "_keys")) do dict_set(self, k, get(values, k)) end
      return self
    end
    if values[1] ~= nil then
      for j, pair in ipairs(values) do
        if type(pair) ~= "table" or torch.is_tensor(pair) or #pair ~= 2 then
          error(("ParameterDict update sequence element #%d has length %s; 2 is required"):format(j - 1,
            type(pair) == "table" and tostring(#pair) or "?"), 2)
        end
        dict_set(self, pair[1], pair[2])
      end
      return self
    end
    local names = {}
    for k in pairs(values) do names[#names + 1] = k end
    table.sort(names)
    for _, k in ipairs(names) do dict_set(self, k, values[k]) end
    return self
  end
  function ParameterDict:extra_repr()
    local lines = {}
    for i, k in ipairs(rawget(self, "_keys")) do
      lines[i] = ("  (%s): %s"):format(k, describe(get(self, k), function(t) return t:type() end))
    end
    return table.concat(lines, "\n")
  end
  nn.ParameterDict = ParameterDict

  -- ---- Container (deprecated) ------------------------------------------------------------------------
  -- nn.Container{name = module, ...}: warns as PyTorch, registers the modules (in name order)
  local Container = Module:subclass("nn.Container")
  function Container:__init(modules, ...)
    if select("#", ...) > 0 or (modules ~= nil and (type(modules) ~= "table" or getmetatable(modules))) then
      error(("Container.__init__() takes 1 positional argument but %d were given"):format(select("#", ...) + 2), 2)
    end
    Module.__init(self)
    warn("nn.Container is deprecated. All of it's functionality is now implemented in nn.Module. "
      .. "Subclass that instead.")
    local names = {}
    for k in pairs(modules or {}) do names[#names + 1] = k end
    table.sort(names)
    for _, k in ipairs(names) do self:add_module(k, modules[k]) end
  end
  nn.Container = Container
end
