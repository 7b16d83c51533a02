/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-cpu-fusion.c -- conv2d chains the cpu backend may compile into one
** oneDNN primitive (conv2d, then batchNormalization, a residual add and an
** activation, each optional; the activations include the ones exporters
** spell out: x * sigmoid(x), x * clamp(x + 3, 0, 6) / 6, arithmetic with
** scalar constants), on random problems in every layout and both
** float types, against a double-precision loop in this file. The same
** graphs pass whether oneDNN is present or not (WNN_CPU_DNNL=0): the
** portable kernels compute them node by node. Last, consecutive
** convolutions whose values between them stay in oneDNN's layout,
** convTranspose2d with the same chains, and
** matmuls that fold the add of a bias row, and gelu as exporters spell it.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/gelu.h"
#include "core/half.h"
#include "core/internal.h"
#include "test.h"
#include "wnn/wnn.h"

static wnn_context *ctx;
static uint32_t seed = 14;

static uint32_t rnd(uint32_t n)
{
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
}

static float frand(void) { return (float)rnd(2001) / 1000.0f - 1.0f; }

enum {
    ACT_NONE, ACT_RELU, ACT_CLAMP, ACT_SIGMOID, ACT_TANH, ACT_LEAKY, ACT_ELU, ACT_HARD_SWISH, ACT_HARD_SIGMOID,
    ACT_SWISH,        /* mul(x, sigmoid(x)) */
    ACT_HARD_SWISH_2, /* div(mul(x, clamp(add(x, 3), 0, 6)), 6) */
    ACT_SCALAR,       /* max(sub(mul(x, 0.5), 0.25), -0.2) */
    ACT_AFFINE_HARD_SWISH, /* as PP-LCNet: add(mul(hardSwish_2(add(mul(x, 1.5), 0.25)), 0.5), 0.1);
                            * oneDNN 2.6 gets linear, relu, linear chains wrong */
    ACT_COUNT
};

static double activate(int act, double v)
{
    switch (act) {
    case ACT_RELU: return v > 0 ? v : 0;
    case ACT_CLAMP: return v < -0.5 ? -0.5 : v > 0.5 ? 0.5 : v;
    case ACT_SIGMOID: return 1 / (1 + exp(-v));
    case ACT_TANH: return tanh(v);
    case ACT_LEAKY: return v > 0 ? v : 0.1 * v;
    case ACT_ELU: return v > 0 ? v : 0.7 * (exp(v) - 1);
    case ACT_HARD_SWISH:
    case ACT_HARD_SWISH_2: return v * fmin(fmax(v + 3, 0), 6) / 6;
    case ACT_HARD_SIGMOID: return fmin(fmax(0.3 * v + 0.4, 0), 1);
    case ACT_SWISH: return v / (1 + exp(-v));
    case ACT_SCALAR: return fmax(v * 0.5 - 0.25, -0.2);
    case ACT_AFFINE_HARD_SWISH: return activate(ACT_HARD_SWISH, v * 1.5 + 0.25) * 0.5 + 0.1;
    default: return v;
    }
}

static wnn_operand *constant(wnn_graph_builder *b, bool half, uint32_t rank, const uint32_t *shape, const float *v);

static wnn_operand *scalar(wnn_graph_builder *b, bool half, float v) { return constant(b, half, 0, NULL, &v); }

static wnn_operand *apply(wnn_graph_builder *b, bool half, int act, wnn_operand *x)
{
    switch (act) {
    case ACT_RELU: return wnn_relu(b, x);
    case ACT_CLAMP: {
        const wnn_number lo = {.value = -0.5}, hi = {.value = 0.5};
        wnn_clamp_options o = {.min_value = &lo, .max_value = &hi};
        return wnn_clamp(b, x, &o);
    }
    case ACT_SIGMOID: return wnn_sigmoid(b, x);
    case ACT_TANH: return wnn_tanh(b, x);
    case ACT_LEAKY: {
        wnn_leaky_relu_options o = WNN_LEAKY_RELU_OPTIONS_INIT;
        const double alpha = 0.1;
        o.alpha = &alpha;
        return wnn_leaky_relu(b, x, &o);
    }
    case ACT_ELU: {
        wnn_elu_options o = WNN_ELU_OPTIONS_INIT;
        const double alpha = 0.7;
        o.alpha = &alpha;
        return wnn_elu(b, x, &o);
    }
    case ACT_HARD_SWISH: return wnn_hard_swish(b, x);
    case ACT_HARD_SIGMOID: {
        wnn_hard_sigmoid_options o = WNN_HARD_SIGMOID_OPTIONS_INIT;
        const double alpha = 0.3, beta = 0.4;
        o.alpha = &alpha, o.beta = &beta;
        return wnn_hard_sigmoid(b, x, &o);
    }
    case ACT_SWISH: return wnn_mul(b, x, wnn_sigmoid(b, x));
    case ACT_HARD_SWISH_2: {
        const wnn_number lo = {.value = 0}, hi = {.value = 6};
        wnn_clamp_options o = {.min_value = &lo, .max_value = &hi};
        wnn_operand *g = wnn_clamp(b, wnn_add(b, x, scalar(b, half, 3)), &o);
        return wnn_div(b, wnn_mul(b, g, x), scalar(b, half, 6));
    }
    case ACT_AFFINE_HARD_SWISH: {
        wnn_operand *a = wnn_add(b, wnn_mul(b, x, scalar(b, half, 1.5f)), scalar(b, half, 0.25f));
        a = apply(b, half, ACT_HARD_SWISH_2, a);
        return wnn_add(b, wnn_mul(b, a, scalar(b, half, 0.5f)), scalar(b, half, 0.1f));
    }
    case ACT_SCALAR:
        return wnn_max(b, wnn_sub(b, wnn_mul(b, x, scalar(b, half, 0.5f)), scalar(b, half, 0.25f)),
                       scalar(b, half, -0.2f));
    default: return x;
    }
}

/* Values as the graph sees them: rounded to float16 when it runs in it. */
static void fill(float *v, size_t n, bool half)
{
    for (size_t i = 0; i < n; i++) {
        v[i] = frand();
        if (half)
            v[i] = wnn__half_to_float(wnn__float_to_half(v[i]));
    }
}

static wnn_operand *constant(wnn_graph_builder *b, bool half, uint32_t rank, const uint32_t *shape, const float *v)
{
    wnn_operand_desc d = {half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, rank, {0}};
    size_t n = 1;
    for (uint32_t i = 0; i < rank; i++)
        n *= d.shape[i] = shape[i];
    if (!half)
        return wnn_graph_builder_constant(b, &d, v, n * 4);
    uint16_t *h = malloc(n * 2);
    for (size_t i = 0; i < n; i++)
        h[i] = wnn__float_to_half(v[i]);
    wnn_operand *c = wnn_graph_builder_constant(b, &d, h, n * 2);
    free(h);
    return c;
}

/* What follows a convolution in a case: batchNormalization, a residual add
** and an activation, each as drawn, with their per-channel values. */
typedef struct tail {
    bool half, nhwc, bn, add;
    int act;
    uint32_t channels;
    float bias[64], mean[64], var[64], scale[64], beta[64];
} tail;

static void draw_tail(tail *t, bool half, bool nhwc, uint32_t channels)
{
    t->half = half, t->nhwc = nhwc, t->channels = channels;
    t->bn = rnd(2), t->add = rnd(2);
    t->act = (int)rnd(ACT_COUNT);
    fill(t->bias, channels, half);
    fill(t->mean, channels, half);
    fill(t->var, channels, half);
    fill(t->scale, channels, half);
    fill(t->beta, channels, half);
    for (uint32_t o = 0; o < channels; o++)
        t->var[o] = t->var[o] < 0 ? -t->var[o] + 0.25f : t->var[o] + 0.25f; /* exact in float16 too */
}

/* The tail's nodes after h (r: the residual input). */
static wnn_operand *build_tail(wnn_graph_builder *b, const tail *t, wnn_operand *h, wnn_operand *r)
{
    const uint32_t *O = &t->channels;
    if (t->bn) {
        wnn_batch_normalization_options bo = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
        const uint32_t channel_axis = t->nhwc ? 3 : 1;
        bo.axis = &channel_axis;
        bo.scale = constant(b, t->half, 1, O, t->scale);
        bo.bias = constant(b, t->half, 1, O, t->beta);
        h = wnn_batch_normalization(b, h, constant(b, t->half, 1, O, t->mean), constant(b, t->half, 1, O, t->var),
                                    &bo);
    }
    if (t->add)
        h = rnd(2) ? wnn_add(b, h, r) : wnn_add(b, r, h);
    return apply(b, t->half, t->act, h);
}

/* The tail applied to acc, a convolution's output at channel o (res: the
** residual's element there), in double; *mag grows by the magnitudes
** summed, for the tolerance. */
static double tail_of(const tail *t, uint32_t o, double acc, double res, double *mag)
{
    if (t->bn) {
        double s = t->scale[o] / sqrt(t->var[o] + 1e-5);
        acc = (acc - t->mean[o]) * s + t->beta[o];
        *mag = *mag * fabs(s) + fabs(t->mean[o] * s) + fabs(t->beta[o]);
    }
    if (t->add)
        acc += res, *mag += fabs(res);
    return activate(t->act, acc);
}

/* v (n, c, h, w in nchw order) written to t in the graph's layout and type. */
static void write_layout(wnn_tensor *t, const float *v, uint32_t n, uint32_t c, uint32_t h, uint32_t w, bool nhwc,
                         bool half)
{
    size_t count = (size_t)n * c * h * w;
    float *l = malloc(count * 4);
    uint16_t *lh = malloc(count * 2);
    for (size_t q = 0; q < count; q++) {
        size_t b = q / ((size_t)c * h * w), r = q % ((size_t)c * h * w), ch = r / ((size_t)h * w), p = r % ((size_t)h * w);
        size_t to = nhwc ? (b * h * w + p) * c + ch : q;
        l[to] = v[q];
        lh[to] = wnn__float_to_half(v[q]);
    }
    CHECK_OK(wnn_context_write_tensor(ctx, t, half ? (void *)lh : l, count * (half ? 2 : 4)));
    free(l);
    free(lh);
}

/* A case's shapes: input n, c, h, w; output channels and size. */
typedef struct dims {
    uint32_t n, c, h, w, o, oh, ow;
} dims;

/* Builds the graph that ends in h (b is released), runs it on x and res,
** written in the graph's layout and type, and reads its result into got
** as float32, in the graph's layout. */
static void run_case(wnn_graph_builder *b, wnn_operand *h, const tail *t, const dims *d, const float *x,
                     const float *res, float *got)
{
    CHECK(h != NULL);
    wnn_named_operand named = {"y", h};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, &named, 1, &g));
    wnn_graph_builder_release(b);
    bool nhwc = t->nhwc, half = t->half;
    uint32_t xs[4] = {d->n, nhwc ? d->h : d->c, nhwc ? d->w : d->h, nhwc ? d->c : d->w};
    uint32_t ys[4] = {d->n, nhwc ? d->oh : d->o, nhwc ? d->ow : d->oh, nhwc ? d->o : d->ow};
    size_t ny = (size_t)d->n * d->o * d->oh * d->ow;
    wnn_tensor *tt[3] = {NULL, NULL, NULL};
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, td.rank = 4;
    td.writable = true, td.readable = true;
    const uint32_t *shapes[3] = {xs, ys, ys};
    for (int i = 0; i < 3; i++) {
        memcpy(td.shape, shapes[i], sizeof xs);
        CHECK_OK(wnn_context_create_tensor(ctx, &td, &tt[i]));
    }
    write_layout(tt[0], x, d->n, d->c, d->h, d->w, nhwc, half);
    write_layout(tt[1], res, d->n, d->o, d->oh, d->ow, nhwc, half);
    wnn_named_tensor ins[2] = {{"x", tt[0]}, {"r", tt[1]}}, outs[1] = {{"y", tt[2]}};
    CHECK_OK(wnn_context_dispatch(ctx, g, ins, t->add ? 2 : 1, outs, 1));
    uint16_t *gh = malloc(ny * 2);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, tt[2], half ? (void *)gh : got, ny * (half ? 2 : 4)));
    if (half)
        for (size_t q = 0; q < ny; q++)
            got[q] = wnn__half_to_float(gh[q]);
    free(gh);
    for (int i = 0; i < 3; i++)
        wnn_tensor_release(tt[i]);
    wnn_graph_release(g);
}

static void one_case(int k)
{
    bool half = rnd(3) == 0, nhwc = rnd(2);
    uint32_t groups = rnd(3) == 0 ? 1 + rnd(3) : 1;
    uint32_t cg_in = 1 + rnd(5), cg_out = 1 + rnd(5);
    if (rnd(4) == 0) /* depthwise */
        cg_in = cg_out = 1, groups = 2 + rnd(7);
    uint32_t N = 1 + rnd(2), C = groups * cg_in, O = groups * cg_out, H = 3 + rnd(9), W = 3 + rnd(9);
    uint32_t kh = 1 + rnd(3), kw = 1 + rnd(3), sy = 1 + rnd(2), sx = 1 + rnd(2), dy = 1 + rnd(2), dx = 1 + rnd(2);
    uint32_t pad[4] = {rnd(2), rnd(2), rnd(2), rnd(2)};
    uint32_t layout = rnd(4); /* oihw, hwio, ohwi, ihwo */
    if ((H + pad[0] + pad[1]) < (kh - 1) * dy + 1 || (W + pad[2] + pad[3]) < (kw - 1) * dx + 1)
        dy = dx = 1, pad[0] = pad[1] = pad[2] = pad[3] = 1;
    uint32_t OH = (H + pad[0] + pad[1] - ((kh - 1) * dy + 1)) / sy + 1;
    uint32_t OW = (W + pad[2] + pad[3] - ((kw - 1) * dx + 1)) / sx + 1;

    size_t nx = (size_t)N * C * H * W, nw = (size_t)O * cg_in * kh * kw, ny = (size_t)N * O * OH * OW;
    float *x = malloc(nx * 4), *w = malloc(nw * 4), *res = malloc(ny * 4), *got = malloc(ny * 4);
    tail t;
    draw_tail(&t, half, nhwc, O);
    fill(x, nx, half);
    fill(w, nw, half);
    fill(res, ny, half);
    /* x and res in the graph's layout; w in oihw, written out in `layout` */
    uint32_t fo[4][4] = {{O, cg_in, kh, kw}, {kh, kw, cg_in, O}, {O, kh, kw, cg_in}, {cg_in, kh, kw, O}};
    float *wl = malloc(nw * 4);
    for (uint32_t o = 0; o < O; o++)
        for (uint32_t i = 0; i < cg_in; i++)
            for (uint32_t y = 0; y < kh; y++)
                for (uint32_t z = 0; z < kw; z++) {
                    size_t at[4] = {((o * cg_in + i) * kh + y) * kw + z, ((y * kw + z) * cg_in + i) * O + o,
                                    ((o * kh + y) * kw + z) * cg_in + i, ((i * kh + y) * kw + z) * O + o};
                    wl[at[layout]] = w[((o * cg_in + i) * kh + y) * kw + z];
                }

    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    uint32_t xs[4] = {N, nhwc ? H : C, nhwc ? W : H, nhwc ? C : W}, ys[4] = {N, nhwc ? OH : O, nhwc ? OW : OH, nhwc ? O : OW};
    wnn_operand_desc xd = {half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, 4, {xs[0], xs[1], xs[2], xs[3]}};
    wnn_operand_desc rd = xd;
    memcpy(rd.shape, ys, sizeof ys);
    wnn_operand *xo = wnn_graph_builder_input(b, "x", &xd), *ro = wnn_graph_builder_input(b, "r", &rd);
    wnn_conv2d_options co = WNN_CONV2D_OPTIONS_INIT;
    memcpy(co.padding, pad, sizeof pad);
    co.strides[0] = sy, co.strides[1] = sx, co.dilations[0] = dy, co.dilations[1] = dx, co.groups = groups;
    co.input_layout = nhwc ? WNN_INPUT_LAYOUT_NHWC : WNN_INPUT_LAYOUT_NCHW;
    co.filter_layout = (wnn_conv2d_filter_layout)layout;
    co.bias = constant(b, half, 1, &O, t.bias);
    wnn_operand *h = build_tail(b, &t, wnn_conv2d(b, xo, constant(b, half, 4, fo[layout], wl), &co), ro);
    const dims d = {N, C, H, W, O, OH, OW};
    run_case(b, h, &t, &d, x, res, got);

    int bad = 0;
    for (uint32_t n = 0; n < N; n++)
        for (uint32_t o = 0; o < O; o++)
            for (uint32_t oy = 0; oy < OH; oy++)
                for (uint32_t ox = 0; ox < OW; ox++) {
                    uint32_t gi = o / cg_out;
                    double acc = t.bias[o], mag = fabs(t.bias[o]);
                    for (uint32_t i = 0; i < cg_in; i++)
                        for (uint32_t y = 0; y < kh; y++)
                            for (uint32_t z = 0; z < kw; z++) {
                                long iy = (long)(oy * sy + y * dy) - pad[0], ix = (long)(ox * sx + z * dx) - pad[2];
                                if (iy < 0 || ix < 0 || iy >= (long)H || ix >= (long)W)
                                    continue;
                                double p = (double)x[((size_t)(n * C + gi * cg_in + i) * H + iy) * W + ix] *
                                           w[((o * cg_in + i) * kh + y) * kw + z];
                                acc += p;
                                mag += fabs(p);
                            }
                    size_t q = ((size_t)(n * O + o) * OH + oy) * OW + ox;
                    double want = tail_of(&t, o, acc, res[q], &mag);
                    size_t at = nhwc ? ((size_t)(n * OH + oy) * OW + ox) * O + o : q;
                    double tol = (half ? 1e-2 : 1e-5) * (mag + 1);
                    if (!(fabs(got[at] - want) <= tol) && bad++ < 3)
                        fprintf(stderr, "case %d (half %d nhwc %d groups %u layout %u bn %d add %d act %d): "
                                        "y[%zu] = %.7g, want %.7g\n",
                                k, half, nhwc, groups, layout, t.bn, t.add, t.act, at, got[at], want);
                }
    CHECK(bad == 0);
    free(x), free(w), free(wl), free(res), free(got);
}

/* convTranspose2d with the same chains (oneDNN's deconvolution where it is
** loaded): random groups, strides, dilations, padding, output padding and
** filter layouts, against a double loop. */
static void transposed_case(int k)
{
    bool half = rnd(3) == 0, nhwc = rnd(2);
    uint32_t groups = rnd(3) == 0 ? 1 + rnd(3) : 1;
    uint32_t cg_in = 1 + rnd(5), cg_out = rnd(3) ? 8 + rnd(5) : 1 + rnd(7); /* oneDNN takes 8 or more */
    if (rnd(5) == 0) /* depthwise */
        cg_in = cg_out = 1, groups = 2 + rnd(7);
    uint32_t N = 1 + rnd(2), C = groups * cg_in, O = groups * cg_out, H = 2 + rnd(8), W = 2 + rnd(8);
    uint32_t kh = 1 + rnd(4), kw = 1 + rnd(4), sy = 1 + rnd(3), sx = 1 + rnd(3), dy = 1 + rnd(2), dx = 1 + rnd(2);
    uint32_t pad[4] = {rnd(3), rnd(3), rnd(3), rnd(3)}, opad[2] = {rnd(sy), rnd(sx)};
    uint32_t layout = rnd(3); /* iohw, hwoi, ohwi */
    long fh = (long)(H - 1) * sy + (kh - 1) * dy + 1, fw = (long)(W - 1) * sx + (kw - 1) * dx + 1;
    if (fh - pad[0] - pad[1] < 1 || fw - pad[2] - pad[3] < 1)
        pad[0] = pad[1] = pad[2] = pad[3] = 0;
    uint32_t OH = (uint32_t)(fh - pad[0] - pad[1]) + opad[0], OW = (uint32_t)(fw - pad[2] - pad[3]) + opad[1];

    size_t nx = (size_t)N * C * H * W, nw = (size_t)C * cg_out * kh * kw, ny = (size_t)N * O * OH * OW;
    float *x = malloc(nx * 4), *w = malloc(nw * 4), *res = malloc(ny * 4), *got = malloc(ny * 4);
    tail t;
    draw_tail(&t, half, nhwc, O);
    fill(x, nx, half);
    fill(w, nw, half);
    fill(res, ny, half);
    /* w in iohw ([C][cg_out][kh][kw]), written out in `layout` */
    uint32_t fo[3][4] = {{C, cg_out, kh, kw}, {kh, kw, cg_out, C}, {cg_out, kh, kw, C}};
    float *wl = malloc(nw * 4);
    for (uint32_t i = 0; i < C; i++)
        for (uint32_t o = 0; o < cg_out; o++)
            for (uint32_t y = 0; y < kh; y++)
                for (uint32_t z = 0; z < kw; z++) {
                    size_t at[3] = {((i * cg_out + o) * kh + y) * kw + z, ((y * kw + z) * cg_out + o) * C + i,
                                    ((o * kh + y) * kw + z) * C + i};
                    wl[at[layout]] = w[((i * cg_out + o) * kh + y) * kw + z];
                }

    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    uint32_t xs[4] = {N, nhwc ? H : C, nhwc ? W : H, nhwc ? C : W}, ys[4] = {N, nhwc ? OH : O, nhwc ? OW : OH, nhwc ? O : OW};
    wnn_operand_desc xd = {half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, 4, {xs[0], xs[1], xs[2], xs[3]}};
    wnn_operand_desc rd = xd;
    memcpy(rd.shape, ys, sizeof ys);
    wnn_operand *xo = wnn_graph_builder_input(b, "x", &xd), *ro = wnn_graph_builder_input(b, "r", &rd);
    wnn_conv_transpose2d_options co = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
    memcpy(co.padding, pad, sizeof pad);
    co.strides[0] = sy, co.strides[1] = sx, co.dilations[0] = dy, co.dilations[1] = dx, co.groups = groups;
    if (rnd(2))
        co.output_padding[0] = opad[0], co.output_padding[1] = opad[1];
    else
        co.output_sizes[0] = OH, co.output_sizes[1] = OW;
    co.input_layout = nhwc ? WNN_INPUT_LAYOUT_NHWC : WNN_INPUT_LAYOUT_NCHW;
    co.filter_layout = (wnn_conv_transpose2d_filter_layout)layout;
    if (rnd(4) != 0)
        co.bias = constant(b, half, 1, &O, t.bias);
    else
        memset(t.bias, 0, sizeof t.bias);
    wnn_operand *h = build_tail(b, &t, wnn_conv_transpose2d(b, xo, constant(b, half, 4, fo[layout], wl), &co), ro);
    const dims d = {N, C, H, W, O, OH, OW};
    run_case(b, h, &t, &d, x, res, got);

    int bad = 0;
    for (uint32_t n = 0; n < N; n++)
        for (uint32_t o = 0; o < O; o++)
            for (uint32_t oy = 0; oy < OH; oy++)
                for (uint32_t ox = 0; ox < OW; ox++) {
                    uint32_t gi = o / cg_out, og = o % cg_out;
                    double acc = t.bias[o], mag = fabs(t.bias[o]);
                    for (uint32_t i = 0; i < cg_in; i++)
                        for (uint32_t y = 0; y < kh; y++)
                            for (uint32_t z = 0; z < kw; z++) {
                                long ty = (long)oy + pad[0] - (long)(y * dy), tx = (long)ox + pad[2] - (long)(z * dx);
                                if (ty < 0 || tx < 0 || ty % sy || tx % sx || ty / sy >= H || tx / sx >= W)
                                    continue;
                                uint32_t ic = gi * cg_in + i;
                                double p = (double)x[((size_t)(n * C + ic) * H + ty / sy) * W + tx / sx] *
                                           w[((ic * cg_out + og) * kh + y) * kw + z];
                                acc += p;
                                mag += fabs(p);
                            }
                    size_t q = ((size_t)(n * O + o) * OH + oy) * OW + ox;
                    double want = tail_of(&t, o, acc, res[q], &mag);
                    size_t at = nhwc ? ((size_t)(n * OH + oy) * OW + ox) * O + o : q;
                    double tol = (half ? 1e-2 : 1e-5) * (mag + 1);
                    if (!(fabs(got[at] - want) <= tol) && bad++ < 3)
                        fprintf(stderr,
                                "transposed case %d (half %d nhwc %d groups %u layout %u stride %u,%u dilation %u,%u "
                                "pad %u,%u,%u,%u out %ux%u bn %d add %d act %d): y[%zu] = %.7g, want %.7g\n",
                                k, half, nhwc, groups, layout, sy, sx, dy, dx, pad[0], pad[1], pad[2], pad[3], OH, OW,
                                t.bn, t.add, t.act, at, got[at], want);
                }
    CHECK(bad == 0);
    free(x), free(w), free(wl), free(res), free(got);
}

/* conv(x, w, groups, pad) [+ res] -> relu, in nchw float32. */
static wnn_operand *conv_relu(wnn_graph_builder *b, wnn_operand *x, const float *w, uint32_t o, uint32_t i,
                              uint32_t k, uint32_t groups, wnn_operand *res)
{
    uint32_t ws[4] = {o, i, k, k};
    wnn_conv2d_options co = WNN_CONV2D_OPTIONS_INIT;
    co.groups = groups;
    for (int j = 0; j < 4; j++)
        co.padding[j] = k / 2;
    wnn_operand *h = wnn_conv2d(b, x, constant(b, false, 4, ws, w), &co);
    return wnn_relu(b, res ? wnn_add(b, h, res) : h);
}

static void run_graph(wnn_graph *g, wnn_tensor *const *in, const char *const *names, uint32_t n_in, wnn_tensor *out)
{
    wnn_named_tensor ins[2], outs[1] = {{"y", out}};
    for (uint32_t i = 0; i < n_in; i++)
        ins[i] = (wnn_named_tensor){names[i], in[i]};
    CHECK_OK(wnn_context_dispatch(ctx, g, ins, n_in, outs, 1));
}

/* Three convolutions in a row, the second adding the first's result: the
** values between them stay in oneDNN's blocked layout (wnn__dnnl_link), one
** read twice (source and sum). The same convolutions as three graphs, whose
** inputs and outputs are plain, must give the same numbers. */
static void linked_layouts(void)
{
    enum { C = 16, H = 9, W = 11 };
    static float x[C * H * W], w1[C * C * 9], w2[C * C], w3[C * 9], got[C * H * W], want[C * H * W];
    fill(x, C * H * W, false);
    fill(w1, C * C * 9, false);
    fill(w2, C * C, false);
    fill(w3, C * 9, false);
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 4, {1, C, H, W}};
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = WNN_DATA_TYPE_FLOAT32, td.rank = 4, td.writable = td.readable = true;
    memcpy(td.shape, d.shape, sizeof d.shape[0] * 4);
    wnn_tensor *t[4];
    for (int i = 0; i < 4; i++)
        CHECK_OK(wnn_context_create_tensor(ctx, &td, &t[i]));
    CHECK_OK(wnn_context_write_tensor(ctx, t[0], x, sizeof x));

    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand *h1 = conv_relu(b, wnn_graph_builder_input(b, "x", &d), w1, C, C, 3, 1, NULL);
    wnn_operand *h3 = conv_relu(b, conv_relu(b, h1, w2, C, C, 1, 1, h1), w3, C, 1, 3, C, NULL);
    wnn_named_operand named = {"y", h3};
    wnn_graph *whole;
    CHECK_OK(wnn_graph_builder_build(b, &named, 1, &whole));
    wnn_graph_builder_release(b);
    static const char *const names[2] = {"x", "r"};
    run_graph(whole, t, names, 1, t[3]);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t[3], got, sizeof got));

    wnn_graph *part[3];
    for (int k = 0; k < 3; k++) {
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        wnn_operand *in = wnn_graph_builder_input(b, "x", &d);
        wnn_operand *h = k == 0 ? conv_relu(b, in, w1, C, C, 3, 1, NULL)
                         : k == 1 ? conv_relu(b, in, w2, C, C, 1, 1, wnn_graph_builder_input(b, "r", &d))
                                  : conv_relu(b, in, w3, C, 1, 3, C, NULL);
        named.operand = h;
        CHECK_OK(wnn_graph_builder_build(b, &named, 1, &part[k]));
        wnn_graph_builder_release(b);
    }
    wnn_tensor *a1[2] = {t[0]}, *a2[2] = {t[1], t[1]}, *a3[2] = {t[2]};
    run_graph(part[0], a1, names, 1, t[1]);
    run_graph(part[1], a2, names, 2, t[2]);
    run_graph(part[2], a3, names, 1, t[3]);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t[3], want, sizeof want));
    int bad = 0;
    for (size_t q = 0; q < C * H * W; q++)
        if (!(fabsf(got[q] - want[q]) <= 1e-5f * (1 + fabsf(want[q]))) && bad++ < 3)
            fprintf(stderr, "linked layouts: y[%zu] = %.7g, want %.7g\n", q, got[q], want[q]);
    CHECK(bad == 0);
    for (int k = 0; k < 3; k++)
        wnn_graph_release(part[k]);
    wnn_graph_release(whole);
    for (int i = 0; i < 4; i++)
        wnn_tensor_release(t[i]);
}

/* matmul then add of a constant: a row of N (any leading 1s) folds into the
** matmul (cpu_graph.c's fuse_matmul_bias), a column [M, 1] does not; both
** against a double loop, batched and with a single row (the gemv path). */
static void matmul_bias(uint32_t batch, uint32_t m, uint32_t k, uint32_t n, bool column)
{
    size_t na = (size_t)batch * m * k, ny = (size_t)batch * m * n;
    float *a = malloc(na * 4), *w = malloc((size_t)k * n * 4), *bias = malloc(64 * 4), *got = malloc(ny * 4);
    fill(a, na, false);
    fill(w, (size_t)k * n, false);
    fill(bias, 64, false);
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc ad = {WNN_DATA_TYPE_FLOAT32, 3, {batch, m, k}};
    uint32_t ws[2] = {k, n}, bs[2] = {column ? m : 1, column ? 1 : n};
    wnn_operand *y = wnn_matmul(b, wnn_graph_builder_input(b, "a", &ad), constant(b, false, 2, ws, w));
    y = wnn_add(b, constant(b, false, 2, bs, bias), y);
    wnn_named_operand named = {"y", wnn_relu(b, y)};
    wnn_graph *g;
    CHECK_OK(wnn_graph_builder_build(b, &named, 1, &g));
    wnn_graph_builder_release(b);
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = WNN_DATA_TYPE_FLOAT32, td.rank = 3, td.writable = td.readable = true;
    wnn_tensor *t[2];
    memcpy(td.shape, ad.shape, 3 * sizeof ad.shape[0]);
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &t[0]));
    td.shape[2] = n;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &t[1]));
    CHECK_OK(wnn_context_write_tensor(ctx, t[0], a, na * 4));
    wnn_named_tensor ins[1] = {{"a", t[0]}}, outs[1] = {{"y", t[1]}};
    CHECK_OK(wnn_context_dispatch(ctx, g, ins, 1, outs, 1));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t[1], got, ny * 4));
    int bad = 0;
    for (uint32_t q = 0; q < batch; q++)
        for (uint32_t i = 0; i < m; i++)
            for (uint32_t j = 0; j < n; j++) {
                double acc = column ? bias[i] : bias[j], mag = fabs(acc);
                for (uint32_t p = 0; p < k; p++) {
                    double v = (double)a[((size_t)q * m + i) * k + p] * w[(size_t)p * n + j];
                    acc += v;
                    mag += fabs(v);
                }
                double want = acc > 0 ? acc : 0;
                float have = got[((size_t)q * m + i) * n + j];
                if (!(fabs(have - want) <= 1e-5 * (mag + 1)) && bad++ < 3)
                    fprintf(stderr, "matmul_bias(%u, %u, %u, %u, column %d): y[%u][%u][%u] = %.7g, want %.7g\n", batch,
                            m, k, n, column, q, i, j, have, want);
            }
    CHECK(bad == 0);
    wnn_tensor_release(t[0]);
    wnn_tensor_release(t[1]);
    wnn_graph_release(g);
    free(a), free(w), free(bias), free(got);
}

/* gelu spelled out as exporters write it, x * 0.5 * (1 + erf(x / sqrt(2))),
** which the cpu device runs as one gelu kernel (backends/gelu.c): in each of its
** forms (div or mul by 1/sqrt(2); the product associated three ways), in
** float32 and float16, followed by a node that reads x again after the chain
** (in the form where x's last reader is inside the chain, none: x must
** outlive it); and two chains that must not fuse: a factor of 0.6
** in place of 0.5, and an intermediate that is also a graph output. Each
** against the formula in double. */
static void erf_gelu(int form, bool half, bool broken)
{
    enum { N = 3000 };
    static float x[N];
    fill(x, N, half);
    for (size_t i = 0; i < N; i++)
        x[i] *= 4.0f;
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, 1, {N}};
    wnn_operand *in = wnn_graph_builder_input(b, "x", &d);
    double factor = broken && form == 0 ? 0.6 : 0.5;
    wnn_operand *s = form == 1 ? wnn_mul(b, scalar(b, half, 0.70710678f), in) : wnn_div(b, in, scalar(b, half, 1.41421356f));
    wnn_operand *e = wnn_erf(b, s);
    wnn_operand *a = wnn_add(b, scalar(b, half, 1.0f), e);
    wnn_operand *y;
    if (form == 0 || form == 1)
        y = wnn_mul(b, wnn_mul(b, in, a), scalar(b, half, (float)factor));
    else if (form == 2)
        y = wnn_mul(b, wnn_mul(b, a, scalar(b, half, 0.5f)), in);
    else
        y = wnn_mul(b, wnn_mul(b, scalar(b, half, 0.5f), in), a);
    if (form != 3) /* x read after the chain; in form 3 it is read last before its end */
        y = wnn_add(b, y, in);
    wnn_named_operand named[2] = {{"y", y}, {"e", e}};
    uint32_t n_out = broken && form != 0 ? 2 : 1;
    /* the chain is found (float16's constants are rounded: its sqrt(2) is
    ** 1.4140625), or not when broken */
    wnn__ir ir;
    CHECK_OK(wnn__ir_extract(b, named, n_out, &ir));
    int32_t *output_of = malloc(ir.n_values * sizeof *output_of);
    bool *taken = calloc(ir.n_nodes, sizeof *taken);
    uint32_t *gelu_of = malloc(ir.n_nodes * sizeof *gelu_of), found = 0;
    for (uint32_t v = 0; v < ir.n_values; v++)
        output_of[v] = -1;
    for (uint32_t i = 0; i < ir.n_outputs; i++)
        output_of[ir.output_values[i]] = (int32_t)i;
    for (uint32_t n = 0; n < ir.n_nodes; n++)
        gelu_of[n] = WNN__NONE;
    wnn__gelu_find(&ir, output_of, taken, gelu_of, NULL);
    for (uint32_t n = 0; n < ir.n_nodes; n++)
        found += gelu_of[n] != WNN__NONE;
    if (found != (broken ? 0u : 1u))
        fprintf(stderr, "erf gelu form %d%s%s: %u chains found\n", form, half ? " f16" : "", broken ? " broken" : "",
                found);
    CHECK(found == (broken ? 0u : 1u));
    free(output_of), free(taken), free(gelu_of);
    wnn__ir_free(&ir);
    wnn_graph *g;
    CHECK_OK(wnn_graph_builder_build(b, named, n_out, &g));
    wnn_graph_builder_release(b);
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = d.data_type, td.rank = 1, td.shape[0] = N, td.writable = td.readable = true;
    wnn_tensor *t[3];
    for (int i = 0; i < 3; i++)
        CHECK_OK(wnn_context_create_tensor(ctx, &td, &t[i]));
    static uint16_t h[N];
    for (size_t i = 0; i < N; i++)
        h[i] = wnn__float_to_half(x[i]);
    CHECK_OK(wnn_context_write_tensor(ctx, t[0], half ? (const void *)h : (const void *)x, half ? N * 2 : N * 4));
    wnn_named_tensor ins[1] = {{"x", t[0]}}, outs[2] = {{"y", t[1]}, {"e", t[2]}};
    CHECK_OK(wnn_context_dispatch(ctx, g, ins, 1, outs, n_out));
    static float got[N], got_e[N];
    if (half) {
        CHECK_OK(wnn_context_read_tensor_sync(ctx, t[1], h, N * 2));
        for (size_t i = 0; i < N; i++)
            got[i] = wnn__half_to_float(h[i]);
        if (n_out == 2) {
            CHECK_OK(wnn_context_read_tensor_sync(ctx, t[2], h, N * 2));
            for (size_t i = 0; i < N; i++)
                got_e[i] = wnn__half_to_float(h[i]);
        }
    } else {
        CHECK_OK(wnn_context_read_tensor_sync(ctx, t[1], got, sizeof got));
        if (n_out == 2)
            CHECK_OK(wnn_context_read_tensor_sync(ctx, t[2], got_e, sizeof got_e));
    }
    int bad = 0;
    double tol = half ? 4e-3 : 2e-6;
    for (size_t i = 0; i < N; i++) {
        double want = x[i] * factor * (1.0 + erf(x[i] / sqrt(2.0))) + (form != 3 ? x[i] : 0.0);
        if (!(fabs(got[i] - want) <= tol * (1.0 + fabs(want))) && bad++ < 3)
            fprintf(stderr, "erf gelu form %d%s%s: y[%zu] = %.7g, want %.7g\n", form, half ? " f16" : "",
                    broken ? " broken" : "", i, got[i], want);
        double we = erf(x[i] / sqrt(2.0));
        if (n_out == 2 && !(fabs(got_e[i] - we) <= tol * 2) && bad++ < 3)
            fprintf(stderr, "erf gelu form %d: e[%zu] = %.7g, want %.7g\n", form, i, got_e[i], we);
    }
    CHECK(bad == 0);
    for (int i = 0; i < 3; i++)
        wnn_tensor_release(t[i]);
    wnn_graph_release(g);
}

/* Reshapes of computed values are views of their source's bytes
** (cpu_graph.c's alias_reshapes): a reshape of a reshape, the source read
** again after both, other values computed while the views are alive (so a
** freed block would be reused), and a reshape that is a graph output (a
** copy). Against the same arithmetic in double. */
static void reshape_views(void)
{
    enum { N = 480 };
    static float x[N], got[N], got2[N];
    fill(x, N, false);
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 3, {4, 10, 12}};
    wnn_operand *in = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *h = wnn_relu(b, in);
    const uint32_t s2[2] = {40, 12}, s1[1] = {N}, s3[3] = {4, 10, 12};
    wnn_operand *r = wnn_reshape(b, h, 2, s2); /* an output: a copy, made before the rest */
    wnn_operand *r2 = wnn_reshape(b, wnn_reshape(b, h, 2, s2), 1, s1);
    wnn_operand *t = wnn_exp(b, wnn_neg(b, r2));        /* computed while r2 views h */
    wnn_operand *u = wnn_add(b, wnn_reshape(b, t, 3, s3), h); /* h read after the views */
    /* neg(u) is computed after h's last direct reader, into a freed block */
    wnn_operand *y = wnn_reshape(b, wnn_mul(b, wnn_neg(b, u), wnn_reshape(b, r2, 3, s3)), 1, s1);
    wnn_named_operand named[2] = {{"y", y}, {"r", r}};
    wnn_graph *g;
    CHECK_OK(wnn_graph_builder_build(b, named, 2, &g));
    wnn_graph_builder_release(b);
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = WNN_DATA_TYPE_FLOAT32, td.writable = td.readable = true;
    td.rank = 3, td.shape[0] = 4, td.shape[1] = 10, td.shape[2] = 12;
    wnn_tensor *tx, *ty, *tr;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &tx));
    td.rank = 1, td.shape[0] = N;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &ty));
    td.rank = 2, td.shape[0] = 40, td.shape[1] = 12;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &tr));
    CHECK_OK(wnn_context_write_tensor(ctx, tx, x, sizeof x));
    wnn_named_tensor ins[1] = {{"x", tx}}, outs[2] = {{"y", ty}, {"r", tr}};
    for (int run = 0; run < 2; run++)
        CHECK_OK(wnn_context_dispatch(ctx, g, ins, 1, outs, 2));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, ty, got, sizeof got));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, tr, got2, sizeof got2));
    int bad = 0;
    for (size_t i = 0; i < N; i++) {
        double hv = x[i] > 0 ? x[i] : 0.0, want = -(exp(-hv) + hv) * hv;
        if (!(fabs(got[i] - want) <= 1e-6 * (1 + fabs(want)) && got2[i] == (float)hv) && bad++ < 3)
            fprintf(stderr, "reshape views: y[%zu] = %.7g, want %.7g; r = %.7g, want %.7g\n", i, got[i], want,
                    got2[i], hv);
    }
    CHECK(bad == 0);
    wnn_tensor_release(tx);
    wnn_tensor_release(ty);
    wnn_tensor_release(tr);
    wnn_graph_release(g);
}

/* A transpose that only moves dimensions of 1 ([4, 1, 12] -> [1, 4, 12])
** is a view of its input's bytes, like a reshape: computed values read
** through it while the source is read again after, and one that moves real
** dimensions beside it (a copy), against the arithmetic in double. */
static void transpose_views(void)
{
    enum { N = 48 };
    static float x[N], got[N], got2[N];
    fill(x, N, false);
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 3, {4, 1, 12}};
    wnn_operand *in = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *h = wnn_relu(b, in);
    static const uint32_t swap01[3] = {1, 0, 2}, reverse[3] = {2, 1, 0};
    wnn_operand *t = wnn_exp(b, wnn_neg(b, wnn_transpose(b, h, swap01))); /* [1, 4, 12], read through the view */
    wnn_operand *y = wnn_add(b, wnn_transpose(b, t, swap01), h);           /* h read after */
    wnn_operand *r = wnn_neg(b, wnn_transpose(b, h, reverse));            /* [12, 1, 4]: a copy */
    wnn_named_operand named[2] = {{"y", y}, {"r", r}};
    wnn_graph *g;
    CHECK_OK(wnn_graph_builder_build(b, named, 2, &g));
    wnn_graph_builder_release(b);
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = WNN_DATA_TYPE_FLOAT32, td.writable = td.readable = true;
    td.rank = 3, td.shape[0] = 4, td.shape[1] = 1, td.shape[2] = 12;
    wnn_tensor *tx, *ty, *tr;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &tx));
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &ty));
    td.shape[0] = 12, td.shape[2] = 4;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &tr));
    CHECK_OK(wnn_context_write_tensor(ctx, tx, x, sizeof x));
    wnn_named_tensor ins[1] = {{"x", tx}}, outs[2] = {{"y", ty}, {"r", tr}};
    for (int run = 0; run < 2; run++)
        CHECK_OK(wnn_context_dispatch(ctx, g, ins, 1, outs, 2));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, ty, got, sizeof got));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, tr, got2, sizeof got2));
    int bad = 0;
    for (size_t i = 0; i < N; i++) {
        double hv = x[i] > 0 ? x[i] : 0.0, want = exp(-hv) + hv;
        size_t row = i / 12, col = i % 12; /* r[col][0][row] */
        if (!(fabs(got[i] - want) <= 1e-6 * (1 + fabs(want)) && got2[col * 4 + row] == (float)-hv) && bad++ < 3)
            fprintf(stderr, "transpose views: y[%zu] = %.7g, want %.7g; r = %.7g, want %.7g\n", i, got[i], want,
                    got2[col * 4 + row], -hv);
    }
    CHECK(bad == 0);
    wnn_tensor_release(tx);
    wnn_tensor_release(ty);
    wnn_tensor_release(tr);
    wnn_graph_release(g);
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "no %s device: %s\n", o.device, wnn_last_error_message());
        return 77;
    }
    for (int k = 0; k < 200; k++)
        one_case(k);
    for (int k = 0; k < 200; k++)
        transposed_case(k);
    linked_layouts();
    matmul_bias(2, 5, 7, 9, false);
    matmul_bias(1, 1, 40, 33, false);
    matmul_bias(3, 40, 64, 48, false);
    matmul_bias(2, 5, 7, 9, true);
    for (int form = 0; form < 4; form++)
        for (int half = 0; half < 2; half++)
            erf_gelu(form, half, false);
    erf_gelu(0, false, true);
    erf_gelu(2, true, true);
    reshape_views();
    transpose_views();
    wnn_context_release(ctx);
    TEST_DONE();
}
