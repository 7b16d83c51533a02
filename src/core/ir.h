/* SPDX-License-Identifier: Apache-2.0 */
/*
** ir.h -- the graph intermediate representation shared by core and backends.
**
** The builder records values (operands) and nodes (operators) in creation
** order, which is a topological order. build() copies the part reachable from
** the outputs into a compact wnn__ir that backends compile. Backends read the
** IR; they never see builder or public-API objects.
*/
#ifndef WNN_CORE_IR_H
#define WNN_CORE_IR_H

#include <math.h>

#include "wnn/wnn.h"
#include "core/half.h"
#include "core/ops.h"
#include "core/shape.h"

#define WNN__NONE UINT32_MAX /* an absent optional operand */

typedef enum wnn__value_kind {
    WNN__VALUE_INPUT = 0,
    WNN__VALUE_CONSTANT = 1,
    WNN__VALUE_NODE = 2 /* the output of a node */
} wnn__value_kind;

typedef struct wnn__value {
    wnn_operand_desc desc;
    wnn__value_kind kind;
    uint32_t index; /* graph input index (INPUT) or producing node (NODE) */
    void *data;     /* CONSTANT: the bytes, owned by the IR or builder */
} wnn__value;

typedef struct wnn__node {
    wnn__op op;
    uint32_t n_in;
    uint32_t n_out;
    uint32_t *in;  /* value ids; WNN__NONE for an absent optional operand */
    uint32_t *out; /* value ids */
    wnn__attrs attrs;
} wnn__node;

typedef struct wnn__ir {
    uint32_t n_values;
    wnn__value *values;
    uint32_t n_nodes;
    wnn__node *nodes;
    uint32_t n_inputs;
    uint32_t *input_values;
    char **input_names;
    uint32_t n_outputs;
    uint32_t *output_values;
    char **output_names;
} wnn__ir;

/* Frees everything an IR made by wnn__ir_extract() owns. */
void wnn__ir_free(wnn__ir *ir);

/* Last-use liveness, the rule every memory plan of an IR follows: last[v]
** (ir->n_values entries) is the index of the last node that reads value v,
** else the node that produces it, else 0 (an input or constant nobody
** reads). Graph outputs get no special treatment: callers that keep them to
** the end say so themselves. Header-only, so backends need not link core. */
static inline void wnn__ir_last_use(const wnn__ir *ir, uint32_t *last)
{
    for (uint32_t v = 0; v < ir->n_values; v++)
        last[v] = ir->values[v].kind == WNN__VALUE_NODE ? ir->values[v].index : 0;
    for (uint32_t n = 0; n < ir->n_nodes; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] != WNN__NONE)
                last[ir->nodes[n].in[j]] = n;
}

/* The fusion passes' view of who reads what: uses[v] counts the node
** operands that read value v, is_output[v] whether v is a graph output
** (both ir->n_values entries, zeroed by the caller). Header-only, as
** wnn__ir_last_use. */
static inline void wnn__ir_count_uses(const wnn__ir *ir, uint32_t *uses, bool *is_output)
{
    for (uint32_t n = 0; n < ir->n_nodes; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] != WNN__NONE)
                uses[ir->nodes[n].in[j]]++;
    for (uint32_t i = 0; i < ir->n_outputs; i++)
        is_output[ir->output_values[i]] = true;
}

/* The value of v when it is a one-element float32 or float16 constant (a
** scale, an offset a fusion looks for), else NAN; v may be WNN__NONE.
** Header-only, as wnn__ir_last_use. */
static inline double wnn__ir_scalar(const wnn__ir *ir, uint32_t v)
{
    if (v == WNN__NONE)
        return NAN;
    const wnn__value *val = &ir->values[v];
    if (val->kind != WNN__VALUE_CONSTANT || !val->data || wnn__shape_count(&val->desc) != 1)
        return NAN;
    if (val->desc.data_type == WNN_DATA_TYPE_FLOAT32)
        return *(const float *)val->data;
    if (val->desc.data_type == WNN_DATA_TYPE_FLOAT16)
        return wnn__half_to_float(*(const uint16_t *)val->data);
    return NAN;
}

#endif
