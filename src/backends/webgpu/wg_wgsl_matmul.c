/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl_matmul.c -- WGSL for matmul and gemm: the tiled product of
** wg_wgsl_tile.c where its grid fits, else one loop per output element over
** the inner dimension (batch dimensions broadcast, gemm's transposes, alpha,
** beta and C).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/webgpu/wg_wgsl.h"

#define P(...) wg_text_printf(t, __VA_ARGS__)

/* The tiled kernel (wg_wgsl_tile.c) for float32 and float16: A and B read
** as vec4 along their contiguous dimension when it is a multiple of 4, the
** output stored as vec4 when N is. float16 without shader-f16 is read a half
** at a time out of packed words and stored a word (two halves) at a time, so
** only where N is even (no packed word holds the ends of two rows); with it
** (caps->f16) its bindings are array<f16> or array<vec4<f16>> and any N is
** tiled. False (nothing written) where the grid is over the limit; the
** caller then uses the loop below. */
static bool matmul_tiled(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *k)
{
    wg_text *t = &k->text;
    bool gemm = n->op == WNN__OP_GEMM, has_c = gemm && n->n_in > 2 && n->in[2] != WNN__NONE;
    const wnn_operand_desc *od = &ir->values[n->out[0]].desc, *ad = &ir->values[n->in[0]].desc,
                           *bd = &ir->values[n->in[1]].desc;
    wnn_data_type dt = od->data_type;
    if ((dt != WNN_DATA_TYPE_FLOAT32 && dt != WNN_DATA_TYPE_FLOAT16) || ad->data_type != dt ||
        bd->data_type != dt || (has_c && ir->values[n->in[2]].desc.data_type != dt))
        return false;
    if (k->chunk_words) /* a chunk of the output: the loop kernel */
        return false;
    bool at = gemm && n->attrs.gemm.a_transpose, bt = gemm && n->attrs.gemm.b_transpose;
    bool native = dt == WNN_DATA_TYPE_FLOAT16 && caps && caps->f16;
    bool half = dt == WNN_DATA_TYPE_FLOAT16 && !native; /* packed in u32 words */
    uint32_t r = od->rank, M = od->shape[r - 2], N = od->shape[r - 1];
    if (half && N % 2) /* a packed word would hold the ends of two rows */
        return false;
    uint32_t K = at ? ad->shape[0] : ad->shape[ad->rank - 1];
    uint32_t nb = r - 2, batch = 1, dims[WNN_MAX_RANK], st[2][WNN_MAX_RANK], base[2] = {0, 0};
    memset(st, 0, sizeof st);
    memcpy(dims, od->shape, nb * sizeof *dims);
    for (uint32_t d = 0; d < nb; d++)
        batch *= dims[d];
    const wnn_operand_desc *ops[2] = {ad, bd};
    uint32_t mat[2] = {M * K, K * N};
    for (uint32_t o = 0; o < 2; o++) {
        uint32_t sz = mat[o];
        for (uint32_t d = nb; d-- > 0;) {
            int32_t di = (int32_t)d - (int32_t)(nb - (ops[o]->rank - 2));
            uint32_t dim = di >= 0 ? ops[o]->shape[di] : 1;
            st[o][d] = dim == 1 ? 0 : sz;
            sz *= dim;
        }
    }
    wg_tile p = {.M = M, .N = N, .K = K, .batch = batch};
    p.a_along_m = at;
    p.a_vec4 = !half && (at ? M % 4 == 0 : K % 4 == 0);
    p.b_along_k = bt;
    p.b_vec4 = !half && (bt ? K % 4 == 0 : N % 4 == 0);
    p.out_vec4 = !half && N % 4 == 0;
    p.out_pairs = half;
    if (!wg_tile_plan(&p, 65535))
        return false;
    k->out_value = n->out[0];
    k->n_in = has_c ? 3 : 2;
    for (uint32_t i = 0; i < k->n_in; i++)
        k->in_values[i] = n->in[i];
    k->words = wnn_operand_desc_element_count(od);
    memcpy(k->grid, p.grid, sizeof p.grid);
    /* packed float16: words of two halves, unpacked by the loads */
    const char *scalar = half ? "u32" : native ? "f16" : "f32", *vec = native ? "vec4<f16>" : "vec4<f32>";
    if (native)
        P(WG_ENABLE_F16);
    P("@group(0) @binding(0) var<storage, read_write> b0: array<%s>;\n"
      "@group(0) @binding(1) var<storage, read> b1: array<%s>;\n"
      "@group(0) @binding(2) var<storage, read> b2: array<%s>;\n",
      p.out_vec4 ? vec : scalar, p.a_vec4 ? vec : scalar, p.b_vec4 ? vec : scalar);
    if (has_c)
        P("@group(0) @binding(3) var<storage, read> b3: array<%s>;\n", scalar);
    if (half || native)
        P("%s", wg_helpers);
    P("var<private> ab: u32;\nvar<private> bb: u32;\nvar<private> ob: u32;\n"
      "fn setup(z: u32) {\n");
    wg_emit_walk(t, "z", nb, dims, 2, base, st);
    P("  ab = i1; bb = i2; ob = z * %uu;\n}\n", M * N);
    /* element (m, k) of A and (k, n) of B */
    char ia[64], ib[64];
    snprintf(ia, sizeof ia, "ab + m * %uu + k * %uu", at ? 1 : K, at ? M : 1);
    snprintf(ib, sizeof ib, "bb + k * %uu + n * %uu", bt ? 1 : N, bt ? K : 1);
    /* element i of binding b, as f32 */
    const char *elem = half ? "unpack2x16float(b%u[(%s) >> 1u])[(%s) & 1u]" : native ? "f32(b%u[%s])" : "b%u[%s]";
    char ea[192], eb[192], ec[192];
    if (half) {
        snprintf(ea, sizeof ea, elem, 1u, ia, ia);
        snprintf(eb, sizeof eb, elem, 2u, ib, ib);
    } else {
        snprintf(ea, sizeof ea, elem, 1u, ia);
        snprintf(eb, sizeof eb, elem, 2u, ib);
    }
    if (p.a_vec4)
        P("fn la4(m: u32, k: u32) -> vec4<f32> { return vec4<f32>(b1[(%s) / 4u]); }\n", ia);
    else
        P("fn la(m: u32, k: u32) -> f32 { return %s; }\n", ea);
    if (p.b_vec4)
        P("fn lb4(k: u32, n: u32) -> vec4<f32> { return vec4<f32>(b2[(%s) / 4u]); }\n", ib);
    else
        P("fn lb(k: u32, n: u32) -> f32 { return %s; }\n", eb);
    char epi[160] = "v";
    if (gemm) {
        uint32_t al = wg_param(k, n->attrs.gemm.alpha);
        if (has_c) {
            uint32_t be = wg_param(k, n->attrs.gemm.beta), cst[2], odims[2] = {M, N};
            wg_broadcast_strides(&ir->values[n->in[2]].desc, 2, odims, cst);
            char ic[64];
            snprintf(ic, sizeof ic, "m * %uu + n * %uu", cst[0], cst[1]);
            if (half)
                snprintf(ec, sizeof ec, elem, 3u, ic, ic);
            else
                snprintf(ec, sizeof ec, elem, 3u, ic);
            P("fn ldc(m: u32, n: u32) -> f32 { return %s; }\n", ec);
            snprintf(epi, sizeof epi, "v * prm[%u] + prm[%u] * %s", al, be,
                     p.out_vec4    ? "vec4<f32>(ldc(m, n), ldc(m, n + 1u), ldc(m, n + 2u), ldc(m, n + 3u))"
                     : p.out_pairs ? "vec2<f32>(ldc(m, n), ldc(m, n + 1u))"
                                   : "ldc(m, n)");
        } else {
            snprintf(epi, sizeof epi, "v * prm[%u]", al);
        }
        P("@group(0) @binding(%u) var<storage, read> prm: array<f32>;\n", k->n_in + 1);
    }
    if (p.out_vec4 && native)
        P("fn so4(m: u32, n: u32, v: vec4<f32>) {\n"
          "  let w = %s;\n"
          "  b0[(ob + m * %uu + n) / 4u] = bitcast<vec4<f16>>(vec2<u32>(h16(w.x) | (h16(w.y) << 16u), "
          "h16(w.z) | (h16(w.w) << 16u)));\n}\n",
          epi, N);
    else if (p.out_vec4)
        P("fn so4(m: u32, n: u32, v: vec4<f32>) { b0[(ob + m * %uu + n) / 4u] = %s; }\n", N, epi);
    else if (native)
        P("fn so(m: u32, n: u32, v: f32) { b0[ob + m * %uu + n] = " WG_F16_STORE "; }\n", N, epi);
    else if (p.out_pairs)
        P("fn so2(m: u32, n: u32, v: vec2<f32>) { let w = %s; b0[(ob + m * %uu + n) >> 1u] = h16(w.x) | (h16(w.y) << 16u); }\n",
          epi, N);
    else
        P("fn so(m: u32, n: u32, v: f32) { b0[ob + m * %uu + n] = %s; }\n", N, epi);
    wg_emit_tile(t, &p);
    return !t->failed;
}

bool wg_wgsl_matmul(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *k)
{
    if (matmul_tiled(ir, n, caps, k))
        return true;
    free(k->text.s);
    wg_kernel_clear(k);
    wg_frame f;
    wg_text *t = &k->text;
    bool gemm = n->op == WNN__OP_GEMM;
    uint32_t ins[3] = {n->in[0], n->in[1], gemm && n->n_in > 2 ? n->in[2] : WNN__NONE};
    uint32_t n_in = ins[2] != WNN__NONE ? 3 : 2;
    wg_frame_begin(&f, k, ir, n, ins, n_in);
    const wnn_operand_desc *od = &ir->values[n->out[0]].desc, *ad = &ir->values[ins[0]].desc,
                           *bd = &ir->values[ins[1]].desc;
    uint32_t r = od->rank, M = od->shape[r - 2], N = od->shape[r - 1];
    uint32_t K = gemm && n->attrs.gemm.a_transpose ? ad->shape[0] : ad->shape[ad->rank - 1];
    /* strides of A's (i, k) and B's (k, j) */
    uint32_t sai = K, sak = 1, sbk = N, sbj = 1;
    if (gemm && n->attrs.gemm.a_transpose)
        sai = 1, sak = M;
    if (gemm && n->attrs.gemm.b_transpose)
        sbk = 1, sbj = K;
    /* batch walk: output dims without the last two; A and B broadcast */
    uint32_t dims[WNN_MAX_RANK], st[3][WNN_MAX_RANK], base[3] = {0, 0, 0};
    memset(st, 0, sizeof st);
    uint32_t nb = r - 2;
    memcpy(dims, od->shape, nb * sizeof *dims);
    const wnn_operand_desc *ops[2] = {ad, bd};
    uint32_t mat[2] = {M * K, K * N};
    for (uint32_t o = 0; o < 2 && nb; o++) {
        uint32_t s = mat[o];
        for (uint32_t d = nb; d-- > 0;) {
            int32_t di = (int32_t)d - (int32_t)(nb - (ops[o]->rank - 2));
            uint32_t dim = di >= 0 ? ops[o]->shape[di] : 1;
            st[o][d] = dim == 1 ? 0 : s;
            s *= dim;
        }
    }
    P("fn val(e: u32) -> f32 {\n"
      "  let i = (e / %uu) %% %uu; let j = e %% %uu;\n",
      N, M, N);
    char from[32];
    snprintf(from, sizeof from, "e / %uu", M * N);
    wg_emit_walk(t, from, nb, dims, 2, base, st);
    P("  var a = 0.0;\n"
      "  for (var k = 0u; k < %uu; k++) { a += ld1(i1 + i * %uu + k * %uu) * ld2(i2 + k * %uu + j * %uu); }\n",
      K, sai, sak, sbk, sbj);
    if (gemm) {
        uint32_t al = wg_param(k, n->attrs.gemm.alpha);
        P("  a = a * prm[%u];\n", al);
        if (n_in == 3) {
            uint32_t be = wg_param(k, n->attrs.gemm.beta), cst[2];
            const wnn_operand_desc *cd = &ir->values[ins[2]].desc;
            uint32_t odims[2] = {M, N};
            wg_broadcast_strides(cd, 2, odims, cst);
            P("  a = a + prm[%u] * ld3(i * %uu + j * %uu);\n", be, cst[0], cst[1]);
        }
    }
    P("  return a;\n}\n");
    wg_frame_end(&f, NULL);
    return !t->failed;
}
