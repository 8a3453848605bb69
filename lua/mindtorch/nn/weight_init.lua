-- weight_init.lua: torch.nn.init. The same algorithms as PyTorch's (fans, gains, bounds) drawing
-- from the same generator streams, so a seed gives PyTorch's weights.
return function(torch, nn)
  local init = {}

  local function no_grad(fn) return torch.no_grad(fn) end

  function init.calculate_gain(nonlinearity, param)
    local linear = { linear = true, conv1d = true, conv2d = true, conv3d = true, conv_transpose1d = true,
      conv_transpose2d = true, conv_transpose3d = true, sigmoid = true }
    if linear[nonlinearity] then return 1 end
    if nonlinearity == "tanh" then return 5.0 / 3 end
    if nonlinearity == "relu" then return math.sqrt(2.0) end
    if nonlinearity == "leaky_relu" then
      local slope = param == nil and 0.01 or param
      if type(slope) ~= "number" then error(("negative_slope %s not a valid number"):format(tostring(slope)), 2) end
      return math.sqrt(2.0 / (1 + slope ^ 2))
    end
    if nonlinearity == "selu" then return 3.0 / 4 end
    error(("Unsupported nonlinearity %s"):format(tostring(nonlinearity)), 2)
  end

  local function fans(t)
    local d = t:dim()
    if d < 2 then error("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions", 3) end
    local receptive = 1
    for i = 3, d do receptive = receptive * t.shape[i] end
    return t.shape[2] * receptive, t.shape[1] * receptive
  end
  init._calculate_fan_in_and_fan_out = function(t) return fans(t) end

  local options = require("mindtorch._args").options
  -- an initialiser's options (errors point at its caller); only the generator goes on to
  -- the draw a composite initialiser makes
  local function opts_of(fname, o, spec) return options(fname, o, spec) end -- a tail call
  local function draw_opts(o) return o.generator ~= nil and { generator = o.generator } or nil end
  local any = "any"

  function init.uniform_(t, a, b, opts)
    if type(a) == "table" then opts, a, b = a, a.a, a.b end
    local g = opts_of("uniform_", opts, { a = any, b = any, generator = any }).generator
    return no_grad(function()
      if g then return t:uniform_(a or 0, b or 1, { generator = g }) end
      return t:uniform_(a or 0, b or 1)
    end)
  end
  function init.normal_(t, mean, std, opts)
    if type(mean) == "table" then opts, mean, std = mean, mean.mean, mean.std end
    local g = opts_of("normal_", opts, { mean = any, std = any, generator = any }).generator
    return no_grad(function()
      if g then return t:normal_(mean or 0, std or 1, { generator = g }) end
      return t:normal_(mean or 0, std or 1)
    end)
  end
  function init.constant_(t, v) return no_grad(function() return t:fill_(v) end) end
  function init.zeros_(t) return no_grad(function() return t:zero_() end) end
  function init.ones_(t) return no_grad(function() return t:fill_(1) end) end
  function init.eye_(t)
    if t:dim() ~= 2 then error("Only tensors with 2 dimensions are supported", 2) end
    return no_grad(function() return t:copy_(torch.eye(t.shape[1], t.shape[2], { dtype = t.dtype })) end)
  end

  function init.xavier_uniform_(t, gain, opts)
    if type(gain) == "table" then opts, gain = gain, gain.gain end
    opts = opts_of("xavier_uniform_", opts, { gain = any, generator = any })
    local fan_in, fan_out = fans(t)
    local std = (gain or 1) * math.sqrt(2.0 / (fan_in + fan_out))
    local a = math.sqrt(3.0) * std
    return init.uniform_(t, -a, a, draw_opts(opts))
  end
  function init.xavier_normal_(t, gain, opts)
    if type(gain) == "table" then opts, gain = gain, gain.gain end
    opts = opts_of("xavier_normal_", opts, { gain = any, generator = any })
    local fan_in, fan_out = fans(t)
    return init.normal_(t, 0, (gain or 1) * math.sqrt(2.0 / (fan_in + fan_out)), draw_opts(opts))
  end

  local function kaiming_std(t, o)
    local mode = o.mode or "fan_in"
    if mode ~= "fan_in" and mode ~= "fan_out" then
      error(("Mode %s not supported, please use one of fan_in, fan_out"):format(mode), 3)
    end
    local fan_in, fan_out = fans(t)
    local fan = mode == "fan_in" and fan_in or fan_out
    return init.calculate_gain(o.nonlinearity or "leaky_relu", o.a or 0) / math.sqrt(fan)
  end
  -- kaiming_uniform_(t, {a = 0, mode = "fan_in", nonlinearity = "leaky_relu", generator = })
  local kaiming_options = { a = any, mode = any, nonlinearity = any, generator = any }
  function init.kaiming_uniform_(t, o)
    o = opts_of("kaiming_uniform_", o, kaiming_options)
    if t:numel() == 0 then return t end
    local bound = math.sqrt(3.0) * kaiming_std(t, o)
    return init.uniform_(t, -bound, bound, { generator = o.generator })
  end
  function init.kaiming_normal_(t, o)
    o = opts_of("kaiming_normal_", o, kaiming_options)
    if t:numel() == 0 then return t end
    return init.normal_(t, 0, kaiming_std(t, o), { generator = o.generator })
  end

  -- trunc_normal_(t, mean, std, a, b) or (t, {mean = 0, std = 1, a = -2, b = 2, generator = }):
  -- PyTorch's inverse-CDF method: uniform between the bounds' CDF values, mapped back through
  -- erfinv, then clamped to [a, b]
  local function norm_cdf(x)
    return (1 + torch.erf(torch.tensor(x / math.sqrt(2), { dtype = torch.float64 })):item()) / 2
  end
  function init.trunc_normal_(t, mean, std, a, b, opts)
    if type(mean) == "table" then opts, mean, std, a, b = mean, mean.mean, mean.std, mean.a, mean.b end
    opts = opts_of("trunc_normal_", opts, { mean = any, std = any, a = any, b = any, generator = any })
    mean, std, a, b = mean or 0, std or 1, a or -2, b or 2
    if mean < a - 2 * std or mean > b + 2 * std then
      warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. ",
        "The distribution of values may be incorrect.")
    end
    local l, u = norm_cdf((a - mean) / std), norm_cdf((b - mean) / std)
    init.uniform_(t, 2 * l - 1, 2 * u - 1, draw_opts(opts))
    return no_grad(function()
      return t:erfinv_():mul_(std * math.sqrt(2)):add_(mean):clamp_(a, b)
    end)
  end

  -- Q of the QR factorisation of a tall m x n matrix (m >= n) with R's diagonal positive:
  -- classical Gram-Schmidt with a second pass (orthogonal to rounding), in float64. That Q is
  -- unique, so it is the Q PyTorch gets from LAPACK's QR after its sign correction.
  local function orthonormal_columns(a)
    local m, n = a.shape[1], a.shape[2]
    local q = torch.zeros(m, n, { dtype = torch.float64 })
    for j = 1, n do
      local v = a:select(2, j):clone()
      if j > 1 then
        local done = q:narrow(2, 1, j - 1)
        for _ = 1, 2 do v:sub_(done:mv(done:t():mv(v))) end
      end
      q:select(2, j):copy_(v:div_(v:norm()))
    end
    return q
  end

  -- orthogonal_(t, gain) or (t, {gain = 1, generator = }): t's rows (or columns, when fewer)
  -- orthonormal, from a normal draw as PyTorch's
  function init.orthogonal_(t, gain, opts)
    if type(gain) == "table" then opts, gain = gain, gain.gain end
    opts = opts_of("orthogonal_", opts, { gain = any, generator = any })
    if t:dim() < 2 then error("Only tensors with 2 or more dimensions are supported", 2) end
    if t:numel() == 0 then return t end
    local rows = t.shape[1]
    local cols = t:numel() // rows
    local flat = torch.empty(rows, cols, { dtype = t.dtype, device = t.device })
    init.normal_(flat, 0, 1, draw_opts(opts))
    return no_grad(function()
      local tall = rows < cols and flat:t() or flat
      local q = orthonormal_columns(tall:double())
      if rows < cols then q = q:t() end
      return t:copy_(q:reshape(t.shape)):mul_(gain or 1)
    end)
  end

  nn.init = init
  return init
end
