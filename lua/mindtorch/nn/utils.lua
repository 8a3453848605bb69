-- utils.lua: torch.nn.utils: gradient clipping and parameter vectors.
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

  nn.utils = utils
end
