/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_reduce.c -- builder methods of the operators that work along axes:
** the ten reductions, argMin/argMax and cumulativeSum. Each checks WebNN's
** rules (data types, ranks, axes) and infers the output descriptor.
*/
#include "core/builder.h"

/* float32, float16 and the 32- and 64-bit integers. */
#define TYPES_SUM (WNN__TYPES_FLOAT | WNN__T(INT32) | WNN__T(UINT32) | WNN__T(INT64) | WNN__T(UINT64))

static const char *const input_name[1] = {"input"};

static wnn_operand *reduce(wnn_graph_builder *b, wnn__op op, wnn_operand *x, const wnn_reduce_options *options,
                           uint32_t types)
{
    static const wnn_reduce_options defaults = WNN_REDUCE_OPTIONS_INIT;
    const wnn_reduce_options *o = options ? options : &defaults;
    const char *name = wnn__op_name(op);
    if (!wnn__op_begin(b, name, &x, input_name, 1) || !wnn__op_check_chain(b, name, o->next_in_chain) ||
        !wnn__op_check_type(b, name, "input", x, types))
        return NULL;
    const wnn_operand_desc *in = wnn__desc(x);
    uint32_t mask = 0;
    if (!o->axes) {
        mask = in->rank ? (uint32_t)((1ull << in->rank) - 1) : 0;
    } else {
        if (o->axes_count > in->rank)
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: %u axes given, the input's rank is %u", name,
                                 o->axes_count, in->rank);
        for (uint32_t i = 0; i < o->axes_count; i++) {
            uint32_t a = o->axes[i];
            if (a >= in->rank)
                return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: axes[%u] is %u, must be below the rank %u",
                                     name, i, a, in->rank);
            if (mask & (1u << a))
                return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: axes[%u] is %u, which is given twice", name,
                                     i, a);
            mask |= 1u << a;
        }
    }
    wnn_operand_desc out = {in->data_type, 0, {0}};
    for (uint32_t i = 0; i < in->rank; i++) {
        if (!(mask & (1u << i)))
            out.shape[out.rank++] = in->shape[i];
        else if (o->keep_dimensions)
            out.shape[out.rank++] = 1;
    }
    wnn__attrs attrs = {.reduction = {mask, o->keep_dimensions}};
    return wnn__op_add_node(b, op, &x, 1, &out, 1, &attrs, NULL);
}

wnn_operand *wnn_reduce_l1(wnn_graph_builder *b, wnn_operand *x, const wnn_reduce_options *o) { return reduce(b, WNN__OP_REDUCE_L1, x, o, TYPES_SUM); }
wnn_operand *wnn_reduce_l2(wnn_graph_builder *b, wnn_operand *x, const wnn_reduce_options *o) { return reduce(b, WNN__OP_REDUCE_L2, x, o, WNN__TYPES_FLOAT); }
wnn_operand *wnn_reduce_log_sum(wnn_graph_builder *b, wnn_operand *x, const wnn_reduce_options *o) { return reduce(b, WNN__OP_REDUCE_LOG_SUM, x, o, WNN__TYPES_FLOAT); }
wnn_operand *wnn_reduce_log_sum_exp(wnn_graph_builder *b, wnn_operand *x, const wnn_reduce_options *o) { return reduce(b, WNN__OP_REDUCE_LOG_SUM_EXP, x, o, WNN__TYPES_FLOAT); }
wnn_operand *wnn_reduce_max(wnn_graph_builder *b, wnn_operand *x, const wnn_reduce_options *o) { return reduce(b, WNN__OP_REDUCE_MAX, x, o, WNN__TYPES_ALL); }
wnn_operand *wnn_reduce_mean(wnn_graph_builder *b, wnn_operand *x, const wnn_reduce_options *o) { return reduce(b, WNN__OP_REDUCE_MEAN, x, o, WNN__TYPES_FLOAT); }
wnn_operand *wnn_reduce_min(wnn_graph_builder *b, wnn_operand *x, const wnn_reduce_options *o) { return reduce(b, WNN__OP_REDUCE_MIN, x, o, WNN__TYPES_ALL); }
wnn_operand *wnn_reduce_product(wnn_graph_builder *b, wnn_operand *x, const wnn_reduce_options *o) { return reduce(b, WNN__OP_REDUCE_PRODUCT, x, o, TYPES_SUM); }
wnn_operand *wnn_reduce_sum(wnn_graph_builder *b, wnn_operand *x, const wnn_reduce_options *o) { return reduce(b, WNN__OP_REDUCE_SUM, x, o, TYPES_SUM); }
wnn_operand *wnn_reduce_sum_square(wnn_graph_builder *b, wnn_operand *x, const wnn_reduce_options *o) { return reduce(b, WNN__OP_REDUCE_SUM_SQUARE, x, o, TYPES_SUM); }

/* The checks argMin, argMax and cumulativeSum share: type, rank >= 1, axis. */
static bool check_axis_op(wnn_graph_builder *b, const char *name, wnn_operand *x, uint32_t types, uint32_t axis)
{
    if (!wnn__op_begin(b, name, &x, input_name, 1) || !wnn__op_check_type(b, name, "input", x, types) ||
        !wnn__op_check_rank(b, name, "input", x, 1, WNN_MAX_RANK))
        return false;
    if (axis >= wnn__desc(x)->rank) {
        wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: axis %u is not below the rank %u", name, axis,
                      wnn__desc(x)->rank);
        return false;
    }
    return true;
}

static wnn_operand *arg_min_max(wnn_graph_builder *b, wnn__op op, wnn_operand *x, uint32_t axis,
                                const wnn_arg_min_max_options *options)
{
    static const wnn_arg_min_max_options defaults = WNN_ARG_MIN_MAX_OPTIONS_INIT;
    const wnn_arg_min_max_options *o = options ? options : &defaults;
    const char *name = wnn__op_name(op);
    if (!check_axis_op(b, name, x, WNN__TYPES_ALL, axis) || !wnn__op_check_chain(b, name, o->next_in_chain))
        return NULL;
    wnn_data_type type = o->output_data_type ? o->output_data_type : WNN_DATA_TYPE_INT32;
    if (type != WNN_DATA_TYPE_INT32 && type != WNN_DATA_TYPE_INT64)
        return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: outputDataType is %s, must be int32 or int64",
                             name, wnn_data_type_name(type) ? wnn_data_type_name(type) : "invalid");
    const wnn_operand_desc *in = wnn__desc(x);
    wnn_operand_desc out = {type, 0, {0}};
    for (uint32_t i = 0; i < in->rank; i++) {
        if (i != axis)
            out.shape[out.rank++] = in->shape[i];
        else if (o->keep_dimensions)
            out.shape[out.rank++] = 1;
    }
    wnn__attrs attrs = {.arg_min_max = {axis, o->keep_dimensions}};
    return wnn__op_add_node(b, op, &x, 1, &out, 1, &attrs, NULL);
}

wnn_operand *wnn_arg_min(wnn_graph_builder *b, wnn_operand *x, uint32_t axis, const wnn_arg_min_max_options *o)
{
    return arg_min_max(b, WNN__OP_ARG_MIN, x, axis, o);
}

wnn_operand *wnn_arg_max(wnn_graph_builder *b, wnn_operand *x, uint32_t axis, const wnn_arg_min_max_options *o)
{
    return arg_min_max(b, WNN__OP_ARG_MAX, x, axis, o);
}

wnn_operand *wnn_cumulative_sum(wnn_graph_builder *b, wnn_operand *x, uint32_t axis,
                                const wnn_cumulative_sum_options *options)
{
    static const wnn_cumulative_sum_options defaults = WNN_CUMULATIVE_SUM_OPTIONS_INIT;
    const wnn_cumulative_sum_options *o = options ? options : &defaults;
    if (!check_axis_op(b, "cumulativeSum", x, TYPES_SUM, axis) ||
        !wnn__op_check_chain(b, "cumulativeSum", o->next_in_chain))
        return NULL;
    wnn__attrs attrs = {.cumulative_sum = {axis, o->exclusive, o->reversed}};
    return wnn__op_add_node(b, WNN__OP_CUMULATIVE_SUM, &x, 1, wnn__desc(x), 1, &attrs, NULL);
}
