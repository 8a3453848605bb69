-- run.lua: what the specs that start other programs share. run(cmd) runs a shell command and
-- returns its output (stdout and stderr together) and exit status.
return function(cmd)
  local p = io.popen(cmd .. " 2>&1; echo \"status=$?\"")
  local out = p:read("a")
  p:close()
  local body, status = out:match("^(.*)status=(%d+)\n$")
  return body, tonumber(status)
end
