-- progress.lua: torch.utils.progress: a progress bar for a user's loops (tqdm's shape): count,
-- percentage, bar, rate, elapsed time, ETA and postfix metrics.
--
--   for i, x, y in torch.utils.progress(loader, {desc = "epoch 1"}) do ... end
--   for i in torch.utils.progress(100) do ... end
--   local p = torch.utils.progress{total = 100, desc = "eval"}
--   p:update(1); p:set_postfix{loss = 0.12}; p:close()
--
-- On a terminal the line is redrawn in place ('\r', at most every `mininterval` seconds); to
-- anything else (a log file, a pipe) it writes plain whole lines, no '\r' and no escape codes, at
-- most every `interval` seconds, and one last line when the bar closes.
local torch = require "mindtorch"
local class = require "mindtorch._class"
local args = require "mindtorch._args"

local Progress = class.class("utils.progress.Progress")

local option_spec = { desc = "str", total = "any", file = "any", disable = "bool", leave = "bool", interval = "float",
  mininterval = "float", ncols = "int", unit = "str", ascii = "bool", tty = "bool", clock = "callable",
  postfix = "any", initial = "int" }

-- ---- formatting ----------------------------------------------------------------------------------

-- seconds as tqdm writes them: MM:SS, or H:MM:SS from an hour
local function format_interval(t)
  if t == nil or t ~= t or t == math.huge then return "?" end
  t = math.floor(t + 0.5)
  local h, m, s = t // 3600, t % 3600 // 60, t % 60
  if h > 0 then return ("%d:%02d:%02d"):format(h, m, s) end
  return ("%02d:%02d"):format(m, s)
end
Progress.format_interval = format_interval

-- a postfix value: numbers short (3 significant digits for floats), one-element tensors by value
local function format_value(v)
  if torch.is_tensor(v) and v:numel() == 1 then v = v:item() end
  if math.type(v) == "float" then
    local s = ("%.3g"):format(v)
    return s
  end
  return tostring(v)
end

-- "k1=v1, k2=v2" with the keys sorted (as tqdm's set_postfix sorts its keyword arguments)
local function format_postfix(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local parts = {}
  for i, k in ipairs(keys) do parts[i] = tostring(k) .. "=" .. format_value(t[k]) end
  return table.concat(parts, ", ")
end

local BLOCKS = { "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█" }

-- a bar `width` characters wide filled to frac (0..1): eighth blocks, or '#' in ascii
local function draw_bar(frac, width, ascii)
  frac = math.max(0, math.min(1, frac))
  if ascii then
    local full = math.floor(frac * width)
    return ("#"):rep(full) .. (" "):rep(width - full)
  end
  local eighths = math.floor(frac * width * 8)
  local full, part = eighths // 8, eighths % 8
  local s = BLOCKS[8]:rep(full)
  if full < width then s = s .. (part > 0 and BLOCKS[part] or " ") .. (" "):rep(width - full - 1) end
  return s
end

-- the line for the bar's state now; with_bar: draw the bar (terminal lines)
function Progress:format(with_bar)
  local now = self._clock()
  local elapsed = now - self._start
  local n = self.n
  local done = n - self.initial
  local rate = (elapsed > 0 and done > 0) and done / elapsed or nil
  local unit = self.unit
  local rate_s
  if rate == nil then
    rate_s = "?" .. unit .. "/s"
  elseif rate < 1 then
    rate_s = ("%.2fs/%s"):format(1 / rate, unit)
  else
    rate_s = ("%.2f%s/s"):format(rate, unit)
  end
  local post = self._postfix ~= "" and (", " .. self._postfix) or ""
  local prefix = self.desc ~= "" and (self.desc .. ": ") or ""
  local total = self.total
  if total == nil or total <= 0 then
    return ("%s%d%s [%s, %s%s]"):format(prefix, n, unit, format_interval(elapsed), rate_s, post)
  end
  local frac = n / total
  local eta = n >= total and 0 or rate and (total - n) / rate or nil
  local left = ("%s%3.0f%%"):format(prefix, frac * 100)
  local right = ("%d/%d [%s<%s, %s%s]"):format(n, total, format_interval(elapsed), format_interval(eta), rate_s, post)
  if not with_bar then return left .. " " .. right end
  -- the bar takes what ncols leaves (none when fewer than 4 columns are left)
  local width = self.ncols - utf8.len(left) - utf8.len(right) - 2
  if width < 4 then return left .. " " .. right end
  return left .. "|" .. draw_bar(frac, width, self.ascii) .. "|" .. right
end

-- ---- output --------------------------------------------------------------------------------------

function Progress:_write(s)
  self.file:write(s)
  if self.file.flush then self.file:flush() end
end

-- draw the current state: in place on a terminal (padded over the previous line), a whole
-- line otherwise
function Progress:_draw(now)
  if self.disable then return end
  if self._tty then
    local line = self:format(true)
    local len = utf8.len(line)
    local pad = math.max(0, (self._last_len or 0) - len)
    self:_write("\r" .. line .. (" "):rep(pad))
    self._last_len = len
  else
    self:_write(self:format(false) .. "\n")
    self._printed_n, self._changed = self.n, false
  end
  self._last_draw = now or self._clock()
end

-- refresh(): draw now
function Progress:refresh()
  self:_draw()
end

-- ---- the bar ---------------------------------------------------------------------------------------

-- the values an iterable gives as an iterator returning (true, values...) or false, and its
-- length when it has one. A number n: 1..n; a tensor: its rows; a table with __call (DataLoader,
-- sampler, IterableDataset): obj() is an epoch's iterator (and maybe, 4th, its closing value); a plain
-- table: its array part, ipairs' way; a function: an iterator called with no arguments.
local function iterate(obj)
  local ty = type(obj)
  if math.type(obj) == "integer" then
    if obj < 0 then error("progress(): a count must be >= 0, got " .. obj, 5) end
    local i = 0
    return function()
      i = i + 1
      return i <= obj
    end, obj
  end
  if torch.is_tensor(obj) then
    if obj:dim() == 0 then error("progress(): iteration over a 0-d tensor", 5) end
    local n, i = obj:size(1), 0
    return function()
      i = i + 1
      if i > n then return false end
      return true, obj[i]
    end, n
  end
  local mt = getmetatable(obj)
  local callable = type(mt) == "table" and mt.__call ~= nil
  local function wrap(f)
    return function()
      local r = table.pack(f())
      if r[1] == nil then return false end
      return true, table.unpack(r, 1, r.n)
    end
  end
  if ty == "function" then return wrap(obj), nil end
  if ty == "table" or ty == "userdata" then
    if callable then
      -- a generic for's four values: the iterator, its state and control (an epoch iterator takes
      -- none) and a closing value (a DataLoader's workers)
      local r = table.pack(obj())
      local f, closing = r[1], r[4]
      if type(f) ~= "function" then error("progress(): calling the iterable gave no iterator function", 5) end
      local n
      if type(mt) == "table" and mt.__len then
        local ok, len = pcall(function() return #obj end)
        if ok and math.type(len) == "integer" then n = len end
      end
      return wrap(f), n, closing
    end
    if ty == "table" then
      local i = 0
      return function()
        i = i + 1
        local v = obj[i]
        if v == nil then return false end
        return true, v
      end, #obj
    end
  end
  error("progress(): cannot iterate over a " .. args.py_type(obj) .. " (a count, a table, a tensor, an iterable "
    .. "object or an iterator function is expected)", 5)
end

-- whether the locale's characters are UTF-8 (the bar's eighth blocks need it)
local function utf8_locale()
  local loc = os.getenv("LC_ALL")
  if loc == nil or loc == "" then loc = os.getenv("LC_CTYPE") end
  if loc == nil or loc == "" then loc = os.getenv("LANG") end
  return loc ~= nil and loc:lower():gsub("-", ""):find("utf8") ~= nil
end

-- Progress(iterable, opts) / Progress(opts), made by torch.utils.progress(...) (its errors point
-- at that call): see the module's comment. Options: desc, total (the
-- iterable's length by default), file (io.stderr; anything with write), disable, leave (keep the
-- last line: true), interval (plain lines: 10 s), mininterval (terminal redraws: 0.1 s), ncols
-- (line width on a terminal: $COLUMNS or 80), unit ("it"), ascii (a '#' bar; the default
-- when the locale is not UTF-8), tty (in place or
-- plain lines: whether file is a terminal), clock (seconds: benchmark.time), postfix (a table
-- or a string), initial (the starting count: 0).
function Progress:__init(iterable, opts)
  if opts == nil and args.is_options(iterable) then iterable, opts = nil, iterable end
  local o = args.options("progress", opts, option_spec, nil, 4)
  if o.total ~= nil and (type(o.total) ~= "number" or o.total < 0) then
    error("progress(): total must be a non-negative number", 4)
  end
  if o.file ~= nil and (type(o.file) ~= "table" and type(o.file) ~= "userdata" or not o.file.write) then
    error("progress(): file must be an output stream (something with a write method)", 4)
  end
  for _, k in ipairs { "interval", "mininterval" } do
    if o[k] ~= nil and o[k] < 0 then error(("progress(): %s must be >= 0"):format(k), 4) end
  end
  if iterable ~= nil then
    local len
    self._it, len, self._closing = iterate(iterable)
    if o.total == nil then o.total = len end
  end
  self.total = o.total
  self.desc = o.desc or ""
  self.file = o.file or io.stderr
  self.disable = o.disable or false
  self.leave = o.leave ~= false
  self.interval = o.interval or 10.0
  self.mininterval = o.mininterval or 0.1
  self.ncols = o.ncols or math.tointeger(tonumber(os.getenv("COLUMNS") or "")) or 80
  self.unit = o.unit or "it"
  if o.ascii ~= nil then self.ascii = o.ascii else self.ascii = not utf8_locale() end
  self.initial = o.initial or 0
  self.n = self.initial
  self._clock = o.clock or require("mindtorch.utils.benchmark").time
  if o.tty ~= nil then self._tty = o.tty else self._tty = torch._isatty(self.file) end
  self._postfix = ""
  if type(o.postfix) == "table" then self._postfix = format_postfix(o.postfix)
  elseif o.postfix ~= nil then self._postfix = tostring(o.postfix) end
  self._start = self._clock()
  self._last_draw = self._start
  self._count = 0
  self.closed = false
  if self._tty then self:_draw(self._start) end -- a terminal shows the bar at once
end

-- update(n=1): n more done; draws when the last drawing is old enough
function Progress:update(n)
  n = n == nil and 1 or n
  if type(n) ~= "number" then error("update(): n must be a number, not " .. args.py_type(n), 2) end
  if self.closed then return end
  self.n = self.n + n
  if self.disable then return end
  local now = self._clock()
  local every = self._tty and self.mininterval or self.interval
  if now - self._last_draw >= every then self:_draw(now) end
end

-- set_postfix(t, refresh=true): metrics shown after the rate (keys sorted, floats with 3
-- significant digits, one-element tensors by value)
function Progress:set_postfix(t, refresh)
  if type(t) ~= "table" or torch.is_tensor(t) then error("set_postfix(): expects a table of name = value", 2) end
  self._postfix = format_postfix(t)
  self._changed = true
  if refresh ~= false and self._tty and not self.closed then self:_draw() end
end

-- set_postfix_str(s, refresh=true): the postfix as given
function Progress:set_postfix_str(s, refresh)
  self._postfix = tostring(s or "")
  self._changed = true
  if refresh ~= false and self._tty and not self.closed then self:_draw() end
end

-- set_description(desc, refresh=true)
function Progress:set_description(desc, refresh)
  self.desc = desc and tostring(desc) or ""
  self._changed = true
  if refresh ~= false and self._tty and not self.closed then self:_draw() end
end

-- write(s): a message line that does not break the bar (cleared, the line written, drawn again)
function Progress:write(s)
  if self.disable then
    return
  end
  if self._tty and not self.closed then
    self:_write("\r" .. (" "):rep(self._last_len or 0) .. "\r" .. tostring(s) .. "\n")
    self._last_len = 0
    self:_draw()
  else
    self:_write(tostring(s) .. "\n")
  end
end

-- reset(total): back to the initial count and a new start time (total kept when not given)
function Progress:reset(total)
  if total ~= nil then self.total = total end
  self.n = self.initial
  self._start = self._clock()
  self._last_draw = self._start
  self.closed = false
  if self._tty and not self.disable then self:_draw(self._start) end
end

-- close(): the last state drawn (kept when leave, else cleared from the terminal); an
-- iterable's closing value (a loader's workers) closed too. Only the first call counts.
function Progress:close()
  if self.closed then return end
  self.closed = true
  local closing = self._closing
  self._closing = nil
  if not self.disable then
    if self._tty then
      if self.leave then
        self:_draw()
        self:_write("\n")
      else
        self:_write("\r" .. (" "):rep(self._last_len or 0) .. "\r")
      end
    elseif self.leave and (self._printed_n ~= self.n or self._changed) then -- unless just printed
      self:_draw()
    end
  end
  if closing ~= nil then
    local mt = getmetatable(closing)
    if type(mt) == "table" and mt.__close then mt.__close(closing) end
  end
end
Progress.__close = function(self) self:close() end

-- the generic for's iterator: the count first, then the iterable's values; a step after the
-- first counts the one before it done; the end closes the bar
function Progress:__call()
  if self._it == nil then error("progress: this bar has no iterable (made with a total): call update(n)", 2) end
  if self.closed then error("progress: this bar is closed (its loop ended): make a new one for each loop", 2) end
  if self._count > 0 then self:update(1) end
  local r = table.pack(self._it())
  if not r[1] then
    self:close()
    return nil
  end
  self._count = self._count + 1
  return self._count, table.unpack(r, 2, r.n)
end

Progress.__tostring = function(self) return self:format(false) end

-- torch.utils.progress(iterable, opts) or torch.utils.progress(opts): a Progress. In a for loop
-- it is also the loop's closing value, so that a break or an error closes the bar.
return setmetatable({ Progress = Progress, format_interval = format_interval }, {
  __call = function(_, ...)
    local p = Progress(...)
    return p, nil, nil, p
  end,
})
