-- PyTorch-saved state_dicts loaded by name (cases/state_dicts.py): each module's state_dict,
-- written by PyTorch as a safetensors file, is loaded strictly into the same module built here
-- from another seed; the eval-mode output on the same input must be PyTorch's (within 1e-10)
-- and the state_dict keys the same.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn = torch.nn

local D = torch.float64
local goldens = H.load("state_dicts")

local function wave(shape, f, off)
  local n = 1
  for i = 1, #shape do n = n * shape[i] end
  return torch.arange(n, { dtype = D }):reshape(shape):mul(f):add(off or 0.0):sin()
end
local function x(...)
  local shape = { ... }
  local f = 0.37
  if type(shape[#shape]) == "table" then f = table.remove(shape).f end
  return function() return wave(shape, f) end
end

-- name -> { make, inputs }: the Lua twin of each Python case
local MODULES = {
  linear = { function() return nn.Linear(4, 3) end, { x(2, 4) } },
  bilinear = { function() return nn.Bilinear(3, 2, 4) end, { x(2, 3), x(2, 2, { f = 0.5 }) } },
  conv1d = { function() return nn.Conv1d(2, 3, 3, { padding = 1 }) end, { x(2, 2, 5) } },
  conv2d = { function() return nn.Conv2d(2, 3, 3, { stride = 2 }) end, { x(1, 2, 6, 6) } },
  conv_transpose2d = { function() return nn.ConvTranspose2d(2, 3, 3, { stride = 2 }) end, { x(1, 2, 3, 3) } },
  batch_norm1d = { function() return nn.BatchNorm1d(3) end, { x(4, 3) } },
  batch_norm2d = { function() return nn.BatchNorm2d(3) end, { x(2, 3, 2, 2) } },
  layer_norm = { function() return nn.LayerNorm({ 3, 4 }) end, { x(2, 3, 4) } },
  group_norm = { function() return nn.GroupNorm(2, 4) end, { x(2, 4, 3) } },
  embedding = { function() return nn.Embedding(5, 3, { padding_idx = 2 }) end,
    { function() return torch.tensor({ { 1, 5, 2 }, { 3, 4, 4 } }) end } },
  lstm = { function() return nn.LSTM(3, 4, 2, { bidirectional = true }) end, { x(5, 2, 3) } },
  gru = { function() return nn.GRU(3, 4, { batch_first = true }) end, { x(2, 5, 3) } },
  rnn_cell = { function() return nn.RNNCell(3, 4) end, { x(2, 3) } },
  mha = { function() return nn.MultiheadAttention(8, 2, { kdim = 3, vdim = 5 }) end,
    { x(4, 2, 8), x(5, 2, 3), x(5, 2, 5) } },
  transformer = { function() return nn.Transformer(8, 2, 1, 2, 16) end, { x(4, 2, 8), x(3, 2, 8, { f = 0.53 }) } },
  conv3d = { function() return nn.Conv3d(2, 3, 2, { padding = 1 }) end, { x(1, 2, 3, 3, 3) } },
  conv_transpose3d = { function() return nn.ConvTranspose3d(2, 3, 2, { stride = 2 }) end, { x(1, 2, 2, 2, 2) } },
  max_pool3d = { function() return nn.MaxPool3d(2, { stride = 1, padding = 1 }) end, { x(1, 2, 3, 3, 3) } },
  batch_norm3d = { function() return nn.BatchNorm3d(2) end, { x(2, 2, 2, 2, 2) } },
  instance_norm1d = { function() return nn.InstanceNorm1d(3, { affine = true, track_running_stats = true }) end,
    { x(2, 3, 5) } },
  instance_norm2d_unbatched = { function() return nn.InstanceNorm2d(2, { affine = true }) end, { x(2, 3, 4) } },
  instance_norm3d = { function() return nn.InstanceNorm3d(2) end, { x(2, 2, 2, 3, 2) } },
  prelu = { function() return nn.PReLU(3) end, { x(2, 3, 4) } },
  sequential = { function()
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3))
  end, { x(2, 1, 4, 4) } },
  conv_transpose1d = { function() return nn.ConvTranspose1d(2, 3, 3, { stride = 2, padding = 1 }) end, { x(2, 2, 4) } },
  rnn = { function() return nn.RNN(3, 4, 2, { nonlinearity = "relu" }) end, { x(5, 2, 3) } },
  lstm_cell = { function() return nn.LSTMCell(3, 4) end, { x(2, 3) } },
  gru_cell = { function() return nn.GRUCell(3, 4) end, { x(2, 3) } },
  embedding_bag = { function() return nn.EmbeddingBag(6, 3, { mode = "mean" }) end,
    { function() return torch.tensor({ { 1, 5, 2 }, { 3, 6, 4 } }) end } },
  cross_entropy_weight = { function() return nn.CrossEntropyLoss({ weight = torch.tensor({ 0.5, 1.0, 2.0 }) }) end,
    { x(4, 3), function() return torch.tensor({ 1, 3, 2, 3 }) end } },
  bce_with_logits_pos_weight = { function()
    return nn.BCEWithLogitsLoss({ pos_weight = torch.tensor({ 1.0, 2.0, 0.5 }) })
  end, { x(4, 3), function() return wave({ 4, 3 }, 0.9):abs() end } },
  transformer_encoder = { function()
    return nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, { norm = nn.LayerNorm(8) })
  end, { x(4, 2, 8) } },
  transformer_decoder_layer = { function() return nn.TransformerDecoderLayer(8, 2, 16, { norm_first = true }) end,
    { x(4, 2, 8), x(3, 2, 8, { f = 0.53 }) } },
  -- PyTorch's Linear state_dict loaded into a lazy one: the shapes come from the file
  lazy_linear = { function() return nn.Sequential(nn.LazyLinear(3)) end, { x(2, 4) } },
  local_response_norm = { function() return nn.LocalResponseNorm(3) end, { x(2, 4, 3) } },
  adaptive_log_softmax = { function()
    return nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 4, 8 }, { div_value = 2.0 })
  end, { x(3, 8), function() return torch.tensor({ 1, 5, 10 }) end } },
  nll_loss_weight = { function() return nn.NLLLoss({ weight = torch.tensor({ 0.5, 1.0, 2.0 }) }) end,
    { function() return wave({ 4, 3 }, 0.37):log_softmax(2) end, function() return torch.tensor({ 1, 3, 2, 3 }) end } },
}

local function unhex(s) return (s:gsub("..", function(h) return string.char(tonumber(h, 16)) end)) end

describe("contract state_dicts", function()
  it("has a Lua twin for every PyTorch case", function()
    for _, name in ipairs(H.sorted_keys(goldens)) do assert.is_not_nil(MODULES[name], name) end
    for name in pairs(MODULES) do assert.is_not_nil(goldens[name], name) end
  end)
  for _, name in ipairs(H.sorted_keys(MODULES)) do
    it(name, function()
      local g = assert(goldens[name].value, goldens[name].error)
      local path = os.tmpname()
      local f = assert(io.open(path, "wb"))
      f:write(unhex(g.file))
      f:close()
      local sd = torch.load_safetensors(path)
      os.remove(path)
      torch.manual_seed(42)
      local make, inputs = table.unpack(MODULES[name])
      local m = make():double()
      m:load_state_dict(sd)
      m:eval()
      local keys = {}
      for k in pairs(m:state_dict()) do keys[#keys + 1] = k end
      table.sort(keys)
      assert.are.same(g.keys, keys)
      local xs = {}
      for i, mk in ipairs(inputs) do xs[i] = mk() end
      local out = m(table.unpack(xs))
      if type(out) == "table" and not torch.is_tensor(out) then out = out[1] end
      assert.are.same(g.shape, out:size())
      local want = torch.tensor(g.values, { dtype = D }):reshape(g.shape)
      local diff = (out:detach() - want):abs():max():item()
      assert.is_true(diff <= 1e-10, ("%s: max difference %g"):format(name, diff))
    end)
  end
end)
