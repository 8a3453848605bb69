-- _memory_summary.lua: torch.npu.memory_summary, the table torch.cuda.memory_summary prints
-- (PyTorch 1.13's layout: 75-column rows, sizes in B/KB/MB/GB chosen from the "all" row, counts
-- in units of a thousand) with torch_npu's NPU labels.
return function(npu, device_index)
  local function format_size(sz, pref)
    local prefixes = { "B ", "KB", "MB", "GB", "TB", "PB" }
    local i = 1
    while i < #prefixes and pref >= 768 * 1024 do
      i = i + 1
      sz = sz // 1024
      pref = pref / 1024
    end
    return ("%7d %s"):format(sz, prefixes[i])
  end

  local function format_count(cnt, pref)
    local prefixes = { " ", "K", "M" }
    local i = 1
    while i < #prefixes and pref >= 750 * 1000 do
      i = i + 1
      cnt = cnt // 1000
      pref = pref / 1000
    end
    return ("%7d %s "):format(cnt, prefixes[i])
  end

  local metrics = {
    { "allocated_bytes", "Allocated memory", format_size },
    { "active_bytes", "Active memory", format_size },
    { "reserved_bytes", "NPU reserved memory", format_size },
    { "inactive_split_bytes", "Non-releasable memory", format_size },
    { "allocation", "Allocations", format_count },
    { "active", "Active allocs", format_count },
    { "segment", "NPU reserved segments", format_count },
    { "inactive_split", "Non-releasable allocs", format_count },
  }
  local columns = { "current", "peak", "allocated", "freed" }

  return function(device, abbreviated)
    local d = device_index(device)
    local stats = npu.memory_stats(d)
    local lines = {}
    local function add(s) lines[#lines + 1] = s end
    local function row(name, values) add((" %-21s | %s | %s | %s | %s "):format(name, table.unpack(values))) end
    add(("="):rep(75))
    add((" %16s PyTorch NPU memory summary, device ID %-18d "):format("", d))
    add(("-"):rep(75))
    add(("  %9s NPU OOMs: %-13d | %6s npuMalloc retries: %-9d  "):format("", stats.num_ooms or 0, "",
      stats.num_alloc_retries or 0))
    add(("="):rep(75))
    add("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ")
    for _, m in ipairs(metrics) do
      local key, name, fmt = m[1], m[2], m[3]
      add(("-"):rep(75))
      local pools = { { "all", name } }
      if not abbreviated then
        pools[2] = { "large_pool", "      from large pool" }
        pools[3] = { "small_pool", "      from small pool" }
      end
      local prefs = {}
      for i, c in ipairs(columns) do prefs[i] = stats[key .. ".all." .. c] or 0 end
      for _, p in ipairs(pools) do
        local values = {}
        for i, c in ipairs(columns) do values[i] = fmt(stats[key .. "." .. p[1] .. "." .. c] or 0, prefs[i]) end
        row(p[2], values)
      end
    end
    for _, m in ipairs { { "oversize_allocations", "Oversize allocations" }, { "oversize_segments", "Oversize NPU segments" } } do
      add(("-"):rep(75))
      local values = {}
      for i, c in ipairs(columns) do
        local v = stats[m[1] .. "." .. c] or 0
        values[i] = format_count(v, v)
      end
      row(m[2], values)
    end
    add(("="):rep(75))
    for i, l in ipairs(lines) do lines[i] = "|" .. l .. "|" end
    return table.concat(lines, "\n") .. "\n"
  end
end
