/* fuzz_safetensors.c: libFuzzer target for torch.load_safetensors: any file is a set of
 * tensors that can be read in full, or a clear "not a valid safetensors file" error. */
#include "fuzz_lua.h"

static const char CHECKER[] =
    "local path = ...\n"
    "local ok, v, meta = pcall(torch.load_safetensors, path)\n"
    "if not ok then\n"
    "  if clear(v, 'not a valid safetensors file') then return nil end\n"
    "  return 'unclear error: ' .. tostring(v)\n"
    "end\n"
    "if meta ~= nil and type(meta) ~= 'table' then return 'metadata is a ' .. type(meta) end\n"
    "touch(v)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_lua_init(CHECKER, ".safetensors");
    fuzz_lua_run(data, size);
    return 0;
}
