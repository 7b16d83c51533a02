/*
** ops_recurrent.c -- ONNX's LSTM and GRU onto WebNN's lstm and gru (layouts,
** directions, activations, both biases), LSTM with peepholes unrolled over
** the steps, and RNN unrolled (WebNN has no simple recurrent operator).
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

static int activations(onx_importer *im, const Onnx__NodeProto *n, uint32_t per_dir, uint32_t dirs,
                       wnn_recurrent_activation *out, bool *given)
{
    const Onnx__AttributeProto *a = onx_attr(n, "activations");
    *given = a != NULL && a->n_strings > 0;
    if (!*given)
        return 0;
    if (a->n_strings != per_dir * dirs)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "%zu activations for %u directions", a->n_strings, dirs), -1;
    for (uint32_t i = 0; i < a->n_strings; i++) {
        const ProtobufCBinaryData *s = &a->strings[i];
        wnn_recurrent_activation v;
        if (s->len == 7 && memcmp(s->data, "Sigmoid", 7) == 0)
            v = WNN_RECURRENT_ACTIVATION_SIGMOID;
        else if (s->len == 4 && memcmp(s->data, "Tanh", 4) == 0)
            v = WNN_RECURRENT_ACTIVATION_TANH;
        else if (s->len == 4 && memcmp(s->data, "Relu", 4) == 0)
            v = WNN_RECURRENT_ACTIVATION_RELU;
        else
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "activation '%.*s': WebNN's recurrent operators take "
                            "relu, sigmoid and tanh", (int)s->len, (const char *)s->data), -1;
        if (i >= per_dir && v != out[i % per_dir])
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "different activations per direction"), -1;
        out[i % per_dir] = v;
    }
    return 0;
}

/* Common checks; fills direction, steps, hidden size and both biases. */
static int recurrent_common(onx_importer *im, const Onnx__NodeProto *n, uint32_t gates, wnn_recurrent_direction *dir,
                            uint32_t *steps, uint32_t *hidden, wnn_operand **bias, wnn_operand **rbias)
{
    char d[24];
    onx_attr_string(n, "direction", "forward", d, sizeof d);
    *dir = strcmp(d, "reverse") == 0         ? WNN_RECURRENT_DIRECTION_BACKWARD
           : strcmp(d, "bidirectional") == 0 ? WNN_RECURRENT_DIRECTION_BOTH
                                             : WNN_RECURRENT_DIRECTION_FORWARD;
    if (onx_attr(n, "clip") != NULL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "clip: WebNN's recurrent operators do not clip"), -1;
    if (onx_attr_int(n, "input_forget", 0) != 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "input_forget"), -1;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return -1;
    wnn_operand_desc xd = onx_desc_of(x);
    *steps = xd.shape[onx_attr_int(n, "layout", 0) != 0 ? 1 : 0];
    *hidden = (uint32_t)onx_attr_int(n, "hidden_size", 0);
    onx_value *lens = onx_in(im, n, 4);
    if (lens != NULL) {
        bool full = lens->c != NULL;
        for (size_t i = 0; full && i < lens->c->count; i++)
            full = onx_get_i64(lens->c, i) == (int64_t)*steps;
        if (!full)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "sequence_lens shorter than the sequence"), -1;
    }
    *bias = *rbias = NULL;
    if (onx_in(im, n, 3) != NULL) {
        wnn_operand *bb = onx_in_op(im, n, 3), *parts[2];
        wnn_split_options so = {.axis = 1};
        if (bb == NULL || wnn_split(im->b, bb, 2, &so, parts) != 2)
            return onx_builder_failed(im), -1;
        *bias = parts[0];
        *rbias = parts[1];
        (void)gates;
    }
    return 0;
}

/* layout 1 is batch first: X [batch, seq, in], states [batch, dirs, hidden],
** Y [batch, seq, dirs, hidden]; WebNN's are sequence first. */
static const uint32_t swap01[3] = {1, 0, 2}, seq_to_batch[4] = {2, 0, 1, 3};

static wnn_operand *rin(onx_importer *im, const Onnx__NodeProto *n, size_t i)
{
    wnn_operand *x = onx_in(im, n, i) ? onx_in_op(im, n, i) : NULL;
    if (x == NULL || onx_attr_int(n, "layout", 0) == 0 || (i != 0 && i < 5))
        return x;
    /* swap01 is a permutation of rank 3: X and the states must be of rank 3
    ** before it is applied (the operator's own check comes after). */
    uint32_t rank = onx_desc_of(x).rank;
    if (rank != 3) {
        onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "%s input %zu with layout=1 has rank %u, not 3", n->op_type, i, rank);
        return NULL;
    }
    return wnn_transpose(im->b, x, swap01);
}

static wnn_status rout(onx_importer *im, const Onnx__NodeProto *n, size_t i, wnn_operand *y)
{
    if (y != NULL && onx_attr_int(n, "layout", 0) != 0)
        y = wnn_transpose(im->b, y, i == 0 ? seq_to_batch : swap01);
    return onx_out(im, n, i, y);
}

static wnn_status lstm_unrolled(onx_importer *im, const Onnx__NodeProto *n, wnn_recurrent_direction dir,
                                uint32_t steps, uint32_t hidden, wnn_operand *bias, wnn_operand *rbias,
                                const wnn_recurrent_activation *acts);

static wnn_status lower_lstm(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_lstm_options o = WNN_LSTM_OPTIONS_INIT;
    uint32_t steps, hidden;
    if (recurrent_common(im, n, 4, &o.direction, &steps, &hidden, &o.bias, &o.recurrent_bias) < 0)
        return im->status ? im->status : onx_builder_failed(im);
    uint32_t dirs = o.direction == WNN_RECURRENT_DIRECTION_BOTH ? 2 : 1;
    wnn_recurrent_activation acts[3];
    bool given;
    if (activations(im, n, 3, dirs, acts, &given) < 0)
        return im->status;
    o.activations = given ? acts : NULL;
    o.activations_count = 3;
    o.initial_hidden_state = rin(im, n, 5);
    o.initial_cell_state = rin(im, n, 6);
    onx_value *p = onx_in(im, n, 7);
    bool zero = p != NULL && p->c != NULL;
    for (size_t i = 0; zero && i < p->c->count; i++)
        zero = onx_get_f64(p->c, i) == 0;
    if (p != NULL && !zero) { /* WebNN's output gate reads c(t-1), ONNX's c(t): unrolled */
        static const wnn_recurrent_activation deflt[3] = {WNN_RECURRENT_ACTIVATION_SIGMOID,
                                                          WNN_RECURRENT_ACTIVATION_TANH, WNN_RECURRENT_ACTIVATION_TANH};
        return lstm_unrolled(im, n, o.direction, steps, hidden, o.bias, o.recurrent_bias, given ? acts : deflt);
    }
    o.return_sequence = n->n_output > 0 && n->output[0] && n->output[0][0];
    o.layout = WNN_LSTM_WEIGHT_LAYOUT_IOFG;
    wnn_operand *outs[3] = {NULL, NULL, NULL};
    size_t k = wnn_lstm(im->b, rin(im, n, 0), onx_in_op(im, n, 1), onx_in_op(im, n, 2), steps, hidden, &o, outs);
    if (k == 0)
        return onx_builder_failed(im);
    wnn_status st = o.return_sequence ? rout(im, n, 0, outs[2]) : WNN_OK;
    if (st == WNN_OK)
        st = rout(im, n, 1, outs[0]);
    if (st == WNN_OK)
        st = rout(im, n, 2, outs[1]);
    return st;
}

static wnn_status lower_gru(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_gru_options o = WNN_GRU_OPTIONS_INIT;
    uint32_t steps, hidden;
    if (recurrent_common(im, n, 3, &o.direction, &steps, &hidden, &o.bias, &o.recurrent_bias) < 0)
        return im->status ? im->status : onx_builder_failed(im);
    uint32_t dirs = o.direction == WNN_RECURRENT_DIRECTION_BOTH ? 2 : 1;
    wnn_recurrent_activation acts[2];
    bool given;
    if (activations(im, n, 2, dirs, acts, &given) < 0)
        return im->status;
    o.activations = given ? acts : NULL;
    o.activations_count = 2;
    o.initial_hidden_state = rin(im, n, 5);
    o.reset_before = onx_attr_int(n, "linear_before_reset", 0) == 0;
    o.return_sequence = n->n_output > 0 && n->output[0] && n->output[0][0];
    o.layout = WNN_GRU_WEIGHT_LAYOUT_ZRN;
    wnn_operand *outs[2] = {NULL, NULL};
    size_t k = wnn_gru(im->b, rin(im, n, 0), onx_in_op(im, n, 1), onx_in_op(im, n, 2), steps, hidden, &o, outs);
    if (k == 0)
        return onx_builder_failed(im);
    wnn_status st = o.return_sequence ? rout(im, n, 0, outs[1]) : WNN_OK;
    if (st == WNN_OK)
        st = rout(im, n, 1, outs[0]);
    return st;
}

static wnn_operand *activate(wnn_graph_builder *b, wnn_recurrent_activation a, wnn_operand *x)
{
    return a == WNN_RECURRENT_ACTIVATION_RELU      ? wnn_relu(b, x)
           : a == WNN_RECURRENT_ACTIVATION_SIGMOID ? wnn_sigmoid(b, x)
                                                   : wnn_tanh(b, x);
}

/* The slice [d] of a [dirs, ...] operand, without the leading axis. */
static wnn_operand *direction(onx_importer *im, wnn_operand *x, uint32_t d)
{
    wnn_operand_desc xd = onx_desc_of(x);
    uint32_t starts[WNN_MAX_RANK] = {d}, sizes[WNN_MAX_RANK];
    for (uint32_t i = 0; i < xd.rank; i++)
        sizes[i] = i ? xd.shape[i] : 1;
    return wnn_reshape(im->b, wnn_slice(im->b, x, starts, sizes, NULL), xd.rank - 1, xd.shape + 1);
}

/* RNN, unrolled over the (static) steps: h = f(x_t W^T + h R^T + Wb + Rb). */
static wnn_status lower_rnn(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_recurrent_direction dir;
    uint32_t steps, hidden;
    wnn_operand *bias, *rbias;
    if (recurrent_common(im, n, 1, &dir, &steps, &hidden, &bias, &rbias) < 0)
        return im->status ? im->status : onx_builder_failed(im);
    uint32_t dirs = dir == WNN_RECURRENT_DIRECTION_BOTH ? 2 : 1;
    wnn_recurrent_activation act[1] = {WNN_RECURRENT_ACTIVATION_TANH};
    bool given;
    if (activations(im, n, 1, dirs, act, &given) < 0)
        return im->status;
    wnn_operand *x = rin(im, n, 0), *w = onx_in_op(im, n, 1), *r = onx_in_op(im, n, 2), *h0 = rin(im, n, 5);
    if (x == NULL || w == NULL || r == NULL)
        return im->status ? im->status : onx_builder_failed(im);
    wnn_operand_desc xd = onx_desc_of(x);
    if (xd.rank != 3) /* steps and batch come from its shape */
        return onx_fail(im, WNN_STATUS_INVALID_RANK, "X has rank %u, must be 3", xd.rank);
    uint32_t batch = xd.shape[1];
    if (steps > 1024)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%u steps is too many to unroll", steps);
    wnn_operand **ys = calloc((size_t)steps * dirs, sizeof *ys), *last[2] = {NULL, NULL};
    if (ys == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    for (uint32_t d = 0; d < dirs; d++) {
        bool backward = dir == WNN_RECURRENT_DIRECTION_BACKWARD || d == 1;
        wnn_gemm_options gx = WNN_GEMM_OPTIONS_INIT, gh = WNN_GEMM_OPTIONS_INIT;
        gx.b_transpose = gh.b_transpose = true;
        if (bias != NULL)
            gx.c = wnn_add(b, direction(im, bias, d), direction(im, rbias, d));
        wnn_operand *wd = direction(im, w, d), *rd = direction(im, r, d);
        wnn_operand *h = h0 ? direction(im, h0, d) : NULL;
        for (uint32_t k = 0; k < steps; k++) {
            uint32_t t = backward ? steps - 1 - k : k;
            wnn_operand *xt = direction(im, x, t);
            wnn_operand *pre = wnn_gemm(b, xt, wd, &gx);
            if (h != NULL)
                pre = wnn_add(b, pre, wnn_gemm(b, h, rd, &gh));
            h = activate(b, act[0], pre);
            uint32_t s4[4] = {1, 1, batch, hidden};
            ys[(size_t)t * dirs + d] = wnn_reshape(b, h, 4, s4);
        }
        uint32_t s3[3] = {1, batch, hidden};
        last[d] = wnn_reshape(b, h, 3, s3);
    }
    wnn_status st = WNN_OK;
    if (n->n_output > 0 && n->output[0] && n->output[0][0]) {
        /* [steps * dirs, 1, batch, hidden], t major: Y is [steps, dirs, batch, hidden] */
        uint32_t s4[4] = {steps, dirs, batch, hidden};
        wnn_operand *all = steps * dirs > 1 ? wnn_concat(b, ys, (size_t)steps * dirs, 0) : ys[0];
        st = rout(im, n, 0, all ? wnn_reshape(b, all, 4, s4) : NULL);
    }
    if (st == WNN_OK)
        st = rout(im, n, 1, dirs == 2 ? wnn_concat(b, last, 2, 0) : wnn_identity(b, last[0]));
    free(ys);
    return st;
}

/* LSTM with peepholes, unrolled over the (static) steps, gates in ONNX's
** order i, o, f, c: i = f(x W_i + h R_i + b_i + P_i c), f alike with P_f,
** c' = f c + i g(x W_c + h R_c + b_c), o = f(x W_o + h R_o + b_o + P_o c'),
** h' = o h(c'). */
static wnn_status lstm_unrolled(onx_importer *im, const Onnx__NodeProto *n, wnn_recurrent_direction dir,
                                uint32_t steps, uint32_t hidden, wnn_operand *bias, wnn_operand *rbias,
                                const wnn_recurrent_activation *acts)
{
    wnn_graph_builder *b = im->b;
    uint32_t dirs = dir == WNN_RECURRENT_DIRECTION_BOTH ? 2 : 1;
    wnn_operand *x = rin(im, n, 0), *w = onx_in_op(im, n, 1), *r = onx_in_op(im, n, 2), *p = onx_in_op(im, n, 7);
    wnn_operand *h0 = rin(im, n, 5), *c0 = rin(im, n, 6);
    if (x == NULL || w == NULL || r == NULL || p == NULL)
        return im->status ? im->status : onx_builder_failed(im);
    wnn_operand_desc xd = onx_desc_of(x);
    if (xd.rank != 3)
        return onx_fail(im, WNN_STATUS_INVALID_RANK, "X has rank %u, must be 3", xd.rank);
    uint32_t batch = xd.shape[1];
    if (steps > 1024)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%u steps is too many to unroll", steps);
    wnn_operand **ys = calloc((size_t)steps * dirs, sizeof *ys), *hs[2] = {NULL, NULL}, *cs[2] = {NULL, NULL};
    if (ys == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    uint32_t zs[2] = {batch, hidden};
    wnn_operand *zeros = wnn_expand(b, onx_scalar(im, xd.data_type, 0.0), 2, zs);
    for (uint32_t d = 0; d < dirs; d++) {
        bool backward = dir == WNN_RECURRENT_DIRECTION_BACKWARD || d == 1;
        wnn_gemm_options gx = WNN_GEMM_OPTIONS_INIT, gh = WNN_GEMM_OPTIONS_INIT;
        gx.b_transpose = gh.b_transpose = true;
        if (bias != NULL)
            gx.c = wnn_add(b, direction(im, bias, d), direction(im, rbias, d));
        wnn_operand *wd = direction(im, w, d), *rd = direction(im, r, d), *peep[3];
        wnn_split_options so = {.axis = 0};
        if (wnn_split(b, direction(im, p, d), 3, &so, peep) != 3) {
            free(ys);
            return onx_builder_failed(im);
        }
        wnn_operand *h = h0 ? direction(im, h0, d) : zeros, *c = c0 ? direction(im, c0, d) : zeros;
        for (uint32_t k = 0; k < steps; k++) {
            uint32_t t = backward ? steps - 1 - k : k;
            wnn_operand *g = wnn_add(b, wnn_gemm(b, direction(im, x, t), wd, &gx), wnn_gemm(b, h, rd, &gh)), *q[4];
            wnn_split_options go = {.axis = 1};
            if (wnn_split(b, g, 4, &go, q) != 4) { /* i, o, f, c */
                free(ys);
                return onx_builder_failed(im);
            }
            wnn_operand *in = activate(b, acts[0], wnn_add(b, q[0], wnn_mul(b, peep[0], c)));
            wnn_operand *fg = activate(b, acts[0], wnn_add(b, q[2], wnn_mul(b, peep[2], c)));
            c = wnn_add(b, wnn_mul(b, fg, c), wnn_mul(b, in, activate(b, acts[1], q[3])));
            wnn_operand *out = activate(b, acts[0], wnn_add(b, q[1], wnn_mul(b, peep[1], c)));
            h = wnn_mul(b, out, activate(b, acts[2], c));
            uint32_t s4[4] = {1, 1, batch, hidden};
            ys[(size_t)t * dirs + d] = wnn_reshape(b, h, 4, s4);
        }
        uint32_t s3[3] = {1, batch, hidden};
        hs[d] = wnn_reshape(b, h, 3, s3);
        cs[d] = wnn_reshape(b, c, 3, s3);
    }
    wnn_status st = WNN_OK;
    if (n->n_output > 0 && n->output[0] && n->output[0][0]) {
        uint32_t s4[4] = {steps, dirs, batch, hidden};
        wnn_operand *all = steps * dirs > 1 ? wnn_concat(b, ys, (size_t)steps * dirs, 0) : ys[0];
        st = rout(im, n, 0, all ? wnn_reshape(b, all, 4, s4) : NULL);
    }
    if (st == WNN_OK)
        st = rout(im, n, 1, dirs == 2 ? wnn_concat(b, hs, 2, 0) : wnn_identity(b, hs[0]));
    if (st == WNN_OK)
        st = rout(im, n, 2, dirs == 2 ? wnn_concat(b, cs, 2, 0) : wnn_identity(b, cs[0]));
    free(ys);
    return st;
}

const onx_op_entry onx_ops_recurrent[] = {
    {"LSTM", lower_lstm},
    {"GRU", lower_gru},
    {"RNN", lower_rnn},
    {NULL, NULL},
};
