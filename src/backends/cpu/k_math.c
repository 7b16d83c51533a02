/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_math.c -- the one-input element-wise kernels: ceil, floor, cos,
** sin, tan, erf, reciprocal, roundEven, sign, identity, isNaN, isInfinite,
** logicalNot and the activations elu, gelu, hardSigmoid, hardSwish,
** leakyRelu, linear, softplus and softsign.
**
** Each float operator is one scalar function in double: float32 elements
** are widened, computed and rounded once to float32; float16 elements are
** widened to float32, computed the same way and rounded once more, to
** binary16 (the double result rounds to float32 first, which is what a
** float32 computation would hold); gelu, erf and elu instead run on vec.h's
** SIMD path, in float32 within a few ulp, and sin, cos, tan, reciprocal and
** softplus on vec_libm.h's rows where they are there. sign works on every
** signed type exactly; identity copies bits; isNaN, isInfinite and
** logicalNot write uint8.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/half_simd.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/loops.h"
#include "platform/pool.h"
#include "backends/cpu/vec.h"
#include "backends/cpu/vec_libm.h"
#include "core/half.h"

/* Transcendental work is heavier per element than the element-wise
** arithmetic of k_elementwise.c, so the pool is worth waking earlier. */
#define PARALLEL_MIN ((size_t)1 << 14)
#define PARALLEL_GRAIN ((size_t)1 << 12)

#define TYPE_SLOTS (WNN_DATA_TYPE_UINT4 + 1)

/* The parameters a map receives: the node's alpha and beta. */
typedef struct act_params {
    double alpha, beta;
} act_params;

typedef void (*map_fn)(const void *in, void *out, size_t n, const act_params *p);

/* ------------------------------------------------------------------------ */
/* Scalar operators in double                                               */
/* ------------------------------------------------------------------------ */

static inline double op_ceil(double x, const act_params *p) { (void)p; return ceil(x); }
static inline double op_floor(double x, const act_params *p) { (void)p; return floor(x); }
static inline double op_cos(double x, const act_params *p) { (void)p; return cos(x); }
static inline double op_sin(double x, const act_params *p) { (void)p; return sin(x); }
static inline double op_tan(double x, const act_params *p) { (void)p; return tan(x); }
static inline double op_reciprocal(double x, const act_params *p) { (void)p; return 1.0 / x; }
/* nearbyint rounds in the current mode, which is to nearest with ties to
** even unless a caller changed it; rint would raise inexact, no matter. */
static inline double op_round_even(double x, const act_params *p) { (void)p; return nearbyint(x); }
/* +-0 and NaN come back as they are. */
static inline double op_sign(double x, const act_params *p) { (void)p; return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }

/* The comparisons are written so that NaN falls through unchanged. */
static inline double op_hard_sigmoid(double x, const act_params *p)
{
    double v = p->alpha * x + p->beta;
    return v < 0 ? 0.0 : v > 1 ? 1.0 : v;
}
static inline double op_hard_swish(double x, const act_params *p)
{
    (void)p;
    double t = x + 3.0;
    t = t < 0 ? 0.0 : t > 6 ? 6.0 : t;
    return x * t / 6.0;
}
static inline double op_leaky_relu(double x, const act_params *p) { return x >= 0 ? x : p->alpha * x; }
static inline double op_linear(double x, const act_params *p) { return p->alpha * x + p->beta; }
/* ln(1 + e^x) = max(x, 0) + ln(1 + e^-|x|): no overflow for large x. */
static inline double op_softplus(double x, const act_params *p)
{
    (void)p;
    if (x != x)
        return x;
    return (x > 0 ? x : 0.0) + log1p(exp(-fabs(x)));
}
static inline double op_softsign(double x, const act_params *p) { (void)p; return x / (1.0 + fabs(x)); }

#define FLOAT_OPS(X)                                                           \
    X(ceil) X(floor) X(cos) X(sin) X(tan) X(reciprocal) X(round_even) X(sign) \
    X(hard_sigmoid) X(hard_swish) X(leaky_relu) X(linear) X(softplus) X(softsign)

#define DEFINE_FLOAT_MAPS(OP)                                                  \
    static void map_##OP##_f32(const void *vi, void *vo, size_t n, const act_params *p) \
    {                                                                          \
        const float *x = vi;                                                   \
        float *o = vo;                                                         \
        for (size_t i = 0; i < n; i++)                                         \
            o[i] = (float)op_##OP(x[i], p);                                    \
    }                                                                          \
    static void map_##OP##_f16(const void *vi, void *vo, size_t n, const act_params *p) \
    {                                                                          \
        const uint16_t *x = vi;                                                \
        uint16_t *o = vo;                                                      \
        for (size_t i = 0; i < n; i++)                                         \
            o[i] = wnn__float_to_half((float)op_##OP(wnn__half_to_float(x[i]), p)); \
    }
FLOAT_OPS(DEFINE_FLOAT_MAPS)

/* ------------------------------------------------------------------------ */
/* Integer sign, the uint8 predicates                                        */
/* ------------------------------------------------------------------------ */

#define DEFINE_SIGN_INT(S, T)                                                  \
    static void map_sign_##S(const void *vi, void *vo, size_t n, const act_params *p) \
    {                                                                          \
        const T *x = vi;                                                       \
        T *o = vo;                                                             \
        (void)p;                                                               \
        for (size_t i = 0; i < n; i++)                                         \
            o[i] = (T)((x[i] > 0) - (x[i] < 0));                               \
    }
DEFINE_SIGN_INT(i32, int32_t)
DEFINE_SIGN_INT(i64, int64_t)
DEFINE_SIGN_INT(i8, int8_t)

static void map_is_nan_f32(const void *vi, void *vo, size_t n, const act_params *p)
{
    const float *x = vi;
    uint8_t *o = vo;
    (void)p;
    for (size_t i = 0; i < n; i++)
        o[i] = x[i] != x[i];
}

static void map_is_infinite_f32(const void *vi, void *vo, size_t n, const act_params *p)
{
    const float *x = vi;
    uint8_t *o = vo;
    (void)p;
    for (size_t i = 0; i < n; i++)
        o[i] = isinf(x[i]) != 0;
}

/* binary16: exponent all ones; NaN when the mantissa is non-zero. */
static void map_is_nan_f16(const void *vi, void *vo, size_t n, const act_params *p)
{
    const uint16_t *x = vi;
    uint8_t *o = vo;
    (void)p;
    for (size_t i = 0; i < n; i++)
        o[i] = (x[i] & 0x7fffu) > 0x7c00u;
}

static void map_is_infinite_f16(const void *vi, void *vo, size_t n, const act_params *p)
{
    const uint16_t *x = vi;
    uint8_t *o = vo;
    (void)p;
    for (size_t i = 0; i < n; i++)
        o[i] = (x[i] & 0x7fffu) == 0x7c00u;
}

/* Integers are never NaN nor infinite. */
static void map_zero_u8(const void *vi, void *vo, size_t n, const act_params *p)
{
    (void)vi;
    (void)p;
    memset(vo, 0, n);
}

static void map_logical_not_u8(const void *vi, void *vo, size_t n, const act_params *p)
{
    const uint8_t *x = vi;
    uint8_t *o = vo;
    (void)p;
    for (size_t i = 0; i < n; i++)
        o[i] = x[i] == 0;
}

/* A float16 map through a float32 one, a block at a time: widened (F16C
** where the processor has it), mapped in place, rounded once. */
static void through_float32(map_fn f32, const void *vi, void *vo, size_t n, const act_params *p)
{
    float block[512];
    for (size_t i = 0; i < n; i += 512) {
        size_t m = n - i < 512 ? n - i : 512;
        wnn__half_to_float_n(block, (const uint16_t *)vi + i, m);
        f32(block, block, m, p);
        wnn__float_to_half_n((uint16_t *)vo + i, block, m);
    }
}

/* erf on vec.h's SIMD rows, float32 and float16. */
static void map_erf_vec_f32(const void *vi, void *vo, size_t n, const act_params *p)
{
    (void)p;
    wnn__vec_erf(vo, vi, n);
}

static void map_erf_vec_f16(const void *vi, void *vo, size_t n, const act_params *p)
{
    (void)p;
    wnn__vec_erf_half(vo, vi, n);
}

/* Where a vector row is there (AVAILABLE), float32 runs CALL (o, x, n and
** p in scope) and float16 goes through it; else the scalar maps above. */
#define DEFINE_ROW_MAPS(OP, AVAILABLE, CALL)                                   \
    static void map_##OP##_row_f32(const void *vi, void *vo, size_t n, const act_params *p) \
    {                                                                          \
        const float *x = vi;                                                   \
        float *o = vo;                                                         \
        if (AVAILABLE)                                                         \
            CALL;                                                              \
        else                                                                   \
            map_##OP##_f32(vi, vo, n, p);                                      \
    }                                                                          \
    static void map_##OP##_row_f16(const void *vi, void *vo, size_t n, const act_params *p) \
    {                                                                          \
        if (AVAILABLE)                                                         \
            through_float32(map_##OP##_row_f32, vi, vo, n, p);                 \
        else                                                                   \
            map_##OP##_f16(vi, vo, n, p);                                      \
    }

/* softplus as max(x, 0) + log1p(exp(-|x|)) on float32 rows (exp from vec.h,
** log1p from vec_libm.h), a block at a time. */
CLONES static void softplus_rows(float *o, const float *x, size_t n)
{
    float t[512];
    for (size_t i = 0; i < n; i += 512) {
        size_t m = n - i < 512 ? n - i : 512;
        const float *xi = x + i;
        float *oi = o + i;
        FOR_BLOCKED(k, m, t[k] = -fabsf(xi[k]));
        wnn__vec_exp(t, t, m);
        wnn__libm_row(WNN__LIBM_LOG1P, t, t, m);
        /* NaN: max(NaN, 0) + log1p(exp(NaN)) is NaN either way */
        FOR_BLOCKED(k, m, oi[k] = (xi[k] > 0 ? xi[k] : 0.0f) + t[k]);
    }
}

/* sin, cos, tan and reciprocal on vec_libm.h's rows (1 ulp, where SLEEF and
** AVX2 are there), softplus through its log1p. */
#define LIBM_THERE(FN) wnn__libm_row(FN, NULL, NULL, 0)
DEFINE_ROW_MAPS(sin, LIBM_THERE(WNN__LIBM_SIN), wnn__libm_row(WNN__LIBM_SIN, o, x, n))
DEFINE_ROW_MAPS(cos, LIBM_THERE(WNN__LIBM_COS), wnn__libm_row(WNN__LIBM_COS, o, x, n))
DEFINE_ROW_MAPS(tan, LIBM_THERE(WNN__LIBM_TAN), wnn__libm_row(WNN__LIBM_TAN, o, x, n))
DEFINE_ROW_MAPS(reciprocal, LIBM_THERE(WNN__LIBM_RECIPROCAL), wnn__libm_row(WNN__LIBM_RECIPROCAL, o, x, n))
DEFINE_ROW_MAPS(softplus, LIBM_THERE(WNN__LIBM_LOG1P), softplus_rows(o, x, n))

/* elu on vec.h's rows, float32 and float16 (there on every processor). */
static void map_elu_row_f32(const void *vi, void *vo, size_t n, const act_params *p)
{
    wnn__vec_elu(vo, vi, n, (float)p->alpha);
}

static void map_elu_row_f16(const void *vi, void *vo, size_t n, const act_params *p)
{
    wnn__vec_elu_half(vo, vi, n, (float)p->alpha);
}

static void map_gelu_vec_f32(const void *vi, void *vo, size_t n, const act_params *p)
{
    (void)p;
    wnn__vec_gelu(vo, vi, n);
}

/* float16 gelu straight from and to float16 (vec.h), shorter than the
** float32 row a float16 result does not need. */
static void map_gelu_half(const void *vi, void *vo, size_t n, const act_params *p)
{
    (void)p;
    wnn__vec_gelu_half(vo, vi, n);
}

/* ------------------------------------------------------------------------ */
/* Tables and the driver                                                     */
/* ------------------------------------------------------------------------ */

#define FLOAT_ENTRY(OP) [WNN_DATA_TYPE_FLOAT32] = map_##OP##_f32, [WNN_DATA_TYPE_FLOAT16] = map_##OP##_f16
#define ROW_ENTRY(OP) [WNN_DATA_TYPE_FLOAT32] = map_##OP##_row_f32, [WNN_DATA_TYPE_FLOAT16] = map_##OP##_row_f16
#define ZERO_INTS                                                              \
    [WNN_DATA_TYPE_INT32] = map_zero_u8, [WNN_DATA_TYPE_UINT32] = map_zero_u8, \
    [WNN_DATA_TYPE_INT64] = map_zero_u8, [WNN_DATA_TYPE_UINT64] = map_zero_u8, \
    [WNN_DATA_TYPE_INT8] = map_zero_u8, [WNN_DATA_TYPE_UINT8] = map_zero_u8

static const map_fn maps[WNN__OP_COUNT][TYPE_SLOTS] = {
    [WNN__OP_CEIL] = {FLOAT_ENTRY(ceil)},
    [WNN__OP_FLOOR] = {FLOAT_ENTRY(floor)},
    [WNN__OP_COS] = {ROW_ENTRY(cos)},
    [WNN__OP_SIN] = {ROW_ENTRY(sin)},
    [WNN__OP_TAN] = {ROW_ENTRY(tan)},
    [WNN__OP_ERF] = {[WNN_DATA_TYPE_FLOAT32] = map_erf_vec_f32, [WNN_DATA_TYPE_FLOAT16] = map_erf_vec_f16},
    [WNN__OP_RECIPROCAL] = {ROW_ENTRY(reciprocal)},
    [WNN__OP_ROUND_EVEN] = {FLOAT_ENTRY(round_even)},
    [WNN__OP_SIGN] = {FLOAT_ENTRY(sign), [WNN_DATA_TYPE_INT32] = map_sign_i32,
                      [WNN_DATA_TYPE_INT64] = map_sign_i64, [WNN_DATA_TYPE_INT8] = map_sign_i8},
    [WNN__OP_IS_NAN] = {[WNN_DATA_TYPE_FLOAT32] = map_is_nan_f32, [WNN_DATA_TYPE_FLOAT16] = map_is_nan_f16,
                        ZERO_INTS},
    [WNN__OP_IS_INFINITE] = {[WNN_DATA_TYPE_FLOAT32] = map_is_infinite_f32,
                             [WNN_DATA_TYPE_FLOAT16] = map_is_infinite_f16, ZERO_INTS},
    [WNN__OP_LOGICAL_NOT] = {[WNN_DATA_TYPE_UINT8] = map_logical_not_u8},
    [WNN__OP_ELU] = {ROW_ENTRY(elu)},
    [WNN__OP_GELU] = {[WNN_DATA_TYPE_FLOAT32] = map_gelu_vec_f32, [WNN_DATA_TYPE_FLOAT16] = map_gelu_half},
    [WNN__OP_HARD_SIGMOID] = {FLOAT_ENTRY(hard_sigmoid)},
    [WNN__OP_HARD_SWISH] = {FLOAT_ENTRY(hard_swish)},
    [WNN__OP_LEAKY_RELU] = {FLOAT_ENTRY(leaky_relu)},
    [WNN__OP_LINEAR] = {FLOAT_ENTRY(linear)},
    [WNN__OP_SOFTPLUS] = {ROW_ENTRY(softplus)},
    [WNN__OP_SOFTSIGN] = {FLOAT_ENTRY(softsign)},
};

typedef struct map_job {
    map_fn fn;
    const char *in;
    char *out;
    size_t in_size, out_size;
    act_params params;
} map_job;

static void map_range(void *arg, size_t begin, size_t end)
{
    const map_job *j = arg;
    j->fn(j->in + begin * j->in_size, j->out + begin * j->out_size, end - begin, &j->params);
}

/* Every operator of this file: one input, one output of the same shape. */
wnn_status wnn__k_math(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    wnn_data_type t = in[0].desc.data_type;
    size_t n = wnn__view_count(&out[0]);
    if (node->op == WNN__OP_IDENTITY) { /* bit-exact, NaN payloads included */
        if (out[0].data != in[0].data)
            memcpy(out[0].data, in[0].data, (size_t)wnn_operand_desc_byte_length(&out[0].desc));
        return WNN_OK;
    }
    if ((unsigned)node->op >= WNN__OP_COUNT || (unsigned)t >= TYPE_SLOTS || !maps[node->op][t])
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    map_job job = {maps[node->op][t], in[0].data, out[0].data, wnn_data_type_size(t),
                   wnn_data_type_size(out[0].desc.data_type), {0.0, 0.0}};
    if (node->op == WNN__OP_ELU || node->op == WNN__OP_HARD_SIGMOID || node->op == WNN__OP_LEAKY_RELU ||
        node->op == WNN__OP_LINEAR) {
        job.params.alpha = node->attrs.activation.alpha;
        job.params.beta = node->attrs.activation.beta;
    }
    if (n > PARALLEL_MIN)
        wnn__parallel_for(n, PARALLEL_GRAIN, map_range, &job);
    else
        map_range(&job, 0, n);
    return WNN_OK;
}
