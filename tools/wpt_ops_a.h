/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_a.h -- WPT adapters of the operators of family A that are not a
** plain one- or two-operand call: where, the activations with options (elu,
** hardSigmoid, leakyRelu, linear), the reductions, argMin/argMax,
** cumulativeSum, quantizeLinear and dequantizeLinear. Each has wpt_adapter's
** signature (wpt_ops.h) and gets one row in wpt_ops.c's table; the plain
** ones (ceil, equal, prelu ...) use the table's WPT_UNARY/WPT_BINARY rows.
*/
#ifndef WNN_TOOLS_WPT_OPS_A_H
#define WNN_TOOLS_WPT_OPS_A_H

#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

bool wpt_adapt_where(wpt_call *call);
bool wpt_adapt_elu(wpt_call *call);
bool wpt_adapt_hard_sigmoid(wpt_call *call);
bool wpt_adapt_leaky_relu(wpt_call *call);
bool wpt_adapt_linear(wpt_call *call);
/* Every reduction (reduceL1 ... reduceSumSquare): picks the wnn_reduce_*
** function by call->op. */
bool wpt_adapt_reduce(wpt_call *call);
bool wpt_adapt_arg_min(wpt_call *call);
bool wpt_adapt_arg_max(wpt_call *call);
bool wpt_adapt_cumulative_sum(wpt_call *call);
bool wpt_adapt_quantize_linear(wpt_call *call);
bool wpt_adapt_dequantize_linear(wpt_call *call);

#endif /* WNN_HAVE_JANSSON */

#endif /* WNN_TOOLS_WPT_OPS_A_H */
