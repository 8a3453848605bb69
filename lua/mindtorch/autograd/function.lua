-- autograd/function.lua: torch.autograd.Function, custom differentiable functions written in Lua.
--
--   local Exp = torch.autograd.Function:subclass("Exp")
--   function Exp.forward(ctx, x) local y = x:exp(); ctx:save_for_backward(y); return y end
--   function Exp.backward(ctx, gy) local y = table.unpack(ctx.saved_tensors); return gy * y end
--   local y = Exp.apply(x)
--
-- forward runs without grad; the outputs get a node named "<Name>Backward" (the core's custom
-- node, src/autograd/custom.c) whose backward calls Exp.backward. The context keeps no
-- reference to the node (the node owns the backward closure, which owns the context), so a
-- graph is freed with its outputs.
return function(torch)
  local C = torch._autograd
  local autograd = torch.autograd

  local class = require "mindtorch._class"
  -- the ctx each forward and backward gets: saved_tensors reads what save_for_backward kept
  local Ctx = class.class("autograd.function.FunctionCtx")
  Ctx.__index = function(ctx, k)
    if k == "saved_tensors" then
      local node = rawget(ctx, "_node")
      if node then
        local saved = C.custom_saved(node)
        return { table.unpack(saved, 1, saved.n) }
      end
      local pending = rawget(ctx, "_to_save")
      if pending then return { table.unpack(pending, 1, pending.n) } end
      return {}
    end
    return getmetatable(ctx)[k]
  end

  function Ctx:save_for_backward(...)
    local n = select("#", ...)
    for i = 1, n do
      local t = select(i, ...)
      if t ~= nil and not torch.is_tensor(t) then
        error("save_for_backward can only save variables, but argument " .. (i - 1) .. " is of type " .. type(t), 2)
      end
    end
    rawset(self, "_to_save", table.pack(...))
  end
  function Ctx:mark_dirty(...) rawset(self, "_dirty", table.pack(...)) end
  function Ctx:mark_non_differentiable(...) rawset(self, "_non_diff", table.pack(...)) end
  function Ctx:set_materialize_grads(on) rawset(self, "_materialize", on) end

  local function member(list, t)
    if not list then return false end
    for i = 1, list.n do
      if rawequal(list[i], t) then return true end
    end
    return false
  end

  -- whether `shape` broadcasts to `to` (a gradient of shape `to` then sums to `shape`)
  local function expandable(shape, to)
    if #shape > #to then return false end
    for i = 1, #shape do
      local a, b = shape[#shape - i + 1], to[#to - i + 1]
      if a ~= b and a ~= 1 then return false end
    end
    return true
  end

  local Function = class.class("autograd.Function")

  local function apply(cls, ...)
    local args = table.pack(...)
    local needs, any = {}, false
    for i = 1, args.n do
      needs[i] = torch.is_tensor(args[i]) and args[i].requires_grad or false
      any = any or needs[i]
    end
    local ctx = class.alloc(Ctx)
    rawset(ctx, "needs_input_grad", needs)
    rawset(ctx, "_materialize", true)
    local outs = table.pack(torch.no_grad(function() return cls.forward(ctx, table.unpack(args, 1, args.n)) end))
    if not (any and torch.is_grad_enabled()) then return table.unpack(outs, 1, outs.n) end
    local dirty, non_diff, metas = {}, {}, {}
    for i = 1, outs.n do
      local o = outs[i]
      if torch.is_tensor(o) then
        dirty[i] = member(rawget(ctx, "_dirty"), o)
        non_diff[i] = member(rawget(ctx, "_non_diff"), o)
        -- an input returned as it is: its output is a new tensor sharing the data
        if not dirty[i] and member(args, o) then
          o = o:detach()
          outs[i] = o
        end
        metas[i] = { shape = o.shape, dtype = o.dtype, device = o.device }
      end
    end
    local name = cls.__name .. "Backward"
    -- what backward needs, without the tensors themselves (the closure must not hold the
    -- outputs: it is owned by their node)
    local nargs, nouts, tensor_arg, arg_meta = args.n, outs.n, {}, {}
    for i = 1, nargs do
      tensor_arg[i] = torch.is_tensor(args[i])
      if tensor_arg[i] then arg_meta[i] = { shape = args[i].shape, device = args[i].device } end
    end
    local function backward(node, ...)
      local grads = table.pack(...)
      if rawget(ctx, "_materialize") then -- undefined gradients arrive as zeros
        for i = 1, nouts do
          if grads[i] == nil and metas[i] then
            grads[i] = torch.zeros(metas[i].shape, { dtype = metas[i].dtype, device = metas[i].device })
          end
        end
      end
      rawset(ctx, "_node", node)
      local ok, res = pcall(function() return table.pack(cls.backward(ctx, table.unpack(grads, 1, nouts))) end)
      rawset(ctx, "_node", nil)
      if not ok then error(res, 0) end
      local extra = false
      for i = nargs + 1, res.n do extra = extra or res[i] ~= nil end
      if res.n < nargs or extra then
        error(("function %s returned an incorrect number of gradients (expected %d, got %d)"):format(name, nargs, res.n), 0)
      end
      for i = 1, nargs do
        if res[i] ~= nil and not tensor_arg[i] then
          error(("function %s returned a gradient different than None at position %d, but the corresponding forward "
            .. "input was not a Variable"):format(name, i), 0)
        end
        -- PyTorch's validate_outputs: a gradient lives where its input does (a meta gradient
        -- for a CPU input has no data to accumulate) and can broadcast to its shape
        local g, m = res[i], arg_meta[i]
        if g ~= nil and m then
          if not torch.is_tensor(g) then
            error(("function %s returned a gradient of type %s at position %d, expected a Tensor or nil")
              :format(name, type(g), i), 0)
          end
          if tostring(g.device) ~= tostring(m.device) then
            error(("Function %s returned an invalid gradient at index %d - expected device %s but got %s")
              :format(name, i, tostring(m.device), tostring(g.device)), 0)
          end
          if not expandable(m.shape, g.shape) then
            error(("Function %s returned an invalid gradient at index %d - got [%s] but expected shape compatible with [%s]")
              :format(name, i, table.concat(g.shape, ", "), table.concat(m.shape, ", ")), 0)
          end
        end
      end
      return res
    end
    local save = rawget(ctx, "_to_save") or { n = 0 }
    C.custom_node(name, backward, args, args.n, outs, outs.n, non_diff, dirty, save, save.n)
    rawset(ctx, "_to_save", nil)
    rawset(ctx, "_dirty", nil)
    rawset(ctx, "_non_diff", nil)
    return table.unpack(outs, 1, outs.n)
  end

  -- local MyFn = torch.autograd.Function:subclass("MyFn"): a class whose MyFn.apply(...) runs
  -- it (every subclass gets its own apply, as PyTorch's Function.apply is a classmethod)
  function Function.__init_subclass(cls)
    cls.apply = function(...) return apply(cls, ...) end
  end

  function Function.forward() error("You must implement the forward function for custom autograd.Function.", 2) end
  function Function.backward() error("You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.", 2) end

  autograd.Function = Function
end
