/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_recurrent.c -- gru, gruCell, lstm and lstmCell: the matrix products
** through cuBLAS, the gates in kernels_recurrent.cu.
*/
#include "backends/cuda/cuda_ops.h"

/* ---- gru, gruCell, lstm, lstmCell ------------------------------------------------------------ */

/* Everything runs in float32, like the cpu: float16 operands are widened
** into the node's scratch first and the outputs narrowed at the end, so
** the states between steps keep float32 precision. The input products of
** all steps are one matrix product per direction; each step then does the
** state product(s) and one gate kernel. */
typedef struct rnn_plan {
    bool lstm, half;
    wnn__cu_rnn g;
    uint32_t steps, input_size, dirs, gates;
    int direction;
    /* node input slots: x, weight, recurrent weight, bias, recurrent bias,
    ** peephole, initial hidden, initial cell (-1: none) */
    int slot[8];
    int out_h, out_c, out_seq;
    uint64_t in_count[8];
    /* scratch byte offsets */
    size_t conv[8];
    size_t gx, gh, rh, h[2], c[2], oh, oc, oseq;
} rnn_plan;

enum { RNN_X, RNN_W, RNN_R, RNN_B, RNN_RB, RNN_P, RNN_H, RNN_C };

/* c[m, n] (rows ldc apart) = a[m, k] * b[n, k]^T, all row-major float32. */
static wnn_status gemm_bt(const wnn__cu_exec *x, const float *a, const float *b, float *c, int m, int n, int k, int ldc)
{
    const float one = 1.0f, zero = 0.0f;
    return blas_status(cublasSgemm(x->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, b, k, a, k, &zero, c, ldc));
}

static size_t take_scratch(size_t *top, uint64_t floats)
{
    size_t at = *top;
    *top += (size_t)((floats * sizeof(float) + 255) / 256 * 256);
    return at;
}

static wnn_status run_rnn(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const rnn_plan *p = n->plan;
    char *scr = x->scratch;
    cudaStream_t st = x->stream;
    const float *in[8] = {NULL};
    for (int k = 0; k < 8; k++) {
        if (p->slot[k] < 0 || !in_ptr(x, n, (uint32_t)p->slot[k]))
            continue;
        if (p->half) {
            float *f = (float *)(scr + p->conv[k]);
            cudaError_t e = wnn__cu_cast(st, WNN_DATA_TYPE_FLOAT16, WNN_DATA_TYPE_FLOAT32, p->in_count[k],
                                         in_ptr(x, n, (uint32_t)p->slot[k]), f);
            if (e != cudaSuccess)
                return wnn__cu_status(e);
            in[k] = f;
        } else {
            in[k] = in_ptr(x, n, (uint32_t)p->slot[k]);
        }
    }
    const uint32_t B = p->g.batch, H = p->g.hidden, I = p->input_size, G = p->gates * H, nd = p->dirs;
    const uint64_t state = (uint64_t)B * H;
    float *out_h = p->half ? (float *)(scr + p->oh) : out_ptr(x, n, (uint32_t)p->out_h);
    float *out_c = p->out_c < 0 ? NULL : p->half ? (float *)(scr + p->oc) : out_ptr(x, n, (uint32_t)p->out_c);
    float *seq = p->out_seq < 0 ? NULL : p->half ? (float *)(scr + p->oseq) : out_ptr(x, n, (uint32_t)p->out_seq);
    float *gx = (float *)(scr + p->gx), *gh = (float *)(scr + p->gh), *rh = (float *)(scr + p->rh);
    float *hs[2] = {(float *)(scr + p->h[0]), (float *)(scr + p->h[1])};
    float *cs[2] = {(float *)(scr + p->c[0]), (float *)(scr + p->c[1])};
    wnn_status s = WNN_OK;
    for (uint32_t dir = 0; dir < nd && s == WNN_OK; dir++) {
        bool backward = dir == 1 || p->direction == WNN_RECURRENT_DIRECTION_BACKWARD;
        const float *w = in[RNN_W] + (uint64_t)dir * G * I, *r = in[RNN_R] + (uint64_t)dir * G * H;
        const float *b = in[RNN_B] ? in[RNN_B] + (uint64_t)dir * G : NULL;
        const float *rb = in[RNN_RB] ? in[RNN_RB] + (uint64_t)dir * G : NULL;
        const float *peep = in[RNN_P] ? in[RNN_P] + (uint64_t)dir * 3 * H : NULL;
        s = gemm_bt(x, in[RNN_X], w, gx, (int)(p->steps * B), (int)G, (int)I, (int)G);
        /* the initial states */
        cudaError_t e = in[RNN_H] ? cudaMemcpyAsync(hs[0], in[RNN_H] + dir * state, state * sizeof(float),
                                                    cudaMemcpyDeviceToDevice, st)
                                  : cudaMemsetAsync(hs[0], 0, state * sizeof(float), st);
        if (e == cudaSuccess && p->lstm)
            e = in[RNN_C] ? cudaMemcpyAsync(cs[0], in[RNN_C] + dir * state, state * sizeof(float),
                                            cudaMemcpyDeviceToDevice, st)
                          : cudaMemsetAsync(cs[0], 0, state * sizeof(float), st);
        if (s == WNN_OK)
            s = wnn__cu_status(e);
        int cur = 0;
        for (uint32_t step = 0; step < p->steps && s == WNN_OK; step++) {
            uint32_t t = backward ? p->steps - 1 - step : step;
            const float *gxt = gx + (uint64_t)t * B * G;
            float *seqp = seq ? seq + ((uint64_t)t * nd + dir) * state : NULL;
            if (p->lstm) {
                s = gemm_bt(x, hs[cur], r, gh, (int)B, (int)G, (int)H, (int)G);
                if (s == WNN_OK)
                    s = wnn__cu_status(wnn__cu_lstm_step(st, &p->g, gxt, gh, b, rb, peep, cs[cur], hs[1 - cur],
                                                         cs[1 - cur], seqp));
            } else {
                /* with the reset first, the new gate's state product needs r */
                s = gemm_bt(x, hs[cur], r, gh, (int)B, p->g.reset_after ? (int)G : (int)(2 * H), (int)H, (int)G);
                if (s == WNN_OK)
                    s = wnn__cu_status(wnn__cu_gru_reset(st, &p->g, gxt, gh, b, rb, hs[cur], rh));
                if (s == WNN_OK && !p->g.reset_after)
                    s = gemm_bt(x, rh, r + (uint64_t)2 * H * H, gh + 2 * H, (int)B, (int)H, (int)H, (int)G);
                if (s == WNN_OK)
                    s = wnn__cu_status(wnn__cu_gru_output(st, &p->g, gxt, gh, b, rb, hs[cur], hs[1 - cur], seqp));
            }
            cur = 1 - cur;
        }
        if (s == WNN_OK)
            s = wnn__cu_status(cudaMemcpyAsync(out_h + dir * state, hs[cur], state * sizeof(float),
                                               cudaMemcpyDeviceToDevice, st));
        if (s == WNN_OK && out_c)
            s = wnn__cu_status(cudaMemcpyAsync(out_c + dir * state, cs[cur], state * sizeof(float),
                                               cudaMemcpyDeviceToDevice, st));
    }
    if (s == WNN_OK && p->half) {
        s = wnn__cu_status(wnn__cu_cast(st, WNN_DATA_TYPE_FLOAT32, WNN_DATA_TYPE_FLOAT16, nd * state, out_h,
                                        out_ptr(x, n, (uint32_t)p->out_h)));
        if (s == WNN_OK && out_c)
            s = wnn__cu_status(wnn__cu_cast(st, WNN_DATA_TYPE_FLOAT32, WNN_DATA_TYPE_FLOAT16, nd * state, out_c,
                                            out_ptr(x, n, (uint32_t)p->out_c)));
        if (s == WNN_OK && seq)
            s = wnn__cu_status(wnn__cu_cast(st, WNN_DATA_TYPE_FLOAT32, WNN_DATA_TYPE_FLOAT16,
                                            (uint64_t)p->steps * nd * state, seq, out_ptr(x, n, (uint32_t)p->out_seq)));
    }
    return s;
}

wnn_status wnn__cu_prep_rnn(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn__op op = node->op;
    bool lstm = op == WNN__OP_LSTM || op == WNN__OP_LSTM_CELL, cell = op == WNN__OP_GRU_CELL || op == WNN__OP_LSTM_CELL;
    const wnn_operand_desc *xd = in_desc(ir, node, 0);
    if (!is_float(xd->data_type) || node->n_in < 3)
        return WNN_STATUS_NOT_SUPPORTED;
    for (uint32_t j = 0; j < node->n_in; j++)
        if (has_in(node, j) && in_desc(ir, node, j)->data_type != xd->data_type)
            return WNN_STATUS_NOT_SUPPORTED;
    rnn_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->lstm = lstm;
    p->half = xd->data_type == WNN_DATA_TYPE_FLOAT16;
    p->gates = lstm ? 4 : 3;
    /* slots of the node's inputs, in the cpu's order */
    static const int slots[4][8] = {
        /* gru */ {0, 1, 2, 3, 4, -1, 5, -1},
        /* lstm */ {0, 1, 2, 3, 4, 5, 6, 7},
        /* gruCell */ {0, 1, 2, 4, 5, -1, 3, -1},
        /* lstmCell */ {0, 1, 2, 5, 6, 7, 3, 4},
    };
    const int *sl = slots[(cell ? 2 : 0) + (lstm ? 1 : 0)];
    for (int k = 0; k < 8; k++)
        p->slot[k] = sl[k] >= 0 && (uint32_t)sl[k] < node->n_in && has_in(node, (uint32_t)sl[k]) ? sl[k] : -1;
    const wnn_operand_desc *wd = in_desc(ir, node, 1);
    if (cell) {
        p->steps = 1;
        p->dirs = 1;
        p->direction = WNN_RECURRENT_DIRECTION_FORWARD;
        p->g.batch = xd->shape[0];
        p->input_size = xd->shape[1];
        p->g.hidden = wd->shape[0] / p->gates;
    } else {
        p->steps = xd->shape[0];
        p->g.batch = xd->shape[1];
        p->input_size = xd->shape[2];
        p->dirs = wd->shape[0];
        p->g.hidden = wd->shape[1] / p->gates;
        p->direction = node->attrs.rnn.direction;
    }
    p->g.layout = (uint32_t)node->attrs.rnn.layout;
    p->g.reset_after = node->attrs.rnn.reset_after;
    for (int k = 0; k < 3; k++)
        p->g.act[k] = (uint32_t)node->attrs.rnn.activations[k];
    p->out_h = 0;
    p->out_c = lstm ? 1 : -1;
    p->out_seq = !cell && node->n_out > (lstm ? 2u : 1u) ? (lstm ? 2 : 1) : -1;

    const uint64_t B = p->g.batch, H = p->g.hidden, G = p->gates * H, nd = p->dirs, state = B * H;
    size_t top = 0;
    for (int k = 0; k < 8; k++) {
        if (p->slot[k] < 0)
            continue;
        p->in_count[k] = wnn__shape_count(in_desc(ir, node, (uint32_t)p->slot[k]));
        if (p->half)
            p->conv[k] = take_scratch(&top, p->in_count[k]);
    }
    p->gx = take_scratch(&top, (uint64_t)p->steps * B * G);
    p->gh = take_scratch(&top, B * G);
    p->rh = take_scratch(&top, state);
    for (int k = 0; k < 2; k++) {
        p->h[k] = take_scratch(&top, state);
        p->c[k] = take_scratch(&top, state);
    }
    if (p->half) {
        p->oh = take_scratch(&top, nd * state);
        p->oc = take_scratch(&top, nd * state);
        if (p->out_seq >= 0)
            p->oseq = take_scratch(&top, (uint64_t)p->steps * nd * state);
    }
    if ((uint64_t)p->steps * B > INT32_MAX || G > INT32_MAX)
        return WNN_STATUS_NOT_SUPPORTED;
    n->scratch_bytes = top;
    n->run = run_rnn;
    return WNN_OK;
}
