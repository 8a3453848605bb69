-- torch.utils.plot: curves as SVG (well-formed XML, one group per series, a polyline per unbroken
-- run of points, round tick labels, escaped text, a legend), the refusals, and PNG through
-- gnuplot (a stand-in gnuplot checks the script; the real one when installed).
local torch = require "mindtorch"
local plot = torch.utils.plot
local files = require "tests.lua.support.files"

local function sh_ok(cmd) return os.execute(cmd .. " >/dev/null 2>&1") == true end

-- whether the file is well-formed XML (xmllint, else Python's minidom); nil when neither runs
local function well_formed(path)
  if sh_ok("command -v xmllint") then return sh_ok("xmllint --noout '" .. path .. "'") end
  if sh_ok("command -v python3") then
    return sh_ok("python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' '" .. path .. "'")
  end
end

local function count(s, pat)
  local n = 0
  for _ in s:gmatch(pat) do n = n + 1 end
  return n
end

-- the series groups of an SVG: {name =, polylines = {point counts}, dots =}
local function series_of(svg)
  local out = {}
  for name, body in svg:gmatch('<g class="series" data%-name="([^"]*)"[^>]*>(.-)</g>') do
    local s = { name = name, polylines = {}, dots = count(body, "<circle ") }
    for pts in body:gmatch('<polyline points="([^"]*)"') do s.polylines[#s.polylines + 1] = count(pts, "[^ ]+") end
    out[#out + 1] = s
  end
  return out
end

describe("torch.utils.plot", function()
  local path = os.tmpname() .. ".svg"
  after_each(function() os.remove(path) end)

  it("writes curves as a well-formed SVG: a group per series, NaN and inf breaking the line", function()
    local nan, inf = 0 / 0, math.huge
    local ret = plot.curves({
      { name = "train loss", y = { 2.3, 1.2, 0.8, nan, 0.5, 0.45, inf, 0.3 } },
      { name = "val loss", x = { 2, 4, 6, 8 }, y = torch.tensor { 1.5, 0.9, 0.7, 0.6 } },
    }, path, { title = "MNIST", xlabel = "epoch", ylabel = "loss" })
    assert.are.equal(path, ret)
    local ok = well_formed(path)
    if ok ~= nil then assert.is_true(ok) end
    local svg = files.read(path)
    assert.truthy(svg:find('^<%?xml version="1.0" encoding="UTF%-8"%?>\n<svg xmlns="http://www.w3.org/2000/svg"'))
    local s = series_of(svg)
    assert.are.equal(2, #s)
    assert.are.same({ name = "train loss", polylines = { 3, 2 }, dots = 1 }, s[1]) -- 0.3 stands alone
    assert.are.same({ name = "val loss", polylines = { 4 }, dots = 0 }, s[2])
    for _, label in ipairs { ">MNIST</text>", 'class="xlabel"[^>]*>epoch</text>', 'class="ylabel"[^>]*>loss</text>',
      'class="legend%-label"[^>]*>train loss</text>', 'class="legend%-label"[^>]*>val loss</text>' } do
      assert.truthy(svg:find(label), label)
    end
    -- one colour per series
    assert.truthy(svg:find('data%-name="train loss" stroke="#1f77b4"'))
    assert.truthy(svg:find('data%-name="val loss" stroke="#ff7f0e"'))
  end)

  it("puts ticks at round numbers inside the data's range", function()
    local svg = plot.svg { { name = "acc", y = { 0.113, 0.52, 0.874, 0.951 } } }
    local xt, yt = {}, {}
    for v in svg:gmatch('class="xtick"[^>]*>([^<]*)<') do xt[#xt + 1] = v end
    for v in svg:gmatch('class="ytick"[^>]*>([^<]*)<') do yt[#yt + 1] = v end
    assert.are.same({ "1.0", "1.5", "2.0", "2.5", "3.0", "3.5", "4.0" }, xt)
    assert.are.same({ "0.2", "0.4", "0.6", "0.8" }, yt)
    local t, step = plot._nice_ticks(0.001, 0.0093, 5)
    assert.are.equal(0.002, step)
    assert.are.equal(4, #t)
    assert.are.equal("0.004", plot._tick_label(t[2], step))
    assert.are.equal("0.0", plot._tick_label(-1e-17, 0.5)) -- never "-0.0"
    assert.are.equal("0", plot._tick_label(-0.0, 1))
    assert.are.equal("2.5e+07", plot._tick_label(2.5e7, 5e6))
  end)

  it("escapes text, draws a one-point series as a dot and widens a flat range", function()
    local svg = plot.svg({ { name = "a<b> & \"c\" 'd'", y = { 3 } } }, { title = "x & y < z\1" })
    assert.truthy(svg:find('data-name="a&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;"', 1, true))
    assert.truthy(svg:find(">x &amp; y &lt; z?</text>", 1, true))
    assert.are.same({ { name = "a&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;", polylines = {}, dots = 1 } },
      series_of(svg))
    local f = assert(io.open(path, "w"))
    f:write(svg)
    f:close()
    local ok = well_formed(path)
    if ok ~= nil then assert.is_true(ok) end
    assert.truthy(svg:find('class="ytick"[^>]*>3.0<'))
  end)

  it("refuses what cannot be drawn, with clear messages", function()
    assert.has_error(function() plot.curves({ { name = "loss", y = {} } }, path) end,
      'plot.curves(): series 1 ("loss") has no points')
    assert.has_error(function() plot.curves({}, path) end, "plot.curves(): expects a non-empty list of series")
    assert.has_error(function() plot.curves({ { y = { 0 / 0, math.huge } } }, path) end,
      "plot.curves(): no finite point to plot (every value is NaN or infinite)")
    assert.has_error(function() plot.curves({ { name = "a", y = { 1, 2 }, x = { 1 } } }, path) end,
      'plot.curves(): series 1 ("a") has 1 x values for 2 y values')
    assert.has_error(function() plot.curves({ { y = { 1, "2" } } }, path) end,
      'plot.curves(): series 1 ("series 1").y[2] is a str, not a number')
    assert.has_error(function() plot.curves({ { y = torch.zeros(2, 2) } }, path) end,
      'plot.curves(): series 1 ("series 1").y must be 1-D, got a 2-D tensor')
    assert.has_error(function() plot.svg { { y = { 1 / 0 } } } end,
      "plot.svg(): no finite point to plot (every value is NaN or infinite)")
    assert.has_error(function() plot.svg({ { y = { 1 } } }, { width = 50 }) end,
      "plot.svg(): width must be >= 100 and height >= 80")
    assert.has_error(function() plot.curves({ { y = { 1 } } }, "curve.pdf") end,
      "plot.curves(): cannot tell the format of curve.pdf: the path must end in .svg (written directly) or .png "
      .. "(through gnuplot)")
    assert.has_error(function() plot.curves({ { y = { 1 } } }, path, { colour = 1 }) end,
      "plot.curves() got an unexpected keyword argument 'colour'")
    assert.has_error(function() plot.curves({ { y = { 1 } } }, "x.png", { gnuplot = "/nonexistent/gnuplot" }) end,
      "plot.curves(): writing x.png (a PNG) needs gnuplot, which is not installed (`command -v /nonexistent/gnuplot` "
      .. "finds nothing); install gnuplot, or write an .svg file, which needs nothing")
  end)

  it("writes a PNG through gnuplot: the script it is given (a stand-in gnuplot)", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(sh_ok("mkdir '" .. dir .. "'"))
    local fake = dir .. "/gnuplot"
    -- keeps the script and the first data file, and fails when asked to
    files.write(fake, "#!/bin/sh\ncp \"$1\" '" .. dir .. "/script'\n"
      .. "f=$(sed -n \"s/^plot '\\([^']*\\)'.*/\\1/p\" \"$1\")\ncp \"$f\" '" .. dir .. "/data'\n"
      .. "grep -q FAIL \"$1\" && { echo 'gnuplot: bad'; exit 3; }\nexit 0\n")
    assert(sh_ok("chmod +x '" .. fake .. "'"))
    local png = dir .. "/it's.png"
    plot.curves({ { name = "train", y = { 1, 0.5, 0 / 0, 0.25, 0.125 } }, { name = "val", y = { 0.9 } } }, png,
      { title = "a 'b'", xlabel = "epoch", gnuplot = fake })
    local script = files.read(dir .. "/script")
    assert.truthy(script:find("set terminal png size 640,400\n", 1, true))
    assert.truthy(script:find("set output '" .. dir .. "/it''s.png'\n", 1, true), script)
    assert.truthy(script:find("set title 'a ''b'''\n", 1, true))
    assert.truthy(script:find("set xlabel 'epoch'\n", 1, true))
    assert.is_nil(script:find("set ylabel"))
    assert.truthy(script:find("with lines lw 2 lc rgb '#1f77b4' title 'train'", 1, true))
    assert.truthy(script:find("with linespoints pt 7 ps 0.6 lw 2 lc rgb '#ff7f0e' title 'val'", 1, true))
    -- a blank line where the NaN was: gnuplot breaks the line there
    assert.are.equal("1 1\n2 0.5\n\n4 0.25\n5 0.125\n", files.read(dir .. "/data"))
    local data_file = script:match("^.-\nplot '([^']*)'")
    assert.is_nil(io.open(data_file)) -- the temporary files are removed
    assert.has_error(function()
      plot.curves({ { y = { 1, 2 } } }, dir .. "/x.png", { title = "FAIL", gnuplot = fake })
    end, "plot.curves(): gnuplot failed (exit status 3) writing " .. dir .. "/x.png: gnuplot: bad")
    os.execute("rm -rf '" .. dir .. "'")
  end)

  it("writes a PNG with the real gnuplot", function()
    if not sh_ok("command -v gnuplot") then pending("gnuplot is not installed") return end
    local png = os.tmpname() .. ".png"
    plot.curves({ { name = "loss", y = { 3, 2, 1.5, 1.2 } } }, png, { title = "loss", xlabel = "epoch" })
    local bytes = files.read(png)
    os.remove(png)
    assert.are.equal("\137PNG\r\n\26\n", bytes:sub(1, 8))
  end)
end)
