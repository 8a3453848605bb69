-- _indexing.lua: Torch7-style indexing and assignment, 1-based (LUA_API.md), with PyTorch's
-- semantics for tensor indices ("advanced indexing").
--
--   x[i]                 select along dim 1 (a view); negative i counts from the end
--   x[{i, j}]            one entry per dim: a number selects, {a, b} is the inclusive range a..b,
--                        {a} is a..a, {a, b, step} steps, ":" or {} keeps the dim, "..." stands
--                        for the dims not mentioned; int64 index tensors and bool masks gather
--   x[mask]              a bool (or uint8) tensor selects where it is true (a copy)
--   x[idx]               an int64 tensor gathers along dim 1 (a copy)
-- Assignment writes in place: x[key] = number or tensor (broadcast to the selection).
--
-- Several index tensors broadcast together and pick elements pointwise, as in PyTorch: the
-- result has the broadcast index shape in place of the indexed dims (in front when those dims
-- are not adjacent). A mask stands for the index tensors of its true positions.
return function(torch)
  local is_tensor = torch.is_tensor
  local MAX_DIM = 16 -- MT_MAX_DIM: no tensor has more dims

  local function shape_str(t)
    return "[" .. table.concat(t:size(), ", ") .. "]"
  end

  -- errors carry no position, like the ones the C core raises
  local function fail(fmt, ...)
    error(fmt:format(...), 0)
  end

  local function bounds_error(i, d, size)
    fail("index %d is out of bounds for dimension %d with size %d", i, d, size)
  end

  -- a 1-based position (negatives from the end) to a checked 1-based position
  local function position(i, d, size)
    local p = i < 0 and size + i + 1 or i
    if i == 0 or p < 1 or p > size then bounds_error(i, d, size) end
    return p
  end

  local function invalid_entry(k)
    fail("only integers, ranges ({a, b}), \":\", \"...\" and long or bool tensors are valid indices (got %s)",
      math.type(k) or type(k))
  end

  -- the view for a range {a}, {a, b} or {a, b, step} along dim d of t
  local function range(t, d, r)
    local size = t:size(d)
    local a, b, step = r[1] or 1, r[2], r[3] or 1
    if b == nil then b = r[1] == nil and -1 or a end
    for _, v in ipairs({ a, b, step }) do
      if math.type(v) ~= "integer" then invalid_entry(v) end
    end
    if step <= 0 then fail("range step must be a positive integer") end
    local from = a < 0 and size + a + 1 or a
    local to = b < 0 and size + b + 1 or b
    if from < 1 or from > size + 1 then bounds_error(a, d, size) end
    if to > size or to < 0 then bounds_error(b, d, size) end
    local len = to >= from and (to - from) // step + 1 or 0
    if step == 1 then return t:narrow(d, from, len) end
    local sizes, strides = { table.unpack(t:size()) }, { table.unpack(t:stride()) }
    local offset = t:storage_offset() + (len > 0 and (from - 1) * strides[d] or 0)
    sizes[d], strides[d] = len, strides[d] * step
    return t:as_strided(sizes, strides, offset)
  end

  local function is_mask(k)
    return k.dtype == torch.bool or k.dtype == torch.uint8
  end

  -- how many dims of the tensor a key entry consumes
  local function width(k)
    if k == "..." then return 0 end
    if is_tensor(k) and is_mask(k) then return k:dim() end
    return 1
  end

  -- Apply the number/range/":"/"..." entries of `key` to t. Returns the view and, when the key
  -- has tensors, the index list _index and index_put_ take: one entry per dim of the view up to
  -- the last tensor, the tensor (1-based int64, or a bool mask covering its dims) or false.
  local function resolve(t, key)
    local ndim, used = t:dim(), 0
    -- the key's length comes from the user (a __len may claim anything): bounded before any
    -- loop; an entry consumes at most one dim, except "..." and 0-d masks, which PyTorch
    -- allows at most one and a few of: past ndim + MT_MAX_DIM entries nothing is valid
    local n = #key
    if math.type(n) ~= "integer" then fail("'%s' object cannot be interpreted as an integer", math.type(n) or type(n)) end
    if n < 0 then fail("__len__() should return >= 0") end
    if n > ndim + MAX_DIM then fail("too many indices for tensor of dimension %d", ndim) end
    for i = 1, n do used = used + width(key[i]) end
    if used > ndim then fail("too many indices for tensor of dimension %d", ndim) end
    local view, d, selected, seen_ellipsis = t, 1, 0, false
    local list, nlist, covered = {}, 0, 0 -- covered: the view dims the list's entries stand for
    for i = 1, n do
      local k = key[i]
      if k == "..." then
        if not seen_ellipsis then d = d + (ndim - used) end
        seen_ellipsis = true
      elseif k == ":" then
        d = d + 1
      elseif math.type(k) == "integer" then
        -- errors name the dim of t, as PyTorch's do
        view = view:select(d, position(k, d + selected, view:size(d)))
        selected = selected + 1
      elseif type(k) == "table" and not is_tensor(k) then
        if #k > 0 then view = range(view, d, k) end
        d = d + 1
      elseif is_tensor(k) then
        if is_mask(k) then
          for j = 1, k:dim() do
            if k:size(j) ~= view:size(d + j - 1) then
              fail("The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at index %d",
                shape_str(k), j, shape_str(view), d + j - 1)
            end
          end
        elseif k.dtype ~= torch.int64 then
          fail("tensors used as indices must be long, byte or bool tensors")
        end
        while covered < d - 1 do -- the whole dims before it: false entries
          nlist, covered = nlist + 1, covered + 1
          list[nlist] = false
        end
        nlist, covered = nlist + 1, covered + width(k)
        list[nlist] = k
        d = d + width(k)
      else
        invalid_entry(k)
      end
    end
    if nlist == 0 then return view end
    return view, list
  end

  local Index = {}

  -- a tensor key or a number key as a table key
  local function as_table_key(key)
    if math.type(key) == "integer" or is_tensor(key) then return { key } end
    if type(key) == "table" then return key end
    invalid_entry(key)
  end

  local index_view = torch._index_view -- numbers, ranges, ":" and "...": one view, in C

  function Index.get(t, key)
    local v = index_view(t, key)
    if v ~= nil then return v end
    if is_tensor(key) and key.dtype == torch.bool and key:dim() > 0 and key:dim() == t:dim() then
      local same = true
      for i = 1, t:dim() do same = same and key:size(i) == t:size(i) end
      if same then return t:masked_select(key) end -- a whole-tensor mask: one pass
    end
    if is_tensor(key) and is_mask(key) and key:dim() == 0 then -- x[true]: a new dim of 1 or 0
      t, key = t:unsqueeze(1), key:view(1)
    end
    local view, list = resolve(t, as_table_key(key))
    if not list then return view end
    return torch._index(view, list)
  end

  local function write(dst, value)
    if is_tensor(value) then dst:copy_(value) else dst:fill_(value) end
  end

  function Index.set(t, key, value)
    if math.type(key) == "integer" and t:dim() == 0 then fail("invalid index of a 0-dim tensor") end
    local v = index_view(t, key)
    if v ~= nil then return write(v, value) end
    if is_tensor(key) and is_mask(key) and (not is_tensor(value) or value:numel() == 1) then
      -- a mask with one value fills, converting the value (PyTorch's masked_fill_ path)
      local m = key.dtype == torch.bool and key or key:to(torch.bool)
      local fill = is_tensor(value) and value:reshape({}) or value -- a 0-d tensor: no read of its data
      if m:dim() == 0 then
        if m:item() then t:fill_(fill) end
        return
      end
      resolve(t, { m }) -- checks the mask's shape against the leading dims
      local sizes = { table.unpack(m:size()) }
      for _ = m:dim() + 1, t:dim() do sizes[#sizes + 1] = 1 end -- the mask covers whole rows
      t:masked_fill_(m:view(sizes), fill)
      return
    end
    local view, list = resolve(t, as_table_key(key))
    if not list then return write(view, value) end
    if not is_tensor(value) then value = torch.tensor(value, { dtype = t.dtype }) end
    view:index_put_(list, value)
  end

  return Index
end
