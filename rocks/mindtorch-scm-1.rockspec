-- LuaRocks: luarocks --lua-version 5.4 make rocks/mindtorch-scm-1.rockspec [--tree DIR]
-- builds the C core (libmindtorch.so), the Lua module (mindtorch.core) and luamt with the
-- project's Makefile and installs them with the Lua files into the tree. The libraries find
-- each other through relative rpaths, so the tree needs no LD_LIBRARY_PATH.
rockspec_format = "3.0"
package = "mindtorch"
version = "scm-1"
source = {
  url = "git+file:///dev/null", -- `luarocks make` builds the checkout it runs in
}
description = {
  summary = "Tensors, autograd and neural networks for Lua 5.4, with PyTorch's semantics",
  detailed = [[
A C core (strided tensors, dtypes, devices, a dispatcher, CPU kernels on OpenBLAS,
reverse-mode autograd) under a Torch7-style Lua API with PyTorch's behaviour: nn, optim,
data loading, serialization, the luamt shell and an embedding C API.]],
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
external_dependencies = {
  OPENBLAS = { library = "openblas" },
  LAPACKE = { header = "lapacke.h", library = "lapacke" },
}
build = {
  type = "make",
  build_target = "all",
  build_variables = {
    LUA = "$(LUA)",
    CFLAGS = "$(CFLAGS)",
  },
  install_target = "install-runtime",
  -- C libraries all go to LIBDIR, which LuaRocks deploys to TREE/lib/lua/5.4. LuaRocks copies
  -- symbolic links as files (and in any order), so libmindtorch.so is installed as one file
  -- named after its SONAME (libmindtorch.so.0), the name core.so and luamt ask the loader for.
  install_variables = {
    SOLINKS = "no",
    PREFIX = "$(PREFIX)",
    BINDIR = "$(BINDIR)",
    LIBDIR = "$(LIBDIR)",
    CMODDIR = "$(LIBDIR)",
    LUADIR = "$(LUADIR)",
  },
}
