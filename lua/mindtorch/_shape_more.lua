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
