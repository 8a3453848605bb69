-- datasets.lua: torch.utils.data.datasets: MNIST and FashionMNIST from their IDX files (gzip,
-- read through zlib). Images are a uint8 tensor [N, 28, 28] (`data`), labels 1-based class
-- indices [N] (`targets`: PyTorch's 0..9 plus one, as every index in mindtorch). get(i)
-- returns the image as floats in [0, 1] shaped [1, 28, 28] (what PyTorch's ToTensor gives)
-- and its label, after the optional transform / target_transform.
return function(torch, data)
  local datasets = {}

  local function be32(s, at) -- a big-endian 32-bit integer at byte `at` (1-based)
    local a, b, c, d = s:byte(at, at + 3)
    return ((a * 256 + b) * 256 + c) * 256 + d
  end

  local function read_idx(path, magic)
    local ok, s = pcall(torch._gunzip, path)
    if not ok then
      local plain = io.open((path:gsub("%.gz$", "")), "rb")
      if not plain then error(s, 0) end
      s = plain:read("a")
      plain:close()
    end
    if #s < 8 or be32(s, 1) ~= magic then error(path .. ": not an IDX file of the expected kind", 0) end
    local ndim = magic % 256
    local dims, count = {}, 1
    for i = 1, ndim do
      dims[i] = be32(s, 5 + 4 * (i - 1))
      count = count * dims[i]
    end
    local header = 4 + 4 * ndim
    if #s ~= header + count then error(("%s: truncated (%d bytes of data, %d expected)"):format(path, #s - header, count), 0) end
    return torch.frombuffer(s, { dtype = torch.uint8, offset = header }):view(dims)
  end

  local function idx_dataset(name, default_root)
    local cls = data.Dataset:extend(name)
    cls.default_root = default_root
    -- cls(root, {train = true, transform = fn, target_transform = fn})
    function cls:__init(root, opts)
      if type(root) == "table" then root, opts = nil, root end
      opts = opts or {}
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
