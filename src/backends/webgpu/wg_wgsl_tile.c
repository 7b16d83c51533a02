/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl_tile.c -- the tiled matrix product that matmul, gemm and conv2d
** (as an implicit GEMM) share: out(z, m, n) = sum over k of A(z, m, k) *
** B(z, k, n), computed in f32 (float16 operands are unpacked by the
** caller's loads and packed by its stores).
**
** A workgroup of 16x16 invocations computes a BM x BN block of the output
** (64x64, or 128x128 for large products) and walks K in steps of BK (BM * BK
** = 1024, so each invocation stages 4 elements of A and 4 of B per step in
** workgroup memory, one vec4 load where the layout allows; the next step's
** are loaded into registers while a step computes). Each invocation
** keeps a register block of 4x4 (or 8x8) outputs: rows ty*4 + 64*i + r and
** columns tx*4 + 64*j + c, so the vec4 reads of a step's tiles are
** consecutive across the invocations of a row (no bank conflicts) and the
** stores of a row of invocations are one contiguous run of the output.
** Loads outside the matrices stage zeros; stores outside are skipped, so
** every M, N, K is correct.
**
** The caller writes the operand access (wg_tile's doc) and the epilogue in
** its own WGSL; this file writes the workgroup memory and main().
*/
#include <stdio.h>

#include "backends/webgpu/wg_wgsl.h"

#define P(...) wg_text_printf(t, __VA_ARGS__)

bool wg_tile_plan(wg_tile *p, uint32_t max_groups)
{
    uint64_t t128 = (uint64_t)((p->M + 127) / 128) * ((p->N + 127) / 128) * p->batch;
    /* 128x128 blocks only where they still fill a large GPU (132 SMs) */
    p->r = p->M >= 128 && p->N >= 128 && t128 >= 128 ? 2 : 1;
    uint32_t b = 64 * p->r;
    p->grid[0] = (p->N + b - 1) / b;
    p->grid[1] = (p->M + b - 1) / b;
    p->grid[2] = p->batch;
    return p->M && p->N && p->batch && p->grid[0] <= max_groups && p->grid[1] <= max_groups &&
           p->grid[2] <= max_groups;
}

/* The 4 elements of operand A (is_a) or B that invocation li stages per K
** step: (row, kk) of the tile, row being m for A and n for B, consecutive
** in memory along k (along_k) or along the row. One vec4 when vec4, else
** element c at e = li + 256 * c (consecutive invocations, consecutive
** addresses). emit_fetch reads them from memory at step k0 into the
** register pa (pb), zeros outside the matrix; emit_store writes the
** register to tile[kk * rows / 4 + row / 4][row % 4]. */
static void emit_fetch(wg_text *t, bool is_a, bool along_k, bool vec4, uint32_t rows, uint32_t bk)
{
    const char *reg = is_a ? "pa" : "pb", *row0 = is_a ? "m0" : "n0", *lim = is_a ? "TM" : "TN";
    const char *call = is_a ? "la" : "lb";
    /* la(m, k) but lb(k, n) */
#define ARGS(r, k) (is_a ? r : k), (is_a ? k : r)
    if (vec4) {
        if (along_k)
            P("    { let gr = %s + li / %uu; let gk = k0 + (li %% %uu) * 4u;\n", row0, bk / 4, bk / 4);
        else
            P("    { let gr = %s + (li %% %uu) * 4u; let gk = k0 + li / %uu;\n", row0, rows / 4, rows / 4);
        P("      %s = vec4<f32>(0.0);\n"
          "      if (gr < %s && gk < TK) { %s = %s4(%s, %s); } }\n",
          reg, lim, reg, call, ARGS("gr", "gk"));
        return;
    }
    P("    for (var c = 0u; c < 4u; c++) {\n"
      "      let e = li + 256u * c;\n");
    if (along_k)
        P("      let gr = %s + e / %uu; let gk = k0 + e %% %uu;\n", row0, bk, bk);
    else
        P("      let gr = %s + e %% %uu; let gk = k0 + e / %uu;\n", row0, rows, rows);
    P("      %s[c] = 0.0;\n"
      "      if (gr < %s && gk < TK) { %s[c] = %s(%s, %s); }\n    }\n",
      reg, lim, reg, call, ARGS("gr", "gk"));
#undef ARGS
}

static void emit_store(wg_text *t, bool is_a, bool along_k, bool vec4, uint32_t rows, uint32_t bk)
{
    const char *tile = is_a ? "As" : "Bs", *reg = is_a ? "pa" : "pb";
    if (vec4 && along_k)
        P("    { let rr = li / %uu; let kq = (li %% %uu) * 4u;\n"
          "      for (var c = 0u; c < 4u; c++) { %s[(kq + c) * %uu + rr / 4u][rr %% 4u] = %s[c]; } }\n",
          bk / 4, bk / 4, tile, rows / 4, reg);
    else if (vec4)
        P("    %s[(li / %uu) * %uu + li %% %uu] = %s;\n", tile, rows / 4, rows / 4, rows / 4, reg);
    else
        P("    for (var c = 0u; c < 4u; c++) {\n"
          "      let e = li + 256u * c;\n"
          "      let rr = e %s %uu; let kk = e %s %uu;\n"
          "      %s[kk * %uu + rr / 4u][rr %% 4u] = %s[c];\n    }\n",
          along_k ? "/" : "%", along_k ? bk : rows, along_k ? "%" : "/", along_k ? bk : rows, tile, rows / 4,
          reg);
}

void wg_emit_tile(wg_text *t, const wg_tile *p)
{
    uint32_t R = p->r, bm = 64 * R, bk = 1024 / bm;
    P("const TM = %uu;\nconst TN = %uu;\nconst TK = %uu;\n", p->M, p->N, p->K);
    P("var<workgroup> As: array<vec4<f32>, %u>;\nvar<workgroup> Bs: array<vec4<f32>, %u>;\n", bk * bm / 4,
      bk * bm / 4);
    P("@compute @workgroup_size(16, 16)\n"
      "fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,\n"
      "        @builtin(local_invocation_index) li: u32) {\n"
      "  setup(wid.z);\n"
      "  let m0 = wid.y * %uu; let n0 = wid.x * %uu;\n",
      bm, bm);
    for (uint32_t i = 0; i < 4 * R; i++)
        for (uint32_t j = 0; j < R; j++)
            P("  var c%u_%u = vec4<f32>(0.0);\n", i, j);
    /* the next step's elements are read into registers while this step
    ** computes (one tile of workgroup memory, two barriers a step) */
    P("  var pa: vec4<f32>;\n  var pb: vec4<f32>;\n  { let k0 = 0u;\n");
    emit_fetch(t, true, !p->a_along_m, p->a_vec4, bm, bk);
    emit_fetch(t, false, p->b_along_k, p->b_vec4, bm, bk);
    P("  }\n  for (var k0 = 0u; k0 < TK; k0 += %uu) {\n", bk);
    emit_store(t, true, !p->a_along_m, p->a_vec4, bm, bk);
    emit_store(t, false, p->b_along_k, p->b_vec4, bm, bk);
    P("    workgroupBarrier();\n"
      "    if (k0 + %uu < TK) {\n      let k0 = k0 + %uu;\n", bk, bk);
    emit_fetch(t, true, !p->a_along_m, p->a_vec4, bm, bk);
    emit_fetch(t, false, p->b_along_k, p->b_vec4, bm, bk);
    P("    }\n"
      "    for (var kk = 0u; kk < %uu; kk++) {\n",
      bk);
    for (uint32_t i = 0; i < R; i++)
        P("      let a%u = As[kk * %uu + lid.y + %uu];\n", i, bm / 4, 16 * i);
    for (uint32_t j = 0; j < R; j++)
        P("      let b%u = Bs[kk * %uu + lid.x + %uu];\n", j, bm / 4, 16 * j);
    static const char comp[4] = {'x', 'y', 'z', 'w'};
    for (uint32_t i = 0; i < R; i++)
        for (uint32_t r = 0; r < 4; r++)
            for (uint32_t j = 0; j < R; j++)
                P("      c%u_%u = fma(vec4<f32>(a%u.%c), b%u, c%u_%u);\n", 4 * i + r, j, i, comp[r], j, 4 * i + r,
                  j);
    P("    }\n    workgroupBarrier();\n  }\n");
    for (uint32_t i = 0; i < R; i++)
        for (uint32_t r = 0; r < 4; r++) {
            P("  { let gm = m0 + lid.y * 4u + %uu;\n    if (gm < TM) {\n", 64 * i + r);
            for (uint32_t j = 0; j < R; j++) {
                P("      { let gn = n0 + lid.x * 4u + %uu;\n", 64 * j);
                if (p->out_vec4)
                    P("        if (gn < TN) { so4(gm, gn, c%u_%u); } }\n", 4 * i + r, j);
                else if (p->out_pairs)
                    P("        if (gn < TN) { so2(gm, gn, c%u_%u.xy); }\n"
                      "        if (gn + 2u < TN) { so2(gm, gn + 2u, c%u_%u.zw); } }\n",
                      4 * i + r, j, 4 * i + r, j);
                else
                    P("        for (var c = 0u; c < 4u; c++) { if (gn + c < TN) { so(gm, gn + c, c%u_%u[c]); } } }\n",
                      4 * i + r, j);
            }
            P("    }\n  }\n");
        }
    P("}\n");
}
