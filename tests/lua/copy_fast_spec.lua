-- Copies and casts take fast paths (contiguous blocks on several threads; floating -> small
-- integer conversion by int32 where a block's values allow): they give the same values as the
-- element-by-element path that strided tensors take.
local torch = require("mindtorch")

-- a contiguous tensor and a strided view with the same values
local function both(x)
  local s = torch.stack({ x, x }, 2)[{ {}, 1 }]
  assert.is_false(s:is_contiguous())
  return x, s
end

describe("fast copies and casts", function()
  local saved
  before_each(function() saved = torch.get_num_threads() end)
  after_each(function() torch.set_num_threads(saved) end)

  it("casts floating values to small integers as the strided path does", function()
    torch.manual_seed(0)
    local special = torch.tensor({ 0.5, -0.5, 1.9, -1.9, 127.5, 128.5, 255.9, 256.5, -129.5, 32767.5, 32768.5,
      -32769.5, 2147483520, -2147483648, 2147483648, -2147483904, 4294967296 + 5, 1e12, -1e12, 1e30,
      math.huge, -math.huge, 0 / 0 }, { dtype = torch.float64 })
    -- blocks of 512: one all in int32's range, one with the special values
    local x = torch.cat({ torch.randn(1000, { dtype = torch.float64 }) * 1000, special,
      torch.randn(600, { dtype = torch.float64 }) * 100 })
    for _, src in ipairs({ torch.float32, torch.float64 }) do
      local c, s = both(x:to(src))
      for _, dst in ipairs({ torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64 }) do
        assert.are.same(s:to(dst):tolist(), c:to(dst):tolist())
      end
    end
  end)

  it("copies large tensors on several threads", function()
    torch.set_num_threads(2)
    local x = torch.arange(3 * 1000 * 1000, { dtype = torch.float32 })
    local y = torch.empty_like(x):copy_(x)
    assert.is_true(torch.equal(x, y))
    assert.is_true(torch.equal(x, x:clone()))
    -- into a view at an odd offset (the slices' remainder)
    local z = torch.zeros(3 * 1000 * 1000 + 7)
    z[{ { 4, -5 } }]:copy_(x)
    assert.is_true(torch.equal(z[{ { 4, -5 } }], x))
    assert.are.equal(0, z[{ { 1, 3 } }]:abs():sum():item() + z[{ { -4, -1 } }]:abs():sum():item())
  end)

  it("copies blocks past 32 MiB with streaming stores, exactly, at any alignment", function()
    -- 9M float32 (36 MB) and 4.5M float64: large enough for cpu_stream.c's stores; the views'
    -- offsets leave an unaligned head and tail on both sides
    for _, threads in ipairs({ 1, 2 }) do
      torch.set_num_threads(threads)
      for _, dt in ipairs({ torch.float32, torch.float64 }) do
        local n = dt == torch.float32 and 9 * 1000 * 1000 or 4500 * 1000
        local x = torch.arange(n + 3, { dtype = dt })
        for _, off in ipairs({ 0, 1, 3 }) do
          local src = x[{ { 1 + off, n + off - 3 } }]
          local z = torch.full({ n + 8 }, -1, { dtype = dt })
          local dst = z[{ { 6 - off, n + 2 - off } }]
          assert.are.equal(src:numel(), dst:numel())
          dst:copy_(src)
          assert.is_true(torch.equal(dst, src))
          -- nothing written outside the view
          local before, after = z[{ { 1, 5 - off } }], z[{ { n + 3 - off, -1 } }]
          assert.is_true(torch.equal(before, torch.full({ before:numel() }, -1, { dtype = dt })))
          assert.is_true(torch.equal(after, torch.full({ after:numel() }, -1, { dtype = dt })))
        end
        local c = x:clone()
        assert.is_true(torch.equal(c, x))
      end
    end
  end)
end)
