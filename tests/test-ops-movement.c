/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-movement.c -- data movement through the public API: expand,
** pad, split, tile, reverse and triangular. (reshape, transpose, concat and
** slice are in test-ops.c.)
**
** Each operator is checked against values worked out by hand (the
** specification's own examples where it has them) and each has its
** validation errors checked with their exact statuses.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#include "test-ops-outputs.h"

#define CHECK_INTS(got, want, n)                                                                       \
    do {                                                                                               \
        for (size_t k_ = 0; k_ < (size_t)(n); k_++)                                                     \
            CHECK_EQ_INT((got)[k_], (want)[k_]);                                                       \
    } while (0)

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

static const float m23[6] = {1, 2, 3, 4, 5, 6};
static const uint32_t s23[2] = {2, 3};

/* ------------------------------------------------------------------------ */
/* Data movement                                                             */
/* ------------------------------------------------------------------------ */

static void test_expand(void)
{
    wnn_graph_builder *b = builder();
    float col[2] = {1, 2}, got[6];
    uint32_t s21[2] = {2, 1}, to[2] = {2, 3};
    const float want[6] = {1, 1, 1, 2, 2, 2};
    if (run1(b, wnn_expand(b, f32(b, 2, s21, col), 2, to), got))
        CHECK_FLOATS(got, want, 6, 0);

    /* int64 keeps every bit, from a scalar to rank 2 */
    b = builder();
    int64_t big = INT64_C(9007199254740993), got64[4];
    uint32_t s22[2] = {2, 2};
    if (run1(b, wnn_expand(b, constant(b, WNN_DATA_TYPE_INT64, 0, NULL, &big), 2, s22), got64))
        for (int i = 0; i < 4; i++)
            CHECK(got64[i] == big);

    b = builder();
    wnn_operand *x = f32(b, 2, s23, m23);
    uint32_t bad[1] = {3}, nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_REFUSED(b, wnn_expand(b, x, 1, bad), WNN_STATUS_SHAPE_MISMATCH);
    CHECK_REFUSED(b, wnn_expand(b, x, 9, nine), WNN_STATUS_INVALID_RANK);
    uint32_t wide[2] = {4, 3};
    CHECK_REFUSED(b, wnn_expand(b, x, 2, wide), WNN_STATUS_SHAPE_MISMATCH);
    wnn_graph_builder_release(b);
}

static void test_pad(void)
{
    uint32_t begin[2] = {1, 2}, end[2] = {1, 2};
    /* the specification's examples */
    const float edge[28] = {1, 1, 1, 2, 3, 3, 3, 1, 1, 1, 2, 3, 3, 3, 4, 4, 4, 5, 6, 6, 6, 4, 4, 4, 5, 6, 6, 6};
    const float reflect[28] = {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1};
    float constant_want[28], got[28];
    for (int i = 0; i < 28; i++)
        constant_want[i] = 9.5f;
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++)
            constant_want[(r + 1) * 7 + c + 2] = m23[r * 3 + c];

    wnn_pad_options o = WNN_PAD_OPTIONS_INIT;
    o.value = 9.5;
    wnn_graph_builder *b = builder();
    if (run1(b, wnn_pad(b, f32(b, 2, s23, m23), begin, end, &o), got))
        CHECK_FLOATS(got, constant_want, 28, 0);
    o.mode = WNN_PAD_MODE_EDGE;
    b = builder();
    if (run1(b, wnn_pad(b, f32(b, 2, s23, m23), begin, end, &o), got))
        CHECK_FLOATS(got, edge, 28, 0);
    o.mode = WNN_PAD_MODE_REFLECTION;
    b = builder();
    if (run1(b, wnn_pad(b, f32(b, 2, s23, m23), begin, end, &o), got))
        CHECK_FLOATS(got, reflect, 28, 0);

    /* the constant is cast to the input's type: int8 saturates */
    b = builder();
    int8_t bytes[2] = {1, 2}, got8[4];
    uint32_t s2[1] = {2}, one[1] = {1};
    o.mode = WNN_PAD_MODE_CONSTANT;
    o.value = 1000.0;
    if (run1(b, wnn_pad(b, constant(b, WNN_DATA_TYPE_INT8, 1, s2, bytes), one, one, &o), got8)) {
        const int8_t want8[4] = {127, 1, 2, 127};
        CHECK_INTS(got8, want8, 4);
    }

    b = builder();
    wnn_operand *x = f32(b, 2, s23, m23);
    uint32_t deep[2] = {2, 3};
    o.mode = WNN_PAD_MODE_REFLECTION;
    CHECK_REFUSED(b, wnn_pad(b, x, deep, end, &o), WNN_STATUS_INVALID_ARGUMENT);
    float s = 1;
    CHECK_REFUSED(b, wnn_pad(b, f32(b, 0, NULL, &s), NULL, NULL, NULL), WNN_STATUS_INVALID_RANK);
    o.mode = (wnn_pad_mode)7;
    CHECK_REFUSED(b, wnn_pad(b, x, begin, end, &o), WNN_STATUS_INVALID_ARGUMENT);
    uint32_t huge[2] = {0, 0x7fffffffu};
    CHECK_REFUSED(b, wnn_pad(b, x, begin, huge, NULL), WNN_STATUS_INVALID_DIMENSION);
    wnn_graph_builder_release(b);
}

static void test_split(void)
{
    int32_t v[5] = {0, 1, 2, 3, 4}, a[2], c[3];
    uint32_t s5[1] = {5}, sizes[2] = {2, 3};
    wnn_graph_builder *b = builder();
    wnn_operand *outs[2] = {NULL, NULL};
    CHECK_EQ_INT(wnn_split_sizes(b, constant(b, WNN_DATA_TYPE_INT32, 1, s5, v), sizes, 2, NULL, outs), 2);
    void *bufs[2] = {a, c};
    if (run(b, outs, 2, bufs)) {
        const int32_t wa[2] = {0, 1}, wc[3] = {2, 3, 4};
        CHECK_INTS(a, wa, 2);
        CHECK_INTS(c, wc, 3);
    }

    /* three equal parts along axis 1 of [2, 3] */
    b = builder();
    wnn_operand *parts[3] = {NULL, NULL, NULL};
    wnn_split_options o = {.axis = 1};
    float p0[2], p1[2], p2[2];
    CHECK_EQ_INT(wnn_split(b, f32(b, 2, s23, m23), 3, &o, parts), 3);
    void *pb[3] = {p0, p1, p2};
    if (run(b, parts, 3, pb)) {
        CHECK(p0[0] == 1 && p0[1] == 4);
        CHECK(p1[0] == 2 && p1[1] == 5);
        CHECK(p2[0] == 3 && p2[1] == 6);
    }

    b = builder();
    wnn_operand *x = constant(b, WNN_DATA_TYPE_INT32, 1, s5, v);
    uint32_t short_sizes[2] = {2, 2}, zero_sizes[2] = {0, 5};
    CHECK_REFUSED_COUNT(b, wnn_split(b, x, 2, NULL, outs), WNN_STATUS_SHAPE_MISMATCH);
    CHECK_REFUSED_COUNT(b, wnn_split(b, x, 0, NULL, outs), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_REFUSED_COUNT(b, wnn_split_sizes(b, x, short_sizes, 2, NULL, outs), WNN_STATUS_SHAPE_MISMATCH);
    CHECK_REFUSED_COUNT(b, wnn_split_sizes(b, x, zero_sizes, 2, NULL, outs), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_REFUSED_COUNT(b, wnn_split(b, x, 5, &o, outs), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

static void test_tile_reverse(void)
{
    uint8_t v[2] = {1, 2}, got[6];
    uint32_t s2[1] = {2}, reps[1] = {3};
    wnn_graph_builder *b = builder();
    if (run1(b, wnn_tile(b, constant(b, WNN_DATA_TYPE_UINT8, 1, s2, v), reps), got)) {
        const uint8_t want[6] = {1, 2, 1, 2, 1, 2};
        CHECK_INTS(got, want, 6);
    }

    float r[6];
    wnn_reverse_options o = WNN_REVERSE_OPTIONS_INIT;
    uint32_t axes[2] = {1, 1};
    o.axes = axes;
    o.axes_count = 1;
    b = builder();
    if (run1(b, wnn_reverse(b, f32(b, 2, s23, m23), &o), r)) {
        const float want[6] = {3, 2, 1, 6, 5, 4};
        CHECK_FLOATS(r, want, 6, 0);
    }
    b = builder();
    if (run1(b, wnn_reverse(b, f32(b, 2, s23, m23), NULL), r)) {
        const float want[6] = {6, 5, 4, 3, 2, 1};
        CHECK_FLOATS(r, want, 6, 0);
    }
    o.axes_count = 0; /* an empty list reverses nothing */
    b = builder();
    if (run1(b, wnn_reverse(b, f32(b, 2, s23, m23), &o), r))
        CHECK_FLOATS(r, m23, 6, 0);

    b = builder();
    wnn_operand *x = f32(b, 2, s23, m23);
    uint32_t zero[2] = {1, 0};
    CHECK_REFUSED(b, wnn_tile(b, x, zero), WNN_STATUS_INVALID_ARGUMENT);
    o.axes_count = 2; /* axis 1 twice */
    CHECK_REFUSED(b, wnn_reverse(b, x, &o), WNN_STATUS_INVALID_ARGUMENT);
    o.axes_count = 1;
    axes[0] = 2;
    CHECK_REFUSED(b, wnn_reverse(b, x, &o), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

static void test_triangular(void)
{
    const float m33[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    uint32_t s33[2] = {3, 3};
    float got[9];
    wnn_graph_builder *b = builder();
    if (run1(b, wnn_triangular(b, f32(b, 2, s33, m33), NULL), got)) {
        const float want[9] = {1, 2, 3, 0, 5, 6, 0, 0, 9};
        CHECK_FLOATS(got, want, 9, 0);
    }
    wnn_triangular_options o = {.lower = true, .diagonal = -1};
    b = builder();
    if (run1(b, wnn_triangular(b, f32(b, 2, s33, m33), &o), got)) {
        const float want[9] = {0, 0, 0, 4, 0, 0, 7, 8, 0};
        CHECK_FLOATS(got, want, 9, 0);
    }
    o = (wnn_triangular_options){.diagonal = 1};
    b = builder();
    if (run1(b, wnn_triangular(b, f32(b, 2, s33, m33), &o), got)) {
        const float want[9] = {0, 2, 3, 0, 0, 6, 0, 0, 0};
        CHECK_FLOATS(got, want, 9, 0);
    }

    b = builder();
    uint32_t s3[1] = {3};
    CHECK_REFUSED(b, wnn_triangular(b, f32(b, 1, s3, m33), NULL), WNN_STATUS_INVALID_RANK);
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
    test_expand();
    test_pad();
    test_split();
    test_tile_reverse();
    test_triangular();
    wnn_context_release(ctx);
    TEST_DONE();
}
