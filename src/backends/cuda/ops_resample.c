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

/* The taps of the cpu's k_resample.c: half-pixel coordinates, nearest
** rounding ties to the smaller index (exactly, in integers), linear blending
** the neighbours floor(c) and the next one. */
static void resample_taps(wnn__cu_tap *t, uint32_t in, uint32_t out, bool linear)
{
    if (!linear) {
        for (uint32_t j = 0; j < out; j++) {
            int64_t num = (int64_t)(2 * (int64_t)j + 1) * (int64_t)in - 2 * (int64_t)out, den = 2 * (int64_t)out;
            int64_t q = num >= 0 ? (num + den - 1) / den : -((-num) / den);
            if (q < 0)
                q = 0;
            if (q > (int64_t)in - 1)
                q = (int64_t)in - 1;
            t[j] = (wnn__cu_tap){(uint32_t)q, (uint32_t)q, 0.0f};
        }
        return;
    }
    double scale = (double)in / (double)out;
    for (uint32_t j = 0; j < out; j++) {
        double c = ((double)j + 0.5) * scale - 0.5;
        if (c < 0.0)
            c = 0.0;
        if (c > (double)(in - 1))
            c = (double)(in - 1);
        uint32_t lo = (uint32_t)c;
        uint32_t hi = lo + 1 < in ? lo + 1 : lo;
        t[j] = (wnn__cu_tap){lo, hi, (float)(c - (double)lo)};
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
