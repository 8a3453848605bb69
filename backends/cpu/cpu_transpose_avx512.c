/* cpu_transpose_avx512.c: a tile of 4-byte elements transposed with AVX-512, for the iterator's
 * transposed operands (cpu_iter.c): 16 x 16 blocks through registers (cpu_transpose16_avx512.h),
 * the tile's ragged edges one element at a time. */
#include "cpu_kernels.h"
#include "cpu_transpose16_avx512.h"

#include <string.h>

void mt_cpu_transpose4_avx512(const char *src, int64_t s0, int64_t rows, int64_t cols, char *dst,
                              int64_t dld) {
    int64_t full_r = rows / 16 * 16, full_c = cols / 16 * 16;
    /* whole blocks need the row step as a whole number of floats (a 4-byte element's view) */
    if (s0 % 4 != 0) full_r = full_c = 0;
    for (int64_t i = 0; i < full_r; i += 16)
        for (int64_t j = 0; j < full_c; j += 16)
            mt_tr16((const float *)(src + i * s0) + j, s0 / 4, 16, 0xFFFF,
                    (float *)(dst + j * dld) + i, dld / 4, 16, 0xFFFF);
    /* the edges: rows past the last whole block, then columns past it for the block rows */
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = i < full_r ? full_c : 0; j < cols; j++)
            memcpy(dst + j * dld + i * 4, src + i * s0 + j * 4, 4);
}
