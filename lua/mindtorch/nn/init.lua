-- mindtorch.nn: PyTorch's torch.nn in Lua (torch.nn, or require "mindtorch.nn").
local torch = require "mindtorch"
local class = require "mindtorch._class"
local nn = {}
require("mindtorch.nn.module")(torch, nn)
require("mindtorch.nn.functional")(torch, nn)
require("mindtorch.nn.weight_init")(torch, nn)
require("mindtorch.nn.layers")(torch, nn)
require("mindtorch.nn.activation")(torch, nn)
require("mindtorch.nn.loss")(torch, nn)
require("mindtorch.nn.normalization")(torch, nn)
require("mindtorch.nn.conv")(torch, nn)
require("mindtorch.nn.pooling_more")(torch, nn)
require("mindtorch.nn.recurrent")(torch, nn)
require("mindtorch.nn.transformer")(torch, nn)
require("mindtorch.nn.transformer_decoder")(torch, nn)
require("mindtorch.nn.utils")(torch, nn)
require("mindtorch.nn.upsampling")(torch, nn)
require("mindtorch.nn.padding")(torch, nn)
require("mindtorch.nn.fold")(torch, nn)
require("mindtorch.nn.embedding_bag")(torch, nn)
require("mindtorch.nn.local_response_norm")(torch, nn)
require("mindtorch.nn.utils.rnn")(torch, nn)
require("mindtorch.nn.weight_norms")(torch, nn)
require("mindtorch.nn.parametrize")(torch, nn)
require("mindtorch.nn.parallel")(torch, nn)
require("mindtorch.nn.lazy")(torch, nn)
require("mindtorch.nn.parameter_containers")(torch, nn)
require("mindtorch.nn.sync_batchnorm")(torch, nn)

-- the tensors each built-in module's forward needs, checked where a call enters (module.lua);
-- containers and Identity take anything
local any_input = { Sequential = true, ModuleList = true, ModuleDict = true, Identity = true, Module = true,
  ParameterList = true, ParameterDict = true, Container = true,
  RNNBase = true, RNNCellBase = true, RNN = true, LSTM = true, GRU = true } -- RNNs also take a PackedSequence
local two = { "input", "target" }
local special = { Bilinear = { "input1", "input2" }, MultiheadAttention = { "query", "key", "value" },
  TransformerEncoderLayer = { "src" }, TransformerEncoder = { "src" },
  TransformerDecoderLayer = { "tgt", "memory" }, TransformerDecoder = { "tgt", "memory" }, Transformer = { "src", "tgt" } }
-- loss.lua's modules of more than (input, target); CTCLoss's lengths may be lists
local three_inputs = { "input1", "input2", "target" }
local triplet = { "anchor", "positive", "negative" }
for name, inputs in pairs { MarginRankingLoss = three_inputs, CosineEmbeddingLoss = three_inputs,
  TripletMarginLoss = triplet, TripletMarginWithDistanceLoss = triplet, GaussianNLLLoss = { "input", "target", "var" },
  CTCLoss = { "log_probs", "targets" }, CosineSimilarity = { "x1", "x2" }, PairwiseDistance = { "x1", "x2" } } do
  special[name] = inputs
end
for name, cls in pairs(nn) do
  if class.name(cls) == "nn." .. name and not any_input[name] then
    cls._tensor_inputs = special[name] or (name:match("Loss$") and two) or { "input" }
    cls._forward_options = special[name] ~= nil and name ~= "Bilinear" -- forward(...) or forward{query = ...}
  end
end
-- nn.functional: the tensors each function needs are checked as it is called, so a wrong
-- kind of value gets PyTorch's TypeError rather than an error from inside the function
local F = nn.functional
local function_tensors = { linear = { "input", "weight" }, bilinear = { "input1", "input2", "weight" },
  embedding = { "input", "weight" }, multi_head_attention_forward = { "query", "key", "value" },
  batch_norm = { "input", "?running_mean", "?running_var" } }
local keyword_ok = { multi_head_attention_forward = true } -- takes its tensors by name too
for _, loss in ipairs { "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
  "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "hinge_embedding_loss", "soft_margin_loss",
  "multilabel_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "poisson_nll_loss" } do
  function_tensors[loss] = { "input", "target" }
end
for name, tensors in pairs { margin_ranking_loss = { "input1", "input2", "target" }, prelu = { "input", "weight" },
  cosine_embedding_loss = { "input1", "input2", "target" }, triplet_margin_loss = { "anchor", "positive", "negative" },
  triplet_margin_with_distance_loss = { "anchor", "positive", "negative" }, gumbel_softmax = { "logits" },
  gaussian_nll_loss = { "input", "target", "var" }, ctc_loss = { "log_probs", "targets" },
  cosine_similarity = { "x1", "x2" }, pairwise_distance = { "x1", "x2" } } do
  function_tensors[name] = tensors
end
-- the common case (tensors where tensors go) costs one is_tensor test per argument: functional
-- calls are on every model's hot path
local is_options, check_tensor = require("mindtorch._args").is_options, require("mindtorch._args").tensor
local is_tensor = torch.is_tensor
for name, fn in pairs(F) do
  if type(fn) == "function" and not name:match("^_") then
    local names, optional = {}, {}
    for i, arg in ipairs(function_tensors[name] or { "input" }) do
      names[i], optional[i] = arg:gsub("^%?", ""), arg:sub(1, 1) == "?"
    end
    local n, by_name = #names, keyword_ok[name]
    if n == 1 then
      F[name] = function(input, ...)
        if not is_tensor(input) then check_tensor(name, names[1], 1, input, optional[1], 3) end
        return fn(input, ...)
      end
    else
      F[name] = function(...)
        for i = 1, n do
          local v = select(i, ...)
          if not is_tensor(v) then
            if by_name and i > 1 and is_options(v) then break end -- the rest come by name
            check_tensor(name, names[i], i, v, optional[i], 3)
          end
        end
        return fn(...)
      end
    end
  end
end
return nn
