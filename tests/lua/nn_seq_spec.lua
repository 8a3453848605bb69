-- Sequence layers (RNN/LSTM/GRU, cells, MultiheadAttention, Transformer encoder): gradcheck of
-- inputs and parameters in float64 at tiny sizes, dropout in training mode, a training loop,
-- deep copies and argument handling. Values against PyTorch are in tests/contract/nn_seq_spec.lua.
local torch = require "mindtorch"
local nn, F, optim = torch.nn, torch.nn.functional, torch.optim
local D = torch.float64
local gradcheck = torch.autograd.gradcheck

-- every (module, name) slot holding a parameter, in named_parameters order
local function param_slots(m)
  local slots = {}
  for _, e in ipairs(m:_named_modules_list("")) do
    local mod = e[2]
    for _, name in ipairs(mod._parameters.order) do
      local p = mod._parameters.items[name]
      if p then slots[#slots + 1] = { mod, name, p } end
    end
  end
  return slots
end

-- gradcheck of fn(module, inputs...) w.r.t. the inputs and every parameter: the parameters are
-- swapped for gradcheck's perturbed copies during each call
local function check_module(m, inputs, fn, opts)
  local slots = param_slots(m)
  local args = { n = #inputs + #slots }
  for i, x in ipairs(inputs) do args[i] = x end
  for i, s in ipairs(slots) do args[#inputs + i] = s[3] end
  local function call(...)
    local vals = table.pack(...)
    for i, s in ipairs(slots) do s[1]._parameters.items[s[2]] = vals[#inputs + i] end
    local ok, r = pcall(function() return table.pack(fn(m, table.unpack(vals, 1, #inputs))) end)
    for _, s in ipairs(slots) do s[1]._parameters.items[s[2]] = s[3] end
    if not ok then error(r, 0) end
    return r
  end
  return gradcheck(call, args, opts)
end

local function rand(...) return torch.randn(table.pack(...), { dtype = D }):requires_grad_() end

describe("recurrent layers under gradcheck", function()
  for _, kind in ipairs({ "RNN", "RNN_relu", "LSTM", "GRU" }) do
    it(kind .. " (2 layers, bidirectional, h0) for its input, initial state and parameters", function()
      torch.manual_seed(11)
      local opts = { num_layers = 2, bidirectional = true }
      local m
      if kind == "RNN_relu" then
        opts.nonlinearity = "relu"
        m = nn.RNN(2, 3, opts)
      else
        m = nn[kind](2, 3, opts)
      end
      m:double()
      local x, h0 = rand(3, 2, 2), rand(4, 2, 3)
      if kind == "LSTM" then
        local c0 = rand(4, 2, 3)
        assert.is_true(check_module(m, { x, h0, c0 }, function(mod, a, b, c)
          local out, hc = mod(a, { b, c })
          return out, hc[1], hc[2]
        end))
      else
        assert.is_true(check_module(m, { x, h0 }, function(mod, a, b) return mod(a, b) end))
      end
    end)
  end

  it("LSTM with proj_size, batch_first and no bias; GRU unbatched", function()
    torch.manual_seed(12)
    local m = nn.LSTM(2, 3, { proj_size = 2, batch_first = true, bias = false }):double()
    assert.is_true(check_module(m, { rand(2, 3, 2) }, function(mod, a)
      local out, hc = mod(a)
      return out, hc[1], hc[2]
    end))
    local g = nn.GRU(2, 3, { batch_first = true }):double()
    assert.is_true(check_module(g, { rand(4, 2), rand(1, 3) }, function(mod, a, h) return mod(a, h) end))
  end)

  it("cells for input, state and parameters", function()
    torch.manual_seed(13)
    for _, m in ipairs({ nn.RNNCell(3, 2), nn.RNNCell(3, 2, { nonlinearity = "relu" }), nn.GRUCell(3, 2),
      nn.GRUCell(3, 2, { bias = false }) }) do
      m:double()
      assert.is_true(check_module(m, { rand(2, 3), rand(2, 2) }, function(mod, x, h) return mod(x, h) end))
    end
    local lc = nn.LSTMCell(3, 2):double()
    assert.is_true(check_module(lc, { rand(2, 3), rand(2, 2), rand(2, 2) },
      function(mod, x, h, c) return mod(x, { h, c }) end))
  end)
end)

describe("attention under gradcheck", function()
  it("MultiheadAttention with masks, for query, key, value and parameters", function()
    torch.manual_seed(14)
    local m = nn.MultiheadAttention(4, 2, { kdim = 3, vdim = 2 }):double()
    local kpm = torch.tensor({ { false, false, true }, { false, true, false } })
    local mask = torch.tensor({ { 0.0, -0.5, 0.3 }, { 0.1, 0.0, -1.0 } }, { dtype = D })
    assert.is_true(check_module(m, { rand(2, 2, 4), rand(3, 2, 3), rand(3, 2, 2) }, function(mod, q, k, v)
      return mod(q, k, v, { key_padding_mask = kpm, attn_mask = mask, average_attn_weights = false })
    end))
    local s = nn.MultiheadAttention(4, 2, { batch_first = true, add_bias_kv = true }):double()
    assert.is_true(check_module(s, { rand(2, 3, 4) }, function(mod, x) return mod(x, x, x) end))
  end)

  it("TransformerEncoderLayer (both norm orders) and TransformerEncoder", function()
    torch.manual_seed(15)
    for _, nf in ipairs({ false, true }) do
      local layer = nn.TransformerEncoderLayer(4, 2, 6, { norm_first = nf, activation = "gelu" }):double():eval()
      assert.is_true(check_module(layer, { rand(3, 2, 4) }, function(mod, x) return mod(x) end))
    end
    local enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 5, { batch_first = true }), 2,
      { norm = nn.LayerNorm(4) }):double():eval()
    local kpm = torch.tensor({ { false, false, true }, { false, false, false } })
    assert.is_true(check_module(enc, { rand(2, 3, 4) }, function(mod, x)
      return mod(x, { src_key_padding_mask = kpm })
    end))
  end)
end)

describe("dropout in training mode", function()
  it("drops between recurrent layers only when training", function()
    torch.manual_seed(16)
    local m = nn.LSTM(3, 6, { num_layers = 2, dropout = 0.5 })
    local ref = nn.LSTM(3, 6, { num_layers = 2 })
    ref:load_state_dict(m:state_dict())
    local x = torch.randn(5, 2, 3)
    local a = (m(x))
    local b = (m(x))
    assert.is_false(torch.allclose(a, b))              -- fresh masks each call
    assert.is_false(torch.allclose(a, (ref(x))))
    m:eval()
    assert.is_true(torch.equal((m(x)), (ref(x))))          -- eval: no dropout
    local one = nn.GRU(3, 6, { dropout = 0.5 })          -- one layer: nothing to drop
    local o1 = (one(x))
    assert.is_true(torch.equal(o1, (one(x))))
  end)

  it("drops attention weights and transformer activations only when training", function()
    torch.manual_seed(17)
    local m = nn.MultiheadAttention(8, 2, { dropout = 0.5 })
    local x = torch.randn(4, 2, 8)
    local a = (m(x, x, x))
    assert.is_false(torch.allclose(a, (m(x, x, x))))
    m:eval()
    assert.is_true(torch.equal((m(x, x, x)), (m(x, x, x))))
    local layer = nn.TransformerEncoderLayer(8, 2, 16)
    local t = layer(x)
    assert.is_false(torch.allclose(t, layer(x)))
    layer:eval()
    assert.is_true(torch.equal(layer(x), layer(x)))
  end)
end)

describe("training", function()
  it("an LSTM learns running sums (the loss falls)", function()
    torch.manual_seed(18)
    local lstm = nn.LSTM(1, 16, { batch_first = true })
    local head = nn.Linear(16, 1)
    local params = lstm:parameters()
    for _, p in ipairs(head:parameters()) do params[#params + 1] = p end
    local opt = optim.Adam(params, { lr = 0.02 })
    local x = torch.rand(32, 6, 1) - 0.5
    local y = x:cumsum(2)
    local first, last
    for step = 1, 150 do
      opt:zero_grad()
      local out = lstm(x)
      local loss = F.mse_loss(head(out), y)
      loss:backward()
      opt:step()
      if step == 1 then first = loss:item() end
      last = loss:item()
    end
    assert.is_true(last < 0.1 * first, ("loss %g -> %g"):format(first, last))
  end)
end)

describe("sequence layers", function()
  it("an LSTM equals its cell unrolled with the same weights", function()
    torch.manual_seed(19)
    local m = nn.LSTM(3, 4):double()
    local cell = nn.LSTMCell(3, 4):double()
    torch.no_grad(function()
      cell.weight_ih:copy_(m.weight_ih_l0)
      cell.weight_hh:copy_(m.weight_hh_l0)
      cell.bias_ih:copy_(m.bias_ih_l0)
      cell.bias_hh:copy_(m.bias_hh_l0)
    end)
    local x = torch.randn(5, 2, 3, { dtype = D })
    local out, hc = m(x)
    local h, c
    for t = 1, 5 do
      h, c = cell(x[t], h and { h, c } or nil)
      assert.is_true(torch.allclose(out[t], h, 1e-12, 1e-12))
    end
    assert.is_true(torch.allclose(hc[1][1], h, 1e-12, 1e-12))
    assert.is_true(torch.allclose(hc[2][1], c, 1e-12, 1e-12))
  end)

  it("takes PyTorch's positional arguments and refuses unknown options", function()
    local m = nn.GRU(3, 4, 2, false, true, 0.0, true) -- num_layers, bias, batch_first, dropout, bidirectional
    assert.are.equal("GRU(3, 4, num_layers=2, bias=False, batch_first=True, bidirectional=True)", tostring(m))
    assert.has_error(function() nn.LSTM(3, 4, { foo = 1 }) end, "__init__() got an unexpected keyword argument 'foo'")
    assert.has_error(function() nn.LSTM(3, 4, { nonlinearity = "relu" }) end,
      "__init__() got an unexpected keyword argument 'nonlinearity'")
    local mha = nn.MultiheadAttention(4, 2)
    local x = torch.randn(3, 1, 4)
    local o1, w1 = mha(x, x, x, nil, false)
    assert.is_nil(w1)
    local o2 = mha(x, x, x, { need_weights = false })
    assert.is_true(torch.equal(o1, o2))
    assert.has_error(function() mha(x, x, x, { mask = 1 }) end, "forward() got an unexpected keyword argument 'mask'")
  end)

  it("keeps working after dtype conversion and exposes all_weights", function()
    local m = nn.RNN(2, 3, { num_layers = 2 }):double()
    local out = m(torch.randn(4, 1, 2, { dtype = D }))
    assert.are.equal(D, out.dtype)
    local aw = m:all_weights()
    assert.are.equal(2, #aw)
    assert.is_true(rawequal(aw[2][1], m.weight_ih_l1))
  end)

  it("deep-copies the encoder layer: equal weights, no sharing", function()
    local layer = nn.TransformerEncoderLayer(4, 2, 8)
    local enc = nn.TransformerEncoder(layer, 2)
    local l1, l2 = enc.layers[1], enc.layers[2]
    assert.is_false(rawequal(l1, layer))
    assert.is_false(rawequal(l1.linear1.weight, l2.linear1.weight))
    assert.is_true(torch.equal(l1.linear1.weight, layer.linear1.weight))
    assert.is_true(nn.is_parameter(l2.self_attn.in_proj_weight))
    assert.is_true(l2.self_attn.in_proj_weight.requires_grad)
    assert.are.equal(2 * #layer:parameters(), #enc:parameters())
    torch.no_grad(function() l1.linear1.weight:fill_(0) end)
    assert.is_false(torch.equal(l2.linear1.weight, l1.linear1.weight))
    assert.are.equal("TransformerEncoderLayer", getmetatable(l2).__name)
    -- the copies are independent modules: eval on one leaves the other training
    l1:eval()
    assert.is_true(l2.training)
  end)

  it("accepts activation modules and functions in TransformerEncoderLayer", function()
    local x = torch.randn(3, 2, 4)
    local a = nn.TransformerEncoderLayer(4, 2, 8, { activation = nn.ReLU() }):eval()
    assert.are.equal(1, a.activation_relu_or_gelu)
    local b = nn.TransformerEncoderLayer(4, 2, 8, { activation = function(t) return t:tanh() end }):eval()
    assert.are.equal(0, b.activation_relu_or_gelu)
    assert.are.same({ 3, 2, 4 }, { table.unpack(a(x).shape) })
    assert.are.same({ 3, 2, 4 }, { table.unpack(b(x).shape) })
  end)
end)
