-- autograd/gradcheck.lua: torch.autograd.gradcheck and gradgradcheck. The analytical Jacobian (one
-- backward pass per output element) is compared with central finite differences, PyTorch's
-- way: |analytical - numerical| <= atol + rtol * |numerical| everywhere.
return function(torch)
  local autograd = torch.autograd

  local function pack_outputs(...)
    local r = table.pack(...)
    if r.n == 1 and type(r[1]) == "table" and not torch.is_tensor(r[1]) then
      local t = r[1]
      r = { n = t.n or #t }
      for i = 1, r.n do r[i] = t[i] end
    end
    local outs = {}
    for i = 1, r.n do
      local o = r[i]
      if torch.is_tensor(o) and o:is_floating_point() then outs[#outs + 1] = o end
    end
    return outs
  end

  local function as_inputs(inputs)
    if torch.is_tensor(inputs) then return { inputs, n = 1 } end
    return { n = inputs.n or #inputs, table.unpack(inputs, 1, inputs.n or #inputs) }
  end

  -- e_j: zeros shaped like x with `value` at flat position j (1-based)
  local function basis(x, j, value)
    local e = torch.zeros(x:numel(), { dtype = x.dtype })
    e[j] = value
    return e:view(x.shape)
  end

  local function eval(fn, inputs)
    return pack_outputs(fn(table.unpack(inputs, 1, inputs.n)))
  end

  -- numerical[i][k]: the Jacobian of output k w.r.t. input i, as [numel(out k), numel(in i)]
  local function numerical_jacobian(fn, inputs, diff, outs, eps)
    local jac = {}
    do -- perturbed inputs still require grad: fn may differentiate inside (gradgradcheck)
      for _, i in ipairs(diff) do
        local x = inputs[i]
        local cols = {}
        for k = 1, #outs do cols[k] = {} end
        for j = 1, x:numel() do
          local args = { n = inputs.n, table.unpack(inputs, 1, inputs.n) }
          args[i] = (x:detach() + basis(x, j, eps)):requires_grad_()
          local plus = eval(fn, args)
          args[i] = (x:detach() - basis(x, j, eps)):requires_grad_()
          local minus = eval(fn, args)
          for k = 1, #outs do
            cols[k][j] = ((plus[k]:detach() - minus[k]:detach()) / (2 * eps)):reshape(-1):to(x.dtype)
          end
        end
        jac[i] = {}
        for k = 1, #outs do
          if x:numel() == 0 or outs[k]:numel() == 0 then
            jac[i][k] = torch.zeros(outs[k]:numel(), x:numel(), { dtype = x.dtype })
          else
            jac[i][k] = torch.stack(cols[k], 2)
          end
        end
      end
    end
    return jac
  end

  local function analytical_jacobian(inputs, diff, outs)
    local diff_inputs = {}
    for n, i in ipairs(diff) do diff_inputs[n] = inputs[i] end
    local jac = {}
    for _, i in ipairs(diff) do jac[i] = {} end
    for k, out in ipairs(outs) do
      local rows = {}
      for _, i in ipairs(diff) do rows[i] = {} end
      for m = 1, out:numel() do
        local grads = autograd.grad({ out }, diff_inputs,
          { grad_outputs = { basis(out, m, 1) }, retain_graph = true, allow_unused = true })
        for n, i in ipairs(diff) do
          local g = grads[n]
          rows[i][m] = g and g:reshape(-1):to(inputs[i].dtype) or torch.zeros(inputs[i]:numel(), { dtype = inputs[i].dtype })
        end
      end
      for _, i in ipairs(diff) do
        if out:numel() == 0 or inputs[i]:numel() == 0 then
          jac[i][k] = torch.zeros(out:numel(), inputs[i]:numel(), { dtype = inputs[i].dtype })
        else
          jac[i][k] = torch.stack(rows[i], 1)
        end
      end
    end
    return jac
  end

  -- gradcheck(fn, inputs, {eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=true})
  local gradcheck_options = { eps = "float", atol = "float", rtol = "float", raise_exception = "bool" }
  function autograd.gradcheck(fn, inputs, opts)
    opts = require("mindtorch._args").options("gradcheck", opts, gradcheck_options)
    local eps, atol, rtol = opts.eps or 1e-6, opts.atol or 1e-5, opts.rtol or 1e-3
    local raise = opts.raise_exception ~= false
    inputs = as_inputs(inputs)
    local diff = {}
    for i = 1, inputs.n do
      local x = inputs[i]
      if torch.is_tensor(x) and x.requires_grad then diff[#diff + 1] = i end
    end
    if #diff == 0 then
      error("gradcheck expects at least one input tensor to require gradient, but none of the them have "
        .. "requires_grad=True.", 2)
    end
    local outs = eval(fn, inputs)
    local numerical = numerical_jacobian(fn, inputs, diff, outs, eps)
    local analytical = analytical_jacobian(inputs, diff, outs)
    for _, i in ipairs(diff) do
      for k = 1, #outs do
        local a, n = analytical[i][k], numerical[i][k]
        if not torch.allclose(a, n, rtol, atol) then
          if not raise then return false end
          error(string.format("Jacobian mismatch for output %d with respect to input %d,\nnumerical:%s\nanalytical:%s\n",
            k, i, tostring(n), tostring(a)), 2)
        end
      end
    end
    return true
  end

  -- gradgradcheck(fn, inputs, grad_outputs, opts): gradcheck of the function that computes fn's
  -- gradients (with create_graph), with respect to the inputs and the output gradients
  function autograd.gradgradcheck(fn, inputs, grad_outputs, opts)
    if opts == nil and type(grad_outputs) == "table" and not torch.is_tensor(grad_outputs) and grad_outputs[1] == nil then
      grad_outputs, opts = nil, grad_outputs
    end
    inputs = as_inputs(inputs)
    local outs = eval(fn, inputs)
    if grad_outputs == nil then
      grad_outputs = {}
      local gen = torch.Generator():manual_seed(0)
      for k, o in ipairs(outs) do
        grad_outputs[k] = torch.randn(o.shape, { generator = gen, dtype = o.dtype }):requires_grad_()
      end
    else
      grad_outputs = as_inputs(grad_outputs)
    end
    local nin, nout = inputs.n, #outs
    local diff = {}
    for i = 1, nin do
      if torch.is_tensor(inputs[i]) and inputs[i].requires_grad then diff[#diff + 1] = i end
    end
    local function grad_fn(...)
      local args = table.pack(...)
      local these = { n = nin, table.unpack(args, 1, nin) }
      local ys = eval(fn, these)
      local gos, xs = {}, {}
      for k = 1, nout do gos[k] = args[nin + k] end
      for n, i in ipairs(diff) do xs[n] = args[i] end
      local gs = autograd.grad(ys, xs, { grad_outputs = gos, create_graph = true, allow_unused = true })
      local res = {}
      for n = 1, #diff do
        if gs[n] then res[#res + 1] = gs[n] end
      end
      return res
    end
    local all = { n = nin + nout }
    for i = 1, nin do all[i] = inputs[i] end
    for k = 1, nout do all[nin + k] = grad_outputs[k] end
    return autograd.gradcheck(grad_fn, all, opts)
  end
end
