/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_elementwise.c -- WPT adapters of the element-wise operators: the
** shared one- and two-operand adapters behind the table's WPT_UNARY and
** WPT_BINARY rows, clamp, cast, where, and the activations with options
** (elu, hardSigmoid, leakyRelu, linear).
**
** Adapters do argument plumbing only and let the library judge the values.
** clamp's bounds keep every bit of an integral value (a BigInt string or an
** integral Number), since int64/uint64 bounds past 2^53 would not survive a
** double.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

#include "wpt_case.h"

/* The first positional argument, the only one these operators take besides
** options. */
static bool single_input(wpt_call *call, wnn_operand **x)
{
    return wpt_args_between(call, 1, 1) && wpt_arg_operand(call, 0, x);
}

bool wpt_adapt_unary(wpt_call *call)
{
    wnn_operand *x;
    if (!single_input(call, &x))
        return false;
    return wpt_call_one(call, call->entry->unary(call->builder, x));
}

bool wpt_adapt_binary(wpt_call *call)
{
    wnn_operand *a, *b;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &a) || !wpt_arg_operand(call, 1, &b))
        return false;
    return wpt_call_one(call, call->entry->binary(call->builder, a, b));
}

/* A clamp bound: an integral value (a BigInt such as "9007199254740993n",
** or an integral Number) goes as an exact integer, so that int64/uint64
** bounds past 2^53 keep every bit; anything else as a double. */
static bool clamp_bound(wpt_call *call, const char *key, wnn_number *value, const wnn_number **out)
{
    wpt_number n;
    const json_t *v = wpt_opt_value(call, key);
    if (v == NULL)
        return true;
    if (!wpt_json_number(v, &n))
        return wpt_call_fail(call, "options.%s must be a number", key);
    *value = (wnn_number){n.d, n.exact, n.neg, n.mag};
    *out = value;
    return true;
}

bool wpt_adapt_clamp(wpt_call *call)
{
    wnn_operand *x;
    wnn_clamp_options o = WNN_CLAMP_OPTIONS_INIT;
    wnn_number lo, hi;
    if (!single_input(call, &x) || !clamp_bound(call, "minValue", &lo, &o.min_value) ||
        !clamp_bound(call, "maxValue", &hi, &o.max_value))
        return false;
    return wpt_call_one(call, wnn_clamp(call->builder, x, &o));
}

bool wpt_adapt_cast(wpt_call *call)
{
    wnn_operand *x;
    wnn_data_type type;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_data_type(call, 1, &type))
        return false;
    return wpt_call_one(call, wnn_cast(call->builder, x, type));
}

bool wpt_adapt_where(wpt_call *call)
{
    wnn_operand *c, *t, *f;
    if (!wpt_args_between(call, 3, 3) || !wpt_arg_operand(call, 0, &c) || !wpt_arg_operand(call, 1, &t) ||
        !wpt_arg_operand(call, 2, &f))
        return false;
    return wpt_call_one(call, wnn_where(call->builder, c, t, f));
}

bool wpt_adapt_elu(wpt_call *call)
{
    wnn_operand *x;
    wnn_elu_options o = WNN_ELU_OPTIONS_INIT;
    double alpha;
    if (!single_input(call, &x) || !wpt_opt_double_ptr(call, "alpha", &alpha, &o.alpha))
        return false;
    return wpt_call_one(call, wnn_elu(call->builder, x, &o));
}

bool wpt_adapt_hard_sigmoid(wpt_call *call)
{
    wnn_operand *x;
    wnn_hard_sigmoid_options o = WNN_HARD_SIGMOID_OPTIONS_INIT;
    double alpha, beta;
    if (!single_input(call, &x) || !wpt_opt_double_ptr(call, "alpha", &alpha, &o.alpha) ||
        !wpt_opt_double_ptr(call, "beta", &beta, &o.beta))
        return false;
    return wpt_call_one(call, wnn_hard_sigmoid(call->builder, x, &o));
}

bool wpt_adapt_leaky_relu(wpt_call *call)
{
    wnn_operand *x;
    wnn_leaky_relu_options o = WNN_LEAKY_RELU_OPTIONS_INIT;
    double alpha;
    if (!single_input(call, &x) || !wpt_opt_double_ptr(call, "alpha", &alpha, &o.alpha))
        return false;
    return wpt_call_one(call, wnn_leaky_relu(call->builder, x, &o));
}

bool wpt_adapt_linear(wpt_call *call)
{
    wnn_operand *x;
    wnn_linear_options o = WNN_LINEAR_OPTIONS_INIT;
    double alpha;
    if (!single_input(call, &x) || !wpt_opt_double_ptr(call, "alpha", &alpha, &o.alpha) ||
        !wpt_opt_double(call, "beta", NULL, &o.beta))
        return false;
    return wpt_call_one(call, wnn_linear(call->builder, x, &o));
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_elementwise_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
