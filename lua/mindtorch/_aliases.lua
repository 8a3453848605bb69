-- _aliases.lua: PyTorch's other names for existing ops (absolute for abs, multiply for mul,
-- greater for gt ...), with the variants PyTorch 1.13 gives each name: the same overloads as
-- the target's, their errors naming the alias (torch._op_alias, src/lua/lmt_ops.c).
local torch = require "mindtorch"
local Tensor = torch.Tensor

-- alias = { target, the function names PyTorch has, the method names PyTorch has }; an
-- in-place name ("absolute_") aliases the target's in-place op ("abs_")
local ALIASES = {
  absolute = { "abs", { "absolute" }, { "absolute", "absolute_" } },
  arccos = { "acos", { "arccos", "arccos_" }, { "arccos", "arccos_" } },
  arccosh = { "acosh", { "arccosh", "arccosh_" }, { "arccosh", "arccosh_" } },
  arcsin = { "asin", { "arcsin", "arcsin_" }, { "arcsin", "arcsin_" } },
  arcsinh = { "asinh", { "arcsinh", "arcsinh_" }, { "arcsinh", "arcsinh_" } },
  arctan = { "atan", { "arctan", "arctan_" }, { "arctan", "arctan_" } },
  arctan2 = { "atan2", { "arctan2" }, { "arctan2", "arctan2_" } },
  arctanh = { "atanh", { "arctanh", "arctanh_" }, { "arctanh", "arctanh_" } },
  multiply = { "mul", { "multiply" }, { "multiply", "multiply_" } },
  divide = { "div", { "divide" }, { "divide", "divide_" } },
  subtract = { "sub", { "subtract" }, { "subtract", "subtract_" } },
  greater = { "gt", { "greater" }, { "greater", "greater_" } },
  greater_equal = { "ge", { "greater_equal" }, { "greater_equal", "greater_equal_" } },
  less = { "lt", { "less" }, { "less", "less_" } },
  less_equal = { "le", { "less_equal" }, { "less_equal", "less_equal_" } },
  not_equal = { "ne", { "not_equal" }, { "not_equal", "not_equal_" } },
  negative = { "neg", { "negative", "negative_" }, { "negative", "negative_" } },
  fix = { "trunc", { "fix", "fix_" }, { "fix", "fix_" } },
}

for _, spec in pairs(ALIASES) do
  local target = spec[1]
  for _, name in ipairs(spec[2]) do
    local t = name:sub(-1) == "_" and target .. "_" or target
    if torch[name] == nil then torch[name] = torch._op_alias(name, t, false) end
  end
  for _, name in ipairs(spec[3]) do
    local t = name:sub(-1) == "_" and target .. "_" or target
    if Tensor[name] == nil then Tensor[name] = torch._op_alias(name, t, true) end
  end
end

return torch
