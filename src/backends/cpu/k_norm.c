/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_norm.c -- batchNormalization, instanceNormalization and
** layerNormalization, float32 and float16.
**
** All three compute (x - mean) / sqrt(variance + epsilon) * scale + bias.
** batchNormalization takes mean and variance as operands; the other two
** measure them over groups of elements (an instance's plane, a layer's axes)
** in two passes, in double, so that large means cost no precision. The
** result of each element is computed in double and rounded once to the
** output type (float16 through float32).
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "backends/cpu/half_simd.h"
#include "backends/cpu/k_spatial.h"
#include "platform/pool.h"
#include "backends/cpu/vec.h"

#define TASK_ELEMENTS ((size_t)1 << 14)

static bool is_half(const wnn__view *v) { return v->desc.data_type == WNN_DATA_TYPE_FLOAT16; }

static size_t grain_for(size_t per_item)
{
    return per_item >= TASK_ELEMENTS ? 1 : TASK_ELEMENTS / (per_item ? per_item : 1);
}

/* An optional rank-1 parameter as double, or `fill` when absent. */
static double param(const wnn__view *v, size_t i, double fill)
{
    return v->data ? (double)wnn__load_float(v->data, i, is_half(v)) : fill;
}

static bool check_float(const wnn__view *v)
{
    return v->desc.data_type == WNN_DATA_TYPE_FLOAT32 || v->desc.data_type == WNN_DATA_TYPE_FLOAT16;
}

/* ------------------------------------------------------------------------ */
/* batchNormalization                                                        */
/* ------------------------------------------------------------------------ */

/* The input as [outer, channels, inner] around the axis; per channel the
** factor scale / sqrt(variance + epsilon), the mean and the bias. */
typedef struct batch_job {
    const wnn__view *x, *y;
    size_t channels, inner;
    const double *mean, *factor, *bias;
} batch_job;

static void batch_rows(void *arg, size_t begin, size_t end)
{
    const batch_job *j = arg;
    bool half = is_half(j->x);
    for (size_t r = begin; r < end; r++) {
        size_t c = r % j->channels;
        for (size_t i = r * j->inner; i < (r + 1) * j->inner; i++) {
            double v = ((double)wnn__load_float(j->x->data, i, half) - j->mean[c]) * j->factor[c] + j->bias[c];
            wnn__store_float(j->y->data, i, half, (float)v);
        }
    }
}

wnn_status wnn__k_batch_normalization(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    if (!check_float(&in[0]))
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    const wnn_operand_desc *d = &in[0].desc;
    uint32_t axis = node->attrs.batch_norm.axis;
    size_t outer = wnn__shape_product(d->shape, 0, axis), channels = d->shape[axis];
    size_t inner = wnn__shape_product(d->shape, axis + 1, d->rank);
    double *p = malloc(3 * channels * sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    batch_job j = {&in[0], &out[0], channels, inner, p, p + channels, p + 2 * channels};
    for (size_t c = 0; c < channels; c++) {
        p[c] = param(&in[1], c, 0.0);
        p[channels + c] = param(&in[3], c, 1.0) / sqrt(param(&in[2], c, 1.0) + node->attrs.batch_norm.epsilon);
        p[2 * channels + c] = param(&in[4], c, 0.0);
    }
    wnn__parallel_for(outer * channels, grain_for(inner), batch_rows, &j);
    free(p);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* Groups: instanceNormalization and layerNormalization                      */
/* ------------------------------------------------------------------------ */

/* One group of `count` elements, element k at offset base + off[k] (off
** NULL: base + k * step). Its scale and bias are parameter param_index
** (instance: the channel), or parameter k for element k (layer). */
typedef struct group {
    size_t base, count, step;
    const size_t *off;
    size_t param_index; /* SIZE_MAX: element k takes parameter k */
} group;

typedef struct group_job {
    const wnn__view *x, *y, *scale, *bias;
    double epsilon;
    /* instanceNormalization */
    wnn__spatial4 s;
    /* layerNormalization: groups are the indices of the kept dimensions */
    const size_t *inner_off;
    size_t inner;
    uint32_t kept_rank;
    size_t kept_shape[WNN_MAX_RANK], kept_stride[WNN_MAX_RANK];
} group_job;

static size_t group_at(const group *g, size_t k) { return g->base + (g->off ? g->off[k] : k * g->step); }

static void normalize_group(const group_job *j, const group *g)
{
    bool half = is_half(j->x);
    double sum = 0.0, sq = 0.0;
    for (size_t k = 0; k < g->count; k++)
        sum += wnn__load_float(j->x->data, group_at(g, k), half);
    double mean = sum / (double)g->count;
    for (size_t k = 0; k < g->count; k++) {
        double dv = wnn__load_float(j->x->data, group_at(g, k), half) - mean;
        sq += dv * dv;
    }
    double inv = 1.0 / sqrt(sq / (double)g->count + j->epsilon);
    for (size_t k = 0; k < g->count; k++) {
        size_t at = group_at(g, k), pi = g->param_index == SIZE_MAX ? k : g->param_index;
        double v = ((double)wnn__load_float(j->x->data, at, half) - mean) * inv;
        v = v * param(j->scale, pi, 1.0) + param(j->bias, pi, 0.0);
        wnn__store_float(j->y->data, at, half, (float)v);
    }
}

static void instance_planes(void *arg, size_t begin, size_t end)
{
    const group_job *j = arg;
    for (size_t t = begin; t < end; t++) {
        size_t n = t / j->s.c, c = t % j->s.c;
        /* a plane is contiguous in nchw and strided by the channel count in nhwc */
        group g = {n * j->s.sn + c * j->s.sc, j->s.h * j->s.w, j->s.sw, NULL, c};
        normalize_group(j, &g);
    }
}

wnn_status wnn__k_instance_normalization(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    if (!check_float(&in[0]))
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    group_job j = {&in[0], &out[0], &in[1], &in[2], node->attrs.instance_norm.epsilon,
                   .s = wnn__spatial4_of(&in[0].desc, node->attrs.instance_norm.layout)};
    wnn__parallel_for(j.s.n * j.s.c, grain_for(j.s.h * j.s.w), instance_planes, &j);
    return WNN_OK;
}

/* layerNormalization over trailing axes in order: every group is a
** contiguous row, normalized with vec.h's SIMD primitives in two passes
** (mean, then the squared deviations from it) and one writing pass; float16
** rows are widened and narrowed in the registers, computed in float32. */
typedef struct row_job {
    const wnn__view *x, *y;
    size_t len;
    const float *scale, *bias; /* float32 copies, or NULL when absent */
    double epsilon;
} row_job;

static void layer_rows(void *arg, size_t begin, size_t end)
{
    const row_job *j = arg;
    bool half = is_half(j->x);
    size_t e = half ? 2 : 4; /* bytes per element */
    for (size_t r = begin; r < end; r++) {
        const char *x = (const char *)j->x->data + r * j->len * e;
        char *y = (char *)j->y->data + r * j->len * e;
        float mean = (float)(wnn__vec_sum(x, half, j->len) / (double)j->len);
        double var = wnn__vec_sq_dev(x, half, mean, j->len) / (double)j->len;
        wnn__vec_norm(y, x, half, j->len, mean, (float)(1.0 / sqrt(var + j->epsilon)), j->scale, j->bias);
    }
}

/* A float32 copy of an optional parameter of len elements (NULL if absent);
** *failed on allocation failure. */
static float *param_copy(const wnn__view *v, size_t len, bool *failed)
{
    if (!v->data)
        return NULL;
    float *p = malloc(len * sizeof *p);
    if (!p) {
        *failed = true;
        return NULL;
    }
    for (size_t i = 0; i < len; i++)
        p[i] = (float)param(v, i, 0.0);
    return p;
}

static wnn_status layer_norm_rows(const wnn__node *node, const wnn__view *in, const wnn__view *out, size_t len)
{
    bool failed = false;
    row_job j = {&in[0], &out[0], .len = len, .epsilon = node->attrs.layer_norm.epsilon};
    float *scale = param_copy(&in[1], len, &failed), *bias = param_copy(&in[2], len, &failed);
    if (failed) {
        free(scale);
        free(bias);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    j.scale = scale;
    j.bias = bias;
    size_t rows = wnn__view_count(&in[0]) / len;
    wnn__parallel_for(rows, grain_for(len), layer_rows, &j);
    free(scale);
    free(bias);
    return WNN_OK;
}

static void layer_groups(void *arg, size_t begin, size_t end)
{
    const group_job *j = arg;
    for (size_t t = begin; t < end; t++) {
        size_t base = 0, rest = t;
        for (uint32_t d = j->kept_rank; d-- > 0;) {
            base += rest % j->kept_shape[d] * j->kept_stride[d];
            rest /= j->kept_shape[d];
        }
        group g = {base, j->inner, 0, j->inner_off, SIZE_MAX};
        normalize_group(j, &g);
    }
}

wnn_status wnn__k_layer_normalization(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    if (!check_float(&in[0]))
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    const wnn_operand_desc *d = &in[0].desc;
    const uint32_t *axes = node->attrs.layer_norm.axes;
    uint32_t n_axes = node->attrs.layer_norm.axes_count;
    size_t stride[WNN_MAX_RANK];
    bool normalized[WNN_MAX_RANK] = {false};
    wnn__shape_strides(d, stride);
    group_job j = {&in[0], &out[0], &in[1], &in[2], node->attrs.layer_norm.epsilon, .inner = 1};
    bool trailing = n_axes > 0;
    for (uint32_t k = 0; k < n_axes; k++) {
        normalized[axes[k]] = true;
        j.inner *= d->shape[axes[k]];
        trailing = trailing && axes[k] == d->rank - n_axes + k;
    }
    if (trailing && j.inner > 0)
        return layer_norm_rows(node, in, out, j.inner);
    size_t groups = 1;
    for (uint32_t i = 0; i < d->rank; i++)
        if (!normalized[i]) {
            j.kept_shape[j.kept_rank] = d->shape[i];
            j.kept_stride[j.kept_rank++] = stride[i];
            groups *= d->shape[i];
        }
    /* Offsets of a group's elements in the order of axes, which is the
    ** order of scale's and bias's elements. */
    size_t *off = malloc(j.inner * sizeof *off);
    if (!off)
        return WNN_STATUS_OUT_OF_MEMORY;
    for (size_t k = 0; k < j.inner; k++) {
        size_t rest = k, o = 0;
        for (uint32_t a = n_axes; a-- > 0;) {
            o += rest % d->shape[axes[a]] * stride[axes[a]];
            rest /= d->shape[axes[a]];
        }
        off[k] = o;
    }
    j.inner_off = off;
    wnn__parallel_for(groups, grain_for(j.inner), layer_groups, &j);
    free(off);
    return WNN_OK;
}
