-- nn.utils and nn.utils.rnn against PyTorch (cases/nn_utils.py). sorted_indices,
-- unsorted_indices and invert_permutation are 1-based here: the cases subtract one before
-- comparing with PyTorch's 0-based ones. Dims are 1-based (weight_norm's dim = 2 is PyTorch's 1).
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn = torch.nn
local R, parametrize, parametrizations = nn.utils.rnn, nn.utils.parametrize, nn.utils.parametrizations

local D = torch.float64
local tol = 1e-9

local function seq_input(T, B, I, batch_first, scale)
  T, B, I, scale = T or 5, B or 4, I or 3, scale or 0.37
  local n = T * B * I
  local shape = batch_first and { B, T, I } or { T, B, I }
  return (torch.arange(n, { dtype = D }):reshape(shape) * scale):sin():requires_grad_()
end
local function weights_like(t) return torch.arange(t:numel(), { dtype = D }):reshape(t.shape):cos() end
local function zero_based(t) return t and t - 1 end

-- ---- packing ------------------------------------------------------------------------------------
local function seqs()
  return { (torch.arange(6, { dtype = D }):reshape(3, 2) * 0.5):requires_grad_(),
    (torch.arange(10, { dtype = D }):reshape(5, 2) - 3):requires_grad_(),
    (torch.arange(2, { dtype = D }):reshape(1, 2) + 7):requires_grad_() }
end

local function pad_sequence_case(batch_first, padding_value)
  local ss = seqs()
  local out = R.pad_sequence(ss, { batch_first = batch_first, padding_value = padding_value })
  ;(out * weights_like(out)):sum():backward()
  return { out:detach(), ss[1].grad, ss[2].grad, ss[3].grad }
end

local function unpad_sequence_case(batch_first)
  local padded = R.pad_sequence(seqs(), batch_first)
  local out = R.unpad_sequence(padded, torch.tensor({ 3, 5, 1 }), batch_first)
  for i, t in ipairs(out) do out[i] = t:detach() end
  return out
end

-- ---- RNNs over packed input ------------------------------------------------------------------------
local function rnn_packed(make, seed, lengths, with_hx, lstm, batch_first, enforce_sorted)
  torch.manual_seed(seed)
  local m = make():double()
  local B = #lengths
  local T = math.max(table.unpack(lengths))
  local x = seq_input(T, B, 3, batch_first)
  local nd = m.bidirectional and 2 or 1
  local real = m.proj_size > 0 and m.proj_size or m.hidden_size
  local hx, h0, c0
  if with_hx then
    h0 = (torch.arange(m.num_layers * nd * B * real, { dtype = D }):reshape(m.num_layers * nd, B, real) * 0.3):cos()
    h0:requires_grad_()
    hx = h0
    if lstm then
      c0 = (torch.arange(m.num_layers * nd * B * m.hidden_size, { dtype = D })
        :reshape(m.num_layers * nd, B, m.hidden_size) * 0.7):sin():requires_grad_()
      hx = { h0, c0 }
    end
  end
  local p = R.pack_padded_sequence(x, lengths, { batch_first = batch_first or false,
    enforce_sorted = enforce_sorted or false })
  local out, h = m(p, hx)
  local h_n, c_n
  if lstm then h_n, c_n = h[1], h[2] else h_n = h end
  local loss = (out.data * weights_like(out.data)):sum() + (h_n * weights_like(h_n)):sum() * 0.5
  if c_n then loss = loss + (c_n * weights_like(c_n)):sum() * 0.25 end
  loss:backward()
  local res = { out.data:detach(), h_n:detach() }
  if c_n then res[#res + 1] = c_n:detach() end
  res[#res + 1] = x.grad
  if h0 then res[#res + 1] = h0.grad end
  if c0 then res[#res + 1] = c0.grad end
  for _, q in ipairs(m:parameters()) do res[#res + 1] = q.grad end
  return res
end

-- ---- modules --------------------------------------------------------------------------------------
local function lin_input(n_in, rows)
  rows = rows or 2
  return (torch.arange(rows * n_in, { dtype = D }):reshape(rows, n_in) * 0.41):sin():requires_grad_()
end

local function forward_grads(m, x, extra)
  local out = m(x)
  ;(out * weights_like(out)):sum():backward()
  local res = { out:detach(), x.grad }
  for _, p in ipairs(m:parameters()) do res[#res + 1] = p.grad end
  for _, t in ipairs(extra and extra() or {}) do res[#res + 1] = t end
  return res
end

local function state_keys(m)
  local out = {}
  for i, k in ipairs(m:_state_keys()) do out[i] = k[1] end
  return out
end

local function weight_norm_linear(dim)
  torch.manual_seed(2)
  local m = nn.Linear(4, 3):double()
  m = nn.utils.weight_norm(m, { dim = dim })
  return forward_grads(m, lin_input(4), function() return { m.weight_g:detach() } end)
end

local function spectral_norm_linear(steps, eval_after)
  torch.manual_seed(5)
  local m = nn.utils.spectral_norm(nn.Linear(5, 3):double(), { n_power_iterations = 2 })
  local x = lin_input(5)
  for _ = 1, steps do m(x) end
  if eval_after then m:eval() end
  return forward_grads(m, x, function() return { m.weight_u, m.weight_v, m.weight:detach() } end)
end

local Symmetric = nn.Module:subclass("Symmetric")
function Symmetric:forward(X) return X:triu() + X:triu(1).mT end
function Symmetric:right_inverse(A) return A:triu() end

local Scale = nn.Module:subclass("Scale")
function Scale:__init(s)
  nn.Module.__init(self)
  self.s = s
end
function Scale:forward(X) return X * self.s end

local Reshape = nn.Module:subclass("Reshape")
function Reshape:forward(X) return X:reshape(-1) end

local function sym_linear(seed)
  torch.manual_seed(seed or 7)
  local m = nn.Linear(3, 3):double()
  parametrize.register_parametrization(m, "weight", Symmetric())
  return m
end

local function parametrize_remove(leave)
  local m = sym_linear()
  parametrize.remove_parametrizations(m, "weight", leave)
  return { m.weight:tolist(), getmetatable(m).__name, state_keys(m), parametrize.is_parametrized(m) }
end

local function orthogonal_case(n_out, n_in, seed, map, use_trivialization)
  torch.manual_seed(seed)
  local m = nn.Linear(n_in, n_out):double()
  if use_trivialization == nil then use_trivialization = true end
  parametrizations.orthogonal(m, { orthogonal_map = map, use_trivialization = use_trivialization })
  return forward_grads(m, lin_input(n_in), function()
    return { m.weight:detach(), m.parametrizations.weight.original.grad }
  end)
end

local function new_spectral_norm(train)
  torch.manual_seed(9)
  local m = nn.Linear(5, 3):double()
  parametrizations.spectral_norm(m, { n_power_iterations = 2 })
  local x = lin_input(5)
  m(x)
  if not train then m:eval() end
  return forward_grads(m, x, function()
    local sn = m.parametrizations.weight[1]
    return { m.weight:detach(), sn._u, sn._v, m.parametrizations.weight.original.grad }
  end)
end

local function bn_with_stats(n, cls)
  torch.manual_seed(11)
  local bn = cls(n):double()
  torch.no_grad(function()
    bn.running_mean:copy_(torch.arange(n, { dtype = D }) * 0.1 - 0.2)
    bn.running_var:copy_(torch.arange(n, { dtype = D }) * 0.3 + 0.5)
    bn.weight:copy_(torch.arange(n, { dtype = D }) * -0.4 + 1.1)
    bn.bias:copy_(torch.arange(n, { dtype = D }) * 0.25)
  end)
  return bn:eval()
end

local function clip_tensors()
  local a = torch.tensor({ { 3.0, -4.0 }, { 1.0, 2.0 } }, { dtype = D, requires_grad = true })
  local b = torch.tensor({ 0.5, -12.0 }, { dtype = D, requires_grad = true })
  ;((a * torch.tensor({ { 1.0, 2.0 }, { 3.0, 4.0 } }, { dtype = D })):sum() + (b * b):sum()):backward()
  return a, b
end

-- PyTorch's "[-2, 1] but got 2": the 1-based range (the dim given is the same number here: Lua's 3)
local function sn_dim_range(msg)
  return (msg:gsub("%[(%-?%d+), (%-?%d+)%] but got (%d+)", function(lo, hi, got)
    return ("[%s, %d] but got %d"):format(lo, tonumber(hi) + 1, tonumber(got) + 1)
  end))
end

local cases = {
  pack_sorted = function()
    local p = R.pack_padded_sequence(seq_input(4, 3, 2), { 4, 2, 1 })
    return { p.data:detach(), p.batch_sizes }
  end,
  pack_unsorted_batch_first = function()
    local p = R.pack_padded_sequence(seq_input(5, 4, 2, true), torch.tensor({ 2, 5, 1, 5 }),
      { batch_first = true, enforce_sorted = false })
    return { p.data:detach(), p.batch_sizes, zero_based(p.sorted_indices), zero_based(p.unsorted_indices) }
  end,
  pack_pad_roundtrip = function()
    local x = seq_input(5, 4, 2)
    local p = R.pack_padded_sequence(x, { 3, 5, 2, 4 }, { enforce_sorted = false })
    local padded, lengths = R.pad_packed_sequence(p, { padding_value = -1.5, total_length = 7 })
    ;(padded * weights_like(padded)):sum():backward()
    return { padded:detach(), lengths, x.grad }
  end,
  pad_packed_batch_first = function()
    local p = R.pack_padded_sequence(seq_input(4, 3, 2), { 4, 2, 1 })
    local padded, lengths = R.pad_packed_sequence(p, true)
    return { padded:detach(), lengths }
  end,
  -- (the gradient of a 1-row sequence: the stride of a size-1 dim differs from PyTorch's, harmlessly)
  pad_sequence = { function() return pad_sequence_case(false, 0.0) end, tol = tol, ignore_strides = true },
  pad_sequence_batch_first = function() return pad_sequence_case(true, -2.5) end,
  pack_sequence = { function()
    local ss = seqs()
    local p = R.pack_sequence(ss, { enforce_sorted = false })
    ;(p.data * weights_like(p.data)):sum():backward()
    return { p.data:detach(), p.batch_sizes, zero_based(p.sorted_indices), zero_based(p.unsorted_indices), ss[1].grad,
      ss[3].grad }
  end, tol = tol, ignore_strides = true },
  unpack_sequence = function()
    local out = R.unpack_sequence(R.pack_sequence(seqs(), false))
    for i, t in ipairs(out) do out[i] = t:detach() end
    return torch.cat(out)
  end,
  unpad_sequence = function() return unpad_sequence_case(false) end,
  unpad_sequence_batch_first = function() return unpad_sequence_case(true) end,
  packed_repr = function()
    local seq = torch.tensor({ { 1, 2, 0 }, { 3, 0, 0 }, { 4, 5, 6 } })
    local p = R.pack_padded_sequence(seq, { 2, 1, 3 }, { batch_first = true, enforce_sorted = false })
    -- PyTorch's 0-based indices, to compare the text
    return tostring(R.PackedSequence(p.data, p.batch_sizes, p.sorted_indices - 1, p.unsorted_indices - 1))
  end,
  invert_permutation = function() return R.invert_permutation(torch.tensor({ 3, 1, 4, 2 })) - 1 end,
  error_pack_lengths_count = function() R.pack_padded_sequence(seq_input(4, 3, 2), { 4, 2 }) end,
  error_pack_zero_length = function() R.pack_padded_sequence(seq_input(4, 3, 2), { 4, 2, 0 }) end,
  error_pack_unsorted = function() R.pack_padded_sequence(seq_input(4, 3, 2), { 2, 4, 1 }) end,
  error_pack_lengths_2d = function() R.pack_padded_sequence(seq_input(4, 3, 2), torch.tensor({ { 4, 3, 1 } })) end,
  error_pack_empty = function() R.pack_padded_sequence(torch.zeros(0, 3), { 0, 0, 0 }) end,
  error_pad_total_length = function()
    R.pad_packed_sequence(R.pack_padded_sequence(seq_input(4, 3, 2), { 4, 2, 1 }), { total_length = 3 })
  end,
  error_pad_sequence_empty = function() R.pad_sequence({}) end,
  error_pad_sequence_not_list = function() R.pad_sequence(5) end,
  error_pad_sequence_element = { function() R.pad_sequence({ 1, 2 }) end,
    expect = function(m) return (m:gsub("(%a+) (%d+)", function(w, n) return w .. " " .. (n + 1) end)) end },
  error_pack_input = function() R.pack_padded_sequence("x", { 1 }) end,
  error_pad_packed_tensor = function() R.pad_packed_sequence(torch.ones(2)) end,
  error_parametrize_not_module = function() parametrize.register_parametrization(nn.Linear(2, 2), "weight", 5) end,

  rnn_tanh_packed = { function()
    return rnn_packed(function() return nn.RNN(3, 4, 2) end, 1, { 3, 5, 2, 4 }, false)
  end, tol = tol },
  rnn_relu_packed_bidirectional_hx = { function()
    return rnn_packed(function() return nn.RNN(3, 4, { nonlinearity = "relu", bidirectional = true }) end, 2,
      { 4, 1, 3 }, true)
  end, tol = tol },
  lstm_packed = { function()
    return rnn_packed(function() return nn.LSTM(3, 4) end, 3, { 2, 5, 4, 1 }, true, true)
  end, tol = tol },
  lstm_packed_bidirectional_layers = { function()
    return rnn_packed(function() return nn.LSTM(3, 4, { num_layers = 2, bidirectional = true }) end, 4,
      { 3, 5, 2, 4 }, true, true)
  end, tol = tol },
  lstm_packed_proj = { function()
    return rnn_packed(function() return nn.LSTM(3, 4, { proj_size = 2, bidirectional = true }) end, 5, { 4, 2, 3 },
      false, true)
  end, tol = tol },
  gru_packed_sorted_batch_first = { function()
    return rnn_packed(function() return nn.GRU(3, 4, { num_layers = 2, batch_first = true }) end, 6, { 5, 4, 4, 2 },
      true, false, true, true)
  end, tol = tol },
  gru_packed_bidirectional = { function()
    return rnn_packed(function() return nn.GRU(3, 2, { bidirectional = true }) end, 7, { 1, 3, 2 }, true)
  end, tol = tol },
  gru_packed_dropout = { function() -- dropout between layers draws from the default generator as ATen's
    torch.manual_seed(3)
    local m = nn.GRU(3, 4, { num_layers = 3, dropout = 0.4 }):double()
    local x = seq_input(5, 4, 3)
    local p = R.pack_padded_sequence(x, { 3, 5, 2, 4 }, { enforce_sorted = false })
    torch.manual_seed(9)
    local out, h = m(p)
    ;((out.data * weights_like(out.data)):sum() + h:sum()):backward()
    return { out.data:detach(), h:detach(), x.grad, m.weight_ih_l0.grad }
  end, tol = tol },
  rnn_packed_padded_output = { function()
    torch.manual_seed(4)
    local m = nn.GRU(3, 2, { batch_first = true }):double()
    local p = R.pack_padded_sequence(seq_input(4, 3, 3, true), { 2, 4, 3 },
      { batch_first = true, enforce_sorted = false })
    local out = m(p)
    local padded, lengths = R.pad_packed_sequence(out, { batch_first = true })
    return { padded:detach(), lengths }
  end, tol = tol },
  error_rnn_packed_hidden = function()
    nn.RNN(2, 3):double()(R.pack_padded_sequence(seq_input(4, 3, 2), { 4, 2, 1 }), torch.zeros(1, 2, 3, { dtype = D }))
  end,
  error_rnn_packed_dims = function()
    nn.LSTM(2, 3):double()(R.PackedSequence(torch.zeros(7, 2, 1, { dtype = D }), torch.tensor({ 3, 2, 1, 1 })))
  end,

  weight_norm_linear = { function() return weight_norm_linear(1) end, tol = tol },
  weight_norm_linear_dim1 = { function() return weight_norm_linear(2) end, tol = tol },
  weight_norm_linear_whole = { function() return weight_norm_linear(false) end, tol = tol },
  weight_norm_conv = { function()
    torch.manual_seed(3)
    local m = nn.utils.weight_norm(nn.Conv1d(2, 3, 2):double(), { dim = 2 })
    local x = (torch.arange(10, { dtype = D }):reshape(1, 2, 5) * 0.3):cos():requires_grad_()
    return forward_grads(m, x, function() return { m.weight_g:detach() } end)
  end, tol = tol },
  weight_norm_keys = function() return state_keys(nn.utils.weight_norm(nn.Linear(4, 3))) end,
  weight_norm_removed = { function()
    torch.manual_seed(2)
    local m = nn.utils.weight_norm(nn.Linear(4, 3):double())
    torch.no_grad(function() m.weight_g:mul_(2.0) end)
    nn.utils.remove_weight_norm(m)
    return { m.weight:detach(), torch.tensor({ #state_keys(m) }) }
  end, tol = tol },
  weight_norm_removed_keys = function()
    return state_keys(nn.utils.remove_weight_norm(nn.utils.weight_norm(nn.Linear(4, 3))))
  end,
  error_weight_norm_twice = function() nn.utils.weight_norm(nn.utils.weight_norm(nn.Linear(4, 3))) end,
  error_weight_norm_remove_missing = function() nn.utils.remove_weight_norm(nn.Linear(4, 3)) end,
  spectral_norm_train = { function() return spectral_norm_linear(2, false) end, tol = tol },
  spectral_norm_eval = { function() return spectral_norm_linear(1, true) end, tol = tol },
  spectral_norm_conv_transpose = { function()
    torch.manual_seed(6)
    local m = nn.utils.spectral_norm(nn.ConvTranspose2d(2, 3, 2):double())
    local x = (torch.arange(18, { dtype = D }):reshape(1, 2, 3, 3) * 0.3):cos():requires_grad_()
    return forward_grads(m, x, function() return { m.weight_u, m.weight_v } end)
  end, tol = tol },
  spectral_norm_keys = function() return state_keys(nn.utils.spectral_norm(nn.Linear(4, 3))) end,
  spectral_norm_removed = { function()
    torch.manual_seed(5)
    local m = nn.utils.spectral_norm(nn.Linear(5, 3):double())
    m(lin_input(5))
    nn.utils.remove_spectral_norm(m)
    return { m.weight:detach() }
  end, tol = tol },
  spectral_norm_removed_keys = function()
    return state_keys(nn.utils.remove_spectral_norm(nn.utils.spectral_norm(nn.Linear(4, 3))))
  end,
  error_spectral_norm_iterations = function() nn.utils.spectral_norm(nn.Linear(4, 3), { n_power_iterations = 0 }) end,
  error_spectral_norm_remove_missing = function() nn.utils.remove_spectral_norm(nn.Linear(4, 3)) end,

  parametrize_forward = { function()
    local m = sym_linear()
    return forward_grads(m, lin_input(3), function()
      return { m.weight:detach(), m.parametrizations.weight.original.grad }
    end)
  end, tol = tol },
  parametrize_chain = { function()
    local m = sym_linear()
    parametrize.register_parametrization(m, "weight", Scale(2.5))
    return forward_grads(m, lin_input(3), function() return { m.weight:detach() } end)
  end, tol = tol },
  parametrize_keys = function()
    local m = sym_linear()
    parametrize.register_parametrization(m, "bias", Scale(0.5))
    return state_keys(m)
  end,
  parametrize_repr = function()
    return tostring(sym_linear()):gsub("%(0%): Symmetric%(%)", "(0): Symmetric()")
  end,
  parametrize_assign = function()
    local m = sym_linear()
    m.weight = torch.arange(9, { dtype = D }):reshape(3, 3)
    return { m.weight:detach(), m.parametrizations.weight.original:detach() }
  end,
  parametrize_cached = function()
    local m = sym_linear()
    local same = parametrize.cached(function() return rawequal(m.weight, m.weight) end)
    return { same, rawequal(m.weight, m.weight), parametrize.is_parametrized(m),
      parametrize.is_parametrized(m, "weight"), parametrize.is_parametrized(m, "bias") }
  end,
  parametrize_remove_leave = function() return parametrize_remove(true) end,
  parametrize_remove_original = function() return parametrize_remove(false) end,
  error_parametrize_missing = function() parametrize.register_parametrization(nn.Linear(3, 3), "foo", Symmetric()) end,
  error_parametrize_remove_missing = function() parametrize.remove_parametrizations(nn.Linear(3, 3), "weight") end,
  error_parametrize_shape = function() parametrize.register_parametrization(nn.Linear(3, 3), "weight", Reshape()) end,

  orthogonal_square = { function() return orthogonal_case(3, 3, 1) end, tol = tol },
  orthogonal_wide_householder = { function() return orthogonal_case(3, 4, 2) end, tol = tol },
  orthogonal_tall_cayley = { function() return orthogonal_case(4, 3, 3, "cayley") end, tol = tol },
  orthogonal_matrix_exp_wide = { function() return orthogonal_case(3, 5, 4, "matrix_exp") end, tol = tol },
  -- (PyTorch's weight keeps LAPACK's column-major layout here)
  orthogonal_householder_no_trivialization = { function() return orthogonal_case(4, 3, 5, "householder", false) end,
    tol = tol, ignore_strides = true },
  orthogonal_keys = function()
    torch.manual_seed(1)
    return state_keys(parametrizations.orthogonal(nn.Linear(3, 3):double()))
  end,
  orthogonal_assign = { function()
    torch.manual_seed(8)
    local m = parametrizations.orthogonal(nn.Linear(4, 3):double(), { orthogonal_map = "householder" })
    local q = torch.linalg.qr(((torch.arange(12, { dtype = D }) ^ 2):reshape(4, 3) * 0.31):sin())
    m.weight = q.mT
    return { m.weight:detach(), m.parametrizations.weight.original:detach() }
  end, tol = tol },
  error_orthogonal_vector = function() parametrizations.orthogonal(nn.Linear(3, 3), "bias") end,
  error_orthogonal_map = function() parametrizations.orthogonal(nn.Linear(3, 3), { orthogonal_map = "qr" }) end,
  parametrizations_spectral_norm_train = { function() return new_spectral_norm(true) end, tol = tol },
  parametrizations_spectral_norm_eval = { function() return new_spectral_norm(false) end, tol = tol },
  parametrizations_spectral_norm_keys = function()
    return state_keys(parametrizations.spectral_norm(nn.Linear(5, 3)))
  end,
  parametrizations_spectral_norm_conv_transpose = { function()
    torch.manual_seed(10)
    local m = parametrizations.spectral_norm(nn.ConvTranspose1d(2, 3, 2):double())
    local x = (torch.arange(8, { dtype = D }):reshape(1, 2, 4) * 0.3):cos():requires_grad_()
    return forward_grads(m, x, function() return { m.parametrizations.weight[1]._u } end)
  end, tol = tol },
  error_parametrizations_spectral_norm_dim = { function()
    parametrizations.spectral_norm(nn.Linear(5, 3), { dim = 3 })
  end, expect = sn_dim_range },

  fuse_conv_bn_eval = { function()
    torch.manual_seed(12)
    local conv = nn.Conv2d(2, 3, 2):double():eval()
    local bn = bn_with_stats(3, nn.BatchNorm2d)
    local fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    local x = (torch.arange(32, { dtype = D }):reshape(1, 2, 4, 4) * 0.3):sin()
    return { fused(x):detach(), fused.weight:detach(), fused.bias:detach() }
  end, tol = tol },
  fuse_conv_bn_weights_transpose = { function()
    torch.manual_seed(13)
    local conv = nn.ConvTranspose2d(2, 3, 2, { bias = false }):double():eval()
    local bn = bn_with_stats(3, nn.BatchNorm2d)
    local w, b = nn.utils.fuse_conv_bn_weights(conv.weight, conv.bias or nil, bn.running_mean, bn.running_var, bn.eps,
      bn.weight, bn.bias, { transpose = true })
    return { w:detach(), b:detach() }
  end, tol = tol },
  fuse_linear_bn_eval = { function()
    torch.manual_seed(14)
    local lin = nn.Linear(4, 3):double():eval()
    local bn = bn_with_stats(3, nn.BatchNorm1d)
    local fused = nn.utils.fusion.fuse_linear_bn_eval(lin, bn)
    return { fused(lin_input(4):detach()):detach(), fused.weight:detach(), fused.bias:detach() }
  end, tol = tol },
  error_fuse_training = function() nn.utils.fuse_conv_bn_eval(nn.Conv2d(2, 3, 2), nn.BatchNorm2d(3)) end,
  clip_grad_value = function()
    local a, b = clip_tensors()
    nn.utils.clip_grad_value_({ a, b }, 2.5)
    nn.utils.clip_grad_value_(a, 1)
    return { a.grad, b.grad }
  end,
  clip_grad_norm_alias = { function()
    local a = torch.tensor({ { 3.0, -4.0 }, { 1.0, 2.0 } }, { dtype = D, requires_grad = true })
    ;(a * a):sum():backward()
    local total = nn.utils.clip_grad_norm(a, 1.5)
    return { total, a.grad }
  end, tol = 1e-12 },
  functional_call = function()
    torch.manual_seed(15)
    local m = nn.Sequential(nn.Linear(3, 2), nn.Tanh()):double()
    local w = (torch.arange(6, { dtype = D }):reshape(2, 3) * 0.2):cos():requires_grad_()
    local x = lin_input(3)
    local out = nn.utils.stateless.functional_call(m, { ["0.weight"] = w }, { x })
    ;(out * weights_like(out)):sum():backward()
    return { out:detach(), w.grad, x.grad, m[1].bias.grad, m[1].weight:detach() }
  end,
  skip_init = function()
    local m = nn.utils.skip_init(nn.Linear, 5, 3, { dtype = D })
    return { { table.unpack(m.weight.shape) }, tostring(m.weight.dtype), tostring(m.weight.device),
      m.weight.requires_grad, state_keys(m) }
  end,
}
-- every value within tol (sin and cos of the inputs may differ from PyTorch's in the last bit)
for name, case in pairs(cases) do
  if type(case) == "function" then cases[name] = { case, tol = tol } end
end
H.run("nn_utils", cases)
