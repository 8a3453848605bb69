-- nn.Embedding and F.embedding against PyTorch (cases/embedding.py); indices are PyTorch's
-- plus one.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn, F = torch.nn, torch.nn.functional

local D = torch.float64
local IDX = torch.tensor({ { 1, 3, 3, 4 }, { 4, 2, 3, 1 } })

local function weight()
  return (torch.arange(15, { dtype = D }):reshape(5, 3) * 0.37):sin():mul(2):requires_grad_()
end

local function run(o)
  local w = weight()
  local out = F.embedding(IDX, w, o or {})
  ;(out * (torch.arange(out:numel(), { dtype = D }):reshape(out.shape) * 0.29):cos()):sum():backward()
  return { out:detach(), w.grad, w:detach() }
end

local function tol(fn) return { fn, tol = 1e-12 } end

H.run("embedding", {
  plain = tol(function() return run() end),
  padding = tol(function() return run({ padding_idx = 3 }) end),
  padding_negative = tol(function() return run({ padding_idx = -2 }) end),
  max_norm = tol(function() return run({ max_norm = 1.5 }) end),
  max_norm_p1 = tol(function() return run({ max_norm = 2.0, norm_type = 1.0 }) end),
  scale_grad_by_freq = tol(function() return run({ scale_grad_by_freq = true }) end),
  scale_padding = tol(function() return run({ scale_grad_by_freq = true, padding_idx = 4 }) end),
  from_pretrained = tol(function() return nn.Embedding.from_pretrained(weight():detach(), { padding_idx = 2 })(IDX) end),
  from_pretrained_frozen = function() return nn.Embedding.from_pretrained(weight():detach()).weight.requires_grad end,
  from_pretrained_trainable = function()
    return nn.Embedding.from_pretrained(weight():detach(), { freeze = false }).weight.requires_grad
  end,
  repr_all = function()
    return tostring(nn.Embedding(5, 3, { max_norm = 1.0, norm_type = 3.0, scale_grad_by_freq = true, sparse = true }))
  end,
  int32_indices = tol(function() return F.embedding(IDX:int(), weight():detach()) end),
  error_indices_byte = function() return F.embedding(IDX:byte(), weight()) end,
  error_indices_float = function() return F.embedding(IDX:double(), weight()) end,
  error_module_indices_short = function() return nn.Embedding(5, 3)(IDX:short()) end,
  error_padding = function() return F.embedding(IDX, weight(), { padding_idx = 6 }) end,
  error_weight_shape = function() return nn.Embedding(5, 3, { _weight = torch.zeros(4, 3) }) end,
  error_pretrained_dims = function() return nn.Embedding.from_pretrained(torch.zeros(3)) end,
})
