-- data.lua: torch.utils.data: Dataset, TensorDataset, Subset, random_split, DataLoader.
-- Samples are 1-based (dataset:get(i) for i = 1..#dataset). With no generator given, a
-- shuffling DataLoader seeds its permutation from the global generator as PyTorch's
-- RandomSampler does, so the same seed gives PyTorch's batch order.
local torch = require "mindtorch"
local data = {}

-- The __call of the iterables (DataLoader, samplers, iterable datasets). obj() gives an epoch's
-- iterator: `for x in loader() do`. PyTorch users write `for x in loader do`; a generic for
-- then calls obj itself as the iterator, with its state and control values (always two
-- arguments): a call whose control value is nil starts an epoch, the next ones continue it.
-- (With workers, the loader() form also ends them at once when the loop breaks; here they end
-- with the epoch or when the iterator is collected.)
function data._call_iterable(self, ...)
  if select("#", ...) == 0 then return self:iter() end
  local _, control = ...
  local it = rawget(self, "_for_iter")
  if control == nil or not it then
    it = self:iter()
    rawset(self, "_for_iter", it)
  end
  local r = table.pack(it())
  if r[1] == nil then rawset(self, "_for_iter", nil) end
  return table.unpack(r, 1, r.n)
end

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

-- IterableDataset: a subclass defines iter(), an iterator function giving samples
local IterableDataset = Dataset:subclass("utils.data.IterableDataset")
function IterableDataset:iter() error("IterableDataset:iter() is not implemented for " .. getmetatable(self).__name, 2) end
IterableDataset.__call = data._call_iterable
data.IterableDataset = IterableDataset

-- ChainDataset(datasets): the iterable datasets one after the other
local ChainDataset = IterableDataset:subclass("utils.data.ChainDataset")
function ChainDataset:__init(datasets) self.datasets = datasets end
function ChainDataset:iter()
  local k, it = 0, nil
  return function()
    while true do
      if it then
        local v = table.pack(it())
        if v[1] ~= nil then return table.unpack(v, 1, v.n) end
      end
      k = k + 1
      local d = self.datasets[k]
      if d == nil then return nil end
      if not IterableDataset:isinstance(d) then error("ChainDataset only supports IterableDataset", 2) end
      it = d:iter()
    end
  end
end
function ChainDataset:len()
  local n = 0
  for _, d in ipairs(self.datasets) do n = n + d:len() end
  return n
end
data.ChainDataset = ChainDataset

-- ConcatDataset(datasets): sample i of the concatenation (negative i counts from the end)
local ConcatDataset = Dataset:subclass("utils.data.ConcatDataset")
function ConcatDataset:__init(datasets)
  self.datasets = {}
  for k, d in ipairs(datasets) do self.datasets[k] = d end
  if #self.datasets == 0 then error("datasets should not be an empty iterable", 3) end
  self.cumulative_sizes = {}
  local s = 0
  for k, d in ipairs(self.datasets) do
    if IterableDataset:isinstance(d) then error("ConcatDataset does not support IterableDataset", 3) end
    s = s + d:len()
    self.cumulative_sizes[k] = s
  end
end
function ConcatDataset:len() return self.cumulative_sizes[#self.cumulative_sizes] end
function ConcatDataset:get(i)
  local n = self:len()
  if i < 0 then
    if -i > n then error("absolute value of index should not exceed dataset length", 2) end
    i = n + i + 1
  end
  if math.type(i) ~= "integer" or i < 1 or i > n then
    error(("index %s is out of range for a dataset of size %d"):format(tostring(i), n), 2)
  end
  local k = 1
  while self.cumulative_sizes[k] < i do k = k + 1 end
  return self.datasets[k]:get(i - (self.cumulative_sizes[k - 1] or 0))
end
data.ConcatDataset = ConcatDataset

require("mindtorch.utils.data_sampler")(torch, data)
require("mindtorch.utils.data_loader")(torch, data, Dataset, IterableDataset)

data.datasets = require("mindtorch.utils.datasets")(torch, data)
return data
