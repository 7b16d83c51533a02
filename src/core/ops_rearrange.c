/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_rearrange.c -- builder methods of the operators that move elements
** without looking at them: expand, pad, split, tile, reverse, triangular.
** Each checks WebNN's rules and infers the output descriptors.
*/
#include <stdlib.h>
#include <string.h>

#include "core/builder.h"

static const char *const input_name[1] = {"input"};

/* Checks an inferred output descriptor (dimensions and element count) and
** records the failure under op's name. */
static bool check_output(wnn_graph_builder *b, const char *op, const wnn_operand_desc *out)
{
    wnn_status s = wnn__check_desc(op, out);
    if (s == WNN_OK)
        return true;
    wnn__op_error(b, s, "%s", wnn_last_error_message());
    return false;
}

wnn_operand *wnn_expand(wnn_graph_builder *b, wnn_operand *x, uint32_t new_rank, const uint32_t *new_shape)
{
    if (!wnn__op_begin(b, "expand", &x, input_name, 1))
        return NULL;
    const wnn_operand_desc *in = wnn__desc(x);
    if (new_rank > WNN_MAX_RANK)
        return wnn__op_error(b, WNN_STATUS_INVALID_RANK, "expand: newShape has rank %u, over %d", new_rank,
                             WNN_MAX_RANK);
    if (new_rank && !new_shape)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "expand: newShape is NULL");
    if (in->rank > new_rank)
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                             "expand: input is rank %u, newShape rank %u, must not be smaller", in->rank, new_rank);
    wnn_operand_desc out = {in->data_type, new_rank, {0}};
    if (new_rank)
        memcpy(out.shape, new_shape, sizeof *new_shape * new_rank);
    if (!check_output(b, "expand", &out))
        return NULL;
    if (!wnn__broadcastable_to(in, &out))
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                             "expand: input cannot be broadcast to newShape (each dimension must be 1 or match)");
    return wnn__op_add_node(b, WNN__OP_EXPAND, &x, 1, &out, 1, NULL, NULL);
}

wnn_operand *wnn_pad(wnn_graph_builder *b, wnn_operand *x, const uint32_t *begin, const uint32_t *end,
                     const wnn_pad_options *options)
{
    static const wnn_pad_options defaults = WNN_PAD_OPTIONS_INIT;
    const wnn_pad_options *o = options ? options : &defaults;
    if (!wnn__op_begin(b, "pad", &x, input_name, 1) || !wnn__op_check_chain(b, "pad", o->next_in_chain) ||
        !wnn__op_check_rank(b, "pad", "input", x, 1, WNN_MAX_RANK))
        return NULL;
    if (!begin || !end)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "pad: %s is NULL, must have rank entries",
                             begin ? "endingPadding" : "beginningPadding");
    if (o->mode != WNN_PAD_MODE_CONSTANT && o->mode != WNN_PAD_MODE_EDGE && o->mode != WNN_PAD_MODE_REFLECTION)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "pad: mode %d is not a padding mode", (int)o->mode);
    const wnn_operand_desc *in = wnn__desc(x);
    wnn_operand_desc out = *in;
    wnn__attrs attrs = {.pad = {.mode = o->mode, .value = o->value}};
    for (uint32_t i = 0; i < in->rank; i++) {
        if (o->mode == WNN_PAD_MODE_REFLECTION && (begin[i] >= in->shape[i] || end[i] >= in->shape[i]))
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                                 "pad: reflection padding %u/%u of dimension %u must be below its size %u", begin[i],
                                 end[i], i, in->shape[i]);
        uint64_t size = (uint64_t)in->shape[i] + begin[i] + end[i];
        if (size > WNN_MAX_DIMENSION)
            return wnn__op_error(b, WNN_STATUS_INVALID_DIMENSION, "pad: dimension %u would be %llu, over 2^31-1", i,
                                 (unsigned long long)size);
        out.shape[i] = (uint32_t)size;
        attrs.pad.begin[i] = begin[i];
    }
    if (!check_output(b, "pad", &out))
        return NULL;
    return wnn__op_add_node(b, WNN__OP_PAD, &x, 1, &out, 1, &attrs, NULL);
}

/* The checks both forms of split share; returns the input's descriptor or
** NULL after recording the error. */
static const wnn_operand_desc *split_begin(wnn_graph_builder *b, wnn_operand *x, const wnn_split_options *o,
                                           uint32_t axis, wnn_operand **outputs)
{
    if (!wnn__op_begin(b, "split", &x, input_name, 1) ||
        !wnn__op_check_chain(b, "split", o ? o->next_in_chain : NULL) ||
        !wnn__op_check_rank(b, "split", "input", x, 1, WNN_MAX_RANK))
        return NULL;
    if (!outputs) {
        wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "split: outputs is NULL");
        return NULL;
    }
    const wnn_operand_desc *in = wnn__desc(x);
    if (axis >= in->rank) {
        wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "split: axis %u is not below rank %u", axis, in->rank);
        return NULL;
    }
    return in;
}

/* Records the node with one output per size; returns the count or 0. */
static size_t split_record(wnn_graph_builder *b, wnn_operand *x, const wnn_operand_desc *in, uint32_t axis,
                           const uint32_t *sizes, uint32_t equal, size_t count, wnn_operand **outputs)
{
    if (count > UINT32_MAX) {
        wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "split: %zu outputs, too many", count);
        return 0;
    }
    wnn_operand_desc *descs = malloc(sizeof *descs * count);
    if (!descs) {
        wnn__op_error(b, WNN_STATUS_OUT_OF_MEMORY, "split: out of memory");
        return 0;
    }
    for (size_t i = 0; i < count; i++) {
        descs[i] = *in;
        descs[i].shape[axis] = sizes ? sizes[i] : equal;
    }
    wnn__attrs attrs = {.axis = {axis}};
    wnn_operand *first = wnn__op_add_node(b, WNN__OP_SPLIT, &x, 1, descs, (uint32_t)count, &attrs, outputs);
    free(descs);
    return first ? count : 0;
}

size_t wnn_split(wnn_graph_builder *b, wnn_operand *x, uint32_t count, const wnn_split_options *options,
                 wnn_operand **outputs)
{
    uint32_t axis = options ? options->axis : 0;
    const wnn_operand_desc *in = split_begin(b, x, options, axis, outputs);
    if (!in)
        return 0;
    if (count == 0) {
        wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "split: splits is 0, must be > 0");
        return 0;
    }
    if (in->shape[axis] % count != 0) {
        wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "split: dimension %u (%u) is not a multiple of splits %u", axis,
                      in->shape[axis], count);
        return 0;
    }
    return split_record(b, x, in, axis, NULL, in->shape[axis] / count, count, outputs);
}

size_t wnn_split_sizes(wnn_graph_builder *b, wnn_operand *x, const uint32_t *sizes, size_t n_sizes,
                       const wnn_split_options *options, wnn_operand **outputs)
{
    uint32_t axis = options ? options->axis : 0;
    const wnn_operand_desc *in = split_begin(b, x, options, axis, outputs);
    if (!in)
        return 0;
    if (n_sizes == 0 || !sizes) {
        wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "split: splits is an empty list");
        return 0;
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n_sizes; i++) {
        if (sizes[i] == 0) {
            wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "split: splits[%zu] is 0, must be > 0", i);
            return 0;
        }
        sum += sizes[i];
    }
    if (sum != in->shape[axis]) {
        wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "split: splits add up to %llu, dimension %u is %u",
                      (unsigned long long)sum, axis, in->shape[axis]);
        return 0;
    }
    return split_record(b, x, in, axis, sizes, 0, n_sizes, outputs);
}

wnn_operand *wnn_tile(wnn_graph_builder *b, wnn_operand *x, const uint32_t *repetitions)
{
    if (!wnn__op_begin(b, "tile", &x, input_name, 1))
        return NULL;
    const wnn_operand_desc *in = wnn__desc(x);
    if (in->rank && !repetitions)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "tile: repetitions is NULL, must have %u entries",
                             in->rank);
    wnn_operand_desc out = *in;
    for (uint32_t i = 0; i < in->rank; i++) {
        if (repetitions[i] == 0)
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "tile: repetitions[%u] is 0, must be > 0", i);
        uint64_t size = (uint64_t)in->shape[i] * repetitions[i];
        if (size > WNN_MAX_DIMENSION)
            return wnn__op_error(b, WNN_STATUS_INVALID_DIMENSION, "tile: dimension %u would be %llu, over 2^31-1", i,
                                 (unsigned long long)size);
        out.shape[i] = (uint32_t)size;
    }
    if (!check_output(b, "tile", &out))
        return NULL;
    return wnn__op_add_node(b, WNN__OP_TILE, &x, 1, &out, 1, NULL, NULL);
}

wnn_operand *wnn_reverse(wnn_graph_builder *b, wnn_operand *x, const wnn_reverse_options *options)
{
    if (!wnn__op_begin(b, "reverse", &x, input_name, 1) ||
        !wnn__op_check_chain(b, "reverse", options ? options->next_in_chain : NULL))
        return NULL;
    const wnn_operand_desc *in = wnn__desc(x);
    wnn__attrs attrs = {.reverse = {0}};
    if (!options || !options->axes) {
        attrs.reverse.mask = in->rank ? (uint32_t)((1ull << in->rank) - 1) : 0;
        return wnn__op_add_node(b, WNN__OP_REVERSE, &x, 1, in, 1, &attrs, NULL);
    }
    if (options->axes_count > WNN_MAX_RANK)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "reverse: %u axes, at most %d", options->axes_count,
                             WNN_MAX_RANK);
    for (uint32_t i = 0; i < options->axes_count; i++) {
        uint32_t axis = options->axes[i];
        if (axis >= in->rank)
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "reverse: axes[%u] = %u is not below rank %u", i,
                                 axis, in->rank);
        if (attrs.reverse.mask & (1u << axis))
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "reverse: axis %u is listed twice", axis);
        attrs.reverse.mask |= 1u << axis;
    }
    return wnn__op_add_node(b, WNN__OP_REVERSE, &x, 1, in, 1, &attrs, NULL);
}

wnn_operand *wnn_triangular(wnn_graph_builder *b, wnn_operand *x, const wnn_triangular_options *options)
{
    static const wnn_triangular_options defaults = WNN_TRIANGULAR_OPTIONS_INIT;
    const wnn_triangular_options *o = options ? options : &defaults;
    if (!wnn__op_begin(b, "triangular", &x, input_name, 1) ||
        !wnn__op_check_chain(b, "triangular", o->next_in_chain) ||
        !wnn__op_check_rank(b, "triangular", "input", x, 2, WNN_MAX_RANK))
        return NULL;
    wnn__attrs attrs = {.triangular = {!o->lower, o->diagonal}};
    return wnn__op_add_node(b, WNN__OP_TRIANGULAR, &x, 1, wnn__desc(x), 1, &attrs, NULL);
}
