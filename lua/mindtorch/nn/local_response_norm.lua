-- nn/local_response_norm.lua: F.local_response_norm and nn.LocalResponseNorm (normalisation across
-- channels, dim 2, of an input of 3 or more dims; autograd derives the gradient), and
-- nn.CrossMapLRN2d, PyTorch's legacy 4-D form with its own autograd Function: its forward and its
-- hand-written backward follow PyTorch 1.13's, window quirks included (the forward's sum keeps
-- channel 1's square in every channel's window; the backward's window is shifted), so its
-- gradient is PyTorch's rather than the exact derivative of its forward.
return function(torch, nn)
  local Module, F, py = nn.Module, nn.functional, nn._py
  local args = require "mindtorch._args"

  -- F.local_response_norm(input, size, alpha = 1e-4, beta = 0.75, k = 1.0): input / (k + alpha *
  -- mean of the squares over the `size` channels around each one, zeros past the edges) ^ beta.
  -- The window of channel c is c - size // 2 .. c + (size - 1) // 2.
  function F.local_response_norm(input, size, ...)
    local o = args.parse_at(2, "local_response_norm", { "alpha", "beta", "k" }, { alpha = 1e-4, beta = 0.75, k = 1.0 },
      ...)
    args.int("size", size, 1)
    local d = input:dim()
    if d < 3 then
      error(("Expected 3D or higher dimensionality                          input (got %d dimensions)"):format(d), 2)
    end
    if input:numel() == 0 then return input end
    local sq = input * input
    local C = input.shape[2]
    local before, after = size // 2, (size - 1) // 2
    local parts = {}
    local function zeros(n)
      local shape = {}
      for i = 1, d do shape[i] = input.shape[i] end
      shape[2] = n
      return torch.zeros(shape, { dtype = input.dtype, device = input.device })
    end
    if before > 0 then parts[#parts + 1] = zeros(before) end
    parts[#parts + 1] = sq
    if after > 0 then parts[#parts + 1] = zeros(after) end
    local padded = #parts > 1 and torch.cat(parts, 2) or sq
    local sum = padded:narrow(2, 1, C)
    for j = 2, size do sum = sum + padded:narrow(2, j, C) end
    local div = (sum / size * o.alpha + o.k) ^ o.beta
    return input / div
  end

  local function lrn_init(name)
    return function(self, size, ...)
      local o = args.parse_at(2, "__init__", { "alpha", "beta", "k" }, nil, ...)
      args.require(name .. ".__init__", { size = size }, { "size" })
      args.int("size", size, 1)
      Module.__init(self)
      self.size, self.alpha, self.beta = size, o.alpha or 1e-4, o.beta or 0.75
      self.k = o.k or (name == "LocalResponseNorm" and 1.0 or 1) -- PyTorch's defaults: 1. and 1
    end
  end
  local function lrn_repr(self)
    return ("%d, alpha=%s, beta=%s, k=%s"):format(self.size, py(self.alpha), py(self.beta), py(self.k))
  end

  -- nn.LocalResponseNorm(size, alpha = 1e-4, beta = 0.75, k = 1.0)
  local LocalResponseNorm = Module:subclass("nn.LocalResponseNorm")
  LocalResponseNorm.__init = lrn_init("LocalResponseNorm")
  function LocalResponseNorm:forward(input)
    return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)
  end
  LocalResponseNorm.extra_repr = lrn_repr
  nn.LocalResponseNorm = LocalResponseNorm

  -- the window sums of x along dim 2 (C channels): out[c] = sum of x[c + lo .. c + hi], clipped
  -- to 1 .. C
  local function window_sum(x, lo, hi)
    local C = x.shape[2]
    local out = torch.zeros_like(x)
    for s = lo, hi do
      local from, to = math.max(1, 1 + s), math.min(C, C + s) -- out[c] += x[c + s]
      if from <= to then out:narrow(2, from - s, to - from + 1):add_(x:narrow(2, from, to - from + 1)) end
    end
    return out
  end

  -- PyTorch's CrossMapLRN2d Function. Forward: scale = k + alpha / size * (x[1]^2 + the squares of
  -- channels max(2, c - pre + 1) .. min(C, c + pre - 1)), pre = (size - 1) // 2 + 1; out = x *
  -- scale^-beta. Backward: scale^-beta * g - 2 alpha beta / size * x * (the sum of g * out / scale
  -- over channels c - q .. c + size - 1 - q), q = size - size // 2.
  local CrossMapLRN = torch.autograd.Function:subclass("CrossMapLRN2d")
  function CrossMapLRN.forward(ctx, input, size, alpha, beta, k)
    if input:dim() ~= 4 then
      error(("CrossMapLRN2d: expected a 4-D input, but got Tensor of dimension %d"):format(input:dim()), 4)
    end
    local C = input.shape[2]
    local sq = input * input
    local pre = (size - 1) // 2 + 1
    local scale = torch.zeros_like(input)
    -- channel 1's square in every window; the others from c - pre + 1 (but >= 2) to c + pre - 1
    scale:add_(sq:narrow(2, 1, 1))
    if C > 1 then
      local rest = torch.zeros_like(input)
      rest:narrow(2, 2, C - 1):copy_(sq:narrow(2, 2, C - 1))
      scale:add_(window_sum(rest, -(pre - 1), pre - 1))
    end
    scale = scale * (alpha / size) + k
    local out = scale:pow(-beta) * input
    ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
    ctx:save_for_backward(input, out)
    return out
  end
  function CrossMapLRN.backward(ctx, grad)
    local input, out = table.unpack(ctx.saved_tensors)
    local size, scale = ctx.size, ctx.scale
    local q = size - size // 2
    local ratio = grad * out / scale
    local accum = window_sum(ratio, -q, size - 1 - q)
    local gin = scale:pow(-ctx.beta) * grad - input * accum * (2 * ctx.alpha * ctx.beta / size)
    return gin, nil, nil, nil, nil
  end

  -- nn.CrossMapLRN2d(size, alpha = 1e-4, beta = 0.75, k = 1): 4-D input only
  local CrossMapLRN2d = Module:subclass("nn.CrossMapLRN2d")
  CrossMapLRN2d.__init = lrn_init("CrossMapLRN2d")
  function CrossMapLRN2d:forward(input)
    return CrossMapLRN.apply(input, self.size, self.alpha, self.beta, self.k)
  end
  CrossMapLRN2d.extra_repr = lrn_repr
  nn.CrossMapLRN2d = CrossMapLRN2d
end
