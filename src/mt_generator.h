/* mt_generator.h: random number generators, PyTorch's CPU generator exactly (MT19937, seeded
 * and stepped as PyTorch does, with the same 5056-byte state layout), so that a seed gives
 * PyTorch's streams (doc/rng.md). A device backend keeps its own state in `device_state`. */
#ifndef MT_GENERATOR_H
#define MT_GENERATOR_H

#include "mt_common.h"
#include "mt_device.h"

#include <pthread.h>
#include <stdatomic.h>

#define MT_MT19937_N 624

typedef struct mt_generator {
    atomic_int refcount;
    mt_device device;
    pthread_mutex_t lock; /* kernels hold it while they draw: one stream, any thread */
    uint64_t seed;        /* the initial seed */
    uint32_t state[MT_MT19937_N];
    int left, next;
    bool seeded;
    bool has_normal; /* a cached double normal sample (doc/rng.md 4B) */
    double normal;
    uint64_t offset; /* device generators (counter-based): samples drawn since seeding */
} mt_generator;

/* PyTorch's seed of a new torch.Generator() */
#define MT_DEFAULT_RNG_SEED 67280421310721ULL

MT_API mt_generator *mt_generator_new(mt_device dev);
MT_API void mt_generator_incref(mt_generator *g);
MT_API void mt_generator_decref(mt_generator *g);
/* The process-wide default generator of a device type (seeded non-deterministically on first
 * use, as PyTorch's is): the CPU's, or an accelerator's current device's; borrowed, never NULL
 * for the CPU. */
MT_API mt_generator *mt_default_generator(mt_devtype type);
/* The default generator of one device, as PyTorch keeps one per device (torch.cuda.
 * default_generators): the CPU's for cpu and meta; an accelerator's are made on first use (index
 * -1: the current device), seeded from the OS or by an earlier manual_seed_all of their type.
 * Borrowed; NULL with the error set past MT_MAX_GENERATOR_DEVICES. */
#define MT_MAX_GENERATOR_DEVICES 64
MT_API mt_generator *mt_device_generator(mt_device d);
/* manual_seed_all: every default generator of an accelerator type, those made later too */
MT_API void mt_generator_manual_seed_type(int type, uint64_t seed);
/* torch.manual_seed: the CPU's default generator and every accelerator type's */
MT_API void mt_generator_manual_seed_all(uint64_t seed);

MT_API void mt_generator_manual_seed(mt_generator *g, uint64_t seed);
/* A non-deterministic seed (from the OS), applied and returned. */
MT_API uint64_t mt_generator_seed(mt_generator *g);

/* State as PyTorch's CPU generator lays it out (CPUGeneratorImplState, 5056 bytes); set_state
 * also takes the legacy 5048-byte layout. A device generator's state is its seed and offset
 * (uint64 each, 16 bytes), as PyTorch's CUDA generator's. */
#define MT_GENERATOR_STATE_BYTES 5056
#define MT_GENERATOR_LEGACY_STATE_BYTES 5048
#define MT_GENERATOR_DEVICE_STATE_BYTES 16
MT_API size_t mt_generator_state_bytes(const mt_generator *g);
/* writes mt_generator_state_bytes(g) bytes */
MT_API void mt_generator_get_state(mt_generator *g, uint8_t *out);
MT_API int mt_generator_set_state(mt_generator *g, const uint8_t *in, size_t nbytes);

/* Draws (call with g->lock held) */
MT_API uint32_t mt_gen_random(mt_generator *g);
/* n draws at once: the values n calls of mt_gen_random give, in order */
MT_API void mt_gen_random_n(mt_generator *g, uint32_t *out, int64_t n);
MT_API uint64_t mt_gen_random64(mt_generator *g);

#endif
