-- make_corpus.lua: writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/
-- (small real files: checkpoints and safetensors files written by mindtorch, the PyTorch
-- fixture, IDX files cut from Fashion-MNIST when it is installed, embedding inputs).
-- Run from the repository root: build/luamt tests/fuzz/make_corpus.lua
local torch = require "mindtorch"
local root = "tests/fuzz/corpus"
local files = require "tests.lua.support.files"
local function put(target, name, bytes)
  os.execute(("mkdir -p '%s/%s'"):format(root, target))
  files.write(("%s/%s/%s"):format(root, target, name), bytes)
end
local slurp = files.read
local tmp = os.tmpname()

-- torch.load: what torch.save writes
torch.manual_seed(0)
local values = {
  tensors = { w = torch.randn(3, 2), b = torch.arange(4, { dtype = torch.int64 }), m = torch.tensor({ true, false }) },
  scalars = { step = 12, lr = 0.5, name = "net", flag = true, [1] = "one", [2.5] = false },
  dtypes = {},
  empty = { e = torch.empty(0, 3), s = torch.tensor(2.5), nothing = {} },
  nested = { a = { b = { c = { torch.ones(2, 2, { dtype = torch.float16 }) } } } },
}
for _, dt in ipairs({ "bfloat16", "int8", "int16", "int32", "uint8", "float64" }) do
  values.dtypes[dt] = torch.ones(2, { dtype = torch[dt] })
end
for name, v in pairs(values) do
  torch.save(v, tmp)
  put("load", name .. ".mt", slurp(tmp))
end

-- object graphs (format version 2): a module with an optimizer and its state, views of a storage
do
  local model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
  local opt = torch.optim.Adam(model:parameters(), { lr = 0.01 })
  model(torch.randn(4, 3)):sum():backward()
  opt:step()
  local base = torch.arange(6.0):view(2, 3)
  for name, v in pairs({ objects = { model = model, opt = opt }, views = { base = base, t = base:t(), row = base[2] } }) do
    torch.save(v, tmp)
    put("load", name .. ".mt", slurp(tmp))
  end
end

-- load_safetensors: PyTorch's fixture and what mindtorch writes
put("safetensors", "pytorch.safetensors", slurp("tests/fixtures/pytorch.safetensors"))
torch.save_safetensors({ weight = torch.randn(2, 3), bias = torch.zeros(3, { dtype = torch.float64 }),
  ids = torch.arange(3, { dtype = torch.int32 }), e = torch.empty(0) }, tmp, { format = "pt", note = "a\"b" })
put("safetensors", "mindtorch.safetensors", slurp(tmp))
torch.save_safetensors({}, tmp)
put("safetensors", "empty.safetensors", slurp(tmp))

-- the IDX reader: the first few items of Fashion-MNIST's test set, gzipped and plain
local fm = "/usr/share/datasets/fashion-mnist/"
local ok, images = pcall(torch._gunzip, fm .. "t10k-images-idx3-ubyte.gz", 16 + 3 * 784, true)
if ok then
  local labels = torch._gunzip(fm .. "t10k-labels-idx1-ubyte.gz", 8 + 5, true)
  images = images:sub(1, 4) .. string.pack(">I4", 3) .. images:sub(9)
  labels = labels:sub(1, 4) .. string.pack(">I4", 5) .. labels:sub(9)
  for name, bytes in pairs({ images = images, labels = labels }) do
    put("idx", name .. ".idx", bytes)
    local f = assert(io.open(tmp, "wb"))
    f:write(bytes)
    f:close()
    os.execute(("gzip -9 -n -c '%s' > '%s/idx/%s.idx.gz'"):format(tmp, root, name))
  end
end

-- the embedding API: dtype, ndim, flags (bit 0: strides given; the rest pick the op), then
-- sizes and strides (a byte below 224 is a small value, else 8 big-endian bytes follow), then data
put("embed", "matrix", string.char(4, 2, 0, 3, 4) .. ("\1\2\3\4"):rep(12))
put("embed", "strided", string.char(5, 2, 1 + 2 * 3, 2, 3, 5, 1) .. ("\0\0\0\0\0\0\240\63"):rep(10))
put("embed", "scalar", string.char(1, 0, 2 * 4) .. "\7")
put("embed", "empty", string.char(7, 3, 2 * 1, 0, 5, 5) .. "")
put("embed", "huge", string.char(4, 2, 1, 255, 64, 0, 0, 0, 0, 0, 0, 3, 4, 255, 0, 0, 1, 0, 0, 0, 0, 0, 1) .. "x")
os.remove(tmp)
