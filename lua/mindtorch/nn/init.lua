-- mindtorch.nn: PyTorch's torch.nn in Lua (torch.nn, or require "mindtorch.nn").
local torch = require "mindtorch"
local nn = {}
require("mindtorch.nn.module")(torch, nn)
require("mindtorch.nn.functional")(torch, nn)
require("mindtorch.nn.inits")(torch, nn)
require("mindtorch.nn.layers")(torch, nn)
require("mindtorch.nn.normalization")(torch, nn)
require("mindtorch.nn.conv")(torch, nn)
require("mindtorch.nn.recurrent")(torch, nn)
require("mindtorch.nn.transformer")(torch, nn)
require("mindtorch.nn.utils")(torch, nn)

-- the tensors each built-in module's forward needs, checked where a call enters (module.lua);
-- containers and Identity take anything
local any_input = { Sequential = true, ModuleList = true, ModuleDict = true, Identity = true, Module = true,
  RNNBase = true, RNNCellBase = true }
local two = { "input", "target" }
local special = { Bilinear = { "input1", "input2" }, MultiheadAttention = { "query", "key", "value" },
  TransformerEncoderLayer = { "src" }, TransformerEncoder = { "src" } }
for name, cls in pairs(nn) do
  if type(cls) == "table" and name:match("^%u") and rawget(cls, "__name") == name and not any_input[name] then
    cls._tensor_inputs = special[name] or (name:match("Loss$") and two) or { "input" }
    cls._forward_options = special[name] ~= nil and name ~= "Bilinear" -- forward(...) or forward{query = ...}
  end
end
return nn
