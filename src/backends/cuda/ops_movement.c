/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_movement.c -- the host side of the operators that move elements
** without computing: reshape and identity (a copy the planner may alias),
** transpose, slice, expand and reverse (one strided copy), concat and split
** (rows of bytes), tile and pad (per-dimension index tables), triangular.
*/
#include <string.h>

#include "backends/cuda/cuda_ops.h"

/* ---- copies ------------------------------------------------------------------------ */

typedef struct copy_plan {
    size_t bytes;
} copy_plan;

static wnn_status run_copy(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const copy_plan *p = n->plan;
    return wnn__cu_status(cudaMemcpyAsync(out_ptr(x, n, 0), in_ptr(x, n, 0), p->bytes, cudaMemcpyDeviceToDevice,
                                          x->stream));
}

bool wnn__cu_contiguous_part(const wnn_operand_desc *in, const wnn_operand_desc *out)
{
    if (in->rank != out->rank || in->data_type != out->data_type)
        return false;
    uint32_t k = 0; /* the first axis cut short; those before it must be 1, those after it whole */
    while (k < in->rank && out->shape[k] == in->shape[k])
        k++;
    for (uint32_t i = 0; i < k && k < in->rank; i++)
        if (in->shape[i] != 1)
            return false;
    for (uint32_t i = k + 1; i < in->rank; i++)
        if (out->shape[i] != in->shape[i])
            return false;
    return true;
}

/* Output 0 is a bit-exact copy of input 0 (reshape, identity, same-type
** cast); the planner may let it share the input's memory instead. */
wnn_status wnn__cu_prep_copy(const wnn__ir *ir, wnn__cu_node *n)
{
    copy_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->bytes = (size_t)wnn_operand_desc_byte_length(out_desc(ir, n->node, 0));
    n->run = run_copy;
    n->alias = true;
    return WNN_OK;
}

/* reshape and identity copy bytes, so packed int4/uint4 pass too */
wnn_status wnn__cu_prep_identity(const wnn__ir *ir, wnn__cu_node *n) { return wnn__cu_prep_copy(ir, n); }

/* ---- strided copies: transpose, slice, expand, reverse ----------------------------------- */

typedef struct strided_plan {
    uint32_t size;
    int64_t base;  /* input element offset of the first output element */
    bool memcpy_ok; /* one contiguous run: a plain copy */
    wnn__cu_strided s;
} strided_plan;

static wnn_status run_strided(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const strided_plan *p = n->plan;
    const char *src = (const char *)in_ptr(x, n, 0) + p->base * (int64_t)p->size;
    if (p->memcpy_ok)
        return wnn__cu_status(cudaMemcpyAsync(out_ptr(x, n, 0), src, p->s.count * p->size, cudaMemcpyDeviceToDevice,
                                              x->stream));
    return wnn__cu_status(wnn__cu_copy_strided(x->stream, p->size, &p->s, src, out_ptr(x, n, 0)));
}

/* Plans out (shape, walked in row-major order) reading the input at base +
** sum(index[d] * src_stride[d]). */
static wnn_status prep_strided(wnn__cu_node *n, const wnn_operand_desc *out, const int64_t *src_stride, int64_t base)
{
    if (!is_element_type(out->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    strided_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->size = elem_size(out->data_type);
    p->base = base;
    int64_t dst_stride[WNN_MAX_RANK];
    signed_strides(out, dst_stride);
    wnn__cu_strided *s = &p->s;
    s->count = wnn__shape_count(out);
    for (uint32_t i = 0; i < out->rank; i++) {
        uint32_t dim = out->shape[i];
        if (dim == 1)
            continue;
        if (s->rank > 0 && s->src_stride[s->rank - 1] == src_stride[i] * dim &&
            s->dst_stride[s->rank - 1] == dst_stride[i] * dim) {
            s->shape[s->rank - 1] *= dim;
            s->src_stride[s->rank - 1] = src_stride[i];
            s->dst_stride[s->rank - 1] = dst_stride[i];
            continue;
        }
        s->shape[s->rank] = dim;
        s->src_stride[s->rank] = src_stride[i];
        s->dst_stride[s->rank] = dst_stride[i];
        s->rank++;
    }
    if (s->rank == 0) {
        s->rank = 1;
        s->shape[0] = 1;
        s->src_stride[0] = s->dst_stride[0] = 1;
    }
    p->memcpy_ok = s->rank == 1 && s->src_stride[0] == 1;
    n->run = run_strided;
    return WNN_OK;
}

wnn_status wnn__cu_prep_transpose(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *out = out_desc(ir, n->node, 0);
    int64_t in_stride[WNN_MAX_RANK], src[WNN_MAX_RANK];
    signed_strides(in, in_stride);
    for (uint32_t i = 0; i < out->rank; i++)
        src[i] = in_stride[n->node->attrs.transpose.perm[i]];
    return prep_strided(n, out, src, 0);
}

wnn_status wnn__cu_prep_slice(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *out = out_desc(ir, n->node, 0);
    int64_t in_stride[WNN_MAX_RANK], src[WNN_MAX_RANK], base = 0;
    signed_strides(in, in_stride);
    bool steps_1 = true;
    for (uint32_t i = 0; i < out->rank; i++) {
        base += (int64_t)n->node->attrs.slice.starts[i] * in_stride[i];
        src[i] = (int64_t)n->node->attrs.slice.strides[i] * in_stride[i];
        steps_1 = steps_1 && n->node->attrs.slice.strides[i] == 1;
    }
    wnn_status s = prep_strided(n, out, src, base);
    /* a slice that is one contiguous run of its input may be a view of it */
    if (s == WNN_OK && steps_1 && wnn__cu_contiguous_part(in, out)) {
        n->alias = true;
        n->alias_offset = (size_t)base * elem_size(out->data_type);
    }
    return s;
}

wnn_status wnn__cu_prep_expand(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *out = out_desc(ir, n->node, 0);
    size_t stride[WNN_MAX_RANK];
    int64_t src[WNN_MAX_RANK];
    wnn__broadcast_strides(in, out->rank, stride);
    for (uint32_t i = 0; i < out->rank; i++)
        src[i] = (int64_t)stride[i];
    return prep_strided(n, out, src, 0);
}

wnn_status wnn__cu_prep_reverse(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *out = out_desc(ir, n->node, 0);
    int64_t src[WNN_MAX_RANK], base = 0;
    signed_strides(in, src);
    for (uint32_t i = 0; i < in->rank; i++)
        if (n->node->attrs.reverse.mask >> i & 1u) {
            base += (int64_t)(in->shape[i] - 1) * src[i];
            src[i] = -src[i];
        }
    return prep_strided(n, out, src, base);
}

/* ---- concat and split: rows of bytes ------------------------------------------------------ */

typedef struct rows_part {
    uint64_t row_bytes, offset; /* offset: bytes into each row of the whole */
} rows_part;

typedef struct rows_plan {
    uint64_t rows, whole_row; /* whole_row: bytes of a row of the unsplit tensor */
    uint32_t parts;
    rows_part part[];
} rows_plan;

static wnn_status run_concat(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const rows_plan *p = n->plan;
    char *dst = out_ptr(x, n, 0);
    for (uint32_t k = 0; k < p->parts; k++) {
        const rows_part *q = &p->part[k];
        cudaError_t e = wnn__cu_copy_rows(x->stream, p->rows, q->row_bytes, q->row_bytes, p->whole_row,
                                          in_ptr(x, n, k), dst + q->offset);
        if (e != cudaSuccess)
            return wnn__cu_status(e);
    }
    return WNN_OK;
}

static wnn_status run_split(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const rows_plan *p = n->plan;
    const char *src = in_ptr(x, n, 0);
    for (uint32_t k = 0; k < p->parts; k++) {
        const rows_part *q = &p->part[k];
        cudaError_t e = wnn__cu_copy_rows(x->stream, p->rows, q->row_bytes, p->whole_row, q->row_bytes,
                                          src + q->offset, out_ptr(x, n, k));
        if (e != cudaSuccess)
            return wnn__cu_status(e);
    }
    return WNN_OK;
}

static wnn_status prep_rows(const wnn__ir *ir, wnn__cu_node *n, bool concat)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *whole = concat ? out_desc(ir, node, 0) : in_desc(ir, node, 0);
    uint32_t parts = concat ? node->n_in : node->n_out, axis = node->attrs.axis.axis;
    if (!is_element_type(whole->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    rows_plan *p = new_plan(n, sizeof *p + parts * sizeof(rows_part));
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    uint64_t size = elem_size(whole->data_type), after = wnn__shape_product(whole->shape, axis + 1, whole->rank);
    p->rows = wnn__shape_product(whole->shape, 0, axis);
    p->whole_row = whole->shape[axis] * after * size;
    p->parts = parts;
    uint64_t offset = 0;
    for (uint32_t k = 0; k < parts; k++) {
        const wnn_operand_desc *d = concat ? in_desc(ir, node, k) : out_desc(ir, node, k);
        p->part[k].row_bytes = d->shape[axis] * after * size;
        p->part[k].offset = offset;
        offset += p->part[k].row_bytes;
    }
    n->run = concat ? run_concat : run_split;
    return WNN_OK;
}

wnn_status wnn__cu_prep_concat(const wnn__ir *ir, wnn__cu_node *n) { return prep_rows(ir, n, true); }
wnn_status wnn__cu_prep_split(const wnn__ir *ir, wnn__cu_node *n) { return prep_rows(ir, n, false); }

/* ---- index maps: tile, pad ------------------------------------------------------------------ */

typedef struct map_plan {
    uint32_t size;
    wnn__cu_index_map m;
} map_plan;

static wnn_status run_index_map(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const map_plan *p = n->plan;
    return wnn__cu_status(
        wnn__cu_index_map_run(x->stream, p->size, &p->m, x->aux, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

/* Input coordinate of padded coordinate p (-begin <= p < n + end) for edge
** and reflection padding. */
static int64_t pad_source(int64_t p, int64_t n, wnn_pad_mode mode)
{
    if (mode == WNN_PAD_MODE_EDGE)
        return p < 0 ? 0 : p >= n ? n - 1 : p;
    if (p < 0)
        p = -p;
    if (p >= n)
        p = 2 * (n - 1) - p;
    return p;
}

wnn_status wnn__cu_prep_index_map(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *in = in_desc(ir, node, 0), *out = out_desc(ir, node, 0);
    if (!is_element_type(out->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    map_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->size = elem_size(out->data_type);
    wnn__cu_index_map *m = &p->m;
    m->rank = out->rank ? out->rank : 1;
    m->count = wnn__shape_count(out);
    uint64_t total = 0;
    for (uint32_t d = 0; d < m->rank; d++) {
        m->shape[d] = out->rank ? out->shape[d] : 1;
        m->table_at[d] = (uint32_t)total;
        total += m->shape[d];
    }
    int64_t *table = malloc(total * sizeof *table);
    if (!table)
        return WNN_STATUS_OUT_OF_MEMORY;
    int64_t in_stride[WNN_MAX_RANK];
    signed_strides(in, in_stride);
    if (node->op == WNN__OP_PAD) {
        uint64_t bits = 0; /* the element's bytes, the rest zero */
        wnn__number_encode(out->data_type, node->attrs.pad.value, false, 0, &bits);
        m->fill = bits;
    }
    for (uint32_t d = 0; d < m->rank; d++) {
        int64_t dim = in->rank ? in->shape[d] : 1, stride = in->rank ? in_stride[d] : 0;
        for (uint32_t o = 0; o < m->shape[d]; o++) {
            int64_t *t = &table[m->table_at[d] + o];
            if (node->op == WNN__OP_TILE) {
                *t = (int64_t)(o % dim) * stride;
                continue;
            }
            int64_t q = (int64_t)o - node->attrs.pad.begin[d];
            if (q >= 0 && q < dim)
                *t = q * stride;
            else if (node->attrs.pad.mode == WNN_PAD_MODE_CONSTANT)
                *t = INT64_MIN / 16; /* any negative entry pads; the sum stays negative */
            else
                *t = pad_source(q, dim, node->attrs.pad.mode) * stride;
        }
    }
    n->aux_host = table;
    n->aux_bytes = total * sizeof *table;
    n->run = run_index_map;
    return WNN_OK;
}

/* ---- triangular -------------------------------------------------------------------------- */

typedef struct triangular_plan {
    uint32_t size, h, w;
    uint64_t count;
    bool upper;
    int32_t diagonal;
} triangular_plan;

static wnn_status run_triangular(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const triangular_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_triangular(x->stream, p->size, p->count, p->h, p->w, p->upper, p->diagonal,
                                             in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_triangular(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *d = out_desc(ir, n->node, 0);
    if (!is_element_type(d->data_type) || d->rank < 2)
        return WNN_STATUS_NOT_SUPPORTED;
    triangular_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->size = elem_size(d->data_type);
    p->h = d->shape[d->rank - 2];
    p->w = d->shape[d->rank - 1];
    p->count = wnn__shape_count(d);
    p->upper = n->node->attrs.triangular.upper;
    p->diagonal = n->node->attrs.triangular.diagonal;
    n->run = run_triangular;
    return WNN_OK;
}
