-- View ops against PyTorch (cases/views.py); dims and indices are 1-based here.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()
local range, dims = H.dim_range_1based, H.dims_1based

local function a() return torch.arange(24.0):reshape(2, 3, 4) end
local function m() return torch.arange(6):reshape(2, 3) end
-- narrow's start is an index: the message quotes it as the user wrote it
local function start_1based(msg)
  return (msg:gsub("start %((%d+)%)", function(s) return "start (" .. (s + 1) .. ")" end))
end
-- strides and storage offsets must match PyTorch's, not just values
local function strict(fn, extra)
  local c = { fn, check_offset = true }
  for k, v in pairs(extra or {}) do c[k] = v end
  return c
end

H.run("views", {
  view = strict(function() return m():view(3, 2) end),
  view_infer = strict(function() return a():view(-1, 4) end),
  view_0d = strict(function() return torch.tensor(5):view(1, 1) end),
  view_to_0d = strict(function() return torch.ones(1):view({}) end),
  view_empty = strict(function() return torch.ones(0, 3):view(3, 0) end),
  view_bad_size = function() return m():view(4) end,
  view_two_infer = function() return m():view(-1, -1) end,
  view_negative = function() return m():view(2, -2) end,
  view_non_contiguous = function() return m():t():view(6) end,
  view_split_dim = strict(function() return a():transpose(1, 2):view(3, 2, 2, 2) end),
  view_ambiguous = function() return torch.ones(0, 3):view(-1, 0) end,
  reshape_copy = strict(function() return m():t():reshape(6) end),
  reshape_view = strict(function() return a():reshape(4, 6) end),
  reshape_bad = function() return torch.ones(2):reshape(-1, 0) end,
  transpose = strict(function() return a():transpose(1, 3) end),
  transpose_negative = strict(function() return a():transpose(-1, 1) end),
  transpose_range = { function() return m():transpose(1, 3) end, expect = range },
  transpose_range_negative = { function() return m():transpose(-3, 1) end, expect = range },
  t = strict(function() return m():t() end),
  t_1d = strict(function() return torch.arange(3):t() end),
  t_3d = function() return a():t() end,
  permute = strict(function() return a():permute(3, 1, 2) end),
  permute_negative = strict(function() return a():permute(-1, -3, -2) end),
  permute_length = function() return m():permute(1) end,
  permute_duplicate = function() return m():permute(1, 1) end,
  permute_range = { function() return m():permute(1, 3) end, expect = range },
  expand = strict(function() return torch.arange(3):expand(2, 3) end),
  expand_new_dims = strict(function() return torch.arange(3):view(3, 1):expand(2, 3, 4) end),
  expand_keep = strict(function() return torch.arange(3):view(3, 1):expand(-1, 2) end),
  expand_mismatch = { function() return m():expand(3, 3) end, expect = dims },
  expand_too_few = function() return m():expand(3) end,
  expand_leading_negative = { function() return m():expand(-1, 2, 3) end, expect = dims },
  expand_negative = { function() return m():expand(2, -2) end, expect = dims },
  expand_as = strict(function() return torch.arange(3):expand_as(torch.ones(2, 3)) end),
  narrow = strict(function() return a():narrow(2, 2, 2) end),
  narrow_negative_start = strict(function() return m():narrow(2, -1, 1) end),
  narrow_empty_at_end = strict(function() return m():narrow(2, 4, 0) end),
  narrow_too_long = { function() return m():narrow(2, 3, 2) end, expect = start_1based },
  narrow_negative_length = { function() return m():narrow(2, 2, -1) end, expect = start_1based },
  narrow_start_range = { function() return m():narrow(2, 5, 0) end, expect = range },
  narrow_0d = function() return torch.tensor(1.0):narrow(1, 1, 1) end,
  select = strict(function() return a():select(2, 3) end),
  select_negative = strict(function() return a():select(3, -1) end),
  select_range = { function() return m():select(2, 4) end,
    expect = function(msg) return (dims(msg):gsub("index (%d+)", function(i) return "index " .. (i + 1) end)) end },
  select_range_negative = { function() return m():select(2, -4) end, expect = dims },
  select_0d = function() return torch.tensor(1.0):select(1, 1) end,
  squeeze = strict(function() return torch.ones(1, 2, 1, 3):squeeze() end),
  squeeze_dim = strict(function() return torch.ones(1, 2, 1, 3):squeeze(3) end),
  squeeze_dim_noop = strict(function() return torch.ones(1, 2, 1, 3):squeeze(2) end),
  squeeze_range = { function() return m():squeeze(3) end, expect = range },
  unsqueeze_front = strict(function() return m():unsqueeze(1) end),
  unsqueeze_end = strict(function() return m():unsqueeze(3) end),
  unsqueeze_negative = strict(function() return m():unsqueeze(-1) end),
  unsqueeze_range = { function() return m():unsqueeze(4) end, expect = range },
  unsqueeze_transposed = strict(function() return m():t():unsqueeze(2) end),
  flatten = strict(function() return a():flatten() end),
  flatten_range = strict(function() return a():flatten(2) end),
  flatten_0d = strict(function() return torch.tensor(3.0):flatten() end),
  flatten_bad = function() return m():flatten(2, 1) end,
  flatten_noop = strict(function() return m():flatten(2, 2) end),
  unflatten = strict(function() return a():unflatten(3, { 2, 2 }) end),
  unflatten_infer = strict(function() return m():unflatten(2, { -1, 3 }) end),
  unflatten_bad = { function() return m():unflatten(2, { 2, 2 }) end,
    expect = function(msg) return (msg:gsub("dim (%d+)", function(d) return "dim " .. (d + 1) end)) end },
  unflatten_two_infer = function() return m():unflatten(2, { -1, -1 }) end,
  unflatten_empty = function() return m():unflatten(2, {}) end,
  as_strided = strict(function() return torch.arange(9):as_strided({ 2, 2 }, { 3, 1 }, 1) end),
  as_strided_overlap = strict(function() return torch.arange(4):as_strided({ 3, 2 }, { 1, 1 }) end),
  as_strided_oob = function() return torch.ones(2, 3):as_strided({ 3, 3 }, { 1, 1 }, 100) end,
  as_strided_len = function() return torch.ones(2, 3):as_strided({ 2 }, { 1, 2 }) end,
  as_strided_negative_stride = function() return torch.ones(2, 3):as_strided({ 2 }, { -1 }) end,
  as_strided_negative_size = function() return torch.ones(2, 3):as_strided({ -2 }, { 1 }) end,
  contiguous = strict(function() return m():t():contiguous() end),
  clone_transposed = strict(function() return m():t():clone() end),
  clone_sliced = strict(function() return torch.arange(12):reshape(4, 3):as_strided({ 2, 3 }, { 6, 1 }):clone() end),
  clone_contiguous_format = strict(function() return m():t():clone({ memory_format = torch.contiguous_format }) end),
  detach = strict(function() return m():detach() end),
  chained = strict(function() return a():permute(2, 3, 1):select(1, 2):narrow(1, 2, 2) end),
})
