/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-ops-quantize.c -- quantizeLinear and dequantizeLinear through the
** public API: per-tensor and blockwise scales, roundEven then saturation,
** every quantized type, and the refused calls with their statuses.
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

/* ------------------------------------------------------------------------ */
/* quantizeLinear / dequantizeLinear                                         */
/* ------------------------------------------------------------------------ */

static void test_quantize(void)
{
    /* per-tensor uint8: roundEven, then saturation */
    const float x[6] = {-1, 0.5f, 1.5f, 2.5f, 300, 7.4f};
    const float one_f = 1;
    const uint8_t zp0 = 0;
    uint8_t got8[6];
    wnn_graph_builder *b = new_builder();
    wnn_operand *y = wnn_quantize_linear(b, vec_f32(b, 6, x), konst(b, WNN_DATA_TYPE_FLOAT32, 0, NULL, &one_f),
                                         konst(b, WNN_DATA_TYPE_UINT8, 0, NULL, &zp0));
    if (compute(b, y, got8, 6, NULL)) {
        const uint8_t want[6] = {0, 0, 2, 2, 255, 7};
        check_bytes(got8, want, 6);
    }

    /* int4 with blocks of 2: scale [1, 2], zero point [0, -1] (packed 0xf0).
    ** x = [1, 2, 4, -20] -> [1, 2, 2 - 1, -10 - 1 saturated to -8] */
    const float xb[4] = {1, 2, 4, -20};
    const float scale[2] = {1, 2};
    const uint8_t zp4 = 0xf0;
    uint32_t two = 2, four = 4;
    uint8_t packed[2];
    wnn_operand_desc d;
    b = new_builder();
    y = wnn_quantize_linear(b, vec_f32(b, 4, xb), vec_f32(b, 2, scale), konst(b, WNN_DATA_TYPE_INT4, 1, &two, &zp4));
    if (compute(b, y, packed, 2, &d)) {
        CHECK_EQ_INT(packed[0], 0x21);
        CHECK_EQ_INT(packed[1], 0x81);
        CHECK_EQ_INT(d.data_type, WNN_DATA_TYPE_INT4);
    }

    /* and back: (q - zp) * scale = [1, 2, 4, -14] */
    const uint8_t q[2] = {0x21, 0x81};
    float got[4];
    b = new_builder();
    y = wnn_dequantize_linear(b, konst(b, WNN_DATA_TYPE_INT4, 1, &four, q), vec_f32(b, 2, scale),
                              konst(b, WNN_DATA_TYPE_INT4, 1, &two, &zp4));
    if (compute(b, y, got, 16, NULL)) {
        const double want[4] = {1, 2, 4, -14};
        check_floats(got, want, 4, 0);
    }

    /* uint4, an odd count (3 elements in 2 bytes), scale broadcast over
    ** rows of [3, 1] */
    const uint8_t u4[2] = {0xf3, 0x01}; /* 3, 15, 1 */
    const uint8_t zp_u4 = 0x01;
    const float half = 0.5f;
    uint32_t s31[2] = {3, 1}, s1 = 1;
    b = new_builder();
    y = wnn_dequantize_linear(b, konst(b, WNN_DATA_TYPE_UINT4, 2, s31, u4), konst(b, WNN_DATA_TYPE_FLOAT32, 1, &s1, &half),
                              konst(b, WNN_DATA_TYPE_UINT4, 1, &s1, &zp_u4));
    if (compute(b, y, got, 12, NULL)) {
        const double want[3] = {1, 7, 0};
        check_floats(got, want, 3, 0);
    }

    /* int4 tensors exist on the device, packed */
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = WNN_DATA_TYPE_INT4;
    td.rank = 1;
    td.shape[0] = 3;
    wnn_tensor *t = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &t));
    CHECK_EQ_INT(wnn_tensor_byte_length(t), 2);
    wnn_tensor_release(t);

    /* validation */
    b = new_builder();
    const int32_t i32[4] = {1, 2, 3, 4};
    wnn_operand *xf = vec_f32(b, 4, xb);
    wnn_operand *xi = konst(b, WNN_DATA_TYPE_INT32, 1, &four, i32);
    wnn_operand *s2 = vec_f32(b, 2, scale);
    wnn_operand *z2 = konst(b, WNN_DATA_TYPE_INT4, 1, &two, &zp4);
    wnn_operand *z8 = konst(b, WNN_DATA_TYPE_UINT8, 0, NULL, &zp0);
    const float s3v[3] = {1, 1, 1};
    const uint8_t z3v[3] = {0, 0, 0};
    wnn_operand *s3 = vec_f32(b, 3, s3v);
    uint32_t three = 3;
    wnn_operand *z3 = konst(b, WNN_DATA_TYPE_UINT8, 1, &three, z3v);
    uint32_t s114[3] = {1, 1, 4};
    const float s4v[4] = {1, 1, 1, 1};
    const uint8_t z4v[4] = {0, 0, 0, 0};
    wnn_operand *s_deep = konst(b, WNN_DATA_TYPE_FLOAT32, 3, s114, s4v);
    wnn_operand *z_deep = konst(b, WNN_DATA_TYPE_UINT8, 3, s114, z4v);
    CHECK_REFUSED(b, wnn_quantize_linear(b, xi, s2, z2), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_quantize_linear(b, xf, s2, s2), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_quantize_linear(b, xf, konst(b, WNN_DATA_TYPE_INT32, 1, &two, i32), z2),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_quantize_linear(b, xf, s3, z3), WNN_STATUS_SHAPE_MISMATCH); /* 3 does not divide 4 */
    CHECK_REFUSED(b, wnn_quantize_linear(b, xf, s2, z8), WNN_STATUS_SHAPE_MISMATCH); /* scale and zp differ */
    CHECK_REFUSED(b, wnn_quantize_linear(b, xf, s_deep, z_deep), WNN_STATUS_INVALID_RANK);
    CHECK_REFUSED(b, wnn_quantize_linear(b, xf, NULL, z2), WNN_STATUS_INVALID_ARGUMENT);
    wnn_operand *q4 = konst(b, WNN_DATA_TYPE_INT4, 1, &four, q);
    CHECK_REFUSED(b, wnn_dequantize_linear(b, xf, s2, z2), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_dequantize_linear(b, q4, s2, konst(b, WNN_DATA_TYPE_INT8, 1, &two, i32)),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_dequantize_linear(b, q4, konst(b, WNN_DATA_TYPE_INT32, 1, &two, i32), z2),
                  WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_REFUSED(b, wnn_dequantize_linear(b, q4, s3, konst(b, WNN_DATA_TYPE_INT4, 1, &three, z3v)),
                  WNN_STATUS_SHAPE_MISMATCH);
    /* int4 feeds no other operator */
    CHECK_REFUSED(b, wnn_add(b, q4, q4), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
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
    test_quantize();
    wnn_context_release(ctx);
    TEST_DONE();
}
