-- tostring(tensor) equals PyTorch's repr, character for character. The cases live in
-- cases/printing.py; each is rebuilt here from the golden's dtype, shape and exact values.
local torch = require "mindtorch"
local H = assert(loadfile("tests/contract/harness.lua", "t", _ENV))()

local goldens = H.load("printing")

describe("contract printing", function()
  for _, name in ipairs(H.sorted_keys(goldens)) do
    it(name, function()
      local g = goldens[name]
      if g.default_dtype then torch.set_default_dtype(torch[g.default_dtype]) end
      local ok, err = pcall(function()
        local t = H.build(g.tensor)
        if g.print then torch.set_printoptions(g.print) end
        assert.are.equal(g.tensor.repr, tostring(t))
      end)
      torch.set_printoptions { profile = "default" }
      torch.set_default_dtype(torch.float32)
      assert(ok, err)
    end)
  end
end)
