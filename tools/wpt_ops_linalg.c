/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_linalg.c -- WPT adapter of gemm (matmul, a plain two-operand
** call, is a WPT_BINARY row of the table): a, b, and the options c, alpha,
** beta, aTranspose and bTranspose.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

bool wpt_adapt_gemm(wpt_call *call)
{
    wnn_operand *a, *b;
    wnn_gemm_options o = WNN_GEMM_OPTIONS_INIT;
    double alpha, beta;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &a) || !wpt_arg_operand(call, 1, &b) ||
        !wpt_opt_operand(call, "c", &o.c) || !wpt_opt_double_ptr(call, "alpha", &alpha, &o.alpha) ||
        !wpt_opt_double_ptr(call, "beta", &beta, &o.beta) || !wpt_opt_bool(call, "aTranspose", &o.a_transpose) ||
        !wpt_opt_bool(call, "bTranspose", &o.b_transpose))
        return false;
    return wpt_call_one(call, wnn_gemm(call->builder, a, b, &o));
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_linalg_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
