/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_gather.c -- WPT adapters of gather and scatter: gather,
** gatherElements, gatherND, scatterElements and scatterND. Indices go to the
** library as the case wrote them; it judges their type and range.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

bool wpt_adapt_gather(wpt_call *call)
{
    wnn_operand *x, *indices;
    wnn_gather_options o = WNN_GATHER_OPTIONS_INIT;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_operand(call, 1, &indices) ||
        !wpt_opt_u32(call, "axis", NULL, &o.axis))
        return false;
    return wpt_call_one(call, wnn_gather(call->builder, x, indices, &o));
}

bool wpt_adapt_gather_elements(wpt_call *call)
{
    wnn_operand *x, *indices;
    wnn_gather_options o = WNN_GATHER_OPTIONS_INIT;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_operand(call, 1, &indices) ||
        !wpt_opt_u32(call, "axis", NULL, &o.axis))
        return false;
    return wpt_call_one(call, wnn_gather_elements(call->builder, x, indices, &o));
}

bool wpt_adapt_gather_nd(wpt_call *call)
{
    wnn_operand *x, *indices;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_operand(call, 1, &indices))
        return false;
    return wpt_call_one(call, wnn_gather_nd(call->builder, x, indices));
}

bool wpt_adapt_scatter_elements(wpt_call *call)
{
    wnn_operand *x, *indices, *updates;
    wnn_scatter_options o = WNN_SCATTER_OPTIONS_INIT;
    if (!wpt_args_between(call, 3, 3) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_operand(call, 1, &indices) ||
        !wpt_arg_operand(call, 2, &updates) || !wpt_opt_u32(call, "axis", NULL, &o.axis))
        return false;
    return wpt_call_one(call, wnn_scatter_elements(call->builder, x, indices, updates, &o));
}

bool wpt_adapt_scatter_nd(wpt_call *call)
{
    wnn_operand *x, *indices, *updates;
    if (!wpt_args_between(call, 3, 3) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_operand(call, 1, &indices) ||
        !wpt_arg_operand(call, 2, &updates))
        return false;
    return wpt_call_one(call, wnn_scatter_nd(call->builder, x, indices, updates));
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_gather_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
