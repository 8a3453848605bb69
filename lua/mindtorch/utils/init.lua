-- mindtorch.utils: torch.utils: data loading (loaded with it), and on first use benchmark
-- (a clock and Timer), progress (a progress bar for loops) and plot (curves as SVG or PNG).
local utils = { data = require("mindtorch.utils.data") }
local lazy = { benchmark = "mindtorch.utils.benchmark", progress = "mindtorch.utils.progress",
  plot = "mindtorch.utils.plot" }
return setmetatable(utils, {
  __index = function(t, k)
    if not lazy[k] then return nil end
    local m = require(lazy[k])
    rawset(t, k, m)
    return m
  end,
})
