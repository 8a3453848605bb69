-- float32 exp: on CPUs with AVX-512 its own vector loop (backends/cpu/cpu_exp_avx512.c), else
-- libmvec's or the C library's expf. Either way within one ulp of the correctly rounded result,
-- the special values exact, and the same value for an element whatever the layout.
local torch = require "mindtorch"

describe("float32 exp", function()
  it("is within one ulp of exp in float64 rounded, across the normal range", function()
    local x = torch.linspace(-87, 88.7, 400001)
    local y, ref = x:exp():double(), x:double():exp()
    local ulp = torch.pow(2, ref:log2():floor() - 23)
    local err = ((y - ref):abs() / ulp):max():item()
    assert.is_true(err < 1, "max error " .. err .. " ulp")
  end)

  it("gives the subnormals within one unit, and the special values exactly", function()
    local d = torch.linspace(-103.9, -87.4, 10001)
    local diff = ((d:exp():double() - d:double():exp():float():double()):abs() / 2 ^ -149):max():item()
    assert.is_true(diff <= 1, "subnormals off by " .. diff)
    local sp = torch.tensor({ 0 / 0, 1 / 0, -1 / 0, 88.72, 88.73, -103.9, -104, -150, 0, -0.0 })
    local got, want = sp:exp(), sp:double():exp():float()
    assert.is_true(torch.equal(got:isnan(), want:isnan()))
    local m = want:isnan():logical_not()
    assert.is_true(torch.equal(got[m], want[m]))
  end)

  it("computes an element the same in every layout and at any length", function()
    torch.manual_seed(3)
    local s = torch.randn(100, 37) * 20
    assert.is_true(torch.equal(s:t():exp(), s:t():contiguous():exp()))
    for _, n in ipairs({ 1, 15, 16, 17, 33 }) do
      local v = s:reshape(-1):narrow(1, 1, n)
      assert.is_true(torch.equal(v:exp(), s:reshape(-1):exp():narrow(1, 1, n)))
      assert.is_true(torch.equal(torch.exp(v, { out = torch.empty(n) }), v:exp()))
      assert.is_true(torch.equal(v:clone():exp_(), v:exp()))
    end
  end)
end)
