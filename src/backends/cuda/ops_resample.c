/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_resample.c -- the host side of resample2d: per-dimension tables of
** taps, computed once and uploaded with the graph (kernels_spatial.cu).
*/
#include "backends/cuda/cuda_ops.h"

typedef struct resample_plan {
    wnn_data_type t;
    wnn__cu_resample r;
} resample_plan;

static wnn_status run_resample(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const resample_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_resample2d(x->stream, p->t, &p->r, x->aux, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

/* core/shape.h's source coordinates, as the cpu's k_resample.c takes them. */
static void resample_taps(wnn__cu_tap *t, uint32_t in, uint32_t out, bool linear)
{
    for (uint32_t j = 0; j < out; j++) {
        size_t lo, hi;
        float w;
        wnn__resample_source(j, in, out, linear, &lo, &hi, &w);
        t[j] = (wnn__cu_tap){(uint32_t)lo, (uint32_t)hi, w};
    }
}

wnn_status wnn__cu_prep_resample(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *in = in_desc(ir, node, 0), *out = out_desc(ir, node, 0);
    if (!wnn__cu_resample_supported(in->data_type) || in->rank != 4)
        return WNN_STATUS_NOT_SUPPORTED;
    resample_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = in->data_type;
    wnn__cu_resample *r = &p->r;
    r->linear = node->attrs.resample2d.mode == WNN_INTERPOLATION_MODE_LINEAR;
    r->axes[0] = node->attrs.resample2d.axes[0];
    r->axes[1] = node->attrs.resample2d.axes[1];
    r->count = wnn__shape_count(out);
    uint64_t total = 0;
    for (int d = 0; d < 4; d++) {
        r->shape_in[d] = in->shape[d];
        r->shape_out[d] = out->shape[d];
        r->table_at[d] = (uint32_t)total;
        total += out->shape[d];
    }
    wnn__cu_tap *taps = malloc(total * sizeof *taps);
    if (!taps)
        return WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t d = 0; d < 4; d++) {
        wnn__cu_tap *t = taps + r->table_at[d];
        if (d == r->axes[0] || d == r->axes[1]) {
            resample_taps(t, in->shape[d], out->shape[d], r->linear);
        } else {
            for (uint32_t k = 0; k < out->shape[d]; k++)
                t[k] = (wnn__cu_tap){k, k, 0.0f};
        }
    }
    n->aux_host = taps;
    n->aux_bytes = total * sizeof *taps;
    n->run = run_resample;
    return WNN_OK;
}
