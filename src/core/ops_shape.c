/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_shape.c -- builder methods of the shape and linear-algebra operators:
** reshape, transpose, concat, slice, softmax, matmul and gemm.
*/
#include <string.h>

#include "core/builder.h"

static const char *const input_name[1] = {"input"};

wnn_operand *wnn_reshape(wnn_graph_builder *b, wnn_operand *x, uint32_t new_rank, const uint32_t *new_shape)
{
    if (!wnn__op_begin(b, "reshape", &x, input_name, 1))
        return NULL;
    if (new_rank > WNN_MAX_RANK)
        return wnn__op_error(b, WNN_STATUS_INVALID_RANK, "reshape: newShape has rank %u, over %d", new_rank, WNN_MAX_RANK);
    if (new_rank && !new_shape)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "reshape: newShape is NULL");
    wnn_operand_desc out = {wnn__desc(x)->data_type, new_rank, {0}};
    if (new_rank)
        memcpy(out.shape, new_shape, sizeof *new_shape * new_rank);
    wnn_status s = wnn__check_desc("reshape", &out);
    if (s != WNN_OK)
        return wnn__op_error(b, s, "%s", wnn_last_error_message());
    if (wnn_operand_desc_element_count(&out) != wnn_operand_desc_element_count(wnn__desc(x)))
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "reshape: newShape has %llu elements, input has %llu",
                             (unsigned long long)wnn_operand_desc_element_count(&out),
                             (unsigned long long)wnn_operand_desc_element_count(wnn__desc(x)));
    return wnn__op_add_node(b, WNN__OP_RESHAPE, &x, 1, &out, 1, NULL, NULL);
}

wnn_operand *wnn_transpose(wnn_graph_builder *b, wnn_operand *x, const uint32_t *perm)
{
    if (!wnn__op_begin(b, "transpose", &x, input_name, 1))
        return NULL;
    const wnn_operand_desc *in = wnn__desc(x);
    wnn__attrs attrs;
    wnn_operand_desc out = {in->data_type, in->rank, {0}};
    bool seen[WNN_MAX_RANK] = {false};
    for (uint32_t i = 0; i < in->rank; i++) {
        uint32_t p = perm ? perm[i] : in->rank - 1 - i;
        if (p >= in->rank || seen[p])
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                                 "transpose: permutation[%u] = %u, must be a permutation of 0..%u", i, p, in->rank - 1);
        seen[p] = true;
        attrs.transpose.perm[i] = p;
        out.shape[i] = in->shape[p];
    }
    return wnn__op_add_node(b, WNN__OP_TRANSPOSE, &x, 1, &out, 1, &attrs, NULL);
}

wnn_operand *wnn_concat(wnn_graph_builder *b, wnn_operand *const *inputs, size_t count, uint32_t axis)
{
    if (!wnn__op_begin(b, "concat", NULL, NULL, 0))
        return NULL;
    if (count == 0 || count > 8192 || !inputs)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "concat: %zu inputs, must be 1 to 8192", count);
    for (size_t i = 0; i < count; i++) {
        if (!inputs[i])
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "concat: inputs[%zu] is NULL", i);
        if (!wnn__op_check_optional(b, "concat", "inputs", inputs[i]))
            return NULL;
    }
    const wnn_operand_desc *first = wnn__desc(inputs[0]);
    if (first->rank == 0)
        return wnn__op_error(b, WNN_STATUS_INVALID_RANK, "concat: inputs are rank 0, must be >= 1");
    if (axis >= first->rank)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "concat: axis %u is not below rank %u", axis, first->rank);
    wnn_operand_desc out = *first;
    uint64_t total = first->shape[axis];
    for (size_t i = 1; i < count; i++) {
        const wnn_operand_desc *d = wnn__desc(inputs[i]);
        if (d->data_type != first->data_type)
            return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "concat: inputs[%zu] is %s, inputs[0] is %s", i,
                                 wnn_data_type_name(d->data_type), wnn_data_type_name(first->data_type));
        if (d->rank != first->rank)
            return wnn__op_error(b, WNN_STATUS_INVALID_RANK, "concat: inputs[%zu] is rank %u, inputs[0] is rank %u", i,
                                 d->rank, first->rank);
        for (uint32_t k = 0; k < d->rank; k++)
            if (k != axis && d->shape[k] != first->shape[k])
                return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                                     "concat: inputs[%zu] dimension %u is %u, inputs[0] has %u", i, k, d->shape[k],
                                     first->shape[k]);
        total += d->shape[axis];
    }
    if (total > WNN_MAX_DIMENSION)
        return wnn__op_error(b, WNN_STATUS_INVALID_DIMENSION, "concat: axis %u would be %llu long, over 2^31-1", axis,
                             (unsigned long long)total);
    out.shape[axis] = (uint32_t)total;
    wnn_status s = wnn__check_desc("concat", &out);
    if (s != WNN_OK)
        return wnn__op_error(b, s, "%s", wnn_last_error_message());
    wnn__attrs attrs = {.axis = {axis}};
    return wnn__op_add_node(b, WNN__OP_CONCAT, inputs, (uint32_t)count, &out, 1, &attrs, NULL);
}

wnn_operand *wnn_slice(wnn_graph_builder *b, wnn_operand *x, const uint32_t *starts, const uint32_t *sizes,
                       const uint32_t *strides)
{
    if (!wnn__op_begin(b, "slice", &x, input_name, 1))
        return NULL;
    const wnn_operand_desc *in = wnn__desc(x);
    if (in->rank && (!starts || !sizes))
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "slice: starts and sizes must have %u entries", in->rank);
    wnn__attrs attrs;
    wnn_operand_desc out = {in->data_type, in->rank, {0}};
    for (uint32_t i = 0; i < in->rank; i++) {
        uint32_t stride = strides ? strides[i] : 1;
        if (sizes[i] == 0)
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "slice: sizes[%u] is 0, must be > 0", i);
        if (stride == 0)
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "slice: strides[%u] is 0, must be > 0", i);
        if ((uint64_t)starts[i] + sizes[i] > in->shape[i])
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                                 "slice: starts[%u] + sizes[%u] = %llu, over the dimension %u", i, i,
                                 (unsigned long long)starts[i] + sizes[i], in->shape[i]);
        attrs.slice.starts[i] = starts[i];
        attrs.slice.sizes[i] = sizes[i];
        attrs.slice.strides[i] = stride;
        out.shape[i] = (sizes[i] + stride - 1) / stride;
    }
    return wnn__op_add_node(b, WNN__OP_SLICE, &x, 1, &out, 1, &attrs, NULL);
}

wnn_operand *wnn_softmax(wnn_graph_builder *b, wnn_operand *x, uint32_t axis)
{
    if (!wnn__op_begin(b, "softmax", &x, input_name, 1) ||
        !wnn__op_check_type(b, "softmax", "input", x, WNN__TYPES_FLOAT) ||
        !wnn__op_check_rank(b, "softmax", "input", x, 1, WNN_MAX_RANK))
        return NULL;
    if (axis >= wnn__desc(x)->rank)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "softmax: axis %u is not below rank %u", axis,
                             wnn__desc(x)->rank);
    wnn__attrs attrs = {.axis = {axis}};
    return wnn__op_add_node(b, WNN__OP_SOFTMAX, &x, 1, wnn__desc(x), 1, &attrs, NULL);
}

/* The checks matmul and gemm share: float types that match. */
static bool float_pair(wnn_graph_builder *b, const char *op, wnn_operand *const *in)
{
    static const char *const names[2] = {"a", "b"};
    if (!wnn__op_begin(b, op, in, names, 2) || !wnn__op_check_type(b, op, "a", in[0], WNN__TYPES_FLOAT))
        return false;
    if (wnn__desc(in[0])->data_type != wnn__desc(in[1])->data_type) {
        wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: a and b must have the same data type", op);
        return false;
    }
    return true;
}

wnn_operand *wnn_matmul(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x)
{
    wnn_operand *in[2] = {a, x};
    if (!float_pair(b, "matmul", in) || !wnn__op_check_rank(b, "matmul", "a", a, 2, WNN_MAX_RANK) ||
        !wnn__op_check_rank(b, "matmul", "b", x, 2, WNN_MAX_RANK))
        return NULL;
    const wnn_operand_desc *da = wnn__desc(a), *db = wnn__desc(x);
    uint32_t k_a = da->shape[da->rank - 1], k_b = db->shape[db->rank - 2];
    if (k_a != k_b)
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "matmul: a has %u columns but b has %u rows", k_a, k_b);
    wnn_operand_desc ba = *da, bb = *db, out;
    ba.rank -= 2;
    bb.rank -= 2;
    if (!wnn__broadcast_shapes(&ba, &bb, &out))
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "matmul: batch dimensions of a and b cannot be broadcast");
    out.shape[out.rank++] = da->shape[da->rank - 2];
    out.shape[out.rank++] = db->shape[db->rank - 1];
    return wnn__op_add_node(b, WNN__OP_MATMUL, in, 2, &out, 1, NULL, NULL);
}

wnn_operand *wnn_gemm(wnn_graph_builder *b, wnn_operand *a, wnn_operand *x, const wnn_gemm_options *options)
{
    static const wnn_gemm_options defaults = WNN_GEMM_OPTIONS_INIT;
    const wnn_gemm_options *o = options ? options : &defaults;
    wnn_operand *in[3] = {a, x, o->c};
    if (!float_pair(b, "gemm", in) || !wnn__op_check_rank(b, "gemm", "a", a, 2, 2) ||
        !wnn__op_check_rank(b, "gemm", "b", x, 2, 2) || !wnn__op_check_optional(b, "gemm", "c", o->c) ||
        !wnn__op_check_chain(b, "gemm", o->next_in_chain))
        return NULL;
    const wnn_operand_desc *da = wnn__desc(a), *db = wnn__desc(x);
    uint32_t m = o->a_transpose ? da->shape[1] : da->shape[0];
    uint32_t k = o->a_transpose ? da->shape[0] : da->shape[1];
    uint32_t kb = o->b_transpose ? db->shape[1] : db->shape[0];
    uint32_t n = o->b_transpose ? db->shape[0] : db->shape[1];
    if (k != kb)
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "gemm: a' has %u columns but b' has %u rows", k, kb);
    wnn_operand_desc out = {da->data_type, 2, {m, n}};
    if (o->c) {
        const wnn_operand_desc *dc = wnn__desc(o->c);
        if (dc->data_type != da->data_type)
            return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "gemm: c must have a's data type");
        if (dc->rank > 2)
            return wnn__op_error(b, WNN_STATUS_INVALID_RANK, "gemm: c is rank %u, must be 0 to 2", dc->rank);
        if (!wnn__broadcastable_to(dc, &out))
            return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "gemm: c cannot be broadcast to [%u, %u]", m, n);
    }
    wnn__attrs attrs = {.gemm = {o->alpha ? *o->alpha : 1.0, o->beta ? *o->beta : 1.0, o->a_transpose,
                                 o->b_transpose}};
    return wnn__op_add_node(b, WNN__OP_GEMM, in, 3, &out, 1, &attrs, NULL);
}
