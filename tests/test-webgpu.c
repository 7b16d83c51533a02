/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-webgpu.c -- the webgpu device: listed only with a real adapter;
** tensors as WGPUBuffers (round trips of whole and part words, a large
** write through the staging ring, zero fill,
** device-to-device chains), WGSL kernels against known values (broadcast
** add, uint8 comparisons, float16, matmul, concat, transpose, reduction,
** softmax, conv2d in nhwc with padding and bias, maxPool2d with NaN,
** float16 layerNormalization, gather of negative and clamped indices,
** triangular, quantizeLinear, uint4 dequantizeLinear, exclusive reversed
** cumulativeSum, lstmCell's cell state, int64 sub, casts and gather),
** dispatches split over the binding size, and int64 where no kernel has it
** refused by opSupportLimits and the builder. Exits 77 with the reason
** where no adapter is found (no library, or a Vulkan driver Dawn refuses;
** see docs/webgpu.md).
*/
#include <libgen.h>
#include <math.h>
#include <unistd.h>

#include "platform/config.h"
#include "test.h"
#include "test-webgpu.h"

static bool listed(void)
{
    for (uint32_t i = 0; i < wnn_device_count(); i++) {
        wnn_device_info info;
        if (wnn_device_get_info(i, &info) == WNN_OK && strcmp(info.name, "webgpu") == 0) {
            CHECK_EQ_INT(info.kind, WNN_DEVICE_KIND_DISCRETE);
            CHECK_EQ_INT(info.dlpack_device_type, 15); /* kDLWebGPU */
            CHECK(info.max_tensor_byte_length >= (64u << 20));
            return true;
        }
    }
    return false;
}

static wnn_context *ctx;

static wnn_tensor *tensor(wnn_data_type t, uint32_t rank, const uint32_t *shape)
{
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.data_type = t;
    d.rank = rank;
    memcpy(d.shape, shape, rank * sizeof *shape);
    d.readable = d.writable = true;
    wnn_tensor *x = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &x));
    return x;
}

static void test_copies(void)
{
    /* 7 bytes: a part word at the end */
    uint32_t shape[1] = {7};
    wnn_tensor *t = tensor(WNN_DATA_TYPE_UINT8, 1, shape);
    uint8_t in[7] = {1, 2, 3, 250, 5, 6, 7}, out[7] = {0};
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, out, sizeof out)); /* never written: zeros */
    CHECK_EQ_INT(out[0] | out[3] | out[6], 0);
    CHECK_OK(wnn_context_write_tensor(ctx, t, in, sizeof in));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, out, sizeof out));
    CHECK(memcmp(in, out, sizeof in) == 0);
    wnn_tensor_release(t);

    uint32_t big[1] = {1u << 20};
    t = tensor(WNN_DATA_TYPE_FLOAT32, 1, big);
    float *v = malloc(sizeof(float) << 20), *r = malloc(sizeof(float) << 20);
    for (uint32_t i = 0; i < big[0]; i++)
        v[i] = (float)i * 0.5f;
    CHECK_OK(wnn_context_write_tensor(ctx, t, v, sizeof(float) << 20));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r, sizeof(float) << 20));
    CHECK(memcmp(v, r, sizeof(float) << 20) == 0);
    free(v);
    free(r);
    wnn_tensor_release(t);

    /* 36 MiB + 3 bytes, through the staging ring (five 8 MiB chunks on a
    ** ring of four) and then in 2 MiB pieces, with a part word at the end;
    ** written twice each, so the ring's second turn waits for its buffers'
    ** maps; read back in chunks (the same ring size) and whole */
    uint32_t odd[1] = {(36u << 20) + 3};
    t = tensor(WNN_DATA_TYPE_UINT8, 1, odd);
    unsigned char *bv = malloc(odd[0]), *br = malloc(odd[0]);
    for (int pieces = 0; pieces < 2; pieces++) {
        if (pieces)
            setenv("WNN_WEBGPU_UPLOAD", "pieces", 1);
        wnn__config_reload();
        for (int pass = 0; pass < 2; pass++) {
            for (uint32_t i = 0; i < odd[0]; i++)
                bv[i] = (unsigned char)(i * 7 + (i >> 20) + pass + 2 * pieces);
            CHECK_OK(wnn_context_write_tensor(ctx, t, bv, odd[0]));
        }
        CHECK_OK(wnn_context_finish(ctx));
        for (int whole = 0; whole < 2; whole++) {
            if (whole)
                setenv("WNN_WEBGPU_READ", "whole", 1);
            wnn__config_reload();
            memset(br, 0, odd[0]);
            CHECK_OK(wnn_context_read_tensor_sync(ctx, t, br, odd[0]));
            CHECK(memcmp(bv, br, odd[0]) == 0);
            CHECK_OK(wnn_context_finish(ctx)); /* nothing queued since the read */
            unsetenv("WNN_WEBGPU_READ");
        }
    }
    unsetenv("WNN_WEBGPU_UPLOAD");
    wnn__config_reload();
    free(bv);
    free(br);
    wnn_tensor_release(t);
}

/* Builds y = f(inputs), runs it once on the given bytes, reads y. */
typedef wnn_operand *(*build_fn)(wnn_graph_builder *b, wnn_operand **in);

static void run(build_fn f, uint32_t n_in, const wnn_operand_desc *in_desc, const void *const *in_data,
                const wnn_operand_desc *out_desc, void *out)
{
    wnn_graph_builder *b = NULL;
    wnn_graph *g = NULL;
    wnn_tensor *t[4] = {NULL}, *y = NULL;
    wnn_operand *ops[4];
    wnn_named_tensor bind[4];
    static const char *names[4] = {"a", "b", "c", "d"};
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    for (uint32_t i = 0; i < n_in; i++)
        ops[i] = wnn_graph_builder_input(b, names[i], &in_desc[i]);
    wnn_named_operand o = {"y", f(b, ops)};
    CHECK_OK(wnn_graph_builder_build(b, &o, 1, &g));
    for (uint32_t i = 0; i < n_in && g; i++) {
        t[i] = tensor(in_desc[i].data_type, in_desc[i].rank, in_desc[i].shape);
        CHECK_OK(wnn_context_write_tensor(ctx, t[i], in_data[i], (size_t)wnn_operand_desc_byte_length(&in_desc[i])));
        bind[i] = (wnn_named_tensor){names[i], t[i]};
    }
    if (g) {
        y = tensor(out_desc->data_type, out_desc->rank, out_desc->shape);
        wnn_named_tensor by = {"y", y};
        CHECK_OK(wnn_context_dispatch(ctx, g, bind, n_in, &by, 1));
        CHECK_OK(wnn_context_read_tensor_sync(ctx, y, out, (size_t)wnn_operand_desc_byte_length(out_desc)));
    }
    for (uint32_t i = 0; i < n_in; i++)
        wnn_tensor_release(t[i]);
    wnn_tensor_release(y);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
}

static wnn_operand *add_op(wnn_graph_builder *b, wnn_operand **in) { return wnn_add(b, in[0], in[1]); }
static wnn_operand *greater_op(wnn_graph_builder *b, wnn_operand **in) { return wnn_greater(b, in[0], in[1]); }
static wnn_operand *matmul_op(wnn_graph_builder *b, wnn_operand **in) { return wnn_matmul(b, in[0], in[1]); }
static wnn_operand *transpose_op(wnn_graph_builder *b, wnn_operand **in) { return wnn_transpose(b, in[0], NULL); }
static wnn_operand *softmax_op(wnn_graph_builder *b, wnn_operand **in) { return wnn_softmax(b, in[0], 1); }

static wnn_operand *concat_op(wnn_graph_builder *b, wnn_operand **in)
{
    return wnn_concat(b, in, 2, 1);
}

static wnn_operand *sum_op(wnn_graph_builder *b, wnn_operand **in) { return wnn_reduce_sum(b, in[0], NULL); }

/* 3x3 input, 2x2 filter, nhwc, one row of padding on top, bias */
static wnn_operand *conv_op(wnn_graph_builder *b, wnn_operand **in)
{
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    o.padding[0] = 1;
    o.input_layout = WNN_INPUT_LAYOUT_NHWC;
    o.filter_layout = WNN_CONV2D_FILTER_LAYOUT_OHWI;
    o.bias = in[2];
    return wnn_conv2d(b, in[0], in[1], &o);
}

static wnn_operand *max_pool_op(wnn_graph_builder *b, wnn_operand **in)
{
    wnn_pool2d_options o = WNN_POOL2D_OPTIONS_INIT;
    o.window_dimensions[0] = o.window_dimensions[1] = 2;
    return wnn_max_pool2d(b, in[0], &o);
}

static wnn_operand *layer_norm_op(wnn_graph_builder *b, wnn_operand **in)
{
    return wnn_layer_normalization(b, in[0], NULL);
}

static wnn_operand *gather_op(wnn_graph_builder *b, wnn_operand **in)
{
    wnn_gather_options o = {NULL, 1};
    return wnn_gather(b, in[0], in[1], &o);
}

static wnn_operand *triangular_op(wnn_graph_builder *b, wnn_operand **in) { return wnn_triangular(b, in[0], NULL); }
static wnn_operand *quantize_op(wnn_graph_builder *b, wnn_operand **in)
{
    return wnn_quantize_linear(b, in[0], in[1], in[2]);
}

/* lstmCell's cell state (its second output; the first stays internal) */
static wnn_operand *lstm_cell_op(wnn_graph_builder *b, wnn_operand **in)
{
    wnn_operand *out[2] = {NULL, NULL};
    return wnn_lstm_cell(b, in[0], in[1], in[2], in[3], in[3], 1, NULL, out) == 2 ? out[1] : NULL;
}

static wnn_operand *dequantize_op(wnn_graph_builder *b, wnn_operand **in)
{
    return wnn_dequantize_linear(b, in[0], in[1], in[2]);
}

static wnn_operand *cumsum_op(wnn_graph_builder *b, wnn_operand **in)
{
    wnn_cumulative_sum_options o = {NULL, true, true}; /* exclusive, reversed */
    return wnn_cumulative_sum(b, in[0], 1, &o);
}

/* The operators of the spatial, normalization and index kernels. */
static void test_more_kernels(void)
{
    {
        wnn_operand_desc d[3] = {{WNN_DATA_TYPE_FLOAT32, 4, {1, 3, 3, 1}}, {WNN_DATA_TYPE_FLOAT32, 4, {1, 2, 2, 1}},
                                 {WNN_DATA_TYPE_FLOAT32, 1, {1}}};
        wnn_operand_desc od = {WNN_DATA_TYPE_FLOAT32, 4, {1, 3, 2, 1}};
        float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, f[4] = {1, 10, 100, 1000}, bias[1] = {0.5f}, y[6];
        const void *in[3] = {x, f, bias};
        run(conv_op, 3, d, in, &od, y);
        /* row 0 sees the padding above: 100 * x0 + 1000 * x1 */
        CHECK_NEAR(y[0], 2100.5, 1e-3);
        CHECK_NEAR(y[2], 1 + 20 + 400 + 5000 + 0.5, 1e-3);
        CHECK_NEAR(y[5], 5 + 60 + 800 + 9000 + 0.5, 1e-3);
    }
    {
        wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 4, {1, 1, 3, 3}}, od = {WNN_DATA_TYPE_FLOAT32, 4, {1, 1, 2, 2}};
        float x[9] = {1, 2, 3, 4, NAN, 6, 7, 8, -9}, y[4];
        const void *in[1] = {x};
        run(max_pool_op, 1, &d, in, &od, y); /* a NaN wins its windows */
        CHECK(isnan(y[0]) && isnan(y[1]) && isnan(y[2]) && isnan(y[3]));
        x[4] = 0;
        run(max_pool_op, 1, &d, in, &od, y);
        CHECK(y[0] == 4 && y[1] == 6 && y[2] == 8 && y[3] == 8);
    }
    {
        wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT16, 2, {2, 2}};
        uint16_t x[4] = {0x3c00, 0x4200, 0x4000, 0x4000}, y[4]; /* 1, 3 | 2, 2 */
        const void *in[1] = {x};
        run(layer_norm_op, 1, &d, in, &d, y);
        CHECK_EQ_INT(y[0], 0xbc00); /* -1 / sqrt(1 + 1e-5) rounds to -1 in float16 */
        CHECK_EQ_INT(y[1], 0x3c00);
        CHECK_EQ_INT(y[2], 0);
    }
    {
        wnn_operand_desc d[2] = {{WNN_DATA_TYPE_UINT8, 2, {2, 3}}, {WNN_DATA_TYPE_INT32, 1, {3}}};
        wnn_operand_desc od = {WNN_DATA_TYPE_UINT8, 2, {2, 3}};
        uint8_t x[6] = {1, 2, 3, 4, 5, 6}, y[6];
        int32_t idx[3] = {-1, 0, 7}; /* from the end; clamped */
        const void *in[2] = {x, idx};
        run(gather_op, 2, d, in, &od, y);
        uint8_t want[6] = {3, 1, 3, 6, 4, 6};
        CHECK(memcmp(y, want, sizeof want) == 0);
    }
    {
        wnn_operand_desc d = {WNN_DATA_TYPE_INT32, 2, {3, 3}};
        int32_t x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, y[9];
        const void *in[1] = {x};
        run(triangular_op, 1, &d, in, &d, y);
        int32_t want[9] = {1, 2, 3, 0, 5, 6, 0, 0, 9};
        CHECK(memcmp(y, want, sizeof want) == 0);
    }
    {
        /* per-column scale and zero point; halves round to even; saturation */
        wnn_operand_desc d[3] = {{WNN_DATA_TYPE_FLOAT32, 2, {2, 2}}, {WNN_DATA_TYPE_FLOAT32, 1, {2}},
                                 {WNN_DATA_TYPE_INT8, 1, {2}}};
        wnn_operand_desc od = {WNN_DATA_TYPE_INT8, 2, {2, 2}};
        float x[4] = {2.5f, 3.0f, 1000.0f, -7.0f}, scale[2] = {1.0f, 2.0f};
        int8_t zp[2] = {0, 1}, y[4];
        const void *in[3] = {x, scale, zp};
        run(quantize_op, 3, d, in, &od, y);
        CHECK(y[0] == 2 && y[1] == 3 && y[2] == 127 && y[3] == -3);
    }
    {
        /* uint4, two a byte, the even element low: 1 15 8 less zero point 8, times 0.5 */
        wnn_operand_desc d[3] = {{WNN_DATA_TYPE_UINT4, 1, {3}}, {WNN_DATA_TYPE_FLOAT32, 1, {1}},
                                 {WNN_DATA_TYPE_UINT4, 1, {1}}};
        wnn_operand_desc od = {WNN_DATA_TYPE_FLOAT32, 1, {3}};
        uint8_t x[2] = {0xf1, 0x08}, zp[1] = {0x08};
        float scale[1] = {0.5f}, y[3];
        const void *in[3] = {x, scale, zp};
        run(dequantize_op, 3, d, in, &od, y);
        CHECK(y[0] == -3.5f && y[1] == 3.5f && y[2] == 0.0f);
    }
    {
        wnn_operand_desc d = {WNN_DATA_TYPE_INT32, 2, {2, 3}};
        int32_t x[6] = {1, 2, 3, 4, 5, 6}, y[6];
        const void *in[1] = {x};
        run(cumsum_op, 1, &d, in, &d, y);
        int32_t want[6] = {5, 3, 0, 11, 6, 0};
        CHECK(memcmp(y, want, sizeof want) == 0);
    }
    {
        /* x = 1, weights i o f g = 0.5 -0.5 1 2, no recurrence (h = c = 0.25) */
        wnn_operand_desc d[4] = {{WNN_DATA_TYPE_FLOAT32, 2, {1, 1}}, {WNN_DATA_TYPE_FLOAT32, 2, {4, 1}},
                                 {WNN_DATA_TYPE_FLOAT32, 2, {4, 1}}, {WNN_DATA_TYPE_FLOAT32, 2, {1, 1}}};
        float x[1] = {1}, w[4] = {0.5f, -0.5f, 1, 2}, r[4] = {0}, hc[1] = {0.25f}, y[1];
        const void *in[4] = {x, w, r, hc};
        run(lstm_cell_op, 4, d, in, &d[0], y);
        double ig = 1 / (1 + exp(-0.5)), fg = 1 / (1 + exp(-1.0));
        CHECK_NEAR(y[0], fg * 0.25 + ig * tanh(2.0), 1e-5);
    }
}

static void test_kernels(void)
{
    /* broadcast add [2,3] + [3] */
    {
        wnn_operand_desc d[2] = {{WNN_DATA_TYPE_FLOAT32, 2, {2, 3}}, {WNN_DATA_TYPE_FLOAT32, 1, {3}}};
        float a[6] = {1, 2, 3, 4, 5, 6}, bb[3] = {10, 20, 30}, y[6];
        const void *in[2] = {a, bb};
        run(add_op, 2, d, in, &d[0], y);
        CHECK(y[0] == 11 && y[2] == 33 && y[3] == 14 && y[5] == 36);
    }
    /* int8 greater -> uint8, 5 elements (packed words, a part word) */
    {
        wnn_operand_desc d[2] = {{WNN_DATA_TYPE_INT8, 1, {5}}, {WNN_DATA_TYPE_INT8, 1, {5}}};
        wnn_operand_desc od = {WNN_DATA_TYPE_UINT8, 1, {5}};
        int8_t a[5] = {-3, 4, 0, 127, -128}, bb[5] = {-4, 5, 0, -128, 127};
        uint8_t y[5];
        const void *in[2] = {a, bb};
        run(greater_op, 2, d, in, &od, y);
        CHECK(y[0] == 1 && y[1] == 0 && y[2] == 0 && y[3] == 1 && y[4] == 0);
    }
    /* float16 add, packed two a word (0x3c00 = 1, 0x4000 = 2, 0x7bff = 65504) */
    {
        wnn_operand_desc d[2] = {{WNN_DATA_TYPE_FLOAT16, 1, {3}}, {WNN_DATA_TYPE_FLOAT16, 1, {3}}};
        uint16_t a[3] = {0x3c00, 0x4000, 0x7bff}, bb[3] = {0x3c00, 0x3c00, 0x7bff}, y[3];
        const void *in[2] = {a, bb};
        run(add_op, 2, d, in, &d[0], y);
        CHECK_EQ_INT(y[0], 0x4000);
        CHECK_EQ_INT(y[1], 0x4200);
        CHECK_EQ_INT(y[2], 0x7c00); /* overflow is infinity */
    }
    /* matmul [2,3] x [3,2] */
    {
        wnn_operand_desc d[2] = {{WNN_DATA_TYPE_FLOAT32, 2, {2, 3}}, {WNN_DATA_TYPE_FLOAT32, 2, {3, 2}}};
        wnn_operand_desc od = {WNN_DATA_TYPE_FLOAT32, 2, {2, 2}};
        float a[6] = {1, 2, 3, 4, 5, 6}, bb[6] = {1, 0, 0, 1, 1, 1}, y[4];
        const void *in[2] = {a, bb};
        run(matmul_op, 2, d, in, &od, y);
        CHECK(y[0] == 4 && y[1] == 5 && y[2] == 10 && y[3] == 11);
    }
    /* concat of [2,1] and [2,2] along 1, uint8 */
    {
        wnn_operand_desc d[2] = {{WNN_DATA_TYPE_UINT8, 2, {2, 1}}, {WNN_DATA_TYPE_UINT8, 2, {2, 2}}};
        wnn_operand_desc od = {WNN_DATA_TYPE_UINT8, 2, {2, 3}};
        uint8_t a[2] = {1, 2}, bb[4] = {3, 4, 5, 6}, y[6];
        const void *in[2] = {a, bb};
        run(concat_op, 2, d, in, &od, y);
        uint8_t want[6] = {1, 3, 4, 2, 5, 6};
        CHECK(memcmp(y, want, 6) == 0);
    }
    /* transpose [2,3] -> [3,2], int32 */
    {
        wnn_operand_desc d = {WNN_DATA_TYPE_INT32, 2, {2, 3}}, od = {WNN_DATA_TYPE_INT32, 2, {3, 2}};
        int32_t a[6] = {1, 2, 3, 4, 5, 6}, y[6];
        const void *in[1] = {a};
        run(transpose_op, 1, &d, in, &od, y);
        int32_t want[6] = {1, 4, 2, 5, 3, 6};
        CHECK(memcmp(y, want, sizeof want) == 0);
    }
    /* reduceSum over every axis and softmax along axis 1 */
    {
        wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 2, {2, 3}}, od = {WNN_DATA_TYPE_FLOAT32, 0, {0}};
        float a[6] = {1, 2, 3, 4, 5, 6}, y[6];
        const void *in[1] = {a};
        run(sum_op, 1, &d, in, &od, y);
        CHECK(y[0] == 21);
        run(softmax_op, 1, &d, in, &d, y);
        CHECK_NEAR(y[0] + y[1] + y[2], 1.0, 1e-6);
        CHECK_NEAR(y[2], exp(1.0) * exp(1.0) / (1 + exp(1.0) + exp(2.0)), 1e-6);
    }
}

static wnn_operand *sub_op(wnn_graph_builder *b, wnn_operand **in) { return wnn_sub(b, in[0], in[1]); }

static wnn_operand *cast_f32_op(wnn_graph_builder *b, wnn_operand **in)
{
    return wnn_cast(b, in[0], WNN_DATA_TYPE_FLOAT32);
}

static wnn_operand *cast_i64_op(wnn_graph_builder *b, wnn_operand **in)
{
    return wnn_cast(b, in[0], WNN_DATA_TYPE_INT64);
}

/* int64 in vec2<u32>: a borrow across the words, sign extension and
** saturation of casts, an int64 argMax index. */
static void test_int64(void)
{
    wnn_operand_desc d[2] = {{WNN_DATA_TYPE_INT64, 1, {3}}, {WNN_DATA_TYPE_INT64, 1, {3}}};
    int64_t a[3] = {(int64_t)1 << 32, -5, INT64_MIN + 1}, bb[3] = {1, 7, 1}, y[3];
    const void *in[2] = {a, bb};
    run(sub_op, 2, d, in, &d[0], y);
    CHECK(y[0] == 0xffffffff && y[1] == -12 && y[2] == INT64_MIN);
    wnn_operand_desc fd = {WNN_DATA_TYPE_FLOAT32, 1, {3}};
    float f[3];
    run(cast_f32_op, 1, d, in, &fd, f);
    CHECK(f[0] == 4294967296.0f && f[1] == -5.0f && f[2] == -9223372036854775808.0f);
    float g[3] = {-3.75f, 1e30f, 6442450944.0f}; /* truncated; saturated; over 32 bits */
    const void *in2[1] = {g};
    run(cast_i64_op, 1, &fd, in2, &d[0], y);
    CHECK(y[0] == -3 && y[1] == INT64_MAX && y[2] == 6442450944);
    wnn_operand_desc id = {WNN_DATA_TYPE_INT32, 1, {3}};
    int32_t v[3] = {-7, 0, 7};
    const void *in3[1] = {v};
    run(cast_i64_op, 1, &id, in3, &d[0], y);
    CHECK(y[0] == -7 && y[1] == 0 && y[2] == 7);
    /* int64 values moved by gather (int64 indices, one from the end) */
    wnn_operand_desc gd[2] = {{WNN_DATA_TYPE_INT64, 2, {1, 3}}, {WNN_DATA_TYPE_INT64, 1, {2}}};
    wnn_operand_desc god = {WNN_DATA_TYPE_INT64, 2, {1, 2}};
    int64_t vals[3] = {INT64_MIN, 42, -((int64_t)1 << 40)}, idx[2] = {-1, 0}, got[2];
    const void *in4[2] = {vals, idx};
    run(gather_op, 2, gd, in4, &god, got);
    CHECK(got[0] == -((int64_t)1 << 40) && got[1] == INT64_MIN);
}

static wnn_operand *cast_f16_op(wnn_graph_builder *b, wnn_operand **in)
{
    return wnn_cast(b, in[0], WNN_DATA_TYPE_FLOAT16);
}

static wnn_operand *outer_op(wnn_graph_builder *b, wnn_operand **in) { return wnn_matmul(b, in[0], in[1]); }

static wnn_operand *tile_op(wnn_graph_builder *b, wnn_operand **in)
{
    return wnn_tile(b, in[0], (const uint32_t[]){16, 16});
}

static wnn_operand *upsample_op(wnn_graph_builder *b, wnn_operand **in)
{
    wnn_resample2d_options o = WNN_RESAMPLE2D_OPTIONS_INIT;
    o.scales[0] = o.scales[1] = 8.0f;
    return wnn_resample2d(b, in[0], &o);
}

/* Kernels other than the element-wise ones split over their output when
** their inputs fit: an outer product (the tiled kernel gives way to its
** loop), tile, and a nearest upsampling, each [64, 80] floats (20 KiB) out
** of inputs under the 4 KiB limit. */
static void test_split_outputs(void)
{
    enum { M = 64, N = 80 };
    float a[M], bb[N], x[M * N / 64], *y = malloc(M * N * sizeof *y); /* x: tile's 20, resample's 80 */
    for (int i = 0; i < M; i++)
        a[i] = (float)(i + 1);
    for (int j = 0; j < N; j++)
        bb[j] = (float)(j - 40);
    for (int i = 0; i < M * N / 64; i++)
        x[i] = (float)i;
    wnn_operand_desc d[2] = {{WNN_DATA_TYPE_FLOAT32, 2, {M, 1}}, {WNN_DATA_TYPE_FLOAT32, 2, {1, N}}};
    wnn_operand_desc od = {WNN_DATA_TYPE_FLOAT32, 2, {M, N}};
    const void *in[2] = {a, bb};
    run(outer_op, 2, d, in, &od, y);
    int bad = 0;
    for (int i = 0; i < M * N; i++)
        bad += y[i] != a[i / N] * bb[i % N];
    CHECK_EQ_INT(bad, 0);
    wnn_operand_desc td = {WNN_DATA_TYPE_FLOAT32, 2, {M / 16, N / 16}};
    const void *tin[1] = {x};
    run(tile_op, 1, &td, tin, &od, y);
    bad = 0;
    for (int i = 0; i < M * N; i++)
        bad += y[i] != x[(i / N % (M / 16)) * (N / 16) + i % N % (N / 16)];
    CHECK_EQ_INT(bad, 0);
    wnn_operand_desc rd = {WNN_DATA_TYPE_FLOAT32, 4, {1, 1, M / 8, N / 8}}, rod = {WNN_DATA_TYPE_FLOAT32, 4, {1, 1, M, N}};
    run(upsample_op, 1, &rd, tin, &rod, y);
    bad = 0;
    for (int i = 0; i < M * N; i++)
        bad += y[i] != x[(i / N / 8) * (N / 8) + i % N / 8];
    CHECK_EQ_INT(bad, 0);
    free(y);
}

/* Dispatches split over the binding-size limit, lowered to 4 KiB
** (WNN_WEBGPU_SPLIT_KIB) so that small tensors take the path: windows of
** the output and of the inputs of its shape, broadcast inputs bound whole,
** packed outputs and a part word at the end; kernels that cannot split run
** whole under the adapter's real limit. */
static void test_split(void)
{
    setenv("WNN_WEBGPU_SPLIT_KIB", "4", 1);
    wnn__config_reload();
    enum { N = 5001 };
    float *a = malloc(N * sizeof *a), *bb = malloc(N * sizeof *bb), *y = malloc(N * sizeof *y);
    uint8_t *g = malloc(N);
    uint16_t *h = malloc(N * sizeof *h);
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        bb[i] = (float)(N - i);
    }
    wnn_operand_desc d[2] = {{WNN_DATA_TYPE_FLOAT32, 1, {N}}, {WNN_DATA_TYPE_FLOAT32, 1, {N}}};
    const void *in[2] = {a, bb};
    run(add_op, 2, d, in, &d[0], y); /* 5 chunks of 1024 words */
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += y[i] != (float)N;
    CHECK_EQ_INT(bad, 0);
    wnn_operand_desc scalar[2] = {{WNN_DATA_TYPE_FLOAT32, 1, {N}}, {WNN_DATA_TYPE_FLOAT32, 1, {1}}};
    wnn_operand_desc od = {WNN_DATA_TYPE_UINT8, 1, {N}};
    float half_way[1] = {2500.0f};
    const void *in2[2] = {a, half_way};
    run(greater_op, 2, scalar, in2, &od, g); /* uint8 words of four, scalar bound whole */
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += g[i] != (i > 2500);
    CHECK_EQ_INT(bad, 0);
    wnn_operand_desc hd = {WNN_DATA_TYPE_FLOAT16, 1, {N}};
    run(cast_f16_op, 1, d, in, &hd, h); /* halves, the last word half full */
    CHECK_EQ_INT(h[0], 0);
    CHECK_EQ_INT(h[2048], 0x6800);  /* 2048 */
    CHECK_EQ_INT(h[N - 1], 0x6ce2); /* 5000 */
    run(transpose_op, 1, d, in, d, y); /* an input over the limit read whole: whole, under the real limit */
    CHECK(y[0] == 0 && y[N - 1] == (float)(N - 1));
    test_split_outputs();
    free(a);
    free(bb);
    free(y);
    free(g);
    free(h);
    unsetenv("WNN_WEBGPU_SPLIT_KIB");
    wnn__config_reload();
}

/* What has no kernel (64-bit integers in add): not claimed by the limits,
** refused by the builder. */
static void test_unsupported(void)
{
    wnn_tensor_limits l;
    CHECK_OK(wnn_context_get_operand_limits(ctx, "add", "a", &l));
    CHECK(l.data_types & (1u << WNN_DATA_TYPE_FLOAT32));
    CHECK(!(l.data_types & (1u << WNN_DATA_TYPE_INT64)));
    wnn_graph_builder *b = NULL;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_INT64, 1, {3}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *y = x ? wnn_add(b, x, x) : NULL;
    wnn_graph *g = NULL;
    wnn_named_operand o = {"y", y};
    CHECK(y == NULL || wnn_graph_builder_build(b, &o, 1, &g) != WNN_OK);
    CHECK(g == NULL);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
}

int main(void)
{
    test_use_private_lavapipe();
    if (!listed()) {
        printf("skipped: no webgpu device (needs the pinned Dawn build and a real adapter: "
               "src/backends/webgpu/setup.sh, docs/webgpu.md)\n");
        return 77;
    }
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = "webgpu";
    CHECK_OK(wnn_context_create(&o, &ctx));
    if (ctx) {
        test_copies();
        test_kernels();
        test_more_kernels();
        test_split();
        test_int64();
        test_unsupported();
    }
    wnn_context_release(ctx);
    TEST_DONE();
}
