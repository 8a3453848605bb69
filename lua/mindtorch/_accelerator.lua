-- _accelerator.lua: torch.<dev>, an accelerator's API shaped as torch.cuda's (1.13), written
-- once for every accelerator module (the NPU now, CUDA next): devices and their properties,
-- peer access, the device scope, streams and events, the caching allocator's statistics,
-- snapshots and summary. make(C, spec) builds the table over the raw functions C of the
-- module's shared layer (backends/accel/accel_lua.c); spec names the device:
--   type   "npu": the device type of torch.device strings
--   name   "NPU": messages and the memory summary's labels
--   props  "_NPUDeviceProperties": the class get_device_properties returns
local torch = require "mindtorch"
local class = require "mindtorch._class"
local args = require "mindtorch._args"

return function(C, spec)
  local dev_type, NAME = spec.type, spec.name
  local M = {}

  function M.is_available() return (C.is_available()) end
  -- why the device cannot be used ("" when it can)
  function M.unavailable_reason() return select(2, C.is_available()) end
  M.device_count = C.device_count

  -- a device argument as torch.cuda takes it: nil (the current one), an index, "npu:1", a
  -- torch.device; optional == false: nil is refused
  local function device_index(d, optional)
    if d == nil then
      if optional == false then error("Expected a torch.device with a specified index or an integer, but got:nil", 3) end
      return C.current_device()
    end
    if math.type(d) == "integer" then return d end
    if type(d) == "string" or (type(d) == "userdata" and d.type) then
      local dev = torch.device(d)
      if dev.type ~= dev_type then error(("Expected a %s device, but got: %s"):format(dev_type, tostring(dev)), 3) end
      return dev.index or C.current_device()
    end
    error(("Expected a %s device, but got: %s"):format(dev_type, tostring(d)), 3)
  end
  M._device_index = device_index

  local function valid(i, what)
    if i < 0 or i >= C.device_count() then error(what or "Invalid device id", 3) end
    return i
  end

  -- ---- initialisation and devices -------------------------------------------------------
  -- init(): initialise the device runtime now (every use does it lazily); an error says why it
  -- cannot be. is_initialized(): whether that has happened.
  function M.init() C.init() end
  M.is_initialized = C.is_initialized

  function M.current_device() return C.current_device() end
  function M.set_device(d)
    local i = device_index(d)
    if i >= 0 then C.set_device(i) end
  end
  function M.synchronize(d) C.synchronize(device_index(d)) end

  local Properties = class.class("torch." .. dev_type .. "." .. spec.props)
  Properties.__tostring = function(p)
    return ("%s(name='%s', major=%d, minor=%d, total_memory=%dMB, multi_processor_count=%d)"):format(spec.props,
      p.name, p.major, p.minor, p.total_memory // (1024 * 1024), p.multi_processor_count)
  end

  -- get_device_properties(device): name, major, minor, total_memory (bytes),
  -- multi_processor_count (the compute units)
  function M.get_device_properties(d)
    C.init()
    local i = valid(device_index(d))
    local p = class.alloc(Properties)
    for k, v in pairs(C.get_device_properties(i)) do p[k] = v end
    return p
  end
  function M.get_device_name(d) return M.get_device_properties(d).name end
  function M.get_device_capability(d)
    local p = M.get_device_properties(d)
    return { p.major, p.minor }
  end

  -- can_device_access_peer(device, peer_device): whether device's work can reach peer_device's
  -- memory (false for a device and itself, as CUDA answers)
  function M.can_device_access_peer(d, peer, ...)
    if select("#", ...) > 0 then
      error(("can_device_access_peer() takes 2 positional arguments but %d were given"):format(2 + select("#", ...)), 2)
    end
    args.require("can_device_access_peer", { device = d or false, peer_device = peer }, { "device", "peer_device" })
    C.init()
    local i = valid(device_index(d))
    local j = valid(device_index(peer), "Invalid peer device id")
    return C.can_device_access_peer(i, j)
  end
  -- enable_peer_access(device, peer_device): let device's work reach peer_device's memory
  -- (one direction; the runtime refuses a device and itself)
  function M.enable_peer_access(d, peer)
    args.require("enable_peer_access", { device = d or false, peer_device = peer }, { "device", "peer_device" })
    C.init()
    local i = valid(device_index(d))
    local j = valid(device_index(peer), "Invalid peer device id")
    C.enable_peer_access(i, j)
  end

  -- `with torch.<dev>.device(i)`: fn runs with device i current, or a <close> value
  local function scoped(enter, exit, fn)
    enter()
    if fn == nil then return setmetatable({}, { __close = exit }) end
    local r = table.pack(pcall(fn))
    exit()
    if not r[1] then error(r[2], 0) end
    return table.unpack(r, 2, r.n)
  end
  M._scoped = scoped

  function M.device(d, fn)
    local i, prev = device_index(d), C.current_device()
    return scoped(function() C.set_device(i) end, function() C.set_device(prev) end, fn)
  end

  -- ---- streams --------------------------------------------------------------------------
  local Stream = class.class("torch." .. dev_type .. ".Stream")
  M.Stream = Stream

  -- a Stream (or an instance of cls, a subclass) over the runtime's handle s of device i
  local function wrap_stream(s, i, priority, cls)
    local st = class.alloc(cls or Stream)
    st._s, st.device_index, st.priority = s, i, priority or 0
    st.device = torch.device(("%s:%d"):format(dev_type, i))
    st[dev_type .. "_stream"] = C.stream_address(s) -- the runtime's handle (torch.cuda's cuda_stream)
    return st
  end

  -- Stream(device=None, priority=0): a stream from the device's pool (priority < 0: high)
  function Stream.new(cls, ...)
    local o = args.parse("Stream", { "device", "priority" }, { priority = 0 }, ...)
    if math.type(o.priority) ~= "integer" then
      error(("Stream(): argument 'priority' must be int, not %s"):format(args.py_type(o.priority)), 2)
    end
    local i = device_index(o.device)
    return wrap_stream(C.stream_new(i, o.priority), i, o.priority < 0 and -1 or 0, cls)
  end

  -- a stream's and an event's calls run with their device current, as PyTorch's device guards
  -- do: the driver takes them in the context they belong to
  local function on(i, f, ...)
    local prev = C.current_device()
    if prev == i then return f(...) end
    local args_ = table.pack(...)
    return M.device(i, function() return f(table.unpack(args_, 1, args_.n)) end)
  end

  function Stream:query() return on(self.device_index, C.stream_query, self._s) end
  function Stream:synchronize() on(self.device_index, C.stream_synchronize, self._s) end
  function Stream:wait_event(event) event:wait(self) end
  function Stream:wait_stream(other) self:wait_event(other:record_event()) end
  function Stream:record_event(event)
    event = event or M.Event()
    event:record(self)
    return event
  end
  function Stream.priority_range() return 0, -1 end
  Stream.__eq = function(a, b) return rawequal(a._s, b._s) and a.device_index == b.device_index end
  Stream.__tostring = function(s)
    return ("<torch.%s.Stream device=%s %s_stream=0x%x>"):format(dev_type, tostring(s.device), dev_type,
      s[dev_type .. "_stream"])
  end

  function M.current_stream(d)
    local i = device_index(d)
    return wrap_stream(C.current_stream(i), i)
  end
  function M.default_stream(d)
    local i = device_index(d)
    return wrap_stream(C.default_stream(i), i)
  end
  -- Tensor:record_stream(s): the tensor's memory is also used by work queued on s, so the
  -- allocator reuses it only after that work (PyTorch's Tensor.record_stream)
  function M._record_stream(t, s)
    if not Stream:isinstance(s) then
      error(("record_stream(): argument 'stream' must be a torch.%s.Stream"):format(dev_type), 3)
    end
    if t.device.type ~= dev_type then
      error(("Could not run 'aten::record_stream' with arguments from the '%s' backend."):format(t.device.type:upper()), 3)
    end
    if t:untyped_storage():nbytes() > 0 then C.record_stream(t:untyped_storage():data_ptr(), s._s) end
  end

  function M.set_stream(s) C.set_stream(s.device_index, s._s) end

  -- `with torch.<dev>.stream(s)`: work goes to s (on its device) while fn runs
  function M.stream(s, fn)
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

  -- ---- events ---------------------------------------------------------------------------
  local Event = class.class("torch." .. dev_type .. ".Event")
  M.Event = Event

  -- Event(enable_timing=False, blocking=False, interprocess=False)
  function Event:__init(...)
    local o = args.parse("Event", { "enable_timing", "blocking", "interprocess" }, {}, ...)
    self.enable_timing = o.enable_timing or false
  end

  -- the runtime's event is made on first record, on the recording stream's device (as torch.cuda)
  function Event:record(stream)
    stream = stream or M.current_stream()
    if self._e == nil then
      self._e = M.device(stream.device_index, function() return C.event_new(self.enable_timing) end)
      self.device_index = stream.device_index
    elseif self.device_index ~= stream.device_index then
      error(("Event device %d does not match recording stream's device %d."):format(self.device_index,
        stream.device_index), 2)
    end
    on(stream.device_index, C.event_record, self._e, stream._s)
  end
  function Event:wait(stream)
    stream = stream or M.current_stream()
    -- never recorded: nothing to wait for
    if self._e then on(stream.device_index, C.event_wait, self._e, stream._s) end
  end
  function Event:query() return self._e == nil or C.event_query(self._e) end
  function Event:synchronize() if self._e then C.event_synchronize(self._e) end end
  function Event:elapsed_time(stop)
    if self._e == nil or stop._e == nil then error("Both events must be recorded before calculating elapsed time.", 2) end
    return C.event_elapsed(self._e, stop._e)
  end
  Event.__tostring = function(e)
    return e._e and ("<torch.%s.Event>"):format(dev_type) or ("<torch.%s.Event uninitialized>"):format(dev_type)
  end

  -- ---- memory ---------------------------------------------------------------------------
  -- torch.cuda.memory_stats's flat dotted keys
  local function flatten(t, prefix, out)
    for k, v in pairs(t) do
      local key = prefix and (prefix .. "." .. k) or k
      if type(v) == "table" then flatten(v, key, out) else out[key] = v end
    end
    return out
  end

  function M.memory_stats_as_nested_dict(d) return C.memory_stats(device_index(d)) end
  function M.memory_stats(d)
    if not C.is_available() then return {} end
    return flatten(C.memory_stats(device_index(d)), nil, {})
  end
  local function stat(key) return function(d) return M.memory_stats(d)[key] or 0 end end
  M.memory_allocated = stat("allocated_bytes.all.current")
  M.max_memory_allocated = stat("allocated_bytes.all.peak")
  M.memory_reserved = stat("reserved_bytes.all.current")
  M.max_memory_reserved = stat("reserved_bytes.all.peak")
  function M.reset_peak_memory_stats(d) C.reset_peak_memory_stats(device_index(d)) end
  function M.reset_accumulated_memory_stats(d) C.reset_accumulated_memory_stats(device_index(d)) end
  M.empty_cache = C.empty_cache
  function M.mem_get_info(d) return C.mem_get_info(device_index(d)) end
  function M.memory_snapshot() return C.memory_snapshot() end

  function M.set_per_process_memory_fraction(fraction, d)
    if math.type(fraction) ~= "float" then error("Invalid type for fraction argument, must be `float`", 2) end
    if fraction < 0 or fraction > 1 then error(("Invalid fraction value: %s. Allowed range: 0~1"):format(fraction), 2) end
    C.set_per_process_memory_fraction(fraction, device_index(d))
  end

  M.memory_summary = require("mindtorch._memory_summary")(M, device_index, NAME, dev_type)

  -- the pinned host memory cache (pin_memory): its blocks in use and cached, and handing the
  -- cached ones back (PyTorch keeps these internal)
  M._host_memory_stats = C.host_memory_stats
  M._host_empty_cache = C.host_empty_cache

  return M
end
