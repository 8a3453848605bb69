-- mindtorch: PyTorch's semantics for Lua 5.4, over a C core (mindtorch.core).
--
-- This file builds the `torch` table: the core's functions and types, plus the parts of the
-- front that are plain Lua (printing, conversions, Torch7-style indexing). Submodules that
-- are not needed by every script (nn, optim, utils, npu) load on first use.
local torch = require "mindtorch.core"

-- Lua's collector runs in generational mode: a result a loop drops is young garbage, which a
-- young collection frees at the cost of the objects made since the last one, where a full
-- collection walks every live object (nn's modules and this library: a fifth of a LeNet
-- convolution's time). Tensor memory is paced by the binding (src/lua/lmt_tensor.c,
-- lmt_gc_hint), which keeps loops flat in either mode; MINDTORCH_GC=incremental keeps Lua's
-- default mode. Switch modes with torch._gc_mode(mode), which tells the pacer too.
torch._gc_mode(os.getenv("MINDTORCH_GC") == "incremental" and "incremental" or "generational")
local Tensor = torch.Tensor
local tensor_str = require "mindtorch._tensor_str"

-- ---- printing -----------------------------------------------------------------------------
local tensor_mt = debug.getregistry()["mindtorch.Tensor"]
tensor_mt.__tostring = function(t)
  local s = tensor_str.repr(torch, t)
  if t._is_parameter then return "Parameter containing:\n" .. s end -- nn.Parameter, as PyTorch prints it
  return s
end
torch.set_printoptions = tensor_str.set_printoptions
debug.getregistry()["mindtorch.UntypedStorage"].__tostring = function(s) return tensor_str.storage_repr(s, false) end
debug.getregistry()["mindtorch.TypedStorage"].__tostring = function(s) return tensor_str.storage_repr(s, true) end

-- Memory formats (clone, contiguous, to, empty, resize_ and the *_like factories take memory_format=,
-- is_contiguous asks about one): the order of the dims in memory, by name.
torch.contiguous_format = "contiguous_format"
torch.preserve_format = "preserve_format"
torch.channels_last = "channels_last"
torch.channels_last_3d = "channels_last_3d"
torch.strided = "torch.strided"

-- ---- dtype and device conversions ----------------------------------------------------------
for name, dt in pairs {
  float = torch.float32, double = torch.float64, half = torch.float16, bfloat16 = torch.bfloat16,
  long = torch.int64, int = torch.int32, short = torch.int16, char = torch.int8, byte = torch.uint8,
  bool = torch.bool,
} do
  Tensor[name] = function(self) return self:to(dt) end
end
function Tensor:cpu() return self:to("cpu") end
-- `repeat` is a Lua keyword: x:repeat_tensor(2, 3) (Torch7's repeatTensor), or x["repeat"](x, 2, 3)
Tensor.repeat_tensor = Tensor["repeat"]
-- x:cuda(), x:npu(1) ...: the accelerator types PyTorch (and torch_npu) give a method; using
-- one loads its device module (src/mt_device.c), or says why it is not available
for _, dev in ipairs { "cuda", "xpu", "ipu", "npu" } do
  Tensor[dev] = function(self, index) return self:to(index and (dev .. ":" .. index) or dev) end
end
function Tensor:record_stream(stream)
  local dev = self.device.type
  local m = dev ~= "cpu" and dev ~= "meta" and torch[dev]
  if not (m and rawget(m, "_record_stream")) then
    error(("Could not run 'aten::record_stream' with arguments from the '%s' backend."):format(dev:upper()), 2)
  end
  m._record_stream(self, stream)
end

-- ---- operators ------------------------------------------------------------------------------
-- Lua's operators on tensors are PyTorch's (`^` is pow, `//` floor division). A number on the
-- left becomes a "wrapped number" where PyTorch has no Scalar-first overload, so it promotes
-- exactly as in Python's reflected operators. Comparisons are methods (x:lt(y)): Lua forces
-- <, <= and == to return one boolean.
local is_tensor, wrap = torch.is_tensor, torch._wrap_number
-- the common operators call their op from C; the Lua function serves a number on the left
tensor_mt.__add = torch._operator("add", true)
tensor_mt.__sub = torch._operator("sub", false, function(a, b) return torch.rsub(b, a) end)
tensor_mt.__mul = torch._operator("mul", true)
tensor_mt.__div = torch._operator("div", false, function(a, b) return torch.reciprocal(b) * a end)
tensor_mt.__mod = function(a, b) if is_tensor(a) then return torch.remainder(a, b) end return torch.remainder(a, b) end
tensor_mt.__pow = function(a, b) return torch.pow(a, b) end
tensor_mt.__idiv = function(a, b)
  if is_tensor(a) then return torch.floor_divide(a, b) end
  return torch.floor_divide(wrap(a, b), b)
end
tensor_mt.__unm = function(a) return torch.neg(a) end
tensor_mt.__band = function(a, b) if is_tensor(a) then return torch.bitwise_and(a, b) end return torch.bitwise_and(b, a) end
tensor_mt.__bor = function(a, b) if is_tensor(a) then return torch.bitwise_or(a, b) end return torch.bitwise_or(b, a) end
tensor_mt.__bxor = function(a, b) if is_tensor(a) then return torch.bitwise_xor(a, b) end return torch.bitwise_xor(b, a) end
tensor_mt.__shl = function(a, b)
  if is_tensor(a) then return torch.bitwise_left_shift(a, b) end
  return torch.bitwise_left_shift(wrap(a, b), b)
end
tensor_mt.__shr = function(a, b)
  if is_tensor(a) then return torch.bitwise_right_shift(a, b) end
  return torch.bitwise_right_shift(wrap(a, b), b)
end
tensor_mt.__bnot = function(a) return torch.bitwise_not(a) end

-- ---- autograd (grad modes, backward, grad, hooks, gradcheck) -------------------------------
require("mindtorch.autograd")(torch)
require("mindtorch.autograd.gradcheck")(torch)
require("mindtorch.autograd.function")(torch)
require("mindtorch.autograd.functional")(torch)
require("mindtorch.serialization")(torch)
require("mindtorch._shape_more")(torch)

-- ---- x[i], x[{...}], x[mask] (Torch7 style, 1-based) ---------------------------------------
local Index = require("mindtorch._indexing")(torch)
Tensor.__index_value = Index.get
Tensor.__setindex_value = Index.set

-- torch.unique gives back what was asked for: the values, then inverse and counts if requested
local unique_all = torch.unique
local function unique(x, ...)
  local args = table.pack(...)
  local opts = type(args[args.n]) == "table" and not torch.is_tensor(args[args.n]) and args[args.n] or {}
  local inverse = args[2] or opts.return_inverse
  local counts = args[3] or opts.return_counts
  if type(args[1]) == "table" then inverse, counts = opts.return_inverse, opts.return_counts end
  local out, inv, cnt = unique_all(x, ...)
  if inverse and counts then return out, inv, cnt end
  if inverse then return out, inv end
  if counts then return out, cnt end
  return out
end
torch.unique, Tensor.unique = unique, unique

-- torch.pipeline(): pipeline mode (mt_pipeline.h), a context manager; torch.pipeline.flush()
-- runs what has been recorded so far
local context = require("mindtorch._context")
local pipeline_context = context.make(function() torch._pipeline_enter() end, function() torch._pipeline_exit() end,
  { flush = function() torch._pipeline_flush() end }, "mindtorch.pipeline")
torch.pipeline = setmetatable({
  flush = torch._pipeline_flush,
  is_enabled = torch._pipeline_active,
}, { __call = function(_, ...) return pipeline_context(...) end })

-- torch.class(name, parent), torch.isinstance(obj, cls), torch.typename(obj): the class
-- system every class in mindtorch is made with (mindtorch._class), for the user's own
local class = require("mindtorch._class")
torch.class, torch.isinstance = class.class, class.isinstance
function torch.typename(obj) -- a tensor's is its type(), "torch.FloatTensor", as Torch7's
  if torch.is_tensor(obj) then return obj:type() end
  return class.typename(obj)
end

-- torch.random: the seeding functions under PyTorch's module name
torch.random = {
  manual_seed = torch.manual_seed, seed = torch.seed, initial_seed = torch.initial_seed,
  get_rng_state = torch.get_rng_state, set_rng_state = torch.set_rng_state,
}

-- torch.range is deprecated in PyTorch (its end is included, unlike arange's and Lua's for):
-- every call says so through Lua's warn() (shown when warnings are on: lua -W, warn("@on"))
local range_op = torch.range
function torch.range(...)
  warn("torch.range is deprecated and will be removed in a future release because its behavior is ",
    "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in [start, end).")
  return range_op(...)
end

-- torch.broadcast_tensors(a, b, ...) as PyTorch writes it, or with one list of tensors
local broadcast_list = torch.broadcast_tensors
function torch.broadcast_tensors(...)
  if select("#", ...) == 1 and not torch.is_tensor((...)) then return broadcast_list(...) end
  return broadcast_list({ ... })
end

-- torch.__config__: how this build was made (luamt --version prints the BLAS line)
torch.__config__ = {
  blas = torch._blas_config(),
  show = function()
    return ("mindtorch %s\n  - %s\n  - BLAS: %s\n  - threads: %d\n"):format(torch.__version__, _VERSION,
      torch.__config__.blas, torch.get_num_threads())
  end,
}

-- submodules load on first use: torch.nn, torch.optim, torch.utils
package.loaded.mindtorch = torch -- they require "mindtorch" themselves
require "mindtorch._factories" -- as_tensor, asarray, the signal windows
require "mindtorch._dtype_info" -- finfo, iinfo
require "mindtorch._compositions" -- *_copy views, addmm_ ..., apply_, fill, conj on reals
require "mindtorch._nn_functions" -- torch.* of ATen's nn layer: distances, losses, shuffles, dropouts, RNN cells
require "mindtorch._aliases" -- absolute, multiply, greater ...: PyTorch's other names for ops
require "mindtorch._linalg_extra" -- torch.lu, svd_lowrank, pca_lowrank, the removed solve/lstsq/matrix_rank
require "mindtorch._queries" -- polygamma, frexp, rrelu, prelu, isin, is_nonzero, result_type, global modes
local lazy = { nn = "mindtorch.nn", optim = "mindtorch.optim", utils = "mindtorch.utils", special = "mindtorch.special",
  distributed = "mindtorch.distributed",
  linalg = "mindtorch.linalg", help = "mindtorch.help" }
-- torch.* that mindtorch.nn defines (ATen's forms of its losses and layers): loading nn makes them
local nn_defined = { ctc_loss = true, embedding_bag = true }

-- torch.<dev> for an accelerator type the device registry knows (src/mt_device.c): where its C
-- module (mindtorch.<dev>_backend) is found, the device's own Lua file when it ships one
-- (mindtorch.npu), else the shared shape (mindtorch._accelerator) over the module; else a table that
-- answers as PyTorch's build without that backend (mindtorch._no_accelerator: is_available()
-- false, so that `if torch.cuda.is_available() then` scripts run; the rest say it is missing).
local function device_table(k)
  if k == "cpu" or k == "meta" then return nil end
  local ok, dev = pcall(torch.device, k)
  if not ok or dev.type ~= k then return nil end
  -- the C module decides: a Lua file (mindtorch.npu) without its module (an install that left
  -- the module out, a host that embeds the core alone) answers as a build without the backend
  local backend = "mindtorch." .. k .. "_backend"
  if not (package.loaded[backend] or package.preload[backend] or package.searchpath(backend, package.cpath)) then
    return require("mindtorch._no_accelerator")(k)
  end
  if package.searchpath("mindtorch." .. k, package.path) then return require("mindtorch." .. k) end
  local NAME = k:upper()
  return require "mindtorch._accelerator"(require(backend),
    { type = k, name = NAME, props = "_" .. NAME .. "DeviceProperties" })
end

setmetatable(torch, {
  __index = function(t, k)
    local m
    if lazy[k] then
      m = require(lazy[k])
    elseif nn_defined[k] then
      require "mindtorch.nn"
      return rawget(t, k)
    elseif type(k) == "string" then
      m = device_table(k)
    end
    if m ~= nil then rawset(t, k, m) end
    return m
  end,
})

return torch
