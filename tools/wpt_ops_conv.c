/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_conv.c -- WPT adapters of convolution, pooling and resampling:
** conv2d, convTranspose2d, averagePool2d, l2Pool2d, maxPool2d and
** resample2d.
**
** Adapters do argument plumbing only and let the library judge the values.
** What the C API cannot see is checked here, as WebNN's IDL layer would: the
** length of fixed-size sequences (padding, strides, ...), and enum strings
** (which have no C value to pass on). The pooling rounding option is read
** under both its names, roundingType and the older outputShapeRounding.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

#include "wpt_case.h"

/* ------------------------------------------------------------------------ */
/* Convolution                                                               */
/* ------------------------------------------------------------------------ */

/* The options conv2d and convTranspose2d share. */
static bool conv_common(wpt_call *call, wnn_operand **input, wnn_operand **filter, uint32_t *padding,
                        uint32_t *strides, uint32_t *dilations, uint32_t *groups, wnn_input_layout *layout,
                        wnn_operand **bias)
{
    return wpt_args_between(call, 2, 2) && wpt_arg_operand(call, 0, input) && wpt_arg_operand(call, 1, filter) &&
           wpt_opt_fixed(call, "padding", padding, 4, NULL) && wpt_opt_fixed(call, "strides", strides, 2, NULL) &&
           wpt_opt_fixed(call, "dilations", dilations, 2, NULL) && wpt_opt_u32(call, "groups", NULL, groups) &&
           wpt_opt_layout(call, "inputLayout", layout) && wpt_opt_operand(call, "bias", bias);
}

bool wpt_adapt_conv2d(wpt_call *call)
{
    static const char *const filter_layouts[4] = {"oihw", "hwio", "ohwi", "ihwo"};
    wnn_operand *input, *filter;
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    int filter_layout = (int)o.filter_layout;
    if (!conv_common(call, &input, &filter, o.padding, o.strides, o.dilations, &o.groups, &o.input_layout,
                     &o.bias) ||
        !wpt_opt_enum(call, "filterLayout", filter_layouts, 4, &filter_layout))
        return false;
    o.filter_layout = (wnn_conv2d_filter_layout)filter_layout;
    return wpt_call_one(call, wnn_conv2d(call->builder, input, filter, &o));
}

bool wpt_adapt_conv_transpose2d(wpt_call *call)
{
    static const char *const filter_layouts[3] = {"iohw", "hwoi", "ohwi"};
    wnn_operand *input, *filter;
    wnn_conv_transpose2d_options o = WNN_CONV_TRANSPOSE2D_OPTIONS_INIT;
    int filter_layout = (int)o.filter_layout;
    if (!conv_common(call, &input, &filter, o.padding, o.strides, o.dilations, &o.groups, &o.input_layout,
                     &o.bias) ||
        !wpt_opt_enum(call, "filterLayout", filter_layouts, 3, &filter_layout) ||
        !wpt_opt_fixed(call, "outputPadding", o.output_padding, 2, NULL) ||
        !wpt_opt_fixed(call, "outputSizes", o.output_sizes, 2, NULL))
        return false;
    o.filter_layout = (wnn_conv_transpose2d_filter_layout)filter_layout;
    return wpt_call_one(call, wnn_conv_transpose2d(call->builder, input, filter, &o));
}

/* ------------------------------------------------------------------------ */
/* Pooling and resample                                                      */
/* ------------------------------------------------------------------------ */

typedef wnn_operand *(*pool_fn)(wnn_graph_builder *b, wnn_operand *x, const wnn_pool2d_options *o);

static bool adapt_pool(wpt_call *call, pool_fn fn)
{
    static const char *const roundings[2] = {"floor", "ceil"};
    wnn_operand *input;
    wnn_pool2d_options o = WNN_POOL2D_OPTIONS_INIT;
    int rounding = (int)o.rounding_type;
    if (!wpt_args_between(call, 1, 1) || !wpt_arg_operand(call, 0, &input) ||
        !wpt_opt_fixed(call, "windowDimensions", o.window_dimensions, 2, NULL) ||
        !wpt_opt_fixed(call, "padding", o.padding, 4, NULL) || !wpt_opt_fixed(call, "strides", o.strides, 2, NULL) ||
        !wpt_opt_fixed(call, "dilations", o.dilations, 2, NULL) || !wpt_opt_layout(call, "layout", &o.layout) ||
        !wpt_opt_enum(call, "roundingType", roundings, 2, &rounding) ||
        !wpt_opt_enum(call, "outputShapeRounding", roundings, 2, &rounding) ||
        !wpt_opt_fixed(call, "outputSizes", o.output_sizes, 2, NULL))
        return false;
    o.rounding_type = (wnn_rounding_type)rounding;
    return wpt_call_one(call, fn(call->builder, input, &o));
}

bool wpt_adapt_average_pool2d(wpt_call *call)
{
    return adapt_pool(call, wnn_average_pool2d);
}

bool wpt_adapt_l2_pool2d(wpt_call *call)
{
    return adapt_pool(call, wnn_l2_pool2d);
}

bool wpt_adapt_max_pool2d(wpt_call *call)
{
    return adapt_pool(call, wnn_max_pool2d);
}

/* options.scales: two numbers (WebNN float). */
static bool opt_scales(wpt_call *call, float *scales)
{
    const json_t *v = call->options ? json_object_get(call->options, "scales") : NULL;
    if (v == NULL)
        return true;
    if (call->options_read_count < sizeof call->options_read / sizeof call->options_read[0])
        call->options_read[call->options_read_count++] = "scales";
    if (!json_is_array(v) || json_array_size(v) != 2)
        return wpt_call_fail(call, "options.scales must be an array of 2 numbers");
    for (size_t i = 0; i < 2; i++) {
        wpt_number n;
        if (!wpt_json_number(json_array_get(v, i), &n))
            return wpt_call_fail(call, "options.scales[%zu] must be a number", i);
        scales[i] = (float)n.d;
    }
    return true;
}

bool wpt_adapt_resample2d(wpt_call *call)
{
    static const char *const modes[2] = {"nearest-neighbor", "linear"};
    wnn_operand *input;
    wnn_resample2d_options o = WNN_RESAMPLE2D_OPTIONS_INIT;
    int mode = (int)o.mode;
    if (!wpt_args_between(call, 1, 1) || !wpt_arg_operand(call, 0, &input) ||
        !wpt_opt_enum(call, "mode", modes, 2, &mode) || !opt_scales(call, o.scales) ||
        !wpt_opt_fixed(call, "sizes", o.sizes, 2, NULL) || !wpt_opt_fixed(call, "axes", o.axes, 2, NULL))
        return false;
    o.mode = (wnn_interpolation_mode)mode;
    return wpt_call_one(call, wnn_resample2d(call->builder, input, &o));
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_conv_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
