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
return nn
