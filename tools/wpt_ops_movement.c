/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_movement.c -- WPT adapters of data movement: reshape, transpose,
** concat, slice, expand, pad, split, tile, reverse and triangular.
**
** Adapters do argument plumbing only and let the library judge the values.
** What the C API cannot see is checked here, as WebNN's IDL layer would: the
** length of arrays the library reads rank entries of, and enum strings
** (which have no C value to pass on). split reports the number of outputs
** the call asked for even when the builder refused, so the runner reports
** the builder's error.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* After a multi-output builder call into wpt_call_many's room: the builder
** returned the count asked for, or 0 when it refused; then every result is
** NULL, so the runner reports the builder's error. */
static bool many(wpt_call *call, size_t returned)
{
    if (returned == 0)
        memset(call->results, 0, call->result_count * sizeof *call->results);
    return true;
}

bool wpt_adapt_reshape(wpt_call *call)
{
    wnn_operand *x;
    uint32_t shape[WNN_MAX_RANK] = {0};
    size_t rank;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_arg_u32_list(call, 1, shape, WNN_MAX_RANK, &rank))
        return false;
    return wpt_call_one(call, wnn_reshape(call->builder, x, (uint32_t)rank, shape));
}

bool wpt_adapt_transpose(wpt_call *call)
{
    wnn_operand *x;
    uint32_t perm[WNN_MAX_RANK] = {0};
    size_t n = 0;
    bool has_perm = false;
    if (!wpt_args_between(call, 1, 1) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_opt_u32_list(call, "permutation", &has_perm, perm, WNN_MAX_RANK, &n))
        return false;
    if (has_perm && !wpt_rank_length(call, "options.permutation", n, x))
        return false;
    return wpt_call_one(call, wnn_transpose(call->builder, x, has_perm ? perm : NULL));
}

bool wpt_adapt_concat(wpt_call *call)
{
    wnn_operand **inputs = NULL;
    size_t count = 0;
    uint32_t axis;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_u32(call, 1, &axis) ||
        !wpt_arg_operand_list(call, 0, &inputs, &count))
        return false;
    wnn_operand *result = wnn_concat(call->builder, inputs, count, axis);
    free(inputs);
    return wpt_call_one(call, result);
}

bool wpt_adapt_slice(wpt_call *call)
{
    wnn_operand *x;
    uint32_t starts[WNN_MAX_RANK] = {0}, sizes[WNN_MAX_RANK] = {0}, strides[WNN_MAX_RANK] = {0};
    size_t n_starts, n_sizes, n_strides = 0;
    bool has_strides = false;
    if (!wpt_args_between(call, 3, 3) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_arg_u32_list(call, 1, starts, WNN_MAX_RANK, &n_starts) ||
        !wpt_arg_u32_list(call, 2, sizes, WNN_MAX_RANK, &n_sizes) ||
        !wpt_opt_u32_list(call, "strides", &has_strides, strides, WNN_MAX_RANK, &n_strides))
        return false;
    if (!wpt_rank_length(call, "starts", n_starts, x) || !wpt_rank_length(call, "sizes", n_sizes, x) ||
        (has_strides && !wpt_rank_length(call, "options.strides", n_strides, x)))
        return false;
    return wpt_call_one(call, wnn_slice(call->builder, x, starts, sizes, has_strides ? strides : NULL));
}

bool wpt_adapt_expand(wpt_call *call)
{
    wnn_operand *x;
    uint32_t shape[WNN_MAX_RANK] = {0};
    size_t rank;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_arg_u32_list(call, 1, shape, WNN_MAX_RANK, &rank))
        return false;
    return wpt_call_one(call, wnn_expand(call->builder, x, (uint32_t)rank, shape));
}

bool wpt_adapt_pad(wpt_call *call)
{
    static const char *const modes[3] = {"constant", "edge", "reflection"};
    wnn_operand *x;
    uint32_t begin[WNN_MAX_RANK] = {0}, end[WNN_MAX_RANK] = {0};
    size_t n_begin, n_end;
    wnn_pad_options o = WNN_PAD_OPTIONS_INIT;
    int mode = (int)o.mode;
    if (!wpt_args_between(call, 3, 3) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_arg_u32_list(call, 1, begin, WNN_MAX_RANK, &n_begin) ||
        !wpt_arg_u32_list(call, 2, end, WNN_MAX_RANK, &n_end) || !wpt_opt_enum(call, "mode", modes, 3, &mode) ||
        !wpt_opt_double(call, "value", NULL, &o.value))
        return false;
    if (!wpt_rank_length(call, "beginningPadding", n_begin, x) || !wpt_rank_length(call, "endingPadding", n_end, x))
        return false;
    o.mode = (wnn_pad_mode)mode;
    return wpt_call_one(call, wnn_pad(call->builder, x, begin, end, &o));
}

bool wpt_adapt_split(wpt_call *call)
{
    wnn_operand *x;
    wnn_split_options o = WNN_SPLIT_OPTIONS_INIT;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_opt_u32(call, "axis", NULL, &o.axis))
        return false;
    if (json_is_array(call->args[1].value)) {
        uint32_t *sizes;
        size_t n;
        if (!wpt_arg_u32_array(call, 1, &sizes, &n))
            return false;
        wnn_operand **out = wpt_call_many(call, n);
        bool ok = out != NULL && many(call, wnn_split_sizes(call->builder, x, sizes, n, &o, out));
        free(sizes);
        return ok;
    }
    uint32_t count;
    if (!wpt_arg_u32(call, 1, &count))
        return false;
    wnn_operand **out = wpt_call_many(call, count);
    return out != NULL && many(call, wnn_split(call->builder, x, count, &o, out));
}

bool wpt_adapt_tile(wpt_call *call)
{
    wnn_operand *x;
    uint32_t reps[WNN_MAX_RANK] = {0};
    size_t n;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_arg_u32_list(call, 1, reps, WNN_MAX_RANK, &n) || !wpt_rank_length(call, "repetitions", n, x))
        return false;
    return wpt_call_one(call, wnn_tile(call->builder, x, reps));
}

bool wpt_adapt_reverse(wpt_call *call)
{
    wnn_operand *x;
    wnn_reverse_options o = WNN_REVERSE_OPTIONS_INIT;
    uint32_t axes[WNN_MAX_RANK];
    bool has_axes = false;
    size_t n = 0;
    if (!wpt_args_between(call, 1, 1) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_opt_u32_list(call, "axes", &has_axes, axes, WNN_MAX_RANK, &n))
        return false;
    o.axes = has_axes ? axes : NULL;
    o.axes_count = (uint32_t)n;
    return wpt_call_one(call, wnn_reverse(call->builder, x, &o));
}

bool wpt_adapt_triangular(wpt_call *call)
{
    wnn_operand *x;
    wnn_triangular_options o = WNN_TRIANGULAR_OPTIONS_INIT;
    bool has_diagonal = false, upper = true;
    double diagonal = 0;
    if (!wpt_args_between(call, 1, 1) || !wpt_arg_operand(call, 0, &x) || !wpt_opt_bool(call, "upper", &upper) ||
        !wpt_opt_double(call, "diagonal", &has_diagonal, &diagonal))
        return false;
    o.lower = !upper;
    if (has_diagonal && (trunc(diagonal) != diagonal || diagonal < INT32_MIN || diagonal > INT32_MAX))
        return wpt_call_fail(call, "options.diagonal must be an integer in the range of a long");
    o.diagonal = (int32_t)diagonal;
    return wpt_call_one(call, wnn_triangular(call->builder, x, &o));
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_movement_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
