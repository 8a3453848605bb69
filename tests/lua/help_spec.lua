-- torch.help / help(x) / ?name: signatures from the core's schemas, Lua functions and classes
-- from their source, a guide with no argument; and the shell's string/comment test for <TAB>.
local torch = require "mindtorch"
local help = require "mindtorch.help"
local repl = require "mindtorch.repl"

describe("torch.help", function()
  it("is the help module, callable", function()
    assert.are.equal(help, torch.help)
    assert.are.equal(help.text(torch.add), help.text("torch.add"))
  end)

  it("prints an operator's signatures and descriptions from its schemas", function()
    local t = help.text(torch.add)
    assert.truthy(t:find("^torch%.add  %[operator add: torch%.add%(%.%.%.%), x:add%(%.%.%.%)%]\n"), t)
    assert.truthy(t:find("\n  add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n      self + alpha * other.\n",
      1, true), t)
    assert.truthy(t:find("add.Scalar(Tensor self, Scalar other, *, Scalar alpha=1) -> Tensor", 1, true), t)
    assert.truthy(t:find("{alpha = ...}", 1, true), t)
    -- the same text as the generated reference
    local ref = io.open("doc/reference.md")
    if ref then
      local md = ref:read("a")
      ref:close()
      assert.truthy(md:find("`add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor` | self + alpha * other. |",
        1, true))
    end
  end)

  it("finds methods, namespaced ops and 1-based arguments", function()
    local x = torch.zeros(2)
    local t = help.text(x.sum)
    assert.truthy(t:find("^torch%.Tensor%.sum  "), t)
    assert.truthy(t:find("Dim, Index and IndexTensor arguments are 1-based.", 1, true), t)
    t = help.text(torch.linalg.det)
    assert.truthy(t:find("[operator linalg_det: torch.linalg.det(...)]", 1, true), t)
    assert.truthy(t:find("linalg_det(Tensor A) -> Tensor", 1, true), t)
    _G.help_spec_x = x
    t = help.text("help_spec_x:mean")
    _G.help_spec_x = nil
    assert.truthy(t:find("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", 1, true), t)
  end)

  it("shows a class: its name, parents, constructor and where it is defined", function()
    local t = help.text(torch.nn.Linear)
    assert.truthy(t:find("^<class 'nn%.Linear'>  %(a subclass of nn%.Module%)\n"), t)
    assert.truthy(t:find("\n  nn.Linear(in_features, out_features, ...)\n", 1, true), t)
    assert.truthy(t:find("defined in mindtorch/nn/layers.lua:%d+"), t)
    assert.truthy(t:find("methods: extra_repr, forward, reset_parameters", 1, true), t)
    -- an instance shows its class
    t = help.text(torch.nn.Linear(2, 3))
    assert.truthy(t:find("^an instance of nn%.Linear\n<class 'nn%.Linear'>"), t)
  end)

  it("shows a Lua function's parameters, file and the comments above it", function()
    local t = help.text(torch.nn.functional.leaky_relu)
    -- nn.functional's argument check is unwrapped: the function it wraps is shown
    assert.truthy(t:find("^torch%.nn%.functional%.leaky_relu%(x, negative_slope, inplace%)\n"), t)
    assert.truthy(t:find("defined in mindtorch/nn/functional.lua:%d+"), t)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("-- unrelated\n\n-- scale(v, k): v times k\n-- (k defaults to 2)\nreturn function(v, k) return v * (k or 2) end\n")
    f:close()
    local scale = dofile(path)
    t = help.text(scale)
    os.remove(path)
    assert.are.equal("function(v, k)\n  defined in " .. path .. ":5\n  scale(v, k): v times k\n  (k defaults to 2)", t)
    assert.falsy(t:find("unrelated", 1, true))
  end)

  it("says what other values are, and a short guide without an argument", function()
    assert.truthy(help.text(torch.zeros(2, 3)):find("^a torch%.Tensor: torch%.Size%(%[2, 3%]%), dtype torch%.float32"))
    assert.truthy(help.text(print):find("^print: a function of Lua's standard library"))
    assert.truthy(help.text("string.format"):find("^string%.format: a function of Lua's standard library"))
    assert.truthy(help.text("no_such.name"):find("^no help for 'no_such.name': nothing of that name"))
    local t = help.text(torch.cuda)
    assert.truthy(t:find("^torch%.cuda: a table\n  functions %(%d+%):\n"), t)
    t = help.text()
    assert.truthy(t:find("help(torch.add), ?torch.add", 1, true), t)
    assert.truthy(t:find("Ctrl-C", 1, true), t)
    assert.has_error(function() help.text(1, 2) end, "help() takes one argument: a value or a name")
  end)
end)

describe("printing classes", function()
  it("prints a class as <class 'name'>, at the prompt too", function()
    assert.are.equal("<class 'nn.Linear'>", tostring(torch.nn.Linear))
    assert.are.equal("<class 'nn.Linear'>", tostring(getmetatable(torch.nn.Linear(2, 2))))
    assert.are.equal("<class 'optim.SGD'>", repl.format(torch.optim.SGD))
    assert.are.equal("{Linear = <class 'nn.Linear'>}", repl.format({ Linear = torch.nn.Linear }))
  end)
end)

describe("the shell's completion", function()
  it("knows when the cursor is inside a string or a comment", function()
    local inside = { '"abc', "x = 'a", 'x = "a\\"', "x = [[", "x = [==[ ]]", "-- note", "--[[ a\n b", "f('a', \"b",
      "s = [[\na\n" }
    local outside = { "", "x = 'a' .. ", 'x = "a\\\\" .. ', "x = [[a]] ", "x = [==[ ]] ]==] ", "-- note\n",
      "--[[ a ]] x", "t[1] = ", "a = \"q\"\nb = 'r' ", "a = 'x\n" }
    for _, c in ipairs(inside) do assert.is_true(repl.in_string_or_comment(c), c) end
    for _, c in ipairs(outside) do assert.is_false(repl.in_string_or_comment(c), c) end
  end)

  it("offers nothing inside a string, and methods after ':' through __index chains", function()
    assert.are.same({}, repl.complete("torch.ze", 'x = "'))
    assert.are.same({ "torch.zeros", "torch.zeros_like" }, repl.complete("torch.zeros", "x = "))
    _G.help_spec_chain = setmetatable({}, { __index = setmetatable({ own_fn = print },
      { __index = { deep_fn = print } }) })
    assert.are.same({ "help_spec_chain:deep_fn(" }, repl.complete("help_spec_chain:dee", ""))
    assert.are.same({ "help_spec_chain:own_fn(" }, repl.complete("help_spec_chain:own", ""))
    _G.help_spec_chain = nil
    assert.are.same({ "torch.nn.Linear:extra_repr(" }, repl.complete("torch.nn.Linear:extra"))
  end)
end)
