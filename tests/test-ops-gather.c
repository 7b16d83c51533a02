/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-gather.c -- gather and scatter through the public API: gather,
** gatherElements, gatherND, scatterElements and scatterND, on the
** specification's own examples, each with its validation errors checked
** with their exact statuses.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#include "test-ops-outputs.h"

/* The builder refused (result NULL) with status want; clears the error. */
#define CHECK_REFUSED(b, result, want)                                                                 \
    do {                                                                                               \
        CHECK((result) == NULL);                                                                       \
        CHECK_STATUS(wnn_graph_builder_status(b), want);                                               \
        wnn_graph_builder_clear_error(b);                                                              \
    } while (0)

static const uint32_t s23[2] = {2, 3};

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
    wnn_gather_options o = {.axis = 1};
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

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "cannot create a context on %s: %s\n", o.device, wnn_last_error_message());
        return 1;
    }
    test_gather();
    test_scatter();
    wnn_context_release(ctx);
    TEST_DONE();
}
