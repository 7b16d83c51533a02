/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-cpu-kernels.c -- the cpu backend's fast paths on shapes the WPT
** vectors are too small to reach, against references in this file:
** transposes by tiles (every element size, random permutations), softmax
** along the last axis and layerNormalization over trailing axes (float32
** and float16 rows, SIMD exp, extreme and subnormal results), gelu, exp and
** sigmoid against WebNN's 18, 32 and 34 ulp, erf, tanh, log, sin, cos,
** tan, sqrt, reciprocal, softplus and elu, pow's square, products with a
** padded copy of their constant B, casts between float32 and float16,
** float32 maxPool2d with
** NaN, the float reductions and argMin/argMax over random shapes and axes
** (both SIMD paths, their column and lane tails, NaN) against double, and a
** float16 graph computed in float32 (an output that later nodes read, a
** constant, two outputs).
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "test.h"
#include "wnn/wnn.h"

static wnn_context *ctx;
static uint32_t seed = 7;

static uint32_t rnd(uint32_t n)
{
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
}

/* Builds out from one input "x" of desc xd, runs it on bytes x and reads the
** result into y (y_bytes). */
static bool run1(wnn_graph_builder *b, wnn_operand *out, const wnn_operand_desc *xd, const void *x, void *y,
                 size_t y_bytes)
{
    wnn_named_operand named = {"y", out};
    wnn_graph *g = NULL;
    wnn_tensor *tx = NULL, *ty = NULL;
    wnn_operand_desc od = {0};
    if (out)
        wnn_operand_get_desc(out, &od); /* operands die with their builder */
    bool ok = out && wnn_graph_builder_build(b, &named, 1, &g) == WNN_OK;
    wnn_graph_builder_release(b);
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = xd->data_type, td.rank = xd->rank, td.writable = true;
    memcpy(td.shape, xd->shape, sizeof td.shape);
    ok = ok && wnn_context_create_tensor(ctx, &td, &tx) == WNN_OK &&
         wnn_context_write_tensor(ctx, tx, x, (size_t)wnn_operand_desc_byte_length(xd)) == WNN_OK;
    td.data_type = od.data_type, td.rank = od.rank, td.writable = false, td.readable = true;
    memcpy(td.shape, od.shape, sizeof td.shape);
    ok = ok && wnn_context_create_tensor(ctx, &td, &ty) == WNN_OK;
    wnn_named_tensor ins = {"x", tx}, outs = {"y", ty};
    ok = ok && wnn_context_dispatch(ctx, g, &ins, 1, &outs, 1) == WNN_OK &&
         wnn_context_read_tensor_sync(ctx, ty, y, y_bytes) == WNN_OK;
    CHECK(ok);
    wnn_tensor_release(tx);
    wnn_tensor_release(ty);
    wnn_graph_release(g);
    return ok;
}

static void transposes(void)
{
    static const wnn_data_type types[4] = {WNN_DATA_TYPE_UINT8, WNN_DATA_TYPE_FLOAT16, WNN_DATA_TYPE_FLOAT32,
                                           WNN_DATA_TYPE_INT64};
    for (int k = 0; k < 56; k++) {
        wnn_operand_desc d = {types[k % 4], 2 + rnd(3), {0}};
        size_t n = 1, size = wnn_data_type_size(d.data_type);
        uint32_t perm[4] = {0, 1, 2, 3};
        for (uint32_t i = 0; i < d.rank; i++)
            n *= d.shape[i] = i + 2 < d.rank ? 1 + rnd(4) : 16 + rnd(60);
        for (uint32_t i = d.rank; i-- > 1;) {
            uint32_t j = rnd(i + 1), t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        if (k >= 40) { /* images into nhwc, [2, C, 9, 37] -> [2, 9, 37, C] for C 2 to 5: short output rows */
            const uint32_t shape[4] = {2, 2 + (uint32_t)(k - 40) / 4, 9, 37}, nhwc[4] = {0, 2, 3, 1};
            d.rank = 4;
            memcpy(d.shape, shape, sizeof shape);
            memcpy(perm, nhwc, sizeof nhwc);
            n = (size_t)shape[0] * shape[1] * shape[2] * shape[3];
        }
        unsigned char *x = malloc(n * size), *y = malloc(n * size);
        for (size_t i = 0; i < n * size; i++)
            x[i] = (unsigned char)rnd(251); /* bytes: no float16 NaN is ever made */
        if (d.data_type == WNN_DATA_TYPE_FLOAT16)
            for (size_t i = 0; i < n; i++)
                x[2 * i + 1] &= 0x3f;
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        wnn_operand *in = wnn_graph_builder_input(b, "x", &d);
        if (run1(b, wnn_transpose(b, in, perm), &d, x, y, n * size)) {
            size_t in_stride[4], step = 1, bad = 0;
            for (uint32_t i = d.rank; i-- > 0;)
                in_stride[i] = step, step *= d.shape[i];
            for (size_t o = 0; o < n; o++) {
                size_t rest = o, at = 0;
                for (uint32_t i = d.rank; i-- > 0;) {
                    at += rest % d.shape[perm[i]] * in_stride[perm[i]];
                    rest /= d.shape[perm[i]];
                }
                bad += memcmp(y + o * size, x + at * size, size) != 0;
            }
            if (bad)
                fprintf(stderr, "transpose case %d: %zu elements wrong\n", k, bad);
            CHECK(bad == 0);
        }
        free(x);
        free(y);
    }
}

/* float32 values, or float16 ones (rounded) when half. */
static void *values(float *f, size_t n, bool half, float spread)
{
    uint16_t *h = malloc(n * 2);
    for (size_t i = 0; i < n; i++) {
        f[i] = ((float)rnd(20001) / 10000.0f - 1.0f) * spread;
        h[i] = wnn__float_to_half(f[i]);
        if (half)
            f[i] = wnn__half_to_float(h[i]);
    }
    return h;
}

static double got_at(const void *y, size_t i, bool half)
{
    return half ? wnn__half_to_float(((const uint16_t *)y)[i]) : ((const float *)y)[i];
}

static void softmaxes(void)
{
    for (int k = 0; k < 24; k++) {
        bool half = k % 3 == 2;
        size_t rows = 1 + rnd(40), len = 1 + rnd(k < 12 ? 40 : 3000);
        float spread = k % 4 == 0 ? 120.0f : 8.0f; /* wide: results down to 0 through subnormals */
        float *f = malloc(rows * len * 4);
        void *h = values(f, rows * len, half, spread), *y = malloc(rows * len * 4);
        wnn_operand_desc d = {half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, 2, {(uint32_t)rows, (uint32_t)len}};
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        if (run1(b, wnn_softmax(b, wnn_graph_builder_input(b, "x", &d), 1), &d, half ? h : (void *)f, y,
                 rows * len * (half ? 2 : 4))) {
            size_t bad = 0;
            for (size_t r = 0; r < rows; r++) {
                const float *x = f + r * len;
                double m = x[0], s = 0;
                for (size_t i = 1; i < len; i++)
                    m = x[i] > m ? x[i] : m;
                for (size_t i = 0; i < len; i++)
                    s += exp((double)x[i] - m);
                for (size_t i = 0; i < len; i++) {
                    double want = exp((double)x[i] - m) / s, got = got_at(y, r * len + i, half);
                    /* a few ulp of the type, the rounding of x - max in float32
                    ** (exp turns its absolute error into a relative one), and
                    ** the smallest subnormal */
                    double arg = fabs((double)x[i] - m) * 0x1p-24;
                    double tol = want * ((half ? 4e-3 : 2e-6) + arg) + (half ? 6e-8 : 1.5e-45);
                    if (!(fabs(got - want) <= tol) && bad++ < 3)
                        fprintf(stderr, "softmax case %d row %zu [%zu]: %.9g, want %.9g\n", k, r, i, got, want);
                }
            }
            CHECK(bad == 0);
        }
        free(f);
        free(h);
        free(y);
    }
}

static void layer_norms(void)
{
    for (int k = 0; k < 16; k++) {
        bool half = k % 2, affine = k % 4 < 2;
        uint32_t a = 2 + rnd(5), b1 = 1 + rnd(30), c = 1 + rnd(300);
        wnn_operand_desc d = {half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, 3, {a, b1, c}};
        size_t n = (size_t)a * b1 * c, len = (size_t)b1 * c, rows = a;
        bool two = k % 3 == 0; /* normalize over the last two axes, else the last one */
        if (!two)
            len = c, rows = (size_t)a * b1;
        float *f = malloc(n * 4), *sf = malloc(len * 4), *bf = malloc(len * 4);
        void *h = values(f, n, half, 3.0f), *sh = values(sf, len, half, 2.0f), *bh = values(bf, len, half, 1.0f);
        void *y = malloc(n * 4);
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        wnn_layer_normalization_options o = WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
        const uint32_t axes[2] = {two ? 1 : 2, 2};
        o.axes = axes;
        o.axes_count = two ? 2 : 1;
        wnn_operand_desc pd = {d.data_type, two ? 2 : 1, {two ? b1 : c, c}};
        if (affine) {
            o.scale = wnn_graph_builder_constant(b, &pd, half ? sh : (void *)sf, len * (half ? 2 : 4));
            o.bias = wnn_graph_builder_constant(b, &pd, half ? bh : (void *)bf, len * (half ? 2 : 4));
        }
        if (run1(b, wnn_layer_normalization(b, wnn_graph_builder_input(b, "x", &d), &o), &d, half ? h : (void *)f,
                 y, n * (half ? 2 : 4))) {
            size_t bad = 0;
            for (size_t r = 0; r < rows; r++) {
                double mean = 0, var = 0;
                for (size_t i = 0; i < len; i++)
                    mean += f[r * len + i];
                mean /= (double)len;
                for (size_t i = 0; i < len; i++)
                    var += (f[r * len + i] - mean) * (f[r * len + i] - mean);
                var /= (double)len;
                for (size_t i = 0; i < len; i++) {
                    double want = (f[r * len + i] - mean) / sqrt(var + 1e-5);
                    if (affine)
                        want = want * sf[i] + bf[i];
                    double got = got_at(y, r * len + i, half);
                    if (!(fabs(got - want) <= (half ? 1e-2 : 1e-5) * (fabs(want) + 1)) && bad++ < 3)
                        fprintf(stderr, "layerNorm case %d row %zu [%zu]: %.9g, want %.9g\n", k, r, i, got, want);
                }
            }
            CHECK(bad == 0);
        }
        free(f), free(sf), free(bf), free(h), free(sh), free(bh), free(y);
    }
}

/* The distance in float32 steps between a and the float nearest to w. */
static double ulps(float a, double w)
{
    float b = (float)w;
    if (a == b)
        return 0;
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    ia = ia < 0 ? INT32_MIN - ia : ia; /* sign-magnitude to a monotonic line */
    ib = ib < 0 ? INT32_MIN - ib : ib;
    return fabs((double)ia - (double)ib);
}

/* gelu over [-16, 16] densely, against double: WebNN allows 18 ulp. */
static void gelus(void)
{
    size_t n = 1 << 18;
    float *x = malloc(n * 4), *y = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        x[i] = -16.0f + 32.0f * (float)i / (float)n;
    x[0] = 0.0f, x[1] = -0.0f, x[2] = INFINITY, x[3] = 1e-30f, x[4] = -1e-30f;
    /* past the clamp of the SIMD path's erfc, and where x^2 overflows */
    x[5] = -1e20f, x[6] = 1e20f, x[7] = -30.0f, x[8] = 30.0f, x[9] = -3e38f, x[10] = NAN, x[11] = -INFINITY;
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {(uint32_t)n}};
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    if (run1(b, wnn_gelu(b, wnn_graph_builder_input(b, "x", &d)), &d, x, y, n * 4)) {
        double worst = 0;
        size_t at = 0;
        CHECK(isnan(y[10]));
        CHECK(isnan(y[11])); /* -inf * Phi(-inf) is -inf * 0, on every width */
        for (size_t i = 0; i < n; i++) {
            if (i == 10 || i == 11)
                continue;
            double u = ulps(y[i], 0.5 * x[i] * erfc(-x[i] * 0.70710678118654752440));
            if (u > worst)
                worst = u, at = i;
        }
        if (worst > 18)
            fprintf(stderr, "gelu(%.9g) = %.9g: %.0f ulp\n", x[at], y[at], worst);
        CHECK(worst <= 18);
    }
    free(x);
    free(y);
}

/* Distance of two float16 bit patterns in ulp (sign-magnitude on a line,
** +-0 equal, as WebNN's float16 comparison). */
static int half_ulps(uint16_t a, uint16_t b)
{
    int ia = a & 0x8000 ? -(a & 0x7fff) : a, ib = b & 0x8000 ? -(b & 0x7fff) : b;
    return ia > ib ? ia - ib : ib - ia;
}

/* float16 gelu on every one of the 65536 inputs (the graph's float16 path):
** within 1 ulp of the float32 kernel rounded to float16, and within WebNN's
** 18 ulp of gelu in double rounded; NaN and -inf give NaN. */
static void gelus_half(void)
{
    size_t n = 1 << 16;
    uint16_t *x = malloc(n * 2), *y = malloc(n * 2);
    float *xf = malloc(n * 4), *yf = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        x[i] = (uint16_t)i;
        xf[i] = wnn__half_to_float(x[i]);
    }
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT16, 1, {(uint32_t)n}};
    wnn_operand_desc df = {WNN_DATA_TYPE_FLOAT32, 1, {(uint32_t)n}};
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    bool ran = run1(b, wnn_gelu(b, wnn_graph_builder_input(b, "x", &d)), &d, x, y, n * 2);
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    ran = ran && run1(b, wnn_gelu(b, wnn_graph_builder_input(b, "x", &df)), &df, xf, yf, n * 4);
    if (ran) {
        int worst_f32 = 0, worst_ref = 0;
        size_t at = 0;
        for (size_t i = 0; i < n; i++) {
            uint16_t f32 = wnn__float_to_half(yf[i]);
            uint16_t ref = wnn__float_to_half((float)(0.5 * xf[i] * erfc(-xf[i] * 0.70710678118654752440)));
            if (xf[i] != xf[i] || xf[i] == -INFINITY) { /* NaN; -inf * Phi(-inf) is -inf * 0 */
                CHECK(wnn__half_to_float(y[i]) != wnn__half_to_float(y[i]));
                continue;
            }
            int u = half_ulps(y[i], f32), v = half_ulps(y[i], ref);
            if (u > worst_f32)
                worst_f32 = u, at = i;
            worst_ref = v > worst_ref ? v : worst_ref;
        }
        if (worst_f32 > 1 || worst_ref > 18)
            fprintf(stderr, "float16 gelu(%.9g) = %.9g: %d ulp from the float32 kernel, %d from double at worst\n",
                    xf[at], wnn__half_to_float(y[at]), worst_f32, worst_ref);
        CHECK(worst_f32 <= 1);
        CHECK(worst_ref <= 18);
    }
    free(x);
    free(y);
    free(xf);
    free(yf);
}

/* exp, sigmoid and erf densely over their ranges (into the subnormal
** results), against double: WebNN allows 32 and 34 ulp for the first two;
** erf's vectors allow 1/1024 absolute, the SIMD path promises 8 ulp. */
static void exps(void)
{
    static const char *names[3] = {"exp", "sigmoid", "erf"};
    static const float lo[3] = {-104.0f, -110.0f, -6.0f}, hi[3] = {88.7f, 30.0f, 6.0f};
    static const double limit[3] = {32, 34, 8};
    size_t n = 1 << 18;
    float *x = malloc(n * 4), *y = malloc(n * 4);
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < n; i++)
            x[i] = lo[k] + (hi[k] - lo[k]) * (float)i / (float)n;
        x[0] = 0.0f, x[1] = -0.0f, x[2] = INFINITY, x[3] = -INFINITY, x[4] = 1e-30f;
        wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {(uint32_t)n}};
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        wnn_operand *in = wnn_graph_builder_input(b, "x", &d);
        wnn_operand *out = k == 0 ? wnn_exp(b, in) : k == 1 ? wnn_sigmoid(b, in) : wnn_erf(b, in);
        if (run1(b, out, &d, x, y, n * 4)) {
            double worst = 0;
            size_t at = 0;
            for (size_t i = 0; i < n; i++) {
                double v = x[i];
                double want = k == 0 ? exp(v) : k == 1 ? 1.0 / (1.0 + exp(-v)) : erf(v);
                double u = ulps(y[i], want);
                if (u > worst)
                    worst = u, at = i;
            }
            if (worst > limit[k])
                fprintf(stderr, "%s(%.9g) = %.9g: %.0f ulp\n", names[k], x[at], y[at], worst);
            CHECK(worst <= limit[k]);
        }
    }
    free(x);
    free(y);
}

/* float16 sqrt and reciprocal on every one of the 65536 inputs (eight at a
** time in the registers, the tail by blocks): the float32 operation on the
** widened input, rounded to float16 once (NaN for NaN, the bits otherwise). */
static void ieee_half_rows(void)
{
    size_t n = (1 << 16) + 5; /* a tail past the vectors */
    uint16_t *x = malloc(n * 2), *y = malloc(n * 2);
    for (size_t i = 0; i < n; i++)
        x[i] = (uint16_t)(i * 40503u); /* every pattern, shuffled, and five again */
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT16, 1, {(uint32_t)n}};
    for (int k = 0; k < 2; k++) {
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        wnn_operand *in = wnn_graph_builder_input(b, "x", &d);
        if (!run1(b, k ? wnn_reciprocal(b, in) : wnn_sqrt(b, in), &d, x, y, n * 2))
            continue;
        int wrong = 0;
        for (size_t i = 0; i < n; i++) {
            volatile float v = wnn__half_to_float(x[i]);
            float r = k ? 1.0f / v : sqrtf(v);
            uint16_t want = wnn__float_to_half(r);
            bool ok = r != r ? wnn__half_to_float(y[i]) != wnn__half_to_float(y[i]) : y[i] == want;
            if (!ok && wrong++ < 3)
                fprintf(stderr, "float16 %s(%.9g) = %#06x, want %#06x\n", k ? "reciprocal" : "sqrt", (double)v, y[i],
                        want);
        }
        CHECK(wrong == 0);
    }
    free(x);
    free(y);
}

/* float16 exp, sigmoid, erf, tanh, log and elu on every one of the 65536
** inputs (and a tail): the float32 graph's result on the widened inputs,
** rounded to float16 once (NaN where it is NaN). */
static void vec_half_rows(void)
{
    static const char *names[] = {"exp", "sigmoid", "erf", "tanh", "log", "elu"};
    static const double alpha = 0.7;
    wnn_elu_options eo = WNN_ELU_OPTIONS_INIT;
    eo.alpha = &alpha;
    size_t n = (1 << 16) + 5;
    uint16_t *x = malloc(n * 2), *y = malloc(n * 2);
    float *xf = malloc(n * 4), *yf = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        x[i] = (uint16_t)(i * 40503u);
        xf[i] = wnn__half_to_float(x[i]);
    }
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT16, 1, {(uint32_t)n}};
    wnn_operand_desc df = {WNN_DATA_TYPE_FLOAT32, 1, {(uint32_t)n}};
    for (int k = 0; k < 6; k++) {
        bool ran = true;
        for (int half = 0; half < 2; half++) {
            wnn_graph_builder *b;
            CHECK_OK(wnn_graph_builder_create(ctx, &b));
            wnn_operand *in = wnn_graph_builder_input(b, "x", half ? &d : &df), *out;
            switch (k) {
            case 0: out = wnn_exp(b, in); break;
            case 1: out = wnn_sigmoid(b, in); break;
            case 2: out = wnn_erf(b, in); break;
            case 3: out = wnn_tanh(b, in); break;
            case 4: out = wnn_log(b, in); break;
            default: out = wnn_elu(b, in, &eo); break;
            }
            ran = ran && (half ? run1(b, out, &d, x, y, n * 2) : run1(b, out, &df, xf, yf, n * 4));
        }
        if (!ran)
            continue;
        int wrong = 0;
        for (size_t i = 0; i < n; i++) {
            uint16_t want = wnn__float_to_half(yf[i]);
            bool ok = yf[i] != yf[i] ? wnn__half_to_float(y[i]) != wnn__half_to_float(y[i]) : y[i] == want;
            if (!ok && wrong++ < 3)
                fprintf(stderr, "float16 %s(%.9g) = %#06x, want %#06x\n", names[k], (double)xf[i], y[i], want);
        }
        CHECK(wrong == 0);
    }
    free(x);
    free(y);
    free(xf);
    free(yf);
}

/* pow with a scalar exponent of 2 is computed as x * x: the same bits as
** powf's square on random float32 values and the special ones (signed
** zeros, subnormals, overflow, infinities, NaN), in float32 and float16,
** with the exponent a scalar constant and a [1] one, and 3 still through
** powf; the float16 results are the float32 ones rounded once. Those are
** the cpu kernels' (cpu and null); another test device computes pow its own
** way (CUDA's powf is 1 ulp from glibc's at times): there within 32 float32
** ulps and 1 float16 ulp, the same infinities, NaN where NaN is wanted. */
static void pow_squares(void)
{
    const char *dev = test_device();
    bool own = strcmp(dev, "cpu") == 0 || strcmp(dev, "null") == 0;
    static const float special[] = {0.0f, -0.0f, 1e-40f, -1e-40f, 3e19f, -3e19f, INFINITY, -INFINITY, NAN, 1.0f, -1.5f};
    size_t n = 4099;
    float *x = malloc(n * 4), *y = malloc(n * 4);
    uint16_t *xh = malloc(n * 2), *yh = malloc(n * 2);
    for (size_t i = 0; i < n; i++) {
        uint32_t bits = (uint32_t)rnd(1u << 16) << 16 | rnd(1u << 16);
        memcpy(&x[i], &bits, 4);
        if (i < sizeof special / sizeof *special)
            x[i] = special[i];
        xh[i] = wnn__float_to_half(i % 2 ? x[i] : x[i] * 1e-36f);
    }
    static const float exponents[3] = {2.0f, 2.0f, 3.0f};
    for (int k = 0; k < 3; k++) {
        for (int half = 0; half < 2; half++) {
            wnn_operand_desc d = {half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, 1, {(uint32_t)n}};
            wnn_operand_desc ed = {d.data_type, k == 1, {1}};
            uint16_t eh = wnn__float_to_half(exponents[k]);
            wnn_graph_builder *b;
            CHECK_OK(wnn_graph_builder_create(ctx, &b));
            wnn_operand *e = wnn_graph_builder_constant(b, &ed, half ? (const void *)&eh : &exponents[k], half ? 2 : 4);
            wnn_operand *out = wnn_pow(b, wnn_graph_builder_input(b, "x", &d), e);
            if (!(half ? run1(b, out, &d, xh, yh, n * 2) : run1(b, out, &d, x, y, n * 4)))
                continue;
            int wrong = 0;
            for (size_t i = 0; i < n; i++) {
                float in = half ? wnn__half_to_float(xh[i]) : x[i], want = powf(in, exponents[k]);
                float got = half ? wnn__half_to_float(yh[i]) : y[i];
                if (half)
                    want = wnn__half_to_float(wnn__float_to_half(want));
                bool ok = want != want ? got != got : memcmp(&got, &want, 4) == 0;
                if (!ok && !own && want == want && got == got && isfinite(want) == isfinite(got))
                    ok = half ? half_ulps(wnn__float_to_half(got), wnn__float_to_half(want)) <= 1
                              : !isfinite(want) ? got == want : ulps(got, want) <= 32;
                if (!ok && wrong++ < 3)
                    fprintf(stderr, "%s pow(%.9g, %g) = %.9g, want %.9g\n", half ? "float16" : "float32", (double)in,
                            (double)exponents[k], (double)got, (double)want);
            }
            CHECK(wrong == 0);
        }
    }
    free(x);
    free(y);
    free(xh);
    free(yh);
}

/* cast between float32 and float16 (whole arrays through F16C where the
** processor has it): every float16 value widened, and random float32 bit
** patterns with the special values narrowed, against core/half.h's
** per-element conversions (a NaN only needs to stay a NaN). */
static void half_casts(void)
{
    size_t n = (1 << 16) + 3;
    uint16_t *h = malloc(n * 2), *hy = malloc(n * 2);
    float *f = malloc(n * 4), *fy = malloc(n * 4);
    static const float special[] = {0.0f, -0.0f, 65504.0f, 65520.0f, -65520.0f, 5.96e-8f, 2.98e-8f, 2.99e-8f,
                                    1e-40f, INFINITY, -INFINITY, NAN, 6.1035156e-5f, 6.1032e-5f};
    for (size_t i = 0; i < n; i++) {
        h[i] = (uint16_t)i;
        uint32_t bits = (uint32_t)rnd(1u << 16) << 16 | rnd(1u << 16);
        memcpy(&f[i], &bits, 4);
        if (i % 3 == 0) /* most of the range a float16 holds */
            f[i] = ldexpf((float)rnd(1u << 20) / (1u << 20) - 0.5f, (int)rnd(40) - 26);
        if (i < sizeof special / sizeof *special)
            f[i] = special[i];
    }
    for (int to_half = 0; to_half < 2; to_half++) {
        wnn_operand_desc d = {to_half ? WNN_DATA_TYPE_FLOAT32 : WNN_DATA_TYPE_FLOAT16, 1, {(uint32_t)n}};
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        wnn_operand *out = wnn_cast(b, wnn_graph_builder_input(b, "x", &d),
                                    to_half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32);
        if (!(to_half ? run1(b, out, &d, f, hy, n * 2) : run1(b, out, &d, h, fy, n * 4)))
            continue;
        int wrong = 0;
        for (size_t i = 0; i < n; i++) {
            bool ok;
            if (to_half) {
                uint16_t want = wnn__float_to_half(f[i]);
                ok = f[i] != f[i] ? (hy[i] & 0x7c00) == 0x7c00 && (hy[i] & 0x3ff) : hy[i] == want;
            } else {
                float want = wnn__half_to_float(h[i]);
                ok = want != want ? fy[i] != fy[i] : memcmp(&fy[i], &want, 4) == 0;
            }
            if (!ok && wrong++ < 3)
                fprintf(stderr, "cast %s of element %zu wrong\n", to_half ? "to float16" : "to float32", i);
        }
        CHECK(wrong == 0);
    }
    free(h);
    free(hy);
    free(f);
    free(fy);
}

/* cast between float32 and the integer types that convert in float
** (k_elementwise.c): float32 -> int32, int8 and uint8 truncate toward zero
** and saturate, NaN gives 0, as a reference through double says; int32 ->
** float32 rounds to nearest even, as (float)(double)x does. Random bit
** patterns, values near each bound and the special ones. */
static double ref_trunc_sat(double d, double lo, double hi)
{
    if (d != d)
        return 0.0;
    d = trunc(d);
    return d < lo ? lo : d > hi ? hi : d;
}

static void int_casts(void)
{
    size_t n = (1 << 16) + 5;
    float *f = malloc(n * 4), *fy = malloc(n * 4);
    int32_t *iy = malloc(n * 4), *iv = malloc(n * 4);
    uint8_t *by = malloc(n);
    static const float special[] = {0.0f, -0.0f, 0.5f, -0.5f, -0.99f, 127.0f, 127.9f, 128.0f, -128.0f, -128.9f,
                                    -129.0f, 255.0f, 255.5f, 256.0f, 2147483520.0f, 2147483648.0f, -2147483648.0f,
                                    -2147483904.0f, 3e9f, -3e9f, 1e-40f, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < n; i++) {
        uint32_t bits = (uint32_t)rnd(1u << 16) << 16 | rnd(1u << 16);
        memcpy(&f[i], &bits, 4);
        if (i % 3 == 0) /* values the integers hold, and some beyond */
            f[i] = ldexpf((float)rnd(1u << 20) / (1u << 20) - 0.5f, (int)rnd(36) - 2);
        if (i < sizeof special / sizeof *special)
            f[i] = special[i];
        iv[i] = (int32_t)((uint32_t)rnd(1u << 16) << 16 | rnd(1u << 16));
        if (i % 5 == 0)
            iv[i] = (int32_t)rnd(1u << 26) - (1 << 25); /* some that float holds exactly */
    }
    iv[0] = INT32_MIN;
    iv[1] = INT32_MAX;
    iv[2] = 16777217; /* halfway: rounds to even, 16777216 */
    static const struct {
        wnn_data_type to;
        double lo, hi;
    } to_int[] = {{WNN_DATA_TYPE_INT32, -2147483648.0, 2147483647.0},
                  {WNN_DATA_TYPE_INT8, -128.0, 127.0},
                  {WNN_DATA_TYPE_UINT8, 0.0, 255.0}};
    wnn_operand_desc df = {WNN_DATA_TYPE_FLOAT32, 1, {(uint32_t)n}};
    for (size_t t = 0; t < sizeof to_int / sizeof *to_int; t++) {
        bool is32 = to_int[t].to == WNN_DATA_TYPE_INT32;
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        wnn_operand *out = wnn_cast(b, wnn_graph_builder_input(b, "x", &df), to_int[t].to);
        if (!run1(b, out, &df, f, is32 ? (void *)iy : (void *)by, n * (is32 ? 4 : 1)))
            continue;
        int wrong = 0;
        for (size_t i = 0; i < n; i++) {
            double want = ref_trunc_sat(f[i], to_int[t].lo, to_int[t].hi);
            double got = is32 ? (double)iy[i] : to_int[t].to == WNN_DATA_TYPE_INT8 ? (double)(int8_t)by[i] : by[i];
            if (got != want && wrong++ < 3)
                fprintf(stderr, "cast of %g to type %d: %g, want %g\n", f[i], (int)to_int[t].to, got, want);
        }
        CHECK(wrong == 0);
    }
    wnn_operand_desc di = {WNN_DATA_TYPE_INT32, 1, {(uint32_t)n}};
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand *out = wnn_cast(b, wnn_graph_builder_input(b, "x", &di), WNN_DATA_TYPE_FLOAT32);
    if (run1(b, out, &di, iv, fy, n * 4)) {
        int wrong = 0;
        for (size_t i = 0; i < n; i++) {
            float want = (float)(double)iv[i];
            if (memcmp(&fy[i], &want, 4) != 0 && wrong++ < 3)
                fprintf(stderr, "cast of %d to float32: %.9g, want %.9g\n", (int)iv[i], fy[i], want);
        }
        CHECK(wrong == 0);
    }
    free(f);
    free(fy);
    free(iy);
    free(iv);
    free(by);
}

/* Products whose constant B has rows a multiple of 512 floats long, which
** the cpu device multiplies from a copy with padded rows (kernels.h,
** wnn__padded_b), against double: matmul of a [2,3,K] input (six rows of A
** against one B), with a [N] bias added after it (folded into the
** product), gemm with c, alpha and beta, and gemm of a transposed A; and
** one row of A, which takes no copy. */
static void padded_products(void)
{
    enum { K = 40, N = 1024 };
    float *bw = malloc(sizeof(float) * K * N), *bias = malloc(sizeof(float) * N), *a = malloc(sizeof(float) * 6 * K);
    float *y = malloc(sizeof(float) * 6 * N);
    for (size_t i = 0; i < (size_t)K * N; i++)
        bw[i] = (float)rnd(2001) / 1000.0f - 1.0f;
    for (size_t i = 0; i < N; i++)
        bias[i] = (float)rnd(2001) / 1000.0f - 1.0f;
    for (size_t i = 0; i < 6 * K; i++)
        a[i] = (float)rnd(2001) / 1000.0f - 1.0f;
    const double alpha = 0.5, beta = 2.0;
    for (int k = 0; k < 5; k++) {
        /* rows of A, and whether A is stored [K, rows] */
        uint32_t rows = k == 4 ? 1 : k < 2 ? 6 : 5;
        bool at = k == 3;
        wnn_operand_desc ad = {WNN_DATA_TYPE_FLOAT32, k < 2 ? 3 : 2, {0}};
        if (k < 2)
            ad.shape[0] = 2, ad.shape[1] = 3, ad.shape[2] = K;
        else if (at)
            ad.shape[0] = K, ad.shape[1] = rows;
        else
            ad.shape[0] = rows, ad.shape[1] = K;
        wnn_operand_desc bd = {WNN_DATA_TYPE_FLOAT32, 2, {K, N}}, cd = {WNN_DATA_TYPE_FLOAT32, 1, {N}};
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        wnn_operand *x = wnn_graph_builder_input(b, "x", &ad);
        wnn_operand *w = wnn_graph_builder_constant(b, &bd, bw, sizeof(float) * K * N), *out;
        wnn_operand *c = wnn_graph_builder_constant(b, &cd, bias, sizeof(float) * N);
        if (k < 2) {
            out = wnn_matmul(b, x, w);
            if (k == 1)
                out = wnn_add(b, out, c);
        } else {
            wnn_gemm_options go = WNN_GEMM_OPTIONS_INIT;
            go.c = c, go.alpha = &alpha, go.beta = &beta, go.a_transpose = at;
            out = wnn_gemm(b, x, w, &go);
        }
        if (!run1(b, out, &ad, a, y, sizeof(float) * rows * N))
            continue;
        int wrong = 0;
        for (uint32_t i = 0; i < rows; i++)
            for (uint32_t j = 0; j < N; j++) {
                double sum = 0, mag = 0;
                for (uint32_t p = 0; p < K; p++) {
                    double t = (double)(at ? a[p * rows + i] : a[i * K + p]) * bw[p * N + j];
                    sum += t, mag += fabs(t);
                }
                double scale = k >= 2 ? alpha : 1;
                double want = scale * sum + (k == 1 ? bias[j] : k >= 2 ? beta * bias[j] : 0);
                double got = y[i * N + j];
                if (!(fabs(got - want) <= 1e-5 * (scale * mag + fabs(want) + 1)) && wrong++ < 3)
                    fprintf(stderr, "product %d: y[%u,%u] = %.9g, want %.9g\n", k, i, j, got, want);
            }
        CHECK(wrong == 0);
    }
    free(bw);
    free(bias);
    free(a);
    free(y);
}

/* The functions whose rows are SLEEF's or the processor's where they are
** there (vec_libm.h), else scalar loops: tanh, log, sin, cos, tan, sqrt,
** reciprocal, softplus and elu over dense ranges and their special values,
** against double. WebNN allows 16 ulp for tanh and 18 for softplus and elu
** (an absolute 1/1024 for the others); these hold all to a few ulp. */
enum { LM_TANH, LM_LOG, LM_SIN, LM_COS, LM_TAN, LM_SQRT, LM_RECIPROCAL, LM_SOFTPLUS, LM_ELU, LM_COUNT };

static double libm_want(int k, double v)
{
    switch (k) {
    case LM_TANH: return tanh(v);
    case LM_LOG: return log(v);
    case LM_SIN: return sin(v);
    case LM_COS: return cos(v);
    case LM_TAN: return tan(v);
    case LM_SQRT: return sqrt(v);
    case LM_RECIPROCAL: return 1.0 / v;
    case LM_SOFTPLUS: return v != v ? v : (v > 0 ? v : 0.0) + log1p(exp(-fabs(v)));
    default: return v >= 0 ? v : 0.7 * expm1(v);
    }
}

static void libm_rows(void)
{
    static const char *names[LM_COUNT] = {"tanh", "log", "sin", "cos", "tan", "sqrt", "reciprocal", "softplus", "elu"};
    static const float lo[LM_COUNT] = {-12, 1e-30f, -400, -400, -400, 0, -1e30f, -120, -120};
    static const float hi[LM_COUNT] = {12, 1e30f, 400, 400, 400, 1e30f, 1e30f, 120, 50};
    static const double limit[LM_COUNT] = {2, 2, 2, 2, 2, 0, 1, 4, 4};
    static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-30f, -1e-30f, 1e-45f, 3e38f, -3e38f,
                                    1.0f, -1.0f, 0.5f, 1e-7f};
    enum { NS = sizeof special / sizeof special[0] };
    size_t n = (1 << 18) + 13; /* a tail past the vectors */
    float *x = malloc(n * 4), *y = malloc(n * 4);
    for (int k = 0; k < LM_COUNT; k++) {
        bool geometric = lo[k] > 0 || k == LM_SQRT || k == LM_RECIPROCAL;
        for (size_t i = NS; i < n; i++) {
            double t = (double)(i - NS) / (double)(n - NS);
            if (!geometric)
                x[i] = (float)(lo[k] + (hi[k] - lo[k]) * t);
            else /* spread over the exponents: +-1e-30 .. 1e30 */
                x[i] = (float)((k == LM_RECIPROCAL && (i & 1) ? -1 : 1) * 1e-30 * pow(1e60, t));
        }
        memcpy(x, special, sizeof special);
        wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {(uint32_t)n}};
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        wnn_operand *in = wnn_graph_builder_input(b, "x", &d), *out = NULL;
        static const double alpha = 0.7;
        wnn_elu_options eo = WNN_ELU_OPTIONS_INIT;
        eo.alpha = &alpha;
        switch (k) {
        case LM_TANH: out = wnn_tanh(b, in); break;
        case LM_LOG: out = wnn_log(b, in); break;
        case LM_SIN: out = wnn_sin(b, in); break;
        case LM_COS: out = wnn_cos(b, in); break;
        case LM_TAN: out = wnn_tan(b, in); break;
        case LM_SQRT: out = wnn_sqrt(b, in); break;
        case LM_RECIPROCAL: out = wnn_reciprocal(b, in); break;
        case LM_SOFTPLUS: out = wnn_softplus(b, in); break;
        default: out = wnn_elu(b, in, &eo); break;
        }
        if (!run1(b, out, &d, x, y, n * 4))
            continue;
        double worst = 0;
        size_t at = 0;
        int wrong_nan = 0;
        for (size_t i = 0; i < n; i++) {
            double want = libm_want(k, x[i]);
            if (isnan(want) || isnan(y[i])) {
                if (isnan(want) != isnan(y[i]) && wrong_nan++ < 3)
                    fprintf(stderr, "%s(%.9g) = %.9g, want %.9g\n", names[k], x[i], y[i], want);
                continue;
            }
            if (want == 0 && !signbit(want) != !signbit(y[i]) && wrong_nan++ < 3) /* tanh(-0) is -0 */
                fprintf(stderr, "%s(%.9g) = %.9g, want %.9g\n", names[k], x[i], y[i], want);
            /* the elu of a tiny negative x: alpha * x, subnormal */
            double u = fabs(want) < 1e-37 ? (fabs(y[i] - want) < 1e-44 ? 0 : 1e9) : ulps(y[i], want);
            if (u > worst)
                worst = u, at = i;
        }
        if (worst > limit[k])
            fprintf(stderr, "%s(%.9g) = %.9g, want %.9g: %.0f ulp\n", names[k], x[at], y[at], libm_want(k, x[at]),
                    worst);
        CHECK(worst <= limit[k]);
        CHECK(wrong_nan == 0);
    }
    free(x);
    free(y);
}

/* maxPool2d on float32, both layouts (nhwc also with more channels than a
** vector holds), padding, strides and dilations, with NaN in some inputs,
** against a loop here: the maximum, or the window's first NaN. */
static void max_pools(void)
{
    for (int k = 0; k < 24; k++) {
        uint32_t c = 1 + rnd(5), h = 3 + rnd(14), w = 3 + rnd(14), wh = 1 + rnd(3), ww = 1 + rnd(3);
        bool nhwc = k % 2;
        if (k % 4 == 1) /* nhwc with 12 to 16 channels: vectors of 8 and a tail */
            c += 11;
        wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 4, {2, nhwc ? h : c, nhwc ? w : h, nhwc ? c : w}};
        wnn_pool2d_options o = WNN_POOL2D_OPTIONS_INIT;
        o.window_dimensions[0] = wh, o.window_dimensions[1] = ww;
        o.strides[0] = 1 + rnd(2), o.strides[1] = 1 + rnd(2);
        o.dilations[0] = 1 + rnd(2), o.dilations[1] = 1 + rnd(2);
        for (int i = 0; i < 4; i++)
            o.padding[i] = rnd(2);
        o.layout = nhwc ? WNN_INPUT_LAYOUT_NHWC : WNN_INPUT_LAYOUT_NCHW;
        size_t n = 2 * (size_t)c * h * w;
        float *x = malloc(n * 4);
        free(values(x, n, false, 4.0f));
        for (int i = 0; k % 3 == 0 && i < 3; i++)
            x[rnd((uint32_t)n)] = NAN;
        uint32_t eh = (wh - 1) * o.dilations[0] + 1, ew = (ww - 1) * o.dilations[1] + 1;
        if (h + o.padding[0] + o.padding[1] < eh || w + o.padding[2] + o.padding[3] < ew) {
            free(x);
            continue;
        }
        uint32_t oh = (h + o.padding[0] + o.padding[1] - eh) / o.strides[0] + 1;
        uint32_t ow = (w + o.padding[2] + o.padding[3] - ew) / o.strides[1] + 1;
        float *y = malloc(2 * (size_t)c * oh * ow * 4);
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        if (run1(b, wnn_max_pool2d(b, wnn_graph_builder_input(b, "x", &d), &o), &d, x, y, 2 * (size_t)c * oh * ow * 4)) {
            size_t bad = 0;
            for (uint32_t bn = 0; bn < 2; bn++)
                for (uint32_t ch = 0; ch < c; ch++)
                    for (uint32_t oy = 0; oy < oh; oy++)
                        for (uint32_t ox = 0; ox < ow; ox++) {
                            float want = 0.0f;
                            bool any = false;
                            for (uint32_t ky = 0; ky < wh; ky++)
                                for (uint32_t kx = 0; kx < ww; kx++) {
                                    long iy = (long)(oy * o.strides[0] + ky * o.dilations[0]) - o.padding[0];
                                    long ix = (long)(ox * o.strides[1] + kx * o.dilations[1]) - o.padding[2];
                                    if (iy < 0 || ix < 0 || iy >= (long)h || ix >= (long)w)
                                        continue;
                                    size_t at = nhwc ? ((bn * h + (size_t)iy) * w + (size_t)ix) * c + ch
                                                     : ((bn * c + ch) * h + (size_t)iy) * w + (size_t)ix;
                                    if (!any || (want == want && (x[at] > want || x[at] != x[at])))
                                        want = x[at];
                                    any = true;
                                }
                            size_t o_at = nhwc ? ((bn * oh + oy) * ow + ox) * c + ch : ((bn * c + ch) * oh + oy) * ow + ox;
                            float got = y[o_at];
                            bad += !(got == want || (got != got && want != want));
                        }
            if (bad)
                fprintf(stderr, "maxPool2d case %d: %zu elements wrong\n", k, bad);
            CHECK(bad == 0);
        }
        free(x);
        free(y);
    }
}

/* ---- reductions ---------------------------------------------------------------------------- */

enum { R_SUM, R_MEAN, R_L1, R_L2, R_SUMSQ, R_MAX, R_MIN, R_LSE, R_COUNT };

static wnn_operand *reduce_op(wnn_graph_builder *b, int op, wnn_operand *x, const wnn_reduce_options *o)
{
    switch (op) {
    case R_SUM: return wnn_reduce_sum(b, x, o);
    case R_MEAN: return wnn_reduce_mean(b, x, o);
    case R_L1: return wnn_reduce_l1(b, x, o);
    case R_L2: return wnn_reduce_l2(b, x, o);
    case R_SUMSQ: return wnn_reduce_sum_square(b, x, o);
    case R_MAX: return wnn_reduce_max(b, x, o);
    case R_MIN: return wnn_reduce_min(b, x, o);
    default: return wnn_reduce_log_sum_exp(b, x, o);
    }
}

/* The output element (dimensions kept) of input element i. */
static size_t out_index(const wnn_operand_desc *d, uint32_t mask, size_t i)
{
    size_t o = 0, step = 1;
    for (uint32_t a = d->rank; a-- > 0;) {
        size_t c = i % d->shape[a];
        i /= d->shape[a];
        if (!(mask >> a & 1u)) {
            o += c * step;
            step *= d->shape[a];
        }
    }
    return o;
}

/* want[o] and a magnitude to measure its error against, from x in double. */
static void reduce_ref(int op, const float *x, size_t n, const wnn_operand_desc *d, uint32_t mask, double *want,
                       double *mag, size_t outs)
{
    double *m = calloc(outs, sizeof *m), *cnt = calloc(outs, sizeof *cnt);
    for (size_t o = 0; o < outs; o++) {
        want[o] = op == R_MAX || op == R_LSE ? -INFINITY : op == R_MIN ? INFINITY : 0.0;
        mag[o] = 0.0;
    }
    for (size_t i = 0; i < n; i++) {
        size_t o = out_index(d, mask, i);
        double v = x[i];
        cnt[o] += 1;
        switch (op) {
        case R_MAX:
        case R_LSE: want[o] = v != v || want[o] != want[o] ? NAN : v > want[o] ? v : want[o]; break;
        case R_MIN: want[o] = v != v || want[o] != want[o] ? NAN : v < want[o] ? v : want[o]; break;
        case R_L2:
        case R_SUMSQ: want[o] += v * v, mag[o] += v * v; break;
        case R_L1: want[o] += fabs(v), mag[o] += fabs(v); break;
        default: want[o] += v, mag[o] += fabs(v); break;
        }
    }
    if (op == R_LSE) {
        for (size_t o = 0; o < outs; o++)
            m[o] = want[o], want[o] = 0.0;
        for (size_t i = 0; i < n; i++) {
            size_t o = out_index(d, mask, i);
            want[o] += exp(x[i] - m[o]);
        }
        for (size_t o = 0; o < outs; o++) {
            want[o] = m[o] != m[o] ? m[o] : m[o] + log(want[o]);
            mag[o] = fabs(want[o]) + 1.0;
        }
    }
    for (size_t o = 0; o < outs; o++) {
        if (op == R_MEAN)
            want[o] /= cnt[o], mag[o] /= cnt[o];
        if (op == R_L2)
            want[o] = sqrt(want[o]), mag[o] = want[o];
    }
    free(m);
    free(cnt);
}

static void reductions(void)
{
    static const uint32_t dims[] = {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 40, 64, 70, 130};
    for (int k = 0; k < 160; k++) {
        bool half = k % 2, with_nan = k % 5 == 0;
        int op = k / 2 % (R_COUNT + 2); /* the last two: argMax, argMin */
        wnn_operand_desc d = {half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, 1 + rnd(4), {0}};
        size_t n;
        do {
            n = 1;
            for (uint32_t i = 0; i < d.rank; i++)
                n *= d.shape[i] = dims[rnd(sizeof dims / sizeof *dims)];
        } while (n > 100000);
        uint32_t axes[4], count = 0, mask = 0;
        if (op >= R_COUNT)
            axes[count++] = rnd(d.rank);
        else
            for (uint32_t a = 0; a < d.rank; a++)
                if (rnd(2) || (a + 1 == d.rank && count == 0))
                    axes[count++] = a;
        for (uint32_t i = 0; i < count; i++)
            mask |= 1u << axes[i];
        float *x = malloc(n * 4);
        free(values(x, n, half, 4.0f));
        if (op >= R_COUNT) /* ties: a coarse grid */
            for (size_t i = 0; i < n; i++)
                x[i] = roundf(x[i] * 2.0f);
        if (with_nan)
            x[rnd((uint32_t)n)] = NAN;
        uint16_t *h = malloc(n * 2);
        for (size_t i = 0; i < n; i++)
            h[i] = wnn__float_to_half(x[i]);
        size_t outs = 1;
        for (uint32_t a = 0; a < d.rank; a++)
            outs *= mask >> a & 1u ? 1 : d.shape[a];
        void *y = malloc(outs * 4);
        wnn_graph_builder *b;
        CHECK_OK(wnn_graph_builder_create(ctx, &b));
        wnn_operand *in = wnn_graph_builder_input(b, "x", &d), *out;
        if (op >= R_COUNT) {
            wnn_arg_min_max_options o = WNN_ARG_MIN_MAX_OPTIONS_INIT;
            o.keep_dimensions = true;
            out = op == R_COUNT ? wnn_arg_max(b, in, axes[0], &o) : wnn_arg_min(b, in, axes[0], &o);
        } else {
            wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
            o.axes = axes, o.axes_count = count, o.keep_dimensions = true;
            out = reduce_op(b, op, in, &o);
        }
        if (run1(b, out, &d, half ? (void *)h : x, y, outs * 4)) {
            size_t bad = 0;
            if (op >= R_COUNT) {
                size_t stride = 1;
                for (uint32_t a = axes[0] + 1; a < d.rank; a++)
                    stride *= d.shape[a];
                for (size_t o = 0; o < outs; o++) {
                    size_t base = o / stride * stride * d.shape[axes[0]] + o % stride;
                    int32_t want = 0;
                    for (uint32_t l = 1; l < d.shape[axes[0]]; l++) {
                        float v = x[base + l * stride], w = x[base + (size_t)want * stride];
                        if (w == w && (v != v || (op == R_COUNT ? v > w : v < w)))
                            want = (int32_t)l;
                    }
                    bad += ((const int32_t *)y)[o] != want;
                }
            } else {
                double *want = malloc(outs * sizeof *want), *mag = malloc(outs * sizeof *mag);
                reduce_ref(op, x, n, &d, mask, want, mag, outs);
                /* float16 results also round to its resolution: 2^-24 below 2^-14 */
                double tol = half ? 2e-3 : 4e-6;
                for (size_t o = 0; o < outs; o++) {
                    double got = got_at(y, o, half);
                    bool exact = op == R_MAX || op == R_MIN;
                    bool ok = want[o] != want[o] ? got != got
                              : exact ? got == (double)(float)want[o]
                                      : fabs(got - want[o]) <= tol * mag[o] + (half ? 0x1p-24 : 1e-30);
                    if (!ok && bad++ == 0)
                        fprintf(stderr, "reduction %d case %d [%zu]: %.9g, want %.9g\n", op, k, o, got, want[o]);
                }
                free(want);
                free(mag);
            }
            if (bad)
                fprintf(stderr, "reduction %d case %d (rank %u, mask %x, %s): %zu wrong\n", op, k, d.rank, mask,
                        half ? "float16" : "float32", bad);
            CHECK(bad == 0);
        }
        free(x);
        free(h);
        free(y);
    }
}

/* relu(x) is an output and feeds softmax(relu(x) * c) along the last axis,
** the second output; float16, against double from the same inputs within
** about float16's last bit, which the product rounded to float16 before
** the softmax (up to 0.6 % off) would miss on cpu and null. */
static void half_chains(void)
{
    enum { ROWS = 37, COLS = 45 };
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT16, 2, {ROWS, COLS}};
    float x[ROWS * COLS], c[COLS];
    uint16_t *h = values(x, ROWS * COLS, true, 6.0f), *hc = values(c, COLS, true, 2.0f);
    wnn_operand_desc cd = {WNN_DATA_TYPE_FLOAT16, 1, {COLS}};
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand *in = wnn_graph_builder_input(b, "x", &d), *r = wnn_relu(b, in);
    wnn_operand *s = wnn_softmax(b, wnn_mul(b, r, wnn_graph_builder_constant(b, &cd, hc, COLS * 2)), 1);
    wnn_named_operand named[2] = {{"r", r}, {"s", s}};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, named, 2, &g));
    wnn_graph_builder_release(b);
    wnn_tensor *t[3] = {NULL, NULL, NULL};
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = d.data_type, td.rank = 2, td.shape[0] = ROWS, td.shape[1] = COLS, td.writable = true;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &t[0]));
    td.writable = false, td.readable = true;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &t[1]));
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &t[2]));
    uint16_t yr[ROWS * COLS], ys[ROWS * COLS];
    /* cpu and null keep float32 between the nodes; another device may round
    ** the product to float16 first, as WebNN allows (up to 0.6 % off) */
    const char *dev = test_device();
    double tol = strcmp(dev, "cpu") == 0 || strcmp(dev, "null") == 0 ? 1e-3 : 1e-2;
    wnn_named_tensor ins = {"x", t[0]}, outs[2] = {{"r", t[1]}, {"s", t[2]}};
    for (int run = 0; run < 2; run++) { /* the second run reuses the widened constant */
        CHECK_OK(wnn_context_write_tensor(ctx, t[0], h, sizeof yr));
        CHECK_OK(wnn_context_dispatch(ctx, g, &ins, 1, outs, 2));
        CHECK_OK(wnn_context_read_tensor_sync(ctx, t[1], yr, sizeof yr));
        CHECK_OK(wnn_context_read_tensor_sync(ctx, t[2], ys, sizeof ys));
        size_t bad = 0;
        for (size_t i = 0; i < ROWS; i++) {
            double m = -INFINITY, sum = 0.0, e[COLS];
            for (size_t j = 0; j < COLS; j++) {
                double v = (x[i * COLS + j] > 0 ? x[i * COLS + j] : 0.0) * c[j];
                e[j] = v;
                m = v > m ? v : m;
                bad += wnn__half_to_float(yr[i * COLS + j]) != (x[i * COLS + j] > 0 ? x[i * COLS + j] : 0.0f);
            }
            for (size_t j = 0; j < COLS; j++)
                sum += e[j] = exp(e[j] - m);
            for (size_t j = 0; j < COLS; j++) {
                double got = wnn__half_to_float(ys[i * COLS + j]), want = e[j] / sum;
                bad += fabs(got - want) > tol * want + 1e-7;
            }
        }
        if (bad)
            fprintf(stderr, "float16 chain run %d: %zu elements wrong\n", run, bad);
        CHECK(bad == 0);
    }
    for (int i = 0; i < 3; i++)
        wnn_tensor_release(t[i]);
    wnn_graph_release(g);
    free(h);
    free(hc);
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "no %s device: %s\n", o.device, wnn_last_error_message());
        return 77;
    }
    transposes();
    softmaxes();
    layer_norms();
    gelus();
    gelus_half();
    exps();
    libm_rows();
    ieee_half_rows();
    vec_half_rows();
    pow_squares();
    padded_products();
    half_casts();
    int_casts();
    max_pools();
    reductions();
    half_chains();
    wnn_context_release(ctx);
    TEST_DONE();
}
