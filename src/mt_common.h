/* mt_common.h: macros shared by every part of the core, and its error channel.
 *
 * Ownership rule of the whole C core (few, written down, as promised in STYLE.md):
 *   - a function that returns a pointer to a refcounted object returns a NEW reference;
 *   - arguments are BORROWED; a function keeps what it needs by taking its own reference;
 *   - failure is reported by a NULL pointer or a nonzero int, with the message left in the
 *     thread's error slot (mt_error_msg()); nothing on a failure path is leaked or aborts.
 */
#ifndef MT_COMMON_H
#define MT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MT_API __attribute__((visibility("default")))
#define MT_LIKELY(x) __builtin_expect(!!(x), 1)
#define MT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MT_UNUSED(x) ((void)(x))
#define MT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The most dimensions a tensor may have: sizes and strides live inline in the tensor. */
#define MT_MAX_DIM 16

/* The kinds of failure, mirroring the Python exception a PyTorch user would see. */
typedef enum mt_errkind {
    MT_ERR_NONE = 0,
    MT_ERR_RUNTIME,
    MT_ERR_TYPE,
    MT_ERR_VALUE,
    MT_ERR_INDEX,
    MT_ERR_NOT_IMPLEMENTED,
    MT_ERR_MEMORY,
} mt_errkind;

/* Record an error for this thread and return -1 (so `return mt_error(...)` reads well). */
MT_API int mt_error(mt_errkind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, returning NULL for pointer-returning functions. */
MT_API void *mt_error_null(mt_errkind kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
MT_API const char *mt_error_msg(void);
MT_API mt_errkind mt_error_kind(void);
MT_API const char *mt_errkind_name(mt_errkind kind);
MT_API void mt_error_clear(void);
/* Prefix the pending error message with more context ("while doing X: ..."). */
MT_API void mt_error_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that reports failure through the error channel. */
MT_API void *mt_malloc(size_t n);
MT_API void *mt_calloc(size_t n, size_t sz);

/* Checked int64 product; false on overflow. */
static inline bool mt_mul_overflow(int64_t a, int64_t b, int64_t *out) {
    return __builtin_mul_overflow(a, b, out);
}

/* Format a list of int64 as "[1, 2, 3]" into buf (always NUL-terminated). */
MT_API const char *mt_fmt_ilist(char *buf, size_t cap, const int64_t *v, int n);
/* Format a double as C++'s ostream does by default (%g, "nan" and "inf" without a sign bit
 * for NaN), for messages that quote a number; buf of 32 bytes is enough. */
MT_API const char *mt_fmt_double(char *buf, size_t cap, double v);

#endif
