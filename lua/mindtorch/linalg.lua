-- torch.linalg: PyTorch 1.13's linear algebra. Its functions are ops declared under their ATen
-- names (linalg_<name>, src/ops/linalg_lapack.lua); this table names them without the prefix,
-- as PyTorch's torch.linalg does. matmul and diagonal are declared there too (linalg_matmul,
-- linalg_diagonal) with torch.linalg's own defaults.
local torch = require "mindtorch"

local linalg = {}
for name, fn in pairs(torch) do
  local short = type(name) == "string" and name:match("^linalg_(.+)$")
  if short then linalg[short] = fn end
end

return linalg
