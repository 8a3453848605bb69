-- The CPU iterator's tiles (backends/cpu/cpu_iter.c): two dims where an operand runs along the
-- outer one are walked in tiles (as wide as the inner dim up to 2048 elements of it, 128 x 128
-- past that), and a transposed input of 4-byte elements is first
-- transposed into a buffer (cpu_transpose_avx512.c, 16 x 16 blocks and ragged edges). Each result
-- is checked element by element against a walk over the operands' rows.
local torch = require "mindtorch"

-- every row i of r (1-based) equals f(i); false and the first row that does not otherwise
local function all_match(r, f)
  for i = 1, r:size(1) do
    local want = f(i)
    if not torch.equal(r[i], want) then return false, i end
  end
  return true
end

describe("CPU iterator tiles", function()
  local saved
  before_each(function() saved = torch.get_num_threads() end)
  after_each(function() torch.set_num_threads(saved) end)

  it("copy transposed operands of every element size, edges past whole blocks included", function()
    torch.manual_seed(7)
    local dtypes = { torch.float32, torch.int32, torch.float64, torch.int16, torch.uint8 }
    for _, threads in ipairs { 1, 2 } do
      torch.set_num_threads(threads)
      for _, sh in ipairs { { 256, 256 }, { 300, 257 }, { 513, 1030 }, { 300, 2600 } } do
        for _, dt in ipairs(dtypes) do
          local a = (torch.rand(sh[2], sh[1]) * 100):to(dt)
          local c = a:t():contiguous()
          local ok, row = all_match(c, function(i) return a[{ {}, i }] end)
          assert.is_true(ok, ("%s %dx%d threads %d: row %s"):format(tostring(dt), sh[1], sh[2], threads, row))
        end
      end
    end
  end)

  it("add a transposed input to a contiguous one, and to a flipped or stepped one", function()
    torch.manual_seed(8)
    for _, threads in ipairs { 1, 2 } do
      torch.set_num_threads(threads)
      for _, sh in ipairs { { 256, 300 }, { 1000, 517 }, { 2600, 300 } } do
        local a, b = torch.randn(sh[2], sh[1]), torch.randn(sh[1], sh[2])
        local s = a:t() + b
        assert.is_true(all_match(s, function(i) return a[{ {}, i }] + b[i] end))
        -- rows of the transposed operand in reverse order (a negative outer stride)
        local f = a:flip(1)
        local sf = f:t() + b
        assert.is_true(all_match(sf, function(i) return f[{ {}, i }] + b[i] end))
        -- every other column of a wider tensor: the outer stride is not the row's length
        local w = torch.randn(sh[2], 2 * sh[1])
        local v = w[{ {}, { 1, 2 * sh[1], 2 } }]
        local sv = v:t() * b
        assert.is_true(all_match(sv, function(i) return v[{ {}, i }] * b[i] end))
      end
    end
  end)

  it("give both operands transposed and a mixed-dtype result the same values as row walks", function()
    torch.manual_seed(9)
    local a, b = torch.randn(400, 300), torch.randint(-50, 50, { 400, 300 }, { dtype = torch.int32 })
    local s = a:t() + b:t() -- both transposed: the iterator takes the transposed order, no tiles
    assert.is_true(all_match(s, function(i) return a[{ {}, i }] + b[{ {}, i }] end))
    local c = torch.randn(300, 400)
    local m = b:t() + c -- int32 transposed, float32 result
    assert.is_true(all_match(m, function(i) return b[{ {}, i }] + c[i] end))
  end)
end)
