/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_norm.c -- the host side of batchNormalization, instanceNormalization
** and layerNormalization (float32, float16; kernels_reduce.cu).
*/
#include "backends/cuda/cuda_ops.h"

typedef struct norm_plan {
    wnn_data_type t;
    wnn__cu_norm p;
    /* batchNormalization */
    uint64_t count, inner, channels;
    double epsilon;
} norm_plan;

static wnn_status run_normalize(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const norm_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_normalize(x->stream, p->t, &p->p, in_ptr(x, n, 0), in_ptr(x, n, 1),
                                            in_ptr(x, n, 2), out_ptr(x, n, 0)));
}

static wnn_status run_batch_norm(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const norm_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_batch_norm(x->stream, p->t, p->count, p->inner, p->channels, p->epsilon,
                                             in_ptr(x, n, 0), in_ptr(x, n, 1), in_ptr(x, n, 2), in_ptr(x, n, 3),
                                             in_ptr(x, n, 4), out_ptr(x, n, 0)));
}

static wnn_status prep_norm_common(const wnn__ir *ir, wnn__cu_node *n, norm_plan **out)
{
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    if (!is_float(d->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    for (uint32_t j = 1; j < n->node->n_in; j++)
        if (has_in(n->node, j) && in_desc(ir, n->node, j)->data_type != d->data_type)
            return WNN_STATUS_NOT_SUPPORTED;
    norm_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = d->data_type;
    *out = p;
    return WNN_OK;
}

wnn_status wnn__cu_prep_batch_norm(const wnn__ir *ir, wnn__cu_node *n)
{
    norm_plan *p;
    wnn_status s = prep_norm_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    if (!has_in(n->node, 1) || !has_in(n->node, 2))
        return WNN_STATUS_NOT_SUPPORTED;
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    uint32_t axis = n->node->attrs.batch_norm.axis;
    p->count = wnn__shape_count(d);
    p->channels = d->shape[axis];
    p->inner = wnn__shape_product(d->shape, axis + 1, d->rank);
    p->epsilon = n->node->attrs.batch_norm.epsilon;
    n->run = run_batch_norm;
    return WNN_OK;
}

wnn_status wnn__cu_prep_instance_norm(const wnn__ir *ir, wnn__cu_node *n)
{
    norm_plan *p;
    wnn_status s = prep_norm_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    if (d->rank != 4)
        return WNN_STATUS_NOT_SUPPORTED;
    bool nhwc = n->node->attrs.instance_norm.layout == WNN_INPUT_LAYOUT_NHWC;
    uint64_t b = d->shape[0], c = nhwc ? d->shape[3] : d->shape[1], h = nhwc ? d->shape[1] : d->shape[2],
             w = nhwc ? d->shape[2] : d->shape[3];
    wnn__cu_reduce *r = &p->p.r;
    r->kept_rank = 2;
    r->kept_shape[0] = (uint32_t)b;
    r->kept_shape[1] = (uint32_t)c;
    r->kept_stride[0] = c * h * w;
    r->kept_stride[1] = nhwc ? 1 : h * w;
    r->red_rank = 1;
    r->red_shape[0] = (uint32_t)(h * w);
    r->red_stride[0] = nhwc ? c : 1;
    r->n_out = b * c;
    r->n_red = h * w;
    p->p.epsilon = n->node->attrs.instance_norm.epsilon;
    p->p.by_channel = 1;
    p->p.chan_div = 1;
    p->p.channels = c;
    n->run = run_normalize;
    return WNN_OK;
}

/* layerNormalization: the reduced dimensions in the order of the axes, so
** that the reduced index is the index into scale and bias. */
wnn_status wnn__cu_prep_layer_norm(const wnn__ir *ir, wnn__cu_node *n)
{
    norm_plan *p;
    wnn_status s = prep_norm_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    const uint32_t *axes = n->node->attrs.layer_norm.axes;
    uint32_t n_axes = n->node->attrs.layer_norm.axes_count;
    int64_t stride[WNN_MAX_RANK];
    signed_strides(d, stride);
    bool normalized[WNN_MAX_RANK] = {false};
    wnn__cu_reduce *r = &p->p.r;
    r->n_out = r->n_red = 1;
    for (uint32_t a = 0; a < n_axes; a++) {
        uint32_t ax = axes[a];
        normalized[ax] = true;
        r->n_red *= d->shape[ax];
        if (d->shape[ax] == 1)
            continue;
        if (r->red_rank > 0 && r->red_stride[r->red_rank - 1] == (uint64_t)stride[ax] * d->shape[ax]) {
            r->red_shape[r->red_rank - 1] *= d->shape[ax];
            r->red_stride[r->red_rank - 1] = (uint64_t)stride[ax];
            continue;
        }
        r->red_shape[r->red_rank] = d->shape[ax];
        r->red_stride[r->red_rank++] = (uint64_t)stride[ax];
    }
    for (uint32_t i = 0; i < d->rank; i++) {
        if (normalized[i] || d->shape[i] == 1)
            continue;
        r->n_out *= d->shape[i];
        if (r->kept_rank > 0 && r->kept_stride[r->kept_rank - 1] == (uint64_t)stride[i] * d->shape[i]) {
            r->kept_shape[r->kept_rank - 1] *= d->shape[i];
            r->kept_stride[r->kept_rank - 1] = (uint64_t)stride[i];
            continue;
        }
        r->kept_shape[r->kept_rank] = d->shape[i];
        r->kept_stride[r->kept_rank++] = (uint64_t)stride[i];
    }
    p->p.epsilon = n->node->attrs.layer_norm.epsilon;
    n->run = run_normalize;
    return WNN_OK;
}
