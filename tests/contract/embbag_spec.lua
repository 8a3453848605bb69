-- nn.EmbeddingBag, F.embedding_bag, torch.embedding_bag, LocalResponseNorm, CrossMapLRN2d and
-- torch.ctc_loss against PyTorch (cases/embbag.py). Indices, offsets, padding_idx, offset2bag,
-- max-mode max_indices, CTC labels and blank are PyTorch's plus one.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn, F = torch.nn, torch.nn.functional

local D = torch.float64
local IDX = torch.tensor({ 1, 3, 3, 5, 4, 2, 3, 1 })
local OFFS = torch.tensor({ 1, 4, 4, 6 })
local OFFS_LAST = torch.tensor({ 1, 4, 4, 6, 9 })
local IDX2 = torch.tensor({ { 1, 3, 3, 4 }, { 4, 2, 3, 1 }, { 5, 5, 2, 3 } })

local function weight()
  return (torch.arange(15, { dtype = D }):reshape(5, 3) * 0.37):sin():mul(2):requires_grad_()
end
local function psw(n) return (torch.arange(n or 8, { dtype = D }) * 0.61 + 0.3):cos():requires_grad_() end
local function cosw(out) return (torch.arange(out:numel(), { dtype = D }):reshape(out.shape) * 0.29):cos() end

-- run(input, offsets, with_psw, options)
local function run(inp, offsets, with_psw, o)
  inp = inp or IDX
  local w = weight()
  local p = with_psw and psw(inp:numel()):reshape(inp.shape):detach():requires_grad_() or nil
  o = o or {}
  o.offsets, o.per_sample_weights = offsets, p
  local out = F.embedding_bag(inp, w, o)
  ;(out * cosw(out)):sum():backward()
  local res = { out:detach(), w.grad, w:detach() }
  if with_psw then res[4] = p.grad end
  return res
end

local function aten(mode, offsets, include_last_offset, padding_idx)
  return { torch.embedding_bag(weight():detach(), IDX, offsets or OFFS, false, mode, false, nil,
    include_last_offset or false, padding_idx) }
end

local function x_lrn(...)
  local shape = { ... }
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  return (torch.arange(n, { dtype = D }):reshape(shape) * 0.53):sin():mul(1.7):requires_grad_()
end
local function lrn(shape, size, o)
  local x = x_lrn(table.unpack(shape))
  local out = F.local_response_norm(x, size, o or {})
  ;(out * cosw(out)):sum():backward()
  return { out:detach(), x.grad }
end
local function cross(shape, size, ...)
  local x = x_lrn(table.unpack(shape))
  local out = nn.CrossMapLRN2d(size, ...)(x)
  ;(out * cosw(out)):sum():backward()
  return { out:detach(), x.grad }
end

local function log_probs()
  return (torch.arange(5 * 2 * 4, { dtype = D }):reshape(5, 2, 4) * 0.71):sin():log_softmax(3):detach()
    :requires_grad_()
end
local CTC_T = torch.tensor({ { 2, 3 }, { 3, 2 } })
local function ctc(...)
  local lp = log_probs()
  local out = torch.ctc_loss(lp, CTC_T, { 5, 4 }, { 2, 2 }, ...)
  out:sum():backward()
  return { out:detach(), lp.grad }
end

local function module_run()
  torch.manual_seed(3)
  local m = nn.EmbeddingBag(5, 3, { mode = "sum", padding_idx = 2 })
  local out = m(IDX, OFFS, psw():detach():float())
  out:sum():backward()
  return { m.weight:detach(), out:detach(), m.weight.grad }
end

local function tol(fn) return { fn, tol = 1e-12 } end
local function tol32(fn) return { fn, tol = 1e-6 } end
-- PyTorch's 0-based numbers in a message, as Lua's
local function offsets_first(msg)
  return msg:gsub("offsets%[0%] has to be 0", "offsets[1] has to be 1"):gsub("position 0", "position 1")
    :gsub("got (%d+)\n.*$", function(n) return "got " .. (tonumber(n) + 1) end)
end
local function offsets_last(msg)
  return msg:gsub("length (%d+) but got offsets%[%-1%] of (%d+)", function(len, v)
    return ("length %s plus 1 but got offsets[-1] of %d"):format(len, tonumber(v) + 1)
  end)
end
local function padding_range(msg)
  return msg:gsub("through (%d+), but got (%-?%d+)", function(hi, v)
    v = tonumber(v)
    return ("through %d, but got %d"):format(tonumber(hi) + 1, v >= 0 and v + 1 or v)
  end)
end

H.run("embbag", {
  sum = tol(function() return run(nil, OFFS, false, { mode = "sum" }) end),
  mean = tol(function() return run(nil, OFFS) end),
  max = tol(function() return run(nil, OFFS, false, { mode = "max" }) end),
  sum_2d = tol(function() return run(IDX2, nil, false, { mode = "sum" }) end),
  mean_2d = tol(function() return run(IDX2, nil) end),
  max_2d = tol(function() return run(IDX2, nil, false, { mode = "max" }) end),
  sum_last = tol(function() return run(nil, OFFS_LAST, false, { include_last_offset = true, mode = "sum" }) end),
  mean_last = tol(function() return run(nil, OFFS_LAST, false, { include_last_offset = true }) end),
  max_last = tol(function() return run(nil, OFFS_LAST, false, { include_last_offset = true, mode = "max" }) end),
  sum_padding = tol(function() return run(nil, OFFS, false, { mode = "sum", padding_idx = 3 }) end),
  mean_padding = tol(function() return run(nil, OFFS, false, { padding_idx = 3 }) end),
  max_padding = tol(function() return run(nil, OFFS, false, { mode = "max", padding_idx = 3 }) end),
  mean_padding_negative = tol(function() return run(nil, OFFS, false, { padding_idx = -3 }) end),
  mean_padding_2d = tol(function() return run(IDX2, nil, false, { padding_idx = 5 }) end),
  psw = tol(function() return run(nil, OFFS, true, { mode = "sum" }) end),
  psw_padding = tol(function() return run(nil, OFFS, true, { mode = "sum", padding_idx = 1 }) end),
  psw_2d = tol(function() return run(IDX2, nil, true, { mode = "sum" }) end),
  psw_last = tol(function() return run(nil, OFFS_LAST, true, { include_last_offset = true, mode = "sum" }) end),
  max_norm_sum = tol(function() return run(nil, OFFS, false, { mode = "sum", max_norm = 1.2 }) end),
  max_norm_max = tol(function() return run(nil, OFFS, false, { mode = "max", max_norm = 1.5, norm_type = 1.0 }) end),
  scale_sum = tol(function() return run(nil, OFFS, false, { mode = "sum", scale_grad_by_freq = true }) end),
  scale_mean_padding = tol(function() return run(nil, OFFS, false, { scale_grad_by_freq = true, padding_idx = 3 }) end),
  empty_input = tol(function()
    return run(torch.tensor({}, { dtype = torch.int64 }), torch.tensor({ 1, 1, 1 }), false, { mode = "max" })
  end),
  empty_input_mean = tol(function()
    return run(torch.tensor({}, { dtype = torch.int64 }), torch.tensor({ 1, 1 }))
  end),
  trailing_empty = tol(function() return run(nil, torch.tensor({ 1, 4, 9 })) end),
  int32 = tol(function()
    return F.embedding_bag(IDX:int(), weight():detach(), OFFS:int(), { mode = "sum" })
  end),
  aten_sum = tol(function() return aten(0) end),
  aten_mean = tol(function() return aten(1) end),
  aten_max = tol(function() return aten(2) end),
  aten_sum_padding = tol(function() return aten(0, nil, false, 3) end),
  aten_mean_padding = tol(function() return aten(1, nil, false, 3) end),
  aten_max_padding = tol(function() return aten(2, nil, false, 3) end),
  aten_sum_last = tol(function() return aten(0, OFFS_LAST, true) end),
  aten_max_last = tol(function() return aten(2, OFFS_LAST, true) end),
  aten_sum_float32 = tol32(function()
    return { torch.embedding_bag(weight():detach():float(), IDX, OFFS, { mode = 0 }) }
  end),
  module_default_init = function()
    torch.manual_seed(0)
    return nn.EmbeddingBag(5, 3).weight:detach()
  end,
  module_run = tol32(module_run),
  module_2d = tol(function() return nn.EmbeddingBag(5, 3, { mode = "max", _weight = weight():detach() })(IDX2) end),
  module_last = tol(function()
    return nn.EmbeddingBag(5, 3, { _weight = weight():detach(), include_last_offset = true })(IDX, OFFS_LAST)
  end),
  module_state_dict = function()
    local keys = {}
    for k in pairs(nn.EmbeddingBag(5, 3):state_dict()) do keys[#keys + 1] = k end
    return keys
  end,
  module_mode = function() return nn.EmbeddingBag(5, 3).mode end,
  module_padding_negative = function() return nn.EmbeddingBag(5, 3, { padding_idx = -2 }).padding_idx end,
  repr_default = function() return tostring(nn.EmbeddingBag(5, 3)) end,
  repr_all = function() -- padding_idx printed 1-based
    return tostring(nn.EmbeddingBag(5, 3, { max_norm = 1.0, norm_type = 3.0, scale_grad_by_freq = true, mode = "sum",
      padding_idx = 2 }))
  end,
  from_pretrained = tol(function()
    return nn.EmbeddingBag.from_pretrained(weight():detach(), { mode = "max" })(IDX, OFFS)
  end),
  from_pretrained_frozen = function()
    return nn.EmbeddingBag.from_pretrained(weight():detach()).weight.requires_grad
  end,
  from_pretrained_trainable = function()
    return nn.EmbeddingBag.from_pretrained(weight():detach(), { freeze = false }).weight.requires_grad
  end,
  error_offsets_first = { function() return F.embedding_bag(IDX, weight(), torch.tensor({ 2, 4 })) end,
    expect = offsets_first },
  error_offsets_last = { function() return F.embedding_bag(IDX, weight(), torch.tensor({ 1, 11 })) end,
    expect = offsets_last },
  error_psw_mode = function()
    return F.embedding_bag(IDX, weight(), OFFS, { per_sample_weights = psw(), mode = "max" })
  end,
  error_psw_shape = function()
    return F.embedding_bag(IDX, weight(), OFFS, { per_sample_weights = psw(7), mode = "sum" })
  end,
  error_psw_dtype = function()
    return F.embedding_bag(IDX, weight(), OFFS, { per_sample_weights = psw():float(), mode = "sum" })
  end,
  error_aten_psw_mode = function() return torch.embedding_bag(weight(), IDX, OFFS, false, 1, false, psw()) end,
  error_2d_offsets = function() return F.embedding_bag(IDX2, weight(), OFFS) end,
  error_1d_no_offsets = function() return F.embedding_bag(IDX, weight()) end,
  error_offsets_2d = function() return F.embedding_bag(IDX, weight(), OFFS:view(2, 2)) end,
  error_3d = function() return F.embedding_bag(IDX:view(2, 2, 2), weight()) end,
  error_mode = function() return F.embedding_bag(IDX, weight(), OFFS, { mode = "min" }) end,
  error_max_scale = function()
    return F.embedding_bag(IDX, weight(), OFFS, { mode = "max", scale_grad_by_freq = true })
  end,
  error_max_sparse = function() return F.embedding_bag(IDX, weight(), OFFS, { mode = "max", sparse = true }) end,
  error_padding = { function() return F.embedding_bag(IDX, weight(), OFFS, { padding_idx = 6 }) end,
    expect = padding_range },
  error_padding_negative = { function() return F.embedding_bag(IDX, weight(), OFFS, { padding_idx = -6 }) end,
    expect = padding_range },
  error_float_indices = function() return F.embedding_bag(IDX:double(), weight(), OFFS) end,
  error_module_padding = function() return nn.EmbeddingBag(5, 3, { padding_idx = 6 }) end,
  error_weight_shape = function() return nn.EmbeddingBag(5, 3, { _weight = torch.zeros(4, 3) }) end,
  error_pretrained_dims = function() return nn.EmbeddingBag.from_pretrained(torch.zeros(3)) end,
  lrn_3d = tol(function() return lrn({ 2, 5, 3 }, 3) end),
  lrn_4d = tol(function() return lrn({ 2, 4, 3, 2 }, 2, { alpha = 0.5, beta = 0.6, k = 1.5 }) end),
  lrn_5d = tol(function() return lrn({ 1, 6, 2, 2, 3 }, 5, { alpha = 0.3 }) end),
  lrn_size_past_channels = tol(function() return lrn({ 2, 3, 4 }, 8, { alpha = 0.9, beta = 1.1, k = 2.0 }) end),
  lrn_module = tol(function() return nn.LocalResponseNorm(4, 0.2, 0.5, 2.0)(x_lrn(2, 5, 2, 2)):detach() end),
  lrn_repr = function() return tostring(nn.LocalResponseNorm(3)) end,
  lrn_repr_all = function() return tostring(nn.LocalResponseNorm(2, { alpha = 0.5, beta = 1.0, k = 2 })) end,
  lrn_state_dict = function()
    local keys = {}
    for k in pairs(nn.LocalResponseNorm(3):state_dict()) do keys[#keys + 1] = k end
    return keys
  end,
  error_lrn_dims = function() return F.local_response_norm(torch.ones(2, 3), 2) end,
  cross_3 = tol(function() return cross({ 2, 5, 2, 3 }, 3, 0.5, 0.75, 1.0) end),
  cross_4 = tol(function() return cross({ 2, 6, 2, 2 }, 4, 0.7, 0.6, 2.0) end),
  cross_5 = tol(function() return cross({ 1, 7, 3, 2 }, 5, 0.4, 1.2, 1.5) end),
  cross_2 = tol(function() return cross({ 2, 5, 2, 2 }, 2, 0.8) end),
  cross_few_channels = tol(function() return cross({ 2, 2, 2, 2 }, 5, 0.9, 0.5) end),
  cross_defaults = tol(function() return cross({ 2, 4, 2, 2 }, 3) end),
  cross_repr = function() return tostring(nn.CrossMapLRN2d(3)) end,
  cross_repr_all = function() return tostring(nn.CrossMapLRN2d(5, 0.5, 1.0, 2.0)) end,
  ctc_default = tol(function() return ctc() end),
  ctc_mean = tol(function() return ctc(1, 1) end),
  ctc_sum_blank = tol(function() return ctc({ blank = 4, reduction = 2 }) end),
  ctc_zero_infinity = tol(function()
    return torch.ctc_loss(log_probs():narrow(2, 1, 1), torch.tensor({ { 2, 2, 2, 2 } }), { 3 }, { 4 }, 1, 0, true)
  end),
})
