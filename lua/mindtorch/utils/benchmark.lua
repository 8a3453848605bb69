-- benchmark.lua: torch.utils.benchmark: a monotonic clock, Timer and Measurement (PyTorch's
-- torch.utils.benchmark.Timer, its timeit / blocked_autorange / adaptive_autorange and the
-- Measurement they return, with its repr).
--
--   local bm = torch.utils.benchmark
--   local t0 = bm.time()                       -- seconds on a monotonic clock
--   local x = torch.randn(64, 64)
--   local m = bm.Timer{stmt = function() x:matmul(x) end, label = "mm 64"}:blocked_autorange()
--   print(m)                                   -- Median: 12.34 us ...; m.median in seconds
--
-- stmt and setup are Lua functions, or strings of Lua compiled with load() into one fresh
-- environment per Timer whose names come from `globals` (a table), then `torch`, then _G:
-- a string setup's assignments (`x = torch.randn(8)`) are the names its stmt sees, as in
-- PyTorch. setup runs once before each timed block, outside the timing.
--
-- The garbage collector: PyTorch's timeit turns Python's gc off while it times. Here a full
-- collection runs before each measurement instead and the collector stays on while it times:
-- Lua frees tensors through the collector, so a statement that makes tensors, run a million
-- times with it stopped, would hold all of their memory at once, and a user's loop pays for
-- its collections too, so the measurement includes them.
local torch = require "mindtorch"
local class = require "mindtorch._class"
local args = require "mindtorch._args"

local benchmark = {}

-- time(): seconds on a monotonic clock (CLOCK_MONOTONIC; os.clock is CPU time): only
-- differences mean anything
benchmark.time = torch._monotonic

-- ---- Measurement ---------------------------------------------------------------------------------

-- PyTorch's thresholds for its IQR warnings (relative to the median)
local IQR_WARN, IQR_GROSS_WARN = 0.1, 0.25

-- q-quantile of a sorted list, interpolated linearly (numpy's default)
local function quantile(sorted, q)
  local pos = q * (#sorted - 1) + 1
  local lo = math.floor(pos)
  local hi = math.min(lo + 1, #sorted)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
end

-- the unit a time in seconds reads best in: PyTorch's select_unit
local function select_unit(t)
  if t <= 0 or t ~= t then return "s", 1 end
  local e = math.floor(math.log(t, 10)) // 3
  if e <= -3 then return "ns", 1e-9 end
  if e == -2 then return "us", 1e-6 end
  if e == -1 then return "ms", 1e-3 end
  return "s", 1
end
benchmark._select_unit = select_unit

-- Measurement(number_per_run, raw_times, task): the result of a Timer. raw_times are the
-- seconds of each block of number_per_run runs; times are those per run. task: label,
-- sub_label, description, env, num_threads, stmt (a string, for the title). Fields: times,
-- raw_times, number_per_run, mean, median, iqr, p25, p75 (seconds per run), label,
-- sub_label, description, env, num_threads, title, has_warnings.
local Measurement = class.class("utils.benchmark.Measurement")
function Measurement:__init(number_per_run, raw_times, task)
  if math.type(number_per_run) ~= "integer" or number_per_run < 1 then
    error("Measurement(): number_per_run must be a positive integer", 3)
  end
  if type(raw_times) ~= "table" or #raw_times == 0 then error("Measurement(): raw_times must be a non-empty list", 3) end
  task = task or {}
  self.number_per_run = number_per_run
  self.raw_times, self.times = {}, {}
  for i, t in ipairs(raw_times) do
    self.raw_times[i] = t
    self.times[i] = t / number_per_run
  end
  for _, k in ipairs { "label", "sub_label", "description", "env", "stmt" } do self[k] = task[k] end
  self.num_threads = task.num_threads or 1
  local sorted = {}
  local sum = 0
  for i, t in ipairs(self.times) do
    sorted[i] = t
    sum = sum + t
  end
  table.sort(sorted)
  self.mean = sum / #sorted
  self.median = quantile(sorted, 0.5)
  self.p25, self.p75 = quantile(sorted, 0.25), quantile(sorted, 0.75)
  self.iqr = self.p75 - self.p25
  self.title = self:_title()
  self._warnings = {}
  local function warn(msg)
    self._warnings[#self._warnings + 1] = ("  WARNING: Interquartile range is %.1f%% of the median measurement.\n"
      .. "           %s"):format(self.iqr / self.median * 100, msg)
  end
  if not self:meets_confidence(IQR_GROSS_WARN) then
    warn("This suggests significant environmental influence.")
  elseif not self:meets_confidence(IQR_WARN) then
    warn("This could indicate system fluctuation.")
  end
  self.has_warnings = #self._warnings > 0
end

-- meets_confidence(threshold=0.1): whether iqr / median is under threshold
function Measurement:meets_confidence(threshold)
  if self.median == 0 then return self.iqr == 0 end
  return self.iqr / self.median < (threshold or IQR_WARN)
end

-- the label (with its sub_label), else a string stmt, else where a function stmt is defined
function Measurement:_title()
  local sub = self.sub_label and (": " .. self.sub_label) or ""
  if self.label then return self.label .. sub end
  if type(self.stmt) == "string" and not self.stmt:find("\n") then return self.stmt .. sub end
  if type(self.stmt) == "string" then
    return "stmt:" .. (self.sub_label and (" (" .. self.sub_label .. ")") or "") .. "\n  "
      .. self.stmt:gsub("^%s+", ""):gsub("%s+$", ""):gsub("\n", "\n  ")
  end
  return (self.stmt or "stmt") .. sub
end

-- PyTorch's repr: the object line, the title and description, the median and IQR in one
-- unit, the counts and any IQR warning
function Measurement:__tostring()
  local n = #self.times
  local unit, scale = select_unit(self.median)
  local lines = { ("<torch.utils.benchmark.Measurement object at %p>"):format(self) }
  for _, s in ipairs { self.title, self.description } do
    if s and s ~= "" then lines[#lines + 1] = s end
  end
  lines[#lines + 1] = ("  %s%.2f %s"):format(n > 1 and "Median: " or "", self.median / scale, unit)
  if n >= 4 then
    lines[#lines + 1] = ("  IQR:    %.2f %s (%.2f to %.2f)"):format(self.iqr / scale, unit, self.p25 / scale,
      self.p75 / scale)
  end
  lines[#lines + 1] = ("  %d measurement%s, %d runs %s %d thread%s"):format(n, n > 1 and "s" or "", self.number_per_run,
    n > 1 and "per measurement," or ",", self.num_threads, self.num_threads > 1 and "s" or "")
  for _, w in ipairs(self._warnings) do lines[#lines + 1] = w end
  return table.concat(lines, "\n")
end
benchmark.Measurement = Measurement

-- ---- Timer ---------------------------------------------------------------------------------------

-- a string statement compiled into env (errors name the Timer's argument)
local function compile(what, src, env)
  if type(src) == "function" then return src end
  if type(src) ~= "string" then
    error(("Timer(): %s must be a function or a string of Lua, not %s"):format(what, args.py_type(src)), 4)
  end
  local f, err = load(src, "=" .. what, "t", env)
  if not f then error(("Timer(): %s does not compile: %s"):format(what, err), 4) end
  return f
end

-- where a Lua function is defined, for a title
local function where(f)
  local info = debug.getinfo(f, "S")
  return ("<function at %s:%d>"):format(info.short_src, info.linedefined)
end

-- Timer(stmt, setup, {timer=, globals=, label=, sub_label=, description=, env=, num_threads=}):
-- stmt (default: nothing) is what is timed, setup runs before each timed block; timer is the
-- clock (default benchmark.time); num_threads (default 1, as PyTorch) is torch's thread
-- count while measuring, the caller's restored afterwards.
local Timer = class.class("utils.benchmark.Timer")
local timer_names = { "stmt", "setup", "timer", "globals", "label", "sub_label", "description", "env", "num_threads" }
function Timer:__init(...)
  local o = args.parse_at(3, "Timer", timer_names, { stmt = "", setup = "", num_threads = 1 }, ...)
  if math.type(o.num_threads) ~= "integer" or o.num_threads < 1 then
    error("Timer(): num_threads must be a positive integer", 3)
  end
  local mt = getmetatable(o.timer)
  if o.timer ~= nil and type(o.timer) ~= "function" and not (type(mt) == "table" and mt.__call) then
    error("Timer(): timer must be callable", 3)
  end
  local globals = o.globals
  if globals ~= nil and type(globals) ~= "table" then error("Timer(): globals must be a table", 3) end
  -- the string statements' names: their own assignments, then globals, torch, _G
  self._env = setmetatable({}, { __index = function(_, k)
    local v = globals and globals[k]
    if v == nil and k == "torch" then v = torch end
    if v == nil then v = _G[k] end
    return v
  end })
  self._stmt = compile("stmt", o.stmt, self._env)
  self._setup = compile("setup", o.setup, self._env)
  self._timer = o.timer or benchmark.time
  self.num_threads = o.num_threads
  self._task = { label = o.label, sub_label = o.sub_label, description = o.description, env = o.env,
    num_threads = o.num_threads, stmt = type(o.stmt) == "string" and o.stmt or where(o.stmt) }
end

-- f() with torch's thread count set to the Timer's, the caller's restored after (errors too)
function Timer:_with_threads(f, ...)
  local before = torch.get_num_threads()
  torch.set_num_threads(self.num_threads)
  local r = table.pack(pcall(f, ...))
  torch.set_num_threads(before)
  if not r[1] then error(r[2], 0) end
  return table.unpack(r, 2, r.n)
end

-- seconds for setup once then stmt `number` times (only the stmt loop is timed)
function Timer:_timeit(number)
  self._setup()
  local stmt, clock = self._stmt, self._timer
  local t0 = clock()
  for _ = 1, number do stmt() end
  return clock() - t0
end

-- timeit(number=1000000): one block of `number` runs, after a warm-up of number // 100
-- (at least 2)
function Timer:timeit(...)
  local o = args.parse("timeit", { "number" }, { number = 1000000 }, ...)
  if math.type(o.number) ~= "integer" or o.number < 1 then error("timeit(): number must be a positive integer", 2) end
  return self:_with_threads(function()
    self:_timeit(math.max(o.number // 100, 2))
    collectgarbage()
    return Measurement(o.number, { self:_timeit(o.number) }, self._task)
  end)
end

-- the runs per block that make the loop's own overhead negligible (PyTorch's estimate:
-- relative overhead <= 1e-4 and a block of at least min_run_time / 1000, or a block longer than
-- min_run_time); it also warms up
function Timer:_estimate_block_size(min_run_time)
  local overheads = {}
  for i = 1, 5 do overheads[i] = self:_timeit(0) end
  table.sort(overheads)
  local overhead = overheads[3]
  local number = 1
  while true do
    local taken = self:_timeit(number)
    if taken > 0 and overhead / taken <= 1e-4 and taken >= min_run_time / 1000 then break end
    if taken > min_run_time then break end
    if number * 10 > 2147483647 then break end
    number = number * 10
  end
  return number
end

-- blocks of `number` runs until min_run_time has been spent and stop(times) agrees (or
-- max_run_time is passed); callback(number, seconds) after each block
function Timer:_measure(number, min_run_time, max_run_time, callback, stop)
  collectgarbage()
  local times, total = {}, 0
  local can_stop = false
  while total < min_run_time or not can_stop do
    local t = self:_timeit(number)
    times[#times + 1] = t
    total = total + t
    if callback then callback(number, t) end
    can_stop = stop(times)
    if max_run_time and total > max_run_time then break end
  end
  return times
end

local function check_time(fname, name, v)
  if type(v) ~= "number" or v < 0 or v ~= v then error(("%s(): %s must be a non-negative number"):format(fname, name), 4) end
end

-- blocked_autorange(callback, min_run_time=0.2): blocks sized by the estimate until
-- min_run_time seconds have been spent timing
function Timer:blocked_autorange(...)
  local o = args.parse("blocked_autorange", { "callback", "min_run_time" }, { min_run_time = 0.2 }, ...)
  check_time("blocked_autorange", "min_run_time", o.min_run_time)
  return self:_with_threads(function()
    local number = self:_estimate_block_size(o.min_run_time)
    local times = self:_measure(number, o.min_run_time, nil, o.callback, function() return true end)
    return Measurement(number, times, self._task)
  end)
end

-- adaptive_autorange(threshold=0.1, {min_run_time=0.01, max_run_time=10, callback=}): blocks
-- until iqr / median < threshold (with more than 3 blocks) and min_run_time is spent, or
-- max_run_time is passed
function Timer:adaptive_autorange(...)
  local o = args.parse("adaptive_autorange", { "threshold", "min_run_time", "max_run_time", "callback" },
    { threshold = 0.1, min_run_time = 0.01, max_run_time = 10.0 }, ...)
  check_time("adaptive_autorange", "min_run_time", o.min_run_time)
  check_time("adaptive_autorange", "max_run_time", o.max_run_time)
  return self:_with_threads(function()
    local number = self:_estimate_block_size(0.05)
    local times = self:_measure(number, o.min_run_time, o.max_run_time, o.callback, function(times)
      return #times > 3 and Measurement(number, times, self._task):meets_confidence(o.threshold)
    end)
    return Measurement(number, times, self._task)
  end)
end
benchmark.Timer = Timer

return benchmark
