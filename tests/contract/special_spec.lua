-- torch.special against PyTorch (cases/special.py), replayed from goldens.
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
H.run_calls("special")

local torch = require "mindtorch"
local golden = dofile("tests/contract/goldens/special_names.lua")

-- functions not written yet
local PENDING = {}

describe("torch.special", function()
  it("has PyTorch's functions", function()
    local missing = {}
    for _, name in ipairs(golden.names.value) do
      if type(torch.special[name]) ~= "function" and not PENDING[name] then missing[#missing + 1] = name end
    end
    assert.are.same({}, missing)
  end)
  it("aliases the top-level functions", function()
    assert.are.equal(torch.sigmoid, torch.special.expit)
    assert.are.equal(torch.erfinv, torch.special.erfinv)
    assert.are.equal(torch.xlogy, torch.special.xlogy)
    assert.are.equal(torch.sinc, torch.special.sinc)
    assert.are.equal(torch.special_erfcx, torch.special.erfcx)
    for alias, name in pairs { digamma = "digamma", psi = "digamma", gammaln = "lgamma", polygamma = "polygamma",
      multigammaln = "mvlgamma", i0 = "i0", gammainc = "igamma", gammaincc = "igammac", logit = "logit" } do
      assert.are.equal(torch[name], torch.special[alias], alias)
    end
  end)
end)
