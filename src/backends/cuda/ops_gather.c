/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_gather.c -- the host side of gather, gatherElements, gatherND,
** scatterElements and scatterND (kernels_movement.cu). Scatters copy the
** input first, then write the updates; the node's scratch holds one int32
** per output element so that duplicate indices resolve as on the cpu.
*/
#include "backends/cuda/cuda_ops.h"

/* ---- gather and scatter ------------------------------------------------------------------- */

typedef struct gather_plan {
    uint32_t size;
    wnn_data_type index_type;
    uint64_t out_count;
    union {
        wnn__cu_gather g;
        wnn__cu_elements e;
        wnn__cu_nd nd;
    } u;
} gather_plan;

static wnn_status run_gather(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gather_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_gather_run(x->stream, p->size, p->index_type, &p->u.g, in_ptr(x, n, 0),
                                             in_ptr(x, n, 1), out_ptr(x, n, 0)));
}

static wnn_status run_gather_elements(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gather_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_gather_elements(x->stream, p->size, p->index_type, &p->u.e, in_ptr(x, n, 0),
                                                  in_ptr(x, n, 1), out_ptr(x, n, 0)));
}

static wnn_status run_gather_nd(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gather_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_gather_nd(x->stream, p->size, p->index_type, &p->u.nd, in_ptr(x, n, 0),
                                            in_ptr(x, n, 1), out_ptr(x, n, 0)));
}

/* Scatters start from a copy of the input. */
static wnn_status scatter_copy(const wnn__cu_exec *x, const wnn__cu_node *n, const gather_plan *p)
{
    return wnn__cu_status(cudaMemcpyAsync(out_ptr(x, n, 0), in_ptr(x, n, 0), p->out_count * p->size,
                                          cudaMemcpyDeviceToDevice, x->stream));
}

static wnn_status run_scatter_elements(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gather_plan *p = n->plan;
    wnn_status s = scatter_copy(x, n, p);
    if (s == WNN_OK)
        s = wnn__cu_status(wnn__cu_scatter_elements(x->stream, p->size, p->index_type, &p->u.e, in_ptr(x, n, 1),
                                                    in_ptr(x, n, 2), out_ptr(x, n, 0), x->scratch, p->out_count));
    return s;
}

static wnn_status run_scatter_nd(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gather_plan *p = n->plan;
    wnn_status s = scatter_copy(x, n, p);
    if (s == WNN_OK)
        s = wnn__cu_status(wnn__cu_scatter_nd(x->stream, p->size, p->index_type, &p->u.nd, in_ptr(x, n, 1),
                                              in_ptr(x, n, 2), out_ptr(x, n, 0), x->scratch, p->out_count));
    return s;
}

static wnn_status prep_gather_common(const wnn__ir *ir, wnn__cu_node *n, gather_plan **out)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *in = in_desc(ir, node, 0);
    if (!is_element_type(in->data_type) || !has_in(node, 1) || !is_index_type(in_desc(ir, node, 1)->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    gather_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->size = elem_size(in->data_type);
    p->index_type = in_desc(ir, node, 1)->data_type;
    p->out_count = wnn__shape_count(out_desc(ir, node, 0));
    *out = p;
    return WNN_OK;
}

/* The one index of constant v (int32, uint32 or int64). */
static bool constant_index(const wnn__value *v, int64_t *out)
{
    switch (v->desc.data_type) {
    case WNN_DATA_TYPE_INT32: *out = *(const int32_t *)v->data; return true;
    case WNN_DATA_TYPE_UINT32: *out = *(const uint32_t *)v->data; return true;
    case WNN_DATA_TYPE_INT64: *out = *(const int64_t *)v->data; return true;
    default: return false;
    }
}

wnn_status wnn__cu_prep_gather(const wnn__ir *ir, wnn__cu_node *n)
{
    gather_plan *p;
    wnn_status s = prep_gather_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    const wnn_operand_desc *in = in_desc(ir, n->node, 0);
    uint32_t axis = n->node->attrs.axis.axis;
    p->u.g.outer = wnn__shape_product(in->shape, 0, axis);
    p->u.g.axis_len = in->shape[axis];
    p->u.g.inner = wnn__shape_product(in->shape, axis + 1, in->rank);
    p->u.g.n_idx = wnn__shape_count(in_desc(ir, n->node, 1));
    p->u.g.count = p->out_count;
    n->run = run_gather;
    /* one constant index after axes of 1: the output is one contiguous run
    ** of the input, which the planner may make a view of it */
    const wnn__value *iv = &ir->values[n->node->in[1]];
    int64_t at;
    if (p->u.g.outer == 1 && p->u.g.n_idx == 1 && iv->kind == WNN__VALUE_CONSTANT && iv->data &&
        constant_index(iv, &at)) {
        int64_t len = (int64_t)p->u.g.axis_len; /* clamped and wrapped as the kernel does */
        at = at < -len ? -len : at >= len ? len - 1 : at;
        at = at < 0 ? at + len : at;
        n->alias = true;
        n->alias_offset = (size_t)at * p->u.g.inner * elem_size(in->data_type);
    }
    return WNN_OK;
}

static wnn_status prep_elements(const wnn__ir *ir, wnn__cu_node *n, bool scatter)
{
    gather_plan *p;
    wnn_status s = prep_gather_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *idx = in_desc(ir, n->node, 1);
    uint32_t axis = n->node->attrs.axis.axis;
    p->u.e.outer = wnn__shape_product(idx->shape, 0, axis);
    p->u.e.inner = wnn__shape_product(idx->shape, axis + 1, idx->rank);
    p->u.e.idx_axis = idx->shape[axis];
    p->u.e.in_axis = in->shape[axis];
    p->u.e.count = wnn__shape_count(idx);
    if (scatter) {
        if (!has_in(n->node, 2) || p->u.e.count > INT32_MAX)
            return WNN_STATUS_NOT_SUPPORTED;
        n->scratch_bytes = p->out_count * sizeof(int32_t);
        n->run = run_scatter_elements;
    } else {
        n->run = run_gather_elements;
    }
    return WNN_OK;
}

wnn_status wnn__cu_prep_gather_elements(const wnn__ir *ir, wnn__cu_node *n) { return prep_elements(ir, n, false); }
wnn_status wnn__cu_prep_scatter_elements(const wnn__ir *ir, wnn__cu_node *n) { return prep_elements(ir, n, true); }

static wnn_status prep_nd(const wnn__ir *ir, wnn__cu_node *n, bool scatter)
{
    gather_plan *p;
    wnn_status s = prep_gather_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *idx = in_desc(ir, n->node, 1);
    uint32_t k = idx->shape[idx->rank - 1];
    int64_t stride[WNN_MAX_RANK];
    signed_strides(in, stride);
    p->u.nd.k = k;
    for (uint32_t j = 0; j < k; j++) {
        p->u.nd.dims[j] = in->shape[j];
        p->u.nd.strides[j] = (uint64_t)stride[j];
    }
    p->u.nd.slice = wnn__shape_product(in->shape, k, in->rank);
    p->u.nd.n_slices = k ? wnn__shape_count(idx) / k : 0;
    if (scatter) {
        if (!has_in(n->node, 2) || p->u.nd.n_slices > INT32_MAX)
            return WNN_STATUS_NOT_SUPPORTED;
        n->scratch_bytes = p->out_count * sizeof(int32_t);
        n->run = run_scatter_nd;
    } else {
        n->run = run_gather_nd;
    }
    return WNN_OK;
}

wnn_status wnn__cu_prep_gather_nd(const wnn__ir *ir, wnn__cu_node *n) { return prep_nd(ir, n, false); }
wnn_status wnn__cu_prep_scatter_nd(const wnn__ir *ir, wnn__cu_node *n) { return prep_nd(ir, n, true); }
