-- rnn.lua: torch.nn.utils.rnn (PackedSequence, packing and padding of sequences of different
-- lengths) and nn.RNN/LSTM/GRU over a PackedSequence, as PyTorch 1.13's.
--
-- Lua's 1-based convention: sorted_indices and unsorted_indices hold 1-based positions in the
-- batch (PyTorch's + 1), as every index tensor of mindtorch does; batch_sizes and lengths are
-- counts, the same numbers as PyTorch's.
return function(torch, nn)
  local class = require "mindtorch._class"
  local args = require "mindtorch._args"
  local R = {}

  local function invert_permutation(permutation)
    if permutation == nil then return nil end
    local out = torch.empty_like(permutation)
    out:scatter_(1, permutation, torch.arange(1, permutation:numel() + 1, { device = permutation.device }))
    return out
  end
  R.invert_permutation = invert_permutation

  -- ---- PackedSequence ------------------------------------------------------------------------------------
  local PackedSequence = class.class("nn.utils.rnn.PackedSequence")
  local fields = { "data", "batch_sizes", "sorted_indices", "unsorted_indices" }

  -- PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices), or
  -- PackedSequence({data, batch_sizes}, nil, sorted_indices): a 4-field named tuple, as PyTorch's
  function PackedSequence:__init(...)
    local o = args.parse_at(3, "__new__", fields, nil, ...)
    local data, batch_sizes = o.data, o.batch_sizes
    local unsorted = o.unsorted_indices
    if unsorted == nil then unsorted = invert_permutation(o.sorted_indices) end
    if batch_sizes ~= nil then
      if batch_sizes.device.type ~= "cpu" then
        error("batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
          .. "They should be instantiated by functions like pack_sequence and pack_padded_sequences in nn.utils.rnn. "
          .. "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence", 3)
      end
    else
      assert(type(data) == "table" and not torch.is_tensor(data) and #data == 2)
      data, batch_sizes = data[1], data[2]
    end
    rawset(self, "data", data)
    rawset(self, "batch_sizes", batch_sizes)
    rawset(self, "sorted_indices", o.sorted_indices)
    rawset(self, "unsorted_indices", unsorted)
  end

  -- a named tuple: p[1] .. p[4] are its fields, #p is 4, table.unpack(p) gives them all
  PackedSequence.__index = function(self, k)
    if math.type(k) == "integer" then
      local f = fields[k]
      return f and rawget(self, f)
    end
    if k == "is_cuda" then return rawget(self, "data").is_cuda end
    return getmetatable(self)[k]
  end
  PackedSequence.__len = function() return 4 end
  PackedSequence.__tostring = function(self)
    local parts = {}
    for i, f in ipairs(fields) do
      local v = rawget(self, f)
      parts[i] = f .. "=" .. (v == nil and "None" or tostring(v))
    end
    return "PackedSequence(" .. table.concat(parts, ", ") .. ")"
  end

  -- to(...): the data converted as Tensor.to does, the indices moved to its device; self when the
  -- data is already so
  function PackedSequence:to(...)
    local data = self.data:to(...)
    if rawequal(data, self.data) then return self end
    local function move(t) return t and t:to(data.device) end
    return PackedSequence(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))
  end
  function PackedSequence:cpu(...)
    if select("#", ...) == 0 then return self:to("cpu") end
    return self:to(...)
  end
  for name, dt in pairs { double = "float64", float = "float32", half = "float16", long = "int64", int = "int32",
    short = "int16", char = "int8", byte = "uint8" } do
    PackedSequence[name] = function(self) return self:to(torch[dt]) end
  end
  function PackedSequence:is_pinned() return self.data:is_pinned() end
  function PackedSequence:pin_memory()
    local function pin(t) return t and t:pin_memory() end
    return PackedSequence(self.data:pin_memory(), self.batch_sizes, pin(self.sorted_indices),
      pin(self.unsorted_indices))
  end
  R.PackedSequence = PackedSequence

  local function is_packed(v) return class.isinstance(v, PackedSequence) end
  nn._is_packed_sequence = is_packed

  -- Python's AttributeError for what is not a PackedSequence
  local function no_batch_sizes(v, level)
    error(("'%s' object has no attribute 'batch_sizes'"):format(torch.is_tensor(v) and "Tensor" or args.py_type(v)),
      level + 1)
  end

  -- ---- packing and padding -------------------------------------------------------------------------------
  local type_names = { int64 = "Long", int32 = "Int", int16 = "Short", int8 = "Char", uint8 = "Byte", float32 = "Float",
    float64 = "Double", float16 = "Half", bfloat16 = "BFloat16", bool = "Bool" }

  -- ATen's _pack_padded_sequence: input [T, B, *] (sequence first), lengths sorted longest first
  local function pack_sorted(input, lengths, batch_first)
    if lengths:dim() ~= 1 or lengths.dtype ~= torch.int64 or lengths.device.type ~= "cpu" then
      error(("'lengths' argument should be a 1D CPU int64 tensor, but got %dD %s %s tensor"):format(lengths:dim(),
        lengths.device.type, type_names[lengths.dtype.name] or lengths.dtype.name), 0)
    end
    if batch_first then input = input:transpose(1, 2) end
    if input:numel() <= 0 then error("Cannot pack empty tensors.", 0) end
    local B = input:size(2)
    if lengths:size(1) ~= B then
      error(("Expected `len(lengths)` to be equal to batch_size, but got %d (batch_size=%d)"):format(
        lengths:size(1), B), 0)
    end
    local len = lengths:tolist()
    if len[B] <= 0 then
      error("Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0", 0)
    end
    for i = 1, B - 1 do
      if len[B - i] < len[B - i + 1] then
        error("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
          .. "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
          .. "if you do not need ONNX exportability.", 0)
      end
    end
    local T = input:size(1)
    local rest = input:size()
    local shape = { -1 }
    for d = 3, #rest do shape[#shape + 1] = rest[d] end
    local steps, sizes, prev = {}, {}, 0
    for i = B, 1, -1 do -- the shortest sequences first: each new length adds the steps up to it
      local l = len[i]
      if l > prev then
        local upto = math.min(l, T) -- ATen's slice of the time steps stops at T
        if upto > prev then
          steps[#steps + 1] = input:narrow(1, prev + 1, upto - prev):narrow(2, 1, i):reshape(shape)
        end
        for _ = prev + 1, l do sizes[#sizes + 1] = i end
        prev = l
      end
    end
    return torch.cat(steps), torch.tensor(sizes, { dtype = torch.int64 })
  end

  -- pack_padded_sequence(input, lengths, batch_first = false, enforce_sorted = true)
  function R.pack_padded_sequence(...)
    local o = args.parse("pack_padded_sequence", { "input", "lengths", "batch_first", "enforce_sorted" },
      { batch_first = false, enforce_sorted = true }, ...)
    args.require("pack_padded_sequence", o, { "input", "lengths" })
    local input, lengths = o.input, o.lengths
    args.tensor("_pack_padded_sequence", "input", 1, input)
    if torch.is_tensor(lengths) then
      if lengths.dtype ~= torch.int64 then lengths = lengths:to(torch.int64) end
    else
      lengths = torch.tensor(lengths, { dtype = torch.int64 })
    end
    local sorted_indices
    if not o.enforce_sorted then
      lengths, sorted_indices = torch.sort(lengths, { descending = true })
      sorted_indices = sorted_indices:to(input.device)
      input = input:index_select(o.batch_first and 1 or 2, sorted_indices)
    end
    local data, batch_sizes = pack_sorted(input, lengths, o.batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, nil)
  end

  -- pad_packed_sequence(sequence, batch_first = false, padding_value = 0.0, total_length = nil):
  -- the padded tensor [T, B, *] (or [B, T, *]) and the lengths, in the order the batch was given
  function R.pad_packed_sequence(...)
    local o = args.parse("pad_packed_sequence", { "sequence", "batch_first", "padding_value", "total_length" },
      { batch_first = false, padding_value = 0.0 }, ...)
    args.require("pad_packed_sequence", o, { "sequence" })
    local seq = o.sequence
    if not is_packed(seq) then no_batch_sizes(seq, 2) end
    local data, bs = seq.data, seq.batch_sizes:tolist()
    local T = #bs
    if o.total_length ~= nil then
      if o.total_length < T then
        error(("Expected total_length to be at least the length of the longest sequence in input, but got "
          .. "total_length=%d and max sequence length being %d"):format(o.total_length, T), 2)
      end
      T = o.total_length
    end
    local B = bs[1]
    local shape = data:size()
    local out_shape = { T, B }
    for d = 2, #shape do out_shape[#out_shape + 1] = shape[d] end
    local out = torch.full(out_shape, o.padding_value, { dtype = data.dtype, device = data.device })
    local lengths, at = {}, 1
    for t, b in ipairs(bs) do
      out[t]:narrow(1, 1, b):copy_(data:narrow(1, at, b))
      at = at + b
      for j = 1, b do lengths[j] = t end
    end
    local len = torch.tensor(lengths, { dtype = torch.int64 })
    if o.batch_first then out = out:transpose(1, 2) end
    local unsorted = seq.unsorted_indices
    if unsorted ~= nil then
      return out:index_select(o.batch_first and 1 or 2, unsorted), len:index_select(1, unsorted:cpu())
    end
    return out, len
  end

  local function as_list(sequences, fname)
    if torch.is_tensor(sequences) then return sequences:unbind(1) end
    if type(sequences) ~= "table" then
      error(("%s: Expected iterable for input sequences, but got arg of type: <class '%s'>"):format(fname,
        args.py_type(sequences)), 3)
    end
    return sequences
  end

  -- pad_sequence(sequences, batch_first = false, padding_value = 0.0): the sequences [L_i, *] in one
  -- tensor [max L, n, *] (or [n, max L, *]), padded with padding_value. sequences comes first,
  -- positionally (an empty list would read as an options table).
  function R.pad_sequence(sequences, ...)
    local o = args.parse("pad_sequence", { "batch_first", "padding_value" },
      { batch_first = false, padding_value = 0.0 }, ...)
    local seqs = as_list(sequences, "pad_sequence")
    local n = #seqs
    if n == 0 then error("received an empty list of sequences", 2) end
    for i = 1, n do
      if not torch.is_tensor(seqs[i]) then
        error(("expected Tensor as element %d in argument 1, but got %s"):format(i, args.py_type(seqs[i])), 2)
      end
    end
    local max_len = 0
    for _, s in ipairs(seqs) do max_len = math.max(max_len, s:size(1)) end
    local first = seqs[1]:size()
    local dims = o.batch_first and { n, max_len } or { max_len, n }
    for d = 2, #first do dims[#dims + 1] = first[d] end
    local out = torch.full(dims, o.padding_value, { dtype = seqs[1].dtype, device = seqs[1].device })
    for i, s in ipairs(seqs) do
      local l = s:size(1)
      if o.batch_first then out[i]:narrow(1, 1, l):copy_(s) else out:narrow(1, 1, l):select(2, i):copy_(s) end
    end
    return out
  end

  -- unpad_sequence(padded_sequences, lengths, batch_first = false): the sequences of a padded
  -- batch, as a list. (PyTorch 1.13 transposes a sequence-first input in place; this leaves it be.)
  function R.unpad_sequence(...)
    local o = args.parse("unpad_sequence", { "padded_sequences", "lengths", "batch_first" }, { batch_first = false },
      ...)
    args.require("unpad_sequence", o, { "padded_sequences", "lengths" })
    local padded = o.padded_sequences
    if not o.batch_first then padded = padded:transpose(1, 2) end
    local lengths = torch.is_tensor(o.lengths) and o.lengths:tolist() or o.lengths
    local idx = torch.arange(padded:size(2))
    local out = {}
    for i = 1, math.min(padded:size(1), #lengths) do out[i] = padded[i][idx:lt(lengths[i])] end
    return out
  end

  -- pack_sequence(sequences, enforce_sorted = true): pad_sequence, then pack_padded_sequence
  function R.pack_sequence(sequences, ...)
    local o = args.parse("pack_sequence", { "enforce_sorted" }, { enforce_sorted = true }, ...)
    local seqs = as_list(sequences, "pad_sequence")
    local lengths = {}
    for i, s in ipairs(seqs) do lengths[i] = s:size(1) end
    return R.pack_padded_sequence(R.pad_sequence(seqs), lengths, { enforce_sorted = o.enforce_sorted })
  end

  -- unpack_sequence(packed_sequences): the list of sequences a PackedSequence holds
  function R.unpack_sequence(packed)
    if not is_packed(packed) then no_batch_sizes(packed, 2) end
    local padded, lengths = R.pad_packed_sequence(packed, { batch_first = true })
    local out = {}
    for i, l in ipairs(lengths:tolist()) do out[i] = padded[i]:narrow(1, 1, l) end
    return out
  end

  -- the other names PyTorch's module holds: its bind helper, the tuple base, Tensor
  function R.bind(optional, fn)
    if optional == nil then return nil end
    return fn(optional)
  end
  R.PackedSequence_, R.Tensor = PackedSequence, torch.Tensor
  nn.utils.rnn = R

  -- ---- nn.RNN, LSTM and GRU over a PackedSequence ------------------------------------------------------
  local rnn = require "mindtorch._rnn"
  local steps, input_bias = rnn.steps, rnn.input_bias

  -- one layer in one direction over the packed rows x [N, I]: the batch shrinks as sequences end
  -- (forward) or grows as they start (reverse); a sequence's last h is the one after its own last step
  local function run_direction(mode, x, bs, h0, c0, w, reverse)
    local bias = input_bias(mode, w.b_ih, w.b_hh)
    local xp = bias and torch.addmm(bias, x, w.w_ih:t()) or x:mm(w.w_ih:t())
    local H = w.w_hh.shape[2]
    local step, whh_t, whr_t = steps[mode], w.w_hh:t(), w.w_hr and w.w_hr:t()
    local T, off = #bs, {}
    local at = 1
    for t = 1, T do off[t], at = at, at + bs[t] end
    local outs = {}
    local h, c
    if not reverse then
      h, c = h0, c0
      local last = bs[1]
      local done_h, done_c = {}, {}
      for t = 1, T do
        local b = bs[t]
        if b < last then
          done_h[#done_h + 1] = h:narrow(1, b + 1, last - b)
          h = h:narrow(1, 1, b)
          if c then
            done_c[#done_c + 1] = c:narrow(1, b + 1, last - b)
            c = c:narrow(1, 1, b)
          end
          last = b
        end
        h, c = step(xp:narrow(1, off[t], b), h, c, whh_t, w.b_hh, H, whr_t)
        outs[t] = h
      end
      local hs, cs = { h }, { c }
      for i = #done_h, 1, -1 do
        hs[#hs + 1] = done_h[i]
        if c then cs[#cs + 1] = done_c[i] end
      end
      h = #hs > 1 and torch.cat(hs, 1) or h
      if c then c = #cs > 1 and torch.cat(cs, 1) or c end
    else
      local last = bs[T]
      h, c = h0:narrow(1, 1, last), c0 and c0:narrow(1, 1, last)
      for t = T, 1, -1 do
        local b = bs[t]
        if b > last then
          h = torch.cat({ h, h0:narrow(1, last + 1, b - last) }, 1)
          if c then c = torch.cat({ c, c0:narrow(1, last + 1, b - last) }, 1) end
          last = b
        end
        h, c = step(xp:narrow(1, off[t], b), h, c, whh_t, w.b_hh, H, whr_t)
        outs[t] = h
      end
    end
    return torch.cat(outs, 1), h, c
  end

  local function run_packed(self, data, bs, hx, cx)
    local nd = self.bidirectional and 2 or 1
    local hs, cs = hx:unbind(1), cx and cx:unbind(1)
    local hn, cn = {}, {}
    local layer_input = data
    for l = 0, self.num_layers - 1 do
      local outs = {}
      for d = 0, nd - 1 do
        local idx = l * nd + d + 1
        local names = self._all_weights[idx]
        local w = { w_ih = self[names[1]], w_hh = self[names[2]] }
        local k = 3
        if self.bias then w.b_ih, w.b_hh, k = self[names[3]], self[names[4]], 5 end
        if self.proj_size > 0 then w.w_hr = self[names[k]] end
        outs[d + 1], hn[idx], cn[idx] = run_direction(self.mode, layer_input, bs, hs[idx], cs and cs[idx], w, d == 1)
      end
      local out = nd == 2 and torch.cat(outs, 2) or outs[1]
      if self.dropout > 0 and self.training and l < self.num_layers - 1 then
        out = torch.dropout(out, self.dropout, true)
      end
      layer_input = out
    end
    return layer_input, torch.stack(hn, 1), cx and torch.stack(cn, 1)
  end

  local function check_size(t, expected, msg)
    local s = t:size()
    local same = #s == #expected
    for i = 1, #expected do same = same and s[i] == expected[i] end
    if not same then
      local e = {}
      for i, v in ipairs(expected) do e[i] = tostring(v) end
      error(msg:format("(" .. table.concat(e, ", ") .. ")", "[" .. table.concat(s, ", ") .. "]"), 0)
    end
  end

  -- RNNBase:forward(packed, hx): a PackedSequence of the outputs, and h_n (LSTM: {h_n, c_n}) per
  -- sequence after its own last step, in the order the batch was given
  function nn.RNNBase:_forward_packed(input, hx)
    local lstm = self.mode == "LSTM"
    local fname = ({ LSTM = "lstm", GRU = "gru", RNN_TANH = "rnn_tanh", RNN_RELU = "rnn_relu" })[self.mode]
    if lstm and hx ~= nil and (type(hx) ~= "table" or not torch.is_tensor(hx[1]) or not torch.is_tensor(hx[2])) then
      error(("%s(): argument 'hx' (position 2) must be tuple of Tensors, not %s"):format(fname,
        torch.is_tensor(hx) and "Tensor" or args.py_type(hx)), 3)
    end
    if not lstm then args.tensor(fname, "hx", 2, hx, true, 4) end
    local data, batch_sizes, sorted, unsorted = input.data, input.batch_sizes, input.sorted_indices,
      input.unsorted_indices
    local bs = batch_sizes:tolist()
    local max_batch = bs[1]
    local nd = self.bidirectional and 2 or 1
    local real = self.proj_size > 0 and self.proj_size or self.hidden_size
    local h0, c0
    if hx == nil then
      local fo = { dtype = data.dtype, device = data.device }
      h0 = torch.zeros(self.num_layers * nd, max_batch, real, fo)
      if lstm then c0 = torch.zeros(self.num_layers * nd, max_batch, self.hidden_size, fo) end
    else
      if lstm then h0, c0 = hx[1], hx[2] else h0 = hx end
      if sorted ~= nil then -- each sequence's state goes where its sequence went
        h0 = h0:index_select(2, sorted)
        if c0 then c0 = c0:index_select(2, sorted) end
      end
    end
    if data:dim() ~= 2 then error(("input must have 2 dimensions, got %d"):format(data:dim()), 0) end
    if self.input_size ~= data:size(-1) then
      error(("input.size(-1) must be equal to input_size. Expected %d, got %d"):format(self.input_size,
        data:size(-1)), 0)
    end
    local L = self.num_layers * nd
    if lstm then
      check_size(h0, { L, max_batch, real }, "Expected hidden[0] size %s, got %s")
      check_size(c0, { L, max_batch, self.hidden_size }, "Expected hidden[1] size %s, got %s")
    else
      check_size(h0, { L, max_batch, real }, "Expected hidden size %s, got %s")
    end
    if data.dtype ~= self[self._flat_weights_names[1]].dtype then error("mat1 and mat2 must have the same dtype", 0) end
    local out, hn, cn = run_packed(self, data, bs, h0, c0)
    if unsorted ~= nil then
      hn = hn:index_select(2, unsorted)
      if cn then cn = cn:index_select(2, unsorted) end
    end
    local packed = PackedSequence(out, batch_sizes, sorted, unsorted)
    if lstm then return packed, { hn, cn } end
    return packed, hn
  end
end
