-- autograd.lua: the user-facing autograd API over torch._autograd (src/lua/lmt_autograd.c):
-- grad modes as context managers, backward and grad with options tables, tensor hooks,
-- saved-tensor hooks, anomaly mode and gradcheck. Installs itself into torch and torch.Tensor.
return function(torch)
  local C = torch._autograd
  local context = require("mindtorch._context")
  local Tensor = torch.Tensor
  local autograd = torch.autograd or {}
  torch.autograd = autograd

  -- ---- grad modes ---------------------------------------------------------------------------
  torch.is_grad_enabled = C.is_grad_enabled
  torch.is_inference_mode_enabled = C.is_inference_mode_enabled

  local function mode_context(set, get)
    return context.make(function(on)
      local prev = get()
      set(on)
      return prev
    end, function(prev) set(prev) end)
  end
  local grad_mode = mode_context(C.set_grad_enabled, C.is_grad_enabled)
  function torch.no_grad(...) return grad_mode(false, ...) end
  function torch.enable_grad(...) return grad_mode(true, ...) end
  -- set_grad_enabled(b) switches at once (as PyTorch's does) and is also a context manager
  -- that restores the mode it found
  function torch.set_grad_enabled(on, ...)
    if type(on) ~= "boolean" then error("set_grad_enabled(): argument 'mode' must be bool, not " .. type(on), 2) end
    return grad_mode(on, ...)
  end
  local inference = mode_context(function(on)
    C.set_inference_mode(on)
    C.set_grad_enabled(not on)
  end, C.is_inference_mode_enabled)
  function torch.inference_mode(on, ...)
    if type(on) == "function" then return inference(true, on) end
    if on == nil then on = true end
    return inference(on, ...)
  end

  -- detect_anomaly(): NaN checks on every gradient and the forward traceback in errors
  local anomaly = mode_context(C.set_anomaly_enabled, C.is_anomaly_enabled)
  function autograd.detect_anomaly(...) return anomaly(true, ...) end
  function autograd.set_detect_anomaly(on, ...) return anomaly(on, ...) end
  autograd.is_anomaly_enabled = C.is_anomaly_enabled

  local args = require "mindtorch._args"
  local backward_options = { retain_graph = "bool", create_graph = "bool", inputs = "any" }
  -- ---- backward and grad --------------------------------------------------------------------
  -- torch.autograd.backward(tensors, grad_tensors, {retain_graph=, create_graph=, inputs=})
  function autograd.backward(tensors, grad_tensors, opts)
    if type(grad_tensors) == "table" and not torch.is_tensor(grad_tensors) and opts == nil and
        (grad_tensors.retain_graph ~= nil or grad_tensors.create_graph ~= nil or grad_tensors.inputs ~= nil) then
      grad_tensors, opts = nil, grad_tensors
    end
    opts = args.options("backward", opts, backward_options)
    C.backward((tensors), (grad_tensors), opts.retain_graph, opts.create_graph, (opts.inputs))
  end

  -- y:backward(), y:backward(gradient), y:backward(gradient, opts), y:backward(opts)
  function Tensor.backward(self, gradient, opts)
    if type(gradient) == "table" and not torch.is_tensor(gradient) then gradient, opts = nil, gradient end
    opts = args.options("backward", opts, backward_options)
    C.backward(self, gradient, opts.retain_graph, opts.create_graph, (opts.inputs))
  end

  -- torch.autograd.grad(outputs, inputs, {grad_outputs=, retain_graph=, create_graph=,
  -- allow_unused=}): a sequence with one gradient (or nil) per input
  local grad_options = { grad_outputs = "any", retain_graph = "bool", create_graph = "bool", allow_unused = "bool" }
  function autograd.grad(outputs, inputs, opts)
    opts = args.options("grad", opts, grad_options)
    return C.grad((outputs), (inputs), (opts.grad_outputs), opts.retain_graph,
      opts.create_graph, opts.allow_unused)
  end

  -- ---- tensor methods ----------------------------------------------------------------------------
  Tensor.register_hook = C.register_hook
  Tensor.retain_grad = C.retain_grad
  Tensor._is_view = C._is_view
  Tensor.is_inference = C.is_inference

  -- ---- saved tensors hooks ----------------------------------------------------------------------
  autograd.graph = autograd.graph or {}
  local saved_hooks = context.make(function(pack, unpack)
    if type(pack) ~= "function" or type(unpack) ~= "function" then
      error("saved_tensors_hooks(pack_hook, unpack_hook) takes two functions", 3)
    end
    C.push_saved_hooks(pack, unpack)
  end, function() C.pop_saved_hooks() end, nil, nil, 2)
  autograd.graph.saved_tensors_hooks = saved_hooks

  -- one parameter's gradient cleared as PyTorch's zero_grad does: dropped with set_to_none,
  -- else zeroed in place (detached from any graph); Optimizer and Module zero_grad share it
  function autograd._zero_grad_of(p, set_to_none)
    local grad = p.grad
    if grad == nil then return end
    if set_to_none then
      p.grad = nil
      return
    end
    if grad.grad_fn ~= nil then
      grad = grad:detach()
      p.grad = grad
    elseif grad.requires_grad then
      grad:requires_grad_(false)
    end
    grad:zero_()
  end

  return autograd
end
