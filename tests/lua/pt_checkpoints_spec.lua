-- PyTorch checkpoints (lua/mindtorch/serialization_pt.lua): files PyTorch 1.13 wrote
-- (tests/fixtures/pt, made by gen.py) load bit-exactly with their views and shared storages; a
-- PyTorch-trained CNN and LSTM give PyTorch's outputs; mindtorch's .pt files round-trip and
-- PyTorch loads them (when python3-torch is installed); hostile files give clear errors.
local torch = require "mindtorch"
local nn = torch.nn
local run = require "tests.lua.support.run"
local DIR = "tests/fixtures/pt/"
local expected = dofile(DIR .. "expected.lua")

local function same_as(t, e, what)
  assert.are.equal(e.dtype, t.dtype.name, what)
  assert.are.same(e.shape, { table.unpack(t:size()) }, what)
  assert.are.same(e.stride, { table.unpack(t:stride()) }, what)
  assert.are.equal(e.offset, t:storage_offset(), what)
  local flat = t:reshape(-1)
  if t.dtype == torch.float16 or t.dtype == torch.bfloat16 then flat = flat:double() end
  local got = flat:tolist()
  assert.are.equal(#e.values, #got, what)
  for i, v in ipairs(e.values) do
    if v ~= got[i] and not (v ~= v and got[i] ~= got[i]) then
      error(("%s: element %d is %s, PyTorch wrote %s"):format(what, i, tostring(got[i]), tostring(v)))
    end
    if v == 0 and type(v) == "number" and 1 / v ~= 1 / got[i] then error(what .. ": the sign of a zero differs") end
  end
end

local function tmpname(ext)
  local p = os.tmpname()
  os.remove(p)
  return p .. ext
end

describe("PyTorch checkpoints", function()
  it("load every dtype bit-exactly", function()
    local d = torch.load(DIR .. "dtypes.pt")
    local n = 0
    for name, t in pairs(d) do
      same_as(t, expected["dtypes." .. name], name)
      n = n + 1
    end
    assert.are.equal(10, n)
  end)

  it("keep views of one storage as views, with strides, offsets, 0-d, empty and special values", function()
    local v = torch.load(DIR .. "views.pt", { map_location = "cpu" })
    for name, t in pairs(v.views) do same_as(t, expected["views." .. name], name) end
    local ptr = v.views.base:untyped_storage():data_ptr()
    for _, name in ipairs({ "row", "col", "t", "narrow", "step" }) do
      assert.are.equal(ptr, v.views[name]:untyped_storage():data_ptr(), name .. " shares base's storage")
    end
    v.views.base[3][1] = 100 -- a write through one view shows through the others
    assert.are.equal(100, v.views.row[1]:item())
    assert.are.same({ 1, 2, "three", true }, v.nested.list)
    assert.are.same({ 4, 5 }, v.nested.tuple)
    assert.are.equal(42, v.nested.n)
    assert.are.equal("text", v.nested.s)
    assert.are.equal(1 << 40, v.nested.big)
    assert.are.equal(-(1 << 35), v.nested.neg)
  end)

  it("load the legacy (pre-1.6) format, protocols 2 and 4, bit-exactly with views", function()
    local d = torch.load(DIR .. "legacy_dtypes.pt")
    local n = 0
    for name, t in pairs(d) do
      same_as(t, expected["dtypes." .. name], "legacy " .. name)
      n = n + 1
    end
    assert.are.equal(10, n)
    local v = torch.load(DIR .. "legacy_views.pt")
    for name, t in pairs(v.views) do same_as(t, expected["views." .. name], "legacy " .. name) end
    assert.are.equal(v.views.base:untyped_storage():data_ptr(), v.views.t:untyped_storage():data_ptr())
    assert.are.same({ 1, 2, "three", true }, v.nested.list)
  end)

  it("read bytes, sets, None in lists and tuples in pickle protocols 2 and 5", function()
    for _, file in ipairs({ "misc_p2.pt", "misc_p5.pt" }) do
      local v = torch.load(DIR .. file)
      assert.are.equal(256, #v.by, file)
      assert.are.equal(0, v.by:byte(1))
      assert.are.equal(255, v.by:byte(256))
      assert.are.same({ 3 }, v.s, file)
      assert.are.same({ 1, nil, 3 }, v.l, file)
      assert.are.same({ 1.5, "x" }, v.t, file)
      assert.is_true(torch.equal(torch.arange(6.0):view(2, 3), v.w), file)
    end
  end)

  it("read PyTorch 2's byteorder record: little as it is, big with every element's bytes swapped", function()
    for _, file in ipairs({ "dtypes_little.pt", "dtypes_big.pt" }) do
      for name, t in pairs(torch.load(DIR .. file)) do same_as(t, expected["dtypes." .. name], file .. " " .. name) end
    end
  end)

  it("give dicts in the file's order, and state_dicts in PyTorch's order both ways", function()
    local keys = {}
    for k in pairs(torch.load(DIR .. "cnn.pth")) do keys[#keys + 1] = k end
    assert.are.same({ "0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
      "1.num_batches_tracked", "5.weight", "5.bias" }, keys)
    local cnn = nn.Sequential(nn.Conv2d(1, 4, 3, { padding = 1 }), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
      nn.Flatten(), nn.Linear(4 * 4 * 4, 5))
    local mine = {}
    for k in pairs(cnn:state_dict()) do mine[#mine + 1] = k end
    assert.are.same(keys, mine)
    local p = tmpname(".pt")
    torch.save(cnn:state_dict(), p)
    local back = {}
    for k in pairs(torch.load(p)) do back[#back + 1] = k end
    os.remove(p)
    assert.are.same(keys, back)
  end)

  it("place storages as map_location says, and refuse CUDA storages without it as PyTorch does", function()
    for _, m in ipairs({ "cpu", torch.device("cpu"), { ["cuda:0"] = "cpu" } }) do
      assert.are.equal(42, torch.load(DIR .. "views.pt", { map_location = m }).nested.n)
    end
    local seen = {}
    local v = torch.load(DIR .. "views.pt", { map_location = function(storage, location)
      seen[#seen + 1] = location
      return storage:clone()
    end })
    assert.are.same({ "cpu", "cpu", "cpu", "cpu" }, seen) -- one call per storage: base, zero_d, empty, special
    assert.is_true(torch.equal(v.views.t, torch.arange(24.0):view(4, 6):t()))
    local PT = require("mindtorch.serialization_pt")(torch)
    local p = tmpname(".pt")
    local f = assert(io.open(p, "wb"))
    f:write(PT._zip({ { "a/data.pkl", "\128\2ctorch._utils\n_rebuild_tensor_v2\n((X\7\0\0\0storagectorch\n"
      .. "FloatStorage\nX\1\0\0\0" .. "0X\6\0\0\0cuda:0K\2tQK\0K\2\133K\1\133\137ccollections\nOrderedDict\n)RtR." },
      { "a/data/0", string.pack("<ff", 1.5, -2) }, { "a/version", "3\n" } }))
    f:close()
    local ok, err = pcall(torch.load, p)
    assert.is_false(ok)
    assert.truthy(err:find("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False",
      1, true), err)
    assert.are.same({ 1.5, -2 }, torch.load(p, { map_location = "cpu" }):tolist())
    assert.are.same({ 1.5, -2 }, torch.load(p, { map_location = { ["cuda:0"] = "cpu" } }):tolist())
    os.remove(p)
  end)

  it("load PyTorch-trained CNN and LSTM state_dicts into the same models, with PyTorch's outputs", function()
    local cnn = nn.Sequential(nn.Conv2d(1, 4, 3, { padding = 1 }), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
      nn.Flatten(), nn.Linear(4 * 4 * 4, 5)):double()
    cnn:load_state_dict(torch.load(DIR .. "cnn.pth"))
    cnn:eval()
    local x = torch.linspace(-1, 1, 2 * 64, { dtype = torch.float64 }):reshape(2, 1, 8, 8)
    local e = expected["cnn.out"]
    local want = torch.tensor(e.values, { dtype = torch.float64 }):view(e.shape)
    assert.is_true((cnn(x) - want):abs():max():item() < 1e-12)
    local lstm = nn.LSTM(3, 5, { num_layers = 2, batch_first = true }):double()
    lstm:load_state_dict(torch.load(DIR .. "lstm.pth"))
    local xl = torch.linspace(-1, 1, 2 * 4 * 3, { dtype = torch.float64 }):reshape(2, 4, 3)
    e = expected["lstm.out"]
    want = torch.tensor(e.values, { dtype = torch.float64 }):view(e.shape)
    assert.is_true((lstm(xl) - want):abs():max():item() < 1e-12)
  end)

  it("are written by torch.save for .pt and .pth paths, and read back with views and sharing", function()
    local a = torch.arange(12.0):view(3, 4)
    local obj = { sd = { w = a, row = a[2], t = a:t(), h = torch.ones(2, { dtype = torch.float16 }),
      i = torch.arange(3, { dtype = torch.int8 }), b = torch.tensor({ true, false }), z = torch.tensor(2.5),
      e = torch.empty(0) }, n = 3, s = "x", l = { 1, "two", false }, f = 0.25 }
    for _, ext in ipairs({ ".pt", ".pth" }) do
      local p = tmpname(ext)
      torch.save(obj, p)
      local f = io.open(p, "rb")
      assert.are.equal("PK\3\4", f:read(4))
      f:close()
      local back = torch.load(p)
      os.remove(p)
      for k, t in pairs(obj.sd) do
        assert.is_true(torch.equal(t, back.sd[k]), k)
        assert.are.same({ table.unpack(t:stride()) }, { table.unpack(back.sd[k]:stride()) }, k)
      end
      assert.are.equal(back.sd.w:untyped_storage():data_ptr(), back.sd.row:untyped_storage():data_ptr())
      assert.are.same({ 1, "two", false }, back.l)
      assert.are.equal(0.25, back.f)
    end
    -- other names keep mindtorch's format; {format = "pt"} chooses PyTorch's for any name
    local p = tmpname(".t7")
    torch.save(obj, p)
    local f = io.open(p, "rb")
    assert.are.equal("MTSAVE", f:read(6))
    f:close()
    torch.save(obj, p, { format = "pt" })
    f = io.open(p, "rb")
    assert.are.equal("PK\3\4", f:read(4))
    f:close()
    os.remove(p)
    local ok, err = pcall(torch.save, obj, p, { format = "zip" })
    assert.is_false(ok)
    assert.matches('format must be "pt" or "mindtorch"', err)
    -- a whole module goes to mindtorch's format under a .pt name (save_objects_spec); asked for
    -- PyTorch's format, it is refused
    ok, err = pcall(torch.save, nn.Linear(2, 2), tmpname(".pt"), { format = "pt" })
    assert.is_false(ok)
    assert.matches("a module in PyTorch's format: save module:state_dict%(%)", err)
  end)

  it("written by mindtorch load in PyTorch 1.13 with weights_only = True, bit-exactly", function()
    if not os.execute("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") then
      pending("python3-torch is not installed")
      return
    end
    local p = tmpname(".pt")
    local a = torch.arange(-6, 18):view(4, 6)
    local sd = {}
    for _, dt in ipairs({ "float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8" }) do
      sd[dt] = (dt == "uint8" and a + 6 or a):to(torch[dt]) * (dt:match("float") and 1 or 1)
    end
    sd.bool = a:gt(3)
    sd.view_t = sd.float64:t()
    sd.view_row = sd.float64[2]
    sd.zero_d = torch.tensor(3, { dtype = torch.int64 })
    sd.empty = torch.empty(0, 2)
    torch.save({ sd = sd, n = 7, l = { 1, 2, "x" } }, p)
    local cnn = nn.Sequential(nn.Conv2d(1, 4, 3, { padding = 1 }), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
      nn.Flatten(), nn.Linear(4 * 4 * 4, 5))
    local p2 = tmpname(".pth")
    torch.save(cnn:state_dict(), p2)
    local x = torch.linspace(-1, 1, 2 * 64):reshape(2, 1, 8, 8)
    cnn:eval()
    local want = cnn(x):reshape(-1):tolist()
    local script = ([[
import collections
import torch
from torch import nn
v = torch.load(%q, weights_only=True)
sd = v['sd']
a = torch.arange(-6, 18).reshape(4, 6)
for dt in ('float32', 'float64', 'float16', 'bfloat16', 'int8', 'int16', 'int32', 'int64', 'uint8'):
    want = (a + 6 if dt == 'uint8' else a).to(getattr(torch, dt))
    assert sd[dt].dtype == want.dtype and torch.equal(sd[dt], want), dt
assert torch.equal(sd['bool'], a > 3)
assert sd['view_t'].stride() == (1, 6) and torch.equal(sd['view_t'], sd['float64'].t())
assert sd['view_row'].storage_offset() == 6 and sd['view_row'].storage().data_ptr() == sd['float64'].storage().data_ptr()
assert sd['zero_d'].dim() == 0 and sd['zero_d'].item() == 3 and sd['empty'].shape == (0, 2)
assert v['n'] == 7 and v['l'] == [1, 2, 'x']
sd = torch.load(%q, weights_only=True)
assert type(sd) is collections.OrderedDict, type(sd)
cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                    nn.Linear(4 * 4 * 4, 5))
assert list(sd.keys()) == list(cnn.state_dict().keys()), list(sd.keys())
cnn.load_state_dict(sd)
cnn.eval()
got = cnn(torch.linspace(-1, 1, 2 * 64).reshape(2, 1, 8, 8)).reshape(-1)
assert (got - torch.tensor([%s])).abs().max() < 1e-5
print('ok')
]]):format(p, p2, table.concat(want, ", "))
    local sp = tmpname(".py")
    local f = assert(io.open(sp, "w"))
    f:write(script)
    f:close()
    local out, status = run("/usr/bin/python3 " .. sp)
    os.remove(sp)
    os.remove(p)
    os.remove(p2)
    assert.are.equal(0, status, out)
    assert.are.equal("ok\n", out)
  end)
end)

describe("hostile PyTorch checkpoints", function()
  local PT = require("mindtorch.serialization_pt")(torch)
  local function file_of(entries)
    local p = tmpname(".pt")
    local f = assert(io.open(p, "wb"))
    f:write(type(entries) == "string" and entries or PT._zip(entries))
    f:close()
    return p
  end
  local function fails(bytes_or_entries, pattern)
    local p = file_of(bytes_or_entries)
    local ok, err = pcall(torch.load, p)
    os.remove(p)
    assert.is_false(ok, "loaded a hostile file")
    assert.truthy(tostring(err):find(pattern, 1, true), tostring(err))
  end
  local function pkl(body) return { { "a/data.pkl", "\128\2" .. body .. "." }, { "a/version", "3\n" } } end
  local good = io.open("tests/fixtures/pt/views.pt", "rb"):read("a")

  it("refuse globals outside PyTorch's weights_only allow-list, naming them, and never call them", function()
    fails(pkl("cos\nsystem\n(X\5\0\0\0touchtR"), "Weights only load failed: Unsupported class os.system")
    fails(pkl("cbuiltins\neval\n"), "Unsupported class builtins.eval")
    fails(pkl("\140\5posix\140\6system\147"), "Unsupported class posix.system") -- STACK_GLOBAL
    -- an allowed global that is not a function PyTorch's loader calls
    fails(pkl("ctorch\nFloatStorage\n)R"), "Trying to call reduce for unrecognized function torch.FloatStorage")
    fails(pkl("ccollections\nOrderedDict\n)\129"), "Trying to instantiate unsupported class collections.OrderedDict")
    fails(pkl("(X\3\0\0\0abcQ"), "unsupported persistent id encountered")
  end)

  it("check every size, offset and count against the file", function()
    local function tensor(size, stride, offset, numel, record)
      return { { "a/data.pkl", "\128\2ctorch._utils\n_rebuild_tensor_v2\n((X\7\0\0\0storagectorch\nFloatStorage\nX\1\0\0\0"
        .. "0X\3\0\0\0cpuJ" .. string.pack("<i4", numel) .. "tQJ" .. string.pack("<i4", offset) .. size .. stride
        .. "\137ccollections\nOrderedDict\n)RtR." }, { "a/data/0", record }, { "a/version", "3\n" } }
    end
    local rec = string.rep("\0", 16)
    assert.is_true(torch.is_tensor(torch.load(file_of(tensor("K\4\133", "K\1\133", 0, 4, rec))))) -- the sane one
    fails(tensor("K\5\133", "K\1\133", 0, 4, rec), "a tensor reaches past its storage")
    fails(tensor("K\2\133", "K\1\133", 3, 4, rec), "a tensor reaches past its storage")
    fails(tensor("\138\8" .. string.pack("<i8", 1 << 62) .. "\133", "\138\8" .. string.pack("<i8", 1 << 62) .. "\133",
      0, 4, rec), "a tensor's sizes overflow")
    fails(tensor("K\3K\2\134", "\138\8" .. string.pack("<i8", 1 << 62) .. "\138\8" .. string.pack("<i8", 1 << 62) .. "\134",
      0, 4, rec), "extent overflows")
    -- a broadcast view (stride 0) of more elements than a size can count
    fails(tensor("\138\8" .. string.pack("<i8", 1 << 40) .. "\138\8" .. string.pack("<i8", 1 << 40) .. "\134",
      "K\0K\0\134", 0, 4, rec), "a tensor's sizes overflow")
    fails(tensor("K\4\133", "K\1\133", 0, 8, rec), "storage 0: 8 elements of 4 bytes in a record of 16 bytes")
    fails(tensor("K\4\133", "K\1\133", 0, -1, rec), "a storage size that is not a count")
    fails(tensor("\138\1\255\133", "K\1\133", 0, 4, rec), "sizes holds a value that is not a size")
  end)

  it("refuse truncated, damaged and compressed archives and bad pickles", function()
    fails(good:sub(1, #good // 2), "no zip end of central directory")
    fails(good:sub(1, 100), "no zip end of central directory")
    fails("PK\3\4", "too short for a zip archive")
    local bad = good:gsub("storage", "storagX", 1) -- one byte of data.pkl changed: the CRC no longer holds
    fails(bad, "fails its CRC-32 check")
    -- a central directory entry claiming deflate (a zip bomb would be one)
    local cd = good:find("PK\1\2", 1, true)
    fails(good:sub(1, cd + 9) .. "\8\0" .. good:sub(cd + 12), "is compressed (method 8)")
    fails(pkl("K"), "the pickle is truncated")
    fails(pkl("t"), "a pickle MARK is missing")
    fails(pkl("h\9"), "the pickle reads memo 9 before writing it")
    fails(pkl("\255"), "pickle opcode 0xff is not supported")
    fails(pkl("a"), "the pickle's stack underflows")
    fails({ { "a/data.pkl", "\128\9." } }, "pickle protocol 9")
    fails({ { "a/version", "3\n" } }, "no data.pkl record")
    fails({ { "a/data.pkl", "\128\2N." }, { "a/version", "9\n" } }, "file format version 9")
    fails({ { "a/data.pkl", "\128\2N." }, { "a/byteorder", "middle" } }, "a byteorder record that is not 'little' or 'big'")
    -- two entries over the same bytes (the overlapping-entries zip bomb): a central directory
    -- entry pointed at the first entry's local header
    local entries = { { "a/data.pkl", "\128\2N." }, { "a/data/0", string.rep("x", 64) }, { "a/data/1", "y" } }
    local z = PT._zip(entries)
    local cds = {}
    for at in z:gmatch("()PK\1\2") do cds[#cds + 1] = at end
    local third = cds[3]
    z = z:sub(1, third + 41) .. z:sub(cds[2] + 42, cds[2] + 45) .. z:sub(third + 46)
    fails(z, "entries whose data overlap")
    fails(pkl("(X\7\0\0\0storagectorch\nFloatStorage\nX\1\0\0\0" .. "7X\3\0\0\0cpuK\1tQ"),
      "no record a/data/7 for storage 7")
  end)

  it("refuse bad legacy files and bad options by name", function()
    local magic = "\128\2\138\10\108\252\156\70\249\32\106\168\80\25."
    local info = "\128\2}."
    local value = "\128\2ctorch._utils\n_rebuild_tensor_v2\n((X\7\0\0\0storagectorch\nFloatStorage\nX\1\0\0\0"
      .. "0X\3\0\0\0cpuK\4NtQK\0K\4\133K\1\133\137ccollections\nOrderedDict\n)RtR."
    local keys = "\128\2]X\1\0\0\0" .. "0a."
    local data = string.pack("<i8", 4) .. string.rep("\0", 16)
    local function legacy(parts) return table.concat(parts) end
    local proto = "\128\2M\233\3."
    assert.is_true(torch.is_tensor(torch.load(file_of(legacy({ magic, proto, info, value, keys, data }))))) -- the sane one
    fails(legacy({ magic:gsub("\25", "\26"), proto }), "Invalid magic number; corrupt file?")
    fails(legacy({ magic, "\128\2M\234\3.", info }), "Invalid protocol version: 1002")
    fails(legacy({ magic, proto, info, value, keys, string.pack("<i8", 5) .. string.rep("\0", 20) }),
      "storage has wrong byte size: expected 16 got 20")
    fails(legacy({ magic, proto, info, value, keys, data:sub(1, 20) }), "storage 0 is truncated")
    fails(legacy({ magic, proto, info, value, keys, data .. "x" }), "trailing data after the last storage")
    fails(legacy({ magic, proto, info, value, "\128\2]." }), "storage 0 has no data in the file")
    fails(legacy({ magic, proto, info, value, "\128\2]X\1\0\0\0" .. "1a." }), "storage key 1 is not a storage")
    -- a storage bigger than the file is refused before anything is allocated
    fails(legacy({ magic, proto, info, value:gsub("K\4NtQ", "J\0\0\0\64NtQ"), keys, data }),
      "storage 0: 1073741824 elements of 4 bytes in a file of")
    fails(legacy({ magic, proto, info, value:gsub("NtQ", "(X\1\0\0\0vK\3K\2ttQ"), keys, data }),
      "a storage view past its storage")
    fails(legacy({ magic, proto, "\128\2cos\nsystem\n." }), "Unsupported class os.system")
    -- PyTorch 0.3's tar archives
    local tar = string.rep("\0", 257) .. "ustar" .. string.rep("\0", 250)
    fails("storages" .. tar:sub(9), "the tar format of PyTorch 0.3 and earlier")
    local ok, err = pcall(torch.load, DIR .. "views.pt", { mmap = true })
    assert.is_false(ok)
    assert.matches("torch.load%(%) got an unexpected keyword argument 'mmap'", err)
    ok, err = pcall(torch.load, DIR .. "views.pt", { map_location = "meta" })
    assert.is_false(ok)
    assert.matches("map_location meta", err)
    ok, err = pcall(torch.load, DIR .. "views.pt", { map_location = 3 })
    assert.is_false(ok)
    assert.matches("map_location must be a device, a device name, a table of locations or a function, not a number", err)
  end)
end)
