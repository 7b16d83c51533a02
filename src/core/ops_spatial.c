/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_spatial.c -- layout and sliding-window arithmetic shared by the
** builders of the 2-D operators (see ops_spatial.h).
*/
#include "core/ops_spatial.h"

wnn__layout_dims wnn__layout_dims_of(const wnn_operand_desc *d, wnn_input_layout layout)
{
    if (layout == WNN_INPUT_LAYOUT_NHWC)
        return (wnn__layout_dims){d->shape[0], d->shape[3], d->shape[1], d->shape[2]};
    return (wnn__layout_dims){d->shape[0], d->shape[1], d->shape[2], d->shape[3]};
}

wnn_operand_desc wnn__layout_desc(wnn_data_type type, uint32_t batches, uint32_t channels, uint32_t height,
                                  uint32_t width, wnn_input_layout layout)
{
    if (layout == WNN_INPUT_LAYOUT_NHWC)
        return (wnn_operand_desc){type, 4, {batches, height, width, channels}};
    return (wnn_operand_desc){type, 4, {batches, channels, height, width}};
}

bool wnn__hw_option(wnn_graph_builder *b, const char *op, const char *name, const uint32_t *values, uint32_t *out)
{
    if (values[0] == 0 && values[1] == 0)
        return true;
    for (int i = 0; i < 2; i++)
        if (values[i] == 0) {
            wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: options.%s[%d] is 0, must be >= 1", op, name, i);
            return false;
        }
    out[0] = values[0];
    out[1] = values[1];
    return true;
}

bool wnn__window_output_size(wnn_graph_builder *b, const char *op, const char *dim, uint32_t in, uint32_t k,
                             uint32_t pad_begin, uint32_t pad_end, uint32_t stride, uint32_t dilation,
                             uint32_t *floor_out, uint32_t *ceil_out)
{
    uint64_t window = ((uint64_t)k - 1) * dilation + 1;
    uint64_t padded = (uint64_t)in + pad_begin + pad_end;
    if (window > padded) {
        wnn__op_error(b, WNN_STATUS_INVALID_DIMENSION,
                      "%s: the dilated window's %s %llu exceeds the padded input's %llu", op, dim,
                      (unsigned long long)window, (unsigned long long)padded);
        return false;
    }
    uint64_t span = padded - window;
    uint64_t lo = span / stride + 1, hi = (span + stride - 1) / stride + 1;
    if ((ceil_out ? hi : lo) > WNN_MAX_DIMENSION) {
        wnn__op_error(b, WNN_STATUS_INVALID_DIMENSION, "%s: output %s %llu is over 2^31-1", op, dim,
                      (unsigned long long)(ceil_out ? hi : lo));
        return false;
    }
    *floor_out = (uint32_t)lo;
    if (ceil_out)
        *ceil_out = (uint32_t)hi;
    return true;
}
