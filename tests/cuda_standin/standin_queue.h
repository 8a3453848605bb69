/* standin_queue.h: the streams and events of the CUDA driver stand-in (standin_cuda.c). A stream is
 * a FIFO of operations that a worker thread of its own runs in order, each after the work it waits
 * for on other streams (an event's, or the legacy default stream's implicit ordering); the host
 * goes on at once and waits only where the driver would. One operation runs at a time on the
 * whole stand-in (its kernels' atomics are plain host code); operations of different streams
 * interleave in whatever order their workers reach them. */
#ifndef MT_STANDIN_QUEUE_H
#define MT_STANDIN_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_abi.h"

enum { SQ_ILLEGAL_ADDRESS = 700 }; /* CUDA_ERROR_ILLEGAL_ADDRESS: sticky, as the driver's */

typedef struct CUstream_st sq_stream;
typedef void (*sq_run)(void *arg);

/* Read MINDTORCH_STANDIN_DELAY_US (once). */
void sq_init(void);
/* A stream of `device`; blocking: it and the legacy stream wait for each other (cuStreamCreate
 * without CU_STREAM_NON_BLOCKING). NULL when out of memory. */
sq_stream *sq_stream_new(int device, bool blocking);
/* The legacy default stream of `device` (handle 0, CU_STREAM_LEGACY). */
sq_stream *sq_legacy(int device);
int sq_stream_device(const sq_stream *s);

/* Queue run(a copy of the n bytes at arg) on s, named `what` in diagnostics (a static string);
 * the copy is what sq_user_of looks through. 0, or CUDA_ERROR_OUT_OF_MEMORY; *ticket (optional):
 * its place in s. */
CUresult sq_enqueue(sq_stream *s, sq_run run, const void *arg, size_t n, const char *what,
                    uint64_t *ticket);
/* Wait until s ran everything queued on it so far (up to ticket, 0: all). */
void sq_wait(sq_stream *s, uint64_t ticket);
bool sq_idle(sq_stream *s);
/* Wait for every stream of `device` (-1: of every device). */
void sq_wait_device(int device);
/* The name of a queued or running operation whose arguments hold an address in [p, p + n) (a
 * pointer word of a copy, a memset, a kernel's parameters, a library call), or NULL. */
const char *sq_user_of(uintptr_t p, size_t n);

/* A fault found while work runs (an address outside every allocation): reported on stderr once,
 * and returned by every later call that reports asynchronous errors, as the driver's. */
void sq_fail(CUresult e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
CUresult sq_error(void);

/* events */
CUresult sq_event_new(CUevent *e, bool timing);
void sq_event_destroy(CUevent e);
CUresult sq_event_record(CUevent e, sq_stream *s);
bool sq_event_done(CUevent e);
void sq_event_wait(CUevent e);
CUresult sq_event_elapsed(float *ms, CUevent a, CUevent b);
/* s waits (without the host waiting) for the work e recorded */
CUresult sq_stream_wait_event(sq_stream *s, CUevent e);

#endif
