/* fuzz_ptload.c: libFuzzer target for torch.load of PyTorch checkpoints, zip and legacy
 * (serialization_pt.lua):
 * any file is a checkpoint or a clear error, and every tensor loaded can be read in full. On
 * every second input the entries' CRC-32 check is off, so mutations of the pickle and of the
 * storages reach the unpickler rather than stopping at the checksum. */
#include "fuzz_lua.h"

static const char CHECKER[] =
    "local path, bytes = ...\n"
    "require('mindtorch.serialization_pt')(torch)._skip_crc = #bytes % 2 == 1\n"
    "local ok, v = pcall(torch.load, path)\n"
    "if not ok then\n"
    "  if load_error_clear(v) then return nil end\n"
    "  return 'unclear error: ' .. tostring(v)\n"
    "end\n"
    "touch(v)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_lua_init(CHECKER, ".pt");
    fuzz_lua_run(data, size);
    return 0;
}
