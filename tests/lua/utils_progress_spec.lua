-- torch.utils.progress: what a loop over a count, a list, a tensor, a DataLoader or an iterator
-- gives; the line (count, percentage, bar, rate, elapsed, ETA, postfix); in place on a terminal
-- ('\r', at most every mininterval) and plain lines elsewhere (at most every interval, then a
-- last one); closing on break and error. A fake clock and a fake stream make it exact.
local torch = require "mindtorch"
local progress = torch.utils.progress

-- a stream that keeps what is written, and a clock the test moves
local function setup(opts)
  local out = {}
  local clock = { now = 0.0 }
  opts = opts or {}
  opts.file = { write = function(_, s) out[#out + 1] = s end }
  opts.clock = function() return clock.now end
  return opts, out, clock
end

local function text(out) return table.concat(out) end
local function lines(out)
  local l = {}
  for s in text(out):gmatch("[^\n]+") do l[#l + 1] = s end
  return l
end

describe("torch.utils.progress", function()
  it("loads on first use", function()
    assert.are.equal(progress, require("mindtorch.utils.progress"))
  end)

  it("over a count gives 1..n and writes plain lines at most every `interval`, then a last one", function()
    local opts, out, clock = setup { desc = "epoch 1", interval = 2.5 }
    local seen = {}
    for i in progress(5, opts) do
      seen[#seen + 1] = i
      clock.now = clock.now + 1
    end
    assert.are.same({ 1, 2, 3, 4, 5 }, seen)
    assert.are.same({
      "epoch 1:  60% 3/5 [00:03<00:02, 1.00it/s]",
      "epoch 1: 100% 5/5 [00:05<00:00, 1.00it/s]",
    }, lines(out))
    assert.is_nil(text(out):find("[\r\27]"))
  end)

  it("over a list gives the position and the value; total is its length", function()
    local opts, out = setup { interval = 0 }
    local got = {}
    for i, v in progress({ "a", "b", "c" }, opts) do got[#got + 1] = i .. v end
    assert.are.same({ "1a", "2b", "3c" }, got)
    assert.are.equal("100% 3/3 [00:00<00:00, ?it/s]", lines(out)[#lines(out)])
  end)

  it("over a tensor gives its rows", function()
    local opts = setup { disable = true }
    local rows = {}
    for i, r in progress(torch.arange(6):view(3, 2), opts) do rows[i] = r:tolist() end
    assert.are.same({ { 0, 1 }, { 2, 3 }, { 4, 5 } }, rows)
  end)

  it("over a DataLoader gives the count then the batch's values; total is #loader", function()
    local data = torch.utils.data
    local loader = data.DataLoader(data.TensorDataset(torch.arange(10), torch.arange(10) * 2), { batch_size = 4 })
    local opts, out, clock = setup { desc = "train" }
    local n = 0
    for i, x, y in progress(loader, opts) do
      n = i
      assert.is_true(torch.equal(y, x * 2))
      clock.now = clock.now + 4
    end
    assert.are.equal(3, n)
    -- 3 batches in 12 s: 4 s per batch is shown as seconds per iteration
    assert.are.same({ "train: 100% 3/3 [00:12<00:00, 4.00s/it]" }, lines(out))
  end)

  it("ends a DataLoader's workers when the loop breaks", function()
    local data = torch.utils.data
    local loader = data.DataLoader(data.TensorDataset(torch.arange(100)), { batch_size = 10, num_workers = 2 })
    local function workers()
      local p = io.popen("ps --ppid " .. torch._proc.getpid() .. " -o comm=")
      local n = 0
      for line in p:lines() do if line ~= "sh" and line ~= "ps" then n = n + 1 end end
      p:close()
      return n
    end
    local opts = setup { disable = true }
    for i in progress(loader, opts) do
      if i == 1 then assert.are.equal(2, workers()) end
      if i == 3 then break end
    end
    assert.are.equal(0, workers())
  end)

  it("over an iterator function counts without a total; total can be given", function()
    local opts, out, clock = setup()
    local k = 0
    local function gen()
      k = k + 1
      if k <= 4 then return k * 10 end
    end
    local vals = {}
    for i, v in progress(gen, opts) do
      vals[i] = v
      clock.now = clock.now + 0.5
    end
    assert.are.same({ 10, 20, 30, 40 }, vals)
    assert.are.same({ "4it [00:02, 2.00it/s]" }, lines(out))
    k = 0
    opts, out = setup { total = 8 }
    for _ in progress(gen, opts) do end
    assert.are.equal(" 50% 4/8 [00:00<?, ?it/s]", lines(out)[1])
  end)

  it("by hand: update, set_postfix (sorted, short floats, tensors by value), close once", function()
    local opts, out, clock = setup { total = 200, desc = "eval", interval = 0 }
    local p = progress(opts)
    clock.now = 10
    p:set_postfix { loss = 0.123456, acc = torch.tensor(0.5), step = 7 }
    p:update(50)
    assert.are.equal(50, p.n)
    clock.now = 20
    p:update() -- 1
    p:set_postfix_str("lr=0.1")
    p:set_description("eval 2")
    p:close()
    p:close()
    p:update(5) -- ignored once closed
    assert.are.same({
      "eval:  25% 50/200 [00:10<00:30, 5.00it/s, acc=0.5, loss=0.123, step=7]",
      "eval:  26% 51/200 [00:20<00:58, 2.55it/s, acc=0.5, loss=0.123, step=7]",
      "eval 2:  26% 51/200 [00:20<00:58, 2.55it/s, lr=0.1]",
    }, lines(out))
  end)

  it("on a terminal redraws in place, at most every mininterval, and ends the line", function()
    local opts, out, clock = setup { total = 4, tty = true, ncols = 60, ascii = true }
    local p = progress(opts)
    -- the bar takes the columns the rest leaves: 60 in all
    assert.are.equal("\r  0%|" .. (" "):rep(34) .. "|0/4 [00:00<?, ?it/s]", out[1])
    clock.now = 0.05
    p:update() -- too soon: not drawn
    assert.are.equal(1, #out)
    clock.now = 1
    p:update()
    assert.are.equal(2, #out)
    assert.are.equal("\r 50%|" .. ("#"):rep(13) .. (" "):rep(14) .. "|2/4 [00:01<00:01, 2.00it/s]", out[2])
    assert.are.equal(60, #out[2] - 1)
    p:close()
    assert.are.equal("\n", out[#out])
    assert.truthy(out[#out - 1]:find("^\r 50%%|#+ +|2/4"), out[#out - 1]) -- the last state, drawn again
    assert.is_nil(text(out):find("\27"))
    -- eighth blocks when not ascii
    opts, out = setup { total = 8, tty = true, ncols = 40, ascii = false }
    p = progress(opts)
    p:update(3)
    p:refresh()
    assert.truthy(out[#out]:find(" 38%|█████▎        |3/8 ", 1, true), out[#out]) -- 3/8 of 14: 5 and 2 eighths
    -- a shorter line is padded over the longer one (no total: no bar to take up the width)
    opts, out = setup { tty = true }
    p = progress(opts)
    p:set_description("long")
    p:set_description("")
    assert.are.equal("\r0it [00:00, ?it/s]      ", out[#out])
    -- leave = false clears the line
    opts, out = setup { total = 2, tty = true, leave = false }
    p = progress(opts)
    p:close()
    assert.truthy(out[#out]:find("^\r +\r$"))
  end)

  it("write(s) prints a message without breaking the bar", function()
    local opts, out = setup { total = 2, tty = true, ncols = 50 }
    local p = progress(opts)
    p:write("hello")
    assert.truthy(out[2]:find("^\r +\rhello\n$"))
    assert.truthy(out[3]:find("^\r  0%%"))
    opts, out = setup { total = 2 }
    p = progress(opts)
    p:write("plain")
    assert.are.equal("plain\n", out[1])
  end)

  it("closes on break and on error (and closes the iterable's closing value)", function()
    local opts, out, clock = setup { interval = 100 }
    for i in progress(100, opts) do
      clock.now = clock.now + 1
      if i == 10 then break end
    end
    -- under one iteration a second, the rate is seconds per iteration
    assert.are.same({ "  9% 9/100 [00:10<01:41, 1.11s/it]" }, lines(out))
    -- an iterable object whose call gives an iterator and a closing value (as a loader with workers)
    local closed = 0
    local obj = setmetatable({}, {
      __call = function()
        local k = 0
        return function()
          k = k + 1
          if k <= 5 then return k end
        end, nil, nil, setmetatable({}, { __close = function() closed = closed + 1 end })
      end,
      __len = function() return 5 end,
    })
    opts, out = setup()
    local ok, err = pcall(function()
      for i in progress(obj, opts) do if i == 2 then error("stop", 0) end end
    end)
    assert.are.same({ false, "stop" }, { ok, err })
    assert.are.equal(1, closed)
    assert.are.same({ " 20% 1/5 [00:00<?, ?it/s]" }, lines(out))
  end)

  it("disable writes nothing; a finished bar cannot be iterated again", function()
    local opts, out = setup { disable = true, tty = true }
    local n = 0
    local p = progress(3, opts)
    for _ in p do n = n + 1 end
    assert.are.equal(3, n)
    assert.are.same({}, out)
    assert.has_error(function() for _ in p do end end,
      "progress: this bar is closed (its loop ended): make a new one for each loop")
    assert.has_error(function() for _ in progress { total = 3, disable = true } do end end,
      "progress: this bar has no iterable (made with a total): call update(n)")
  end)

  it("is plain lines on a file that is not a terminal, stderr by default", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    assert.is_false(torch._isatty(f))
    assert.is_false(torch._isatty({}))
    assert.is_false(torch._isatty(-1))
    local p = progress(2, { file = f, desc = "f" })
    for _ in p do end
    f:close()
    local s = require("tests.lua.support.files").read(path)
    os.remove(path)
    assert.truthy(s:find("^f: 100%% 2/2 %[00:00<00:00, [%d.]+it/s%]\n$"), s)
    assert.are.equal(io.stderr, progress(1, { disable = true }).file)
  end)

  it("draws in place on a real terminal (a pseudo-terminal from script(1))", function()
    if not os.execute("command -v script >/dev/null 2>&1") then pending("script(1) is not installed") return end
    local luamt = (os.getenv("BUILD") or "build") .. "/luamt"
    local chunk = "local t = require('mindtorch') print(t._isatty(io.stdout)) "
      .. "for _ in t.utils.progress(2, {file = io.stdout, ascii = true}) do end"
    local f = io.popen("script -qec \"" .. luamt .. " -e \\\"" .. chunk .. "\\\"\" /dev/null </dev/null 2>&1")
    local s = f:read("a")
    f:close()
    assert.truthy(s:find("^true\r?\n"), s)
    assert.truthy(s:find("\r  0%|", 1, true), s)
    assert.truthy(s:find("\r100%%|#+|2/2"), s)
  end)

  it("formats times as tqdm does and refuses bad options", function()
    assert.are.same({ "00:00", "01:05", "1:01:01", "?" }, { progress.format_interval(0), progress.format_interval(65),
      progress.format_interval(3661), progress.format_interval(math.huge) })
    assert.has_error(function() progress(3, { foo = 1 }) end, "progress() got an unexpected keyword argument 'foo'")
    assert.has_error(function() progress(3, { desc = 1 }) end, "progress(): argument 'desc' must be str, not int")
    assert.has_error(function() progress("abc") end,
      "progress(): cannot iterate over a str (a count, a table, a tensor, an iterable object or an iterator function is expected)")
    assert.has_error(function() progress(-1) end, "progress(): a count must be >= 0, got -1")
    assert.has_error(function() progress(3, { file = 5 }) end,
      "progress(): file must be an output stream (something with a write method)")
    assert.has_error(function() progress { total = 1, disable = true }:set_postfix(3) end,
      "set_postfix(): expects a table of name = value")
  end)
end)
