-- torch.set_num_threads: large element-wise, reduction and matrix work splits across threads
-- and gives the same results as one thread.
local torch = require("mindtorch")

describe("threads", function()
  local saved
  before_each(function() saved = torch.get_num_threads() end)
  after_each(function() torch.set_num_threads(saved) end)

  -- work() on one thread and on four: every result the same
  local function same_on_threads(work)
    torch.set_num_threads(1)
    local one = work()
    torch.set_num_threads(4)
    local many = work()
    for i = 1, #one do assert.is_true(torch.equal(one[i], many[i]), "result " .. i) end
  end

  it("sets and reports the intra-op thread count", function()
    torch.set_num_threads(1)
    assert.are.equal(1, torch.get_num_threads())
    torch.set_num_threads(3)
    assert.are.equal(3, torch.get_num_threads())
    assert.has_error(function() torch.set_num_threads(0) end, "set_num_threads expects a positive integer")
    assert.has_error(function() torch.set_num_threads("2") end, "set_num_threads expects an int, but got string")
  end)

  it("computes the same values with one thread and with several", function()
    torch.manual_seed(1)
    local a, b = torch.randn(300, 400), torch.randn(400)
    local m1, m2 = torch.randn(64, 128), torch.randn(128, 32)
    local function work()
      return { a * b + 1, (a:t() - 2):exp(), a:sum(2), a:amax(1), a:softmax(2), m1:matmul(m2), a:to(torch.float64),
        a:sum(), a:mean(), a:amax(), a:to(torch.float64):sum(), a:t():sum(1) }
    end
    same_on_threads(work)
  end)

  it("pools planes on several threads as on one, forward and backward", function()
    torch.manual_seed(2)
    local F = torch.nn.functional
    local x = torch.randn(8, 32, 30, 30)
    local xi = torch.randint(-9, 10, { 8, 32, 30, 30 })
    local function work()
      local out = {}
      for _, dt in ipairs { torch.float32, torch.float64 } do
        local xr = x:to(dt):requires_grad_()
        local results = { F.max_pool2d(xr, 2), F.max_pool2d(xr, 3, 2, 1), F.avg_pool2d(xr, 3, 2, 1),
          F.adaptive_avg_pool2d(xr, 4), torch._adaptive_avg_pool2d(xr, { 1, 1 }), F.adaptive_avg_pool2d(xr, 1) }
        for k, r in ipairs(results) do
          out[#out + 1] = r:detach()
          out[#out + 1] = torch.autograd.grad(r, xr, torch.ones_like(r) * k)[1]
        end
      end
      out[#out + 1] = F.avg_pool2d(xi, 2) -- integers: the average forward only
      return out
    end
    same_on_threads(work)
  end)
end)
