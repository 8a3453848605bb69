-- Queries, global modes, rrelu's training draws and the gamma family's derivatives against
-- PyTorch (cases/queries.py): each case here is the Lua twin of the Python one.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local f64 = torch.float64
local NAN = 0 / 0

local function rrelu_train(seed, lower, upper, dtype, inplace)
  local x = torch.tensor({ -2.0, -1.0, 0.0, 1.0, 2.0, -0.5, -3.0, 0.25, -1e-3 }, { dtype = dtype or torch.float32 })
  local g = torch.Generator():manual_seed(seed)
  if inplace then return torch.rrelu_(x, lower or 1 / 8, upper or 1 / 3, true, g) end
  return torch.rrelu(x, lower, upper, { training = true, generator = g })
end

local function grad_of(fn, x)
  x = x:clone():requires_grad_()
  fn(x):sum():backward()
  return x.grad
end
local function t64(v) return torch.tensor(v, { dtype = f64 }) end

local function self_grad(name)
  return function()
    local a = torch.tensor({ 1.0, 2.0 }, { requires_grad = true })
    torch[name](a, torch.tensor({ 1.0, 3.0 })):sum():backward()
  end
end

local cases = {
  rrelu_train = function() return rrelu_train(3) end,
  rrelu_train_bounds = function() return rrelu_train(11, 0.2, 0.4) end,
  rrelu_train_equal_bounds = function() return rrelu_train(1, 0.3, 0.3) end,
  rrelu_train_float64 = function() return rrelu_train(5, nil, nil, f64) end,
  rrelu_train_bfloat16 = function() return rrelu_train(5, nil, nil, torch.bfloat16) end,
  rrelu_train_inplace = function() return rrelu_train(7, nil, nil, nil, true) end,
  rrelu_grad = function()
    local x = torch.tensor({ -2.0, -1.0, 0.5, 1.0, -0.25 }, { dtype = f64, requires_grad = true })
    torch.rrelu(x, 0.1, 0.3, true, torch.Generator():manual_seed(9)):sum():backward()
    return x.grad
  end,
  digamma_grad = function() return grad_of(torch.digamma, t64({ 0.5, 1.0, 2.5, 10.0 })) end,
  lgamma_grad = function() return grad_of(torch.lgamma, t64({ 0.5, 1.0, 2.5, -1.5 })) end,
  polygamma_grad = function() return grad_of(function(x) return torch.polygamma(2, x) end, t64({ 0.5, 3.0 })) end,
  i0_grad = function() return grad_of(torch.i0, t64({ -1.0, 0.0, 2.0 })) end,
  logit_grad = function() return grad_of(torch.logit, t64({ -0.5, 0.0, 0.25, 1.0, 2.0 })) end,
  logit_grad_eps = function()
    return grad_of(function(x) return torch.logit(x, 0.3) end, t64({ -0.5, 0.0, 0.25, 0.5, 0.8, 1.0 }))
  end,
  hardshrink_grad = function()
    return grad_of(function(x) return torch.hardshrink(x, 1.0) end, t64({ -2.0, -1.0, 0.0, 1.0, 1.5 }))
  end,
  igamma_grad_other = function()
    return grad_of(function(x) return torch.igamma(t64({ 0.5, 2.0, 4.0 }), x) end, t64({ 1.0, 0.5, 6.0 }))
  end,
  igammac_grad_other = function()
    return grad_of(function(x) return torch.igammac(t64({ 0.5, 2.0, 4.0 }), x) end, t64({ 1.0, 0.5, 6.0 }))
  end,
  igamma_grad_self = self_grad("igamma"),
  igammac_grad_self = self_grad("igammac"),
  mvlgamma_grad = function() return grad_of(function(x) return torch.mvlgamma(x, 3) end, t64({ 2.5, 4.0 })) end,
  prelu_grad_weight = function()
    local w = torch.tensor({ 0.5, 0.25 }, { requires_grad = true })
    torch.prelu(torch.tensor({ { -1.0, 2.0 }, { -3.0, -4.0 } }), w):sum():backward()
    return w.grad
  end,
  frexp_grad = function()
    local x = torch.tensor({ 2.5, -0.75, 1e-3, 100.0, 0.0, math.huge }, { dtype = f64, requires_grad = true })
    local m = torch.frexp(x);
    (m * t64({ 1.0, 2.0, 3.0, 4.0, 5.0, 6.0 })):sum():backward()
    return x.grad
  end,
  grad_fn_digamma = function() return torch.digamma(torch.ones(1, { requires_grad = true })).grad_fn:name() end,
  grad_fn_polygamma = function() return torch.polygamma(1, torch.ones(1, { requires_grad = true })).grad_fn:name() end,
  grad_fn_logit = function() return torch.logit(torch.ones(1, { requires_grad = true })).grad_fn:name() end,
  grad_fn_hardshrink = function() return torch.hardshrink(torch.ones(1, { requires_grad = true })).grad_fn:name() end,
  grad_fn_igamma = function()
    return torch.igamma(torch.ones(1), torch.ones(1, { requires_grad = true })).grad_fn:name()
  end,
  isin_out = function()
    return torch.isin(torch.tensor({ 1, 2, 3 }), torch.tensor({ 2 }), { out = torch.empty(5, { dtype = torch.bool }) })
  end,
  isin_out_dtype = function()
    return torch.isin(torch.tensor({ 1, 2 }), torch.tensor({ 2 }), { out = torch.empty(2, { dtype = torch.int64 }) })
  end,
  -- queries
  is_nonzero = function()
    return { torch.is_nonzero(torch.tensor({ 1 })), torch.is_nonzero(torch.tensor({ { 0.0 } })),
      torch.is_nonzero(torch.tensor(NAN)), torch.is_nonzero(torch.tensor({ false })), torch.tensor({ 2.5 }):is_nonzero() }
  end,
  is_nonzero_empty = function() return torch.is_nonzero(torch.tensor({})) end,
  is_nonzero_many = function() return torch.is_nonzero(torch.tensor({ 1, 2 })) end,
  is_signed = function()
    local out = {}
    for _, d in ipairs { torch.float32, torch.float16, torch.int8, torch.int64, torch.uint8, torch.bool } do
      out[#out + 1] = torch.ones(1, { dtype = d }):is_signed()
    end
    out[#out + 1] = torch.is_signed(torch.ones(1))
    return out
  end,
  is_floating_point = function()
    return { torch.is_floating_point(torch.ones(1)), torch.is_floating_point(torch.ones(1):int()),
      torch.ones(1):bfloat16():is_floating_point() }
  end,
  is_complex = function() return { torch.is_complex(torch.ones(1)), torch.ones(1):is_complex() } end,
  is_same_size = function()
    return { torch.is_same_size(torch.ones(2, 3), torch.zeros(2, 3)), torch.is_same_size(torch.ones(2), torch.ones(2, 1)),
      torch.ones(2, 3):is_same_size(torch.ones(3, 2)), torch.ones({}):is_same_size(torch.ones({})) }
  end,
  numel = function() return { torch.numel(torch.ones(2, 3)), torch.numel(torch.ones({})), torch.numel(torch.ones(0, 4)) } end,
  get_device = function()
    return { torch.ones(2):get_device(), torch.get_device(torch.ones(2)), torch.empty(2, { device = "meta" }):get_device() }
  end,
  is_storage = function() return { torch.is_storage(torch.ones(2)), torch.is_storage(3), torch.is_storage("x") } end,
  device_properties = function()
    local x, out = torch.ones(1), {}
    for _, n in ipairs { "is_cuda", "is_meta", "is_xpu", "is_ipu", "is_mps", "is_mkldnn", "is_vulkan", "is_ort",
      "is_nested", "is_sparse", "is_quantized" } do
      out[#out + 1] = x[n]
    end
    return out
  end,
  retains_grad = function()
    local x = torch.ones(2, { requires_grad = true })
    local y = x * 2
    local before = y.retains_grad
    y:retain_grad()
    return { x.retains_grad, before, y.retains_grad }
  end,
  detach_ = function()
    local x = torch.ones(2, { requires_grad = true }) * 2
    local r = x:detach_()
    return { rawequal(r, x), x.requires_grad, x.grad_fn == nil, x.is_leaf }
  end,
  detach_leaf = function()
    local x = torch.ones(2, { requires_grad = true })
    x:detach_()
    return { x.requires_grad, x.is_leaf }
  end,
  detach_view = function() return torch.ones(2, { requires_grad = true }):view(2):detach_() end,
  resize_as = function() return torch.arange(6.0):view(2, 3):resize_as(torch.ones(3, 2)) end,
  resize_as_mismatch = function() return torch.ones(2, 3):resize_as(torch.ones(3)) end,
  result_type = function()
    local i32, u8 = { dtype = torch.int32 }, { dtype = torch.uint8 }
    local pairs_ = {
      { torch.ones(2, i32), 2.5 }, { torch.tensor(2.5, { dtype = f64 }), torch.ones(2, i32) }, { 2, 3.0 },
      { torch.tensor(1, u8), torch.tensor(1, { dtype = torch.int8 }) },
      { torch.ones(2):half(), torch.tensor(1.0, { dtype = f64 }) }, { true, torch.tensor(1, u8) },
      { torch.ones(2, { dtype = torch.bool }), 3 }, { torch.ones(2, { dtype = torch.int8 }), torch.tensor(300) },
      { torch.ones(2, u8), -1 }, { torch.ones(2, { dtype = torch.bool }), true }, { 1, 2 },
      { torch.ones(2, { dtype = torch.int16 }), torch.ones(2, { dtype = torch.float16 }) },
      { torch.tensor(1.0), torch.ones(2, { dtype = torch.int64 }) },
      { torch.ones(2, { dtype = torch.bfloat16 }), torch.ones(2):half() },
    }
    local out = {}
    for i, p in ipairs(pairs_) do out[i] = torch.result_type(p[1], p[2]).name end
    return out
  end,
  -- modes
  deterministic = function()
    local out = {}
    local function add(...) for _, v in ipairs { ... } do out[#out + 1] = v end end
    torch.use_deterministic_algorithms(true)
    add(torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
      torch.get_deterministic_debug_mode())
    torch.use_deterministic_algorithms(true, { warn_only = true })
    add(torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
      torch.get_deterministic_debug_mode())
    torch.set_deterministic_debug_mode("error")
    add(torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.set_deterministic_debug_mode(1)
    add(torch.get_deterministic_debug_mode())
    torch.set_deterministic_debug_mode("default")
    add(torch.are_deterministic_algorithms_enabled(), torch.get_deterministic_debug_mode())
    torch.use_deterministic_algorithms(false)
    return out
  end,
  deterministic_bad_mode = function() return torch.use_deterministic_algorithms(1) end,
  deterministic_bad_warn_only = function() return torch.use_deterministic_algorithms(true, { warn_only = 1 }) end,
  debug_mode_bad_str = function() return torch.set_deterministic_debug_mode("foo") end,
  debug_mode_bad_int = function() return torch.set_deterministic_debug_mode(3) end,
  debug_mode_bad_type = function() return torch.set_deterministic_debug_mode(1.5) end,
  matmul_precision = function()
    local out = { torch.get_float32_matmul_precision() }
    torch.set_float32_matmul_precision("medium")
    out[#out + 1] = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    out[#out + 1] = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("highest")
    return out
  end,
  matmul_precision_bad = function()
    torch.set_float32_matmul_precision("foo")
    return torch.get_float32_matmul_precision()
  end,
  matmul_precision_type = function() return torch.set_float32_matmul_precision(1) end,
  interop_threads_zero = function() return torch.set_num_interop_threads(0) end,
  anomaly = function()
    local out = { torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled() }
    local function add() out[#out + 1] = torch.is_anomaly_enabled(); out[#out + 1] = torch.is_anomaly_check_nan_enabled() end
    torch.set_anomaly_enabled(true, false)
    add()
    torch.set_anomaly_enabled(true)
    add()
    torch.set_anomaly_enabled(false)
    add()
    return out
  end,
  anomaly_bad = function() return torch.set_anomaly_enabled(1) end,
  anomaly_nan_unchecked = function()
    torch.set_anomaly_enabled(true, false)
    local ok, r = pcall(function()
      local x = torch.tensor({ 0.0 }, { requires_grad = true })
      torch.sqrt(x * -1.0):sum():backward()
      return x.grad
    end)
    torch.set_anomaly_enabled(false)
    if not ok then error(r, 0) end
    return r
  end,
  anomaly_nan_checked = function()
    torch.set_anomaly_enabled(true)
    local ok, err = pcall(function()
      local x = torch.tensor({ -1.0 }, { requires_grad = true })
      torch.sqrt(x):sum():backward()
    end)
    torch.set_anomaly_enabled(false)
    if not ok then error(err, 0) end
  end,
}

-- derivatives computed in double: a few ulp from PyTorch's (whose trigamma at 0.5 is 3e-10 off)
for name, tol in pairs { digamma_grad = 1e-9, lgamma_grad = 1e-13, polygamma_grad = 1e-13, i0_grad = 1e-13,
  mvlgamma_grad = 1e-13, igamma_grad_other = 1e-12, igammac_grad_other = 1e-12 } do
  cases[name] = { cases[name], tol = tol }
end

local old_warn = warn
warn = function() end -- resize_as and the bad precision warn, as PyTorch does
H.run("queries", cases)
warn = old_warn

describe("queries", function()
  it("leaves hardshrink without an in-place form, as PyTorch", function()
    assert.is_nil(torch.Tensor.hardshrink_)
    assert.is_nil(torch.hardshrink_)
  end)
  it("sets the interop threads once", function()
    assert.are.equal(1, torch.get_num_interop_threads())
    torch.set_num_interop_threads(2)
    assert.are.equal(2, torch.get_num_interop_threads())
    local ok, err = pcall(torch.set_num_interop_threads, 3)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("cannot set number of interop threads after parallel work has started", 1, true))
  end)
end)
