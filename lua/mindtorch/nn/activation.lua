-- nn/activation.lua: the activations and dropout variants beyond layers.lua's, as modules and
-- nn.functional forms (PyTorch 1.13's arguments, defaults, reprs and errors). Built on the
-- torch.* functions of ATen's nn layer (_nn_functions.lua) or differentiable compositions, so
-- autograd derives the gradients. Dims are 1-based (GLU's dim, softmin's, normalize's).
return function(torch, nn)
  local F, Module = nn.functional, nn.Module
  local args = require "mindtorch._args"
  -- a value as Python's repr prints it (floats the shortest text that reads back the same)
  local function py(v)
    if math.type(v) == "float" and v == v and math.abs(v) ~= math.huge then
      if v == math.floor(v) and math.abs(v) < 1e16 then return ("%.1f"):format(v) end
      for digits = 1, 17 do
        local s = ("%." .. digits .. "g"):format(v)
        if tonumber(s) == v then return s end
      end
    end
    return nn._py(v)
  end
  nn._pyrepr = py

  -- f(input, ...) with PyTorch's positional names or a trailing options table
  local function parsed(fname, names, defaults, fn)
    return function(input, ...)
      local o = args.parse_at(2, fname, names, defaults, ...)
      local vals = {}
      for i, n in ipairs(names) do vals[i] = o[n] end
      return fn(input, table.unpack(vals, 1, #names))
    end
  end
  local function number_arg(fname, name, v, up)
    if type(v) ~= "number" then
      error(("%s(): argument '%s' must be Number, not %s"):format(fname, name, torch.is_tensor(v) and "Tensor"
        or args.py_type(v)), 3 + (up or 0))
    end
  end

  -- ---- activations, functional -------------------------------------------------------------------
  F.threshold = parsed("threshold", { "threshold", "value", "inplace" }, { inplace = false },
    function(x, threshold, value, inplace)
      if threshold == nil or value == nil then
        local missing = {}
        if threshold == nil then missing[#missing + 1] = "'threshold'" end
        if value == nil then missing[#missing + 1] = "'value'" end
        error(("_threshold() missing %d required positional argument%s: %s"):format(#missing,
          #missing > 1 and "s" or "", table.concat(missing, " and ")), 3)
      end
      if inplace then return torch.threshold_(x, threshold, value) end
      return torch.threshold(x, threshold, value)
    end)
  F.threshold_ = function(x, threshold, value) return torch.threshold_(x, threshold, value) end
  F.relu_ = function(x) return x:relu_() end
  F.elu_ = parsed("elu_", { "alpha" }, { alpha = 1.0 }, function(x, alpha) return x:elu_(alpha) end)
  F.leaky_relu_ = parsed("leaky_relu_", { "negative_slope" }, { negative_slope = 0.01 },
    function(x, s) return x:leaky_relu_(s) end)
  F.hardtanh_ = parsed("hardtanh_", { "min_val", "max_val" }, { min_val = -1.0, max_val = 1.0 },
    function(x, lo, hi) return x:hardtanh_(lo, hi) end)
  F.relu6 = parsed("relu6", { "inplace" }, { inplace = false }, function(x, inplace)
    if inplace then return x:hardtanh_(0.0, 6.0) end
    return x:hardtanh(0.0, 6.0)
  end)
  -- float32(v): ATen's derivative formulas read some scalars with toFloat()
  local function f32(v) return (string.unpack("f", string.pack("f", v))) end
  -- celu's gradient as PyTorch's: the elu backward with input scale 1 / float32(alpha), from the
  -- input (out of place) or from the result (in place)
  local CeluBackward = torch.autograd.Function:extend("Celu")
  function CeluBackward.forward(ctx, x, alpha, from_result)
    local out = torch.no_grad(function() return torch.celu(x, alpha) end)
    ctx:save_for_backward(from_result and out or x)
    ctx.alpha, ctx.from_result = alpha, from_result
    return out
  end
  function CeluBackward.backward(ctx, g)
    local t = ctx.saved_tensors[1]
    local s, alpha = 1 / f32(ctx.alpha), ctx.alpha
    local neg = ctx.from_result and (t + alpha) * s or (t * s):exp() * (s * alpha)
    return torch.where(t:le(0), g * neg, g), nil, nil
  end
  local function celu(x, alpha, inplace)
    number_arg("celu", "alpha", alpha)
    if alpha == 0 then error("ZeroDivisionError: alpha cannot be 0 for CELU", 4) end
    if not inplace then return CeluBackward.apply(x, alpha, false) end
    if not torch.is_grad_enabled() or not x.requires_grad then return torch.celu_(x, alpha) end
    return x:copy_(CeluBackward.apply(x, alpha, true))
  end
  F.celu = parsed("celu", { "alpha", "inplace" }, { alpha = 1.0, inplace = false }, celu)
  F.celu_ = parsed("celu_", { "alpha" }, { alpha = 1.0 }, function(x, alpha) return celu(x, alpha, true) end)
  F.selu = parsed("selu", { "inplace" }, { inplace = false }, function(x, inplace)
    if inplace then return torch.selu_(x) end
    return torch.selu(x)
  end)
  F.selu_ = function(x) return torch.selu_(x) end
  local function check_rrelu(lower, upper)
    number_arg("rrelu", "lower", lower, 1)
    number_arg("rrelu", "upper", upper, 1)
    if lower > upper then error("Lower bound should be less than or equal to the upper bound", 4) end
  end
  F.rrelu = parsed("rrelu", { "lower", "upper", "training", "inplace" },
    { lower = 1 / 8, upper = 1 / 3, training = false, inplace = false }, function(x, lower, upper, training, inplace)
      check_rrelu(lower, upper)
      if inplace then return torch.rrelu_(x, lower, upper, training) end
      return torch.rrelu(x, lower, upper, training)
    end)
  F.rrelu_ = parsed("rrelu_", { "lower", "upper", "training" }, { lower = 1 / 8, upper = 1 / 3, training = false },
    function(x, lower, upper, training)
      check_rrelu(lower, upper)
      return torch.rrelu_(x, lower, upper, training)
    end)
  -- hardsigmoid: relu6(x + 3) / 6, its gradient float32(1 / 6) strictly inside (-3, 3) as ATen's
  local SIXTH = f32(1 / 6)
  local Hardsigmoid = torch.autograd.Function:extend("Hardsigmoid")
  function Hardsigmoid.forward(ctx, x)
    ctx:save_for_backward(x)
    return torch.no_grad(function() return (x + 3):hardtanh(0.0, 6.0) / 6 end)
  end
  function Hardsigmoid.backward(ctx, g)
    local x = ctx.saved_tensors[1]
    return g * (x:gt(-3):logical_and(x:lt(3)):to(g.dtype) * SIXTH)
  end
  -- hardswish: x relu6(x + 3) / 6; gradient 0 below -3, x / 3 + 1/2 up to 3, 1 above
  local Hardswish = torch.autograd.Function:extend("Hardswish")
  function Hardswish.forward(ctx, x)
    ctx:save_for_backward(x)
    return torch.no_grad(function() return x * ((x + 3):hardtanh(0.0, 6.0) / 6) end)
  end
  function Hardswish.backward(ctx, g)
    local x = ctx.saved_tensors[1]
    local zero = torch.zeros({}, { dtype = g.dtype, device = g.device })
    return torch.where(x:lt(-3), zero, torch.where(x:le(3), g * (x / 3 + 0.5), g))
  end
  -- the in-place forms: the function of a copy written back (autograd follows copy_)
  local function apply_into(fn, x, inplace)
    if not inplace then return fn.apply(x) end
    return x:copy_(fn.apply(x:clone()))
  end
  F.hardsigmoid = parsed("hardsigmoid", { "inplace" }, { inplace = false }, function(x, inplace)
    return apply_into(Hardsigmoid, x, inplace)
  end)
  F.hardswish = parsed("hardswish", { "inplace" }, { inplace = false }, function(x, inplace)
    return apply_into(Hardswish, x, inplace)
  end)
  -- log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), finite for any x
  F.logsigmoid = function(x) return x:clamp_max(0) - (-x:abs()):exp():log1p() end
  local function check_lambd(lambd)
    if lambd < 0 then error(("lambda must be greater or equal to 0, but found to be %g."):format(lambd), 4) end
  end
  F.hardshrink = parsed("hardshrink", { "lambd" }, { lambd = 0.5 }, function(x, lambd)
    return torch.hardshrink(x, lambd)
  end)
  F.softshrink = parsed("softshrink", { "lambd" }, { lambd = 0.5 }, function(x, lambd)
    number_arg("softshrink", "lambd", lambd)
    check_lambd(lambd)
    local zero = torch.zeros({}, { dtype = x.dtype, device = x.device })
    return torch.where(x:gt(lambd), x - lambd, torch.where(x:lt(-lambd), x + lambd, zero))
  end)
  F.softsign = function(x) return x / (x:abs() + 1) end
  F.tanhshrink = function(x) return x - x:tanh() end
  F.glu = parsed("glu", { "dim" }, { dim = -1 }, function(x, dim)
    if math.type(dim) ~= "integer" then
      error(("glu(): argument 'dim' (position 2) must be int, not %s"):format(torch.is_tensor(dim) and "Tensor"
        or args.py_type(dim)), 3)
    end
    if x:dim() == 0 then error("glu does not support scalars because halving size must be even", 3) end
    local d = dim < 0 and dim + x:dim() + 1 or dim
    if d < 1 or d > x:dim() then
      error(("Dimension out of range (expected to be in range of [%d, %d], but got %d)"):format(-x:dim(), x:dim(),
        dim), 3)
    end
    local n = x:size(d)
    if n % 2 ~= 0 then
      error(("Halving dimension must be even, but dimension %d is size %d"):format(d, n), 3)
    end
    return x:narrow(d, 1, n // 2) * x:narrow(d, n // 2 + 1, n // 2):sigmoid()
  end)
  -- prelu(input, weight): one slope, or one per channel (dim 2; 1 for a 1-D input)
  function F.prelu(input, weight)
    if weight:dim() > 1 then
      error(("prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = %d"):format(weight:dim()), 2)
    end
    local n = weight:numel()
    local channels = input:dim() >= 2 and input:size(2) or 1
    if n ~= 1 and n ~= channels then
      error(("Mismatch of parameter numbers and input channel size. Found parameter numbers = %d and channel size "
        .. "= %d."):format(n, channels), 2)
    end
    local w = weight
    if n > 1 then
      local shape = {}
      for i = 1, input:dim() do shape[i] = i == 2 and n or 1 end
      w = weight:reshape(shape)
    elseif weight:dim() == 1 then
      w = weight:reshape({})
    end
    return torch.where(input:gt(0), input, w * input)
  end

  -- softmax's dim when none is given: PyTorch's deprecated implicit choice, with its warning
  local function implicit_dim(name, x)
    warn(("Implicit dimension choice for %s has been deprecated. Change the call to include dim=X as an argument.")
      :format(name))
    local nd = x:dim()
    if nd == 0 or nd == 1 or nd == 3 then return 1 end
    return 2
  end
  local softmax_names = { "dim", "_stacklevel", "dtype" }
  local function softmax_family(name, fn)
    F[name] = function(input, ...)
      local dim = ...
      if select("#", ...) == 1 and math.type(dim) == "integer" then return fn(input, dim) end -- the common call
      local o = args.parse_at(2, name, softmax_names, nil, ...)
      dim = o.dim
      if dim == nil then dim = implicit_dim(name, input) end
      if o.dtype ~= nil then input = input:to(o.dtype) end
      return fn(input, dim)
    end
  end
  softmax_family("softmax", function(x, dim) return x:softmax(dim) end)
  softmax_family("log_softmax", function(x, dim) return x:log_softmax(dim) end)
  softmax_family("softmin", function(x, dim) return (-x):softmax(dim) end)

  -- gumbel_softmax(logits, tau = 1, hard = false, eps = 1e-10, dim = -1): Gumbel noise drawn as
  -- -log(exponential_()) from the default generator (PyTorch's stream); hard: the one-hot of the
  -- argmax with the soft sample's gradient
  F.gumbel_softmax = parsed("gumbel_softmax", { "tau", "hard", "eps", "dim" },
    { tau = 1, hard = false, eps = 1e-10, dim = -1 }, function(logits, tau, hard, _, dim)
      local gumbels = -torch.empty_like(logits):exponential_():log()
      local y = ((logits + gumbels) / tau):softmax(dim)
      if not hard then return y end
      local _, index = y:max(dim, true)
      local y_hard = torch.zeros_like(logits):scatter_(dim, index,
        1.0)
      return y_hard - y:detach() + y
    end)

  -- normalize(input, p = 2, dim = 2, eps = 1e-12): input / max(||input||_p, eps) along dim
  F.normalize = parsed("normalize", { "p", "dim", "eps", "out" }, { p = 2.0, dim = 2, eps = 1e-12 },
    function(x, p, dim, eps, out)
      local denom = x:norm(p, dim, true):clamp_min(eps):expand_as(x)
      if out ~= nil then return torch.div(x, denom, { out = out }) end
      return x / denom
    end)

  -- ---- dropout variants, functional ---------------------------------------------------------------
  local function check_p(p, level)
    if type(p) ~= "number" then
      error(("'<' not supported between instances of '%s' and 'float'"):format(args.py_type(p)), level + 1)
    end
    if p < 0 or p > 1 then
      error(("dropout probability has to be between 0 and 1, but got %s"):format(py(p)), level + 1)
    end
  end
  local function feature(input, p, training, inplace)
    if inplace then return torch.feature_dropout_(input, p, training) end
    return torch.feature_dropout(input, p, training)
  end
  local dropout_names = { "p", "training", "inplace" }
  local function dropout_fn(name, default_training, body)
    F[name] = function(input, ...)
      local o = args.parse_at(2, name, dropout_names, nil, ...)
      local p, training, inplace = o.p, o.training, o.inplace
      if p == nil then p = 0.5 end
      if training == nil then training = default_training end
      check_p(p, 2)
      return body(input, p, training, inplace or false)
    end
  end
  -- a batch of one for an unbatched input, taken away again after
  local function unbatched(input, p, training, inplace)
    local x = inplace and input:unsqueeze_(1) or input:unsqueeze(1)
    local r = feature(x, p, training, inplace)
    return inplace and r:squeeze_(1) or r:squeeze(1)
  end
  dropout_fn("dropout1d", true, function(input, p, training, inplace)
    local nd = input:dim()
    if nd ~= 2 and nd ~= 3 then
      error(("dropout1d: Expected 2D or 3D input, but received a %dD input. Note that dropout1d exists to provide "
        .. "channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional batch "
        .. "dimension (i.e. 2D or 3D inputs)."):format(nd), 3)
    end
    if nd == 2 then return unbatched(input, p, training, inplace) end
    return feature(input, p, training, inplace)
  end)
  local function deprecated_rank(name, nd, spatial, lo, hi)
    warn(("%s: Received a %d-D input to %s, which is deprecated and will result in an error in a future release. "
      .. "To retain the behavior and silence this warning, please use dropout instead. Note that %s exists to "
      .. "provide channel-wise dropout on inputs with %d spatial dimensions, a channel dimension, and an optional "
      .. "batch dimension (i.e. %dD or %dD inputs)."):format(name, nd, name, name, spatial, lo, hi))
  end
  dropout_fn("dropout2d", true, function(input, p, training, inplace)
    local nd = input:dim()
    if nd ~= 3 and nd ~= 4 then deprecated_rank("dropout2d", nd, 2, 3, 4) end
    if nd == 3 then
      warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
        .. "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change "
        .. "in a future release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To "
        .. "maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.")
    end
    return feature(input, p, training, inplace)
  end)
  dropout_fn("dropout3d", true, function(input, p, training, inplace)
    local nd = input:dim()
    if nd ~= 4 and nd ~= 5 then deprecated_rank("dropout3d", nd, 3, 4, 5) end
    if nd ~= 5 then return unbatched(input, p, training, inplace) end
    return feature(input, p, training, inplace)
  end)
  dropout_fn("alpha_dropout", false, function(input, p, training, inplace)
    if inplace then return torch.alpha_dropout_(input, p, training) end
    return torch.alpha_dropout(input, p, training)
  end)
  dropout_fn("feature_alpha_dropout", false, function(input, p, training, inplace)
    if inplace then return torch.feature_alpha_dropout_(input, p, training) end
    return torch.feature_alpha_dropout(input, p, training)
  end)

  -- ---- modules ----------------------------------------------------------------------------------------
  -- module(name, names, defaults, forward, repr): a module whose __init takes `names` positionally
  -- or by name (PyTorch's order and defaults); fields of the same names
  local function module(name, names, defaults, forward, repr, check)
    local cls = Module:subclass("nn." .. name)
    function cls:__init(...)
      local o = args.parse_at(3, "__init__", names, defaults, ...)
      if check then check(o) end
      Module.__init(self)
      for _, n in ipairs(names) do
        if n ~= "device" and n ~= "dtype" then self[n] = o[n] end
      end
      if cls._setup then cls._setup(self, o) end
    end
    cls.forward = forward
    function cls:extra_repr() return repr and repr(self) or "" end
    nn[name] = cls
    return cls
  end
  local function inplace_suffix(self) return self.inplace and ", inplace=True" or "" end
  local function inplace_only(self) return self.inplace and "inplace=True" or "" end

  module("CELU", { "alpha", "inplace" }, { alpha = 1.0, inplace = false },
    function(self, x) return F.celu(x, self.alpha, self.inplace) end,
    function(self) return "alpha=" .. py(self.alpha) .. inplace_suffix(self) end)
  module("SELU", { "inplace" }, { inplace = false }, function(self, x) return F.selu(x, self.inplace) end, inplace_only)
  module("GLU", { "dim" }, { dim = -1 }, function(self, x) return F.glu(x, self.dim) end,
    function(self) return "dim=" .. py(self.dim) end)
  module("Hardshrink", { "lambd" }, { lambd = 0.5 }, function(self, x) return F.hardshrink(x, self.lambd) end,
    function(self) return py(self.lambd) end)
  module("Softshrink", { "lambd" }, { lambd = 0.5 }, function(self, x) return F.softshrink(x, self.lambd) end,
    function(self) return py(self.lambd) end)
  module("Hardsigmoid", { "inplace" }, { inplace = false },
    function(self, x) return F.hardsigmoid(x, self.inplace) end)
  module("Hardswish", { "inplace" }, { inplace = false }, function(self, x) return F.hardswish(x, self.inplace) end)
  module("LogSigmoid", {}, nil, function(_, x) return F.logsigmoid(x) end)
  module("Softsign", {}, nil, function(_, x) return F.softsign(x) end)
  module("Tanhshrink", {}, nil, function(_, x) return F.tanhshrink(x) end)
  module("ReLU6", { "inplace" }, { inplace = false }, function(self, x) return F.relu6(x, self.inplace) end,
    inplace_only)
  module("RReLU", { "lower", "upper", "inplace" }, { lower = 1 / 8, upper = 1 / 3, inplace = false },
    function(self, x) return F.rrelu(x, self.lower, self.upper, self.training, self.inplace) end,
    function(self) return ("lower=%s, upper=%s"):format(py(self.lower), py(self.upper)) .. inplace_suffix(self) end)
  module("Threshold", { "threshold", "value", "inplace" }, { inplace = false },
    function(self, x) return F.threshold(x, self.threshold, self.value, self.inplace) end,
    function(self)
      return ("threshold=%s, value=%s"):format(py(self.threshold), py(self.value)) .. inplace_suffix(self)
    end,
    function(o)
      if o.threshold == nil or o.value == nil then
        local missing = {}
        if o.threshold == nil then missing[#missing + 1] = "'threshold'" end
        if o.value == nil then missing[#missing + 1] = "'value'" end
        error(("Threshold.__init__() missing %d required positional argument%s: %s"):format(#missing,
          #missing > 1 and "s" or "", table.concat(missing, " and ")), 4)
      end
    end)
  module("Softmin", { "dim" }, nil, function(self, x) return F.softmin(x, self.dim) end,
    function(self) return "dim=" .. py(self.dim) end)
  module("Softmax2d", {}, nil, function(_, x)
    if x:dim() ~= 3 and x:dim() ~= 4 then error("Softmax2d requires a 3D or 4D tensor as input", 2) end
    return x:softmax(-3)
  end)

  local PReLU = module("PReLU", { "num_parameters", "init", "device", "dtype" }, { num_parameters = 1, init = 0.25 },
    function(self, x) return F.prelu(x, self.weight) end,
    function(self) return "num_parameters=" .. self.num_parameters end)
  function PReLU._setup(self, o)
    local w
    if o.dtype or o.device then
      w = torch.empty({ o.num_parameters }, { dtype = o.dtype, device = o.device })
    else
      w = torch.empty(o.num_parameters)
    end
    self.weight = nn.Parameter(w)
    self:reset_parameters()
  end
  function PReLU:reset_parameters() torch.no_grad(function() self.weight:fill_(self.init) end) end

  -- dropout modules: p, inplace (PyTorch's _DropoutNd)
  local function dropout_module(name, fn)
    module(name, { "p", "inplace" }, { p = 0.5, inplace = false },
      function(self, x) return F[fn](x, self.p, self.training, self.inplace) end,
      function(self) return ("p=%s, inplace=%s"):format(py(self.p), py(self.inplace)) end,
      function(o)
        if type(o.p) ~= "number" then
          error(("'<' not supported between instances of '%s' and 'int'"):format(args.py_type(o.p)), 4)
        end
        if o.p < 0 or o.p > 1 then
          error(("dropout probability has to be between 0 and 1, but got %s"):format(py(o.p)), 4)
        end
      end)
  end
  dropout_module("Dropout1d", "dropout1d")
  dropout_module("Dropout2d", "dropout2d")
  dropout_module("Dropout3d", "dropout3d")
  dropout_module("AlphaDropout", "alpha_dropout")
  dropout_module("FeatureAlphaDropout", "feature_alpha_dropout")
end
