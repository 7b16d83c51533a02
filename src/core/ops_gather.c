/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_gather.c -- builder methods of the index-driven operators: gather,
** gatherElements, gatherND, scatterElements and scatterND. Index values are
** only known at dispatch, so the builder checks types and shapes; the kernels
** resolve negative and out-of-range indices.
*/
#include "core/builder.h"

#define INDEX_TYPES (WNN__T(INT32) | WNN__T(UINT32) | WNN__T(INT64))

/* The checks all five share: operands usable, indices of an index type,
** input of rank >= 1 (and indices too when indices_rank_1). */
static bool index_begin(wnn_graph_builder *b, const char *op, wnn_operand *const *in, const char *const *names,
                        size_t n, bool indices_rank_1)
{
    return wnn__op_begin(b, op, in, names, n) && wnn__op_check_type(b, op, "indices", in[1], INDEX_TYPES) &&
           wnn__op_check_rank(b, op, "input", in[0], 1, WNN_MAX_RANK) &&
           (!indices_rank_1 || wnn__op_check_rank(b, op, "indices", in[1], 1, WNN_MAX_RANK));
}

static bool same_shape(const wnn_operand_desc *a, const wnn_operand_desc *c)
{
    if (a->rank != c->rank)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->shape[i] != c->shape[i])
            return false;
    return true;
}

/* gatherElements and scatterElements: indices has input's rank and shape
** except along axis. */
static bool check_element_indices(wnn_graph_builder *b, const char *op, const wnn_operand_desc *in,
                                  const wnn_operand_desc *idx, uint32_t axis)
{
    if (axis >= in->rank) {
        wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: axis %u is not below rank %u", op, axis, in->rank);
        return false;
    }
    if (idx->rank != in->rank) {
        wnn__op_error(b, WNN_STATUS_INVALID_RANK, "%s: indices is rank %u, must be input's rank %u", op, idx->rank,
                      in->rank);
        return false;
    }
    for (uint32_t i = 0; i < in->rank; i++)
        if (i != axis && idx->shape[i] != in->shape[i]) {
            wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                          "%s: indices dimension %u is %u, must equal input's %u (only axis %u may differ)", op, i,
                          idx->shape[i], in->shape[i], axis);
            return false;
        }
    return true;
}

/* gatherND and scatterND: the coordinate length k = indices.shape[-1] is at
** most input's rank; fills out with indices.shape[:-1] + input.shape[k:]. */
static bool nd_slice_shape(wnn_graph_builder *b, const char *op, const wnn_operand_desc *in,
                           const wnn_operand_desc *idx, wnn_operand_desc *out)
{
    uint32_t k = idx->shape[idx->rank - 1];
    if (k > in->rank) {
        wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "%s: indices.shape[-1] is %u, over input's rank %u", op, k,
                      in->rank);
        return false;
    }
    uint32_t rank = idx->rank - 1 + (in->rank - k);
    if (rank > WNN_MAX_RANK) {
        wnn__op_error(b, WNN_STATUS_INVALID_RANK, "%s: the result would be rank %u, over %d", op, rank, WNN_MAX_RANK);
        return false;
    }
    *out = (wnn_operand_desc){in->data_type, 0, {0}};
    for (uint32_t i = 0; i + 1 < idx->rank; i++)
        out->shape[out->rank++] = idx->shape[i];
    for (uint32_t i = k; i < in->rank; i++)
        out->shape[out->rank++] = in->shape[i];
    return true;
}

static const char *const gather_names[2] = {"input", "indices"};
static const char *const scatter_names[3] = {"input", "indices", "updates"};

wnn_operand *wnn_gather(wnn_graph_builder *b, wnn_operand *x, wnn_operand *indices, const wnn_gather_options *o)
{
    wnn_operand *in[2] = {x, indices};
    uint32_t axis = o ? o->axis : 0;
    if (!index_begin(b, "gather", in, gather_names, 2, false) ||
        !wnn__op_check_chain(b, "gather", o ? o->next_in_chain : NULL))
        return NULL;
    const wnn_operand_desc *d = wnn__desc(x), *di = wnn__desc(indices);
    if (axis >= d->rank)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "gather: axis %u is not below rank %u", axis, d->rank);
    uint32_t rank = d->rank - 1 + di->rank;
    if (rank > WNN_MAX_RANK)
        return wnn__op_error(b, WNN_STATUS_INVALID_RANK, "gather: the result would be rank %u, over %d", rank,
                             WNN_MAX_RANK);
    wnn_operand_desc out = {d->data_type, 0, {0}};
    for (uint32_t i = 0; i < axis; i++)
        out.shape[out.rank++] = d->shape[i];
    for (uint32_t i = 0; i < di->rank; i++)
        out.shape[out.rank++] = di->shape[i];
    for (uint32_t i = axis + 1; i < d->rank; i++)
        out.shape[out.rank++] = d->shape[i];
    wnn__attrs attrs = {.axis = {axis}};
    return wnn__op_add_node(b, WNN__OP_GATHER, in, 2, &out, 1, &attrs, NULL);
}

wnn_operand *wnn_gather_elements(wnn_graph_builder *b, wnn_operand *x, wnn_operand *indices,
                                 const wnn_gather_options *o)
{
    wnn_operand *in[2] = {x, indices};
    uint32_t axis = o ? o->axis : 0;
    if (!index_begin(b, "gatherElements", in, gather_names, 2, false) ||
        !wnn__op_check_chain(b, "gatherElements", o ? o->next_in_chain : NULL))
        return NULL;
    const wnn_operand_desc *d = wnn__desc(x), *di = wnn__desc(indices);
    if (!check_element_indices(b, "gatherElements", d, di, axis))
        return NULL;
    wnn_operand_desc out = *di;
    out.data_type = d->data_type;
    wnn__attrs attrs = {.axis = {axis}};
    return wnn__op_add_node(b, WNN__OP_GATHER_ELEMENTS, in, 2, &out, 1, &attrs, NULL);
}

wnn_operand *wnn_gather_nd(wnn_graph_builder *b, wnn_operand *x, wnn_operand *indices)
{
    wnn_operand *in[2] = {x, indices};
    if (!index_begin(b, "gatherND", in, gather_names, 2, true))
        return NULL;
    wnn_operand_desc out;
    if (!nd_slice_shape(b, "gatherND", wnn__desc(x), wnn__desc(indices), &out))
        return NULL;
    return wnn__op_add_node(b, WNN__OP_GATHER_ND, in, 2, &out, 1, NULL, NULL);
}

/* updates must have input's data type. */
static bool check_updates_type(wnn_graph_builder *b, const char *op, const wnn_operand_desc *in,
                               const wnn_operand_desc *du)
{
    if (du->data_type == in->data_type)
        return true;
    wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: updates is %s, input is %s, they must match", op,
                  wnn_data_type_name(du->data_type), wnn_data_type_name(in->data_type));
    return false;
}

wnn_operand *wnn_scatter_elements(wnn_graph_builder *b, wnn_operand *x, wnn_operand *indices, wnn_operand *updates,
                                  const wnn_scatter_options *o)
{
    wnn_operand *in[3] = {x, indices, updates};
    uint32_t axis = o ? o->axis : 0;
    if (!index_begin(b, "scatterElements", in, scatter_names, 3, false) ||
        !wnn__op_check_chain(b, "scatterElements", o ? o->next_in_chain : NULL))
        return NULL;
    const wnn_operand_desc *d = wnn__desc(x), *di = wnn__desc(indices), *du = wnn__desc(updates);
    if (!check_updates_type(b, "scatterElements", d, du) || !check_element_indices(b, "scatterElements", d, di, axis))
        return NULL;
    if (!same_shape(du, di))
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "scatterElements: updates must have indices' shape");
    wnn__attrs attrs = {.axis = {axis}};
    return wnn__op_add_node(b, WNN__OP_SCATTER_ELEMENTS, in, 3, d, 1, &attrs, NULL);
}

wnn_operand *wnn_scatter_nd(wnn_graph_builder *b, wnn_operand *x, wnn_operand *indices, wnn_operand *updates)
{
    wnn_operand *in[3] = {x, indices, updates};
    if (!index_begin(b, "scatterND", in, scatter_names, 3, true))
        return NULL;
    const wnn_operand_desc *d = wnn__desc(x), *du = wnn__desc(updates);
    wnn_operand_desc want;
    if (!check_updates_type(b, "scatterND", d, du) || !nd_slice_shape(b, "scatterND", d, wnn__desc(indices), &want))
        return NULL;
    if (!same_shape(du, &want))
        return wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH,
                             "scatterND: updates must have shape indices.shape[:-1] + input.shape[k:]");
    return wnn__op_add_node(b, WNN__OP_SCATTER_ND, in, 3, d, 1, NULL, NULL);
}
