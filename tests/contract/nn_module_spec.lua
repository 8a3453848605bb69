-- nn.Module's own surface against PyTorch (cases/nn_module.py): full backward hooks,
-- get_parameter/get_buffer, extra state, load_state_dict post hooks, type()/bfloat16()/to_empty().
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local nn = torch.nn

local D = torch.float64
local function wave(shape, f, off)
  local n = 1
  for i = 1, #shape do n = n * shape[i] end
  return torch.arange(n, { dtype = D }):reshape(shape):mul(f):add(off or 0.0):sin()
end

local function bilinear()
  torch.manual_seed(0)
  return nn.Bilinear(3, 2, 4):double()
end

local function full_hook(replace, second_needs_grad)
  if second_needs_grad == nil then second_needs_grad = true end
  local m = bilinear()
  local seen = {}
  m:register_full_backward_hook(function(_, gi, go)
    for i = 1, 2 do if gi[i] ~= nil then seen[#seen + 1] = gi[i] end end
    for _, g in ipairs(go) do seen[#seen + 1] = g end
    if replace then
      local r = {}
      for i = 1, 2 do r[i] = gi[i] ~= nil and gi[i] * 3 or nil end
      return r
    end
  end)
  local x1 = wave({ 5, 3 }, 0.3):requires_grad_()
  local x2 = wave({ 5, 2 }, 0.7):requires_grad_(second_needs_grad)
  ;(m(x1, x2) * wave({ 5, 4 }, 0.11)):sum():backward()
  seen[#seen + 1] = x1.grad
  seen[#seen + 1] = m.weight.grad
  if second_needs_grad then seen[#seen + 1] = x2.grad end
  return seen
end

local WithExtra = nn.Module:subclass("WithExtra")
function WithExtra:__init()
  nn.Module.__init(self)
  self.lin = nn.Linear(2, 2)
  self.count = 0
end
function WithExtra:get_extra_state() return { count = self.count } end
function WithExtra:set_extra_state(state) self.count = state.count + 1 end

local function sequential() return nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)) end
local function sorted_values(sd, fn)
  local out = {}
  for _, k in ipairs(H.sorted_keys(sd)) do out[#out + 1] = fn(sd[k]) end
  return out
end

local function tol(fn) return { fn, tol = 1e-12 } end

H.run("nn_module", {
  full_hook = tol(function() return full_hook(false) end),
  full_hook_replace = tol(function() return full_hook(true) end),
  full_hook_one_input = tol(function() return full_hook(false, false) end),
  hook_inputs_frozen = function()
    local m = bilinear()
    local seen = {}
    m:register_full_backward_hook(function(_, gi, go) seen[#seen + 1] = { gi, go[1]:clone() } end)
    ;(m(wave({ 5, 3 }, 0.3), wave({ 5, 2 }, 0.7)) * wave({ 5, 4 }, 0.11)):sum():backward()
    local gi, go = seen[1][1], seen[1][2]
    -- grad_input has one entry per tensor argument: two nils (a Lua list of nils has no length)
    return { #seen, 2, gi[1] == nil and gi[2] == nil, go.shape[1] }
  end,
  get_parameter = function() return sequential():get_parameter("0.weight").shape end,
  get_buffer = function() return sequential():get_buffer("1.running_var") end,
  error_get_parameter_missing = function() return sequential():get_parameter("0.foo") end,
  error_get_parameter_module = function() return sequential():get_parameter("0") end,
  error_get_parameter_path = function() return sequential():get_parameter("2.weight") end,
  error_get_buffer_param = function() return sequential():get_buffer("1.weight") end,
  extra_state = function()
    local m = WithExtra()
    m.count = 4
    local sd = m:state_dict()
    local m2 = WithExtra()
    m2:load_state_dict(sd)
    return { H.sorted_keys(sd), sd._extra_state.count, m2.count }
  end,
  error_extra_state = function() return nn.Linear(2, 2):get_extra_state() end,
  post_hook = function()
    local m = nn.Sequential(nn.Linear(2, 2))
    local calls = {}
    m:register_load_state_dict_post_hook(function(_, keys)
      calls[#calls + 1] = { { table.unpack(keys.missing_keys) }, { table.unpack(keys.unexpected_keys) } }
      for i = #keys.unexpected_keys, 1, -1 do keys.unexpected_keys[i] = nil end
    end)
    local sd = m:state_dict()
    sd.extra = torch.zeros(1)
    m:load_state_dict(sd)
    return { #calls, calls[1][1], calls[1][2] }
  end,
  error_load_header = function() return nn.Linear(2, 2):load_state_dict({ weight = torch.zeros(2, 2) }) end,
  type_int = function() return sorted_values(sequential():type(torch.float64):state_dict(), function(t) return t.dtype.name end) end,
  bfloat16 = function() return sorted_values(sequential():bfloat16():state_dict(), function(t) return t.dtype.name end) end,
  to_empty = function() return sorted_values(sequential():to_empty({ device = "cpu" }):state_dict(), function(t) return t:size() end) end,
})
