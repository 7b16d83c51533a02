/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_quantize.c -- builder methods of quantizeLinear and dequantizeLinear:
** data types of the three operands, and the shape rule that scale and zero
** point share one shape whose dimensions (aligned to the right) divide the
** input's, a dimension of 1 broadcasting and a larger one making blocks.
*/
#include <string.h>

#include "core/builder.h"

#define TYPES_QUANTIZED                                                                                  \
    (WNN__T(INT8) | WNN__T(UINT8) | WNN__T(INT32) | WNN__T(UINT32) | WNN__T(INT4) | WNN__T(UINT4))

static bool check_scale_shape(wnn_graph_builder *b, const char *op, const wnn_operand_desc *in,
                              const wnn_operand_desc *scale, const wnn_operand_desc *zero_point)
{
    if (scale->rank != zero_point->rank ||
        memcmp(scale->shape, zero_point->shape, sizeof scale->shape[0] * scale->rank) != 0) {
        wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "%s: scale and zeroPoint must have the same shape", op);
        return false;
    }
    if (scale->rank > in->rank) {
        wnn__op_error(b, WNN_STATUS_INVALID_RANK, "%s: scale is rank %u, over the input's rank %u", op, scale->rank,
                      in->rank);
        return false;
    }
    for (uint32_t i = 0; i < scale->rank; i++) {
        uint32_t d = scale->shape[scale->rank - 1 - i], n = in->shape[in->rank - 1 - i];
        if (n % d != 0) {
            wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                          "%s: scale dimension %u is %u, which does not divide the input's dimension %u", op,
                          scale->rank - 1 - i, d, n);
            return false;
        }
    }
    return true;
}

wnn_operand *wnn_quantize_linear(wnn_graph_builder *b, wnn_operand *x, wnn_operand *scale, wnn_operand *zero_point)
{
    static const char *const names[3] = {"input", "scale", "zeroPoint"};
    static const char op[] = "quantizeLinear";
    wnn_operand *in[3] = {x, scale, zero_point};
    if (!wnn__op_begin(b, op, in, names, 3) || !wnn__op_check_type(b, op, "input", x, WNN__TYPES_FLOAT) ||
        !wnn__op_check_type(b, op, "zeroPoint", zero_point, TYPES_QUANTIZED))
        return NULL;
    const wnn_operand_desc *dx = wnn__desc(x), *ds = wnn__desc(scale), *dz = wnn__desc(zero_point);
    if (ds->data_type != dx->data_type)
        return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: scale is %s, must be the input's type %s", op,
                             wnn_data_type_name(ds->data_type), wnn_data_type_name(dx->data_type));
    if (!check_scale_shape(b, op, dx, ds, dz))
        return NULL;
    wnn_operand_desc out = *dx;
    out.data_type = dz->data_type;
    return wnn__op_add_node(b, WNN__OP_QUANTIZE_LINEAR, in, 3, &out, 1, NULL, NULL);
}

wnn_operand *wnn_dequantize_linear(wnn_graph_builder *b, wnn_operand *x, wnn_operand *scale,
                                   wnn_operand *zero_point)
{
    static const char *const names[3] = {"input", "scale", "zeroPoint"};
    static const char op[] = "dequantizeLinear";
    wnn_operand *in[3] = {x, scale, zero_point};
    if (!wnn__op_begin(b, op, in, names, 3) || !wnn__op_check_type(b, op, "input", x, TYPES_QUANTIZED) ||
        !wnn__op_check_type(b, op, "scale", scale, WNN__TYPES_FLOAT))
        return NULL;
    const wnn_operand_desc *dx = wnn__desc(x), *ds = wnn__desc(scale), *dz = wnn__desc(zero_point);
    if (dz->data_type != dx->data_type)
        return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: zeroPoint is %s, must be the input's type %s",
                             op, wnn_data_type_name(dz->data_type), wnn_data_type_name(dx->data_type));
    if (!check_scale_shape(b, op, dx, ds, dz))
        return NULL;
    wnn_operand_desc out = *dx;
    out.data_type = ds->data_type;
    return wnn__op_add_node(b, WNN__OP_DEQUANTIZE_LINEAR, in, 3, &out, 1, NULL, NULL);
}
