-- randn's float32 fill path computed eight lanes at a time (backends/cpu/cpu_random_avx2.c, on
-- CPUs with AVX2 and FMA) against the lane-by-lane specification (cpu_random.c, which a child
-- process keeps with MT_RANDN_VECTOR=0): bit for bit, over whole blocks, a partial last block,
-- mean and std, and several seeds.
local torch = require("mindtorch")
local run = require "tests.lua.support.run"
local luamt = (os.getenv("BUILD") or "build") .. "/luamt"

-- the draws both processes make: returns them, or saves them to `path`
local function draws(seed)
  torch.manual_seed(seed)
  local x = torch.randn(100003) -- 6250 blocks and a partial one (section 4A, step 3)
  local y = torch.empty(37, 61):normal_(0.5, 3)
  local z = torch.randn(16)
  return { x, y, z }
end

if arg and arg[1] == "child" then
  torch.save(draws(tonumber(arg[2])), arg[3])
  return
end

describe("randn's vector transform", function()
  it("gives the lane-by-lane specification's values bit for bit", function()
    for _, seed in ipairs { 0, 1, 12345 } do
      local path = os.tmpname()
      local out, status = run(("MT_RANDN_VECTOR=0 %s tests/lua/randn_vector_spec.lua child %d %s"):format(
        luamt, seed, path))
      assert.are.equal(0, status, out)
      local scalar, vector = torch.load(path), draws(seed)
      os.remove(path)
      for i = 1, 3 do
        assert.are.same(vector[i]:size(), scalar[i]:size())
        -- equal values and signs, no NaN: the same bits
        local same = torch.equal(vector[i], scalar[i]) and torch.equal(vector[i]:signbit(), scalar[i]:signbit())
          and not vector[i]:isnan():any():item()
        assert.is_true(same, ("seed %d, draw %d"):format(seed, i))
      end
      -- a normal sample's values: no NaN, spread about the mean
      assert.is_false(vector[1]:isnan():any():item())
      assert.is_true(math.abs(vector[1]:mean():item()) < 0.02)
      assert.is_true(math.abs(vector[1]:std():item() - 1) < 0.02)
    end
  end)
end)
