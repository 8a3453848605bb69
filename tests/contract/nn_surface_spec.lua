-- Every nn module's constructor surface against PyTorch (cases/nn_surface.py): each call is
-- replayed from its golden (positional arguments, then the keywords as an options table) and
-- must give PyTorch's repr and state_dict (keys, shapes, dtypes, initial values).
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn = torch.nn

local goldens = H.load("nn_surface")

local function value(v) -- "torch.float64" names a dtype
  if type(v) == "string" and v:match("^torch%.") then return torch[v:sub(7)] end
  return v
end

describe("contract nn_surface", function()
  for _, case in ipairs(H.sorted_keys(goldens)) do
    it(case, function()
      local g = assert(goldens[case].value, goldens[case].error)
      local args = {}
      for i, a in ipairs(g.args) do args[i] = value(a) end
      local kw, n = {}, 0
      for k, v in pairs(g.kwargs) do kw[k], n = value(v), n + 1 end
      if n > 0 then args[#args + 1] = kw end
      local cls = assert(nn[g.name], "nn." .. g.name .. " is missing")
      torch.manual_seed(0)
      if g.error then
        local ok, err = pcall(cls, table.unpack(args, 1, #g.args + (n > 0 and 1 or 0)))
        assert.is_false(ok)
        assert.is_truthy(tostring(err):find(g.error, 1, true), tostring(err))
        return
      end
      local m = cls(table.unpack(args, 1, #g.args + (n > 0 and 1 or 0)))
      assert.are.equal(g.repr, tostring(m))
      local sd = m:state_dict()
      local keys = {}
      for _, k in ipairs(H.sorted_keys(sd)) do
        keys[#keys + 1] = { k, sd[k]:size(), sd[k].dtype.name }
      end
      assert.are.same(g.keys, keys)
      for i, k in ipairs(H.sorted_keys(sd)) do -- the initial values: the same draws from the same seed
        local want = torch.tensor(g.values[i], { dtype = torch.float64 })
        local got = sd[k]:double():reshape(-1)
        assert.is_true(got:numel() == want:numel() and (got:numel() == 0 or (got - want):abs():max():item() == 0),
          k .. " differs from PyTorch's initial values")
      end
    end)
  end
end)
