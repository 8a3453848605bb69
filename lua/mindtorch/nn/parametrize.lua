-- parametrize.lua: torch.nn.utils.parametrize (a tensor of a module computed by modules from
-- `original` tensors) and torch.nn.utils.parametrizations (orthogonal, spectral_norm), as
-- PyTorch 1.13's. Registering a parametrization moves module.weight to
-- module.parametrizations.weight.original and gives the module a class of its own,
-- "Parametrized" .. its class's name, whose __index computes weight (PyTorch's property) and
-- whose __newindex assigns it through right_inverse.
return function(torch, nn)
  local class = require "mindtorch._class"
  local args = require "mindtorch._args"
  local py_type = args.py_type
  local remove_member = nn._remove_member
  local P = {}

  local function same_shape(a, b) return tostring(a.shape) == tostring(b.shape) end

  -- ---- the cache (P.cached) -------------------------------------------------------------------------------
  local cache_depth, cache = 0, setmetatable({}, { __mode = "k" })
  P.cached = require("mindtorch._context").make(function() cache_depth = cache_depth + 1 end, function()
    cache_depth = cache_depth - 1
    if cache_depth == 0 then cache = setmetatable({}, { __mode = "k" }) end
  end)

  -- PyTorch's NotImplementedError, which a right_inverse may raise to mean "the identity"
  local not_implemented_mt = { __tostring = function(e) return e.msg end }
  function P._not_implemented(msg) error(setmetatable({ msg = msg, not_implemented = true }, not_implemented_mt), 0) end
  local function is_not_implemented(e) return type(e) == "table" and e.not_implemented == true end

  -- original's data becomes new's (Tensor.set_ under no_grad: the same object, so optimizers keep it)
  local function set_data(original, new)
    if rawequal(original, new) then return end
    torch.no_grad(function() original:set_(new) end)
  end

  local function register_parameter_or_buffer(module, name, t)
    if nn.is_parameter(t) then module:register_parameter(name, t) else module:register_buffer(name, t) end
  end


  -- ---- ParametrizationList ---------------------------------------------------------------------------------
  local ParametrizationList = nn.ModuleList:subclass("nn.utils.parametrize.ParametrizationList")
  function ParametrizationList:__init(modules, original, unsafe)
    if #modules == 0 then error("ParametrizationList requires one or more modules.", 3) end
    nn.ModuleList.__init(self, modules)
    self.unsafe = unsafe or false
    local original_shape, original_dtype = original.shape, original.dtype
    local new = torch.no_grad(function()
      local new = original
      for i = #self, 1, -1 do
        local m = self[i]
        if m.right_inverse then
          local ok, r = pcall(m.right_inverse, m, new)
          if ok then new = r elseif not is_not_implemented(r) then error(r, 0) end
        end
      end
      return new
    end)
    if not torch.is_tensor(new) and type(new) ~= "table" then
      error("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). Got " .. py_type(new), 3)
    end
    self.is_tensor = torch.is_tensor(new)
    self.ntensors = self.is_tensor and 1 or #new
    if self.is_tensor then
      if original.dtype ~= new.dtype then
        error(("When `right_inverse` outputs one tensor, it may not change the dtype.\noriginal.dtype: %s\n"
          .. "right_inverse(original).dtype: %s"):format(tostring(original.dtype), tostring(new.dtype)), 3)
      end
      set_data(original, new)
      register_parameter_or_buffer(self, "original", original)
    else
      for i, t in ipairs(new) do
        if not torch.is_tensor(t) then
          error(("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). Got element %d "
            .. "of the sequence with type %s."):format(i - 1, py_type(t)), 3)
        end
        if nn.is_parameter(original) then t = nn.Parameter(t) end
        t:requires_grad_(original.requires_grad)
        register_parameter_or_buffer(self, "original" .. (i - 1), t)
      end
    end
    if not self.unsafe then
      local Z = self()
      if not torch.is_tensor(Z) then
        error(("A parametrization must return a tensor. Got %s."):format(py_type(Z)), 3)
      end
      if Z.dtype ~= original_dtype then
        error(("Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag is "
          .. "enabled.\nunparametrized dtype: %s\nparametrized dtype: %s"):format(tostring(original_dtype),
          tostring(Z.dtype)), 3)
      end
      if tostring(Z.shape) ~= tostring(original_shape) then
        error(("Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag is "
          .. "enabled.\nunparametrized shape: %s\nparametrized shape: %s"):format(tostring(original_shape),
          tostring(Z.shape)), 3)
      end
    end
  end

  -- right_inverse(value): the originals that give value, each right_inverse applied last to first
  function ParametrizationList:right_inverse(value)
    torch.no_grad(function()
      for i = #self, 1, -1 do
        local m = self[i]
        if not m.right_inverse then
          error(("parametrization %s does not implement right_inverse."):format(getmetatable(m).__name), 0)
        end
        value = m:right_inverse(value)
      end
      if self.is_tensor then
        if not torch.is_tensor(value) then
          error("`right_inverse` should return a tensor. Got " .. py_type(value), 0)
        end
        if value.dtype ~= self.original.dtype then
          error(("The tensor returned by `right_inverse` has dtype %s while `original` has dtype %s"):format(
            tostring(value.dtype), tostring(self.original.dtype)), 0)
        end
        set_data(self.original, value)
      else
        if type(value) ~= "table" or torch.is_tensor(value) then
          error(("'right_inverse' must return a sequence of tensors. Got %s."):format(py_type(value)), 0)
        end
        if #value ~= self.ntensors then
          error(("'right_inverse' must return a sequence of tensors of length %d. Got a sequence of lenght %d."):format(
            self.ntensors, #value), 0)
        end
        for i, t in ipairs(value) do
          local orig = self["original" .. (i - 1)]
          if not torch.is_tensor(t) then
            error(("`right_inverse` must return a sequence of tensors. Got element %d of type %s"):format(i - 1,
              py_type(t)), 0)
          end
          if t.dtype ~= orig.dtype then
            error(("Tensor %d returned by `right_inverse` has dtype %s while `original%d` has dtype %s"):format(
              i - 1, tostring(t.dtype), i - 1, tostring(orig.dtype)), 0)
          end
          set_data(orig, t)
        end
      end
    end)
  end

  function ParametrizationList:forward()
    local x
    if self.is_tensor then
      x = self[1](self.original)
    else
      local originals = {}
      for i = 1, self.ntensors do originals[i] = self["original" .. (i - 1)] end
      x = self[1](table.unpack(originals, 1, self.ntensors))
    end
    for i = 2, #self do x = self[i](x) end
    return x
  end
  P.ParametrizationList = ParametrizationList

  -- ---- is_parametrized, the injected class -------------------------------------------------------------------
  local function parametrizations_of(module)
    local mods = type(module) == "table" and rawget(module, "_modules")
    local pd = mods and mods.present.parametrizations and mods.items.parametrizations
    if pd and class.isinstance(pd, nn.ModuleDict) then return pd end
  end

  -- is_parametrized(module, tensor_name = nil)
  function P.is_parametrized(module, tensor_name)
    local pd = parametrizations_of(module)
    if not pd then return false end
    if tensor_name == nil then return #pd._modules.order > 0 end
    return pd._modules.present[tensor_name] == true
  end

  -- the module gets a class of its own deriving from its class, whose instances compute the
  -- parametrized names (kept in the class's _parametrized table)
  local function inject_class(module)
    local cls = class.type_of(module)
    local store = getmetatable(module)
    local parent_index, parent_newindex = rawget(store, "__index"), rawget(store, "__newindex")
    local pcls = class.class("nn.utils.parametrize.Parametrized" .. store.__name, cls)
    pcls._parametrized = {}
    pcls._class_before_parametrizations = cls
    pcls.__index = function(self, k)
      if getmetatable(self)._parametrized[k] then
        local pl = self.parametrizations[k]
        if cache_depth > 0 then
          local c = cache[self]
          if not c then c = {}; cache[self] = c end
          local t = c[k]
          if t == nil then t = pl(); c[k] = t end
          return t
        end
        return pl()
      end
      if type(parent_index) == "function" then return parent_index(self, k) end
      return parent_index[k]
    end
    pcls.__newindex = function(self, k, v)
      if getmetatable(self)._parametrized[k] then return self.parametrizations[k]:right_inverse(v) end
      if parent_newindex then return parent_newindex(self, k, v) end
      rawset(self, k, v)
    end
    class.set_class(module, pcls)
  end

  -- register_parametrization(module, tensor_name, parametrization, {unsafe = false})
  function P.register_parametrization(module, tensor_name, parametrization, opts)
    opts = args.options("register_parametrization", opts, { unsafe = "bool" })
    local unsafe = opts.unsafe or false
    if not class.isinstance(module, nn.Module) then
      error(("'%s' object has no attribute 'training'"):format(py_type(module)), 2)
    end
    if not class.isinstance(parametrization, nn.Module) then
      error(("'%s' object has no attribute 'train'"):format(py_type(parametrization)), 2)
    end
    parametrization:train(module.training)
    if P.is_parametrized(module, tensor_name) then
      if not unsafe then
        local Y = module[tensor_name]
        local X = parametrization(Y)
        if not torch.is_tensor(X) then
          error(("A parametrization must return a tensor. Got %s."):format(py_type(X)), 2)
        end
        if X.dtype ~= Y.dtype then
          error(("Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` flag is "
            .. "enabled.\nmodule.%s.dtype: %s\nparametrization(module.%s).dtype: %s"):format(tensor_name,
            tostring(Y.dtype), tensor_name, tostring(X.dtype)), 2)
        end
        if not same_shape(X, Y) then
          error(("Registering a parametrization may not change the shape of the tensor, unless the `unsafe` flag is "
            .. "enabled.\nmodule.%s.shape: %s\nparametrization(module.%s).shape: %s"):format(tensor_name,
            tostring(Y.shape), tensor_name, tostring(X.shape)), 2)
        end
        if parametrization.right_inverse then
          local ok, Z = pcall(parametrization.right_inverse, parametrization, X)
          if not ok and not is_not_implemented(Z) then error(Z, 0) end
          if ok then
            if not torch.is_tensor(Z) then
              error("parametrization.right_inverse must return a tensor. Got: " .. py_type(Z), 2)
            end
            if Z.dtype ~= Y.dtype then
              error(("The tensor returned by parametrization.right_inverse must have the same dtype as module.%s, "
                .. "unless the `unsafe` flag is enabled.\nmodule.%s.dtype: %s\nreturned dtype: %s"):format(
                tensor_name, tensor_name, tostring(Y.dtype), tostring(Z.dtype)), 2)
            end
            if not same_shape(Z, Y) then
              error(("The tensor returned by parametrization.right_inverse must have the same shape as module.%s, "
                .. "unless the `unsafe` flag is enabled.\nmodule.%s.shape: %s\nreturned shape: %s"):format(
                tensor_name, tensor_name, tostring(Y.shape), tostring(Z.shape)), 2)
            end
          end
        end
      end
      local pl = module.parametrizations[tensor_name]
      pl:append(parametrization)
      pl.unsafe = pl.unsafe or unsafe
    elseif module._buffers.present[tensor_name] or module._parameters.present[tensor_name] then
      local kind = module._parameters.present[tensor_name] and "_parameters" or "_buffers"
      local original = module[tensor_name]
      local pl = ParametrizationList({ parametrization }, original, unsafe)
      remove_member(module, kind, tensor_name)
      if not P.is_parametrized(module) then
        inject_class(module)
        module.parametrizations = nn.ModuleDict()
      end
      module.parametrizations:add_module(tensor_name, pl)
      getmetatable(module)._parametrized[tensor_name] = true
    else
      error(("Module '%s' does not have a parameter, a buffer, or a parametrized element with name '%s'"):format(
        tostring(module), tensor_name), 2)
    end
    return module
  end

  -- remove_parametrizations(module, tensor_name, leave_parametrized = true)
  function P.remove_parametrizations(module, tensor_name, leave_parametrized)
    if type(leave_parametrized) == "table" then leave_parametrized = leave_parametrized.leave_parametrized end
    if leave_parametrized == nil then leave_parametrized = true end
    if not P.is_parametrized(module, tensor_name) then
      error(("Module %s does not have a parametrization on %s"):format(tostring(module), tensor_name), 2)
    end
    local pl = module.parametrizations[tensor_name]
    local original
    if pl.is_tensor then
      original = pl.original
      if leave_parametrized then
        local t = torch.no_grad(function() return module[tensor_name] end)
        set_data(original, t)
      end
    else
      if not leave_parametrized then
        error("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in terms of "
          .. "a sequence of tensors.", 2)
      end
      local t = module[tensor_name]
      original = t.requires_grad and nn.Parameter(t) or t
    end
    getmetatable(module)._parametrized[tensor_name] = nil
    if cache[module] then cache[module][tensor_name] = nil end
    remove_member(module.parametrizations, "_modules", tensor_name)
    register_parameter_or_buffer(module, tensor_name, original)
    if not P.is_parametrized(module) then
      remove_member(module, "_modules", "parametrizations")
      class.set_class(module, getmetatable(module)._class_before_parametrizations)
    end
    return module
  end

  -- type_before_parametrizations(module): its class before any parametrization
  function P.type_before_parametrizations(module)
    if P.is_parametrized(module) then return getmetatable(module)._class_before_parametrizations end
    return class.type_of(module)
  end

  -- transfer_parametrizations_and_params(from_module, to_module, tensor_name = nil)
  function P.transfer_parametrizations_and_params(from_module, to_module, tensor_name)
    if not P.is_parametrized(from_module) then return to_module end
    local names = tensor_name and { tensor_name } or from_module.parametrizations:keys()
    for _, name in ipairs(names) do
      if to_module[name] == nil then -- PyTorch: hasattr
        to_module:register_parameter(name, nn.Parameter(from_module[name]:detach()))
      end
      local pl = from_module.parametrizations[name]
      for i = 1, #pl do P.register_parametrization(to_module, name, pl[i]) end
      local to_pl = to_module.parametrizations[name]
      torch.no_grad(function()
        if pl.is_tensor then
          set_data(to_pl.original, pl.original)
        else
          for i = 0, pl.ntensors - 1 do set_data(to_pl["original" .. i], pl["original" .. i]) end
        end
      end)
    end
    return to_module
  end

  nn.utils.parametrize = P

  -- ---- parametrizations.orthogonal ---------------------------------------------------------------------------
  local Z = {}
  local maps = { matrix_exp = true, cayley = true, householder = true }

  local function is_orthogonal(Q)
    local n, k = Q:size(-2), Q:size(-1)
    local Id = torch.eye(k, { dtype = Q.dtype, device = Q.device })
    local eps = 10.0 * n * torch.finfo(Q.dtype).eps
    return torch.allclose(Q.mH:matmul(Q), Id, { atol = eps })
  end

  -- the Q of A = QR with diag(R) >= 0 (A tall)
  local function make_orthogonal(A)
    local X, tau = torch.geqrf(A)
    local Q = torch.linalg.householder_product(X, tau)
    return Q * X:diagonal(0, -2, -1):sgn():unsqueeze(-2)
  end

  -- torch.linalg.householder_product(A, tau) from differentiable ops: the first k columns of
  -- H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i = e_i + the part of A's column i below the diagonal
  local function householder_product(A, tau)
    local n, k = A:size(-2), A:size(-1)
    local V = A:tril(-1) + torch.eye(n, k, { dtype = A.dtype, device = A.device })
    local M = torch.eye(n, k, { dtype = A.dtype, device = A.device })
    for i = k, 1, -1 do
      local v = V:narrow(-1, i, 1)
      M = M - (tau:narrow(-1, i, 1):unsqueeze(-1) * v):matmul(v.mT:matmul(M))
    end
    return M
  end

  local Orthogonal = nn.Module:subclass("nn.utils.parametrizations._Orthogonal")
  function Orthogonal:__init(weight, orthogonal_map, use_trivialization)
    nn.Module.__init(self)
    if weight:is_complex() and orthogonal_map == "householder" then
      error("The householder parametrization does not support complex tensors.", 3)
    end
    self.shape = weight.shape
    self.orthogonal_map = orthogonal_map
    if use_trivialization then self:register_buffer("base", nil) end
  end

  local function has_base(self) return self._buffers.present.base == true end

  function Orthogonal:forward(X)
    local n, k = X:size(-2), X:size(-1)
    local transposed = n < k
    if transposed then
      X = X.mT
      n, k = k, n
    end
    local Q
    if self.orthogonal_map == "matrix_exp" or self.orthogonal_map == "cayley" then
      X = X:tril()
      if n ~= k then
        local lead = {}
        for d = 1, X:dim() - 2 do lead[d] = X:size(d) end
        lead[#lead + 1], lead[#lead + 2] = -1, -1
        X = torch.cat({ X, X:new_zeros(n, n - k):expand(lead) }, -1)
      end
      local A = X - X.mH
      if self.orthogonal_map == "matrix_exp" then
        Q = torch.matrix_exp(A)
      else
        local Id = torch.eye(n, { dtype = A.dtype, device = A.device })
        Q = torch.linalg.solve(torch.add(Id, A, { alpha = -0.5 }), torch.add(Id, A, { alpha = 0.5 }))
      end
      if n ~= k then Q = Q:narrow(-1, 1, k) end
    else
      local A = X:tril(-1)
      local tau = 2.0 / ((A * A):sum(-2) + 1.0)
      Q = householder_product(A, tau)
      Q = Q * X:diagonal(0, -2, -1):int():unsqueeze(-2)
    end
    if has_base(self) then Q = self.base:matmul(Q) end
    if transposed then Q = Q.mT end
    return Q
  end

  function Orthogonal:right_inverse(Q)
    return torch.no_grad(function()
      if tostring(Q.shape) ~= tostring(self.shape) then
        error(("Expected a matrix or batch of matrices of shape %s. Got a tensor of shape %s."):format(
          tostring(self.shape), tostring(Q.shape)), 0)
      end
      local Q_init = Q
      local n, k = Q:size(-2), Q:size(-1)
      local transpose = n < k
      if transpose then
        Q = Q.mT
        n, k = k, n
      end
      if not has_base(self) then
        if self.orthogonal_map == "cayley" or self.orthogonal_map == "matrix_exp" then
          P._not_implemented("It is not possible to assign to the matrix exponential or the Cayley parametrizations "
            .. "when use_trivialization=False.")
        end
        local A, tau = torch.geqrf(Q)
        local d = A:diagonal(0, -2, -1)
        d:sign_()
        local zero = tau:eq(0.0)
        d[zero] = d[zero] * -1
        return transpose and A.mT or A
      end
      if n == k then
        if not is_orthogonal(Q) then Q = make_orthogonal(Q) else Q = Q:clone() end
      else
        local size = {}
        for d = 1, Q:dim() - 2 do size[d] = Q:size(d) end
        size[#size + 1], size[#size + 2] = n, n - k
        local N = torch.randn(size, { dtype = Q.dtype, device = Q.device })
        Q = make_orthogonal(torch.cat({ Q, N }, -1))
      end
      self.base = Q
      local neg_Id = torch.zeros_like(Q_init)
      neg_Id:diagonal(0, -2, -1):fill_(-1.0)
      return neg_Id
    end)
  end

  -- orthogonal(module, name = "weight", orthogonal_map = nil, {use_trivialization = true})
  function Z.orthogonal(...)
    local o = args.parse("orthogonal", { "module", "name", "orthogonal_map", "use_trivialization" },
      { name = "weight", use_trivialization = true }, ...)
    local module, name = o.module, o.name
    local weight = class.isinstance(module, nn.Module) and module[name] or nil
    if not torch.is_tensor(weight) then
      error(("Module '%s' has no parameter or buffer with name '%s'"):format(tostring(module), name), 2)
    end
    if weight:dim() < 2 then
      error(("Expected a matrix or batch of matrices. Got a tensor of %d dimensions."):format(weight:dim()), 2)
    end
    local map = o.orthogonal_map
    if map == nil then
      map = (weight:size(-2) == weight:size(-1) or weight:is_complex()) and "matrix_exp" or "householder"
    end
    if not maps[map] then
      error('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: ' .. tostring(map), 2)
    end
    P.register_parametrization(module, name, Orthogonal(weight, map, o.use_trivialization), { unsafe = true })
    return module
  end

  -- ---- parametrizations.spectral_norm ------------------------------------------------------------------------
  local normalize = nn._normalize_vector
  local SpectralNorm = nn.Module:subclass("nn.utils.parametrizations._SpectralNorm")
  function SpectralNorm:__init(weight, n_power_iterations, dim, eps)
    nn.Module.__init(self)
    local ndim = weight:dim()
    if dim > ndim or dim < -ndim or dim == 0 then
      error(("Dimension out of range (expected to be in range of [-%d, %d] but got %d)"):format(ndim, ndim, dim), 3)
    end
    if n_power_iterations <= 0 then
      error(("Expected n_power_iterations to be positive, but got n_power_iterations=%d"):format(n_power_iterations), 3)
    end
    self.dim = dim > 0 and dim or dim + ndim + 1
    self.eps = eps
    if ndim > 1 then
      self.n_power_iterations = n_power_iterations
      local mat = self:_reshape_weight_to_matrix(weight)
      local h, w = mat:size(1), mat:size(2)
      local u = mat:new_empty(h):normal_(0, 1)
      local v = mat:new_empty(w):normal_(0, 1)
      self:register_buffer("_u", normalize(u, eps))
      self:register_buffer("_v", normalize(v, eps))
      self:_power_method(mat, 15)
    end
  end

  function SpectralNorm:_reshape_weight_to_matrix(weight)
    if self.dim ~= 1 then
      local perm = { self.dim }
      for d = 1, weight:dim() do
        if d ~= self.dim then perm[#perm + 1] = d end
      end
      weight = weight:permute(perm)
    end
    return weight:flatten(2)
  end

  function SpectralNorm:_power_method(mat, n)
    torch.no_grad(function()
      for _ = 1, n do
        self._u:copy_(normalize(torch.mv(mat, self._v), self.eps))
        self._v:copy_(normalize(torch.mv(mat:t(), self._u), self.eps))
      end
    end)
  end

  function SpectralNorm:forward(weight)
    if weight:dim() == 1 then return normalize(weight, self.eps) end
    local mat = self:_reshape_weight_to_matrix(weight)
    if self.training then self:_power_method(mat, self.n_power_iterations) end
    local u, v = self._u:clone(), self._v:clone()
    return weight / torch.vdot(u, torch.mv(mat, v))
  end

  function SpectralNorm:right_inverse(value) return value end

  local conv_transpose = { ["nn.ConvTranspose1d"] = true, ["nn.ConvTranspose2d"] = true, ["nn.ConvTranspose3d"] = true }

  -- spectral_norm(module, name = "weight", n_power_iterations = 1, eps = 1e-12, dim = nil)
  function Z.spectral_norm(...)
    local o = args.parse("spectral_norm", { "module", "name", "n_power_iterations", "eps", "dim" },
      { name = "weight", n_power_iterations = 1, eps = 1e-12 }, ...)
    local module, name = o.module, o.name
    local weight = class.isinstance(module, nn.Module) and module[name] or nil
    if not torch.is_tensor(weight) then
      error(("Module '%s' has no parameter or buffer with name '%s'"):format(tostring(module), name), 2)
    end
    local dim = o.dim
    if dim == nil then dim = conv_transpose[class.name(P.type_before_parametrizations(module))] and 2 or 1 end
    P.register_parametrization(module, name, SpectralNorm(weight, o.n_power_iterations, dim, o.eps))
    return module
  end

  nn.utils.parametrizations = Z
end
