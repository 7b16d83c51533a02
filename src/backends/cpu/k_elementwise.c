/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_elementwise.c -- element-wise kernels of the cpu backend: the binary
** operators with broadcasting (add sub mul div max min pow), the unary
** operators (abs neg exp log sqrt relu sigmoid tanh), clamp and cast.
**
** Every operator is a scalar function per data type; macros stamp out one
** loop per (operator, type) and tables indexed by operator and data type pick
** the loop at run time, so the inner loops carry no type dispatch.
**
** float16 is stored as raw binary16 bits (uint16_t), computed in float32 and
** rounded once per element. Integer arithmetic wraps (done in unsigned types,
** where C defines overflow); division by zero gives 0 and the one overflowing
** quotient, MIN / -1, gives MIN, so no input can trap. exp and sigmoid run
** on vec.h's SIMD rows (about 1 and 2 ulp; WebNN allows 32 and 34).
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/half_simd.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/loops.h"
#include "backends/cpu/vec.h"
#include "backends/cpu/vec_libm.h"
#include "platform/pool.h"
#include "core/half.h"

/* Work below this many elements is not worth waking the pool for. */
#define PARALLEL_MIN ((size_t)1 << 16)
#define PARALLEL_GRAIN ((size_t)1 << 14)

#define TYPE_SLOTS (WNN_DATA_TYPE_UINT4 + 1)

/* ------------------------------------------------------------------------ */
/* Element types                                                             */
/* ------------------------------------------------------------------------ */

/* Every data type the element-wise kernels handle: X(suffix, C type, enum).
** The second list exists because a macro cannot expand itself when casts
** nest one list inside the other. */
#define ELEMENT_TYPES(X, ...)                                                  \
    X(f32, float, WNN_DATA_TYPE_FLOAT32, __VA_ARGS__)                          \
    X(f16, uint16_t, WNN_DATA_TYPE_FLOAT16, __VA_ARGS__)                       \
    X(i32, int32_t, WNN_DATA_TYPE_INT32, __VA_ARGS__)                          \
    X(u32, uint32_t, WNN_DATA_TYPE_UINT32, __VA_ARGS__)                        \
    X(i64, int64_t, WNN_DATA_TYPE_INT64, __VA_ARGS__)                          \
    X(u64, uint64_t, WNN_DATA_TYPE_UINT64, __VA_ARGS__)                        \
    X(i8, int8_t, WNN_DATA_TYPE_INT8, __VA_ARGS__)                             \
    X(u8, uint8_t, WNN_DATA_TYPE_UINT8, __VA_ARGS__)
#define ELEMENT_TYPES_INNER(X, ...)                                            \
    X(f32, float, WNN_DATA_TYPE_FLOAT32, __VA_ARGS__)                          \
    X(f16, uint16_t, WNN_DATA_TYPE_FLOAT16, __VA_ARGS__)                       \
    X(i32, int32_t, WNN_DATA_TYPE_INT32, __VA_ARGS__)                          \
    X(u32, uint32_t, WNN_DATA_TYPE_UINT32, __VA_ARGS__)                        \
    X(i64, int64_t, WNN_DATA_TYPE_INT64, __VA_ARGS__)                          \
    X(u64, uint64_t, WNN_DATA_TYPE_UINT64, __VA_ARGS__)                        \
    X(i8, int8_t, WNN_DATA_TYPE_INT8, __VA_ARGS__)                             \
    X(u8, uint8_t, WNN_DATA_TYPE_UINT8, __VA_ARGS__)

/* Integer types: X(suffix, C type, same-width unsigned type, min, max). The
** unsigned arithmetic of add/sub/mul is done in the same-width type; for the
** 8-bit types that promotes to int, where 255 * 255 still fits. */
#define SIGNED_TYPES(X)                                                        \
    X(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX)                            \
    X(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX)                            \
    X(i8, int8_t, uint8_t, INT8_MIN, INT8_MAX)
#define UNSIGNED_TYPES(X)                                                      \
    X(u32, uint32_t, uint32_t, 0, UINT32_MAX)                                  \
    X(u64, uint64_t, uint64_t, 0, UINT64_MAX)                                  \
    X(u8, uint8_t, uint8_t, 0, UINT8_MAX)

/* Conversions through double, used by cast and by clamp's bounds.
** to_double is exact for every type but the 64-bit integers. */
static inline double to_double_f32(float x) { return x; }
static inline float from_double_f32(double d) { return (float)d; }
static inline double to_double_f16(uint16_t x) { return wnn__half_to_float(x); }
static inline uint16_t from_double_f16(double d) { return wnn__float_to_half((float)d); }

/* wrap_: keep the low bits of v (two's complement), as C's conversion to an
** unsigned type does. from_double: truncate toward zero and saturate; NaN
** gives 0. (double)MAX rounds up to a power of two for the 32- and 64-bit
** types, so ">=" catches every value that would not fit. */
#define DEFINE_INT_CONVERSIONS(S, T, UW, MINV, MAXV)                           \
    static inline T wrap_##S(uint64_t v) { return (T)(UW)v; }                  \
    static inline double to_double_##S(T x) { return (double)x; }              \
    static inline T from_double_##S(double d)                                  \
    {                                                                          \
        if (d != d)                                                            \
            return 0;                                                          \
        if (d <= (double)(MINV))                                               \
            return MINV;                                                       \
        if (d >= (double)(MAXV))                                               \
            return MAXV;                                                       \
        return (T)d;                                                           \
    }
SIGNED_TYPES(DEFINE_INT_CONVERSIONS)
UNSIGNED_TYPES(DEFINE_INT_CONVERSIONS)

/* The same conversions from and to float, for cast, in forms GCC
** vectorizes: through double, float32 -> int32 ran at 7 GB/s against 13-23
** for the other casts on this project's 2-core machine. An integer of 32
** bits or fewer is exact in double, so (float)x rounds once as
** (float)(double)x does; 64-bit integers keep double (its rounding then
** float's is what JavaScript's Number(BigInt) gives). A float bound into
** [MIN, MAX] in float converts exactly; the values at or beyond MAX, which
** float cannot hold below it (2^31 - 1), and NaN are chosen after. The
** 32-bit unsigned and 64-bit types keep the double forms. */
static inline int32_t from_float_i32(float f)
{
    float c = f > -2147483648.0f ? f : -2147483648.0f; /* NaN: the bound, replaced below */
    c = c < 2147483520.0f ? c : 2147483520.0f;         /* the largest float below 2^31 */
    int32_t r = (int32_t)c;
    r = f >= 2147483648.0f ? INT32_MAX : r;
    return f != f ? 0 : r;
}
#define DEFINE_SMALL_FROM_FLOAT(S, T, MINV, MAXV)                              \
    static inline T from_float_##S(float f)                                    \
    {                                                                          \
        float c = f > (float)(MINV) ? f : (float)(MINV);                       \
        c = c < (float)(MAXV) ? c : (float)(MAXV);                             \
        return f != f ? 0 : (T)(int32_t)c;                                     \
    }
DEFINE_SMALL_FROM_FLOAT(i8, int8_t, INT8_MIN, INT8_MAX)
DEFINE_SMALL_FROM_FLOAT(u8, uint8_t, 0, UINT8_MAX)
static inline uint32_t from_float_u32(float f) { return from_double_u32(f); }
static inline int64_t from_float_i64(float f) { return from_double_i64(f); }
static inline uint64_t from_float_u64(float f) { return from_double_u64(f); }
static inline float from_float_f32(float f) { return f; }
static inline uint16_t from_float_f16(float f) { return wnn__float_to_half(f); }
static inline float to_float_f32(float x) { return x; }
static inline float to_float_f16(uint16_t x) { return wnn__half_to_float(x); }
static inline float to_float_i32(int32_t x) { return (float)x; }
static inline float to_float_u32(uint32_t x) { return (float)x; }
static inline float to_float_i8(int8_t x) { return (float)x; }
static inline float to_float_u8(uint8_t x) { return (float)x; }
static inline float to_float_i64(int64_t x) { return (float)(double)x; }
static inline float to_float_u64(uint64_t x) { return (float)(double)x; }

/* ------------------------------------------------------------------------ */
/* Scalar operators                                                          */
/* ------------------------------------------------------------------------ */

static inline float add_f32(float a, float b) { return a + b; }
static inline float sub_f32(float a, float b) { return a - b; }
static inline float mul_f32(float a, float b) { return a * b; }
static inline float div_f32(float a, float b) { return a / b; }
/* max and min propagate NaN from either side. */
static inline float max_f32(float a, float b) { return (a > b || a != a) ? a : b; }
static inline float min_f32(float a, float b) { return (a < b || a != a) ? a : b; }
static inline float pow_f32(float a, float b) { return powf(a, b); }

static inline float abs_f32(float x) { return fabsf(x); }
static inline float neg_f32(float x) { return -x; }
static inline float sqrt_f32(float x) { return sqrtf(x); }
static inline float relu_f32(float x) { return x < 0.0f ? 0.0f : x; }

/* float16 operators: widen, apply the float32 operator, round once. */
#define DEFINE_F16_BINARY(OP)                                                  \
    static inline uint16_t OP##_f16(uint16_t a, uint16_t b)                    \
    {                                                                          \
        return wnn__float_to_half(OP##_f32(wnn__half_to_float(a), wnn__half_to_float(b))); \
    }
#define DEFINE_F16_UNARY(OP)                                                   \
    static inline uint16_t OP##_f16(uint16_t x)                                \
    {                                                                          \
        return wnn__float_to_half(OP##_f32(wnn__half_to_float(x)));            \
    }
DEFINE_F16_BINARY(add)
DEFINE_F16_BINARY(sub)
DEFINE_F16_BINARY(mul)
DEFINE_F16_BINARY(div)
DEFINE_F16_BINARY(max)
DEFINE_F16_BINARY(min)
DEFINE_F16_BINARY(pow)
DEFINE_F16_UNARY(abs)
DEFINE_F16_UNARY(neg)
DEFINE_F16_UNARY(sqrt)
DEFINE_F16_UNARY(relu)

/* base^e modulo 2^64 by repeated squaring; callers keep the low bits, which
** equals the power modulo 2^width. */
static uint64_t pow_wrapping(uint64_t base, uint64_t e)
{
    uint64_t r = 1;
    while (e) {
        if (e & 1u)
            r *= base;
        base *= base;
        e >>= 1;
    }
    return r;
}

#define DEFINE_INT_BINARY(S, T, UW, MINV, MAXV)                                \
    static inline T add_##S(T a, T b) { return wrap_##S((uint64_t)((UW)a + (UW)b)); } \
    static inline T sub_##S(T a, T b) { return wrap_##S((uint64_t)((UW)a - (UW)b)); } \
    static inline T mul_##S(T a, T b) { return wrap_##S((uint64_t)((UW)a * (UW)b)); } \
    static inline T max_##S(T a, T b) { return a > b ? a : b; }               \
    static inline T min_##S(T a, T b) { return a < b ? a : b; }
SIGNED_TYPES(DEFINE_INT_BINARY)
UNSIGNED_TYPES(DEFINE_INT_BINARY)

/* A negative exponent gives 1/base^|e|, which truncates to 0 except for bases
** 1 and -1. */
#define DEFINE_SIGNED_OPS(S, T, UW, MINV, MAXV)                                \
    static inline T div_##S(T a, T b)                                          \
    {                                                                          \
        if (b == 0)                                                            \
            return 0;                                                          \
        if (b == -1)                                                           \
            return wrap_##S(0u - (uint64_t)a);                                 \
        return (T)(a / b);                                                     \
    }                                                                          \
    static inline T pow_##S(T a, T b)                                          \
    {                                                                          \
        if (b < 0) {                                                           \
            if (a == 1)                                                        \
                return 1;                                                      \
            if (a == -1)                                                       \
                return ((uint64_t)b & 1u) ? -1 : 1;                            \
            return 0;                                                          \
        }                                                                      \
        return wrap_##S(pow_wrapping((uint64_t)a, (uint64_t)b));               \
    }                                                                          \
    static inline T abs_##S(T x) { return x < 0 ? wrap_##S(0u - (uint64_t)x) : x; } \
    static inline T neg_##S(T x) { return wrap_##S(0u - (uint64_t)x); }        \
    static inline T relu_##S(T x) { return x < 0 ? 0 : x; }
SIGNED_TYPES(DEFINE_SIGNED_OPS)

#define DEFINE_UNSIGNED_OPS(S, T, UW, MINV, MAXV)                              \
    static inline T div_##S(T a, T b) { return b == 0 ? 0 : (T)(a / b); }     \
    static inline T pow_##S(T a, T b) { return wrap_##S(pow_wrapping(a, b)); }
UNSIGNED_TYPES(DEFINE_UNSIGNED_OPS)

/* ------------------------------------------------------------------------ */
/* Loops                                                                     */
/* ------------------------------------------------------------------------ */

/* CLONES, IVDEP and BLOCKED_LOOP: backends/cpu/loops.h */

/* ------------------------------------------------------------------------ */
/* Parallel driver                                                           */
/* ------------------------------------------------------------------------ */

static void run_elementwise(size_t n, wnn__range_fn fn, void *arg)
{
    if (n > PARALLEL_MIN)
        wnn__parallel_for(n, PARALLEL_GRAIN, fn, arg);
    else
        fn(arg, 0, n);
}

/* A map writes n outputs from n inputs; params is the operator's own. */
typedef void (*map_fn)(const void *in, void *out, size_t n, const void *params);

typedef struct map_job {
    map_fn fn;
    const char *in;
    char *out;
    size_t in_size, out_size; /* element sizes in bytes */
    const void *params;
} map_job;

static void map_range(void *arg, size_t begin, size_t end)
{
    const map_job *j = arg;
    j->fn(j->in + begin * j->in_size, j->out + begin * j->out_size, end - begin, j->params);
}

static void run_map(map_fn fn, const wnn__view *in, const wnn__view *out, const void *params)
{
    map_job job = {fn, in->data, out->data, wnn_data_type_size(in->desc.data_type),
                   wnn_data_type_size(out->desc.data_type), params};
    run_elementwise(wnn__view_count(out), map_range, &job);
}

/* ------------------------------------------------------------------------ */
/* Binary operators with broadcasting                                        */
/* ------------------------------------------------------------------------ */

/* A row: n outputs from a and b, each read with stride 0 (broadcast) or 1.
** The four stride cases get their own loops so that each vectorizes. */
typedef void (*binary_row)(const void *a, size_t sa, const void *b, size_t sb, void *out, size_t n);

#define DEFINE_BINARY_ROW(OP, S, T)                                            \
    CLONES static void row_##OP##_##S(const void *va, size_t sa, const void *vb, size_t sb, void *vo, size_t n) \
    {                                                                          \
        const T *a = va;                                                       \
        const T *b = vb;                                                       \
        T *o = vo;                                                             \
        if (sa && sb) {                                                        \
            BLOCKED_LOOP(T, o, n, OP##_##S(a[i], b[i]));                       \
        } else if (sa) {                                                       \
            const T y = b[0];                                                  \
            BLOCKED_LOOP(T, o, n, OP##_##S(a[i], y));                          \
        } else if (sb) {                                                       \
            const T x = a[0];                                                  \
            BLOCKED_LOOP(T, o, n, OP##_##S(x, b[i]));                          \
        } else {                                                               \
            const T r = OP##_##S(a[0], b[0]);                                  \
            for (size_t i = 0; i < n; i++)                                     \
                o[i] = r;                                                      \
        }                                                                      \
    }
#define DEFINE_BINARY_ROWS(S, T, E, ...)                                       \
    DEFINE_BINARY_ROW(add, S, T)                                               \
    DEFINE_BINARY_ROW(sub, S, T)                                               \
    DEFINE_BINARY_ROW(mul, S, T)                                               \
    DEFINE_BINARY_ROW(div, S, T)                                               \
    DEFINE_BINARY_ROW(max, S, T)                                               \
    DEFINE_BINARY_ROW(min, S, T)                                               \
    DEFINE_BINARY_ROW(pow, S, T)
ELEMENT_TYPES(DEFINE_BINARY_ROWS, )

#define BINARY_ROW_ENTRY(S, T, E, OP) [E] = row_##OP##_##S,
static const binary_row binary_rows[WNN__OP_COUNT][TYPE_SLOTS] = {
    [WNN__OP_ADD] = {ELEMENT_TYPES(BINARY_ROW_ENTRY, add)},
    [WNN__OP_SUB] = {ELEMENT_TYPES(BINARY_ROW_ENTRY, sub)},
    [WNN__OP_MUL] = {ELEMENT_TYPES(BINARY_ROW_ENTRY, mul)},
    [WNN__OP_DIV] = {ELEMENT_TYPES(BINARY_ROW_ENTRY, div)},
    [WNN__OP_MAX] = {ELEMENT_TYPES(BINARY_ROW_ENTRY, max)},
    [WNN__OP_MIN] = {ELEMENT_TYPES(BINARY_ROW_ENTRY, min)},
    [WNN__OP_POW] = {ELEMENT_TYPES(BINARY_ROW_ENTRY, pow)},
};

/* pow's float32 row: an exponent of 2 broadcast over the row (a power
** spectrum's or a variance's square) is a product, which vectorizes, where
** powf is a call an element (openWakeWord's melspectrogram: 26 us for its
** 2056 elements); x * x is the correctly rounded square, as powf's is. */
CLONES static void row_powsq_f32(const void *va, size_t sa, const void *vb, size_t sb, void *vo, size_t n)
{
    const float *a = va;
    float *o = vo;
    if (sa && !sb && ((const float *)vb)[0] == 2.0f) {
        BLOCKED_LOOP(float, o, n, a[i] * a[i]);
        return;
    }
    row_pow_f32(va, sa, vb, sb, vo, n);
}

/* float16 rows of the arithmetic operators a block at a time: widened
** (F16C where the processor has it), computed by the float32 row, rounded
** once; the same values as the per-element float16 rows, faster. */
#define F16_BLOCK 256
#define DEFINE_F16_BLOCK_ROW(OP)                                               \
    static void row16_##OP(const void *va, size_t sa, const void *vb, size_t sb, void *vo, size_t n) \
    {                                                                          \
        float a[F16_BLOCK], b[F16_BLOCK], o[F16_BLOCK];                        \
        const uint16_t *ha = va, *hb = vb;                                     \
        a[0] = wnn__half_to_float(ha[0]);                                      \
        b[0] = wnn__half_to_float(hb[0]);                                      \
        for (size_t i = 0; i < n; i += F16_BLOCK) {                            \
            size_t m = n - i < F16_BLOCK ? n - i : F16_BLOCK;                  \
            if (sa)                                                            \
                wnn__half_to_float_n(a, ha + i, m);                            \
            if (sb)                                                            \
                wnn__half_to_float_n(b, hb + i, m);                            \
            row_##OP##_f32(a, sa, b, sb, o, m);                                \
            wnn__float_to_half_n((uint16_t *)vo + i, o, m);                    \
        }                                                                      \
    }
DEFINE_F16_BLOCK_ROW(add)
DEFINE_F16_BLOCK_ROW(sub)
DEFINE_F16_BLOCK_ROW(mul)
DEFINE_F16_BLOCK_ROW(div)
DEFINE_F16_BLOCK_ROW(max)
DEFINE_F16_BLOCK_ROW(min)
DEFINE_F16_BLOCK_ROW(powsq)

static const binary_row f16_block_rows[WNN__OP_COUNT] = {
    [WNN__OP_ADD] = row16_add, [WNN__OP_SUB] = row16_sub, [WNN__OP_MUL] = row16_mul,
    [WNN__OP_DIV] = row16_div, [WNN__OP_MAX] = row16_max, [WNN__OP_MIN] = row16_min,
    [WNN__OP_POW] = row16_powsq,
};

typedef struct binary_job {
    wnn__broadcast_plan plan; /* of the two inputs */
    binary_row row;
    const char *a, *b;
    char *out;
    size_t size; /* element size in bytes */
} binary_job;

/* Computes outputs [begin, end): rows of the innermost dimension, with an
** odometer over the outer dimensions carrying each input's offset. */
static void binary_range(void *arg, size_t begin, size_t end)
{
    const binary_job *j = arg;
    const wnn__broadcast_plan *p = &j->plan;
    uint32_t last = p->rank - 1;
    size_t inner = p->shape[last];
    size_t sa = p->stride[0][last], sb = p->stride[1][last];

    size_t idx[WNN_MAX_RANK];
    size_t row_a = 0, row_b = 0; /* offsets of the current row's start */
    size_t rest = begin / inner;
    size_t col = begin % inner;
    for (uint32_t d = last; d-- > 0;) {
        idx[d] = rest % p->shape[d];
        rest /= p->shape[d];
        row_a += idx[d] * p->stride[0][d];
        row_b += idx[d] * p->stride[1][d];
    }

    for (size_t pos = begin; pos < end;) {
        size_t len = inner - col < end - pos ? inner - col : end - pos;
        j->row(j->a + (row_a + col * sa) * j->size, sa, j->b + (row_b + col * sb) * j->size, sb,
               j->out + pos * j->size, len);
        pos += len;
        col = 0;
        for (uint32_t d = last; d-- > 0;) {
            row_a += p->stride[0][d];
            row_b += p->stride[1][d];
            if (++idx[d] < p->shape[d])
                break;
            row_a -= p->shape[d] * p->stride[0][d];
            row_b -= p->shape[d] * p->stride[1][d];
            idx[d] = 0;
        }
    }
}

wnn_status wnn__k_binary(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    wnn_data_type t = out[0].desc.data_type;
    if ((unsigned)node->op >= WNN__OP_COUNT || (unsigned)t >= TYPE_SLOTS ||
        !binary_rows[node->op][t])
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;

    binary_job job = {.row = binary_rows[node->op][t], .a = in[0].data, .b = in[1].data,
                      .out = out[0].data, .size = wnn_data_type_size(t)};
    if (t == WNN_DATA_TYPE_FLOAT16 && f16_block_rows[node->op])
        job.row = f16_block_rows[node->op];
    if (t == WNN_DATA_TYPE_FLOAT32 && node->op == WNN__OP_POW)
        job.row = row_powsq_f32;
    const wnn_operand_desc *descs[2] = {&in[0].desc, &in[1].desc};
    wnn__broadcast_plan_make(&job.plan, &out[0].desc, descs, 2);
    run_elementwise(wnn__view_count(&out[0]), binary_range, &job);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* Unary operators                                                           */
/* ------------------------------------------------------------------------ */

#define DEFINE_UNARY_MAP(OP, S, T)                                             \
    CLONES static void map_##OP##_##S(const void *vi, void *vo, size_t n, const void *params) \
    {                                                                          \
        const T *x = vi;                                                       \
        T *o = vo;                                                             \
        (void)params;                                                          \
        BLOCKED_LOOP(T, o, n, OP##_##S(x[i]));                                 \
    }
#define DEFINE_FLOAT_MAPS(S, T)                                                \
    DEFINE_UNARY_MAP(abs, S, T)                                                \
    DEFINE_UNARY_MAP(neg, S, T)                                                \
    DEFINE_UNARY_MAP(sqrt, S, T)                                               \
    DEFINE_UNARY_MAP(relu, S, T)
#define DEFINE_SIGNED_MAPS(S, T, UW, MINV, MAXV)                               \
    DEFINE_UNARY_MAP(abs, S, T)                                                \
    DEFINE_UNARY_MAP(neg, S, T)                                                \
    DEFINE_UNARY_MAP(relu, S, T)
DEFINE_FLOAT_MAPS(f32, float)
DEFINE_FLOAT_MAPS(f16, uint16_t)

/* exp, sigmoid, tanh and log on vec.h's SIMD rows, float32 and float16. */
#define DEFINE_VEC_MAPS(OP)                                                    \
    static void map_##OP##_f32(const void *vi, void *vo, size_t n, const void *params) \
    {                                                                          \
        (void)params;                                                          \
        wnn__vec_##OP(vo, vi, n);                                              \
    }                                                                          \
    static void map_##OP##_f16(const void *vi, void *vo, size_t n, const void *params) \
    {                                                                          \
        (void)params;                                                          \
        wnn__vec_##OP##_half(vo, vi, n);                                       \
    }
DEFINE_VEC_MAPS(exp)
DEFINE_VEC_MAPS(sigmoid)
DEFINE_VEC_MAPS(tanh)
DEFINE_VEC_MAPS(log)

/* sqrt on vec_libm.h's row where it is there (the same bits), float16
** through it; else the scalar maps above. */
#define DEFINE_LIBM_MAPS(OP, FN)                                               \
    static void map_##OP##_row_f32(const void *vi, void *vo, size_t n, const void *params) \
    {                                                                          \
        if (!wnn__libm_row(FN, vo, vi, n))                                     \
            map_##OP##_f32(vi, vo, n, params);                                 \
    }                                                                          \
    static void map_##OP##_row_f16(const void *vi, void *vo, size_t n, const void *params) \
    {                                                                          \
        if (!wnn__libm_row_half(FN, vo, vi, n))                                \
            map_##OP##_f16(vi, vo, n, params);                                 \
    }
DEFINE_LIBM_MAPS(sqrt, WNN__LIBM_SQRT)
SIGNED_TYPES(DEFINE_SIGNED_MAPS)

#define FLOAT_MAPS(OP)                                                         \
    [WNN_DATA_TYPE_FLOAT32] = map_##OP##_f32, [WNN_DATA_TYPE_FLOAT16] = map_##OP##_f16
#define ROW_MAPS(OP)                                                           \
    [WNN_DATA_TYPE_FLOAT32] = map_##OP##_row_f32, [WNN_DATA_TYPE_FLOAT16] = map_##OP##_row_f16
#define SIGNED_MAPS(OP)                                                        \
    [WNN_DATA_TYPE_INT32] = map_##OP##_i32, [WNN_DATA_TYPE_INT64] = map_##OP##_i64, \
    [WNN_DATA_TYPE_INT8] = map_##OP##_i8
static const map_fn unary_maps[WNN__OP_COUNT][TYPE_SLOTS] = {
    [WNN__OP_ABS] = {FLOAT_MAPS(abs), SIGNED_MAPS(abs)},
    [WNN__OP_NEG] = {FLOAT_MAPS(neg), SIGNED_MAPS(neg)},
    [WNN__OP_RELU] = {FLOAT_MAPS(relu), SIGNED_MAPS(relu)},
    [WNN__OP_EXP] = {FLOAT_MAPS(exp)},
    [WNN__OP_LOG] = {FLOAT_MAPS(log)},
    [WNN__OP_SQRT] = {ROW_MAPS(sqrt)},
    [WNN__OP_SIGMOID] = {FLOAT_MAPS(sigmoid)},
    [WNN__OP_TANH] = {FLOAT_MAPS(tanh)},
};

wnn_status wnn__k_unary(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    wnn_data_type t = out[0].desc.data_type;
    if ((unsigned)node->op >= WNN__OP_COUNT || (unsigned)t >= TYPE_SLOTS ||
        !unary_maps[node->op][t])
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    run_map(unary_maps[node->op][t], &in[0], &out[0], NULL);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* clamp                                                                     */
/* ------------------------------------------------------------------------ */

/* Bounds as given; each map casts them to its own type once per range, so
** integer inputs compare in their own domain with saturated bounds. */
typedef struct clamp_params {
    double lo, hi;
    uint64_t lo_bits, hi_bits; /* int64/uint64: the bounds cast exactly */
} clamp_params;

/* NaN input passes through: both comparisons are false. */
#define DEFINE_CLAMP_MAP(S, T, E, ...)                                         \
    CLONES static void clamp_##S(const void *vi, void *vo, size_t n, const void *vp)  \
    {                                                                          \
        const clamp_params *p = vp;                                            \
        const T lo = from_double_##S(p->lo), hi = from_double_##S(p->hi);      \
        const T *x = vi;                                                       \
        T *o = vo;                                                             \
        BLOCKED_LOOP(T, o, n, x[i] < lo ? lo : x[i] > hi ? hi : x[i]);         \
    }
DEFINE_CLAMP_MAP(f32, float, WNN_DATA_TYPE_FLOAT32, )
DEFINE_CLAMP_MAP(i32, int32_t, WNN_DATA_TYPE_INT32, )
DEFINE_CLAMP_MAP(i8, int8_t, WNN_DATA_TYPE_INT8, )
DEFINE_CLAMP_MAP(u32, uint32_t, WNN_DATA_TYPE_UINT32, )
DEFINE_CLAMP_MAP(u8, uint8_t, WNN_DATA_TYPE_UINT8, )

/* The 64-bit integers take the bounds the builder cast exactly, since a
** double cannot hold every bound (2^53 + 1, say). */
#define DEFINE_CLAMP_MAP_64(S, T)                                              \
    static void clamp_##S(const void *vi, void *vo, size_t n, const void *vp)  \
    {                                                                          \
        const clamp_params *p = vp;                                            \
        const T lo = (T)p->lo_bits, hi = (T)p->hi_bits;                        \
        const T *x = vi;                                                       \
        T *o = vo;                                                             \
        for (size_t i = 0; i < n; i++)                                         \
            o[i] = x[i] < lo ? lo : x[i] > hi ? hi : x[i];                     \
    }
DEFINE_CLAMP_MAP_64(i64, int64_t)
DEFINE_CLAMP_MAP_64(u64, uint64_t)

/* float16 compares widened values but copies bits, so that an unclamped
** element (NaN payloads included) comes out exactly as it went in. */
static void clamp_f16(const void *vi, void *vo, size_t n, const void *vp)
{
    const clamp_params *p = vp;
    const uint16_t lo = from_double_f16(p->lo), hi = from_double_f16(p->hi);
    const float lo_f = wnn__half_to_float(lo), hi_f = wnn__half_to_float(hi);
    const uint16_t *x = vi;
    uint16_t *o = vo;
    for (size_t i = 0; i < n; i++) {
        float v = wnn__half_to_float(x[i]);
        o[i] = v < lo_f ? lo : v > hi_f ? hi : x[i];
    }
}

#define CLAMP_ENTRY(S, T, E, ...) [E] = clamp_##S,
static const map_fn clamp_maps[TYPE_SLOTS] = {ELEMENT_TYPES(CLAMP_ENTRY, )};

wnn_status wnn__k_clamp(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    wnn_data_type t = out[0].desc.data_type;
    if ((unsigned)t >= TYPE_SLOTS || !clamp_maps[t])
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    /* A NaN bound clamps nothing; as an infinity it also saturates right
    ** for integer types, where NaN would otherwise cast to 0. */
    clamp_params p = {node->attrs.clamp.min_value, node->attrs.clamp.max_value, node->attrs.clamp.lo,
                      node->attrs.clamp.hi};
    if (p.lo != p.lo)
        p.lo = -INFINITY;
    if (p.hi != p.hi)
        p.hi = INFINITY;
    run_map(clamp_maps[t], &in[0], &out[0], &p);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* cast                                                                      */
/* ------------------------------------------------------------------------ */

/* Each type belongs to a domain, float or int. Float to float goes through
** double, float to or from int through float (above: the same values); int
** to int keeps the low bits. The indirection expands DOMAIN_x before pasting. */
#define DOMAIN_f32 float
#define DOMAIN_f16 float
#define DOMAIN_i32 int
#define DOMAIN_u32 int
#define DOMAIN_i64 int
#define DOMAIN_u64 int
#define DOMAIN_i8 int
#define DOMAIN_u8 int
#define CONVERT(SS, SD, x) CONVERT_IN(DOMAIN_##SS, DOMAIN_##SD, SS, SD, x)
#define CONVERT_IN(DS, DD, SS, SD, x) CONVERT_PASTE(DS, DD, SS, SD, x)
#define CONVERT_PASTE(DS, DD, SS, SD, x) CONVERT_##DS##_##DD(SS, SD, x)
#define CONVERT_float_float(SS, SD, x) from_double_##SD(to_double_##SS(x))
#define CONVERT_float_int(SS, SD, x) from_float_##SD(to_float_##SS(x))
#define CONVERT_int_float(SS, SD, x) from_float_##SD(to_float_##SS(x))
#define CONVERT_int_int(SS, SD, x) wrap_##SD((uint64_t)(x))

#define DEFINE_CAST_MAP(SD, TD, ED, SS, TS)                                    \
    CLONES static void cast_##SS##_##SD(const void *vi, void *vo, size_t n, const void *params) \
    {                                                                          \
        const TS *x = vi;                                                      \
        TD *o = vo;                                                            \
        (void)params;                                                          \
        BLOCKED_LOOP(TD, o, n, CONVERT(SS, SD, x[i]));                         \
    }
#define DEFINE_CASTS_FROM(SS, TS, ES, ...) ELEMENT_TYPES_INNER(DEFINE_CAST_MAP, SS, TS)
ELEMENT_TYPES(DEFINE_CASTS_FROM, )

#define CAST_ENTRY(SD, TD, ED, SS) [ED] = cast_##SS##_##SD,
#define CAST_ROW(SS, TS, ES, ...) [ES] = {ELEMENT_TYPES_INNER(CAST_ENTRY, SS)},
static const map_fn cast_maps[TYPE_SLOTS][TYPE_SLOTS] = {ELEMENT_TYPES(CAST_ROW, )};

wnn_status wnn__k_cast(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    wnn_data_type from = in[0].desc.data_type, to = out[0].desc.data_type;
    (void)node;
    if ((unsigned)from >= TYPE_SLOTS || (unsigned)to >= TYPE_SLOTS || !cast_maps[from][to])
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    if (from == to) { /* bit-exact, NaN payloads included */
        if (out[0].data != in[0].data)
            memcpy(out[0].data, in[0].data, wnn__view_count(&out[0]) * wnn_data_type_size(to));
        return WNN_OK;
    }
    /* float32 <-> float16: the whole arrays' conversions (F16C, on the pool),
    ** the same values as the per-element ones (round to nearest even; a NaN
    ** stays a NaN); cast float32 -> float16 of 2^25 elements took 136 ms
    ** one element at a time on this project's 2-core machine, 12 in
    ** PyTorch */
    if (from == WNN_DATA_TYPE_FLOAT32 && to == WNN_DATA_TYPE_FLOAT16) {
        wnn__float_to_half_n(out[0].data, in[0].data, wnn__view_count(&out[0]));
        return WNN_OK;
    }
    if (from == WNN_DATA_TYPE_FLOAT16 && to == WNN_DATA_TYPE_FLOAT32) {
        wnn__half_to_float_n(out[0].data, in[0].data, wnn__view_count(&out[0]));
        return WNN_OK;
    }
    run_map(cast_maps[from][to], &in[0], &out[0], NULL);
    return WNN_OK;
}
