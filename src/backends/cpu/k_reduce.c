/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_reduce.c -- the ten reductions (reduceL1 ... reduceSumSquare).
**
** The input's dimensions are split into kept and reduced ones; size-1
** dimensions are dropped and neighbours of the same kind merged, so that the
** work is one of two shapes:
**   - the innermost dimension is reduced: each output reduces contiguous
**     segments ("lanes"); when there are few outputs and many elements, a
**     lane is cut into fixed-size chunks whose partial results combine
**     afterwards (chunk sizes depend only on the shapes, so results do not
**     depend on the number of threads);
**   - the innermost dimension is kept: a tile of adjacent outputs advances
**     together over the reduced elements, reading contiguous rows.
** Float types accumulate in double and round once at the end (float16 via
** float32). Where the processor has AVX2, float32 and float16 lanes and
** tiles fold through vec_reduce.h (the same double sums in another order,
** exp in float for logSumExp); products, integers and processors without it
** run the portable loops below, which stay the reference. Integer sums, L1, sums of squares and products wrap: they are
** done modulo 2^64 in uint64_t, which is exact modulo 2^width for every
** integer type, int64 and uint64 included. Max and min compare each type in
** its own domain and propagate NaN. reduceLogSumExp subtracts the maximum
** first (two passes) so that exp cannot overflow.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/kernels.h"
#include "backends/cpu/vec_reduce.h"
#include "platform/pool.h"
#include "core/half.h"

#define TYPE_SLOTS (WNN_DATA_TYPE_UINT4 + 1)
#define TILE 64                       /* adjacent outputs per tile (256-byte rows of float32) */
#define CHUNK ((size_t)1 << 16)       /* elements per chunk of a long lane */
#define FEW_OUTPUTS 64                /* below this many outputs, long lanes are cut */

/* ------------------------------------------------------------------------ */
/* Accumulators                                                              */
/* ------------------------------------------------------------------------ */

typedef enum kind {
    K_SUM,      /* sum, mean, logSum */
    K_L1,       /* sum of |x| */
    K_SUMSQ,    /* sum of x^2: sumSquare, L2 */
    K_PROD,
    K_MAX,
    K_MIN,
    K_LSE_MAX,  /* logSumExp, first pass: the maximum into m */
    K_LSE_SUM   /* logSumExp, second pass: the sum of exp(x - m) */
} kind;

typedef struct acc {
    double d, m;   /* float types; m: logSumExp's maximum */
    int64_t i;     /* signed integer max/min */
    uint64_t u;    /* integer sums and products (wrapping), unsigned max/min */
} acc;

static void acc_init(kind k, acc *a)
{
    switch (k) {
    case K_PROD: *a = (acc){1.0, 0.0, 0, 1}; break;
    case K_MAX: *a = (acc){-INFINITY, 0.0, INT64_MIN, 0}; break;
    case K_MIN: *a = (acc){INFINITY, 0.0, INT64_MAX, UINT64_MAX}; break;
    case K_LSE_MAX: a->m = -INFINITY; break;
    case K_LSE_SUM: a->d = 0.0; break; /* keeps m from the first pass */
    default: *a = (acc){0.0, 0.0, 0, 0}; break;
    }
}

/* Folds b into a (partials of one output, in order). */
static void acc_combine(kind k, acc *a, const acc *b)
{
    switch (k) {
    case K_PROD:
        a->d *= b->d;
        a->u *= b->u;
        break;
    case K_MAX:
        if (b->d > a->d || b->d != b->d)
            a->d = b->d;
        a->i = b->i > a->i ? b->i : a->i;
        a->u = b->u > a->u ? b->u : a->u;
        break;
    case K_MIN:
        if (b->d < a->d || b->d != b->d)
            a->d = b->d;
        a->i = b->i < a->i ? b->i : a->i;
        a->u = b->u < a->u ? b->u : a->u;
        break;
    case K_LSE_MAX:
        if (b->m > a->m || b->m != b->m)
            a->m = b->m;
        break;
    default:
        a->d += b->d;
        a->u += b->u;
        break;
    }
}

/* Per type: seg folds n contiguous elements into one accumulator; tile
** folds element j into accumulator j. */
typedef void (*seg_fn)(kind k, acc *a, const void *x, size_t n);
typedef void (*tile_fn)(kind k, acc *a, const void *x, size_t n);

#define LOAD_F32(v) ((double)(v))
#define LOAD_F16(v) ((double)wnn__half_to_float(v))

/* s += TERM for i in [0, n) (TERM reads the index named i) with four
** partial sums, so that the additions do not wait on one another. */
#define SUM4(s, i, TERM)                                                       \
    do {                                                                       \
        double p0_ = 0, p1_ = 0, p2_ = 0, p3_ = 0;                             \
        size_t b_ = 0;                                                         \
        for (; b_ + 4 <= n; b_ += 4) {                                         \
            { const size_t i = b_; p0_ += TERM; }                              \
            { const size_t i = b_ + 1; p1_ += TERM; }                          \
            { const size_t i = b_ + 2; p2_ += TERM; }                          \
            { const size_t i = b_ + 3; p3_ += TERM; }                          \
        }                                                                      \
        for (; b_ < n; b_++) {                                                 \
            const size_t i = b_;                                               \
            p0_ += TERM;                                                       \
        }                                                                      \
        s += (p0_ + p1_) + (p2_ + p3_);                                        \
    } while (0)

/* Float types. The NaN tests keep a NaN once it is met. */
#define DEFINE_FLOAT_ACC(S, T, LOAD)                                           \
    static void seg_##S(kind k, acc *a, const void *vx, size_t n)              \
    {                                                                          \
        const T *x = vx;                                                       \
        double s = k == K_LSE_MAX ? a->m : a->d;                               \
        switch (k) {                                                           \
        case K_SUM:                                                            \
            SUM4(s, i, LOAD(x[i]));                                            \
            break;                                                             \
        case K_L1:                                                             \
            SUM4(s, i, fabs(LOAD(x[i])));                                      \
            break;                                                             \
        case K_SUMSQ:                                                          \
            SUM4(s, i, LOAD(x[i]) * LOAD(x[i]));                               \
            break;                                                             \
        case K_PROD:                                                           \
            for (size_t i = 0; i < n; i++)                                     \
                s *= LOAD(x[i]);                                               \
            break;                                                             \
        case K_MAX:                                                            \
        case K_LSE_MAX:                                                        \
            for (size_t i = 0; i < n; i++) {                                   \
                const double v = LOAD(x[i]);                                   \
                if (v > s || v != v)                                           \
                    s = v;                                                     \
            }                                                                  \
            break;                                                             \
        case K_MIN:                                                            \
            for (size_t i = 0; i < n; i++) {                                   \
                const double v = LOAD(x[i]);                                   \
                if (v < s || v != v)                                           \
                    s = v;                                                     \
            }                                                                  \
            break;                                                             \
        case K_LSE_SUM:                                                        \
            for (size_t i = 0; i < n; i++)                                     \
                s += exp(LOAD(x[i]) - a->m);                                   \
            break;                                                             \
        }                                                                      \
        if (k == K_LSE_MAX)                                                    \
            a->m = s;                                                          \
        else                                                                   \
            a->d = s;                                                          \
    }                                                                          \
    static void tile_##S(kind k, acc *a, const void *vx, size_t n)             \
    {                                                                          \
        const T *x = vx;                                                       \
        switch (k) {                                                           \
        case K_SUM:                                                            \
            for (size_t j = 0; j < n; j++)                                     \
                a[j].d += LOAD(x[j]);                                          \
            break;                                                             \
        case K_L1:                                                             \
            for (size_t j = 0; j < n; j++)                                     \
                a[j].d += fabs(LOAD(x[j]));                                    \
            break;                                                             \
        case K_SUMSQ:                                                          \
            for (size_t j = 0; j < n; j++) {                                   \
                const double v = LOAD(x[j]);                                   \
                a[j].d += v * v;                                               \
            }                                                                  \
            break;                                                             \
        case K_PROD:                                                           \
            for (size_t j = 0; j < n; j++)                                     \
                a[j].d *= LOAD(x[j]);                                          \
            break;                                                             \
        case K_MAX:                                                            \
            for (size_t j = 0; j < n; j++) {                                   \
                const double v = LOAD(x[j]);                                   \
                if (v > a[j].d || v != v)                                      \
                    a[j].d = v;                                                \
            }                                                                  \
            break;                                                             \
        case K_MIN:                                                            \
            for (size_t j = 0; j < n; j++) {                                   \
                const double v = LOAD(x[j]);                                   \
                if (v < a[j].d || v != v)                                      \
                    a[j].d = v;                                                \
            }                                                                  \
            break;                                                             \
        case K_LSE_MAX:                                                        \
            for (size_t j = 0; j < n; j++) {                                   \
                const double v = LOAD(x[j]);                                   \
                if (v > a[j].m || v != v)                                      \
                    a[j].m = v;                                                \
            }                                                                  \
            break;                                                             \
        case K_LSE_SUM:                                                        \
            for (size_t j = 0; j < n; j++)                                     \
                a[j].d += exp(LOAD(x[j]) - a[j].m);                            \
            break;                                                             \
        }                                                                      \
    }
DEFINE_FLOAT_ACC(f32, float, LOAD_F32)
DEFINE_FLOAT_ACC(f16, uint16_t, LOAD_F16)

/* Integer types: W is int64_t or uint64_t (the value widened), MM the field
** max/min compare in (i or u). Sums convert through uint64_t, which wraps
** correctly for negative values too. */
#define DEFINE_INT_ACC(S, T, W, MM, MAGNITUDE)                                 \
    static inline uint64_t magnitude_##S(T v) { return MAGNITUDE(v); }         \
    static inline void fold_##S(kind k, acc *a, T v)                           \
    {                                                                          \
        const uint64_t u = (uint64_t)(W)v;                                     \
        switch (k) {                                                           \
        case K_SUM: a->u += u; break;                                          \
        case K_L1: a->u += magnitude_##S(v); break;                            \
        case K_SUMSQ: a->u += u * u; break;                                    \
        case K_PROD: a->u *= u; break;                                         \
        case K_MAX: if ((W)v > a->MM) a->MM = (W)v; break;                     \
        case K_MIN: if ((W)v < a->MM) a->MM = (W)v; break;                     \
        default: break;                                                        \
        }                                                                      \
    }                                                                          \
    static void seg_##S(kind k, acc *a, const void *vx, size_t n)              \
    {                                                                          \
        const T *x = vx;                                                       \
        acc r = *a;                                                            \
        for (size_t i = 0; i < n; i++)                                         \
            fold_##S(k, &r, x[i]);                                             \
        *a = r;                                                                \
    }                                                                          \
    static void tile_##S(kind k, acc *a, const void *vx, size_t n)             \
    {                                                                          \
        const T *x = vx;                                                       \
        for (size_t j = 0; j < n; j++)                                         \
            fold_##S(k, &a[j], x[j]);                                          \
    }
#define MAGNITUDE_SIGNED(v) ((v) < 0 ? 0u - (uint64_t)(int64_t)(v) : (uint64_t)(v))
#define MAGNITUDE_UNSIGNED(v) ((uint64_t)(v))
DEFINE_INT_ACC(i32, int32_t, int64_t, i, MAGNITUDE_SIGNED)
DEFINE_INT_ACC(u32, uint32_t, uint64_t, u, MAGNITUDE_UNSIGNED)
DEFINE_INT_ACC(i64, int64_t, int64_t, i, MAGNITUDE_SIGNED)
DEFINE_INT_ACC(u64, uint64_t, uint64_t, u, MAGNITUDE_UNSIGNED)
DEFINE_INT_ACC(i8, int8_t, int64_t, i, MAGNITUDE_SIGNED)
DEFINE_INT_ACC(u8, uint8_t, uint64_t, u, MAGNITUDE_UNSIGNED)

#define ACC_ENTRY(S, E) [E] = {seg_##S, tile_##S}
static const struct {
    seg_fn seg;
    tile_fn tile;
} acc_fns[TYPE_SLOTS] = {
    ACC_ENTRY(f32, WNN_DATA_TYPE_FLOAT32), ACC_ENTRY(f16, WNN_DATA_TYPE_FLOAT16),
    ACC_ENTRY(i32, WNN_DATA_TYPE_INT32),   ACC_ENTRY(u32, WNN_DATA_TYPE_UINT32),
    ACC_ENTRY(i64, WNN_DATA_TYPE_INT64),   ACC_ENTRY(u64, WNN_DATA_TYPE_UINT64),
    ACC_ENTRY(i8, WNN_DATA_TYPE_INT8),     ACC_ENTRY(u8, WNN_DATA_TYPE_UINT8),
};

/* The result of op from a finished accumulator, stored as element index of
** out (of type t); count is the number of elements reduced. */
static void store_result(wnn__op op, wnn_data_type t, const acc *a, size_t count, void *out, size_t index)
{
    if (t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16) {
        double r = a->d;
        switch (op) {
        case WNN__OP_REDUCE_L2: r = sqrt(r); break;
        case WNN__OP_REDUCE_MEAN: r = r / (double)count; break;
        case WNN__OP_REDUCE_LOG_SUM: r = log(r); break;
        case WNN__OP_REDUCE_LOG_SUM_EXP: r = isinf(a->m) || a->m != a->m ? a->m : a->m + log(r); break;
        default: break;
        }
        if (t == WNN_DATA_TYPE_FLOAT32)
            ((float *)out)[index] = (float)r;
        else
            ((uint16_t *)out)[index] = wnn__float_to_half((float)r);
        return;
    }
    bool minmax = op == WNN__OP_REDUCE_MAX || op == WNN__OP_REDUCE_MIN;
    uint64_t v = minmax && (t == WNN_DATA_TYPE_INT32 || t == WNN_DATA_TYPE_INT64 || t == WNN_DATA_TYPE_INT8)
                     ? (uint64_t)a->i
                     : a->u;
    switch (t) { /* keep the low bits */
    case WNN_DATA_TYPE_INT32: ((int32_t *)out)[index] = (int32_t)(uint32_t)v; break;
    case WNN_DATA_TYPE_UINT32: ((uint32_t *)out)[index] = (uint32_t)v; break;
    case WNN_DATA_TYPE_INT64: ((int64_t *)out)[index] = (int64_t)v; break;
    case WNN_DATA_TYPE_UINT64: ((uint64_t *)out)[index] = v; break;
    case WNN_DATA_TYPE_INT8: ((int8_t *)out)[index] = (int8_t)(uint8_t)v; break;
    case WNN_DATA_TYPE_UINT8: ((uint8_t *)out)[index] = (uint8_t)v; break;
    default: break;
    }
}

/* ------------------------------------------------------------------------ */
/* Reduction plan and driver                                                 */
/* ------------------------------------------------------------------------ */

typedef struct rplan {
    uint32_t n_kept, n_red;
    size_t kept_shape[WNN_MAX_RANK], kept_stride[WNN_MAX_RANK];
    size_t red_shape[WNN_MAX_RANK], red_stride[WNN_MAX_RANK];
    size_t out_count, red_count;
    bool inner_kept; /* the innermost input dimension is kept (tile path) */
} rplan;

static void make_rplan(rplan *p, const wnn_operand_desc *in, uint32_t mask)
{
    size_t stride[WNN_MAX_RANK];
    wnn__shape_strides(in, stride);
    memset(p, 0, sizeof *p);
    int last = -1; /* 0 kept, 1 reduced: the kind of the latest dimension */
    for (uint32_t i = 0; i < in->rank; i++) {
        if (in->shape[i] == 1)
            continue;
        int red = (mask >> i) & 1u;
        size_t *shape = red ? p->red_shape : p->kept_shape, *st = red ? p->red_stride : p->kept_stride;
        uint32_t *n = red ? &p->n_red : &p->n_kept;
        if (last == red) { /* contiguous with the previous one of its kind */
            shape[*n - 1] *= in->shape[i];
            st[*n - 1] = stride[i];
        } else {
            shape[*n] = in->shape[i];
            st[*n] = stride[i];
            (*n)++;
        }
        last = red;
    }
    p->inner_kept = last == 0;
    if (p->n_red == 0) { /* nothing to reduce: lanes of one element */
        p->n_red = 1;
        p->red_shape[0] = 1;
        p->red_stride[0] = 1;
        p->inner_kept = false;
    }
    p->out_count = p->red_count = 1;
    for (uint32_t i = 0; i < p->n_kept; i++)
        p->out_count *= p->kept_shape[i];
    for (uint32_t i = 0; i < p->n_red; i++)
        p->red_count *= p->red_shape[i];
}

typedef struct rjob {
    rplan plan;
    wnn__op op;
    wnn_data_type type;
    const char *in;
    size_t esize;
    void *out;
    seg_fn seg;
    tile_fn tile;
    bool simd;         /* float32 or float16: vec_reduce.h may fold */
    size_t chunks;     /* lane path: chunks per output (1: whole lanes) */
    acc *partials;     /* lane path with chunks > 1: out_count * chunks */
    kind phase;        /* lane path with chunks > 1: the pass being run */
} rjob;

/* Input offset of the first element of output o over the first n_kept
** kept dimensions (o counts in their row-major order). */
static size_t kept_offset(const rplan *p, size_t o, uint32_t n_kept)
{
    if (n_kept == 1) /* o < kept_shape[0]: no division */
        return o * p->kept_stride[0];
    size_t off = 0;
    for (uint32_t d = n_kept; d-- > 0;) {
        off += (o % p->kept_shape[d]) * p->kept_stride[d];
        o /= p->kept_shape[d];
    }
    return off;
}

/* The SIMD fold of pass k, or -1 for products (portable only). */
static int simd_fold(kind k)
{
    switch (k) {
    case K_SUM: return WNN__FOLD_SUM;
    case K_L1: return WNN__FOLD_L1;
    case K_SUMSQ: return WNN__FOLD_SUMSQ;
    case K_MAX:
    case K_LSE_MAX: return WNN__FOLD_MAX;
    case K_MIN: return WNN__FOLD_MIN;
    case K_LSE_SUM: return WNN__FOLD_EXP_SUM;
    default: return -1;
    }
}

/* Folds n contiguous elements at x into a: SIMD where it can, else the
** type's portable loop. */
static void seg(const rjob *j, kind k, acc *a, const void *x, size_t n)
{
    int f = j->simd ? simd_fold(k) : -1;
    if (f >= 0 && wnn__fold_lane((wnn__fold)f, j->type == WNN_DATA_TYPE_FLOAT16, x, n, (float)a->m,
                                 k == K_LSE_MAX ? &a->m : &a->d))
        return;
    j->seg(k, a, x, n);
}

/* Folds the reduced elements [r0, r1) of the output at input offset base
** into a (lane path: the innermost reduced dimension is contiguous). */
static void lane(const rjob *j, kind k, acc *a, size_t base, size_t r0, size_t r1)
{
    const rplan *p = &j->plan;
    if (p->n_red == 1) { /* one contiguous run: no index walk, no division */
        seg(j, k, a, j->in + (base + r0) * j->esize, r1 - r0);
        return;
    }
    uint32_t last = p->n_red - 1;
    size_t inner = p->red_shape[last];
    size_t idx[WNN_MAX_RANK], off = 0, rest = r0 / inner, col = r0 % inner;
    for (uint32_t d = last; d-- > 0;) {
        idx[d] = rest % p->red_shape[d];
        rest /= p->red_shape[d];
        off += idx[d] * p->red_stride[d];
    }
    for (size_t pos = r0; pos < r1;) {
        size_t len = inner - col < r1 - pos ? inner - col : r1 - pos;
        seg(j, k, a, j->in + (base + off + col) * j->esize, len);
        pos += len;
        col = 0;
        for (uint32_t d = last; d-- > 0;) {
            off += p->red_stride[d];
            if (++idx[d] < p->red_shape[d])
                break;
            off -= p->red_shape[d] * p->red_stride[d];
            idx[d] = 0;
        }
    }
}

static void lanes_range_each(const rjob *j, size_t begin, size_t end);

/* Lane path, whole lanes that lie one after another (one reduced and one
** kept dimension): outputs [begin, end) in blocks, each block one SIMD call.
** False where vec_reduce.h cannot fold them. */
static bool lanes_block(const rjob *j, size_t begin, size_t end)
{
    const rplan *p = &j->plan;
    int f = simd_fold(j->phase);
    if (!j->simd || p->n_red != 1 || p->n_kept > 1 || f < 0 || j->op == WNN__OP_REDUCE_LOG_SUM_EXP)
        return false;
    size_t stride = p->n_kept ? p->kept_stride[0] : 0;
    for (size_t o = begin; o < end;) {
        size_t n = end - o < TILE ? end - o : TILE;
        acc a[TILE];
        double d[TILE];
        for (size_t i = 0; i < n; i++) {
            acc_init(j->phase, &a[i]);
            d[i] = a[i].d;
        }
        if (!wnn__fold_lanes((wnn__fold)f, j->type == WNN_DATA_TYPE_FLOAT16, j->in + o * stride * j->esize, n,
                             p->red_count, stride, d))
            return false; /* it says no for every block or none: only the first can */
        for (size_t i = 0; i < n; i++) {
            a[i].d = d[i];
            store_result(j->op, j->type, &a[i], p->red_count, j->out, o + i);
        }
        o += n;
    }
    return true;
}

/* Lane path, whole lanes: outputs [begin, end). */
static void lanes_range(void *arg, size_t begin, size_t end)
{
    const rjob *j = arg;
    if (!lanes_block(j, begin, end))
        lanes_range_each(j, begin, end);
}

/* Lane path, whole lanes, one output at a time. */
static void lanes_range_each(const rjob *j, size_t begin, size_t end)
{
    const rplan *p = &j->plan;
    for (size_t o = begin; o < end; o++) {
        size_t base = kept_offset(p, o, p->n_kept);
        acc a;
        if (j->op == WNN__OP_REDUCE_LOG_SUM_EXP) {
            acc_init(K_LSE_MAX, &a);
            lane(j, K_LSE_MAX, &a, base, 0, p->red_count);
            acc_init(K_LSE_SUM, &a);
            if (!isinf(a.m) && a.m == a.m)
                lane(j, K_LSE_SUM, &a, base, 0, p->red_count);
        } else {
            kind k = j->phase;
            acc_init(k, &a);
            lane(j, k, &a, base, 0, p->red_count);
        }
        store_result(j->op, j->type, &a, p->red_count, j->out, o);
    }
}

/* Lane path, cut lanes: tasks [begin, end), task = output * chunks + chunk,
** each one pass (j->phase) of one chunk into its partial. */
static void chunks_range(void *arg, size_t begin, size_t end)
{
    const rjob *j = arg;
    const rplan *p = &j->plan;
    for (size_t t = begin; t < end; t++) {
        size_t o = t / j->chunks, c = t % j->chunks;
        size_t r0 = c * CHUNK, r1 = r0 + CHUNK < p->red_count ? r0 + CHUNK : p->red_count;
        acc *a = &j->partials[t];
        if (j->phase == K_LSE_SUM && (isinf(a->m) || a->m != a->m)) {
            a->d = 0.0; /* the result is the maximum itself */
            continue;
        }
        acc_init(j->phase, a);
        lane(j, j->phase, a, kept_offset(p, o, p->n_kept), r0, r1);
    }
}

/* Tile path, portable: folds every reduced row of cols adjacent outputs
** from input offset base into a, one row at a time. */
static void tile_walk(const rjob *j, kind k, acc *a, size_t base, size_t cols)
{
    const rplan *p = &j->plan;
    size_t idx[WNN_MAX_RANK] = {0}, off = 0;
    for (size_t r = 0; r < p->red_count; r++) {
        j->tile(k, a, j->in + (base + off) * j->esize, cols);
        for (uint32_t d = p->n_red; d-- > 0;) {
            off += p->red_stride[d];
            if (++idx[d] < p->red_shape[d])
                break;
            off -= p->red_shape[d] * p->red_stride[d];
            idx[d] = 0;
        }
    }
}

/* Tile path, SIMD: the same for cols a multiple of 8, the innermost reduced
** dimension walked by vec_reduce.h as strided rows. False where it cannot. */
static bool tile_walk_simd(const rjob *j, kind k, acc *a, size_t base, size_t cols)
{
    const rplan *p = &j->plan;
    int f = j->simd ? simd_fold(k) : -1;
    if (f < 0 || cols == 0)
        return false;
    double v[TILE];
    float sub[TILE];
    for (size_t c = 0; c < cols; c++) {
        v[c] = k == K_LSE_MAX ? a[c].m : a[c].d;
        sub[c] = (float)a[c].m;
    }
    uint32_t last = p->n_red - 1;
    size_t rows = p->red_shape[last], stride = p->red_stride[last], strips = p->red_count / rows;
    size_t idx[WNN_MAX_RANK] = {0}, off = 0;
    bool half = j->type == WNN_DATA_TYPE_FLOAT16;
    for (size_t s = 0; s < strips; s++) {
        if (!wnn__fold_rows((wnn__fold)f, half, j->in + (base + off) * j->esize, rows, stride, cols, sub, v))
            return false; /* only on the first strip: nothing folded yet */
        for (uint32_t d = last; d-- > 0;) {
            off += p->red_stride[d];
            if (++idx[d] < p->red_shape[d])
                break;
            off -= p->red_shape[d] * p->red_stride[d];
            idx[d] = 0;
        }
    }
    for (size_t c = 0; c < cols; c++)
        *(k == K_LSE_MAX ? &a[c].m : &a[c].d) = v[c];
    return true;
}

/* Tile path: tasks [begin, end), each TILE adjacent outputs along the
** innermost (kept, contiguous) dimension, over every reduced element. */
static void tiles_range(void *arg, size_t begin, size_t end)
{
    const rjob *j = arg;
    const rplan *p = &j->plan;
    size_t len = p->kept_shape[p->n_kept - 1];
    size_t tiles = (len + TILE - 1) / TILE;
    acc a[TILE];
    for (size_t t = begin; t < end; t++) {
        size_t outer = t / tiles, c0 = (t % tiles) * TILE;
        size_t cols = len - c0 < TILE ? len - c0 : TILE;
        size_t base = kept_offset(p, outer, p->n_kept - 1) + c0;
        int passes = j->op == WNN__OP_REDUCE_LOG_SUM_EXP ? 2 : 1;
        for (int pass = 0; pass < passes; pass++) {
            kind k = passes == 2 ? (pass == 0 ? K_LSE_MAX : K_LSE_SUM) : j->phase;
            for (size_t c = 0; c < cols; c++)
                acc_init(k, &a[c]);
            size_t wide = cols / 8 * 8;
            if (!tile_walk_simd(j, k, a, base, wide))
                wide = 0;
            if (wide < cols)
                tile_walk(j, k, a + wide, base + wide, cols - wide);
        }
        for (size_t c = 0; c < cols; c++)
            store_result(j->op, j->type, &a[c], p->red_count, j->out, outer * len + c0 + c);
    }
}

static kind kind_of(wnn__op op)
{
    switch (op) {
    case WNN__OP_REDUCE_L1: return K_L1;
    case WNN__OP_REDUCE_L2:
    case WNN__OP_REDUCE_SUM_SQUARE: return K_SUMSQ;
    case WNN__OP_REDUCE_PRODUCT: return K_PROD;
    case WNN__OP_REDUCE_MAX: return K_MAX;
    case WNN__OP_REDUCE_MIN: return K_MIN;
    default: return K_SUM; /* sum, mean, logSum; logSumExp runs its own passes */
    }
}

wnn_status wnn__k_reduce(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    wnn_data_type t = in[0].desc.data_type;
    if ((unsigned)t >= TYPE_SLOTS || !acc_fns[t].seg)
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    rjob j = {.op = node->op, .type = t, .in = in[0].data, .esize = wnn_data_type_size(t), .out = out[0].data,
              .seg = acc_fns[t].seg, .tile = acc_fns[t].tile,
              .simd = t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16, .chunks = 1,
              .phase = kind_of(node->op)};
    make_rplan(&j.plan, &in[0].desc, node->attrs.reduction.axes_mask);
    const rplan *p = &j.plan;

    if (p->inner_kept) {
        size_t len = p->kept_shape[p->n_kept - 1];
        size_t tasks = p->out_count / len * ((len + TILE - 1) / TILE);
        wnn__cpu_run_tasks(tasks, p->red_count * TILE, tiles_range, &j);
        return WNN_OK;
    }
    if (p->out_count >= FEW_OUTPUTS || p->red_count <= CHUNK) {
        wnn__cpu_run_tasks(p->out_count, p->red_count, lanes_range, &j);
        return WNN_OK;
    }

    /* Few long lanes: chunks in parallel, then their partials in order. */
    j.chunks = (p->red_count + CHUNK - 1) / CHUNK;
    size_t tasks = p->out_count * j.chunks;
    j.partials = malloc(sizeof *j.partials * tasks);
    if (!j.partials)
        return WNN_STATUS_OUT_OF_MEMORY;
    int passes = node->op == WNN__OP_REDUCE_LOG_SUM_EXP ? 2 : 1;
    acc total;
    for (int pass = 0; pass < passes; pass++) {
        j.phase = passes == 2 ? (pass == 0 ? K_LSE_MAX : K_LSE_SUM) : j.phase;
        wnn__cpu_run_tasks(tasks, CHUNK, chunks_range, &j);
        if (pass == 0 && passes == 2) { /* every chunk of an output learns its maximum */
            for (size_t o = 0; o < p->out_count; o++) {
                acc_init(K_LSE_MAX, &total);
                for (size_t c = 0; c < j.chunks; c++)
                    acc_combine(K_LSE_MAX, &total, &j.partials[o * j.chunks + c]);
                for (size_t c = 0; c < j.chunks; c++)
                    j.partials[o * j.chunks + c].m = total.m;
            }
        }
    }
    for (size_t o = 0; o < p->out_count; o++) {
        acc_init(j.phase, &total);
        total.m = j.partials[o * j.chunks].m;
        for (size_t c = 0; c < j.chunks; c++)
            acc_combine(j.phase, &total, &j.partials[o * j.chunks + c]);
        store_result(j.op, t, &total, p->red_count, j.out, o);
    }
    free(j.partials);
    return WNN_OK;
}
