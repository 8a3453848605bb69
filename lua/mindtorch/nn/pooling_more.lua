-- pooling_more.lua: the pooling layers beyond conv.lua's C-backed ones: avg_pool3d,
-- adaptive_avg_pool3d, max_pool3d's indices, adaptive_max_pool1d/2d/3d, lp_pool1d/2d,
-- fractional_max_pool2d/3d and max_unpool1d/2d/3d, as torch.*, nn.functional and nn modules.
-- They are composed of tensor ops (unfold, narrow, gather, scatter), so autograd gives their
-- gradients. Indices are 1-based positions within each plane (or volume), as max_pool2d's:
-- PyTorch's flat index + 1.
return function(torch, nn)
  local Module, F, py = nn.Module, nn.functional, nn._py
  local args = require "mindtorch._args"
  local layout = require "mindtorch._layout"
  local TYPE = { float16 = "Half", bfloat16 = "BFloat16", float32 = "Float", float64 = "Double", int8 = "Char",
    int16 = "Short", int32 = "Int", int64 = "Long", uint8 = "Byte", bool = "Bool" }

  local function listed(v)
    if type(v) == "table" then return v end
    return { v }
  end
  -- v as n ints (one int repeated), or the error when it has another length
  local function ntuple(v, n, message)
    v = listed(v)
    if #v == 1 then
      local t = {}
      for i = 1, n do t[i] = v[1] end
      return t
    end
    if #v ~= n then error(message or ("expected a single int or a tuple of %d ints, got %d"):format(n, #v), 3) end
    return v
  end
  -- PyTorch's TypeError for a size argument that is not an int or a sequence of ints (floats
  -- where numbers are asked: kind "float")
  local function check_ints(fname, argname, v, kind)
    if v == nil then return end
    local ok = kind == "float" and function(x) return type(x) == "number" end
      or function(x) return math.type(x) == "integer" end
    local word = kind == "float" and "floats" or "ints"
    if type(v) ~= "table" then
      if not ok(v) then
        error(("%s(): argument '%s' must be tuple of %s, not %s"):format(fname, argname, word, args.py_type(v)), 3)
      end
      return
    end
    for i, x in ipairs(v) do
      if not ok(x) and x ~= false then
        error(("%s(): argument '%s' must be tuple of %s, but found element of type %s at pos %d"):format(fname,
          argname, word, args.py_type(x), i), 3)
      end
    end
  end
  local function sizes_of(t)
    return "[" .. table.concat(t:size(), ", ") .. "]"
  end
  local tuple, named = nn._tuple, nn._named -- conv.lua's: a size as Python prints it; options by name

  -- output length of a pooling window along one dim (PyTorch's pooling_output_shape)
  local function pool_out(L, k, s, p, d, ceil)
    local num = L + 2 * p - d * (k - 1) - 1 + (ceil and s - 1 or 0)
    local o = num // s + 1
    if ceil and (o - 1) * s >= L + p then o = o - 1 end
    return o
  end

  -- x's windows over its last #k dims: padded by pd (value padval; the right side as far as
  -- the last window reaches), unfolded, dilation stepped: (..., o_1, ..., o_n, prod(k))
  local function windows(x, k, st, pd, dl, out, padval)
    local n, nd = #k, x:dim()
    local pad = {}
    for i = n, 1, -1 do
      local L = x:size(nd - n + i)
      local need = (out[i] - 1) * st[i] + dl[i] * (k[i] - 1) + 1 - (L + pd[i])
      pad[#pad + 1] = pd[i]
      pad[#pad + 1] = math.max(need, 0)
    end
    local y = torch.constant_pad_nd(x, pad, padval)
    for i = 1, n do
      local d = nd - n + i
      local span = dl[i] * (k[i] - 1) + 1
      y = y:narrow(d, 1, (out[i] - 1) * st[i] + span):unfold(d, span, st[i])
      if dl[i] > 1 then y = y:index_select(-1, torch.arange(1, span + 1, dl[i], { device = y.device })) end
    end
    local shape = y:size()
    for _ = 1, n do table.remove(shape) end
    local K = 1
    for i = 1, n do K = K * k[i] end
    shape[#shape + 1] = K
    return y:reshape(shape)
  end

  -- positions 0 .. prod(spatial) - 1 of x's last n dims, shaped as they are (for indices)
  local function positions(x, n)
    local shape, count = {}, 1
    for d = x:dim() - n + 1, x:dim() do
      shape[#shape + 1] = x:size(d)
      count = count * x:size(d)
    end
    return torch.arange(count, { dtype = torch.float64, device = x.device }):view(shape)
  end

  -- ---- max_pool3d_with_indices ----------------------------------------------------------------
  -- torch.max_pool3d checks the arguments (on the meta device: shapes only), then the values and
  -- the positions of their maxima come from the same windows
  local function max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)
    if not torch.is_tensor(self) then
      error(("max_pool3d_with_indices(): argument 'input' (position 1) must be Tensor, not %s"):format(
        args.py_type(self)), 2)
    end
    if stride ~= nil and type(stride) == "table" and #stride == 0 then stride = nil end
    padding, dilation, ceil_mode = padding or 0, dilation or 1, ceil_mode or false
    local meta = torch.empty_strided(self:size(), self:stride(), { dtype = self.dtype, device = "meta" })
    local ok, err = pcall(torch.max_pool3d, meta, kernel_size, stride or {}, padding, dilation, ceil_mode)
    if not ok then error(tostring(err):gsub("^[^:\n]*:%d+: ", ""), 2) end
    local k = ntuple(kernel_size, 3)
    local st = stride == nil and k or ntuple(stride, 3)
    local pd, dl = ntuple(padding, 3), ntuple(dilation, 3)
    local nd, out = self:dim(), {}
    for i = 1, 3 do out[i] = pool_out(self:size(nd - 3 + i), k[i], st[i], pd[i], dl[i], ceil_mode) end
    local values, at = windows(self, k, st, pd, dl, out, -math.huge):max(-1)
    local pos = windows(positions(self, 3), k, st, pd, dl, out, -1)
    local lead = values:size()
    for _ = 1, 3 do table.remove(lead) end
    local pshape = {}
    for _ = 1, #lead do pshape[#pshape + 1] = 1 end
    for _, v in ipairs(pos:size()) do pshape[#pshape + 1] = v end
    local full = values:size()
    full[#full + 1] = pos:size(-1)
    local idx = pos:view(pshape):expand(full):gather(-1, at:unsqueeze(-1)):squeeze(-1)
    return values, (idx + 1):to(torch.int64)
  end
  torch.max_pool3d_with_indices = max_pool3d_with_indices

  local max_names = { "stride", "padding", "dilation", "ceil_mode", "return_indices" }
  F.max_pool3d = function(input, kernel_size, ...)
    local a = named(2, "max_pool3d", max_names, ...)
    if a[5] then return max_pool3d_with_indices(input, kernel_size, a[1], a[2], a[3], a[4]) end
    return torch.max_pool3d(input, kernel_size, a[1] or {}, a[2] or 0, a[3] or 1, a[4] or false)
  end
  F.max_pool3d_with_indices = function(input, kernel_size, ...)
    local a = named(2, "max_pool3d_with_indices", max_names, ...)
    return max_pool3d_with_indices(input, kernel_size, a[1], a[2], a[3], a[4])
  end

  -- ---- avg_pool3d -----------------------------------------------------------------------------
  -- the divisor of each window along one dim: its length clipped to the padded input
  -- (count_include_pad) or to the input
  local function window_counts(L, k, s, p, o, include_pad)
    local c = {}
    for i = 0, o - 1 do
      local a = i * s - p
      local b = math.min(a + k, L + p)
      if not include_pad then
        a, b = math.max(a, 0), math.min(b, L)
      end
      c[i + 1] = b - a
    end
    return c
  end

  local function avg_pool3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    if not torch.is_tensor(self) then
      error(("avg_pool3d(): argument 'input' (position 1) must be Tensor, not %s"):format(args.py_type(self)), 2)
    end
    check_ints("avg_pool3d", "kernel_size", kernel_size == nil and {} or kernel_size)
    check_ints("avg_pool3d", "stride", stride)
    check_ints("avg_pool3d", "padding", padding)
    if divisor_override ~= nil and math.type(divisor_override) ~= "integer" then
      error(("avg_pool3d(): argument 'divisor_override' must be int, not %s"):format(args.py_type(divisor_override)), 2)
    end
    local k = ntuple(kernel_size, 3, "avg_pool3d: kernel_size must be a single int, or a tuple of three ints")
    if stride ~= nil and type(stride) == "table" and #stride == 0 then stride = nil end
    local st = stride == nil and k
      or ntuple(stride, 3, "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints")
    local pd = ntuple(padding or 0, 3, "avg_pool3d: padding must be a single int, or a tuple of three ints")
    ceil_mode = ceil_mode or false
    if count_include_pad == nil then count_include_pad = true end
    local nd = self:dim()
    if nd ~= 4 and nd ~= 5 then error("non-empty 4D or 5D (batch mode) tensor expected for input", 2) end
    for i = 1, 3 do
      if st[i] == 0 then error("stride should not be zero", 2) end
    end
    if divisor_override == 0 then error("divisor must be not zero", 2) end
    for i = 1, 3 do
      if pd[i] > k[i] // 2 then
        error(("pad should be at most half of kernel size, but got pad=%d and kernel_size=%d"):format(pd[i], k[i]), 2)
      end
    end
    local T, H, W = self:size(nd - 2), self:size(nd - 1), self:size(nd)
    if T + 2 * pd[1] < k[1] or H + 2 * pd[2] < k[2] or W + 2 * pd[3] < k[3] then
      error(("input image (T: %d H: %d W: %d) smaller than kernel size (kT: %d kH: %d kW: %d)"):format(T, H, W, k[1],
        k[2], k[3]), 2)
    end
    local out = {}
    for i = 1, 3 do out[i] = pool_out(self:size(nd - 3 + i), k[i], st[i], pd[i], 1, ceil_mode) end
    if out[1] < 1 or out[2] < 1 or out[3] < 1 then
      error(("Given input size: (%dx%dx%dx%d). Calculated output size: (%dx%dx%dx%d). Output size is too small")
        :format(self:size(nd - 3), T, H, W, self:size(nd - 3), out[1], out[2], out[3]), 2)
    end
    local integral = not self.dtype.is_floating_point
    local x = integral and self:to(torch.int64) or self
    local sums = windows(x, k, st, pd, { 1, 1, 1 }, out, 0):sum(-1)
    local div
    if divisor_override then
      div = divisor_override
    else
      local c = {}
      for i = 1, 3 do
        c[i] = torch.tensor(window_counts(self:size(nd - 3 + i), k[i], st[i], pd[i], out[i], count_include_pad),
          { dtype = sums.dtype, device = self.device })
      end
      div = c[1]:view(-1, 1, 1) * c[2]:view(1, -1, 1) * c[3]:view(1, 1, -1)
    end
    if integral then return torch.div(sums, div, { rounding_mode = "trunc" }):to(self.dtype) end
    return sums / div
  end
  torch.avg_pool3d = avg_pool3d
  local avg_names = { "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override" }
  F.avg_pool3d = function(input, kernel_size, ...)
    local a = named(2, "avg_pool3d", avg_names, ...)
    return avg_pool3d(input, kernel_size, a[1], a[2], a[3], a[4], a[5])
  end

  -- ---- adaptive_avg_pool3d: the mean of a box is the mean of its (H, W) planes' means ----------
  local function adaptive_sizes(self, output_size, n)
    local os = listed(output_size)
    if #os == 1 and n > 1 and type(output_size) ~= "table" then
      local t = {}
      for i = 1, n do t[i] = os[1] end
      os = t
    end
    local out = {}
    for i = 1, n do
      local v = os[i]
      if v == nil or v == false then v = self:size(self:dim() - n + i) end -- false: PyTorch's None
      out[i] = v
    end
    return out, #os
  end

  local function adaptive_avg_pool3d(self, output_size)
    if not torch.is_tensor(self) then
      error(("adaptive_avg_pool3d(): argument 'input' (position 1) must be Tensor, not %s"):format(
        args.py_type(self)), 2)
    end
    check_ints("adaptive_avg_pool3d", "output_size", output_size == nil and {} or output_size)
    local out, given = adaptive_sizes(self, output_size, 3)
    if type(output_size) == "table" and given ~= 3 then error("adaptive_avg_pool3d: output_size must be 3", 2) end
    local nd = self:dim()
    if nd ~= 4 and nd ~= 5 then
      error(("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got %s"):format(sizes_of(self)), 2)
    end
    if not self.dtype.is_floating_point then
      error(("\"adaptive_avg_pool3d_cpu\" not implemented for '%s'"):format(TYPE[self.dtype.name]), 2)
    end
    local lead = {}
    for d = 1, nd - 3 do lead[d] = self:size(d) end
    local D, H, W = self:size(nd - 2), self:size(nd - 1), self:size(nd)
    local planes = torch.adaptive_avg_pool2d(self:reshape(-1, H, W), { out[2], out[3] })
    local rows = planes:reshape(-1, D, out[2] * out[3]):transpose(2, 3)
    local y = torch.adaptive_avg_pool1d(rows, { out[1] }):transpose(2, 3)
    local shape = { table.unpack(lead) }
    for i = 1, 3 do shape[#shape + 1] = out[i] end
    return y:reshape(shape):contiguous()
  end
  torch.adaptive_avg_pool3d = adaptive_avg_pool3d
  -- F's check before ATen's (PyTorch's _list_with_default): a list needs one more input dim
  local function list_default_check(input, output_size)
    if torch.is_tensor(input) and type(output_size) == "table" and input:dim() <= #output_size then
      error(("Input dimension should be at least %d"):format(#output_size + 1), 3)
    end
  end
  F.adaptive_avg_pool3d = function(input, output_size)
    list_default_check(input, output_size)
    return adaptive_avg_pool3d(input, output_size)
  end

  -- ---- adaptive_max_pool1d/2d/3d ------------------------------------------------------------------
  -- along dim d: windows [floor(i L / n), ceil((i + 1) L / n)) -> values, 0-based positions
  -- along d. A box's max is the max of its rows' maxima, and the first row holding it gives the
  -- first position in row-major order, as PyTorch's scan.
  local function adaptive_max_dim(x, d, n)
    local L = x:size(d)
    local vals, pos = {}, {}
    for i = 0, n - 1 do
      local s, e = (i * L) // n, -((-(i + 1) * L) // n)
      local v, k = x:narrow(d, s + 1, e - s):max(d, true)
      vals[#vals + 1], pos[#pos + 1] = v, k + (s - 1)
    end
    return torch.cat(vals, d), torch.cat(pos, d)
  end

  local function adaptive_max(self, output_size, n)
    local fname = ("adaptive_max_pool%dd"):format(n)
    if not torch.is_tensor(self) then
      error(("%s(): argument 'input' (position 1) must be Tensor, not %s"):format(fname, args.py_type(self)), 3)
    end
    check_ints(fname, "output_size", output_size == nil and {} or output_size)
    local out, given = adaptive_sizes(self, output_size, n)
    if type(output_size) == "table" and given ~= n then
      error(("%s(): internal error: output_size.size() must be %d"):format(fname, n), 3)
    end
    local nd = self:dim()
    if nd ~= n + 1 and nd ~= n + 2 then
      error(("%s(): Expected %dD or %dD tensor, but got: %s"):format(fname, n + 1, n + 2, sizes_of(self)), 3)
    end
    for d = nd - n + 1, nd do
      if self:size(d) == 0 then
        error(("%s(): Expected input to have non-zero size for non-batch dimensions, but input has sizes %s with "
          .. "dimension %d being empty"):format(fname, sizes_of(self), d), 3)
      end
    end
    if not self.dtype.is_floating_point then
      error(("\"%s\" not implemented for '%s'"):format(n == 3 and "adaptive_max_pool3d_cpu" or fname,
        TYPE[self.dtype.name]), 3)
    end
    local v, col = adaptive_max_dim(self, -1, out[n])
    if n == 1 then return v, (col + 1):to(torch.int64) end
    local W = self:size(-1)
    local v2, row = adaptive_max_dim(v, -2, out[n - 1])
    col = col:gather(-2, row + 1)
    if n == 2 then -- values and indices in the input's layout, as PyTorch's (its 3-d ones are contiguous)
      return layout.follow(self, v2), layout.follow(self, (row * W + col + 1):to(torch.int64))
    end
    local H = self:size(-2)
    local v3, dep = adaptive_max_dim(v2, -3, out[1])
    row, col = row:gather(-3, dep + 1), col:gather(-3, dep + 1)
    return v3, ((dep * H + row) * W + col + 1):to(torch.int64)
  end
  for n = 2, 3 do
    torch["adaptive_max_pool" .. n .. "d"] = function(input, output_size) return adaptive_max(input, output_size, n) end
  end
  for n = 1, 3 do
    local name = "adaptive_max_pool" .. n .. "d"
    local with = function(input, output_size, return_indices)
      if n == 1 then
        local v, i = torch.adaptive_max_pool1d(input, output_size)
        return v, i
      end
      return adaptive_max(input, output_size, n)
    end
    F[name .. "_with_indices"] = function(input, output_size, ...)
      named(2, name .. "_with_indices", { "return_indices" }, ...)
      if n > 1 then list_default_check(input, output_size) end
      return with(input, output_size)
    end
    F[name] = function(input, output_size, ...)
      local a = named(2, name, { "return_indices" }, ...)
      if n > 1 then list_default_check(input, output_size) end
      local v, i = with(input, output_size)
      if a[1] then return v, i end
      return v
    end
  end

  -- ---- lp_pool1d/2d: (sum of x^p over each window)^(1/p), through avg_pool's mean ------------------
  local lp_names = { "stride", "ceil_mode" }
  for n = 1, 2 do
    local name = "lp_pool" .. n .. "d"
    F[name] = function(input, norm_type, kernel_size, ...)
      local a = named(2, name, lp_names, ...)
      if not torch.is_tensor(input) then
        error(("%s(): argument 'input' (position 1) must be Tensor, not %s"):format(name, args.py_type(input)), 2)
      end
      if type(norm_type) ~= "number" then
        error(("%s(): argument 'norm_type' must be float, not %s"):format(name, args.py_type(norm_type)), 2)
      end
      check_ints(name, "kernel_size", kernel_size == nil and {} or kernel_size)
      check_ints(name, "stride", a[1])
      local k = ntuple(kernel_size, n)
      local out
      if a[1] ~= nil then
        out = F["avg_pool" .. n .. "d"](input:pow(norm_type), kernel_size, a[1], 0, a[2] or false)
      else
        out = F["avg_pool" .. n .. "d"](input:pow(norm_type), kernel_size, nil, 0, a[2] or false)
      end
      local count = n == 1 and k[1] or k[1] * k[2]
      return (torch.sign(out) * F.relu(torch.abs(out))):mul(count):pow(1.0 / norm_type)
    end
  end

  -- ---- fractional_max_pool2d/3d --------------------------------------------------------------------
  -- PyTorch's window starts for one plane and dim: with alpha = (L - k) / (n - 1) in the input's
  -- dtype, start i = trunc((i + u) alpha) - trunc(u alpha), and the last window ends at L
  local function starts(u, L, n, k, dtype)
    -- u: (N, C) samples; -> (N, C, n) 0-based starts
    local N, C = u:size(1), u:size(2)
    if n == 1 then return torch.full({ N, C, 1 }, L - k, { dtype = torch.int64, device = u.device }) end
    local on = { dtype = dtype, device = u.device }
    local alpha = torch.tensor((L - k) / 1, on) / torch.tensor(n - 1, on)
    local i = torch.arange(n - 1, { dtype = dtype, device = u.device })
    local uu = u:unsqueeze(-1)
    local s = ((i + uu) * alpha):trunc() - (uu * alpha):trunc()
    local last = torch.full({ N, C, 1 }, L - k, { dtype = dtype, device = u.device })
    return torch.cat({ s, last }, -1):to(torch.int64)
  end

  local function fractional(n, self, kernel_size, output_size, output_ratio, return_indices, samples)
    local fname = ("fractional_max_pool%dd"):format(n)
    check_ints(fname, "kernel_size", kernel_size == nil and {} or kernel_size)
    check_ints(fname, "output_size", output_size)
    check_ints(fname, "output_ratio", output_ratio, "float")
    if samples ~= nil and not torch.is_tensor(samples) then
      error(("%s(): argument '_random_samples' must be Tensor, not %s"):format(fname, args.py_type(samples)), 3)
    end
    if output_size == nil and output_ratio == nil then
      error(("%s requires specifying either an output_size or an output_ratio"):format(fname), 3)
    end
    if not torch.is_tensor(self) then
      error(("%s(): argument 'input' (position 1) must be Tensor, not %s"):format(fname, args.py_type(self)), 3)
    end
    local nd = self:dim()
    if nd ~= n + 1 and nd ~= n + 2 then
      error(("%s(): Expected %dD or %dD tensor, but got: %s"):format(fname, n + 1, n + 2, sizes_of(self)), 3)
    end
    local k = ntuple(kernel_size, n)
    local L = {}
    for i = 1, n do L[i] = self:size(nd - n + i) end
    if type(output_size) == "table" and #output_size ~= n then
      error(("%s: output_size must either be a single Int or tuple of Ints"):format(fname), 3)
    end
    local out
    if output_size == nil then
      local r = ntuple(output_ratio, n)
      out = {}
      for i = 1, n do out[i] = math.floor(L[i] * r[i]) end
    else
      out = ntuple(output_size, n)
    end
    local words = n == 2 and { "height", "width" } or { "time", "height", "width" }
    local prefix = n == 2 and "fractional_max_pool2d()" or "fractional_max_pool3d_out()"
    for i = 1, n do
      if out[i] + k[i] - 1 > L[i] then
        error(("%s: pool %s %d too large relative to input %s %d"):format(prefix, words[i], k[i], words[i], L[i]), 3)
      end
    end
    local x = nd == n + 1 and self:unsqueeze(1) or self
    local N, C = x:size(1), x:size(2)
    if samples == nil then samples = torch.rand({ N, C, n }, { dtype = self.dtype, device = self.device }) end
    -- PyTorch's sample order: 2-D (width, height), 3-D (time, height, width)
    local order = n == 2 and { 2, 1 } or { 1, 2, 3 }
    local y = x
    local idx = {}
    for i = 1, n do
      local st = starts(samples:select(3, order[i]), L[i], out[i], k[i], self.dtype) -- (N, C, o_i)
      local d = 2 + i
      local sel = (st:unsqueeze(-1) + torch.arange(k[i], { device = self.device })):reshape(N, C, out[i] * k[i])
      idx[i] = st
      -- gather along spatial dim d: the index tensor shaped as y with dim d replaced
      local shape = y:size()
      local view = { N, C }
      for j = 3, #shape do view[j] = 1 end
      view[d] = out[i] * k[i]
      local target = { table.unpack(shape) }
      target[d] = out[i] * k[i]
      y = y:gather(d, (sel:view(view) + 1):expand(target))
    end
    -- y: (N, C, o1*k1, ..., on*kn) -> (N, C, o1, ..., on, k1 * ... * kn)
    local split = { N, C }
    for i = 1, n do
      split[#split + 1] = out[i]
      split[#split + 1] = k[i]
    end
    y = y:reshape(split)
    local perm = { 1, 2 }
    for i = 1, n do perm[#perm + 1] = 1 + 2 * i end
    for i = 1, n do perm[#perm + 1] = 2 + 2 * i end
    local K = 1
    for i = 1, n do K = K * k[i] end
    local shape = { N, C }
    for i = 1, n do shape[#shape + 1] = out[i] end
    shape[#shape + 1] = K
    local values, at = y:permute(perm):reshape(shape):max(-1)
    -- the position: the window's start plus the offset of the max within it, per dim
    local flat, rest = nil, at - 1
    local offs = {}
    for i = n, 1, -1 do
      offs[i] = rest % k[i]
      rest = rest // k[i]
    end
    for i = 1, n do
      local view = { N, C }
      for j = 1, n do view[#view + 1] = (j == i) and out[i] or 1 end
      local p = idx[i]:view(view) + offs[i]
      flat = flat and flat * L[i] + p or p
    end
    flat = (flat + 1):to(torch.int64)
    if nd == n + 1 then values, flat = values:squeeze(1), flat:squeeze(1) end
    if return_indices then return values, flat end
    return values
  end
  local frac_names = { "output_size", "output_ratio", "return_indices", "_random_samples" }
  for n = 2, 3 do
    local name = "fractional_max_pool" .. n .. "d"
    F[name] = function(input, kernel_size, ...)
      local a = named(2, name, frac_names, ...)
      return fractional(n, input, kernel_size, a[1], a[2], a[3], a[4])
    end
    F[name .. "_with_indices"] = function(input, kernel_size, ...)
      local a = named(2, name .. "_with_indices", frac_names, ...)
      return fractional(n, input, kernel_size, a[1], a[2], true, a[4])
    end
  end

  -- ---- max_unpool1d/2d/3d: values scattered to their 1-based positions in zeroed planes -----------
  local function max_unpool(n, self, indices, kernel_size, stride, padding, output_size)
    -- PyTorch's 1-D form unsqueezes into the 2-D one, whose check (and name) it then meets
    local dims, lo = self:dim() + (n == 1 and 1 or 0), n == 3 and 4 or 3
    if dims ~= lo and dims ~= lo + 1 then
      error(("Input to max_unpooling%dd should be a %dd or %dd Tensor, but got a tensor with %d dimensions."):format(
        n == 3 and 3 or 2, lo, lo + 1, dims), 3)
    end
    local k = ntuple(kernel_size, n)
    local st = (stride == nil or (type(stride) == "table" and #stride == 0)) and k or ntuple(stride, n)
    local pd = ntuple(padding or 0, n)
    local nd = self:dim()
    local default = {}
    for i = 1, n do default[i] = (self:size(nd - n + i) - 1) * st[i] - 2 * pd[i] + k[i] end
    local out = default
    if output_size ~= nil then
      local os = listed(output_size)
      if #os == n + 2 then os = { table.unpack(os, 3) } end
      if #os ~= n then
        error(("output_size should be a sequence containing %d or %d elements, but it has a length of '%d'"):format(
          n, n + 2, #listed(output_size)), 3)
      end
      for i = 1, n do
        local lo, hi = default[i] - st[i], default[i] + st[i]
        if os[i] < lo or os[i] > hi then
          local parts = {}
          for j, v in ipairs(os) do parts[j] = tostring(v) end
          error(("invalid output_size \"(%s)\" (dim %d must be between %d and %d)"):format(table.concat(parts, ", "),
            i, lo, hi), 3)
        end
      end
      out = os
    end
    if not torch.is_tensor(indices) or indices.dtype ~= torch.int64 then
      error(("elements in indices should be type int64 but got: %s"):format(
        torch.is_tensor(indices) and TYPE[indices.dtype.name] or args.py_type(indices)), 3)
    end
    local same = indices:dim() == nd
    for d = 1, nd do same = same and indices:size(d) == self:size(d) end
    if not same then
      error(("Expected shape of indices to be same as that of the input tensor (%s) but got indices tensor with "
        .. "shape: %s"):format(sizes_of(self), sizes_of(indices)), 3)
    end
    local plane = 1
    for i = 1, n do plane = plane * out[i] end
    local lead = {}
    for d = 1, nd - n do lead[d] = self:size(d) end
    local flat_shape = { table.unpack(lead) }
    flat_shape[#flat_shape + 1] = -1
    local idx = indices:reshape(flat_shape)
    if idx:numel() > 0 then
      local lo, hi = idx:min():item(), idx:max():item()
      if lo < 1 or hi > plane then
        local bad = (lo < 1) and lo or hi
        local dims = {}
        for i = 1, n do dims[i] = tostring(out[i]) end
        error(("Found an invalid max index: %d (output volumes are of size %s"):format(bad, table.concat(dims, "x")), 3)
      end
    end
    local zshape = { table.unpack(lead) }
    zshape[#zshape + 1] = plane
    local z = torch.zeros(zshape, { dtype = self.dtype, device = self.device })
    local y = z:scatter(-1, idx, self:reshape(flat_shape))
    local shape = { table.unpack(lead) }
    for i = 1, n do shape[#shape + 1] = out[i] end
    return y:view(shape)
  end
  local unpool_names = { "stride", "padding", "output_size" }
  for n = 1, 3 do
    local name = "max_unpool" .. n .. "d"
    F[name] = function(input, indices, kernel_size, ...)
      local a = named(2, name, unpool_names, ...)
      if not torch.is_tensor(input) then
        error(("%s(): argument 'input' (position 1) must be Tensor, not %s"):format(name, args.py_type(input)), 2)
      end
      check_ints(name, "kernel_size", kernel_size == nil and {} or kernel_size)
      check_ints(name, "stride", a[1])
      check_ints(name, "padding", a[2])
      check_ints(name, "output_size", a[3])
      return max_unpool(n, input, indices, kernel_size, a[1], a[2], a[3])
    end
  end

  -- ---- modules ------------------------------------------------------------------------------------
  local function adaptive_max_class(n)
    local cls = Module:subclass("nn.AdaptiveMaxPool" .. n .. "d")
    function cls:__init(output_size, ...)
      Module.__init(self)
      local a = named(3, "__init__", { "return_indices" }, ...)
      self.output_size, self.return_indices = output_size, a[1] or false
    end
    function cls:forward(x) return F["adaptive_max_pool" .. n .. "d"](x, self.output_size, self.return_indices) end
    function cls:extra_repr() return "output_size=" .. tuple(self.output_size) end
    nn["AdaptiveMaxPool" .. n .. "d"] = cls
  end
  for n = 1, 3 do adaptive_max_class(n) end

  local function lp_class(n)
    local cls = Module:subclass("nn.LPPool" .. n .. "d")
    function cls:__init(norm_type, kernel_size, ...)
      Module.__init(self)
      local a = named(3, "__init__", lp_names, ...)
      self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, a[1], a[2] or false
    end
    function cls:forward(x) return F["lp_pool" .. n .. "d"](x, self.norm_type, self.kernel_size, self.stride,
      self.ceil_mode) end
    function cls:extra_repr()
      return ("norm_type=%s, kernel_size=%s, stride=%s, ceil_mode=%s"):format(py(self.norm_type),
        tuple(self.kernel_size), tuple(self.stride), py(self.ceil_mode))
    end
    nn["LPPool" .. n .. "d"] = cls
  end
  for n = 1, 2 do lp_class(n) end

  local function fractional_class(n)
    local cls = Module:subclass("nn.FractionalMaxPool" .. n .. "d")
    function cls:__init(kernel_size, ...)
      Module.__init(self)
      local a = named(3, "__init__", frac_names, ...)
      self.kernel_size = ntuple(kernel_size, n)
      self.return_indices = a[3] or false
      self:register_buffer("_random_samples", a[4])
      self.output_size = a[1] ~= nil and ntuple(a[1], n) or nil
      self.output_ratio = a[2] ~= nil and ntuple(a[2], n) or nil
      if a[1] == nil and a[2] == nil then
        error(("FractionalMaxPool%dd requires specifying either an output size, or a pooling ratio"):format(n), 3)
      end
      if a[1] ~= nil and a[2] ~= nil then error("only one of output_size and output_ratio may be specified", 3) end
      if self.output_ratio then
        for _, r in ipairs(self.output_ratio) do
          if not (r > 0 and r < 1) then
            error(("output_ratio must be between 0 and 1 (got %s)"):format(tuple(a[2])), 3)
          end
        end
      end
    end
    function cls:forward(x)
      local samples = self._random_samples -- a buffer registered as None reads as false
      return F["fractional_max_pool" .. n .. "d"](x, self.kernel_size, self.output_size, self.output_ratio,
        self.return_indices, samples or nil)
    end
    nn["FractionalMaxPool" .. n .. "d"] = cls
  end
  for n = 2, 3 do fractional_class(n) end

  local function unpool_class(n)
    local cls = Module:subclass("nn.MaxUnpool" .. n .. "d")
    function cls:__init(kernel_size, ...)
      Module.__init(self)
      local a = named(3, "__init__", { "stride", "padding" }, ...)
      self.kernel_size = ntuple(kernel_size, n)
      self.stride = ntuple(a[1] or kernel_size, n)
      self.padding = ntuple(a[2] or 0, n)
    end
    function cls:forward(input, indices, output_size)
      return F["max_unpool" .. n .. "d"](input, indices, self.kernel_size, self.stride, self.padding, output_size)
    end
    function cls:extra_repr()
      return ("kernel_size=%s, stride=%s, padding=%s"):format(tuple(self.kernel_size), tuple(self.stride),
        tuple(self.padding))
    end
    nn["MaxUnpool" .. n .. "d"] = cls
  end
  for n = 1, 3 do unpool_class(n) end
end
