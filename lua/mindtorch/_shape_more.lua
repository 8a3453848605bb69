-- The varargs forms PyTorch writes (torch.block_diag(a, b), torch.meshgrid(a, b, {indexing=...}),
-- torch.atleast_1d(a, b)) over the list-taking ops of src/ops/shape_more.lua, and
-- torch.broadcast_shapes, which computes sizes only.
return function(torch)
  -- an options table: a plain table of names (a list of tensors has entries 1..n)
  local function is_opts(v)
    return type(v) == "table" and not torch.is_tensor(v) and v[1] == nil and next(v) ~= nil
  end

  -- f(a, b, ...) or f({a, b}) [+ a trailing options table] -> f_list({a, b} [, opts])
  local function varargs(list_fn)
    return function(...)
      local n = select("#", ...)
      local args = { ... }
      local opts
      if n > 0 and is_opts(args[n]) then
        opts = args[n]
        n = n - 1
      end
      local list = args
      if n == 1 and type(args[1]) == "table" and not torch.is_tensor(args[1]) then
        list = args[1]
      else
        list = table.move(args, 1, n, 1, {})
      end
      if opts then return list_fn(list, opts) end
      return list_fn(list)
    end
  end
  for _, name in ipairs({ "block_diag", "cartesian_prod", "meshgrid" }) do torch[name] = varargs(torch[name]) end
  -- atleast_Nd(t) gives a tensor, atleast_Nd(a, b, ...) or ({a, b}) a list
  for _, name in ipairs({ "atleast_1d", "atleast_2d", "atleast_3d" }) do
    local one = torch[name]
    torch[name] = function(...)
      local n, last = select("#", ...), select(-1, ...)
      if n == 1 or (n == 2 and is_opts(last)) then return one(...) end
      return one({ ... })
    end
  end

  torch.chain_matmul = varargs(torch.chain_matmul)

  -- einsum(equation, a, b, ...) or (equation, {a, b}) [, options]
  local einsum_list = torch.einsum
  function torch.einsum(eq, ...)
    return varargs(function(list, opts)
      if opts then return einsum_list(eq, list, opts) end
      return einsum_list(eq, list)
    end)(...)
  end

  -- tensordot(a, b, dims): dims a count (the last dims of a with the first of b), or two lists
  -- of 1-based dims ({{2, 3}, {1, 2}}), positionally or as {dims = ...}; out= passes through
  local tensordot_dims = torch.tensordot
  function torch.tensordot(a, b, dims, opts)
    if is_opts(dims) then opts, dims = dims, dims.dims end
    if opts then
      local rest = {}
      for k, v in pairs(opts) do if k ~= "dims" then rest[k] = v end end
      opts = next(rest) and rest or nil
    end
    if dims == nil then dims = 2 end
    local da, db
    if torch.is_tensor(dims) then dims = dims:dim() == 0 and dims:item() or dims:tolist() end
    if math.type(dims) == "integer" then
      if dims < 0 then error("tensordot expects dims >= 0, but got dims=" .. dims, 2) end
      da, db = {}, {}
      for i = 1, dims do
        da[i] = a:dim() - dims + i
        db[i] = i
      end
    else
      da, db = dims[1], dims[2]
      if math.type(da) == "integer" then da = { da } end
      if math.type(db) == "integer" then db = { db } end
    end
    if opts then return tensordot_dims(a, b, da, db, opts) end
    return tensordot_dims(a, b, da, db)
  end

  -- unique_consecutive gives back what was asked for, as unique: the values, then the inverse
  -- and the counts if requested
  local uc_all = torch.unique_consecutive
  local function unique_consecutive(x, ...)
    local args = table.pack(...)
    local opts = is_opts(args[args.n]) and args[args.n] or {}
    if opts.out ~= nil then error("unique_consecutive() got an unexpected keyword argument 'out'", 2) end
    local inverse, counts = args[1], args[2]
    if type(inverse) ~= "boolean" then inverse = opts.return_inverse end
    if type(counts) ~= "boolean" then counts = opts.return_counts end
    local out, inv, cnt = uc_all(x, ...)
    if inverse and counts then return out, inv, cnt end
    if inverse then return out, inv end
    if counts then return out, cnt end
    return out
  end
  torch.unique_consecutive, torch.Tensor.unique_consecutive = unique_consecutive, unique_consecutive

  -- x:new_tensor(data [, opts]): torch.tensor(data) with x's dtype and device unless given
  function torch.Tensor.new_tensor(self, data, opts)
    local o = { dtype = self.dtype, device = self.device }
    for k, v in pairs(opts or {}) do o[k] = v end
    if torch.is_tensor(data) then
      local t = data:detach():to({ dtype = o.dtype, device = o.device, copy = true })
      if o.requires_grad then t:requires_grad_() end
      return t
    end
    return torch.tensor(data, o)
  end

  -- broadcast_shapes(s1, s2, ...): the broadcast of sizes (tables, torch.Size or integers)
  function torch.broadcast_shapes(...)
    local out = {}
    for i = 1, select("#", ...) do
      local s = select(i, ...)
      if math.type(s) == "integer" then s = { s } end
      local n = #s
      for k = 1, n do
        local v, at = s[n - k + 1], #out - k + 1
        if at < 1 then
          table.insert(out, 1, v)
        elseif out[at] == 1 then
          out[at] = v
        elseif v ~= 1 and v ~= out[at] then
          error("Shape mismatch: objects cannot be broadcast to a single shape", 2)
        end
      end
    end
    return torch.Size(out)
  end
end
