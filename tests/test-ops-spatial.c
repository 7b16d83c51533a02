/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-spatial.c -- convolution, pooling and resampling through the
** public API: conv2d, convTranspose2d, averagePool2d, l2Pool2d, maxPool2d
** and resample2d.
**
** Small cases are checked against values worked out by hand. conv2d and
** convTranspose2d are also checked on random problems, in every layout,
** against a naive double-precision loop in this file, once through each of
** the cpu kernel's paths (WNN_CPU_CONV=gemm and =direct). Every operator
** has its validation errors checked with their exact statuses.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/config.h"
#include "test.h"
#include "wnn/wnn.h"

#define F32 WNN_DATA_TYPE_FLOAT32
#define F16 WNN_DATA_TYPE_FLOAT16

#include "test-ops-inputs.h"

static void check_shape(wnn_operand *x, uint32_t rank, const uint32_t *shape)
{
    wnn_operand_desc d = {0};
    if (x)
        wnn_operand_get_desc(x, &d);
    CHECK_EQ_INT(d.rank, rank);
    for (uint32_t i = 0; i < rank && i < d.rank; i++)
        CHECK_EQ_INT(d.shape[i], shape[i]);
}

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

/* binary16 of a value that binary16 holds exactly (normal or zero). */
static uint16_t to_half(float f)
{
    if (f == 0.0f)
        return signbit(f) ? 0x8000u : 0;
    int e;
    float m = frexpf(fabsf(f), &e); /* f = m * 2^e, m in [0.5, 1) */
    uint16_t bits = (uint16_t)(((e + 14) << 10) | ((uint32_t)(m * 2048.0f) & 0x3ffu));
    return f < 0 ? (uint16_t)(bits | 0x8000u) : bits;
}

static float from_half(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* ---- conv2d by hand --------------------------------------------------------------------------- */

static const float grid3[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const float ones4[4] = {1, 1, 1, 1};

static wnn_operand *conv_ones(wnn_graph_builder *b, const wnn_conv2d_options *o)
{
    wnn_operand *x = constant(b, F32, SHAPE(1, 1, 3, 3), grid3);
    wnn_operand *w = constant(b, F32, SHAPE(1, 1, 2, 2), ones4);
    return wnn_conv2d(b, x, w, o);
}

static void test_conv2d(void)
{
    float out[16];
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    wnn_graph_builder *b = builder();
    wnn_operand *y = conv_ones(b, NULL);
    check_shape(y, SHAPE(1, 1, 2, 2));
    if (run(b, y, out, 4 * sizeof(float)))
        check_floats(out, (const float[]){12, 16, 24, 28}, 4, 0);

    /* bias, padding with strides, dilations */
    b = builder();
    o.bias = CF32(b, SHAPE(1), 0.5f);
    if (run(b, conv_ones(b, &o), out, 4 * sizeof(float)))
        check_floats(out, (const float[]){12.5f, 16.5f, 24.5f, 28.5f}, 4, 0);
    o = (wnn_conv2d_options)WNN_CONV2D_OPTIONS_INIT;
    o.padding[0] = o.padding[1] = o.padding[2] = o.padding[3] = 1;
    o.strides[0] = o.strides[1] = 2;
    b = builder();
    y = conv_ones(b, &o);
    check_shape(y, SHAPE(1, 1, 2, 2));
    if (run(b, y, out, 4 * sizeof(float)))
        check_floats(out, (const float[]){1, 5, 11, 28}, 4, 0);
    o = (wnn_conv2d_options)WNN_CONV2D_OPTIONS_INIT;
    o.dilations[0] = o.dilations[1] = 2;
    b = builder();
    if (run(b, conv_ones(b, &o), out, sizeof(float)))
        CHECK_NEAR(out[0], 20, 0);

    /* the same convolution in nhwc with an hwio filter, two output channels */
    o = (wnn_conv2d_options)WNN_CONV2D_OPTIONS_INIT;
    o.input_layout = WNN_INPUT_LAYOUT_NHWC;
    o.filter_layout = WNN_CONV2D_FILTER_LAYOUT_HWIO;
    b = builder();
    wnn_operand *x = constant(b, F32, SHAPE(1, 3, 3, 1), grid3);
    wnn_operand *w = CF32(b, SHAPE(2, 2, 1, 2), 1, -1, 1, -1, 1, -1, 1, -1);
    y = wnn_conv2d(b, x, w, &o);
    check_shape(y, SHAPE(1, 2, 2, 2));
    if (run(b, y, out, 8 * sizeof(float)))
        check_floats(out, (const float[]){12, -12, 16, -16, 24, -24, 28, -28}, 8, 0);

    /* groups: each of two channels scaled by its own 1x1 filter */
    o = (wnn_conv2d_options)WNN_CONV2D_OPTIONS_INIT;
    o.groups = 2;
    b = builder();
    x = CF32(b, SHAPE(1, 2, 2, 2), 1, 2, 3, 4, 5, 6, 7, 8);
    w = CF32(b, SHAPE(2, 1, 1, 1), 2, 3);
    if (run(b, wnn_conv2d(b, x, w, &o), out, 8 * sizeof(float)))
        check_floats(out, (const float[]){2, 4, 6, 8, 15, 18, 21, 24}, 8, 0);

    /* float16 */
    uint16_t hx[9], hw[4], hy[4];
    for (int i = 0; i < 9; i++)
        hx[i] = to_half(grid3[i]);
    for (int i = 0; i < 4; i++)
        hw[i] = to_half(0.5f);
    b = builder();
    x = constant(b, F16, SHAPE(1, 1, 3, 3), hx);
    w = constant(b, F16, SHAPE(1, 1, 2, 2), hw);
    if (run(b, wnn_conv2d(b, x, w, NULL), hy, sizeof hy)) {
        const float want[4] = {6, 8, 12, 14};
        for (int i = 0; i < 4; i++)
            CHECK_NEAR(from_half(hy[i]), want[i], 0);
    }
}

static void test_conv2d_errors(void)
{
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    wnn_graph_builder *b = builder();
    wnn_operand *x = input(b, "x", F32, SHAPE(1, 1, 3));
    check_refused(b, wnn_conv2d(b, x, input(b, "w", F32, SHAPE(1, 1, 2, 2)), NULL), WNN_STATUS_INVALID_RANK);

    b = builder();
    x = input(b, "x", WNN_DATA_TYPE_INT32, SHAPE(1, 1, 3, 3));
    check_refused(b, wnn_conv2d(b, x, input(b, "w", WNN_DATA_TYPE_INT32, SHAPE(1, 1, 2, 2)), NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);

    b = builder();
    x = input(b, "x", F32, SHAPE(1, 1, 3, 3));
    check_refused(b, wnn_conv2d(b, x, input(b, "w", F16, SHAPE(1, 1, 2, 2)), NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);

    o.strides[0] = 1; /* a zero beside a non-zero stride ({0, 0} is the default) */
    o.strides[1] = 0;
    b = builder();
    x = input(b, "x", F32, SHAPE(1, 1, 3, 3));
    check_refused(b, wnn_conv2d(b, x, input(b, "w", F32, SHAPE(1, 1, 2, 2)), &o), WNN_STATUS_INVALID_ARGUMENT);

    o = (wnn_conv2d_options)WNN_CONV2D_OPTIONS_INIT;
    o.groups = 0; /* the default, 1 */
    b = builder();
    x = input(b, "x", F32, SHAPE(1, 1, 3, 3));
    CHECK(wnn_conv2d(b, x, input(b, "w", F32, SHAPE(1, 1, 2, 2)), &o) != NULL);
    wnn_graph_builder_release(b);

    /* 4 input channels in 2 groups need 2 filter input channels */
    o.groups = 2;
    b = builder();
    x = input(b, "x", F32, SHAPE(1, 4, 3, 3));
    check_refused(b, wnn_conv2d(b, x, input(b, "w", F32, SHAPE(2, 4, 2, 2)), &o), WNN_STATUS_SHAPE_MISMATCH);

    /* output channels not a multiple of groups */
    b = builder();
    x = input(b, "x", F32, SHAPE(1, 4, 3, 3));
    check_refused(b, wnn_conv2d(b, x, input(b, "w", F32, SHAPE(3, 2, 2, 2)), &o), WNN_STATUS_SHAPE_MISMATCH);

    o = (wnn_conv2d_options)WNN_CONV2D_OPTIONS_INIT;
    b = builder();
    o.bias = input(b, "bias", F32, SHAPE(2));
    x = input(b, "x", F32, SHAPE(1, 1, 3, 3));
    check_refused(b, wnn_conv2d(b, x, input(b, "w", F32, SHAPE(1, 1, 2, 2)), &o), WNN_STATUS_SHAPE_MISMATCH);

    b = builder();
    o.bias = input(b, "bias", F32, SHAPE(1, 1));
    x = input(b, "x", F32, SHAPE(1, 1, 3, 3));
    check_refused(b, wnn_conv2d(b, x, input(b, "w", F32, SHAPE(1, 1, 2, 2)), &o), WNN_STATUS_INVALID_RANK);

    /* a 4x4 window does not fit a 3x3 input */
    b = builder();
    x = input(b, "x", F32, SHAPE(1, 1, 3, 3));
    check_refused(b, wnn_conv2d(b, x, input(b, "w", F32, SHAPE(1, 1, 4, 4)), NULL), WNN_STATUS_INVALID_DIMENSION);

    o = (wnn_conv2d_options)WNN_CONV2D_OPTIONS_INIT;
    o.filter_layout = (wnn_conv2d_filter_layout)9;
    b = builder();
    x = input(b, "x", F32, SHAPE(1, 1, 3, 3));
    check_refused(b, wnn_conv2d(b, x, input(b, "w", F32, SHAPE(1, 1, 2, 2)), &o), WNN_STATUS_INVALID_ARGUMENT);
}

/* ---- convTranspose2d by hand -------------------------------------------------------------------- */

static void test_conv_transpose2d(void)
{
    float out[25];
    wnn_conv_transpose2d_options o = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
    wnn_graph_builder *b = builder();
    wnn_operand *x = CF32(b, SHAPE(1, 1, 2, 2), 1, 2, 3, 4);
    wnn_operand *y = wnn_conv_transpose2d(b, x, constant(b, F32, SHAPE(1, 1, 2, 2), ones4), NULL);
    check_shape(y, SHAPE(1, 1, 3, 3));
    if (run(b, y, out, 9 * sizeof(float)))
        check_floats(out, (const float[]){1, 3, 2, 4, 10, 6, 3, 7, 4}, 9, 0);

    /* strides 2 with outputPadding: blocks, then a row and column of bias */
    o.strides[0] = o.strides[1] = 2;
    o.output_padding[0] = o.output_padding[1] = 1;
    b = builder();
    o.bias = CF32(b, SHAPE(1), 0.5f);
    x = CF32(b, SHAPE(1, 1, 2, 2), 1, 2, 3, 4);
    y = wnn_conv_transpose2d(b, x, constant(b, F32, SHAPE(1, 1, 2, 2), ones4), &o);
    check_shape(y, SHAPE(1, 1, 5, 5));
    if (run(b, y, out, 25 * sizeof(float))) {
        const float want[25] = {1.5f, 1.5f, 2.5f, 2.5f, 0.5f, 1.5f, 1.5f, 2.5f, 2.5f, 0.5f, 3.5f, 3.5f, 4.5f,
                                4.5f, 0.5f, 3.5f, 3.5f, 4.5f, 4.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
        check_floats(out, want, 25, 0);
    }

    /* outputSizes picks the size within [computed, computed + stride) */
    o = (wnn_conv_transpose2d_options)WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
    o.strides[0] = o.strides[1] = 2;
    o.output_sizes[0] = 5;
    o.output_sizes[1] = 4;
    o.input_layout = WNN_INPUT_LAYOUT_NHWC;
    o.filter_layout = WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_OHWI;
    b = builder();
    x = CF32(b, SHAPE(1, 2, 2, 1), 1, 2, 3, 4);
    y = wnn_conv_transpose2d(b, x, constant(b, F32, SHAPE(1, 2, 2, 1), ones4), &o);
    check_shape(y, SHAPE(1, 5, 4, 1));
    if (run(b, y, out, 20 * sizeof(float))) {
        const float want[20] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4, 0, 0, 0, 0};
        check_floats(out, want, 20, 0);
    }
}

static void test_conv_transpose2d_errors(void)
{
    wnn_conv_transpose2d_options o = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
    o.output_padding[0] = 1; /* not below the stride 1 */
    wnn_graph_builder *b = builder();
    wnn_operand *x = input(b, "x", F32, SHAPE(1, 1, 2, 2));
    check_refused(b, wnn_conv_transpose2d(b, x, input(b, "w", F32, SHAPE(1, 1, 2, 2)), &o),
                  WNN_STATUS_INVALID_ARGUMENT);

    o = (wnn_conv_transpose2d_options)WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
    o.strides[0] = o.strides[1] = 2;
    o.output_sizes[0] = o.output_sizes[1] = 6; /* computed 4, so 4 or 5 */
    b = builder();
    x = input(b, "x", F32, SHAPE(1, 1, 2, 2));
    check_refused(b, wnn_conv_transpose2d(b, x, input(b, "w", F32, SHAPE(1, 1, 2, 2)), &o),
                  WNN_STATUS_INVALID_ARGUMENT);

    b = builder();
    x = input(b, "x", F32, SHAPE(1, 2, 2, 2));
    check_refused(b, wnn_conv_transpose2d(b, x, input(b, "w", F32, SHAPE(1, 1, 2, 2)), NULL),
                  WNN_STATUS_SHAPE_MISMATCH);

    b = builder();
    x = input(b, "x", F16, SHAPE(1, 1, 2, 2));
    check_refused(b, wnn_conv_transpose2d(b, x, input(b, "w", F16, SHAPE(1, 1, 2)), NULL),
                  WNN_STATUS_INVALID_RANK);

    o = (wnn_conv_transpose2d_options)WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
    o.padding[0] = o.padding[1] = 2; /* 3 rows less 4 of padding */
    b = builder();
    x = input(b, "x", F32, SHAPE(1, 1, 2, 2));
    check_refused(b, wnn_conv_transpose2d(b, x, input(b, "w", F32, SHAPE(1, 1, 2, 2)), &o),
                  WNN_STATUS_INVALID_DIMENSION);
}

/* ---- conv2d and convTranspose2d against a double loop -------------------------------------------- */

typedef struct conv_case {
    bool transpose;
    wnn_data_type type;
    uint32_t n, cin, h, w, cout, kh, kw, groups;
    uint32_t pad[4], stride[2], dilation[2], out_pad[2];
    wnn_input_layout layout;
    int filter_layout; /* conv2d or convTranspose2d layout enum */
    bool bias;
} conv_case;

/* Index of (a, b, c, d) in a row-major 4-D array laid out as `order`, a
** permutation of the letters of `names`. */
static size_t at4(const char *names, const char *order, const uint32_t *dims, const uint32_t *idx)
{
    size_t at = 0;
    for (int k = 0; k < 4; k++) {
        int p = (int)(strchr(names, order[k]) - names);
        at = at * dims[p] + idx[p];
    }
    return at;
}

static const char *const conv2d_orders[4] = {"oihw", "hwio", "ohwi", "ihwo"};
static const char *const transpose_orders[3] = {"iohw", "hwoi", "ohwi"};

/* Uniform in [-2, 2] in steps of 1/16, which binary16 holds exactly. */
static float sample(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (float)((int)((*seed >> 16) % 65) - 32) / 16.0f;
}

static void run_conv_case(const conv_case *c, const char *path)
{
    uint32_t cg_in = c->cin / c->groups, cg_out = c->cout / c->groups;
    uint32_t fi = c->transpose ? c->cin : cg_in, fo = c->transpose ? cg_out : c->cout;
    uint32_t oh, ow;
    if (c->transpose) {
        oh = (c->h - 1) * c->stride[0] + (c->kh - 1) * c->dilation[0] + 1 - c->pad[0] - c->pad[1] + c->out_pad[0];
        ow = (c->w - 1) * c->stride[1] + (c->kw - 1) * c->dilation[1] + 1 - c->pad[2] - c->pad[3] + c->out_pad[1];
    } else {
        oh = (c->h + c->pad[0] + c->pad[1] - (c->kh - 1) * c->dilation[0] - 1) / c->stride[0] + 1;
        ow = (c->w + c->pad[2] + c->pad[3] - (c->kw - 1) * c->dilation[1] - 1) / c->stride[1] + 1;
    }
    size_t nx = (size_t)c->n * c->cin * c->h * c->w, nf = (size_t)fo * fi * c->kh * c->kw;
    size_t ny = (size_t)c->n * c->cout * oh * ow;
    float *x = malloc(nx * sizeof *x), *f = malloc(nf * sizeof *f), *bias = malloc(c->cout * sizeof *bias);
    float *xp = malloc(nx * sizeof *xp), *fp = malloc(nf * sizeof *fp), *y = malloc(ny * sizeof *y);
    double *ref = calloc(ny, sizeof *ref), *mag = calloc(ny, sizeof *mag);
    uint16_t *hx = malloc(nx * 2), *hf = malloc(nf * 2), *hb = malloc(c->cout * 2), *hy = malloc(ny * 2);
    unsigned seed = 7u + c->cin * 31u + c->kh;
    for (size_t i = 0; i < nx; i++)
        x[i] = sample(&seed);
    for (size_t i = 0; i < nf; i++)
        f[i] = sample(&seed);
    for (uint32_t i = 0; i < c->cout; i++)
        bias[i] = c->bias ? sample(&seed) : 0.0f;

    /* x is logical [n][c][y][x], f logical [o][i][y][x] (conv2d) or [i][o][y][x] */
    const char *xo = c->layout == WNN_INPUT_LAYOUT_NHWC ? "nhwc" : "nchw";
    const char *fo_order = c->transpose ? transpose_orders[c->filter_layout] : conv2d_orders[c->filter_layout];
    const char *fnames = c->transpose ? "iohw" : "oihw";
    uint32_t xdims[4] = {c->n, c->cin, c->h, c->w}, fdims[4] = {c->transpose ? fi : fo, c->transpose ? fo : fi,
                                                                 c->kh, c->kw};
    for (size_t i = 0; i < nx; i++) {
        uint32_t idx[4] = {(uint32_t)(i / ((size_t)c->cin * c->h * c->w)), (uint32_t)(i / (c->h * c->w) % c->cin),
                           (uint32_t)(i / c->w % c->h), (uint32_t)(i % c->w)};
        xp[at4("nchw", xo, xdims, idx)] = x[i];
    }
    for (size_t i = 0; i < nf; i++) {
        uint32_t idx[4] = {(uint32_t)(i / ((size_t)fdims[1] * c->kh * c->kw)),
                           (uint32_t)(i / (c->kh * c->kw) % fdims[1]), (uint32_t)(i / c->kw % c->kh),
                           (uint32_t)(i % c->kw)};
        fp[at4(fnames, fo_order, fdims, idx)] = f[i];
    }

    /* the reference, in double, by output (conv2d) or by input (transpose) */
    for (uint32_t n = 0; n < c->n; n++)
        for (uint32_t o = 0; o < c->cout; o++)
            for (uint32_t i = 0; i < oh * ow; i++) {
                size_t at = (((size_t)n * c->cout + o) * oh + i / ow) * ow + i % ow;
                ref[at] = bias[o];
                mag[at] = fabs(bias[o]);
            }
    for (uint32_t n = 0; n < c->n; n++)
        for (uint32_t o = 0; o < c->cout; o++) {
            uint32_t g = o / cg_out;
            for (uint32_t ci = 0; ci < cg_in; ci++)
                for (uint32_t ky = 0; ky < c->kh; ky++)
                    for (uint32_t kx = 0; kx < c->kw; kx++) {
                        uint32_t gc = g * cg_in + ci;
                        double wv = c->transpose ? f[(((size_t)gc * cg_out + o % cg_out) * c->kh + ky) * c->kw + kx]
                                                 : f[(((size_t)o * cg_in + ci) * c->kh + ky) * c->kw + kx];
                        for (uint32_t a = 0; a < (c->transpose ? c->h : oh); a++)
                            for (uint32_t bb = 0; bb < (c->transpose ? c->w : ow); bb++) {
                                long iy, ix, yy, yx;
                                if (c->transpose) {
                                    iy = a, ix = bb;
                                    yy = (long)(a * c->stride[0] + ky * c->dilation[0]) - (long)c->pad[0];
                                    yx = (long)(bb * c->stride[1] + kx * c->dilation[1]) - (long)c->pad[2];
                                    if (yy < 0 || yy >= (long)oh || yx < 0 || yx >= (long)ow)
                                        continue;
                                } else {
                                    yy = a, yx = bb;
                                    iy = (long)(a * c->stride[0] + ky * c->dilation[0]) - (long)c->pad[0];
                                    ix = (long)(bb * c->stride[1] + kx * c->dilation[1]) - (long)c->pad[2];
                                    if (iy < 0 || iy >= (long)c->h || ix < 0 || ix >= (long)c->w)
                                        continue;
                                }
                                double xv = x[(((size_t)n * c->cin + gc) * c->h + (size_t)iy) * c->w + (size_t)ix];
                                size_t at = (((size_t)n * c->cout + o) * oh + (size_t)yy) * ow + (size_t)yx;
                                ref[at] += xv * wv;
                                mag[at] += fabs(xv * wv);
                            }
                    }
        }

    setenv("WNN_CPU_CONV", path, 1);
    wnn__config_reload(); /* switches are read once */

    wnn_graph_builder *b = builder();
    bool half = c->type == F16;
    for (size_t i = 0; half && i < nx; i++)
        hx[i] = to_half(xp[i]);
    for (size_t i = 0; half && i < nf; i++)
        hf[i] = to_half(fp[i]);
    for (uint32_t i = 0; half && i < c->cout; i++)
        hb[i] = to_half(bias[i]);
    uint32_t xs[4], fs[4], one[1] = {c->cout};
    for (int k = 0; k < 4; k++) {
        xs[k] = xdims[strchr("nchw", xo[k]) - "nchw"];
        fs[k] = fdims[strchr(fnames, fo_order[k]) - fnames];
    }
    wnn_operand *xin = constant(b, c->type, 4, xs, half ? (void *)hx : (void *)xp);
    wnn_operand *fin = constant(b, c->type, 4, fs, half ? (void *)hf : (void *)fp);
    wnn_operand *bin = c->bias ? constant(b, c->type, 1, one, half ? (void *)hb : (void *)bias) : NULL;
    wnn_operand *out;
    if (c->transpose) {
        wnn_conv_transpose2d_options o = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
        memcpy(o.padding, c->pad, sizeof o.padding);
        memcpy(o.strides, c->stride, sizeof o.strides);
        memcpy(o.dilations, c->dilation, sizeof o.dilations);
        memcpy(o.output_padding, c->out_pad, sizeof o.output_padding);
        o.groups = c->groups;
        o.input_layout = c->layout;
        o.filter_layout = (wnn_conv_transpose2d_filter_layout)c->filter_layout;
        o.bias = bin;
        out = wnn_conv_transpose2d(b, xin, fin, &o);
    } else {
        wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
        memcpy(o.padding, c->pad, sizeof o.padding);
        memcpy(o.strides, c->stride, sizeof o.strides);
        memcpy(o.dilations, c->dilation, sizeof o.dilations);
        o.groups = c->groups;
        o.input_layout = c->layout;
        o.filter_layout = (wnn_conv2d_filter_layout)c->filter_layout;
        o.bias = bin;
        out = wnn_conv2d(b, xin, fin, &o);
    }
    if (run(b, out, half ? (void *)hy : (void *)y, ny * (half ? 2 : 4))) {
        uint32_t ydims[4] = {c->n, c->cout, oh, ow};
        size_t bad = 0;
        for (size_t i = 0; i < ny; i++) {
            uint32_t idx[4] = {(uint32_t)(i / ((size_t)c->cout * oh * ow)), (uint32_t)(i / (oh * ow) % c->cout),
                               (uint32_t)(i / ow % oh), (uint32_t)(i % ow)};
            size_t p = at4("nchw", xo, ydims, idx);
            double got = half ? from_half(hy[p]) : y[p];
            double tol = (half ? 1e-3 * fabs(ref[i]) : 0.0) + 1e-5 * mag[i] + 1e-6;
            if (fabs(got - ref[i]) > tol && bad++ < 3)
                fprintf(stderr, "  %s %s path: element %zu is %.9g, want %.9g\n",
                        c->transpose ? "convTranspose2d" : "conv2d", path, i, got, ref[i]);
        }
        CHECK_EQ_INT(bad, 0);
    }
    unsetenv("WNN_CPU_CONV");
    wnn__config_reload(); /* switches are read once */
    free(x), free(f), free(bias), free(xp), free(fp), free(y), free(ref), free(mag);
    free(hx), free(hf), free(hb), free(hy);
}

static void test_conv_random(void)
{
    static const conv_case cases[] = {
        /* conv2d: padded, strided, dilated; grouped nhwc; pointwise; depthwise in both layouts; float16 */
        {false, F32, 2, 16, 12, 11, 16, 3, 3, 1, {1, 2, 0, 1}, {2, 1}, {1, 2}, {0, 0}, WNN_INPUT_LAYOUT_NCHW, 0, true},
        {false, F32, 1, 16, 9, 10, 24, 3, 2, 2, {1, 1, 1, 1}, {1, 2}, {1, 1}, {0, 0}, WNN_INPUT_LAYOUT_NHWC, 2, true},
        {false, F32, 2, 32, 7, 7, 16, 1, 1, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}, {0, 0}, WNN_INPUT_LAYOUT_NHWC, 1, false},
        {false, F32, 2, 32, 7, 7, 16, 1, 1, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}, {0, 0}, WNN_INPUT_LAYOUT_NCHW, 0, true},
        {false, F32, 1, 8, 10, 10, 8, 3, 3, 8, {1, 1, 1, 1}, {1, 1}, {1, 1}, {0, 0}, WNN_INPUT_LAYOUT_NCHW, 3, true},
        {false, F32, 2, 16, 9, 8, 16, 3, 3, 16, {1, 0, 2, 1}, {2, 1}, {1, 2}, {0, 0}, WNN_INPUT_LAYOUT_NHWC, 3, true},
        {false, F16, 1, 12, 8, 8, 12, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, {0, 0}, WNN_INPUT_LAYOUT_NHWC, 2, true},
        /* convTranspose2d */
        {true, F32, 2, 16, 6, 5, 12, 3, 3, 1, {1, 0, 2, 1}, {2, 3}, {1, 1}, {1, 2}, WNN_INPUT_LAYOUT_NCHW, 0, true},
        {true, F32, 1, 16, 5, 6, 16, 2, 3, 2, {0, 0, 0, 0}, {1, 2}, {2, 1}, {0, 1}, WNN_INPUT_LAYOUT_NHWC, 1, true},
        {true, F32, 1, 12, 4, 4, 8, 3, 3, 1, {1, 1, 1, 1}, {2, 2}, {1, 1}, {0, 0}, WNN_INPUT_LAYOUT_NHWC, 2, false},
        {true, F16, 1, 8, 4, 4, 8, 2, 2, 1, {0, 0, 0, 0}, {2, 2}, {1, 1}, {0, 0}, WNN_INPUT_LAYOUT_NCHW, 0, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_conv_case(&cases[i], "gemm");
        run_conv_case(&cases[i], "direct");
    }
}

/* ---- pooling ------------------------------------------------------------------------------------ */

static const float grid4[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static void test_pool2d(void)
{
    float out[9];
    wnn_pool2d_options o = WNN_POOL2D_OPTIONS_INIT;
    o.window_dimensions[0] = o.window_dimensions[1] = 2;
    o.strides[0] = o.strides[1] = 2;
    wnn_graph_builder *b = builder();
    wnn_operand *y = wnn_average_pool2d(b, constant(b, F32, SHAPE(1, 1, 4, 4), grid4), &o);
    check_shape(y, SHAPE(1, 1, 2, 2));
    if (run(b, y, out, 4 * sizeof(float)))
        check_floats(out, (const float[]){3.5f, 5.5f, 11.5f, 13.5f}, 4, 0);
    b = builder();
    if (run(b, wnn_max_pool2d(b, constant(b, F32, SHAPE(1, 1, 4, 4), grid4), &o), out, 4 * sizeof(float)))
        check_floats(out, (const float[]){6, 8, 14, 16}, 4, 0);
    b = builder();
    if (run(b, wnn_l2_pool2d(b, constant(b, F32, SHAPE(1, 1, 4, 4), grid4), &o), out, 4 * sizeof(float)))
        check_floats(out, (const float[]){sqrtf(66), sqrtf(138), sqrtf(546), sqrtf(746)}, 4, 1e-5);

    /* padding is neither counted by the average nor seen by max */
    wnn_pool2d_options p = WNN_POOL2D_OPTIONS_INIT;
    p.window_dimensions[0] = p.window_dimensions[1] = 3;
    p.padding[0] = p.padding[1] = p.padding[2] = p.padding[3] = 1;
    b = builder();
    y = wnn_average_pool2d(b, CF32(b, SHAPE(1, 1, 2, 2), 1, 2, 3, 4), &p);
    check_shape(y, SHAPE(1, 1, 2, 2));
    if (run(b, y, out, 4 * sizeof(float)))
        check_floats(out, (const float[]){2.5f, 2.5f, 2.5f, 2.5f}, 4, 0);
    b = builder();
    if (run(b, wnn_max_pool2d(b, CF32(b, SHAPE(1, 1, 2, 2), -1, -2, -3, -4), &p), out, 4 * sizeof(float)))
        check_floats(out, (const float[]){-1, -1, -1, -1}, 4, 0);

    /* nhwc [1, 3, 1, 1], 2x2 windows, strides 2, padding 2 at the bottom and
    ** right, ceil rounding: 3 x 2 windows, of which four lie wholly in the
    ** padding and give 0 */
    wnn_pool2d_options q = WNN_POOL2D_OPTIONS_INIT;
    q.window_dimensions[0] = q.window_dimensions[1] = 2;
    q.strides[0] = q.strides[1] = 2;
    q.padding[1] = q.padding[3] = 2;
    q.rounding_type = WNN_ROUNDING_TYPE_CEIL;
    q.layout = WNN_INPUT_LAYOUT_NHWC;
    b = builder();
    y = wnn_max_pool2d(b, CF32(b, SHAPE(1, 3, 1, 1), 5, 7, 9), &q);
    check_shape(y, SHAPE(1, 3, 2, 1));
    if (run(b, y, out, 6 * sizeof(float)))
        check_floats(out, (const float[]){7, 0, 9, 0, 0, 0}, 6, 0);

    /* maxPool2d is exact on 64-bit integers */
    int64_t big[4] = {(int64_t)1 << 60, ((int64_t)1 << 60) + 1, -5, 3}, best = 0;
    b = builder();
    if (run(b, wnn_max_pool2d(b, constant(b, WNN_DATA_TYPE_INT64, SHAPE(1, 1, 2, 2), big), NULL), &best,
            sizeof best))
        CHECK(best == ((int64_t)1 << 60) + 1);

    /* outputSizes takes the ceil size where floor rounding is asked */
    wnn_pool2d_options r = WNN_POOL2D_OPTIONS_INIT;
    r.window_dimensions[0] = r.window_dimensions[1] = 2;
    r.strides[0] = r.strides[1] = 2;
    r.output_sizes[0] = r.output_sizes[1] = 3;
    b = builder();
    y = wnn_average_pool2d(b, constant(b, F32, SHAPE(1, 1, 5, 5), (const float[25]){0}), &r);
    check_shape(y, SHAPE(1, 1, 3, 3));
    wnn_graph_builder_release(b);

    /* float16 average */
    uint16_t hx[16], hy[1];
    for (int i = 0; i < 16; i++)
        hx[i] = to_half(grid4[i]);
    b = builder();
    if (run(b, wnn_average_pool2d(b, constant(b, F16, SHAPE(1, 1, 4, 4), hx), NULL), hy, sizeof hy))
        CHECK_NEAR(from_half(hy[0]), 8.5, 0);
}

static void test_pool2d_errors(void)
{
    wnn_graph_builder *b = builder();
    check_refused(b, wnn_average_pool2d(b, input(b, "x", WNN_DATA_TYPE_INT32, SHAPE(1, 1, 2, 2)), NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    b = builder();
    check_refused(b, wnn_l2_pool2d(b, input(b, "x", WNN_DATA_TYPE_UINT8, SHAPE(1, 1, 2, 2)), NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    b = builder();
    check_refused(b, wnn_max_pool2d(b, input(b, "x", F32, SHAPE(1, 2, 2)), NULL), WNN_STATUS_INVALID_RANK);

    wnn_pool2d_options o = WNN_POOL2D_OPTIONS_INIT;
    o.window_dimensions[1] = 2;
    b = builder(); /* window [0, 2] */
    check_refused(b, wnn_max_pool2d(b, input(b, "x", F32, SHAPE(1, 1, 2, 2)), &o), WNN_STATUS_INVALID_ARGUMENT);
    o.window_dimensions[0] = o.window_dimensions[1] = 3;
    b = builder();
    check_refused(b, wnn_max_pool2d(b, input(b, "x", F32, SHAPE(1, 1, 2, 2)), &o), WNN_STATUS_INVALID_DIMENSION);

    wnn_pool2d_options p = WNN_POOL2D_OPTIONS_INIT;
    p.window_dimensions[0] = p.window_dimensions[1] = 2;
    p.strides[0] = p.strides[1] = 2;
    p.output_sizes[0] = p.output_sizes[1] = 4; /* floor 2, ceil 3 */
    b = builder();
    check_refused(b, wnn_average_pool2d(b, input(b, "x", F32, SHAPE(1, 1, 5, 5)), &p), WNN_STATUS_INVALID_ARGUMENT);

    p = (wnn_pool2d_options)WNN_POOL2D_OPTIONS_INIT;
    p.dilations[1] = 1; /* [0, 1] */
    b = builder();
    check_refused(b, wnn_l2_pool2d(b, input(b, "x", F32, SHAPE(1, 1, 5, 5)), &p), WNN_STATUS_INVALID_ARGUMENT);
}

/* ---- resample2d --------------------------------------------------------------------------------- */

static void test_resample2d(void)
{
    float out[16];
    wnn_resample2d_options o = WNN_RESAMPLE2D_OPTIONS_INIT;
    o.scales[0] = 1.0f;
    o.scales[1] = 1.5f;
    wnn_graph_builder *b = builder();
    wnn_operand *y = wnn_resample2d(b, CF32(b, SHAPE(1, 1, 1, 3), 10, 20, 30), &o);
    check_shape(y, SHAPE(1, 1, 1, 4));
    if (run(b, y, out, 4 * sizeof(float)))
        check_floats(out, (const float[]){10, 20, 20, 30}, 4, 0);

    /* linear 2x2 -> 4x4: half-pixel weights 0, 1/4, 3/4, 1 on each axis */
    o = (wnn_resample2d_options)WNN_RESAMPLE2D_OPTIONS_INIT;
    o.mode = WNN_INTERPOLATION_MODE_LINEAR;
    o.sizes[0] = o.sizes[1] = 4;
    b = builder();
    if (run(b, wnn_resample2d(b, CF32(b, SHAPE(1, 1, 2, 2), 0, 1, 2, 3), &o), out, 16 * sizeof(float))) {
        const float t[4] = {0, 0.25f, 0.75f, 1};
        for (int i = 0; i < 16; i++)
            CHECK_NEAR(out[i], 2 * t[i / 4] + t[i % 4], 1e-6);
    }

    /* uint8 linear rounds; axes [1, 2] of an nhwc tensor */
    o.sizes[0] = 1;
    o.axes[0] = 1;
    o.axes[1] = 2;
    uint8_t u[2] = {0, 255}, uo[4];
    b = builder();
    y = wnn_resample2d(b, constant(b, WNN_DATA_TYPE_UINT8, SHAPE(1, 1, 2, 1), u), &o);
    check_shape(y, SHAPE(1, 1, 4, 1));
    if (run(b, y, uo, sizeof uo)) {
        CHECK_EQ_INT(uo[0], 0);
        CHECK_EQ_INT(uo[1], 64);
        CHECK_EQ_INT(uo[2], 191);
        CHECK_EQ_INT(uo[3], 255);
    }
}

/* The source index of nearest-neighbor output j (in -> out), exactly:
** ceil((j + 0.5) * in / out - 1) clamped to [0, in - 1], in integers. */
static size_t nearest_source(size_t j, size_t in, size_t out)
{
    long long num = (long long)(2 * j + 1) * (long long)in - 2 * (long long)out, den = 2 * (long long)out;
    long long q = num >= 0 ? (num + den - 1) / den : -((-num) / den);
    return q < 0 ? 0 : q > (long long)in - 1 ? in - 1 : (size_t)q;
}

/* Nearest-neighbor resample2d against the exact index on shapes the cpu
** kernel's paths take: an upscale that repeats rows (copies of the previous
** row), a last dimension not resized (nhwc, axes [1, 2]: whole-row copies),
** odd scales both ways, each element size, and images large enough for the
** rows to split over threads. */
static void test_resample2d_nearest(void)
{
    static const struct {
        wnn_data_type t;
        uint32_t shape[4], axes[2], size[2];
    } cases[] = {
        {WNN_DATA_TYPE_FLOAT32, {1, 96, 40, 40}, {2, 3}, {80, 80}},
        {WNN_DATA_TYPE_FLOAT32, {1, 24, 10, 10}, {2, 3}, {80, 80}},
        {WNN_DATA_TYPE_FLOAT32, {2, 3, 7, 5}, {2, 3}, {3, 11}},
        {WNN_DATA_TYPE_FLOAT16, {1, 40, 40, 96}, {1, 2}, {80, 80}},
        {WNN_DATA_TYPE_UINT8, {1, 5, 9, 3}, {1, 2}, {13, 4}},
        {WNN_DATA_TYPE_INT8, {3, 4, 6, 6}, {2, 3}, {12, 6}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint32_t *is = cases[c].shape;
        uint32_t os[4] = {is[0], is[1], is[2], is[3]};
        os[cases[c].axes[0]] = cases[c].size[0];
        os[cases[c].axes[1]] = cases[c].size[1];
        size_t elem = wnn_data_type_size(cases[c].t), n_in = (size_t)is[0] * is[1] * is[2] * is[3];
        size_t n_out = (size_t)os[0] * os[1] * os[2] * os[3];
        unsigned char *x = malloc(n_in * elem), *y = malloc(n_out * elem);
        for (size_t i = 0; i < n_in * elem; i++)
            x[i] = (unsigned char)(i * 7 + i / 251); /* distinct enough; float16 bit patterns included */
        if (cases[c].t == WNN_DATA_TYPE_FLOAT32)
            for (size_t i = 0; i < n_in; i++)
                ((float *)x)[i] = (float)i;
        else if (cases[c].t == WNN_DATA_TYPE_FLOAT16)
            for (size_t i = 0; i < n_in; i++)
                ((uint16_t *)x)[i] = (uint16_t)(i % 30000); /* finite halves */
        wnn_resample2d_options o = WNN_RESAMPLE2D_OPTIONS_INIT;
        o.axes[0] = cases[c].axes[0];
        o.axes[1] = cases[c].axes[1];
        o.sizes[0] = cases[c].size[0];
        o.sizes[1] = cases[c].size[1];
        wnn_graph_builder *b = builder();
        if (run(b, wnn_resample2d(b, constant(b, cases[c].t, 4, is, x), &o), y, n_out * elem)) {
            size_t bad = 0;
            for (size_t i = 0; i < n_out; i++) {
                size_t idx[4], rest = i, src = 0;
                for (int d = 3; d >= 0; d--) {
                    idx[d] = rest % os[d];
                    rest /= os[d];
                }
                for (int d = 0; d < 4; d++) {
                    size_t k = os[d] == is[d] ? idx[d] : nearest_source(idx[d], is[d], os[d]);
                    src = src * is[d] + k;
                }
                bad += memcmp(y + i * elem, x + src * elem, elem) != 0;
            }
            if (bad)
                fprintf(stderr, "resample2d nearest case %zu: %zu of %zu elements differ\n", c, bad, n_out);
            CHECK(bad == 0);
        }
        free(x);
        free(y);
    }
}

static void test_resample2d_errors(void)
{
    wnn_resample2d_options o = WNN_RESAMPLE2D_OPTIONS_INIT;
    o.axes[0] = o.axes[1] = 3;
    wnn_graph_builder *b = builder();
    check_refused(b, wnn_resample2d(b, input(b, "x", F32, SHAPE(1, 1, 2, 2)), &o), WNN_STATUS_INVALID_ARGUMENT);
    o = (wnn_resample2d_options)WNN_RESAMPLE2D_OPTIONS_INIT;
    o.scales[1] = 1.0f; /* [0, 1]: a zero beside a non-zero scale */
    b = builder();
    check_refused(b, wnn_resample2d(b, input(b, "x", F32, SHAPE(1, 1, 2, 2)), &o), WNN_STATUS_INVALID_ARGUMENT);
    o.scales[0] = 0.25f; /* floor(2 * 0.25) = 0 */
    b = builder();
    check_refused(b, wnn_resample2d(b, input(b, "x", F32, SHAPE(1, 1, 2, 2)), &o), WNN_STATUS_INVALID_DIMENSION);
    b = builder();
    check_refused(b, wnn_resample2d(b, input(b, "x", WNN_DATA_TYPE_INT32, SHAPE(1, 1, 2, 2)), NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    b = builder();
    check_refused(b, wnn_resample2d(b, input(b, "x", F32, SHAPE(1, 2, 2)), NULL), WNN_STATUS_INVALID_RANK);
}

int main(void)
{
    wnn_context_options co = WNN_CONTEXT_OPTIONS_INIT;
    co.device = test_device();
    if (wnn_context_create(&co, &ctx) != WNN_OK) {
        fprintf(stderr, "context on %s: %s\n", co.device, wnn_last_error_message());
        return 77;
    }
    test_conv2d();
    test_conv2d_errors();
    test_conv_transpose2d();
    test_conv_transpose2d_errors();
    test_conv_random();
    test_pool2d();
    test_pool2d_errors();
    test_resample2d();
    test_resample2d_nearest();
    test_resample2d_errors();
    wnn_context_release(ctx);
    TEST_DONE();
}
