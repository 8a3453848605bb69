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
  -- ---- backward and grad --------------------------------------------------------------------
  -- Each takes PyTorch's arguments positionally in its order, or by name in a trailing options
  -- table (LUA_API.md, "Arguments"); the flags must be booleans.
  local function check_flags(fname, o, level)
    for _, k in ipairs { "retain_graph", "create_graph", "only_inputs", "allow_unused", "is_grads_batched" } do
      local v = o[k]
      if v ~= nil and type(v) ~= "boolean" then
        error(("%s(): argument '%s' must be bool, not %s"):format(fname, k, args.py_type(v)), level + 1)
      end
    end
  end

  -- torch.autograd.backward(tensors, grad_tensors, retain_graph, create_graph, grad_variables,
  -- inputs); grad_variables is PyTorch's old name of grad_tensors
  local backward_names = { "tensors", "grad_tensors", "retain_graph", "create_graph", "grad_variables", "inputs" }
  function autograd.backward(...)
    local o = args.parse("backward", backward_names, nil, ...)
    check_flags("backward", o, 2)
    if o.grad_variables ~= nil then
      if o.grad_tensors ~= nil then
        error("'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to backward(). "
          .. "Please only use 'grad_tensors'.", 2)
      end
      o.grad_tensors = o.grad_variables
    end
    C.backward((o.tensors), (o.grad_tensors), o.retain_graph, o.create_graph, (o.inputs))
  end

  -- y:backward(gradient, retain_graph, create_graph, inputs)
  local tensor_backward_names = { "gradient", "retain_graph", "create_graph", "inputs" }
  function Tensor.backward(self, ...)
    local o = args.parse("backward", tensor_backward_names, nil, ...)
    check_flags("backward", o, 2)
    C.backward(self, o.gradient, o.retain_graph, o.create_graph, (o.inputs))
  end

  -- torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
  -- allow_unused, is_grads_batched): a sequence with one gradient (or nil) per input
  local grad_names = { "outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "only_inputs",
    "allow_unused", "is_grads_batched" }
  function autograd.grad(...)
    local o = args.parse("grad", grad_names, nil, ...)
    check_flags("grad", o, 2)
    -- an empty table in inputs' place reads as an options table: either way, no inputs
    local inputs = o.inputs
    if inputs == nil and select("#", ...) < 2 then
      error("grad() missing 1 required positional argument: 'inputs'", 2)
    end
    if inputs == nil or (type(inputs) == "table" and not torch.is_tensor(inputs) and #inputs == 0) then
      error("grad requires non-empty inputs.", 2)
    end
    if o.only_inputs == false then -- PyTorch ignores it too, with this warning
      warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate gradient "
        .. "for other parts of the graph, please use torch.autograd.backward.")
    end
    if o.is_grads_batched then
      error("grad(): is_grads_batched = true (a vmap over grad_outputs) is not supported by mindtorch", 2)
    end
    return C.grad((o.outputs), (o.inputs), (o.grad_outputs), o.retain_graph, o.create_graph, o.allow_unused)
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
