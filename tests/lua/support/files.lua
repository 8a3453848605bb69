-- files.lua: whole-file reads and writes for the specs and test tools (binary, asserting).
local files = {}

function files.read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

function files.write(path, bytes)
  local f = assert(io.open(path, "wb"))
  f:write(bytes)
  f:close()
  return path
end

return files
