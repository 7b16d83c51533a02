/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl_data.c -- WGSL for the operators that move elements by index:
** gather, gatherElements, gatherND, scatterElements, scatterND, pad,
** split, tile, triangular, cumulativeSum; and quantizeLinear /
** dequantizeLinear, whose scale is indexed the same way.
**
** Every output element still computes itself (wg_wgsl.h's rule): gathers
** read their source; scatters start from the input's element and look
** through the updates that could land on it, in row-major order, so the
** last one wins as on the cpu. Indices (int32 or uint32) are clamped into
** [-n, n-1] and a negative one counts from the end (k_gather.c's rule), so
** no index reads outside a tensor. Kernels name output coordinates c0..cN
** (emit_coords) and build source offsets from them.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* let c<d> = coordinate d of element `from` in shape d (row-major). */
static void emit_coords(wg_text *t, const char *from, const wnn_operand_desc *d)
{
    P("  var t_ = %s;\n", from);
    for (uint32_t i = d->rank; i-- > 0;)
        P("  let c%u = t_ %% %uu; t_ = t_ / %uu;\n", i, d->shape[i], d->shape[i]);
}

/* fn rsv(i, n) -> u32: index i into a dimension of n, clamped and wrapped. */
static void emit_resolve(wg_text *t, wnn_data_type index_type)
{
    if (wg_is64(index_type)) { /* to i32 with saturation first */
        P("fn rsv(v: vec2<u32>, n: u32) -> u32 {\n"
          "  var i = select(2147483647, -2147483647 - 1, %s);\n"
          "  if (v.y == 0u && v.x < 0x80000000u) { i = i32(v.x); }\n"
          "  if (%s && v.y == 0xffffffffu && v.x >= 0x80000000u) { i = bitcast<i32>(v.x); }\n"
          "  let c = clamp(i, -i32(n), i32(n) - 1);\n"
          "  return u32(select(c, c + i32(n), c < 0));\n}\n",
          index_type == WNN_DATA_TYPE_INT64 ? "(v.y >> 31u) == 1u" : "false",
          index_type == WNN_DATA_TYPE_INT64 ? "true" : "false");
        return;
    }
    if (index_type == WNN_DATA_TYPE_UINT32)
        P("fn rsv(i: u32, n: u32) -> u32 { return min(i, n - 1u); }\n");
    else
        P("fn rsv(i: i32, n: u32) -> u32 {\n"
          "  let c = clamp(i, -i32(n), i32(n) - 1);\n"
          "  return u32(select(c, c + i32(n), c < 0));\n}\n");
}

static const wnn_operand_desc *desc_of(const wnn__ir *ir, uint32_t v) { return &ir->values[v].desc; }

static bool gather_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k)
{
    wg_text *t = &k->text;
    wg_frame f;
    wg_frame_begin(&f, k, ir, n, n->in, 2);
    const wnn_operand_desc *x = desc_of(ir, n->in[0]), *ix = desc_of(ir, n->in[1]), *o = desc_of(ir, n->out[0]);
    uint32_t xs[WNN_MAX_RANK], is[WNN_MAX_RANK];
    row_strides(x, xs);
    row_strides(ix, is);
    emit_resolve(t, ix->data_type);
    P("fn val(e: u32) -> %s {\n", wg_ctype(f.out));
    emit_coords(t, "e", o);
    uint32_t axis = n->attrs.axis.axis;
    P("  var i = 0u;\n");
    if (n->op == WNN__OP_GATHER) {
        /* output coordinates: x's before axis, the index's, x's after axis */
        P("  var p = 0u;\n");
        for (uint32_t d = 0; d < ix->rank; d++)
            P("  p += c%u * %uu;\n", axis + d, is[d]);
        P("  i += rsv(ld2(p), %uu) * %uu;\n", x->shape[axis], xs[axis]);
        for (uint32_t d = 0; d < x->rank; d++)
            if (d != axis)
                P("  i += c%u * %uu;\n", d < axis ? d : d + ix->rank - 1, xs[d]);
    } else if (n->op == WNN__OP_GATHER_ELEMENTS) {
        P("  i += rsv(ld2(e), %uu) * %uu;\n", x->shape[axis], xs[axis]);
        for (uint32_t d = 0; d < x->rank; d++)
            if (d != axis)
                P("  i += c%u * %uu;\n", d, xs[d]);
    } else { /* gatherND: the index's last dimension picks k leading coordinates */
        uint32_t kk = ix->shape[ix->rank - 1], inner = 1;
        for (uint32_t d = kk; d < x->rank; d++)
            inner *= x->shape[d];
        P("  let p = (e / %uu) * %uu;\n", inner, kk);
        for (uint32_t j = 0; j < kk; j++)
            P("  i += rsv(ld2(p + %uu), %uu) * %uu;\n", j, x->shape[j], xs[j]);
        P("  i += e %% %uu;\n", inner);
    }
    P("  return ld1(i);\n}\n");
    wg_frame_end(&f, NULL);
    return !t->failed;
}

static bool scatter_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k)
{
    wg_text *t = &k->text;
    wg_frame f;
    wg_frame_begin(&f, k, ir, n, n->in, 3);
    const wnn_operand_desc *x = desc_of(ir, n->in[0]), *ix = desc_of(ir, n->in[1]);
    uint32_t is[WNN_MAX_RANK];
    row_strides(ix, is);
    emit_resolve(t, ix->data_type);
    P("fn val(e: u32) -> %s {\n  var v = ld1(e);\n", wg_ctype(f.out));
    emit_coords(t, "e", x);
    if (n->op == WNN__OP_SCATTER_ELEMENTS) {
        /* the updates on e's line along axis: same other coordinates */
        uint32_t axis = n->attrs.axis.axis;
        P("  var u = 0u;\n");
        for (uint32_t d = 0; d < x->rank; d++) {
            if (d == axis)
                continue;
            if (ix->shape[d] < x->shape[d])
                P("  if (c%u >= %uu) { return v; }\n", d, ix->shape[d]);
            P("  u += c%u * %uu;\n", d, is[d]);
        }
        P("  for (var j = 0u; j < %uu; j++) {\n"
          "    let q = u + j * %uu;\n"
          "    if (rsv(ld2(q), %uu) == c%u) { v = ld3(q); }\n  }\n",
          ix->shape[axis], is[axis], x->shape[axis], axis);
    } else { /* scatterND: every index tuple, in order */
        uint32_t kk = ix->shape[ix->rank - 1], inner = 1, tuples = 1;
        for (uint32_t d = kk; d < x->rank; d++)
            inner *= x->shape[d];
        for (uint32_t d = 0; d + 1 < ix->rank; d++)
            tuples *= ix->shape[d];
        P("  for (var p = 0u; p < %uu; p++) {\n    var hit = true;\n", tuples);
        for (uint32_t j = 0; j < kk; j++)
            P("    hit = hit && rsv(ld2(p * %uu + %uu), %uu) == c%u;\n", kk, j, x->shape[j], j);
        P("    if (hit) { v = ld3(p * %uu + e %% %uu); }\n  }\n", inner, inner);
    }
    P("  return v;\n}\n");
    wg_frame_end(&f, NULL);
    return !t->failed;
}

/* pad, split, tile, triangular: a source offset from the coordinates. */
static bool move_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k)
{
    wg_text *t = &k->text;
    wg_frame f;
    wg_frame_begin(&f, k, ir, n, n->in, 1);
    const wnn_operand_desc *x = desc_of(ir, n->in[0]), *o = desc_of(ir, k->out_value);
    uint32_t xs[WNN_MAX_RANK];
    row_strides(x, xs);
    const char *ct = wg_ctype(f.out);
    P("fn val(e: u32) -> %s {\n", ct);
    emit_coords(t, "e", o);
    P("  var i = 0u;\n");
    switch (n->op) {
    case WNN__OP_PAD: {
        const wnn__attrs *a = &n->attrs;
        char fill[64] = "";
        if (a->pad.mode != WNN_PAD_MODE_CONSTANT)
            ; /* no fill: a parameter must not be bound unused */
        else if (wg_is_float(f.out))
            snprintf(fill, sizeof fill, "prm[%u]", wg_param(k, a->pad.value));
        else if (strcmp(ct, "i32") == 0) /* saturated to the output's range (int8 or int32) */
            snprintf(fill, sizeof fill, "i32(%.0f)",
                     f.out == WNN_DATA_TYPE_INT8 ? fmax(-128.0, fmin(127.0, trunc(a->pad.value)))
                                                 : fmax(-2147483647.0, fmin(2147483647.0, trunc(a->pad.value))));
        else
            snprintf(fill, sizeof fill, "%.0fu",
                     fmax(0.0, fmin(f.out == WNN_DATA_TYPE_UINT8 ? 255.0 : 4294967295.0, trunc(a->pad.value))));
        for (uint32_t d = 0; d < x->rank; d++) {
            int nn = (int)x->shape[d];
            P("  { var q = i32(c%u) - %d;\n", d, (int)a->pad.begin[d]);
            switch (a->pad.mode) {
            case WNN_PAD_MODE_EDGE: P("    q = clamp(q, 0, %d);\n", nn - 1); break;
            case WNN_PAD_MODE_REFLECTION:
                P("    if (q < 0) { q = -q; }\n    if (q >= %d) { q = %d - q; }\n    q = clamp(q, 0, %d);\n", nn,
                  2 * (nn - 1), nn - 1);
                break;
            default: P("    if (q < 0 || q >= %d) { return %s; }\n", nn, fill); break;
            }
            P("    i += u32(q) * %uu; }\n", xs[d]);
        }
        break;
    }
    case WNN__OP_SPLIT: {
        uint32_t axis = n->attrs.axis.axis, lo = 0;
        for (uint32_t s = 0; s < k->out_slot; s++)
            lo += desc_of(ir, n->out[s])->shape[axis];
        for (uint32_t d = 0; d < x->rank; d++)
            P("  i += c%u * %uu;\n", d, xs[d]);
        P("  i += %uu;\n", lo * xs[axis]); /* this output's start along axis */
        break;
    }
    case WNN__OP_TILE:
        for (uint32_t d = 0; d < x->rank; d++)
            P("  i += (c%u %% %uu) * %uu;\n", d, x->shape[d], xs[d]);
        break;
    default: { /* triangular over the last two axes */
        uint32_t r = x->rank;
        for (uint32_t d = 0; d < r; d++)
            P("  i += c%u * %uu;\n", d, xs[d]);
        P("  let dg = i32(c%u) - i32(c%u);\n", r - 1, r - 2);
        P("  if (!(dg %s %d)) { return %s(0); }\n", n->attrs.triangular.upper ? ">=" : "<=",
          (int)n->attrs.triangular.diagonal, ct);
        break;
    }
    }
    P("  return ld1(i);\n}\n");
    wg_frame_end(&f, NULL);
    return !t->failed;
}

/* quantizeLinear: saturate(roundEven(x / scale) + zeroPoint); dequantizeLinear:
** (x - zeroPoint) * scale. scale and zeroPoint share a shape whose
** dimensions, aligned right, divide the input's: input coordinate c reads
** scale coordinate c / block (k_quantize.c's rule). WGSL's round() is
** round-half-to-even and its float-to-integer conversion saturates. */
static bool quantize_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k)
{
    wg_text *t = &k->text;
    wg_frame f;
    wg_frame_begin(&f, k, ir, n, n->in, 3);
    const wnn_operand_desc *x = desc_of(ir, n->in[0]), *sd = desc_of(ir, n->in[1]);
    P("fn val(e: u32) -> %s {\n", wg_ctype(f.out));
    emit_coords(t, "e", x);
    P("  var si = 0u;\n");
    uint32_t step = 1;
    for (uint32_t i = x->rank; i-- > 0;) {
        uint32_t from_right = x->rank - 1 - i;
        if (from_right >= sd->rank)
            continue;
        uint32_t dim = sd->shape[sd->rank - 1 - from_right];
        if (dim != 1)
            P("  si += (c%u / %uu) * %uu;\n", i, x->shape[i] / dim, step);
        step *= dim;
    }
    if (n->op == WNN__OP_QUANTIZE_LINEAR) {
        wnn_data_type q = f.out;
        double lo = 0, hi = 4294967295.0; /* uint32 */
        switch (q) {
        case WNN_DATA_TYPE_INT8: lo = -128, hi = 127; break;
        case WNN_DATA_TYPE_UINT8: hi = 255; break;
        case WNN_DATA_TYPE_INT4: lo = -8, hi = 7; break;
        case WNN_DATA_TYPE_UINT4: hi = 15; break;
        case WNN_DATA_TYPE_INT32: lo = -2147483648.0, hi = 2147483647.0; break;
        default: break;
        }
        /* in f32, then clamped: the conversion saturates at the type's own range */
        P("  let r = round(ld1(e) / ld2(si)) + f32(ld3(si));\n"
          "  return %s(clamp(r, %.1f, %.1f));\n}\n",
          wg_ctype(q), lo, hi);
    } else {
        P("  return (f32(ld1(e)) - f32(ld3(si))) * ld2(si);\n}\n");
    }
    wg_frame_end(&f, NULL);
    return !t->failed;
}

/* cumulativeSum: each element sums its run along axis (from the start, or
** from the end when reversed; itself left out when exclusive). */
static bool cumsum_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k)
{
    wg_text *t = &k->text;
    wg_frame f;
    wg_frame_begin(&f, k, ir, n, n->in, 1);
    const wnn_operand_desc *x = desc_of(ir, n->in[0]);
    uint32_t xs[WNN_MAX_RANK], axis = n->attrs.cumulative_sum.axis;
    row_strides(x, xs);
    bool ex = n->attrs.cumulative_sum.exclusive;
    const char *ct = wg_ctype(f.out);
    P("fn val(e: u32) -> %s {\n"
      "  let c = (e / %uu) %% %uu;\n"
      "  let base = e - c * %uu;\n"
      "  var a = %s(0);\n",
      ct, xs[axis], x->shape[axis], xs[axis], ct);
    if (n->attrs.cumulative_sum.reversed)
        P("  for (var j = c%s; j < %uu; j++) { a += ld1(base + j * %uu); }\n", ex ? " + 1u" : "", x->shape[axis],
          xs[axis]);
    else
        P("  for (var j = 0u; j < c%s; j++) { a += ld1(base + j * %uu); }\n", ex ? "" : " + 1u", xs[axis]);
    P("  return a;\n}\n");
    wg_frame_end(&f, NULL);
    return !t->failed;
}

uint32_t wg_wgsl_data(const wnn__ir *ir, const wnn__node *n, wg_kernel *k, uint32_t max, char *why,
                      size_t why_len)
{
    bool ok = true;
    uint32_t count = 1;
    switch (n->op) {
    case WNN__OP_GATHER:
    case WNN__OP_GATHER_ELEMENTS:
    case WNN__OP_GATHER_ND: ok = gather_kernel(ir, n, k); break;
    case WNN__OP_SCATTER_ELEMENTS:
    case WNN__OP_SCATTER_ND: ok = scatter_kernel(ir, n, k); break;
    case WNN__OP_SPLIT:
        if (n->n_out > max) {
            snprintf(why, why_len, "split into %u outputs (at most %u)", n->n_out, max);
            return 0;
        }
        count = n->n_out;
        for (uint32_t i = 0; i < count && ok; i++) {
            memset(&k[i], 0, sizeof k[i]);
            k[i].out_slot = i;
            ok = move_kernel(ir, n, &k[i]);
        }
        break;
    case WNN__OP_PAD:
    case WNN__OP_TILE:
    case WNN__OP_TRIANGULAR: ok = move_kernel(ir, n, k); break;
    case WNN__OP_QUANTIZE_LINEAR:
    case WNN__OP_DEQUANTIZE_LINEAR: ok = quantize_kernel(ir, n, k); break;
    case WNN__OP_CUMULATIVE_SUM: ok = cumsum_kernel(ir, n, k); break;
    default: ok = false; break;
    }
    if (!ok) {
        for (uint32_t i = 0; i < count; i++)
            free(k[i].text.s);
        snprintf(why, why_len, "%s: no WGSL kernel", wnn__op_name(n->op));
        return 0;
    }
    return count;
}
