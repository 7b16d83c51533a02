/*
** ops_control.c -- ONNX control flow on a static WebNN graph. If inlines the
** branch its condition takes when the condition is known at import (an
** initializer, a folded computation, or a value bound by constant_inputs);
** otherwise both branches are lowered and where selects each output.
** Subgraphs see the names of the scopes around them; what a subgraph defines
** is forgotten when it ends (onx_scope_leave), so a branch's values outlive
** it only as the slots below.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* A value carried out of a subgraph's scope: an operand, a host value
** (owned), or both. */
typedef struct slot {
    wnn_operand *op;
    onx_const *c;
    bool foldable;
} slot;

static void slots_free(slot *s, size_t count)
{
    for (size_t i = 0; s != NULL && i < count; i++)
        onx_const_free(s[i].c);
    free(s);
}

static wnn_status slot_take(onx_importer *im, slot *s, const onx_value *v)
{
    onx_const_free(s->c);
    s->op = v->op;
    s->c = NULL;
    s->foldable = v->foldable;
    if (v->c != NULL && (s->c = onx_const_copy(v->c)) == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    return WNN_OK;
}

/* The slot as an operand; a host value becomes a constant once. */
static wnn_operand *slot_operand(onx_importer *im, slot *s, const char *name)
{
    if (s->op != NULL)
        return s->op;
    onx_value tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.name = (char *)name;
    tmp.c = s->c;
    s->op = onx_operand(im, &tmp);
    return s->op;
}

/* Output i of n takes the slot's operand and host value. */
static wnn_status slot_out(onx_importer *im, const Onnx__NodeProto *n, size_t i, const slot *s)
{
    if (i >= n->n_output || n->output[i] == NULL || n->output[i][0] == '\0')
        return WNN_OK;
    if (s->op == NULL) {
        wnn_status st = onx_out_const(im, n, i, onx_const_copy(s->c));
        onx_value *v = onx_lookup(im, n->output[i]);
        if (st == WNN_OK && v != NULL)
            v->foldable = s->foldable;
        return st;
    }
    wnn_status st = onx_out(im, n, i, s->op);
    onx_value *v = onx_lookup(im, n->output[i]);
    if (st != WNN_OK || v == NULL || s->c == NULL)
        return st;
    if ((v->c = onx_const_copy(s->c)) == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    v->foldable = s->foldable;
    return WNN_OK;
}

static const Onnx__GraphProto *graph_attr(const Onnx__NodeProto *n, const char *name)
{
    const Onnx__AttributeProto *a = onx_attr(n, name);
    return a != NULL && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH ? a->g : NULL;
}

/* Lowers subgraph g in a new scope and takes its outputs into outs
** (g->n_output slots). A failure inside is reported on n, with the inner
** node's message after the attribute's name. */
static wnn_status walk_subgraph(onx_importer *im, const Onnx__NodeProto *n, const char *attr,
                                const Onnx__GraphProto *g, slot *outs)
{
    uint32_t index = im->node_index;
    wnn_status st = onx_subgraph_walk(im, g);
    for (size_t i = 0; st == WNN_OK && i < g->n_output; i++) {
        const char *name = g->output[i]->name ? g->output[i]->name : "";
        onx_value *v = onx_lookup(im, name);
        if (v == NULL || (v->op == NULL && v->c == NULL))
            st = onx_fail(im, WNN_STATUS_OPERATION_ERROR, "%s: output '%s' is produced by no node", attr, name);
        else
            st = slot_take(im, &outs[i], v);
    }
    if (st != WNN_OK && im->node != n) {
        char inner[sizeof im->message];
        memcpy(inner, im->message, sizeof inner);
        im->node = n;
        im->node_index = index;
        onx_fail(im, st, "%s: %s", attr, inner);
    }
    return st;
}

static wnn_status lower_branch(onx_importer *im, const Onnx__NodeProto *n, const char *attr, slot *outs)
{
    const Onnx__GraphProto *g = graph_attr(n, attr);
    if (g == NULL)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the %s attribute is missing", attr);
    if (g->n_output != n->n_output)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "%s has %zu outputs, the node %zu", attr, g->n_output,
                        n->n_output);
    uint32_t depth = onx_scope_enter(im);
    wnn_status st = walk_subgraph(im, n, attr, g, outs);
    onx_scope_leave(im, depth);
    return st;
}

static void shape_text(const wnn_operand_desc *d, char *buf, size_t size)
{
    size_t k = (size_t)snprintf(buf, size, "[");
    for (uint32_t i = 0; i < d->rank && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, i ? ", %u" : "%u", d->shape[i]);
    if (k < size)
        snprintf(buf + k, size - k, "]");
}

/* where(cond, then, else) for output i: both branches must agree on the
** type and the shape (WebNN's where would broadcast, ONNX's If does not). */
static wnn_status select_output(onx_importer *im, const Onnx__NodeProto *n, size_t i, wnn_operand *cond,
                                slot *a, slot *b)
{
    const char *name = i < n->n_output && n->output[i] ? n->output[i] : "";
    wnn_operand *x = slot_operand(im, a, name), *y = x ? slot_operand(im, b, name) : NULL;
    if (y == NULL)
        return im->status != WNN_OK ? im->status : onx_builder_failed(im);
    wnn_operand_desc dx, dy;
    wnn_operand_get_desc(x, &dx);
    wnn_operand_get_desc(y, &dy);
    bool same = dx.data_type == dy.data_type && dx.rank == dy.rank;
    for (uint32_t k = 0; same && k < dx.rank; k++)
        same = dx.shape[k] == dy.shape[k];
    if (!same) {
        char sx[96], sy[96];
        shape_text(&dx, sx, sizeof sx);
        shape_text(&dy, sy, sizeof sy);
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED,
                        "the condition is not known at import and output %zu differs between the branches "
                        "(then %s %s, else %s %s): both are computed and selected with where, which needs one "
                        "type and shape", i, wnn_data_type_name(dx.data_type), sx, wnn_data_type_name(dy.data_type),
                        sy);
    }
    return onx_out(im, n, i, wnn_where(im->b, cond, x, y));
}

/* The condition as a uint8 scalar operand. */
static wnn_operand *condition_operand(onx_importer *im, onx_value *v)
{
    wnn_operand *op = onx_operand(im, v);
    if (op == NULL)
        return NULL;
    wnn_operand_desc d;
    wnn_operand_get_desc(op, &d);
    size_t count = 1;
    for (uint32_t k = 0; k < d.rank; k++)
        count *= d.shape[k];
    if (count != 1 || d.data_type != WNN_DATA_TYPE_UINT8) {
        onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the condition must be one bool, it is %s with %zu elements",
                 wnn_data_type_name(d.data_type), count);
        return NULL;
    }
    return d.rank == 0 ? op : wnn_reshape(im->b, op, 0, NULL);
}

static wnn_status lower_if(onx_importer *im, const Onnx__NodeProto *n)
{
    onx_value *cond = onx_in(im, n, 0);
    if (cond == NULL)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the condition is missing");
    size_t count = n->n_output;
    slot *a = calloc(2 * count + 1, sizeof *a), *b = a + count;
    if (a == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    wnn_status st;
    if (cond->c != NULL) {
        if (cond->c->count != 1) {
            st = onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the condition has %zu elements, must be 1",
                          cond->c->count);
        } else {
            bool taken = onx_get_f64(cond->c, 0) != 0;
            st = lower_branch(im, n, taken ? "then_branch" : "else_branch", a);
            for (size_t i = 0; st == WNN_OK && i < count; i++)
                st = slot_out(im, n, i, &a[i]);
        }
    } else {
        st = lower_branch(im, n, "then_branch", a);
        if (st == WNN_OK)
            st = lower_branch(im, n, "else_branch", b);
        wnn_operand *c = st == WNN_OK ? condition_operand(im, cond) : NULL;
        if (st == WNN_OK && c == NULL)
            st = im->status != WNN_OK ? im->status : onx_builder_failed(im);
        for (size_t i = 0; st == WNN_OK && i < count; i++)
            st = select_output(im, n, i, c, &a[i], &b[i]);
    }
    slots_free(a, 2 * count + 1);
    return st;
}

const onx_op_entry onx_ops_control[] = {
    {"If", lower_if},
    {NULL, NULL},
};
