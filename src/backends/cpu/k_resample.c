/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_resample.c -- resample2d: nearest-neighbor and linear resizing of two
** dimensions of a rank-4 tensor (float32, float16, int8, uint8).
**
** Output index j of a resized dimension (in -> out elements) samples the
** input at the half-pixel coordinate (j + 0.5) * in / out - 0.5, clamped to
** [0, in - 1]. Nearest-neighbor takes index ceil(coordinate - 0.5), so ties
** go to the smaller index; it is computed in integers, exactly, and copies
** elements as bytes. Linear blends the two neighbours floor(coordinate) and
** the next one (clamped), in float32; integer results round to nearest and
** saturate.
**
** Per-dimension tables (source index, or the two neighbours and the weight)
** are built once; the output is then walked in order, one row of the last
** dimension per step, rows spread over the wnn pool.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/k_spatial.h"
#include "platform/pool.h"

#define TASK_ELEMENTS ((size_t)1 << 14)

/* Where output index j of one dimension reads: lo (nearest: the only
** source), hi, and hi's weight. Identity for dimensions not resized. */
typedef struct tap {
    size_t lo, hi;
    float w;
} tap;

typedef struct resample_job {
    bool linear;
    wnn_data_type type;
    size_t elem; /* bytes per element */
    const uint8_t *x;
    uint8_t *y;
    size_t in_stride[4];
    size_t out_shape[4];
    tap *taps[4]; /* per dimension, out_shape[d] entries */
    uint32_t axes[2]; /* the resized dimensions */
} resample_job;

static float load_any(const uint8_t *p, wnn_data_type t)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT16: return wnn__half_to_float(*(const uint16_t *)p);
    case WNN_DATA_TYPE_INT8: return (float)*(const int8_t *)p;
    case WNN_DATA_TYPE_UINT8: return (float)*p;
    default: return *(const float *)p;
    }
}

static void store_any(uint8_t *p, wnn_data_type t, float v)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT16: *(uint16_t *)p = wnn__float_to_half(v); break;
    case WNN_DATA_TYPE_INT8: *(int8_t *)p = (int8_t)fminf(fmaxf(roundf(v), -128.0f), 127.0f); break;
    case WNN_DATA_TYPE_UINT8: *p = (uint8_t)fminf(fmaxf(roundf(v), 0.0f), 255.0f); break;
    default: *(float *)p = v; break;
    }
}

/* One nearest-neighbor row: dst[i] = src[t3[i].lo] for elements of T
** (the last dimension's stride is 1). */
#define NEAREST_ROW(T)                                                         \
    do {                                                                       \
        T *d_ = (T *)dst;                                                      \
        const T *s_ = (const T *)(j->x + lo * sizeof(T));                      \
        for (size_t i3 = 0; i3 < w; i3++)                                      \
            d_[i3] = s_[t3[i3].lo];                                            \
    } while (0)

/* Output rows [begin, end): a row is every index of dimensions 0..2.
** Nearest-neighbor rows copy typed elements (a memcpy call per element cost
** about 2 ns), a row whose source row is the previous row's (an upscale
** repeats each one) is a copy of that row, and a row of a last dimension
** that is not resized is one memcpy. */
static void resample_rows(void *arg, size_t begin, size_t end)
{
    const resample_job *j = arg;
    size_t w = j->out_shape[3], row_bytes = w * j->elem, prev = SIZE_MAX;
    const tap *t3 = j->taps[3];
    bool last_kept = j->axes[0] != 3 && j->axes[1] != 3;
    for (size_t r = begin; r < end; r++) {
        size_t i2 = r % j->out_shape[2], i1 = r / j->out_shape[2] % j->out_shape[1];
        size_t i0 = r / j->out_shape[2] / j->out_shape[1];
        const tap *t0 = &j->taps[0][i0], *t1 = &j->taps[1][i1], *t2 = &j->taps[2][i2];
        uint8_t *dst = j->y + r * row_bytes;
        size_t lo = t0->lo * j->in_stride[0] + t1->lo * j->in_stride[1] + t2->lo * j->in_stride[2];
        if (!j->linear) {
            if (lo == prev)
                memcpy(dst, dst - row_bytes, row_bytes);
            else if (last_kept)
                memcpy(dst, j->x + lo * j->elem, row_bytes);
            else if (j->elem == 4)
                NEAREST_ROW(uint32_t);
            else if (j->elem == 2)
                NEAREST_ROW(uint16_t);
            else
                NEAREST_ROW(uint8_t);
            prev = lo;
            continue;
        }
        /* Blend the four corners of the two resized dimensions a and b; the
        ** other two contribute their lo (== hi) index. */
        const tap *tp[4] = {t0, t1, t2, NULL};
        for (size_t i3 = 0; i3 < w; i3++) {
            tp[3] = &t3[i3];
            const tap *ta = tp[j->axes[0]], *tb = tp[j->axes[1]];
            size_t base = lo + tp[3]->lo * j->in_stride[3];
            size_t da = (ta->hi - ta->lo) * j->in_stride[j->axes[0]];
            size_t db = (tb->hi - tb->lo) * j->in_stride[j->axes[1]];
            float v00 = load_any(j->x + base * j->elem, j->type);
            float v01 = load_any(j->x + (base + db) * j->elem, j->type);
            float v10 = load_any(j->x + (base + da) * j->elem, j->type);
            float v11 = load_any(j->x + (base + da + db) * j->elem, j->type);
            float top = (1.0f - tb->w) * v00 + tb->w * v01, bottom = (1.0f - tb->w) * v10 + tb->w * v11;
            store_any(dst + i3 * j->elem, j->type, (1.0f - ta->w) * top + ta->w * bottom);
        }
    }
}

wnn_status wnn__k_resample2d(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    wnn_data_type t = in[0].desc.data_type;
    if (t != WNN_DATA_TYPE_FLOAT32 && t != WNN_DATA_TYPE_FLOAT16 && t != WNN_DATA_TYPE_INT8 &&
        t != WNN_DATA_TYPE_UINT8)
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    resample_job j = {
        .linear = node->attrs.resample2d.mode == WNN_INTERPOLATION_MODE_LINEAR,
        .type = t,
        .elem = wnn_data_type_size(t),
        .x = in[0].data,
        .y = out[0].data,
        .axes = {node->attrs.resample2d.axes[0], node->attrs.resample2d.axes[1]},
    };
    const uint32_t *is = in[0].desc.shape, *os = out[0].desc.shape;
    size_t total = 0, stride = 1;
    for (int d = 3; d >= 0; d--) {
        j.in_stride[d] = stride;
        stride *= is[d];
        j.out_shape[d] = os[d];
        total += os[d];
    }
    tap *all = malloc(total * sizeof *all);
    if (!all)
        return WNN_STATUS_OUT_OF_MEMORY;
    tap *next = all;
    for (int d = 0; d < 4; d++) {
        j.taps[d] = next;
        if (d == (int)node->attrs.resample2d.axes[0] || d == (int)node->attrs.resample2d.axes[1]) {
            for (size_t k = 0; k < os[d]; k++)
                wnn__resample_source(k, is[d], os[d], j.linear, &next[k].lo, &next[k].hi, &next[k].w);
        } else {
            for (size_t k = 0; k < os[d]; k++)
                next[k] = (tap){k, k, 0.0f};
        }
        next += os[d];
    }
    size_t rows = j.out_shape[0] * j.out_shape[1] * j.out_shape[2];
    size_t per_row = j.out_shape[3] * (j.linear ? 4 : 1);
    wnn__parallel_for(rows, per_row >= TASK_ELEMENTS ? 1 : TASK_ELEMENTS / per_row, resample_rows, &j);
    free(all);
    return WNN_OK;
}
