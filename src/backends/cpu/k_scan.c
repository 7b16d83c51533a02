/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_scan.c -- the kernels that walk one axis: argMin/argMax and
** cumulativeSum.
**
** The input is viewed as [outer, len, inner] around the axis. A task is COLS
** adjacent inner columns of one outer index, walked row by row along the
** axis, so that every step reads contiguous memory; tasks spread on the
** pool. float32 and float16 argMin/argMax go through vec_reduce.h's AVX2
** folds where the processor has them and no NaN is met; the portable loops
** below decide the rest and stay the reference.
*/
#include <stdint.h>
#include <string.h>

#include "backends/cpu/kernels.h"
#include "backends/cpu/vec_reduce.h"
#include "platform/pool.h"
#include "core/half.h"

#define COLS 512                      /* adjacent columns per task */

/* ------------------------------------------------------------------------ */
/* argMin / argMax                                                           */
/* ------------------------------------------------------------------------ */

typedef struct axis_job {
    const char *in;
    char *out;
    wnn_data_type type, out_type;
    size_t outer, len, inner, tiles;
    bool is_max;
    bool exclusive, reversed; /* cumulativeSum */
} axis_job;

static void axis_shape(const wnn_operand_desc *d, uint32_t axis, axis_job *j)
{
    j->outer = wnn__shape_product(d->shape, 0, axis);
    j->len = d->shape[axis];
    j->inner = wnn__shape_product(d->shape, axis + 1, d->rank);
    j->tiles = (j->inner + COLS - 1) / COLS;
}

/* For cols adjacent columns, the index along the axis of the best element:
** a later element wins only when strictly better, so ties keep the first;
** a NaN beats every number, and the first NaN stays. CT is the type values
** compare in (float for float16). */
#define DEFINE_ARG(S, T, CT, LOAD, IS_NAN)                                     \
    static void arg_##S(const T *x, size_t len, size_t inner, size_t cols, bool is_max, int64_t *index) \
    {                                                                          \
        CT best[COLS];                                                         \
        for (size_t c = 0; c < cols; c++) {                                    \
            best[c] = LOAD(x[c]);                                              \
            index[c] = 0;                                                      \
        }                                                                      \
        for (size_t l = 1; l < len; l++) {                                     \
            const T *row = x + l * inner;                                      \
            for (size_t c = 0; c < cols; c++) {                                \
                const CT v = LOAD(row[c]);                                     \
                if (IS_NAN(best[c]))                                           \
                    continue;                                                  \
                if ((is_max ? v > best[c] : v < best[c]) || IS_NAN(v)) {       \
                    best[c] = v;                                               \
                    index[c] = (int64_t)l;                                     \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }
#define SAME(v) (v)
#define NEVER_NAN(v) false
#define FLOAT_NAN(v) ((v) != (v))
DEFINE_ARG(f32, float, float, SAME, FLOAT_NAN)
DEFINE_ARG(f16, uint16_t, float, wnn__half_to_float, FLOAT_NAN)
DEFINE_ARG(i32, int32_t, int32_t, SAME, NEVER_NAN)
DEFINE_ARG(u32, uint32_t, uint32_t, SAME, NEVER_NAN)
DEFINE_ARG(i64, int64_t, int64_t, SAME, NEVER_NAN)
DEFINE_ARG(u64, uint64_t, uint64_t, SAME, NEVER_NAN)
DEFINE_ARG(i8, int8_t, int8_t, SAME, NEVER_NAN)
DEFINE_ARG(u8, uint8_t, uint8_t, SAME, NEVER_NAN)

/* The float32 or float16 columns of one task through vec_reduce.h: whole
** lanes when the axis is innermost, else rows of 8 columns at a time and
** the portable loop for the rest. False when it did not decide them all. */
static bool arg_simd(const axis_job *j, const void *x, size_t cols, int64_t *index)
{
    bool half = j->type == WNN_DATA_TYPE_FLOAT16;
    if (!half && j->type != WNN_DATA_TYPE_FLOAT32)
        return false;
    if (j->inner == 1)
        return wnn__arg_lane(j->is_max, half, x, j->len, index);
    size_t wide = cols / 8 * 8;
    if (wide == 0 || !wnn__arg_rows(j->is_max, half, x, j->len, j->inner, wide, index))
        return false;
    if (half)
        arg_f16((const uint16_t *)x + wide, j->len, j->inner, cols - wide, j->is_max, index + wide);
    else
        arg_f32((const float *)x + wide, j->len, j->inner, cols - wide, j->is_max, index + wide);
    return true;
}

static void arg_range(void *arg, size_t begin, size_t end)
{
    const axis_job *j = arg;
    const size_t esize = wnn_data_type_size(j->type), len = j->len, inner = j->inner;
    const bool is_max = j->is_max;
    int64_t index[COLS];
    for (size_t t = begin; t < end; t++) {
        size_t o = t / j->tiles, c0 = (t % j->tiles) * COLS;
        size_t cols = inner - c0 < COLS ? inner - c0 : COLS;
        const void *x = j->in + (o * len * inner + c0) * esize;
        if (arg_simd(j, x, cols, index))
            goto store;
        switch (j->type) {
        case WNN_DATA_TYPE_FLOAT32: arg_f32(x, len, inner, cols, is_max, index); break;
        case WNN_DATA_TYPE_FLOAT16: arg_f16(x, len, inner, cols, is_max, index); break;
        case WNN_DATA_TYPE_INT32: arg_i32(x, len, inner, cols, is_max, index); break;
        case WNN_DATA_TYPE_UINT32: arg_u32(x, len, inner, cols, is_max, index); break;
        case WNN_DATA_TYPE_INT64: arg_i64(x, len, inner, cols, is_max, index); break;
        case WNN_DATA_TYPE_UINT64: arg_u64(x, len, inner, cols, is_max, index); break;
        case WNN_DATA_TYPE_INT8: arg_i8(x, len, inner, cols, is_max, index); break;
        default: arg_u8(x, len, inner, cols, is_max, index); break;
        }
    store:;
        size_t first = o * inner + c0;
        if (j->out_type == WNN_DATA_TYPE_INT64)
            memcpy((int64_t *)j->out + first, index, cols * sizeof *index);
        else
            for (size_t c = 0; c < cols; c++)
                ((int32_t *)j->out)[first + c] = (int32_t)index[c];
    }
}

wnn_status wnn__k_arg_min_max(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    axis_job j = {.in = in[0].data, .out = out[0].data, .type = in[0].desc.data_type,
                  .out_type = out[0].desc.data_type, .is_max = node->op == WNN__OP_ARG_MAX};
    if (j.type < WNN_DATA_TYPE_FLOAT32 || j.type > WNN_DATA_TYPE_UINT8)
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    axis_shape(&in[0].desc, node->attrs.arg_min_max.axis, &j);
    wnn__cpu_run_tasks(j.outer * j.tiles, j.len * (j.inner < COLS ? j.inner : COLS), arg_range, &j);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* cumulativeSum                                                             */
/* ------------------------------------------------------------------------ */

/* Running sums of cols adjacent columns. Floats add in double and round
** each output once; integers add modulo 2^64 and keep the low bits. */
#define DEFINE_CUMSUM(S, T, ACC, LOAD, STORE)                                  \
    static void cumsum_##S(const T *x, T *y, size_t len, size_t inner, size_t cols, bool exclusive, \
                           bool reversed)                                      \
    {                                                                          \
        ACC sum[COLS];                                                         \
        for (size_t c = 0; c < cols; c++)                                      \
            sum[c] = 0;                                                        \
        for (size_t step = 0; step < len; step++) {                            \
            const size_t l = reversed ? len - 1 - step : step;                 \
            const T *row = x + l * inner;                                      \
            T *out = y + l * inner;                                            \
            if (exclusive) {                                                   \
                for (size_t c = 0; c < cols; c++) {                            \
                    out[c] = STORE(sum[c]);                                    \
                    sum[c] += LOAD(row[c]);                                    \
                }                                                              \
            } else {                                                           \
                for (size_t c = 0; c < cols; c++) {                            \
                    sum[c] += LOAD(row[c]);                                    \
                    out[c] = STORE(sum[c]);                                    \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }
#define LOAD_F32(v) ((double)(v))
#define LOAD_F16(v) ((double)wnn__half_to_float(v))
#define LOAD_INT(v) ((uint64_t)(v))
#define STORE_F32(v) ((float)(v))
#define STORE_F16(v) wnn__float_to_half((float)(v))
DEFINE_CUMSUM(f32, float, double, LOAD_F32, STORE_F32)
DEFINE_CUMSUM(f16, uint16_t, double, LOAD_F16, STORE_F16)
DEFINE_CUMSUM(i32, int32_t, uint64_t, (uint64_t)(int64_t), (int32_t)(uint32_t))
DEFINE_CUMSUM(u32, uint32_t, uint64_t, LOAD_INT, (uint32_t))
DEFINE_CUMSUM(i64, int64_t, uint64_t, (uint64_t), (int64_t))
DEFINE_CUMSUM(u64, uint64_t, uint64_t, LOAD_INT, (uint64_t))

static void cumsum_range(void *arg, size_t begin, size_t end)
{
    const axis_job *j = arg;
    const size_t esize = wnn_data_type_size(j->type), len = j->len, inner = j->inner;
    const bool ex = j->exclusive, rev = j->reversed;
    for (size_t t = begin; t < end; t++) {
        size_t o = t / j->tiles, c0 = (t % j->tiles) * COLS;
        size_t cols = inner - c0 < COLS ? inner - c0 : COLS;
        size_t first = (o * len * inner + c0) * esize;
        const void *x = j->in + first;
        void *y = j->out + first;
        switch (j->type) {
        case WNN_DATA_TYPE_FLOAT32: cumsum_f32(x, y, len, inner, cols, ex, rev); break;
        case WNN_DATA_TYPE_FLOAT16: cumsum_f16(x, y, len, inner, cols, ex, rev); break;
        case WNN_DATA_TYPE_INT32: cumsum_i32(x, y, len, inner, cols, ex, rev); break;
        case WNN_DATA_TYPE_UINT32: cumsum_u32(x, y, len, inner, cols, ex, rev); break;
        case WNN_DATA_TYPE_INT64: cumsum_i64(x, y, len, inner, cols, ex, rev); break;
        default: cumsum_u64(x, y, len, inner, cols, ex, rev); break;
        }
    }
}

wnn_status wnn__k_cumulative_sum(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    axis_job j = {.in = in[0].data, .out = out[0].data, .type = in[0].desc.data_type,
                  .exclusive = node->attrs.cumulative_sum.exclusive,
                  .reversed = node->attrs.cumulative_sum.reversed};
    switch (j.type) {
    case WNN_DATA_TYPE_FLOAT32:
    case WNN_DATA_TYPE_FLOAT16:
    case WNN_DATA_TYPE_INT32:
    case WNN_DATA_TYPE_UINT32:
    case WNN_DATA_TYPE_INT64:
    case WNN_DATA_TYPE_UINT64:
        break;
    default:
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    }
    axis_shape(&in[0].desc, node->attrs.cumulative_sum.axis, &j);
    wnn__cpu_run_tasks(j.outer * j.tiles, j.len * COLS, cumsum_range, &j);
    return WNN_OK;
}
