/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_reduce.c -- WPT adapters of the operators that reduce or scan
** along axes: the reductions (reduceL1 ... reduceSumSquare, one adapter),
** argMin, argMax, cumulativeSum and softmax.
**
** Adapters do argument plumbing only and let the library judge the values.
** What the C API cannot carry is checked here, as WebNN's IDL layer would:
** more axes than the C options hold, and the outputDataType string.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

#include <string.h>

typedef wnn_operand *(*reduce_fn)(wnn_graph_builder *, wnn_operand *, const wnn_reduce_options *);

bool wpt_adapt_reduce(wpt_call *call)
{
    static const struct {
        const char *name;
        reduce_fn fn;
    } reductions[] = {
        {"reduceL1", wnn_reduce_l1},           {"reduceL2", wnn_reduce_l2},
        {"reduceLogSum", wnn_reduce_log_sum},  {"reduceLogSumExp", wnn_reduce_log_sum_exp},
        {"reduceMax", wnn_reduce_max},         {"reduceMean", wnn_reduce_mean},
        {"reduceMin", wnn_reduce_min},         {"reduceProduct", wnn_reduce_product},
        {"reduceSum", wnn_reduce_sum},         {"reduceSumSquare", wnn_reduce_sum_square},
    };
    reduce_fn fn = NULL;
    for (size_t i = 0; i < sizeof reductions / sizeof reductions[0]; i++)
        if (strcmp(call->op, reductions[i].name) == 0)
            fn = reductions[i].fn;
    if (fn == NULL)
        return wpt_call_fail(call, "is not a reduction");
    wnn_operand *x;
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    uint32_t axes[WNN_MAX_RANK];
    bool has_axes = false;
    size_t count = 0;
    if (!wpt_args_between(call, 1, 1) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_opt_u32_list(call, "axes", &has_axes, axes, WNN_MAX_RANK, &count) ||
        !wpt_opt_bool(call, "keepDimensions", &o.keep_dimensions))
        return false;
    o.axes = has_axes ? axes : NULL;
    o.axes_count = (uint32_t)count;
    return wpt_call_one(call, fn(call->builder, x, &o));
}

/* input, axis, {keepDimensions, outputDataType}. */
static bool arg_min_max(wpt_call *call, bool is_max)
{
    wnn_operand *x;
    uint32_t axis;
    const char *type = NULL;
    wnn_arg_min_max_options o = WNN_ARG_MIN_MAX_OPTIONS_INIT;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_u32(call, 1, &axis) ||
        !wpt_opt_bool(call, "keepDimensions", &o.keep_dimensions) ||
        !wpt_opt_string(call, "outputDataType", &type))
        return false;
    if (type != NULL) {
        o.output_data_type = wnn_data_type_from_name(type);
        if (o.output_data_type == WNN_DATA_TYPE_INVALID)
            return wpt_call_fail(call, "options.outputDataType \"%s\" is not a data type", type);
    }
    wnn_graph_builder *b = call->builder;
    return wpt_call_one(call, is_max ? wnn_arg_max(b, x, axis, &o) : wnn_arg_min(b, x, axis, &o));
}

bool wpt_adapt_arg_min(wpt_call *call)
{
    return arg_min_max(call, false);
}

bool wpt_adapt_arg_max(wpt_call *call)
{
    return arg_min_max(call, true);
}

bool wpt_adapt_cumulative_sum(wpt_call *call)
{
    wnn_operand *x;
    uint32_t axis;
    wnn_cumulative_sum_options o = WNN_CUMULATIVE_SUM_OPTIONS_INIT;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_u32(call, 1, &axis) ||
        !wpt_opt_bool(call, "exclusive", &o.exclusive) || !wpt_opt_bool(call, "reversed", &o.reversed))
        return false;
    return wpt_call_one(call, wnn_cumulative_sum(call->builder, x, axis, &o));
}

bool wpt_adapt_softmax(wpt_call *call)
{
    wnn_operand *x;
    uint32_t axis;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_u32(call, 1, &axis))
        return false;
    return wpt_call_one(call, wnn_softmax(call->builder, x, axis));
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_reduce_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
