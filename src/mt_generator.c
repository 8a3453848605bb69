/* mt_generator.c: the MT19937 generator, seeded, stepped and saved as PyTorch 1.13's CPU
 * generator is (doc/rng.md section 1), so states and streams match PyTorch's. */
#include "mt_generator.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

mt_generator *mt_generator_new(mt_device dev) {
    mt_generator *g = calloc(1, sizeof *g);
    if (!g) {
        mt_error(MT_ERR_MEMORY, "out of memory creating a generator");
        return NULL;
    }
    atomic_init(&g->refcount, 1);
    g->device = dev;
    pthread_mutex_init(&g->lock, NULL);
    mt_generator_manual_seed(g, MT_DEFAULT_RNG_SEED);
    return g;
}

void mt_generator_incref(mt_generator *g) {
    if (g) atomic_fetch_add_explicit(&g->refcount, 1, memory_order_relaxed);
}

void mt_generator_decref(mt_generator *g) {
    if (!g || atomic_fetch_sub_explicit(&g->refcount, 1, memory_order_acq_rel) != 1) return;
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* 64 bits from the OS (as PyTorch's getNonDeterministicRandom), the clock if it has none */
static uint64_t nondeterministic_seed(void) {
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, &s, sizeof s);
        close(fd);
        if (n == (ssize_t)sizeof s) return s;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32;
}

static bool is_accelerator(int type) {
    return type != MT_DEV_CPU && type != MT_DEV_META && type >= 0 && type < MT_MAX_DEVTYPES;
}

/* cpu's and meta's generators */
static mt_generator *defaults[MT_DEV_META + 1];
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;

static void make_defaults(void) {
    for (int t = 0; t <= MT_DEV_META; t++) {
        defaults[t] = mt_generator_new((mt_device){(int8_t)t, -1});
        if (defaults[t]) mt_generator_manual_seed(defaults[t], nondeterministic_seed());
    }
}

mt_generator *mt_default_generator(mt_devtype type) {
    if (is_accelerator(type)) return mt_device_generator((mt_device){(int8_t)type, -1});
    pthread_once(&defaults_once, make_defaults);
    return type >= 0 && type <= MT_DEV_META ? defaults[type] : NULL;
}

/* an accelerator's generators, one per device, made on first use; a manual_seed_all of the type
 * before a device's first use is the seed that device starts from (PyTorch queues it too) */
static mt_generator *device_gens[MT_MAX_DEVTYPES][MT_MAX_GENERATOR_DEVICES];
static struct {
    bool set;
    uint64_t seed;
} pending_seed[MT_MAX_DEVTYPES];
static pthread_mutex_t device_gens_lock = PTHREAD_MUTEX_INITIALIZER;

mt_generator *mt_device_generator(mt_device d) {
    if (!is_accelerator(d.type)) return mt_default_generator((mt_devtype)(d.type < 0 ? 0 : d.type));
    d = mt_device_resolve(d);
    if (d.index < 0 || d.index >= MT_MAX_GENERATOR_DEVICES) {
        char b[32];
        return mt_error_null(MT_ERR_RUNTIME, "no default generator for device %s",
                             mt_device_str(d, b, sizeof b));
    }
    pthread_mutex_lock(&device_gens_lock);
    mt_generator *g = device_gens[d.type][d.index];
    if (!g && (g = mt_generator_new(d))) {
        mt_generator_manual_seed(g, pending_seed[d.type].set ? pending_seed[d.type].seed
                                                             : nondeterministic_seed());
        device_gens[d.type][d.index] = g;
    }
    pthread_mutex_unlock(&device_gens_lock);
    return g;
}

void mt_generator_manual_seed_type(int type, uint64_t seed) {
    if (!is_accelerator(type)) return;
    pthread_mutex_lock(&device_gens_lock);
    pending_seed[type].set = true;
    pending_seed[type].seed = seed;
    for (int i = 0; i < MT_MAX_GENERATOR_DEVICES; i++)
        if (device_gens[type][i]) mt_generator_manual_seed(device_gens[type][i], seed);
    pthread_mutex_unlock(&device_gens_lock);
}

void mt_generator_manual_seed_all(uint64_t seed) {
    mt_generator_manual_seed(mt_default_generator(MT_DEV_CPU), seed);
    for (int t = 0; t < MT_MAX_DEVTYPES; t++) mt_generator_manual_seed_type(t, seed);
}

/* caller holds the lock (or owns g alone) */
static void seed_locked(mt_generator *g, uint64_t seed) {
    g->seed = seed;
    g->state[0] = (uint32_t)(seed & 0xffffffffu);
    for (int j = 1; j < MT_MT19937_N; j++)
        g->state[j] = 1812433253u * (g->state[j - 1] ^ (g->state[j - 1] >> 30)) + (uint32_t)j;
    g->left = 1;
    g->next = 0;
    g->seeded = true;
    g->has_normal = false;
    g->offset = 0;
}

void mt_generator_manual_seed(mt_generator *g, uint64_t seed) {
    pthread_mutex_lock(&g->lock);
    seed_locked(g, seed);
    pthread_mutex_unlock(&g->lock);
}

uint64_t mt_generator_seed(mt_generator *g) {
    uint64_t s = nondeterministic_seed();
    mt_generator_manual_seed(g, s);
    return s;
}

/* ---- MT19937 ------------------------------------------------------------------------------- */

#define MT_M 397
#define MATRIX_A 0x9908b0dfu

static inline uint32_t twist(uint32_t u, uint32_t v) {
    return (((u & 0x80000000u) | (v & 0x7fffffffu)) >> 1) ^ ((v & 1u) ? MATRIX_A : 0u);
}

static void regenerate(mt_generator *g) {
    uint32_t *s = g->state;
    int k;
    for (k = 0; k < MT_MT19937_N - MT_M; k++) s[k] = s[k + MT_M] ^ twist(s[k], s[k + 1]);
    for (; k < MT_MT19937_N - 1; k++) s[k] = s[k + MT_M - MT_MT19937_N] ^ twist(s[k], s[k + 1]);
    s[MT_MT19937_N - 1] = s[MT_M - 1] ^ twist(s[MT_MT19937_N - 1], s[0]);
    g->left = MT_MT19937_N;
    g->next = 0;
}

static inline uint32_t temper(uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

/* A consistent state has next + left == N after the decrement, so next < N; a loaded state
 * that is not (set_rng_state checks each field alone) regenerates rather than read past it. */
uint32_t mt_gen_random(mt_generator *g) {
    if (--g->left == 0 || g->next >= MT_MT19937_N) regenerate(g);
    return temper(g->state[g->next++]);
}

void mt_gen_random_n(mt_generator *g, uint32_t *out, int64_t n) {
    for (int64_t i = 0; i < n;) {
        if (--g->left == 0 || g->next >= MT_MT19937_N) regenerate(g);
        /* this draw and the g->left - 1 after it come from the state as it is */
        int64_t k = n - i < g->left ? n - i : g->left;
        if (k > MT_MT19937_N - g->next) k = MT_MT19937_N - g->next;
        const uint32_t *s = g->state + g->next;
        for (int64_t t = 0; t < k; t++) out[i + t] = temper(s[t]);
        g->next += (int)k;
        g->left -= (int)(k - 1);
        i += k;
    }
}

uint64_t mt_gen_random64(mt_generator *g) {
    uint64_t hi = mt_gen_random(g);
    uint64_t lo = mt_gen_random(g);
    return (hi << 32) | lo;
}

/* ---- state bytes: PyTorch's CPUGeneratorImplState ------------------------------------------- */

/* field offsets of the layout (x86-64: natural alignment) */
enum {
    OFF_SEED = 0,
    OFF_LEFT = 8,
    OFF_SEEDED = 12,
    OFF_NEXT = 16,
    OFF_STATE = 24,                              /* 624 x uint64 */
    OFF_NORMAL_X = OFF_STATE + 8 * MT_MT19937_N, /* 5016 */
    OFF_NORMAL_Y = OFF_NORMAL_X + 8,
    OFF_NORMAL_RHO = OFF_NORMAL_Y + 8,
    OFF_NORMAL_VALID = OFF_NORMAL_RHO + 8, /* int, then 4 bytes of padding: 5048 */
    OFF_FLOAT_NORMAL = 5048,
    OFF_FLOAT_NORMAL_VALID = 5052,
};

#define PUT(off, v)                                                                                \
    do {                                                                                           \
        __typeof__(v) v_ = (v);                                                                    \
        memcpy(out + (off), &v_, sizeof v_);                                                       \
    } while (0)
#define GET(off, var) memcpy(&(var), in + (off), sizeof(var))

size_t mt_generator_state_bytes(const mt_generator *g) {
    return is_accelerator(g->device.type) ? MT_GENERATOR_DEVICE_STATE_BYTES
                                          : MT_GENERATOR_STATE_BYTES;
}

void mt_generator_get_state(mt_generator *g, uint8_t *out) {
    if (is_accelerator(g->device.type)) {
        pthread_mutex_lock(&g->lock);
        PUT(0, g->seed);
        PUT(8, g->offset);
        pthread_mutex_unlock(&g->lock);
        return;
    }
    memset(out, 0, MT_GENERATOR_STATE_BYTES);
    pthread_mutex_lock(&g->lock);
    PUT(OFF_SEED, g->seed);
    PUT(OFF_LEFT, (int32_t)g->left);
    PUT(OFF_SEEDED, (int32_t)g->seeded);
    PUT(OFF_NEXT, (uint64_t)g->next);
    for (int i = 0; i < MT_MT19937_N; i++) PUT(OFF_STATE + 8 * i, (uint64_t)g->state[i]);
    if (g->has_normal) {
        PUT(OFF_NORMAL_Y, g->normal);
        PUT(OFF_NORMAL_VALID, (int32_t)1);
    }
    pthread_mutex_unlock(&g->lock);
}

/* a device generator's state: its seed (seeding it, which restarts the offset) and offset */
static int set_device_state(mt_generator *g, const uint8_t *in, size_t nbytes) {
    if (nbytes != MT_GENERATOR_DEVICE_STATE_BYTES)
        return mt_error(MT_ERR_RUNTIME, "RNG state is wrong size");
    uint64_t seed, offset;
    GET(0, seed);
    GET(8, offset);
    pthread_mutex_lock(&g->lock);
    seed_locked(g, seed);
    g->offset = offset;
    pthread_mutex_unlock(&g->lock);
    return 0;
}

int mt_generator_set_state(mt_generator *g, const uint8_t *in, size_t nbytes) {
    if (is_accelerator(g->device.type)) return set_device_state(g, in, nbytes);
    if (nbytes != MT_GENERATOR_STATE_BYTES && nbytes != MT_GENERATOR_LEGACY_STATE_BYTES)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected either a CPUGeneratorImplStateLegacy of size %d or a "
                        "CPUGeneratorImplState of "
                        "size %d but found the input RNG state size to be %zu",
                        MT_GENERATOR_LEGACY_STATE_BYTES, MT_GENERATOR_STATE_BYTES, nbytes);
    uint64_t seed, next;
    int32_t left, seeded, valid;
    double normal;
    GET(OFF_SEED, seed);
    GET(OFF_LEFT, left);
    GET(OFF_SEEDED, seeded);
    GET(OFF_NEXT, next);
    GET(OFF_NORMAL_Y, normal);
    GET(OFF_NORMAL_VALID, valid);
    if (!seeded || left <= 0 || left > MT_MT19937_N || next > MT_MT19937_N)
        return mt_error(MT_ERR_RUNTIME, "Invalid mt19937 state");
    pthread_mutex_lock(&g->lock);
    g->seed = seed;
    g->left = left;
    g->next = (int)next;
    g->seeded = true;
    for (int i = 0; i < MT_MT19937_N; i++) {
        uint64_t w;
        GET(OFF_STATE + 8 * i, w);
        g->state[i] = (uint32_t)w;
    }
    g->has_normal = valid != 0;
    g->normal = valid ? normal : 0;
    pthread_mutex_unlock(&g->lock);
    return 0;
}
