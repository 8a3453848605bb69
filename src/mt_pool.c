/* mt_pool.c: per-thread free lists, bounded, returned to malloc when a thread exits. */
#include "mt_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Size classes of aligned blocks: 64, 128, ..., 4096 bytes. */
#define NBLOCK_CLASSES 7
/* Per-thread caps: Lua's collector frees tensors in batches, so the lists must hold a batch's
 * worth (a few thousand headers; at most 1 MiB of blocks per size class), not a hoard. */
#define MAX_CACHED_OBJECTS 32768
#define MAX_CACHED_BLOCK_BYTES (1 << 20)

typedef struct node {
    struct node *next;
} node;

typedef struct lists {
    node *obj[MT_POOL_NCLASSES];
    int nobj[MT_POOL_NCLASSES];
    node *blk[NBLOCK_CLASSES];
    int nblk[NBLOCK_CLASSES];
} lists;

static _Thread_local lists tl;
static _Thread_local bool registered;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void drain(void *unused) {
    MT_UNUSED(unused);
    for (int c = 0; c < MT_POOL_NCLASSES; c++)
        while (tl.obj[c]) {
            node *n = tl.obj[c];
            tl.obj[c] = n->next;
            free(n);
        }
    for (int c = 0; c < NBLOCK_CLASSES; c++)
        while (tl.blk[c]) {
            node *n = tl.blk[c];
            tl.blk[c] = n->next;
            free(n);
        }
    for (int c = 0; c < MT_POOL_NCLASSES; c++) tl.nobj[c] = 0;
    for (int c = 0; c < NBLOCK_CLASSES; c++) tl.nblk[c] = 0;
}

static void drain_at_exit(void) {
    drain(NULL);
    mt_pool_release_large();
}

/* Key destructors free the lists of threads that exit; the thread that ends the process (no
 * destructor runs for it) frees its lists at exit, so leak checkers see no cached blocks. */
static void make_key(void) {
    pthread_key_create(&exit_key, drain);
    atexit(drain_at_exit);
}

/* The first cached object of a thread arranges for its lists to be freed at thread exit. */
static void register_thread(void) {
    pthread_once(&key_once, make_key);
    pthread_setspecific(exit_key, (void *)1);
    registered = true;
}

void *mt_pool_alloc(int cls, size_t size) {
    node *n = tl.obj[cls];
    if (MT_LIKELY(n)) {
        tl.obj[cls] = n->next;
        tl.nobj[cls]--;
        return n;
    }
    return malloc(size);
}

void mt_pool_free(int cls, void *p) {
    if (!p) return;
    if (tl.nobj[cls] >= MAX_CACHED_OBJECTS) {
        free(p);
        return;
    }
    if (MT_UNLIKELY(!registered)) register_thread();
    node *n = p;
    n->next = tl.obj[cls];
    tl.obj[cls] = n;
    tl.nobj[cls]++;
}

static int block_class(size_t nbytes) {
    size_t s = 64;
    int c = 0;
    while (s < nbytes) {
        s <<= 1;
        c++;
    }
    return c;
}

/* ---- large blocks: a few recently freed ones kept for reuse -------------------------------------
 * A fresh large block costs a page fault per 4 KiB on first touch (the C library maps it anew),
 * which dominates ops on big tensors; loops free and allocate blocks of the same sizes, so a
 * number of them kept (bounded in count and bytes, shared by all threads) serves them. A block
 * freed when the cache is full evicts the longest-kept ones, so the sizes of a program's earlier
 * phases do not hold the cache against the sizes of its current loop. The bound is a training
 * step's worth: a ResNet basic block at batch 32 frees about twenty 25 MB activations and
 * gradients per step, and with 16 slots and 256 MB half of them came back as fresh pages each
 * step (its step 694 -> 284 ms with 64 slots and 1 GiB; peak RSS 566 -> 446 MiB, as blocks are
 * reused instead of mapped anew). glibc's own heap keeps freed memory much the same way. */
#define LARGE_MIN (16u << 10)
#define LARGE_SLOTS 64
#define LARGE_MAX_BYTES ((size_t)1 << 30)

static struct {
    pthread_mutex_t lock;
    void *ptr[LARGE_SLOTS];
    size_t size[LARGE_SLOTS];
    uint64_t stamp[LARGE_SLOTS]; /* when each was kept */
    size_t bytes;
    uint64_t clock;
} large = {PTHREAD_MUTEX_INITIALIZER, {0}, {0}, {0}, 0, 0};

/* Blocks of HUGE_MIN bytes and more are aligned to and rounded up to a 2 MiB huge page and asked
 * to be backed by transparent huge pages: first touching a 4 KiB page costs a fault of 12 us on
 * this project's virtual machines, so a fresh 40 MB block took 116 ms to fill and 3.3 ms as huge
 * pages (one fault per 2 MiB); a walk across rows (a transposed operand) also needs 512 times
 * fewer TLB entries. The rounding adds under 2 MiB: at most half of a block just past 4 MiB,
 * under a tenth from 20 MiB. MT_HUGE_PAGES=0 turns it off. */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20)

/* read once; any thread may ask first, and each finds the same answer */
static bool huge_pages(void) {
    static atomic_int on = -1;
    int v = atomic_load_explicit(&on, memory_order_relaxed);
    if (v < 0) {
        const char *env = getenv("MT_HUGE_PAGES");
        v = !(env && env[0] == '0');
        atomic_store_explicit(&on, v, memory_order_relaxed);
    }
    return v;
}

/* nbytes is at most INT64_MAX / 2 (mt_storage.c), so the rounding cannot wrap */
static size_t large_size(size_t nbytes) {
    if (nbytes >= HUGE_MIN && huge_pages()) return (nbytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    return (nbytes + 4095) & ~(size_t)4095;
}

static void *large_new(size_t size) {
    void *p = NULL;
    bool huge = size >= HUGE_MIN && huge_pages();
    if (posix_memalign(&p, huge ? HUGE_PAGE : 64, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (huge) madvise(p, size, MADV_HUGEPAGE); /* advice: where THP is off it changes nothing */
#endif
    return p;
}

static void *large_take(size_t size) {
    void *p = NULL;
    pthread_mutex_lock(&large.lock);
    for (int i = 0; i < LARGE_SLOTS; i++)
        if (large.ptr[i] && large.size[i] == size) {
            p = large.ptr[i];
            large.ptr[i] = NULL;
            large.bytes -= size;
            break;
        }
    pthread_mutex_unlock(&large.lock);
    return p;
}

/* the slot kept longest, or -1 when none is */
static int large_oldest(void) {
    int o = -1;
    for (int i = 0; i < LARGE_SLOTS; i++)
        if (large.ptr[i] && (o < 0 || large.stamp[i] < large.stamp[o])) o = i;
    return o;
}

static bool large_keep(void *p, size_t size) {
    if (size > LARGE_MAX_BYTES) return false;
    void *evicted[LARGE_SLOTS];
    int nev = 0, slot = -1;
    pthread_mutex_lock(&large.lock);
    for (;;) {
        slot = -1;
        for (int i = 0; i < LARGE_SLOTS && slot < 0; i++)
            if (!large.ptr[i]) slot = i;
        if (slot >= 0 && large.bytes + size <= LARGE_MAX_BYTES) break;
        int o = large_oldest(); /* full (slots or bytes): the oldest goes */
        evicted[nev++] = large.ptr[o];
        large.bytes -= large.size[o];
        large.ptr[o] = NULL;
    }
    large.ptr[slot] = p;
    large.size[slot] = size;
    large.stamp[slot] = ++large.clock;
    large.bytes += size;
    pthread_mutex_unlock(&large.lock);
    for (int i = 0; i < nev; i++) free(evicted[i]); /* outside the lock */
    return true;
}

void mt_pool_release_large(void) {
    pthread_mutex_lock(&large.lock);
    for (int i = 0; i < LARGE_SLOTS; i++) {
        free(large.ptr[i]);
        large.ptr[i] = NULL;
    }
    large.bytes = 0;
    pthread_mutex_unlock(&large.lock);
}

void *mt_pool_alloc_aligned(size_t nbytes) {
    if (nbytes >= LARGE_MIN) {
        size_t size = large_size(nbytes);
        void *p = large_take(size);
        return p ? p : large_new(size);
    }
    if (nbytes <= MT_POOL_MAX_BLOCK) {
        int c = block_class(nbytes);
        node *n = tl.blk[c];
        if (MT_LIKELY(n)) {
            tl.blk[c] = n->next;
            tl.nblk[c]--;
            return n;
        }
        nbytes = (size_t)64 << c;
    }
    void *p = NULL;
    if (posix_memalign(&p, 64, (nbytes + 63) & ~(size_t)63) != 0) return NULL;
    return p;
}

void mt_pool_free_aligned(void *p, size_t nbytes) {
    if (!p) return;
    if (nbytes >= LARGE_MIN) {
        if (!large_keep(p, large_size(nbytes))) free(p);
        return;
    }
    if (nbytes <= MT_POOL_MAX_BLOCK) {
        int c = block_class(nbytes);
        if (((size_t)tl.nblk[c] << (6 + c)) < MAX_CACHED_BLOCK_BYTES) {
            if (MT_UNLIKELY(!registered)) register_thread();
            node *n = p;
            n->next = tl.blk[c];
            tl.blk[c] = n;
            tl.nblk[c]++;
            return;
        }
    }
    free(p);
}
