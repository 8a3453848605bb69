-- DataLoader with worker processes (num_workers > 0): the same batches as in the main process,
-- in order; worker errors raised in the parent; no child left after an epoch, a break or an
-- error; worker_init_fn and get_worker_info in the workers; the option checks.
local torch = require "mindtorch"
local data = torch.utils.data

-- the children of this process that are not the shell and ps of the query itself
local function children()
  local p = io.popen("ps --ppid " .. torch._proc.getpid() .. " -o pid=,comm=")
  local out = {}
  for line in p:lines() do
    local pid, comm = line:match("^%s*(%d+)%s+(%S+)")
    if pid and comm ~= "sh" and comm ~= "ps" then out[#out + 1] = line end
  end
  p:close()
  return out
end

local function batches(loader, limit)
  local out = {}
  for x, y in loader() do
    out[#out + 1] = { x, y }
    if limit and #out == limit then break end
  end
  return out
end

local function same_batches(a, b)
  assert.are.equal(#a, #b)
  for i = 1, #a do
    for f = 1, 2 do assert.is_true(torch.equal(a[i][f], b[i][f]), "batch " .. i .. " field " .. f) end
  end
end

describe("DataLoader workers", function()
  local ds = data.TensorDataset(torch.arange(103), torch.arange(103):double() * 0.5)

  it("give the batches of the main process, in order (TensorDataset, shuffled, seeded)", function()
    local function run(nw, extra)
      local kw = { batch_size = 8, shuffle = true, generator = torch.Generator():manual_seed(5), num_workers = nw }
      for k, v in pairs(extra or {}) do kw[k] = v end
      return batches(data.DataLoader(ds, kw))
    end
    local base = run(0)
    assert.are.equal(13, #base)
    same_batches(base, run(2))
    same_batches(base, run(3, { prefetch_factor = 1 }))
    same_batches(base, run(2, { persistent_workers = true, pin_memory = true, timeout = 30 }))
    assert.are.same({}, children())
  end)

  it("give the batches of the main process on Fashion-MNIST (first 20 batches)", function()
    local fm = data.datasets.FashionMNIST({ train = true, transform = function(img) return img * 2 - 1 end })
    local function run(nw)
      torch.manual_seed(3)
      return batches(data.DataLoader(fm, { batch_size = 64, shuffle = true, num_workers = nw }), 20)
    end
    local a, b = run(0), run(2)
    assert.are.equal(20, #b)
    assert.are.same({ 64, 1, 28, 28 }, b[1][1].shape)
    same_batches(a, b)
    -- without a transform: the dataset's whole-batch path, in the workers too
    fm.transform = nil
    a, b = run(0), run(2)
    assert.are.equal(20, #b)
    same_batches(a, b)
    assert.are.same({}, children())
  end)

  it("work with batch_size = false, a batch_sampler, a collate_fn and an IterableDataset", function()
    local function both(kw, dset)
      local a, b = {}, {}
      kw.num_workers = 0
      for x in data.DataLoader(dset or ds, kw)() do a[#a + 1] = x end
      kw.num_workers = 2
      for x in data.DataLoader(dset or ds, kw)() do b[#b + 1] = x end
      return a, b
    end
    local a, b = both({ batch_size = false })
    assert.are.equal(103, #b)
    for i = 1, #a do assert.is_true(torch.equal(a[i], b[i])) end
    a, b = both({ batch_sampler = data.BatchSampler(data.SequentialSampler(ds), 10, true) })
    assert.are.equal(10, #b)
    for i = 1, #a do assert.is_true(torch.equal(a[i], b[i])) end
    a, b = both({ batch_size = 7, collate_fn = function(s) return #s end })
    assert.are.same(a, b)
    -- an IterableDataset that shards itself with get_worker_info
    local Range = data.IterableDataset:subclass("Range")
    function Range:iter()
      local info = data.get_worker_info()
      local i, step = 0, 1
      if info then i, step = info.id, info.num_workers end
      i = i - step
      return function()
        i = i + step
        if i < 10 then return torch.tensor(i) end
      end
    end
    a, b = both({ batch_size = 2 }, Range())
    local flat = {}
    for _, t in ipairs(b) do for _, v in ipairs(t:tolist()) do flat[#flat + 1] = v end end
    -- worker 0 gives {0, 2}, worker 1 {1, 3}, ... in turn (PyTorch's order)
    assert.are.same({ 0, 2, 1, 3, 4, 6, 5, 7, 8, 9 }, flat)
    assert.are.same({}, children())
  end)

  it("raise a worker's error in the parent, with its message, and end the workers", function()
    local Bad = data.Dataset:subclass("Bad")
    function Bad:len() return 20 end
    function Bad:get(i)
      if i == 13 then error("no sample " .. i, 0) end
      return torch.tensor({ i })
    end
    local seen = 0
    local ok, err = pcall(function()
      for _ in data.DataLoader(Bad(), { batch_size = 2, num_workers = 2 })() do seen = seen + 1 end
    end)
    assert.is_false(ok)
    assert.are.equal(6, seen)
    assert.are.equal("Caught an error in DataLoader worker process 0.\nno sample 13", err)
    assert.are.same({}, children())
    ok, err = pcall(function()
      for _ in data.DataLoader(ds, { num_workers = 2, worker_init_fn = function() error("init failed", 0) end })() do end
    end)
    assert.are.equal("Caught an error in DataLoader worker process 0.\ninit failed", err)
    assert.are.same({}, children())
  end)

  it("end the workers at a break, and when an iterator is dropped", function()
    local n = 0
    for _ in data.DataLoader(ds, { batch_size = 2, num_workers = 2 })() do
      n = n + 1
      if n == 3 then break end
    end
    assert.are.same({}, children())
    local it = data.DataLoader(ds, { batch_size = 2, num_workers = 2 }):iter()
    it()
    assert.are.equal(2, #children())
    it = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    assert.are.same({}, children())
  end)

  it("seed each worker with base_seed + id and run worker_init_fn there (get_worker_info)", function()
    local Probe = data.Dataset:subclass("Probe")
    function Probe:len() return 4 end
    function Probe:get()
      local info = data.get_worker_info()
      return { info.id, info.num_workers, info.seed, torch.rand({}):item(), _G.init_ran or -1,
        info.dataset == self and 1 or 0 }
    end
    local g = torch.Generator():manual_seed(9)
    local loader = data.DataLoader(Probe(), { batch_size = false, num_workers = 2, generator = g,
      worker_init_fn = function(id) _G.init_ran = id + 100 end })
    local got = {}
    for v in loader() do got[#got + 1] = v end
    local base = loader._base_seed
    for k, v in ipairs(got) do
      local id = (k - 1) % 2
      assert.are.same({ id, 2, base + id }, { v[1], v[2], v[3] })
      assert.are.equal(id + 100, v[5])
      assert.are.equal(1, v[6])
    end
    -- the first draw in worker w is torch.rand after manual_seed(base + w)
    torch.manual_seed(base + 1)
    assert.are.equal(torch.rand({}):item(), got[2][4])
    assert.is_nil(data.get_worker_info())
    -- the base seed is the loader generator's first draw
    local check = torch.empty({}, { dtype = torch.int64 }):random_({ generator = torch.Generator():manual_seed(9) })
    assert.are.equal(check:item(), base)
  end)

  it("time out, and refuse unknown options by name", function()
    local Slow = data.Dataset:subclass("Slow")
    function Slow:len() return 4 end
    function Slow:get(i)
      torch._proc.sleep(2)
      return i
    end
    local ok, err = pcall(function() for _ in data.DataLoader(Slow(), { num_workers = 1, timeout = 0.2 })() do end end)
    assert.is_false(ok)
    assert.are.equal("DataLoader timed out after 0.2 seconds", err)
    assert.are.same({}, children())
    ok, err = pcall(data.DataLoader, ds, { batchsize = 32 })
    assert.is_false(ok)
    assert.matches("DataLoader%(%) got an unexpected keyword argument 'batchsize'", err)
  end)

  it("carry batches of growing sizes, dtypes, views and nested tables through the shared slots", function()
    -- item i: a vector of 5000 * i floats (each batch larger than any before: the slot grows),
    -- a non-contiguous int view, a bool, a nested table with a 0-d and an empty tensor
    local Grow = data.Dataset:subclass("Grow")
    function Grow:len() return 24 end
    function Grow:get(i)
      local m = torch.arange(12, { dtype = torch.int32 }):view(3, 4):t()
      return { v = torch.full({ 5000 * i }, i, { dtype = torch.float64 }), m = m + i, flag = i % 2 == 0,
        nest = { torch.tensor(i * 1.5), torch.empty(0, 3) } }
    end
    local function collect(nw)
      local out = {}
      local loader = data.DataLoader(Grow(), { batch_size = false, num_workers = nw, prefetch_factor = nw > 0 and 3 or nil })
      for item in loader() do out[#out + 1] = item end
      return out
    end
    local a, b = collect(0), collect(2)
    assert.are.equal(24, #b)
    for i = 1, 24 do
      assert.is_true(torch.equal(a[i].v, b[i].v), "item " .. i)
      assert.is_true(torch.equal(a[i].m, b[i].m))
      assert.are.equal(a[i].flag, b[i].flag)
      assert.is_true(torch.equal(a[i].nest[1], b[i].nest[1]))
      assert.are.same({ 0, 3 }, { b[i].nest[2].shape[1], b[i].nest[2].shape[2] })
    end
  end)

  it("refuse a message whose tensors have no bytes, or whose slot holds fewer bytes than claimed", function()
    local sink = {}
    local s = torch._encode_value({ torch.ones(3) }, sink)
    assert.are.equal(1, #sink)
    local ok, err = pcall(torch._decode_value, s, "msg")
    assert.is_false(ok)
    assert.matches("msg: not a valid mindtorch file %(a tensor without its bytes%)", err)
    local slot = torch._proc.slot()
    local used = slot:put(sink)
    assert.are.equal(64, used) -- 12 bytes from a 64-byte boundary
    local got = {}
    torch._decode_value(s, "msg", got)
    slot:get(got, used)
    assert.is_true(torch.equal(got[1], torch.ones(3)))
    ok, err = pcall(slot.get, slot, got, used + 64)
    assert.is_false(ok)
    assert.matches("does not match its shared slot", err)
    local big = {}
    torch._decode_value(torch._encode_value({ torch.ones(1000) }, {}), "msg", big)
    ok, err = pcall(slot.get, slot, big, 4032)
    assert.is_false(ok)
    assert.matches("does not match its shared slot", err)
    slot:close()
    ok, err = pcall(slot.put, slot, sink)
    assert.is_false(ok)
    assert.matches("the slot is closed", err)
  end)

  it("work in a generic for without (): loaders, samplers and iterable datasets, epoch after epoch", function()
    local d = data.TensorDataset(torch.arange(10), torch.arange(10) * 2)
    for _, nw in ipairs({ 0, 2 }) do
      local loader = data.DataLoader(d, { batch_size = 4, num_workers = nw })
      for _ = 1, 2 do
        local seen = {}
        for x, y in loader do
          seen[#seen + 1] = x
          assert.is_true(torch.equal(y, x * 2))
        end
        assert.are.equal(3, #seen)
        assert.is_true(torch.equal(torch.cat(seen), torch.arange(10)))
      end
      for x in loader do
        assert.is_true(torch.equal(x, torch.arange(4)))
        break
      end
      for x in loader do -- a loop after a break starts a new epoch
        assert.is_true(torch.equal(x, torch.arange(4)))
        break
      end
    end
    local got = {}
    for i in data.SequentialSampler(d) do got[#got + 1] = i end
    assert.are.same({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, got)
    local Count = data.IterableDataset:subclass("Count")
    function Count:iter()
      local i = 0
      return function()
        i = i + 1
        if i <= 3 then return i end
      end
    end
    got = {}
    for v in Count() do got[#got + 1] = v end
    assert.are.same({ 1, 2, 3 }, got)
  end)
end)
