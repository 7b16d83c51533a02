/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-norm.c -- the normalizations through the public API:
** batchNormalization, instanceNormalization and layerNormalization, on
** cases worked out by hand, each with its validation errors checked with
** their exact statuses.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#define F32 WNN_DATA_TYPE_FLOAT32
#define F16 WNN_DATA_TYPE_FLOAT16

#include "test-ops-inputs.h"

static void check_floats(const float *got, const float *want, size_t n, double tol)
{
    for (size_t i = 0; i < n; i++)
        CHECK_NEAR(got[i], want[i], tol);
}

/* Expects the call that made x to have been refused with status want. */
static void check_refused(wnn_graph_builder *b, wnn_operand *x, wnn_status want)
{
    CHECK(x == NULL);
    CHECK_STATUS(wnn_graph_builder_status(b), want);
    wnn_graph_builder_release(b);
}

/* ---- normalization ------------------------------------------------------------------------------ */

/* epsilon 0, for exact results (a pointer: NULL is the default 1e-5) */
static const double no_epsilon = 0.0;

static void test_batch_normalization(void)
{
    float out[4];
    wnn_batch_normalization_options o = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
    o.epsilon = &no_epsilon;
    wnn_graph_builder *b = builder();
    wnn_operand *x = CF32(b, SHAPE(2, 2), 1, 2, 3, 4);
    wnn_operand *y = wnn_batch_normalization(b, x, CF32(b, SHAPE(2), 1, 2), CF32(b, SHAPE(2), 4, 1), &o);
    if (run(b, y, out, sizeof out))
        check_floats(out, (const float[]){0, 0, 1, 2}, 4, 0);

    /* axis 0 with scale and bias */
    const uint32_t axis0 = 0;
    o.axis = &axis0;
    b = builder();
    o.scale = CF32(b, SHAPE(2), 2, 3);
    o.bias = CF32(b, SHAPE(2), 1, -1);
    x = CF32(b, SHAPE(2, 2), 1, 2, 3, 4);
    y = wnn_batch_normalization(b, x, CF32(b, SHAPE(2), 1.5f, 3), CF32(b, SHAPE(2), 0.25f, 4), &o);
    if (run(b, y, out, sizeof out))
        check_floats(out, (const float[]){-1, 3, -1, 0.5f}, 4, 1e-6);
}

static void test_batch_normalization_errors(void)
{
    wnn_batch_normalization_options o = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
    const uint32_t axis2 = 2;
    o.axis = &axis2;
    wnn_graph_builder *b = builder();
    wnn_operand *x = input(b, "x", F32, SHAPE(2, 3));
    check_refused(b, wnn_batch_normalization(b, x, input(b, "m", F32, SHAPE(3)), input(b, "v", F32, SHAPE(3)), &o),
                  WNN_STATUS_INVALID_ARGUMENT);
    b = builder();
    x = input(b, "x", F32, SHAPE(2, 3));
    check_refused(b, wnn_batch_normalization(b, x, input(b, "m", F32, SHAPE(2)), input(b, "v", F32, SHAPE(3)), NULL),
                  WNN_STATUS_SHAPE_MISMATCH);
    b = builder();
    x = input(b, "x", F32, SHAPE(2, 3));
    check_refused(b,
                  wnn_batch_normalization(b, x, input(b, "m", F32, SHAPE(1, 3)), input(b, "v", F32, SHAPE(3)), NULL),
                  WNN_STATUS_INVALID_RANK);
    b = builder();
    x = input(b, "x", F32, SHAPE(2, 3));
    check_refused(b, wnn_batch_normalization(b, x, input(b, "m", F32, SHAPE(3)), input(b, "v", F16, SHAPE(3)), NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    b = builder();
    x = input(b, "x", F32, 0, NULL);
    check_refused(b, wnn_batch_normalization(b, x, input(b, "m", F32, SHAPE(1)), input(b, "v", F32, SHAPE(1)), NULL),
                  WNN_STATUS_INVALID_RANK);
    b = builder();
    x = input(b, "x", WNN_DATA_TYPE_INT32, SHAPE(2, 3));
    check_refused(b,
                  wnn_batch_normalization(b, x, input(b, "m", WNN_DATA_TYPE_INT32, SHAPE(3)),
                                          input(b, "v", WNN_DATA_TYPE_INT32, SHAPE(3)), NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
}

static void test_instance_normalization(void)
{
    /* one plane [1, 2, 3, 4]: mean 2.5, variance 1.25 */
    float out[8];
    const double s = 1.0 / sqrt(1.25);
    wnn_instance_normalization_options o = WNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
    o.epsilon = &no_epsilon;
    wnn_graph_builder *b = builder();
    if (run(b, wnn_instance_normalization(b, CF32(b, SHAPE(1, 1, 2, 2), 1, 2, 3, 4), &o), out, 4 * sizeof(float)))
        check_floats(out, (const float[]){(float)(-1.5 * s), (float)(-0.5 * s), (float)(0.5 * s), (float)(1.5 * s)},
                     4, 1e-6);

    /* nhwc, two channels interleaved, with scale and bias */
    o.layout = WNN_INPUT_LAYOUT_NHWC;
    b = builder();
    o.scale = CF32(b, SHAPE(2), 1, 2);
    o.bias = CF32(b, SHAPE(2), 0, 10);
    wnn_operand *x = CF32(b, SHAPE(1, 2, 2, 2), 1, 10, 2, 20, 3, 30, 4, 40);
    if (run(b, wnn_instance_normalization(b, x, &o), out, 8 * sizeof(float))) {
        const double z[4] = {-1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s};
        for (int i = 0; i < 4; i++) {
            CHECK_NEAR(out[2 * i], z[i], 1e-6);
            CHECK_NEAR(out[2 * i + 1], 10 + 2 * z[i], 1e-5);
        }
    }
}

static void test_instance_normalization_errors(void)
{
    wnn_graph_builder *b = builder();
    check_refused(b, wnn_instance_normalization(b, input(b, "x", F32, SHAPE(1, 2, 2)), NULL),
                  WNN_STATUS_INVALID_RANK);
    wnn_instance_normalization_options o = WNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
    b = builder();
    o.scale = input(b, "s", F32, SHAPE(2));
    check_refused(b, wnn_instance_normalization(b, input(b, "x", F32, SHAPE(1, 3, 2, 2)), &o),
                  WNN_STATUS_SHAPE_MISMATCH);
    o = (wnn_instance_normalization_options)WNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
    o.layout = (wnn_input_layout)5;
    b = builder();
    check_refused(b, wnn_instance_normalization(b, input(b, "x", F32, SHAPE(1, 3, 2, 2)), &o),
                  WNN_STATUS_INVALID_ARGUMENT);
    b = builder();
    check_refused(b, wnn_instance_normalization(b, input(b, "x", WNN_DATA_TYPE_INT8, SHAPE(1, 3, 2, 2)), NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
}

static void test_layer_normalization(void)
{
    float out[6];
    wnn_layer_normalization_options o = WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
    o.epsilon = &no_epsilon;
    /* default axes [1]: rows [1, 3] and [2, 6] both become [-1, 1] */
    wnn_graph_builder *b = builder();
    if (run(b, wnn_layer_normalization(b, CF32(b, SHAPE(2, 2), 1, 3, 2, 6), &o), out, 4 * sizeof(float)))
        check_floats(out, (const float[]){-1, 1, -1, 1}, 4, 1e-6);

    /* axes [1, 0] over all of [2, 3]: scale has shape [3, 2], axis 1 first */
    const uint32_t axes10[2] = {1, 0};
    o.axes = axes10;
    o.axes_count = 2;
    b = builder();
    o.scale = CF32(b, SHAPE(3, 2), 1, 2, 3, 4, 5, 6);
    wnn_operand *x = CF32(b, SHAPE(2, 3), 0, 0, 0, 6, 6, 6); /* mean 3, variance 9 */
    if (run(b, wnn_layer_normalization(b, x, &o), out, 6 * sizeof(float))) {
        /* element (r, c) is -1 or 1 times scale[c][r] */
        const float want[6] = {-1, -3, -5, 2, 4, 6};
        check_floats(out, want, 6, 1e-6);
    }

    /* no axes: every element is its own group, so the result is the bias */
    o = (wnn_layer_normalization_options)WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
    o.axes = axes10; /* with axes_count 0 */
    b = builder();
    o.bias = constant(b, F32, 0, NULL, (const float[]){7});
    if (run(b, wnn_layer_normalization(b, CF32(b, SHAPE(3), 1, 2, 3), &o), out, 3 * sizeof(float)))
        check_floats(out, (const float[]){7, 7, 7}, 3, 0);
}

static void test_layer_normalization_errors(void)
{
    wnn_layer_normalization_options o = WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
    uint32_t axes[2] = {1, 1};
    o.axes = axes;
    o.axes_count = 2;
    wnn_graph_builder *b = builder();
    check_refused(b, wnn_layer_normalization(b, input(b, "x", F32, SHAPE(2, 3)), &o), WNN_STATUS_INVALID_ARGUMENT);
    axes[1] = 2;
    b = builder();
    check_refused(b, wnn_layer_normalization(b, input(b, "x", F32, SHAPE(2, 3)), &o), WNN_STATUS_INVALID_ARGUMENT);

    o = (wnn_layer_normalization_options)WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
    b = builder();
    o.scale = input(b, "s", F32, SHAPE(2));
    check_refused(b, wnn_layer_normalization(b, input(b, "x", F32, SHAPE(2, 3)), &o), WNN_STATUS_SHAPE_MISMATCH);
    b = builder();
    o.scale = input(b, "s", F32, SHAPE(1, 3));
    check_refused(b, wnn_layer_normalization(b, input(b, "x", F32, SHAPE(2, 3)), &o), WNN_STATUS_INVALID_RANK);
    b = builder();
    check_refused(b, wnn_layer_normalization(b, input(b, "x", WNN_DATA_TYPE_INT64, SHAPE(2, 3)), NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
}

int main(void)
{
    wnn_context_options co = WNN_CONTEXT_OPTIONS_INIT;
    co.device = test_device();
    if (wnn_context_create(&co, &ctx) != WNN_OK) {
        fprintf(stderr, "context on %s: %s\n", co.device, wnn_last_error_message());
        return 77;
    }
    test_batch_normalization();
    test_batch_normalization_errors();
    test_instance_normalization();
    test_instance_normalization_errors();
    test_layer_normalization();
    test_layer_normalization_errors();
    wnn_context_release(ctx);
    TEST_DONE();
}
