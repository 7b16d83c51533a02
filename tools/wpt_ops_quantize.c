/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_quantize.c -- WPT adapters of quantizeLinear and
** dequantizeLinear: input, scale and zeroPoint, passed as they are.
** (qdq_subgraph cases write the last two in one object, which the runner
** already splits into two positional arguments.)
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

static bool three_operands(wpt_call *call, wnn_operand **x, wnn_operand **scale, wnn_operand **zero_point)
{
    return wpt_args_between(call, 3, 3) && wpt_arg_operand(call, 0, x) && wpt_arg_operand(call, 1, scale) &&
           wpt_arg_operand(call, 2, zero_point);
}

bool wpt_adapt_quantize_linear(wpt_call *call)
{
    wnn_operand *x, *scale, *zero_point;
    if (!three_operands(call, &x, &scale, &zero_point))
        return false;
    return wpt_call_one(call, wnn_quantize_linear(call->builder, x, scale, zero_point));
}

bool wpt_adapt_dequantize_linear(wpt_call *call)
{
    wnn_operand *x, *scale, *zero_point;
    if (!three_operands(call, &x, &scale, &zero_point))
        return false;
    return wpt_call_one(call, wnn_dequantize_linear(call->builder, x, scale, zero_point));
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_quantize_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
