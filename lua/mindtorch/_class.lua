-- _class.lua: the one class system of mindtorch's Lua side (nn modules, optimizers, schedulers,
-- datasets, autograd functions, contexts):
--
--   local Net = torch.class("Net", nn.Module)   -- or nn.Module:subclass("Net")
--   function Net:__init(n) nn.Module.__init(self); self.fc = nn.Linear(n, 1) end
--   local net = Net(4)                           -- Net:new(4): an instance, its __init run
--
-- A class is a proxy over two hidden tables: its store (its own fields and methods, and the
-- metatable of its instances) and the store's metatable (lookups go on to the parent's store).
-- Lua finds metamethods with rawget, never through __index, so each store holds its own
-- metamethods and copies of its ancestors' (__index, __call, __len, __tostring, __eq, ...);
-- every assignment goes through the proxy, so a metamethod set on a class later still reaches
-- the subclasses that do not set their own. Each class is registered by its full name
-- ("nn.Linear"): class_of finds it again (for loading saved objects by class name).
local M = {}

-- class -> { name = full name, parent = class or nil, store = table, children = weak set,
-- own = { [metamethod] = true } }
local info = setmetatable({}, { __mode = "k" })
-- store -> its class (an instance's metatable is its class's store)
local class_of_store = setmetatable({}, { __mode = "k" })
-- full name -> class; a class nothing refers to any more may go (weak values)
local registry = setmetatable({}, { __mode = "v" })

-- the metamethods an instance finds in its class ("__name" and "__gc" are per class and left out:
-- a copied __gc would be a finalizer the subclass never asked for)
local inherited = {}
for _, k in ipairs { "__index", "__newindex", "__call", "__tostring", "__len", "__pairs", "__eq", "__lt", "__le",
  "__concat", "__unm", "__add", "__sub", "__mul", "__div", "__mod", "__pow", "__idiv", "__band", "__bor", "__bxor",
  "__shl", "__shr", "__bnot", "__close" } do
  inherited[k] = true
end

-- a store's value for metamethod k as its parent's store has it: an __index that is the
-- parent's store itself (the plain method lookup) becomes the subclass's store
local function inherit(store, pstore, k)
  local v = rawget(pstore, k)
  if k == "__index" and rawequal(v, pstore) then v = store end
  rawset(store, k, v)
end

-- set metamethod k on the subclasses of cls that do not set their own, down the tree
local function propagate(cls, k)
  local store = info[cls].store
  for child in pairs(info[cls].children) do
    if not info[child].own[k] then
      inherit(info[child].store, store, k)
      propagate(child, k)
    end
  end
end

-- Cls.k = v: into the store; a metamethod also reaches the subclasses that do not set their
-- own, and clearing one gives the class its parent's again
local function assign(cls, k, v)
  local i = info[cls]
  rawset(i.store, k, v)
  if inherited[k] then
    i.own[k] = v ~= nil or nil
    if v == nil then
      if i.parent then inherit(i.store, info[i.parent].store, k) elseif k == "__index" then rawset(i.store, k, i.store) end
    end
    propagate(cls, k)
  end
end

local function is_class(v) return type(v) == "table" and info[v] ~= nil end
M.is_class = is_class

-- alloc(cls): a blank instance of cls (no __init run), for a class's own `new`
function M.alloc(cls)
  if not is_class(cls) then error("new() must be called on a class (Cls(...) or Cls:new(...))", 3) end
  return setmetatable({}, info[cls].store)
end

-- type_of(obj): the class obj is an instance of, or nil
function M.type_of(obj) return class_of_store[getmetatable(obj)] end

-- what every class answers, whatever its instances do (found at the end of the parent chain)
local class_methods = {}

-- Cls.new(Cls, ...) or Cls(...): an instance, with Cls.__init(self, ...) run
function class_methods.new(cls, ...)
  local obj = M.alloc(cls)
  obj:__init(...)
  return obj
end

function class_methods.__init() end

-- Parent:subclass(name): a class deriving from Parent (same as class(name, Parent))
function class_methods.subclass(cls, name)
  if not is_class(cls) then error("subclass() must be called on a class: Parent:subclass(name)", 2) end
  return M.class(name, cls)
end
-- the older spelling, kept for existing code (ModuleList's extend is PyTorch's list method)
class_methods.extend = class_methods.subclass

-- Cls:isinstance(obj): whether obj is an instance of Cls or of a class deriving from it
function class_methods.isinstance(cls, obj) return M.isinstance(obj, cls) end


-- class(name, parent): a new class. name: the full name ("nn.Linear"); its last part is the
-- short name (__name, what reprs and error messages print: "Linear").
function M.class(name, parent)
  if type(name) ~= "string" or name == "" then
    error(("class name must be a non-empty string, not %s"):format(type(name)), 2)
  end
  if parent ~= nil and not is_class(parent) then
    error(("class %s: the parent must be a class, got %s"):format(name, type(parent)), 2)
  end
  local cls, store = {}, {}
  info[cls] = { name = name, parent = parent, store = store, children = setmetatable({}, { __mode = "k" }), own = {} }
  class_of_store[store] = cls
  rawset(store, "__name", name:match("([^%.]+)$"))
  if parent then
    local pstore = info[parent].store
    for k in pairs(inherited) do inherit(store, pstore, k) end
    rawset(store, "super", parent)
    info[parent].children[cls] = true
  else
    rawset(store, "__index", store)
  end
  -- a class prints as PyTorch prints one: <class 'nn.Linear'>
  local text = ("<class '%s'>"):format(name)
  setmetatable(store, { __index = parent and info[parent].store or class_methods,
    __tostring = function() return text end })
  setmetatable(cls, {
    __index = store,
    __newindex = assign,
    __call = function(c, ...) return c.new(c, ...) end,
    __tostring = function() return text end,
  })
  registry[name] = cls
  -- PyTorch's __init_subclass__: a class that sets up each of its subclasses
  local hook = parent and parent.__init_subclass
  if hook then hook(cls) end
  return cls
end

-- isinstance(obj, cls): whether obj's class is cls or derives from it
function M.isinstance(obj, cls)
  if not is_class(cls) then error(("isinstance() arg 2 must be a class, not %s"):format(type(cls)), 2) end
  local c = M.type_of(obj)
  while c ~= nil do
    if rawequal(c, cls) then return true end
    c = info[c].parent
  end
  return false
end

-- set_class(obj, cls): obj becomes an instance of cls (PyTorch's obj.__class__ = cls); returns obj
function M.set_class(obj, cls)
  if not is_class(cls) then error(("set_class() arg 2 must be a class, not %s"):format(type(cls)), 2) end
  return setmetatable(obj, info[cls].store)
end

-- typename(obj): the full name of obj's class ("nn.Linear"), or nil for anything else
function M.typename(obj)
  local c = M.type_of(obj)
  return c and info[c].name
end

-- name(cls), parent(cls): what a class was made with
function M.name(cls) return info[cls] and info[cls].name end
function M.parent(cls) return info[cls] and info[cls].parent end

-- class_of(name): the class registered under that full name, or nil
function M.class_of(name) return registry[name] end

-- Objects that are not class instances but have a metatable of their own (lazy modules'
-- placeholders) register it under a name, so that torch.save can write them and torch.load
-- give them back their metatable: register_metatable(name, mt); metatable_name(mt);
-- metatable_of(name)
local mt_by_name, name_by_mt = {}, setmetatable({}, { __mode = "k" })
function M.register_metatable(name, mt)
  mt_by_name[name], name_by_mt[mt] = mt, name
end
function M.metatable_name(mt) return name_by_mt[mt] end
function M.metatable_of(name) return mt_by_name[name] end

return M
