-- Sequential, ModuleList and ModuleDict editing as PyTorch's: insert, pop, update, values,
-- clear; children renamed "0", "1", ... after an insertion or a removal (state_dict keys follow).
local torch = require "mindtorch"
local nn = torch.nn

local function names(m)
  local out = {}
  for name, child in m:named_children() do out[#out + 1] = name .. "=" .. child:_get_name() end
  return table.concat(out, " ")
end

describe("nn containers", function()
  it("Sequential:insert places a module at a 1-based position and renumbers", function()
    local s = nn.Sequential(nn.ReLU(), nn.Tanh())
    s:insert(1, nn.Sigmoid())
    assert.are.equal("0=Sigmoid 1=ReLU 2=Tanh", names(s))
    s:insert(-1, nn.Identity()) -- before the last, as PyTorch's insert(-1, m)
    assert.are.equal("0=Sigmoid 1=ReLU 2=Identity 3=Tanh", names(s))
    s:insert(5, nn.ELU()) -- n + 1 appends
    assert.are.equal("4=ELU", names(s):match("4=%a+"))
    local ok, err = pcall(s.insert, s, 7, nn.ReLU())
    assert.is_false(ok)
    assert.matches("Index out of range: 7", err)
    ok, err = pcall(s.insert, s, 1, 3)
    assert.is_false(ok)
    assert.matches("module should be of type", err)
  end)

  it("Sequential:pop and ModuleList:pop return the module and renumber the rest", function()
    local s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    local first = s:pop(1)
    assert.are.equal("Linear", first:_get_name())
    assert.are.equal("0=ReLU 1=Linear", names(s))
    local keys = {}
    for k in pairs(s:state_dict()) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.are.same({ "1.bias", "1.weight" }, keys)
    assert.are.equal(2, #s)
    local ok, err = pcall(s.pop, s, 3)
    assert.is_false(ok)
    assert.matches("index 3 is out of range", err)
    local l = nn.ModuleList({ nn.ReLU(), nn.Tanh(), nn.ELU() })
    assert.are.equal("ELU", l:pop(-1):_get_name())
    assert.are.equal("0=ReLU 1=Tanh", names(l))
  end)

  it("ModuleList:insert clamps past either end as PyTorch's list-like insert", function()
    local l = nn.ModuleList({ nn.ReLU() })
    l:insert(10, nn.Tanh())
    l:insert(-5, nn.ELU())
    assert.are.equal("0=ELU 1=ReLU 2=Tanh", names(l))
  end)

  it("ModuleDict:update, values, pop and clear", function()
    local d = nn.ModuleDict({ a = nn.ReLU(), b = nn.Tanh() })
    d:update({ { "c", nn.ELU() }, { "a", nn.Sigmoid() } }) -- pairs in order; an existing key keeps its place
    assert.are.equal("a=Sigmoid b=Tanh c=ELU", names(d))
    d:update({ e = nn.Identity(), d = nn.ReLU() }) -- a name = module table: sorted names
    assert.are.equal("a=Sigmoid b=Tanh c=ELU d=ReLU e=Identity", names(d))
    assert.are.equal("Tanh", d:pop("b"):_get_name())
    assert.are.equal(4, #d:values())
    local ok, err = pcall(d.pop, d, "zz")
    assert.is_false(ok)
    assert.matches("KeyError: 'zz'", err)
    ok, err = pcall(d.update, d, { nn.ReLU() })
    assert.is_false(ok)
    assert.matches("update sequence element #0", err)
    d:clear()
    assert.are.equal("", names(d))
    assert.are.equal("ModuleDict()", tostring(d))
  end)
end)

describe("nn containers as Lua lists", function()
  it("ipairs walks a Sequential or a ModuleList and stops at the end", function()
    local s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.ELU())
    local seen = {}
    for i, m in ipairs(s) do seen[i] = m:_get_name() end
    assert.are.same({ "ReLU", "Tanh", "ELU" }, seen)
    assert.is_nil(s[#s + 1])
    assert.has_error(function() return s[#s + 2] end, "index 5 is out of range")
    local n = 0
    for _ in ipairs(nn.ModuleList({ nn.ReLU(), nn.Tanh() })) do n = n + 1 end
    assert.are.equal(2, n)
  end)
end)
