/* cpu_stream.c: streaming stores (when: cpu_stream.h).
 *
 * Measured on this project's 2-vCPU machines (AMD EPYC, AVX-512), 2 threads, GB/s counted as
 * bytes read + written: a copy of 10M float32 by slices of glibc's memcpy 57-71, streamed with
 * these 64-byte stores 76-106. In a C loop over 10M float32, a + b through a 4 KiB buffer
 * streamed with 16-byte SSE2 stores ran at 76-94, no better than ordinary stores (66-96), and
 * with 64-byte ones at 102-113: hence AVX-512 only. */
#include "cpu_stream.h"

#include <immintrin.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* read once; any thread may ask first, and each finds the same answer */
bool mt_stream_wanted(size_t bytes) {
    static atomic_int on = -1;
    if (bytes < MT_STREAM_MIN_BYTES) return false;
    int v = atomic_load_explicit(&on, memory_order_relaxed);
    if (v < 0) {
        const char *env = getenv("MT_STREAM_STORES");
        v = __builtin_cpu_supports("avx512f") && !(env && env[0] == '0');
        atomic_store_explicit(&on, v, memory_order_relaxed);
    }
    return v;
}

__attribute__((target("avx512f"))) void mt_stream_store(char *dst, const char *src, size_t n) {
    size_t head = (64 - ((uintptr_t)dst & 63)) & 63;
    if (head > n) head = n;
    memcpy(dst, src, head);
    dst += head, src += head, n -= head;
    for (; n >= 64; n -= 64, dst += 64, src += 64)
        _mm512_stream_ps((float *)dst, _mm512_loadu_ps((const float *)src));
    memcpy(dst, src, n);
}

void mt_stream_fence(void) {
    _mm_sfence();
}
