-- Storage contracts against PyTorch (cases/storage.py). Indices into storages are 1-based.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()

local TMP = (os.getenv("TMPDIR") or "/tmp") .. "/mindtorch-contract-storage.bin"
local function write_tmp()
  local f = assert(io.open(TMP, "wb"))
  local bytes = {}
  for i = 0, 15 do bytes[#bytes + 1] = string.char(i) end
  f:write(table.concat(bytes))
  f:close()
end
local function from_file(shared, size)
  write_tmp()
  return torch.UntypedStorage.from_file(TMP, shared, size)
end
local function tmp_path(msg) return (msg:gsub("<[^>]*mindtorch%-contract%-storage%.bin", "<" .. TMP)) end

H.run("storage", {
  untyped_size = function() return torch.ones(2, 3):storage():untyped():size() end,
  untyped_nbytes = function() return torch.ones(2, 3, { dtype = torch.float64 }):storage():untyped():nbytes() end,
  typed_size = function() return torch.ones(2, 3):storage():size() end,
  typed_element_size = function() return torch.ones(2, { dtype = torch.int16 }):storage():element_size() end,
  untyped_element_size = function() return torch.ones(2):untyped_storage():element_size() end,
  typed_dtype = function() return torch.ones(2, { dtype = torch.int16 }):storage().dtype end,
  tensor_storage_not_resizable = function() return torch.ones(2, 3):untyped_storage():resize_(10):size() end,
  new_storage_resize = function() return torch.UntypedStorage(10):resize_(20):size() end,
  storage_from_list = function() return torch.UntypedStorage({ 1, 2, 255 }):tolist() end,
  typed_from_list = function() return torch.TypedStorage({ 1, 2, 3 }, { dtype = torch.int64 }):tolist() end,
  typed_float_list = function() return torch.TypedStorage({ 1.5, 2 }, { dtype = torch.float32 }):tolist() end,
  copy_size_mismatch = function() return torch.UntypedStorage(4):copy_(torch.UntypedStorage(3)) end,
  copy = function() return torch.UntypedStorage(3):copy_(torch.UntypedStorage({ 7, 8, 9 })):tolist() end,
  fill = function() return torch.UntypedStorage(3):fill_(5):tolist() end,
  index_out_of_range = { function() return torch.UntypedStorage(4)[6] end,
    expect = function(m) return (m:gsub("index 5", "index 6")) end },
  from_file_private = function() return from_file(false, 16):tolist() end,
  from_file_too_small = { function() return from_file(false, 32) end, expect = tmp_path },
  from_file_shared_not_resizable = function() return from_file(true, 16):resize_(32) end,
  from_file_missing = { function() return torch.UntypedStorage.from_file(TMP .. ".missing", false, 4) end,
    expect = tmp_path },
  typed_from_file = function() return torch.TypedStorage.from_file(TMP, false, 4) end,
  share_memory = function() return torch.UntypedStorage(4):share_memory_():is_shared() end,
  share_memory_not_resizable = function() return torch.UntypedStorage(4):share_memory_():resize_(8) end,
  not_shared = function() return torch.UntypedStorage(4):is_shared() end,
  not_pinned = function() return torch.UntypedStorage(4):is_pinned() end,
  meta_resize = function() return torch.UntypedStorage(4, { device = "meta" }):resize_(8) end,
  storage_repr = function() return tostring(torch.UntypedStorage({ 1, 2 })) end,
  typed_storage_repr = function() return tostring(torch.tensor({ 1.5, 2.0 }):storage()) end,
  int_storage_repr = function() return tostring(torch.tensor({ 1, 2 }):storage()) end,
  bool_storage_repr = function() return tostring(torch.tensor({ true, false }):storage()) end,
  small_float_repr = function()
    return tostring(torch.tensor({ 1e-7, 123456789.0, 1e20 }, { dtype = torch.float64 }):storage())
  end,
})
