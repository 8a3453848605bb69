-- transformer.lua: F.multi_head_attention_forward, nn.MultiheadAttention,
-- nn.TransformerEncoderLayer and nn.TransformerEncoder, PyTorch 1.13's (its general path: the
-- fused fast paths compute the same thing) written with differentiable ops.
return function(torch, nn)
  local Module, F, init = nn.Module, nn.functional, nn.init
  local args = require "mindtorch._args"
  local class = require "mindtorch._class"
  local parse_args = args.parse

  local function tuple(...) -- a Python tuple's text
    local parts = { ... }
    for i = 1, #parts do parts[i] = tostring(parts[i]) end
    if #parts == 1 then return "(" .. parts[1] .. ",)" end
    return "(" .. table.concat(parts, ", ") .. ")"
  end

  local function assert_(cond, msg) -- Python's assert: an AssertionError with PyTorch's text
    if not cond then error(msg, 0) end
  end

  local function same_sizes(t, sizes)
    if t:dim() ~= #sizes then return false end
    for i = 1, #sizes do
      if t:size(i) ~= sizes[i] then return false end
    end
    return true
  end

  -- F.pad(mask, (0, 1)): one zero (False) column appended to the last dim
  local function pad_last(mask)
    local shape = mask:size()
    local s = {}
    for i = 1, #shape do s[i] = shape[i] end
    s[#s] = 1
    return torch.cat({ mask, torch.zeros(s, { dtype = mask.dtype, device = mask.device }) }, -1)
  end

  local function check_kpm_dtype(kpm)
    if kpm ~= nil and kpm.dtype ~= torch.bool and not kpm:is_floating_point() then
      error("only bool and floating types of key_padding_mask are supported", 0)
    end
  end

  -- the shapes multi_head_attention_forward accepts; returns whether query is batched
  local function mha_shape_check(query, key, value, kpm, attn_mask, num_heads)
    if query:dim() == 3 then
      assert_(key:dim() == 3 and value:dim() == 3, ("For batched (3-D) `query`, expected `key` and `value` to be 3-D but "
        .. "found %d-D and %d-D tensors respectively"):format(key:dim(), value:dim()))
      if kpm ~= nil then
        assert_(kpm:dim() == 2, ("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found "
          .. "%d-D tensor instead"):format(kpm:dim()))
      end
      if attn_mask ~= nil then
        assert_(attn_mask:dim() == 2 or attn_mask:dim() == 3, ("For batched (3-D) `query`, expected `attn_mask` to be "
          .. "`None`, 2-D or 3-D but found %d-D tensor instead"):format(attn_mask:dim()))
      end
      return true
    elseif query:dim() == 2 then
      assert_(key:dim() == 2 and value:dim() == 2, ("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D "
        .. "but found %d-D and %d-D tensors respectively"):format(key:dim(), value:dim()))
      if kpm ~= nil then
        assert_(kpm:dim() == 1, ("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
          .. "found %d-D tensor instead"):format(kpm:dim()))
      end
      if attn_mask ~= nil then
        assert_(attn_mask:dim() == 2 or attn_mask:dim() == 3, ("For unbatched (2-D) `query`, expected `attn_mask` to "
          .. "be `None`, 2-D or 3-D but found %d-D tensor instead"):format(attn_mask:dim()))
        if attn_mask:dim() == 3 then
          local expected = { num_heads, query:size(1), key:size(1) }
          assert_(same_sizes(attn_mask, expected), ("Expected `attn_mask` shape to be %s but got %s"):format(
            tuple(table.unpack(expected)), tostring(attn_mask.shape)))
        end
      end
      return false
    end
    error(("query should be unbatched 2D or batched 3D tensor but received %d-D query tensor"):format(query:dim()), 0)
  end

  -- the q, k, v projections with one packed weight [3E, E]; one product for self-attention
  local function in_projection_packed(q, k, v, w, b)
    local E = q:size(-1)
    if rawequal(k, v) then
      if rawequal(q, k) then return table.unpack(F.linear(q, w, b):chunk(3, -1)) end
      local ws = w:split({ E, 2 * E })
      local bq, bkv
      if b ~= nil then
        local bs = b:split({ E, 2 * E })
        bq, bkv = bs[1], bs[2]
      end
      local kv = F.linear(k, ws[2], bkv):chunk(2, -1)
      return F.linear(q, ws[1], bq), kv[1], kv[2]
    end
    local ws = w:chunk(3)
    local bs = b ~= nil and b:chunk(3) or {}
    return F.linear(q, ws[1], bs[1]), F.linear(k, ws[2], bs[2]), F.linear(v, ws[3], bs[3])
  end

  local function in_projection(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v)
    local Eq, Ek, Ev = q:size(-1), k:size(-1), v:size(-1)
    local function check(t, sizes, what)
      assert_(t == nil or same_sizes(t, sizes), ("expecting %s shape of %s, but got %s"):format(what,
        tuple(table.unpack(sizes)), t and tostring(t.shape)))
    end
    check(w_q, { Eq, Eq }, "query weights")
    check(w_k, { Eq, Ek }, "key weights")
    check(w_v, { Eq, Ev }, "value weights")
    check(b_q, { Eq }, "query bias")
    check(b_k, { Eq }, "key bias")
    check(b_v, { Eq }, "value bias")
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)
  end

  local mha_names = { "query", "key", "value", "embed_dim_to_check", "num_heads", "in_proj_weight", "in_proj_bias",
    "bias_k", "bias_v", "add_zero_attn", "dropout_p", "out_proj_weight", "out_proj_bias", "training",
    "key_padding_mask", "need_weights", "attn_mask", "use_separate_proj_weight", "q_proj_weight", "k_proj_weight",
    "v_proj_weight", "static_k", "static_v", "average_attn_weights" }
  local mha_defaults = { add_zero_attn = false, dropout_p = 0.0, training = true, need_weights = true,
    use_separate_proj_weight = false, average_attn_weights = true }

  -- F.multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
  -- in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
  -- out_proj_bias, {training=, key_padding_mask=, need_weights=, attn_mask=,
  -- use_separate_proj_weight=, q_proj_weight=, k_proj_weight=, v_proj_weight=, static_k=,
  -- static_v=, average_attn_weights=}): sequence-first tensors ([L, N, E], or [L, E]
  -- unbatched); returns attn_output and attn_weights (nil unless need_weights).
  function F.multi_head_attention_forward(...)
    local a = parse_args("multi_head_attention_forward", mha_names, mha_defaults, ...)
    for i, k in ipairs { "query", "key", "value" } do args.tensor("multi_head_attention_forward", k, i, a[k]) end
    local query, key, value = a.query, a.key, a.value
    local num_heads = a.num_heads
    local kpm, attn_mask = a.key_padding_mask, a.attn_mask
    local is_batched = mha_shape_check(query, key, value, kpm, attn_mask, num_heads)
    if not is_batched then -- a batch of one, squeezed away at the end
      local same_qk, same_kv = rawequal(query, key), rawequal(key, value)
      query = query:unsqueeze(2)
      key = same_qk and query or key:unsqueeze(2)
      value = same_kv and key or value:unsqueeze(2)
      if kpm ~= nil then kpm = kpm:unsqueeze(1) end
    end
    local tgt_len, bsz, embed_dim = query:size(1), query:size(2), query:size(3)
    local src_len = key:size(1)
    check_kpm_dtype(kpm)
    assert_(embed_dim == a.embed_dim_to_check,
      ("was expecting embedding dimension of %d, but got %d"):format(a.embed_dim_to_check, embed_dim))
    local head_dim = embed_dim // num_heads
    assert_(head_dim * num_heads == embed_dim, ("embed_dim %d not divisible by num_heads %d"):format(embed_dim, num_heads))
    if a.use_separate_proj_weight then
      assert_(key:size(1) == value:size(1) and key:size(2) == value:size(2),
        ("key's sequence and batch dims torch.Size([%d, %d]) do not match value's torch.Size([%d, %d])"):format(
          key:size(1), key:size(2), value:size(1), value:size(2)))
    else
      assert_(tostring(key.shape) == tostring(value.shape),
        ("key shape %s does not match value shape %s"):format(tostring(key.shape), tostring(value.shape)))
    end

    local q, k, v
    if not a.use_separate_proj_weight then
      assert_(a.in_proj_weight ~= nil, "use_separate_proj_weight is False but in_proj_weight is None")
      q, k, v = in_projection_packed(query, key, value, a.in_proj_weight, a.in_proj_bias)
    else
      assert_(a.q_proj_weight ~= nil, "use_separate_proj_weight is True but q_proj_weight is None")
      assert_(a.k_proj_weight ~= nil, "use_separate_proj_weight is True but k_proj_weight is None")
      assert_(a.v_proj_weight ~= nil, "use_separate_proj_weight is True but v_proj_weight is None")
      local bs = a.in_proj_bias ~= nil and a.in_proj_bias:chunk(3) or {}
      q, k, v = in_projection(query, key, value, a.q_proj_weight, a.k_proj_weight, a.v_proj_weight, bs[1], bs[2], bs[3])
    end

    -- the attention mask as [1 or N*heads, L, S]
    if attn_mask ~= nil then
      if attn_mask.dtype == torch.uint8 then
        attn_mask = attn_mask:to(torch.bool) -- (PyTorch warns: byte masks are deprecated)
      else
        assert_(attn_mask:is_floating_point() or attn_mask.dtype == torch.bool,
          ("Only float, byte, and bool types are supported for attn_mask, not %s"):format(tostring(attn_mask.dtype)))
      end
      if attn_mask:dim() == 2 then
        if not same_sizes(attn_mask, { tgt_len, src_len }) then
          error(("The shape of the 2D attn_mask is %s, but should be %s."):format(tostring(attn_mask.shape),
            tuple(tgt_len, src_len)), 0)
        end
        attn_mask = attn_mask:unsqueeze(1)
      elseif attn_mask:dim() == 3 then
        if not same_sizes(attn_mask, { bsz * num_heads, tgt_len, src_len }) then
          error(("The shape of the 3D attn_mask is %s, but should be %s."):format(tostring(attn_mask.shape),
            tuple(bsz * num_heads, tgt_len, src_len)), 0)
        end
      else
        error(("attn_mask's dimension %d is not supported"):format(attn_mask:dim()), 0)
      end
    end

    if a.bias_k ~= nil and a.bias_v ~= nil then
      assert_(a.static_k == nil, "bias cannot be added to static key.")
      assert_(a.static_v == nil, "bias cannot be added to static value.")
      k = torch.cat({ k, a.bias_k["repeat"](a.bias_k, 1, bsz, 1) })
      v = torch.cat({ v, a.bias_v["repeat"](a.bias_v, 1, bsz, 1) })
      if attn_mask ~= nil then attn_mask = pad_last(attn_mask) end
      if kpm ~= nil then kpm = pad_last(kpm) end
    else
      -- (a bare assert in PyTorch)
      assert_(a.bias_k == nil and a.bias_v == nil, "bias_k and bias_v must be given together")
    end

    -- heads batched first: [N*heads, L, head_dim]
    q = q:contiguous():view(tgt_len, bsz * num_heads, head_dim):transpose(1, 2)
    if a.static_k == nil then
      k = k:contiguous():view(k:size(1), bsz * num_heads, head_dim):transpose(1, 2)
    else
      assert_(a.static_k:size(1) == bsz * num_heads,
        ("expecting static_k.size(0) of %d, but got %d"):format(bsz * num_heads, a.static_k:size(1)))
      assert_(a.static_k:size(3) == head_dim,
        ("expecting static_k.size(2) of %d, but got %d"):format(head_dim, a.static_k:size(3)))
      k = a.static_k
    end
    if a.static_v == nil then
      v = v:contiguous():view(v:size(1), bsz * num_heads, head_dim):transpose(1, 2)
    else
      assert_(a.static_v:size(1) == bsz * num_heads,
        ("expecting static_v.size(0) of %d, but got %d"):format(bsz * num_heads, a.static_v:size(1)))
      assert_(a.static_v:size(3) == head_dim,
        ("expecting static_v.size(2) of %d, but got %d"):format(head_dim, a.static_v:size(3)))
      v = a.static_v
    end

    if a.add_zero_attn then
      local zshape = { bsz * num_heads, 1, head_dim }
      k = torch.cat({ k, torch.zeros(zshape, { dtype = k.dtype, device = k.device }) }, 2)
      v = torch.cat({ v, torch.zeros(zshape, { dtype = v.dtype, device = v.device }) }, 2)
      if attn_mask ~= nil then attn_mask = pad_last(attn_mask) end
      if kpm ~= nil then kpm = pad_last(kpm) end
    end
    src_len = k:size(2)

    -- merge the key padding mask into the attention mask
    if kpm ~= nil then
      assert_(same_sizes(kpm, { bsz, src_len }), ("expecting key_padding_mask shape of %s, but got %s"):format(
        tuple(bsz, src_len), tostring(kpm.shape)))
      kpm = kpm:view(bsz, 1, 1, src_len):expand(-1, num_heads, -1, -1):reshape(bsz * num_heads, 1, src_len)
      if attn_mask == nil then
        attn_mask = kpm
      elseif attn_mask.dtype == torch.bool then
        attn_mask = attn_mask:logical_or(kpm)
      else
        attn_mask = attn_mask:masked_fill(kpm, -math.huge)
      end
    end
    if attn_mask ~= nil and attn_mask.dtype == torch.bool then -- True: may not attend (-inf)
      attn_mask = torch.zeros_like(attn_mask, { dtype = q.dtype }):masked_fill_(attn_mask, -math.huge)
    end

    local dropout_p = a.training and a.dropout_p or 0.0
    local E = q:size(3)
    local q_scaled = q / math.sqrt(E)
    local weights
    if attn_mask ~= nil then
      weights = torch.baddbmm(attn_mask, q_scaled, k:transpose(-2, -1))
    else
      weights = torch.bmm(q_scaled, k:transpose(-2, -1))
    end
    weights = weights:softmax(-1)
    if dropout_p > 0.0 then weights = F.dropout(weights, dropout_p) end
    local out = torch.bmm(weights, v)
    out = out:transpose(1, 2):contiguous():view(tgt_len * bsz, embed_dim)
    out = F.linear(out, a.out_proj_weight, a.out_proj_bias)
    out = out:view(tgt_len, bsz, out:size(2))
    if not a.need_weights then
      if not is_batched then out = out:squeeze(2) end
      return out, nil
    end
    weights = weights:view(bsz, num_heads, tgt_len, src_len)
    if a.average_attn_weights then weights = weights:sum(2) / num_heads end
    if not is_batched then
      out = out:squeeze(2)
      weights = weights:squeeze(1)
    end
    return out, weights
  end

  -- ---- MultiheadAttention ----------------------------------------------------------------------------
  -- out_proj's class: a Linear under PyTorch's name (its repr says so)
  local NonDynamicallyQuantizableLinear = nn.Linear:subclass("nn.NonDynamicallyQuantizableLinear")

  local MultiheadAttention = Module:subclass("nn.MultiheadAttention")
  local mha_init_names = { "embed_dim", "num_heads", "dropout", "bias", "add_bias_kv", "add_zero_attn", "kdim", "vdim",
    "batch_first", "device", "dtype" }

  -- nn.MultiheadAttention(embed_dim, num_heads, dropout = 0, bias = true, add_bias_kv = false,
  -- add_zero_attn = false, kdim = nil, vdim = nil, batch_first = false), or an options table
  function MultiheadAttention:__init(...)
    local o = args.parse_at(3, "__init__", mha_init_names, { dropout = 0.0, bias = true, add_bias_kv = false,
      add_zero_attn = false, batch_first = false }, ...)
    args.require("__init__", o, { "embed_dim", "num_heads" })
    args.int("embed_dim", o.embed_dim)
    args.int("num_heads", o.num_heads)
    if o.num_heads == 0 then error("integer division or modulo by zero", 2) end
    Module.__init(self)
    local E = o.embed_dim
    self.embed_dim = E
    self.kdim = o.kdim or E
    self.vdim = o.vdim or E
    self._qkv_same_embed_dim = self.kdim == E and self.vdim == E
    self.num_heads = o.num_heads
    self.dropout = o.dropout
    self.batch_first = o.batch_first
    self.head_dim = E // o.num_heads
    assert_(self.head_dim * o.num_heads == E, "embed_dim must be divisible by num_heads")
    local fo = (o.dtype or o.device) and { dtype = o.dtype, device = o.device } or nil
    local function empty(...)
      if fo then return torch.empty({ ... }, fo) end
      return torch.empty(...)
    end
    if not self._qkv_same_embed_dim then
      self.q_proj_weight = nn.Parameter(empty(E, E))
      self.k_proj_weight = nn.Parameter(empty(E, self.kdim))
      self.v_proj_weight = nn.Parameter(empty(E, self.vdim))
      self:register_parameter("in_proj_weight", nil)
    else
      self.in_proj_weight = nn.Parameter(empty(3 * E, E))
      self:register_parameter("q_proj_weight", nil)
      self:register_parameter("k_proj_weight", nil)
      self:register_parameter("v_proj_weight", nil)
    end
    if o.bias then
      self.in_proj_bias = nn.Parameter(empty(3 * E))
    else
      self:register_parameter("in_proj_bias", nil)
    end
    self.out_proj = NonDynamicallyQuantizableLinear(E, E, { bias = o.bias, dtype = o.dtype, device = o.device })
    if o.add_bias_kv then
      self.bias_k = nn.Parameter(empty(1, 1, E))
      self.bias_v = nn.Parameter(empty(1, 1, E))
    end
    self.add_zero_attn = o.add_zero_attn
    self:_reset_parameters()
  end

  -- PyTorch's: xavier_uniform_ of the projections, zero biases (out_proj's weight keeps
  -- Linear's init, drawn first), xavier_normal_ of bias_k/bias_v
  function MultiheadAttention:_reset_parameters()
    if self._qkv_same_embed_dim then
      init.xavier_uniform_(self.in_proj_weight)
    else
      init.xavier_uniform_(self.q_proj_weight)
      init.xavier_uniform_(self.k_proj_weight)
      init.xavier_uniform_(self.v_proj_weight)
    end
    if self.in_proj_bias then
      init.constant_(self.in_proj_bias, 0.0)
      init.constant_(self.out_proj.bias, 0.0)
    end
    if self.bias_k then init.xavier_normal_(self.bias_k) end
    if self.bias_v then init.xavier_normal_(self.bias_v) end
  end

  local mha_fwd_names = { "query", "key", "value", "key_padding_mask", "need_weights", "attn_mask", "average_attn_weights" }

  -- forward(query, key, value, key_padding_mask, need_weights = true, attn_mask,
  -- average_attn_weights = true), or forward(query, key, value, {key_padding_mask = ...}):
  -- returns attn_output, attn_weights (nil when need_weights is false)
  function MultiheadAttention:forward(...)
    local a = args.parse_at(3, "forward", mha_fwd_names, { need_weights = true, average_attn_weights = true }, ...)
    for i, k in ipairs(mha_fwd_names) do
      local required = k == "query" or k == "key" or k == "value"
      if required or k:match("mask$") then args.tensor("forward", k, i, a[k], not required) end
    end
    local query, key, value = a.query, a.key, a.value
    local is_batched = query:dim() == 3
    check_kpm_dtype(a.key_padding_mask)
    if self.batch_first and is_batched then -- keep the "is" relations PyTorch's packed projection tests
      local same_qk, same_kv = rawequal(query, key), rawequal(key, value)
      query = query:transpose(1, 2)
      key = same_qk and query or key:transpose(1, 2)
      value = same_kv and key or value:transpose(1, 2)
    end
    local common = { training = self.training, key_padding_mask = a.key_padding_mask, need_weights = a.need_weights,
      attn_mask = a.attn_mask, average_attn_weights = a.average_attn_weights }
    if not self._qkv_same_embed_dim then
      common.use_separate_proj_weight = true
      common.q_proj_weight, common.k_proj_weight, common.v_proj_weight =
        self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
    end
    local out, weights = F.multi_head_attention_forward(query, key, value, self.embed_dim, self.num_heads,
      self.in_proj_weight or nil, self.in_proj_bias or nil, self.bias_k or nil, self.bias_v or nil, self.add_zero_attn,
      self.dropout, self.out_proj.weight, self.out_proj.bias or nil, common)
    if self.batch_first and is_batched then out = out:transpose(1, 2) end
    return out, weights
  end
  nn.MultiheadAttention = MultiheadAttention

  -- ---- deep copy (copy.deepcopy of a module) -------------------------------------------------------------
  -- Modules and plain tables are copied, tensors cloned (parameters stay parameters, with their
  -- requires_grad); objects shared inside the module stay shared in the copy. Anything else
  -- (functions, dtypes, sizes) is kept by reference.
  local function is_module(v) return type(v) == "table" and getmetatable(v) ~= nil and rawget(v, "_modules") ~= nil end
  local function deepcopy(v, memo)
    if memo[v] ~= nil then return memo[v] end
    if torch.is_tensor(v) then
      local c = torch.no_grad(function() return v:detach():clone() end)
      if nn.is_parameter(v) then
        c = nn.Parameter(c, v.requires_grad)
      elseif v.requires_grad then
        c:requires_grad_()
      end
      memo[v] = c
      return c
    end
    if type(v) ~= "table" then return v end
    local mt = getmetatable(v)
    if mt ~= nil and not is_module(v) then return v end
    local c = {}
    memo[v] = c
    for k, x in next, v do rawset(c, deepcopy(k, memo), deepcopy(x, memo)) end
    if mt ~= nil then setmetatable(c, mt) end
    return c
  end
  nn._deepcopy = function(m) return deepcopy(m, {}) end

  -- ---- TransformerEncoderLayer ---------------------------------------------------------------------------
  local function activation_fn(name)
    if name == "relu" then return F.relu end
    if name == "gelu" then return F.gelu end
    error(("activation should be relu/gelu, not %s"):format(tostring(name)), 0)
  end
  nn._activation_fn = activation_fn

  local TransformerEncoderLayer = Module:subclass("nn.TransformerEncoderLayer")
  local tel_names = { "d_model", "nhead", "dim_feedforward", "dropout", "activation", "layer_norm_eps", "batch_first",
    "norm_first", "device", "dtype" }

  -- nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward = 2048, dropout = 0.1,
  -- activation = "relu" (or "gelu", a function, a module), layer_norm_eps = 1e-5,
  -- batch_first = false, norm_first = false), or an options table
  function TransformerEncoderLayer:__init(...)
    local o = args.parse_at(3, "__init__", tel_names, { dim_feedforward = 2048, dropout = 0.1, activation = "relu",
      layer_norm_eps = 1e-5, batch_first = false, norm_first = false }, ...)
    Module.__init(self)
    local fo = { dtype = o.dtype, device = o.device }
    self.self_attn = MultiheadAttention(o.d_model, o.nhead, { dropout = o.dropout, batch_first = o.batch_first,
      dtype = o.dtype, device = o.device })
    self.linear1 = nn.Linear(o.d_model, o.dim_feedforward, fo)
    self.dropout = nn.Dropout(o.dropout)
    self.linear2 = nn.Linear(o.dim_feedforward, o.d_model, fo)
    self.norm_first = o.norm_first
    self.norm1 = nn.LayerNorm(o.d_model, { eps = o.layer_norm_eps })
    self.norm2 = nn.LayerNorm(o.d_model, { eps = o.layer_norm_eps })
    if o.dtype or o.device then
      self.norm1:to(fo)
      self.norm2:to(fo)
    end
    self.dropout1 = nn.Dropout(o.dropout)
    self.dropout2 = nn.Dropout(o.dropout)
    local act = o.activation
    if type(act) == "string" then act = activation_fn(act) end
    if act == F.relu or class.type_of(act) == nn.ReLU then
      self.activation_relu_or_gelu = 1
    elseif act == F.gelu or class.type_of(act) == nn.GELU then
      self.activation_relu_or_gelu = 2
    else
      self.activation_relu_or_gelu = 0
    end
    self.activation = act -- a module registers as a child (shown in the repr), a function does not
  end

  local tel_fwd_names = { "src", "src_mask", "src_key_padding_mask" }

  -- forward(src, src_mask, src_key_padding_mask) or forward(src, {src_mask=, src_key_padding_mask=})
  function TransformerEncoderLayer:forward(...)
    local a = args.parse_at(3, "forward", tel_fwd_names, {}, ...)
    for i, k in ipairs(tel_fwd_names) do args.tensor("forward", k, i, a[k], k ~= "src") end
    check_kpm_dtype(a.src_key_padding_mask)
    local x = a.src
    if self.norm_first then
      x = x + self:_sa_block(self.norm1(x), a.src_mask, a.src_key_padding_mask)
      x = x + self:_ff_block(self.norm2(x))
    else
      x = self.norm1(x + self:_sa_block(x, a.src_mask, a.src_key_padding_mask))
      x = self.norm2(x + self:_ff_block(x))
    end
    return x
  end

  function TransformerEncoderLayer:_sa_block(x, attn_mask, key_padding_mask)
    local out = self.self_attn(x, x, x, { attn_mask = attn_mask, key_padding_mask = key_padding_mask, need_weights = false })
    return self.dropout1(out)
  end

  function TransformerEncoderLayer:_ff_block(x)
    x = self.linear2(self.dropout(self.activation(self.linear1(x))))
    return self.dropout2(x)
  end
  nn.TransformerEncoderLayer = TransformerEncoderLayer

  -- ---- TransformerEncoder ---------------------------------------------------------------------------------
  local TransformerEncoder = Module:subclass("nn.TransformerEncoder")
  local te_names = { "encoder_layer", "num_layers", "norm", "enable_nested_tensor", "mask_check" }

  -- nn.TransformerEncoder(encoder_layer, num_layers, norm = nil): num_layers deep copies of
  -- encoder_layer (each starts with its weights), then the optional final norm
  function TransformerEncoder:__init(...)
    local o = args.parse_at(3, "__init__", te_names, { enable_nested_tensor = true, mask_check = true }, ...)
    args.require("__init__", o, { "encoder_layer", "num_layers" })
    if type(o.encoder_layer) ~= "table" or not o.encoder_layer.parameters then
      error(("__init__(): argument 'encoder_layer' must be a Module, not %s"):format(args.py_type(o.encoder_layer)), 2)
    end
    -- each clone costs its parameters' bytes and its Lua objects: bound the loop first
    local bytes = 4096
    for _, p in ipairs(o.encoder_layer:parameters()) do bytes = bytes + p:numel() * p:element_size() end
    args.int("num_layers", o.num_layers, nil, bytes, 3)
    Module.__init(self)
    local clones = {}
    for i = 1, o.num_layers do clones[i] = deepcopy(o.encoder_layer, {}) end
    self.layers = nn.ModuleList(clones)
    self.num_layers = o.num_layers
    self.norm = o.norm
    self.enable_nested_tensor = o.enable_nested_tensor
    self.mask_check = o.mask_check
  end

  local te_fwd_names = { "src", "mask", "src_key_padding_mask" }

  -- forward(src, mask, src_key_padding_mask) or forward(src, {mask=, src_key_padding_mask=})
  function TransformerEncoder:forward(...)
    local a = args.parse_at(3, "forward", te_fwd_names, {}, ...)
    for i, k in ipairs(te_fwd_names) do args.tensor("forward", k, i, a[k], k ~= "src") end
    check_kpm_dtype(a.src_key_padding_mask)
    local out = a.src
    for _, layer in ipairs(self.layers:children()) do
      out = layer(out, { src_mask = a.mask, src_key_padding_mask = a.src_key_padding_mask })
    end
    if self.norm then out = self.norm(out) end
    return out
  end
  nn.TransformerEncoder = TransformerEncoder
end
