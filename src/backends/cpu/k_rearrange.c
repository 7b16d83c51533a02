/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_rearrange.c -- cpu kernels of expand, tile, pad, reverse, triangular and
** split.
**
** None of them computes with values, so one byte-moving path serves every
** data type. Expand, tile, pad and reverse are all "output coordinate d reads
** input coordinate f_d(o)" with an independent f per dimension: a table per
** output dimension holds the input offset each coordinate reads (or PADDED
** for a constant-padded one), and one walker fills the output from the
** tables.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/kernels.h"
#include "platform/pool.h"
#include "core/half.h"

#define PARALLEL_MIN ((size_t)1 << 16)
#define PARALLEL_GRAIN ((size_t)1 << 14)
#define PADDED SIZE_MAX

/* Copies one element of size bytes; fixed sizes compile to a move. */
static inline void copy_element(char *dst, const char *src, size_t size)
{
    switch (size) {
    case 1: memcpy(dst, src, 1); break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, size); break;
    }
}

/* ------------------------------------------------------------------------ */
/* The per-dimension index map                                              */
/* ------------------------------------------------------------------------ */

typedef struct index_map {
    uint32_t rank;                       /* >= 1; a scalar is one dimension of 1 */
    size_t shape[WNN_MAX_RANK];          /* output dimensions */
    size_t *table[WNN_MAX_RANK];         /* per dimension: input offset or PADDED */
    size_t *storage;
    const char *in;
    char *out;
    size_t size;                         /* element size in bytes */
    unsigned char fill[8];               /* the constant pad value's bytes */
} index_map;

/* Allocates the tables for out's shape; the caller fills them. */
static wnn_status map_init(index_map *m, const wnn__view *in, const wnn__view *out)
{
    *m = (index_map){.in = in->data, .out = out->data, .size = wnn_data_type_size(out->desc.data_type)};
    m->rank = out->desc.rank ? out->desc.rank : 1;
    size_t total = 0;
    for (uint32_t d = 0; d < m->rank; d++) {
        m->shape[d] = out->desc.rank ? out->desc.shape[d] : 1;
        total += m->shape[d];
    }
    m->storage = malloc(sizeof *m->storage * total);
    if (!m->storage)
        return WNN_STATUS_OUT_OF_MEMORY;
    size_t at = 0;
    for (uint32_t d = 0; d < m->rank; d++) {
        m->table[d] = m->storage + at;
        at += m->shape[d];
    }
    return WNN_OK;
}

/* Input element strides aligned right against the output's rank; dimensions
** the input lacks get stride 0 and size 1. */
static void input_geometry(const wnn__view *in, uint32_t rank, size_t *dims, size_t *stride)
{
    uint32_t lead = rank - in->desc.rank;
    size_t step = 1;
    for (uint32_t d = rank; d-- > 0;) {
        if (d < lead) {
            dims[d] = 1;
            stride[d] = 0;
            continue;
        }
        dims[d] = in->desc.shape[d - lead];
        stride[d] = step;
        step *= dims[d];
    }
}

static void map_range(void *arg, size_t begin, size_t end)
{
    const index_map *m = arg;
    uint32_t last = m->rank - 1;
    size_t inner = m->shape[last];
    size_t idx[WNN_MAX_RANK] = {0};
    size_t rest = begin / inner;
    for (uint32_t d = last; d-- > 0;) {
        idx[d] = rest % m->shape[d];
        rest /= m->shape[d];
    }
    size_t col = begin % inner;
    const size_t *row_table = m->table[last];
    for (size_t pos = begin; pos < end;) {
        size_t base = 0;
        bool padded = false;
        for (uint32_t d = 0; d < last; d++) {
            size_t t = m->table[d][idx[d]];
            if (t == PADDED)
                padded = true;
            else
                base += t;
        }
        size_t stop = inner - col < end - pos ? inner : col + (end - pos);
        for (; col < stop; col++, pos++) {
            size_t t = row_table[col];
            const char *src = padded || t == PADDED ? (const char *)m->fill : m->in + (base + t) * m->size;
            copy_element(m->out + pos * m->size, src, m->size);
        }
        col = 0;
        for (uint32_t d = last; d-- > 0;) {
            if (++idx[d] < m->shape[d])
                break;
            idx[d] = 0;
        }
    }
}

static wnn_status map_run(index_map *m, size_t n)
{
    if (n > PARALLEL_MIN)
        wnn__parallel_for(n, PARALLEL_GRAIN, map_range, m);
    else if (n)
        map_range(m, 0, n);
    free(m->storage);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* expand, tile, reverse, pad                                                */
/* ------------------------------------------------------------------------ */

typedef enum map_kind { MAP_EXPAND, MAP_TILE, MAP_REVERSE } map_kind;

/* The three maps without padding; they differ only in f_d. */
static wnn_status run_simple(const wnn__node *node, const wnn__view *in, const wnn__view *out, map_kind kind)
{
    index_map m;
    if (map_init(&m, &in[0], &out[0]) != WNN_OK)
        return WNN_STATUS_OUT_OF_MEMORY;
    size_t dims[WNN_MAX_RANK], stride[WNN_MAX_RANK];
    input_geometry(&in[0], m.rank, dims, stride);
    for (uint32_t d = 0; d < m.rank; d++) {
        bool flip = kind == MAP_REVERSE && (node->attrs.reverse.mask >> d & 1u);
        for (size_t o = 0; o < m.shape[d]; o++) {
            size_t c = o;
            if (kind == MAP_EXPAND)
                c = dims[d] == 1 ? 0 : o;
            else if (kind == MAP_TILE)
                c = o % dims[d];
            else if (flip)
                c = m.shape[d] - 1 - o;
            m.table[d][o] = c * stride[d];
        }
    }
    return map_run(&m, wnn__view_count(&out[0]));
}

wnn_status wnn__k_expand(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return run_simple(node, in, out, MAP_EXPAND);
}

wnn_status wnn__k_tile(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return run_simple(node, in, out, MAP_TILE);
}

wnn_status wnn__k_reverse(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return run_simple(node, in, out, MAP_REVERSE);
}

/* Input coordinate of padded coordinate o (begin already subtracted, so
** -begin <= p < n + end) for edge and reflection; reflection padding is
** below n, so one mirror suffices. */
static size_t pad_source(int64_t p, int64_t n, wnn_pad_mode mode)
{
    if (mode == WNN_PAD_MODE_EDGE)
        return (size_t)(p < 0 ? 0 : p >= n ? n - 1 : p);
    if (p < 0)
        p = -p;
    if (p >= n)
        p = 2 * (n - 1) - p;
    return (size_t)p;
}

wnn_status wnn__k_pad(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    index_map m;
    if (map_init(&m, &in[0], &out[0]) != WNN_OK)
        return WNN_STATUS_OUT_OF_MEMORY;
    wnn_pad_mode mode = node->attrs.pad.mode;
    wnn__number_encode(out[0].desc.data_type, node->attrs.pad.value, false, 0, m.fill);
    size_t dims[WNN_MAX_RANK], stride[WNN_MAX_RANK];
    input_geometry(&in[0], m.rank, dims, stride);
    for (uint32_t d = 0; d < m.rank; d++) {
        int64_t begin = node->attrs.pad.begin[d], n = (int64_t)dims[d];
        for (size_t o = 0; o < m.shape[d]; o++) {
            int64_t p = (int64_t)o - begin;
            if (p >= 0 && p < n)
                m.table[d][o] = (size_t)p * stride[d];
            else if (mode == WNN_PAD_MODE_CONSTANT)
                m.table[d][o] = PADDED;
            else
                m.table[d][o] = pad_source(p, n, mode) * stride[d];
        }
    }
    return map_run(&m, wnn__view_count(&out[0]));
}

/* ------------------------------------------------------------------------ */
/* triangular and split                                                      */
/* ------------------------------------------------------------------------ */

/* Row i of each [H, W] matrix keeps columns [lo, hi) and zeroes the rest. */
wnn_status wnn__k_triangular(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    const wnn_operand_desc *d = &out[0].desc;
    size_t size = wnn_data_type_size(d->data_type);
    size_t h = d->shape[d->rank - 2], w = d->shape[d->rank - 1];
    size_t rows = wnn__view_count(&out[0]) / w;
    int64_t diagonal = node->attrs.triangular.diagonal;
    bool upper = node->attrs.triangular.upper;
    const char *src = in[0].data;
    char *dst = out[0].data;
    for (size_t r = 0; r < rows; r++) {
        int64_t i = (int64_t)(r % h), edge = i + diagonal;
        int64_t lo = upper ? edge : 0, hi = upper ? (int64_t)w : edge + 1;
        lo = lo < 0 ? 0 : lo > (int64_t)w ? (int64_t)w : lo;
        hi = hi < lo ? lo : hi > (int64_t)w ? (int64_t)w : hi;
        char *row = dst + r * w * size;
        memset(row, 0, (size_t)lo * size);
        memcpy(row + (size_t)lo * size, src + (r * w + (size_t)lo) * size, (size_t)(hi - lo) * size);
        memset(row + (size_t)hi * size, 0, (w - (size_t)hi) * size);
    }
    return WNN_OK;
}

/* The input is [outer, axis, after]; output k takes a band of its own axis
** length from each of the outer blocks. */
wnn_status wnn__k_split(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    const wnn_operand_desc *d = &in[0].desc;
    uint32_t axis = node->attrs.axis.axis;
    size_t size = wnn_data_type_size(d->data_type);
    size_t outer = wnn__shape_product(d->shape, 0, axis);
    size_t after = wnn__shape_product(d->shape, axis + 1, d->rank);
    size_t in_block = d->shape[axis] * after * size;
    size_t offset = 0;
    for (uint32_t k = 0; k < node->n_out; k++) {
        size_t band = out[k].desc.shape[axis] * after * size;
        const char *src = (const char *)in[0].data + offset;
        char *dst = out[k].data;
        for (size_t o = 0; o < outer; o++)
            memcpy(dst + o * band, src + o * in_block, band);
        offset += band;
    }
    return WNN_OK;
}
