-- parity_have.lua: which of the names in the file arg[1] ("<namespace> <name>" per line) mindtorch
-- has; prints those lines back. Run by tools/parity.py through luamt.
local torch = require "mindtorch"

-- t[k], or nil when indexing raises (a property that is false counts as present)
local function lookup(t, k)
  local ok, v = pcall(function() return t[k] end)
  if ok then return v end
  return nil
end

-- tensors on which a Tensor attribute may be looked up: a leaf with a gradient, a result
local leaf = torch.ones(2, 2, { requires_grad = true })
leaf:sum():backward()
local result = leaf * 2

local spaces = {
  torch = function(n) return rawget(torch, n) ~= nil or lookup(torch, n) ~= nil end,
  Tensor = function(n)
    return torch.Tensor[n] ~= nil or lookup(leaf, n) ~= nil or lookup(result, n) ~= nil
  end,
}
local function table_space(path)
  return function(n)
    local t = torch
    for part in path:gmatch("[^.]+") do
      t = lookup(t, part)
      if t == nil then return false end
    end
    return lookup(t, n) ~= nil
  end
end
spaces.linalg = table_space("linalg")
spaces.special = table_space("special")
spaces.nn = table_space("nn")
spaces.functional = table_space("nn.functional")
spaces.nn_utils = table_space("nn.utils")
spaces.nn_utils_rnn = table_space("nn.utils.rnn")
spaces.optim = table_space("optim")
spaces.lr_scheduler = table_space("optim.lr_scheduler")
spaces.data = table_space("utils.data")

for line in io.lines(arg[1]) do
  local space, name = line:match("^(%S+) (%S+)$")
  local has = spaces[space]
  if has and has(name) then print(line) end
end
