-- The decoder side of nn's transformer against PyTorch (cases/transformer.py):
-- TransformerDecoderLayer, TransformerDecoder, nn.Transformer, and a toy copy task trained from
-- the same seed. Float64 results within 1e-10; the copy task's losses within 1e-9.
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

local TGT_CAUSAL = torch.tensor({ { false, true, true }, { false, false, true }, { false, false, false } })
local TGT_KPM = torch.tensor({ { false, false, true }, { false, false, false } })
local MEM_KPM = torch.tensor({ { false, false, false, true }, { false, true, false, false } })
local MEM_MASK = wave({ 3, 4 }, 0.83) * 2

local function run(kind, o)
  o = o or {}
  torch.manual_seed(3)
  local kw = { activation = o.activation or "relu", batch_first = o.batch_first or false,
    norm_first = o.norm_first or false }
  local m
  if kind == "layer" then
    m = nn.TransformerDecoderLayer(8, 2, 16, kw)
  elseif kind == "decoder" then
    m = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, kw), 2, { norm = nn.LayerNorm(8) })
  else
    m = nn.Transformer(8, 2, 2, 2, 16, kw)
  end
  m:double()
  m:train(o.train or false)
  local T, S, N = 3, 4, 2
  local tshape, sshape
  if o.unbatched then
    tshape, sshape = { T, 8 }, { S, 8 }
  elseif o.batch_first then
    tshape, sshape = { N, T, 8 }, { N, S, 8 }
  else
    tshape, sshape = { T, N, 8 }, { S, N, 8 }
  end
  local tgt = wave(tshape, 0.37):requires_grad_()
  local src = wave(sshape, 0.53, 0.2):requires_grad_()
  local out
  if kind == "transformer" then out = m(src, tgt, o.masks or {}) else out = m(tgt, src, o.masks or {}) end
  weighted_sum({ out }):backward()
  local res = { out:detach(), tgt.grad, src.grad }
  for _, p in ipairs(m:parameters()) do res[#res + 1] = p.grad end
  return res
end

local function init_of(make, seed)
  torch.manual_seed(seed or 5)
  local m = make()
  local out = {}
  for _, p in ipairs(m:parameters()) do out[#out + 1] = p:detach() end
  return out
end

local function keys_of(m)
  local keys = {}
  for k in pairs(m:state_dict()) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

-- the toy copy task: embeddings, nn.Transformer, a projection to the vocabulary; class
-- targets are 1-based here, so the tokens are PyTorch's plus one
local CopyModel = nn.Module:subclass("CopyModel")
function CopyModel:__init(vocab, d)
  nn.Module.__init(self)
  vocab, d = vocab or 8, d or 16
  self.embed = nn.Embedding(vocab, d)
  self.transformer = nn.Transformer(d, 2, 2, 2, 32, { dropout = 0.1 })
  self.out = nn.Linear(d, vocab)
end
function CopyModel:forward(src, tgt, tgt_mask)
  return self.out(self.transformer(self.embed(src), self.embed(tgt), { tgt_mask = tgt_mask }))
end

local function copy_task(steps)
  torch.manual_seed(11)
  local model = CopyModel():double()
  local opt = torch.optim.Adam(model:parameters(), { lr = 0.01 })
  local k = torch.arange(30):reshape(6, 5)
  local seqs = (k * 7 + k // 4) % 6 + 3 -- tokens 3..8 (PyTorch's 2..7); 1 is the start token
  local tgt_in = torch.cat({ torch.ones(1, 5, { dtype = torch.int64 }), seqs[{ { 1, 5 } }] })
  local mask = nn.Transformer.generate_square_subsequent_mask(6):double()
  local losses = {}
  for _ = 1, steps or 12 do
    opt:zero_grad()
    local logits = model(seqs, tgt_in, mask)
    local loss = nn.functional.cross_entropy(logits:reshape(-1, 8), seqs:reshape(-1))
    loss:backward()
    opt:step()
    losses[#losses + 1] = loss:item()
  end
  return { torch.tensor(losses, { dtype = D }), model.out.weight:detach() }
end

local function f64(fn) return { fn, tol = TOL } end
local randn = torch.randn

H.run("transformer", {
  layer_relu = f64(function() return run("layer") end),
  layer_norm_first_gelu = f64(function() return run("layer", { norm_first = true, activation = "gelu" }) end),
  layer_batch_first_masks = f64(function()
    return run("layer", { batch_first = true, masks = { tgt_mask = TGT_CAUSAL, tgt_key_padding_mask = TGT_KPM,
      memory_key_padding_mask = MEM_KPM } })
  end),
  layer_float_memory_mask = f64(function() return run("layer", { masks = { memory_mask = MEM_MASK } }) end),
  layer_unbatched = f64(function() return run("layer", { unbatched = true, masks = { tgt_mask = TGT_CAUSAL } }) end),
  layer_train = f64(function() return run("layer", { train = true }) end),
  decoder = f64(function() return run("decoder") end),
  decoder_norm_first_masks = f64(function()
    return run("decoder", { norm_first = true, masks = { tgt_mask = TGT_CAUSAL, memory_key_padding_mask = MEM_KPM } })
  end),
  transformer = f64(function() return run("transformer") end),
  transformer_batch_first_masks = f64(function()
    return run("transformer", { batch_first = true, masks = { tgt_mask = TGT_CAUSAL, src_key_padding_mask = MEM_KPM,
      memory_key_padding_mask = MEM_KPM, tgt_key_padding_mask = TGT_KPM } })
  end),
  transformer_norm_first_gelu = f64(function()
    return run("transformer", { norm_first = true, activation = "gelu" })
  end),
  transformer_train = f64(function() return run("transformer", { train = true }) end),
  init_layer = function() return init_of(function() return nn.TransformerDecoderLayer(8, 2, 16) end) end,
  init_transformer = function() return init_of(function() return nn.Transformer(8, 2, 1, 2, 16) end) end,
  names_layer = function()
    local out = {}
    for n in nn.TransformerDecoderLayer(8, 2, 16):named_parameters() do out[#out + 1] = n end
    return out
  end,
  keys_transformer = function() return keys_of(nn.Transformer(8, 2, 1, 1, 16)) end,
  keys_decoder_no_norm = function()
    return keys_of(nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2))
  end,
  repr_layer = function() return tostring(nn.TransformerDecoderLayer(8, 2, 16, { layer_norm_eps = 1e-6 })) end,
  repr_layer_gelu_module = function()
    return tostring(nn.TransformerDecoderLayer(8, 2, 16, { activation = nn.GELU() }))
  end,
  repr_transformer = function() return tostring(nn.Transformer(8, 2, 1, 1, 16)) end,
  square_mask = function() return nn.Transformer.generate_square_subsequent_mask(4) end,
  copy_task = { function() return copy_task(12) end, tol = 1e-9 },
  error_batch = function() return nn.Transformer(8, 2, 1, 1, 16)(randn(4, 2, 8), randn(3, 3, 8)) end,
  error_d_model = function() return nn.Transformer(8, 2, 1, 1, 16)(randn(4, 2, 8), randn(3, 2, 6)) end,
  error_activation = function() return nn.TransformerDecoderLayer(8, 2, { activation = "tanh" }) end,
  error_heads = function() return nn.TransformerDecoderLayer(8, 3) end,
})
