/* fuzz_load.c: libFuzzer target for torch.load: any file is a checkpoint or a clear
 * "not a valid mindtorch file" error, and every tensor loaded can be read in full. The CRC is
 * recomputed over the input first (as an attacker would), so mutations reach the decoder. */
#include "fuzz_lua.h"

static const char CHECKER[] = "local path, bytes = ...\n"
                              "local ok, v = pcall(torch.load, path)\n"
                              "if not ok then\n"
                              "  if load_error_clear(v) then return nil end\n"
                              "  return 'unclear error: ' .. tostring(v)\n"
                              "end\n"
                              "touch(v)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_lua_init(CHECKER, ".mt");
    /* a valid checksum on every second input: the rest test the checksum itself */
    if (size >= 12 && (data[size - 1] & 1)) {
        uint8_t *copy = malloc(size);
        if (!copy) return 0;
        memcpy(copy, data, size);
        lua_State *L = fuzz_L;
        lua_getglobal(L, "torch");
        lua_getfield(L, -1, "_crc32");
        lua_pushlstring(L, (const char *)copy, size - 4);
        lua_call(L, 1, 1);
        uint32_t crc = (uint32_t)lua_tointeger(L, -1);
        lua_pop(L, 2);
        for (int i = 0; i < 4; i++) copy[size - 4 + (size_t)i] = (uint8_t)(crc >> (8 * i));
        fuzz_lua_run(copy, size);
        free(copy);
        return 0;
    }
    fuzz_lua_run(data, size);
    return 0;
}
