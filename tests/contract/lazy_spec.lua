-- Lazy modules, ParameterList/ParameterDict, Container and SyncBatchNorm against PyTorch
-- (cases/lazy.py).
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn = torch.nn
local D = torch.float64

local function wave(...)
  local shape, n = { ... }, 1
  for _, s in ipairs(shape) do n = n * s end
  return (torch.arange(n, { dtype = D }):reshape(shape) * 0.37):sin():requires_grad_()
end
local function run(make, shape)
  torch.manual_seed(1)
  local m = make()
  local before = tostring(m)
  local x = wave(table.unpack(shape))
  local out = m(x)
  ;(out * torch.arange(out:numel(), { dtype = D }):reshape(out.shape):cos()):sum():backward()
  local res = { out:detach(), x.grad }
  for _, p in ipairs(m:parameters()) do res[#res + 1] = p:detach(); res[#res + 1] = p.grad end
  for _, b in m:named_buffers() do res[#res + 1] = b end
  return res, before, tostring(m), m:_get_name()
end
local function state_keys(m)
  local out = {}
  for _, k in ipairs(m:_state_keys()) do
    out[#out + 1] = k[1] .. "=" .. (nn._is_uninitialized(k[2][k[3]].items[k[4]]) and "uninit" or "tensor")
  end
  return out
end
local function wave_plain(...) return wave(...):detach() end

local goldens = H.load("lazy")
local function unhex(x) return (x:gsub("..", function(h) return string.char(tonumber(h, 16)) end)) end

local cases = {
  saved_file = function() return goldens.saved_file.value end, -- the file saved_output loads
  -- PyTorch's trained state_dict loaded into a model of lazy modules sizes them by name
  saved_output = { function()
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write(unhex(goldens.saved_file.value))
    f:close()
    local sd = torch.load_safetensors(path)
    os.remove(path)
    torch.manual_seed(42)
    local m = nn.Sequential(nn.LazyConv2d(3, 3, { dtype = D }), nn.LazyBatchNorm2d({ dtype = D }), nn.Flatten(),
      nn.LazyLinear(2, { dtype = D }))
    m:load_state_dict(sd)
    m:eval()
    local out = m(wave_plain(2, 2, 4, 4))
    assert.are.equal("Conv2d", m[1]:_get_name())
    return { out:detach(), m[1].weight:detach(), m[2].running_mean }
  end, tol = 1e-12 },
  linear_init = function()
    torch.manual_seed(0)
    local m = nn.LazyLinear(3)
    m(torch.zeros(2, 5))
    return { m.weight:detach(), m.bias:detach() }
  end,
  conv_init = function()
    torch.manual_seed(0)
    local m = nn.LazyConv2d(3, 2)
    m(torch.zeros(1, 2, 3, 3))
    return { m.weight:detach(), m.bias:detach() }
  end,
  state_keys_linear = function() return state_keys(nn.LazyLinear(3)) end,
  state_keys_bn = function() return state_keys(nn.LazyBatchNorm2d()) end,
  state_keys_in = function() return state_keys(nn.LazyInstanceNorm1d({ affine = false })) end,
  has_uninit = function()
    return { nn.LazyLinear(2):has_uninitialized_params(),
      nn.LazyBatchNorm1d({ affine = false, track_running_stats = false }):has_uninitialized_params() }
  end,
  load_into_lazy = { function()
    torch.manual_seed(3)
    local sd = nn.Linear(4, 3):double():state_dict()
    local m = nn.LazyLinear(3, { dtype = D })
    m:load_state_dict(sd)
    local r, u = tostring(m), m:has_uninitialized_params()
    local out = m(wave_plain(2, 4))
    return { r, tostring(m), out:sum():item(), u }
  end, tol = 1e-12 },
  load_bn_into_lazy = { function()
    torch.manual_seed(3)
    local bn = nn.BatchNorm1d(3):double()
    bn(wave_plain(4, 3))
    local m = nn.LazyBatchNorm1d({ dtype = D })
    m:load_state_dict(bn:state_dict())
    m:eval()
    return { m(wave_plain(4, 3)):detach(), m.running_mean, m.running_var }
  end, tol = 1e-12 },
  param_list = function()
    local pl = nn.ParameterList({ nn.Parameter(torch.ones(2, 3, { dtype = D })), torch.zeros(3) })
    pl:append(5)
    pl:extend({ torch.ones(1, 2, 2) })
    return { tostring(pl), #pl, H.sorted_keys(pl:state_dict()), nn.is_parameter(pl[2]) and "Parameter" or "?" }
  end,
  param_list_grad = { function()
    local pl = nn.ParameterList({ wave_plain(2, 3), wave_plain(3) })
    local out = (pl[1] * pl[2]):sin():sum()
    out:backward()
    return { out:detach(), pl[1].grad, pl[2].grad }
  end, tol = 1e-12 },
  param_dict = function()
    local pd = nn.ParameterDict({ b = torch.ones(2), a = nn.Parameter(torch.zeros(1, 2, { dtype = D })) })
    pd.c = torch.zeros(3)
    local keys = {}
    for _, k in ipairs(pd:_state_keys()) do keys[#keys + 1] = k[1] end
    return { tostring(pd), pd:keys(), #pd, keys }
  end,
  holder = function()
    local Holder = nn.Module:subclass("Holder")
    function Holder:__init()
      nn.Module.__init(self)
      self.p = nn.ParameterList({ torch.ones(2) })
      self.d = nn.ParameterDict({ b = torch.ones(2), a = torch.zeros(1, 2, { dtype = D }) })
    end
    local names = {}
    for n in Holder():named_parameters() do names[#names + 1] = n end
    return { tostring(Holder()), names }
  end,
  container = function() return tostring(nn.Container({ a = nn.Linear(2, 2), b = nn.ReLU() })) end,
  sync_bn_repr = function()
    local keys = {}
    for _, k in ipairs(nn.SyncBatchNorm(4):_state_keys()) do keys[#keys + 1] = k[1] end
    return { tostring(nn.SyncBatchNorm(4)), tostring(nn.SyncBatchNorm(3, 1e-3, 0.2, false, false)), keys }
  end,
  sync_bn_convert = function()
    local m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Sequential(nn.BatchNorm1d(2, { affine = false })))
    local r = nn.SyncBatchNorm.convert_sync_batchnorm(m)
    local keys = {}
    for _, k in ipairs(r:_state_keys()) do keys[#keys + 1] = k[1] end
    return { tostring(r), rawequal(r[2].weight, m[2].weight), rawequal(r[2].running_mean, m[2].running_mean), keys }
  end,
  error_uninit_shape = function() return nn.LazyLinear(3).weight.shape end,
  error_uninit_numel = function() return nn.LazyLinear(3).weight:numel() end,
  error_uninit_add = function() return nn.LazyLinear(3).weight + 1 end,
  error_lazy_conv_groups = function() return nn.LazyConv1d(4, 3, { groups = 4 })(torch.zeros(1, 6, 5)) end,
  error_lazy_conv_dims = function() return nn.LazyConv2d(4, 3)(torch.zeros(6, 5)) end,
  error_lazy_bn_dims = function() return nn.LazyBatchNorm1d()(torch.zeros(2, 3, 4, 5)) end,
  error_load_uninit_into_linear = function()
    return nn.Linear(3, 3):load_state_dict({ weight = nn.LazyLinear(3).weight, bias = torch.zeros(3) })
  end,
  error_param_list_index = function() return nn.ParameterList({ torch.ones(1) })[7] end,
  error_param_dict_key = function() return nn.ParameterDict().zz end,
}

local LAZY = {
  linear = { function() return nn.LazyLinear(3, { dtype = D }) end, { 2, 4 } },
  linear_nobias = { function() return nn.LazyLinear(2, { bias = false, dtype = D }) end, { 3, 5 } },
  conv1d = { function() return nn.LazyConv1d(4, 3, { padding = 1, dtype = D }) end, { 2, 3, 6 } },
  conv2d = { function() return nn.LazyConv2d(4, { 3, 2 }, { stride = 2, groups = 2, dtype = D }) end, { 1, 6, 5, 5 } },
  conv3d = { function() return nn.LazyConv3d(2, 2, { dtype = D }) end, { 1, 2, 3, 3, 3 } },
  conv1d_unbatched = { function() return nn.LazyConv1d(2, 2, { dtype = D }) end, { 3, 5 } },
  conv_transpose1d = { function() return nn.LazyConvTranspose1d(3, 3, { stride = 2, dtype = D }) end, { 2, 2, 4 } },
  conv_transpose2d = { function() return nn.LazyConvTranspose2d(4, 3, { groups = 2, dtype = D }) end, { 1, 4, 3, 3 } },
  conv_transpose3d = { function() return nn.LazyConvTranspose3d(2, 2, { bias = false, dtype = D }) end,
    { 1, 2, 2, 2, 2 } },
  batch_norm1d = { function() return nn.LazyBatchNorm1d({ dtype = D }) end, { 4, 3 } },
  batch_norm2d = { function() return nn.LazyBatchNorm2d({ momentum = 0.3, dtype = D }) end, { 2, 3, 2, 2 } },
  batch_norm3d = { function() return nn.LazyBatchNorm3d({ affine = false, dtype = D }) end, { 2, 2, 2, 2, 2 } },
  instance_norm1d = { function() return nn.LazyInstanceNorm1d({ dtype = D }) end, { 2, 3, 4 } },
  instance_norm2d = { function()
    return nn.LazyInstanceNorm2d({ affine = false, track_running_stats = false, dtype = D })
  end, { 2, 3, 2, 2 } },
  instance_norm3d = { function() return nn.LazyInstanceNorm3d({ dtype = D }) end, { 1, 2, 2, 2, 3 } },
}
for name, c in pairs(LAZY) do
  cases["lazy_" .. name] = { function() return (run(c[1], c[2])) end, tol = 1e-9 }
  cases["lazy_" .. name .. "_repr"] = function()
    local _, before, after, cls = run(c[1], c[2])
    return { before, after, cls }
  end
end

H.run("lazy", cases)
