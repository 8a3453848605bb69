-- _ordered.lua: tables that keep the order their keys were first set in, as Python's dicts do
-- (state_dicts, dicts loaded from PyTorch checkpoints): pairs() visits the keys in that order. A
-- key set again after it was removed goes to the end, as in Python. Reading and writing are plain
-- table accesses; only setting a new key pays (its __newindex records the key).
local M = {}

local function compact(order, pos, self)
  local kept = {}
  for i, k in ipairs(order) do
    if pos[k] == i and rawget(self, k) ~= nil then
      kept[#kept + 1] = k
      pos[k] = #kept
    elseif pos[k] == i then
      pos[k] = nil
    end
  end
  for i = 1, #order do order[i] = kept[i] end
end

-- M.new([keys, values]) -> an ordered table, holding values[k] for each of keys in order
function M.new(keys, values)
  local order, pos, stale = {}, {}, 0
  local mt = { __name = "OrderedDict", __ordered = order }
  mt.__newindex = function(self, k, v)
    if v == nil then return end
    if pos[k] then stale = stale + 1 end
    order[#order + 1] = k
    pos[k] = #order
    rawset(self, k, v)
    -- keys removed and set again leave stale slots: drop them once they are half the list
    if stale > 16 and stale > #order // 2 then
      compact(order, pos, self)
      stale = 0
    end
  end
  mt.__pairs = function(self)
    local i, rest = 0, nil
    return function()
      while i < #order do
        i = i + 1
        local k = order[i]
        local v = rawget(self, k)
        if pos[k] == i and v ~= nil then return k, v end
      end
      -- keys set with rawset, which bypasses the record, come last
      repeat
        rest = next(self, rest)
      until rest == nil or pos[rest] == nil
      if rest ~= nil then return rest, rawget(self, rest) end
    end, self, nil
  end
  local t = setmetatable({}, mt)
  if keys then
    for _, k in ipairs(keys) do t[k] = values[k] end
  end
  return t
end

-- M.is(t): whether t is an ordered table
function M.is(t)
  local mt = getmetatable(t)
  return type(mt) == "table" and rawget(mt, "__ordered") ~= nil
end

return M
