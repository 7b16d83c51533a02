/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_reduce.c -- the host side of the operators that walk one axis
** (softmax, argMin/argMax, cumulativeSum) and of the reductions
** (kernels_reduce.cu): a reduction's plan splits the input's dimensions
** into kept and reduced ones, merged where they are contiguous.
*/
#include <string.h>

#include "backends/cuda/cuda_ops.h"

/* ---- along one axis: softmax, argMin/argMax, cumulativeSum ---------------------------------- */

typedef struct axis_plan {
    wnn_data_type t, out_type;
    uint64_t outer, inner;
    uint32_t len;
    bool flag_a, flag_b; /* argMax / (cumulativeSum) exclusive, reversed */
} axis_plan;

static wnn_status prep_axis(const wnn__ir *ir, wnn__cu_node *n, uint32_t axis, axis_plan **out)
{
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    if (axis >= d->rank)
        return WNN_STATUS_NOT_SUPPORTED;
    axis_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = d->data_type;
    p->out_type = out_desc(ir, n->node, 0)->data_type;
    p->outer = wnn__shape_product(d->shape, 0, axis);
    p->len = d->shape[axis];
    p->inner = wnn__shape_product(d->shape, axis + 1, d->rank);
    *out = p;
    return WNN_OK;
}

static wnn_status run_softmax(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const axis_plan *p = n->plan;
    return wnn__cu_status(
        wnn__cu_softmax(x->stream, p->t, p->outer, p->len, p->inner, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_softmax(const wnn__ir *ir, wnn__cu_node *n)
{
    if (!is_float(in_desc(ir, n->node, 0)->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    axis_plan *p;
    wnn_status s = prep_axis(ir, n, n->node->attrs.axis.axis, &p);
    if (s == WNN_OK)
        n->run = run_softmax;
    return s;
}

static wnn_status run_arg(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const axis_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_arg_min_max(x->stream, p->flag_a, p->t, p->out_type, p->outer, p->len, p->inner,
                                              in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_arg(const wnn__ir *ir, wnn__cu_node *n)
{
    wnn_data_type t = in_desc(ir, n->node, 0)->data_type, o = out_desc(ir, n->node, 0)->data_type;
    if (!is_element_type(t) || (o != WNN_DATA_TYPE_INT32 && o != WNN_DATA_TYPE_INT64))
        return WNN_STATUS_NOT_SUPPORTED;
    axis_plan *p;
    wnn_status s = prep_axis(ir, n, n->node->attrs.arg_min_max.axis, &p);
    if (s != WNN_OK)
        return s;
    p->flag_a = n->node->op == WNN__OP_ARG_MAX;
    n->run = run_arg;
    return WNN_OK;
}

static wnn_status run_cumsum(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const axis_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_cumsum(x->stream, p->t, p->outer, p->len, p->inner, p->flag_a, p->flag_b,
                                         in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_cumsum(const wnn__ir *ir, wnn__cu_node *n)
{
    if (!wnn__cu_cumsum_supported(in_desc(ir, n->node, 0)->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    axis_plan *p;
    wnn_status s = prep_axis(ir, n, n->node->attrs.cumulative_sum.axis, &p);
    if (s != WNN_OK)
        return s;
    p->flag_a = n->node->attrs.cumulative_sum.exclusive;
    p->flag_b = n->node->attrs.cumulative_sum.reversed;
    n->run = run_cumsum;
    return WNN_OK;
}

/* ---- reductions ------------------------------------------------------------------------------ */

/* Splits d's dimensions into kept and reduced ones (bit i of mask: axis i
** is reduced), dropping size-1 dimensions and merging neighbours of one
** kind. */
static void make_reduce(wnn__cu_reduce *p, const wnn_operand_desc *d, uint32_t mask)
{
    int64_t stride[WNN_MAX_RANK];
    signed_strides(d, stride);
    memset(p, 0, sizeof *p);
    int last = -1;
    for (uint32_t i = 0; i < d->rank; i++) {
        if (d->shape[i] == 1)
            continue;
        int red = (mask >> i) & 1u;
        uint32_t *shape = red ? p->red_shape : p->kept_shape, *count = red ? &p->red_rank : &p->kept_rank;
        uint64_t *st = red ? p->red_stride : p->kept_stride;
        if (last == red) {
            shape[*count - 1] *= d->shape[i];
            st[*count - 1] = (uint64_t)stride[i];
        } else {
            shape[*count] = d->shape[i];
            st[*count] = (uint64_t)stride[i];
            (*count)++;
        }
        last = red;
    }
    p->n_out = p->n_red = 1;
    for (uint32_t i = 0; i < p->kept_rank; i++)
        p->n_out *= p->kept_shape[i];
    for (uint32_t i = 0; i < p->red_rank; i++)
        p->n_red *= p->red_shape[i];
}

typedef struct reduce_plan {
    wnn__op op;
    wnn_data_type t;
    wnn__cu_reduce r;
} reduce_plan;

static wnn_status run_reduce(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const reduce_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_reduce_run(x->stream, p->op, p->t, &p->r, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_reduce(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    if (!wnn__cu_reduce_supported(n->node->op, d->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    reduce_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->op = n->node->op;
    p->t = d->data_type;
    make_reduce(&p->r, d, n->node->attrs.reduction.axes_mask);
    n->run = run_reduce;
    return WNN_OK;
}
