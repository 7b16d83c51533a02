/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-reduce.c -- the operators that reduce or scan along axes through
** the public API: the ten reductions (with and without axes, keeping
** dimensions or not), argMin/argMax and cumulativeSum. (softmax is in
** test-ops.c.)
**
** Every result was worked out by hand, and every builder method has at
** least one refused call checked for its status.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#include "test-ops-compute.h"

/* ------------------------------------------------------------------------ */
/* Reductions                                                                */
/* ------------------------------------------------------------------------ */

typedef wnn_operand *(*reduce_fn)(wnn_graph_builder *, wnn_operand *, const wnn_reduce_options *);

/* Reduces the float32 [2, 3] tensor m over the given axes. */
static void check_reduce(reduce_fn fn, const float *m, uint32_t axes_count, const uint32_t *axes, bool keep,
                         const double *want, uint32_t want_rank, double tol)
{
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    o.axes = axes; /* NULL: every axis */
    o.axes_count = axes_count;
    o.keep_dimensions = keep;
    uint32_t s23[2] = {2, 3};
    float got[6];
    wnn_operand_desc d;
    wnn_graph_builder *b = new_builder();
    wnn_operand *y = fn(b, konst(b, WNN_DATA_TYPE_FLOAT32, 2, s23, m), &o);
    size_t n = 1;
    if (y) {
        wnn_operand_get_desc(y, &d);
        for (uint32_t i = 0; i < d.rank; i++)
            n *= d.shape[i];
    }
    if (compute(b, y, got, n * sizeof(float), &d)) {
        check_floats(got, want, n, tol);
        CHECK_EQ_INT(d.rank, want_rank);
    }
}

static void test_reductions(void)
{
    const float m[6] = {1, 2, 3, 4, 5, 6};
    const float neg[6] = {-1, 2, -3, 4, -5, 6};
    const uint32_t ax0 = 0, ax1 = 1, both[2] = {1, 0};

    const double sum_rows[2] = {6, 15}, sum_all[1] = {21}, max_cols[3] = {4, 5, 6}, min_rows[2] = {1, 4};
    check_reduce(wnn_reduce_sum, m, 1, &ax1, false, sum_rows, 1, 0);
    check_reduce(wnn_reduce_sum, m, 1, &ax1, true, sum_rows, 2, 0);
    check_reduce(wnn_reduce_sum, m, 0, NULL, false, sum_all, 0, 0);
    check_reduce(wnn_reduce_sum, m, 2, both, true, sum_all, 2, 0);
    check_reduce(wnn_reduce_max, m, 1, &ax0, false, max_cols, 1, 0);
    check_reduce(wnn_reduce_min, m, 1, &ax1, false, min_rows, 1, 0);
    const double mean_all[1] = {3.5}, prod_all[1] = {720}, l1_all[1] = {21}, sq_all[1] = {91};
    check_reduce(wnn_reduce_mean, m, 0, NULL, false, mean_all, 0, 1e-7);
    check_reduce(wnn_reduce_product, m, 0, NULL, false, prod_all, 0, 0);
    check_reduce(wnn_reduce_l1, neg, 0, NULL, false, l1_all, 0, 0);
    check_reduce(wnn_reduce_sum_square, neg, 0, NULL, false, sq_all, 0, 0);
    const double l2_rows[2] = {sqrt(14.0), sqrt(77.0)}, log_sum_rows[2] = {log(6.0), log(15.0)};
    check_reduce(wnn_reduce_l2, neg, 1, &ax1, false, l2_rows, 1, 1e-6);
    check_reduce(wnn_reduce_log_sum, m, 1, &ax1, false, log_sum_rows, 1, 1e-6);
    double lse_cols[3];
    for (int c = 0; c < 3; c++)
        lse_cols[c] = log(exp(m[c]) + exp(m[3 + c]));
    check_reduce(wnn_reduce_log_sum_exp, m, 1, &ax0, false, lse_cols, 1, 1e-6);
    /* empty axes reduce nothing: each element alone (L1 gives |x|) */
    const double abs_all[6] = {1, 2, 3, 4, 5, 6};
    check_reduce(wnn_reduce_l1, neg, 0, &ax0, false, abs_all, 2, 0);

    /* logSumExp subtracts the maximum: no overflow at 1000 */
    const float hot[2] = {1000, 1000};
    float got;
    wnn_graph_builder *b = new_builder();
    if (compute(b, wnn_reduce_log_sum_exp(b, vec_f32(b, 2, hot), NULL), &got, 4, NULL))
        CHECK_NEAR(got, 1000 + log(2.0), 1e-3);

    /* integers: int64 sums exactly past 2^53, uint32 wraps, int8 max */
    b = new_builder();
    const int64_t big[2] = {INT64_C(9007199254740992), 1};
    int64_t got64;
    uint32_t two = 2;
    if (compute(b, wnn_reduce_sum(b, konst(b, WNN_DATA_TYPE_INT64, 1, &two, big), NULL), &got64, 8, NULL))
        CHECK(got64 == INT64_C(9007199254740993));
    b = new_builder();
    const uint32_t u[2] = {UINT32_MAX, 2};
    uint32_t got32;
    if (compute(b, wnn_reduce_sum(b, konst(b, WNN_DATA_TYPE_UINT32, 1, &two, u), NULL), &got32, 4, NULL))
        CHECK_EQ_INT(got32, 1);
    b = new_builder();
    const int32_t sq[2] = {-3, 4};
    int32_t goti;
    if (compute(b, wnn_reduce_sum_square(b, konst(b, WNN_DATA_TYPE_INT32, 1, &two, sq), NULL), &goti, 4, NULL))
        CHECK_EQ_INT(goti, 25);
    b = new_builder();
    const int8_t i8[2] = {-128, -7};
    int8_t got8;
    if (compute(b, wnn_reduce_max(b, konst(b, WNN_DATA_TYPE_INT8, 1, &two, i8), NULL), &got8, 1, NULL))
        CHECK_EQ_INT(got8, -7);

    /* large: the cut-lane path (one output of 2^20 elements), and the
    ** tile path (columns of a [1000, 300] tensor) */
    uint32_t n = 1u << 20;
    float *ones = malloc(sizeof(float) * n);
    for (uint32_t i = 0; i < n; i++)
        ones[i] = (float)(i % 3);
    b = new_builder();
    if (compute(b, wnn_reduce_sum(b, vec_f32(b, n, ones), NULL), &got, 4, NULL))
        CHECK_EQ_INT((long long)got, 1048575); /* (0 + 1 + 2) * 349525 + 0 */
    b = new_builder();
    if (compute(b, wnn_reduce_log_sum_exp(b, vec_f32(b, n, ones), NULL), &got, 4, NULL)) {
        double e = 349526.0 + 349525.0 * (exp(1.0) + exp(2.0));
        CHECK_NEAR(got, log(e), 1e-4);
    }
    uint32_t s[2] = {1000, 300};
    float cols[300];
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    uint32_t axes[3] = {0, 0, 0};
    o.axes = axes;
    o.axes_count = 1;
    b = new_builder();
    if (compute(b, wnn_reduce_max(b, konst(b, WNN_DATA_TYPE_FLOAT32, 2, s, ones), &o), cols, sizeof cols, NULL))
        for (int c = 0; c < 300; c++)
            CHECK_EQ_INT((int)cols[c], c % 3);
    free(ones);

    /* validation */
    b = new_builder();
    uint32_t s23[2] = {2, 3};
    wnn_operand *x = konst(b, WNN_DATA_TYPE_FLOAT32, 2, s23, m);
    const int32_t ints[2] = {1, 2};
    const uint8_t bytes[2] = {1, 2};
    wnn_operand *xi = konst(b, WNN_DATA_TYPE_INT32, 1, &two, ints);
    wnn_operand *xb = konst(b, WNN_DATA_TYPE_UINT8, 1, &two, bytes);
    reduce_fn float_only[4] = {wnn_reduce_l2, wnn_reduce_log_sum, wnn_reduce_log_sum_exp, wnn_reduce_mean};
    for (int i = 0; i < 4; i++)
        CHECK_REFUSED(b, float_only[i](b, xi, NULL), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    reduce_fn sums[4] = {wnn_reduce_l1, wnn_reduce_sum, wnn_reduce_sum_square, wnn_reduce_product};
    for (int i = 0; i < 4; i++)
        CHECK_REFUSED(b, sums[i](b, xb, NULL), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK(wnn_reduce_max(b, xb, NULL) != NULL); /* max and min take every type */
    CHECK(wnn_reduce_min(b, xb, NULL) != NULL);
    o.axes_count = 2;
    axes[0] = 1;
    axes[1] = 1;
    CHECK_REFUSED(b, wnn_reduce_sum(b, x, &o), WNN_STATUS_INVALID_ARGUMENT); /* twice */
    axes[1] = 2;
    CHECK_REFUSED(b, wnn_reduce_max(b, x, &o), WNN_STATUS_INVALID_ARGUMENT); /* out of range */
    o.axes_count = 3;
    axes[1] = 0;
    axes[2] = 0;
    CHECK_REFUSED(b, wnn_reduce_min(b, x, &o), WNN_STATUS_INVALID_ARGUMENT); /* more than the rank */
    reduce_fn all[10] = {wnn_reduce_l1,   wnn_reduce_l2,  wnn_reduce_log_sum, wnn_reduce_log_sum_exp,
                         wnn_reduce_max,  wnn_reduce_mean, wnn_reduce_min,    wnn_reduce_product,
                         wnn_reduce_sum,  wnn_reduce_sum_square};
    for (int i = 0; i < 10; i++)
        CHECK_REFUSED(b, all[i](b, NULL, NULL), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

/* ------------------------------------------------------------------------ */
/* argMin / argMax, cumulativeSum                                            */
/* ------------------------------------------------------------------------ */

static void test_arg_min_max(void)
{
    /* ties keep the first index */
    const float m[6] = {1, 3, 3, 0, 5, -1};
    uint32_t s23[2] = {2, 3};
    int32_t got[3];
    wnn_graph_builder *b = new_builder();
    if (compute(b, wnn_arg_max(b, konst(b, WNN_DATA_TYPE_FLOAT32, 2, s23, m), 1, NULL), got, 8, NULL)) {
        CHECK_EQ_INT(got[0], 1);
        CHECK_EQ_INT(got[1], 1);
    }
    b = new_builder();
    if (compute(b, wnn_arg_min(b, konst(b, WNN_DATA_TYPE_FLOAT32, 2, s23, m), 1, NULL), got, 8, NULL)) {
        CHECK_EQ_INT(got[0], 0);
        CHECK_EQ_INT(got[1], 2);
    }
    /* axis 0, kept, int64 indices */
    wnn_arg_min_max_options o = {.keep_dimensions = true, .output_data_type = WNN_DATA_TYPE_INT64};
    int64_t got64[3];
    wnn_operand_desc d;
    b = new_builder();
    if (compute(b, wnn_arg_min(b, konst(b, WNN_DATA_TYPE_FLOAT32, 2, s23, m), 0, &o), got64, 24, &d)) {
        CHECK(got64[0] == 1 && got64[1] == 0 && got64[2] == 1);
        CHECK_EQ_INT(d.rank, 2);
        CHECK_EQ_INT(d.shape[0], 1);
        CHECK_EQ_INT(d.data_type, WNN_DATA_TYPE_INT64);
    }
    /* uint64 compares exactly */
    b = new_builder();
    const uint64_t u[3] = {UINT64_C(18446744073709551614), UINT64_C(18446744073709551615), 0};
    uint32_t three = 3;
    if (compute(b, wnn_arg_max(b, konst(b, WNN_DATA_TYPE_UINT64, 1, &three, u), 0, NULL), got, 4, NULL))
        CHECK_EQ_INT(got[0], 1);

    b = new_builder();
    wnn_operand *x = konst(b, WNN_DATA_TYPE_FLOAT32, 2, s23, m);
    float s = 1;
    CHECK_REFUSED(b, wnn_arg_max(b, x, 2, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_REFUSED(b, wnn_arg_min(b, x, 5, NULL), WNN_STATUS_INVALID_ARGUMENT);
    o.output_data_type = WNN_DATA_TYPE_FLOAT32;
    CHECK_REFUSED(b, wnn_arg_min(b, x, 0, &o), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_arg_max(b, x, 0, &o), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_arg_max(b, konst(b, WNN_DATA_TYPE_FLOAT32, 0, NULL, &s), 0, NULL), WNN_STATUS_INVALID_RANK);
    wnn_graph_builder_release(b);
}

static void test_cumulative_sum(void)
{
    const float x[4] = {1, 2, 3, 4};
    static const struct {
        bool exclusive, reversed;
        double want[4];
    } cases[4] = {
        {false, false, {1, 3, 6, 10}},
        {true, false, {0, 1, 3, 6}},
        {false, true, {10, 9, 7, 4}},
        {true, true, {9, 7, 4, 0}},
    };
    float got[4];
    for (int i = 0; i < 4; i++) {
        wnn_cumulative_sum_options o = {.exclusive = cases[i].exclusive, .reversed = cases[i].reversed};
        wnn_graph_builder *b = new_builder();
        if (compute(b, wnn_cumulative_sum(b, vec_f32(b, 4, x), 0, &o), got, 16, NULL))
            check_floats(got, cases[i].want, 4, 0);
    }
    /* along axis 0 of [2, 2], int64 past 2^53 */
    const int64_t big[4] = {INT64_C(9007199254740992), 5, 1, -5};
    int64_t got64[4];
    uint32_t s22[2] = {2, 2};
    wnn_graph_builder *b = new_builder();
    if (compute(b, wnn_cumulative_sum(b, konst(b, WNN_DATA_TYPE_INT64, 2, s22, big), 0, NULL), got64, 32, NULL)) {
        CHECK(got64[0] == INT64_C(9007199254740992) && got64[1] == 5);
        CHECK(got64[2] == INT64_C(9007199254740993) && got64[3] == 0);
    }

    b = new_builder();
    const int8_t i8[2] = {1, 2};
    uint32_t two = 2;
    float s = 1;
    CHECK_REFUSED(b, wnn_cumulative_sum(b, konst(b, WNN_DATA_TYPE_INT8, 1, &two, i8), 0, NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_cumulative_sum(b, vec_f32(b, 4, x), 1, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_REFUSED(b, wnn_cumulative_sum(b, konst(b, WNN_DATA_TYPE_FLOAT32, 0, NULL, &s), 0, NULL),
                  WNN_STATUS_INVALID_RANK);
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
    test_reductions();
    test_arg_min_max();
    test_cumulative_sum();
    wnn_context_release(ctx);
    TEST_DONE();
}
