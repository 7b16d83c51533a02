/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_conv.c -- builder methods of conv2d and convTranspose2d: WebNN's rules
** for their operands and options, and the inference of the output shape.
**
** Both record the node [input, filter, bias] (bias WNN__NONE when absent)
** with the conv attributes; the output's height and width are in its shape.
*/
#include "core/ops_spatial.h"

/* The dimensions that the layouts place differently, in one order. */
typedef struct filter_dims {
    uint32_t out_channels, in_channels, height, width;
} filter_dims;

static filter_dims conv2d_filter_dims(const wnn_operand_desc *f, wnn_conv2d_filter_layout layout)
{
    const uint32_t *s = f->shape;
    switch (layout) {
    case WNN_CONV2D_FILTER_LAYOUT_HWIO: return (filter_dims){s[3], s[2], s[0], s[1]};
    case WNN_CONV2D_FILTER_LAYOUT_OHWI: return (filter_dims){s[0], s[3], s[1], s[2]};
    case WNN_CONV2D_FILTER_LAYOUT_IHWO: return (filter_dims){s[3], s[0], s[1], s[2]};
    case WNN_CONV2D_FILTER_LAYOUT_OIHW:
    default: return (filter_dims){s[0], s[1], s[2], s[3]};
    }
}

/* For convTranspose2d, out_channels is per group (the filter's own count). */
static filter_dims conv_transpose2d_filter_dims(const wnn_operand_desc *f,
                                                wnn_conv_transpose2d_filter_layout layout)
{
    const uint32_t *s = f->shape;
    switch (layout) {
    case WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_HWOI: return (filter_dims){s[2], s[3], s[0], s[1]};
    case WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_OHWI: return (filter_dims){s[0], s[3], s[1], s[2]};
    case WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_IOHW:
    default: return (filter_dims){s[1], s[0], s[2], s[3]};
    }
}

/* Strides, dilations and groups with the zero defaults resolved. */
typedef struct conv_params {
    uint32_t strides[2];
    uint32_t dilations[2];
    uint32_t groups;
} conv_params;

/* The checks both operators share, in the spec's order: operands, ranks,
** types, strides, dilations, groups and the layout value. Stores the
** resolved strides, dilations and groups in p. */
static bool check_common(wnn_graph_builder *b, const char *op, wnn_operand *input, wnn_operand *filter,
                         const wnn_chained_struct *next, wnn_operand *bias, const uint32_t *strides,
                         const uint32_t *dilations, uint32_t groups, wnn_input_layout layout, conv_params *p)
{
    wnn_operand *in[2] = {input, filter};
    static const char *const names[2] = {"input", "filter"};
    if (!wnn__op_begin(b, op, in, names, 2) || !wnn__op_check_chain(b, op, next) ||
        !wnn__op_check_optional(b, op, "options.bias", bias) ||
        !wnn__op_check_rank(b, op, "input", input, 4, 4) || !wnn__op_check_rank(b, op, "filter", filter, 4, 4) ||
        !wnn__op_check_type(b, op, "input", input, WNN__TYPES_FLOAT))
        return false;
    if (wnn__desc(filter)->data_type != wnn__desc(input)->data_type) {
        wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: filter is %s but input is %s, they must match", op,
                      wnn_data_type_name(wnn__desc(filter)->data_type),
                      wnn_data_type_name(wnn__desc(input)->data_type));
        return false;
    }
    *p = (conv_params){{1, 1}, {1, 1}, groups ? groups : 1};
    if (!wnn__hw_option(b, op, "strides", strides, p->strides) ||
        !wnn__hw_option(b, op, "dilations", dilations, p->dilations))
        return false;
    if ((unsigned)layout > WNN_INPUT_LAYOUT_NHWC) {
        wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: options.inputLayout %d is not nchw or nhwc", op,
                      (int)layout);
        return false;
    }
    return true;
}

/* bias: rank 1 of [channels], the input's type. */
static bool check_bias(wnn_graph_builder *b, const char *op, wnn_operand *bias, wnn_data_type type,
                       uint32_t channels)
{
    if (!bias)
        return true;
    const wnn_operand_desc *d = wnn__desc(bias);
    if (d->data_type != type) {
        wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: options.bias is %s but input is %s, they must match",
                      op, wnn_data_type_name(d->data_type), wnn_data_type_name(type));
        return false;
    }
    if (!wnn__op_check_rank(b, op, "options.bias", bias, 1, 1))
        return false;
    if (d->shape[0] != channels) {
        wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "%s: options.bias has %u elements, must be %u (output channels)",
                      op, d->shape[0], channels);
        return false;
    }
    return true;
}

/* Records the node once the output descriptor is known. */
static wnn_operand *add_conv_node(wnn_graph_builder *b, wnn__op op, wnn_operand *input, wnn_operand *filter,
                                  wnn_operand *bias, wnn_operand_desc *out, const wnn__attrs *attrs)
{
    wnn_status s = wnn__check_desc(wnn__op_name(op), out);
    if (s != WNN_OK)
        return wnn__op_error(b, s, "%s", wnn_last_error_message());
    wnn_operand *in[3] = {input, filter, bias};
    return wnn__op_add_node(b, op, in, 3, out, 1, attrs, NULL);
}

wnn_operand *wnn_conv2d(wnn_graph_builder *b, wnn_operand *input, wnn_operand *filter,
                        const wnn_conv2d_options *options)
{
    static const wnn_conv2d_options defaults = WNN_CONV2D_OPTIONS_INIT;
    const wnn_conv2d_options *o = options ? options : &defaults;
    const char *op = "conv2d";
    conv_params p;
    if (!check_common(b, op, input, filter, o->next_in_chain, o->bias, o->strides, o->dilations, o->groups,
                      o->input_layout, &p))
        return NULL;
    if ((unsigned)o->filter_layout > WNN_CONV2D_FILTER_LAYOUT_IHWO)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "conv2d: options.filterLayout %d is not a conv2d layout",
                             (int)o->filter_layout);
    const wnn_operand_desc *id = wnn__desc(input);
    wnn__layout_dims in = wnn__layout_dims_of(id, o->input_layout);
    filter_dims f = conv2d_filter_dims(wnn__desc(filter), o->filter_layout);
    if (in.channels % p.groups != 0)
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                             "conv2d: input has %u channels, not a multiple of options.groups %u", in.channels,
                             p.groups);
    if (f.in_channels != in.channels / p.groups)
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                             "conv2d: filter has %u input channels, must be input channels / groups = %u",
                             f.in_channels, in.channels / p.groups);
    if (f.out_channels % p.groups != 0)
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                             "conv2d: filter has %u output channels, not a multiple of options.groups %u",
                             f.out_channels, p.groups);
    if (!check_bias(b, op, o->bias, id->data_type, f.out_channels))
        return NULL;

    uint32_t oh, ow;
    if (!wnn__window_output_size(b, op, "height", in.height, f.height, o->padding[0], o->padding[1],
                                 p.strides[0], p.dilations[0], &oh, NULL) ||
        !wnn__window_output_size(b, op, "width", in.width, f.width, o->padding[2], o->padding[3], p.strides[1],
                                 p.dilations[1], &ow, NULL))
        return NULL;
    wnn_operand_desc out = wnn__layout_desc(id->data_type, in.batches, f.out_channels, oh, ow, o->input_layout);
    wnn__attrs attrs = {.conv = {.groups = p.groups,
                                 .input_layout = (uint32_t)o->input_layout,
                                 .filter_layout = (uint32_t)o->filter_layout}};
    for (int i = 0; i < 4; i++)
        attrs.conv.padding[i] = o->padding[i];
    for (int i = 0; i < 2; i++) {
        attrs.conv.strides[i] = p.strides[i];
        attrs.conv.dilations[i] = p.dilations[i];
    }
    return add_conv_node(b, WNN__OP_CONV2D, input, filter, o->bias, &out, &attrs);
}

/* One output dimension of convTranspose2d: (in - 1) * stride + (k - 1) *
** dilation + 1 - pads, then output_padding, or size when it is not 0. */
static bool transpose_output_size(wnn_graph_builder *b, const char *dim, uint32_t in, uint32_t k, uint32_t pad_begin,
                                  uint32_t pad_end, uint32_t stride, uint32_t dilation, uint32_t output_padding,
                                  uint32_t size, uint32_t *out)
{
    int64_t full = ((int64_t)in - 1) * stride + ((int64_t)k - 1) * dilation + 1;
    int64_t computed = full - pad_begin - pad_end;
    if (computed <= 0) {
        wnn__op_error(b, WNN_STATUS_INVALID_DIMENSION, "convTranspose2d: output %s is %lld after padding, must be >= 1",
                      dim, (long long)computed);
        return false;
    }
    int64_t v = computed + output_padding;
    if (size) {
        if ((int64_t)size < computed || (int64_t)size >= computed + stride) {
            wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                          "convTranspose2d: options.outputSizes %s %u is outside [%lld, %lld)", dim, size,
                          (long long)computed, (long long)(computed + stride));
            return false;
        }
        v = size;
    }
    if (v > (int64_t)WNN_MAX_DIMENSION) {
        wnn__op_error(b, WNN_STATUS_INVALID_DIMENSION, "convTranspose2d: output %s %lld is over 2^31-1", dim,
                      (long long)v);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

wnn_operand *wnn_conv_transpose2d(wnn_graph_builder *b, wnn_operand *input, wnn_operand *filter,
                                  const wnn_conv_transpose2d_options *options)
{
    static const wnn_conv_transpose2d_options defaults = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
    const wnn_conv_transpose2d_options *o = options ? options : &defaults;
    const char *op = "convTranspose2d";
    conv_params p;
    if (!check_common(b, op, input, filter, o->next_in_chain, o->bias, o->strides, o->dilations, o->groups,
                      o->input_layout, &p))
        return NULL;
    if ((unsigned)o->filter_layout > WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_OHWI)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                             "convTranspose2d: options.filterLayout %d is not a convTranspose2d layout",
                             (int)o->filter_layout);
    for (int i = 0; i < 2; i++)
        if (o->output_padding[i] >= p.strides[i])
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                                 "convTranspose2d: options.outputPadding[%d] is %u, must be below strides[%d] = %u", i,
                                 o->output_padding[i], i, p.strides[i]);
    uint32_t sizes[2] = {0, 0}; /* 0: computed */
    if (!wnn__hw_option(b, op, "outputSizes", o->output_sizes, sizes))
        return NULL;
    const wnn_operand_desc *id = wnn__desc(input);
    wnn__layout_dims in = wnn__layout_dims_of(id, o->input_layout);
    filter_dims f = conv_transpose2d_filter_dims(wnn__desc(filter), o->filter_layout);
    if (in.channels % p.groups != 0)
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                             "convTranspose2d: input has %u channels, not a multiple of options.groups %u",
                             in.channels, p.groups);
    if (f.in_channels != in.channels)
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                             "convTranspose2d: filter has %u input channels, the input has %u", f.in_channels,
                             in.channels);
    uint64_t out_channels = (uint64_t)f.out_channels * p.groups;
    if (out_channels > WNN_MAX_DIMENSION)
        return wnn__op_error(b, WNN_STATUS_INVALID_DIMENSION,
                             "convTranspose2d: output channels %llu are over 2^31-1", (unsigned long long)out_channels);
    if (!check_bias(b, op, o->bias, id->data_type, (uint32_t)out_channels))
        return NULL;

    uint32_t oh, ow;
    if (!transpose_output_size(b, "height", in.height, f.height, o->padding[0], o->padding[1], p.strides[0],
                               p.dilations[0], o->output_padding[0], sizes[0], &oh) ||
        !transpose_output_size(b, "width", in.width, f.width, o->padding[2], o->padding[3], p.strides[1],
                               p.dilations[1], o->output_padding[1], sizes[1], &ow))
        return NULL;
    wnn_operand_desc out =
        wnn__layout_desc(id->data_type, in.batches, (uint32_t)out_channels, oh, ow, o->input_layout);
    wnn__attrs attrs = {.conv = {.groups = p.groups,
                                 .input_layout = (uint32_t)o->input_layout,
                                 .filter_layout = (uint32_t)o->filter_layout}};
    for (int i = 0; i < 4; i++)
        attrs.conv.padding[i] = o->padding[i];
    for (int i = 0; i < 2; i++) {
        attrs.conv.strides[i] = p.strides[i];
        attrs.conv.dilations[i] = p.dilations[i];
    }
    return add_conv_node(b, WNN__OP_CONV_TRANSPOSE2D, input, filter, o->bias, &out, &attrs);
}
