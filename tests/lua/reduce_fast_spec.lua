-- The CPU reductions' fast paths (backends/cpu/cpu_reduce.c): max/min with positions a block at
-- a time (the first NaN wins, else the first extreme; a zero keeps its sign), against a scalar
-- walk of each row; reductions over leading dims (running values over column stretches, split
-- across threads), against the same reduction of the transposed copy and for any thread count;
-- variance over every dim but one read in place (batch norm's statistics), against the two-pass
-- formula in float64 over the permuted copy; short float32 rows summed 16 at a time, against
-- one row at a time; float32 softmax rows 16 lanes at a time, against float64.
local torch = require "mindtorch"

-- the first NaN of a row, else its first extreme: value and 1-based position
local function walk(row, n, f)
  local best, bi = row[1]:item(), 1
  for c = 1, n do
    local e = row[c]:item()
    if e ~= e then return e, c end
    if (f == "max" and e > best) or (f == "min" and e < best) then best, bi = e, c end
  end
  return best, bi
end

describe("CPU reductions", function()
  local saved
  before_each(function() saved = torch.get_num_threads() end)
  after_each(function() torch.set_num_threads(saved) end)

  it("give max and min along a dim the first NaN or the first extreme, block edges included", function()
    torch.manual_seed(1)
    local nan = 0 / 0
    for _, dt in ipairs { torch.float32, torch.float64 } do
      for _, n in ipairs { 1, 5, 255, 256, 257, 1000 } do
        for trial = 1, 12 do
          local x = torch.randn(5, n, { dtype = dt })
          if trial % 3 == 0 then x = (x * 2):round() end -- ties
          if trial % 4 == 0 then -- NaNs, one row with several
            x[{ 2, (trial * 37) % n + 1 }] = nan
            x[{ 4, (trial * 11) % n + 1 }] = nan
            x[{ 4, (trial * 53) % n + 1 }] = nan
          end
          if trial == 5 then x = torch.arange(n, { dtype = dt }):expand(5, n):contiguous() end -- ascending
          if trial == 7 then -- zeros of both signs
            x:zero_()
            x[{ 3, (n + 1) // 2 }] = -0.0
          end
          for _, f in ipairs { "max", "min" } do
            local v, i = x[f](x, 2)
            for r = 1, 5 do
              local best, bi = walk(x[r], n, f)
              assert.are.equal(bi, i[r]:item())
              local got = v[r]:item()
              if best ~= best then
                assert.is_true(got ~= got)
              else
                assert.are.equal(best, got)
                assert.are.equal(1 / best, 1 / got) -- the sign of a zero
              end
            end
          end
        end
      end
    end
  end)

  it("reduce leading dims the same for every thread count and as the transposed copy", function()
    torch.manual_seed(2)
    -- 17000 columns: several stretches of 8192 per thread, and a short one
    for _, x in ipairs { torch.randn(37, 4500, { dtype = torch.float64 }), torch.randn(9, 17000, { dtype = torch.float64 }) } do
    for _, f in ipairs { "sum", "mean", "prod", "amax", "amin" } do
      for _, dt in ipairs { torch.float32, torch.float64, torch.int64 } do
        if not (f == "mean" and dt == torch.int64) then
          local y = f == "prod" and (x / 40 + 1):to(dt) or (x * 3):to(dt)
          if f == "prod" and dt == torch.int64 then y = (x:sign() + 2):to(dt) end
          local res = {}
          for t = 1, 3 do
            torch.set_num_threads(t)
            res[t] = y[f](y, 1)
          end
          assert.is_true(torch.equal(res[1], res[2]), f)
          assert.is_true(torch.equal(res[1], res[3]), f)
          local yt = y:t():contiguous()
          local ref = yt[f](yt, 2)
          -- float32 rows sum in float partials, columns in double: a float32 rounding apart
          local tol = dt == torch.float32 and 1e-5 or 1e-9
          assert.is_true(torch.allclose(res[1]:double(), ref:double(), tol, tol), f .. " " .. tostring(dt))
        end
      end
    end
    end
  end)
  it("give var, std and var_mean over every dim but one in place, as the formula over a copy", function()
    torch.manual_seed(4)
    for _, dt in ipairs { torch.float32, torch.float64 } do
      for _, shape in ipairs { { 4, 6, 9, 8 }, { 3, 5, 130 }, { 2, 3, 64 }, { 7, 70 } } do
        for _, threads in ipairs { 1, 2 } do
          torch.set_num_threads(threads)
          local x = (torch.randn(shape, { dtype = torch.float64 }) * 3 + 100):to(dt)
          local kept = #shape == 2 and 1 or 2
          local dims = {}
          for d = 1, #shape do if d ~= kept then dims[#dims + 1] = d end end
          -- the reference: the kept dim first, rows of float64, mean then squared deviations
          local rows = x:transpose(1, kept):contiguous():double():reshape(shape[kept], -1)
          local n = rows:size(2)
          local mean = rows:sum(2, true) / n
          local ss = ((rows - mean) ^ 2):sum(2)
          for _, corr in ipairs { 0, 1 } do
            local want = (ss / (n - corr)):reshape(-1)
            local v, m = torch.var_mean(x, dims, { correction = corr })
            local what = ("%s %s threads %d correction %d"):format(tostring(dt), table.concat(shape, "x"), threads, corr)
            local tol = dt == torch.float32 and 1e-6 or 1e-12
            assert.are.equal(dt, v.dtype, what)
            assert.is_true(torch.allclose(v:double(), want, { rtol = tol, atol = 0 }), what)
            assert.is_true(torch.allclose(m:double(), mean:reshape(-1), { rtol = tol, atol = 0 }), what)
            assert.is_true(torch.allclose(x:std(dims, { correction = corr }):double(), want:sqrt(), { rtol = tol, atol = 0 }), what)
          end
        end
      end
    end
    -- empty segments: NaN, as every empty variance
    local e = torch.var(torch.zeros(0, 3, 70), { 1, 3 })
    assert.is_true(torch.isnan(e):all():item())
  end)
  -- cpu_reduce_rows_avx512.c: 16 rows at a time where the CPU has AVX-512F (the last rows of a
  -- part one at a time); every row's value must be the one-row sum's to the bit, whatever the
  -- order of additions a change would bring
  it("sum and average short float32 rows 16 at a time to the bit of one row at a time", function()
    torch.manual_seed(2)
    local bad = {}
    for n = 1, 140 do
      local x = torch.randn(37, n) * torch.rand(37, 1) * 1000
      if n % 7 == 0 then
        x[{ 3, 1 }] = 0 / 0
        x[{ 5, n }] = math.huge
        x[6]:fill_(-0.0)
      end
      local sums, means = x:sum(2), x:mean(2)
      for i = 1, 37 do
        local a, b = sums[i]:item(), x[i]:sum():item()
        local c, d = means[i]:item(), x[i]:mean():item()
        local same = (a == b or (a ~= a and b ~= b)) and (c == d or (c ~= c and d ~= d))
        if not same and #bad < 5 then bad[#bad + 1] = ("n %d row %d: %s %s, %s %s"):format(n, i, a, b, c, d) end
      end
    end
    assert.are.same({}, bad)
  end)

  it("give float32 softmax and log_softmax rows of every length within float32 rounding, NaN rows NaN", function()
    torch.manual_seed(8)
    for _, n in ipairs { 1, 2, 15, 16, 17, 33, 100, 1000 } do
      local x = torch.randn(5, n) * 6
      local want_s, want_l = x:double():softmax(2), x:double():log_softmax(2)
      -- along the last dim (straight into the result) and along the first (in place in a copy)
      for _, pair in ipairs { { x:softmax(2), want_s }, { x:log_softmax(2), want_l },
        { x:t():softmax(1):t(), want_s }, { x:t():log_softmax(1):t(), want_l } } do
        local got, want = pair[1], pair[2]
        local err = ((got:double() - want):abs() / (want:abs() + 1)):max():item()
        assert.is_true(err < 1e-6, ("length %d: %g"):format(n, err))
      end
      assert.is_true(torch.allclose(x:softmax(2):sum(2), torch.ones(5), { rtol = 0, atol = 1e-5 }))
    end
    local inf = math.huge
    local z = torch.tensor({ { 1, 0 / 0, 2 }, { -inf, -inf, -inf }, { inf, 1, 2 }, { -inf, 0, 1 } })
    local s, l = z:softmax(2), z:log_softmax(2)
    for r = 1, 3 do
      assert.is_true(torch.isnan(s[r]):all():item() and torch.isnan(l[r]):all():item(), "row " .. r)
    end
    assert.are.equal(0, s[{ 4, 1 }]:item())
    assert.are.equal(-inf, l[{ 4, 1 }]:item())
  end)
end)
