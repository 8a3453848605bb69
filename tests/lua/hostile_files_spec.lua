-- hostile_files_spec.lua: crafted files against every reader (torch.load, load_safetensors, the
-- IDX reader, frombuffer) end in a clear error or a correct result, and torch.save leaves no
-- temporary file behind. Files are built in a fresh temporary directory, never in the tree.
local torch = require "mindtorch"

local dir
local function path(name) return dir .. "/" .. name end
local files = require "tests.lua.support.files"
local put, get = files.write, files.read
local function listing()
  local p = assert(io.popen("ls -A '" .. dir .. "'"))
  local names = {}
  for line in p:lines() do names[#names + 1] = line end
  p:close()
  table.sort(names)
  return names
end
-- the error of f(...), which must fail
local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(e)
end
local function has(s, sub) assert(s:find(sub, 1, true), ("%q does not contain %q"):format(s, sub)) end

before_each(function()
  dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
end)
after_each(function() os.execute("rm -rf '" .. dir .. "'") end)

-- a mindtorch checkpoint from body bytes (magic included), its CRC recomputed as an attacker would
local MAGIC = "MTSAVE\0\1"
local function checkpoint(name, body) return put(path(name), body .. string.pack("<I4", torch._crc32(body))) end
local function tensor_record(dtype, sizes, nbytes, data)
  local parts = { string.pack("<c1s1B", "T", dtype, #sizes) }
  for _, v in ipairs(sizes) do parts[#parts + 1] = string.pack("<i8", v) end
  parts[#parts + 1] = string.pack("<i8", nbytes) .. data
  return table.concat(parts)
end

describe("torch.load of altered checkpoints", function()
  it("refuses sizes whose product overflows (a [2^62+3, 4] tensor over 48 bytes)", function()
    local p = checkpoint("a.mt", MAGIC .. tensor_record("float32", { (1 << 62) + 3, 4 }, 48, ("\0"):rep(48)))
    has(err_of(torch.load, p), "not a valid mindtorch file (tensor data does not match its shape)")
    p = checkpoint("b.mt", MAGIC .. tensor_record("float32", { 1 << 32, 1 << 32 }, 0, ""))
    has(err_of(torch.load, p), "does not match its shape")
    -- zeros do not hide an overflowing stride
    p = checkpoint("c.mt", MAGIC .. tensor_record("float32", { 0, 1 << 40, 1 << 40 }, 0, ""))
    has(err_of(torch.load, p), "does not match its shape")
  end)

  it("refuses byte lengths beyond the file, negative (past 2^63) or not matching the shape", function()
    local p = checkpoint("a.mt", MAGIC .. tensor_record("float32", { 4 }, 1 << 40, ("\0"):rep(16)))
    has(err_of(torch.load, p), "does not match its shape")
    p = checkpoint("b.mt", MAGIC .. tensor_record("float32", { 4 }, -16, ("\0"):rep(16)))
    has(err_of(torch.load, p), "does not match its shape")
    p = checkpoint("c.mt", MAGIC .. tensor_record("float32", { 4 }, 16, ("\0"):rep(8)))
    has(err_of(torch.load, p), "truncated")
    p = checkpoint("d.mt", MAGIC .. tensor_record("float32", { -1, -4 }, 16, ("\0"):rep(16)))
    has(err_of(torch.load, p), "bad tensor size -1")
  end)

  it("refuses more dimensions than a tensor may have and unknown dtypes", function()
    local sizes = {}
    for i = 1, 17 do sizes[i] = 1 end
    local p = checkpoint("a.mt", MAGIC .. tensor_record("float32", sizes, 4, "\0\0\0\0"))
    has(err_of(torch.load, p), "a tensor of 17 dimensions (at most 16)")
    p = checkpoint("b.mt", MAGIC .. tensor_record("complex128", { 1 }, 16, ("\0"):rep(16)))
    has(err_of(torch.load, p), 'unknown dtype "complex128"')
  end)

  it("loads honest edge cases correctly: empty tensors with large sizes, scalars", function()
    local p = checkpoint("a.mt", MAGIC .. tensor_record("int32", { 0, 1 << 40 }, 0, ""))
    local t = torch.load(p)
    assert.are.same({ 0, 1 << 40 }, { t.shape[1], t.shape[2] })
    assert.are.equal(torch.int32, t.dtype)
    p = checkpoint("b.mt", MAGIC .. tensor_record("float64", {}, 8, string.pack("<d", 2.5)))
    assert.are.equal(2.5, torch.load(p):item())
  end)

  it("bounds a table count by the file, so a huge count fails at once", function()
    local p = checkpoint("a.mt", MAGIC .. string.pack("<c1I4", "t", 0xffffffff) .. ("b\1b\1"):rep(250))
    local t0 = os.clock()
    has(err_of(torch.load, p), "a table count larger than the file")
    assert.is_true(os.clock() - t0 < 1)
  end)

  it("refuses nesting deeper than 200 tables, when saving and when loading", function()
    local p = checkpoint("a.mt", MAGIC .. (string.pack("<c1I4", "t", 1) .. "i" .. string.pack("<i8", 1)):rep(5000) .. "0")
    has(err_of(torch.load, p), "tables nested deeper than 200 levels")
    local deep = {}
    for _ = 1, 300 do deep = { deep } end
    has(err_of(torch.save, deep, path("deep.mt")), "nested deeper than 200 levels")
    local ok = {}
    for _ = 1, 150 do ok = { ok } end
    torch.save(ok, path("ok.mt"))
    local back = torch.load(path("ok.mt"))
    for _ = 1, 150 do back = back[1] end
    assert.are.same({}, back)
  end)

  it("refuses booleans other than 0 and 1, keys that are not strings or numbers, NaN keys", function()
    has(err_of(torch.load, checkpoint("a.mt", MAGIC .. "b\7")), "bad boolean")
    has(err_of(torch.load, checkpoint("b.mt", MAGIC .. "b")), "truncated")
    local key_table = MAGIC .. string.pack("<c1I4", "t", 1) .. string.pack("<c1I4", "t", 0) .. "b\1"
    has(err_of(torch.load, checkpoint("c.mt", key_table)), "a table key is table")
    local nan_key = MAGIC .. string.pack("<c1I4", "t", 1) .. string.pack("<c1d", "f", 0 / 0) .. "b\1"
    has(err_of(torch.load, checkpoint("d.mt", nan_key)), "a table key is NaN")
    has(err_of(torch.load, checkpoint("e.mt", MAGIC .. "s" .. string.pack("<I4", 1 << 31) .. "abc")), "truncated")
  end)

  it("gives PyTorch's errors for a missing file, a directory and a wrong argument", function()
    assert.are.equal("[Errno 2] No such file or directory: '" .. path("none.mt") .. "'", err_of(torch.load, path("none.mt")))
    assert.are.equal("[Errno 21] Is a directory: '" .. dir .. "'", err_of(torch.load, dir))
    has(err_of(torch.load, 42), "torch.load(path): path must be a string, got number")
    -- a device that never ends: an error at once, not memory without bound
    assert.are.equal("/dev/zero: not a regular file (reading goes past its size)", err_of(torch.load, "/dev/zero"))
    has(err_of(torch.load_safetensors, "/dev/zero"), "not a regular file")
    has(err_of(torch.load, put(path("empty.mt"), "")), "no mindtorch header")
  end)
end)

describe("torch.save's temporary file", function()
  it("is gone after a successful save, after a value that cannot be saved and after a failed rename", function()
    local target = path("model.mt")
    torch.save({ w = torch.ones(3) }, target)
    assert.are.same({ "model.mt" }, listing())
    has(err_of(torch.save, { ok = 1, bad = coroutine.create(function() end) }, target), "a value of type thread cannot be saved")
    assert.are.same({ "model.mt" }, listing())
    -- renaming over a non-empty directory fails after the data was written and fsynced
    assert(os.execute("mkdir -p '" .. path("taken") .. "/inside'"))
    has(err_of(torch.save, { 1 }, path("taken")), "could not write " .. path("taken"))
    assert.are.same({ "model.mt", "taken" }, listing())
    assert.is_true(torch.equal(torch.ones(3), torch.load(target).w))
  end)

  it("does not let a stale temporary file of a killed save break or pile up", function()
    local target = path("model.mt")
    put(target .. ".mt-tmp", "half a checkpoint from a save that was killed")
    os.execute("chmod 444 '" .. target .. ".mt-tmp'")
    torch.save({ step = 7 }, target)
    assert.are.same({ "model.mt" }, listing())
    assert.are.equal(7, torch.load(target).step)
  end)

  it("fsyncs through torch._fsync, which takes an open file or a path", function()
    local f = assert(io.open(path("x"), "wb"))
    f:write("data")
    torch._fsync(f)
    f:close()
    torch._fsync(dir)
    has(err_of(torch._fsync, path("none")), "[Errno 2] No such file or directory")
    has(err_of(torch._fsync, f), "closed")
  end)
end)

-- a safetensors file from a header string and data bytes
local function safetensors(name, header, data, len)
  return put(path(name), string.pack("<I8", len or #header) .. header .. (data or ""))
end

describe("load_safetensors of crafted files", function()
  it("refuses a shape whose size overflows or does not match its byte range", function()
    local p = safetensors("a.st", '{"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}}')
    has(err_of(torch.load_safetensors, p), "the data of x (0 bytes) does not match its shape and dtype")
    p = safetensors("b.st", '{"x":{"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,0]}}')
    has(err_of(torch.load_safetensors, p), "does not match its shape")
    p = safetensors("c.st", '{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}}', ("\0"):rep(16))
    has(err_of(torch.load_safetensors, p), "the data of x (16 bytes) does not match")
    p = safetensors("d.st", '{"x":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}}', ("\0"):rep(16))
    has(err_of(torch.load_safetensors, p), "not a list of non-negative integers")
    p = safetensors("e.st", '{"x":{"dtype":"F32","shape":[4.5],"data_offsets":[0,16]}}', ("\0"):rep(16))
    has(err_of(torch.load_safetensors, p), "not a list of non-negative integers")
    p = safetensors("f.st", '{"x":{"dtype":"C64","shape":[2],"data_offsets":[0,16]}}', ("\0"):rep(16))
    has(err_of(torch.load_safetensors, p), "unsupported dtype C64 for x")
  end)

  it("refuses negative, huge and out-of-file header lengths", function()
    local h = '{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}'
    has(err_of(torch.load_safetensors, safetensors("a.st", h, "\1", -8)), "header too large")
    has(err_of(torch.load_safetensors, safetensors("b.st", h, "\1", 100000001)), "header too large")
    has(err_of(torch.load_safetensors, safetensors("c.st", h, "\1", #h + 2)), "header length beyond the end of the file")
    has(err_of(torch.load_safetensors, put(path("d.st"), "\1\0\0")), "too short")
  end)

  it("refuses trailing garbage after the JSON header but accepts the writers' space padding", function()
    local h = '{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}'
    has(err_of(torch.load_safetensors, safetensors("a.st", h .. "garbage", "\1")), "trailing data after the JSON object")
    has(err_of(torch.load_safetensors, safetensors("b.st", h .. "}", "\1")), "trailing data")
    assert.are.same({ 1 }, torch.load_safetensors(safetensors("c.st", h .. "      ", "\1")).x:tolist())
    has(err_of(torch.load_safetensors, safetensors("d.st", "[" .. h .. "]", "\1")), "does not start with '{'")
  end)

  it("requires the byte ranges to tile the data buffer exactly", function()
    local two = '{"a":{"dtype":"U8","shape":[2],"data_offsets":[%d,%d]},"b":{"dtype":"U8","shape":[2],"data_offsets":[%d,%d]}}'
    -- a gap, an overlap, bytes left over, bytes missing
    has(err_of(torch.load_safetensors, safetensors("a.st", two:format(0, 2, 3, 5), "12345")), "must tile the data")
    has(err_of(torch.load_safetensors, safetensors("b.st", two:format(0, 2, 1, 3), "123")), "must tile the data")
    has(err_of(torch.load_safetensors, safetensors("c.st", two:format(0, 2, 2, 4), "12345")),
      "the tensors cover 4 bytes of a 5-byte data buffer")
    has(err_of(torch.load_safetensors, safetensors("d.st", two:format(0, 2, 2, 4), "123")), "out of range")
    local t = torch.load_safetensors(safetensors("e.st", two:format(2, 4, 0, 2), "1234"))
    assert.are.same({ 51, 52 }, t.a:tolist())
    assert.are.same({ 49, 50 }, t.b:tolist())
  end)

  it("refuses malformed JSON, entries and metadata with clear errors, not internal ones", function()
    local cases = {
      { '{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}',
        'duplicate key "x"' },
      { '{"x":5}', "the entry of x is not an object" },
      { '{"x":{"dtype":"U8","shape":[1]}}', "data offsets of x are not [begin, end]" },
      { '{"x":{"dtype":"U8","shape":[1],"data_offsets":[0]}}', "data offsets of x are not [begin, end]" },
      { '{"x":{"dtype":"U8","shape":[1],"data_offsets":[1,0]}}', "data offsets of x are not [begin, end]" },
      { '{"x":{"dtype":"U8","shape":5,"data_offsets":[0,1]}}', "the shape of x is not a list" },
      { '{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1e400]}}', "data offsets of x are not [begin, end]" },
      { '{"__metadata__":{"a":1}}', "__metadata__ maps strings to strings only" },
      { '{"__metadata__":[]}', "__metadata__ is not an object" },
      { '{"x":{"dtype":"U8","shape":{"1":1},"data_offsets":[0,1]}}', "the shape of x is not a list" },
      { '{"x":[]}', "the entry of x is not an object" },
      { '{"__metadata__":"x"}', "__metadata__ is not an object" },
      { '{"x":"\\u-001"}', "bad escape" },
      { '{"x":"abc', "unterminated string" },
      { '{"x" 1}', "expected ':'" },
      { '{"x":-}', "unexpected character" },
      { '{"x":{"dtype":"U8","shape":[01],"data_offsets":[0,1]}}', "a malformed number" },
      { '{"x":{"dtype":"U8","shape":[1.],"data_offsets":[0,1]}}', "a malformed number" },
      { '{"x":{"dtype":"U8","shape":[1e],"data_offsets":[0,1]}}', "a malformed number" },
      { '{"x":{"dtype":"U8","shape":[1.0],"data_offsets":[0,1]}}', "the shape of x is not a list of non-negative integers" },
      { '{"x":{"dtype":"U8","shape":[1e0],"data_offsets":[0,1]}}', "the shape of x is not a list of non-negative integers" },
      { '{"x":{"dtype":"U8","shape":[9223372036854775808],"data_offsets":[0,1]}}', "the shape of x is not a list of non-negative integers" },
      -- integers are exact past 2^53 (a reader of doubles would see 9007199254740992)
      { '{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,9007199254740993]}}', "the data of x (9007199254740993 bytes)" },
      { ("["):rep(100000), "does not start with '{'" },
      { '{"x":' .. ("["):rep(100000), "nested too deeply" },
      { '{"x":"\255"}', "the header is not UTF-8" },
      { '{"x":"a\1b"}', "a control character in a string" },
      { '{"x":{"dtype":"U8","shape":[' .. ("1,"):rep(64) .. '1],"data_offsets":[0,1]}}', "an array of more than 64 elements" },
    }
    for i, c in ipairs(cases) do
      local e = err_of(torch.load_safetensors, safetensors(i .. ".st", c[1], "\1"))
      has(e, "not a valid safetensors file")
      has(e, c[2])
    end
    assert.are.equal("[Errno 2] No such file or directory: '" .. path("x") .. "'", err_of(torch.load_safetensors, path("x")))
    assert.are.equal("[Errno 21] Is a directory: '" .. dir .. "'", err_of(torch.load_safetensors, dir))
    has(err_of(torch.load_safetensors), "path must be a string, got nil")
    has(err_of(torch.load_safetensors, { "a.st" }), "path must be a string, got table")
    has(err_of(torch.save_safetensors, nil, path("s.st")), "expects a table of name = tensor, got nil")
    has(err_of(torch.save_safetensors, { x = 1 }, path("s.st")), "expects a table of name = tensor")
    has(err_of(torch.save_safetensors, { x = torch.ones(1) }, path("s.st"), "m"), "metadata must be a table of strings")
    has(err_of(torch.save_safetensors, { x = torch.ones(1) }, path("s.st"), { [1] = "a" }), "metadata keys must be strings")
    for _, name in ipairs(listing()) do assert.is_nil(name:find("^s%.st")) end -- nothing written, no temporary left
  end)

  it("reads a long metadata string in one piece, in memory a small multiple of its size", function()
    local long = ("abc\\n"):rep(200000) -- 1 MB of JSON, escapes included
    collectgarbage()
    local before = collectgarbage("count")
    local _, meta = torch.load_safetensors(safetensors("a.st", '{"__metadata__":{"k":"' .. long .. '"}}'))
    assert.are.equal(("abc\n"):rep(200000), meta.k)
    assert.is_true(collectgarbage("count") - before < 64 * 1024)
  end)

  it("loads empty tensors and scalars, and an empty file of tensors", function()
    local h = '{"e":{"dtype":"F32","shape":[0,1099511627776],"data_offsets":[0,0]},"s":{"dtype":"I16","shape":[],"data_offsets":[0,2]}}'
    local t = torch.load_safetensors(safetensors("a.st", h, string.pack("<i2", -3)))
    assert.are.same({ 0, 1 << 40 }, { t.e.shape[1], t.e.shape[2] })
    -- sizes past 2^53 are read exactly
    h = '{"e":{"dtype":"U8","shape":[0,9007199254740993],"data_offsets":[0,0]}}'
    assert.are.equal(9007199254740993, torch.load_safetensors(safetensors("c.st", h)).e.shape[2])
    assert.are.equal(-3, t.s:item())
    assert.are.same({}, torch.load_safetensors(safetensors("b.st", "{}")))
  end)
end)

-- IDX files (big-endian header: magic 0x0000 08 nd, then nd u32 sizes), gzipped with the system's gzip
local function idx(name, magic, dims, data, gz)
  local parts = { string.pack(">I4", magic) }
  for _, d in ipairs(dims) do parts[#parts + 1] = string.pack(">I4", d) end
  local p = put(path(name), table.concat(parts) .. data)
  if gz then
    assert(os.execute("gzip -f '" .. p .. "'"))
    p = p .. ".gz"
  end
  return p
end
local read_idx = torch.utils.data.datasets._read_idx

describe("the IDX reader", function()
  it("reads an honest file, gzipped or plain", function()
    local p = idx("l", 2049, { 5 }, "\0\1\2\3\4", true)
    assert.are.same({ 0, 1, 2, 3, 4 }, read_idx(p, 2049):tolist())
    p = idx("m", 2051, { 2, 1, 2 }, "\9\8\7\6")
    assert.are.same({ { { 9, 8 } }, { { 7, 6 } } }, read_idx(p .. ".gz", 2051):tolist())
  end)

  it("checks the magic before inflating anything: a gzip bomb costs no memory", function()
    local p = path("bomb")
    -- 200 MB of zeros in about 200 KB: a wrong magic, then a header claiming 60 bytes
    assert(os.execute("head -c 200000000 /dev/zero | gzip -1 > '" .. p .. "'"))
    local before = collectgarbage("count")
    has(err_of(read_idx, p, 2049), "not an IDX file of the expected kind (magic number 0, expected 2049)")
    put(path("hdr"), string.pack(">I4I4", 2049, 60))
    assert(os.execute("cat '" .. path("hdr") .. "' /dev/zero | head -c 200000000 | gzip -1 > '" .. p .. "'"))
    has(err_of(read_idx, p, 2049), "inflated data is longer than the 68 bytes its header allows")
    assert.is_true(collectgarbage("count") - before < 4096)
  end)

  it("refuses truncated headers and data, overflowing dimensions, missing files", function()
    has(err_of(read_idx, idx("a", 2049, {}, ""), 2049), "truncated header")
    has(err_of(read_idx, put(path("b"), "\0\0"), 2049), "truncated header")
    has(err_of(read_idx, idx("c", 2049, { 5 }, "\1\2"), 2049), "truncated (2 bytes of data, 5 expected)")
    has(err_of(read_idx, idx("d", 2051, { 0xffffffff, 0xffffffff, 0xffffffff }, ""), 2051), "its dimensions overflow")
    has(err_of(read_idx, idx("e", 2051, { 1 << 20, 1 << 20, 1 << 20 }, "\1\2\3"), 2051),
      "truncated (3 bytes of data, 1152921504606846976 expected)")
    assert.are.equal("[Errno 2] No such file or directory: '" .. path("none.gz") .. "'", err_of(read_idx, path("none.gz"), 2049))
    local empty = read_idx(idx("f", 2051, { 0, 28, 28 }, ""), 2051)
    assert.are.same({ 0, 28, 28 }, { empty.shape[1], empty.shape[2], empty.shape[3] })
  end)

  it("bounds torch._gunzip by the caller's maximum, or returns the head", function()
    local p = idx("g", 2049, { 3 }, "abc", true)
    assert.are.equal(11, #torch._gunzip(p))
    assert.are.equal(string.pack(">I4", 2049), torch._gunzip(p, 4, true))
    has(err_of(torch._gunzip, p, 10), "longer than the 10 bytes")
    has(err_of(torch._gunzip, p, -1), "max must be non-negative")
  end)
end)

describe("torch.frombuffer's counts", function()
  it("refuses counts below -1 and gives PyTorch's errors for 0 and for lengths beyond the buffer", function()
    has(err_of(torch.frombuffer, "12345678", { dtype = torch.uint8, count = -2 }),
      "count must be -1 or a non-negative number of elements, got -2")
    assert.are.equal("both buffer length (8) and count (0) must not be 0",
      err_of(torch.frombuffer, "12345678", { dtype = torch.uint8, count = 0 }))
    assert.are.equal("both buffer length (0) and count (-1) must not be 0", err_of(torch.frombuffer, ""))
    -- 2^62 * 4 bytes overflows to 0: still more than the buffer has
    assert.are.equal("requested buffer length (4611686018427387904 * 4 bytes) after offset (0 bytes) must not be greater "
      .. "than actual buffer length (8 bytes)", err_of(torch.frombuffer, "12345678", { count = 1 << 62 }))
    assert.are.equal("offset (8 bytes) must be non-negative and no greater than buffer length (8 bytes) minus 1",
      err_of(torch.frombuffer, "12345678", { dtype = torch.uint8, offset = 8 }))
    has(err_of(torch.frombuffer, "1234", 5), "table expected")
    assert.are.same({ 51, 52 }, torch.frombuffer("1234", { dtype = torch.uint8, offset = 2, count = 2 }):tolist())
  end)
end)
