/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_recurrent.c -- cpu kernels of gru, gruCell, lstm and lstmCell.
**
** Dedicated kernels rather than compositions: each step is two matrix
** products (input by weight, state by recurrent weight, both against
** transposed weights) through wnn__cpu_sgemm, or a plain loop when
** the product is tiny, followed by one fused element-wise pass for the gates.
** The element-wise sums follow the order of WebNN's emulation code, so a
** float32 result rounds like the graph the specification spells out.
**
** float16 operands are widened into float32 copies, computed in float32 and
** rounded once per output element. Node inputs are, in order:
**   gru:      input weight recurrentWeight bias recurrentBias initialHiddenState
**   gruCell:  input weight recurrentWeight hiddenState bias recurrentBias
**   lstm:     input weight recurrentWeight bias recurrentBias peepholeWeight
**             initialHiddenState initialCellState
**   lstmCell: input weight recurrentWeight hiddenState cellState bias
**             recurrentBias peepholeWeight
** with absent optional operands as NULL data.
*/
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/kernels.h"
#include "core/half.h"

/* Below this many multiply-adds (M*N*K) the plain loop beats a BLAS call. */
#define SMALL_PRODUCT 4096
#define MAX_INPUTS 8
#define MAX_OUTPUTS 3

/* c[m, n] = a[m, k] * b[n, k]^T, rows of c ldc apart. */
static void matmul_bt(const float *a, const float *b, float *c, size_t m, size_t n, size_t k, size_t ldc)
{
    if (m * n * k >= SMALL_PRODUCT) {
        wnn__cpu_sgemm(false, true, m, n, k, 1.0f, a, k, b, k, 0.0f, c, ldc);
        return;
    }
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (size_t p = 0; p < k; p++)
                acc += a[i * k + p] * b[j * k + p];
            c[i * ldc + j] = acc;
        }
}

static inline float activate(wnn_recurrent_activation f, float x)
{
    switch (f) {
    case WNN_RECURRENT_ACTIVATION_RELU: return x < 0.0f ? 0.0f : x;
    case WNN_RECURRENT_ACTIVATION_SIGMOID: return 1.0f / (1.0f + expf(-x));
    default: return tanhf(x);
    }
}

/* ------------------------------------------------------------------------ */
/* Staging: float32 views of every operand                                   */
/* ------------------------------------------------------------------------ */

typedef struct staged {
    const float *in[MAX_INPUTS]; /* NULL for absent operands */
    float *out[MAX_OUTPUTS];
    void *owned[MAX_INPUTS + MAX_OUTPUTS + 8]; /* staged operands, states, scratch */
    size_t n_owned;
    bool half;
} staged;

static void staged_free(staged *s)
{
    for (size_t i = 0; i < s->n_owned; i++)
        free(s->owned[i]);
}

static float *own(staged *s, size_t n)
{
    float *f = malloc((n ? n : 1) * sizeof *f);
    if (f)
        s->owned[s->n_owned++] = f;
    return f;
}

static wnn_status stage(staged *s, const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    *s = (staged){.half = out[0].desc.data_type == WNN_DATA_TYPE_FLOAT16};
    for (uint32_t i = 0; i < node->n_in && i < MAX_INPUTS; i++) {
        if (!in[i].data)
            continue;
        if (!s->half) {
            s->in[i] = in[i].data;
            continue;
        }
        size_t n = wnn__view_count(&in[i]);
        float *f = own(s, n);
        if (!f)
            return WNN_STATUS_OUT_OF_MEMORY;
        const uint16_t *h = in[i].data;
        for (size_t j = 0; j < n; j++)
            f[j] = wnn__half_to_float(h[j]);
        s->in[i] = f;
    }
    for (uint32_t i = 0; i < node->n_out && i < MAX_OUTPUTS; i++) {
        s->out[i] = s->half ? own(s, wnn__view_count(&out[i])) : out[i].data;
        if (!s->out[i])
            return WNN_STATUS_OUT_OF_MEMORY;
    }
    return WNN_OK;
}

/* Rounds the staged float32 outputs into float16 ones, then frees. */
static wnn_status unstage(staged *s, const wnn__node *node, const wnn__view *out)
{
    for (uint32_t i = 0; s->half && i < node->n_out && i < MAX_OUTPUTS; i++) {
        size_t n = wnn__view_count(&out[i]);
        uint16_t *h = out[i].data;
        for (size_t j = 0; j < n; j++)
            h[j] = wnn__float_to_half(s->out[i][j]);
    }
    staged_free(s);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* One step of a cell                                                        */
/* ------------------------------------------------------------------------ */

/* One direction's parameters and a step's scratch. Weights are [gates * H,
** I] and [gates * H, H]; biases [gates * H] and peepholes [3 * H] or NULL. */
typedef struct cell {
    size_t batch, input_size, hidden;
    const float *w, *r, *b, *rb, *p;
    int layout;
    wnn_recurrent_activation act[3];
    bool reset_after;
    float *gx, *gh; /* [batch, gates * H] */
    float *rh;      /* [batch, H]: gru's r * h when the reset comes first */
} cell;

static inline float at(const float *v, size_t i)
{
    return v ? v[i] : 0.0f;
}

/* h_new = GRU(x, h). Gate offsets in units of H: zrn has z, r, n at 0, 1, 2;
** rzn has r, z, n. */
static void gru_step(const cell *c, const float *x, const float *h, float *h_new)
{
    size_t B = c->batch, H = c->hidden, G = 3 * H;
    size_t zo = c->layout == WNN_GRU_WEIGHT_LAYOUT_ZRN ? 0 : H;
    size_t ro = c->layout == WNN_GRU_WEIGHT_LAYOUT_ZRN ? H : 0;
    size_t no = 2 * H;
    matmul_bt(x, c->w, c->gx, B, G, c->input_size, G);
    /* with the reset first, the new gate's recurrent product needs r first */
    matmul_bt(h, c->r, c->gh, B, c->reset_after ? G : 2 * H, H, G);
    for (size_t i = 0; i < B; i++) {
        const float *gx = c->gx + i * G, *hi = h + i * H;
        float *gh = c->gh + i * G, *rh = c->rh + i * H;
        for (size_t j = 0; j < H; j++) {
            float r = activate(c->act[0], (at(c->b, ro + j) + at(c->rb, ro + j)) + (gx[ro + j] + gh[ro + j]));
            if (c->reset_after)
                gh[no + j] = r * (at(c->rb, no + j) + gh[no + j]);
            else
                rh[j] = r * hi[j];
        }
    }
    if (!c->reset_after)
        matmul_bt(c->rh, c->r + no * H, c->gh + no, B, H, H, G);
    for (size_t i = 0; i < B; i++) {
        const float *gx = c->gx + i * G, *gh = c->gh + i * G, *hi = h + i * H;
        for (size_t j = 0; j < H; j++) {
            float z = activate(c->act[0], (at(c->b, zo + j) + at(c->rb, zo + j)) + (gx[zo + j] + gh[zo + j]));
            float pre = c->reset_after ? at(c->b, no + j) + (gx[no + j] + gh[no + j])
                                       : (at(c->b, no + j) + at(c->rb, no + j)) + (gx[no + j] + gh[no + j]);
            float n = activate(c->act[1], pre);
            h_new[i * H + j] = z * hi[j] + n * (1.0f - z);
        }
    }
}

/* (h_new, c_new) = LSTM(x, h, cs). Gate offsets in units of H: iofg has i,
** o, f, g at 0, 1, 2, 3; ifgo has i, f, g, o. Peepholes are i, o, f and,
** as in WebNN, all read the incoming cell state. */
static void lstm_step(const cell *c, const float *x, const float *h, const float *cs, float *h_new, float *c_new)
{
    size_t B = c->batch, H = c->hidden, G = 4 * H;
    bool iofg = c->layout == WNN_LSTM_WEIGHT_LAYOUT_IOFG;
    size_t io = 0, oo = iofg ? H : 3 * H, fo = iofg ? 2 * H : H, go = iofg ? 3 * H : 2 * H;
    matmul_bt(x, c->w, c->gx, B, G, c->input_size, G);
    matmul_bt(h, c->r, c->gh, B, G, H, G);
    for (size_t b = 0; b < B; b++) {
        const float *gx = c->gx + b * G, *gh = c->gh + b * G, *cb = cs + b * H;
        for (size_t j = 0; j < H; j++) {
#define GATE(off) ((at(c->b, (off) + j) + at(c->rb, (off) + j)) + (gx[(off) + j] + gh[(off) + j]))
            float ig = activate(c->act[0], cb[j] * at(c->p, j) + GATE(io));
            float fg = activate(c->act[0], cb[j] * at(c->p, 2 * H + j) + GATE(fo));
            float gg = activate(c->act[1], GATE(go));
            float og = activate(c->act[0], cb[j] * at(c->p, H + j) + GATE(oo));
#undef GATE
            float ct = fg * cb[j] + ig * gg;
            c_new[b * H + j] = ct;
            h_new[b * H + j] = og * activate(c->act[2], ct);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Kernels                                                                   */
/* ------------------------------------------------------------------------ */

/* Sets up a cell's shape, options and scratch (owned by s). */
static wnn_status cell_init(cell *c, staged *s, const wnn__node *node, size_t batch, size_t input_size,
                            size_t hidden, size_t gates)
{
    *c = (cell){.batch = batch, .input_size = input_size, .hidden = hidden, .layout = node->attrs.rnn.layout,
                .reset_after = node->attrs.rnn.reset_after};
    memcpy(c->act, node->attrs.rnn.activations, sizeof c->act);
    c->gx = own(s, batch * gates * hidden);
    c->gh = own(s, batch * gates * hidden);
    c->rh = own(s, batch * hidden);
    return c->gx && c->gh && c->rh ? WNN_OK : WNN_STATUS_OUT_OF_MEMORY;
}

/* gru and lstm: in = {input, weight, recurrentWeight, bias, recurrentBias,
** [peephole,] h0 [, c0]}; out = {h, [c,] [sequence]}. */
static wnn_status run_network(const wnn__node *node, const wnn__view *in, const wnn__view *out, bool lstm)
{
    staged s;
    wnn_status st = stage(&s, node, in, out);
    if (st != WNN_OK) {
        staged_free(&s);
        return st;
    }
    const wnn_operand_desc *id = &in[0].desc;
    size_t steps = id->shape[0], B = id->shape[1], in_size = id->shape[2];
    size_t nd = in[1].desc.shape[0], gates = lstm ? 4 : 3, H = in[1].desc.shape[1] / gates;
    size_t state = B * H;
    const float *h0 = s.in[lstm ? 6 : 5], *c0 = lstm ? s.in[7] : NULL;
    float *h_out = s.out[0], *c_out = lstm ? s.out[1] : NULL;
    float *seq = node->n_out > (lstm ? 2u : 1u) ? s.out[lstm ? 2 : 1] : NULL;
    cell c;
    float *h = own(&s, state), *h_next = own(&s, state), *cs = own(&s, state), *cs_next = own(&s, state);
    if ((st = cell_init(&c, &s, node, B, in_size, H, gates)) != WNN_OK || !h || !h_next || !cs || !cs_next) {
        staged_free(&s);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    for (size_t dir = 0; dir < nd; dir++) {
        bool backward = dir == 1 || node->attrs.rnn.direction == WNN_RECURRENT_DIRECTION_BACKWARD;
        c.w = s.in[1] + dir * gates * H * in_size;
        c.r = s.in[2] + dir * gates * H * H;
        c.b = s.in[3] ? s.in[3] + dir * gates * H : NULL;
        c.rb = s.in[4] ? s.in[4] + dir * gates * H : NULL;
        c.p = lstm && s.in[5] ? s.in[5] + dir * 3 * H : NULL;
        for (size_t k = 0; k < state; k++) {
            h[k] = h0 ? h0[dir * state + k] : 0.0f;
            cs[k] = c0 ? c0[dir * state + k] : 0.0f;
        }
        for (size_t step = 0; step < steps; step++) {
            size_t t = backward ? steps - 1 - step : step;
            const float *x = s.in[0] + t * B * in_size;
            if (lstm)
                lstm_step(&c, x, h, cs, h_next, cs_next);
            else
                gru_step(&c, x, h, h_next);
            float *swap = h;
            h = h_next;
            h_next = swap;
            swap = cs;
            cs = cs_next;
            cs_next = swap;
            if (seq)
                memcpy(seq + (t * nd + dir) * state, h, state * sizeof *h);
        }
        memcpy(h_out + dir * state, h, state * sizeof *h);
        if (c_out)
            memcpy(c_out + dir * state, cs, state * sizeof *cs);
    }
    return unstage(&s, node, out);
}

wnn_status wnn__k_gru(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return run_network(node, in, out, false);
}

wnn_status wnn__k_lstm(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return run_network(node, in, out, true);
}

/* gruCell and lstmCell: one step of one direction, states given as inputs. */
static wnn_status run_cell(const wnn__node *node, const wnn__view *in, const wnn__view *out, bool lstm)
{
    staged s;
    cell c;
    size_t B = in[0].desc.shape[0], in_size = in[0].desc.shape[1], H = in[3].desc.shape[1];
    wnn_status st = stage(&s, node, in, out);
    if (st == WNN_OK)
        st = cell_init(&c, &s, node, B, in_size, H, lstm ? 4 : 3);
    if (st != WNN_OK) {
        staged_free(&s);
        return st;
    }
    c.w = s.in[1];
    c.r = s.in[2];
    if (lstm) {
        c.b = s.in[5];
        c.rb = s.in[6];
        c.p = s.in[7];
        lstm_step(&c, s.in[0], s.in[3], s.in[4], s.out[0], s.out[1]);
    } else {
        c.b = s.in[4];
        c.rb = s.in[5];
        gru_step(&c, s.in[0], s.in[3], s.out[0]);
    }
    return unstage(&s, node, out);
}

wnn_status wnn__k_gru_cell(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return run_cell(node, in, out, false);
}

wnn_status wnn__k_lstm_cell(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return run_cell(node, in, out, true);
}
