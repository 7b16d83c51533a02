/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl_norm.c -- WGSL for batchNormalization, instanceNormalization and
** layerNormalization, float32 and float16 (computed in f32).
**
** All three give (x - mean) / sqrt(variance + epsilon) * scale + bias.
** batchNormalization reads mean and variance per channel; the other two
** measure them over the element's group (an instance's plane, a layer's
** axes) in two passes, inside the element's own invocation: a plain loop,
** correct for any shape, quadratic in the group's size.
*/
#include <stdio.h>
#include <string.h>

#include "backends/webgpu/wg_wgsl.h"

#define P(...) wg_text_printf(t, __VA_ARGS__)

static void row_strides(const wnn_operand_desc *d, uint32_t *st)
{
    uint32_t s = 1;
    for (uint32_t i = d->rank; i-- > 0;) {
        st[i] = s;
        s *= d->shape[i];
    }
}

/* fn at(j, base): element j of the group whose first element is base (the
** axes of mask, in order); fn group(e): that base for element e. Returns
** the group's size. */
static uint32_t emit_group(wg_text *t, const wnn_operand_desc *d, uint32_t mask)
{
    uint32_t st[WNN_MAX_RANK], rdims[WNN_MAX_RANK], rst[1][WNN_MAX_RANK], kst[1][WNN_MAX_RANK], nr = 0, zero = 0;
    uint32_t count = 1;
    row_strides(d, st);
    for (uint32_t i = 0; i < d->rank; i++) {
        kst[0][i] = mask >> i & 1 ? 0 : st[i];
        if (mask >> i & 1) {
            rdims[nr] = d->shape[i];
            rst[0][nr++] = st[i];
            count *= d->shape[i];
        }
    }
    P("fn at(j: u32, base: u32) -> f32 {\n");
    wg_emit_walk(t, "j", nr, rdims, 1, &zero, rst);
    P("  return ld1(base + i1);\n}\n");
    P("fn group(e: u32) -> u32 {\n");
    wg_emit_walk(t, "e", d->rank, d->shape, 1, &zero, kst);
    P("  return i1;\n}\n");
    return count;
}

/* The mean and variance of e's group, two passes. */
static void emit_moments(wg_text *t, uint32_t count)
{
    P("  let base = group(e);\n"
      "  var m = 0.0;\n"
      "  for (var j = 0u; j < %uu; j++) { m += at(j, base); }\n"
      "  m = m / %u.0;\n"
      "  var v = 0.0;\n"
      "  for (var j = 0u; j < %uu; j++) { let q = at(j, base) - m; v += q * q; }\n"
      "  v = v / %u.0;\n",
      count, count, count, count);
}

static bool norm_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k)
{
    wg_text *t = &k->text;
    const wnn__attrs *a = &n->attrs;
    const wnn_operand_desc *d = &ir->values[n->in[0]].desc;
    bool batch = n->op == WNN__OP_BATCH_NORMALIZATION;
    /* bindings in order of presence; slot[i]: the binding of node input i */
    uint32_t ins[5], n_in = 0, slot[5] = {0};
    for (uint32_t i = 0; i < n->n_in && i < 5; i++)
        if (n->in[i] != WNN__NONE) {
            ins[n_in++] = n->in[i];
            slot[i] = n_in;
        }
    uint32_t scale = batch ? slot[3] : slot[1], bias = batch ? slot[4] : slot[2];
    wg_frame f;
    wg_frame_begin(&f, k, ir, n, ins, n_in);
    uint32_t st[WNN_MAX_RANK];
    row_strides(d, st);
    double eps = batch ? a->batch_norm.epsilon : n->op == WNN__OP_INSTANCE_NORMALIZATION ? a->instance_norm.epsilon
                                                                                       : a->layer_norm.epsilon;
    uint32_t pe = wg_param(k, eps);
    if (batch) {
        uint32_t axis = a->batch_norm.axis;
        P("fn val(e: u32) -> f32 {\n"
          "  let c = (e / %uu) %% %uu;\n"
          "  var y = (ld1(e) - ld%u(c)) / sqrt(ld%u(c) + prm[%u]);\n",
          st[axis], d->shape[axis], slot[1], slot[2], pe);
    } else if (n->op == WNN__OP_INSTANCE_NORMALIZATION) {
        bool nhwc = a->instance_norm.layout == WNN_INPUT_LAYOUT_NHWC;
        uint32_t caxis = nhwc ? 3 : 1;
        uint32_t count = emit_group(t, d, nhwc ? 0x6u : 0xcu);
        P("fn val(e: u32) -> f32 {\n  let c = (e / %uu) %% %uu;\n", st[caxis], d->shape[caxis]);
        emit_moments(t, count);
        P("  var y = (ld1(e) - m) / sqrt(v + prm[%u]);\n", pe);
    } else {
        uint32_t mask = 0, sst[1][WNN_MAX_RANK], s = 1, zero = 0;
        memset(sst, 0, sizeof sst);
        for (uint32_t j = a->layer_norm.axes_count; j-- > 0;) {
            mask |= 1u << a->layer_norm.axes[j];
            sst[0][a->layer_norm.axes[j]] = s; /* scale and bias follow the axes' order */
            s *= d->shape[a->layer_norm.axes[j]];
        }
        uint32_t count = emit_group(t, d, mask);
        P("fn pidx(e: u32) -> u32 {\n");
        wg_emit_walk(t, "e", d->rank, d->shape, 1, &zero, sst);
        P("  return i1;\n}\n");
        P("fn val(e: u32) -> f32 {\n  let c = pidx(e);\n");
        emit_moments(t, count);
        P("  var y = (ld1(e) - m) / sqrt(v + prm[%u]);\n", pe);
    }
    if (scale)
        P("  y = y * ld%u(c);\n", scale);
    if (bias)
        P("  y = y + ld%u(c);\n", bias);
    P("  return y;\n}\n");
    wg_frame_end(&f, NULL);
    return !t->failed;
}

uint32_t wg_wgsl_norm(const wnn__ir *ir, const wnn__node *n, wg_kernel *k, char *why, size_t why_len)
{
    if (!norm_kernel(ir, n, k)) {
        snprintf(why, why_len, "%s: no WGSL kernel", wnn__op_name(n->op));
        return 0;
    }
    return 1;
}
