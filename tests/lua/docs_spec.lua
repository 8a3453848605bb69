-- The operator reference is generated from the schemas; the committed copy must be current.
describe("doc/reference.md", function()
  it("matches the operator schemas (run `make docs` after changing src/ops)", function()
    local build = os.getenv("BUILD") or "build"
    local read = require("tests.lua.support.files").read
    assert.are.equal(read(build .. "/gen/reference.md"), read("doc/reference.md"))
  end)
end)
