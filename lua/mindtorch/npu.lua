-- mindtorch.npu: torch.npu, the Ascend NPU API shaped as torch.cuda's (devices, streams,
-- events, the caching allocator's statistics). The C side is the NPU module
-- (backends/npu, loaded here and by the core on first use of an "npu" device); CANN itself is
-- opened at run time, so without it this loads and is_available() says false.
local torch = require "mindtorch"
local C = require "mindtorch.npu_backend"

local npu = {}

function npu.is_available() return (C.is_available()) end
-- why the NPU cannot be used ("" when it can)
function npu.unavailable_reason() return select(2, C.is_available()) end
npu.device_count = C.device_count

-- a device argument as torch_npu takes it: nil (current), an index, "npu:1", a torch.device
local function device_index(d, optional)
  if d == nil then
    if optional == false then error("Expected a torch.device with a specified index or an integer, but got:nil", 3) end
    return C.current_device()
  end
  if math.type(d) == "integer" then return d end
  if type(d) == "string" or (type(d) == "userdata" and d.type) then
    local dev = torch.device(d)
    if dev.type ~= "npu" then error("Expected a npu device, but got: " .. tostring(dev), 3) end
    return dev.index or C.current_device()
  end
  error("Expected a npu device, but got: " .. tostring(d), 3)
end
npu._device_index = device_index

function npu.current_device() return C.current_device() end
function npu.set_device(d)
  local i = device_index(d)
  if i >= 0 then C.set_device(i) end
end
function npu.synchronize(d) C.synchronize(device_index(d)) end
function npu.get_device_name(d) return C.get_device_name(device_index(d)) end
function npu.get_device_capability(d)
  device_index(d)
  return { 0, 0 } -- Ascend has no CUDA compute capability
end
function npu.get_device_properties(d)
  local i = device_index(d)
  if i < 0 or i >= C.device_count() then error("Invalid device id", 2) end
  local _, total = C.mem_get_info(i)
  return setmetatable({ name = C.get_device_name(i), total_memory = total, index = i }, {
    __tostring = function(p)
      return ("_NPUDeviceProperties(name='%s', total_memory=%dMB)"):format(p.name, p.total_memory // (1024 * 1024))
    end,
  })
end

-- `with torch.npu.device(i)`: fn runs with device i current, or a <close> value
local function scoped(enter, exit, fn)
  enter()
  if fn == nil then return setmetatable({}, { __close = exit }) end
  local r = table.pack(pcall(fn))
  exit()
  if not r[1] then error(r[2], 0) end
  return table.unpack(r, 2, r.n)
end

function npu.device(d, fn)
  local i, prev = device_index(d), C.current_device()
  return scoped(function() C.set_device(i) end, function() C.set_device(prev) end, fn)
end

-- ---- streams ------------------------------------------------------------------------------
local Stream = { __name = "torch.npu.Stream" }
Stream.__index = Stream
npu.Stream = setmetatable(Stream, { __call = function(_, device, priority)
  if type(device) == "table" then device, priority = device.device, device.priority end
  local i = device_index(device)
  priority = priority or 0
  return setmetatable({ _s = C.stream_new(i, priority), device_index = i, priority = priority < 0 and -1 or 0 }, Stream)
end })

local function wrap_stream(s, i) return setmetatable({ _s = s, device_index = i, priority = 0 }, Stream) end

function Stream:query() return C.stream_query(self._s) end
function Stream:synchronize() C.stream_synchronize(self._s) end
function Stream:wait_event(event) event:wait(self) end
function Stream:wait_stream(other) self:wait_event(other:record_event()) end
function Stream:record_event(event)
  event = event or npu.Event()
  event:record(self)
  return event
end
function Stream.priority_range() return 0, -1 end
Stream.__eq = function(a, b) return a._s == b._s end
Stream.__tostring = function(s)
  return ("<torch.npu.Stream device=npu:%d npu_stream=%s>"):format(s.device_index, tostring(s._s):match("0x%x+") or "?")
end

function npu.current_stream(d)
  local i = device_index(d)
  return wrap_stream(C.current_stream(i), i)
end
function npu.default_stream(d)
  local i = device_index(d)
  return wrap_stream(C.default_stream(i), i)
end
-- Tensor:record_stream(s): the tensor's memory is also used by work queued on s, so the
-- allocator reuses it only after that work (PyTorch's Tensor.record_stream)
function npu._record_stream(t, s)
  if getmetatable(s) ~= Stream then error("record_stream(): argument 'stream' must be a torch.npu.Stream", 3) end
  if t.device.type ~= "npu" then
    error(("Could not run 'aten::record_stream' with arguments from the '%s' backend."):format(t.device.type:upper()), 3)
  end
  if t:untyped_storage():nbytes() > 0 then C.record_stream(t:untyped_storage():data_ptr(), s._s) end
end

function npu.set_stream(s) C.set_stream(s.device_index, s._s) end

-- `with torch.npu.stream(s)`: work goes to s (on its device) while fn runs
function npu.stream(s, fn)
  if s == nil then return fn and fn() or setmetatable({}, { __close = function() end }) end
  local prev_dev = C.current_device()
  local prev = C.current_stream(s.device_index)
  return scoped(function()
    C.set_device(s.device_index)
    C.set_stream(s.device_index, s._s)
  end, function()
    C.set_stream(s.device_index, prev)
    C.set_device(prev_dev)
  end, fn)
end

-- ---- events -------------------------------------------------------------------------------
local Event = { __name = "torch.npu.Event" }
Event.__index = Event
npu.Event = setmetatable(Event, { __call = function(_, opts)
  opts = opts or {}
  if type(opts) == "boolean" then opts = { enable_timing = opts } end
  return setmetatable({ enable_timing = opts.enable_timing or false }, Event)
end })

-- the ACL event is made on first record, on the recording stream's device (as torch.cuda)
function Event:record(stream)
  stream = stream or npu.current_stream()
  if self._e == nil then
    self._e = npu.device(stream.device_index, function() return C.event_new(self.enable_timing) end)
    self.device_index = stream.device_index
  elseif self.device_index ~= stream.device_index then
    error(("Event device %d does not match recording stream's device %d."):format(self.device_index, stream.device_index), 2)
  end
  C.event_record(self._e, stream._s)
end
function Event:wait(stream)
  stream = stream or npu.current_stream()
  if self._e then C.event_wait(self._e, stream._s) end -- never recorded: nothing to wait for
end
function Event:query() return self._e == nil or C.event_query(self._e) end
function Event:synchronize() if self._e then C.event_synchronize(self._e) end end
function Event:elapsed_time(stop)
  if self._e == nil or stop._e == nil then error("Both events must be recorded before calculating elapsed time.", 2) end
  return C.event_elapsed(self._e, stop._e)
end
Event.__tostring = function(e) return e._e and "<torch.npu.Event>" or "<torch.npu.Event uninitialized>" end

-- ---- memory -------------------------------------------------------------------------------
-- torch.cuda.memory_stats's flat dotted keys, sorted
local function flatten(t, prefix, out)
  for k, v in pairs(t) do
    local key = prefix and (prefix .. "." .. k) or k
    if type(v) == "table" then flatten(v, key, out) else out[key] = v end
  end
  return out
end

function npu.memory_stats_as_nested_dict(d) return C.memory_stats(device_index(d)) end
function npu.memory_stats(d)
  if not C.is_available() then return {} end
  return flatten(C.memory_stats(device_index(d)), nil, {})
end
local function stat(key) return function(d) return npu.memory_stats(d)[key] or 0 end end
npu.memory_allocated = stat("allocated_bytes.all.current")
npu.max_memory_allocated = stat("allocated_bytes.all.peak")
npu.memory_reserved = stat("reserved_bytes.all.current")
npu.max_memory_reserved = stat("reserved_bytes.all.peak")
function npu.reset_peak_memory_stats(d) C.reset_peak_memory_stats(device_index(d)) end
function npu.reset_accumulated_memory_stats(d) C.reset_accumulated_memory_stats(device_index(d)) end
npu.empty_cache = C.empty_cache
function npu.mem_get_info(d) return C.mem_get_info(device_index(d)) end
function npu.memory_snapshot() return C.memory_snapshot() end

function npu.set_per_process_memory_fraction(fraction, d)
  if math.type(fraction) ~= "float" then error("Invalid type for fraction argument, must be `float`", 2) end
  if fraction < 0 or fraction > 1 then error(("Invalid fraction value: %s. Allowed range: 0~1"):format(fraction), 2) end
  C.set_per_process_memory_fraction(fraction, device_index(d))
end

npu.memory_summary = require("mindtorch._memory_summary")(npu, device_index)

return npu
