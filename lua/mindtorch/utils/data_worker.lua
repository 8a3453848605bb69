-- data_worker.lua: the DataLoader's worker processes (num_workers > 0), as PyTorch's:
--   * each worker is a forked process that runs dataset:get + collate (or its own copy of an
--     IterableDataset) for the tasks sent to it; task k goes to worker (k - 1) % num_workers,
--     so reading the workers in turn gives the batches in the sampler's order;
--   * at most prefetch_factor tasks are in flight per worker;
--   * worker w (0-based, as PyTorch's) seeds torch with base_seed + w, where base_seed is the
--     loader's draw at the start of the epoch; get_worker_info() gives id, num_workers, seed,
--     dataset there; worker_init_fn(id) runs in the worker first;
--   * batches come back in two parts: their tensors' bytes in a shared slot (torch._proc.slot,
--     one per task in flight: a worker's k-th task uses its slot (k - 1) % prefetch_factor + 1)
--     and, through a pipe, the rest in torch.save's format (torch._encode_value) with the
--     tensors' dtypes and shapes, read with every size checked; an error in a worker is raised
--     in the parent with its message;
--   * the workers end when the epoch ends, when a for loop leaves early (the iterator's closing
--     value), or when the iterator is collected: their pipes are closed, then they are
--     waited for (killed if they do not end within two seconds), so none is left behind.
local cache
return function(torch, data)
  if cache then return cache end
  local proc = torch._proc
  local W = {}

  -- a reply: the bytes of its tensors into slot, then the number of those bytes and the
  -- encoded rest as one message
  local function encode(v, slot)
    local ok, s = pcall(function()
      local sink = {}
      local head = torch._encode_value(v, sink)
      return string.pack("<i8", slot:put(sink)) .. head
    end)
    if ok then return s end
    return string.pack("<i8", 0)
      .. torch._encode_value({ err = "the batch cannot be sent to the main process: " .. tostring(s) })
  end

  -- the child's loop; never returns (ends with _exit)
  local function worker_main(loader, wid, nw, seed, task_r, res_w, slots)
    local ok, err = pcall(function()
      torch.set_num_threads(1) -- the pool's threads were not forked
      torch.manual_seed(seed)
      math.randomseed(seed)
      data._set_worker_info({ id = wid, num_workers = nw, seed = seed, dataset = loader.dataset })
      if loader.worker_init_fn then loader.worker_init_fn(wid) end
    end)
    local init_err = not ok and tostring(err) or nil
    local it, exhausted
    local done = 0 -- tasks answered: the next one's slot is slots[done % #slots + 1]
    while true do
      local msg = proc.recv(task_r)
      if not msg then break end
      local reply
      if init_err then
        reply = { err = init_err }
      else
        local pok, res = pcall(function()
          local task = torch._decode_value(msg, "DataLoader task")
          if loader.iterable then
            if exhausted then return { done = true } end
            it = it or loader:_iterable_iter()
            local v = table.pack(it())
            if v[1] == nil then
              exhausted = true
              return { done = true }
            end
            return { v = v, n = v.n }
          end
          local v = table.pack(loader:_produce(task.t))
          return { v = v, n = v.n }
        end)
        reply = pok and res or { err = tostring(res) }
      end
      local slot = slots[done % #slots + 1]
      done = done + 1
      if not proc.send(res_w, encode(reply, slot)) then break end
    end
    proc._exit(0)
  end

  function W.iter(loader)
    local nw, prefetch, timeout = loader.num_workers, loader.prefetch_factor, loader.timeout
    local base = loader._base_seed
    local owner = proc.getpid()
    local workers = {}
    local closed = false

    local function shutdown()
      if closed or proc.getpid() ~= owner then return end -- a forked copy never ends its siblings
      closed = true
      for _, w in ipairs(workers) do
        proc.close(w.task_w)
        proc.close(w.res_r)
        for _, slot in ipairs(w.slots) do slot:close() end
      end
      for _ = 1, 200 do
        local left = false
        for _, w in ipairs(workers) do
          if not w.reaped then
            local done = proc.waitpid(w.pid, true)
            if done ~= false then w.reaped = true else left = true end
          end
        end
        if not left then return end
        proc.sleep(0.01)
      end
      for _, w in ipairs(workers) do
        if not w.reaped then
          proc.kill(w.pid)
          proc.waitpid(w.pid)
          w.reaped = true
        end
      end
    end

    for wid = 0, nw - 1 do
      local tr, tw = proc.pipe()
      local rr, rw
      if tr then rr, rw = proc.pipe() end
      local slots, serr = {}, nil
      for k = 1, rr and prefetch or 0 do
        slots[k], serr = proc.slot()
        if not slots[k] then break end
      end
      if not rr or serr then
        if tr then
          proc.close(tr)
          proc.close(tw)
        end
        if rr then
          proc.close(rr)
          proc.close(rw)
        end
        for _, slot in ipairs(slots) do slot:close() end
        shutdown()
        error("DataLoader: could not make the pipes of its workers: " .. tostring(serr or rw or tw), 3)
      end
      local pid, ferr = proc.fork()
      if pid == 0 then
        proc.close(tw)
        proc.close(rr)
        for _, w in ipairs(workers) do -- the other workers' ends: their end of file is theirs
          proc.close(w.task_w)
          proc.close(w.res_r)
          for _, slot in ipairs(w.slots) do slot:close() end
        end
        pcall(worker_main, loader, wid, nw, base + wid, tr, rw, slots)
        proc._exit(1)
      end
      proc.close(tr)
      proc.close(rw)
      if not pid then
        proc.close(tw)
        proc.close(rr)
        for _, slot in ipairs(slots) do slot:close() end
        shutdown()
        error("DataLoader: could not start a worker: " .. tostring(ferr), 3)
      end
      workers[#workers + 1] = { pid = pid, task_w = tw, res_r = rr, id = wid, active = true, slots = slots, got = 0 }
    end
    local closer = setmetatable({}, { __close = shutdown, __gc = shutdown })

    local function fail(msg)
      shutdown()
      error(msg, 0)
    end
    local function receive(w)
      local msg, why = proc.recv(w.res_r, timeout > 0 and timeout or nil)
      if not msg then
        if why == "timeout" then fail(("DataLoader timed out after %s seconds"):format(tostring(timeout))) end
        fail(("DataLoader worker (pid(s) %d) exited unexpectedly"):format(w.pid))
      end
      local slot = w.slots[w.got % #w.slots + 1]
      w.got = w.got + 1
      local ok, reply = pcall(function()
        local what = "DataLoader worker's batch"
        if #msg < 8 then error(what .. ": not a valid mindtorch file (truncated)", 0) end
        local sink = {}
        local v = torch._decode_value(msg:sub(9), what, sink)
        slot:get(sink, string.unpack("<i8", msg))
        return v
      end)
      if not ok then fail(tostring(reply)) end
      if reply.err then fail(("Caught an error in DataLoader worker process %d.\n%s"):format(w.id, reply.err)) end
      return reply
    end
    local function request(w, task)
      if not proc.send(w.task_w, torch._encode_value({ t = task })) then
        fail(("DataLoader worker (pid(s) %d) exited unexpectedly"):format(w.pid))
      end
    end

    if loader.iterable then
      for _ = 1, prefetch do
        for _, w in ipairs(workers) do request(w, true) end
      end
      local turn = 0
      return function()
        if closed or not closer then return nil end -- (the closer lives as long as the iterator)
        for _ = 1, nw do
          turn = turn % nw + 1
          local w = workers[turn]
          if w.active then
            local reply = receive(w)
            if reply.done then
              w.active = false
            else
              request(w, true)
              return table.unpack(reply.v, 1, reply.n)
            end
          end
        end
        shutdown()
        return nil
      end, nil, nil, closer
    end

    local tasks = data._iterate(loader.batch_sampler or loader.sampler)
    local sent, got, exhausted = 0, 0, false
    local function send_next()
      if exhausted then return end
      local t = tasks()
      if t == nil then
        exhausted = true
        return
      end
      request(workers[sent % nw + 1], t)
      sent = sent + 1
    end
    for _ = 1, nw * prefetch do send_next() end
    return function()
      if closed or not closer then return nil end -- (the closer lives as long as the iterator)
      if got >= sent then
        shutdown()
        return nil
      end
      local w = workers[got % nw + 1]
      local reply = receive(w)
      got = got + 1
      send_next()
      return table.unpack(reply.v, 1, reply.n)
    end, nil, nil, closer
  end

  cache = W
  return W
end
