-- error_loop.lua [N]: N rounds of ops that raise errors inside the C core (shape and dtype
-- mismatches, bad indices, autograd misuse, overflowing geometry, a shrunk storage, a missing
-- device): run under valgrind by tests/lua/valgrind_errors_spec.lua, every error path must leave
-- no invalid access and no leak.
local torch = require "mindtorch"
local nn = torch.nn
local a, b = torch.ones(3, 4), torch.ones(5)
local calls = {
  function() return a + b end,
  function() return a:mm(a) end,
  function() return a:view(7) end,
  function() return a[10] end,
  function() return a:index_select(1, torch.tensor { 9 }) end,
  function() return a:gather(2, torch.tensor { { 7 } }) end,
  function() return torch.cat({ a, b }) end,
  function() return a:sum(5) end,
  function() return torch.zeros(2, { dtype = torch.int64 }):requires_grad_() end,
  function() local w = torch.ones(3, { requires_grad = true }); w:add_(1) end,
  function() local x = torch.ones(2, { requires_grad = true }); local y = x * 2; y:backward() end,
  function() return nn.Linear(4, 2)(torch.ones(3, 5)) end,
  function() return nn.functional.cross_entropy(torch.ones(2, 3), torch.tensor { 0, 4 }) end,
  function() return a:as_strided({ 4 }, { 1 }, 100) end,
  function() return torch.ones(2):expand(1 << 62, 3) end,
  function() local t = torch.ones(4); t:untyped_storage():resize_(0); return t:sum() end,
  function() return a:index_copy_(2, torch.tensor { 1 }, torch.ones(9, 1)) end,
  function() return torch.tensor { 1, "x" } end,
  function() return a:to("npu") end,
  function() return torch.tensor({ { 1.0, 2.0 }, { 2.0, 1.0 } }):cholesky() end, -- not positive-definite
}
local errors = 0
for i = 1, tonumber(arg and arg[1] or 200) do
  for _, f in ipairs(calls) do
    local ok = pcall(f)
    if not ok then errors = errors + 1 end
  end
end
print("errors raised", errors)
