-- recurrent.lua: RNN (tanh/relu), LSTM (with proj_size), GRU and their cells, PyTorch 1.13's
-- modules in Lua on top of the differentiable ops (autograd derives the backward). Each layer
-- and direction projects its whole input sequence with one matrix product, as PyTorch does;
-- only the recurrent product h W_hh^T runs per time step. Gates follow PyTorch's layouts
-- (LSTM: i, f, g, o; GRU: r, z, n), so state dicts interoperate.
return function(torch, nn)
  local Module, init, py = nn.Module, nn.init, nn._py

  -- PyTorch's signature: positional values or a trailing options table (mindtorch._args)
  local args = require "mindtorch._args"
  local parse_args = args.parse

  local function factory(o)
    if o.dtype or o.device then
      local fo = { dtype = o.dtype, device = o.device }
      return function(...) return torch.empty({ ... }, fo) end
    end
    return torch.empty
  end

  local function tuple(t) -- a Python tuple's text
    local parts = {}
    for i = 1, #t do parts[i] = tostring(t[i]) end
    if #parts == 1 then return "(" .. parts[1] .. ",)" end
    return "(" .. table.concat(parts, ", ") .. ")"
  end
  local function list(t)
    local parts = {}
    for i = 1, #t do parts[i] = tostring(t[i]) end
    return "[" .. table.concat(parts, ", ") .. "]"
  end

  -- the layers' computation (time steps, directions, dropout between layers) is shared with
  -- torch.lstm and the other ATen functions (mindtorch._rnn)
  local rnn = require "mindtorch._rnn"
  local steps, input_bias = rnn.steps, rnn.input_bias

  -- ---- RNNBase ------------------------------------------------------------------------------------------
  local RNNBase = Module:subclass("nn.RNNBase")
  local base_names = { "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional",
    "proj_size", "device", "dtype", "nonlinearity" }
  local base_defaults = { num_layers = 1, bias = true, batch_first = false, dropout = 0.0, bidirectional = false,
    proj_size = 0 }

  function RNNBase:__init(mode, ...)
    -- nn.RNNBase(mode, input_size, hidden_size, ...) as PyTorch's, or a subclass's parsed table
    if not steps[mode] then error("Unrecognized RNN mode: " .. tostring(mode), 3) end
    local o = parse_args("__init__", base_names, base_defaults, ...)
    args.require("__init__", o, { "input_size", "hidden_size" })
    for _, k in ipairs({ "input_size", "hidden_size", "num_layers", "proj_size" }) do args.int(k, o[k], nil, 1, 4) end
    Module.__init(self)
    self.mode = mode
    self.input_size, self.hidden_size = o.input_size, o.hidden_size
    self.num_layers, self.bias, self.batch_first = o.num_layers, o.bias, o.batch_first
    self.bidirectional, self.proj_size = o.bidirectional, o.proj_size
    local dropout = o.dropout
    if type(dropout) ~= "number" or dropout < 0 or dropout > 1 then
      error("dropout should be a number in range [0, 1] representing the probability of an element being zeroed", 3)
    end
    self.dropout = dropout + 0.0 -- float(dropout): the repr prints 1.0
    -- (PyTorch also warns when dropout > 0 with one layer; mindtorch has no warnings channel)
    if o.proj_size < 0 then error("proj_size should be a positive integer or zero to disable projections", 3) end
    if o.proj_size >= o.hidden_size then error("proj_size has to be smaller than hidden_size", 3) end
    local H = o.hidden_size
    local gate_size = ({ LSTM = 4 * H, GRU = 3 * H, RNN_TANH = H, RNN_RELU = H })[mode]
    local nd = o.bidirectional and 2 or 1
    -- the layer loop below is bounded by what its parameters (and their Lua objects) need
    local per_layer = nd * (512 + math.max(gate_size, 0) * (math.max(o.input_size, H, 0) + H + 2))
    args.int("num_layers", o.num_layers, 1, per_layer, 3)
    local empty = factory(o)
    self._flat_weights_names, self._all_weights = {}, {}
    for layer = 0, o.num_layers - 1 do
      for dir = 0, nd - 1 do
        local real_hidden = o.proj_size > 0 and o.proj_size or H
        local layer_input = layer == 0 and o.input_size or real_hidden * nd
        local suffix = ("_l%d%s"):format(layer, dir == 1 and "_reverse" or "")
        local names = { "weight_ih" .. suffix, "weight_hh" .. suffix }
        local params = { empty(gate_size, layer_input), empty(gate_size, real_hidden) }
        if o.bias then
          names[#names + 1], params[#params + 1] = "bias_ih" .. suffix, empty(gate_size)
          names[#names + 1], params[#params + 1] = "bias_hh" .. suffix, empty(gate_size)
        end
        if o.proj_size > 0 then
          names[#names + 1], params[#params + 1] = "weight_hr" .. suffix, empty(o.proj_size, H)
        end
        for i, name in ipairs(names) do
          self[name] = nn.Parameter(params[i])
          self._flat_weights_names[#self._flat_weights_names + 1] = name
        end
        self._all_weights[#self._all_weights + 1] = names
      end
    end
    self:reset_parameters()
  end

  -- every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), in registration order
  function RNNBase:reset_parameters()
    local stdv = self.hidden_size > 0 and 1.0 / math.sqrt(self.hidden_size) or 0
    for _, w in ipairs(self:parameters()) do init.uniform_(w, -stdv, stdv) end
  end

  -- all_weights: the parameters per layer and direction, as PyTorch's property
  function RNNBase:all_weights()
    local out = {}
    for i, names in ipairs(self._all_weights) do
      out[i] = {}
      for j, n in ipairs(names) do out[i][j] = self[n] end
    end
    return out
  end

  function RNNBase:flatten_parameters() end -- cuDNN's layout: nothing to do here

  function RNNBase:check_input(input)
    if input:dim() ~= 3 then error(("input must have 3 dimensions, got %d"):format(input:dim()), 0) end
    if self.input_size ~= input:size(-1) then
      error(("input.size(-1) must be equal to input_size. Expected %d, got %d"):format(self.input_size, input:size(-1)), 0)
    end
  end

  function RNNBase:_expected_hidden(input, cell)
    local mini_batch = self.batch_first and input:size(1) or input:size(2)
    local nd = self.bidirectional and 2 or 1
    local size = (not cell and self.proj_size > 0) and self.proj_size or self.hidden_size
    return { self.num_layers * nd, mini_batch, size }
  end

  local function check_hidden_size(hx, expected, msg)
    local s = hx:size()
    local same = #s == #expected
    for i = 1, #expected do same = same and s[i] == expected[i] end
    if not same then error(msg:format(tuple(expected), list(s)), 0) end
  end

  -- the stack of layers over input [T, B, I] (sequence first) from hx (and cx) [L*D, B, H]
  function RNNBase:_run(input, hx, cx)
    local weights = {}
    for idx, names in ipairs(self._all_weights) do
      local w = { w_ih = self[names[1]], w_hh = self[names[2]] }
      local k = 3
      if self.bias then w.b_ih, w.b_hh, k = self[names[3]], self[names[4]], 5 end
      if self.proj_size > 0 then w.w_hr = self[names[k]] end
      weights[idx] = w
    end
    return rnn.run(self.mode, input, hx, cx, weights, self.num_layers, self.bidirectional, self.dropout,
      self.training)
  end

  -- forward(input, hx): RNN and GRU return output, h_n; LSTM takes hx = {h_0, c_0} and
  -- returns output, {h_n, c_n}. A 2-D input is one unbatched sequence.
  function RNNBase:forward(input, hx)
    if nn._is_packed_sequence(input) then return self:_forward_packed(input, hx) end -- nn/utils/rnn.lua
    args.tensor("forward", "input", 1, input, false, 4)
    local lstm = self.mode == "LSTM"
    local fname = ({ LSTM = "lstm", GRU = "gru", RNN_TANH = "rnn_tanh", RNN_RELU = "rnn_relu" })[self.mode]
    if lstm and hx ~= nil and (type(hx) ~= "table" or not torch.is_tensor(hx[1]) or not torch.is_tensor(hx[2])) then
      error(("%s(): argument 'hx' (position 2) must be tuple of Tensors, not %s"):format(fname, args.py_type(hx)), 2)
    end
    if not lstm then args.tensor(fname, "hx", 2, hx, true) end
    local is_batched = input:dim() == 3
    local batch_dim = self.batch_first and 1 or 2
    local h0, c0
    if lstm and hx ~= nil then h0, c0 = hx[1], hx[2] else h0 = hx end
    if not is_batched then
      input = input:unsqueeze(batch_dim)
      if h0 ~= nil then
        if lstm then
          if h0:dim() ~= 2 or c0:dim() ~= 2 then
            error(("For unbatched 2-D input, hx and cx should also be 2-D but got (%d-D, %d-D) tensors"):format(
              h0:dim(), c0:dim()), 0)
          end
          c0 = c0:unsqueeze(2)
        elseif h0:dim() ~= 2 then
          error(("For unbatched 2-D input, hx should also be 2-D but got %d-D tensor"):format(h0:dim()), 0)
        end
        h0 = h0:unsqueeze(2)
      end
    elseif h0 ~= nil then
      if lstm then
        if h0:dim() ~= 3 or c0:dim() ~= 3 then
          error(("For batched 3-D input, hx and cx should also be 3-D but got (%d-D, %d-D) tensors"):format(
            h0:dim(), c0:dim()), 0)
        end
      elseif h0:dim() ~= 3 then
        error(("For batched 3-D input, hx should also be 3-D but got %d-D tensor"):format(h0:dim()), 0)
      end
    end
    if h0 == nil then
      local mini_batch = self.batch_first and input:size(1) or input:size(2)
      local nd = self.bidirectional and 2 or 1
      local fo = { dtype = input.dtype, device = input.device }
      local real = self.proj_size > 0 and self.proj_size or self.hidden_size
      h0 = torch.zeros(self.num_layers * nd, mini_batch, real, fo)
      if lstm then c0 = torch.zeros(self.num_layers * nd, mini_batch, self.hidden_size, fo) end
    end
    self:check_input(input)
    if lstm then
      check_hidden_size(h0, self:_expected_hidden(input), "Expected hidden[0] size %s, got %s")
      check_hidden_size(c0, self:_expected_hidden(input, true), "Expected hidden[1] size %s, got %s")
    else
      check_hidden_size(h0, self:_expected_hidden(input), "Expected hidden size %s, got %s")
    end
    if self.batch_first then input = input:transpose(1, 2) end
    if input:size(1) == 0 then error("Expected sequence length to be larger than 0 in RNN", 0) end
    if input.dtype ~= self[self._flat_weights_names[1]].dtype then -- as PyTorch's input projection words it
      error("mat1 and mat2 must have the same dtype", 0)
    end
    local out, hn, cn = self:_run(input, h0, c0)
    if self.batch_first then out = out:transpose(1, 2) end
    if not is_batched then
      out = out:squeeze(batch_dim)
      hn = hn:squeeze(2)
      if cn then cn = cn:squeeze(2) end
    end
    if lstm then return out, { hn, cn } end
    return out, hn
  end

  function RNNBase:extra_repr()
    local s = ("%d, %d"):format(self.input_size, self.hidden_size)
    if self.proj_size ~= 0 then s = s .. ", proj_size=" .. self.proj_size end
    if self.num_layers ~= 1 then s = s .. ", num_layers=" .. self.num_layers end
    if self.bias ~= true then s = s .. ", bias=" .. py(self.bias) end
    if self.batch_first ~= false then s = s .. ", batch_first=" .. py(self.batch_first) end
    if self.dropout ~= 0 then s = s .. ", dropout=" .. py(self.dropout) end
    if self.bidirectional ~= false then s = s .. ", bidirectional=" .. py(self.bidirectional) end
    return s
  end
  nn.RNNBase = RNNBase

  -- nn.RNN(input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional)
  -- or with an options table (also nonlinearity = "tanh" | "relu", dtype, device)
  local RNN = RNNBase:subclass("nn.RNN")
  function RNN:__init(...)
    local o = args.parse_at(3, "__init__", base_names, base_defaults, ...)
    if o.proj_size ~= 0 then error("proj_size argument is only supported for LSTM, not RNN or GRU", 2) end
    local nl = o.nonlinearity or "tanh"
    local mode = ({ tanh = "RNN_TANH", relu = "RNN_RELU" })[nl]
    if not mode then error(("Unknown nonlinearity '%s'"):format(tostring(nl)), 2) end
    RNNBase.__init(self, mode, o)
    self.nonlinearity = nl
  end
  nn.RNN = RNN

  local LSTM = RNNBase:subclass("nn.LSTM")
  function LSTM:__init(...)
    local o = args.parse_at(3, "__init__", base_names, base_defaults, ...)
    if o.nonlinearity ~= nil then error("__init__() got an unexpected keyword argument 'nonlinearity'", 2) end
    RNNBase.__init(self, "LSTM", o)
  end
  nn.LSTM = LSTM

  local GRU = RNNBase:subclass("nn.GRU")
  function GRU:__init(...)
    local o = args.parse_at(3, "__init__", base_names, base_defaults, ...)
    if o.proj_size ~= 0 then error("proj_size argument is only supported for LSTM, not RNN or GRU", 2) end
    if o.nonlinearity ~= nil then error("__init__() got an unexpected keyword argument 'nonlinearity'", 2) end
    RNNBase.__init(self, "GRU", o)
  end
  nn.GRU = GRU

  -- ---- cells ---------------------------------------------------------------------------------------------
  local RNNCellBase = Module:subclass("nn.RNNCellBase")
  function RNNCellBase:__init(o, ...)
    local num_chunks = ...
    if not args.is_options(o) then -- nn.RNNCellBase(input_size, hidden_size, bias, num_chunks) as PyTorch's
      o = parse_args("__init__", { "input_size", "hidden_size", "bias", "num_chunks", "device", "dtype" }, nil, o, ...)
      args.require("RNNCellBase.__init__", o, { "input_size", "hidden_size", "bias", "num_chunks" })
      num_chunks = args.int("num_chunks", o.num_chunks, 1, 1, 3)
    end
    args.require(getmetatable(self).__name .. ".__init__", o, { "input_size", "hidden_size" })
    args.int("input_size", o.input_size, nil, 1, 3)
    args.int("hidden_size", o.hidden_size, nil, 1, 3)
    Module.__init(self)
    self.input_size, self.hidden_size, self.bias = o.input_size, o.hidden_size, o.bias
    local empty = factory(o)
    self.weight_ih = nn.Parameter(empty(num_chunks * o.hidden_size, o.input_size))
    self.weight_hh = nn.Parameter(empty(num_chunks * o.hidden_size, o.hidden_size))
    if o.bias then
      self.bias_ih = nn.Parameter(empty(num_chunks * o.hidden_size))
      self.bias_hh = nn.Parameter(empty(num_chunks * o.hidden_size))
    else
      self:register_parameter("bias_ih", nil)
      self:register_parameter("bias_hh", nil)
    end
    self:reset_parameters()
  end
  RNNCellBase.reset_parameters = RNNBase.reset_parameters
  function RNNCellBase:extra_repr()
    local s = ("%d, %d"):format(self.input_size, self.hidden_size)
    if self.bias ~= true then s = s .. ", bias=" .. py(self.bias) end
    if self.nonlinearity ~= nil and self.nonlinearity ~= "tanh" then s = s .. ", nonlinearity=" .. self.nonlinearity end
    return s
  end

  -- ATen's checks of a cell's input and hidden state (the same label 0 for h and c, as ATen)
  function RNNCellBase:_check(input, hs)
    if input:size(2) ~= self.input_size then
      error(("input has inconsistent input_size: got %d expected %d"):format(input:size(2), self.input_size), 0)
    end
    for _, h in ipairs(hs) do
      if input:size(1) ~= h:size(1) then
        error(("Input batch size %d doesn't match hidden0 batch size %d"):format(input:size(1), h:size(1)), 0)
      end
      if h:size(2) ~= self.hidden_size then
        error(("hidden0 has inconsistent hidden_size: got %d, expected %d"):format(h:size(2), self.hidden_size), 0)
      end
    end
  end

  -- one step: input [B, I] (or [I]), state(s) [B, H] (or [H]), zeros when not given
  function RNNCellBase:_cell(name, mode, input, h, c, lstm)
    local fname = ({ LSTM = "lstm_cell", GRU = "gru_cell", RNN_TANH = "rnn_tanh_cell", RNN_RELU = "rnn_relu_cell" })[mode]
    if lstm and h ~= nil and (not torch.is_tensor(h) or not torch.is_tensor(c)) then
      error(("%s(): argument 'hx' (position 2) must be tuple of Tensors, not %s"):format(fname, args.py_type(h)), 3)
    end
    if not lstm then args.tensor(fname, "hx", 2, h, true, 4) end
    if input:dim() ~= 1 and input:dim() ~= 2 then
      error(("%s: Expected input to be 1-D or 2-D but received %d-D tensor"):format(name, input:dim()), 0)
    end
    local is_batched = input:dim() == 2
    if not is_batched then input = input:unsqueeze(1) end
    if h == nil then
      h = torch.zeros(input:size(1), self.hidden_size, { dtype = input.dtype, device = input.device })
      if lstm then c = h end
    elseif not is_batched then
      h = h:unsqueeze(1)
      if lstm then c = c:unsqueeze(1) end
    end
    self:_check(input, lstm and { h, c } or { h })
    local b_ih, b_hh = self.bias_ih or nil, self.bias_hh or nil
    local bias = input_bias(mode, b_ih, b_hh)
    local xp = bias and torch.addmm(bias, input, self.weight_ih:t()) or input:mm(self.weight_ih:t())
    local h1, c1 = steps[mode](xp, h, c, self.weight_hh:t(), b_hh, self.hidden_size)
    if not is_batched then
      h1 = h1:squeeze(1)
      if c1 then c1 = c1:squeeze(1) end
    end
    return h1, c1
  end
  nn.RNNCellBase = RNNCellBase

  local cell_names = { "input_size", "hidden_size", "bias", "nonlinearity", "device", "dtype" }

  -- nn.RNNCell(input_size, hidden_size, bias = true, nonlinearity = "tanh")
  local RNNCell = RNNCellBase:subclass("nn.RNNCell")
  function RNNCell:__init(...)
    local o = args.parse_at(3, "__init__", cell_names, { bias = true, nonlinearity = "tanh" }, ...)
    RNNCellBase.__init(self, o, 1)
    self.nonlinearity = o.nonlinearity
  end
  function RNNCell:forward(input, hx)
    local mode = ({ tanh = "RNN_TANH", relu = "RNN_RELU" })[self.nonlinearity]
    if not mode then error("Unknown nonlinearity: " .. tostring(self.nonlinearity), 0) end
    return (self:_cell("RNNCell", mode, input, hx))
  end
  nn.RNNCell = RNNCell

  local cell3_names = { "input_size", "hidden_size", "bias", "device", "dtype" }

  -- nn.LSTMCell(input_size, hidden_size, bias = true): forward(input, {h, c}) returns h', c'
  local LSTMCell = RNNCellBase:subclass("nn.LSTMCell")
  function LSTMCell:__init(...)
    RNNCellBase.__init(self, args.parse_at(3, "__init__", cell3_names, { bias = true }, ...), 4)
  end
  function LSTMCell:forward(input, hx)
    local h, c
    if hx ~= nil and type(hx) ~= "table" then
      error(("lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not %s"):format(args.py_type(hx)), 2)
    end
    if hx ~= nil then h, c = hx[1], hx[2] end
    return self:_cell("LSTMCell", "LSTM", input, h, c, true)
  end
  nn.LSTMCell = LSTMCell

  local GRUCell = RNNCellBase:subclass("nn.GRUCell")
  function GRUCell:__init(...)
    RNNCellBase.__init(self, args.parse_at(3, "__init__", cell3_names, { bias = true }, ...), 3)
  end
  function GRUCell:forward(input, hx) return (self:_cell("GRUCell", "GRU", input, hx)) end
  nn.GRUCell = GRUCell
end
