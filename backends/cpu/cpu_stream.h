/* cpu_stream.h: results larger than the caches written straight to memory.
 *
 * An ordinary store first reads the line it writes into the cache (a read for ownership), so a
 * copy the caches cannot hold crosses the memory bus three times for its two arrays.
 * Non-temporal ("streaming") stores write whole lines without reading them. Copies below
 * MT_STREAM_MIN_BYTES stay on the ordinary path: the op that reads the result next finds it in
 * cache (measured on this project's machines, 2 threads, a copy then a sum of the result: 10 MB
 * 210 us ordinary, 300 streamed; 20 MB 500-600 both; 30 MB even; 40 MB 1.95 ms -> 1.53).
 *
 * Element-wise results are streamed only by loops that issue the stores beside their arithmetic
 * (cpu_ew_stream_avx512.c): through a buffer in L1 (the generic loops are plain C) the streaming
 * stores ran after each buffer's computation instead of beside it, and a 10M float32 exp went
 * from 55-65 to 30-36 GB/s (a + b 50-65 -> 45-55), as it did in an earlier trial. */
#ifndef MT_CPU_STREAM_H
#define MT_CPU_STREAM_H

#include <stdbool.h>
#include <stddef.h>

/* results of at least this many bytes are streamed */
#define MT_STREAM_MIN_BYTES ((size_t)32 << 20)

/* Whether a result of `bytes` bytes is written with streaming stores: large enough, on a CPU
 * with AVX-512F (the 64-byte store this was measured with), and not turned off by
 * MT_STREAM_STORES=0 (for comparisons). */
bool mt_stream_wanted(size_t bytes);

/* n bytes from src to dst; whole 64-byte lines of dst with streaming stores, its unaligned head
 * and tail with ordinary ones. Only where mt_stream_wanted said yes (it needs AVX-512F). The
 * stores are weakly ordered: the writing thread calls mt_stream_fence() before others read. */
void mt_stream_store(char *dst, const char *src, size_t n);
void mt_stream_fence(void);

#endif
