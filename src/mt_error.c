/* mt_error.c: the per-thread error slot through which the core reports failures. */
#include "mt_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_ERRBUF 4096

static _Thread_local char errbuf[MT_ERRBUF];
static _Thread_local mt_errkind errkind;

static void verror(mt_errkind kind, const char *fmt, va_list ap) {
    errkind = kind;
    vsnprintf(errbuf, sizeof errbuf, fmt, ap);
}

int mt_error(mt_errkind kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verror(kind, fmt, ap);
    va_end(ap);
    return -1;
}

void *mt_error_null(mt_errkind kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verror(kind, fmt, ap);
    va_end(ap);
    return NULL;
}

void mt_error_prefix(const char *fmt, ...) {
    char head[512], old[MT_ERRBUF];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, errbuf, sizeof old);
    size_t hl = strlen(head);
    if (hl >= sizeof errbuf) hl = sizeof errbuf - 1;
    memcpy(errbuf, head, hl);
    size_t rest = sizeof errbuf - 1 - hl, ol = strnlen(old, rest);
    memcpy(errbuf + hl, old, ol);
    errbuf[hl + ol] = 0;
}

const char *mt_error_msg(void) {
    return errbuf;
}
mt_errkind mt_error_kind(void) {
    return errkind;
}
void mt_error_clear(void) {
    errbuf[0] = 0;
    errkind = MT_ERR_NONE;
}

const char *mt_errkind_name(mt_errkind kind) {
    switch (kind) {
    case MT_ERR_TYPE:
        return "TypeError";
    case MT_ERR_VALUE:
        return "ValueError";
    case MT_ERR_INDEX:
        return "IndexError";
    case MT_ERR_NOT_IMPLEMENTED:
        return "NotImplementedError";
    case MT_ERR_MEMORY:
        return "OutOfMemoryError";
    case MT_ERR_NONE:
        return "";
    default:
        return "RuntimeError";
    }
}

void *mt_malloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) mt_error(MT_ERR_MEMORY, "out of memory allocating %zu bytes", n);
    return p;
}

void *mt_calloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) mt_error(MT_ERR_MEMORY, "out of memory allocating %zu bytes", n * sz);
    return p;
}

const char *mt_fmt_double(char *buf, size_t cap, double v) {
    if (isnan(v))
        snprintf(buf, cap, "nan");
    else
        snprintf(buf, cap, "%g", v);
    return buf;
}

const char *mt_fmt_ilist(char *buf, size_t cap, const int64_t *v, int n) {
    size_t at = 0;
    if (cap == 0) return buf;
    buf[0] = 0;
    at += (size_t)snprintf(buf + at, cap - at, "[");
    for (int i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, i ? ", %lld" : "%lld", (long long)v[i]);
    if (at < cap) snprintf(buf + at, cap - at, "]");
    return buf;
}
