/* compare_ops.c: whole-tensor comparisons written with other ops: isclose, allclose, equal
 * (PyTorch's formulas and checks). */
#include "common_ops.h"
#include "mt_ops_gen.h"

#include <string.h>

/* isclose: self == other, or |self - other| <= atol + |rtol * other| where that is finite */
static mt_tensor *isclose(mt_tensor *self, mt_tensor *other, double rtol, double atol,
                          bool equal_nan) {
    if (self->dtype != other->dtype) {
        mt_error(MT_ERR_RUNTIME, "%s did not match %s", mt_dtype_scalar_name((mt_dtype)self->dtype),
                 mt_dtype_scalar_name((mt_dtype)other->dtype));
        return NULL;
    }
    if (!(rtol >= 0)) {
        char n[32];
        mt_error(MT_ERR_RUNTIME, "rtol must be greater than or equal to zero, but got %s",
                 mt_fmt_double(n, sizeof n, rtol));
        return NULL;
    }
    if (!(atol >= 0)) {
        char n[32];
        mt_error(MT_ERR_RUNTIME, "atol must be greater than or equal to zero, but got %s",
                 mt_fmt_double(n, sizeof n, atol));
        return NULL;
    }
    mt_dtype dt = (mt_dtype)self->dtype;
    mt_tensor *close = mto_eq_Tensor(self, other);
    if (!close) return NULL;
    if (equal_nan && mt_dtype_is_floating(dt)) {
        mt_tensor *a = mto_isnan(self), *b = a ? mto_isnan(other) : NULL,
                  *both = b ? mto_logical_and(a, b) : NULL;
        mt_tensor *c = both ? mto_logical_or(close, both) : NULL;
        mt_tensor_decref(a);
        mt_tensor_decref(b);
        mt_tensor_decref(both);
        mt_tensor_decref(close);
        if (!(close = c)) return NULL;
    }
    if ((rtol == 0 && atol == 0) || dt == MT_BOOL) return close;
    /* integers compare in the default dtype */
    mt_tensor *x = self, *y = other;
    if (!mt_dtype_is_floating(dt)) {
        x = mto_to_dtype(self, mt_default_dtype(), false, false, NULL);
        y = x ? mto_to_dtype(other, mt_default_dtype(), false, false, NULL) : NULL;
    } else {
        mt_tensor_incref(x);
        mt_tensor_incref(y);
    }
    mt_tensor *ry = y ? mto_mul_Scalar(y, mt_vdouble(rtol)) : NULL, *ary = ry ? mto_abs(ry) : NULL;
    mt_tensor *allowed = ary ? mto_add_Scalar(ary, mt_vdouble(atol), mt_vint(1)) : NULL;
    mt_tensor *d = allowed ? mto_sub_Tensor(x, y, mt_vint(1)) : NULL,
              *actual = d ? mto_abs(d) : NULL;
    mt_tensor *fin = actual ? mto_isfinite(actual) : NULL,
              *le = fin ? mto_le_Tensor(actual, allowed) : NULL;
    mt_tensor *within = le ? mto_logical_and(fin, le) : NULL,
              *out = within ? mto_logical_or(close, within) : NULL;
    mt_tensor *tmp[] = {x, y, ry, ary, allowed, d, actual, fin, le, within, close};
    for (size_t i = 0; i < sizeof tmp / sizeof *tmp; i++) mt_tensor_decref(tmp[i]);
    return out;
}

static int c_isclose(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return mt_ret_tensor(r, isclose(a[0].t, a[1].t, a[2].d, a[3].d, a[4].b));
}

/* true when every element of a bool tensor is */
static int all_true(mt_tensor *t, mt_value *r) {
    if (!t) return -1;
    mt_tensor *all = mto_all(t);
    mt_tensor_decref(t);
    if (!all) return -1;
    mt_tensor *cpu = mto_to_device(all, MT_CPU, -1, false, false, NULL);
    mt_tensor_decref(all);
    if (!cpu) return -1;
    r[0] = mt_vbool(*(const uint8_t *)mt_tensor_data(cpu) != 0);
    mt_tensor_decref(cpu);
    return 0;
}

static int c_allclose(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    return all_true(isclose(a[0].t, a[1].t, a[2].d, a[3].d, a[4].b), r);
}

/* equal: a kernel per device (PyTorch has none for meta, so neither does mindtorch) */
static int k_equal(mt_call *c, mt_value *a, mt_value *r) {
    MT_UNUSED(c);
    mt_tensor *x = a[0].t, *y = a[1].t;
    if (x->ndim != y->ndim || memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->ndim) != 0) {
        r[0] = mt_vbool(false);
        return 0;
    }
    return all_true(mto_eq_Tensor(x, y), r);
}

void mt_compare_register(void) {
    mt_disp_composite(MT_OP_isclose, c_isclose);
    mt_disp_composite(MT_OP_allclose, c_allclose);
    mt_disp_kernel(MT_OP_equal, MT_KEY_CPU, k_equal);
}
