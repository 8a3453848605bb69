-- datasets.lua: torch.utils.data.datasets: MNIST and FashionMNIST from their IDX files (gzip,
-- read through zlib). Images are a uint8 tensor [N, 28, 28] (`data`), labels 1-based class
-- indices [N] (`targets`: PyTorch's 0..9 plus one, as every index in mindtorch). get(i)
-- returns the image as floats in [0, 1] shaped [1, 28, 28] (what PyTorch's ToTensor gives)
-- and its label, after the optional transform / target_transform. The files are untrusted
-- (doc/security.md): headers are checked and inflation is bounded before any allocation.
return function(torch, data)
  local datasets = {}

  local function be32(s, at) -- a big-endian 32-bit integer at byte `at` (1-based)
    local a, b, c, d = s:byte(at, at + 3)
    return ((a * 256 + b) * 256 + c) * 256 + d
  end

  -- read_idx(path, magic): the uint8 tensor of an IDX file (gzip, or plain at the same name
  -- without .gz). The header (magic, then one big-endian u32 per dimension) is read first and
  -- checked; the data is then inflated up to what the header announces and no further, so a
  -- small gzip bomb costs no more memory than an honest file of the size it claims.
  local function read_idx(path, magic)
    if type(path) ~= "string" then error("read_idx: path must be a string, got " .. type(path), 2) end
    local src = path
    local ok, head = pcall(torch._gunzip, src, 4, true)
    if not ok and path:match("%.gz$") then
      src = path:gsub("%.gz$", "")
      local ok2, head2 = pcall(torch._gunzip, src, 4, true)
      if not ok2 then error(head, 0) end
      head = head2
    elseif not ok then
      error(head, 0)
    end
    local function bad(why) error(("%s: not an IDX file of the expected kind (%s)"):format(path, why), 0) end
    if #head < 4 then bad("truncated header") end
    if be32(head, 1) ~= magic then bad(("magic number %d, expected %d"):format(be32(head, 1), magic)) end
    local ndim = magic % 256
    local header = 4 + 4 * ndim
    head = torch._gunzip(src, header, true)
    if #head < header then bad("truncated header") end
    local dims = {}
    for i = 1, ndim do dims[i] = be32(head, 5 + 4 * (i - 1)) end
    local count = torch._checked_numel(dims)
    -- a Lua string holds the whole file: refuse what cannot be addressed before inflating
    if not count or count > math.maxinteger - header then bad("its dimensions overflow") end
    local s = torch._gunzip(src, header + count)
    if #s ~= header + count then
      error(("%s: truncated (%d bytes of data, %d expected)"):format(path, #s - header, count), 0)
    end
    if count == 0 then return torch.empty(dims, { dtype = torch.uint8 }) end
    return torch.frombuffer(s, { dtype = torch.uint8, offset = header }):view(dims)
  end
  datasets._read_idx = read_idx

  local function idx_dataset(name, default_root)
    local cls = data.Dataset:subclass("utils.data.datasets." .. name)
    cls.default_root = default_root
    -- cls(root, {train = true, transform = fn, target_transform = fn})
    function cls:__init(root, opts)
      if type(root) == "table" then root, opts = nil, root end
      opts = require("mindtorch._args").options(name, opts,
        { train = "bool", transform = "callable", target_transform = "callable" }, nil, 3)
      self.root = root or default_root
      self.train = opts.train ~= false
      self.transform, self.target_transform = opts.transform, opts.target_transform
      local prefix = self.train and "train" or "t10k"
      self.data = read_idx(self.root .. "/" .. prefix .. "-images-idx3-ubyte.gz", 2051)
      self.targets = read_idx(self.root .. "/" .. prefix .. "-labels-idx1-ubyte.gz", 2049):to(torch.int64) + 1
      if self.data.shape[1] ~= self.targets.shape[1] then error(name .. ": images and labels differ in number", 2) end
    end
    function cls:len() return self.data.shape[1] end
    function cls:get(i)
      local img, target = self.data[i]:to(torch.float32):div(255):unsqueeze(1), self.targets[i]:item()
      if self.transform then img = self.transform(img) end
      if self.target_transform then target = self.target_transform(target) end
      return img, target
    end
    function cls:get_batch(index)
      if self.transform or self.target_transform then return nil end
      return { self.data:index_select(1, index):to(torch.float32):div(255):unsqueeze(2),
        self.targets:index_select(1, index) }
    end
    datasets[name] = cls
  end
  idx_dataset("FashionMNIST", "/usr/share/datasets/fashion-mnist")
  idx_dataset("MNIST", "/usr/share/datasets/mnist")
  return datasets
end
