/*
** values.c -- the importer's value table (every name a node or the graph
** defines: an operand, a host constant, or both), a node's inputs and outputs
** through it, and the readers of node attributes.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h % ONX_BUCKETS;
}

onx_value *onx_lookup(onx_importer *im, const char *name)
{
    for (onx_value *v = im->buckets[hash_name(name)]; v != NULL; v = v->next)
        if (strcmp(v->name, name) == 0)
            return v;
    return NULL;
}

/* A new value for name; a later definition of the same name replaces the
** earlier one (ONNX forbids it, some exporters do it anyway). */
onx_value *onx_define(onx_importer *im, const char *name)
{
    onx_value *v = onx_lookup(im, name);
    if (v != NULL) {
        onx_const_free(v->c);
        char *keep = v->name;
        onx_value *next = v->next;
        memset(v, 0, sizeof *v);
        v->name = keep;
        v->next = next;
        v->scope = im->scope;
        return v;
    }
    v = calloc(1, sizeof *v);
    if (v == NULL || (v->name = strdup(name)) == NULL) {
        free(v);
        return NULL;
    }
    uint32_t h = hash_name(name);
    v->next = im->buckets[h];
    im->buckets[h] = v;
    v->scope = im->scope;
    return v;
}

void onx_free_values(onx_importer *im)
{
    for (uint32_t i = 0; i < ONX_BUCKETS; i++) {
        for (onx_value *v = im->buckets[i], *next; v != NULL; v = next) {
            next = v->next;
            onx_const_free(v->c);
            free(v->name);
            free(v);
        }
        im->buckets[i] = NULL;
    }
}

onx_value *onx_in(onx_importer *im, const Onnx__NodeProto *n, size_t i)
{
    if (i >= n->n_input || n->input[i] == NULL || n->input[i][0] == '\0')
        return NULL;
    return onx_lookup(im, n->input[i]);
}

void onx_value_desc(const onx_value *v, wnn_data_type *type, uint32_t *rank, int64_t *dims)
{
    *type = v->type;
    *rank = v->rank;
    for (uint32_t i = 0; i < v->rank; i++)
        dims[i] = v->c && !v->op ? v->c->dims[i] : (int64_t)v->shape[i];
}

wnn_operand *onx_operand(onx_importer *im, onx_value *v)
{
    if (v->op != NULL || v->c == NULL)
        return v->op;
    wnn_operand_desc d = {v->c->type, v->c->rank, {0}};
    for (uint32_t i = 0; i < d.rank; i++) {
        if (v->c->dims[i] == 0) {
            onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "'%s' is an empty tensor (dimension %u is 0): WebNN has none",
                     v->name, i);
            return NULL;
        }
        d.shape[i] = (uint32_t)v->c->dims[i];
    }
    v->op = wnn_graph_builder_constant(im->b, &d, v->c->data, v->c->count * onx_type_size(v->c->type));
    if (v->op == NULL)
        onx_builder_failed(im);
    return v->op;
}

wnn_operand_desc onx_desc_of(wnn_operand *x)
{
    wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
    if (x != NULL)
        wnn_operand_get_desc(x, &d);
    return d;
}

wnn_operand *onx_in_op(onx_importer *im, const Onnx__NodeProto *n, size_t i)
{
    onx_value *v = onx_in(im, n, i);
    if (v == NULL) {
        onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input %zu is missing", i);
        return NULL;
    }
    return onx_operand(im, v);
}

static onx_value *define_output(onx_importer *im, const Onnx__NodeProto *n, size_t i)
{
    if (i >= n->n_output || n->output[i] == NULL || n->output[i][0] == '\0')
        return NULL;
    /* a name given twice would free a value the node may still be reading */
    if (onx_lookup(im, n->output[i]) != NULL) {
        onx_fail(im, WNN_STATUS_OPERATION_ERROR, "output '%s' is already defined: an ONNX graph assigns each "
                 "name once", n->output[i]);
        return NULL;
    }
    onx_value *v = onx_define(im, n->output[i]);
    if (v == NULL)
        onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    return v;
}

wnn_status onx_out(onx_importer *im, const Onnx__NodeProto *n, size_t i, wnn_operand *op)
{
    if (op == NULL)
        return im->status != WNN_OK ? im->status : onx_builder_failed(im);
    if (i >= n->n_output || n->output[i] == NULL || n->output[i][0] == '\0')
        return WNN_OK;
    onx_value *v = define_output(im, n, i);
    if (v == NULL)
        return im->status;
    wnn_operand_desc d;
    wnn_operand_get_desc(op, &d);
    v->op = op;
    v->type = d.data_type;
    v->rank = d.rank;
    memcpy(v->shape, d.shape, sizeof v->shape);
    return WNN_OK;
}

wnn_status onx_out_const(onx_importer *im, const Onnx__NodeProto *n, size_t i, onx_const *c)
{
    if (c == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    if (i >= n->n_output || n->output[i] == NULL || n->output[i][0] == '\0') {
        onx_const_free(c);
        return WNN_OK;
    }
    if (im->attach_known) { /* the node was lowered: its operand gets the value beside it */
        onx_value *v = onx_lookup(im, n->output[i]);
        bool same = v != NULL && v->c == NULL && v->op != NULL && v->type == c->type && v->rank == c->rank;
        for (uint32_t k = 0; same && k < c->rank; k++)
            same = (int64_t)v->shape[k] == c->dims[k];
        if (!same) {
            onx_const_free(c);
            return WNN_OK;
        }
        v->c = c;
        v->foldable = false;
        return WNN_OK;
    }
    onx_value *v = define_output(im, n, i);
    if (v == NULL) {
        onx_const_free(c);
        return im->status;
    }
    v->c = c;
    v->foldable = true;
    v->type = c->type;
    v->rank = c->rank;
    for (uint32_t k = 0; k < c->rank; k++)
        v->shape[k] = (uint32_t)c->dims[k];
    return WNN_OK;
}

const onx_const *onx_in_const(onx_importer *im, const Onnx__NodeProto *n, size_t i, const char *what)
{
    onx_value *v = onx_in(im, n, i);
    if (v == NULL) {
        onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input %zu (%s) is missing", i, what);
        return NULL;
    }
    if (v->c == NULL) {
        onx_fail(im, WNN_STATUS_NOT_SUPPORTED,
                 "input %zu (%s, '%s') must be a constant: WebNN takes it as an attribute (make it an "
                 "initializer, or bind it with constant_inputs)", i, what, v->name);
        return NULL;
    }
    return v->c;
}

int onx_in_ints(onx_importer *im, const Onnx__NodeProto *n, size_t i, const char *what, int64_t *out, size_t max)
{
    const onx_const *c = onx_in_const(im, n, i, what);
    if (c == NULL)
        return -1;
    if (c->count > max) {
        onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "input %zu (%s) has %zu values, at most %zu are supported", i, what,
                 c->count, max);
        return -1;
    }
    for (size_t k = 0; k < c->count; k++)
        out[k] = onx_get_i64(c, k);
    return (int)c->count;
}

wnn_operand *onx_scalar(onx_importer *im, wnn_data_type type, double v)
{
    wnn_operand *op = wnn_graph_builder_constant_scalar(im->b, type, v);
    if (op == NULL)
        onx_builder_failed(im);
    return op;
}

int onx_axis(onx_importer *im, int64_t axis, uint32_t rank)
{
    if (axis < -(int64_t)rank || axis >= (int64_t)rank) {
        onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "axis %lld is out of range for rank %u", (long long)axis, rank);
        return -1;
    }
    return (int)(axis < 0 ? axis + rank : axis);
}

/* ------------------------------------------------------------------------ */
/* Attributes                                                                */
/* ------------------------------------------------------------------------ */

const Onnx__AttributeProto *onx_attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name != NULL && strcmp(n->attribute[i]->name, name) == 0)
            return n->attribute[i];
    return NULL;
}

int64_t onx_attr_int(const Onnx__NodeProto *n, const char *name, int64_t dflt)
{
    const Onnx__AttributeProto *a = onx_attr(n, name);
    return a && a->has_i ? a->i : a && a->has_f ? onx_f64_to_i64(a->f) : dflt;
}

float onx_attr_float(const Onnx__NodeProto *n, const char *name, float dflt)
{
    const Onnx__AttributeProto *a = onx_attr(n, name);
    return a && a->has_f ? a->f : a && a->has_i ? (float)a->i : dflt;
}

const char *onx_attr_string(const Onnx__NodeProto *n, const char *name, const char *dflt, char *buf, size_t size)
{
    const Onnx__AttributeProto *a = onx_attr(n, name);
    if (a != NULL && a->has_s)
        snprintf(buf, size, "%.*s", (int)a->s.len, (const char *)a->s.data);
    else
        snprintf(buf, size, "%s", dflt);
    return buf;
}

int onx_attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, size_t max)
{
    const Onnx__AttributeProto *a = onx_attr(n, name);
    if (a == NULL)
        return -1;
    size_t k = a->n_ints < max ? a->n_ints : max;
    for (size_t i = 0; i < k; i++)
        out[i] = a->ints[i];
    return (int)a->n_ints;
}

int onx_attr_floats(const Onnx__NodeProto *n, const char *name, float *out, size_t max)
{
    const Onnx__AttributeProto *a = onx_attr(n, name);
    if (a == NULL)
        return -1;
    size_t k = a->n_floats < max ? a->n_floats : max;
    for (size_t i = 0; i < k; i++)
        out[i] = a->floats[i];
    return (int)a->n_floats;
}
