-- utils.lua: torch.nn.utils: gradient clipping, parameter vectors, conv/linear + batch norm fusion,
-- skip_init. (rnn, weight_norm, spectral_norm, parametrize: nn/utils/rnn.lua, weight_norms.lua, parametrize.lua)
return function(torch, nn)
  local utils = {}

  local function grads_of(parameters)
    if torch.is_tensor(parameters) then parameters = { parameters } end
    local gs = {}
    for _, p in ipairs(parameters) do
      if p.grad ~= nil then gs[#gs + 1] = p.grad end
    end
    return gs
  end

  -- clip_grad_norm_(parameters, max_norm, {norm_type = 2, error_if_nonfinite = false}):
  -- scales the gradients in place so their total norm is at most max_norm; returns the norm
  function utils.clip_grad_norm_(parameters, max_norm, opts)
    opts = require("mindtorch._args").options("clip_grad_norm_", opts,
      { norm_type = "any", error_if_nonfinite = "any" })
    local norm_type = opts.norm_type or 2
    local gs = grads_of(parameters)
    if #gs == 0 then return torch.tensor(0.0) end
    local total
    torch.no_grad(function()
      if norm_type == math.huge then
        local m = {}
        for i, g in ipairs(gs) do m[i] = g:abs():max() end
        total = torch.stack(m):max()
      else
        local n = {}
        for i, g in ipairs(gs) do n[i] = torch.norm(g, norm_type) end
        total = torch.norm(torch.stack(n), norm_type)
      end
      if opts.error_if_nonfinite and (total:isnan():item() or total:isinf():item()) then
        error(("The total norm of order %s for gradients from `parameters` is non-finite, so it cannot be clipped. "
          .. "To disable this error and scale the gradients by the non-finite norm anyway, set "
          .. "`error_if_nonfinite=False`"):format(tostring(norm_type + 0.0)), 3)
      end
      local coef = (max_norm / (total + 1e-6)):clamp(nil, 1.0)
      for _, g in ipairs(gs) do g:mul_(coef:to(g.dtype)) end
    end)
    return total
  end

  function utils.clip_grad_value_(parameters, clip_value)
    torch.no_grad(function()
      for _, g in ipairs(grads_of(parameters)) do g:clamp_(-clip_value, clip_value) end
    end)
  end

  function utils.parameters_to_vector(parameters)
    local parts = {}
    for i, p in ipairs(parameters) do parts[i] = p:reshape(-1) end
    return torch.cat(parts)
  end

  function utils.vector_to_parameters(vec, parameters)
    local at = 1
    torch.no_grad(function()
      for _, p in ipairs(parameters) do
        local n = p:numel()
        p:copy_(vec:narrow(1, at, n):view(p.shape))
        at = at + n
      end
    end)
  end

  -- clip_grad_norm: the deprecated spelling of clip_grad_norm_ (PyTorch also warns)
  function utils.clip_grad_norm(...) return utils.clip_grad_norm_(...) end

  -- ---- fusion (torch.nn.utils.fusion) ------------------------------------------------------------------
  local args = require "mindtorch._args"
  local fusion = {}

  -- fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose = false):
  -- the weight and bias of one convolution doing conv then batch norm (eval mode)
  function fusion.fuse_conv_bn_weights(...)
    local o = args.parse("fuse_conv_bn_weights", { "conv_w", "conv_b", "bn_rm", "bn_rv", "bn_eps", "bn_w", "bn_b",
      "transpose" }, { transpose = false }, ...)
    local conv_w, conv_b, bn_w, bn_b = o.conv_w, o.conv_b, o.bn_w, o.bn_b
    if not conv_b then conv_b = torch.zeros_like(o.bn_rm) end
    if not bn_w then bn_w = torch.ones_like(o.bn_rm) end
    if not bn_b then bn_b = torch.zeros_like(o.bn_rm) end
    local rsqrt = torch.rsqrt(o.bn_rv + o.bn_eps)
    local shape = o.transpose and { 1, -1 } or { -1, 1 }
    for _ = 3, conv_w:dim() do shape[#shape + 1] = 1 end
    conv_w = conv_w * (bn_w * rsqrt):reshape(shape)
    conv_b = (conv_b - o.bn_rm) * rsqrt * bn_w + bn_b
    return nn.Parameter(conv_w), nn.Parameter(conv_b)
  end

  local class = require "mindtorch._class"
  local function fuse_eval(fname, m, bn, weights, ...)
    for _, v in ipairs({ m, bn }) do
      if not class.isinstance(v, nn.Module) then
        error(("'%s' object has no attribute 'training'"):format(args.py_type(v)), 3)
      end
    end
    if m.training or bn.training then error("Fusion only for eval!", 3) end
    local fused = nn._deepcopy(m)
    local b = fused.bias
    fused.weight, fused.bias = weights(fused.weight, b or nil, bn.running_mean, bn.running_var, bn.eps,
      bn.weight or nil, bn.bias or nil, ...)
    return fused
  end

  -- fuse_conv_bn_eval(conv, bn, transpose = false): a copy of conv that also does bn (both in eval mode)
  function fusion.fuse_conv_bn_eval(conv, bn, transpose)
    return fuse_eval("fuse_conv_bn_eval", conv, bn, fusion.fuse_conv_bn_weights, transpose or false)
  end

  -- fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b)
  function fusion.fuse_linear_bn_weights(...)
    local o = args.parse("fuse_linear_bn_weights", { "linear_w", "linear_b", "bn_rm", "bn_rv", "bn_eps", "bn_w",
      "bn_b" }, nil, ...)
    local linear_b = o.linear_b or torch.zeros_like(o.bn_rm)
    local scale = o.bn_w * torch.rsqrt(o.bn_rv + o.bn_eps)
    return nn.Parameter(o.linear_w * scale:unsqueeze(-1)), nn.Parameter((linear_b - o.bn_rm) * scale + o.bn_b)
  end

  function fusion.fuse_linear_bn_eval(linear, bn)
    return fuse_eval("fuse_linear_bn_eval", linear, bn, fusion.fuse_linear_bn_weights)
  end
  utils.fusion = fusion
  utils.fuse_conv_bn_eval, utils.fuse_conv_bn_weights = fusion.fuse_conv_bn_eval, fusion.fuse_conv_bn_weights

  -- skip_init(module_cls, ...): the module built on the meta device, then given uninitialized
  -- storage on `device` (default "cpu"), so no initialization runs on real memory
  function utils.skip_init(module_cls, ...)
    local c = class.is_class(module_cls) and module_cls or nil
    while c ~= nil and not rawequal(c, nn.Module) do c = class.parent(c) end
    if c == nil then error(("Expected a Module; got %s"):format(tostring(module_cls)), 2) end
    local a = table.pack(...)
    local opts = {}
    if a.n > 0 and args.is_options(a[a.n]) then
      for k, v in pairs(a[a.n]) do opts[k] = v end
      a.n = a.n - 1
    end
    local device = opts.device or "cpu"
    opts.device = "meta"
    a[a.n + 1] = opts
    local ok, m = pcall(module_cls, table.unpack(a, 1, a.n + 1))
    if not ok then
      if tostring(m):find("unexpected keyword argument 'device'", 1, true) then
        error("Module must support a 'device' arg to skip initialization", 2)
      end
      error(m, 0)
    end
    return m:_apply(function(t) return torch.empty_like(t, { device = device }) end)
  end

  -- convert_conv2d_weight_memory_format(module, memory_format): the weights of every Conv2d and
  -- ConvTranspose2d laid out in `memory_format` (torch.channels_last, torch.contiguous_format), in
  -- place: the parameters stay the same objects
  function utils.convert_conv2d_weight_memory_format(module, memory_format)
    local name = class.typename(module)
    if name == "nn.Conv2d" or name == "nn.ConvTranspose2d" then
      local w = module.weight
      -- always restrided, as PyTorch's (a weight with one input channel is both layouts at once)
      torch.no_grad(function() w:set_(w:detach():clone({ memory_format = memory_format })) end)
    end
    for _, child in ipairs(module:children()) do utils.convert_conv2d_weight_memory_format(child, memory_format) end
    return module
  end

  -- ---- stateless.functional_call ----------------------------------------------------------------------
  -- functional_call(module, parameters_and_buffers, args, kwargs): module(args...) with the named
  -- tensors ("fc.weight") standing in for the module's own during the call only
  local stateless = {}
  function stateless.functional_call(module, parameters_and_buffers, call_args, kwargs)
    local swaps = {}
    local function restore()
      for i = #swaps, 1, -1 do
        local s = swaps[i]
        if s.kind then rawget(s.m, s.kind).items[s.name] = s.old else rawset(s.m, s.name, s.old) end
      end
    end
    local names = {}
    for name in pairs(parameters_and_buffers) do names[#names + 1] = name end
    table.sort(names)
    local ok, err = pcall(function()
      for _, name in ipairs(names) do
        local m, path = module, {}
        for part in name:gmatch("[^%.]+") do path[#path + 1] = part end
        for i = 1, #path - 1 do
          local sub = m[path[i]]
          if type(sub) ~= "table" then
            error(("'%s' object has no attribute '%s'"):format(getmetatable(m).__name, path[i]), 0)
          end
          m = sub
        end
        local leaf, kind = path[#path], nil
        if rawget(m, "_parameters").present[leaf] then kind = "_parameters"
        elseif rawget(m, "_buffers").present[leaf] then kind = "_buffers" end
        local t = parameters_and_buffers[name]
        if kind then
          swaps[#swaps + 1] = { m = m, kind = kind, name = leaf, old = rawget(m, kind).items[leaf] }
          rawget(m, kind).items[leaf] = t
        else
          swaps[#swaps + 1] = { m = m, name = leaf, old = rawget(m, leaf) }
          rawset(m, leaf, t)
        end
      end
    end)
    if not ok then
      restore()
      error(err, 2)
    end
    local a
    if type(call_args) == "table" and not torch.is_tensor(call_args) then
      a = { n = call_args.n or #call_args, table.unpack(call_args, 1, call_args.n or #call_args) }
    else
      a = { n = 1, call_args }
    end
    if kwargs ~= nil then
      a.n = a.n + 1
      a[a.n] = kwargs
    end
    local r = table.pack(pcall(function() return module(table.unpack(a, 1, a.n)) end))
    restore()
    if not r[1] then error(r[2], 0) end
    return table.unpack(r, 2, r.n)
  end
  utils.stateless = stateless

  -- PyTorch's submodules of torch.nn.utils, by the same names
  utils.clip_grad = { clip_grad_norm_ = utils.clip_grad_norm_, clip_grad_norm = utils.clip_grad_norm,
    clip_grad_value_ = utils.clip_grad_value_ }
  utils.convert_parameters = { parameters_to_vector = utils.parameters_to_vector,
    vector_to_parameters = utils.vector_to_parameters }
  utils.memory_format = { convert_conv2d_weight_memory_format = utils.convert_conv2d_weight_memory_format }
  utils.init = { skip_init = utils.skip_init }

  nn.utils = utils
end
