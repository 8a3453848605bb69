-- Large float32 add, sub, mul, div and exp write their results with streaming stores
-- (backends/cpu/cpu_ew_stream_avx512.c, results of 32 MiB and more that overlap no input). Each
-- result is checked, bit for bit, against the same op over slices small enough for the generic
-- loops, in layouts that reach every path of the streaming loop: both operands rows, a scalar
-- operand on either side, a broadcast row, a result at an unaligned offset, strided inputs; and
-- the tiles of a transposed input (cpu_ew_tile_avx512.c: the transpose fused into the loop) for
-- result columns that start anywhere in a line, ragged edges, either or both inputs transposed.
local torch = require "mindtorch"

local N = 9 * 1000 * 1000 -- 36 MB of float32: past the streaming threshold
local PIECE = 1000 * 1000 -- 4 MB: below it

-- f over slices of PIECE elements of the flattened operands (tensors of N elements or numbers)
local function by_pieces(f, ...)
  local args, parts = { ... }, {}
  for at = 1, N, PIECE do
    local last = math.min(at + PIECE - 1, N)
    local sliced = {}
    for k, v in ipairs(args) do
      sliced[k] = torch.is_tensor(v) and v:reshape(-1)[{ { at, last } }] or v
    end
    parts[#parts + 1] = f(table.unpack(sliced))
  end
  return torch.cat(parts)
end

describe("streamed element-wise results", function()
  local saved
  before_each(function() saved = torch.get_num_threads() end)
  after_each(function() torch.set_num_threads(saved) end)

  torch.manual_seed(3)
  local a = torch.randn(N)
  local b = torch.randn(N) + 0.5
  local ops = {
    add = function(x, y) return torch.add(x, y) end,
    add_alpha = function(x, y) return torch.add(x, y, { alpha = 0.3 }) end,
    sub = function(x, y) return torch.sub(x, y) end,
    sub_alpha = function(x, y) return torch.sub(x, y, { alpha = -1.7 }) end,
    mul = function(x, y) return torch.mul(x, y) end,
    div = function(x, y) return torch.div(x, y) end,
  }

  for _, threads in ipairs({ 1, 2 }) do
    for name, f in pairs(ops) do
      it(name .. " of two rows and with a scalar on either side, " .. threads .. " thread(s)", function()
        torch.set_num_threads(threads)
        assert.is_true(torch.equal(f(a, b), by_pieces(f, a, b)))
        assert.is_true(torch.equal(f(a, 1.25), by_pieces(f, a, 1.25)))
        local s = torch.tensor(-0.75)
        assert.is_true(torch.equal(f(s, b), by_pieces(function(y) return f(s, y) end, b)))
      end)
    end
  end

  for _, threads in ipairs({ 1, 2 }) do
    it("exp of a row, " .. threads .. " thread(s), and into out= views at unaligned offsets", function()
      torch.set_num_threads(threads)
      local x = a * 30 -- overflow, underflow to subnormals and zero included
      local want = by_pieces(torch.exp, x)
      assert.is_true(torch.equal(x:exp(), want))
      for _, off in ipairs({ 1, 3, 16 }) do
        local z = torch.full({ N + 32 }, 7, { dtype = torch.float32 })
        local view = z[{ { 1 + off, N + off } }]
        torch.exp(x, { out = view })
        assert.is_true(torch.equal(view, want))
        assert.are.equal(7 * off, z[{ { 1, off } }]:sum():item())
        assert.are.equal(7 * (32 - off), z[{ { N + off + 1, -1 } }]:sum():item())
      end
      local y = x:clone()
      y:exp_() -- in place: the ordinary loop, the same values
      assert.is_true(torch.equal(y, want))
    end)
  end

  it("writes an out= view at an unaligned offset and nothing beside it", function()
    torch.set_num_threads(2)
    for _, off in ipairs({ 1, 3, 16 }) do
      local z = torch.full({ N + 32 }, 7, { dtype = torch.float32 })
      local view = z[{ { 1 + off, N + off } }]
      torch.mul(a, b, { out = view })
      assert.is_true(torch.equal(view, by_pieces(torch.mul, a, b)))
      assert.are.equal(7 * off, z[{ { 1, off } }]:sum():item())
      assert.are.equal(7 * (32 - off), z[{ { N + off + 1, -1 } }]:sum():item())
    end
  end)

  it("adds a broadcast row, and inputs with a step, as the generic loops do", function()
    torch.set_num_threads(2)
    local m, row = a:view(900, 10000), torch.randn(10000)
    local want = torch.cat((function()
      local rows = {}
      for i = 1, 900, 100 do rows[#rows + 1] = m[{ { i, i + 99 } }] + row end
      return rows
    end)())
    assert.is_true(torch.equal(m + row, want))
    local wide = torch.randn(2 * N)
    local stepped = wide[{ { 1, -1, 2 } }]
    assert.is_true(torch.equal(stepped - a, by_pieces(torch.sub, stepped:contiguous(), a)))
    local flipped = b:flip(1)
    assert.is_true(torch.equal(a / flipped, by_pieces(torch.div, a, flipped:contiguous())))
    local expanded = torch.tensor({ 2.5 }):expand(N)
    assert.is_true(torch.equal(expanded * a, by_pieces(torch.mul, a, 2.5)))
  end)

  it("leaves in-place and overlapping results to the ordinary loops, with the same values", function()
    torch.set_num_threads(2)
    local want = by_pieces(torch.add, a, b)
    local x = a:clone()
    x:add_(b)
    assert.is_true(torch.equal(x, want))
    local y = a:clone()
    torch.add(y, b, { out = y })
    assert.is_true(torch.equal(y, want))
  end)

  -- R x C results whose columns are contiguous (the inner dim R), an input read across them
  local function transposed(R, C) return torch.randn(C, R):t() end

  it("fuses a transposed input's tiles with the op, result columns at every offset in a line", function()
    torch.manual_seed(5)
    -- 1000: columns start on a line or half-way; 1001: at every offset; 3000: square tiles
    for _, sh in ipairs({ { 1000, 9000 }, { 1001, 8995 }, { 3000, 3004 } }) do
      local R, C = sh[1], sh[2]
      local at, b = transposed(R, C), torch.randn(R, C) + 0.5
      local ac = at:contiguous()
      for _, threads in ipairs({ 1, 2 }) do
        torch.set_num_threads(threads)
        for name, f in pairs(ops) do
          local what = ("%s %dx%d, %d thread(s)"):format(name, R, C, threads)
          assert.is_true(torch.equal(f(at, b), f(ac, b)), what)
          assert.is_true(torch.equal(f(b, at), f(b, ac)), what .. ", reversed")
        end
      end
    end
  end)

  it("fuses both inputs transposed, a broadcast column beside one, and an out= view off a line", function()
    torch.manual_seed(6)
    torch.set_num_threads(2)
    local R, C = 1001, 8995
    local at, bt = transposed(R, C), transposed(R, C)
    local ac, bc = at:contiguous(), bt:contiguous()
    -- a row-major result: both inputs run across its rows
    local rows = torch.empty(R, C)
    torch.sub(at, bt, { out = rows, alpha = -1.7 })
    assert.is_true(torch.equal(rows, torch.sub(ac, bc, { alpha = -1.7 })))
    -- a column-major result: a column of R values broadcast along it, a row-major input across it
    local col, b = torch.randn(R, 1), torch.randn(R, C)
    local cols = torch.empty(C, R):t()
    torch.mul(col:expand(R, C), b, { out = cols })
    assert.is_true(torch.equal(cols, torch.mul(col:expand(R, C):contiguous(), b)))
    -- out= a column-major view at an unaligned offset; nothing beside it written
    for _, off in ipairs({ 1, 3, 16 }) do
      local z = torch.full({ R * C + 32 }, 7, { dtype = torch.float32 })
      local view = z[{ { 1 + off, R * C + off } }]:view(C, R):t()
      torch.add(at, b, { out = view, alpha = 0.3 })
      assert.is_true(torch.equal(view, torch.add(ac, b, { alpha = 0.3 })))
      assert.are.equal(7 * off, z[{ { 1, off } }]:sum():item())
      assert.are.equal(7 * (32 - off), z[{ { R * C + off + 1, -1 } }]:sum():item())
    end
  end)
end)
