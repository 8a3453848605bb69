-- Copies and casts take fast paths (contiguous blocks on several threads; floating -> small
-- integer conversion by int32 where a block's values allow; streaming stores for large results):
-- they give the same values as the element-by-element path that strided tensors take.
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

  it("converts float32 to and from int32 and float64 past 32 MiB as the ordinary loops do", function()
    -- cpu_cast_stream_avx512.c: streaming stores for these pairs; each result checked against
    -- the same conversion over slices of 1M (below the threshold), NaN by NaN
    local n, piece = 9 * 1000 * 1000, 1000 * 1000
    local function same(x, y)
      local xn, yn = x:isnan(), y:isnan()
      if not torch.equal(xn, yn) then return false end
      return torch.equal(x[xn:logical_not()], y[yn:logical_not()])
    end
    local function by_pieces(src, dt)
      local parts = {}
      for at = 1, n, piece do parts[#parts + 1] = src[{ { at, at + piece - 1 } }]:to(dt) end
      return torch.cat(parts)
    end
    torch.manual_seed(4)
    local f = torch.randn(n) * 1e6
    -- out of int32's range, NaN, infinities, the range's edges, in blocks of their own and not
    local odd = torch.tensor({ 0 / 0, math.huge, -math.huge, 3e9, -3e9, 2147483520, -2147483648, 2147483648, 0.99, -0.99 })
    for _, at in ipairs({ 1, 17, 4096, n // 2 + 5, n - 9 }) do f[{ { at, at + 9 } }] = odd end
    local d = torch.randn(n, { dtype = torch.float64 }) * 1e30
    d[{ { 100, 104 } }] = torch.tensor({ 1e39, -1e39, 1e-40, -1e-45, 0 / 0 }, { dtype = torch.float64 })
    local i = torch.randint(-2 ^ 31, 2 ^ 31 - 1, { n }, { dtype = torch.int32 })
    local pairs_ = { { f, torch.int32 }, { i, torch.float32 }, { f, torch.float64 }, { d, torch.float32 } }
    for _, threads in ipairs({ 1, 2 }) do
      torch.set_num_threads(threads)
      for _, pr in ipairs(pairs_) do
        local src, dt = pr[1], pr[2]
        local want = by_pieces(src, dt)
        assert.is_true(same(src:to(dt), want), tostring(src.dtype) .. " -> " .. tostring(dt))
        -- into views whose first element is not on a 64-byte line, nothing written beside them
        for _, off in ipairs({ 1, 3 }) do
          local z = torch.full({ n + 8 }, 7, { dtype = dt })
          local view = z[{ { 1 + off, n + off } }]
          view:copy_(src)
          assert.is_true(same(view, want))
          assert.are.equal(7 * off, z[{ { 1, off } }]:sum():item())
          assert.are.equal(7 * (8 - off), z[{ { n + off + 1, -1 } }]:sum():item())
        end
      end
    end
    -- a strided source takes the ordinary loop
    local wide = torch.randn(2 * n)
    local stepped = wide[{ { 1, -1, 2 } }]
    assert.is_true(torch.equal(stepped:to(torch.float64), by_pieces(stepped:contiguous(), torch.float64)))
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

  it("copies a transposed source of 4-byte elements past 32 MiB, exactly, rows on lines or not", function()
    -- cpu_ew_tile_avx512.c's copy (sources whose rows start on lines) and the staged tiles
    -- otherwise; each result against copies of pieces below the streaming threshold
    torch.manual_seed(11)
    for _, threads in ipairs({ 1, 2 }) do
      torch.set_num_threads(threads)
      for _, sh in ipairs({ { 2000, 4500 }, { 1000, 9000 }, { 4496, 2003 } }) do
        local rows, cols = sh[1], sh[2] -- the source is cols x rows, read transposed
        for _, dt in ipairs({ torch.float32, torch.int32 }) do
          local src = (torch.randn(cols, rows) * 1000):to(dt)
          if dt == torch.float32 then -- values whose bits a conversion would change
            src[{ 1, 1 }] = 0 / 0
            src[{ 2, 3 }] = -0.0
            src[{ cols, rows }] = 1 / 0
          end
          local t = src:t()
          local got = t:contiguous()
          local pieces = {}
          for r = 1, rows, 500 do pieces[#pieces + 1] = t[{ { r, math.min(r + 499, rows) } }]:contiguous() end
          local want = torch.cat(pieces)
          local what = ("%s %dx%d, %d thread(s)"):format(tostring(dt), rows, cols, threads)
          if dt == torch.float32 then
            assert.is_true(torch.equal(got:isnan(), want:isnan()), what)
            local finite = want:isnan():logical_not()
            assert.is_true(torch.equal(got[finite], want[finite]), what)
            assert.are.equal(-1 / 0, 1 / got[{ 3, 2 }]:item(), what .. ": -0 kept")
          else
            assert.is_true(torch.equal(got, want), what)
          end
        end
      end
    end
  end)
end)
