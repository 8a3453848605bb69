-- weight_norms.lua: torch.nn.utils.weight_norm / spectral_norm and their removers, PyTorch 1.13's
-- hook-based reparametrizations: the weight is replaced by parameters (weight_g and weight_v, or
-- weight_orig with the buffers weight_u and weight_v) and recomputed by a forward pre-hook.
-- Dims are 1-based (PyTorch's + 1); weight_norm's dim = -1 (or false, PyTorch's None) takes the
-- norm over the whole tensor, as ATen's norm_except_dim.
return function(torch, nn)
  local args = require "mindtorch._args"
  local U = nn.utils

  -- remove name from one of a module's registries ("_parameters", "_buffers", "_modules"), as
  -- PyTorch's `del module._parameters[name]`
  local function remove_member(module, kind, name)
    local r = rawget(module, kind)
    if not r.present[name] then error(("'%s'"):format(name), 3) end -- Python's KeyError
    r.present[name], r.items[name] = nil, nil
    for i, n in ipairs(r.order) do
      if n == name then table.remove(r.order, i) break end
    end
    if kind == "_buffers" then module._non_persistent[name] = nil end
  end
  nn._remove_member = remove_member

  local function no_attribute(module, name)
    error(("'%s' object has no attribute '%s'"):format(getmetatable(module).__name, name), 3)
  end

  -- the hooks these functions registered: hook function -> {kind =, name =, ...}
  local hooks = setmetatable({}, { __mode = "k" })
  local function find_hook(module, kind, name)
    local list = type(module) == "table" and rawget(module, "_forward_pre_hooks")
    if not list then -- Python's AttributeError for what is not a module
      error(("'%s' object has no attribute '_forward_pre_hooks'"):format(args.py_type(module)), 3)
    end
    for i, h in ipairs(list) do
      local info = hooks[h.fn]
      if info and info.kind == kind and info.name == name then return i, info end
    end
  end

  -- ---- weight_norm ------------------------------------------------------------------------------
  local function wn_weight(module, info)
    local g, v = module[info.name .. "_g"], module[info.name .. "_v"]
    return v * (g / torch.norm_except_dim(v, 2, info.dim))
  end

  -- weight_norm(module, name = "weight", dim = 1): weight = g * v / |v| (the norm over every dim but dim)
  function U.weight_norm(...)
    local o = args.parse("weight_norm", { "module", "name", "dim" }, { name = "weight" }, ...)
    local module, name, dim = o.module, o.name, o.dim
    if dim == nil then dim = 1 elseif dim == false then dim = -1 end
    if find_hook(module, "WeightNorm", name) then
      error("Cannot register two weight_norm hooks on the same parameter " .. name, 2)
    end
    local weight = module[name]
    if not torch.is_tensor(weight) then no_attribute(module, name) end
    remove_member(module, "_parameters", name)
    module:register_parameter(name .. "_g", nn.Parameter(torch.norm_except_dim(weight, 2, dim):detach()))
    module:register_parameter(name .. "_v", nn.Parameter(weight:detach()))
    local info = { kind = "WeightNorm", name = name, dim = dim }
    rawset(module, name, wn_weight(module, info))
    local fn = function(m) rawset(m, name, wn_weight(m, info)) end
    hooks[fn] = info
    module:register_forward_pre_hook(fn)
    return module
  end

  function U.remove_weight_norm(...)
    local o = args.parse("remove_weight_norm", { "module", "name" }, { name = "weight" }, ...)
    local module, name = o.module, o.name
    local i, info = find_hook(module, "WeightNorm", name)
    if not i then error(("weight_norm of '%s' not found in %s"):format(name, tostring(module)), 2) end
    local weight = wn_weight(module, info)
    rawset(module, name, nil)
    remove_member(module, "_parameters", name .. "_g")
    remove_member(module, "_parameters", name .. "_v")
    module[name] = nn.Parameter(weight:detach())
    table.remove(rawget(module, "_forward_pre_hooks"), i)
    return module
  end

  -- ---- spectral_norm ----------------------------------------------------------------------------
  -- F.normalize(x, dim = 1) of a vector: x / max(|x|, eps)
  local function normalize(x, eps) return x / x:norm(2, 1, true):clamp_min(eps):expand_as(x) end
  nn._normalize_vector = normalize

  -- the weight as a matrix: dim first, the other dims flattened
  local function to_matrix(weight, dim)
    local w = weight
    if dim ~= 1 then
      local perm = { dim }
      for d = 1, w:dim() do
        if d ~= dim then perm[#perm + 1] = d end
      end
      w = w:permute(perm)
    end
    return w:reshape(w:size(1), -1)
  end

  local function sn_weight(module, info, power_iteration)
    local weight = module[info.name .. "_orig"]
    local u, v = module[info.name .. "_u"], module[info.name .. "_v"]
    local mat = to_matrix(weight, info.dim)
    if power_iteration then
      torch.no_grad(function()
        for _ = 1, info.n_power_iterations do
          v:copy_(normalize(torch.mv(mat:t(), u), info.eps))
          u:copy_(normalize(torch.mv(mat, v), info.eps))
        end
      end)
      u, v = u:clone(), v:clone()
    end
    return weight / torch.dot(u, torch.mv(mat, v))
  end

  local conv_transpose = { ConvTranspose1d = true, ConvTranspose2d = true, ConvTranspose3d = true }

  -- spectral_norm(module, name = "weight", n_power_iterations = 1, eps = 1e-12, dim = nil):
  -- weight / sigma(weight), sigma estimated by power iteration (training mode only) with the
  -- buffers weight_u and weight_v; dim defaults to 1 (2 for ConvTranspose)
  function U.spectral_norm(...)
    local o = args.parse("spectral_norm", { "module", "name", "n_power_iterations", "eps", "dim" },
      { name = "weight", n_power_iterations = 1, eps = 1e-12 }, ...)
    local module, name = o.module, o.name
    local dim = o.dim
    if dim == nil then dim = conv_transpose[getmetatable(module).__name] and 2 or 1 end
    if o.n_power_iterations <= 0 then
      error(("Expected n_power_iterations to be positive, but got n_power_iterations=%d"):format(
        o.n_power_iterations), 2)
    end
    if find_hook(module, "SpectralNorm", name) then
      error("Cannot register two spectral_norm hooks on the same parameter " .. name, 2)
    end
    local params = rawget(module, "_parameters")
    if not params.present[name] then error(("'%s'"):format(name), 2) end
    local weight = params.items[name]
    if not weight then error(("`SpectralNorm` cannot be applied as parameter `%s` is None"):format(name), 2) end
    if dim < 0 then dim = dim + weight:dim() + 1 end
    local info = { kind = "SpectralNorm", name = name, dim = dim, eps = o.eps,
      n_power_iterations = o.n_power_iterations }
    local u, v = torch.no_grad(function()
      local mat = to_matrix(weight, dim)
      local h, w = mat:size(1), mat:size(2)
      return normalize(weight:new_empty(h):normal_(0, 1), o.eps), normalize(weight:new_empty(w):normal_(0, 1), o.eps)
    end)
    remove_member(module, "_parameters", name)
    module:register_parameter(name .. "_orig", weight)
    rawset(module, name, weight:detach())
    module:register_buffer(name .. "_u", u)
    module:register_buffer(name .. "_v", v)
    local fn = function(m) rawset(m, name, sn_weight(m, info, m.training)) end
    hooks[fn] = info
    module:register_forward_pre_hook(fn)
    return module
  end

  function U.remove_spectral_norm(...)
    local o = args.parse("remove_spectral_norm", { "module", "name" }, { name = "weight" }, ...)
    local module, name = o.module, o.name
    local i, info = find_hook(module, "SpectralNorm", name)
    if not i then error(("spectral_norm of '%s' not found in %s"):format(name, tostring(module)), 2) end
    local weight = torch.no_grad(function() return sn_weight(module, info, false) end)
    rawset(module, name, nil)
    remove_member(module, "_buffers", name .. "_u")
    remove_member(module, "_buffers", name .. "_v")
    remove_member(module, "_parameters", name .. "_orig")
    module:register_parameter(name, nn.Parameter(weight:detach()))
    table.remove(rawget(module, "_forward_pre_hooks"), i)
    return module
  end
end
