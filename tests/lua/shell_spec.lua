-- The luamt shell driven through tmux as a person types at it: completion, multi-line input,
-- printing, history across runs; and the printer without a terminal (no colour codes).
local build = os.getenv("BUILD") or "build"
local luamt = build .. "/luamt"
-- the sanitizer build is slower to start and to answer
local patience = os.getenv("MT_PRELOAD") and 60 or 20

local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("a")
  local ok, _, status = p:close()
  return out, ok and 0 or status
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- one tmux server per session on its own socket, so nothing else on the machine interferes
local Session = {}
Session.__index = Session

local counter = 0
local function open_session(history)
  assert(sh("command -v tmux") ~= "", "the shell tests need tmux (apt-get install tmux)")
  counter = counter + 1
  local s = setmetatable({ socket = ("mt_shell_%d_%d"):format(os.time(), counter) }, Session)
  local cmd = ("env LUAMT_HISTORY=%s TERM=xterm %s"):format(quote(history), quote(luamt))
  local out, status = sh(("tmux -L %s new-session -d -x 120 -y 50 %s"):format(s.socket, quote(cmd)))
  assert(status == 0, "tmux new-session failed: " .. out)
  s:wait_for("> ")
  return s
end

function Session:screen()
  return (sh(("tmux -L %s capture-pane -p -J -S -200"):format(self.socket)))
end

function Session:keys(...)
  local args = {}
  for i, k in ipairs { ... } do args[i] = quote(k) end
  sh(("tmux -L %s send-keys %s"):format(self.socket, table.concat(args, " ")))
end

-- type literal text (send-keys -l: no key-name interpretation)
function Session:type(text) sh(("tmux -L %s send-keys -l %s"):format(self.socket, quote(text))) end

function Session:wait_for(text, from)
  local deadline = os.time() + patience
  repeat
    local screen = self:screen()
    local at = screen:find(text, from or 1, true)
    if at then return screen, at end
    os.execute("sleep 0.1")
  until os.time() > deadline
  error(("timed out waiting for %q; the screen was:\n%s"):format(text, self:screen()))
end

function Session:close()
  sh(("tmux -L %s kill-server"):format(self.socket))
end

describe("the luamt shell in a terminal", function()
  local history
  before_each(function() history = os.tmpname() end)
  after_each(function() os.remove(history) end)

  it("completes torch.ze<TAB>, lists the candidates, and prints tensors", function()
    local s = open_session(history)
    local ok, err = pcall(function()
      s:type("torch.ze")
      s:keys("Tab")
      s:wait_for("> torch.zero")
      -- readline lists the candidates when <TAB> inserts nothing new: zero_, zeros, zeros_like
      s:keys("Tab")
      s:keys("Tab")
      s:wait_for("torch.zeros_like")
      s:type("s(2, 3)")
      s:keys("Enter")
      local screen = s:wait_for("tensor([[0., 0., 0.],")
      assert.truthy(screen:find("        [0., 0., 0.]])", 1, true))
      -- methods through the tensor's metatable, after ':'
      s:type("x = torch.arange(4);")
      s:keys("Enter")
      s:type("x:nelem")
      s:keys("Tab")
      s:wait_for("> x:nelement(")
      s:type(") * 10")
      s:keys("Enter")
      s:wait_for("40")
    end)
    s:close()
    assert(ok, err)
  end)

  it("continues a multi-line function and keeps history across runs", function()
    local s = open_session(history)
    local ok, err = pcall(function()
      s:type("function sq(v)")
      s:keys("Enter")
      s:wait_for(">> ")
      s:type("return v * v")
      s:keys("Enter")
      s:type("end")
      s:keys("Enter")
      s:type("sq(torch.arange(3))")
      s:keys("Enter")
      s:wait_for("tensor([0, 1, 4])")
      s:type("{a = 1, b = {2, 3}}")
      s:keys("Enter")
      s:wait_for("{a = 1, b = {2, 3}}")
      s:keys("C-d")
    end)
    -- the shell has exited; a new one finds the last line under <Up>
    os.execute("sleep 0.5")
    s:close()
    assert(ok, err)
    local f = assert(io.open(history))
    local saved = f:read("a")
    f:close()
    assert.truthy(saved:find("sq(torch.arange(3))", 1, true))
    s = open_session(history)
    ok, err = pcall(function()
      s:keys("Up")
      s:wait_for("> {a = 1, b = {2, 3}}")
      s:keys("Up")
      s:wait_for("> sq(torch.arange(3))")
      s:keys("Enter")
      -- sq is gone with the first shell: the recalled line runs and fails as it should
      s:wait_for("attempt to call a nil value (global 'sq')")
      -- a session left with os.exit keeps its lines too
      s:type("answer = 6 * 7")
      s:keys("Enter")
      s:type("os.exit(0)")
      s:keys("Enter")
    end)
    os.execute("sleep 0.5")
    s:close()
    assert(ok, err)
    f = assert(io.open(history))
    saved = f:read("a")
    f:close()
    -- each entry follows its "#<time>" line (readline's timestamps)
    assert.truthy(saved:match("answer = 6 %* 7\n#%d+\nos%.exit%(0%)\n$"), saved)
  end)

  it("interrupts a running chunk with Ctrl-C and goes on", function()
    local s = open_session(history)
    local ok, err = pcall(function()
      s:type("while true do end")
      s:keys("Enter")
      os.execute("sleep 0.5")
      s:keys("C-c")
      local _, at = s:wait_for("interrupted!")
      s:wait_for("> ", at)
      s:type("40 + 2")
      s:keys("Enter")
      s:wait_for("\n42\n")
      -- a loop of tensor ops: the hook fires between them
      s:type("x = torch.zeros(100) while true do x = x + 1 end")
      s:keys("Enter")
      os.execute("sleep 0.5")
      s:keys("C-c")
      local screen = s:wait_for("interrupted!", at + 1)
      _, at = screen:find("interrupted!", at + 1, true)
      s:type("x:sum():item() > 0")
      s:keys("Enter")
      s:wait_for("true", at)
      -- a second interrupted run, then the shell still answers (Ctrl-C never ends it)
      s:type("for i = 1, math.huge do end")
      s:keys("Enter")
      os.execute("sleep 0.3")
      s:keys("C-c")
      os.execute("sleep 0.3")
      s:keys("C-c")
      s:type("'still here'")
      s:keys("Enter")
      s:wait_for("\nstill here\n")
    end)
    s:close()
    assert(ok, err)
  end)

  it("warns, then ends, when Ctrl-C goes unanswered (a loop inside a coroutine)", function()
    local s = open_session(history)
    local ok, err = pcall(function()
      s:type("coroutine.wrap(function() while true do end end)()")
      s:keys("Enter")
      os.execute("sleep 0.3")
      for _ = 1, 4 do
        s:keys("C-c")
        os.execute("sleep 0.2")
      end
      s:wait_for("one more Ctrl-C ends luamt")
      s:keys("C-c")
      -- the pane closes with the process
      local deadline = os.time() + patience
      while select(2, sh(("tmux -L %s has-session"):format(s.socket))) == 0 and os.time() <= deadline do
        os.execute("sleep 0.1")
      end
      assert.are_not.equal(0, select(2, sh(("tmux -L %s has-session"):format(s.socket))))
    end)
    s:close()
    assert(ok, err)
  end)

  it("drops the line or the unfinished chunk on Ctrl-C at the prompt", function()
    local s = open_session(history)
    local ok, err = pcall(function()
      s:type("error('typed, then dropped')")
      s:keys("C-c")
      s:wait_for("dropped')^C\n> ")
      s:type("function f()")
      s:keys("Enter")
      s:wait_for(">> ")
      s:type("return 1")
      s:keys("Enter")
      s:keys("C-c")
      s:type("f")
      s:keys("Enter")
      s:wait_for("\nnil\n")
      s:type("6 * 7")
      s:keys("Enter")
      s:wait_for("\n42\n")
      local screen = s:screen()
      assert.falsy(screen:find("typed, then dropped", 1, true) and screen:find("stdin:1: typed", 1, true))
    end)
    s:close()
    assert(ok, err)
  end)

  it("keeps the last non-nil result in _", function()
    local s = open_session(history)
    local ok, err = pcall(function()
      s:type("6 * 7")
      s:keys("Enter")
      s:type("print('a statement')")
      s:keys("Enter")
      s:type("nil")
      s:keys("Enter")
      s:type("_ + 1")
      s:keys("Enter")
      s:wait_for("\n43\n")
      s:type("torch.ones(2) * _")
      s:keys("Enter")
      s:wait_for("tensor([43., 43.])")
      s:type("_:sum()")
      s:keys("Enter")
      s:wait_for("tensor(86.)")
    end)
    s:close()
    assert(ok, err)
  end)

  it("stores a multi-line chunk as one history entry", function()
    local s = open_session(history)
    local ok, err = pcall(function()
      s:type("function cube(v)")
      s:keys("Enter")
      s:type("return v * v * v")
      s:keys("Enter")
      s:type("end")
      s:keys("Enter")
      s:type("cube(3)")
      s:keys("Enter")
      s:wait_for("\n27\n")
      s:keys("C-d")
    end)
    os.execute("sleep 0.5")
    s:close()
    assert(ok, err)
    local f = assert(io.open(history))
    local saved = f:read("a")
    f:close()
    assert.truthy(saved:find("\nfunction cube(v)\nreturn v * v * v\nend\n#", 1, true), saved)
    s = open_session(history)
    ok, err = pcall(function()
      -- one <Up> for cube(3), one more for the whole function
      s:keys("Up")
      s:keys("Up")
      s:wait_for("> function cube(v)")
      s:keys("Enter")
      s:type("cube(4)")
      s:keys("Enter")
      s:wait_for("\n64\n")
    end)
    s:close()
    assert(ok, err)
  end)

  it("completes methods after ':' and offers nothing inside a string", function()
    local s = open_session(history)
    local ok, err = pcall(function()
      s:type("Net = torch.class('ShellNet', torch.nn.Module); function Net:shell_method() return 5 end")
      s:keys("Enter")
      s:type("net = Net(); chain = setmetatable({}, {__index = setmetatable({}, {__index = {deep_fn = print}})})")
      s:keys("Enter")
      s:type("net:shell_m")
      s:keys("Tab")
      s:wait_for("> net:shell_method(")
      s:type(")")
      s:keys("Enter")
      s:wait_for("\n5\n")
      s:type("chain:deep")
      s:keys("Tab")
      s:wait_for("> chain:deep_fn(")
      s:keys("C-c")
      -- inside a string: <TAB> changes nothing, the line still runs
      s:type('"torch.ze')
      s:keys("Tab")
      s:keys("Tab")
      s:type('" .. "!"')
      s:keys("Enter")
      s:wait_for("\ntorch.ze!\n")
      -- inside a long string begun on an earlier line of the chunk
      s:type("long = [[")
      s:keys("Enter")
      s:type("torch.ze")
      s:keys("Tab")
      s:type("]]")
      s:keys("Enter")
      s:type("long")
      s:keys("Enter")
      s:wait_for("\ntorch.ze\n")
    end)
    s:close()
    assert(ok, err)
  end)

  it("answers ?name and help(x) with the operator's signature", function()
    local s = open_session(history)
    local ok, err = pcall(function()
      s:type("?torch.add")
      s:keys("Enter")
      local _, at = s:wait_for("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
      s:type("help(torch.nn.Linear)")
      s:keys("Enter")
      s:wait_for("<class 'nn.Linear'>  (a subclass of nn.Module)", at)
      s:type("help()")
      s:keys("Enter")
      s:wait_for("Ctrl-C                        interrupts a running chunk")
      s:type("torch.nn.Linear")
      s:keys("Enter")
      s:wait_for("\n<class 'nn.Linear'>\n")
    end)
    s:close()
    assert(ok, err)
  end)
end)

describe("the luamt printer", function()
  local repl = require "mindtorch.repl"

  it("prints nested tables readably and without colour when not on a terminal", function()
    local out = sh("printf '{1, \"a\", {x = true}}\\nt = {}; t.me = t\\nt\\n' | " .. luamt .. " -i")
    assert.are.equal('{1, "a", {x = true}}\n', out:match("^[^\n]*\n"))
    assert.truthy(out:find("{me = <cycle table: 0x", 1, true))
    assert.falsy(out:find("\27[", 1, true))
  end)

  it("breaks long tables over lines and indents tensors and modules", function()
    local torch = require "mindtorch"
    local text = repl.format({ w = torch.ones(2, 2), layer = torch.nn.Linear(2, 1), name = "run" })
    assert.are.equal(table.concat({
      "{",
      "  layer = Linear(in_features=2, out_features=1, bias=True),",
      '  name = "run",',
      "  w = tensor([[1., 1.],",
      "          [1., 1.]])",
      "}",
    }, "\n"), text)
    assert.are.equal('{[true] = 1, ["a b"] = "x\\ny"}', repl.format({ [true] = 1, ["a b"] = "x\ny" }))
    assert.are.equal("\27[36m1\27[0m", repl.format(1, { color = true }))
  end)

  it("completes fields of modules, lazy submodules and keywords", function()
    local torch = require "mindtorch"
    _G.shell_test_model = torch.nn.Sequential(torch.nn.Linear(2, 2))
    local c = repl.complete("shell_test_model:zero_")
    assert.are.same({ "shell_test_model:zero_grad(" }, c)
    assert.are.same({ "torch.optim" }, repl.complete("torch.opt"))
    assert.are.same({ "function" }, repl.complete("functio"))
    assert.are.same({}, repl.complete("no_such_global.x"))
    _G.shell_test_model = nil
  end)
end)
