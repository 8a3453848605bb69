-- The CPU generator's block draws (src/mt_generator.c's mt_gen_random_n) and bernoulli_'s dense
-- path (backends/cpu/cpu_random.c): the same values, in the same order, as the element-by-element
-- visit that strided tensors and other dtypes take; across the state's regenerations.
local torch = require "mindtorch"

describe("CPU random draws in blocks", function()
  it("give bernoulli_ on a dense tensor the values of the element visit", function()
    for _, dt in ipairs { torch.float32, torch.float64 } do
      for _, n in ipairs { 1, 7, 311, 700, 5000 } do
        torch.manual_seed(n)
        local dense = torch.empty(2 * n, { dtype = dt }):bernoulli_(0.37)
        -- the same draws into a transposed view: the visit walks memory order, as the dense path
        torch.manual_seed(n)
        local viewed = torch.empty(2, n, { dtype = dt }):t()
        assert.is_true(n == 1 or not viewed:is_contiguous())
        viewed:bernoulli_(0.37)
        assert.is_true(torch.equal(dense, viewed:t():reshape(2 * n)), ("%s n=%d"):format(tostring(dt), n))
        -- int64 goes through the visit too
        torch.manual_seed(n)
        local ints = torch.empty(2 * n, { dtype = torch.int64 }):bernoulli_(0.37)
        assert.is_true(torch.equal(dense:long(), ints))
      end
    end
  end)

  it("leave the generator where the element visit leaves it", function()
    torch.manual_seed(9)
    torch.empty(1000):bernoulli_(0.5)
    local after_dense = torch.rand(5)
    torch.manual_seed(9)
    torch.empty(1000, { dtype = torch.int32 }):bernoulli_(0.5)
    assert.is_true(torch.equal(after_dense, torch.rand(5)))
  end)

  it("draw zeros and ones only, at the asked rate", function()
    torch.manual_seed(1)
    local x = torch.empty(200000):bernoulli_(0.3)
    assert.is_true(torch.equal(x, x:round()))
    assert.is_true(math.abs(x:mean():item() - 0.3) < 0.005)
    assert.are.equal(0, torch.empty(1000):bernoulli_(0):sum():item())
    assert.are.equal(1000, torch.empty(1000):bernoulli_(1):sum():item())
  end)
end)
