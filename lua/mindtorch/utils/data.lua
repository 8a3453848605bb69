-- data.lua: torch.utils.data: Dataset, TensorDataset, Subset, random_split, DataLoader.
-- Samples are 1-based (dataset:get(i) for i = 1..#dataset). With no generator given, a
-- shuffling DataLoader seeds its permutation from the global generator as PyTorch's
-- RandomSampler does, so the same seed gives PyTorch's batch order.
local torch = require "mindtorch"
local data = {}

-- ---- datasets ------------------------------------------------------------------------------------
local class = require "mindtorch._class"
local args = require "mindtorch._args"
-- Dataset: a subclass defines len() and get(i) (PyTorch's __len__ and __getitem__); #dataset
-- is its len()
local Dataset = class.class("utils.data.Dataset")
Dataset.__len = function(self) return self:len() end
function Dataset:__init() end
function Dataset:get() error("Dataset:get(i) is not implemented for " .. getmetatable(self).__name, 2) end
function Dataset:len() error("Dataset:len() is not implemented for " .. getmetatable(self).__name, 2) end
data.Dataset = Dataset

-- TensorDataset(t1, t2, ...): sample i is t1[i], t2[i], ...
local TensorDataset = Dataset:subclass("utils.data.TensorDataset")
function TensorDataset:__init(...)
  self.tensors = { ... }
  local n = self.tensors[1] and self.tensors[1].shape[1]
  for _, t in ipairs(self.tensors) do
    if t.shape[1] ~= n then error("Size mismatch between tensors", 3) end
  end
  self.n = n or 0
end
function TensorDataset:len() return self.n end
function TensorDataset:get(i)
  local out = {}
  for k, t in ipairs(self.tensors) do out[k] = t[i] end
  return table.unpack(out)
end
-- a whole batch at once (DataLoader's fast path): index_select along the first dim
function TensorDataset:get_batch(index)
  local out = {}
  for k, t in ipairs(self.tensors) do out[k] = t:index_select(1, index) end
  return out
end
data.TensorDataset = TensorDataset

local Subset = Dataset:subclass("utils.data.Subset")
function Subset:__init(dataset, indices)
  self.dataset, self.indices = dataset, indices
end
function Subset:len() return #self.indices end
function Subset:get(i) return self.dataset:get(self.indices[i]) end
function Subset:get_batch(index)
  if not self.dataset.get_batch then return nil end
  local idx = torch.tensor(self.indices):index_select(1, index)
  return self.dataset:get_batch(idx)
end
data.Subset = Subset

-- random_split(dataset, lengths, {generator=}): lengths as counts or fractions
function data.random_split(dataset, lengths, opts)
  opts = args.options("random_split", opts, { generator = "any" })
  local n = dataset:len()
  local counts, total = {}, 0
  local fractions = true
  for _, l in ipairs(lengths) do if l > 1 or math.type(l) == "integer" then fractions = false end end
  if fractions then
    for i, f in ipairs(lengths) do counts[i] = math.floor(n * f); total = total + counts[i] end
    local rest = n - total
    for i = 1, rest do local k = (i - 1) % #counts + 1; counts[k] = counts[k] + 1 end
  else
    for i, l in ipairs(lengths) do counts[i] = l; total = total + l end
    if total ~= n then error("Sum of input lengths does not equal the length of the input dataset!", 2) end
  end
  local perm = (opts.generator and torch.randperm(n, { generator = opts.generator }) or torch.randperm(n)):tolist()
  local out, at = {}, 0
  for i, c in ipairs(counts) do
    local idx = {}
    for k = 1, c do idx[k] = perm[at + k] end
    at = at + c
    out[i] = Subset(dataset, idx)
  end
  return out
end

-- ---- collation ------------------------------------------------------------------------------------------
-- default_collate(samples): tensors stacked, numbers made tensors, tables collated by key
function data.default_collate(samples)
  local first = samples[1]
  if torch.is_tensor(first) then return torch.stack(samples) end
  if type(first) == "number" then return torch.tensor(samples) end
  if type(first) == "table" then
    local out = {}
    for k in pairs(first) do
      local column = {}
      for i, s in ipairs(samples) do column[i] = s[k] end
      out[k] = data.default_collate(column)
    end
    return out
  end
  return samples
end

-- ---- DataLoader ---------------------------------------------------------------------------------------------
-- DataLoader(dataset, {batch_size=1, shuffle=false, generator=, drop_last=false, collate_fn=})
-- for x, y in loader() do ... end   (each batch's fields as several values)
local DataLoader = class.class("utils.data.DataLoader")
data.DataLoader = DataLoader
local loader_options = { batch_size = "any", shuffle = "bool", generator = "any", drop_last = "bool",
  collate_fn = "callable" }
function DataLoader:__init(dataset, opts)
  opts = args.options("DataLoader", opts, loader_options, nil, 3)
  self.dataset = dataset
  self.batch_size = opts.batch_size == nil and 1 or opts.batch_size
  self.shuffle = opts.shuffle or false
  self.generator = opts.generator
  self.drop_last = opts.drop_last or false
  self.collate_fn = opts.collate_fn
  if self.batch_size ~= false and (math.type(self.batch_size) ~= "integer" or self.batch_size <= 0) then
    error(("batch_size should be a positive integer value, but got batch_size=%s"):format(tostring(self.batch_size)), 3)
  end
end

function DataLoader:len()
  local n = self.dataset:len()
  if self.drop_last then return n // self.batch_size end
  return (n + self.batch_size - 1) // self.batch_size
end
DataLoader.__len = function(self) return self:len() end

-- the sample order of one epoch (1-based)
function DataLoader:_order()
  local n = self.dataset:len()
  -- PyTorch's iterator draws its base seed (for workers) first, from the loader's generator
  local base = torch.empty({}, { dtype = torch.int64 })
  if self.generator then base:random_({ generator = self.generator }) else base:random_() end
  if not self.shuffle then return torch.arange(1, n + 1) end
  local gen = self.generator
  if gen == nil then -- RandomSampler's seeding from the global generator
    local seed = torch.empty({}, { dtype = torch.int64 }):random_():item()
    gen = torch.Generator():manual_seed(seed)
  end
  return torch.randperm(n, { generator = gen }) -- 1-based, as every index in mindtorch
end

function DataLoader:iter()
  local order = self:_order()
  local n, bs, b = order:numel(), self.batch_size, 0
  local nb = self:len()
  return function()
    b = b + 1
    if b > nb then return nil end
    local from = (b - 1) * bs + 1
    local count = math.min(bs, n - from + 1)
    local index = order:narrow(1, from, count)
    local batch
    if self.collate_fn == nil and self.dataset.get_batch then batch = self.dataset:get_batch(index) end
    if batch == nil then
      local samples = {}
      for k, i in ipairs(index:tolist()) do samples[k] = table.pack(self.dataset:get(i)) end
      local collate = self.collate_fn or data.default_collate
      if self.collate_fn then return collate(samples) end
      local cols = {}
      for f = 1, samples[1].n do
        local column = {}
        for k, s in ipairs(samples) do column[k] = s[f] end
        cols[f] = collate(column)
      end
      batch = cols
    end
    return table.unpack(batch)
  end
end
DataLoader.__call = function(self) return self:iter() end

data.datasets = require("mindtorch.utils.datasets")(torch, data)
return data
