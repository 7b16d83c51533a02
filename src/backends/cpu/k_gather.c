/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_gather.c -- cpu kernels of gather, gatherElements, gatherND,
** scatterElements and scatterND.
**
** Values are only moved, so every data type goes through the same byte
** copies. Indices (int32, uint32 or int64) are read as int64; an index i into
** a dimension of size n is clamped into [-n, n-1] and a negative one counts
** from the end, so no index value can read or write outside a tensor.
** Scatters run in row-major order of the indices: a later update of the same
** element wins.
*/
#include <stdint.h>
#include <string.h>

#include "backends/cpu/kernels.h"
#include "platform/pool.h"

#define PARALLEL_MIN ((size_t)1 << 16)
#define PARALLEL_GRAIN ((size_t)1 << 14)

static inline int64_t load_index(const wnn__view *v, size_t i)
{
    switch (v->desc.data_type) {
    case WNN_DATA_TYPE_INT32: return ((const int32_t *)v->data)[i];
    case WNN_DATA_TYPE_UINT32: return ((const uint32_t *)v->data)[i];
    default: return ((const int64_t *)v->data)[i];
    }
}

static inline size_t resolve(int64_t i, size_t n)
{
    int64_t s = (int64_t)n;
    if (i < -s)
        i = -s;
    else if (i >= s)
        i = s - 1;
    return (size_t)(i < 0 ? i + s : i);
}

static size_t element_size(const wnn__view *v)
{
    return wnn_data_type_size(v->desc.data_type);
}

/* ------------------------------------------------------------------------ */
/* gather                                                                    */
/* ------------------------------------------------------------------------ */

/* The input is [outer, n, after]; output row (o, i) is input row
** (o, indices[i]), a run of `after` elements. */
typedef struct gather_job {
    const char *in;
    char *out;
    const wnn__view *indices;
    size_t count, n, after, bytes; /* bytes: one row */
} gather_job;

static void gather_rows(void *arg, size_t begin, size_t end)
{
    const gather_job *j = arg;
    for (size_t row = begin; row < end; row++) {
        size_t o = row / j->count, i = row % j->count;
        size_t r = resolve(load_index(j->indices, i), j->n);
        memcpy(j->out + row * j->bytes, j->in + (o * j->n + r) * j->bytes, j->bytes);
    }
}

wnn_status wnn__k_gather(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    const wnn_operand_desc *d = &in[0].desc;
    uint32_t axis = node->attrs.axis.axis;
    gather_job j = {.in = in[0].data, .out = out[0].data, .indices = &in[1], .count = wnn__view_count(&in[1]),
                    .n = d->shape[axis]};
    j.after = wnn__shape_product(d->shape, axis + 1, d->rank);
    j.bytes = j.after * element_size(&in[0]);
    size_t rows = wnn__shape_product(d->shape, 0, axis) * j.count;
    if (rows * j.after > PARALLEL_MIN)
        wnn__parallel_for(rows, PARALLEL_GRAIN / j.after + 1, gather_rows, &j);
    else
        gather_rows(&j, 0, rows);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* gatherElements and scatterElements                                        */
/* ------------------------------------------------------------------------ */

/* Walks the positions p of indices' shape in row-major order and calls back
** with p's flat position and the flat offset, in data's shape (strides), of
** p with p[axis] replaced by the resolved index. */
typedef void (*element_fn)(void *arg, size_t pos, size_t target);

static void walk_elements(const wnn__view *indices, const wnn_operand_desc *data, uint32_t axis, element_fn fn,
                          void *arg)
{
    const wnn_operand_desc *id = &indices->desc;
    size_t stride[WNN_MAX_RANK], idx[WNN_MAX_RANK] = {0};
    wnn__shape_strides(data, stride);
    size_t n = wnn__view_count(indices), base = 0, dim = data->shape[axis];
    for (size_t pos = 0; pos < n; pos++) {
        fn(arg, pos, base + resolve(load_index(indices, pos), dim) * stride[axis]);
        for (uint32_t d = id->rank; d-- > 0;) {
            if (d != axis)
                base += stride[d];
            if (++idx[d] < id->shape[d])
                break;
            if (d != axis)
                base -= id->shape[d] * stride[d];
            idx[d] = 0;
        }
    }
}

typedef struct element_copy {
    const char *src;
    char *dst;
    size_t size;
    bool scatter; /* write at target from pos, else read target into pos */
} element_copy;

static void copy_one(void *arg, size_t pos, size_t target)
{
    const element_copy *c = arg;
    if (c->scatter)
        memcpy(c->dst + target * c->size, c->src + pos * c->size, c->size);
    else
        memcpy(c->dst + pos * c->size, c->src + target * c->size, c->size);
}

wnn_status wnn__k_gather_elements(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    element_copy c = {in[0].data, out[0].data, element_size(&in[0]), false};
    walk_elements(&in[1], &in[0].desc, node->attrs.axis.axis, copy_one, &c);
    return WNN_OK;
}

wnn_status wnn__k_scatter_elements(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    size_t size = element_size(&in[0]);
    memcpy(out[0].data, in[0].data, wnn__view_count(&out[0]) * size);
    element_copy c = {in[2].data, out[0].data, size, true};
    walk_elements(&in[1], &in[0].desc, node->attrs.axis.axis, copy_one, &c);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* gatherND and scatterND                                                    */
/* ------------------------------------------------------------------------ */

/* indices is [..., k]; tuple t addresses a block of data's trailing
** dimensions from k on. Returns the block's element offset in data. */
static size_t nd_offset(const wnn__view *indices, size_t t, uint32_t k, const wnn_operand_desc *data,
                        const size_t *stride)
{
    size_t off = 0;
    for (uint32_t j = 0; j < k; j++)
        off += resolve(load_index(indices, t * k + j), data->shape[j]) * stride[j];
    return off;
}

wnn_status wnn__k_gather_nd(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    (void)node;
    const wnn_operand_desc *d = &in[0].desc;
    uint32_t k = in[1].desc.shape[in[1].desc.rank - 1];
    size_t stride[WNN_MAX_RANK];
    wnn__shape_strides(d, stride);
    size_t bytes = wnn__shape_product(d->shape, k, d->rank) * element_size(&in[0]);
    size_t tuples = wnn__view_count(&in[1]) / k;
    const char *src = in[0].data;
    char *dst = out[0].data;
    for (size_t t = 0; t < tuples; t++)
        memcpy(dst + t * bytes, src + nd_offset(&in[1], t, k, d, stride) * element_size(&in[0]), bytes);
    return WNN_OK;
}

wnn_status wnn__k_scatter_nd(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    (void)node;
    const wnn_operand_desc *d = &in[0].desc;
    size_t size = element_size(&in[0]);
    memcpy(out[0].data, in[0].data, wnn__view_count(&out[0]) * size);
    uint32_t k = in[1].desc.shape[in[1].desc.rank - 1];
    size_t stride[WNN_MAX_RANK];
    wnn__shape_strides(d, stride);
    size_t bytes = wnn__shape_product(d->shape, k, d->rank) * size;
    size_t tuples = wnn__view_count(&in[1]) / k;
    const char *src = in[2].data;
    char *dst = out[0].data;
    for (size_t t = 0; t < tuples; t++)
        memcpy(dst + nd_offset(&in[1], t, k, d, stride) * size, src + t * bytes, bytes);
    return WNN_OK;
}
