-- examples/embed_host.c: a C program embedding mindtorch hands its image buffer to a Lua
-- model script and reads the prediction back; under valgrind it leaks nothing and makes no
-- invalid access (the sanitizer build checks the same with ASan instead).
local build = os.getenv("BUILD") or "build"
local host = build .. "/examples/embed_host"
local sanitized = os.getenv("MT_PRELOAD") ~= nil

local run = require "tests.lua.support.run"

describe("the embedding example", function()
  it("predicts each drawn shape and releases the host's buffer", function()
    for _, shape in ipairs { "horizontal", "vertical", "cross" } do
      local out, status = run(host .. " examples/embed_model.lua " .. shape)
      assert.are.equal(0, status, out)
      assert.truthy(out:find("predicted: " .. shape .. "\n", 1, true), out)
      assert.truthy(out:find("buffer released: yes", 1, true), out)
      -- the probabilities were read from C and sum to one
      local sum = 0
      for p in out:match("probabilities:([^\n]*)"):gmatch("%S+") do sum = sum + tonumber(p) end
      assert.is_true(math.abs(sum - 1) < 1e-3, out)
    end
  end)

  it("runs under valgrind with no leaks and no errors", function()
    if sanitized then return end -- an instrumented binary cannot run under valgrind; ASan checks it
    assert.are_not.equal("", (run("command -v valgrind")), "this test needs valgrind (apt-get install valgrind)")
    local out, status = run("valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible " ..
      "--error-exitcode=99 " .. host .. " examples/embed_model.lua vertical")
    assert.are.equal(0, status, out)
    assert.truthy(out:find("predicted: vertical", 1, true), out)
    assert.falsy(out:find("==%d+=="), out) -- -q: valgrind says nothing unless something is wrong
  end)

  it("reports a broken model script as an error, not a crash", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("return { predict = function(image) return image:view(5, 5) end }")
    f:close()
    local out, status = run(host .. " " .. path .. " cross")
    assert.are.equal(1, status, out)
    assert.truthy(out:find("embed_host: predict: .*shape '%[5, 5%]' is invalid for input of size 784"), out)
    f = assert(io.open(path, "w"))
    f:write("return 42")
    f:close()
    out, status = run(host .. " " .. path)
    assert.are.equal(1, status, out)
    assert.truthy(out:find("must return a table with predict", 1, true), out)
    os.remove(path)
  end)
end)
