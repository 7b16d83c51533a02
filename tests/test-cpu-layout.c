/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-cpu-layout.c -- the cpu device's layout step (backends/cpu/layout.c):
** nchw graphs whose convolutions run on oneDNN keep the values between them
** in nhwc. Each graph here (convolutions around a concat, around pools, a
** squeeze-and-excitation block, and a region of element-wise, resample,
** split, softmax and reduction nodes ending in a transpose to nhwc, a
** channel shuffle, and one of pad, slice, reverse, the normalizations and
** a reduction that drops the axes, a ResNet block with a shortcut
** convolution) must
** compute what it computes with the step off (WNN_CPU_NHWC=0) and on the
** portable kernels alone (WNN_CPU_DNNL=0), and, where oneDNN is present,
** run only the transposes at the graph's edges and no reorder (the ResNet
** block: only into and out of its blocked convolutions)
** (wnn__cpu_graph_census).
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_graph.h"
#include "core/internal.h"
#include "platform/config.h"
#include "test.h"
#include "wnn/wnn.h"

enum { C = 8, H = 12, W = 12 };

static wnn_context *ctx;
static uint32_t seed = 7;

static float frand(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
}

static wnn_operand *constant(wnn_graph_builder *b, uint32_t rank, const uint32_t *shape)
{
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, rank, {0}};
    size_t n = 1;
    for (uint32_t i = 0; i < rank; i++)
        n *= d.shape[i] = shape[i];
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = frand() * 0.5f;
    wnn_operand *c = wnn_graph_builder_constant(b, &d, v, n * sizeof *v);
    free(v);
    return c;
}

/* relu(conv2d(x)): o output channels, k x k, same padding, with a bias. */
static wnn_operand *conv(wnn_graph_builder *b, wnn_operand *x, uint32_t o, uint32_t k)
{
    wnn_operand_desc xd;
    wnn_operand_get_desc(x, &xd);
    uint32_t ws[4] = {o, xd.shape[1], k, k}, bs[1] = {o};
    wnn_conv2d_options co = WNN_CONV2D_OPTIONS_INIT;
    for (int j = 0; j < 4; j++)
        co.padding[j] = k / 2;
    co.bias = constant(b, 1, bs);
    return wnn_relu(b, wnn_conv2d(b, x, constant(b, 4, ws), &co));
}

/* conv -> concat of a 1x1 and a 3x3 branch (squeezenet's fire) -> conv */
static wnn_operand *fire(wnn_graph_builder *b, wnn_operand *x)
{
    wnn_operand *s = conv(b, x, 4, 1);
    wnn_operand *e[2] = {conv(b, s, 6, 1), conv(b, s, 6, 3)};
    return conv(b, wnn_concat(b, e, 2, 1), C, 1);
}

/* conv -> maxPool2d -> conv -> averagePool2d -> conv */
static wnn_operand *pools(wnn_graph_builder *b, wnn_operand *x)
{
    wnn_pool2d_options mp = WNN_POOL2D_OPTIONS_INIT;
    mp.window_dimensions[0] = mp.window_dimensions[1] = 3;
    mp.strides[0] = mp.strides[1] = 2;
    mp.padding[0] = mp.padding[2] = 1;
    wnn_pool2d_options ap = WNN_POOL2D_OPTIONS_INIT;
    ap.window_dimensions[0] = ap.window_dimensions[1] = 2;
    ap.padding[1] = ap.padding[3] = 1;
    wnn_operand *h = wnn_max_pool2d(b, conv(b, x, 16, 3), &mp);
    return conv(b, wnn_average_pool2d(b, conv(b, h, 16, 1), &ap), C, 3);
}

/* conv -> h * hardSigmoid(conv(relu(conv(reduceMean(h))))) -> conv */
static wnn_operand *squeeze_excite(wnn_graph_builder *b, wnn_operand *x)
{
    wnn_operand *h = conv(b, x, 16, 3);
    static const uint32_t axes[2] = {2, 3};
    wnn_reduce_options ro = WNN_REDUCE_OPTIONS_INIT;
    ro.axes = axes, ro.axes_count = 2, ro.keep_dimensions = true;
    wnn_operand *s = conv(b, conv(b, wnn_reduce_mean(b, h, &ro), 4, 1), 16, 1);
    wnn_hard_sigmoid_options hs = WNN_HARD_SIGMOID_OPTIONS_INIT;
    return conv(b, wnn_mul(b, h, wnn_hard_sigmoid(b, s, &hs)), C, 1);
}

/* conv + a [C,1,1] constant -> resample2d x2 -> clamp -> split in two along
** the channels -> a conv on each -> add -> softmax over the channels ->
** transpose to nhwc (the graph's output: it cancels the step's own) */
static wnn_operand *region(wnn_graph_builder *b, wnn_operand *x)
{
    static const uint32_t cs[3] = {16, 1, 1}, to_nhwc[4] = {0, 2, 3, 1};
    wnn_operand *h = wnn_add(b, wnn_conv2d(b, x, constant(b, 4, (uint32_t[4]){16, C, 1, 1}), NULL),
                             constant(b, 3, cs));
    wnn_resample2d_options ro = WNN_RESAMPLE2D_OPTIONS_INIT;
    ro.mode = WNN_INTERPOLATION_MODE_LINEAR;
    ro.scales[0] = ro.scales[1] = 2.0f;
    const wnn_number lo = {.value = -0.5}, hi = {.value = 0.5};
    wnn_clamp_options co = {.min_value = &lo, .max_value = &hi};
    wnn_operand *parts[2];
    wnn_split_options so = WNN_SPLIT_OPTIONS_INIT;
    so.axis = 1;
    CHECK(wnn_split(b, wnn_clamp(b, wnn_resample2d(b, h, &ro), &co), 2, &so, parts) == 2);
    wnn_operand *y = wnn_add(b, conv(b, parts[0], C, 3), conv(b, parts[1], C, 1));
    return wnn_transpose(b, wnn_softmax(b, y, 1), to_nhwc);
}

/* conv -> pad (reflection) -> slice with strides -> reverse of the width ->
** batchNormalization -> instanceNormalization -> l2Pool2d -> conv ->
** reduceSum over height and width, dropping them (the output, [1,C], comes
** out in its own layout: no transpose back) */
static wnn_operand *movement(wnn_graph_builder *b, wnn_operand *x)
{
    static const uint32_t begin[4] = {0, 0, 1, 2}, end[4] = {0, 0, 2, 1};
    static const uint32_t starts[4] = {0, 2, 1, 0}, sizes[4] = {1, 12, 13, 14}, strides[4] = {1, 1, 2, 1};
    static const uint32_t cs[1] = {12}, width[1] = {3}, axes[2] = {2, 3};
    wnn_pad_options po = WNN_PAD_OPTIONS_INIT;
    po.mode = WNN_PAD_MODE_REFLECTION;
    wnn_operand *h = wnn_slice(b, wnn_pad(b, conv(b, x, 16, 3), begin, end, &po), starts, sizes, strides);
    wnn_reverse_options rv = WNN_REVERSE_OPTIONS_INIT;
    rv.axes = width, rv.axes_count = 1;
    wnn_batch_normalization_options bo = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
    bo.scale = constant(b, 1, cs);
    wnn_operand *var = wnn_add(b, wnn_abs(b, constant(b, 1, cs)), wnn_abs(b, constant(b, 1, cs)));
    h = wnn_batch_normalization(b, wnn_reverse(b, h, &rv), constant(b, 1, cs), var, &bo);
    wnn_instance_normalization_options io = WNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
    io.bias = constant(b, 1, cs);
    wnn_pool2d_options lp = WNN_POOL2D_OPTIONS_INIT;
    lp.window_dimensions[0] = lp.window_dimensions[1] = 2;
    h = conv(b, wnn_l2_pool2d(b, wnn_instance_normalization(b, h, &io), &lp), C, 3);
    wnn_reduce_options ro = WNN_REDUCE_OPTIONS_INIT;
    ro.axes = axes, ro.axes_count = 2;
    return wnn_reduce_sum(b, h, &ro);
}

/* conv -> channel shuffle of 2 groups as ShuffleNet spells it (reshape to
** [1,2,32,H,W], transpose, reshape back) -> conv; in nhwc the shuffle stays
** one transpose, of 32 x 2 rows */
static wnn_operand *shuffle(wnn_graph_builder *b, wnn_operand *x)
{
    static const uint32_t split[5] = {1, 2, 32, H, W}, whole[4] = {1, 64, H, W}, perm[5] = {0, 2, 1, 3, 4};
    wnn_operand *h = wnn_reshape(b, conv(b, x, 64, 1), 5, split);
    return conv(b, wnn_reshape(b, wnn_transpose(b, h, perm), 4, whole), C, 3);
}

/* A ResNet stage's block with a 1x1 convolution on the shortcut, wide
** enough that its 3x3 convolutions take oneDNN's blocked layout where the
** processor has no AVX-512 (dnnl.c's blocked_pays): conv 8 -> 128 and a
** maxPool2d (so that the region runs in nhwc), t = conv 128 -> 256, and
** relu(conv(conv(t)) + conv1x1(t)). The 1x1 one follows t's blocked
** layout, so no reorder is left between them: the only ones are into the
** first blocked convolution and out of the last. */
static wnn_operand *resnet_stage(wnn_graph_builder *b, wnn_operand *x)
{
    wnn_pool2d_options mp = WNN_POOL2D_OPTIONS_INIT;
    mp.window_dimensions[0] = mp.window_dimensions[1] = 3;
    mp.padding[0] = mp.padding[1] = mp.padding[2] = mp.padding[3] = 1;
    wnn_operand *t = conv(b, wnn_max_pool2d(b, conv(b, x, 128, 3), &mp), 256, 3);
    wnn_operand *main_path = wnn_conv2d(b, conv(b, t, 256, 3), constant(b, 4, (uint32_t[4]){256, 256, 3, 3}),
                                        &(wnn_conv2d_options){.padding = {1, 1, 1, 1}});
    wnn_operand *shortcut = wnn_conv2d(b, t, constant(b, 4, (uint32_t[4]){256, 256, 1, 1}), NULL);
    return wnn_relu(b, wnn_add(b, main_path, shortcut));
}

typedef wnn_operand *(*graph_fn)(wnn_graph_builder *b, wnn_operand *x);

/* The graph's transposes and reorders a run, planned from its IR. */
static void census(graph_fn fn, uint32_t *transposes, uint32_t *reorders)
{
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 4, {1, C, H, W}};
    seed = 7;
    wnn_named_operand y = {"y", fn(b, wnn_graph_builder_input(b, "x", &d))};
    wnn__ir ir;
    CHECK_OK(wnn__ir_extract(b, &y, 1, &ir));
    wnn__cpu_graph *g = NULL;
    CHECK_OK(wnn__cpu_graph_plan(&ir, &g));
    *transposes = *reorders = UINT32_MAX;
    if (g)
        wnn__cpu_graph_census(g, transposes, reorders);
    wnn__cpu_graph_free(g);
    wnn__ir_free(&ir);
    wnn_graph_builder_release(b);
}

/* The graph's output for a fixed input, under the environment as it is. */
static float *compute(graph_fn fn, size_t *count)
{
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 4, {1, C, H, W}};
    seed = 7;
    wnn_named_operand y = {"y", fn(b, wnn_graph_builder_input(b, "x", &d))};
    wnn_operand_desc yd;
    wnn_operand_get_desc(y.operand, &yd);
    wnn_graph *g;
    CHECK_OK(wnn_graph_builder_build(b, &y, 1, &g));
    wnn_graph_builder_release(b);
    static float x[C * H * W];
    for (size_t i = 0; i < C * H * W; i++)
        x[i] = frand();
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = WNN_DATA_TYPE_FLOAT32, td.rank = 4, td.writable = td.readable = true;
    memcpy(td.shape, d.shape, sizeof td.shape[0] * 4);
    wnn_tensor *in, *out;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &in));
    td.rank = yd.rank;
    memcpy(td.shape, yd.shape, sizeof td.shape[0] * yd.rank);
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &out));
    CHECK_OK(wnn_context_write_tensor(ctx, in, x, sizeof x));
    wnn_named_tensor ins[1] = {{"x", in}}, outs[1] = {{"y", out}};
    CHECK_OK(wnn_context_dispatch(ctx, g, ins, 1, outs, 1));
    *count = 1;
    for (uint32_t i = 0; i < yd.rank; i++)
        *count *= yd.shape[i];
    float *v = malloc(*count * sizeof *v);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, out, v, *count * sizeof *v));
    wnn_tensor_release(in);
    wnn_tensor_release(out);
    wnn_graph_release(g);
    return v;
}

static void set(const char *name, const char *value)
{
    setenv(name, value, 1);
    wnn__config_reload();
}

/* Within 1e-5 of the largest result's magnitude (plus 1e-5): a sum's
** rounding error scales with its terms, which cancellation can leave far
** larger than the sum itself (the ResNet block's 2304-term sums). */
static void compare(const char *what, const char *against, const float *got, const float *want, size_t n)
{
    float top = 0;
    for (size_t i = 0; i < n; i++)
        top = fmaxf(top, fabsf(want[i]));
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= 1e-5f * (1 + top)) && bad++ < 3)
            fprintf(stderr, "%s: y[%zu] = %.7g, %s gives %.7g\n", what, i, got[i], against, want[i]);
    CHECK(bad == 0);
}

/* edges: the transposes the step leaves, the graph's input's and output's;
** reorders: the most that may be left */
static void one_graph(const char *what, graph_fn fn, uint32_t edges, uint32_t reorders)
{
    uint32_t t_off, r_off, t_on, r_on;
    set("WNN_CPU_NHWC", "0");
    census(fn, &t_off, &r_off);
    size_t n, n_off, n_portable;
    float *off = compute(fn, &n_off);
    set("WNN_CPU_DNNL", "0");
    float *portable = compute(fn, &n_portable);
    set("WNN_CPU_DNNL", "1");
    set("WNN_CPU_NHWC", "1");
    census(fn, &t_on, &r_on);
    float *on = compute(fn, &n);
    CHECK(n == n_off && n == n_portable);
    compare(what, "WNN_CPU_NHWC=0", on, off, n);
    compare(what, "WNN_CPU_DNNL=0", on, portable, n);
    if (r_off > 0) { /* oneDNN computes the convolutions */
        CHECK(r_on <= reorders);
        CHECK_EQ_INT(t_on, edges);
    } else {
        CHECK_EQ_INT(t_on, t_off);
    }
    fprintf(stderr, "%s: %u transposes and %u reorders a run, %u and %u with WNN_CPU_NHWC=0\n", what, t_on, r_on,
            t_off, r_off);
    free(on);
    free(off);
    free(portable);
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "no %s device: %s\n", o.device, wnn_last_error_message());
        return 77;
    }
    one_graph("concat", fire, 2, 0);
    one_graph("pools", pools, 2, 0);
    one_graph("squeeze-excite", squeeze_excite, 2, 0);
    one_graph("region", region, 1, 0);
    one_graph("shuffle", shuffle, 3, 0);
    one_graph("movement", movement, 1, 0);
    one_graph("resnet stage", resnet_stage, 2, 2);
    wnn_context_release(ctx);
    TEST_DONE();
}
