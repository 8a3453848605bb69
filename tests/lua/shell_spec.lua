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
    assert.truthy(saved:find("answer = 6 * 7\nos.exit(0)\n", 1, true), saved)
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
