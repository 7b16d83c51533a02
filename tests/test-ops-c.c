/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-c.c -- the operators of family C through the public API: expand,
** pad, split, tile, reverse, triangular, gather, gatherElements, gatherND,
** scatterElements, scatterND, gru, gruCell, lstm and lstmCell.
**
** Each operator is checked against values worked out by hand (the
** specification's own examples where it has them; the recurrent cells from
** their gate formulas, evaluated in double precision) and each has its
** validation errors checked with their exact statuses.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

static wnn_context *ctx;

static wnn_graph_builder *builder(void)
{
    wnn_graph_builder *b = NULL;
    if (wnn_graph_builder_create(ctx, &b) != WNN_OK) {
        fprintf(stderr, "builder: %s\n", wnn_last_error_message());
        exit(1);
    }
    return b;
}

static wnn_operand *constant(wnn_graph_builder *b, wnn_data_type t, uint32_t rank, const uint32_t *shape,
                             const void *data)
{
    wnn_operand_desc d = {t, rank, {0}};
    for (uint32_t i = 0; i < rank; i++)
        d.shape[i] = shape[i];
    return wnn_graph_builder_constant(b, &d, data, (size_t)wnn_operand_desc_byte_length(&d));
}

static wnn_operand *f32(wnn_graph_builder *b, uint32_t rank, const uint32_t *shape, const float *data)
{
    return constant(b, WNN_DATA_TYPE_FLOAT32, rank, shape, data);
}

/* Builds the graph of b's operands outs (n of them), dispatches it once and
** reads output i into bufs[i]. Releases b. False (after a failed check) when
** any step fails. */
static bool run(wnn_graph_builder *b, wnn_operand *const *outs, size_t n, void *const *bufs)
{
    wnn_named_operand named[4];
    wnn_named_tensor tensors[4];
    char names[4][24];
    wnn_graph *g = NULL;
    bool ok = n <= 4;
    for (size_t i = 0; ok && i < n; i++) {
        snprintf(names[i], sizeof names[i], "out%zu", i);
        named[i] = (wnn_named_operand){names[i], outs[i]};
        ok = outs[i] != NULL;
    }
    CHECK(ok);
    if (ok)
        CHECK_OK(wnn_graph_builder_build(b, named, n, &g));
    wnn_graph_builder_release(b);
    if (!ok || !g)
        return false;
    for (size_t i = 0; i < n; i++) {
        wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
        wnn_operand_desc od;
        wnn_graph_get_output(g, (uint32_t)i, NULL, &od);
        td.data_type = od.data_type;
        td.rank = od.rank;
        memcpy(td.shape, od.shape, sizeof td.shape);
        td.readable = true;
        tensors[i].name = names[i];
        tensors[i].tensor = NULL;
        CHECK_OK(wnn_context_create_tensor(ctx, &td, &tensors[i].tensor));
    }
    CHECK_OK(wnn_context_dispatch(ctx, g, NULL, 0, tensors, n));
    for (size_t i = 0; i < n; i++) {
        CHECK_OK(wnn_context_read_tensor_sync(ctx, tensors[i].tensor, bufs[i], wnn_tensor_byte_length(tensors[i].tensor)));
        wnn_tensor_release(tensors[i].tensor);
    }
    wnn_graph_release(g);
    return true;
}

static bool run1(wnn_graph_builder *b, wnn_operand *out, void *buf)
{
    return run(b, &out, 1, &buf);
}

#define CHECK_FLOATS(got, want, n, tol)                                                                \
    do {                                                                                               \
        for (size_t k_ = 0; k_ < (size_t)(n); k_++)                                                     \
            CHECK_NEAR((got)[k_], (want)[k_], tol);                                                    \
    } while (0)

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
    wnn_split_options o = {1};
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
    o.has_axes = true;
    o.axes_count = 1;
    o.axes[0] = 1;
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
    o.axes_count = 2;
    o.axes[0] = 1;
    o.axes[1] = 1;
    CHECK_REFUSED(b, wnn_reverse(b, x, &o), WNN_STATUS_INVALID_ARGUMENT);
    o.axes_count = 1;
    o.axes[0] = 2;
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
    wnn_triangular_options o = {false, -1};
    b = builder();
    if (run1(b, wnn_triangular(b, f32(b, 2, s33, m33), &o), got)) {
        const float want[9] = {0, 0, 0, 4, 0, 0, 7, 8, 0};
        CHECK_FLOATS(got, want, 9, 0);
    }
    o = (wnn_triangular_options){true, 1};
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

/* ------------------------------------------------------------------------ */
/* Gather and scatter (the specification's examples)                         */
/* ------------------------------------------------------------------------ */

static const float m43[12] = {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32};
static const uint32_t s43[2] = {4, 3};

static void test_gather(void)
{
    uint32_t idx[2] = {3, 1}, s2[1] = {2};
    float got[6];
    wnn_graph_builder *b = builder();
    wnn_operand *in = f32(b, 2, s43, m43);
    if (run1(b, wnn_gather(b, in, constant(b, WNN_DATA_TYPE_UINT32, 1, s2, idx), NULL), got)) {
        const float want[6] = {30, 31, 32, 10, 11, 12};
        CHECK_FLOATS(got, want, 6, 0);
    }

    /* negative and out-of-range int64 indices along axis 1: -1 is the last
    ** column, 7 is clamped to it, -9 is clamped to the first */
    int64_t idx64[3] = {-1, 7, -9};
    uint32_t s3[1] = {3};
    wnn_gather_options o = {1};
    float got12[12];
    b = builder();
    in = f32(b, 2, s43, m43);
    if (run1(b, wnn_gather(b, in, constant(b, WNN_DATA_TYPE_INT64, 1, s3, idx64), &o), got12)) {
        const float want[12] = {2, 2, 0, 12, 12, 10, 22, 22, 20, 32, 32, 30};
        CHECK_FLOATS(got12, want, 12, 0);
    }

    uint32_t e_idx[6] = {3, 1, 1, 2, 0, 3};
    b = builder();
    in = f32(b, 2, s43, m43);
    if (run1(b, wnn_gather_elements(b, in, constant(b, WNN_DATA_TYPE_UINT32, 2, s23, e_idx), NULL), got)) {
        const float want[6] = {30, 11, 12, 20, 1, 32};
        CHECK_FLOATS(got, want, 6, 0);
    }

    const float c8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    uint32_t s222[3] = {2, 2, 2}, s22[2] = {2, 2};
    int32_t nd_idx[4] = {0, 1, 1, 0};
    float got4[4];
    b = builder();
    if (run1(b, wnn_gather_nd(b, f32(b, 3, s222, c8), constant(b, WNN_DATA_TYPE_INT32, 2, s22, nd_idx)), got4)) {
        const float want[4] = {2, 3, 4, 5};
        CHECK_FLOATS(got4, want, 4, 0);
    }

    b = builder();
    in = f32(b, 2, s43, m43);
    float fidx[2] = {0, 1};
    float s = 0;
    int32_t i2[2] = {0, 1};
    wnn_operand *ii = constant(b, WNN_DATA_TYPE_INT32, 1, s2, i2);
    CHECK_REFUSED(b, wnn_gather(b, in, f32(b, 1, s2, fidx), NULL), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    o.axis = 2;
    CHECK_REFUSED(b, wnn_gather(b, in, ii, &o), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_REFUSED(b, wnn_gather(b, f32(b, 0, NULL, &s), ii, NULL), WNN_STATUS_INVALID_RANK);
    CHECK_REFUSED(b, wnn_gather_elements(b, in, ii, NULL), WNN_STATUS_INVALID_RANK);
    int32_t i6[6] = {0};
    uint32_t s32[2] = {3, 2};
    CHECK_REFUSED(b, wnn_gather_elements(b, in, constant(b, WNN_DATA_TYPE_INT32, 2, s32, i6), NULL),
                  WNN_STATUS_SHAPE_MISMATCH);
    uint32_t s13[2] = {1, 3};
    CHECK_REFUSED(b, wnn_gather_nd(b, in, constant(b, WNN_DATA_TYPE_INT32, 2, s13, i6)), WNN_STATUS_SHAPE_MISMATCH);
    CHECK_REFUSED(b, wnn_gather_nd(b, in, constant(b, WNN_DATA_TYPE_INT32, 0, NULL, i6)), WNN_STATUS_INVALID_RANK);
    wnn_graph_builder_release(b);
}

static void test_scatter(void)
{
    uint32_t idx[6] = {3, 1, 1, 2, 0, 3};
    const float upd[6] = {-1, -2, -3, -4, -5, -6};
    float got[12];
    wnn_graph_builder *b = builder();
    wnn_operand *r = wnn_scatter_elements(b, f32(b, 2, s43, m43), constant(b, WNN_DATA_TYPE_UINT32, 2, s23, idx),
                                          f32(b, 2, s23, upd), NULL);
    if (run1(b, r, got)) {
        const float want[12] = {0, -5, 2, 10, -2, -3, -4, 21, 22, -1, 31, -6};
        CHECK_FLOATS(got, want, 12, 0);
    }

    const float v8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int32_t nd_idx[4] = {4, 3, 1, 7};
    uint32_t s8[1] = {8}, s41[2] = {4, 1}, s4[1] = {4};
    float got8[8];
    b = builder();
    r = wnn_scatter_nd(b, f32(b, 1, s8, v8), constant(b, WNN_DATA_TYPE_INT32, 2, s41, nd_idx), f32(b, 1, s4, upd));
    if (run1(b, r, got8)) {
        const float want[8] = {0, -3, 2, -2, -1, 5, 6, -4};
        CHECK_FLOATS(got8, want, 8, 0);
    }

    b = builder();
    wnn_operand *in = f32(b, 2, s43, m43), *ii = constant(b, WNN_DATA_TYPE_UINT32, 2, s23, idx);
    int32_t iu[6] = {0};
    CHECK_REFUSED(b, wnn_scatter_elements(b, in, ii, constant(b, WNN_DATA_TYPE_INT32, 2, s23, iu), NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    uint32_t s32[2] = {3, 2};
    CHECK_REFUSED(b, wnn_scatter_elements(b, in, ii, f32(b, 2, s32, upd), NULL), WNN_STATUS_SHAPE_MISMATCH);
    wnn_operand *i41 = constant(b, WNN_DATA_TYPE_INT32, 2, s41, nd_idx);
    CHECK_REFUSED(b, wnn_scatter_nd(b, in, i41, f32(b, 1, s4, upd)), WNN_STATUS_SHAPE_MISMATCH);
    wnn_graph_builder_release(b);
}

/* ------------------------------------------------------------------------ */
/* Recurrent networks                                                        */
/* ------------------------------------------------------------------------ */

/* GRU with one input feature and one hidden unit, zrn: weights z, r, n. */
static const float gru_w[3] = {0.5f, -1.0f, 2.0f}, gru_r[3] = {1.0f, 0.5f, -0.5f};

static void test_gru_cell(void)
{
    uint32_t s11[2] = {1, 1}, s31[2] = {3, 1}, s3[1] = {3};
    float x = 1.0f, h = 0.5f, got;
    wnn_graph_builder *b = builder();
    wnn_operand *r = wnn_gru_cell(b, f32(b, 2, s11, &x), f32(b, 2, s31, gru_w), f32(b, 2, s31, gru_r),
                                  f32(b, 2, s11, &h), 1, NULL);
    if (run1(b, r, &got))
        CHECK_NEAR(got, 0.6231483803815459, 1e-6);

    /* reset before the recurrent product, with both biases */
    const float bias[3] = {0.1f, 0.2f, 0.3f}, rbias[3] = {-0.1f, 0.4f, 0.25f};
    wnn_gru_cell_options o = WNN_GRU_CELL_OPTIONS_INIT;
    b = builder();
    o.reset_after = false;
    o.bias = f32(b, 1, s3, bias);
    o.recurrent_bias = f32(b, 1, s3, rbias);
    r = wnn_gru_cell(b, f32(b, 2, s11, &x), f32(b, 2, s31, gru_w), f32(b, 2, s31, gru_r), f32(b, 2, s11, &h), 1, &o);
    if (run1(b, r, &got))
        CHECK_NEAR(got, 0.6303695419821409, 1e-6);

    b = builder();
    wnn_operand *in = f32(b, 2, s11, &x), *w = f32(b, 2, s31, gru_w), *rw = f32(b, 2, s31, gru_r);
    uint32_t s12[2] = {1, 2};
    float h2[2] = {0, 0};
    CHECK_REFUSED(b, wnn_gru_cell(b, in, w, rw, f32(b, 2, s12, h2), 1, NULL), WNN_STATUS_SHAPE_MISMATCH);
    uint16_t half = 0x3c00;
    CHECK_REFUSED(b, wnn_gru_cell(b, in, w, rw, constant(b, WNN_DATA_TYPE_FLOAT16, 2, s11, &half), 1, NULL),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_gru_cell(b, in, w, rw, f32(b, 2, s11, &h), 2, NULL), WNN_STATUS_SHAPE_MISMATCH);
    wnn_graph_builder_release(b);
}

static void test_gru(void)
{
    uint32_t s211[3] = {2, 1, 1}, s131[3] = {1, 3, 1};
    const float xs[2] = {1.0f, -2.0f};
    float hidden, seq[2];
    wnn_gru_options o = WNN_GRU_OPTIONS_INIT;
    o.return_sequence = true;
    for (int backward = 0; backward < 2; backward++) {
        wnn_graph_builder *b = builder();
        wnn_operand *outs[2] = {NULL, NULL};
        o.direction = backward ? WNN_RECURRENT_DIRECTION_BACKWARD : WNN_RECURRENT_DIRECTION_FORWARD;
        CHECK_EQ_INT(wnn_gru(b, f32(b, 3, s211, xs), f32(b, 3, s131, gru_w), f32(b, 3, s131, gru_r), 2, 1, &o, outs),
                     2);
        void *bufs[2] = {&hidden, seq};
        if (!run(b, outs, 2, bufs))
            continue;
        /* the sequence is indexed by input step in both directions */
        const double fwd[2] = {0.3639596173216816, -0.5275598303643003};
        const double bwd[2] = {0.21670464186981214, -0.7305682574505604};
        const double *want = backward ? bwd : fwd;
        CHECK_NEAR(seq[0], want[0], 1e-6);
        CHECK_NEAR(seq[1], want[1], 1e-6);
        CHECK_NEAR(hidden, backward ? want[0] : want[1], 1e-6);
    }

    wnn_graph_builder *b = builder();
    wnn_operand *in = f32(b, 3, s211, xs), *w = f32(b, 3, s131, gru_w), *rw = f32(b, 3, s131, gru_r);
    wnn_operand *outs[2];
    int32_t ints[2] = {1, 2};
    CHECK_REFUSED_COUNT(b, wnn_gru(b, constant(b, WNN_DATA_TYPE_INT32, 3, s211, ints), w, rw, 2, 1, NULL, outs),
                        WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, rw, 3, 1, NULL, outs), WNN_STATUS_SHAPE_MISMATCH);
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, rw, 0, 1, NULL, outs), WNN_STATUS_INVALID_ARGUMENT);
    const float wide[6] = {0};
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, f32(b, 3, (const uint32_t[]){1, 3, 2}, wide), 2, 1, NULL, outs),
                        WNN_STATUS_SHAPE_MISMATCH);
    o = (wnn_gru_options)WNN_GRU_OPTIONS_INIT;
    o.direction = WNN_RECURRENT_DIRECTION_BOTH;
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_SHAPE_MISMATCH);
    o = (wnn_gru_options)WNN_GRU_OPTIONS_INIT;
    o.bias = f32(b, 1, (const uint32_t[]){3}, gru_w);
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_INVALID_RANK);
    o = (wnn_gru_options)WNN_GRU_OPTIONS_INIT;
    o.has_activations = true;
    o.activations[1] = (wnn_recurrent_activation)9;
    CHECK_REFUSED_COUNT(b, wnn_gru(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

/* LSTM with one input feature and one hidden unit, iofg: weights i, o, f, g. */
static const float lstm_w[4] = {0.5f, -0.25f, 1.0f, 2.0f}, lstm_r[4] = {-1.0f, 0.5f, 0.25f, 1.5f};

static void test_lstm_cell(void)
{
    uint32_t s11[2] = {1, 1}, s41[2] = {4, 1}, s4[1] = {4}, s3[1] = {3};
    const float peep[3] = {0.1f, -0.2f, 0.3f}, bias[4] = {0.1f, 0, 0, 0}, rbias[4] = {0, 0, 0, -0.5f};
    float x = 1.0f, h = 0.5f, c = 0.25f, got_h, got_c;
    wnn_lstm_cell_options o = WNN_LSTM_CELL_OPTIONS_INIT;
    wnn_graph_builder *b = builder();
    o.bias = f32(b, 1, s4, bias);
    o.recurrent_bias = f32(b, 1, s4, rbias);
    o.peephole_weight = f32(b, 1, s3, peep);
    wnn_operand *outs[2] = {NULL, NULL};
    CHECK_EQ_INT(wnn_lstm_cell(b, f32(b, 2, s11, &x), f32(b, 2, s41, lstm_w), f32(b, 2, s41, lstm_r),
                               f32(b, 2, s11, &h), f32(b, 2, s11, &c), 1, &o, outs),
                 2);
    void *bufs[2] = {&got_h, &got_c};
    if (run(b, outs, 2, bufs)) {
        CHECK_NEAR(got_h, 0.29821588414623923, 1e-6);
        CHECK_NEAR(got_c, 0.711667835428329, 1e-6);
    }

    b = builder();
    wnn_operand *in = f32(b, 2, s11, &x), *w = f32(b, 2, s41, lstm_w), *rw = f32(b, 2, s41, lstm_r);
    wnn_operand *hs = f32(b, 2, s11, &h);
    uint32_t s111[3] = {1, 1, 1};
    CHECK_REFUSED_COUNT(b, wnn_lstm_cell(b, in, w, rw, hs, f32(b, 3, s111, &c), 1, NULL, outs),
                        WNN_STATUS_INVALID_RANK);
    o = (wnn_lstm_cell_options)WNN_LSTM_CELL_OPTIONS_INIT;
    o.peephole_weight = f32(b, 1, s4, bias);
    CHECK_REFUSED_COUNT(b, wnn_lstm_cell(b, in, w, rw, hs, hs, 1, &o, outs), WNN_STATUS_SHAPE_MISMATCH);
    CHECK_REFUSED_COUNT(b, wnn_lstm_cell(b, in, w, rw, hs, hs, 1, NULL, NULL), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

static void test_lstm(void)
{
    uint32_t s211[3] = {2, 1, 1}, s241[3] = {2, 4, 1};
    const float xs[2] = {1.0f, -2.0f};
    float w2[8], r2[8], h[2], c[2], seq[4];
    for (int i = 0; i < 8; i++) {
        w2[i] = lstm_w[i % 4];
        r2[i] = lstm_r[i % 4];
    }
    wnn_lstm_options o = WNN_LSTM_OPTIONS_INIT;
    o.direction = WNN_RECURRENT_DIRECTION_BOTH;
    o.return_sequence = true;
    wnn_graph_builder *b = builder();
    wnn_operand *outs[3] = {NULL, NULL, NULL};
    CHECK_EQ_INT(wnn_lstm(b, f32(b, 3, s211, xs), f32(b, 3, s241, w2), f32(b, 3, s241, r2), 2, 1, &o, outs), 3);
    void *bufs[3] = {h, c, seq};
    if (run(b, outs, 3, bufs)) {
        const double want_h[2] = {-0.09650805483861158, 0.16844395711477209};
        const double want_c[2] = {-0.14965735678156009, 0.4273928658816303};
        /* [steps, directions]: forward then backward per step */
        const double want_seq[4] = {0.23515409333592502, 0.16844395711477209, -0.09650805483861158,
                                    -0.16337790084874892};
        CHECK_FLOATS(h, want_h, 2, 1e-6);
        CHECK_FLOATS(c, want_c, 2, 1e-6);
        CHECK_FLOATS(seq, want_seq, 4, 1e-6);
    }

    b = builder();
    uint32_t s141[3] = {1, 4, 1};
    wnn_operand *in = f32(b, 3, s211, xs), *w = f32(b, 3, s141, lstm_w), *rw = f32(b, 3, s141, lstm_r);
    CHECK_REFUSED_COUNT(b, wnn_lstm(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_SHAPE_MISMATCH);
    o = (wnn_lstm_options)WNN_LSTM_OPTIONS_INIT;
    o.initial_cell_state = f32(b, 2, (const uint32_t[]){1, 1}, xs);
    CHECK_REFUSED_COUNT(b, wnn_lstm(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_INVALID_RANK);
    o = (wnn_lstm_options)WNN_LSTM_OPTIONS_INIT;
    o.direction = (wnn_recurrent_direction)5;
    CHECK_REFUSED_COUNT(b, wnn_lstm(b, in, w, rw, 2, 1, &o, outs), WNN_STATUS_INVALID_ARGUMENT);
    wnn_graph_builder_release(b);
}

/* float16 goes through float32 and is rounded once: a gru cell with the
** values above lands on the binary16 nearest to the exact result. */
static void test_float16(void)
{
    uint32_t s11[2] = {1, 1}, s31[2] = {3, 1};
    uint16_t x = 0x3c00 /* 1 */, h = 0x3800 /* 0.5 */, w[3], r[3], got = 0;
    const uint16_t w16[3] = {0x3800, 0xbc00, 0x4000}, r16[3] = {0x3c00, 0x3800, 0xb800};
    memcpy(w, w16, sizeof w);
    memcpy(r, r16, sizeof r);
    wnn_graph_builder *b = builder();
    wnn_operand *res = wnn_gru_cell(b, constant(b, WNN_DATA_TYPE_FLOAT16, 2, s11, &x),
                                    constant(b, WNN_DATA_TYPE_FLOAT16, 2, s31, w),
                                    constant(b, WNN_DATA_TYPE_FLOAT16, 2, s31, r),
                                    constant(b, WNN_DATA_TYPE_FLOAT16, 2, s11, &h), 1, NULL);
    /* 0.62314838 lies between 0.623046875 (0x38fc) and 0.62353515625
    ** (0x38fd), nearer the first */
    if (run1(b, res, &got))
        CHECK_EQ_INT(got, 0x38fc);
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
    test_gather();
    test_scatter();
    test_gru_cell();
    test_gru();
    test_lstm_cell();
    test_lstm();
    test_float16();
    wnn_context_release(ctx);
    TEST_DONE();
}
