-- Error paths under valgrind: a loop that raises errors inside ops (tests/lua/scripts/
-- error_loop.lua) makes no invalid access and leaks nothing. tests/valgrind.supp holds the one
-- suppression (glibc's loader, not this project). The sanitizer build checks the same with ASan.
local build = os.getenv("BUILD") or "build"
local sanitized = os.getenv("MT_PRELOAD") ~= nil
local run = require "tests.lua.support.run"

describe("a loop of failing ops", function()
  it("runs under valgrind with 0 errors and no leaks", function()
    if sanitized then return end -- an instrumented binary cannot run under valgrind
    assert.are_not.equal("", (run("command -v valgrind")), "this test needs valgrind (apt-get install valgrind)")
    local out, status = run("LUAMT_HISTORY=/dev/null valgrind -q --leak-check=full "
      .. "--errors-for-leak-kinds=definite,indirect --suppressions=tests/valgrind.supp --error-exitcode=99 "
      .. build .. "/luamt tests/lua/scripts/error_loop.lua 20")
    assert.are.equal(0, status, out)
    assert.truthy(out:find("errors raised\t400", 1, true), out)
    assert.falsy(out:find("==%d+=="), out) -- -q: valgrind says nothing unless something is wrong
  end)
end)
