-- torch.save / torch.load round trips, damaged files, atomic writes, and safetensors files in
-- both directions (tests/fixtures/pytorch.safetensors was written from PyTorch tensors).
local torch = require "mindtorch"

local function tmp() return os.tmpname() end

describe("torch.save / torch.load", function()
  it("round-trips tensors of every dtype in nested tables, with numbers, strings and booleans", function()
    local path = tmp()
    local obj = { weights = { torch.randn(3, 4), torch.randn(2, { dtype = torch.float64 }) }, step = 12, lr = 0.5,
      name = "net\0bytes", flag = false, [3] = torch.arange(6):view(2, 3):t() }
    for _, dt in ipairs({ "float16", "bfloat16", "int8", "int16", "int32", "uint8", "bool" }) do
      obj[dt] = torch.ones(2, { dtype = torch[dt] })
    end
    torch.save(obj, path)
    local back = torch.load(path)
    os.remove(path)
    assert.is_true(torch.equal(back.weights[1], obj.weights[1]))
    assert.are.equal(torch.float64, back.weights[2].dtype)
    assert.are.same({ 12, 0.5, "net\0bytes", false }, { back.step, back.lr, back.name, back.flag })
    assert.are.equal("integer", math.type(back.step))
    assert.is_true(torch.equal(back[3], obj[3]))
    for _, dt in ipairs({ "float16", "bfloat16", "int8", "int16", "int32", "uint8", "bool" }) do
      assert.are.equal(torch[dt], back[dt].dtype)
    end
  end)

  it("saves a module's state_dict and loads it into another", function()
    local path = tmp()
    local a, b = torch.nn.Linear(4, 3), torch.nn.Linear(4, 3)
    torch.save(a:state_dict(), path)
    b:load_state_dict(torch.load(path))
    os.remove(path)
    assert.is_true(torch.equal(a.weight, b.weight))
  end)

  it("refuses damaged, truncated and foreign files with clear errors", function()
    local path = tmp()
    torch.save({ torch.randn(100) }, path)
    local f = assert(io.open(path, "rb"))
    local s = f:read("a")
    f:close()
    local function try(bytes)
      local w = assert(io.open(path, "wb"))
      w:write(bytes)
      w:close()
      local ok, err = pcall(torch.load, path)
      assert.is_false(ok)
      return tostring(err)
    end
    assert.truthy(try(s:sub(1, #s - 50)):find("checksum mismatch", 1, true))
    assert.truthy(try(s:sub(1, 40) .. "X" .. s:sub(42)):find("checksum mismatch", 1, true))
    assert.truthy(try("hello world, not a tensor file"):find("no mindtorch header", 1, true))
    os.remove(path)
    assert.has_error(function() torch.load("/nonexistent/dir/file") end)
    local cyc = {}
    cyc.self = cyc -- a cycle is kept (object graphs: save_objects_spec.lua)
    torch.save(cyc, path)
    local back = torch.load(path)
    assert.is_true(rawequal(back, back.self))
    os.remove(path)
    local ok, err = pcall(torch.save, { f = print }, path)
    assert.is_false(ok)
    assert.truthy(err:find("torch.save: a function that torch, math, string and table do not reach by name", 1, true))
  end)

  it("never leaves a partial file: a failed save keeps the old file", function()
    local path = tmp()
    torch.save({ 1, 2, 3 }, path)
    pcall(torch.save, { ok = 1, bad = coroutine.create(function() end) }, path)
    assert.are.same({ 1, 2, 3 }, torch.load(path))
    os.remove(path)
    assert.has_error(function() torch.save({}, "/nonexistent-dir/x.mt") end)
  end)
end)

describe("safetensors", function()
  it("reads a file written from PyTorch tensors", function()
    local t, meta = torch.load_safetensors("tests/fixtures/pytorch.safetensors")
    assert.are.equal("pt", meta.format)
    assert.is_true(torch.allclose(t.weight, torch.arange(12, { dtype = torch.float32 }):view(3, 4) / 7))
    assert.are.same({ { 1, 2 }, { 3, -4 } }, t.ids:tolist())
    assert.are.same({ 0.5, -1.25, 3.0 }, t.half:float():tolist())
    assert.are.same({ 1.5, -2.0 }, t.brain:float():tolist())
    assert.are.equal(torch.bfloat16, t.brain.dtype)
    assert.are.same({ true, false, true }, t.mask:tolist())
    assert.are.equal(0, t.scalar:dim())
    assert.are.equal(2.5, t.scalar:item())
  end)

  it("round-trips what it writes, with metadata", function()
    local path = tmp()
    local src = { ["layer.0.weight"] = torch.randn(3, 2), bias = torch.zeros(3, { dtype = torch.float64 }) }
    torch.save_safetensors(src, path, { framework = "mindtorch" })
    local back, meta = torch.load_safetensors(path)
    os.remove(path)
    assert.is_true(torch.equal(back["layer.0.weight"], src["layer.0.weight"]))
    assert.are.equal(torch.float64, back.bias.dtype)
    assert.are.equal("mindtorch", meta.framework)
  end)

  it("refuses a header that points outside the file", function()
    local path = tmp()
    local header = '{"x":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}'
    local f = assert(io.open(path, "wb"))
    f:write(string.pack("<I8", #header) .. header .. "1234")
    f:close()
    local ok, err = pcall(torch.load_safetensors, path)
    os.remove(path)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("out of range", 1, true))
  end)
end)
