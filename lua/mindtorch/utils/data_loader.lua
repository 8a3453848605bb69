-- data_loader.lua: default_collate, default_convert, get_worker_info and the DataLoader
-- (PyTorch 1.13's options, checks and sample order).
--
-- for x, y in loader() do ... end   (a batch of tuple samples comes as several values)
--
-- Samples: dataset:get(i) for i = 1..#dataset (map-style) or the values dataset:iter() gives
-- (IterableDataset); several values returned by get are one tuple sample. batch_size = false is
-- PyTorch's batch_size=None (no batching: each sample through default_convert).
return function(torch, data, Dataset, IterableDataset)
  local class = require "mindtorch._class"
  local args = require "mindtorch._args"

  -- ---- collation ----------------------------------------------------------------------------
  local function is_sequence(t)
    local n = #t
    for k in pairs(t) do
      if math.type(k) ~= "integer" or k < 1 or k > n then return false end
    end
    return true
  end

  local collate_err = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "

  -- default_collate(batch): tensors stacked on a new first dim; integers -> an int64 tensor,
  -- floats -> float64, booleans -> bool; strings left as a list; tables collated field by field
  -- (lists position by position, all of one length); anything else refused in PyTorch's words
  function data.default_collate(batch)
    local elem = batch[1]
    if torch.is_tensor(elem) then return torch.stack(batch, 1) end
    local ty = type(elem)
    if ty == "number" then
      if math.type(elem) == "float" then return torch.tensor(batch, { dtype = torch.float64 }) end
      return torch.tensor(batch)
    end
    if ty == "boolean" or ty == "string" then
      if ty == "boolean" then return torch.tensor(batch) end
      return batch
    end
    if ty == "table" and getmetatable(elem) == nil then
      local out = {}
      if is_sequence(elem) then
        local size = #elem
        for i = 2, #batch do
          if #batch[i] ~= size then error("each element in list of batch should be of equal size", 2) end
        end
        for f = 1, size do
          local column = {}
          for i, s in ipairs(batch) do column[i] = s[f] end
          out[f] = data.default_collate(column)
        end
      else
        for k in pairs(elem) do
          local column = {}
          for i, s in ipairs(batch) do column[i] = s[k] end
          out[k] = data.default_collate(column)
        end
      end
      return out
    end
    error(collate_err .. (class.typename and class.typename(elem) or ty), 2)
  end

  -- default_convert(data): the no-batching conversion: tensors, numbers and strings as they are,
  -- tables converted field by field
  function data.default_convert(d)
    if type(d) == "table" and getmetatable(d) == nil then
      local out = {}
      for k, v in pairs(d) do out[k] = data.default_convert(v) end
      return out
    end
    return d
  end

  -- get_worker_info(): nil in the main process
  local worker_info = nil
  function data.get_worker_info() return worker_info end
  function data._set_worker_info(info) worker_info = info end

  -- ---- DataLoader ----------------------------------------------------------------------------
  local DataLoader = class.class("utils.data.DataLoader")
  data.DataLoader = DataLoader
  local names = { "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn", "pin_memory",
    "drop_last", "timeout", "worker_init_fn", "multiprocessing_context", "generator", "prefetch_factor",
    "persistent_workers", "pin_memory_device" }
  local spec = { batch_size = "any", shuffle = "bool", sampler = "any", batch_sampler = "any", num_workers = "int",
    collate_fn = "callable", pin_memory = "bool", drop_last = "bool", timeout = "float", worker_init_fn = "callable",
    multiprocessing_context = "any", generator = "any", prefetch_factor = "int", persistent_workers = "bool",
    pin_memory_device = "str" }
  local function show(v)
    if v == true then return "True" elseif v == false then return "False" end
    if type(v) == "table" and getmetatable(v) then return "<" .. class.typename(v) .. " object>" end
    return tostring(v)
  end

  function DataLoader:__init(dataset, opts)
    local o = args.options("DataLoader", opts, spec, nil, 3)
    local function fail(msg) error(msg, 4) end
    local batch_size = o.batch_size
    if batch_size == nil then batch_size = 1 end
    local num_workers = o.num_workers or 0
    local prefetch_factor = o.prefetch_factor == nil and 2 or o.prefetch_factor
    local timeout = o.timeout or 0
    if num_workers < 0 then
      fail("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    end
    if timeout < 0 then fail("timeout option should be non-negative") end
    if num_workers == 0 and prefetch_factor ~= 2 then
      fail("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable " ..
        "multiprocessing.")
    end
    if prefetch_factor <= 0 then fail("prefetch_factor option should be positive") end
    if o.persistent_workers and num_workers == 0 then fail("persistent_workers option needs num_workers > 0") end
    self.dataset, self.num_workers, self.prefetch_factor, self.timeout = dataset, num_workers, prefetch_factor, timeout
    self.pin_memory, self.pin_memory_device = o.pin_memory or false, o.pin_memory_device or ""
    self.worker_init_fn, self.multiprocessing_context = o.worker_init_fn, o.multiprocessing_context
    self.persistent_workers = o.persistent_workers or false
    local shuffle, sampler, batch_sampler, drop_last = o.shuffle, o.sampler, o.batch_sampler, o.drop_last or false
    self.iterable = IterableDataset:isinstance(dataset)
    if self.iterable then
      if shuffle then fail("DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True") end
      if sampler ~= nil then
        fail("DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=" .. show(sampler))
      elseif batch_sampler ~= nil then
        fail("DataLoader with IterableDataset: expected unspecified batch_sampler option, but got batch_sampler=" ..
          show(batch_sampler))
      end
    end
    shuffle = shuffle or false
    if sampler ~= nil and shuffle then fail("sampler option is mutually exclusive with shuffle") end
    if batch_sampler ~= nil then
      if batch_size ~= 1 or shuffle or sampler ~= nil or drop_last then
        fail("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
      end
      batch_size, drop_last = false, false
    elseif batch_size == false then
      if drop_last then
        fail("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
      end
    end
    if sampler == nil and not self.iterable then
      if shuffle then
        sampler = data.RandomSampler(dataset, { generator = o.generator })
      else
        sampler = data.SequentialSampler(dataset)
      end
    end
    if batch_size ~= false and batch_sampler == nil and not self.iterable then
      batch_sampler = data.BatchSampler(sampler, batch_size, drop_last)
    elseif batch_size ~= false and self.iterable then
      if math.type(batch_size) ~= "integer" or batch_size <= 0 then
        fail("batch_size should be a positive integer value, but got batch_size=" .. show(batch_size))
      end
    end
    self.batch_size, self.drop_last, self.sampler, self.batch_sampler = batch_size, drop_last, sampler, batch_sampler
    self.shuffle, self.generator = shuffle, o.generator
    self.collate_fn = o.collate_fn
    self._auto_collation = batch_sampler ~= nil or (self.iterable and batch_size ~= false)
  end

  function DataLoader:len()
    if self.iterable then
      local n = self.dataset:len()
      if self.batch_size ~= false then
        if self.drop_last then return n // self.batch_size end
        return (n + self.batch_size - 1) // self.batch_size
      end
      return n
    end
    local s = self.batch_sampler or self.sampler
    if type(s) == "table" and type(s.len) == "function" then return s:len() end
    return #s
  end
  DataLoader.__len = function(self) return self:len() end

  -- one sample as one value: several values returned by get are a list (PyTorch's tuple)
  local function sample_of(n, ...)
    if n == 1 then return (...) end
    return { ... }
  end

  -- the batch from a list of 1-based indices
  function DataLoader:_fetch(indices)
    local ds = self.dataset
    if self.collate_fn == nil and ds.get_batch then
      local batch = ds:get_batch(torch.tensor(indices, { dtype = torch.int64 }))
      if batch ~= nil then return batch, true end
    end
    local samples, tuple = {}, false
    for k, i in ipairs(indices) do
      local v = table.pack(ds:get(i))
      if v.n > 1 then tuple = true end
      samples[k] = sample_of(v.n, table.unpack(v, 1, v.n))
    end
    return (self.collate_fn or data.default_collate)(samples), false, tuple
  end

  local function unpack_batch(b, tuple)
    if tuple and type(b) == "table" and getmetatable(b) == nil then return table.unpack(b) end
    return b
  end

  -- the batch values of one task: a list of indices (batching) or one index (batch_size = false)
  function DataLoader:_produce(task)
    if self.batch_sampler ~= nil then
      local batch, fast, tuple_sample = self:_fetch(task)
      if fast then return table.unpack(batch) end
      if self.collate_fn then return batch end
      -- a tuple sample's collated fields come as several values
      return unpack_batch(batch, tuple_sample)
    end
    local collate = self.collate_fn or data.default_convert
    local v = table.pack(self.dataset:get(task))
    local b = collate(sample_of(v.n, table.unpack(v, 1, v.n)))
    return unpack_batch(b, v.n > 1 and self.collate_fn == nil)
  end

  -- the iterator of batch values over an IterableDataset (each worker runs its own)
  function DataLoader:_iterable_iter()
    local collate = self.collate_fn or (self._auto_collation and data.default_collate or data.default_convert)
    -- whether the dataset's samples are tuples (several values): their batch comes unpacked
    local tuple = false
    local it = self.dataset:iter()
    local done = false
    local function next_sample()
      if done then return nil end
      local v = table.pack(it())
      if v[1] == nil then
        done = true
        return nil
      end
      if v.n > 1 then tuple = true end
      return sample_of(v.n, table.unpack(v, 1, v.n))
    end
    if self.batch_size == false then
      return function()
        local s = next_sample()
        if s == nil then return nil end
        return unpack_batch(collate(s), tuple and self.collate_fn == nil)
      end
    end
    return function()
      local samples = {}
      for k = 1, self.batch_size do
        local s = next_sample()
        if s == nil then break end
        samples[k] = s
      end
      if #samples == 0 or (self.drop_last and #samples < self.batch_size) then return nil end
      return unpack_batch(collate(samples), tuple and self.collate_fn == nil)
    end
  end

  -- loader() / loader:iter(): the iterator of one epoch. With workers it also returns a closing
  -- value, so that leaving a for loop early (break, an error) ends the workers at once.
  function DataLoader:iter()
    -- PyTorch's iterator draws its base seed (for workers) first, from the loader's generator
    local base = torch.empty({}, { dtype = torch.int64 })
    if self.generator then base:random_({ generator = self.generator }) else base:random_() end
    self._base_seed = base:item()
    if self.num_workers > 0 then return require("mindtorch.utils.data_worker")(torch, data).iter(self) end
    if self.iterable then return self:_iterable_iter() end
    local it = data._iterate(self.batch_sampler or self.sampler)
    -- a subclass's len() bounds the epoch (as the loader always did)
    local nb, b = self:len(), 0
    return function()
      b = b + 1
      if b > nb then return nil end
      local task = it()
      if task == nil then return nil end
      return self:_produce(task)
    end
  end
  DataLoader.__call = data._call_iterable -- loader() and `for x in loader do`
end
