/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl_tile.c -- the tiled matrix product that matmul, gemm and conv2d
** (as an implicit GEMM) share: out(z, m, n) = sum over k of A(z, m, k) *
** B(z, k, n), for float32.
**
** A workgroup of 16x16 invocations computes a BM x BN block of the output
** (64x64, or 128x128 for large products) and walks K in steps of BK (BM * BK
** = 1024, so each invocation stages 4 elements of A and 4 of B per step in
** workgroup memory, one vec4 load where the layout allows). Each invocation
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

/* Stages operand A (is_a) or B of this K step: element (row, kk) of the
** tile goes to tile[kk * rows / 4 + row / 4][row % 4], where row is m for A
** and n for B, and the 4 staged elements are consecutive in memory along
** k (along_k) or along the row. */
static void emit_stage(wg_text *t, bool is_a, bool along_k, bool vec4, uint32_t rows, uint32_t bk)
{
    const char *tile = is_a ? "As" : "Bs", *row0 = is_a ? "m0" : "n0", *lim = is_a ? "TM" : "TN";
    const char *call = is_a ? "la" : "lb";
    /* la(m, k) but lb(k, n) */
#define ARGS(r, k) (is_a ? r : k), (is_a ? k : r)
    if (vec4) {
        if (along_k)
            P("  { let rr = li / %uu; let kq = (li %% %uu) * 4u; let gr = %s + rr; let gk = k0 + kq;\n"
              "    var v = vec4<f32>(0.0);\n"
              "    if (gr < %s && gk < TK) { v = %s4(%s, %s); }\n"
              "    for (var c = 0u; c < 4u; c++) { %s[(kq + c) * %uu + rr / 4u][rr %% 4u] = v[c]; } }\n",
              bk / 4, bk / 4, row0, lim, call, ARGS("gr", "gk"), tile, rows / 4);
        else
            P("  { let kk = li / %uu; let rq = (li %% %uu) * 4u; let gr = %s + rq; let gk = k0 + kk;\n"
              "    var v = vec4<f32>(0.0);\n"
              "    if (gr < %s && gk < TK) { v = %s4(%s, %s); }\n"
              "    %s[kk * %uu + rq / 4u] = v; }\n",
              rows / 4, rows / 4, row0, lim, call, ARGS("gr", "gk"), tile, rows / 4);
        return;
    }
    P("  for (var c = 0u; c < 4u; c++) {\n"
      "    let e = li + 256u * c;\n");
    if (along_k)
        P("    let rr = e / %uu; let kk = e %% %uu;\n", bk, bk);
    else
        P("    let rr = e %% %uu; let kk = e / %uu;\n", rows, rows);
    P("    let gr = %s + rr; let gk = k0 + kk;\n"
      "    var v = 0.0;\n"
      "    if (gr < %s && gk < TK) { v = %s(%s, %s); }\n"
      "    %s[kk * %uu + rr / 4u][rr %% 4u] = v;\n  }\n",
      row0, lim, call, ARGS("gr", "gk"), tile, rows / 4);
#undef ARGS
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
    P("  for (var k0 = 0u; k0 < TK; k0 += %uu) {\n", bk);
    emit_stage(t, true, !p->a_along_m, p->a_vec4, bm, bk);
    emit_stage(t, false, p->b_along_k, p->b_vec4, bm, bk);
    P("    workgroupBarrier();\n"
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
                else
                    P("        for (var c = 0u; c < 4u; c++) { if (gn + c < TN) { so(gm, gn + c, c%u_%u[c]); } } }\n",
                      4 * i + r, j);
            }
            P("    }\n  }\n");
        }
    P("}\n");
}
