-- startup: the cost of `require "mindtorch"` in a plain lua5.4 (wall time, resident memory).
local torch = require "mindtorch"
local B = dofile("bench/common.lua")

local env = B.capture("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory lua-env BUILD=" .. (os.getenv("BUILD") or "build"))
local function wall(code, reps)
  local times = {}
  for _ = 1, reps do
    local t0 = torch._monotonic()
    os.execute(env:gsub("\n", "; ") .. " lua5.4 -e '" .. code .. "' >/dev/null")
    times[#times + 1] = torch._monotonic() - t0
  end
  return B.median(times)
end

local rss = [[local function rss() for l in io.lines("/proc/self/status") do local v = l:match("^VmRSS:%s+(%d+)") if v then return tonumber(v) end end end]]
local base = wall("", 11)
local with = wall('require "mindtorch"', 11)
B.result("startup_time", (with - base) * 1000, "ms")
local out = B.capture(env:gsub("\n", "; ") .. " lua5.4 -e '" .. rss .. ' local r0 = rss(); require "mindtorch"; print(rss() - r0, rss())' .. "'")
local delta, total = out:match("(%d+)%s+(%d+)")
B.result("startup_rss_added", tonumber(delta) / 1024, "MiB")
B.result("startup_rss_total", tonumber(total) / 1024, "MiB")
