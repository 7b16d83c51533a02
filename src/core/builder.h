/* SPDX-License-Identifier: Apache-2.0 */
/*
** builder.h -- what operator files use to validate arguments and record
** nodes on a graph builder.
*/
#ifndef WNN_CORE_BUILDER_H
#define WNN_CORE_BUILDER_H

#include "core/internal.h"
#include "core/shape.h" /* the broadcast rules */

/* Records the builder's first error (status and formatted message) and
** returns NULL, so operators can `return wnn__op_error(...)`. */
wnn_operand *wnn__op_error(wnn_graph_builder *b, wnn_status s, const char *fmt, ...) WNN__PRINTF(3, 4);

/* The checks every operator shares: builder usable (not built, context not
** lost), each of the n operands non-NULL and made by b (names[i] names it in
** messages). Optional operands are checked with wnn__op_check_optional().
** Returns false after recording the error. */
bool wnn__op_begin(wnn_graph_builder *b, const char *op, wnn_operand *const *operands,
                   const char *const *names, size_t n);
bool wnn__op_check_optional(wnn_graph_builder *b, const char *op, const char *name, const wnn_operand *x);

/* Refuses an options struct whose next_in_chain is set: this version
** defines no extension structs (wnn.h, "Operator options"). Returns false
** after recording the error. */
static inline bool wnn__op_check_chain(wnn_graph_builder *b, const char *op, const wnn_chained_struct *next)
{
    if (next)
        wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                      "%s: options.next_in_chain is set, but this version defines no extension structs", op);
    return !next;
}

/* The inferred descriptor of an operand of b. */
const wnn_operand_desc *wnn__desc(const wnn_operand *x);

/* Appends a node with inputs (NULL entries are absent optional operands) and
** n_out outputs of the given descriptors. Returns the first output operand
** and stores all of them in outs when outs is not NULL; NULL on allocation
** failure (recorded). */
wnn_operand *wnn__op_add_node(wnn_graph_builder *b, wnn__op op, wnn_operand *const *inputs, uint32_t n_in,
                              const wnn_operand_desc *out_descs, uint32_t n_out, const wnn__attrs *attrs,
                              wnn_operand **outs);

/* Records a one-input operator whose output has the input's descriptor,
** after checking the input's data type is in types. */
wnn_operand *wnn__unary(wnn_graph_builder *b, wnn__op op, wnn_operand *x, uint32_t types, const wnn__attrs *attrs);

/* Type set helpers: a bit per wnn_data_type. */
#define WNN__T(t) (1u << (WNN_DATA_TYPE_##t))
#define WNN__TYPES_FLOAT (WNN__T(FLOAT32) | WNN__T(FLOAT16))
#define WNN__TYPES_ALL                                                                                 \
    (WNN__TYPES_FLOAT | WNN__T(INT32) | WNN__T(UINT32) | WNN__T(INT64) | WNN__T(UINT64) | WNN__T(INT8) | \
     WNN__T(UINT8))
#define WNN__TYPES_SIGNED (WNN__TYPES_FLOAT | WNN__T(INT64) | WNN__T(INT32) | WNN__T(INT8))

/* Checks x's data type is in the set; records "op: name has data type T,
** must be one of ..." otherwise. */
bool wnn__op_check_type(wnn_graph_builder *b, const char *op, const char *name, const wnn_operand *x,
                        uint32_t types);
/* Checks min_rank <= rank(x) <= max_rank. */
bool wnn__op_check_rank(wnn_graph_builder *b, const char *op, const char *name, const wnn_operand *x,
                        uint32_t min_rank, uint32_t max_rank);

/* The one rule of which data types and ranks an operand of op accepts: the
** row of the opSupportLimits table (limits.c) for op's operand, masked by
** the types ctx's device holds. operand is the member name of the spec's
** dictionaries ("input", "a", "filter"; "options.bias" is read as "bias").
** False when the table has no such row. */
bool wnn__operand_limits(const wnn_context *ctx, const char *op, const char *operand, wnn_tensor_limits *out);
/* The data types ctx's device can hold, as a bit set. */
uint32_t wnn__device_types(const wnn_context *ctx);

#endif
