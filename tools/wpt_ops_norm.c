/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_norm.c -- WPT adapters of the normalizations: batchNormalization,
** instanceNormalization and layerNormalization.
**
** Adapters do argument plumbing only and let the library judge the values;
** the layout enum string is checked here (it has no C value to pass on).
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

bool wpt_adapt_batch_normalization(wpt_call *call)
{
    wnn_operand *input, *mean, *variance;
    wnn_batch_normalization_options o = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
    uint32_t axis;
    double epsilon;
    if (!wpt_args_between(call, 3, 3) || !wpt_arg_operand(call, 0, &input) || !wpt_arg_operand(call, 1, &mean) ||
        !wpt_arg_operand(call, 2, &variance) || !wpt_opt_operand(call, "scale", &o.scale) ||
        !wpt_opt_operand(call, "bias", &o.bias) || !wpt_opt_u32_ptr(call, "axis", &axis, &o.axis) ||
        !wpt_opt_double_ptr(call, "epsilon", &epsilon, &o.epsilon))
        return false;
    return wpt_call_one(call, wnn_batch_normalization(call->builder, input, mean, variance, &o));
}

bool wpt_adapt_instance_normalization(wpt_call *call)
{
    wnn_operand *input;
    wnn_instance_normalization_options o = WNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
    double epsilon;
    if (!wpt_args_between(call, 1, 1) || !wpt_arg_operand(call, 0, &input) ||
        !wpt_opt_operand(call, "scale", &o.scale) || !wpt_opt_operand(call, "bias", &o.bias) ||
        !wpt_opt_double_ptr(call, "epsilon", &epsilon, &o.epsilon) || !wpt_opt_layout(call, "layout", &o.layout))
        return false;
    return wpt_call_one(call, wnn_instance_normalization(call->builder, input, &o));
}

bool wpt_adapt_layer_normalization(wpt_call *call)
{
    wnn_operand *input;
    wnn_layer_normalization_options o = WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
    uint32_t axes[WNN_MAX_RANK];
    bool has_axes = false;
    double epsilon;
    size_t count = 0;
    if (!wpt_args_between(call, 1, 1) || !wpt_arg_operand(call, 0, &input) ||
        !wpt_opt_operand(call, "scale", &o.scale) || !wpt_opt_operand(call, "bias", &o.bias) ||
        !wpt_opt_u32_list(call, "axes", &has_axes, axes, WNN_MAX_RANK, &count) ||
        !wpt_opt_double_ptr(call, "epsilon", &epsilon, &o.epsilon))
        return false;
    o.axes = has_axes ? axes : NULL;
    o.axes_count = (uint32_t)count;
    return wpt_call_one(call, wnn_layer_normalization(call->builder, input, &o));
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_norm_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
