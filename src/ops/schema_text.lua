-- schema_text.lua: an operator schema's text cut into its parts, with no meaning given to the
-- types yet: the name, the overload, each argument (type text, name, default text, whether it
-- is keyword-only) and the returns text. opgen.lua types and checks the parts;
-- tests/fuzz/api_fuzz.lua draws arguments from them.
local M = {}

-- split at the commas outside brackets, each part trimmed
function M.split_commas(s)
  local out, depth, cur = {}, 0, {}
  for ch in s:gmatch(".") do
    if ch == "[" or ch == "(" then depth = depth + 1 end
    if ch == "]" or ch == ")" then depth = depth - 1 end
    if ch == "," and depth == 0 then
      out[#out + 1] = table.concat(cur):match("^%s*(.-)%s*$")
      cur = {}
    else
      cur[#cur + 1] = ch
    end
  end
  local last = table.concat(cur):match("^%s*(.-)%s*$")
  if last ~= "" then out[#out + 1] = last end
  return out
end

-- "name.overload(Type a, *, Type b=default) -> rets" -> the parts, or nil and what is wrong
function M.parse(text)
  local name, overload, args, rets = text:match("^([%w_]+)%.?([%w_]*)(%b())%s*%->%s*(.+)$")
  if not name then return nil, "cannot parse schema" end
  local parts = { name = name, overload = overload, args = {}, rets = rets:match("^%s*(.-)%s*$") }
  local kwonly = false
  for _, a in ipairs(M.split_commas(args:sub(2, -2))) do
    if a == "*" then
      kwonly = true
    else
      local ty, aname, def = a:match("^(%S+)%s+([%w_]+)%s*=%s*(.+)$")
      if not ty then ty, aname = a:match("^(%S+)%s+([%w_]+)$") end
      if not ty then return nil, "cannot parse argument '" .. a .. "'" end
      parts.args[#parts.args + 1] = { type = ty, name = aname, default = def, kwonly = kwonly }
    end
  end
  return parts
end

return M
