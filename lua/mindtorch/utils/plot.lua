-- plot.lua: torch.utils.plot: training curves (loss, accuracy) as a line chart, written as a
-- self-contained SVG (no dependency), or as a PNG through gnuplot when it is installed.
--
--   torch.utils.plot.curves({ {name = "train loss", y = losses},
--                             {name = "val loss", x = {1, 2, 3}, y = val} },
--                           "loss.svg", {title = "MNIST", xlabel = "epoch", ylabel = "loss"})
--
-- A series is {name =, y =, x =, color =}: y a list of numbers or a 1-D tensor, x the same
-- (1..#y when left out). A NaN or infinite point breaks the line there; a point with no
-- finite neighbour is drawn as a dot.
local torch = require "mindtorch"
local args = require "mindtorch._args"

local plot = {}

-- one colour per series, in order (then again from the first)
plot.colors = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
  "#17becf" }

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

-- ---- the data ----------------------------------------------------------------------------------

-- a list of numbers from a list or a 1-D tensor
local function numbers(v, what, fname)
  if torch.is_tensor(v) then
    if v:dim() > 1 then error(("%s: %s must be 1-D, got a %d-D tensor"):format(fname, what, v:dim()), 4) end
    v = v:reshape(-1):double():tolist()
  end
  if type(v) ~= "table" then
    error(("%s: %s must be a list of numbers or a tensor, not %s"):format(fname, what, args.py_type(v)), 4)
  end
  local out = {}
  for i = 1, #v do
    local x = v[i]
    if type(x) ~= "number" then
      error(("%s: %s[%d] is a %s, not a number"):format(fname, what, i, args.py_type(x)), 4)
    end
    out[i] = x + 0.0
  end
  return out
end

-- the series checked: {name, x, y, color, segments = lists of {x, y} points}
local function prepare(series, fname)
  if type(series) ~= "table" or #series == 0 then error(fname .. ": expects a non-empty list of series", 3) end
  local out = {}
  for k, s in ipairs(series) do
    if type(s) ~= "table" or torch.is_tensor(s) then
      error(("%s: series %d must be a table {name =, y =, x =}"):format(fname, k), 3)
    end
    local name = s.name ~= nil and tostring(s.name) or ("series " .. k)
    local label = ("series %d (%q)"):format(k, name)
    if s.y == nil then error(("%s: %s has no y"):format(fname, label), 3) end
    local y = numbers(s.y, label .. ".y", fname)
    if #y == 0 then error(("%s: %s has no points"):format(fname, label), 3) end
    local x
    if s.x ~= nil then
      x = numbers(s.x, label .. ".x", fname)
      if #x ~= #y then error(("%s: %s has %d x values for %d y values"):format(fname, label, #x, #y), 3) end
    else
      x = {}
      for i = 1, #y do x[i] = i + 0.0 end
    end
    local segments, cur = {}, nil
    for i = 1, #y do
      if finite(x[i]) and finite(y[i]) then
        if not cur then
          cur = {}
          segments[#segments + 1] = cur
        end
        cur[#cur + 1] = { x[i], y[i] }
      else
        cur = nil
      end
    end
    out[k] = { name = name, x = x, y = y, segments = segments, color = s.color or plot.colors[(k - 1) % #plot.colors + 1] }
  end
  return out
end

-- the finite range of every series' x and y
local function extent(list, level, fname)
  local x0, x1, y0, y1 = math.huge, -math.huge, math.huge, -math.huge
  for _, s in ipairs(list) do
    for _, seg in ipairs(s.segments) do
      for _, p in ipairs(seg) do
        x0, x1 = math.min(x0, p[1]), math.max(x1, p[1])
        y0, y1 = math.min(y0, p[2]), math.max(y1, p[2])
      end
    end
  end
  if x0 > x1 then error(fname .. ": no finite point to plot (every value is NaN or infinite)", level) end
  return x0, x1, y0, y1
end

-- ---- ticks -------------------------------------------------------------------------------------

-- round tick positions inside [lo, hi]: multiples of a step of 1, 2 or 5 times a power of ten
-- giving about `target` intervals over the range
local function nice_ticks(lo, hi, target)
  local raw = (hi - lo) / target
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag * 10
  for _, m in ipairs { 1, 2, 5, 10 } do
    if m * mag >= raw * (1 - 1e-9) then
      step = m * mag
      break
    end
  end
  local ticks = {}
  for k = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9) do ticks[#ticks + 1] = k * step end
  return ticks, step
end

-- the axis' range for data from lo to hi: widened around a single value; pad: a fraction of
-- the range added at both ends
local function axis_range(lo, hi, pad)
  if lo == hi then
    local d = lo == 0 and 1 or math.abs(lo) * 0.1
    return lo - d, hi + d
  end
  local d = (hi - lo) * pad
  return lo - d, hi + d
end
plot._nice_ticks = nice_ticks

-- a tick's label: as many decimals as the step needs, %g for very large or small numbers
local function tick_label(v, step)
  if math.abs(v) < step * 1e-9 then v = 0 end
  local s
  if step >= 1e6 or step < 1e-4 then
    s = ("%.4g"):format(v)
  else
    local d = math.max(0, -math.floor(math.log(step, 10) + 1e-9))
    s = ("%." .. d .. "f"):format(v)
  end
  if s:match("^%-0%.?0*$") then s = s:sub(2) end
  return s
end
plot._tick_label = tick_label

-- ---- SVG ---------------------------------------------------------------------------------------

-- text for XML: the five special characters escaped; control characters and bytes that are not
-- UTF-8 replaced, so that the document stays well-formed whatever a name holds
local function escape(s)
  s = tostring(s)
  if not utf8.len(s) then s = s:gsub("[\128-\255]", "?") end
  s = s:gsub("[%z\1-\8\11\12\14-\31\127]", "?")
  return (s:gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&apos;" }))
end
plot._escape = escape

local function num(v) return (("%.2f"):format(v):gsub("%.?0+$", "")) end

local svg_spec = { title = "str", xlabel = "str", ylabel = "str", width = "int", height = "int" }
local curves_spec = { title = "str", xlabel = "str", ylabel = "str", width = "int", height = "int", gnuplot = "str" }

-- the SVG text of prepared series (errors at the level of render's caller's caller)
local function render(list, o, fname)
  local x0, x1, y0, y1 = extent(list, 4, fname)
  local W, H = o.width, o.height
  if W < 100 or H < 80 then error(fname .. ": width must be >= 100 and height >= 80", 3) end
  local longest = 0
  for _, s in ipairs(list) do longest = math.max(longest, utf8.len(s.name) or #s.name) end
  local left, right = o.ylabel and 78 or 60, 44 + math.min(longest, 40) * 7
  local top, bottom = o.title and 36 or 16, o.xlabel and 52 or 34
  local pw, ph = W - left - right, H - top - bottom
  if pw < 20 or ph < 20 then error(fname .. ": the chart is too small for its labels", 3) end
  -- x spans the data, y the data and 5% more at each end; ticks at round numbers inside
  local xa, xb = axis_range(x0, x1, 0)
  local ya, yb = axis_range(y0, y1, 0.05)
  local xt, xstep = nice_ticks(xa, xb, math.max(2, math.floor(pw / 60)))
  local yt, ystep = nice_ticks(ya, yb, math.max(2, math.floor(ph / 50)))
  local function px(v) return left + (v - xa) / (xb - xa) * pw end
  local function py(v) return top + ph - (v - ya) / (yb - ya) * ph end

  local out = {}
  local function add(s, ...) out[#out + 1] = select("#", ...) > 0 and s:format(...) or s end
  add('<?xml version="1.0" encoding="UTF-8"?>')
  add('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
    .. 'font-family="sans-serif" font-size="12">', W, H, W, H)
  add('<rect width="%d" height="%d" fill="white"/>', W, H)
  if o.title then
    add('<text class="title" x="%s" y="22" text-anchor="middle" font-size="15">%s</text>', num(left + pw / 2),
      escape(o.title))
  end
  -- grid, frame, ticks and their labels
  add('<g class="grid" stroke="#e6e6e6" stroke-width="1">')
  local line = '<line x1="%s" y1="%s" x2="%s" y2="%s"/>'
  for _, v in ipairs(xt) do add(line, num(px(v)), num(top), num(px(v)), num(top + ph)) end
  for _, v in ipairs(yt) do add(line, num(left), num(py(v)), num(left + pw), num(py(v))) end
  add('</g>')
  add('<rect class="frame" x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#333333"/>', num(left), num(top),
    num(pw), num(ph))
  add('<g class="xticks" text-anchor="middle">')
  for _, v in ipairs(xt) do
    add('<text class="xtick" x="%s" y="%s">%s</text>', num(px(v)), num(top + ph + 16), escape(tick_label(v, xstep)))
  end
  add('</g>')
  add('<g class="yticks" text-anchor="end">')
  for _, v in ipairs(yt) do
    add('<text class="ytick" x="%s" y="%s">%s</text>', num(left - 6), num(py(v) + 4), escape(tick_label(v, ystep)))
  end
  add('</g>')
  if o.xlabel then
    add('<text class="xlabel" x="%s" y="%s" text-anchor="middle">%s</text>', num(left + pw / 2), num(H - 12),
      escape(o.xlabel))
  end
  if o.ylabel then
    add('<text class="ylabel" x="16" y="%s" text-anchor="middle" transform="rotate(-90 16 %s)">%s</text>',
      num(top + ph / 2), num(top + ph / 2), escape(o.ylabel))
  end
  -- the series: a polyline per unbroken run of points, a dot for a lone point
  for _, s in ipairs(list) do
    add('<g class="series" data-name="%s" stroke="%s" fill="none" stroke-width="1.8" stroke-linejoin="round">',
      escape(s.name), escape(s.color))
    for _, seg in ipairs(s.segments) do
      if #seg == 1 then
        add('<circle cx="%s" cy="%s" r="3" fill="%s" stroke="none"/>', num(px(seg[1][1])), num(py(seg[1][2])),
          escape(s.color))
      else
        local pts = {}
        for i, p in ipairs(seg) do pts[i] = num(px(p[1])) .. "," .. num(py(p[2])) end
        add('<polyline points="%s"/>', table.concat(pts, " "))
      end
    end
    add('</g>')
  end
  -- the legend, right of the chart
  add('<g class="legend">')
  for k, s in ipairs(list) do
    local yk = top + 8 + (k - 1) * 18
    add('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2.5"/>', num(left + pw + 12), num(yk),
      num(left + pw + 32), num(yk), escape(s.color))
    add('<text class="legend-label" x="%s" y="%s">%s</text>', num(left + pw + 38), num(yk + 4), escape(s.name))
  end
  add('</g>')
  add('</svg>')
  return table.concat(out, "\n") .. "\n"
end

-- svg(series, {title=, xlabel=, ylabel=, width=640, height=400}): the chart as SVG text
function plot.svg(series, opts)
  local o = args.options("plot.svg", opts, svg_spec, { width = 640, height = 400 })
  local text = render(prepare(series, "plot.svg()"), o, "plot.svg()") -- (no tail call: errors point at the caller)
  return text
end

-- ---- PNG through gnuplot -----------------------------------------------------------------------

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
-- a gnuplot single-quoted string (a quote inside is doubled; a line break would end it)
local function gp_quote(s) return "'" .. tostring(s):gsub("[\r\n]", " "):gsub("'", "''") .. "'" end

-- whether `prog` (a command name or a path) can be run
local function have(prog)
  return os.execute("command -v " .. shell_quote(prog) .. " >/dev/null 2>&1") == true
end

local function write_png(list, path, o)
  local prog = o.gnuplot or "gnuplot"
  if not have(prog) then
    error(("plot.curves(): writing %s (a PNG) needs gnuplot, which is not installed (`command -v %s` finds "
      .. "nothing); install gnuplot, or write an .svg file, which needs nothing"):format(path, prog), 3)
  end
  local tmp = {}
  local function tmpfile(contents)
    local name = os.tmpname()
    tmp[#tmp + 1] = name
    local f = assert(io.open(name, "w"))
    f:write(contents)
    f:close()
    return name
  end
  local plots = {}
  for _, s in ipairs(list) do
    if #s.segments > 0 then
      local lines, lone = {}, false
      for k, seg in ipairs(s.segments) do
        if k > 1 then lines[#lines + 1] = "" end -- one blank line: gnuplot breaks the line there
        if #seg == 1 then lone = true end
        for _, p in ipairs(seg) do lines[#lines + 1] = ("%.17g %.17g"):format(p[1], p[2]) end
      end
      local data = tmpfile(table.concat(lines, "\n") .. "\n")
      plots[#plots + 1] = ("%s with %s lw 2 lc rgb %s title %s"):format(gp_quote(data),
        lone and "linespoints pt 7 ps 0.6" or "lines", gp_quote(s.color), gp_quote(s.name))
    end
  end
  local script = {
    ("set terminal png size %d,%d"):format(o.width, o.height),
    "set termoption noenhanced",
    "set output " .. gp_quote(path),
    "set key outside right top",
    "set grid",
  }
  if o.title then script[#script + 1] = "set title " .. gp_quote(o.title) end
  if o.xlabel then script[#script + 1] = "set xlabel " .. gp_quote(o.xlabel) end
  if o.ylabel then script[#script + 1] = "set ylabel " .. gp_quote(o.ylabel) end
  script[#script + 1] = "plot " .. table.concat(plots, ", \\\n  ")
  script[#script + 1] = "set output"
  local sfile = tmpfile(table.concat(script, "\n") .. "\n")
  local p = io.popen(shell_quote(prog) .. " " .. shell_quote(sfile) .. " 2>&1")
  local said = p:read("a")
  local ok, _, code = p:close()
  for _, name in ipairs(tmp) do os.remove(name) end
  if not ok then
    error(("plot.curves(): gnuplot failed (exit status %s) writing %s: %s"):format(tostring(code), path,
      said:gsub("%s+$", "")), 3)
  end
end

-- curves(series, path, {title=, xlabel=, ylabel=, width=640, height=400, gnuplot="gnuplot"}):
-- the chart written to path: SVG for .svg, PNG through gnuplot for .png. Returns path.
function plot.curves(series, path, opts)
  if type(path) ~= "string" then error("plot.curves(): path must be a string, not " .. args.py_type(path), 2) end
  local o = args.options("plot.curves", opts, curves_spec, { width = 640, height = 400 })
  local ext = path:lower():match("%.(%w+)$")
  if ext == "svg" then
    local text = render(prepare(series, "plot.curves()"), o, "plot.curves()")
    local f, err = io.open(path, "w")
    if not f then error("plot.curves(): cannot write " .. path .. ": " .. tostring(err), 2) end
    f:write(text)
    f:close()
  elseif ext == "png" then
    local list = prepare(series, "plot.curves()")
    extent(list, 3, "plot.curves()")
    write_png(list, path, o)
  else
    error(("plot.curves(): cannot tell the format of %s: the path must end in .svg (written directly) or .png "
      .. "(through gnuplot)"):format(path), 2)
  end
  return path
end

return plot
