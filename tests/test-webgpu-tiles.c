/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-webgpu-tiles.c -- the webgpu device's tiled products (float32
** matmul, gemm and conv2d as an implicit GEMM; float16 matmul and gemm)
** against a computation in double here: shapes that are not multiples of
** the 64- and 128-wide blocks or of the 16- and 8-deep K steps, K = 1, a large odd K, batch
** broadcasting, the vec4 and scalar load paths (dimensions that are or are
** not multiples of 4), gemm's transposes, alpha, beta and a broadcast C, and
** conv2d's layouts, groups, strides, dilations, asymmetric padding and bias
** (depthwise, left on the direct kernel, checked the same way). Exits 77
** where no webgpu adapter is found.
*/
#include <math.h>

#include "core/half.h"
#include "test.h"
#include "test-webgpu.h"

static wnn_context *ctx;

/* Inputs in [-1, 1) from a fixed generator. */
static float *random_floats(size_t n, uint32_t seed)
{
    float *v = malloc((n ? n : 1) * sizeof *v);
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
    return v;
}

static size_t count(const wnn_operand_desc *d) { return (size_t)wnn_operand_desc_element_count(d); }

/* float16 inputs hold values a half can hold, so the reference sees them */
static void round_to(wnn_data_type t, float *v, size_t n)
{
    for (size_t i = 0; t == WNN_DATA_TYPE_FLOAT16 && i < n; i++)
        v[i] = wnn__half_to_float(wnn__float_to_half(v[i]));
}

typedef wnn_operand *(*build_fn)(wnn_graph_builder *b, wnn_operand **in, const void *arg);

/* Builds y = f(inputs) on webgpu, runs it on data (floats, written as the
** inputs' type, float32 or float16), returns y as floats (malloc'd) in *out. */
static void run(build_fn f, const void *arg, uint32_t n_in, const wnn_operand_desc *in, float *const *data,
                wnn_operand_desc *out_desc, float **out)
{
    static const char *names[3] = {"a", "b", "c"};
    wnn_graph_builder *b = NULL;
    wnn_graph *g = NULL;
    wnn_operand *ops[3];
    wnn_tensor *t[3] = {NULL}, *y = NULL;
    wnn_named_tensor bind[3];
    *out = NULL;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    for (uint32_t i = 0; i < n_in; i++)
        ops[i] = wnn_graph_builder_input(b, names[i], &in[i]);
    wnn_named_operand o = {"y", f(b, ops, arg)};
    CHECK(o.operand != NULL);
    if (o.operand) {
        wnn_operand_get_desc(o.operand, out_desc);
        CHECK_OK(wnn_graph_builder_build(b, &o, 1, &g));
    }
    for (uint32_t i = 0; i < n_in && g; i++) {
        wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
        d.data_type = in[i].data_type;
        d.rank = in[i].rank;
        memcpy(d.shape, in[i].shape, sizeof d.shape);
        d.writable = true;
        CHECK_OK(wnn_context_create_tensor(ctx, &d, &t[i]));
        size_t n = count(&in[i]);
        if (in[i].data_type == WNN_DATA_TYPE_FLOAT16) {
            uint16_t *h = malloc((n ? n : 1) * sizeof *h);
            for (size_t j = 0; j < n; j++)
                h[j] = wnn__float_to_half(data[i][j]);
            CHECK_OK(wnn_context_write_tensor(ctx, t[i], h, n * sizeof *h));
            free(h);
        } else {
            CHECK_OK(wnn_context_write_tensor(ctx, t[i], data[i], n * sizeof(float)));
        }
        bind[i] = (wnn_named_tensor){names[i], t[i]};
    }
    if (g) {
        wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
        d.data_type = out_desc->data_type;
        d.rank = out_desc->rank;
        memcpy(d.shape, out_desc->shape, sizeof d.shape);
        d.readable = true;
        CHECK_OK(wnn_context_create_tensor(ctx, &d, &y));
        wnn_named_tensor by = {"y", y};
        CHECK_OK(wnn_context_dispatch(ctx, g, bind, n_in, &by, 1));
        size_t n = count(out_desc);
        *out = malloc(n * sizeof(float));
        if (out_desc->data_type == WNN_DATA_TYPE_FLOAT16) {
            uint16_t *h = malloc(n * sizeof *h);
            CHECK_OK(wnn_context_read_tensor_sync(ctx, y, h, n * sizeof *h));
            for (size_t j = 0; j < n; j++)
                (*out)[j] = wnn__half_to_float(h[j]);
            free(h);
        } else {
            CHECK_OK(wnn_context_read_tensor_sync(ctx, y, *out, n * sizeof(float)));
        }
    }
    for (uint32_t i = 0; i < n_in; i++)
        wnn_tensor_release(t[i]);
    wnn_tensor_release(y);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
}

/* got against want (n elements), within 1e-5 of the sum of |terms| (mag),
** plus the rounding of a float16 result (computed in f32, rounded once). */
static void compare(const char *what, wnn_data_type t, const float *got, const double *want, const double *mag,
                    size_t n)
{
    size_t bad = 0, first = 0;
    double rel = t == WNN_DATA_TYPE_FLOAT16 ? 1.0 / 1024 : 0;
    for (size_t i = 0; got && i < n; i++)
        if (!(fabs(got[i] - want[i]) <= 1e-5 * (mag[i] + 1) + rel * fabs(want[i]))) {
            if (bad++ == 0)
                first = i;
        }
    if (got && bad)
        fprintf(stderr, "%s: %zu of %zu wrong, first [%zu] = %.9g, want %.9g\n", what, bad, n, first,
                got[first], want[first]);
    CHECK(got != NULL && bad == 0);
}

/* ---- matmul ---------------------------------------------------------------------------- */

static wnn_operand *matmul_op(wnn_graph_builder *b, wnn_operand **in, const void *arg)
{
    (void)arg;
    return wnn_matmul(b, in[0], in[1]);
}

/* matmul of a (rank ra) and b (rank rb) of type dt, batch dims broadcast. */
static void check_matmul_of(wnn_data_type dt, uint32_t ra, const uint32_t *sa, uint32_t rb, const uint32_t *sb)
{
    wnn_operand_desc in[2] = {{dt, ra, {0}}, {dt, rb, {0}}}, od;
    memcpy(in[0].shape, sa, ra * sizeof *sa);
    memcpy(in[1].shape, sb, rb * sizeof *sb);
    float *data[2] = {random_floats(count(&in[0]), ra * 7 + sa[ra - 1]), random_floats(count(&in[1]), rb + sb[0])};
    round_to(dt, data[0], count(&in[0]));
    round_to(dt, data[1], count(&in[1]));
    float *y;
    run(matmul_op, NULL, 2, in, data, &od, &y);
    uint32_t M = sa[ra - 2], K = sa[ra - 1], N = sb[rb - 1], r = od.rank;
    size_t n = count(&od), batch = n / ((size_t)M * N);
    double *want = calloc(n, sizeof *want), *mag = calloc(n, sizeof *mag);
    for (size_t z = 0; z < batch; z++) {
        /* z's coordinates over the output's batch dims, mapped into a and b */
        size_t za = 0, zb = 0, rest = z, sta = 1, stb = 1;
        for (uint32_t d = r - 2; d-- > 0;) {
            uint32_t c = (uint32_t)(rest % od.shape[d]);
            rest /= od.shape[d];
            int32_t da = (int32_t)d - (int32_t)(r - ra), db = (int32_t)d - (int32_t)(r - rb);
            if (da >= 0) {
                za += (sa[da] == 1 ? 0 : c) * sta;
                sta *= sa[da];
            }
            if (db >= 0) {
                zb += (sb[db] == 1 ? 0 : c) * stb;
                stb *= sb[db];
            }
        }
        const float *A = data[0] + za * M * K, *B = data[1] + zb * K * N;
        for (uint32_t i = 0; i < M; i++)
            for (uint32_t j = 0; j < N; j++) {
                double s = 0, m = 0;
                for (uint32_t k = 0; k < K; k++) {
                    s += (double)A[i * K + k] * B[k * N + j];
                    m += fabs((double)A[i * K + k] * B[k * N + j]);
                }
                want[z * M * N + i * N + j] = s;
                mag[z * M * N + i * N + j] = m;
            }
    }
    char what[96];
    snprintf(what, sizeof what, "matmul %s [.., %u, %u] x [.., %u, %u]", wnn_data_type_name(dt), M, K, K, N);
    compare(what, dt, y, want, mag, n);
    free(want), free(mag), free(y), free(data[0]), free(data[1]);
}

static void check_matmul(uint32_t ra, const uint32_t *sa, uint32_t rb, const uint32_t *sb)
{
    check_matmul_of(WNN_DATA_TYPE_FLOAT32, ra, sa, rb, sb);
}

static void test_matmul(void)
{
    check_matmul(2, (uint32_t[]){5, 7}, 2, (uint32_t[]){7, 3});           /* smaller than a block */
    check_matmul(2, (uint32_t[]){67, 33}, 2, (uint32_t[]){33, 65});       /* one past a block, odd K */
    check_matmul(2, (uint32_t[]){70, 1}, 2, (uint32_t[]){1, 68});         /* K = 1, vec4 B and stores */
    check_matmul(2, (uint32_t[]){3, 1003}, 2, (uint32_t[]){1003, 9});     /* large odd K */
    check_matmul(2, (uint32_t[]){9, 1000}, 2, (uint32_t[]){1000, 12});    /* large K, all vec4 */
    check_matmul(2, (uint32_t[]){1, 64}, 2, (uint32_t[]){64, 64});        /* a row */
    check_matmul(4, (uint32_t[]){2, 1, 9, 12}, 3, (uint32_t[]){3, 12, 8}); /* batch broadcast both ways */
    check_matmul(3, (uint32_t[]){4, 17, 5}, 2, (uint32_t[]){5, 19});      /* B shared by the batch */
    check_matmul(3, (uint32_t[]){32, 130, 20}, 2, (uint32_t[]){20, 132}); /* 128x128 blocks, vec4 */
    check_matmul(3, (uint32_t[]){32, 131, 13}, 3, (uint32_t[]){32, 13, 129}); /* 128x128 blocks, scalar */
    /* float16: with shader-f16 (lavapipe has it) every N is tiled, vec4 where
    ** the dimensions allow; without (WNN_WEBGPU_F16=0, test-webgpu-tiles-nof16)
    ** tiled where N is even (words of two halves stored whole), else the loop kernel */
    wnn_data_type h = WNN_DATA_TYPE_FLOAT16;
    check_matmul_of(h, 2, (uint32_t[]){67, 33}, 2, (uint32_t[]){33, 66});
    check_matmul_of(h, 4, (uint32_t[]){2, 1, 9, 12}, 3, (uint32_t[]){3, 12, 8});
    check_matmul_of(h, 3, (uint32_t[]){32, 130, 21}, 2, (uint32_t[]){21, 130});
    check_matmul_of(h, 2, (uint32_t[]){5, 7}, 2, (uint32_t[]){7, 3});
    check_matmul_of(h, 2, (uint32_t[]){9, 1000}, 2, (uint32_t[]){1000, 12}); /* vec4 loads and stores */
    check_matmul_of(h, 3, (uint32_t[]){32, 131, 13}, 3, (uint32_t[]){32, 13, 129}); /* odd N, 128x128 blocks */
}

/* ---- gemm ------------------------------------------------------------------------------ */

typedef struct gemm_case {
    wnn_data_type dt;
    uint32_t M, N, K;
    bool at, bt, has_c;
    uint32_t c_rank, c_shape[2];
    double alpha, beta;
} gemm_case;

static wnn_operand *gemm_op(wnn_graph_builder *b, wnn_operand **in, const void *arg)
{
    const gemm_case *c = arg;
    wnn_gemm_options o = WNN_GEMM_OPTIONS_INIT;
    o.a_transpose = c->at;
    o.b_transpose = c->bt;
    o.alpha = &c->alpha;
    o.beta = &c->beta;
    o.c = c->has_c ? in[2] : NULL;
    return wnn_gemm(b, in[0], in[1], &o);
}

static void check_gemm(const gemm_case *c)
{
    uint32_t M = c->M, N = c->N, K = c->K;
    wnn_operand_desc in[3] = {{c->dt, 2, {c->at ? K : M, c->at ? M : K}},
                              {c->dt, 2, {c->bt ? N : K, c->bt ? K : N}},
                              {c->dt, c->c_rank, {c->c_shape[0], c->c_shape[1]}}},
                     od;
    float *data[3] = {random_floats(count(&in[0]), M), random_floats(count(&in[1]), N),
                      random_floats(count(&in[2]), K)};
    for (int i = 0; i < 3; i++)
        round_to(c->dt, data[i], count(&in[i]));
    float *y;
    run(gemm_op, c, c->has_c ? 3 : 2, in, data, &od, &y);
    double *want = calloc((size_t)M * N, sizeof *want), *mag = calloc((size_t)M * N, sizeof *mag);
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            double s = 0, m = 0;
            for (uint32_t k = 0; k < K; k++) {
                double a = data[0][c->at ? k * M + i : i * K + k], b = data[1][c->bt ? j * K + k : k * N + j];
                s += a * b;
                m += fabs(a * b);
            }
            s *= c->alpha, m *= fabs(c->alpha);
            if (c->has_c) {
                /* C broadcast to [M, N]: rank 1 is [N], a dimension of 1 repeats */
                uint32_t r = c->c_rank, ci = 0;
                if (r == 1)
                    ci = c->c_shape[0] == 1 ? 0 : j;
                else
                    ci = (c->c_shape[0] == 1 ? 0 : i) * c->c_shape[1] + (c->c_shape[1] == 1 ? 0 : j);
                s += c->beta * data[2][ci];
                m += fabs(c->beta * data[2][ci]);
            }
            want[i * N + j] = s;
            mag[i * N + j] = m;
        }
    char what[96];
    snprintf(what, sizeof what, "gemm %s %ux%ux%u at=%d bt=%d c=%d", wnn_data_type_name(c->dt), M, N, K, c->at,
             c->bt, c->has_c);
    compare(what, c->dt, y, want, mag, (size_t)M * N);
    free(want), free(mag), free(y), free(data[0]), free(data[1]), free(data[2]);
}

static void test_gemm(void)
{
    /* scalar loads both ways (70 and 6 not multiples of 4), C of [N] */
    wnn_data_type f = WNN_DATA_TYPE_FLOAT32, h = WNN_DATA_TYPE_FLOAT16;
    check_gemm(&(gemm_case){f, 70, 66, 6, true, true, true, 1, {66, 0}, 0.5, -2.0});
    /* vec4 along m (A transposed, M = 68) and along n, C of [M, 1] */
    check_gemm(&(gemm_case){f, 68, 64, 8, true, false, true, 2, {68, 1}, 1.0, 1.0});
    /* B transposed with K a multiple of 4 (vec4 along k), no C */
    check_gemm(&(gemm_case){f, 33, 17, 20, false, true, false, 1, {1, 0}, 2.0, 1.0});
    /* a whole C, 128x128 blocks need a batch: 64x64 here, N not a multiple of 4 */
    check_gemm(&(gemm_case){f, 65, 63, 129, false, false, true, 2, {65, 63}, 1.0, 0.25});
    /* float16, both transposes and a C of [M, 1] (tiled), and N odd (the loop kernel) */
    check_gemm(&(gemm_case){h, 70, 66, 6, true, true, true, 2, {70, 1}, 0.5, -2.0});
    check_gemm(&(gemm_case){h, 9, 5, 12, false, false, true, 1, {5, 0}, 1.0, 1.0});
}

/* ---- conv2d ---------------------------------------------------------------------------- */

typedef struct conv_case {
    uint32_t nb, c, h, w;     /* input, logical */
    uint32_t o, kh, kw;       /* filter, logical */
    uint32_t groups, pad[4], stride[2], dil[2];
    wnn_input_layout layout;
    wnn_conv2d_filter_layout flayout;
    bool bias;
    wnn_data_type dt; /* 0: float32 */
} conv_case;

static wnn_operand *conv_op(wnn_graph_builder *b, wnn_operand **in, const void *arg)
{
    const conv_case *c = arg;
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    memcpy(o.padding, c->pad, sizeof o.padding);
    memcpy(o.strides, c->stride, sizeof o.strides);
    memcpy(o.dilations, c->dil, sizeof o.dilations);
    o.groups = c->groups;
    o.input_layout = c->layout;
    o.filter_layout = c->flayout;
    o.bias = c->bias ? in[2] : NULL;
    return wnn_conv2d(b, in[0], in[1], &o);
}

/* Index of filter element (o, i, y, x) in layout fl with sizes O, I, KH, KW. */
static size_t filter_index(wnn_conv2d_filter_layout fl, uint32_t O, uint32_t I, uint32_t KH, uint32_t KW,
                           uint32_t o, uint32_t i, uint32_t y, uint32_t x)
{
    switch (fl) {
    case WNN_CONV2D_FILTER_LAYOUT_HWIO: return (((size_t)y * KW + x) * I + i) * O + o;
    case WNN_CONV2D_FILTER_LAYOUT_OHWI: return (((size_t)o * KH + y) * KW + x) * I + i;
    case WNN_CONV2D_FILTER_LAYOUT_IHWO: return (((size_t)i * KH + y) * KW + x) * O + o;
    default: return (((size_t)o * I + i) * KH + y) * KW + x;
    }
}

static void check_conv(const conv_case *c)
{
    uint32_t I = c->c / c->groups, g_out = c->o / c->groups;
    bool nhwc = c->layout == WNN_INPUT_LAYOUT_NHWC;
    uint32_t fshape[4];
    switch (c->flayout) {
    case WNN_CONV2D_FILTER_LAYOUT_HWIO: memcpy(fshape, (uint32_t[]){c->kh, c->kw, I, c->o}, sizeof fshape); break;
    case WNN_CONV2D_FILTER_LAYOUT_OHWI: memcpy(fshape, (uint32_t[]){c->o, c->kh, c->kw, I}, sizeof fshape); break;
    case WNN_CONV2D_FILTER_LAYOUT_IHWO: memcpy(fshape, (uint32_t[]){I, c->kh, c->kw, c->o}, sizeof fshape); break;
    default: memcpy(fshape, (uint32_t[]){c->o, I, c->kh, c->kw}, sizeof fshape); break;
    }
    wnn_data_type dt = c->dt ? c->dt : WNN_DATA_TYPE_FLOAT32;
    wnn_operand_desc in[3] = {{dt, 4, {0}}, {dt, 4, {0}}, {dt, 1, {c->o}}}, od;
    memcpy(in[0].shape, nhwc ? (uint32_t[]){c->nb, c->h, c->w, c->c} : (uint32_t[]){c->nb, c->c, c->h, c->w},
           4 * sizeof(uint32_t));
    memcpy(in[1].shape, fshape, sizeof fshape);
    float *data[3] = {random_floats(count(&in[0]), c->h), random_floats(count(&in[1]), c->o),
                      random_floats(c->o, 3)};
    for (uint32_t i = 0; i < 3; i++)
        round_to(dt, data[i], count(&in[i]));
    float *y;
    run(conv_op, c, c->bias ? 3 : 2, in, data, &od, &y);
    uint32_t OH = (c->h + c->pad[0] + c->pad[1] - ((c->kh - 1) * c->dil[0] + 1)) / c->stride[0] + 1;
    uint32_t OW = (c->w + c->pad[2] + c->pad[3] - ((c->kw - 1) * c->dil[1] + 1)) / c->stride[1] + 1;
    size_t n = (size_t)c->nb * c->o * OH * OW;
    CHECK_EQ_INT(count(&od), n);
    double *want = calloc(n, sizeof *want), *mag = calloc(n, sizeof *mag);
    for (uint32_t b = 0; b < c->nb; b++)
        for (uint32_t o = 0; o < c->o; o++)
            for (uint32_t oy = 0; oy < OH; oy++)
                for (uint32_t ox = 0; ox < OW; ox++) {
                    uint32_t g = o / g_out;
                    double s = c->bias ? data[2][o] : 0, m = fabs(s);
                    for (uint32_t i = 0; i < I; i++)
                        for (uint32_t ky = 0; ky < c->kh; ky++)
                            for (uint32_t kx = 0; kx < c->kw; kx++) {
                                int iy = (int)(oy * c->stride[0] + ky * c->dil[0]) - (int)c->pad[0];
                                int ix = (int)(ox * c->stride[1] + kx * c->dil[1]) - (int)c->pad[2];
                                if (iy < 0 || iy >= (int)c->h || ix < 0 || ix >= (int)c->w)
                                    continue;
                                uint32_t ch = g * I + i;
                                size_t xi = nhwc ? (((size_t)b * c->h + iy) * c->w + ix) * c->c + ch
                                                 : (((size_t)b * c->c + ch) * c->h + iy) * c->w + ix;
                                double t = (double)data[0][xi] *
                                           data[1][filter_index(c->flayout, c->o, I, c->kh, c->kw, o, i, ky, kx)];
                                s += t;
                                m += fabs(t);
                            }
                    size_t yi = nhwc ? (((size_t)b * OH + oy) * OW + ox) * c->o + o
                                     : (((size_t)b * c->o + o) * OH + oy) * OW + ox;
                    want[yi] = s;
                    mag[yi] = m;
                }
    char what[128];
    snprintf(what, sizeof what, "conv2d [%u,%u,%u,%u] -> %u, %ux%u, groups %u, %s%s", c->nb, c->c, c->h, c->w, c->o,
             c->kh, c->kw, c->groups, nhwc ? "nhwc" : "nchw", dt == WNN_DATA_TYPE_FLOAT16 ? ", float16" : "");
    compare(what, dt, y, want, mag, n);
    free(want), free(mag), free(y), free(data[0]), free(data[1]), free(data[2]);
}

static void test_conv(void)
{
    /* 3x3, padding 1, bias: the common case */
    check_conv(&(conv_case){2, 16, 9, 11, 20, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, WNN_INPUT_LAYOUT_NCHW,
                            WNN_CONV2D_FILTER_LAYOUT_OIHW, true, 0});
    /* strides, dilations, asymmetric padding, two groups */
    check_conv(&(conv_case){1, 8, 13, 12, 12, 3, 2, 2, {1, 0, 2, 1}, {2, 2}, {2, 1}, WNN_INPUT_LAYOUT_NCHW,
                            WNN_CONV2D_FILTER_LAYOUT_OIHW, false, 0});
    /* nhwc with ohwi and bias */
    check_conv(&(conv_case){2, 12, 7, 7, 16, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, WNN_INPUT_LAYOUT_NHWC,
                            WNN_CONV2D_FILTER_LAYOUT_OHWI, true, 0});
    /* nhwc with hwio, three groups of 4 outputs, stride 2 */
    check_conv(&(conv_case){1, 9, 6, 5, 12, 2, 2, 3, {0, 1, 0, 1}, {2, 2}, {1, 1}, WNN_INPUT_LAYOUT_NHWC,
                            WNN_CONV2D_FILTER_LAYOUT_HWIO, false, 0});
    /* nchw with ihwo, 1x1 over 64 channels (K a multiple of the K step) */
    check_conv(&(conv_case){1, 64, 8, 8, 70, 1, 1, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}, WNN_INPUT_LAYOUT_NCHW,
                            WNN_CONV2D_FILTER_LAYOUT_IHWO, true, 0});
    /* depthwise (the direct kernel) */
    check_conv(&(conv_case){1, 6, 5, 5, 6, 3, 3, 6, {1, 1, 1, 1}, {1, 1}, {1, 1}, WNN_INPUT_LAYOUT_NCHW,
                            WNN_CONV2D_FILTER_LAYOUT_OIHW, true, 0});
    /* batch 3 of 128 outputs over 12x12: two blocks of rows, K = 27 (not a multiple of 4) */
    check_conv(&(conv_case){3, 3, 12, 12, 128, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, WNN_INPUT_LAYOUT_NCHW,
                            WNN_CONV2D_FILTER_LAYOUT_OIHW, false, 0});
    /* float16: tiled with shader-f16 (single halves stored, odd pixel counts,
    ** nhwc's neighbouring channels written by different invocations), the
    ** direct kernel without */
    wnn_data_type h = WNN_DATA_TYPE_FLOAT16;
    check_conv(&(conv_case){2, 16, 9, 11, 20, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, WNN_INPUT_LAYOUT_NCHW,
                            WNN_CONV2D_FILTER_LAYOUT_OIHW, true, h});
    check_conv(&(conv_case){2, 12, 7, 7, 17, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, WNN_INPUT_LAYOUT_NHWC,
                            WNN_CONV2D_FILTER_LAYOUT_OHWI, true, h});
    check_conv(&(conv_case){1, 8, 13, 12, 12, 3, 2, 2, {1, 0, 2, 1}, {2, 2}, {2, 1}, WNN_INPUT_LAYOUT_NCHW,
                            WNN_CONV2D_FILTER_LAYOUT_HWIO, false, h});
    check_conv(&(conv_case){3, 3, 12, 12, 128, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, WNN_INPUT_LAYOUT_NHWC,
                            WNN_CONV2D_FILTER_LAYOUT_IHWO, false, h});
    /* nchw with an even pixel count: tiled without shader-f16 too (a word
    ** holds two pixels of a plane), with bias, groups and 128x128 blocks */
    check_conv(&(conv_case){2, 16, 10, 12, 20, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, WNN_INPUT_LAYOUT_NCHW,
                            WNN_CONV2D_FILTER_LAYOUT_OIHW, true, h});
    check_conv(&(conv_case){1, 8, 14, 13, 12, 3, 2, 2, {1, 1, 2, 1}, {2, 2}, {1, 1}, WNN_INPUT_LAYOUT_NCHW,
                            WNN_CONV2D_FILTER_LAYOUT_HWIO, true, h});
    check_conv(&(conv_case){4, 32, 16, 16, 128, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1}, WNN_INPUT_LAYOUT_NCHW,
                            WNN_CONV2D_FILTER_LAYOUT_OIHW, true, h});
}

static bool listed(void)
{
    for (uint32_t i = 0; i < wnn_device_count(); i++) {
        wnn_device_info info;
        if (wnn_device_get_info(i, &info) == WNN_OK && strcmp(info.name, "webgpu") == 0)
            return true;
    }
    return false;
}

int main(void)
{
    test_use_private_lavapipe();
    if (!listed()) {
        printf("skipped: no webgpu device (src/backends/webgpu/setup.sh, docs/webgpu.md)\n");
        return 77;
    }
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = "webgpu";
    CHECK_OK(wnn_context_create(&o, &ctx));
    if (ctx) {
        test_matmul();
        test_gemm();
        test_conv();
    }
    wnn_context_release(ctx);
    TEST_DONE();
}
