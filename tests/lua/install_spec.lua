-- Distribution: `make install DESTDIR=...` gives a tree that works after it is moved (luamt,
-- a plain lua5.4, a C host built with pkg-config), and `luarocks make` into a fresh tree
-- gives a plain lua5.4 a working require "mindtorch" with no other step.
local build = os.getenv("BUILD") or "build"
local preload = os.getenv("MT_PRELOAD") -- the sanitizer runtimes, under make asan

local run = require "tests.lua.support.run"

-- make and luarocks run from inside `make check`: they must not join its jobserver
local clean_env = "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL BUILD=" .. build .. " "
-- a plain lua5.4 loading instrumented libraries needs the sanitizer runtimes first
local lua = preload and ("LD_PRELOAD='" .. preload .. "' ASAN_OPTIONS=detect_leaks=0 lua5.4") or "lua5.4"

-- a script that trains a model: the loss must fall
local train = [[
local torch = require "mindtorch"
local nn = torch.nn
torch.manual_seed(0)
local x = torch.randn(64, 4)
local y = x:sum(2):gt(0):long():view(-1) + 1
local model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
local opt = torch.optim.SGD(model:parameters(), { lr = 0.5 })
local first, last
for _ = 1, 100 do
  opt:zero_grad()
  local loss = nn.functional.cross_entropy(model(x), y)
  loss:backward()
  opt:step()
  first, last = first or loss:item(), loss:item()
end
print(last < first / 4, package.searchpath("mindtorch.core", package.cpath))
]]

local function tmpdir()
  local out = run("mktemp -d")
  return (out:gsub("%s+$", ""))
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

-- the library's file names, Debian's way: the real file, its SONAME (the runtime link) and
-- the development link
local version = assert(io.open("src/mindtorch.h")):read("a"):match('#define MT_VERSION "(%d+%.%d+%.%d+)"')
local soname = "libmindtorch.so.0"
local real = soname .. version:match("^%d+(%..*)$")

-- readelf -d's entries of one kind (SONAME, NEEDED, RUNPATH) of a file, as a list
local function dynamic(file, kind)
  local out, status = run("readelf -d " .. file)
  assert.are.equal(0, status, out)
  local list = {}
  for v in out:gmatch("%(" .. kind .. "%)%s+[^\n]-%[([^%]]*)%]") do list[#list + 1] = v end
  return list
end

local function readlink(path) return (run("readlink " .. path):gsub("%s+$", "")) end
local function is_link(path) return select(2, run("test -L " .. path)) == 0 end
local function needs(file, lib)
  for _, v in ipairs(dynamic(file, "NEEDED")) do if v == lib then return true end end
  return false
end

describe("make install", function()
  it("installs a versioned library: the real file, its SONAME link and the development link", function()
    assert.truthy(version, "no MT_VERSION in src/mindtorch.h")
    local dir = tmpdir()
    local out, status = run(clean_env .. "make -s --no-print-directory install-runtime DESTDIR=" .. dir .. "/rt PREFIX=/usr")
    assert.are.equal(0, status, out)
    out, status = run(clean_env .. "make -s --no-print-directory install DESTDIR=" .. dir .. "/all PREFIX=/usr")
    assert.are.equal(0, status, out)
    for _, lib in ipairs { dir .. "/rt/usr/lib", dir .. "/all/usr/lib" } do
      assert.is_false(is_link(lib .. "/" .. real), real .. " is the library itself")
      assert.are.same({ soname }, dynamic(lib .. "/" .. real, "SONAME"))
      -- relative links, so the tree can move
      assert.are.equal(real, readlink(lib .. "/" .. soname))
      -- what loads the library asks for its SONAME
      assert.is_true(needs(lib .. "/lua/5.4/mindtorch/core.so", soname))
      assert.is_true(needs(lib .. "/lua/5.4/mindtorch/npu_backend.so", soname))
      local mpi = lib .. "/lua/5.4/mindtorch/distributed_mpi.so"
      if io.open(mpi) then assert.is_true(needs(mpi, soname)) end
    end
    -- the development link and the C files come with install-devel only
    assert.is_nil(io.open(dir .. "/rt/usr/lib/libmindtorch.so"))
    assert.is_nil(io.open(dir .. "/rt/usr/include/mindtorch/mindtorch.h"))
    assert.are.equal(soname, readlink(dir .. "/all/usr/lib/libmindtorch.so"))
    -- the build tree is laid out the same way
    assert.are.same({ soname }, dynamic(build .. "/lib/" .. real, "SONAME"))
    assert.are.equal(real, readlink(build .. "/lib/" .. soname))
    assert.are.equal(soname, readlink(build .. "/lib/libmindtorch.so"))
    run("rm -rf " .. dir)
  end)

  it("installs a tree that works after moving it", function()
    local dir = tmpdir()
    local out, status = run(clean_env .. "make -s --no-print-directory install DESTDIR=" .. dir .. "/stage PREFIX=/opt/mindtorch")
    assert.are.equal(0, status, out)
    for _, f in ipairs { "bin/luamt", "lib/" .. real, "lib/" .. soname, "lib/libmindtorch.so",
                         "lib/lua/5.4/mindtorch/core.so", "lib/lua/5.4/mindtorch/npu_backend.so",
                         "share/lua/5.4/mindtorch/init.lua", "share/lua/5.4/mindtorch/nn/init.lua",
                         "include/mindtorch/mindtorch.h", "lib/pkgconfig/mindtorch.pc" } do
      assert.truthy(io.open(dir .. "/stage/opt/mindtorch/" .. f), f)
    end
    local moved = dir .. "/elsewhere"
    assert.are.equal(0, select(2, run("mv " .. dir .. "/stage/opt/mindtorch " .. moved)))
    write(dir .. "/train.lua", train)

    -- luamt finds everything next to itself
    out, status = run(moved .. "/bin/luamt " .. dir .. "/train.lua")
    assert.are.equal(0, status, out)
    assert.are.equal("true\t" .. moved .. "/bin/../lib/lua/5.4/mindtorch/core.so\n", out)

    -- the NPU module is found next to the moved library (here against the ACL stand-in)
    local standin = "ASCEND_HOME_PATH=$(cd " .. build .. "/ascend-standin && pwd) "
    out, status = run(standin .. moved .. "/bin/luamt -e 'print(torch.ones(2, {device = \"npu\"}):cpu():sum():item())'")
    assert.are.equal(0, status, out)
    assert.are.equal("2.0\n", out)

    -- a plain lua5.4 with the tree on its paths
    out, status = run(("cd %s && LUA_PATH='%s/share/lua/5.4/?.lua;%s/share/lua/5.4/?/init.lua' LUA_CPATH='%s/lib/lua/5.4/?.so' %s train.lua")
      :format(dir, moved, moved, moved, lua))
    assert.are.equal(0, status, out)
    assert.truthy(out:find("^true\t" .. moved:gsub("%p", "%%%0") .. "/lib/lua/5.4/mindtorch/core.so\n"))

    -- a C host compiled with pkg-config's flags: mindtorch.pc sets no rpath (Debian policy), so
    -- a host of a prefix off the loader's path runs with LD_LIBRARY_PATH or sets its own rpath
    local pc = "PKG_CONFIG_PATH=" .. moved .. "/lib/pkgconfig "
    local flags = run(pc .. "pkg-config --cflags --libs mindtorch")
    assert.falsy(flags:find("rpath", 1, true), flags)
    local sanitize = preload and "-fsanitize=address,undefined " or ""
    out, status = run(("cc %s-o %s/host examples/embed_host.c $(%spkg-config --cflags --libs mindtorch)")
      :format(sanitize, dir, pc))
    assert.are.equal(0, status, out)
    assert.is_true(needs(dir .. "/host", soname))
    assert.are.same({}, dynamic(dir .. "/host", "R[UNPATH]+"))
    out, status = run(("LD_LIBRARY_PATH=%s/lib %s/host examples/embed_model.lua cross"):format(moved, dir))
    assert.are.equal(0, status, out)
    assert.truthy(out:find("predicted: cross", 1, true), out)
    -- the same host with its own rpath
    out, status = run(("cc %s-o %s/host2 examples/embed_host.c $(%spkg-config --cflags --libs mindtorch) -Wl,-rpath,%s/lib")
      :format(sanitize, dir, pc, moved))
    assert.are.equal(0, status, out)
    out, status = run(("env -u LD_LIBRARY_PATH %s/host2 examples/embed_model.lua vertical"):format(dir))
    assert.are.equal(0, status, out)
    assert.truthy(out:find("predicted: vertical", 1, true), out)
    run("rm -rf " .. dir)
  end)
end)

describe("luarocks make", function()
  it("builds into a fresh tree where a plain lua5.4 script trains a model", function()
    assert.are_not.equal("", (run("command -v luarocks")), "these tests need luarocks (apt-get install luarocks)")
    local dir = tmpdir()
    local tree = dir .. "/tree"
    local out, status = run(clean_env .. "luarocks --lua-version 5.4 --tree " .. tree .. " make rocks/mindtorch-scm-1.rockspec")
    assert.are.equal(0, status, out)
    write(dir .. "/train.lua", train)
    -- only the paths `luarocks path` gives; no LD_LIBRARY_PATH
    out, status = run(("cd %s && eval \"$(luarocks --lua-version 5.4 --tree %s path)\" && env -u LD_LIBRARY_PATH %s train.lua")
      :format(dir, tree, lua))
    assert.are.equal(0, status, out)
    assert.are.equal("true\t" .. tree .. "/lib/lua/5.4/mindtorch/core.so\n", out)
    -- the library is one file named after its SONAME, where core.so's rpath looks
    local lib = tree .. "/lib/lua/5.4/"
    assert.is_false(is_link(lib .. soname))
    assert.are.same({ soname }, dynamic(lib .. soname, "SONAME"))
    assert.is_nil(io.open(lib .. real))
    -- the NPU module from the tree, loaded by the core on first use
    out, status = run(("cd %s && eval \"$(luarocks --lua-version 5.4 --tree %s path)\" && ASCEND_HOME_PATH=%s %s -e '%s'")
      :format(dir, tree, os.getenv("PWD") .. "/" .. build .. "/ascend-standin", lua,
        'local t = require "mindtorch"; print(t.full({3}, 2.5, {device = "npu"}):cpu():sum():item())'))
    assert.are.equal(0, status, out)
    assert.are.equal("7.5\n", out)
    -- and the shell it installed
    out, status = run(tree .. "/bin/luamt -e 'print(torch.ones(3):sum():item())'")
    assert.are.equal(0, status, out)
    assert.are.equal("3.0\n", out)
    run("rm -rf " .. dir)
  end)
end)
