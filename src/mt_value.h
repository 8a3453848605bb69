/* mt_value.h: boxed values, the one calling convention of every operator. */
#ifndef MT_VALUE_H
#define MT_VALUE_H

#include "mt_tensor.h"

typedef enum mt_vtag {
    MT_V_NONE,
    MT_V_TENSOR,
    MT_V_TENSORLIST,
    MT_V_INT,
    MT_V_DOUBLE,
    MT_V_BOOL,
    MT_V_INTLIST,
    MT_V_DOUBLELIST,
    MT_V_DTYPE,
    MT_V_DEVICE,
    MT_V_STR,
    MT_V_GENERATOR,
} mt_vtag;

/* Arguments are borrowed: lists point at memory the caller keeps alive for the call.
 * Results own their tensors: a TENSOR result holds a new reference, and a TENSORLIST result
 * holds a malloc'd array of new references (release with mt_value_release). */
typedef struct mt_value {
    uint8_t tag;
    int32_t n; /* length of a list */
    union {
        int64_t i;
        double d;
        bool b;
        mt_tensor *t;
        mt_tensor **tl;
        const int64_t *il;
        const double *dl;
        const char *s;
        int dtype;
        mt_device dev;
        void *gen;
    };
} mt_value;

/* A Scalar is an mt_value tagged INT, DOUBLE or BOOL (PyTorch's int/float/bool numbers). */
typedef mt_value mt_scalar;

#define MT_NONE ((mt_value){.tag = MT_V_NONE})
static inline mt_value mt_vtensor(mt_tensor *t) {
    return t ? (mt_value){.tag = MT_V_TENSOR, .t = t} : MT_NONE;
}
/* an optional tensor argument (Tensor?): the tensor, or NULL for None */
static inline mt_tensor *mt_vopt_tensor(mt_value v) {
    return v.tag == MT_V_TENSOR ? v.t : NULL;
}
static inline mt_value mt_vint(int64_t i) {
    return (mt_value){.tag = MT_V_INT, .i = i};
}
static inline mt_value mt_vdouble(double d) {
    return (mt_value){.tag = MT_V_DOUBLE, .d = d};
}
static inline mt_value mt_vbool(bool b) {
    return (mt_value){.tag = MT_V_BOOL, .b = b};
}
static inline mt_value mt_vdtype(int dt) {
    return dt < 0 ? MT_NONE : (mt_value){.tag = MT_V_DTYPE, .dtype = dt};
}
static inline mt_value mt_vdevice(mt_device d) {
    return d.type < 0 ? MT_NONE : (mt_value){.tag = MT_V_DEVICE, .dev = d};
}
static inline mt_value mt_vstr(const char *s) {
    return s ? (mt_value){.tag = MT_V_STR, .s = s} : MT_NONE;
}
static inline mt_value mt_vilist(const int64_t *v, int n) {
    return (mt_value){.tag = MT_V_INTLIST, .n = n, .il = v};
}
static inline mt_value mt_vtlist(mt_tensor **v, int n) {
    return (mt_value){.tag = MT_V_TENSORLIST, .n = n, .tl = v};
}
static inline bool mt_is_none(mt_value v) {
    return v.tag == MT_V_NONE;
}

/* A scalar's value as a double / int64 (bools are 0/1). */
static inline double mt_scalar_double(mt_value v) {
    return v.tag == MT_V_DOUBLE ? v.d : v.tag == MT_V_INT ? (double)v.i : (double)v.b;
}
static inline int64_t mt_scalar_int(mt_value v) {
    return v.tag == MT_V_INT ? v.i : v.tag == MT_V_DOUBLE ? mt_d2i(v.d) : (int64_t)v.b;
}
/* The dtype a Lua number of this kind becomes: int64, the default float, or bool. */
static inline mt_dtype mt_scalar_dtype(mt_value v) {
    return v.tag == MT_V_DOUBLE ? mt_default_dtype() : v.tag == MT_V_BOOL ? MT_BOOL : MT_INT64;
}

/* Release what a result owns (tensor refs, tensor-list arrays); leaves it NONE. */
MT_API void mt_value_release(mt_value *v);

/* *dst = *src, with a list's or a string's memory copied so that dst owns it (for a value kept
 * past the call: autograd's saved arguments, the pipeline's recorded ones); other tags are
 * copied as they are. 0, or -1 with an out-of-memory error saying `what` ran out. */
int mt_value_copy_owned(mt_value *dst, const mt_value *src, const char *what);

/* Int lists as the typed C wrappers take them: n < 0 means "None". */
typedef struct mt_ilist {
    const int64_t *v;
    int n;
} mt_ilist;
#define MT_ILIST_NONE ((mt_ilist){NULL, -1})
#define MT_ILIST(...)                                                                              \
    ((mt_ilist){(const int64_t[]){__VA_ARGS__},                                                    \
                (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))})

/* A list of tensors returned by an op: the array and each tensor are owned. */
typedef struct mt_tlist {
    mt_tensor **v;
    int n;
} mt_tlist;

/* Store a scalar as one element of dtype dt, with c10's overflow check ("value cannot be
 * converted to type int8_t without overflow"). `torch_names` words the type as a dtype
 * ("int8") the way torch.tensor() does, instead of the C++ type name. */
MT_API int mt_scalar_store_checked(mt_value v, mt_dtype dt, void *out, bool torch_names);
#endif
