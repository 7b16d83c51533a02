/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl_rnn.c -- WGSL for gru, gruCell, lstm and lstmCell, float32 and
** float16 (computed in f32), with k_recurrent.c's formulas and sum order.
**
** Word-per-invocation (wg_wgsl.h) holds here too: each output element runs
** the recurrence of its batch row and direction itself, holding the state
** vectors in function-scope arrays of the hidden size, for as many steps as
** the element needs (all of them for the final states, up to its own step
** for the sequence output). Nothing is shared between invocations, so no
** scratch buffers or barriers are needed; the price is that every element
** recomputes its row, which suits the small hidden sizes of the WPT cases
** and is refused past MAX_HIDDEN. Node inputs (absent ones bound as zero):
**   gru:      input weight recurrentWeight bias recurrentBias initialHiddenState
**   gruCell:  input weight recurrentWeight hiddenState bias recurrentBias
**   lstm:     input weight recurrentWeight bias recurrentBias peepholeWeight
**             initialHiddenState initialCellState
**   lstmCell: input weight recurrentWeight hiddenState cellState bias
**             recurrentBias peepholeWeight
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/webgpu/wg_wgsl.h"

#define P(...) wg_text_printf(t, __VA_ARGS__)

#define MAX_HIDDEN 256

enum { X, W, R, B, RB, PH, H0, C0, ROLES };

/* Which node input plays each role, per operator (-1: none). */
static const int role_input[4][ROLES] = {
    /* gru */ {0, 1, 2, 3, 4, -1, 5, -1},
    /* gruCell */ {0, 1, 2, 4, 5, -1, 3, -1},
    /* lstm */ {0, 1, 2, 3, 4, 5, 6, 7},
    /* lstmCell */ {0, 1, 2, 5, 6, 7, 3, 4},
};
static const char *const role_name[ROLES] = {"X", "W", "R", "B", "RB", "PH", "H0", "C0"};

static const char *activation(wnn_recurrent_activation a)
{
    switch (a) {
    case WNN_RECURRENT_ACTIVATION_RELU: return "max(x, 0.0)";
    case WNN_RECURRENT_ACTIVATION_SIGMOID: return "1.0 / (1.0 + exp(-x))";
    default: return "tanh_(x)";
    }
}

static bool rnn_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k, char *why, size_t why_len)
{
    wg_text *t = &k->text;
    int which = n->op == WNN__OP_GRU ? 0 : n->op == WNN__OP_GRU_CELL ? 1 : n->op == WNN__OP_LSTM ? 2 : 3;
    bool lstm = which >= 2, cell = which == 1 || which == 3;
    uint32_t ins[WG_MAX_INPUTS], n_in = 0, binding[ROLES] = {0};
    for (int r = 0; r < ROLES; r++) {
        int i = role_input[which][r];
        if (i >= 0 && (uint32_t)i < n->n_in && n->in[i] != WNN__NONE) {
            ins[n_in++] = n->in[i];
            binding[r] = n_in;
        }
    }
    const wnn_operand_desc *xd = &ir->values[n->in[0]].desc, *wd = &ir->values[n->in[1]].desc;
    uint32_t G = lstm ? 4 : 3;
    uint32_t T = cell ? 1 : xd->shape[0], Bn = xd->shape[cell ? 0 : 1], I = xd->shape[cell ? 1 : 2];
    uint32_t H = wd->shape[cell ? 0 : 1] / G, dirs = cell ? 1 : wd->shape[0];
    if (H > MAX_HIDDEN) {
        snprintf(why, why_len, "%s: hidden size %u over %u, the most one invocation holds", wnn__op_name(n->op), H,
                 MAX_HIDDEN);
        return false;
    }
    wg_frame f;
    wg_frame_begin(&f, k, ir, n, ins, n_in);
    for (int r = 0; r < ROLES; r++) {
        if (binding[r])
            P("fn %s(i: u32) -> f32 { return ld%u(i); }\n", role_name[r], binding[r]);
        else
            P("fn %s(i: u32) -> f32 { return 0.0; }\n", role_name[r]);
    }
    for (int a = 0; a < 3; a++)
        P("fn act%d(x: f32) -> f32 { return %s; }\n", a, activation(n->attrs.rnn.activations[a]));
    /* gx(d, b, x_row, g): input x weight row g; gh: state x recurrent row g */
    P("fn gx(d: u32, xb: u32, g: u32) -> f32 { var a = 0.0; let w = (d * %uu + g) * %uu;\n"
      "  for (var m = 0u; m < %uu; m++) { a += X(xb + m) * W(w + m); } return a; }\n",
      G * H, I, I);
    bool seq = !cell && k->out_slot == (lstm ? 2u : 1u);
    bool backward_only = n->attrs.rnn.direction == WNN_RECURRENT_DIRECTION_BACKWARD;
    P("fn val(e: u32) -> f32 {\n"
      "  let j = e %% %uu; let b = (e / %uu) %% %uu; let d = (e / %uu) %% %uu;\n",
      H, H, Bn, H * Bn, dirs);
    P("  let backward = %s;\n", backward_only ? "true" : dirs == 2 ? "d == 1u" : "false");
    if (seq) /* sequence [T, dirs, B, H]: run up to this element's step */
        P("  let ts = e / %uu;\n  let steps = select(ts + 1u, %uu - ts, backward);\n", H * Bn * dirs, T);
    else
        P("  let steps = %uu;\n", T);
    P("  var h: array<f32, %u>; var c: array<f32, %u>; var hn: array<f32, %u>; var cn: array<f32, %u>;\n"
      "  var rh: array<f32, %u>;\n"
      "  let s0 = (d * %uu + b) * %uu;\n"
      "  for (var m = 0u; m < %uu; m++) { h[m] = H0(s0 + m); c[m] = C0(s0 + m); }\n"
      "  for (var s = 0u; s < steps; s++) {\n"
      "    let tt = select(s, %uu - 1u - s, backward);\n"
      "    let xb = (tt * %uu + b) * %uu;\n",
      H, H, H, H, H, Bn, H, H, T, Bn, I);
    P("    let rw = d * %uu * %uu;\n", G * H, H);
    uint32_t boff = G * H; /* bias rows per direction */
    if (!lstm) {
        bool zrn = n->attrs.rnn.layout == WNN_GRU_WEIGHT_LAYOUT_ZRN;
        uint32_t zo = zrn ? 0 : H, ro = zrn ? H : 0, no = 2 * H;
        bool after = n->attrs.rnn.reset_after;
        P("    for (var q = 0u; q < %uu; q++) {\n"
          "      var gr = 0.0; for (var m = 0u; m < %uu; m++) { gr += h[m] * R(rw + (%uu + q) * %uu + m); }\n"
          "      let r = act0((B(d * %uu + %uu + q) + RB(d * %uu + %uu + q)) + (gx(d, xb, %uu + q) + gr));\n"
          "      rh[q] = r;\n    }\n",
          H, H, ro, H, boff, ro, boff, ro, ro);
        P("    for (var q = 0u; q < %uu; q++) {\n"
          "      var gz = 0.0; var gn = 0.0; var grn = 0.0;\n"
          "      for (var m = 0u; m < %uu; m++) {\n"
          "        gz += h[m] * R(rw + (%uu + q) * %uu + m);\n"
          "        gn += %s * R(rw + (%uu + q) * %uu + m);\n"
          "      }\n"
          "      let z = act0((B(d * %uu + %uu + q) + RB(d * %uu + %uu + q)) + (gx(d, xb, %uu + q) + gz));\n",
          H, H, zo, H, after ? "h[m]" : "rh[m] * h[m]", no, H, boff, zo, boff, zo, zo);
        if (after)
            P("      let pre = B(d * %uu + %uu + q) + (gx(d, xb, %uu + q) + rh[q] * (RB(d * %uu + %uu + q) + gn));\n",
              boff, no, no, boff, no);
        else
            P("      let pre = (B(d * %uu + %uu + q) + RB(d * %uu + %uu + q)) + (gx(d, xb, %uu + q) + gn);\n", boff,
              no, boff, no, no);
        P("      let nn = act1(pre);\n"
          "      hn[q] = z * h[q] + nn * (1.0 - z);\n    }\n");
    } else {
        bool iofg = n->attrs.rnn.layout == WNN_LSTM_WEIGHT_LAYOUT_IOFG;
        uint32_t go[4] = {0, iofg ? 2 * H : H, iofg ? 3 * H : 2 * H, iofg ? H : 3 * H}; /* i f g o */
        P("    for (var q = 0u; q < %uu; q++) {\n"
          "      var gg: array<f32, 4>;\n",
          H);
        for (int g = 0; g < 4; g++)
            P("      { var a = 0.0; for (var m = 0u; m < %uu; m++) { a += h[m] * R(rw + (%uu + q) * %uu + m); }\n"
              "        gg[%d] = (B(d * %uu + %uu + q) + RB(d * %uu + %uu + q)) + (gx(d, xb, %uu + q) + a); }\n",
              H, go[g], H, g, boff, go[g], boff, go[g], go[g]);
        P("      let ig = act0(c[q] * PH(d * %uu + q) + gg[0]);\n"
          "      let fg = act0(c[q] * PH(d * %uu + %uu + q) + gg[1]);\n"
          "      let cg = act1(gg[2]);\n"
          "      let og = act0(c[q] * PH(d * %uu + %uu + q) + gg[3]);\n"
          "      cn[q] = fg * c[q] + ig * cg;\n"
          "      hn[q] = og * act2(cn[q]);\n    }\n",
          3 * H, 3 * H, 2 * H, 3 * H, H);
    }
    P("    h = hn;\n    c = cn;\n  }\n");
    P("  return %s[j];\n}\n", lstm && k->out_slot == 1 ? "c" : "h");
    wg_frame_end(&f, NULL);
    return !t->failed;
}

uint32_t wg_wgsl_rnn(const wnn__ir *ir, const wnn__node *n, wg_kernel *k, uint32_t max, char *why, size_t why_len)
{
    if (n->n_out > max) {
        snprintf(why, why_len, "%s: %u outputs (at most %u)", wnn__op_name(n->op), n->n_out, max);
        return 0;
    }
    why[0] = 0;
    for (uint32_t i = 0; i < n->n_out; i++) {
        memset(&k[i], 0, sizeof k[i]);
        k[i].out_slot = i;
        if (!rnn_kernel(ir, n, &k[i], why, why_len)) {
            for (uint32_t j = 0; j <= i; j++)
                free(k[j].text.s);
            if (!why[0])
                snprintf(why, why_len, "%s: no WGSL kernel", wnn__op_name(n->op));
            return 0;
        }
    }
    return n->n_out;
}
