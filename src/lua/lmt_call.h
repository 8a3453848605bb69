/* lmt_call.h: the schema-driven call path from Lua into any operator, shared by its parts:
 *
 *   lmt_ops.c      the op functions: overload sets, one call tried against each overload
 *   lmt_convert.c  one Lua value -> one boxed argument, as its schema type asks (1-based
 *                  dims and indices converted here)
 *   lmt_parse.c    Lua arguments (positional, then a trailing options table) -> one overload's
 *                  boxed arguments, or why they do not match
 *   lmt_argerror.c the errors, worded as PyTorch's argument parser words them
 *   lmt_results.c  the results pushed back, and the result options (out=, requires_grad=,
 *                  pin_memory=)
 */
#ifndef LMT_CALL_H
#define LMT_CALL_H

#include "lmt.h"

#define LMT_MAX_OVERLOADS 8
#define LMT_MAX_ARGS 16
#define LMT_MAX_OUTS 4 /* results an out= table may give */

/* How Lua arguments map to one overload's parameters, worked out once per closure. */
typedef struct lmt_arg_plan {
    int8_t self_index; /* the parameter a method's receiver fills (-1 for functions) */
    int8_t npos;       /* positional parameters (after the receiver) */
    bool factory_opts; /* takes pin_memory= or requires_grad= (lmt_result_options applies them) */
    int8_t pos[LMT_MAX_ARGS];
} lmt_arg_plan;

typedef struct lmt_opset {
    const char *name;
    bool method;
    int n;
    const mt_op *ops[LMT_MAX_OVERLOADS];
    lmt_arg_plan plans[LMT_MAX_OVERLOADS];
} lmt_opset;

/* Memory that lives for one call: short lists on the C stack, long ones in Lua userdata. */
typedef struct lmt_scratch {
    int64_t ints[8][MT_MAX_DIM];
    int nints;
    mt_tensor *tl[4][MT_MAX_DIM];
    int ntl;
    mt_tensor
        *owned[8 + MT_MAX_DIM]; /* converted tensors (IndexTensor args) released after the call */
    int nowned;
    int anchor; /* stack slot of a table that keeps long lists alive (nil until needed) */
    int nanchored;
} lmt_scratch;

/* Why an overload did not match, for the error message. */
typedef struct lmt_mismatch {
    enum { M_NONE, M_TYPE, M_ELEMENT, M_UNKNOWN_KW, M_MULTIPLE, M_MISSING, M_TOO_MANY } kind;
    int arg;         /* schema index */
    int position;    /* 1-based Lua position (0 for keywords) */
    int element;     /* 1-based list element */
    const char *got; /* Lua type of the value (a static string) */
    char key[64];    /* keyword */
    int count, given;
} lmt_mismatch;

/* ---- lmt_convert.c --------------------------------------------------------------------------- */
/* The type of a Lua value as messages name it ("integer", "Tensor", "torch.Size" ...). */
const char *lmt_value_type(lua_State *L, int idx);
/* 1-based user numbering -> the core's 0-based numbering (user 0 -> the sentinel) */
static inline int64_t lmt_from_user_index(int64_t v) {
    return v > 0 ? v - 1 : v == 0 ? MT_ZERO_SENTINEL : v;
}
/* Convert the Lua value at idx for schema arg a. 0: ok; -1: type mismatch (mm filled);
 * -2: a hard error raised by a conversion (left in the error slot). */
int lmt_conv(lua_State *L, int idx, const mt_arg *a, mt_value *out, lmt_scratch *sc,
             lmt_mismatch *mm);
/* Release the tensors a call's conversions made. */
void lmt_scratch_release(lmt_scratch *sc);

/* ---- lmt_parse.c ----------------------------------------------------------------------------- */
/* A trailing table is an options table when it is a plain table keyed by strings. */
bool lmt_is_options_table(lua_State *L, int idx);
/* Parse Lua args [first, last] (+ options table `opts`, 0 if none) for op. 0 ok, -1 mismatch,
 * -2 hard error. */
int lmt_parse(lua_State *L, const mt_op *op, const lmt_arg_plan *plan, bool method, int first,
              int last, int opts, mt_value *args, lmt_scratch *sc, lmt_mismatch *mm);

/* ---- lmt_argerror.c -------------------------------------------------------------------------- */
/* Raise the error for a call no overload of `set` took (mms: why each did not). */
int lmt_overload_error(lua_State *L, const lmt_opset *set, bool method, int first, int last,
                       int opts, const lmt_mismatch *mms);

/* ---- lmt_results.c --------------------------------------------------------------------------- */
/* The tensors out= (in the options table `opts`) gives for op: their count (0: no out=), or -1
 * with an error message pushed when out= is not what op writes (a Tensor, or a table of one
 * Tensor per result). The tensors are borrowed from the table. */
int lmt_out_tensors(lua_State *L, const mt_schema *s, int opts, mt_tensor *outs[LMT_MAX_OUTS]);
/* Push an op's results (taking over their references); the number pushed. */
int lmt_push_results(lua_State *L, const mt_schema *s, mt_value *rets, int first, int last);
/* Push the out= tensors the op wrote (index results made 1-based in place). */
int lmt_push_outs(lua_State *L, const mt_schema *s, int opts, int nout);
/* requires_grad= and pin_memory= of factory ops, on the first of the nres results pushed. */
void lmt_result_options(lua_State *L, const mt_op *op, const mt_value *args, int nres);

#endif
