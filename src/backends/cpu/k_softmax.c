/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_softmax.c -- softmax along one axis, float32 and float16.
**
** The input is viewed as [outer, len, inner] around the axis. Each (outer,
** column) pair is one lane of len elements, inner apart. Lanes are done a
** tile of adjacent columns at a time, so that every pass over the axis reads
** contiguous memory and the per-lane max and sum fit on the stack (no
** allocation). Numerically stable: exp(x - max) never overflows.
**
** float16 is computed in float32 and rounded once: the final pass recomputes
** exp rather than storing it, since the output cannot hold an unrounded value.
**
** Along the last axis (inner 1, the common case) each lane is a contiguous
** row: max, exp-and-sum and scale run on vec.h's SIMD primitives, float16
** rows widened into a float32 row first and narrowed once at the end.
*/
#include <math.h>
#include <stdint.h>

#include <stdlib.h>

#include "backends/cpu/half_simd.h"
#include "backends/cpu/kernels.h"
#include "platform/pool.h"
#include "backends/cpu/vec.h"
#include "core/half.h"

#define TILE 64 /* columns per tile */
#define PARALLEL_MIN ((size_t)1 << 15)

typedef struct softmax_job {
    wnn_data_type type;
    const void *in;
    void *out;
    size_t len, inner;
    size_t tiles_per_outer;
} softmax_job;

static void softmax_tile_f32(const float *x, float *y, size_t len, size_t inner, size_t cols)
{
    float mx[TILE], sum[TILE];
    for (size_t c = 0; c < cols; c++) {
        mx[c] = x[c];
        sum[c] = 0.0f;
    }
    for (size_t l = 1; l < len; l++)
        for (size_t c = 0; c < cols; c++)
            mx[c] = x[l * inner + c] > mx[c] ? x[l * inner + c] : mx[c];
    for (size_t l = 0; l < len; l++)
        for (size_t c = 0; c < cols; c++) {
            float e = expf(x[l * inner + c] - mx[c]);
            y[l * inner + c] = e;
            sum[c] += e;
        }
    for (size_t l = 0; l < len; l++)
        for (size_t c = 0; c < cols; c++)
            y[l * inner + c] /= sum[c];
}

static void softmax_tile_f16(const uint16_t *x, uint16_t *y, size_t len, size_t inner, size_t cols)
{
    float mx[TILE], sum[TILE];
    for (size_t c = 0; c < cols; c++) {
        mx[c] = wnn__half_to_float(x[c]);
        sum[c] = 0.0f;
    }
    for (size_t l = 1; l < len; l++)
        for (size_t c = 0; c < cols; c++) {
            float v = wnn__half_to_float(x[l * inner + c]);
            mx[c] = v > mx[c] ? v : mx[c];
        }
    for (size_t l = 0; l < len; l++)
        for (size_t c = 0; c < cols; c++)
            sum[c] += expf(wnn__half_to_float(x[l * inner + c]) - mx[c]);
    for (size_t l = 0; l < len; l++)
        for (size_t c = 0; c < cols; c++) {
            float e = expf(wnn__half_to_float(x[l * inner + c]) - mx[c]);
            y[l * inner + c] = wnn__float_to_half(e / sum[c]);
        }
}

/* Runs tiles [begin, end), numbered outer-major. */
static void softmax_range(void *arg, size_t begin, size_t end)
{
    const softmax_job *j = arg;
    for (size_t t = begin; t < end; t++) {
        size_t o = t / j->tiles_per_outer;
        size_t c0 = (t % j->tiles_per_outer) * TILE;
        size_t cols = j->inner - c0 < TILE ? j->inner - c0 : TILE;
        size_t at = o * j->len * j->inner + c0;
        if (j->type == WNN_DATA_TYPE_FLOAT32)
            softmax_tile_f32((const float *)j->in + at, (float *)j->out + at, j->len, j->inner, cols);
        else
            softmax_tile_f16((const uint16_t *)j->in + at, (uint16_t *)j->out + at, j->len, j->inner,
                             cols);
    }
}

/* Rows [begin, end) of a softmax along the last axis (len elements each). */
static void softmax_rows(void *arg, size_t begin, size_t end)
{
    const softmax_job *j = arg;
    bool half = j->type == WNN_DATA_TYPE_FLOAT16;
    float *row = half ? malloc(j->len * sizeof *row) : NULL;
    for (size_t r = begin; r < end; r++) {
        const float *x;
        float *y;
        if (half) {
            if (!row) { /* out of memory for the row: the tiled path needs none */
                softmax_tile_f16((const uint16_t *)j->in + r * j->len, (uint16_t *)j->out + r * j->len, j->len, 1, 1);
                continue;
            }
            wnn__half_to_float_n(row, (const uint16_t *)j->in + r * j->len, j->len);
            x = y = row;
        } else {
            x = (const float *)j->in + r * j->len;
            y = (float *)j->out + r * j->len;
        }
        float m = wnn__vec_max(x, j->len);
        float sum = wnn__vec_exp_sum(y, x, m, j->len);
        wnn__vec_scale(y, 1.0f / sum, j->len);
        if (half)
            wnn__float_to_half_n((uint16_t *)j->out + r * j->len, row, j->len);
    }
    free(row);
}

wnn_status wnn__k_softmax(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    const wnn_operand_desc *d = &in[0].desc;
    if (d->data_type != WNN_DATA_TYPE_FLOAT32 && d->data_type != WNN_DATA_TYPE_FLOAT16)
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;

    uint32_t axis = node->attrs.axis.axis;
    size_t outer = wnn__shape_product(d->shape, 0, axis);
    size_t inner = wnn__shape_product(d->shape, axis + 1, d->rank);

    softmax_job job = {d->data_type, in[0].data, out[0].data, d->shape[axis], inner,
                       (inner + TILE - 1) / TILE};
    if (inner == 1 && job.len > 0) {
        size_t n = outer * job.len;
        if (n > PARALLEL_MIN)
            wnn__parallel_for(outer, PARALLEL_MIN / job.len + 1, softmax_rows, &job);
        else
            softmax_rows(&job, 0, outer);
        return WNN_OK;
    }
    size_t tiles = outer * job.tiles_per_outer;
    size_t per_tile = job.len * (inner < TILE ? inner : TILE);
    size_t n = wnn__view_count(&in[0]);
    if (n > PARALLEL_MIN)
        wnn__parallel_for(tiles, PARALLEL_MIN / per_tile + 1, softmax_range, &job);
    else
        softmax_range(&job, 0, tiles);
    return WNN_OK;
}
