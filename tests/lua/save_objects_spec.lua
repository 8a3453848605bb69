-- torch.save / torch.load of whole objects (lua/mindtorch/serialization_graph.lua): every nn
-- module class of the library comes back as a working module that gives the same outputs;
-- optimizers and schedulers with their state; users' classes; shared tensors and tables stay
-- shared; classes are found by name (never by running file content); what cannot be saved is
-- an error naming where it is.
local torch = require "mindtorch"
local nn = torch.nn
local class = require "mindtorch._class"

local function tmpname(ext)
  local p = os.tmpname()
  os.remove(p)
  return p .. (ext or ".t7")
end

local function roundtrip(v, ext)
  local p = tmpname(ext)
  torch.save(v, p)
  local back = torch.load(p)
  os.remove(p)
  return back
end

-- outputs equal: tensors bit-exactly (NaN where NaN), tables element by element
local function same(a, b, what)
  if torch.is_tensor(a) then
    assert.is_true(torch.is_tensor(b), what .. ": not a tensor")
    assert.are.same(a:size(), b:size(), what)
    assert.are.equal(a.dtype, b.dtype, what)
    assert.is_true(torch.equal(a, b) or torch.equal(a:isnan(), b:isnan()) and torch.equal(a:nan_to_num(), b:nan_to_num()),
      what .. ": values differ")
  elseif type(a) == "table" then
    for k, v in pairs(a) do same(v, b[k], what .. "." .. tostring(k)) end
  else
    assert.are.equal(a, b, what)
  end
end

local r = torch.randn
local function seq(...) return ... end

-- each nn class: a constructed module and the inputs of one forward call
local CASES = {
  AdaptiveAvgPool1d = function() return nn.AdaptiveAvgPool1d(3), { r(2, 4, 7) } end,
  AdaptiveAvgPool2d = function() return nn.AdaptiveAvgPool2d({ 2, 3 }), { r(2, 3, 7, 8) } end,
  AdaptiveAvgPool3d = function() return nn.AdaptiveAvgPool3d(2), { r(1, 2, 5, 5, 5) } end,
  AdaptiveLogSoftmaxWithLoss = function()
    return nn.AdaptiveLogSoftmaxWithLoss(8, 10, { 4, 8 }), { r(5, 8), torch.tensor({ 1, 5, 9, 10, 3 }) }
  end,
  AdaptiveMaxPool1d = function() return nn.AdaptiveMaxPool1d(3), { r(2, 4, 7) } end,
  AdaptiveMaxPool2d = function() return nn.AdaptiveMaxPool2d(2, { return_indices = true }), { r(2, 3, 6, 6) } end,
  AdaptiveMaxPool3d = function() return nn.AdaptiveMaxPool3d(2), { r(1, 2, 5, 5, 5) } end,
  AlphaDropout = function() return nn.AlphaDropout(0.3), { r(4, 5) } end,
  AvgPool1d = function() return nn.AvgPool1d(3, { stride = 2 }), { r(2, 3, 9) } end,
  AvgPool2d = function() return nn.AvgPool2d(2), { r(2, 3, 6, 6) } end,
  AvgPool3d = function() return nn.AvgPool3d(2), { r(1, 2, 4, 4, 4) } end,
  BCELoss = function() return nn.BCELoss(), { torch.rand(4, 3), torch.rand(4, 3) } end,
  BCEWithLogitsLoss = function()
    return nn.BCEWithLogitsLoss({ pos_weight = torch.rand(3) }), { r(4, 3), torch.rand(4, 3) }
  end,
  BatchNorm1d = function() return nn.BatchNorm1d(4), { r(6, 4) } end,
  BatchNorm2d = function() return nn.BatchNorm2d(3), { r(2, 3, 4, 4) } end,
  BatchNorm3d = function() return nn.BatchNorm3d(2), { r(2, 2, 3, 3, 3) } end,
  Bilinear = function() return nn.Bilinear(3, 4, 5), { r(2, 3), r(2, 4) } end,
  CELU = function() return nn.CELU(0.5), { r(3, 4) } end,
  CTCLoss = function()
    return nn.CTCLoss(), { r(6, 2, 5):log_softmax(3), torch.tensor({ { 1, 2, 3 }, { 2, 4, 4 } }), { 6, 6 }, { 3, 2 } }
  end,
  ChannelShuffle = function() return nn.ChannelShuffle(2), { r(1, 4, 2, 2) } end,
  ConstantPad1d = function() return nn.ConstantPad1d(2, 3.5), { r(2, 3, 4) } end,
  ConstantPad2d = function() return nn.ConstantPad2d({ 1, 2, 0, 1 }, -1), { r(2, 3, 4) } end,
  ConstantPad3d = function() return nn.ConstantPad3d(1, 0), { r(1, 2, 2, 2, 2) } end,
  Container = function()
    local c = nn.Container()
    c:add_module("fc", nn.Linear(2, 2))
    return c, nil
  end,
  Conv1d = function() return nn.Conv1d(2, 4, 3, { padding = 1 }), { r(2, 2, 7) } end,
  Conv2d = function() return nn.Conv2d(2, 3, 3, { stride = 2, padding_mode = "reflect", padding = 1 }), { r(1, 2, 7, 7) } end,
  Conv3d = function() return nn.Conv3d(2, 2, 2), { r(1, 2, 4, 4, 4) } end,
  ConvTranspose1d = function() return nn.ConvTranspose1d(2, 3, 3, { stride = 2 }), { r(1, 2, 5) } end,
  ConvTranspose2d = function() return nn.ConvTranspose2d(2, 3, 3, { stride = 2 }), { r(1, 2, 4, 4) } end,
  ConvTranspose3d = function() return nn.ConvTranspose3d(2, 2, 2), { r(1, 2, 3, 3, 3) } end,
  CosineEmbeddingLoss = function() return nn.CosineEmbeddingLoss(), { r(4, 5), r(4, 5), torch.tensor({ 1, -1, 1, -1 }) } end,
  CosineSimilarity = function() return nn.CosineSimilarity(), { r(4, 5), r(4, 5) } end,
  CrossEntropyLoss = function()
    return nn.CrossEntropyLoss({ weight = torch.rand(5), label_smoothing = 0.1 }), { r(4, 5), torch.tensor({ 1, 5, 3, 2 }) }
  end,
  CrossMapLRN2d = function() return nn.CrossMapLRN2d(3), { r(1, 5, 3, 3) } end,
  Dropout = function() return nn.Dropout(0.4), { r(4, 5) } end,
  Dropout1d = function() return nn.Dropout1d(0.4), { r(2, 4, 5) } end,
  Dropout2d = function() return nn.Dropout2d(0.4), { r(2, 4, 3, 3) } end,
  Dropout3d = function() return nn.Dropout3d(0.4), { r(2, 4, 2, 2, 2) } end,
  ELU = function() return nn.ELU(), { r(3, 4) } end,
  Embedding = function() return nn.Embedding(10, 3, { padding_idx = 1 }), { torch.tensor({ { 1, 2 }, { 10, 4 } }) } end,
  EmbeddingBag = function()
    return nn.EmbeddingBag(10, 3, { mode = "max" }), { torch.tensor({ 1, 2, 4, 5, 4, 3 }), torch.tensor({ 1, 4 }) }
  end,
  FeatureAlphaDropout = function() return nn.FeatureAlphaDropout(0.3), { r(2, 4, 3, 3) } end,
  Flatten = function() return nn.Flatten(), { r(2, 3, 4) } end,
  Fold = function() return nn.Fold({ 4, 5 }, { 2, 2 }), { r(1, 12, 12) } end,
  FractionalMaxPool2d = function() return nn.FractionalMaxPool2d(2, { output_size = 3 }), { r(1, 2, 7, 7) } end,
  FractionalMaxPool3d = function() return nn.FractionalMaxPool3d(2, { output_size = 2 }), { r(1, 2, 5, 5, 5) } end,
  GELU = function() return nn.GELU({ approximate = "tanh" }), { r(3, 4) } end,
  GLU = function() return nn.GLU(), { r(3, 4) } end,
  GRU = function() return nn.GRU(3, 4, { num_layers = 2 }), { r(5, 2, 3) } end,
  GRUCell = function() return nn.GRUCell(3, 4), { r(2, 3) } end,
  GaussianNLLLoss = function() return nn.GaussianNLLLoss(), { r(4, 2), r(4, 2), torch.rand(4, 2) + 0.1 } end,
  GroupNorm = function() return nn.GroupNorm(2, 4), { r(2, 4, 3) } end,
  Hardshrink = function() return nn.Hardshrink(), { r(3, 4) } end,
  Hardsigmoid = function() return nn.Hardsigmoid(), { r(3, 4) } end,
  Hardswish = function() return nn.Hardswish(), { r(3, 4) } end,
  Hardtanh = function() return nn.Hardtanh(-0.5, 0.5), { r(3, 4) } end,
  HingeEmbeddingLoss = function() return nn.HingeEmbeddingLoss(), { r(4, 5), torch.tensor({ 1, -1, 1, -1, 1 }):float() } end,
  HuberLoss = function() return nn.HuberLoss({ delta = 0.5 }), { r(4, 5), r(4, 5) } end,
  Identity = function() return nn.Identity(), { r(3) } end,
  InstanceNorm1d = function() return nn.InstanceNorm1d(3, { affine = true }), { r(2, 3, 5) } end,
  InstanceNorm2d = function() return nn.InstanceNorm2d(3, { track_running_stats = true }), { r(2, 3, 4, 4) } end,
  InstanceNorm3d = function() return nn.InstanceNorm3d(2), { r(2, 2, 3, 3, 3) } end,
  KLDivLoss = function() return nn.KLDivLoss({ reduction = "batchmean" }), { r(4, 5):log_softmax(2), r(4, 5):softmax(2) } end,
  L1Loss = function() return nn.L1Loss(), { r(4, 5), r(4, 5) } end,
  LPPool1d = function() return nn.LPPool1d(2, 3), { r(2, 3, 9) } end,
  LPPool2d = function() return nn.LPPool2d(2, 2), { r(2, 3, 4, 4) } end,
  LSTM = function() return nn.LSTM(3, 4, { num_layers = 2, batch_first = true, bidirectional = true }), { r(2, 5, 3) } end,
  LSTMCell = function() return nn.LSTMCell(3, 4), { r(2, 3) } end,
  LayerNorm = function() return nn.LayerNorm({ 4, 5 }), { r(3, 4, 5) } end,
  LazyBatchNorm1d = function() return nn.LazyBatchNorm1d(), { r(6, 4) } end,
  LazyBatchNorm2d = function() return nn.LazyBatchNorm2d(), { r(2, 3, 4, 4) } end,
  LazyBatchNorm3d = function() return nn.LazyBatchNorm3d(), { r(2, 2, 3, 3, 3) } end,
  LazyConv1d = function() return nn.LazyConv1d(4, 3), { r(2, 2, 7) } end,
  LazyConv2d = function() return nn.LazyConv2d(3, 3), { r(1, 2, 7, 7) } end,
  LazyConv3d = function() return nn.LazyConv3d(2, 2), { r(1, 2, 4, 4, 4) } end,
  LazyConvTranspose1d = function() return nn.LazyConvTranspose1d(3, 3), { r(1, 2, 5) } end,
  LazyConvTranspose2d = function() return nn.LazyConvTranspose2d(3, 3), { r(1, 2, 4, 4) } end,
  LazyConvTranspose3d = function() return nn.LazyConvTranspose3d(2, 2), { r(1, 2, 3, 3, 3) } end,
  LazyInstanceNorm1d = function() return nn.LazyInstanceNorm1d({ affine = true }), { r(2, 3, 5) } end,
  LazyInstanceNorm2d = function() return nn.LazyInstanceNorm2d({ affine = true }), { r(2, 3, 4, 4) } end,
  LazyInstanceNorm3d = function() return nn.LazyInstanceNorm3d({ affine = true }), { r(2, 2, 3, 3, 3) } end,
  LazyLinear = function() return nn.LazyLinear(4), { r(3, 5) } end,
  LeakyReLU = function() return nn.LeakyReLU(0.2), { r(3, 4) } end,
  Linear = function() return nn.Linear(4, 3), { r(2, 4) } end,
  LocalResponseNorm = function() return nn.LocalResponseNorm(3), { r(1, 5, 3, 3) } end,
  LogSigmoid = function() return nn.LogSigmoid(), { r(3, 4) } end,
  LogSoftmax = function() return nn.LogSoftmax(2), { r(3, 4) } end,
  MSELoss = function() return nn.MSELoss({ reduction = "sum" }), { r(4, 5), r(4, 5) } end,
  MarginRankingLoss = function() return nn.MarginRankingLoss(0.2), { r(5), r(5), torch.tensor({ 1, -1, 1, 1, -1 }):float() } end,
  MaxPool1d = function() return nn.MaxPool1d(3, { stride = 2, return_indices = true }), { r(2, 3, 9) } end,
  MaxPool2d = function() return nn.MaxPool2d(2), { r(2, 3, 6, 6) } end,
  MaxPool3d = function() return nn.MaxPool3d(2), { r(1, 2, 4, 4, 4) } end,
  MaxUnpool1d = function()
    local x, i = nn.MaxPool1d(2, { return_indices = true })(r(1, 2, 6))
    return nn.MaxUnpool1d(2), { x, i }
  end,
  MaxUnpool2d = function()
    local x, i = nn.MaxPool2d(2, { return_indices = true })(r(1, 2, 4, 4))
    return nn.MaxUnpool2d(2), { x, i }
  end,
  MaxUnpool3d = function()
    local x, i = nn.MaxPool3d(2, { return_indices = true })(r(1, 1, 4, 4, 4))
    return nn.MaxUnpool3d(2), { x, i }
  end,
  Mish = function() return nn.Mish(), { r(3, 4) } end,
  Module = function() return nn.Module(), nil end,
  ModuleDict = function() return nn.ModuleDict({ a = nn.Linear(2, 3), b = nn.ReLU() }), nil end,
  ModuleList = function() return nn.ModuleList({ nn.Linear(2, 3), nn.Tanh() }), nil end,
  MultiLabelMarginLoss = function()
    return nn.MultiLabelMarginLoss(), { r(2, 4), torch.tensor({ { 4, 2, 0, 0 }, { 1, 0, 0, 0 } }) }
  end,
  MultiLabelSoftMarginLoss = function() return nn.MultiLabelSoftMarginLoss(), { r(3, 4), torch.rand(3, 4):round() } end,
  MultiMarginLoss = function() return nn.MultiMarginLoss({ p = 2 }), { r(3, 4), torch.tensor({ 1, 4, 2 }) } end,
  MultiheadAttention = function()
    return nn.MultiheadAttention(8, 2, { batch_first = true }), { r(2, 3, 8), r(2, 4, 8), r(2, 4, 8) }
  end,
  NLLLoss = function() return nn.NLLLoss(), { r(4, 5):log_softmax(2), torch.tensor({ 1, 5, 3, 2 }) } end,
  NLLLoss2d = function() return nn.NLLLoss2d(), { r(2, 3, 2, 2):log_softmax(2), torch.tensor({ { { 1, 2 }, { 3, 1 } }, { { 2, 2 }, { 1, 3 } } }) } end,
  PReLU = function() return nn.PReLU(3), { r(2, 3, 4) } end,
  PairwiseDistance = function() return nn.PairwiseDistance(), { r(4, 5), r(4, 5) } end,
  ParameterDict = function() return nn.ParameterDict({ w = nn.Parameter(r(2, 2)) }), nil end,
  ParameterList = function() return nn.ParameterList({ nn.Parameter(r(2)), nn.Parameter(r(3)) }), nil end,
  PixelShuffle = function() return nn.PixelShuffle(2), { r(1, 8, 2, 3) } end,
  PixelUnshuffle = function() return nn.PixelUnshuffle(2), { r(1, 2, 4, 6) } end,
  PoissonNLLLoss = function() return nn.PoissonNLLLoss(), { r(4, 5), torch.rand(4, 5) * 3 } end,
  RNN = function() return nn.RNN(3, 4, { nonlinearity = "relu" }), { r(5, 2, 3) } end,
  RNNBase = function() return nn.RNNBase("LSTM", 3, 4), nil end,
  RNNCell = function() return nn.RNNCell(3, 4), { r(2, 3) } end,
  RNNCellBase = function() return nn.RNNCellBase(3, 4, true, 2), nil end,
  RReLU = function() return nn.RReLU(), { r(3, 4) } end,
  ReLU = function() return nn.ReLU(), { r(3, 4) } end,
  ReLU6 = function() return nn.ReLU6(), { r(3, 4) * 5 } end,
  ReflectionPad1d = function() return nn.ReflectionPad1d(2), { r(2, 3, 4) } end,
  ReflectionPad2d = function() return nn.ReflectionPad2d(1), { r(1, 2, 3, 3) } end,
  ReflectionPad3d = function() return nn.ReflectionPad3d(1), { r(1, 1, 2, 2, 2) } end,
  ReplicationPad1d = function() return nn.ReplicationPad1d(2), { r(2, 3, 4) } end,
  ReplicationPad2d = function() return nn.ReplicationPad2d(1), { r(1, 2, 3, 3) } end,
  ReplicationPad3d = function() return nn.ReplicationPad3d(1), { r(1, 1, 2, 2, 2) } end,
  SELU = function() return nn.SELU(), { r(3, 4) } end,
  Sequential = function() return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)), { r(2, 3) } end,
  SiLU = function() return nn.SiLU(), { r(3, 4) } end,
  Sigmoid = function() return nn.Sigmoid(), { r(3, 4) } end,
  SmoothL1Loss = function() return nn.SmoothL1Loss({ beta = 0.5 }), { r(4, 5), r(4, 5) } end,
  SoftMarginLoss = function() return nn.SoftMarginLoss(), { r(4, 5), torch.rand(4, 5):round() * 2 - 1 } end,
  Softmax = function() return nn.Softmax(2), { r(3, 4) } end,
  Softmax2d = function() return nn.Softmax2d(), { r(2, 3, 4, 4) } end,
  Softmin = function() return nn.Softmin(1), { r(3, 4) } end,
  Softplus = function() return nn.Softplus({ beta = 2 }), { r(3, 4) } end,
  Softshrink = function() return nn.Softshrink(), { r(3, 4) } end,
  Softsign = function() return nn.Softsign(), { r(3, 4) } end,
  SyncBatchNorm = function() return nn.SyncBatchNorm(3), nil end, -- forward needs a process group
  Tanh = function() return nn.Tanh(), { r(3, 4) } end,
  Tanhshrink = function() return nn.Tanhshrink(), { r(3, 4) } end,
  Threshold = function() return nn.Threshold(0.1, 20), { r(3, 4) } end,
  Transformer = function()
    return nn.Transformer({ d_model = 8, nhead = 2, num_encoder_layers = 1, num_decoder_layers = 1, dim_feedforward = 16 }),
      { r(5, 2, 8), r(3, 2, 8) }
  end,
  TransformerDecoder = function()
    return nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, { dim_feedforward = 16 }), 2), { r(3, 2, 8), r(5, 2, 8) }
  end,
  TransformerDecoderLayer = function()
    return nn.TransformerDecoderLayer(8, 2, { dim_feedforward = 16, norm_first = true }), { r(3, 2, 8), r(5, 2, 8) }
  end,
  TransformerEncoder = function()
    return nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, { dim_feedforward = 16 }), 2, { norm = nn.LayerNorm(8) }),
      { r(5, 2, 8) }
  end,
  TransformerEncoderLayer = function()
    return nn.TransformerEncoderLayer(8, 2, { dim_feedforward = 16, activation = "gelu", batch_first = true }), { r(2, 5, 8) }
  end,
  TripletMarginLoss = function() return nn.TripletMarginLoss(), { r(4, 5), r(4, 5), r(4, 5) } end,
  TripletMarginWithDistanceLoss = function()
    return nn.TripletMarginWithDistanceLoss({ distance_function = nn.PairwiseDistance(), margin = 0.5 }), { r(4, 5), r(4, 5), r(4, 5) }
  end,
  Unflatten = function() return nn.Unflatten(2, { 2, 3 }), { r(4, 6) } end,
  Unfold = function() return nn.Unfold({ 2, 3 }), { r(1, 2, 4, 5) } end,
  Upsample = function() return nn.Upsample({ scale_factor = 2, mode = "bilinear" }), { r(1, 2, 3, 3) } end,
  UpsamplingBilinear2d = function() return nn.UpsamplingBilinear2d({ scale_factor = 2 }), { r(1, 2, 3, 3) } end,
  UpsamplingNearest2d = function() return nn.UpsamplingNearest2d({ size = { 5, 4 } }), { r(1, 2, 3, 3) } end,
  ZeroPad2d = function() return nn.ZeroPad2d({ 1, 0, 2, 1 }), { r(1, 2, 3, 3) } end,
}

local function module_classes()
  local names = {}
  local function is_module_class(c)
    while c do
      if rawequal(c, nn.Module) then return true end
      c = class.parent(c)
    end
    return false
  end
  for k, v in pairs(nn) do
    if class.is_class(v) and is_module_class(v) then names[#names + 1] = k end
  end
  table.sort(names)
  return names
end

local function outputs(m, inputs)
  torch.manual_seed(7) -- the same draws for dropout, RReLU and fractional pooling on both sides
  return table.pack(m(table.unpack(inputs)))
end

describe("torch.save of whole objects", function()
  it("covers every nn module class of the library", function()
    local missing = {}
    for _, name in ipairs(module_classes()) do
      if not CASES[name] then missing[#missing + 1] = name end
    end
    assert.are.same({}, missing)
  end)

  for _, name in ipairs(module_classes()) do
    it("round-trips nn." .. name .. " into a working module with the same outputs", function()
      torch.manual_seed(1)
      local m, inputs = CASES[name]()
      local back = roundtrip(m)
      assert.are.equal(nn[name], class.type_of(back))
      assert.are.equal(tostring(m), tostring(back))
      local sd, sd2 = m:state_dict(), back:state_dict()
      for k, v in pairs(sd) do same(v, sd2[k], name .. " " .. k) end
      for k in pairs(sd2) do assert.is_not_nil(sd[k], name .. " gained " .. k) end
      if inputs then
        same(outputs(m, inputs), outputs(back, inputs), name .. " forward")
        -- and once more after a forward (lazy modules have their weights now; running stats moved)
        local again = roundtrip(m)
        m:eval()
        again:eval()
        same(outputs(m, inputs), outputs(again, inputs), name .. " forward after a round trip in eval mode")
        -- gradients flow into the loaded parameters
        local params = again:parameters()
        if #params > 0 then
          local out = outputs(again, inputs)[1]
          if type(out) == "table" then out = out[1] end
          if out.dtype.is_floating_point and out.requires_grad then
            out:sum():backward()
            assert.is_not_nil(params[1].grad, name .. ": no gradient reached a loaded parameter")
          end
        end
      end
    end)
  end
end)

describe("torch.save of optimizers, schedulers and users' classes", function()
  local function train_step(model, opt, x)
    opt:zero_grad()
    model(x):pow(2):mean():backward()
    opt:step()
  end

  it("keeps an optimizer's state and its parameters shared with the model", function()
    for _, make in ipairs({
      function(p) return torch.optim.Adam(p, { lr = 0.01, amsgrad = true }) end,
      function(p) return torch.optim.SGD(p, { lr = 0.1, momentum = 0.9, nesterov = true }) end,
      function(p) return torch.optim.RMSprop(p, { lr = 0.01, centered = true }) end,
    }) do
      torch.manual_seed(3)
      local model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
      local opt = make(model:parameters())
      local sched = torch.optim.lr_scheduler.StepLR(opt, 2, { gamma = 0.5 })
      local x = torch.randn(6, 4)
      for _ = 1, 3 do
        train_step(model, opt, x)
        sched:step()
      end
      local back = roundtrip({ model = model, opt = opt, sched = sched, epoch = 3 }, ".pt")
      assert.are.equal(3, back.epoch)
      -- the optimizer holds the loaded model's parameters, not copies
      local params = back.model:parameters()
      for i, p in ipairs(back.opt.param_groups[1].params) do assert.is_true(rawequal(p, params[i])) end
      assert.is_true(rawequal(back.sched.optimizer, back.opt))
      assert.are.equal(sched:get_last_lr()[1], back.sched:get_last_lr()[1])
      -- training goes on identically from both
      for _ = 1, 3 do
        train_step(model, opt, x)
        sched:step()
        train_step(back.model, back.opt, x)
        back.sched:step()
      end
      same(model(x), back.model(x), tostring(opt):match("^(%w+)"))
      assert.are.equal(opt.param_groups[1].lr, back.opt.param_groups[1].lr)
    end
  end)

  it("restores instances of users' classes by name, and names a class that is not defined", function()
    local Net = nn.Module:subclass("SaveSpecNet")
    function Net:__init(n)
      nn.Module.__init(self)
      self.fc = nn.Linear(n, 3)
      self.scale = 2.5
      self.tag = "net"
    end
    function Net:forward(x) return self.fc(x):mul(self.scale) end
    torch.manual_seed(5)
    local net = Net(4)
    local x = torch.randn(2, 4)
    local p = tmpname(".t7")
    torch.save(net, p)
    local back = torch.load(p)
    assert.is_true(Net:isinstance(back))
    assert.are.equal("net", back.tag)
    same(net(x), back(x), "SaveSpecNet")
    -- a file naming a class this program has not declared
    local f = assert(io.open(p, "rb"))
    local s = f:read("a")
    f:close()
    local other = tmpname(".t7")
    local body = s:sub(1, -5):gsub("SaveSpecNet", "SaveSpecNeX")
    f = assert(io.open(other, "wb"))
    f:write(body, string.pack("<I4", torch._crc32(body)))
    f:close()
    local ok, err = pcall(torch.load, other)
    os.remove(other)
    os.remove(p)
    assert.is_false(ok)
    assert.truthy(err:find("class 'SaveSpecNeX' is not defined: require or declare it (torch.class) before torch.load",
      1, true), err)
  end)

  it("keeps shared tensors, views and tables shared, cycles included", function()
    local base = torch.arange(12.0):view(3, 4)
    local shared = { n = 1 }
    local v = { a = base, row = base[2], t = base:t(), x = shared, y = shared, ints = torch.arange(4, { dtype = torch.int32 }) }
    v.self = v
    local back = roundtrip(v)
    assert.is_true(rawequal(back, back.self))
    assert.is_true(rawequal(back.x, back.y))
    assert.are.equal(back.a:untyped_storage():data_ptr(), back.row:untyped_storage():data_ptr())
    assert.are.same({ 1, 4 }, back.t:stride())
    back.a[2][1] = 100
    assert.are.equal(100, back.row[1]:item())
    assert.are.equal(100, back.t[1][2]:item())
    same(torch.arange(4, { dtype = torch.int32 }), back.ints, "ints")
    -- parameters stay parameters, with requires_grad; tensors keep their attributes
    local w = nn.Parameter(torch.ones(2))
    local frozen = nn.Parameter(torch.ones(2), false)
    local marked = torch.zeros(2)
    marked.note = "kept"
    local b2 = roundtrip({ w = w, frozen = frozen, marked = marked })
    assert.is_true(b2.w._is_parameter and b2.w.requires_grad and b2.w.is_leaf)
    assert.is_true(b2.frozen._is_parameter and not b2.frozen.requires_grad)
    assert.are.equal("kept", b2.marked.note)
  end)

  it("writes functions by name, and refuses closures naming where they are", function()
    local back = roundtrip({ act = torch.nn.functional.relu, f = math.max, dt = torch.float64, dev = torch.device("cpu") })
    assert.are.equal(torch.nn.functional.relu, back.act)
    assert.are.equal(math.max, back.f)
    assert.are.equal(torch.float64, back.dt)
    assert.are.equal("cpu", tostring(back.dev))
    local m = nn.Linear(2, 2)
    m:register_forward_hook(function() end)
    local ok, err = pcall(torch.save, m, tmpname())
    assert.is_false(ok)
    assert.truthy(err:find("torch.save: a function that torch, math, string and table do not reach by name", 1, true), err)
    assert.truthy(err:find("(at value._forward_hooks[1].fn)", 1, true), err)
    ok, err = pcall(torch.save, { co = coroutine.create(print) }, tmpname())
    assert.is_false(ok)
    assert.truthy(err:find("a value of type thread cannot be saved (at value.co)", 1, true), err)
    ok, err = pcall(torch.save, { t = setmetatable({}, { __index = {} }) }, tmpname())
    assert.is_false(ok)
    assert.truthy(err:find("a table with a metatable that is not a class", 1, true), err)
  end)

  it("writes mindtorch's format for whole objects under .pt names, PyTorch's for plain values", function()
    local function head(p)
      local f = assert(io.open(p, "rb"))
      local h = f:read(4)
      f:close()
      return h
    end
    local p = tmpname(".pt")
    torch.save(nn.Linear(2, 3), p)
    assert.are.equal("MTSA", head(p))
    assert.are.equal("nn.Linear", class.typename(torch.load(p)))
    torch.save(nn.Linear(2, 3):state_dict(), p)
    assert.are.equal("PK\3\4", head(p))
    local ok, err = pcall(torch.save, nn.Linear(2, 2), p, { format = "pt" })
    os.remove(p)
    assert.is_false(ok)
    assert.matches("a module in PyTorch's format", err)
  end)

  it("refuse hostile object files with clear errors", function()
    local function load_body(body)
      local p = tmpname()
      local f = assert(io.open(p, "wb"))
      f:write("MTSAVE\0\2", body, string.pack("<I4", torch._crc32("MTSAVE\0\2" .. body)))
      f:close()
      local ok, err = pcall(torch.load, p)
      os.remove(p)
      assert.is_false(ok)
      return tostring(err)
    end
    local function tensor(sizes, strides, offset, nbytes, dtype)
      local parts = { string.pack("<c1I4s8s1B", "V", 1, string.rep("\0", nbytes), dtype or "float32", #sizes) }
      for i = 1, #sizes do parts[#parts + 1] = string.pack("<i8i8", sizes[i], strides[i]) end
      parts[#parts + 1] = string.pack("<i8B", offset, 0) .. "0"
      return table.concat(parts)
    end
    assert.matches("a tensor reaches past its storage", load_body(tensor({ 5 }, { 1 }, 0, 16)))
    assert.matches("a tensor reaches past its storage", load_body(tensor({ 2 }, { 1 }, 3, 16)))
    assert.matches("extent overflows", load_body(tensor({ 3, 2 }, { 1 << 62, 1 << 62 }, 0, 16)))
    assert.matches("tensor sizes overflow", load_body(tensor({ 1 << 40, 1 << 40 }, { 0, 0 }, 0, 16)))
    assert.matches("a negative tensor size or stride", load_body(tensor({ -1 }, { 1 }, 0, 16)))
    assert.matches("unknown dtype", load_body(tensor({ 1 }, { 1 }, 0, 16, "complex64")))
    assert.matches("a tensor on storage 7 of 0", load_body(string.pack("<c1I4", "V", 7)))
    assert.matches("a reference to object 3 of 1", load_body("t" .. string.pack("<I4", 1) .. "s\1\0\0\0k" .. string.pack("<c1I4", "r", 3)))
    assert.matches("a table count larger than the file", load_body("t" .. string.pack("<I4", 1 << 30)))
    assert.matches("function os.execute is not defined here", load_body(string.pack("<c1s2", "F", "os.execute")))
    assert.matches("function torch.nope is not defined here", load_body(string.pack("<c1s2", "F", "torch.nope")))
    assert.matches("objects of an unknown kind", load_body(string.pack("<c1s2", "m", "x") .. string.pack("<I4", 0)))
    assert.matches("a weak table of mode z", load_body(string.pack("<c1s1", "w", "z") .. string.pack("<I4", 0)))
    assert.matches("truncated", load_body(string.pack("<c1I4", "V", 1) .. string.pack("<I8", 1 << 40)))
    assert.matches("nested deeper than 200", load_body(string.rep("t\1\0\0\0i\1\0\0\0\0\0\0\0", 300)))
  end)
end)
