-- Sequence layers against PyTorch (cases/nn_seq.py): RNN/LSTM/GRU and their cells,
-- MultiheadAttention, TransformerEncoderLayer/TransformerEncoder. Same seeds and inputs as the
-- Python side: initial weights must be PyTorch's exactly, float64 results within 1e-10.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn = torch.nn

local D = torch.float64
local TOL = 1e-10

-- deterministic values in [-1, 1], as wave() in the Python cases
local function wave(shape, f, off)
  local n = 1
  for i = 1, #shape do n = n * shape[i] end
  return torch.arange(n, { dtype = D }):reshape(shape):mul(f):add(off or 0.0):sin()
end

local function weighted_sum(ts)
  local loss = 0
  for i, t in ipairs(ts) do
    local k = i - 1
    loss = loss + (t * wave(t.shape, 0.29 + 0.1 * k, 0.1 * k)):sum()
  end
  return loss
end

local function append(res, list)
  for _, t in ipairs(list) do res[#res + 1] = t end
  return res
end

local function grads(m)
  local out = {}
  for _, p in ipairs(m:parameters()) do out[#out + 1] = p.grad end
  return out
end

local function make_rnn(kind, input_size, hidden, kw)
  if kind == "rnn_tanh" then
    kw.nonlinearity = "tanh"
    return nn.RNN(input_size, hidden, kw)
  elseif kind == "rnn_relu" then
    kw.nonlinearity = "relu"
    return nn.RNN(input_size, hidden, kw)
  elseif kind == "lstm" then
    return nn.LSTM(input_size, hidden, kw)
  end
  return nn.GRU(input_size, hidden, kw)
end

local function rnn_run(kind, o)
  o = o or {}
  local num_layers = o.num_layers or 2
  local bidirectional = o.bidirectional ~= false
  local proj = o.proj_size or 0
  torch.manual_seed(0)
  local kw = { num_layers = num_layers, bias = o.bias ~= false, batch_first = o.batch_first or false,
    bidirectional = bidirectional }
  if proj > 0 then kw.proj_size = proj end
  local m = make_rnn(kind, 3, 4, kw):double()
  local T, B, nd = 5, 2, bidirectional and 2 or 1
  local lstm = kind == "lstm"
  local shape
  if o.unbatched then shape = { T, 3 } else shape = o.batch_first and { B, T, 3 } or { T, B, 3 } end
  local x = wave(shape, 0.37):requires_grad_()
  local leaves = { x }
  local hx
  if o.h0 then
    local hsize = proj > 0 and proj or 4
    local hshape = o.unbatched and { num_layers * nd, hsize } or { num_layers * nd, B, hsize }
    local cshape = o.unbatched and { num_layers * nd, 4 } or { num_layers * nd, B, 4 }
    local h = wave(hshape, 0.53, 0.2):requires_grad_()
    leaves[#leaves + 1] = h
    hx = h
    if lstm then
      local c = wave(cshape, 0.71, -0.3):requires_grad_()
      leaves[#leaves + 1] = c
      hx = { h, c }
    end
  end
  local out, hid = m(x, hx)
  local states = lstm and hid or { hid }
  weighted_sum(append({ out }, states)):backward()
  local res = { out:detach() }
  for _, s in ipairs(states) do res[#res + 1] = s:detach() end
  for _, t in ipairs(leaves) do res[#res + 1] = t.grad end
  return append(res, grads(m))
end

local function cell_run(kind, o)
  o = o or {}
  torch.manual_seed(1)
  local bias = o.bias ~= false
  local m
  if kind == "rnn_tanh" then
    m = nn.RNNCell(3, 4, { bias = bias })
  elseif kind == "rnn_relu" then
    m = nn.RNNCell(3, 4, { bias = bias, nonlinearity = "relu" })
  elseif kind == "lstm" then
    m = nn.LSTMCell(3, 4, { bias = bias })
  else
    m = nn.GRUCell(3, 4, { bias = bias })
  end
  m:double()
  local x = wave(o.unbatched and { 3 } or { 2, 3 }, 0.61, 0.3):requires_grad_()
  local leaves = { x }
  local state
  if o.hx then
    local hshape = o.unbatched and { 4 } or { 2, 4 }
    local h = wave(hshape, 0.43, -0.5):requires_grad_()
    leaves[#leaves + 1] = h
    state = h
    if kind == "lstm" then
      local c = wave(hshape, 0.83, 0.7):requires_grad_()
      leaves[#leaves + 1] = c
      state = { h, c }
    end
  end
  local outs = { m(x, state) }
  weighted_sum(outs):backward()
  local res = {}
  for _, t in ipairs(outs) do res[#res + 1] = t:detach() end
  for _, t in ipairs(leaves) do res[#res + 1] = t.grad end
  return append(res, grads(m))
end

local KPM = torch.tensor({ { false, false, false, true }, { false, true, false, false } })
local KPM5 = torch.tensor({ { false, false, false, true, false }, { false, true, false, false, true } })
local CAUSAL = torch.tensor({ { false, true, true, true }, { false, false, true, true }, { false, false, false, true },
  { false, false, false, false } })
local FLOAT_MASK = wave({ 4, 4 }, 0.77) * 2
local FLOAT_MASK_3D = wave({ 4, 4, 4 }, 0.31, 0.5) * 1.5
local FLOAT_KPM = wave({ 2, 4 }, 0.9) * 3

local function mha_run(mode, o)
  mode, o = mode or "self", o or {}
  torch.manual_seed(2)
  local m = nn.MultiheadAttention(8, 2, { bias = o.bias ~= false, add_bias_kv = o.add_bias_kv or false,
    add_zero_attn = o.add_zero_attn or false, kdim = o.kdim, vdim = o.vdim, batch_first = o.batch_first or false }):double()
  local L, N = 4, 2
  local S = mode == "self" and L or 5
  local function shape(len, e)
    if o.unbatched then return { len, e } end
    return o.batch_first and { N, len, e } or { len, N, e }
  end
  local q = wave(shape(L, 8), 0.37):requires_grad_()
  local leaves = { q }
  local k, v
  if mode == "self" then
    k, v = q, q
  elseif mode == "encdec" then
    k = wave(shape(S, o.kdim or 8), 0.57, 0.4):requires_grad_()
    v = k
    leaves[#leaves + 1] = k
  else
    k = wave(shape(S, o.kdim or 8), 0.57, 0.4):requires_grad_()
    v = wave(shape(S, o.vdim or 8), 0.23, -0.2):requires_grad_()
    leaves[#leaves + 1] = k
    leaves[#leaves + 1] = v
  end
  local out, w = m(q, k, v, { key_padding_mask = o.kpm, need_weights = o.need_weights ~= false,
    attn_mask = o.attn_mask, average_attn_weights = o.average ~= false })
  local outs = w == nil and { out } or { out, w }
  weighted_sum(outs):backward()
  local res = {}
  for _, t in ipairs(outs) do res[#res + 1] = t:detach() end
  for _, t in ipairs(leaves) do res[#res + 1] = t.grad end
  return append(res, grads(m))
end

-- F.multi_head_attention_forward called directly, with static keys and values
local function mha_functional()
  local E, Hd, L, S, N = 8, 2, 3, 4, 2
  local q = wave({ L, N, E }, 0.37):requires_grad_()
  local k = wave({ S, N, E }, 0.57, 0.4)
  local v = wave({ S, N, E }, 0.23)
  local w = (wave({ 3 * E, E }, 0.11) * 0.5):requires_grad_()
  local b = wave({ 3 * E }, 0.13) * 0.1
  local ow = (wave({ E, E }, 0.19) * 0.5):requires_grad_()
  local ob = wave({ E }, 0.7) * 0.1
  local sk = wave({ N * Hd, S, E // Hd }, 0.31):requires_grad_()
  local sv = wave({ N * Hd, S, E // Hd }, 0.41):requires_grad_()
  local out, wts = nn.functional.multi_head_attention_forward(q, k, v, E, Hd, w, b, nil, nil, false, 0.0, ow, ob,
    { training = false, static_k = sk, static_v = sv, average_attn_weights = false })
  weighted_sum({ out, wts }):backward()
  return { out:detach(), wts:detach(), q.grad, w.grad, ow.grad, sk.grad, sv.grad }
end

local function tel_run(o)
  o = o or {}
  torch.manual_seed(3)
  local layer = nn.TransformerEncoderLayer(8, 2, 16, { activation = o.activation or "relu",
    batch_first = o.batch_first or false, norm_first = o.norm_first or false })
  local m = o.encoder and nn.TransformerEncoder(layer, 2, { norm = nn.LayerNorm(8) }) or layer
  m:double():eval()
  local L, N = 4, 2
  local shape
  if o.unbatched then shape = { L, 8 } else shape = o.batch_first and { N, L, 8 } or { L, N, 8 } end
  local x = wave(shape, 0.37):requires_grad_()
  local out = m(x, o.mask, o.kpm)
  weighted_sum({ out }):backward()
  return append({ out:detach(), x.grad }, grads(m))
end

-- training mode: the dropout masks come from the global generator, as PyTorch draws them
local function train_run(make, inputs)
  torch.manual_seed(4)
  local m = make():double()
  local xs = {}
  for i, shape in ipairs(inputs) do xs[i] = wave(shape, 0.37 + 0.1 * (i - 1)):requires_grad_() end
  local r = table.pack(m(table.unpack(xs)))
  local outs = { r[1] }
  if type(r[2]) == "table" and not torch.is_tensor(r[2]) then
    outs[2], outs[3] = r[2][1], r[2][2]
  elseif torch.is_tensor(r[2]) then
    outs[2] = r[2]
  end
  weighted_sum(outs):backward()
  local res = {}
  for _, t in ipairs(outs) do res[#res + 1] = t:detach() end
  for _, x in ipairs(xs) do res[#res + 1] = x.grad end
  return append(res, grads(m))
end

local function init_of(make, seed)
  torch.manual_seed(seed or 5)
  local m = make()
  local out = {}
  for _, p in ipairs(m:parameters()) do out[#out + 1] = p:detach() end
  return out
end

local function names_of(make)
  local out = {}
  for n in make():named_parameters() do out[#out + 1] = n end
  return out
end

local function f64(fn) return { fn, tol = TOL } end
local randn = torch.randn

H.run("nn_seq", {
  rnn_tanh = f64(function() return rnn_run("rnn_tanh") end),
  rnn_tanh_h0 = f64(function() return rnn_run("rnn_tanh", { h0 = true }) end),
  rnn_tanh_batch_first = f64(function() return rnn_run("rnn_tanh", { batch_first = true }) end),
  rnn_tanh_batch_first_h0 = f64(function() return rnn_run("rnn_tanh", { batch_first = true, h0 = true }) end),
  rnn_relu = f64(function() return rnn_run("rnn_relu") end),
  rnn_relu_h0 = f64(function() return rnn_run("rnn_relu", { h0 = true }) end),
  rnn_relu_batch_first = f64(function() return rnn_run("rnn_relu", { batch_first = true }) end),
  rnn_relu_batch_first_h0 = f64(function() return rnn_run("rnn_relu", { batch_first = true, h0 = true }) end),
  lstm = f64(function() return rnn_run("lstm") end),
  lstm_h0 = f64(function() return rnn_run("lstm", { h0 = true }) end),
  lstm_batch_first = f64(function() return rnn_run("lstm", { batch_first = true }) end),
  lstm_batch_first_h0 = f64(function() return rnn_run("lstm", { batch_first = true, h0 = true }) end),
  gru = f64(function() return rnn_run("gru") end),
  gru_h0 = f64(function() return rnn_run("gru", { h0 = true }) end),
  gru_batch_first = f64(function() return rnn_run("gru", { batch_first = true }) end),
  gru_batch_first_h0 = f64(function() return rnn_run("gru", { batch_first = true, h0 = true }) end),
  rnn_tanh_one_layer = f64(function() return rnn_run("rnn_tanh", { num_layers = 1, bidirectional = false, h0 = true }) end),
  lstm_three_layers_no_bias = f64(function()
    return rnn_run("lstm", { num_layers = 3, bidirectional = false, bias = false, h0 = true })
  end),
  gru_no_bias_bidirectional = f64(function() return rnn_run("gru", { bias = false, batch_first = true }) end),
  lstm_unbatched = f64(function() return rnn_run("lstm", { unbatched = true }) end),
  lstm_unbatched_h0 = f64(function() return rnn_run("lstm", { unbatched = true, h0 = true }) end),
  gru_unbatched_h0 = f64(function() return rnn_run("gru", { unbatched = true, h0 = true, batch_first = true }) end),
  rnn_relu_unbatched = f64(function() return rnn_run("rnn_relu", { unbatched = true }) end),
  lstm_proj = f64(function() return rnn_run("lstm", { proj_size = 2, h0 = true }) end),
  lstm_proj_batch_first = f64(function() return rnn_run("lstm", { proj_size = 3, batch_first = true }) end),

  rnn_cell_tanh = f64(function() return cell_run("rnn_tanh") end),
  rnn_cell_tanh_hx = f64(function() return cell_run("rnn_tanh", { hx = true }) end),
  rnn_cell_relu_hx = f64(function() return cell_run("rnn_relu", { hx = true }) end),
  rnn_cell_unbatched = f64(function() return cell_run("rnn_tanh", { hx = true, unbatched = true }) end),
  lstm_cell = f64(function() return cell_run("lstm") end),
  lstm_cell_hx = f64(function() return cell_run("lstm", { hx = true }) end),
  lstm_cell_unbatched = f64(function() return cell_run("lstm", { hx = true, unbatched = true }) end),
  lstm_cell_no_bias = f64(function() return cell_run("lstm", { hx = true, bias = false }) end),
  gru_cell = f64(function() return cell_run("gru") end),
  gru_cell_hx = f64(function() return cell_run("gru", { hx = true }) end),
  gru_cell_unbatched = f64(function() return cell_run("gru", { unbatched = true }) end),
  gru_cell_no_bias = f64(function() return cell_run("gru", { hx = true, bias = false }) end),

  mha_self = f64(function() return mha_run() end),
  mha_self_batch_first = f64(function() return mha_run("self", { batch_first = true }) end),
  mha_encdec = f64(function() return mha_run("encdec") end),
  mha_separate = f64(function() return mha_run("separate") end),
  mha_kdim_vdim = f64(function() return mha_run("separate", { kdim = 6, vdim = 5 }) end),
  mha_kdim_batch_first = f64(function() return mha_run("encdec", { kdim = 6, vdim = 6, batch_first = true }) end),
  mha_kpm = f64(function() return mha_run("self", { kpm = KPM }) end),
  mha_kpm_float = f64(function() return mha_run("self", { kpm = FLOAT_KPM }) end),
  mha_attn_mask_bool = f64(function() return mha_run("self", { attn_mask = CAUSAL }) end),
  mha_attn_mask_float = f64(function() return mha_run("self", { attn_mask = FLOAT_MASK }) end),
  mha_attn_mask_3d = f64(function() return mha_run("self", { attn_mask = FLOAT_MASK_3D }) end),
  mha_both_masks_bool = f64(function() return mha_run("self", { kpm = KPM, attn_mask = CAUSAL }) end),
  mha_both_masks_float = f64(function()
    return mha_run("self", { kpm = KPM, attn_mask = FLOAT_MASK, batch_first = true })
  end),
  mha_no_weights = f64(function() return mha_run("self", { need_weights = false }) end),
  mha_per_head_weights = f64(function() return mha_run("separate", { average = false, kpm = KPM5 }) end),
  mha_no_bias = f64(function() return mha_run("encdec", { bias = false }) end),
  mha_bias_kv = f64(function() return mha_run("separate", { add_bias_kv = true, kpm = KPM5 }) end),
  mha_zero_attn = f64(function() return mha_run("self", { add_zero_attn = true, attn_mask = CAUSAL, kpm = KPM }) end),
  mha_unbatched = f64(function() return mha_run("separate", { unbatched = true, kpm = KPM5[1] }) end),
  mha_unbatched_self = f64(function() return mha_run("self", { unbatched = true, attn_mask = FLOAT_MASK }) end),

  mha_functional_static_kv = f64(mha_functional),

  tel_relu = f64(function() return tel_run() end),
  tel_norm_first = f64(function() return tel_run({ norm_first = true }) end),
  tel_gelu_batch_first = f64(function() return tel_run({ activation = "gelu", batch_first = true }) end),
  tel_masks = f64(function() return tel_run({ mask = CAUSAL, kpm = KPM }) end),
  tel_norm_first_gelu_masks = f64(function()
    return tel_run({ norm_first = true, activation = "gelu", mask = FLOAT_MASK, kpm = KPM })
  end),
  tel_unbatched = f64(function() return tel_run({ unbatched = true, mask = CAUSAL }) end),
  encoder = f64(function() return tel_run({ encoder = true }) end),
  encoder_norm_first_masks = f64(function()
    return tel_run({ encoder = true, norm_first = true, mask = CAUSAL, kpm = KPM })
  end),
  encoder_gelu_batch_first = f64(function()
    return tel_run({ encoder = true, activation = "gelu", batch_first = true, kpm = KPM })
  end),

  lstm_dropout_train = f64(function()
    return train_run(function() return nn.LSTM(3, 4, 3, { dropout = 0.4, bidirectional = true }) end, { { 5, 2, 3 } })
  end),
  gru_dropout_train = f64(function()
    return train_run(function() return nn.GRU(3, 4, 2, { dropout = 0.5, batch_first = true }) end, { { 2, 5, 3 } })
  end),
  mha_dropout_train = f64(function()
    return train_run(function() return nn.MultiheadAttention(8, 2, { dropout = 0.3 }) end,
      { { 4, 2, 8 }, { 5, 2, 8 }, { 5, 2, 8 } })
  end),
  encoder_train = f64(function()
    return train_run(function()
      return nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, { dropout = 0.2, norm_first = true }), 2)
    end, { { 4, 2, 8 } })
  end),

  init_rnn = function() return init_of(function() return nn.RNN(3, 4, 2, { bidirectional = true }) end) end,
  init_lstm = function() return init_of(function() return nn.LSTM(3, 5, 2, { bidirectional = true }) end) end,
  init_lstm_proj = function() return init_of(function() return nn.LSTM(3, 5, 2, { proj_size = 2 }) end) end,
  init_gru_no_bias = function() return init_of(function() return nn.GRU(4, 3, 2, { bias = false }) end) end,
  init_cells = function()
    return init_of(function() return nn.Sequential(nn.RNNCell(3, 4), nn.LSTMCell(4, 2), nn.GRUCell(2, 3)) end)
  end,
  init_mha = function() return init_of(function() return nn.MultiheadAttention(8, 2) end) end,
  init_mha_kdim = function()
    return init_of(function() return nn.MultiheadAttention(8, 4, { kdim = 3, vdim = 5, add_bias_kv = true }) end)
  end,
  init_mha_no_bias = function() return init_of(function() return nn.MultiheadAttention(6, 3, { bias = false }) end) end,
  init_encoder = function()
    return init_of(function()
      return nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, { norm = nn.LayerNorm(8) })
    end)
  end,

  names_lstm = function() return names_of(function() return nn.LSTM(3, 4, 2, { bidirectional = true }) end) end,
  names_lstm_proj = function()
    return names_of(function() return nn.LSTM(3, 4, 1, { bidirectional = true, proj_size = 2 }) end)
  end,
  names_gru_no_bias = function() return names_of(function() return nn.GRU(3, 4, 2, { bias = false }) end) end,
  names_cell_no_bias = function() return names_of(function() return nn.GRUCell(3, 4, { bias = false }) end) end,
  names_mha = function() return names_of(function() return nn.MultiheadAttention(8, 2) end) end,
  names_mha_kdim = function()
    return names_of(function() return nn.MultiheadAttention(8, 2, { kdim = 3, add_bias_kv = true }) end)
  end,
  names_encoder = function()
    local keys = {}
    for k in pairs(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2):state_dict()) do keys[#keys + 1] = k end
    table.sort(keys)
    return keys
  end,

  repr_rnn = function()
    return tostring(nn.RNN(3, 5, 2, { nonlinearity = "relu", batch_first = true, dropout = 0.5, bidirectional = true }))
  end,
  repr_lstm = function() return tostring(nn.LSTM(3, 4, 2, { bias = false, dropout = 1, proj_size = 2 })) end,
  repr_gru = function() return tostring(nn.GRU(3, 4)) end,
  repr_cells = function()
    return tostring(nn.Sequential(nn.RNNCell(3, 4, { bias = false, nonlinearity = "relu" }), nn.RNNCell(3, 4),
      nn.LSTMCell(3, 4), nn.GRUCell(4, 2, { bias = false })))
  end,
  repr_mha = function() return tostring(nn.MultiheadAttention(8, 2, { kdim = 3 })) end,
  repr_tel_gelu_module = function() return tostring(nn.TransformerEncoderLayer(8, 2, 16, { activation = nn.GELU() })) end,
  repr_encoder = function()
    return tostring(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, { layer_norm_eps = 1e-6 }), 2,
      { norm = nn.LayerNorm(8) }))
  end,

  error_rnn_input_size = function() return nn.RNN(3, 5, 2)(randn(4, 2, 4)) end,
  error_rnn_input_dims = function() return nn.RNN(3, 5, 2)(randn(4, 2, 3, 1)) end,
  error_rnn_hidden_size = function() return nn.GRU(3, 5, 2)(randn(4, 2, 3), randn(2, 3, 5)) end,
  error_rnn_hx_dims = function() return nn.RNN(3, 5, 2)(randn(4, 2, 3), randn(2, 5)) end,
  error_rnn_hx_dims_unbatched = function() return nn.RNN(3, 5, 2)(randn(4, 3), randn(2, 1, 5)) end,
  error_lstm_cell_size = function() return nn.LSTM(3, 5)(randn(4, 2, 3), { randn(1, 2, 5), randn(1, 3, 5) }) end,
  error_lstm_hidden0_size = function()
    return nn.LSTM(3, 5, { proj_size = 2 })(randn(4, 2, 3), { randn(1, 2, 5), randn(1, 2, 5) })
  end,
  error_lstm_hx_dims = function() return nn.LSTM(3, 5)(randn(4, 2, 3), { randn(1, 2, 5), randn(2, 5) }) end,
  error_rnn_dtype = function() return nn.RNN(3, 4, 2)(randn(5, 2, 3):double()) end,
  error_rnn_empty = function() return nn.LSTM(3, 4)(randn(0, 2, 3)) end,
  error_rnn_nonlinearity = function() return nn.RNN(3, 5, { nonlinearity = "sigmoid" }) end,
  error_rnn_dropout = function() return nn.RNN(3, 5, { dropout = 1.5 }) end,
  error_gru_proj = function() return nn.GRU(3, 5, { proj_size = 2 }) end,
  error_lstm_proj_size = function() return nn.LSTM(3, 5, { proj_size = 5 }) end,
  error_cell_input_size = function() return nn.RNNCell(3, 5)(randn(2, 4)) end,
  error_cell_batch = function() return nn.GRUCell(3, 5)(randn(2, 3), randn(3, 5)) end,
  error_cell_hidden_size = function() return nn.LSTMCell(3, 5)(randn(2, 3), { randn(2, 5), randn(2, 4) }) end,
  error_cell_dims = function() return nn.RNNCell(3, 5)(randn(2, 3, 1)) end,
  error_mha_embed_dim = function() return nn.MultiheadAttention(8, 2)(randn(4, 2, 6), randn(4, 2, 6), randn(4, 2, 6)) end,
  error_mha_kpm_shape = function()
    return nn.MultiheadAttention(8, 2)(randn(4, 2, 8), randn(4, 2, 8), randn(4, 2, 8), { key_padding_mask = KPM5 })
  end,
  error_mha_attn_mask_2d = function()
    return nn.MultiheadAttention(8, 2)(randn(4, 2, 8), randn(5, 2, 8), randn(5, 2, 8), { attn_mask = CAUSAL })
  end,
  error_mha_attn_mask_3d = function()
    return nn.MultiheadAttention(8, 2)(randn(4, 2, 8), randn(4, 2, 8), randn(4, 2, 8), { attn_mask = FLOAT_MASK_3D[{ { 1, 3 } }] })
  end,
  error_mha_attn_mask_dtype = function()
    return nn.MultiheadAttention(8, 2)(randn(4, 2, 8), randn(4, 2, 8), randn(4, 2, 8),
      { attn_mask = torch.zeros(4, 4, { dtype = torch.int64 }) })
  end,
  error_mha_kpm_dtype = function()
    return nn.MultiheadAttention(8, 2)(randn(4, 2, 8), randn(4, 2, 8), randn(4, 2, 8),
      { key_padding_mask = torch.zeros(2, 4, { dtype = torch.int64 }) })
  end,
  error_mha_kv_shape = function() return nn.MultiheadAttention(8, 2)(randn(4, 2, 8), randn(4, 2, 8), randn(5, 2, 8)) end,
  error_mha_key_dims = function() return nn.MultiheadAttention(8, 2)(randn(4, 2, 8), randn(4, 8), randn(4, 2, 8)) end,
  error_mha_query_dims = function() return nn.MultiheadAttention(8, 2)(randn(4), randn(4, 2, 8), randn(4, 2, 8)) end,
  error_mha_heads = function() return nn.MultiheadAttention(8, 3) end,
  error_tel_activation = function() return nn.TransformerEncoderLayer(8, 2, { activation = "tanh" }) end,
})
