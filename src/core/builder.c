/* SPDX-License-Identifier: Apache-2.0 */
/*
** builder.c -- MLGraphBuilder: the builder object, inputs and constants, the
** shared operator checks and node recording (build() is in graph.c; the
** shape and number rules in shape.h).
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/builder.h"

wnn_status wnn_graph_builder_create(wnn_context *ctx, wnn_graph_builder **out)
{
    if (!out || !ctx)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_graph_builder_create: %s is NULL",
                         out ? "context" : "out");
    *out = NULL;
    if (atomic_load(&ctx->lost))
        return wnn__fail(WNN_STATUS_CONTEXT_LOST, "wnn_graph_builder_create: context is lost");
    wnn_graph_builder *b = calloc(1, sizeof *b);
    if (!b)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "wnn_graph_builder_create: out of memory");
    wnn__context_retain(ctx);
    b->ctx = ctx;
    *out = b;
    return WNN_OK;
}

void wnn_graph_builder_release(wnn_graph_builder *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < b->n_values; i++) {
        free(b->values[i].data);
        free(b->input_names[i]);
        wnn__tensor_unref(b->const_tensors[i]);
    }
    for (uint32_t i = 0; i < b->n_nodes; i++) {
        free(b->nodes[i].in);
        free(b->nodes[i].out);
    }
    for (uint32_t i = 0; i < b->n_operands; i++)
        free(b->operands[i]);
    free(b->values);
    free(b->input_names);
    free(b->const_tensors);
    free(b->nodes);
    free(b->operands);
    wnn__context_unref(b->ctx);
    free(b);
}

wnn_status wnn_graph_builder_status(const wnn_graph_builder *b)
{
    return b ? b->status : WNN_STATUS_INVALID_ARGUMENT;
}

const char *wnn_graph_builder_error_message(const wnn_graph_builder *b) { return b ? b->message : ""; }

void wnn_graph_builder_clear_error(wnn_graph_builder *b)
{
    if (b) {
        b->status = WNN_OK;
        b->message[0] = '\0';
    }
}

void wnn_operand_get_desc(const wnn_operand *x, wnn_operand_desc *out)
{
    if (x && out)
        *out = x->builder->values[x->value].desc;
}

const wnn_operand_desc *wnn__desc(const wnn_operand *x) { return &x->builder->values[x->value].desc; }

/* ---- errors and shared checks ------------------------------------------- */

static void record(wnn_graph_builder *b, wnn_status s, const char *fmt, va_list ap)
{
    char text[sizeof b->message];
    vsnprintf(text, sizeof text, fmt, ap);
    wnn__fail(s, "%s", text);
    if (b->status == WNN_OK) {
        b->status = s;
        memcpy(b->message, text, sizeof text);
    }
}

wnn_operand *wnn__op_error(wnn_graph_builder *b, wnn_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(b, s, fmt, ap);
    va_end(ap);
    return NULL;
}

static bool builder_usable(wnn_graph_builder *b, const char *op)
{
    if (b->built) {
        wnn__op_error(b, WNN_STATUS_ALREADY_BUILT, "%s: the builder has already built a graph", op);
        return false;
    }
    if (atomic_load(&b->ctx->lost)) {
        wnn__op_error(b, WNN_STATUS_CONTEXT_LOST, "%s: context is lost", op);
        return false;
    }
    return true;
}

static void type_list(uint32_t types, char *buf, size_t size);

/* Holds desc, the descriptor of op's operand name, to the limits table: its
** data type must be one the table lists (so nothing the limits deny is ever
** built) and its rank within the row's range. Operands the table has no row
** for are left to the operator's own checks. */
static bool check_limits(wnn_graph_builder *b, const char *op, const char *name, const wnn_operand_desc *desc)
{
    wnn_tensor_limits lim;
    if (!wnn__operand_limits(b->ctx, op, name, &lim))
        return true;
    if (!lim.data_types) {
        wnn__op_error(b, WNN_STATUS_NOT_SUPPORTED, "%s: device \"%s\" has no %s", op, b->ctx->info.name, op);
        return false;
    }
    if (!(lim.data_types & (1u << desc->data_type))) {
        char list[160];
        type_list(lim.data_types, list, sizeof list);
        wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: %s has data type %s, must be one of %s", op,
                      name, wnn_data_type_name(desc->data_type), list);
        return false;
    }
    if (desc->rank < lim.min_rank || desc->rank > lim.max_rank) {
        wnn__op_error(b, WNN_STATUS_INVALID_RANK, "%s: %s is rank %u, must be %u to %u", op, name, desc->rank,
                      lim.min_rank, lim.max_rank);
        return false;
    }
    return true;
}

bool wnn__op_check_optional(wnn_graph_builder *b, const char *op, const char *name, const wnn_operand *x)
{
    if (!x)
        return true;
    if (x->builder != b) {
        wnn__op_error(b, WNN_STATUS_WRONG_CONTEXT, "%s: %s belongs to another builder", op, name);
        return false;
    }
    return check_limits(b, op, name, wnn__desc(x));
}

bool wnn__op_begin(wnn_graph_builder *b, const char *op, wnn_operand *const *operands, const char *const *names,
                   size_t n)
{
    if (!b) {
        wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: builder is NULL", op);
        return false;
    }
    if (!builder_usable(b, op))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!operands[i]) {
            wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "%s: %s is NULL", op, names[i]);
            return false;
        }
        if (!wnn__op_check_optional(b, op, names[i], operands[i]))
            return false;
    }
    return true;
}

static void type_list(uint32_t types, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int t = WNN_DATA_TYPE_FLOAT32; t <= WNN_DATA_TYPE_UINT4 && len < size; t++)
        if (types & (1u << t))
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", wnn_data_type_name(t));
}

bool wnn__op_check_type(wnn_graph_builder *b, const char *op, const char *name, const wnn_operand *x,
                        uint32_t types)
{
    wnn_data_type t = wnn__desc(x)->data_type;
    if (types & (1u << t))
        return true;
    char list[160];
    type_list(types, list, sizeof list);
    wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: %s has data type %s, must be one of %s", op, name,
                  wnn_data_type_name(t), list);
    return false;
}

bool wnn__op_check_rank(wnn_graph_builder *b, const char *op, const char *name, const wnn_operand *x,
                        uint32_t min_rank, uint32_t max_rank)
{
    uint32_t r = wnn__desc(x)->rank;
    if (r >= min_rank && r <= max_rank)
        return true;
    if (min_rank == max_rank)
        wnn__op_error(b, WNN_STATUS_INVALID_RANK, "%s: %s is rank %u, must be %u", op, name, r, min_rank);
    else
        wnn__op_error(b, WNN_STATUS_INVALID_RANK, "%s: %s is rank %u, must be %u to %u", op, name, r, min_rank,
                      max_rank);
    return false;
}

/* ---- values and nodes ----------------------------------------------------- */

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return false;
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(n - *cap) * elem);
    *p = q;
    *cap = n;
    return true;
}

/* Adds a value and its operand handle; NULL on allocation failure. */
static wnn_operand *new_value(wnn_graph_builder *b, const wnn_operand_desc *desc, wnn__value_kind kind)
{
    const wnn_operand_desc copy = *desc; /* desc may point into b->values, which grow() moves */
    uint32_t cap = b->cap_values;
    if (!grow((void **)&b->values, &cap, b->n_values + 1, sizeof *b->values) ||
        !grow((void **)&b->input_names, &b->cap_values, cap, sizeof *b->input_names))
        return NULL;
    uint32_t c2 = b->cap_const_tensors;
    if (!grow((void **)&b->const_tensors, &c2, cap, sizeof *b->const_tensors))
        return NULL;
    b->cap_const_tensors = c2;
    b->cap_values = cap;
    if (!grow((void **)&b->operands, &b->cap_operands, b->n_operands + 1, sizeof *b->operands))
        return NULL;
    wnn_operand *x = malloc(sizeof *x);
    if (!x)
        return NULL;
    uint32_t id = b->n_values++;
    b->values[id] = (wnn__value){.desc = copy, .kind = kind};
    x->builder = b;
    x->value = id;
    b->operands[b->n_operands++] = x;
    return x;
}

/* The limits-table name of output i of n: "output", "outputs" (split) or
** "output0", "output1" ... (the recurrent operators). */
static const char *output_name(const wnn_graph_builder *b, const char *op, uint32_t i, uint32_t n, char *buf,
                               size_t size)
{
    wnn_tensor_limits unused;
    if (n == 1 && wnn__operand_limits(b->ctx, op, "output", &unused))
        return "output";
    if (wnn__operand_limits(b->ctx, op, "outputs", &unused))
        return "outputs";
    snprintf(buf, size, "output%u", i);
    return buf;
}

/* The checks every output passes before it exists: the dimension rules of
** an operand descriptor (each dimension and the element count at most
** 2^31-1, so no byte length can overflow) and the limits table. */
static bool check_outputs(wnn_graph_builder *b, const char *op, const wnn_operand_desc *descs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        char buf[24], what[64];
        const char *name = output_name(b, op, i, n, buf, sizeof buf);
        snprintf(what, sizeof what, "%s %s", op, name);
        wnn_status s = wnn__check_desc(what, &descs[i]);
        if (s != WNN_OK) {
            wnn__op_error(b, s, "%s", wnn_last_error_message());
            return false;
        }
        if (!check_limits(b, op, name, &descs[i]))
            return false;
    }
    return true;
}

wnn_operand *wnn__op_add_node(wnn_graph_builder *b, wnn__op op, wnn_operand *const *inputs, uint32_t n_in,
                              const wnn_operand_desc *out_descs, uint32_t n_out, const wnn__attrs *attrs,
                              wnn_operand **outs)
{
    const char *name = wnn__op_name(op);
    if (!check_outputs(b, name, out_descs, n_out))
        return NULL;
    if (!grow((void **)&b->nodes, &b->cap_nodes, b->n_nodes + 1, sizeof *b->nodes))
        return wnn__op_error(b, WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", name);
    wnn__node *node = &b->nodes[b->n_nodes];
    *node = (wnn__node){.op = op, .n_in = n_in, .n_out = n_out};
    node->in = malloc(sizeof *node->in * (n_in ? n_in : 1));
    node->out = malloc(sizeof *node->out * n_out);
    if (!node->in || !node->out) {
        free(node->in);
        free(node->out);
        return wnn__op_error(b, WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", name);
    }
    for (uint32_t i = 0; i < n_in; i++)
        node->in[i] = inputs[i] ? inputs[i]->value : WNN__NONE;
    if (attrs)
        node->attrs = *attrs;
    wnn_operand *first = NULL;
    for (uint32_t i = 0; i < n_out; i++) {
        wnn_operand *x = new_value(b, &out_descs[i], WNN__VALUE_NODE);
        if (!x) {
            /* the node is not counted; values already added stay unreachable */
            free(node->in);
            free(node->out);
            return wnn__op_error(b, WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", name);
        }
        b->values[x->value].index = b->n_nodes;
        node->out[i] = x->value;
        if (outs)
            outs[i] = x;
        if (!first)
            first = x;
    }
    b->n_nodes++;
    return first;
}

/* ---- inputs and constants --------------------------------------------------- */

static bool check_operand_desc(wnn_graph_builder *b, const char *op, const wnn_operand_desc *desc)
{
    wnn_status s = wnn__check_desc(op, desc);
    if (s != WNN_OK) {
        wnn__op_error(b, s, "%s", wnn_last_error_message());
        return false;
    }
    return true;
}

wnn_operand *wnn_graph_builder_input(wnn_graph_builder *b, const char *name, const wnn_operand_desc *desc)
{
    static const char op[] = "input";
    if (!wnn__op_begin(b, op, NULL, NULL, 0))
        return NULL;
    if (!name || !name[0])
        return wnn__op_error(b, WNN_STATUS_NAME_MISMATCH, "input: name is empty");
    for (uint32_t i = 0; i < b->n_values; i++)
        if (b->input_names[i] && strcmp(b->input_names[i], name) == 0)
            return wnn__op_error(b, WNN_STATUS_NAME_MISMATCH, "input: name \"%s\" is already used", name);
    if (!check_operand_desc(b, op, desc))
        return NULL;
    char *copy = strdup(name);
    wnn_operand *x = copy ? new_value(b, desc, WNN__VALUE_INPUT) : NULL;
    if (!x) {
        free(copy);
        return wnn__op_error(b, WNN_STATUS_OUT_OF_MEMORY, "input: out of memory");
    }
    b->input_names[x->value] = copy;
    return x;
}

static wnn_operand *add_constant(wnn_graph_builder *b, const char *op, const wnn_operand_desc *desc,
                                 const void *data, size_t n)
{
    void *copy = malloc(n ? n : 1);
    wnn_operand *x = copy ? new_value(b, desc, WNN__VALUE_CONSTANT) : NULL;
    if (!x) {
        free(copy);
        return wnn__op_error(b, WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    memcpy(copy, data, n);
    b->values[x->value].data = copy;
    return x;
}

wnn_operand *wnn_graph_builder_constant(wnn_graph_builder *b, const wnn_operand_desc *desc, const void *data,
                                        size_t byte_length)
{
    static const char op[] = "constant";
    if (!wnn__op_begin(b, op, NULL, NULL, 0) || !check_operand_desc(b, op, desc))
        return NULL;
    if (!data)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "constant: data is NULL");
    uint64_t need = wnn_operand_desc_byte_length(desc);
    if (byte_length != need)
        return wnn__op_error(b, WNN_STATUS_BYTE_LENGTH_MISMATCH, "constant: data is %zu bytes, the descriptor needs %llu",
                             byte_length, (unsigned long long)need);
    return add_constant(b, op, desc, data, byte_length);
}

static wnn_operand *constant_scalar(wnn_graph_builder *b, wnn_data_type t, double v, int64_t iv, bool is_int)
{
    static const char op[] = "constant";
    if (!wnn__op_begin(b, op, NULL, NULL, 0))
        return NULL;
    wnn_operand_desc desc = {t, 0, {0}};
    if (!check_operand_desc(b, op, &desc))
        return NULL;
    if (t == WNN_DATA_TYPE_INT4 || t == WNN_DATA_TYPE_UINT4)
        return wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "constant: no scalar of type %s",
                             wnn_data_type_name(t));
    uint8_t bytes[8] = {0};
    wnn__number_encode(t, v, is_int, iv, bytes);
    return add_constant(b, op, &desc, bytes, wnn_data_type_size(t));
}

wnn_operand *wnn_graph_builder_constant_scalar(wnn_graph_builder *b, wnn_data_type t, double v)
{
    return constant_scalar(b, t, v, 0, false);
}

wnn_operand *wnn_graph_builder_constant_scalar_int64(wnn_graph_builder *b, wnn_data_type t, int64_t v)
{
    return constant_scalar(b, t, 0.0, v, true);
}

wnn_operand *wnn_graph_builder_constant_tensor(wnn_graph_builder *b, wnn_tensor *t)
{
    static const char op[] = "constant";
    if (!b) {
        wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "constant: builder is NULL");
        return NULL;
    }
    if (!t)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "constant: tensor is NULL");
    if (t->ctx != b->ctx)
        return wnn__op_error(b, WNN_STATUS_WRONG_CONTEXT, "constant: tensor belongs to another context");
    if (atomic_load(&t->destroyed))
        return wnn__op_error(b, wnn__destroyed_status(b->ctx), "constant: tensor has been destroyed");
    if (!t->constant)
        return wnn__op_error(b, WNN_STATUS_CONSTANT_TENSOR, "constant: tensor is not a constant tensor");
    if (!wnn__op_begin(b, op, NULL, NULL, 0))
        return NULL;
    wnn_operand_desc desc = {t->desc.data_type, t->desc.rank, {0}};
    memcpy(desc.shape, t->desc.shape, sizeof desc.shape);
    wnn_operand *x = add_constant(b, op, &desc, t->constant_bytes, (size_t)t->byte_length);
    if (x) {
        wnn__tensor_retain(t);
        b->const_tensors[x->value] = t;
    }
    return x;
}
