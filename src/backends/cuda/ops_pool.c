/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_pool.c -- the host side of averagePool2d, l2Pool2d and maxPool2d,
** both layouts (kernels_spatial.cu).
*/
#include "backends/cuda/cuda_ops.h"

typedef struct pool_plan {
    wnn__op op;
    wnn_data_type t;
    wnn__cu_pool p;
} pool_plan;

static wnn_status run_pool(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const pool_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_pool2d(x->stream, p->op, p->t, &p->p, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_pool(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *in = in_desc(ir, node, 0), *out = out_desc(ir, node, 0);
    if (!wnn__cu_pool_supported(node->op, in->data_type) || in->rank != 4)
        return WNN_STATUS_NOT_SUPPORTED;
    pool_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->op = node->op;
    p->t = in->data_type;
    bool nhwc = node->attrs.pool2d.layout == WNN_INPUT_LAYOUT_NHWC;
    wnn__cu_pool *q = &p->p;
    q->nhwc = nhwc;
    q->n = in->shape[0];
    q->c = nhwc ? in->shape[3] : in->shape[1];
    q->h_in = nhwc ? in->shape[1] : in->shape[2];
    q->w_in = nhwc ? in->shape[2] : in->shape[3];
    q->h_out = nhwc ? out->shape[1] : out->shape[2];
    q->w_out = nhwc ? out->shape[2] : out->shape[3];
    for (int i = 0; i < 2; i++) {
        q->window[i] = node->attrs.pool2d.window[i];
        q->stride[i] = node->attrs.pool2d.strides[i];
        q->dilation[i] = node->attrs.pool2d.dilations[i];
    }
    q->pad_top = node->attrs.pool2d.padding[0];
    q->pad_left = node->attrs.pool2d.padding[2];
    n->run = run_pool;
    return WNN_OK;
}
