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

/* ---- large blocks: recently freed ones kept for reuse -------------------------------------------
 * A fresh large block costs a page fault per 4 KiB on first touch (the C library maps it anew),
 * which dominates ops on big tensors; loops free and allocate blocks of the same sizes, so the
 * blocks freed are kept (bounded in count and bytes, shared by all threads) and serve them. A
 * block freed when the cache is full evicts the longest-kept ones, so the sizes of a program's
 * earlier phases do not hold the cache against the sizes of its current loop. The bounds are a
 * training step's worth and a collector cycle's worth: a ResNet basic block at batch 32 frees
 * about twenty 25 MB activations and gradients per step, and with 16 blocks and 256 MB half of
 * them came back as fresh pages each step (its step 694 -> 284 ms with 64 blocks and 1 GiB; peak
 * RSS 566 -> 446 MiB, as blocks are reused instead of mapped anew); `torch.mm` of 64 x 784 by
 * 784 x 256 in a loop leaves about 140 results of 64 KiB for Lua's collector to free at once,
 * and with 64 blocks 8 pages a call came back fresh (126 -> 102 us a call with no block
 * evicted). glibc's own heap keeps freed memory much the same way.
 *
 * A kept block holds its own bookkeeping in its first bytes: it is in the list of its size's bin
 * (the bins split sizes by their power of two and the next two bits, so a lookup walks blocks
 * of about its size only) and in the list of all kept blocks by age. */
#define LARGE_MIN (16u << 10)
#define LARGE_MAX_COUNT 1024
#define LARGE_MAX_BYTES ((size_t)1 << 30)
#define LARGE_BINS 256

typedef struct kept {
    struct kept *prev, *next;   /* its bin's list, most recently kept first */
    struct kept *older, *newer; /* every kept block, by when it was kept */
    size_t size;
} kept;

static struct {
    pthread_mutex_t lock;
    kept *bin[LARGE_BINS];
    kept *oldest, *newest;
    size_t bytes;
    int count;
} large = {PTHREAD_MUTEX_INITIALIZER, {0}, NULL, NULL, 0, 0};

/* sizes are multiples of 4 KiB from LARGE_MIN: bin 4e + m for pages in [2^e, 2^(e+1)) whose two
 * bits after the leading one are m */
static int large_bin(size_t size) {
    size_t pages = size >> 12;
    int e = 63 - __builtin_clzll((unsigned long long)pages);
    int bin = 4 * e + (int)((pages >> (e - 2)) & 3); /* e >= 2: pages >= 4 */
    return bin < LARGE_BINS ? bin : LARGE_BINS - 1;
}

/* takes k out of both lists (the lock held) */
static void large_unlink(kept *k) {
    if (k->prev)
        k->prev->next = k->next;
    else
        large.bin[large_bin(k->size)] = k->next;
    if (k->next) k->next->prev = k->prev;
    if (k->older)
        k->older->newer = k->newer;
    else
        large.oldest = k->newer;
    if (k->newer)
        k->newer->older = k->older;
    else
        large.newest = k->older;
    large.bytes -= k->size;
    large.count--;
}

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
    kept *k;
    pthread_mutex_lock(&large.lock);
    for (k = large.bin[large_bin(size)]; k && k->size != size; k = k->next) {
    }
    if (k) large_unlink(k);
    pthread_mutex_unlock(&large.lock);
    return k;
}

static bool large_keep(void *p, size_t size) {
    if (size > LARGE_MAX_BYTES) return false;
    kept *k = p, *evicted = NULL;
    pthread_mutex_lock(&large.lock);
    while (large.count >= LARGE_MAX_COUNT || large.bytes + size > LARGE_MAX_BYTES) {
        kept *o = large.oldest; /* full (count or bytes): the oldest goes */
        large_unlink(o);
        o->next = evicted;
        evicted = o;
    }
    int b = large_bin(size);
    *k = (kept){
        .prev = NULL, .next = large.bin[b], .older = large.newest, .newer = NULL, .size = size};
    if (k->next) k->next->prev = k;
    large.bin[b] = k;
    if (large.newest)
        large.newest->newer = k;
    else
        large.oldest = k;
    large.newest = k;
    large.bytes += size;
    large.count++;
    pthread_mutex_unlock(&large.lock);
    while (evicted) { /* outside the lock */
        kept *next = evicted->next;
        free(evicted);
        evicted = next;
    }
    return true;
}

void mt_pool_release_large(void) {
    pthread_mutex_lock(&large.lock);
    while (large.oldest) {
        kept *o = large.oldest;
        large_unlink(o);
        free(o);
    }
    pthread_mutex_unlock(&large.lock);
}

void mt_pool_large_kept(int *count, size_t *bytes) {
    pthread_mutex_lock(&large.lock);
    *count = large.count;
    *bytes = large.bytes;
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
