-- autograd/functional.lua: torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp, built on
-- autograd.grad. A single tensor in gives single tensors back; a table in gives tables back
-- (as PyTorch's tuples). Options: {create_graph = false, strict = false}.
return function(torch)
  local autograd = torch.autograd
  local F = {}

  local function as_tuple(x)
    if torch.is_tensor(x) then return { x }, false end
    return { table.unpack(x, 1, x.n or #x) }, true
  end

  -- inputs that require grad, in graph mode (differentiable copies the function sees)
  local function prepare(inputs, create_graph)
    local out = {}
    for i, x in ipairs(inputs) do
      out[i] = create_graph and x.requires_grad and x or x:detach():requires_grad_()
    end
    return out
  end

  local function call(fn, inputs)
    local r = table.pack(fn(table.unpack(inputs)))
    if r.n == 1 and torch.is_tensor(r[1]) then return { r[1] }, false end
    if r.n == 1 and type(r[1]) == "table" then return as_tuple(r[1]) end
    return { table.unpack(r, 1, r.n) }, true
  end

  -- gradients of outputs (with grad_outputs v) w.r.t. inputs; zeros where unused unless strict
  local function grads(outputs, inputs, v, create_graph, strict)
    local used_out, used_v = {}, {}
    for i, o in ipairs(outputs) do
      if o.requires_grad then
        used_out[#used_out + 1] = o
        used_v[#used_v + 1] = v[i]
      end
    end
    local g = {}
    if #used_out > 0 then
      g = autograd.grad(used_out, inputs, { grad_outputs = used_v, create_graph = create_graph,
        retain_graph = true, allow_unused = true })
    end
    local res = {}
    for i, x in ipairs(inputs) do
      if g[i] == nil then
        if strict then
          error(("The output of the user-provided function is independent of input %d. This is not allowed in "
            .. "strict mode."):format(i - 1), 3)
        end
        res[i] = torch.zeros_like(x)
      else
        res[i] = g[i]
      end
    end
    return res
  end

  local function unwrap(t, is_tuple) return is_tuple and t or t[1] end

  local function detach_all(list, create_graph)
    if create_graph then return list end
    local out = {}
    for i, t in ipairs(list) do out[i] = t:detach() end
    return out
  end

  -- the options every function here takes (PyTorch's create_graph and strict)
  local options = require("mindtorch._args").options
  local functional_options = { create_graph = "bool", strict = "bool" }

  -- vjp(fn, inputs, v, opts) -> outputs, v^T J
  function F.vjp(fn, inputs, v, opts)
    opts = options("vjp", opts, functional_options)
    local xs, xt = as_tuple(inputs)
    xs = prepare(xs, opts.create_graph)
    local outs, ot = call(fn, xs)
    local vs = v and as_tuple(v) or {}
    if v == nil then
      for i, o in ipairs(outs) do
        if o:numel() ~= 1 then
          error("The vector v can only be None if the user-provided function returns a single Tensor with a single element.", 2)
        end
        vs[i] = torch.ones_like(o)
      end
    end
    local g = grads(outs, xs, vs, opts.create_graph, opts.strict)
    return unwrap(detach_all(outs, opts.create_graph), ot), unwrap(detach_all(g, opts.create_graph), xt)
  end

  -- jvp(fn, inputs, v, opts) -> outputs, J v (the double-vjp trick: J v = d/du (u^T J) v)
  function F.jvp(fn, inputs, v, opts)
    opts = options("jvp", opts, functional_options)
    local xs, xt = as_tuple(inputs)
    xs = prepare(xs, true)
    local vs = v and as_tuple(v) or {}
    if v == nil then
      for i, x in ipairs(xs) do
        if x:numel() ~= 1 then
          error("The vector v can only be None if the input to the user-provided function is a single Tensor with a single element.", 2)
        end
        vs[i] = torch.ones_like(x)
      end
    end
    local outs, ot = call(fn, xs)
    local us = {}
    for i, o in ipairs(outs) do us[i] = torch.zeros_like(o):requires_grad_() end
    local g = grads(outs, xs, us, true, opts.strict)
    local diff, dv = {}, {}
    for i, gi in ipairs(g) do
      if gi.requires_grad then
        diff[#diff + 1] = gi
        dv[#dv + 1] = vs[i]
      end
    end
    local jv = {}
    local r = #diff > 0 and autograd.grad(diff, us, { grad_outputs = dv, create_graph = opts.create_graph,
      allow_unused = true }) or {}
    for i, o in ipairs(outs) do jv[i] = r[i] or torch.zeros_like(o) end
    return unwrap(detach_all(outs, opts.create_graph), ot), unwrap(detach_all(jv, opts.create_graph), ot)
  end

  -- jacobian(fn, inputs, opts): J[i][j] of output i w.r.t. input j, shaped out.shape ++ in.shape
  function F.jacobian(fn, inputs, opts)
    opts = options("jacobian", opts, functional_options)
    local xs, xt = as_tuple(inputs)
    xs = prepare(xs, opts.create_graph)
    local outs, ot = call(fn, xs)
    local J = {}
    for i, o in ipairs(outs) do
      local rows = {}
      for j = 1, #xs do rows[j] = {} end
      local n = o:numel()
      for k = 1, n do
        local e = torch.zeros(n, { dtype = o.dtype, device = o.device })
        e[k] = 1
        local g = grads({ o }, xs, { e:view(o.shape) }, opts.create_graph, opts.strict)
        for j = 1, #xs do rows[j][k] = g[j]:reshape(-1) end
      end
      J[i] = {}
      for j, x in ipairs(xs) do
        local shape = {}
        for _, s in ipairs(o.shape) do shape[#shape + 1] = s end
        for _, s in ipairs(x.shape) do shape[#shape + 1] = s end
        local m = n > 0 and torch.stack(rows[j], 1) or torch.zeros(0, x:numel(), { dtype = x.dtype })
        m = m:view(shape)
        J[i][j] = opts.create_graph and m or m:detach()
      end
      J[i] = unwrap(J[i], xt)
    end
    return unwrap(J, ot)
  end

  -- hessian(fn, inputs, opts): the jacobian of the gradient of a scalar function
  function F.hessian(fn, inputs, opts)
    opts = options("hessian", opts, functional_options)
    local xs, xt = as_tuple(inputs)
    local function gradient(...)
      local these = { ... }
      local outs = call(fn, these)
      local o = outs[1]
      if #outs ~= 1 or o:numel() ~= 1 then
        error("The function given to hessian should return a single Tensor containing a single element", 3)
      end
      return grads({ o }, these, { torch.ones_like(o) }, true, opts.strict)
    end
    local J = F.jacobian(gradient, xs, opts) -- a table (per gradient) of tables (per input)
    if not xt then return J[1][1] end
    return J
  end

  -- vhp / hvp(fn, inputs, v): v^T H and H v of a scalar function (equal: H is symmetric)
  function F.vhp(fn, inputs, v, opts)
    opts = options("vhp", opts, functional_options)
    local xs, xt = as_tuple(inputs)
    xs = prepare(xs, true)
    local outs = call(fn, xs)
    local g = grads({ outs[1] }, xs, { torch.ones_like(outs[1]) }, true, opts.strict)
    local vs = as_tuple(v)
    local diff, dv, at = {}, {}, {}
    for i, gi in ipairs(g) do
      if gi.requires_grad then
        diff[#diff + 1], dv[#dv + 1], at[#at + 1] = gi, vs[i], i
      end
    end
    local r = #diff > 0 and autograd.grad(diff, xs, { grad_outputs = dv, create_graph = opts.create_graph,
      allow_unused = true }) or {}
    local res = {}
    for i, x in ipairs(xs) do res[i] = r[i] or torch.zeros_like(x) end
    return opts.create_graph and outs[1] or outs[1]:detach(), unwrap(detach_all(res, opts.create_graph), xt)
  end
  F.hvp = F.vhp

  autograd.functional = F
end
