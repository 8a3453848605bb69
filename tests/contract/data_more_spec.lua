-- torch.utils.data against PyTorch (cases/data_more.py): sampler index streams for seeded
-- generators (1-based here), DataLoader batch order with samplers, default_collate, the errors.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local data = torch.utils.data

local function idx(sampler)
  local out = {}
  for i in sampler:iter() do out[#out + 1] = i end
  return torch.tensor(out, { dtype = torch.int64 })
end
local function gen(seed) return torch.Generator():manual_seed(seed) end
local function range(n)
  local t = {}
  for i = 1, n do t[i] = i - 1 end
  return t
end

local function distributed(n, replicas, rank, kw)
  return function()
    kw = kw or {}
    local s = data.DistributedSampler(range(n), replicas, rank, kw)
    if kw.shuffle ~= false then s:set_epoch(2) end
    return idx(s)
  end
end

local function batches(sampler)
  local lens, all = {}, {}
  for b in sampler:iter() do
    lens[#lens + 1] = #b
    for _, i in ipairs(b) do all[#all + 1] = i end
  end
  for _, i in ipairs(all) do lens[#lens + 1] = i end
  return torch.tensor(lens)
end

local Count = data.IterableDataset:subclass("Count")
function Count:__init(n) self.n = n end
function Count:len() return self.n end
function Count:iter()
  local i = -1
  return function()
    i = i + 1
    if i < self.n then return torch.tensor({ i + 0.0 }), i * 10 end
  end
end

local function ds() return data.TensorDataset(torch.arange(23), torch.arange(23) * 10) end
local function collect(loader)
  local out = {}
  for xb in loader() do out[#out + 1] = xb:reshape(-1) end
  return torch.cat(out)
end
local function loader(kw)
  return function()
    torch.manual_seed(7)
    return collect(data.DataLoader(ds(), kw))
  end
end
local function loader_gen(kw, make_sampler)
  return function()
    torch.manual_seed(7)
    local g = gen(11)
    kw.generator = g
    if make_sampler then kw.sampler = make_sampler(g) end
    return collect(data.DataLoader(ds(), kw))
  end
end

local function tds(t) return data.TensorDataset(t) end

H.run("data_more", {
  sequential = function() return idx(data.SequentialSampler(range(6))) end,
  random_gen = function() return idx(data.RandomSampler(range(10), { generator = gen(5) })) end,
  random_global = function()
    torch.manual_seed(3)
    return idx(data.RandomSampler(range(10)))
  end,
  random_num_samples = function() return idx(data.RandomSampler(range(10), { num_samples = 25, generator = gen(5) })) end,
  random_replacement = function()
    return idx(data.RandomSampler(range(10), true, 70, gen(5)))
  end,
  random_replacement_len = function() return idx(data.RandomSampler(range(13), { replacement = true, generator = gen(2) })) end,
  subset_random = function() return idx(data.SubsetRandomSampler({ 4, 9, 2, 10, 5 }, { generator = gen(4) })) end,
  weighted_replacement = function()
    return idx(data.WeightedRandomSampler({ 0.1, 0.9, 0.4, 0.7, 3.0, 0.6 }, 12, { generator = gen(6) }))
  end,
  weighted_no_replacement = function()
    return idx(data.WeightedRandomSampler({ 0.9, 0.4, 0.05, 0.2, 0.3, 0.1 }, 5, false, gen(6)))
  end,
  batch_keep = function() return batches(data.BatchSampler(data.SequentialSampler(range(10)), 3, false)) end,
  batch_drop = function() return batches(data.BatchSampler(data.SequentialSampler(range(10)), 3, true)) end,
  dist_shuffle_r0 = distributed(10, 3, 0),
  dist_shuffle_r2 = distributed(10, 3, 2, { seed = 5 }),
  dist_plain_pad = distributed(10, 4, 3, { shuffle = false }),
  dist_drop_last = distributed(10, 4, 1, { drop_last = true }),
  dist_pad_more = distributed(3, 8, 6, { shuffle = false }),
  dist_len = function() return #data.DistributedSampler(range(10), { num_replicas = 4, rank = 0, drop_last = true }) end,
  loader_sampler = loader_gen({ batch_size = 4 }, function(g) return data.RandomSampler(range(23), { generator = g }) end),
  loader_batch_sampler = loader({ batch_sampler = data.BatchSampler(data.SequentialSampler(range(23)), 6, true) }),
  loader_no_batching = loader({ batch_size = false }),
  loader_weighted = loader_gen({ batch_size = 5 }, function(g)
    local w = {}
    for i = 1, 23 do w[i] = 1.0 end
    return data.WeightedRandomSampler(w, 17, { generator = g })
  end),
  loader_len_batch_sampler = function()
    return #data.DataLoader(ds(), { batch_sampler = data.BatchSampler(range(23), 6, false) })
  end,
  loader_len_drop = function() return #data.DataLoader(ds(), { batch_size = 4, drop_last = true }) end,
  loader_iterable = function()
    local out = {}
    for x, y in data.DataLoader(Count(7), { batch_size = 3 })() do
      out[#out + 1] = x:reshape(-1)
      out[#out + 1] = y:double()
    end
    return torch.cat(out)
  end,
  loader_iterable_none = function()
    local out = {}
    for _, y in data.DataLoader(Count(4), { batch_size = false })() do out[#out + 1] = torch.tensor({ y + 0.0 }) end
    return torch.cat(out)
  end,
  chain = function()
    local out = {}
    for x in data.ChainDataset({ Count(2), Count(3) }):iter() do out[#out + 1] = x end
    return torch.cat(out)
  end,
  concat = function()
    local c = data.ConcatDataset({ tds(torch.arange(3)), tds(torch.arange(10, 14)), tds(torch.arange(20, 22)) })
    local got = {}
    for k, i in ipairs({ 1, 3, 4, 7, 8, 9, -1, -9 }) do got[k] = c:get(i) end
    return { torch.tensor(c.cumulative_sizes), torch.stack(got) }
  end,
  collate_ints = function() return data.default_collate({ 1, 2, 3 }) end,
  collate_floats = function() return data.default_collate({ 1.5, 2.0 }) end,
  collate_bools = function() return data.default_collate({ true, false }) end,
  collate_tensors = function() return data.default_collate({ torch.tensor({ 1, 2 }), torch.tensor({ 3, 4 }) }) end,
  collate_nested = function()
    return data.default_collate({ { torch.ones(2), { 1, 2.5 } }, { torch.zeros(2), { 3, 4.0 } } })[2]
  end,
  collate_dict = function()
    return data.default_collate({ { a = 1, b = torch.ones(2) }, { a = 2, b = torch.zeros(2) } }).a
  end,
  error_collate_sizes = function() return data.default_collate({ { 1, 2 }, { 1 } }) end,
  error_random_replacement = function() return data.RandomSampler(range(3), { replacement = 1 }) end,
  error_random_num_samples = function() return data.RandomSampler(range(3), { num_samples = 0 }) end,
  error_weighted_num_samples = function() return data.WeightedRandomSampler({ 1.0 }, -1) end,
  error_weighted_replacement = function() return data.WeightedRandomSampler({ 1.0 }, 1, { replacement = 3 }) end,
  error_weighted_2d = function() return data.WeightedRandomSampler({ { 1.0, 2.0 } }, 1) end,
  error_batch_size = function() return data.BatchSampler(range(3), 0, false) end,
  error_batch_drop_last = function() return data.BatchSampler(range(3), 2, 1) end,
  error_dist_rank = function() return data.DistributedSampler(range(3), { num_replicas = 2, rank = 2 }) end,
  error_concat_negative = function() return data.ConcatDataset({ tds(torch.arange(3)) }):get(-4) end,
  error_loader_workers = function() return data.DataLoader(ds(), { num_workers = -1 }) end,
  error_loader_timeout = function() return data.DataLoader(ds(), { timeout = -1.0 }) end,
  error_loader_prefetch = function() return data.DataLoader(ds(), { prefetch_factor = 3 }) end,
  error_loader_persistent = function() return data.DataLoader(ds(), { persistent_workers = true }) end,
  error_loader_sampler_shuffle = function()
    return data.DataLoader(ds(), { sampler = data.SequentialSampler(range(3)), shuffle = true })
  end,
  error_loader_batch_sampler = function()
    return data.DataLoader(ds(), { batch_sampler = data.BatchSampler(range(3), 2, false), batch_size = 2 })
  end,
  error_loader_none_drop_last = function() return data.DataLoader(ds(), { batch_size = false, drop_last = true }) end,
  error_loader_iterable_shuffle = function() return data.DataLoader(Count(3), { shuffle = true }) end,
  error_loader_batch_size = function() return data.DataLoader(ds(), { batch_size = 0 }) end,
})
