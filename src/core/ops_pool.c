/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_pool.c -- builder methods of averagePool2d, l2Pool2d, maxPool2d and
** resample2d: WebNN's rules for their options and the inference of the
** output shape. Each records a one-input node; output sizes are the output's
** shape, so the attributes keep only what the kernels need besides it.
*/
#include <math.h>

#include "core/ops_spatial.h"

static const char *const input_name[1] = {"input"};

/* One output dimension: floor or ceil rounding, or size (from
** output_sizes; 0 when absent) when it equals either. */
static bool pool_output_size(wnn_graph_builder *b, const char *op, const char *dim, uint32_t in, uint32_t window,
                             uint32_t pad_begin, uint32_t pad_end, uint32_t stride, uint32_t dilation,
                             wnn_rounding_type rounding, uint32_t size, uint32_t *out)
{
    uint32_t lo, hi;
    if (!wnn__window_output_size(b, op, dim, in, window, pad_begin, pad_end, stride, dilation, &lo, &hi))
        return false;
    if (size) {
        if (size != lo && size != hi) {
            wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                          "%s: options.outputSizes %s %u is neither the floor (%u) nor the ceil (%u) size", op, dim,
                          size, lo, hi);
            return false;
        }
        *out = size;
    } else {
        *out = rounding == WNN_ROUNDING_TYPE_CEIL ? hi : lo;
    }
    return true;
}

static wnn_operand *pool2d(wnn_graph_builder *b, wnn__op op, wnn_operand *x, uint32_t types,
                           const wnn_pool2d_options *options)
{
    static const wnn_pool2d_options defaults = WNN_POOL2D_OPTIONS_INIT;
    const wnn_pool2d_options *o = options ? options : &defaults;
    const char *name = wnn__op_name(op);
    if (!wnn__op_begin(b, name, &x, input_name, 1) || !wnn__op_check_chain(b, name, o->next_in_chain) ||
        !wnn__op_check_rank(b, name, "input", x, 4, 4) || !wnn__op_check_type(b, name, "input", x, types))
        return NULL;
    if ((unsigned)o->layout > WNN_INPUT_LAYOUT_NHWC)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: options.layout %d is not nchw or nhwc", name,
                             (int)o->layout);
    if ((unsigned)o->rounding_type > WNN_ROUNDING_TYPE_CEIL)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: options.roundingType %d is not floor or ceil",
                             name, (int)o->rounding_type);
    const wnn_operand_desc *d = wnn__desc(x);
    wnn__layout_dims in = wnn__layout_dims_of(d, o->layout);
    uint32_t window[2] = {in.height, in.width}, strides[2] = {1, 1}, dilations[2] = {1, 1};
    uint32_t sizes[2] = {0, 0}; /* 0: by rounding_type */
    if (!wnn__hw_option(b, name, "windowDimensions", o->window_dimensions, window) ||
        !wnn__hw_option(b, name, "strides", o->strides, strides) ||
        !wnn__hw_option(b, name, "dilations", o->dilations, dilations) ||
        !wnn__hw_option(b, name, "outputSizes", o->output_sizes, sizes))
        return NULL;
    uint32_t oh, ow;
    if (!pool_output_size(b, name, "height", in.height, window[0], o->padding[0], o->padding[1], strides[0],
                          dilations[0], o->rounding_type, sizes[0], &oh) ||
        !pool_output_size(b, name, "width", in.width, window[1], o->padding[2], o->padding[3], strides[1],
                          dilations[1], o->rounding_type, sizes[1], &ow))
        return NULL;
    wnn_operand_desc out = wnn__layout_desc(d->data_type, in.batches, in.channels, oh, ow, o->layout);
    wnn__attrs attrs = {.pool2d = {.window = {window[0], window[1]}, .layout = (uint32_t)o->layout}};
    for (int i = 0; i < 4; i++)
        attrs.pool2d.padding[i] = o->padding[i];
    for (int i = 0; i < 2; i++) {
        attrs.pool2d.strides[i] = strides[i];
        attrs.pool2d.dilations[i] = dilations[i];
    }
    return wnn__op_add_node(b, op, &x, 1, &out, 1, &attrs, NULL);
}

wnn_operand *wnn_average_pool2d(wnn_graph_builder *b, wnn_operand *x, const wnn_pool2d_options *o)
{
    return pool2d(b, WNN__OP_AVERAGE_POOL2D, x, WNN__TYPES_FLOAT, o);
}

wnn_operand *wnn_l2_pool2d(wnn_graph_builder *b, wnn_operand *x, const wnn_pool2d_options *o)
{
    return pool2d(b, WNN__OP_L2_POOL2D, x, WNN__TYPES_FLOAT, o);
}

wnn_operand *wnn_max_pool2d(wnn_graph_builder *b, wnn_operand *x, const wnn_pool2d_options *o)
{
    return pool2d(b, WNN__OP_MAX_POOL2D, x, WNN__TYPES_ALL, o);
}

wnn_operand *wnn_resample2d(wnn_graph_builder *b, wnn_operand *x, const wnn_resample2d_options *options)
{
    static const wnn_resample2d_options defaults = WNN_RESAMPLE2D_OPTIONS_INIT;
    const wnn_resample2d_options *o = options ? options : &defaults;
    const uint32_t types = WNN__TYPES_FLOAT | WNN__T(INT8) | WNN__T(UINT8);
    if (!wnn__op_begin(b, "resample2d", &x, input_name, 1) ||
        !wnn__op_check_rank(b, "resample2d", "input", x, 4, 4) ||
        !wnn__op_check_type(b, "resample2d", "input", x, types) ||
        !wnn__op_check_chain(b, "resample2d", o->next_in_chain))
        return NULL;
    /* Zero pairs are the defaults; a zero beside a non-zero value is refused below. */
    bool has_sizes = o->sizes[0] != 0 || o->sizes[1] != 0;
    float scales[2] = {o->scales[0], o->scales[1]};
    if (scales[0] == 0.0f && scales[1] == 0.0f)
        scales[0] = scales[1] = 1.0f;
    uint32_t axes[2] = {o->axes[0], o->axes[1]};
    if (axes[0] == 0 && axes[1] == 0) {
        axes[0] = 2;
        axes[1] = 3;
    }
    if ((unsigned)o->mode > WNN_INTERPOLATION_MODE_LINEAR)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                             "resample2d: options.mode %d is not nearest-neighbor or linear", (int)o->mode);
    for (int i = 0; i < 2; i++) {
        if (has_sizes && o->sizes[i] == 0)
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "resample2d: options.sizes[%d] is 0, must be >= 1",
                                 i);
        if (!has_sizes && !(scales[i] > 0.0f && isfinite(scales[i])))
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                                 "resample2d: options.scales[%d] is %g, must be a finite number > 0", i,
                                 (double)scales[i]);
        if (axes[i] >= 4)
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "resample2d: options.axes[%d] is %u, must be < 4",
                                 i, axes[i]);
    }
    if (axes[0] == axes[1])
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "resample2d: options.axes repeats axis %u", axes[0]);
    wnn_operand_desc out = *wnn__desc(x);
    for (int i = 0; i < 2; i++) {
        uint32_t axis = axes[i];
        double size = has_sizes ? o->sizes[i] : floor((double)out.shape[axis] * (double)scales[i]);
        if (size < 1.0 || size > (double)WNN_MAX_DIMENSION)
            return wnn__op_error(b, WNN_STATUS_INVALID_DIMENSION,
                                 "resample2d: output dimension %u would be %.0f, must be 1 to 2^31-1", axis, size);
        out.shape[axis] = (uint32_t)size;
    }
    wnn_status s = wnn__check_desc("resample2d", &out);
    if (s != WNN_OK)
        return wnn__op_error(b, s, "%s", wnn_last_error_message());
    wnn__attrs attrs = {.resample2d = {.mode = (uint32_t)o->mode, .axes = {axes[0], axes[1]}}};
    return wnn__op_add_node(b, WNN__OP_RESAMPLE2D, &x, 1, &out, 1, &attrs, NULL);
}
