-- _rnn.lua: the computation of PyTorch's recurrent layers, shared by nn.RNN/LSTM/GRU
-- (nn/recurrent.lua) and the ATen functions torch.rnn_tanh, rnn_relu, lstm and gru
-- (_nn_functions.lua). Each layer and direction projects its whole input sequence with one
-- matrix product, as PyTorch does; only the recurrent product h W_hh^T runs per time step.
local torch = require "mindtorch"
local M = {}

-- ---- one time step of each cell -------------------------------------------------------------------
-- xp: the input projection x W_ih^T + b_ih (+ b_hh where it can be folded in), [B, G];
-- whh_t: W_hh^T; these return the new h (and c).
local function rnn_step(act)
  return function(xp, h, _, whh_t)
    local pre = torch.addmm(xp, h, whh_t)
    if act == "relu" then return pre:relu() end
    return pre:tanh()
  end
end

local function lstm_step(xp, h, c, whh_t, _, _, whr_t)
  local g = torch.addmm(xp, h, whh_t):chunk(4, 2)
  c = g[2]:sigmoid() * c + g[1]:sigmoid() * g[3]:tanh()
  h = g[4]:sigmoid() * c:tanh()
  if whr_t then h = h:mm(whr_t) end
  return h, c
end

-- GRU keeps b_hn inside the reset gate's product, so its b_hh is added per step
local function gru_step(xp, h, _, whh_t, b_hh, H)
  local hp = b_hh and torch.addmm(b_hh, h, whh_t) or h:mm(whh_t)
  local xs, hs = xp:split({ 2 * H, H }, 2), hp:split({ 2 * H, H }, 2)
  local rz = (xs[1] + hs[1]):chunk(2, 2)
  local r, z = rz[1]:sigmoid(), rz[2]:sigmoid()
  local n = (xs[2] + r * hs[2]):tanh()
  return (h - n) * z + n
end

local steps = { RNN_TANH = rnn_step("tanh"), RNN_RELU = rnn_step("relu"), LSTM = lstm_step, GRU = gru_step }

-- the input-side bias: b_ih + b_hh except for GRU (whose b_hn stays apart)
local function input_bias(mode, b_ih, b_hh)
  if not b_ih then return nil end
  if mode == "GRU" then return b_ih end
  return b_ih + b_hh
end

-- one layer in one direction over x [T, B, I]: returns the outputs [T, B, H'] and the last h, c
local function run_direction(mode, x, h, c, w, reverse)
  local T, B = x.shape[1], x.shape[2]
  local G = w.w_ih.shape[1]
  local H = w.w_hh.shape[2]
  local x2 = x:reshape(T * B, x.shape[3])
  local bias = input_bias(mode, w.b_ih, w.b_hh)
  local xp = bias and torch.addmm(bias, x2, w.w_ih:t()) or x2:mm(w.w_ih:t())
  xp = xp:view(T, B, G):unbind(1)
  local step, whh_t, whr_t = steps[mode], w.w_hh:t(), w.w_hr and w.w_hr:t()
  local outs = {}
  local t0, t1, dt = 1, T, 1
  if reverse then t0, t1, dt = T, 1, -1 end
  for t = t0, t1, dt do
    h, c = step(xp[t], h, c, whh_t, w.b_hh, H, whr_t)
    outs[t] = h
  end
  return torch.stack(outs, 1), h, c
end

M.steps, M.input_bias = steps, input_bias

-- run(mode, input [T, B, I], hx [L*D, B, H], cx, weights, num_layers, bidirectional, dropout,
-- train): the output [T, B, D*H'] and the stacked last h (and c); weights[l * D + d + 1] is
-- {w_ih, w_hh, b_ih, b_hh, w_hr} of layer l, direction d. Dropout (the default generator)
-- between layers when training, as ATen's.
function M.run(mode, input, hx, cx, weights, num_layers, bidirectional, dropout, train)
  local nd = bidirectional and 2 or 1
  local hs, cs = hx:unbind(1), cx and cx:unbind(1)
  local hn, cn = {}, {}
  local layer_input = input
  for l = 0, num_layers - 1 do
    local outs = {}
    for d = 0, nd - 1 do
      local idx = l * nd + d + 1
      outs[d + 1], hn[idx], cn[idx] = run_direction(mode, layer_input, hs[idx], cs and cs[idx], weights[idx], d == 1)
    end
    local out = nd == 2 and torch.cat(outs, 3) or outs[1]
    if dropout > 0 and train and l < num_layers - 1 then out = torch.dropout(out, dropout, true) end
    layer_input = out
  end
  return layer_input, torch.stack(hn, 1), cx and torch.stack(cn, 1)
end

return M
