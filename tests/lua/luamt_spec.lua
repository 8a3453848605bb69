-- luamt runs scripts like lua5.4 (arg, exit status, -e, stdin) with mindtorch preloaded,
-- and `make lua-env` lets a plain lua5.4 require "mindtorch" from the build tree.
local build = os.getenv("BUILD") or "build"
local luamt = build .. "/luamt"

local run = require "tests.lua.support.run"

local function script(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

describe("luamt", function()
  it("runs a script with arguments and torch preloaded", function()
    local s = script('print(#arg, arg[1], arg[2], arg[0] ~= nil, torch.zeros(2):numel())')
    local out, status = run(luamt .. " " .. s .. " a b")
    os.remove(s)
    assert.are.equal("2\ta\tb\ttrue\t2\n", out)
    assert.are.equal(0, status)
  end)

  it("exits with os.exit's status and with 1 on an error", function()
    local out, status = run(luamt .. " -e 'os.exit(3)'")
    assert.are.equal(3, status)
    out, status = run(luamt .. " -e 'error(\"boom\")'")
    assert.are.equal(1, status)
    assert.truthy(out:find("boom", 1, true))
  end)

  it("runs -e code in order and reads a script from stdin", function()
    local out = run(luamt .. " -e 'x = 2' -e 'print(x * 21)'")
    assert.are.equal("42\n", out)
    out = run("echo 'print(torch.ones(2, 2):numel())' | " .. luamt .. " -")
    assert.are.equal("4\n", out)
  end)

  it("prints versions", function()
    local out, status = run(luamt .. " --version")
    assert.are.equal(0, status)
    assert.truthy(out:match("^mindtorch %d+%.%d+%.%d+, Lua 5%.4%.%d+, OpenBLAS %d+%.%d+"), out)
  end)

  it("prints expression results in interactive mode", function()
    local out = run("printf 'torch.arange(3)\\n1+1;\\nfunction f()\\nreturn 5\\nend\\nf()\\n' | " .. luamt .. " -i")
    -- a trailing ";" suppresses the result; the function continues over three lines
    assert.are.equal("tensor([0, 1, 2])\n5\n", out)
  end)

  it("prints its usage for --help and -h, and takes -l name=module", function()
    for _, opt in ipairs { "--help", "-h" } do
      local out, status = run(luamt .. " " .. opt .. " 2>/dev/null")
      assert.are.equal(0, status)
      assert.truthy(out:find("^usage: [^\n]*luamt %[options%] %[script %[args%]%]\n"), out)
      assert.truthy(out:find("-l g=mod  require library 'mod' into global 'g'", 1, true), out)
    end
    local out, status = run(luamt .. " -l T=mindtorch -l string -l fmt=string -e 'print(T == torch, fmt.rep(\"ab\", 2))'")
    assert.are.equal(0, status)
    assert.are.equal("true\tabab\n", out)
    out, status = run(luamt .. " -l g=no.such.module -e 'print(1)'")
    assert.are.equal(1, status)
    assert.truthy(out:find("module 'no.such.module' not found", 1, true), out)
  end)

  it("ends a script on Ctrl-C with an \"interrupted!\" error and status 1, as lua5.4", function()
    local s = script('io.write("started\\n") io.flush() local x = torch.zeros(4) while true do x = x + 1 end')
    -- timeout sends SIGINT once luamt has surely started (the sanitizer build starts slower).
    -- --foreground: without it timeout signals its whole process group as well, and a second
    -- SIGINT that lands after the first was handled ends luamt with status 130, as it should.
    local after = os.getenv("MT_PRELOAD") and 30 or 3
    local out, status = run(("timeout --foreground --preserve-status -s INT %d %s %s"):format(after, luamt, s))
    os.remove(s)
    assert.are.equal(1, status, out)
    assert.truthy(out:find("^started\n"), out)
    assert.truthy(out:find("interrupted!\nstack traceback:", 1, true), out)
  end)

  it("rejects unknown options", function()
    local out, status = run(luamt .. " --frobnicate")
    assert.are.equal(1, status)
    assert.truthy(out:find("unrecognized option '--frobnicate'", 1, true))
  end)
end)

describe("make lua-env", function()
  it("lets a plain lua5.4 require mindtorch from the build tree", function()
    -- under the sanitizers, the plain interpreter needs their runtimes preloaded
    local pre = os.getenv("MT_PRELOAD")
    local lua = pre and ("LD_PRELOAD='" .. pre .. "' ASAN_OPTIONS=detect_leaks=0 lua5.4") or "lua5.4"
    local out, status = run("eval \"$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory lua-env BUILD=" .. build .. ")\" && " .. lua ..
      " -e 'local t = require \"mindtorch\"; print(t.ones(3):tolist()[3])'")
    assert.are.equal(0, status, out .. " (status of: " .. lua .. ")")
    assert.are.equal("1.0\n", out)
  end)
end)
