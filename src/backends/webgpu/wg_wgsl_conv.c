/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl_conv.c -- WGSL for the spatial operators: conv2d,
** convTranspose2d and the three pools, both input layouts, every filter
** layout; and resample2d.
**
** float32 conv2d with 4 or more output channels a group is an implicit
** GEMM on the tiled product (conv_tiled). Otherwise each output element is
** one loop over its window (the cpu's direct path):
** conv2d reads its group's input channels times the taps that fall inside
** the input; convTranspose2d gathers, for each tap, the one input position
** that scatters into it (if the stride divides the offset); pools read
** only real elements (padding adds nothing, an average divides by the
** count of real elements, an empty window gives 0). Shapes, strides and
** layouts are baked into the text; positions that may fall outside the
** input are computed in i32.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/webgpu/wg_wgsl.h"

#define P(...) wg_text_printf(t, __VA_ARGS__)

/* Strides of an [n, c, h, w] tensor stored in layout (0 nchw, 1 nhwc). */
typedef struct plane4 {
    uint32_t n, c, h, w;     /* sizes */
    uint32_t sn, sc, sh, sw; /* strides in elements */
} plane4;

static plane4 plane_of(const wnn_operand_desc *d, uint32_t layout)
{
    const uint32_t *s = d->shape;
    if (layout == WNN_INPUT_LAYOUT_NHWC)
        return (plane4){s[0], s[3], s[1], s[2], s[1] * s[2] * s[3], 1, s[2] * s[3], s[3]};
    return (plane4){s[0], s[1], s[2], s[3], s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
}

/* let nb, ch, oy, ox: the coordinates of output element e. */
static void emit_out_coords(wg_text *t, const plane4 *o)
{
    P("  let nb = e / %uu; let ch = (e / %uu) %% %uu; let oy = (e / %uu) %% %uu; let ox = (e / %uu) %% %uu;\n",
      o->sn, o->sc, o->c, o->sh, o->h, o->sw, o->w);
}

/* Where o, i, h, w sit in a filter's shape, per layout (k_conv.c's table). */
static void filter_axes(wnn__op op, uint32_t layout, uint32_t a[4])
{
    static const uint32_t conv[4][4] = {{0, 1, 2, 3}, {3, 2, 0, 1}, {0, 3, 1, 2}, {3, 0, 1, 2}};
    static const uint32_t tconv[3][4] = {{1, 0, 2, 3}, {2, 3, 0, 1}, {0, 3, 1, 2}};
    memcpy(a, op == WNN__OP_CONV2D ? conv[layout < 4 ? layout : 0] : tconv[layout < 3 ? layout : 0],
           4 * sizeof *a);
}

static bool conv_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k)
{
    wg_text *t = &k->text;
    const wnn__attrs *a = &n->attrs;
    bool has_bias = n->n_in > 2 && n->in[2] != WNN__NONE;
    uint32_t ins[3] = {n->in[0], n->in[1], has_bias ? n->in[2] : 0};
    wg_frame f;
    wg_frame_begin(&f, k, ir, n, ins, has_bias ? 3 : 2);
    plane4 x = plane_of(&ir->values[ins[0]].desc, a->conv.input_layout);
    plane4 o = plane_of(&ir->values[n->out[0]].desc, a->conv.input_layout);
    const uint32_t *fs = ir->values[ins[1]].desc.shape;
    uint32_t fst[4] = {fs[1] * fs[2] * fs[3], fs[2] * fs[3], fs[3], 1}, ax[4];
    filter_axes(n->op, a->conv.filter_layout, ax);
    uint32_t fo = fst[ax[0]], fi = fst[ax[1]], fh = fst[ax[2]], fw = fst[ax[3]];
    uint32_t kh = fs[ax[2]], kw = fs[ax[3]], groups = a->conv.groups ? a->conv.groups : 1;
    uint32_t cg_in = x.c / groups, cg_out = o.c / groups;
    P("fn val(e: u32) -> f32 {\n");
    emit_out_coords(t, &o);
    P("  let g = ch / %uu;\n  var a = %s;\n", cg_out, has_bias ? "ld3(ch)" : "0.0");
    P("  for (var ky = 0u; ky < %uu; ky++) {\n", kh);
    if (n->op == WNN__OP_CONV2D) {
        P("    let iy = i32(oy * %uu + ky * %uu) - %d;\n"
          "    if (iy < 0 || iy >= %d) { continue; }\n"
          "    for (var kx = 0u; kx < %uu; kx++) {\n"
          "      let ix = i32(ox * %uu + kx * %uu) - %d;\n"
          "      if (ix < 0 || ix >= %d) { continue; }\n"
          "      let xb = nb * %uu + g * %uu + u32(iy) * %uu + u32(ix) * %uu;\n"
          "      let wb = ch * %uu + ky * %uu + kx * %uu;\n"
          "      for (var c = 0u; c < %uu; c++) { a += ld1(xb + c * %uu) * ld2(wb + c * %uu); }\n"
          "    }\n  }\n  return a;\n}\n",
          a->conv.strides[0], a->conv.dilations[0], (int)a->conv.padding[0], (int)x.h, kw, a->conv.strides[1],
          a->conv.dilations[1], (int)a->conv.padding[2], (int)x.w, x.sn, cg_in * x.sc, x.sh, x.sw, fo, fh, fw,
          cg_in, x.sc, fi);
    } else {
        /* the input position whose stride lands on this output: (o + pad - k * d) / s when exact */
        P("    let ty = i32(oy) + %d - i32(ky * %uu);\n"
          "    if (ty < 0 || ty %% %d != 0 || ty / %d >= %d) { continue; }\n"
          "    for (var kx = 0u; kx < %uu; kx++) {\n"
          "      let tx = i32(ox) + %d - i32(kx * %uu);\n"
          "      if (tx < 0 || tx %% %d != 0 || tx / %d >= %d) { continue; }\n"
          "      let xb = nb * %uu + g * %uu + u32(ty / %d) * %uu + u32(tx / %d) * %uu;\n"
          "      let wb = (g * %uu) * %uu + (ch %% %uu) * %uu + ky * %uu + kx * %uu;\n"
          "      for (var c = 0u; c < %uu; c++) { a += ld1(xb + c * %uu) * ld2(wb + c * %uu); }\n"
          "    }\n  }\n  return a;\n}\n",
          (int)a->conv.padding[0], a->conv.dilations[0], (int)a->conv.strides[0], (int)a->conv.strides[0],
          (int)x.h, kw, (int)a->conv.padding[2], a->conv.dilations[1], (int)a->conv.strides[1],
          (int)a->conv.strides[1], (int)x.w, x.sn, cg_in * x.sc, (int)a->conv.strides[0], x.sh,
          (int)a->conv.strides[1], x.sw, cg_in, fi, cg_out, fo, fh, fw, cg_in, x.sc, fi);
    }
    wg_frame_end(&f, NULL);
    return !t->failed;
}

/* conv2d as an implicit GEMM on the tiled product (wg_wgsl_tile.c), for
** float32 and float16 (computed in f32; halves bound as array<f16> where
** the device has shader-f16, caps->f16, else packed in words, then only
** nchw with an even pixel count, so that a word holds two pixels of one
** plane), with at least 4 output channels a group: per batch and group,
** out(m, p) = sum over r of filter(m, r) * x(r, p), m the group's output
** channel, p = oy * OW + ox the output pixel, r a (channel, ky, kx) tap,
** channel innermost where the input is nhwc (memory order, both operands).
** Taps in the padding read 0. False where it does not apply. */
static bool conv_tiled(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *k)
{
    wg_text *t = &k->text;
    const wnn__attrs *a = &n->attrs;
    bool has_bias = n->n_in > 2 && n->in[2] != WNN__NONE;
    wnn_data_type dt = ir->values[n->out[0]].desc.data_type;
    bool native = dt == WNN_DATA_TYPE_FLOAT16 && caps && caps->f16;
    bool half = dt == WNN_DATA_TYPE_FLOAT16 && !native; /* packed in u32 words */
    for (uint32_t i = 0; i < n->n_in; i++)
        if (n->in[i] != WNN__NONE && ir->values[n->in[i]].desc.data_type != dt)
            return false;
    if (n->op != WNN__OP_CONV2D || (dt != WNN_DATA_TYPE_FLOAT32 && dt != WNN_DATA_TYPE_FLOAT16) || k->chunk_words)
        return false;
    plane4 x = plane_of(&ir->values[n->in[0]].desc, a->conv.input_layout);
    plane4 o = plane_of(&ir->values[n->out[0]].desc, a->conv.input_layout);
    const uint32_t *fs = ir->values[n->in[1]].desc.shape;
    uint32_t fst[4] = {fs[1] * fs[2] * fs[3], fs[2] * fs[3], fs[3], 1}, ax[4];
    filter_axes(n->op, a->conv.filter_layout, ax);
    uint32_t fo = fst[ax[0]], fi = fst[ax[1]], fh = fst[ax[2]], fw = fst[ax[3]];
    uint32_t kh = fs[ax[2]], kw = fs[ax[3]], groups = a->conv.groups ? a->conv.groups : 1;
    uint32_t cg_in = x.c / groups, cg_out = o.c / groups;
    if (cg_out < 4)
        return false;
    bool inner = x.sc == 1;
    /* packed float16 stores a word of two pixels: nchw, each (batch,
    ** channel) plane a whole number of words */
    if (half && (o.sw != 1 || (o.h * o.w) % 2 != 0))
        return false;
    wg_tile p = {.M = cg_out, .N = o.h * o.w, .K = cg_in * kh * kw, .batch = x.n * groups};
    p.a_along_m = fo == 1;
    p.b_along_k = inner;
    p.out_pairs = half;
    if (!wg_tile_plan(&p, 65535))
        return false;
    k->out_value = n->out[0];
    k->n_in = has_bias ? 3 : 2;
    for (uint32_t i = 0; i < k->n_in; i++)
        k->in_values[i] = n->in[i];
    k->words = wnn_operand_desc_element_count(&ir->values[n->out[0]].desc);
    memcpy(k->grid, p.grid, sizeof p.grid);
    const char *et = native ? "f16" : half ? "u32" : "f32";
    if (native)
        P(WG_ENABLE_F16);
    P("@group(0) @binding(0) var<storage, read_write> b0: array<%s>;\n"
      "@group(0) @binding(1) var<storage, read> b1: array<%s>;\n"
      "@group(0) @binding(2) var<storage, read> b2: array<%s>;\n",
      et, et, et);
    if (has_bias)
        P("@group(0) @binding(3) var<storage, read> b3: array<%s>;\n", et);
    if (native || half)
        P("%s", wg_helpers);
    /* element i of binding k as f32: e1 (input), e2 (filter), e3 (bias) */
    for (uint32_t b = 1; b <= k->n_in; b++)
        P(half ? "fn e%u(i: u32) -> f32 { return unpack2x16float(b%u[i >> 1u])[i & 1u]; }\n"
               : "fn e%u(i: u32) -> f32 { return f32(b%u[i]); }\n",
          b, b);
    P("var<private> xb: u32;\nvar<private> wb: u32;\nvar<private> yb: u32;\nvar<private> chb: u32;\n"
      "fn setup(z: u32) {\n"
      "  let nb = z / %uu; let g = z %% %uu;\n"
      "  xb = nb * %uu + g * %uu; wb = g * %uu; yb = nb * %uu + g * %uu; chb = g * %uu;\n}\n",
      groups, groups, x.sn, cg_in * x.sc, cg_out * fo, o.sn, cg_out * o.sc, cg_out);
    /* tap r -> (c, ky, kx) */
    if (inner)
        P("fn tap(r: u32) -> vec3<u32> { let q = r / %uu; return vec3<u32>(r %% %uu, q / %uu, q %% %uu); }\n",
          cg_in, cg_in, kw, kw);
    else
        P("fn tap(r: u32) -> vec3<u32> { return vec3<u32>(r / %uu, (r / %uu) %% %uu, r %% %uu); }\n", kh * kw,
          kw, kh, kw);
    P("fn la(m: u32, r: u32) -> f32 { let q = tap(r); return e2(wb + m * %uu + q.x * %uu + q.y * %uu + q.z * %uu); }\n",
      fo, fi, fh, fw);
    P("fn lb(r: u32, p: u32) -> f32 {\n"
      "  let q = tap(r);\n"
      "  let iy = i32((p / %uu) * %uu + q.y * %uu) - %d;\n"
      "  let ix = i32((p %% %uu) * %uu + q.z * %uu) - %d;\n"
      "  if (iy < 0 || iy >= %d || ix < 0 || ix >= %d) { return 0.0; }\n"
      "  return e1(xb + q.x * %uu + u32(iy) * %uu + u32(ix) * %uu);\n}\n",
      o.w, a->conv.strides[0], a->conv.dilations[0], (int)a->conv.padding[0], o.w, a->conv.strides[1],
      a->conv.dilations[1], (int)a->conv.padding[2], (int)x.h, (int)x.w, x.sc, x.sh, x.sw);
    const char *bias = has_bias ? " + e3(chb + m)" : "";
    if (half) /* pixels p and p + 1 (p even) of a plane: one word */
        P("fn so2(m: u32, p: u32, v: vec2<f32>) {\n"
          "  let w = v%s;\n  b0[(yb + m * %uu + p) >> 1u] = h16(w.x) | (h16(w.y) << 16u);\n}\n",
          has_bias ? " + vec2<f32>(e3(chb + m))" : "", o.sc);
    else if (native) {
        char y[32];
        snprintf(y, sizeof y, "v%s", bias);
        P("fn so(m: u32, p: u32, v: f32) { b0[yb + m * %uu + (p / %uu) * %uu + (p %% %uu) * %uu] = " WG_F16_STORE
          "; }\n",
          o.sc, o.w, o.sh, o.w, o.sw, y);
    }
    else
        P("fn so(m: u32, p: u32, v: f32) { b0[yb + m * %uu + (p / %uu) * %uu + (p %% %uu) * %uu] = v%s; }\n", o.sc,
          o.w, o.sh, o.w, o.sw, bias);
    wg_emit_tile(t, &p);
    return !t->failed;
}

static bool pool_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k)
{
    wg_text *t = &k->text;
    const wnn__attrs *a = &n->attrs;
    uint32_t in = n->in[0];
    wg_frame f;
    wg_frame_begin(&f, k, ir, n, &in, 1);
    wnn_data_type type = ir->values[in].desc.data_type;
    plane4 x = plane_of(&ir->values[in].desc, a->pool2d.layout);
    plane4 o = plane_of(&ir->values[n->out[0]].desc, a->pool2d.layout);
    const char *ct = wg_ctype(type);
    P("fn val(e: u32) -> %s {\n", ct);
    emit_out_coords(t, &o);
    P("  let xb = nb * %uu + ch * %uu;\n", x.sn, x.sc);
    bool max = n->op == WNN__OP_MAX_POOL2D;
    if (max)
        P("  var m = %s(0); var any = false;\n", ct);
    else
        P("  var s = 0.0; var count = 0u;\n");
    P("  for (var ky = 0u; ky < %uu; ky++) {\n"
      "    let iy = i32(oy * %uu + ky * %uu) - %d;\n"
      "    if (iy < 0 || iy >= %d) { continue; }\n"
      "    for (var kx = 0u; kx < %uu; kx++) {\n"
      "      let ix = i32(ox * %uu + kx * %uu) - %d;\n"
      "      if (ix < 0 || ix >= %d) { continue; }\n"
      "      let v = ld1(xb + u32(iy) * %uu + u32(ix) * %uu);\n",
      a->pool2d.window[0], a->pool2d.strides[0], a->pool2d.dilations[0], (int)a->pool2d.padding[0], (int)x.h,
      a->pool2d.window[1], a->pool2d.strides[1], a->pool2d.dilations[1], (int)a->pool2d.padding[2], (int)x.w,
      x.sh, x.sw);
    if (max && wg_is_float(type)) /* NaN wins and stays */
        P("      if (!any || (!isnan_(m) && (v > m || isnan_(v)))) { m = v; }\n      any = true;\n");
    else if (max)
        P("      if (!any || v > m) { m = v; }\n      any = true;\n");
    else
        P("      s += %s; count++;\n", n->op == WNN__OP_L2_POOL2D ? "v * v" : "v");
    P("    }\n  }\n");
    if (max)
        P("  return m;\n}\n");
    else if (n->op == WNN__OP_L2_POOL2D)
        P("  return sqrt(s);\n}\n");
    else
        P("  return select(0.0, s / f32(count), count > 0u);\n}\n");
    wg_frame_end(&f, NULL);
    return !t->failed;
}

/* resample2d (k_resample.c's rules): output index j of a resized dimension
** samples the half-pixel coordinate (j + 0.5) * in / out - 0.5, clamped;
** nearest takes ceil(coordinate - 0.5) in exact integers, linear blends the
** two neighbours in f32 and rounds integer results half away from zero. */
static bool resample_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k)
{
    wg_text *t = &k->text;
    uint32_t in = n->in[0];
    wg_frame f;
    wg_frame_begin(&f, k, ir, n, &in, 1);
    const wnn_operand_desc *x = &ir->values[in].desc, *o = &ir->values[n->out[0]].desc;
    uint32_t st[4] = {x->shape[1] * x->shape[2] * x->shape[3], x->shape[2] * x->shape[3], x->shape[3], 1};
    const uint32_t *axes = n->attrs.resample2d.axes;
    bool linear = n->attrs.resample2d.mode == WNN_INTERPOLATION_MODE_LINEAR;
    P("fn val(e: u32) -> %s {\n", wg_ctype(f.out));
    P("  let c0 = e / %uu; let c1 = (e / %uu) %% %uu; let c2 = (e / %uu) %% %uu; let c3 = e %% %uu;\n",
      o->shape[1] * o->shape[2] * o->shape[3], o->shape[2] * o->shape[3], o->shape[1], o->shape[3], o->shape[2],
      o->shape[3]);
    P("  var base = 0u;\n");
    for (uint32_t d = 0; d < 4; d++)
        if (d != axes[0] && d != axes[1])
            P("  base += c%u * %uu;\n", d, st[d]);
    for (uint32_t a = 0; a < 2; a++) {
        uint32_t d = axes[a], ni = x->shape[d], no = o->shape[d];
        if (linear)
            P("  let p%u = clamp((f32(c%u) + 0.5) * %.9g - 0.5, 0.0, %u.0);\n"
              "  let lo%u = u32(p%u); let hi%u = min(lo%u + 1u, %uu); let w%u = p%u - f32(lo%u);\n",
              a, d, (double)ni / (double)no, ni - 1, a, a, a, a, ni - 1, a, a, a);
        else
            P("  let num%u = i32((2u * c%u + 1u) * %uu) - %d;\n"
              "  let q%u = u32(clamp(select(-((-num%u) / %d), (num%u + %d) / %d, num%u >= 0), 0, %d));\n",
              a, d, ni, (int)(2 * no), a, a, (int)(2 * no), a, (int)(2 * no - 1), (int)(2 * no), a, (int)ni - 1);
    }
    if (!linear) {
        P("  return ld1(base + q0 * %uu + q1 * %uu);\n}\n", st[axes[0]], st[axes[1]]);
    } else {
        uint32_t sa = st[axes[0]], sb = st[axes[1]];
        P("  let v00 = f32(ld1(base + lo0 * %uu + lo1 * %uu)); let v01 = f32(ld1(base + lo0 * %uu + hi1 * %uu));\n"
          "  let v10 = f32(ld1(base + hi0 * %uu + lo1 * %uu)); let v11 = f32(ld1(base + hi0 * %uu + hi1 * %uu));\n"
          "  let top = (1.0 - w1) * v00 + w1 * v01; let bottom = (1.0 - w1) * v10 + w1 * v11;\n"
          "  let v = (1.0 - w0) * top + w0 * bottom;\n",
          sa, sb, sa, sb, sa, sb, sa, sb);
        if (wg_is_float(f.out))
            P("  return v;\n}\n");
        else
            P("  return %s(clamp(sign(v) * floor(abs(v) + 0.5), %s));\n}\n", wg_ctype(f.out),
              f.out == WNN_DATA_TYPE_INT8 ? "-128.0, 127.0" : "0.0, 255.0");
    }
    wg_frame_end(&f, NULL);
    return !t->failed;
}

uint32_t wg_wgsl_conv(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *k, char *why,
                      size_t why_len)
{
    bool ok;
    switch (n->op) {
    case WNN__OP_CONV2D:
        ok = conv_tiled(ir, n, caps, k);
        if (!ok) {
            free(k->text.s);
            wg_kernel_clear(k);
            ok = conv_kernel(ir, n, k);
        }
        break;
    case WNN__OP_CONV_TRANSPOSE2D: ok = conv_kernel(ir, n, k); break;
    case WNN__OP_AVERAGE_POOL2D:
    case WNN__OP_L2_POOL2D:
    case WNN__OP_MAX_POOL2D: ok = pool_kernel(ir, n, k); break;
    case WNN__OP_RESAMPLE2D: ok = resample_kernel(ir, n, k); break;
    default: ok = false; break;
    }
    if (!ok)
        snprintf(why, why_len, "%s: no WGSL kernel", wnn__op_name(n->op));
    return ok ? 1 : 0;
}
