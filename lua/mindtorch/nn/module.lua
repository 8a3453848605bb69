-- module.lua: nn.Module, PyTorch's module in Lua. A module keeps its parameters, buffers and
-- submodules in ordered registries; assigning a Parameter or a Module to a field registers it
-- (PyTorch's __setattr__), reading a field finds it there first (PyTorch's __getattr__).
return function(torch, nn)
  local class = require "mindtorch._class"
  local ordered = require "mindtorch._ordered"
  local Module = class.class("nn.Module")
  local py_type, is_options = require("mindtorch._args").py_type, require("mindtorch._args").is_options

  -- ---- parameters --------------------------------------------------------------------------
  -- nn.Parameter(t, requires_grad = true): a leaf sharing t's data, marked as a parameter
  function nn.Parameter(data, requires_grad)
    data = data or torch.empty(0)
    local p = data:detach()
    if requires_grad == nil then requires_grad = true end
    p.requires_grad = requires_grad
    p._is_parameter = true
    return p
  end
  local function is_parameter(v) return torch.is_tensor(v) and v._is_parameter == true end
  local function is_module(v) return type(v) == "table" and getmetatable(v) and rawget(v, "_modules") ~= nil end
  nn.is_parameter = is_parameter

  -- an ordered registry: names in order, values by name (a removed entry keeps no slot)
  local function registry() return { order = {}, items = {}, present = {} } end
  local function reg_set(r, name, v)
    if not r.present[name] then
      r.present[name] = true
      r.order[#r.order + 1] = name
    end
    r.items[name] = v
  end
  local function reg_del(r, name)
    if not r.present[name] then return end
    r.present[name] = nil
    r.items[name] = nil
    for i, n in ipairs(r.order) do
      if n == name then table.remove(r.order, i) break end
    end
  end
  local function reg_has(r, name) return r.present[name] == true end

  -- ---- classes ---------------------------------------------------------------------------------
  local function class_lookup(obj, k)
    local cls = getmetatable(obj)
    return cls and cls[k]
  end

  local function instance_index(self, k)
    local p = rawget(self, "_parameters")
    if p then
      if reg_has(p, k) then return p.items[k] end
      local b = rawget(self, "_buffers")
      if reg_has(b, k) then return b.items[k] end
      local m = rawget(self, "_modules")
      if reg_has(m, k) then return m.items[k] end
    end
    return class_lookup(self, k)
  end

  local function instance_newindex(self, k, v)
    local params = rawget(self, "_parameters")
    if not params then
      if is_parameter(v) or is_module(v) then
        error("cannot assign parameters or modules before Module.__init() call", 2)
      end
      rawset(self, k, v)
      return
    end
    local buffers, modules = rawget(self, "_buffers"), rawget(self, "_modules")
    if is_parameter(v) then
      reg_del(buffers, k); reg_del(modules, k); rawset(self, k, nil)
      self:register_parameter(k, v)
    elseif reg_has(params, k) then
      if v ~= nil then
        error(("cannot assign '%s' as parameter '%s' (torch.nn.Parameter or None expected)"):format(
          torch.is_tensor(v) and "torch.FloatTensor" or type(v), k), 2)
      end
      params.items[k] = false -- None: the name stays registered
    elseif is_module(v) then
      reg_del(params, k); reg_del(buffers, k); rawset(self, k, nil)
      reg_set(modules, k, v)
    elseif reg_has(modules, k) then
      if v ~= nil then error(("cannot assign '%s' as child module '%s' (torch.nn.Module or None expected)"):format(type(v), k), 2) end
      modules.items[k] = false
    elseif reg_has(buffers, k) then
      if v ~= nil and not torch.is_tensor(v) then
        error(("cannot assign '%s' as buffer '%s' (torch.Tensor or None expected)"):format(type(v), k), 2)
      end
      buffers.items[k] = v or false
    else
      rawset(self, k, v)
    end
  end

  local function call(self, ...)
    local args = table.pack(...)
    for _, h in ipairs(rawget(self, "_forward_pre_hooks") or {}) do
      local r = h.fn(self, args)
      if r ~= nil then args = type(r) == "table" and not torch.is_tensor(r) and r or table.pack(r) end
    end
    -- built-in modules name the tensors their forward takes (nn/init.lua): anything else is
    -- refused here with PyTorch's words, before forward indexes it
    local inputs = rawget(getmetatable(self), "_tensor_inputs")
    for i = 1, inputs and #inputs or 0 do
      local v = args[i]
      if is_options(v) and rawget(getmetatable(self), "_forward_options") then break end -- the rest come by name
      if v == nil then error(("forward() missing 1 required positional argument: '%s'"):format(inputs[i]), 2) end
      if not torch.is_tensor(v) then
        error(("forward(): argument '%s' (position %d) must be Tensor, not %s"):format(inputs[i], i, py_type(v)), 2)
      end
    end
    local backward_hooks = rawget(self, "_backward_hooks")
    local hooked = backward_hooks and #backward_hooks > 0 and torch.is_grad_enabled() and nn._backward_hook_state(self)
    if hooked then args = hooked:wrap_inputs(args) end
    local out = table.pack(self:forward(table.unpack(args, 1, args.n)))
    if hooked then out = hooked:wrap_outputs(out) end
    for _, h in ipairs(rawget(self, "_forward_hooks") or {}) do
      local r = h.fn(self, args, out.n == 1 and out[1] or out)
      if r ~= nil then out = table.pack(r) end
    end
    return table.unpack(out, 1, out.n)
  end

  -- Module(...) and every subclass's: the instance, refused when its __init did not run
  -- Module.__init (the registries a module needs)
  function Module.new(cls, ...)
    local obj = class.alloc(cls)
    obj:__init(...)
    if rawget(obj, "_parameters") == nil then
      error(("%s.__init must call nn.Module.__init(self)"):format(cls.__name), 2)
    end
    return obj
  end

  function Module:__init()
    rawset(self, "_parameters", registry())
    rawset(self, "_buffers", registry())
    rawset(self, "_non_persistent", {})
    rawset(self, "_modules", registry())
    rawset(self, "_forward_hooks", {})
    rawset(self, "_forward_pre_hooks", {})
    rawset(self, "_backward_hooks", {})
    rawset(self, "_load_state_dict_post_hooks", {})
    rawset(self, "training", true)
  end

  function Module:forward()
    error(('Module [%s] is missing the required "forward" function'):format(getmetatable(self).__name), 2)
  end

  -- ---- registration --------------------------------------------------------------------------
  local function check_name(self, name, kind)
    if type(name) ~= "string" then error(kind .. " name should be a string. Got " .. type(name), 3) end
    if name:find(".", 1, true) then error(kind .. ' name can\'t contain "."', 3) end
    if name == "" then error(kind .. ' name can\'t be empty string ""', 3) end
  end

  function Module:register_parameter(name, param)
    check_name(self, name, "parameter")
    if rawget(self, name) ~= nil or (reg_has(self._modules, name)) or reg_has(self._buffers, name) then
      error(("attribute '%s' already exists"):format(name), 2)
    end
    if param ~= nil and not is_parameter(param) then
      error(("cannot assign '%s' object to parameter '%s' (torch.nn.Parameter or None required)"):format(
        torch.is_tensor(param) and "torch.FloatTensor" or type(param), name), 2)
    end
    reg_set(self._parameters, name, param or false)
  end

  function Module:register_buffer(name, tensor, persistent)
    check_name(self, name, "buffer")
    if reg_has(self._parameters, name) or reg_has(self._modules, name) or rawget(self, name) ~= nil then
      error(("attribute '%s' already exists"):format(name), 2)
    end
    if tensor ~= nil and not torch.is_tensor(tensor) then
      error(("cannot assign '%s' object to buffer '%s' (torch Tensor or None required)"):format(type(tensor), name), 2)
    end
    reg_set(self._buffers, name, tensor or false)
    self._non_persistent[name] = persistent == false or nil
  end

  function Module:register_module(name, module)
    check_name(self, name, "module")
    if module ~= nil and not is_module(module) then error(type(module) .. " is not a Module subclass", 2) end
    reg_set(self._modules, name, module or false)
  end
  Module.add_module = Module.register_module

  function Module:get_submodule(target)
    local m = self
    for part in target:gmatch("[^%.]+") do
      local next_m = reg_has(m._modules, part) and m._modules.items[part] or nil
      if not next_m then error(("%s has no attribute `%s`"):format(m:_get_name(), part), 2) end
      m = next_m
    end
    return m
  end

  -- ---- traversal (ordered iterators, as PyTorch's generators) -----------------------------------
  local function named_members(self, get, prefix, recurse)
    local out, seen = {}, {}
    local mods = recurse == false and { { prefix or "", self } } or self:_named_modules_list(prefix or "")
    for _, pm in ipairs(mods) do
      local mp, m = pm[1], pm[2]
      local r = get(m)
      for _, name in ipairs(r.order) do
        local v = r.items[name]
        if v and not seen[v] then
          seen[v] = true
          out[#out + 1] = { (mp ~= "" and mp .. "." or "") .. name, v }
        end
      end
    end
    return out
  end

  local function iter(list)
    local i = 0
    return function()
      i = i + 1
      local e = list[i]
      if e then return e[1], e[2] end
    end
  end

  function Module:_named_modules_list(prefix, memo, out)
    memo, out = memo or {}, out or {}
    if memo[self] then return out end
    memo[self] = true
    out[#out + 1] = { prefix, self }
    for _, name in ipairs(self._modules.order) do
      local m = self._modules.items[name]
      if m then m:_named_modules_list(prefix ~= "" and prefix .. "." .. name or name, memo, out) end
    end
    return out
  end

  function Module:named_parameters(prefix, recurse)
    if type(prefix) == "table" then prefix, recurse = prefix.prefix, prefix.recurse end
    return iter(named_members(self, function(m) return m._parameters end, prefix, recurse))
  end
  function Module:parameters(recurse)
    if type(recurse) == "table" then recurse = recurse.recurse end
    local out = {}
    for _, e in ipairs(named_members(self, function(m) return m._parameters end, "", recurse)) do out[#out + 1] = e[2] end
    return out
  end
  function Module:named_buffers(prefix, recurse)
    if type(prefix) == "table" then prefix, recurse = prefix.prefix, prefix.recurse end
    return iter(named_members(self, function(m) return m._buffers end, prefix, recurse))
  end
  function Module:buffers(recurse)
    local out = {}
    for _, e in ipairs(named_members(self, function(m) return m._buffers end, "", recurse)) do out[#out + 1] = e[2] end
    return out
  end
  function Module:named_children()
    local out, seen = {}, {}
    for _, name in ipairs(self._modules.order) do
      local m = self._modules.items[name]
      if m and not seen[m] then seen[m] = true; out[#out + 1] = { name, m } end
    end
    return iter(out)
  end
  function Module:children()
    local out = {}
    for _, m in self:named_children() do out[#out + 1] = m end
    return out
  end
  function Module:named_modules(prefix) return iter(self:_named_modules_list(prefix or "")) end
  function Module:modules()
    local out = {}
    for _, e in ipairs(self:_named_modules_list("")) do out[#out + 1] = e[2] end
    return out
  end

  -- ---- modes, gradients, conversions ------------------------------------------------------------
  function Module:train(mode)
    if mode == nil then mode = true end
    if type(mode) ~= "boolean" then error("training mode is expected to be boolean", 2) end
    for _, m in ipairs(self:modules()) do rawset(m, "training", mode) end
    return self
  end
  function Module:eval() return self:train(false) end

  function Module:requires_grad_(on)
    if on == nil then on = true end
    for _, p in ipairs(self:parameters()) do p:requires_grad_(on) end
    return self
  end

  -- zero_grad(set_to_none = false), or zero_grad{set_to_none = true}: as PyTorch 1.13, the
  -- gradients are zeroed in place (detached from any graph) unless set_to_none drops them
  function Module:zero_grad(...)
    local o = require("mindtorch._args").parse("zero_grad", { "set_to_none" }, { set_to_none = false }, ...)
    local zero_grad_of = torch.autograd._zero_grad_of
    for _, p in ipairs(self:parameters()) do zero_grad_of(p, o.set_to_none) end
  end

  -- The recursive walks below skip a child that is already among the modules above it, so a
  -- module that contains itself (m.a.b = m) ends the walk instead of recursing forever; a
  -- module shared by two parents (no cycle) is still visited under each, as in PyTorch.
  local function enter(path, m)
    if path[m] then return false end
    path[m] = true
    return true
  end

  local function apply(self, fn, path)
    if not enter(path, self) then return end
    for _, m in ipairs(self:children()) do apply(m, fn, path) end
    path[self] = nil
    fn(self)
  end
  function Module:apply(fn)
    apply(self, fn, {})
    return self
  end

  -- convert every parameter and buffer with fn (in place of the data: parameters stay the same
  -- objects, as PyTorch's _apply does for .to())
  function Module:_apply(fn)
    for _, m in ipairs(self:modules()) do
      for _, name in ipairs(m._parameters.order) do
        local p = m._parameters.items[name]
        if p then
          local d = torch.no_grad(function() return fn(p) end)
          if not rawequal(d, p) then
            local np = nn.Parameter(d, p.requires_grad)
            if p.grad ~= nil then np.grad = fn(p.grad) end
            m._parameters.items[name] = np
          end
        end
      end
      for _, name in ipairs(m._buffers.order) do
        local b = m._buffers.items[name]
        if b then m._buffers.items[name] = fn(b) end
      end
    end
    return self
  end

  -- to(dtype) converts floating parameters and buffers; to(device) moves everything
  local dtype_mt = getmetatable(torch.float32)
  function Module:to(...)
    local args = table.pack(...)
    local only_float = getmetatable(args[1]) == dtype_mt
    -- memory_format= lays out the 4-D and 5-D tensors only, as PyTorch's; the others get the rest
    local plain, opts = args, args[args.n]
    if type(opts) == "table" and not getmetatable(opts) and opts.memory_format ~= nil then
      local rest = {}
      for k, v in pairs(opts) do if k ~= "memory_format" then rest[k] = v end end
      plain = table.pack(table.unpack(args, 1, args.n - 1))
      if next(rest) ~= nil then
        plain.n = plain.n + 1
        plain[plain.n] = rest
      end
    end
    return self:_apply(function(t)
      if only_float and not t:is_floating_point() then return t end
      local a = (t:dim() == 4 or t:dim() == 5) and args or plain
      return t:to(table.unpack(a, 1, a.n))
    end)
  end
  function Module:float() return self:_apply(function(t) return t:is_floating_point() and t:float() or t end) end
  function Module:double() return self:_apply(function(t) return t:is_floating_point() and t:double() or t end) end
  function Module:half() return self:_apply(function(t) return t:is_floating_point() and t:half() or t end) end
  function Module:cpu() return self:_apply(function(t) return t:cpu() end) end

  -- ---- hooks -----------------------------------------------------------------------------------------
  local Handle = class.class("utils.hooks.RemovableHandle")
  function Handle:__init(list, entry) self.list, self.entry = list, entry end
  function Handle:remove()
    for i, h in ipairs(self.list) do
      if h == self.entry then table.remove(self.list, i) return end
    end
  end
  local function add_hook(list, fn)
    local entry = { fn = fn }
    list[#list + 1] = entry
    return Handle(list, entry)
  end
  -- Full backward hooks, as PyTorch's BackwardHook: the module's tensor inputs and outputs pass
  -- through identity functions. The outputs' backward records grad_output; the inputs' backward
  -- calls each hook with (module, grad_input, grad_output) and lets it replace grad_input. When no
  -- input needs a gradient, the hooks run from the outputs' backward with grad_input all nil.
  local HookIdentity
  local function identity_fn()
    if not HookIdentity then
      HookIdentity = torch.autograd.Function:subclass("BackwardHookFunction")
      function HookIdentity.forward(ctx, on_backward, ...)
        rawset(ctx, "_on_backward", on_backward)
        -- inputs that need no gradient get zeros in grad_input, as PyTorch's
        local frozen = {}
        for i = 1, select("#", ...) do
          local t = select(i, ...)
          if torch.is_tensor(t) and not t.requires_grad then frozen[#frozen + 1] = t end
        end
        ctx:mark_non_differentiable(table.unpack(frozen))
        return ...
      end
      function HookIdentity.backward(ctx, ...)
        local grads = ctx._on_backward(table.pack(...))
        return nil, table.unpack(grads, 1, grads.n)
      end
    end
    return HookIdentity
  end
  local HookState = {}
  HookState.__index = HookState
  function nn._backward_hook_state(module) return setmetatable({ module = module }, HookState) end
  -- the positions of the tensors among values, and whether any needs a gradient
  local function tensor_positions(values)
    local pos, any = {}, false
    for i = 1, values.n do
      if torch.is_tensor(values[i]) then
        pos[#pos + 1] = i
        any = any or values[i].requires_grad
      end
    end
    return pos, any
  end
  function HookState:run_hooks(grad_input)
    for _, h in ipairs(self.module._backward_hooks) do
      local r = h.fn(self.module, grad_input, self.grad_output)
      if r ~= nil then
        if type(r) ~= "table" or torch.is_tensor(r) then r = { r } end
        grad_input = r
      end
    end
    return grad_input
  end
  function HookState:wrap_inputs(args)
    local pos, any = tensor_positions(args)
    self.input_positions, self.inputs_need_grad = pos, any
    if not any then return args end
    return table.pack(identity_fn().apply(function(grads)
      local grad_input = {}
      for i, p in ipairs(pos) do grad_input[i] = grads[p] end
      grad_input = self:run_hooks(grad_input)
      for i, p in ipairs(pos) do grads[p] = grad_input[i] end
      return grads
    end, table.unpack(args, 1, args.n)))
  end
  function HookState:wrap_outputs(out)
    local pos, any = tensor_positions(out)
    if not any then return out end
    return table.pack(identity_fn().apply(function(grads)
      local grad_output = {}
      for i, p in ipairs(pos) do grad_output[i] = grads[p] end
      self.grad_output = grad_output
      if not self.inputs_need_grad then self:run_hooks({}) end
      return grads
    end, table.unpack(out, 1, out.n)))
  end

  function Module:register_forward_pre_hook(fn) return add_hook(self._forward_pre_hooks, fn) end
  function Module:register_forward_hook(fn) return add_hook(self._forward_hooks, fn) end

  -- ---- state -----------------------------------------------------------------------------------------
  local function save_state(self, prefix, destination, keep_vars, path)
    if not enter(path, self) then return end
    for _, name in ipairs(self._parameters.order) do
      local p = self._parameters.items[name]
      if p then destination[prefix .. name] = keep_vars and p or p:detach() end
    end
    for _, name in ipairs(self._buffers.order) do
      local b = self._buffers.items[name]
      if b and not self._non_persistent[name] then destination[prefix .. name] = keep_vars and b or b:detach() end
    end
    if nn._has_extra_state(self) then destination[prefix .. "_extra_state"] = self:get_extra_state() end
    for _, name in ipairs(self._modules.order) do
      local m = self._modules.items[name]
      if m then save_state(m, prefix .. name .. ".", destination, keep_vars, path) end
    end
    path[self] = nil
  end
  function Module:state_dict(prefix, destination, keep_vars)
    destination = destination or ordered.new()
    save_state(self, prefix or "", destination, keep_vars, {})
    return destination
  end

  -- the keys state_dict would have, in order
  function Module:_state_keys(prefix, out, path)
    out, prefix, path = out or {}, prefix or "", path or {}
    if not enter(path, self) then return out end
    for _, name in ipairs(self._parameters.order) do
      if self._parameters.items[name] then out[#out + 1] = { prefix .. name, self, "_parameters", name } end
    end
    for _, name in ipairs(self._buffers.order) do
      if self._buffers.items[name] and not self._non_persistent[name] then
        out[#out + 1] = { prefix .. name, self, "_buffers", name }
      end
    end
    if nn._has_extra_state(self) then out[#out + 1] = { prefix .. "_extra_state", self, false } end
    for _, name in ipairs(self._modules.order) do
      local m = self._modules.items[name]
      if m then m:_state_keys(prefix .. name .. ".", out, path) end
    end
    path[self] = nil
    return out
  end

  -- load_state_dict(sd, strict = true): copies values in; PyTorch's errors for missing,
  -- unexpected and mis-shaped keys. Returns {missing_keys = ..., unexpected_keys = ...}.
  function Module:load_state_dict(sd, strict)
    if strict == nil then strict = true end
    for prefix, m in self:named_modules() do -- lazy modules size their placeholders first (nn/lazy.lua)
      if rawget(m, "_lazy_load_hook") then m:_load_lazy(sd, prefix == "" and "" or prefix .. ".") end
    end
    local keys = self:_state_keys()
    local known, missing, unexpected, errors = {}, {}, {}, {}
    for _, k in ipairs(keys) do
      known[k[1]] = true
      local v = sd[k[1]]
      if v == nil then
        missing[#missing + 1] = k[1]
      elseif k[3] == false then -- a module's extra state
        k[2]:set_extra_state(v)
      else
        local cur = k[2][k[3]].items[k[4]]
        local lazy = nn._is_uninitialized
        if lazy and lazy(v) then -- a placeholder (nn/lazy.lua) loads only into another
          if not lazy(cur) then error(nn._UNINIT_SHAPE_MSG, 2) end
        elseif not torch.is_tensor(v) then
          errors[#errors + 1] = ('While copying the parameter named "%s", expected torch.Tensor or Tensor-like object from checkpoint but received %s'):format(k[1], type(v))
        elseif tostring(v.shape) ~= tostring(cur.shape) then
          errors[#errors + 1] = ("size mismatch for %s: copying a param with shape %s from checkpoint, the shape in current model is %s."):format(
            k[1], tostring(v.shape), tostring(cur.shape))
        else
          torch.no_grad(function() cur:copy_(v) end)
        end
      end
    end
    local extra = {}
    for k in pairs(sd) do if not known[k] then extra[#extra + 1] = k end end
    table.sort(extra)
    for _, k in ipairs(extra) do unexpected[#unexpected + 1] = k end
    local result = { missing_keys = missing, unexpected_keys = unexpected }
    -- post hooks see (and may trim) the incompatible keys before strict mode reports them
    for _, m in ipairs(self:modules()) do
      for _, h in ipairs(rawget(m, "_load_state_dict_post_hooks") or {}) do h.fn(m, result) end
    end
    if strict then
      if #unexpected > 0 then
        local q = {}
        for i, k in ipairs(unexpected) do q[i] = '"' .. k .. '"' end
        table.insert(errors, 1, "Unexpected key(s) in state_dict: " .. table.concat(q, ", ") .. ". ")
      end
      if #missing > 0 then
        local q = {}
        for i, k in ipairs(missing) do q[i] = '"' .. k .. '"' end
        table.insert(errors, 1, "Missing key(s) in state_dict: " .. table.concat(q, ", ") .. ". ")
      end
    end
    if #errors > 0 then
      error(("Error(s) in loading state_dict for %s:\n\t%s"):format(self:_get_name(), table.concat(errors, "\n\t")), 2)
    end
    return result
  end

  -- the class name without its namespace, as PyTorch's _get_name (nn.Linear -> Linear)
  function Module:_get_name() return (getmetatable(self).__name:gsub("^.*%.", "")) end

  -- get_parameter("block.0.weight") / get_buffer("bn.running_mean"): PyTorch's lookups by path
  local function split_target(target)
    local path, name = target:match("^(.*)%.([^.]*)$")
    if not path then return "", target end
    return path, name
  end
  local function member_of(m, name)
    for _, reg in ipairs { "_parameters", "_buffers", "_modules" } do
      if reg_has(m[reg], name) then return m[reg].items[name] or nil, reg end
    end
    return rawget(m, name), nil
  end
  function Module:get_parameter(target)
    local path, name = split_target(target)
    local m = self:get_submodule(path)
    local v, reg = member_of(m, name)
    if v == nil and reg == nil then error(("%s has no attribute `%s`"):format(m:_get_name(), name), 2) end
    if reg ~= "_parameters" or v == nil then error(("`%s` is not an nn.Parameter"):format(name), 2) end
    return v
  end
  function Module:get_buffer(target)
    local path, name = split_target(target)
    local m = self:get_submodule(path)
    local v, reg = member_of(m, name)
    if v == nil and reg == nil then error(("%s has no attribute `%s`"):format(m:_get_name(), name), 2) end
    if reg ~= "_buffers" or v == nil then error(("`%s` is not a buffer"):format(name), 2) end
    return v
  end

  -- extra state: a class that defines get_extra_state gets a "_extra_state" entry in its
  -- state_dict, handed back to its set_extra_state by load_state_dict
  local EXTRA_STATE_MSG = "Reached a code path in Module.%s() that should never be called. Please file an issue at "
    .. "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug."
  function Module:get_extra_state() error(EXTRA_STATE_MSG:format("get_extra_state"), 2) end
  function Module:set_extra_state() error(EXTRA_STATE_MSG:format("set_extra_state"), 2) end
  function nn._has_extra_state(m) return m.get_extra_state ~= Module.get_extra_state end

  -- type(dtype) casts every parameter and buffer, integer ones too; bfloat16() the floating ones
  function Module:type(dst_type) return self:_apply(function(t) return t:to(dst_type) end) end
  function Module:bfloat16()
    return self:_apply(function(t) return t:is_floating_point() and t:bfloat16() or t end)
  end
  -- to_empty(device): every parameter and buffer replaced by uninitialised memory on device
  function Module:to_empty(device)
    if type(device) == "table" and not getmetatable(device) then device = device.device end
    return self:_apply(function(t) return torch.empty_like(t, { device = device }) end)
  end
  -- share_memory(): every parameter and buffer (and gradient) moved to shared memory, for
  -- worker processes
  function Module:share_memory()
    return self:_apply(function(t) return t:share_memory_() end)
  end

  -- register_full_backward_hook(fn): fn(module, grad_input, grad_output) once the gradients of
  -- the module's tensor inputs are known (grad_input: one entry per tensor argument, zeros for
  -- one that needs no gradient, all nil when none does); a returned table replaces grad_input.
  -- register_backward_hook is the same here (PyTorch's deprecated form reports the gradients of
  -- the module's last operation instead).
  function Module:register_full_backward_hook(fn) return add_hook(self._backward_hooks, fn) end
  Module.register_backward_hook = Module.register_full_backward_hook
  function Module:register_load_state_dict_post_hook(fn)
    return add_hook(self._load_state_dict_post_hooks, fn)
  end

  -- ---- repr (PyTorch's format) ---------------------------------------------------------------------------
  function Module:extra_repr() return "" end

  local function add_indent(s, n)
    local lines = {}
    for line in (s .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
    if #lines == 1 then return s end
    local first = table.remove(lines, 1)
    for i, l in ipairs(lines) do lines[i] = string.rep(" ", n) .. l end
    return first .. "\n" .. table.concat(lines, "\n")
  end

  local repr_path = {} -- the modules being printed: one inside itself prints as Name(...)
  function Module:__repr()
    if repr_path[self] then return getmetatable(self).__name .. "(...)" end
    repr_path[self] = true
    local ok, s = pcall(Module._repr_body, self)
    repr_path[self] = nil
    if not ok then error(s, 0) end
    return s
  end

  function Module:_repr_body()
    local extra = self:extra_repr()
    local lines = {}
    if extra ~= "" then
      for line in (extra .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
    end
    for _, name in ipairs(self._modules.order) do
      local m = self._modules.items[name]
      local r = m and add_indent(tostring(m), 2) or "None"
      lines[#lines + 1] = "(" .. name .. "): " .. r
    end
    local s = getmetatable(self).__name .. "("
    if #lines > 0 then
      if extra ~= "" and #lines == 1 and #self._modules.order == 0 then
        s = s .. lines[1]
      else
        s = s .. "\n  " .. table.concat(lines, "\n  ") .. "\n"
      end
    end
    return s .. ")"
  end

  -- every module's metamethods, which its subclasses inherit (mindtorch._class)
  nn.Module = Module
  Module.__index = instance_index
  Module.__newindex = instance_newindex
  Module.__call = call
  Module.__tostring = function(m) return m:__repr() end
  return Module
end
