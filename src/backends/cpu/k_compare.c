/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_compare.c -- the broadcasting element-wise kernels with more than one input:
** the comparisons (equal ... lesserOrEqual, uint8 results), logicalAnd/Or/
** Xor, prelu and where.
**
** One driver serves them all: the output shape with every input's strides
** (0 where broadcast), size-1 dimensions dropped and neighbours merged where
** every input walks them contiguously, so same-shape inputs become one row.
** The driver hands rows of the innermost dimension to a row function, each
** input with an innermost stride of 0 or 1, over ranges spread on the pool.
**
** Comparisons work in each type's own domain, so int64/uint64 are exact and
** float16 compares its widened values (NaN unequal to everything). prelu's
** float16 computes in float32 and rounds once; its integers wrap. where
** copies bits, NaN payloads included.
*/
#include <stdint.h>
#include <string.h>

#include "backends/cpu/kernels.h"
#include "platform/pool.h"
#include "core/half.h"

#define PARALLEL_MIN ((size_t)1 << 16)
#define PARALLEL_GRAIN ((size_t)1 << 14)

#define TYPE_SLOTS (WNN_DATA_TYPE_UINT4 + 1)
#define MAX_INPUTS WNN__BROADCAST_MAX_INPUTS

/* n outputs from up to three inputs, input k read at in[k][i * s[k]]. */
typedef void (*row_fn)(const void *const *in, const size_t *s, void *out, size_t n);

/* ------------------------------------------------------------------------ */
/* The driver over a broadcast plan (core/shape.h)                          */
/* ------------------------------------------------------------------------ */

typedef struct job {
    wnn__broadcast_plan plan;
    row_fn row;
    const char *in[MAX_INPUTS];
    size_t in_size[MAX_INPUTS];
    char *out;
    size_t out_size;
} job;

/* Outputs [begin, end): rows of the innermost dimension, an odometer over
** the outer dimensions carrying each input's offset. */
static void job_range(void *arg, size_t begin, size_t end)
{
    const job *j = arg;
    const wnn__broadcast_plan *p = &j->plan;
    uint32_t last = p->rank - 1, n_in = p->n_in;
    size_t inner = p->shape[last];
    size_t idx[WNN_MAX_RANK], row[MAX_INPUTS] = {0, 0, 0}, s[MAX_INPUTS];
    for (uint32_t k = 0; k < n_in; k++)
        s[k] = p->stride[k][last];
    size_t rest = begin / inner, col = begin % inner;
    for (uint32_t d = last; d-- > 0;) {
        idx[d] = rest % p->shape[d];
        rest /= p->shape[d];
        for (uint32_t k = 0; k < n_in; k++)
            row[k] += idx[d] * p->stride[k][d];
    }
    for (size_t pos = begin; pos < end;) {
        size_t len = inner - col < end - pos ? inner - col : end - pos;
        const void *ptr[MAX_INPUTS];
        for (uint32_t k = 0; k < n_in; k++)
            ptr[k] = j->in[k] + (row[k] + col * s[k]) * j->in_size[k];
        j->row(ptr, s, j->out + pos * j->out_size, len);
        pos += len;
        col = 0;
        for (uint32_t d = last; d-- > 0;) {
            for (uint32_t k = 0; k < n_in; k++)
                row[k] += p->stride[k][d];
            if (++idx[d] < p->shape[d])
                break;
            for (uint32_t k = 0; k < n_in; k++)
                row[k] -= p->shape[d] * p->stride[k][d];
            idx[d] = 0;
        }
    }
}

static void run(row_fn row, const wnn__view *in, uint32_t n_in, const wnn__view *out)
{
    job j = {.row = row, .out = out[0].data, .out_size = wnn_data_type_size(out[0].desc.data_type)};
    for (uint32_t k = 0; k < n_in; k++) {
        j.in[k] = in[k].data;
        j.in_size[k] = wnn_data_type_size(in[k].desc.data_type);
    }
    const wnn_operand_desc *descs[MAX_INPUTS];
    for (uint32_t k = 0; k < n_in; k++)
        descs[k] = &in[k].desc;
    wnn__broadcast_plan_make(&j.plan, &out[0].desc, descs, n_in);
    size_t n = wnn__view_count(&out[0]);
    if (n > PARALLEL_MIN)
        wnn__parallel_for(n, PARALLEL_GRAIN, job_range, &j);
    else
        job_range(&j, 0, n);
}

/* ------------------------------------------------------------------------ */
/* Comparisons and logical operators                                        */
/* ------------------------------------------------------------------------ */

/* X(suffix, C type, enum, how an element reads for comparing). */
#define LOAD_SAME(v) (v)
#define LOAD_HALF(v) wnn__half_to_float(v)
#define COMPARE_TYPES(X, OP, NAME)                                             \
    X(f32, float, LOAD_SAME, OP, NAME)                                         \
    X(f16, uint16_t, LOAD_HALF, OP, NAME)                                      \
    X(i32, int32_t, LOAD_SAME, OP, NAME)                                       \
    X(u32, uint32_t, LOAD_SAME, OP, NAME)                                      \
    X(i64, int64_t, LOAD_SAME, OP, NAME)                                       \
    X(u64, uint64_t, LOAD_SAME, OP, NAME)                                      \
    X(i8, int8_t, LOAD_SAME, OP, NAME)                                         \
    X(u8, uint8_t, LOAD_SAME, OP, NAME)

#define DEFINE_COMPARE_ROW(S, T, LOAD, OP, NAME)                               \
    static void row_##NAME##_##S(const void *const *in, const size_t *s, void *vo, size_t n) \
    {                                                                          \
        const T *a = in[0], *b = in[1];                                        \
        uint8_t *o = vo;                                                       \
        for (size_t i = 0; i < n; i++)                                         \
            o[i] = LOAD(a[i * s[0]]) OP LOAD(b[i * s[1]]);                     \
    }
COMPARE_TYPES(DEFINE_COMPARE_ROW, ==, equal)
COMPARE_TYPES(DEFINE_COMPARE_ROW, !=, not_equal)
COMPARE_TYPES(DEFINE_COMPARE_ROW, >, greater)
COMPARE_TYPES(DEFINE_COMPARE_ROW, >=, greater_or_equal)
COMPARE_TYPES(DEFINE_COMPARE_ROW, <, lesser)
COMPARE_TYPES(DEFINE_COMPARE_ROW, <=, lesser_or_equal)

#define DEFINE_LOGICAL_ROW(NAME, EXPR)                                         \
    static void row_##NAME(const void *const *in, const size_t *s, void *vo, size_t n) \
    {                                                                          \
        const uint8_t *a = in[0], *b = in[1];                                  \
        uint8_t *o = vo;                                                       \
        for (size_t i = 0; i < n; i++) {                                       \
            const int x = a[i * s[0]] != 0, y = b[i * s[1]] != 0;              \
            o[i] = (uint8_t)(EXPR);                                            \
        }                                                                      \
    }
DEFINE_LOGICAL_ROW(logical_and, x && y)
DEFINE_LOGICAL_ROW(logical_or, x || y)
DEFINE_LOGICAL_ROW(logical_xor, x != y)

/* ------------------------------------------------------------------------ */
/* prelu                                                                     */
/* ------------------------------------------------------------------------ */

static void row_prelu_f32(const void *const *in, const size_t *s, void *vo, size_t n)
{
    const float *x = in[0], *slope = in[1];
    float *o = vo;
    for (size_t i = 0; i < n; i++) {
        const float v = x[i * s[0]];
        o[i] = v < 0 ? v * slope[i * s[1]] : v;
    }
}

static void row_prelu_f16(const void *const *in, const size_t *s, void *vo, size_t n)
{
    const uint16_t *x = in[0], *slope = in[1];
    uint16_t *o = vo;
    for (size_t i = 0; i < n; i++) {
        const float v = wnn__half_to_float(x[i * s[0]]);
        o[i] = v < 0 ? wnn__float_to_half(v * wnn__half_to_float(slope[i * s[1]])) : x[i * s[0]];
    }
}

/* The product wraps, done in the same-width unsigned type. */
#define DEFINE_PRELU_INT(S, T, U)                                              \
    static void row_prelu_##S(const void *const *in, const size_t *s, void *vo, size_t n) \
    {                                                                          \
        const T *x = in[0], *slope = in[1];                                    \
        T *o = vo;                                                             \
        for (size_t i = 0; i < n; i++) {                                       \
            const T v = x[i * s[0]];                                           \
            o[i] = v < 0 ? (T)(U)((U)v * (U)slope[i * s[1]]) : v;              \
        }                                                                      \
    }
DEFINE_PRELU_INT(i32, int32_t, uint32_t)
DEFINE_PRELU_INT(i64, int64_t, uint64_t)
DEFINE_PRELU_INT(i8, int8_t, uint32_t)

/* ------------------------------------------------------------------------ */
/* where                                                                     */
/* ------------------------------------------------------------------------ */

#define DEFINE_WHERE_ROW(BITS)                                                 \
    static void row_where_##BITS(const void *const *in, const size_t *s, void *vo, size_t n) \
    {                                                                          \
        const uint8_t *c = in[0];                                              \
        const uint##BITS##_t *t = in[1], *f = in[2];                           \
        uint##BITS##_t *o = vo;                                                \
        for (size_t i = 0; i < n; i++)                                         \
            o[i] = c[i * s[0]] ? t[i * s[1]] : f[i * s[2]];                    \
    }
DEFINE_WHERE_ROW(8)
DEFINE_WHERE_ROW(16)
DEFINE_WHERE_ROW(32)
DEFINE_WHERE_ROW(64)

/* ------------------------------------------------------------------------ */
/* Tables and entry points                                                   */
/* ------------------------------------------------------------------------ */

#define COMPARE_ENTRY(S, T, LOAD, OP, NAME) [TYPE_ENUM_##S] = row_##NAME##_##S,
#define TYPE_ENUM_f32 WNN_DATA_TYPE_FLOAT32
#define TYPE_ENUM_f16 WNN_DATA_TYPE_FLOAT16
#define TYPE_ENUM_i32 WNN_DATA_TYPE_INT32
#define TYPE_ENUM_u32 WNN_DATA_TYPE_UINT32
#define TYPE_ENUM_i64 WNN_DATA_TYPE_INT64
#define TYPE_ENUM_u64 WNN_DATA_TYPE_UINT64
#define TYPE_ENUM_i8 WNN_DATA_TYPE_INT8
#define TYPE_ENUM_u8 WNN_DATA_TYPE_UINT8

/* Indexed by the data type of the first input. */
static const row_fn rows[WNN__OP_COUNT][TYPE_SLOTS] = {
    [WNN__OP_EQUAL] = {COMPARE_TYPES(COMPARE_ENTRY, ==, equal)},
    [WNN__OP_NOT_EQUAL] = {COMPARE_TYPES(COMPARE_ENTRY, !=, not_equal)},
    [WNN__OP_GREATER] = {COMPARE_TYPES(COMPARE_ENTRY, >, greater)},
    [WNN__OP_GREATER_OR_EQUAL] = {COMPARE_TYPES(COMPARE_ENTRY, >=, greater_or_equal)},
    [WNN__OP_LESSER] = {COMPARE_TYPES(COMPARE_ENTRY, <, lesser)},
    [WNN__OP_LESSER_OR_EQUAL] = {COMPARE_TYPES(COMPARE_ENTRY, <=, lesser_or_equal)},
    [WNN__OP_LOGICAL_AND] = {[WNN_DATA_TYPE_UINT8] = row_logical_and},
    [WNN__OP_LOGICAL_OR] = {[WNN_DATA_TYPE_UINT8] = row_logical_or},
    [WNN__OP_LOGICAL_XOR] = {[WNN_DATA_TYPE_UINT8] = row_logical_xor},
    [WNN__OP_PRELU] = {[WNN_DATA_TYPE_FLOAT32] = row_prelu_f32, [WNN_DATA_TYPE_FLOAT16] = row_prelu_f16,
                       [WNN_DATA_TYPE_INT32] = row_prelu_i32, [WNN_DATA_TYPE_INT64] = row_prelu_i64,
                       [WNN_DATA_TYPE_INT8] = row_prelu_i8},
};

/* The comparisons, the binary logical operators and prelu. */
wnn_status wnn__k_compare(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    wnn_data_type t = in[0].desc.data_type;
    if ((unsigned)node->op >= WNN__OP_COUNT || (unsigned)t >= TYPE_SLOTS || !rows[node->op][t])
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    run(rows[node->op][t], in, 2, out);
    return WNN_OK;
}

wnn_status wnn__k_where(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    (void)node;
    row_fn row;
    switch (wnn_data_type_size(out[0].desc.data_type)) {
    case 1: row = row_where_8; break;
    case 2: row = row_where_16; break;
    case 4: row = row_where_32; break;
    case 8: row = row_where_64; break;
    default: return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    }
    if (out[0].desc.data_type == WNN_DATA_TYPE_INT4 || out[0].desc.data_type == WNN_DATA_TYPE_UINT4)
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    run(row, in, 3, out);
    return WNN_OK;
}
