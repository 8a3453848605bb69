/* ck_args.h: what the CUDA module's C code and its device kernels (CUDA C++, built by nvcc) share:
 * each kernel takes one argument, a struct of this header, by value (so a launch passes one
 * parameter, and the test stand-in can call any kernel the same way), and the codes of dtypes
 * and operations. Plain C, read by both compilers. */
#ifndef MT_CK_ARGS_H
#define MT_CK_ARGS_H

#include <stdint.h>

enum { CK_MAX_DIM = 16 };     /* MT_MAX_DIM */
enum { CK_BLOCK = 256 };      /* threads per block of every element-wise launch */
enum { CK_MAX_OPERANDS = 4 }; /* the result and up to three inputs */

/* the element types: mindtorch's mt_dtype values */
enum {
    CK_BOOL,
    CK_UINT8,
    CK_INT8,
    CK_INT16,
    CK_INT32,
    CK_INT64,
    CK_FLOAT16,
    CK_BFLOAT16,
    CK_FLOAT32,
    CK_FLOAT64,
};

/* element-wise operations: out = f(in1, in2, in3, scalars) */
enum {
    CK_COPY,    /* in1 (converted to out's dtype) */
    CK_FILL,    /* s1 */
    CK_ADD,     /* in1 + alpha * in2 */
    CK_SUB,     /* in1 - alpha * in2 */
    CK_RSUB,    /* in2 - alpha * in1 */
    CK_MUL,     /* in1 * in2 */
    CK_DIV,     /* in1 / in2 (true division) */
    CK_MAXIMUM, /* max(in1, in2), NaN propagating */
    CK_MINIMUM,
    CK_EQ, /* comparisons: computed in the inputs' common type, written as bool */
    CK_NE,
    CK_LT,
    CK_LE,
    CK_GT,
    CK_GE,
    CK_NEG,
    CK_ABS,
    CK_EXP,
    CK_LOG,
    CK_SQRT,
    CK_RELU,
    CK_SIGMOID,
    CK_TANH,
    CK_LOGICAL_NOT,
    CK_WHERE,       /* in1 ? in2 : in3 */
    CK_ADDCMUL,     /* in1 + alpha * in2 * in3 */
    CK_ADDCDIV,     /* in1 + alpha * in2 / in3 */
    CK_MASKED_FILL, /* in2 (the mask) ? s1 : in1 */
    CK_POW,         /* in1 ** in2 */
    CK_GELU,        /* s1 = 0: x Phi(x) with erf; s1 = 1: the tanh approximation */
    CK_ERF,
    CK_SILU,
    CK_SIN,
    CK_COS,
    CK_RSQRT,
    CK_RECIPROCAL,
    CK_LOG1P,
    CK_EXPM1,
    CK_SIGN,
    CK_EXP2,
    CK_LOG2,
    CK_LOG10,
    CK_TAN,
    CK_ASIN,
    CK_ACOS,
    CK_ATAN,
    CK_SINH,
    CK_COSH,
    CK_ASINH,
    CK_ACOSH,
    CK_ATANH,
    CK_ERFC,
    CK_TRUNC,
    CK_FLOOR,
    CK_CEIL,
    CK_ROUND,
    CK_FRAC,
    CK_ATAN2,     /* atan2(in1, in2) */
    CK_FMOD,      /* C's fmod */
    CK_REMAINDER, /* Python's modulus: the divisor's sign */
    CK_FLOOR_DIVIDE,
    CK_CLAMP,      /* into [alpha, s1] (the host puts infinities or the integer limits for None) */
    CK_LEAKY_RELU, /* slope s1 below 0 */
    CK_SOFTPLUS,   /* beta alpha, threshold s1 */
    CK_ISNAN,      /* in the input's type, written as bool */
    CK_ISINF,
    CK_ISFINITE,
    CK_TRUNC_DIVIDE, /* div(rounding_mode='trunc') */
    CK_LERP,         /* in1 + in3 * (in2 - in1), from in2's side when in3 >= 0.5 */
    CK_LGAMMA,       /* the special functions, in double for float32 as on the CPU */
    CK_DIGAMMA,
    CK_ERFINV,    /* in the compute type, as on the CPU */
    CK_POLYGAMMA, /* psi^(n), n in s1 */
    CK_LAND,      /* logical and, or, xor: computed in the inputs' common type, written 0 or 1 */
    CK_LOR,
    CK_LXOR,
    CK_ELU,        /* x > 0 ? x * s1 : (exp(x * s2) - 1) * alpha (alpha: alpha * scale) */
    CK_HARDSHRINK, /* 0 in [-s1, s1] */
    CK_LOGIT,      /* log(x / (1 - x)), x first clamped to [s1, 1 - s1] when alpha is 1 */
    CK_FMAX,       /* max(in1, in2), a NaN losing to a number */
    CK_FMIN,
    CK_HYPOT,
    CK_LOGADDEXP,
    CK_LOGADDEXP2,
    CK_COPYSIGN,
    CK_XLOGY,     /* in1 * log(in2), 0 where in1 is 0, NaN where in2 is */
    CK_HEAVISIDE, /* in2 where in1 is 0, else in1 > 0 */
    CK_ISPOSINF,  /* in the input's type, written as bool */
    CK_ISNEGINF,
    CK_SIGNBIT,
    CK_SINC,
    CK_BAND, /* bitwise, on integers and bools (int64 compute: the low bits are the dtype's) */
    CK_BOR,
    CK_BXOR,
    CK_BNOT,
    CK_SHL, /* the count masked to s2 - 1 bits (64, or 32 for the narrower types, as x86) */
    CK_SHR,
    CK_GCD, /* of |in1| and |in2|, integers (int64 compute, as the CPU) */
    CK_LCM,
    CK_NEXTAFTER, /* the next value of the type after in1 toward in2; s2 set: of bfloat16 */
    CK_SPECIAL,   /* special_scalar.h's function number s2 of in1, in double (MT_SP_ERFCX ...) */
    CK_SPECIAL2,  /* its function number s2 of in1 and in2, in double (MT_SP_ZETA ...) */
    CK_POLY,      /* its polynomial number s2 of degree in2 at in1, in the compute type */
    CK_ENTR,      /* -in1 log in1, in the compute type */
    CK_XLOG1PY,   /* in1 * log1p(in2), 0 where in1 is 0, NaN where in2 is */
    CK_NDTR,      /* (1 + erf(in1 / sqrt 2)) / 2, each step rounded to the half dtype s2 (or 0) */
    /* sequences of the result's element index i (its C-order position), no inputs */
    CK_ARANGE,   /* s1 + alpha * i */
    CK_LINSPACE, /* s1 + alpha * i in the first half, s2 - alpha * (n - 1 - i) in the second */
    CK_LOGSPACE, /* s3 ** (the same, unfused) */
    CK_NUM_OPS
};

/* the type an operation computes in */
enum { CK_COMPUTE_F32, CK_COMPUTE_F64, CK_COMPUTE_I64 };

typedef struct ck_operand {
    uint64_t ptr; /* the device address of element 0 of the view */
    int32_t dtype;
    int32_t reserved;
    int64_t strides[CK_MAX_DIM]; /* in elements; 0 along broadcast dimensions */
} ck_operand;

typedef struct ck_ew_args {
    int64_t n;      /* elements of the result */
    int32_t ndim;   /* of the iteration (dimensions merged where every operand allows) */
    int32_t op;     /* CK_* operation */
    int32_t nin;    /* inputs: operands 1 .. nin */
    int32_t linear; /* every operand contiguous over the iteration: offsets are the index */
    int64_t sizes[CK_MAX_DIM];
    ck_operand o[CK_MAX_OPERANDS]; /* o[0]: the result */
    /* scalars: alpha (add, sub, addcmul ...) and a scalar second operand or fill value, as the
     * compute type reads them */
    double alpha, s1;
    int64_t ialpha, is1;
    double s2, s3;      /* the sequences' end and logspace's base */
    int32_t scalar_in2; /* in2 is the scalar s1 rather than an operand */
    int32_t round_to;   /* 0, or CK_FLOAT16 / CK_BFLOAT16: the operands' common dtype, which
                           every operand's value is first rounded to (as the CPU converts them) */
} ck_ew_args;

/* reductions (kernels/ck_reduce.cuh): out[t] for t < M * parts is part t % parts of output
 * t / parts, over reduced positions [part * chunk, (part + 1) * chunk) of R */
enum {
    CK_RSUM,
    CK_RPROD,
    CK_RMAX,
    CK_RMIN,
    CK_RANY,
    CK_RALL,
    CK_RARGMAX,
    CK_RARGMIN,
    CK_RNANSUM /* a sum without the NaN; its partials are summed as they are */
};             /* arg*: one part */

typedef struct ck_reduce_args {
    int64_t M, R, chunk, parts;
    int64_t count; /* scale_by_count: the final pass divides by it (mean) */
    int32_t op, kdim, rdim, scale_by_count;
    int64_t ksizes[CK_MAX_DIM], kstrides[CK_MAX_DIM]; /* the kept dimensions of `in` */
    int64_t rsizes[CK_MAX_DIM], rstrides[CK_MAX_DIM]; /* the reduced ones */
    ck_operand in, out; /* out: contiguous; the operands' strides are not read */
} ck_reduce_args;

/* softmax, log_softmax and the scans along one dimension (kernels/ck_softmax.cuh): running sums,
 * products, log-sum-exps, and running extremes with their positions */
enum { CK_SOFTMAX, CK_LOG_SOFTMAX, CK_CUMSUM, CK_CUMPROD, CK_CUMMAX, CK_CUMMIN, CK_LOGCUMSUMEXP };
typedef struct ck_softmax_args {
    int64_t rows, len;          /* positions of the other dimensions; the dimension's size */
    int64_t in_step, out_step;  /* the dimension's strides */
    int32_t kdim, mode;         /* CK_SOFTMAX ... CK_LOGCUMSUMEXP */
    int64_t ksizes[CK_MAX_DIM]; /* the other dimensions (their strides: in.strides, out.strides) */
    ck_operand in, out;
    ck_operand idx;   /* cummax, cummin: the int64 positions, laid out as out */
    int64_t idx_step; /* idx's stride along the dimension */
} ck_softmax_args;

/* gather and scatter along one dimension (kernels/ck_index.cuh): one thread per element of
 * `index` (whose sizes these are) */
enum { CK_GATHER, CK_SCATTER, CK_SCATTER_ADD, CK_SCATTER_VALUE, CK_INDEX_CHECK };

typedef struct ck_index_args {
    int64_t n;
    int32_t ndim, dim, op, reserved;
    int64_t sizes[CK_MAX_DIM];
    int64_t dim_size;              /* self's size along dim: every index is below it */
    ck_operand self, index, other; /* gather: other is the result; scatter: the source */
    double value;                  /* scatter's scalar source */
    int64_t ivalue;
    uint64_t status; /* device address of two int64: set to 1 and the first bad index */
} ck_index_args;

/* scatter_reduce (kernels/ck_scatter_reduce.cuh): a thread per element of out, gathering the
 * contributions whose index names it, in the index's order */
enum { CK_SR_SUM, CK_SR_PROD, CK_SR_MEAN, CK_SR_AMAX, CK_SR_AMIN };
typedef struct ck_scatter_reduce_args {
    int64_t n; /* out's elements */
    int32_t ndim, dim, op, include_self;
    int64_t sizes[CK_MAX_DIM];  /* out's (contiguous, holding self's values) */
    int64_t isizes[CK_MAX_DIM]; /* index's: src is read at the same positions */
    ck_operand out, index, src;
} ck_scatter_reduce_args;

/* convolution columns and 2-D pooling (kernels/ck_conv.cuh): the geometry of nn_shapes.h for one
 * group of a chunk of samples; `big` points at the group's first channel of the first sample */
enum {
    CK_IM2COL,
    CK_COL2IM,
    CK_MAXPOOL,
    CK_MAXPOOL_BACKWARD,
    CK_AVGPOOL, /* count_include_pad and divisor as avg_pool2d takes them */
    CK_AVGPOOL_BACKWARD,
    CK_ADAPTIVE_AVGPOOL, /* windows [floor(i n / o), ceil((i + 1) n / o)) */
    CK_ADAPTIVE_AVGPOOL_BACKWARD,
    CK_TRIL, /* H x W matrices (big in, small out, contiguous), kh the diagonal */
    CK_TRIU,
};

typedef struct ck_conv_args {
    int64_t n; /* work items of the launch */
    int32_t op, reserved;
    int64_t C;             /* channels (of the group, for the columns) */
    int64_t sample_stride; /* elements between samples of big */
    int64_t H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw;
    ck_operand big, small; /* columns [samples][C * kh * kw][Ho * Wo]; pooling's output */
    ck_operand indices;    /* pooling: the maxima's positions in their H x W planes */
    int64_t count_include_pad, divisor; /* avg_pool2d's (divisor 0: the window's count) */
} ck_conv_args;

/* random sampling (kernels/ck_random.cuh): Philox4x32-10 keyed by the generator's seed; element
 * i of a draw takes the first two words of counter offset + i, so a draw's values do not depend
 * on the launch (the generator's offset advances by the elements drawn). A sampler that needs more
 * draws per element (rejection, poisson's products) takes them from the same counter's later
 * sub-streams (the block's third word) */
enum {
    CK_UNIFORM,
    CK_NORMAL,
    CK_BERNOULLI,
    CK_BERNOULLI_TENSOR,
    CK_EXPONENTIAL, /* lambda in a */
    CK_CAUCHY,      /* median a, sigma b */
    CK_LOG_NORMAL,  /* exp of a normal of mean a, std b */
    CK_GEOMETRIC,   /* b: log(1 - p) */
    CK_RANDOM_INT, /* random_: (bits % range) + from, of 64 bits when wide; every value when range 0
                    */
    CK_POISSON,    /* rate p */
    CK_BINOMIAL    /* count `count`, probability p */
};

typedef struct ck_random_args {
    int64_t n;
    int32_t op, wide; /* random_: 64-bit draws */
    uint64_t seed, offset;
    double a, b; /* uniform: from, to - from; normal: mean, std; bernoulli: p */
    int64_t from;
    uint64_t range;           /* random_'s */
    ck_operand out, p, count; /* contiguous; p: bernoulli's probabilities, poisson's rates,
                                 binomial's probabilities, one per element; count: binomial's */
    uint64_t status;          /* poisson: an int64 set to 1 where a rate is not >= 0 */
} ck_random_args;

/* multinomial (kernels/ck_random.cuh): a thread per row checks it and writes its normalised
 * running sums (CK_MULTI_ROWS), then a thread per sample searches them (CK_MULTI_DRAW) */
enum { CK_MULTI_ROWS, CK_MULTI_DRAW };
enum { CK_MULTI_OK, CK_MULTI_NEGATIVE, CK_MULTI_INFINITE, CK_MULTI_ZERO_SUM };
typedef struct ck_multinomial_args {
    int64_t rows, ncat, k; /* rows of ncat categories; k samples of each */
    int32_t op, as_float;  /* the sums in float (all but float64 probabilities, as the CPU) */
    uint64_t seed, offset;
    ck_operand probs, cum, out; /* contiguous: [rows][ncat], double [rows][ncat], int64 [rows][k] */
    uint64_t status;            /* int64 per row: CK_MULTI_OK or why not */
} ck_multinomial_args;

/* sort along one dimension (kernels/ck_sort.cuh), stable, NaN counted greater than every number:
 * each row's keys (in the compute type) and positions are loaded into scratch buffers, sorted
 * runs are merged pairwise, twice as wide each launch, then the wanted part of each row is
 * stored. One thread per element (per element stored) in every pass. */
enum { CK_SORT_LOAD, CK_SORT_MERGE, CK_SORT_STORE };

typedef struct ck_sort_args {
    int64_t n;          /* the launch's threads: rows * len, or rows * keep for the store */
    int64_t rows, len;  /* positions of the other dimensions; the sorted dimension's size */
    int64_t width;      /* merge: the sorted runs' length, merged in pairs */
    int64_t keep, skip; /* store: positions [skip, skip + keep) of each sorted row */
    int32_t op, kdim, descending;
    int32_t src; /* the scratch half (0, 1) the load writes and a merge or the store reads */
    int64_t ksizes[CK_MAX_DIM]; /* the other dimensions; their strides in in, values, indices */
    int64_t in_step, values_step, indices_step; /* the strides along the sorted dimension */
    ck_operand in, values, indices;
    uint64_t keys, pos; /* scratch: two halves of rows * len keys and int64 positions each */
} ck_sort_args;

/* unique (kernels/ck_unique.cuh) over nrows rows of w elements. With a dim, the rows of a
 * contiguous (nrows, w) matrix are put in lexicographic order (NaN after every number, as sort) by
 * a merge sort of their positions, as ck_sort's (pos ping-ponging between two halves); without
 * one, ck_sort has sorted the elements (rows of w = 1). A row equal to the one before it (by ==,
 * so never a row with a NaN) joins its group: a count pass over parts of CK_UNIQUE_CHUNK sorted
 * rows counts the groups starting in each, the host turns the counts into offsets (and learns how
 * many groups), a fill pass writes each group's row, every row's group (the inverse) and each
 * group's first sorted row, and a pass per group takes the counts from those. */
enum { CK_UNIQUE_CHUNK = 512 };
enum {
    CK_UNIQUE_ROWS_LOAD,  /* pos[k] = k */
    CK_UNIQUE_ROWS_MERGE, /* merges of sorted runs of `width` row positions */
    CK_UNIQUE_COUNT,
    CK_UNIQUE_FILL,
    CK_UNIQUE_COUNTS,
};

typedef struct ck_unique_args {
    int64_t n;        /* the launch's threads: rows, parts or groups */
    int64_t nrows, w; /* rows and their elements */
    int64_t width;    /* merge: the sorted runs' length */
    int64_t parts;    /* of CK_UNIQUE_CHUNK sorted rows */
    int64_t groups;   /* the distinct rows (the counts pass) */
    int32_t op, src;  /* src: the half of pos that a merge reads */
    int32_t indirect; /* in's rows are read through perm (with a dim), else in is sorted */
    int32_t reserved;
    ck_operand in;    /* the rows, contiguous */
    ck_operand out;   /* the distinct rows, contiguous, of in's dtype */
    uint64_t pos;     /* merge scratch: 2 * nrows int64 */
    uint64_t perm;    /* int64 per sorted row: its original row */
    uint64_t offsets; /* int64 per part: the count pass's counts, the fill pass's offsets */
    uint64_t inverse; /* int64 per original row: its group */
    uint64_t starts;  /* int64 per group: its first sorted row */
    uint64_t counts;  /* int64 per group */
} ck_unique_args;

/* nonzero, masked_select and masked_scatter_ (kernels/ck_select.cuh): the elements of the
 * (broadcast) shape, in C order, are cut into parts of `chunk`; a thread per part counts the true
 * elements of its part, the host turns the counts into offsets (and learns the result's size),
 * then a thread per part writes its elements from its offset, so the order is C order whatever
 * the grid */
enum { CK_SELECT_CHUNK = 512 };
enum { CK_SELECT_COUNT, CK_SELECT_NONZERO, CK_SELECT_MASKED, CK_SELECT_SCATTER };

typedef struct ck_select_args {
    int64_t n, parts; /* elements; parts of CK_SELECT_CHUNK (the threads of a launch) */
    int32_t op, ndim;
    int64_t sizes[CK_MAX_DIM];
    ck_operand mask; /* the element tested (nonzero's self), through strides over sizes */
    ck_operand self; /* masked_select: the values, through strides over sizes */
    ck_operand
        out; /* contiguous; nonzero's is column-major (total rows); masked_scatter_'s source */
    int64_t total;   /* nonzero: the result's rows, the stride of its columns */
    uint64_t counts; /* parts int64: the count pass writes counts, the fill pass reads offsets */
} ck_select_args;

/* advanced indexing (kernels/ck_select.cuh), on self seen with its indexed dims first: for each
 * position b of the index tensors' broadcast shape, one offset into self, summed over the index
 * tensors (one offsets launch each; an index out of range is recorded, not used), then a thread
 * per element of the result (b, then self's other dims) copies, writes or adds it */
#define CK_ZERO_SENTINEL (INT64_MIN + 1) /* a user's 0 (MT_ZERO_SENTINEL): out of range */
enum { CK_ADV_OFFSETS, CK_ADV_GATHER, CK_ADV_PUT, CK_ADV_ACCUMULATE };

typedef struct ck_adv_args {
    int64_t n;
    int32_t op, nb, nrest, first; /* first: the offsets launch of the first index tensor */
    int64_t sizes[CK_MAX_DIM];    /* the broadcast shape (nb), then self's other dims (nrest) */
    int64_t dim_size, dim_stride; /* offsets: self's size and stride along the indexed dim */
    ck_operand index;             /* offsets: strides over the broadcast shape (0: broadcast) */
    ck_operand self;              /* strides of self's other dims */
    ck_operand other;             /* the result (gather) or the values: strides over sizes */
    uint64_t offs;                /* int64 per position of the broadcast shape */
    uint64_t status;              /* two int64: set to 1 and the first bad index */
} ck_adv_args;

#endif
