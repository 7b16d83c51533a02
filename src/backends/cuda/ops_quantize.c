/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_quantize.c -- the host side of quantizeLinear and dequantizeLinear,
** packed int4/uint4 included (kernels_quantize.cu).
*/
#include "backends/cuda/cuda_ops.h"

/* ---- quantizeLinear, dequantizeLinear ----------------------------------------------------- */

typedef struct quant_plan {
    bool quantize;
    wnn_data_type float_type, int_type;
    wnn__cu_quant q;
} quant_plan;

static wnn_status run_quant(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const quant_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_quantize(x->stream, p->quantize, p->float_type, p->int_type, &p->q, in_ptr(x, n, 0),
                                           in_ptr(x, n, 1), in_ptr(x, n, 2), out_ptr(x, n, 0)));
}

/* in: input, scale, zeroPoint; scale's dimensions, aligned right, divide the
** input's (a dimension of 1 broadcasts, a larger one cuts blocks). */
wnn_status wnn__cu_prep_quant(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    if (node->n_in != 3 || !has_in(node, 1) || !has_in(node, 2))
        return WNN_STATUS_NOT_SUPPORTED;
    const wnn_operand_desc *x = in_desc(ir, node, 0), *sd = in_desc(ir, node, 1), *zd = in_desc(ir, node, 2);
    bool quantize = node->op == WNN__OP_QUANTIZE_LINEAR;
    wnn_data_type ft = quantize ? x->data_type : sd->data_type, it = zd->data_type;
    if (!wnn__cu_quantize_supported(ft, it) || sd->rank > x->rank)
        return WNN_STATUS_NOT_SUPPORTED;
    quant_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->quantize = quantize;
    p->float_type = ft;
    p->int_type = it;
    wnn__cu_quant *q = &p->q;
    q->rank = x->rank;
    q->count = wnn__shape_count(x);
    size_t sstride[WNN_MAX_RANK];
    wnn__broadcast_strides(sd, x->rank, sstride);
    for (uint32_t i = 0; i < x->rank; i++) {
        uint32_t k = x->rank - 1 - i; /* position from the right */
        q->shape[i] = x->shape[i];
        q->block[i] = k < sd->rank ? x->shape[i] / sd->shape[sd->rank - 1 - k] : x->shape[i];
        q->sstride[i] = sstride[i];
    }
    n->run = run_quant;
    return WNN_OK;
}
