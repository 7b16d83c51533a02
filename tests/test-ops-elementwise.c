/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-elementwise.c -- the element-wise operators through the public
** API: the unary math (ceil ... roundEven, sign, identity), isNaN and
** isInfinite, the comparisons, the logical operators, where, the
** activations, prelu, and clamp's exact 64-bit bounds. (test-ops.c has the
** first arithmetic operators, clamp's double bounds and cast.)
**
** Every operator is computed on a small input whose result was worked out
** by hand (or from libm in double for the transcendental ones), and every
** builder method has at least one refused call checked for its status.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#include "test-ops-compute.h"

static void check_bytes(const uint8_t *got, const uint8_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK_EQ_INT(got[i], want[i]);
}

typedef wnn_operand *(*unary_fn)(wnn_graph_builder *, wnn_operand *);
typedef wnn_operand *(*binary_fn)(wnn_graph_builder *, wnn_operand *, wnn_operand *);

/* Runs a float32 unary operator on x[0..n) and compares with want. */
static void check_unary_f32(unary_fn fn, const float *x, const double *want, uint32_t n, double tol)
{
    float got[16];
    wnn_graph_builder *b = new_builder();
    if (compute(b, fn(b, vec_f32(b, n, x)), got, n * sizeof(float), NULL))
        check_floats(got, want, n, tol);
}

/* ------------------------------------------------------------------------ */
/* Unary math                                                                */
/* ------------------------------------------------------------------------ */

static void test_unary_math(void)
{
    const float x[6] = {-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, -2.5f};
    const double ceil_w[6] = {-1, -0.0, 1, 2, 3, -2};
    const double floor_w[6] = {-2, -1, 0, 1, 2, -3};
    const double round_w[6] = {-2, -0.0, 0, 2, 2, -2}; /* halves go to even */
    const double recip_w[6] = {-1 / 1.5, -2, 2, 1 / 1.5, 0.4, -0.4};
    const double sign_w[6] = {-1, -1, 1, 1, 1, -1};
    check_unary_f32(wnn_ceil, x, ceil_w, 6, 0);
    check_unary_f32(wnn_floor, x, floor_w, 6, 0);
    check_unary_f32(wnn_round_even, x, round_w, 6, 0);
    check_unary_f32(wnn_reciprocal, x, recip_w, 6, 1e-7);
    check_unary_f32(wnn_sign, x, sign_w, 6, 0);

    const float t[4] = {0.0f, 0.5f, 1.0f, -2.0f};
    double cos_w[4], sin_w[4], tan_w[4], erf_w[4];
    for (int i = 0; i < 4; i++) {
        cos_w[i] = cos(t[i]);
        sin_w[i] = sin(t[i]);
        tan_w[i] = tan(t[i]);
        erf_w[i] = erf(t[i]);
    }
    check_unary_f32(wnn_cos, t, cos_w, 4, 1e-6);
    check_unary_f32(wnn_sin, t, sin_w, 4, 1e-6);
    check_unary_f32(wnn_tan, t, tan_w, 4, 1e-6);
    check_unary_f32(wnn_erf, t, erf_w, 4, 1e-6);

    /* sign keeps NaN; on integers it is exact */
    const float special[3] = {NAN, INFINITY, -0.0f};
    const double special_w[3] = {NAN, 1, 0};
    check_unary_f32(wnn_sign, special, special_w, 3, 0);
    wnn_graph_builder *b = new_builder();
    const int64_t big[3] = {INT64_MIN, 0, INT64_C(9007199254740993)};
    int64_t got64[3];
    uint32_t three = 3;
    if (compute(b, wnn_sign(b, konst(b, WNN_DATA_TYPE_INT64, 1, &three, big)), got64, sizeof got64, NULL)) {
        CHECK_EQ_INT(got64[0], -1);
        CHECK_EQ_INT(got64[1], 0);
        CHECK_EQ_INT(got64[2], 1);
    }

    /* float16: 1.5 (0x3e00) ceils to 2 (0x4000), -0.5 (0xb800) to -0 (0x8000) */
    b = new_builder();
    const uint16_t h[2] = {0x3e00, 0xb800};
    uint16_t hgot[2];
    uint32_t two = 2;
    if (compute(b, wnn_ceil(b, konst(b, WNN_DATA_TYPE_FLOAT16, 1, &two, h)), hgot, sizeof hgot, NULL)) {
        CHECK_EQ_INT(hgot[0], 0x4000);
        CHECK_EQ_INT(hgot[1], 0x8000);
    }

    /* identity copies every bit: a NaN payload and an int64 past 2^53 */
    b = new_builder();
    const uint32_t payload = 0x7fa12345u;
    float nan_in;
    memcpy(&nan_in, &payload, 4);
    float nan_out;
    uint32_t one = 1;
    if (compute(b, wnn_identity(b, vec_f32(b, 1, &nan_in)), &nan_out, 4, NULL))
        CHECK(memcmp(&nan_out, &payload, 4) == 0);
    b = new_builder();
    if (compute(b, wnn_identity(b, konst(b, WNN_DATA_TYPE_INT64, 1, &three, big)), got64, sizeof got64, NULL))
        CHECK(memcmp(got64, big, sizeof big) == 0);

    /* validation: the float-only operators refuse integers, sign refuses
    ** unsigned types, NULL input is an invalid argument */
    b = new_builder();
    const int32_t i32[1] = {1};
    wnn_operand *xi = konst(b, WNN_DATA_TYPE_INT32, 1, &one, i32);
    const uint32_t u32[1] = {1};
    wnn_operand *xu = konst(b, WNN_DATA_TYPE_UINT32, 1, &one, u32);
    unary_fn float_only[8] = {wnn_ceil, wnn_floor, wnn_cos, wnn_sin, wnn_tan, wnn_erf, wnn_reciprocal,
                              wnn_round_even};
    for (int i = 0; i < 8; i++)
        CHECK_REFUSED(b, float_only[i](b, xi), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_sign(b, xu), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_identity(b, NULL), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

static void test_is_nan_is_infinite(void)
{
    const float x[5] = {NAN, INFINITY, -INFINITY, 1.0f, -0.0f};
    uint8_t got[5];
    wnn_graph_builder *b = new_builder();
    wnn_operand_desc d;
    if (compute(b, wnn_is_nan(b, vec_f32(b, 5, x)), got, 5, &d)) {
        const uint8_t want[5] = {1, 0, 0, 0, 0};
        check_bytes(got, want, 5);
        CHECK_EQ_INT(d.data_type, WNN_DATA_TYPE_UINT8);
    }
    b = new_builder();
    if (compute(b, wnn_is_infinite(b, vec_f32(b, 5, x)), got, 5, NULL)) {
        const uint8_t want[5] = {0, 1, 1, 0, 0};
        check_bytes(got, want, 5);
    }
    /* float16 NaN 0x7e00, +Inf 0x7c00, 65504 0x7bff */
    b = new_builder();
    const uint16_t h[3] = {0x7e00, 0x7c00, 0x7bff};
    uint32_t three = 3;
    if (compute(b, wnn_is_infinite(b, konst(b, WNN_DATA_TYPE_FLOAT16, 1, &three, h)), got, 3, NULL)) {
        const uint8_t want[3] = {0, 1, 0};
        check_bytes(got, want, 3);
    }
    /* integers are never NaN */
    b = new_builder();
    const int32_t ints[3] = {0, -1, INT32_MAX};
    if (compute(b, wnn_is_nan(b, konst(b, WNN_DATA_TYPE_INT32, 1, &three, ints)), got, 3, NULL)) {
        const uint8_t want[3] = {0, 0, 0};
        check_bytes(got, want, 3);
    }
    b = new_builder();
    CHECK_REFUSED(b, wnn_is_nan(b, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_REFUSED(b, wnn_is_infinite(b, NULL), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

/* ------------------------------------------------------------------------ */
/* Comparisons, logical operators, where                                     */
/* ------------------------------------------------------------------------ */

static void test_comparisons(void)
{
    /* a [2, 3] against b [3], broadcast over rows; NaN compares unequal */
    const float a[6] = {1, 2, 3, 4, NAN, 6};
    const float bv[3] = {2, 2, 6};
    uint32_t s23[2] = {2, 3}, s3 = 3;
    static const struct {
        binary_fn fn;
        uint8_t want[6];
    } cases[6] = {
        {wnn_equal, {0, 1, 0, 0, 0, 1}},           {wnn_not_equal, {1, 0, 1, 1, 1, 0}},
        {wnn_greater, {0, 0, 0, 1, 0, 0}},         {wnn_greater_or_equal, {0, 1, 0, 1, 0, 1}},
        {wnn_lesser, {1, 0, 1, 0, 0, 0}},          {wnn_lesser_or_equal, {1, 1, 1, 0, 0, 1}},
    };
    for (int i = 0; i < 6; i++) {
        wnn_graph_builder *b = new_builder();
        uint8_t got[6];
        wnn_operand_desc d;
        wnn_operand *y = cases[i].fn(b, konst(b, WNN_DATA_TYPE_FLOAT32, 2, s23, a),
                                     konst(b, WNN_DATA_TYPE_FLOAT32, 1, &s3, bv));
        if (compute(b, y, got, 6, &d)) {
            check_bytes(got, cases[i].want, 6);
            CHECK_EQ_INT(d.data_type, WNN_DATA_TYPE_UINT8);
            CHECK_EQ_INT(d.rank, 2);
        }
    }

    /* int64 compares all 64 bits: 2^53 and 2^53 + 1 are one double apart */
    wnn_graph_builder *b = new_builder();
    const int64_t p[2] = {INT64_C(9007199254740992), INT64_C(9007199254740993)};
    const int64_t q[2] = {INT64_C(9007199254740993), INT64_C(9007199254740993)};
    uint32_t two = 2;
    uint8_t got[2];
    if (compute(b, wnn_lesser(b, konst(b, WNN_DATA_TYPE_INT64, 1, &two, p), konst(b, WNN_DATA_TYPE_INT64, 1, &two, q)),
                got, 2, NULL)) {
        CHECK_EQ_INT(got[0], 1);
        CHECK_EQ_INT(got[1], 0);
    }

    b = new_builder();
    const int32_t i32[3] = {1, 2, 3};
    wnn_operand *xf = konst(b, WNN_DATA_TYPE_FLOAT32, 1, &s3, bv);
    wnn_operand *xi = konst(b, WNN_DATA_TYPE_INT32, 1, &s3, i32);
    wnn_operand *x2 = konst(b, WNN_DATA_TYPE_FLOAT32, 1, &two, bv);
    binary_fn all[6] = {wnn_equal, wnn_not_equal, wnn_greater, wnn_greater_or_equal, wnn_lesser, wnn_lesser_or_equal};
    for (int i = 0; i < 6; i++) {
        CHECK_REFUSED(b, all[i](b, xf, xi), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
        CHECK_REFUSED(b, all[i](b, xf, x2), WNN_STATUS_SHAPE_MISMATCH);
    }
    wnn_graph_builder_release(b);
}

static void test_logical(void)
{
    const uint8_t a[4] = {0, 0, 7, 1}, c[4] = {0, 3, 0, 1};
    uint32_t four = 4;
    static const struct {
        binary_fn fn;
        uint8_t want[4];
    } cases[3] = {
        {wnn_logical_and, {0, 0, 0, 1}},
        {wnn_logical_or, {0, 1, 1, 1}},
        {wnn_logical_xor, {0, 1, 1, 0}},
    };
    uint8_t got[4];
    for (int i = 0; i < 3; i++) {
        wnn_graph_builder *b = new_builder();
        wnn_operand *y = cases[i].fn(b, konst(b, WNN_DATA_TYPE_UINT8, 1, &four, a),
                                     konst(b, WNN_DATA_TYPE_UINT8, 1, &four, c));
        if (compute(b, y, got, 4, NULL))
            check_bytes(got, cases[i].want, 4);
    }
    wnn_graph_builder *b = new_builder();
    if (compute(b, wnn_logical_not(b, konst(b, WNN_DATA_TYPE_UINT8, 1, &four, a)), got, 4, NULL)) {
        const uint8_t want[4] = {1, 1, 0, 0};
        check_bytes(got, want, 4);
    }

    b = new_builder();
    const float f[4] = {0, 1, 0, 1};
    uint32_t three = 3;
    wnn_operand *xf = vec_f32(b, 4, f);
    wnn_operand *xu = konst(b, WNN_DATA_TYPE_UINT8, 1, &four, a);
    wnn_operand *x3 = konst(b, WNN_DATA_TYPE_UINT8, 1, &three, a);
    CHECK_REFUSED(b, wnn_logical_not(b, xf), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    binary_fn all[3] = {wnn_logical_and, wnn_logical_or, wnn_logical_xor};
    for (int i = 0; i < 3; i++) {
        CHECK_REFUSED(b, all[i](b, xf, xf), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
        CHECK_REFUSED(b, all[i](b, xu, x3), WNN_STATUS_SHAPE_MISMATCH);
    }
    wnn_graph_builder_release(b);
}

static void test_where(void)
{
    /* condition [3] over values [2, 3] (true) and a scalar (false) */
    const uint8_t cond[3] = {1, 0, 5};
    const float t[6] = {1, 2, 3, 4, 5, 6};
    const float f = -1;
    uint32_t s3 = 3, s23[2] = {2, 3};
    float got[6];
    wnn_graph_builder *b = new_builder();
    wnn_operand_desc d;
    wnn_operand *y = wnn_where(b, konst(b, WNN_DATA_TYPE_UINT8, 1, &s3, cond),
                               konst(b, WNN_DATA_TYPE_FLOAT32, 2, s23, t), konst(b, WNN_DATA_TYPE_FLOAT32, 0, NULL, &f));
    if (compute(b, y, got, sizeof got, &d)) {
        const double want[6] = {1, -1, 3, 4, -1, 6};
        check_floats(got, want, 6, 0);
        CHECK_EQ_INT(d.rank, 2);
    }

    /* int64 values are copied whole */
    b = new_builder();
    const int64_t big[3] = {INT64_MAX, INT64_MIN, INT64_C(9007199254740993)};
    const int64_t zero = 0;
    int64_t got64[3];
    y = wnn_where(b, konst(b, WNN_DATA_TYPE_UINT8, 1, &s3, cond), konst(b, WNN_DATA_TYPE_INT64, 1, &s3, big),
                  konst(b, WNN_DATA_TYPE_INT64, 0, NULL, &zero));
    if (compute(b, y, got64, sizeof got64, NULL)) {
        CHECK(got64[0] == INT64_MAX);
        CHECK(got64[1] == 0);
        CHECK(got64[2] == INT64_C(9007199254740993));
    }

    b = new_builder();
    uint32_t two = 2;
    wnn_operand *c = konst(b, WNN_DATA_TYPE_UINT8, 1, &s3, cond);
    wnn_operand *v = konst(b, WNN_DATA_TYPE_FLOAT32, 1, &s3, t);
    wnn_operand *v2 = konst(b, WNN_DATA_TYPE_FLOAT32, 1, &two, t);
    wnn_operand *vi = konst(b, WNN_DATA_TYPE_INT64, 1, &s3, big);
    CHECK_REFUSED(b, wnn_where(b, v, v, v), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_where(b, c, v, vi), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_where(b, c, v, v2), WNN_STATUS_SHAPE_MISMATCH);
    CHECK_REFUSED(b, wnn_where(b, c, NULL, v), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

/* ------------------------------------------------------------------------ */
/* Activations and prelu                                                     */
/* ------------------------------------------------------------------------ */

static void test_activations(void)
{
    float got[8];
    const float x[5] = {-4, -1, 0, 1, 4};

    wnn_elu_options eo = {.alpha = &(double){2.0}};
    wnn_graph_builder *b = new_builder();
    if (compute(b, wnn_elu(b, vec_f32(b, 5, x), &eo), got, 20, NULL)) {
        const double want[5] = {2 * (exp(-4.0) - 1), 2 * (exp(-1.0) - 1), 0, 1, 4};
        check_floats(got, want, 5, 1e-6);
    }
    b = new_builder();
    if (compute(b, wnn_elu(b, vec_f32(b, 5, x), NULL), got, 20, NULL)) {
        const double want[5] = {exp(-4.0) - 1, exp(-1.0) - 1, 0, 1, 4};
        check_floats(got, want, 5, 1e-6);
    }

    double gelu_w[5];
    for (int i = 0; i < 5; i++)
        gelu_w[i] = 0.5 * x[i] * (1 + erf(x[i] / sqrt(2.0)));
    check_unary_f32(wnn_gelu, x, gelu_w, 5, 1e-6);

    b = new_builder();
    if (compute(b, wnn_hard_sigmoid(b, vec_f32(b, 5, x), NULL), got, 20, NULL)) {
        const double want[5] = {0, 0.3, 0.5, 0.7, 1}; /* 0.2 x + 0.5 clipped */
        check_floats(got, want, 5, 1e-7);
    }
    wnn_hard_sigmoid_options ho = {.alpha = &(double){1.0}, .beta = &(double){0.0}};
    b = new_builder();
    if (compute(b, wnn_hard_sigmoid(b, vec_f32(b, 5, x), &ho), got, 20, NULL)) {
        const double want[5] = {0, 0, 0, 1, 1};
        check_floats(got, want, 5, 0);
    }

    const double swish_w[5] = {0, -1.0 * 2 / 6, 0, 1.0 * 4 / 6, 4};
    check_unary_f32(wnn_hard_swish, x, swish_w, 5, 1e-7);

    b = new_builder();
    if (compute(b, wnn_leaky_relu(b, vec_f32(b, 5, x), NULL), got, 20, NULL)) {
        const double want[5] = {-0.04, -0.01, 0, 1, 4};
        check_floats(got, want, 5, 1e-8);
    }
    wnn_linear_options lo = {.alpha = &(double){2.0}, .beta = 1.0};
    b = new_builder();
    if (compute(b, wnn_linear(b, vec_f32(b, 5, x), &lo), got, 20, NULL)) {
        const double want[5] = {-7, -1, 1, 3, 9};
        check_floats(got, want, 5, 0);
    }
    b = new_builder();
    if (compute(b, wnn_linear(b, vec_f32(b, 5, x), NULL), got, 20, NULL)) { /* identity by default */
        const double want[5] = {-4, -1, 0, 1, 4};
        check_floats(got, want, 5, 0);
    }

    /* softplus stays finite far from 0, where ln(1 + e^x) would overflow */
    const float sp[4] = {0, 1, 100, -100};
    const double sp_w[4] = {log(2.0), log1p(exp(1.0)), 100, exp(-100.0)};
    check_unary_f32(wnn_softplus, sp, sp_w, 4, 1e-6);
    const double ss_w[5] = {-0.8, -0.5, 0, 0.5, 0.8};
    check_unary_f32(wnn_softsign, x, ss_w, 5, 1e-7);

    /* float16: hardSwish(1) = 2/3 rounds to 0x3955 */
    b = new_builder();
    const uint16_t one_h = 0x3c00;
    uint16_t h;
    uint32_t one = 1;
    if (compute(b, wnn_hard_swish(b, konst(b, WNN_DATA_TYPE_FLOAT16, 1, &one, &one_h)), &h, 2, NULL))
        CHECK_EQ_INT(h, 0x3955);

    b = new_builder();
    const int32_t i32[1] = {1};
    wnn_operand *xi = konst(b, WNN_DATA_TYPE_INT32, 1, &one, i32);
    wnn_operand *xf = vec_f32(b, 5, x);
    CHECK_REFUSED(b, wnn_elu(b, xi, NULL), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_gelu(b, xi), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_hard_sigmoid(b, xi, NULL), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_hard_swish(b, xi), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_leaky_relu(b, xi, NULL), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_linear(b, xi, NULL), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_softplus(b, xi), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_softsign(b, xi), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    /* alpha and beta are restricted doubles: NaN and infinities are refused */
    wnn_elu_options bad_e = {.alpha = &(double){NAN}};
    wnn_leaky_relu_options bad_l = {.alpha = &(double){INFINITY}};
    wnn_hard_sigmoid_options bad_h = {.beta = &(double){-INFINITY}};
    wnn_linear_options bad_lin = {.beta = NAN};
    CHECK_REFUSED(b, wnn_elu(b, xf, &bad_e), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_REFUSED(b, wnn_leaky_relu(b, xf, &bad_l), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_REFUSED(b, wnn_hard_sigmoid(b, xf, &bad_h), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_REFUSED(b, wnn_linear(b, xf, &bad_lin), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

static void test_prelu(void)
{
    /* slope [3] broadcast over input [2, 3] */
    const float x[6] = {-1, -2, 3, 4, -5, -6};
    const float slope[3] = {0.5f, 2, -1};
    uint32_t s23[2] = {2, 3}, s3 = 3;
    float got[6];
    wnn_graph_builder *b = new_builder();
    if (compute(b, wnn_prelu(b, konst(b, WNN_DATA_TYPE_FLOAT32, 2, s23, x), vec_f32(b, 3, slope)), got, 24, NULL)) {
        const double want[6] = {-0.5, -4, 3, 4, -10, 6};
        check_floats(got, want, 6, 0);
    }

    b = new_builder();
    const int64_t xi[3] = {-3, 5, INT64_C(-4503599627370497)};
    const int64_t si[3] = {4, 100, 2};
    int64_t got64[3];
    if (compute(b, wnn_prelu(b, konst(b, WNN_DATA_TYPE_INT64, 1, &s3, xi), konst(b, WNN_DATA_TYPE_INT64, 1, &s3, si)),
                got64, sizeof got64, NULL)) {
        CHECK(got64[0] == -12);
        CHECK(got64[1] == 5);
        CHECK(got64[2] == INT64_C(-9007199254740994));
    }

    b = new_builder();
    uint32_t two = 2;
    const uint8_t u8[3] = {1, 2, 3};
    wnn_operand *xf = konst(b, WNN_DATA_TYPE_FLOAT32, 2, s23, x);
    wnn_operand *xu = konst(b, WNN_DATA_TYPE_UINT8, 1, &s3, u8);
    CHECK_REFUSED(b, wnn_prelu(b, xu, xu), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_prelu(b, xf, konst(b, WNN_DATA_TYPE_INT64, 1, &s3, si)), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_prelu(b, xf, vec_f32(b, two, slope)), WNN_STATUS_SHAPE_MISMATCH);
    CHECK_REFUSED(b, wnn_prelu(b, xf, NULL), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

/* ------------------------------------------------------------------------ */
/* clamp's exact 64-bit bounds                                               */
/* ------------------------------------------------------------------------ */

static void test_clamp_exact(void)
{
    const int64_t x[4] = {INT64_C(9007199254740993), INT64_C(9007199254740995), INT64_MIN, 0};
    int64_t got[4];
    uint32_t four = 4;
    /* INT64_MIN + 1, and 2^53 + 2, which no double holds */
    wnn_number lo = {.is_integer = true, .negative = true, .magnitude = UINT64_C(9223372036854775807)};
    wnn_number hi = {.is_integer = true, .magnitude = UINT64_C(9007199254740994)};
    wnn_clamp_options o = {.min_value = &lo, .max_value = &hi};
    wnn_graph_builder *b = new_builder();
    if (compute(b, wnn_clamp(b, konst(b, WNN_DATA_TYPE_INT64, 1, &four, x), &o), got, 32, NULL)) {
        CHECK(got[0] == INT64_C(9007199254740993));
        CHECK(got[1] == INT64_C(9007199254740994));
        CHECK(got[2] == INT64_MIN + 1);
        CHECK(got[3] == 0);
    }

    /* uint64: a bound past INT64_MAX, and a negative minimum saturating to 0 */
    const uint64_t u[3] = {UINT64_MAX, UINT64_C(18446744073709551613), 3};
    uint64_t gotu[3];
    uint32_t three = 3;
    lo = (wnn_number){.value = -5.0};
    hi = (wnn_number){.is_integer = true, .magnitude = UINT64_C(18446744073709551614)};
    b = new_builder();
    if (compute(b, wnn_clamp(b, konst(b, WNN_DATA_TYPE_UINT64, 1, &three, u), &o), gotu, 24, NULL)) {
        CHECK(gotu[0] == UINT64_C(18446744073709551614));
        CHECK(gotu[1] == UINT64_C(18446744073709551613));
        CHECK(gotu[2] == 3);
    }

    /* an exact integer bound on a float input is that number */
    const float f[3] = {-10, 0.5f, 10};
    float gotf[3];
    lo = (wnn_number){.is_integer = true, .negative = true, .magnitude = 2};
    hi = (wnn_number){.value = 2.5};
    b = new_builder();
    if (compute(b, wnn_clamp(b, vec_f32(b, 3, f), &o), gotf, 12, NULL)) {
        const double want[3] = {-2, 0.5, 2.5};
        check_floats(gotf, want, 3, 0);
    }

    /* min > max compares exactly: 2^53 + 1 > 2^53, which a double cannot tell */
    b = new_builder();
    wnn_operand *xi = konst(b, WNN_DATA_TYPE_INT64, 1, &four, x);
    lo = (wnn_number){.is_integer = true, .magnitude = UINT64_C(9007199254740993)};
    hi = (wnn_number){.is_integer = true, .magnitude = UINT64_C(9007199254740992)};
    CHECK_REFUSED(b, wnn_clamp(b, xi, &o), WNN_STATUS_INVALID_ARGUMENT);
    hi = (wnn_number){.value = 9007199254740992.0}; /* the same against a double maximum */
    CHECK_REFUSED(b, wnn_clamp(b, xi, &o), WNN_STATUS_INVALID_ARGUMENT);
    lo.magnitude = 1; /* 1 <= 1.5: accepted */
    hi.value = 1.5;
    CHECK(wnn_clamp(b, xi, &o) != NULL);
    lo = (wnn_number){.value = 0.5}; /* 0.5 > 0 */
    hi = (wnn_number){.is_integer = true, .magnitude = 0};
    CHECK_REFUSED(b, wnn_clamp(b, xi, &o), WNN_STATUS_INVALID_ARGUMENT);
    lo.value = 3; /* and a plain double pair */
    hi = (wnn_number){.value = 2};
    CHECK_REFUSED(b, wnn_clamp(b, xi, &o), WNN_STATUS_INVALID_ARGUMENT);
    /* one bound alone */
    o.max_value = NULL;
    CHECK(wnn_clamp(b, xi, &o) != NULL);
    wnn_graph_builder_release(b);
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "cannot create a context on %s: %s\n", o.device, wnn_last_error_message());
        return 1;
    }
    test_unary_math();
    test_is_nan_is_infinite();
    test_comparisons();
    test_logical();
    test_where();
    test_activations();
    test_prelu();
    test_clamp_exact();
    wnn_context_release(ctx);
    TEST_DONE();
}
