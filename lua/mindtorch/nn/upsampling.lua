-- upsampling.lua: F.interpolate (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
-- area; antialias for bilinear and bicubic), its deprecated forms F.upsample,
-- F.upsample_nearest, F.upsample_bilinear, and the modules Upsample, UpsamplingNearest2d,
-- UpsamplingBilinear2d. Each spatial dim is resampled on its own (the last first): per output
-- position the source indices and weights are computed in Lua with ATen's formulas, rounded as
-- ATen rounds them (float arithmetic for float32 and half inputs, double for float64), then
-- applied to the whole tensor by index_select and a weighted sum, so autograd derives the
-- gradients. area is adaptive average pooling. Also F.grid_sample and F.affine_grid over
-- torch.grid_sampler and torch.affine_grid_generator.
return function(torch, nn)
  local Module, F, py = nn.Module, nn.functional, nn._py
  local args = require "mindtorch._args"
  local layout = require "mindtorch._layout"

  local function f32(v) return (string.unpack("f", string.pack("f", v))) end
  local function same(v) return v end
  -- ATen's opmath: float for float32, half and bfloat16, double for float64
  local function rounding(dtype) return dtype == torch.float64 and same or f32 end

  -- ---- source positions (ATen's UpSample.h formulas) ------------------------------------------
  -- the ratio input/output: 1 / scale when a scale was given (and is positive), else in / out
  local function scales_value(R, scale, n_in, n_out)
    if scale ~= nil and scale > 0 then return R(1.0 / scale) end
    return R(R(n_in) / n_out)
  end
  local function pixel_scale(R, n_in, n_out, align_corners, scale)
    if align_corners then
      if n_out > 1 then return R(R(n_in - 1) / (n_out - 1)) end
      return 0
    end
    return scales_value(R, scale, n_in, n_out)
  end
  local function source_index(R, s, i, align_corners, cubic)
    if align_corners then return R(s * i) end
    local v = R(s * (i + 0.5) - 0.5)
    if not cubic and v < 0 then return 0 end
    return v
  end

  -- per mode: the taps of output position i, as lists of indices (0-based) and weights
  local taps = {}
  -- nearest and nearest-exact: ATen's forward kernel and its backward take their indices from
  -- different formulas (the backward's keeps equal and doubled sizes exact and computes in
  -- float whatever the dtype); both are kept, the second for the gradient
  local function nearest_backward(n_in, n_out, scale, exact)
    local idx = {}
    local s = scales_value(f32, scale, n_in, n_out)
    for i = 0, n_out - 1 do
      local v
      if exact then
        v = math.floor(f32((i + 0.5) * s))
      elseif n_out == n_in then
        v = i
      elseif n_out == 2 * n_in then
        v = i >> 1
      else
        v = math.floor(f32(i * s))
      end
      idx[i + 1] = math.min(v, n_in - 1)
    end
    return idx
  end
  function taps.nearest(R, n_in, n_out, _, scale)
    local s = pixel_scale(R, n_in, n_out, false, scale)
    local idx = {}
    for i = 0, n_out - 1 do
      idx[i + 1] = math.min(math.floor(f32(source_index(R, s, i, true, false))), n_in - 1)
    end
    return { idx }, nil, nearest_backward(n_in, n_out, scale, false)
  end
  taps["nearest-exact"] = function(R, n_in, n_out, _, scale)
    local s = pixel_scale(R, n_in, n_out, false, scale)
    local idx = {}
    for i = 0, n_out - 1 do
      idx[i + 1] = math.min(math.floor(f32(source_index(R, s, i, false, false) + 0.5)), n_in - 1)
    end
    return { idx }, nil, nearest_backward(n_in, n_out, scale, true)
  end
  function taps.linear(R, n_in, n_out, align_corners, scale)
    local s = pixel_scale(R, n_in, n_out, align_corners, scale)
    local i0, i1, w0, w1 = {}, {}, {}, {}
    for i = 0, n_out - 1 do
      local k = i + 1
      if n_in == n_out then
        i0[k], i1[k], w0[k], w1[k] = i, i, 1.0, 0.0
      else
        local real = source_index(R, s, i, align_corners, false)
        local lo = math.floor(real)
        i0[k], i1[k] = lo, lo < n_in - 1 and lo + 1 or lo
        local l1 = math.min(math.max(R(real - lo), 0.0), 1.0)
        w0[k], w1[k] = R(1.0 - l1), l1
      end
    end
    return { i0, i1 }, { w0, w1 }
  end
  local A = -0.75
  -- ATen's cubic convolution weights, each operation rounded: |x| <= 1 and 1 < |x| < 2
  local function near(R, x)
    local v = R(R(R(R(A + 2) * x) - (A + 3)) * x)
    return R(R(v * x) + 1)
  end
  local function far(R, x)
    local v = R(R(R(R(A * x) - 5 * A) * x) + 8 * A)
    return R(R(v * x) - 4 * A)
  end
  function taps.cubic(R, n_in, n_out, align_corners, scale)
    local s = pixel_scale(R, n_in, n_out, align_corners, scale)
    local idx, w = { {}, {}, {}, {} }, { {}, {}, {}, {} }
    for i = 0, n_out - 1 do
      local real = source_index(R, s, i, align_corners, true)
      local lo = math.floor(f32(real))
      local t = R(real - lo)
      local c = { far(R, R(t + 1.0)), near(R, t), near(R, R(1.0 - t)), far(R, R(R(1.0 - t) + 1.0)) }
      for j = 1, 4 do
        idx[j][i + 1] = math.max(math.min(lo - 2 + j, n_in - 1), 0)
        w[j][i + 1] = c[j]
      end
    end
    return idx, w
  end

  -- antialiased linear and cubic (PIL's filters, the cubic one with a = -0.5): each output
  -- position averages the inputs under the filter stretched by the downscaling factor,
  -- weights normalized to sum 1
  local AA = {
    linear = { 1, function(x)
      x = math.abs(x)
      if x < 1 then return 1 - x end
      return 0
    end },
    cubic = { 2, function(x)
      local a = -0.5
      x = math.abs(x)
      if x < 1 then return ((a + 2) * x - (a + 3)) * x * x + 1 end
      if x < 2 then return (((x - 5) * x + 8) * x - 4) * a end
      return 0
    end },
  }
  local function aa_taps(R, n_in, n_out, align_corners, scale, kind)
    local half, filter = AA[kind][1], AA[kind][2]
    local s = pixel_scale(R, n_in, n_out, align_corners, scale)
    local support = s >= 1 and R(half * s) or half
    local width = math.ceil(support) * 2 + 1
    local invscale = s >= 1 and R(1 / s) or 1
    local idx, w = {}, {}
    for j = 1, width do idx[j], w[j] = {}, {} end
    for i = 0, n_out - 1 do
      local center = R(s * (i + 0.5))
      local lo = math.max(math.tointeger(R(center - support + 0.5) // 1) or 0, 0)
      local size = math.min(math.tointeger(R(center + support + 0.5) // 1) or 0, n_in) - lo
      local ws, total = {}, 0
      for j = 0, size - 1 do
        ws[j + 1] = R(filter(R(R(j + lo - center + 0.5) * invscale)))
        total = R(total + ws[j + 1])
      end
      for j = 1, width do
        idx[j][i + 1] = math.min(lo + j - 1, n_in - 1)
        local v = j <= size and ws[j] or 0
        if j <= size and total ~= 0 then v = R(v / total) end
        w[j][i + 1] = v
      end
    end
    return idx, w
  end
  taps.linear_aa = function(R, n_in, n_out, ac, scale) return aa_taps(R, n_in, n_out, ac, scale, "linear") end
  taps.cubic_aa = function(R, n_in, n_out, ac, scale) return aa_taps(R, n_in, n_out, ac, scale, "cubic") end

  -- x resampled along dim d to n_out positions with the taps of `kind`
  local function index_tensor(list, device)
    local one = {}
    for i, v in ipairs(list) do one[i] = v + 1 end
    return torch.tensor(one, { dtype = torch.int64, device = device })
  end
  local function differ(a, b)
    for i = 1, #a do if a[i] ~= b[i] then return true end end
    return false
  end

  -- x resampled along dim d to n_out positions with the taps of `kind`
  local function along(x, d, kind, n_out, align_corners, scale)
    local n_in = x:size(d)
    local R = rounding(x.dtype)
    local idx, w, back = taps[kind](R, n_in, n_out, align_corners, scale)
    if back and differ(idx[1], back) and x.requires_grad and torch.is_grad_enabled() then
      -- the forward's values with the backward's gradient: B(x) - B(x).detach() is 0 and carries B's
      local b = x:index_select(d, index_tensor(back, x.device))
      return x:detach():index_select(d, index_tensor(idx[1], x.device)) + (b - b:detach())
    end
    local shape = {}
    for i = 1, x:dim() do shape[i] = 1 end
    shape[d] = n_out
    local out
    for k = 1, #idx do
      local v = x:index_select(d, index_tensor(idx[k], x.device))
      if w then v = v * torch.tensor(w[k], { dtype = x.dtype, device = x.device }):view(shape) end
      out = out and out + v or v
    end
    return out
  end

  local DIMS = { "D", "H", "W" }
  local function check_sizes(input, out_size)
    local k = #out_size
    local bad = false
    for i = 1, k do
      if input:size(2 + i) <= 0 or out_size[i] <= 0 then bad = true end
    end
    if bad then
      local names = { table.unpack(DIMS, 4 - k) }
      local ins, outs = {}, {}
      for i = 1, k do
        ins[i] = ("%s: %d"):format(names[i], input:size(2 + i))
        outs[i] = ("%s: %d"):format(names[i], out_size[i])
      end
      error(("Input and output sizes should be greater than 0, but got input (%s)%s output (%s)"):format(
        table.concat(ins, ", "), k == 1 and " and" or "", table.concat(outs, ", ")), 3)
    end
    for d = 2, input:dim() do
      if input:size(d) == 0 then
        error(("Non-empty %dD data tensor expected but got a tensor with sizes [%s]"):format(input:dim(),
          table.concat(input:size(), ", ")), 3)
      end
    end
  end

  -- a big output is allocated once before the per-position loops run, so a size no memory
  -- can hold fails at once with the allocator's message instead of after a long loop
  local function reserve(input, out_size)
    local shape = { input:size(1), input:size(2), table.unpack(out_size) }
    local n = 1.0 -- (a float: the product may pass 2^63)
    for _, v in ipairs(shape) do n = n * v end
    if n > (1 << 26) then torch.empty(shape, { dtype = input.dtype, device = input.device }) end
  end

  local KERNEL = { nearest = "nearest", ["nearest-exact"] = "nearest", linear = "linear", bilinear = "linear",
    trilinear = "linear", bicubic = "cubic" }
  local TYPE_NAMES = { bool = "Bool", uint8 = "Byte", int8 = "Char", int16 = "Short", int32 = "Int", int64 = "Long" }

  -- the resampling proper: input (N, C, *spatial), an output size per spatial dim, the scales
  -- the kernels see (nil: from the sizes)
  local function resample(input, mode, out_size, scales, align_corners, antialias)
    check_sizes(input, out_size)
    local kernel = KERNEL[mode]
    if not input.dtype.is_floating_point and not (kernel == "nearest" and input.dtype == torch.uint8) then
      error(('"compute_indices_weights_%s" not implemented for \'%s\''):format(kernel,
        TYPE_NAMES[input.dtype.name] or input.dtype.name), 2)
    end
    reserve(input, out_size)
    local x = input
    local kind = kernel == "nearest" and mode or kernel
    if antialias then kind = kind .. "_aa" end
    for i = #out_size, 1, -1 do
      local d = 2 + i
      if not (kind == "linear" and x:size(d) == out_size[i]) then
        x = along(x, d, kind, out_size[i], align_corners, scales and scales[i])
      end
    end
    if x == input then x = input:clone() end
    return x
  end

  -- area: adaptive average pooling; 3-D as a 2-D pooling of the (H, W) planes then a 1-D one
  -- along D when torch has no adaptive_avg_pool3d (the mean of a box is the mean of its planes')
  local function area(input, out_size)
    local k = #out_size
    if k == 1 then return torch.adaptive_avg_pool1d(input, out_size) end
    if k == 2 then return torch.adaptive_avg_pool2d(input, out_size) end
    if torch.adaptive_avg_pool3d then return torch.adaptive_avg_pool3d(input, out_size) end
    if not input.dtype.is_floating_point then
      error(('"adaptive_avg_pool3d_cpu" not implemented for \'%s\''):format(TYPE_NAMES[input.dtype.name]), 2)
    end
    local N, C, D, H, W = table.unpack(input:size())
    local oD, oH, oW = table.unpack(out_size)
    local planes = torch.adaptive_avg_pool2d(input:reshape(N, C * D, H, W), { oH, oW })
    local cols = planes:reshape(N, C, D, oH * oW):transpose(3, 4):reshape(N, C * oH * oW, D)
    local y = torch.adaptive_avg_pool1d(cols, { oD })
    return y:reshape(N, C, oH * oW, oD):transpose(3, 4):reshape(N, C, oD, oH, oW):contiguous()
  end

  -- a list as Python prints it in these messages: (3, 2) for a tuple (a Lua sequence)
  local function pylist(t)
    local parts = {}
    for i, v in ipairs(t) do parts[i] = py(v) end
    return "(" .. table.concat(parts, ", ") .. (#t == 1 and ",)" or ")")
  end
  local function spatial(input)
    local s = {}
    for d = 3, input:dim() do s[#s + 1] = input:size(d) end
    return "[" .. table.concat(s, ", ") .. "]"
  end

  local interpolate_names = { "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias" }
  local LINEAR_DIM = { linear = 3, bilinear = 4, trilinear = 5, bicubic = 4 }

  local function interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
    mode = mode or "nearest"
    for name, v in pairs { align_corners = align_corners, recompute_scale_factor = recompute_scale_factor,
      antialias = antialias } do
      if v ~= nil and type(v) ~= "boolean" then
        error(("interpolate(): argument '%s' must be bool, not %s"):format(name, args.py_type(v)), 2)
      end
    end
    if mode == "nearest" or mode == "area" or mode == "nearest-exact" then
      if align_corners ~= nil then
        error("align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
          .. "trilinear", 2)
      end
    elseif align_corners == nil then
      align_corners = false
    end
    local dim = input:dim() - 2
    local output_size, scale_factors
    if size ~= nil and scale_factor ~= nil then
      error("only one of size or scale_factor should be defined", 2)
    elseif size ~= nil then
      if type(size) == "table" then
        if #size ~= dim then
          error(("Input and output must have the same number of spatial dimensions, but got input with spatial "
            .. "dimensions of %s and output size of %s. Please provide input tensor in (N, C, d1, d2, ...,dK) "
            .. "format and output size in (o1, o2, ...,oK) format."):format(spatial(input), pylist(size)), 2)
        end
        output_size = { table.unpack(size) }
      else
        output_size = {}
        for i = 1, math.max(dim, 0) do output_size[i] = size end
      end
      for _, v in ipairs(output_size) do
        if math.type(v) ~= "integer" then
          error(("interpolate(): size must be an int or a sequence of ints, not %s"):format(args.py_type(v)), 2)
        end
      end
    elseif scale_factor ~= nil then
      if type(scale_factor) == "table" then
        if #scale_factor ~= dim then
          error(("Input and scale_factor must have the same number of spatial dimensions, but got input with "
            .. "spatial dimensions of %s and scale_factor of shape %s. Please provide input tensor in (N, C, d1, "
            .. "d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."):format(spatial(input),
              pylist(scale_factor)), 2)
        end
        scale_factors = { table.unpack(scale_factor) }
      else
        scale_factors = {}
        for i = 1, math.max(dim, 0) do scale_factors[i] = scale_factor end
      end
      for _, v in ipairs(scale_factors) do
        if type(v) ~= "number" then
          error(("interpolate(): scale_factor must be a float or a sequence of floats, not %s"):format(
            args.py_type(v)), 2)
        end
      end
    else
      error("either size or scale_factor should be defined", 2)
    end
    if recompute_scale_factor and size ~= nil then
      error("recompute_scale_factor is not meaningful with an explicit size.", 2)
    end
    if mode == "area" and output_size == nil then recompute_scale_factor = true end
    if recompute_scale_factor then
      output_size = {}
      for i = 1, dim do
        local v = input:size(2 + i) * scale_factors[i]
        if v ~= v or v == math.huge or v == -math.huge then
          error("cannot convert float " .. (v ~= v and "NaN" or "infinity") .. " to integer", 2)
        end
        output_size[i] = math.tointeger(math.floor(v)) or math.mininteger
      end
      scale_factors = nil
    end
    if antialias and not ((mode == "bilinear" or mode == "bicubic") and input:dim() == 4) then
      error("Anti-alias option is only supported for bilinear and bicubic modes", 2)
    end
    local known = KERNEL[mode] ~= nil or mode == "area"
    if not known or input:dim() < 3 or input:dim() > 5 or (mode == "bicubic" and input:dim() ~= 4) then
      local want = LINEAR_DIM[mode]
      if want and mode ~= "bicubic" and input:dim() >= 3 and input:dim() <= 5 then
        error(("Got %dD input, but %s mode needs %dD input"):format(input:dim(), mode, want), 2)
      end
      error(("Input Error: Only 3D, 4D and 5D input Tensors supported (got %dD) for the modes: nearest | linear | "
        .. "bilinear | bicubic | trilinear | area | nearest-exact (got %s)"):format(input:dim(), tostring(mode)), 2)
    end
    if LINEAR_DIM[mode] and mode ~= "bicubic" and LINEAR_DIM[mode] ~= input:dim() then
      error(("Got %dD input, but %s mode needs %dD input"):format(input:dim(), mode, LINEAR_DIM[mode]), 2)
    end
    if output_size == nil then -- the sizes the kernels compute from the scales (truncated products)
      output_size = {}
      for i = 1, dim do -- C's conversion: truncated, and INT64_MIN when out of range (nan, inf)
        local v = input:size(2 + i) * scale_factors[i]
        output_size[i] = math.tointeger(v < 0 and math.ceil(v) or math.floor(v)) or math.mininteger
      end
    end
    if mode == "area" then
      for i = 1, dim do
        if output_size[i] < 0 then check_sizes(input, output_size) end
      end
      return area(input, output_size)
    end
    local out = resample(input, mode, output_size, scale_factors, align_corners, antialias)
    -- in the input's layout, as PyTorch's kernels give it (its bicubic one: contiguous)
    return mode == "bicubic" and out or layout.follow(input, out)
  end

  -- interpolate(input, size, scale_factor, mode = "nearest", align_corners, recompute_scale_factor,
  -- antialias = false), positionally or by name in a trailing options table
  function F.interpolate(input, ...)
    local o = args.parse_at(2, "interpolate", interpolate_names, nil, ...)
    return interpolate(input, o.size, o.scale_factor, o.mode, o.align_corners, o.recompute_scale_factor,
      o.antialias)
  end
  function F.upsample(input, ...)
    warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.")
    local o = args.parse_at(2, "upsample", { "size", "scale_factor", "mode", "align_corners" }, nil, ...)
    return interpolate(input, o.size, o.scale_factor, o.mode, o.align_corners)
  end
  function F.upsample_nearest(input, ...)
    warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.")
    local o = args.parse_at(2, "upsample_nearest", { "size", "scale_factor" }, nil, ...)
    return interpolate(input, o.size, o.scale_factor, "nearest")
  end
  function F.upsample_bilinear(input, ...)
    warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.")
    local o = args.parse_at(2, "upsample_bilinear", { "size", "scale_factor" }, nil, ...)
    return interpolate(input, o.size, o.scale_factor, "bilinear", true)
  end

  -- ---- grid sampling ---------------------------------------------------------------------------
  local ALIGN_WARNING = "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
    .. "Please specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
    .. "details."
  local GRID_MODES = { bilinear = 0, nearest = 1, bicubic = 2 }
  local GRID_PADDING = { zeros = 0, border = 1, reflection = 2 }

  -- grid_sample(input, grid, mode = "bilinear", padding_mode = "zeros", align_corners = nil):
  -- torch.grid_sampler with the modes by name (align_corners nil warns and is false)
  function F.grid_sample(input, grid, ...)
    local o = args.parse_at(2, "grid_sample", { "mode", "padding_mode", "align_corners" }, nil, ...)
    local mode, padding_mode, align_corners = o.mode or "bilinear", o.padding_mode or "zeros", o.align_corners
    if GRID_MODES[mode] == nil then
      error(("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '%s'")
        :format(tostring(mode)), 2)
    end
    if GRID_PADDING[padding_mode] == nil then
      error(("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: "
        .. "'%s'"):format(tostring(padding_mode)), 2)
    end
    if align_corners == nil then
      warn(ALIGN_WARNING)
      align_corners = false
    end
    args.tensor("grid_sample", "grid", 2, grid, false, 2)
    return torch.grid_sampler(input, grid, GRID_MODES[mode], GRID_PADDING[padding_mode], align_corners)
  end

  local function size_text(size)
    local parts = {}
    for i, v in ipairs(size) do parts[i] = tostring(v) end
    return "(" .. table.concat(parts, ", ") .. (#size == 1 and ",)" or ")")
  end

  -- affine_grid(theta, size, align_corners = nil): the sampling grid of a batch of affine
  -- matrices (N x 2 x 3 for a 4-D size, N x 3 x 4 for a 5-D one)
  function F.affine_grid(theta, ...)
    local o = args.parse_at(2, "affine_grid", { "size", "align_corners" }, nil, ...)
    local size, align_corners = o.size, o.align_corners
    args.require("affine_grid", o, { "size" })
    if align_corners == nil then
      warn(ALIGN_WARNING)
      align_corners = false
    end
    if not theta:is_floating_point() then
      error(("Expected theta to have floating point type, but got torch.%s"):format(theta.dtype.name), 2)
    end
    if type(size) ~= "table" then
      error(("affine_grid(): size must be a tuple of ints, not %s"):format(args.py_type(size)), 2)
    end
    local n = args.len(size, 16, "size", 2)
    local shape = theta.shape
    if n == 4 then
      if theta:dim() ~= 3 or shape[2] ~= 2 or shape[3] ~= 3 then
        error(("Expected a batch of 2D affine matrices of shape Nx2x3 for size %s. Got %s."):format(size_text(size),
          tostring(shape)), 2)
      end
    elseif n == 5 then
      if theta:dim() ~= 3 or shape[2] ~= 3 or shape[3] ~= 4 then
        error(("Expected a batch of 3D affine matrices of shape Nx3x4 for size %s. Got %s."):format(size_text(size),
          tostring(shape)), 2)
      end
    else
      error(("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size %s.")
        :format(size_text(size)), 2)
    end
    local min_spatial, min_all = math.huge, math.huge
    for i = 1, n do
      if math.type(size[i]) ~= "integer" then
        error(("affine_grid(): size must be a tuple of ints, but found element of type %s at pos %d"):format(
          args.py_type(size[i]), i), 2)
      end
      min_all = math.min(min_all, size[i])
      if i > 2 then min_spatial = math.min(min_spatial, size[i]) end
    end
    if align_corners and min_spatial == 1 then
      warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. "
        .. "This is not an intended use case of affine_grid. See the documentation of affine_grid for details.")
    elseif min_all <= 0 then
      error(("Expected non-zero, positive output size. Got %s"):format(size_text(size)), 2)
    end
    if shape[1] ~= size[1] then
      error(("Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: [%d, %d]."):format(
        size[1], n - 1, shape[1], n - 1), 2)
    end
    return torch.affine_grid_generator(theta, size, align_corners)
  end

  -- ---- modules ---------------------------------------------------------------------------------
  -- Python's float(v) for a scale factor (a tuple element-wise); nil, 0 and false give None
  local function to_float(v)
    if type(v) == "number" then return v + 0.0 end
    if type(v) == "boolean" then return v and 1.0 or 0.0 end
    if type(v) == "string" then
      local n = tonumber(v)
      if n then return n + 0.0 end
      error(("could not convert string to float: '%s'"):format(v), 4)
    end
    error(("float() argument must be a string or a number, not '%s'"):format(args.py_type(v)), 4)
  end
  local function float_of(v)
    if type(v) == "table" and not torch.is_tensor(v) then
      local t = {}
      for i = 1, args.len(v, 16, "scale_factor", 4) do t[i] = to_float(v[i]) end
      return t
    end
    if v == nil or v == 0 or v == false then return nil end
    return to_float(v)
  end
  local function shown(v)
    if type(v) == "table" then return pylist(v) end
    return py(v)
  end

  local Upsample = Module:subclass("nn.Upsample")
  local upsample_names = { "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor" }
  function Upsample:__init(...)
    Module.__init(self)
    local o = args.parse_at(3, "__init__", upsample_names, nil, ...)
    self.name = (require("mindtorch._class").typename(self) or "nn.Upsample"):match("[^.]*$")
    self.size = o.size
    self.scale_factor = float_of(o.scale_factor)
    self.mode = o.mode or "nearest"
    self.align_corners = o.align_corners
    self.recompute_scale_factor = o.recompute_scale_factor
  end
  function Upsample:forward(x)
    return interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners, self.recompute_scale_factor)
  end
  function Upsample:extra_repr()
    local info
    if self.scale_factor ~= nil then info = "scale_factor=" .. shown(self.scale_factor)
    else info = "size=" .. shown(self.size) end
    return info .. ", mode=" .. self.mode
  end
  nn.Upsample = Upsample

  local UpsamplingNearest2d = Upsample:subclass("nn.UpsamplingNearest2d")
  function UpsamplingNearest2d:__init(...)
    local o = args.parse_at(3, "__init__", { "size", "scale_factor" }, nil, ...)
    Upsample.__init(self, o.size, o.scale_factor, "nearest")
  end
  nn.UpsamplingNearest2d = UpsamplingNearest2d

  local UpsamplingBilinear2d = Upsample:subclass("nn.UpsamplingBilinear2d")
  function UpsamplingBilinear2d:__init(...)
    local o = args.parse_at(3, "__init__", { "size", "scale_factor" }, nil, ...)
    Upsample.__init(self, o.size, o.scale_factor, "bilinear", true)
  end
  nn.UpsamplingBilinear2d = UpsamplingBilinear2d
end
