/* fuzz_idx.c: libFuzzer target for the IDX reader of torch.utils.data.datasets (gzip or
 * plain): an image file (magic 2051) or a label file (2049) reads as a uint8 tensor of the
 * shape its header gives, or fails with a clear error; nothing inflates past the header's size. */
#include "fuzz_lua.h"

static const char CHECKER[] =
    "local path = ...\n"
    "local read_idx = torch.utils.data.datasets._read_idx\n"
    "for _, magic in ipairs({2049, 2051}) do\n"
    "  local ok, v = pcall(read_idx, path, magic)\n"
    "  if ok then\n"
    "    if v.dtype ~= torch.uint8 or v:dim() ~= magic % 256 then return 'wrong tensor' end\n"
    "    touch(v)\n"
    "  elseif not clear(v, 'not an IDX file of the expected kind', 'truncated (',\n"
    "                   'corrupt or truncated gzip data', 'inflated data is longer') then\n"
    "    return 'unclear error: ' .. tostring(v)\n"
    "  end\n"
    "end\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_lua_init(CHECKER, ".gz");
    fuzz_lua_run(data, size);
    return 0;
}
