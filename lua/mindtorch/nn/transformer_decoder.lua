-- transformer_decoder.lua: nn.TransformerDecoderLayer, nn.TransformerDecoder and the whole
-- nn.Transformer (encoder, decoder, final norms), PyTorch 1.13's, built on the encoder side and
-- MultiheadAttention of transformer.lua.
return function(torch, nn)
  local Module, F, init = nn.Module, nn.functional, nn.init
  local args = require "mindtorch._args"
  local deepcopy = nn._deepcopy

  local function check_module(v, what)
    if type(v) ~= "table" or not v.parameters then
      error(("__init__(): argument '%s' must be a Module, not %s"):format(what, args.py_type(v)), 3)
    end
  end

  -- num_layers deep copies of layer (each starts with layer's weights); the loop is bounded by
  -- the bytes the copies would take first, as TransformerEncoder's
  local function clones(layer, num_layers)
    local bytes = 4096
    for _, p in ipairs(layer:parameters()) do bytes = bytes + p:numel() * p:element_size() end
    args.int("num_layers", num_layers, nil, bytes, 4)
    local list = {}
    for i = 1, num_layers do list[i] = deepcopy(layer) end
    return nn.ModuleList(list)
  end

  -- ---- TransformerDecoderLayer ---------------------------------------------------------------------------
  local TransformerDecoderLayer = Module:subclass("nn.TransformerDecoderLayer")
  local layer_names = { "d_model", "nhead", "dim_feedforward", "dropout", "activation", "layer_norm_eps", "batch_first",
    "norm_first", "device", "dtype" }
  local layer_defaults = { dim_feedforward = 2048, dropout = 0.1, activation = "relu", layer_norm_eps = 1e-5,
    batch_first = false, norm_first = false }

  -- nn.TransformerDecoderLayer(d_model, nhead, dim_feedforward = 2048, dropout = 0.1,
  -- activation = "relu" (or "gelu", a function, a module), layer_norm_eps = 1e-5,
  -- batch_first = false, norm_first = false), or an options table. Submodules are made in
  -- PyTorch's order, so a seeded construction draws the same weights.
  function TransformerDecoderLayer:__init(...)
    local o = args.parse_at(3, "__init__", layer_names, layer_defaults, ...)
    args.require("__init__", o, { "d_model", "nhead" })
    Module.__init(self)
    local fo = { dtype = o.dtype, device = o.device }
    local mha = { dropout = o.dropout, batch_first = o.batch_first, dtype = o.dtype, device = o.device }
    self.self_attn = nn.MultiheadAttention(o.d_model, o.nhead, mha)
    self.multihead_attn = nn.MultiheadAttention(o.d_model, o.nhead, mha)
    self.linear1 = nn.Linear(o.d_model, o.dim_feedforward, fo)
    self.dropout = nn.Dropout(o.dropout)
    self.linear2 = nn.Linear(o.dim_feedforward, o.d_model, fo)
    self.norm_first = o.norm_first
    for i = 1, 3 do
      local norm = nn.LayerNorm(o.d_model, { eps = o.layer_norm_eps })
      if o.dtype or o.device then norm:to(fo) end
      self["norm" .. i] = norm
    end
    for i = 1, 3 do self["dropout" .. i] = nn.Dropout(o.dropout) end
    local act = o.activation
    if type(act) == "string" then act = nn._activation_fn(act) end
    self.activation = act -- a module registers as a child (shown in the repr), a function does not
  end

  local layer_fwd_names = { "tgt", "memory", "tgt_mask", "memory_mask", "tgt_key_padding_mask",
    "memory_key_padding_mask" }
  local function parse_decoder_forward(...)
    local a = args.parse_at(4, "forward", layer_fwd_names, {}, ...)
    for i, k in ipairs(layer_fwd_names) do args.tensor("forward", k, i, a[k], i > 2) end
    return a
  end

  -- forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask),
  -- or forward(tgt, memory, {tgt_mask = ..., ...})
  function TransformerDecoderLayer:forward(...)
    local a = parse_decoder_forward(...)
    local x, memory = a.tgt, a.memory
    if self.norm_first then
      x = x + self:_sa_block(self.norm1(x), a.tgt_mask, a.tgt_key_padding_mask)
      x = x + self:_mha_block(self.norm2(x), memory, a.memory_mask, a.memory_key_padding_mask)
      x = x + self:_ff_block(self.norm3(x))
    else
      x = self.norm1(x + self:_sa_block(x, a.tgt_mask, a.tgt_key_padding_mask))
      x = self.norm2(x + self:_mha_block(x, memory, a.memory_mask, a.memory_key_padding_mask))
      x = self.norm3(x + self:_ff_block(x))
    end
    return x
  end

  function TransformerDecoderLayer:_sa_block(x, attn_mask, key_padding_mask)
    local out = self.self_attn(x, x, x, { attn_mask = attn_mask, key_padding_mask = key_padding_mask, need_weights = false })
    return self.dropout1(out)
  end

  function TransformerDecoderLayer:_mha_block(x, memory, attn_mask, key_padding_mask)
    local out = self.multihead_attn(x, memory, memory, { attn_mask = attn_mask, key_padding_mask = key_padding_mask,
      need_weights = false })
    return self.dropout2(out)
  end

  function TransformerDecoderLayer:_ff_block(x)
    return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))
  end
  nn.TransformerDecoderLayer = TransformerDecoderLayer

  -- ---- TransformerDecoder ---------------------------------------------------------------------------------
  local TransformerDecoder = Module:subclass("nn.TransformerDecoder")
  local decoder_names = { "decoder_layer", "num_layers", "norm" }

  -- nn.TransformerDecoder(decoder_layer, num_layers, norm = nil)
  function TransformerDecoder:__init(...)
    local o = args.parse_at(3, "__init__", decoder_names, {}, ...)
    args.require("__init__", o, { "decoder_layer", "num_layers" })
    check_module(o.decoder_layer, "decoder_layer")
    Module.__init(self)
    self.layers = clones(o.decoder_layer, o.num_layers)
    self.num_layers = o.num_layers
    self.norm = o.norm
  end

  function TransformerDecoder:forward(...)
    local a = parse_decoder_forward(...)
    local out = a.tgt
    local masks = { tgt_mask = a.tgt_mask, memory_mask = a.memory_mask, tgt_key_padding_mask = a.tgt_key_padding_mask,
      memory_key_padding_mask = a.memory_key_padding_mask }
    for _, layer in ipairs(self.layers:children()) do out = layer(out, a.memory, masks) end
    if self.norm then out = self.norm(out) end
    return out
  end
  nn.TransformerDecoder = TransformerDecoder

  -- ---- Transformer ------------------------------------------------------------------------------------------
  local Transformer = Module:subclass("nn.Transformer")
  local transformer_names = { "d_model", "nhead", "num_encoder_layers", "num_decoder_layers", "dim_feedforward",
    "dropout", "activation", "custom_encoder", "custom_decoder", "layer_norm_eps", "batch_first", "norm_first", "device",
    "dtype" }
  local transformer_defaults = { d_model = 512, nhead = 8, num_encoder_layers = 6, num_decoder_layers = 6,
    dim_feedforward = 2048, dropout = 0.1, activation = "relu", layer_norm_eps = 1e-5, batch_first = false,
    norm_first = false }

  -- nn.Transformer(d_model = 512, nhead = 8, num_encoder_layers = 6, num_decoder_layers = 6,
  -- dim_feedforward = 2048, dropout = 0.1, activation = "relu", custom_encoder, custom_decoder,
  -- layer_norm_eps = 1e-5, batch_first = false, norm_first = false), or an options table.
  -- Every parameter of more than one dim is then redrawn with xavier_uniform_, as PyTorch's.
  function Transformer:__init(...)
    local o = args.parse_at(3, "__init__", transformer_names, transformer_defaults, ...)
    Module.__init(self)
    local fo = { dtype = o.dtype, device = o.device }
    local layer_opts = { dim_feedforward = o.dim_feedforward, dropout = o.dropout, activation = o.activation,
      layer_norm_eps = o.layer_norm_eps, batch_first = o.batch_first, norm_first = o.norm_first, dtype = o.dtype,
      device = o.device }
    local function final_norm()
      local norm = nn.LayerNorm(o.d_model, { eps = o.layer_norm_eps })
      if o.dtype or o.device then norm:to(fo) end
      return norm
    end
    if o.custom_encoder ~= nil then
      check_module(o.custom_encoder, "custom_encoder")
      self.encoder = o.custom_encoder
    else
      local layer = nn.TransformerEncoderLayer(o.d_model, o.nhead, layer_opts)
      self.encoder = nn.TransformerEncoder(layer, o.num_encoder_layers, final_norm())
    end
    if o.custom_decoder ~= nil then
      check_module(o.custom_decoder, "custom_decoder")
      self.decoder = o.custom_decoder
    else
      local layer = TransformerDecoderLayer(o.d_model, o.nhead, layer_opts)
      self.decoder = TransformerDecoder(layer, o.num_decoder_layers, final_norm())
    end
    self:_reset_parameters()
    self.d_model, self.nhead, self.batch_first = o.d_model, o.nhead, o.batch_first
  end

  function Transformer:_reset_parameters()
    for _, p in ipairs(self:parameters()) do
      if p:dim() > 1 then init.xavier_uniform_(p) end
    end
  end

  local transformer_fwd_names = { "src", "tgt", "src_mask", "tgt_mask", "memory_mask", "src_key_padding_mask",
    "tgt_key_padding_mask", "memory_key_padding_mask" }

  -- forward(src, tgt, src_mask, tgt_mask, memory_mask, src_key_padding_mask,
  -- tgt_key_padding_mask, memory_key_padding_mask), or forward(src, tgt, {tgt_mask = ..., ...})
  function Transformer:forward(...)
    local a = args.parse_at(3, "forward", transformer_fwd_names, {}, ...)
    for i, k in ipairs(transformer_fwd_names) do args.tensor("forward", k, i, a[k], i > 2) end
    local src, tgt = a.src, a.tgt
    local batch_dim = self.batch_first and 1 or 2
    if src:dim() == 3 and (tgt:dim() < batch_dim or src:size(batch_dim) ~= tgt:size(batch_dim)) then
      error("the batch number of src and tgt must be equal", 2)
    end
    if src:size(-1) ~= self.d_model or tgt:size(-1) ~= self.d_model then
      error("the feature number of src and tgt must be equal to d_model", 2)
    end
    local memory = self.encoder(src, { mask = a.src_mask, src_key_padding_mask = a.src_key_padding_mask })
    return self.decoder(tgt, memory, { tgt_mask = a.tgt_mask, memory_mask = a.memory_mask,
      tgt_key_padding_mask = a.tgt_key_padding_mask, memory_key_padding_mask = a.memory_key_padding_mask })
  end

  -- Transformer.generate_square_subsequent_mask(sz, device): -inf above the diagonal, 0 elsewhere
  -- (a static method in PyTorch: called with '.' on the class or an instance)
  function Transformer.generate_square_subsequent_mask(sz, device)
    if type(sz) == "table" and rawget(sz, "_modules") then error("generate_square_subsequent_mask is static: call "
      .. "nn.Transformer.generate_square_subsequent_mask(sz), with '.'", 2) end
    args.int("sz", sz, 0, nil, 3)
    local full = device and torch.full({ sz, sz }, -math.huge, { device = device }) or torch.full({ sz, sz }, -math.huge)
    return torch.triu(full, 1)
  end
  nn.Transformer = Transformer
end
