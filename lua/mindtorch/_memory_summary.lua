-- _memory_summary.lua: torch.<dev>.memory_summary, the table torch.cuda.memory_summary prints
-- (PyTorch 1.13's layout: 75-column rows, sizes in B/KB/MB/GB chosen from the "all" row, counts
-- in units of a thousand), labelled for the device as torch_npu labels the NPU's: name "NPU"
-- ("NPU OOMs", "NPU reserved memory"), malloc "npu" ("npuMalloc retries").
return function(dev, device_index, name, malloc)
  -- torch.cuda's formatting: the unit is chosen from `pref` (the "all" row's value), stepping
  -- by `base` while pref is at least `limit`; the value is divided along
  local function scaled(units, base, limit, pattern)
    return function(v, pref)
      local i = 1
      while i < #units and pref >= limit do
        i = i + 1
        v = v // base
        pref = pref / base
      end
      return pattern:format(v, units[i])
    end
  end
  local format_size = scaled({ "B ", "KB", "MB", "GB", "TB", "PB" }, 1024, 768 * 1024, "%7d %s")
  local format_count = scaled({ " ", "K", "M" }, 1000, 750 * 1000, "%7d %s ")

  local metrics = {
    { "allocated_bytes", "Allocated memory", format_size },
    { "active_bytes", "Active memory", format_size },
    { "reserved_bytes", name .. " reserved memory", format_size },
    { "inactive_split_bytes", "Non-releasable memory", format_size },
    { "allocation", "Allocations", format_count },
    { "active", "Active allocs", format_count },
    { "segment", name .. " reserved segments", format_count },
    { "inactive_split", "Non-releasable allocs", format_count },
  }
  local columns = { "current", "peak", "allocated", "freed" }

  return function(device, abbreviated)
    local d = device_index(device)
    local stats = dev.memory_stats(d)
    local lines = {}
    local function add(s) lines[#lines + 1] = s end
    local function row(name, values) add((" %-21s | %s | %s | %s | %s "):format(name, table.unpack(values))) end
    add(("="):rep(75))
    add((" %16s PyTorch %s memory summary, device ID %-" .. (21 - #name) .. "d "):format("", name, d))
    add(("-"):rep(75))
    add(("  %9s %s OOMs: %-" .. (16 - #name) .. "d | %6s %sMalloc retries: %-" .. (12 - #malloc) .. "d  "):format(
      "", name, stats.num_ooms or 0, "", malloc, stats.num_alloc_retries or 0))
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
    for _, m in ipairs { { "oversize_allocations", "Oversize allocations" }, { "oversize_segments", "Oversize " .. name .. " segments" } } do
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
