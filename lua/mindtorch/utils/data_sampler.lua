-- data_sampler.lua: torch.utils.data's samplers (PyTorch 1.13's). A sampler has len() and
-- iter(), which returns an iterator function giving 1-based sample indices (BatchSampler: lists
-- of them). Random samplers draw from their generator only when the first index is asked for,
-- as PyTorch's generator-based __iter__ does, so the same seeds give PyTorch's index streams.
return function(torch, data)
  local class = require "mindtorch._class"
  local args = require "mindtorch._args"

  local function is_int(v) return math.type(v) == "integer" end
  local function show(v)
    if v == nil then return "None" end
    if v == true then return "True" elseif v == false then return "False" end
    return tostring(v)
  end
  local function length(obj)
    if type(obj) == "table" and type(obj.len) == "function" then return obj:len() end
    return #obj
  end

  -- iterate any of: a sampler (iter()), an iterator function, a plain list
  local function iterate(s)
    if type(s) == "function" then return s end
    if type(s) == "table" and type(s.iter) == "function" then return s:iter() end
    local i = 0
    return function()
      i = i + 1
      return s[i]
    end
  end
  data._iterate = iterate

  -- yields the values of list (a Lua list) one by one, lazily filled by fill() on the first call
  local function lazy(fill)
    local list, i = nil, 0
    return function()
      if list == nil then list = fill() end
      i = i + 1
      return list[i]
    end
  end

  local Sampler = class.class("utils.data.Sampler")
  Sampler.__len = function(self) return self:len() end
  Sampler.__call = data._call_iterable
  function Sampler:__init(data_source) self.data_source = data_source end
  function Sampler:iter() error("Sampler:iter() is not implemented for " .. getmetatable(self).__name, 2) end
  function Sampler:len() error("object of type '" .. getmetatable(self).__name .. "' has no len()", 2) end
  data.Sampler = Sampler

  local SequentialSampler = Sampler:subclass("utils.data.SequentialSampler")
  function SequentialSampler:__init(data_source) self.data_source = data_source end
  function SequentialSampler:len() return length(self.data_source) end
  function SequentialSampler:iter()
    local n, i = self:len(), 0
    return function()
      i = i + 1
      if i <= n then return i end
    end
  end
  data.SequentialSampler = SequentialSampler

  -- a generator seeded from the global one when none is given (RandomSampler's)
  local function own_generator(gen)
    if gen ~= nil then return gen end
    local seed = torch.empty({}, { dtype = torch.int64 }):random_():item()
    return torch.Generator():manual_seed(seed)
  end

  -- RandomSampler(data_source, replacement=false, num_samples=nil, generator=nil)
  local RandomSampler = Sampler:subclass("utils.data.RandomSampler")
  function RandomSampler:__init(data_source, ...)
    local o = args.parse_at(3, "RandomSampler", { "replacement", "num_samples", "generator" },
      { replacement = false }, ...)
    self.data_source, self.replacement, self._num_samples, self.generator =
      data_source, o.replacement, o.num_samples, o.generator
    if type(self.replacement) ~= "boolean" then
      error("replacement should be a boolean value, but got replacement=" .. show(self.replacement), 3)
    end
    local ns = self:num_samples()
    if not is_int(ns) or ns <= 0 then
      error("num_samples should be a positive integer value, but got num_samples=" .. show(ns), 3)
    end
  end
  function RandomSampler:num_samples()
    if self._num_samples == nil then return length(self.data_source) end
    return self._num_samples
  end
  function RandomSampler:len() return self:num_samples() end
  function RandomSampler:iter()
    local n, total = length(self.data_source), self:num_samples()
    return lazy(function()
      local gen = own_generator(self.generator)
      local out = {}
      local function add(t, upto)
        local l = t:tolist()
        for k = 1, upto or #l do out[#out + 1] = l[k] end
      end
      if self.replacement then
        -- PyTorch draws chunks of 32 (0-based randint(high=n)); +1 makes them mindtorch's indices
        for _ = 1, total // 32 do add(torch.randint(0, n, { 32 }, { dtype = torch.int64, generator = gen }) + 1) end
        add(torch.randint(0, n, { total % 32 }, { dtype = torch.int64, generator = gen }) + 1)
      else
        for _ = 1, total // n do add(torch.randperm(n, { generator = gen })) end
        add(torch.randperm(n, { generator = gen }), total % n)
      end
      return out
    end)
  end
  data.RandomSampler = RandomSampler

  -- SubsetRandomSampler(indices, generator=nil): indices in a random order (the global
  -- generator when none is given, as torch.randperm)
  local SubsetRandomSampler = Sampler:subclass("utils.data.SubsetRandomSampler")
  function SubsetRandomSampler:__init(indices, ...)
    local o = args.parse_at(3, "SubsetRandomSampler", { "generator" }, nil, ...)
    self.indices, self.generator = indices, o.generator
  end
  function SubsetRandomSampler:len() return length(self.indices) end
  function SubsetRandomSampler:iter()
    return lazy(function()
      local n = self:len()
      local perm = (self.generator and torch.randperm(n, { generator = self.generator }) or torch.randperm(n)):tolist()
      local out = {}
      for k, p in ipairs(perm) do out[k] = self.indices[p] end
      return out
    end)
  end
  data.SubsetRandomSampler = SubsetRandomSampler

  -- WeightedRandomSampler(weights, num_samples, replacement=true, generator=nil)
  local WeightedRandomSampler = Sampler:subclass("utils.data.WeightedRandomSampler")
  function WeightedRandomSampler:__init(...)
    local o = args.parse_at(3, "WeightedRandomSampler", { "weights", "num_samples", "replacement", "generator" },
      { replacement = true }, ...)
    if not is_int(o.num_samples) or o.num_samples <= 0 then
      error("num_samples should be a positive integer value, but got num_samples=" .. show(o.num_samples), 3)
    end
    if type(o.replacement) ~= "boolean" then
      error("replacement should be a boolean value, but got replacement=" .. show(o.replacement), 3)
    end
    local w = torch.as_tensor(o.weights, { dtype = torch.float64 })
    if w:dim() ~= 1 then
      local s = {}
      for i, v in ipairs(w.shape) do s[i] = tostring(v) end
      local tuple = #s == 1 and "(" .. s[1] .. ",)" or "(" .. table.concat(s, ", ") .. ")"
      error("weights should be a 1d sequence but given weights have shape " .. tuple, 3)
    end
    self.weights, self.num_samples, self.replacement, self.generator = w, o.num_samples, o.replacement, o.generator
  end
  function WeightedRandomSampler:len() return self.num_samples end
  function WeightedRandomSampler:iter()
    return lazy(function()
      local t = torch.multinomial(self.weights, self.num_samples, self.replacement, { generator = self.generator })
      return t:tolist()
    end)
  end
  data.WeightedRandomSampler = WeightedRandomSampler

  -- BatchSampler(sampler, batch_size, drop_last): lists of indices
  local BatchSampler = Sampler:subclass("utils.data.BatchSampler")
  function BatchSampler:__init(...)
    local o = args.parse_at(3, "BatchSampler", { "sampler", "batch_size", "drop_last" }, nil, ...)
    if not is_int(o.batch_size) or o.batch_size <= 0 then
      error("batch_size should be a positive integer value, but got batch_size=" .. show(o.batch_size), 3)
    end
    if type(o.drop_last) ~= "boolean" then
      error("drop_last should be a boolean value, but got drop_last=" .. show(o.drop_last), 3)
    end
    self.sampler, self.batch_size, self.drop_last = o.sampler, o.batch_size, o.drop_last
  end
  function BatchSampler:len()
    local n = length(self.sampler)
    if self.drop_last then return n // self.batch_size end
    return (n + self.batch_size - 1) // self.batch_size
  end
  function BatchSampler:iter()
    local it, bs, drop, done = iterate(self.sampler), self.batch_size, self.drop_last, false
    return function()
      if done then return nil end
      local batch = {}
      for k = 1, bs do
        local i = it()
        if i == nil then
          done = true
          break
        end
        batch[k] = i
      end
      if #batch == 0 or (drop and #batch < bs) then return nil end
      return batch
    end
  end
  data.BatchSampler = BatchSampler

  -- DistributedSampler(dataset, num_replicas, rank, shuffle=true, seed=0, drop_last=false);
  -- rank is 0-based as torch.distributed's ranks
  local DistributedSampler = Sampler:subclass("utils.data.DistributedSampler")
  function DistributedSampler:__init(...)
    local o = args.parse_at(3, "DistributedSampler", { "dataset", "num_replicas", "rank", "shuffle", "seed", "drop_last" },
      { shuffle = true, seed = 0, drop_last = false }, ...)
    local dist = package.loaded["mindtorch.distributed"]
    if o.num_replicas == nil then
      if not (dist and dist.is_initialized and dist.is_initialized()) then
        error("Requires distributed package to be available", 3)
      end
      o.num_replicas = dist.get_world_size()
    end
    if o.rank == nil then
      if not (dist and dist.is_initialized and dist.is_initialized()) then
        error("Requires distributed package to be available", 3)
      end
      o.rank = dist.get_rank()
    end
    if o.rank >= o.num_replicas or o.rank < 0 then
      error(("Invalid rank %d, rank should be in the interval [0, %d]"):format(o.rank, o.num_replicas - 1), 3)
    end
    self.dataset, self.num_replicas, self.rank, self.epoch = o.dataset, o.num_replicas, o.rank, 0
    self.drop_last, self.shuffle, self.seed = o.drop_last, o.shuffle, o.seed
    local n = length(self.dataset)
    if self.drop_last and n % self.num_replicas ~= 0 then
      self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
    else
      self.num_samples = math.ceil(n / self.num_replicas)
    end
    self.num_samples = math.tointeger(self.num_samples)
    self.total_size = self.num_samples * self.num_replicas
  end
  function DistributedSampler:len() return self.num_samples end
  function DistributedSampler:set_epoch(epoch) self.epoch = epoch end
  function DistributedSampler:indices()
    local n = length(self.dataset)
    local idx
    if self.shuffle then
      local g = torch.Generator():manual_seed(self.seed + self.epoch)
      idx = torch.randperm(n, { generator = g }):tolist()
    else
      idx = {}
      for i = 1, n do idx[i] = i end
    end
    if not self.drop_last then
      local pad, m = self.total_size - #idx, #idx
      for k = 1, pad do idx[m + k] = idx[(k - 1) % m + 1] end
    else
      for k = #idx, self.total_size + 1, -1 do idx[k] = nil end
    end
    local out = {}
    for k = self.rank + 1, self.total_size, self.num_replicas do out[#out + 1] = idx[k] end
    return out
  end
  function DistributedSampler:iter()
    local out, i = self:indices(), 0
    return function()
      i = i + 1
      return out[i]
    end
  end
  data.DistributedSampler = DistributedSampler
end
