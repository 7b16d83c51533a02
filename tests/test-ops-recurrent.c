/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-recurrent.c -- the recurrent networks through the public API:
** gru, gruCell, lstm and lstmCell, checked against their gate formulas
** evaluated in double precision (one input feature, one hidden unit), and
** float16 rounded once; each has its validation errors checked with their
** exact statuses.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#include "test-ops-outputs.h"

/* The builder refused (result NULL) with status want; clears the error. */
#define CHECK_REFUSED(b, result, want)                                                                 \
    do {                                                                                               \
        CHECK((result) == NULL);                                                                       \
        CHECK_STATUS(wnn_graph_builder_status(b), want);                                               \
        wnn_graph_builder_clear_error(b);                                                              \
    } while (0)

#define CHECK_REFUSED_COUNT(b, count, want)                                                            \
    do {                                                                                               \
        CHECK_EQ_INT(count, 0);                                                                        \
        CHECK_STATUS(wnn_graph_builder_status(b), want);                                               \
        wnn_graph_builder_clear_error(b);                                                              \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Recurrent networks                                                        */
/* ------------------------------------------------------------------------ */

/* GRU with one input feature and one hidden unit, zrn: weights z, r, n. */
static const float gru_w[3] = {0.5f, -1.0f, 2.0f}, gru_r[3] = {1.0f, 0.5f, -0.5f};

static void test_gru_cell(void)
{
    uint32_t s11[2] = {1, 1}, s31[2] = {3, 1}, s3[1] = {3};
    float x = 1.0f, h = 0.5f, got;
    wnn_graph_builder *b = builder();
    wnn_operand *r = wnn_gru_cell(b, f32(b, 2, s11, &x), f32(b, 2, s31, gru_w), f32(b, 2, s31, gru_r),
                                  f32(b, 2, s11, &h), 1, NULL);
    if (run1(b, r, &got))
        CHECK_NEAR(got, 0.6231483803815459, 1e-6);

    /* reset before the recurrent product, with both biases */
    const float bias[3] = {0.1f, 0.2f, 0.3f}, rbias[3] = {-0.1f, 0.4f, 0.25f};
    wnn_gru_cell_options o = WNN_GRU_CELL_OPTIONS_INIT;
    b = builder();
    o.reset_before = true;
    o.bias = f32(b, 1, s3, bias);
    o.recurrent_bias = f32(b, 1, s3, rbias);
    r = wnn_gru_cell(b, f32(b, 2, s11, &x), f32(b, 2, s31, gru_w), f32(b, 2, s31, gru_r), f32(b, 2, s11, &h), 1, &o);
    if (run1(b, r, &got))
        CHECK_NEAR(got, 0.6303695419821409, 1e-6);

    b = builder();
    wnn_operand *in = f32(b, 2, s11, &x), *w = f32(b, 2, s31, gru_w), *rw = f32(b, 2, s31, gru_r);
    uint32_t s12[2] = {1, 2};
    float h2[2] = {0, 0};
    CHECK_REFUSED(b, wnn_gru_cell(b, in, w, rw, f32(b, 2, s12, h2), 1, NULL), WNN_STATUS_SHAPE_MISMATCH);
    uint16_t half = 0x3c00;
    CHECK_REFUSED(b, wnn_gru_cell(b, in, w, rw, constant(b, WNN_DATA_TYPE_FLOAT16, 2, s11, &half), 1, NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_gru_cell(b, in, w, rw, f32(b, 2, s11, &h), 2, NULL), WNN_STATUS_SHAPE_MISMATCH);
    wnn_graph_builder_release(b);
}

static void test_gru(void)
{
    uint32_t s211[3] = {2, 1, 1}, s131[3] = {1, 3, 1};
    const float xs[2] = {1.0f, -2.0f};
    float hidden, seq[2];
    wnn_gru_options o = WNN_GRU_OPTIONS_INIT;
    o.return_sequence = true;
    for (int backward = 0; backward < 2; backward++) {
        wnn_graph_builder *b = builder();
        wnn_operand *outs[2] = {NULL, NULL};
        o.direction = backward ? WNN_RECURRENT_DIRECTION_BACKWARD : WNN_RECURRENT_DIRECTION_FORWARD;
        CHECK_EQ_INT(wnn_gru(b, f32(b, 3, s211, xs), f32(b, 3, s131, gru_w), f32(b, 3, s131, gru_r), 2, 1, &o, outs),
                     2);
        void *bufs[2] = {&hidden, seq};
        if (!run(b, outs, 2, bufs))
            continue;
        /* the sequence is indexed by input step in both directions */
        const double fwd[2] = {0.3639596173216816, -0.5275598303643003};
        const double bwd[2] = {0.21670464186981214, -0.7305682574505604};
        const double *want = backward ? bwd : fwd;
        CHECK_NEAR(seq[0], want[0], 1e-6);
        CHECK_NEAR(seq[1], want[1], 1e-6);
        CHECK_NEAR(hidden, backward ? want[0] : want[1], 1e-6);
    }

    wnn_graph_builder *b = builder();
    wnn_operand *in = f32(b, 3, s211, xs), *w = f32(b, 3, s131, gru_w), *rw = f32(b, 3, s131, gru_r);
    wnn_operand *outs[2];
    int32_t ints[2] = {1, 2};
    CHECK_REFUSED_COUNT(b, wnn_gru(b, constant(b, WNN_DATA_TYPE_INT32, 3, s211, ints), w, rw, 2, 1, NULL, outs),
                        WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, rw, 3, 1, NULL, outs), WNN_STATUS_SHAPE_MISMATCH);
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, rw, 0, 1, NULL, outs), WNN_STATUS_INVALID_ARGUMENT);
    const float wide[6] = {0};
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, f32(b, 3, (const uint32_t[]){1, 3, 2}, wide), 2, 1, NULL, outs),
                        WNN_STATUS_SHAPE_MISMATCH);
    o = (wnn_gru_options)WNN_GRU_OPTIONS_INIT;
    o.direction = WNN_RECURRENT_DIRECTION_BOTH;
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_SHAPE_MISMATCH);
    o = (wnn_gru_options)WNN_GRU_OPTIONS_INIT;
    o.bias = f32(b, 1, (const uint32_t[]){3}, gru_w);
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_INVALID_RANK);
    o = (wnn_gru_options)WNN_GRU_OPTIONS_INIT;
    const wnn_recurrent_activation bad[2] = {WNN_RECURRENT_ACTIVATION_SIGMOID, (wnn_recurrent_activation)9};
    o.activations = bad;
    o.activations_count = 2;
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

/* LSTM with one input feature and one hidden unit, iofg: weights i, o, f, g. */
static const float lstm_w[4] = {0.5f, -0.25f, 1.0f, 2.0f}, lstm_r[4] = {-1.0f, 0.5f, 0.25f, 1.5f};

static void test_lstm_cell(void)
{
    uint32_t s11[2] = {1, 1}, s41[2] = {4, 1}, s4[1] = {4}, s3[1] = {3};
    const float peep[3] = {0.1f, -0.2f, 0.3f}, bias[4] = {0.1f, 0, 0, 0}, rbias[4] = {0, 0, 0, -0.5f};
    float x = 1.0f, h = 0.5f, c = 0.25f, got_h, got_c;
    wnn_lstm_cell_options o = WNN_LSTM_CELL_OPTIONS_INIT;
    wnn_graph_builder *b = builder();
    o.bias = f32(b, 1, s4, bias);
    o.recurrent_bias = f32(b, 1, s4, rbias);
    o.peephole_weight = f32(b, 1, s3, peep);
    wnn_operand *outs[2] = {NULL, NULL};
    CHECK_EQ_INT(wnn_lstm_cell(b, f32(b, 2, s11, &x), f32(b, 2, s41, lstm_w), f32(b, 2, s41, lstm_r),
                               f32(b, 2, s11, &h), f32(b, 2, s11, &c), 1, &o, outs),
                 2);
    void *bufs[2] = {&got_h, &got_c};
    if (run(b, outs, 2, bufs)) {
        CHECK_NEAR(got_h, 0.29821588414623923, 1e-6);
        CHECK_NEAR(got_c, 0.711667835428329, 1e-6);
    }

    b = builder();
    wnn_operand *in = f32(b, 2, s11, &x), *w = f32(b, 2, s41, lstm_w), *rw = f32(b, 2, s41, lstm_r);
    wnn_operand *hs = f32(b, 2, s11, &h);
    uint32_t s111[3] = {1, 1, 1};
    CHECK_REFUSED_COUNT(b, wnn_lstm_cell(b, in, w, rw, hs, f32(b, 3, s111, &c), 1, NULL, outs),
                        WNN_STATUS_INVALID_RANK);
    o = (wnn_lstm_cell_options)WNN_LSTM_CELL_OPTIONS_INIT;
    o.peephole_weight = f32(b, 1, s4, bias);
    CHECK_REFUSED_COUNT(b, wnn_lstm_cell(b, in, w, rw, hs, hs, 1, &o, outs), WNN_STATUS_SHAPE_MISMATCH);
    CHECK_REFUSED_COUNT(b, wnn_lstm_cell(b, in, w, rw, hs, hs, 1, NULL, NULL), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

static void test_lstm(void)
{
    uint32_t s211[3] = {2, 1, 1}, s241[3] = {2, 4, 1};
    const float xs[2] = {1.0f, -2.0f};
    float w2[8], r2[8], h[2], c[2], seq[4];
    for (int i = 0; i < 8; i++) {
        w2[i] = lstm_w[i % 4];
        r2[i] = lstm_r[i % 4];
    }
    wnn_lstm_options o = WNN_LSTM_OPTIONS_INIT;
    o.direction = WNN_RECURRENT_DIRECTION_BOTH;
    o.return_sequence = true;
    wnn_graph_builder *b = builder();
    wnn_operand *outs[3] = {NULL, NULL, NULL};
    CHECK_EQ_INT(wnn_lstm(b, f32(b, 3, s211, xs), f32(b, 3, s241, w2), f32(b, 3, s241, r2), 2, 1, &o, outs), 3);
    void *bufs[3] = {h, c, seq};
    if (run(b, outs, 3, bufs)) {
        const double want_h[2] = {-0.09650805483861158, 0.16844395711477209};
        const double want_c[2] = {-0.14965735678156009, 0.4273928658816303};
        /* [steps, directions]: forward then backward per step */
        const double want_seq[4] = {0.23515409333592502, 0.16844395711477209, -0.09650805483861158,
                                    -0.16337790084874892};
        CHECK_FLOATS(h, want_h, 2, 1e-6);
        CHECK_FLOATS(c, want_c, 2, 1e-6);
        CHECK_FLOATS(seq, want_seq, 4, 1e-6);
    }

    b = builder();
    uint32_t s141[3] = {1, 4, 1};
    wnn_operand *in = f32(b, 3, s211, xs), *w = f32(b, 3, s141, lstm_w), *rw = f32(b, 3, s141, lstm_r);
    CHECK_REFUSED_COUNT(b, wnn_lstm(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_SHAPE_MISMATCH);
    o = (wnn_lstm_options)WNN_LSTM_OPTIONS_INIT;
    o.initial_cell_state = f32(b, 2, (const uint32_t[]){1, 1}, xs);
    CHECK_REFUSED_COUNT(b, wnn_lstm(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_INVALID_RANK);
    o = (wnn_lstm_options)WNN_LSTM_OPTIONS_INIT;
    o.direction = (wnn_recurrent_direction)5;
    CHECK_REFUSED_COUNT(b, wnn_lstm(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

/* float16 goes through float32 and is rounded once: a gru cell with the
** values above lands on the binary16 nearest to the exact result. */
static void test_float16(void)
{
    uint32_t s11[2] = {1, 1}, s31[2] = {3, 1};
    uint16_t x = 0x3c00 /* 1 */, h = 0x3800 /* 0.5 */, w[3], r[3], got = 0;
    const uint16_t w16[3] = {0x3800, 0xbc00, 0x4000}, r16[3] = {0x3c00, 0x3800, 0xb800};
    memcpy(w, w16, sizeof w);
    memcpy(r, r16, sizeof r);
    wnn_graph_builder *b = builder();
    wnn_operand *res = wnn_gru_cell(b, constant(b, WNN_DATA_TYPE_FLOAT16, 2, s11, &x),
                                    constant(b, WNN_DATA_TYPE_FLOAT16, 2, s31, w),
                                    constant(b, WNN_DATA_TYPE_FLOAT16, 2, s31, r),
                                    constant(b, WNN_DATA_TYPE_FLOAT16, 2, s11, &h), 1, NULL);
    /* 0.62314838 lies between 0.623046875 (0x38fc) and 0.62353515625
    ** (0x38fd), nearer the first */
    if (run1(b, res, &got))
        CHECK_EQ_INT(got, 0x38fc);
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "cannot create a context on %s: %s\n", o.device, wnn_last_error_message());
        return 1;
    }
    test_gru_cell();
    test_gru();
    test_lstm_cell();
    test_lstm();
    test_float16();
    wnn_context_release(ctx);
    TEST_DONE();
}
