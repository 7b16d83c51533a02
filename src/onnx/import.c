/*
** import.c -- from a serialized ModelProto to a built WebNN graph: parsing
** (protobuf-c), graph inputs with their bound shapes,
** initializers, the node walk (fold on the host when every input is known,
** else lower to builder calls), check mode, and errors naming the node.
** The value table and the attribute readers are in values.c.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "onnx_internal.h"

/* Models are read whole: protobuf-c needs the bytes in memory, and ONNX caps
** a ModelProto at 2 GiB (larger weights go to external data). */
#define ONX_MAX_MODEL_BYTES ((size_t)2147483647)

/* A lowering's "not here": a folder declines and the node is lowered. */
#define ONX_DECLINE ((wnn_status)-1)

static _Thread_local char last_message[1024];

const char *wnn_onnx_last_error_message(void) { return last_message; }

void onx_set_error(wnn_status st, const char *fmt, ...)
{
    (void)st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
}

wnn_status onx_fail(onx_importer *im, wnn_status st, const char *fmt, ...)
{
    char why[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    const Onnx__NodeProto *n = im->node;
    if (n != NULL)
        snprintf(im->message, sizeof im->message, "node %u '%s' (%s, opset %lld): %s", im->node_index,
                 n->name ? n->name : "", n->op_type ? n->op_type : "?", (long long)im->opset, why);
    else
        snprintf(im->message, sizeof im->message, "%s", why);
    snprintf(last_message, sizeof last_message, "%s", im->message);
    im->status = st;
    return st;
}

wnn_status onx_builder_failed(onx_importer *im)
{
    wnn_status st = wnn_graph_builder_status(im->b);
    const char *msg = wnn_graph_builder_error_message(im->b);
    if (im->status != WNN_OK)
        return im->status; /* the node failed before the call (an argument refused): that is the reason */
    if (st == WNN_OK)
        return onx_fail(im, WNN_STATUS_UNKNOWN, "a builder call failed without an error");
    if (st == WNN_STATUS_UNSUPPORTED_DATA_TYPE)
        st = WNN_STATUS_NOT_SUPPORTED;
    return onx_fail(im, st, "%s", msg ? msg : "");
}

/* ------------------------------------------------------------------------ */
/* Graph inputs and initializers                                             */
/* ------------------------------------------------------------------------ */

static bool is_initializer(const Onnx__GraphProto *g, const char *name)
{
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0)
            return true;
    return false;
}

static wnn_status add_initializers(onx_importer *im)
{
    const Onnx__GraphProto *g = im->graph;
    if (g->n_sparse_initializer > 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "sparse initializers are not supported");
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        onx_const *c;
        wnn_status st = onx_tensor_decode(t, im->base_dir, &c);
        if (st != WNN_OK)
            return onx_fail(im, st, "initializer %zu: %s", i, last_message);
        onx_value *v = onx_define(im, t->name ? t->name : "");
        if (v == NULL) {
            onx_const_free(c);
            return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        }
        v->c = c;
        v->foldable = true;
        v->type = c->type;
        v->rank = c->rank;
    }
    return WNN_OK;
}

/* The static shape of a graph input: a whole-shape binding, else the model's
** dimensions with free ones bound by name or by the default. */
static wnn_status input_shape(onx_importer *im, const Onnx__ValueInfoProto *vi, wnn_operand_desc *d)
{
    const wnn_onnx_options *o = im->opt;
    const Onnx__TypeProto *tp = vi->type;
    const char *name = vi->name;
    if (tp == NULL || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || tp->tensor_type == NULL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED,
                        "input '%s' is not a tensor (a sequence, map, optional or sparse value): WebNN has only "
                        "dense tensors", name);
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    if (!onx_type_from_onnx(tt->elem_type, &d->data_type))
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "input '%s' is %s, a data type WebNN has not", name,
                        onx_onnx_type_name(tt->elem_type));
    for (size_t i = 0; o && i < o->input_shape_count; i++) {
        const wnn_onnx_input_shape *s = &o->input_shapes[i];
        if (s->name == NULL || strcmp(s->name, name) != 0)
            continue;
        if (s->rank > WNN_MAX_RANK)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input '%s': bound rank %u is over %d", name,
                            s->rank, WNN_MAX_RANK);
        if (tt->shape != NULL && tt->shape->n_dim != s->rank)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input '%s': bound rank %u, the model says %zu", name,
                            s->rank, tt->shape->n_dim);
        d->rank = s->rank;
        for (uint32_t k = 0; k < s->rank; k++) {
            const Onnx__TensorShapeProto__Dimension *dim = tt->shape ? tt->shape->dim[k] : NULL;
            if (dim && dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                dim->dim_value > 0 && dim->dim_value != s->shape[k])
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT,
                                "input '%s': bound dimension %u is %u, the model fixes it at %lld", name, k,
                                s->shape[k], (long long)dim->dim_value);
            d->shape[k] = s->shape[k];
        }
        return WNN_OK;
    }
    if (tt->shape == NULL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED,
                        "input '%s' has no shape in the model: give its whole shape (input_shapes)", name);
    if (tt->shape->n_dim > WNN_MAX_RANK)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "input '%s' has rank %zu, over WebNN's %d", name,
                        tt->shape->n_dim, WNN_MAX_RANK);
    d->rank = (uint32_t)tt->shape->n_dim;
    for (uint32_t k = 0; k < d->rank; k++) {
        const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[k];
        if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (dim->dim_value <= 0 || dim->dim_value > (int64_t)WNN_MAX_DIMENSION)
                return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "input '%s' dimension %u is %lld: WebNN needs 1 to "
                                "2^31-1", name, k, (long long)dim->dim_value);
            d->shape[k] = (uint32_t)dim->dim_value;
            continue;
        }
        const char *param = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                                ? dim->dim_param : "";
        uint32_t value = 0;
        for (size_t j = 0; o && j < o->dimension_count && value == 0; j++)
            if (o->dimensions[j].name && param[0] && strcmp(o->dimensions[j].name, param) == 0)
                value = o->dimensions[j].value;
        if (value == 0 && o)
            value = o->default_dimension;
        if (value == 0)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED,
                            "input '%s' dimension %u ('%s') is free: bind it (dimensions, input_shapes or "
                            "default_dimension) to make the shape static", name, k, param);
        d->shape[k] = value;
    }
    return WNN_OK;
}

static wnn_status add_inputs(onx_importer *im)
{
    const Onnx__GraphProto *g = im->graph;
    const wnn_onnx_options *o = im->opt;
    im->input_names = calloc(g->n_input ? g->n_input : 1, sizeof *im->input_names);
    if (im->input_names == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < g->n_input; i++) {
        const Onnx__ValueInfoProto *vi = g->input[i];
        if (vi->name == NULL || vi->name[0] == '\0')
            return onx_fail(im, WNN_STATUS_OPERATION_ERROR, "graph input %zu has no name", i);
        if (is_initializer(g, vi->name)) /* IR < 4 lists initializers as inputs */
            continue;
        im->input_names[im->input_count++] = vi->name;
        const wnn_onnx_array *feed = NULL;
        for (size_t j = 0; o && j < o->constant_input_count; j++)
            if (o->constant_inputs[j].name && strcmp(o->constant_inputs[j].name, vi->name) == 0)
                feed = &o->constant_inputs[j];
        bool empty = feed != NULL && feed->byte_length == 0;
        wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
        wnn_status st = empty ? WNN_OK : input_shape(im, vi, &d);
        if (st != WNN_OK)
            return st;
        onx_value *v = onx_define(im, vi->name);
        if (v == NULL)
            return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        if (!empty) { /* an empty input can only be a bound constant (empty axes) */
            v->op = wnn_graph_builder_input(im->b, vi->name, &d);
            if (v->op == NULL)
                return onx_builder_failed(im);
            v->type = d.data_type;
            v->rank = d.rank;
            memcpy(v->shape, d.shape, sizeof v->shape);
        }
        for (size_t j = 0; o && j < o->constant_input_count; j++) {
            const wnn_onnx_array *a = &o->constant_inputs[j];
            if (a->name == NULL || strcmp(a->name, vi->name) != 0)
                continue;
            int64_t dims[WNN_MAX_RANK];
            for (uint32_t k = 0; k < a->rank; k++)
                dims[k] = a->shape[k];
            onx_const *c = onx_const_new(a->data_type, a->rank, dims);
            if (c == NULL)
                return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
            if (c->count * onx_type_size(c->type) != a->byte_length) {
                onx_const_free(c);
                return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "constant input '%s': %zu bytes for its shape",
                                a->name, a->byte_length);
            }
            if (a->byte_length)
                memcpy(c->data, a->data, a->byte_length);
            v->c = c;
            v->foldable = false;
            v->type = c->type;
            v->rank = c->rank;
        }
    }
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* The node walk                                                             */
/* ------------------------------------------------------------------------ */

static bool all_inputs_foldable(onx_importer *im, const Onnx__NodeProto *n)
{
    for (size_t i = 0; i < n->n_input; i++) {
        if (n->input[i] == NULL || n->input[i][0] == '\0')
            continue;
        onx_value *v = onx_lookup(im, n->input[i]);
        if (v == NULL || v->c == NULL || !v->foldable)
            return false;
    }
    return true;
}

/* Every input has a host value and at least one came from constant_inputs
** (else the node would have been folded). */
static bool all_inputs_known(onx_importer *im, const Onnx__NodeProto *n)
{
    for (size_t i = 0; i < n->n_input; i++) {
        onx_value *v = n->input[i] && n->input[i][0] ? onx_lookup(im, n->input[i]) : NULL;
        if (v != NULL && v->c == NULL)
            return false;
    }
    return !all_inputs_foldable(im, n);
}

/* A node over values bound by constant_inputs is lowered (the feed stays a
** graph input, so ONNX's test suite still runs the operator) and also
** evaluated on the host, so that what must be a constant downstream (a
** shape, an If's condition, a Loop's trip count) can follow from a bound
** input. A host evaluation that fails leaves the node as it was lowered. */
static void attach_known(onx_importer *im, const Onnx__NodeProto *n, onx_lower_fn fold)
{
    char message[sizeof im->message], last[sizeof last_message];
    memcpy(message, im->message, sizeof message);
    memcpy(last, last_message, sizeof last);
    im->attach_known = true;
    wnn_status st = fold(im, n);
    im->attach_known = false;
    if (st != WNN_OK) {
        im->status = WNN_OK;
        memcpy(im->message, message, sizeof message);
        memcpy(last_message, last, sizeof last);
    }
}

static wnn_status lower_node(onx_importer *im, const Onnx__NodeProto *n)
{
    const char *op = n->op_type ? n->op_type : "";
    const char *domain = n->domain ? n->domain : "";
    if (strcmp(domain, "ai.onnx.preview.training") == 0) { /* optimizer steps: arithmetic */
        onx_lower_fn step = onx_find_training(op);
        if (step == NULL)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "operator %s of ai.onnx.preview.training has no WebNN "
                            "lowering%s", op, strcmp(op, "Gradient") == 0 ? " (it needs the gradient graph)" : "");
        wnn_status st = step(im, n);
        if (st == WNN_OK && wnn_graph_builder_status(im->b) != WNN_OK)
            st = onx_builder_failed(im);
        return st;
    }
    if (domain[0] != '\0' && strcmp(domain, "ai.onnx") != 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "operators of domain '%s' are not supported", domain);
    for (size_t i = 0; i < n->n_input; i++)
        if (n->input[i] && n->input[i][0] && onx_lookup(im, n->input[i]) == NULL)
            return onx_fail(im, WNN_STATUS_OPERATION_ERROR, "input '%s' is produced by no earlier node",
                            n->input[i]);
    onx_lower_fn fold = onx_find_folding(op);
    bool shape_only = strcmp(op, "Shape") == 0 || strcmp(op, "Size") == 0 || strcmp(op, "EyeLike") == 0;
    if (fold != NULL && (shape_only || all_inputs_foldable(im, n))) {
        wnn_status st = fold(im, n);
        if (st != ONX_DECLINE)
            return st;
    }
    onx_lower_fn lower = onx_find_lowering(op);
    if (lower == NULL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "operator %s has no WebNN lowering", op);
    wnn_status st = lower(im, n);
    if (st == WNN_OK && wnn_graph_builder_status(im->b) != WNN_OK)
        st = onx_builder_failed(im);
    if (st == WNN_OK && fold != NULL && all_inputs_known(im, n))
        attach_known(im, n, fold);
    return st;
}

uint32_t onx_scope_enter(onx_importer *im) { return im->scope++; }

void onx_scope_leave(onx_importer *im, uint32_t depth)
{
    for (uint32_t i = 0; i < ONX_BUCKETS; i++) {
        for (onx_value **p = &im->buckets[i]; *p != NULL;) {
            onx_value *v = *p;
            if (v->scope <= depth) {
                p = &v->next;
                continue;
            }
            *p = v->next;
            onx_const_free(v->c);
            free(v->name);
            free(v);
        }
    }
    im->scope = depth;
}

wnn_status onx_subgraph_walk(onx_importer *im, const Onnx__GraphProto *g)
{
    const Onnx__NodeProto *outer = im->node;
    if (g->n_sparse_initializer > 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "sparse initializers are not supported");
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        const char *name = t->name ? t->name : "";
        if (onx_lookup(im, name) != NULL)
            return onx_fail(im, WNN_STATUS_OPERATION_ERROR, "subgraph initializer '%s' shadows an outer name", name);
        onx_const *c;
        wnn_status st = onx_tensor_decode(t, im->base_dir, &c);
        if (st != WNN_OK)
            return onx_fail(im, st, "subgraph initializer %zu: %s", i, last_message);
        onx_value *v = onx_define(im, name);
        if (v == NULL) {
            onx_const_free(c);
            return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        }
        v->c = c;
        v->foldable = true;
        v->type = c->type;
        v->rank = c->rank;
    }
    uint32_t outer_index = im->node_index;
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        im->node = n;
        im->node_index = (uint32_t)i;
        for (size_t k = 0; k < n->n_input; k++) { /* check mode: an outer producer failed */
            onx_value *v = n->input[k] && n->input[k][0] ? onx_lookup(im, n->input[k]) : NULL;
            if (v != NULL && v->poisoned)
                return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "input '%s' comes from a node that cannot be "
                                "lowered", v->name);
        }
        wnn_status st = lower_node(im, n);
        if (st != WNN_OK)
            return st;
    }
    im->node = outer;
    im->node_index = outer_index;
    return WNN_OK;
}

static void report_issue(onx_importer *im, uint32_t index, const Onnx__NodeProto *n, wnn_status st)
{
    im->issue_count++;
    if (im->on_issue != NULL) {
        wnn_onnx_issue is = {index,  n->name ? n->name : "", n->op_type ? n->op_type : "",
                             n->domain ? n->domain : "", im->opset, st, im->message};
        im->on_issue(&is, im->issue_user_data);
    }
}

static wnn_status walk_nodes(onx_importer *im)
{
    const Onnx__GraphProto *g = im->graph;
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        im->node = n;
        im->node_index = (uint32_t)i;
        bool poisoned = false;
        for (size_t k = 0; k < n->n_input && !poisoned; k++) {
            onx_value *v = n->input[k] && n->input[k][0] ? onx_lookup(im, n->input[k]) : NULL;
            poisoned = v != NULL && v->poisoned;
        }
        wnn_status st = poisoned ? WNN_STATUS_NOT_SUPPORTED : lower_node(im, n);
        if (st == WNN_OK)
            continue;
        if (!im->check)
            return st;
        /* after a failed producer only an operator with no lowering at all
        ** is worth a report: the rest would be echoes */
        const char *op = n->op_type ? n->op_type : "";
        if (poisoned && onx_find_lowering(op) == NULL && onx_find_folding(op) == NULL) {
            onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "operator %s has no WebNN lowering", op);
            poisoned = false;
        }
        if (!poisoned)
            report_issue(im, (uint32_t)i, n, st);
        wnn_graph_builder_clear_error(im->b);
        im->status = WNN_OK;
        for (size_t k = 0; k < n->n_output; k++) {
            onx_value *v = n->output[k] && n->output[k][0] ? onx_define(im, n->output[k]) : NULL;
            if (v != NULL)
                v->poisoned = true;
        }
    }
    im->node = NULL;
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                   */
/* ------------------------------------------------------------------------ */

static wnn_status find_opset(onx_importer *im)
{
    const Onnx__ModelProto *m = im->model;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[i];
        const char *d = o->domain ? o->domain : "";
        if (d[0] == '\0' || strcmp(d, "ai.onnx") == 0)
            im->opset = o->version;
        else if (strcmp(d, "com.microsoft") == 0)
            im->ms_opset = o->version;
        else if (strcmp(d, "ai.onnx.preview.training") == 0)
            im->training_opset = o->version;
    }
    if (im->opset == 0 && im->training_opset == 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "the model imports no version of the default ONNX opset, "
                        "only %s", m->n_opset_import && m->opset_import[0]->domain ? m->opset_import[0]->domain : "none");
    return WNN_OK;
}

/* Lowers every node and names the outputs; *outs gets one per graph output. */
static wnn_status import_graph(onx_importer *im, wnn_named_operand **outs)
{
    wnn_status st = find_opset(im);
    if (st == WNN_OK)
        st = add_initializers(im);
    if (st == WNN_OK)
        st = add_inputs(im);
    if (st == WNN_OK)
        st = walk_nodes(im);
    if (st != WNN_OK || im->check)
        return st;
    const Onnx__GraphProto *g = im->graph;
    if (g->n_output == 0)
        return onx_fail(im, WNN_STATUS_OPERATION_ERROR, "the graph has no outputs");
    wnn_named_operand *o = calloc(g->n_output, sizeof *o);
    if (o == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    *outs = o;
    for (size_t i = 0; i < g->n_output; i++) {
        const char *name = g->output[i]->name ? g->output[i]->name : "";
        onx_value *v = onx_lookup(im, name);
        if (v == NULL)
            return onx_fail(im, WNN_STATUS_OPERATION_ERROR, "graph output '%s' is produced by no node", name);
        wnn_operand *op = onx_operand(im, v);
        if (op == NULL)
            return im->status != WNN_OK ? im->status : onx_builder_failed(im);
        /* WebNN outputs must be computed by an operator, once each */
        bool repeated = v->c != NULL;
        for (size_t j = 0; j < im->input_count && !repeated; j++) {
            onx_value *in = onx_lookup(im, im->input_names[j]);
            repeated = in != NULL && in->op == op;
        }
        for (size_t j = 0; j < i && !repeated; j++)
            repeated = o[j].operand == op;
        if (repeated && (op = wnn_identity(im->b, op)) == NULL)
            return onx_builder_failed(im);
        o[i].name = name;
        o[i].operand = op;
    }
    return WNN_OK;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

static wnn_status import(wnn_context *ctx, const void *data, size_t size, const char *base_dir,
                         const wnn_onnx_options *opt, onx_importer *im, wnn_onnx_model **out)
{
    memset(im, 0, sizeof *im);
    last_message[0] = '\0';
    im->ctx = ctx;
    im->opt = opt;
    im->base_dir = base_dir;
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, size, data);
    if (m == NULL)
        return onx_fail(im, WNN_STATUS_OPERATION_ERROR,
                        "not a valid ONNX model: the protobuf is truncated or corrupt (%zu bytes)", size);
    wnn_status st = WNN_OK;
    if (m->graph == NULL || !m->has_ir_version)
        st = onx_fail(im, WNN_STATUS_OPERATION_ERROR, "not an ONNX model: no %s",
                      m->graph == NULL ? "graph" : "IR version");
    im->model = m;
    im->graph = m->graph;
    if (st == WNN_OK && (st = wnn_graph_builder_create(ctx, &im->b)) != WNN_OK)
        onx_fail(im, st, "cannot create a graph builder: %s", wnn_last_error_message());
    wnn_named_operand *outs = NULL;
    if (st == WNN_OK)
        st = import_graph(im, &outs);
    if (st == WNN_OK && !im->check)
        st = onx_model_create(ctx, im, outs, out);
    free(outs);
    free(im->input_names);
    onx_free_values(im);
    wnn_graph_builder_release(im->b);
    onnx__model_proto__free_unpacked(m, NULL);
    return st;
}

static bool check_args(wnn_context *ctx, const void *p, const char *fn, const char *what)
{
    if (ctx != NULL && p != NULL)
        return true;
    onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "%s: NULL %s", fn, ctx == NULL ? "context" : what);
    return false;
}

wnn_status wnn_onnx_model_load_memory(wnn_context *ctx, const void *data, size_t size,
                                      const wnn_onnx_options *options, wnn_onnx_model **out)
{
    if (out != NULL)
        *out = NULL;
    if (!check_args(ctx, out, "wnn_onnx_model_load_memory", "out") ||
        !check_args(ctx, data, "wnn_onnx_model_load_memory", "data"))
        return WNN_STATUS_INVALID_ARGUMENT;
    if (size > ONX_MAX_MODEL_BYTES) {
        onx_set_error(WNN_STATUS_NOT_SUPPORTED, "wnn_onnx_model_load_memory: %zu bytes, over ONNX's 2 GiB", size);
        return WNN_STATUS_NOT_SUPPORTED;
    }
    onx_importer im;
    return import(ctx, data, size, options && options->base_dir ? options->base_dir : ".", options, &im, out);
}

static wnn_status load_file(wnn_context *ctx, const char *path, const wnn_onnx_options *options, onx_importer *im,
                            wnn_onnx_model **out)
{
    void *data;
    size_t size;
    bool mapped;
    wnn_status st = onx_map_file(path, ONX_MAX_MODEL_BYTES, &data, &size, &mapped);
    if (st != WNN_OK)
        return st;
    char *dir = dir_of(path);
    if (dir == NULL) {
        onx_unmap_file(data, size, mapped);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    st = import(ctx, data, size, options && options->base_dir ? options->base_dir : dir, options, im, out);
    free(dir);
    onx_unmap_file(data, size, mapped);
    return st;
}

wnn_status wnn_onnx_model_load(wnn_context *ctx, const char *path, const wnn_onnx_options *options,
                               wnn_onnx_model **out)
{
    if (out != NULL)
        *out = NULL;
    if (!check_args(ctx, out, "wnn_onnx_model_load", "out") || !check_args(ctx, path, "wnn_onnx_model_load", "path"))
        return WNN_STATUS_INVALID_ARGUMENT;
    onx_importer im;
    return load_file(ctx, path, options, &im, out);
}

wnn_status wnn_onnx_check(wnn_context *ctx, const char *path, const wnn_onnx_options *options,
                          wnn_onnx_issue_callback callback, void *user_data, size_t *issue_count)
{
    if (issue_count != NULL)
        *issue_count = 0;
    if (!check_args(ctx, path, "wnn_onnx_check", "path"))
        return WNN_STATUS_INVALID_ARGUMENT;
    void *data;
    size_t size;
    bool mapped;
    wnn_status st = onx_map_file(path, ONX_MAX_MODEL_BYTES, &data, &size, &mapped);
    if (st != WNN_OK)
        return st;
    char *dir = dir_of(path);
    onx_importer *im = calloc(1, sizeof *im);
    if (dir == NULL || im == NULL) {
        free(dir);
        free(im);
        onx_unmap_file(data, size, mapped);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    /* import() clears im; the check fields are set through a template */
    onx_importer tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    last_message[0] = '\0';
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, size, data);
    if (m == NULL) {
        st = onx_fail(&tmpl, WNN_STATUS_OPERATION_ERROR,
                      "not a valid ONNX model: the protobuf is truncated or corrupt (%zu bytes)", size);
    } else if (m->graph == NULL) {
        st = onx_fail(&tmpl, WNN_STATUS_OPERATION_ERROR, "not an ONNX model: no graph");
    } else {
        im->ctx = ctx;
        im->opt = options;
        im->base_dir = options && options->base_dir ? options->base_dir : dir;
        im->model = m;
        im->graph = m->graph;
        im->check = true;
        im->on_issue = callback;
        im->issue_user_data = user_data;
        st = wnn_graph_builder_create(ctx, &im->b);
        if (st == WNN_OK) {
            wnn_named_operand *outs = NULL;
            st = import_graph(im, &outs);
            free(outs);
            if (st == WNN_OK && im->issue_count > 0) {
                st = WNN_STATUS_NOT_SUPPORTED;
                onx_set_error(st, "%zu node%s cannot be lowered to WebNN", im->issue_count,
                              im->issue_count == 1 ? "" : "s");
            }
        }
        if (issue_count != NULL)
            *issue_count = im->issue_count;
        free(im->input_names);
        onx_free_values(im);
        wnn_graph_builder_release(im->b);
    }
    if (m != NULL)
        onnx__model_proto__free_unpacked(m, NULL);
    free(im);
    free(dir);
    onx_unmap_file(data, size, mapped);
    return st;
}

static bool push_name(char ***list, uint32_t *count, const char *name, bool unique)
{
    for (uint32_t i = 0; unique && i < *count; i++)
        if (strcmp((*list)[i], name) == 0)
            return true;
    char **grown = realloc(*list, (*count + 1) * sizeof *grown);
    if (grown == NULL)
        return false;
    *list = grown;
    if ((grown[*count] = strdup(name)) == NULL)
        return false;
    (*count)++;
    return true;
}

wnn_status wnn_onnx_read_info(const char *path, wnn_onnx_info *out)
{
    if (path == NULL || out == NULL) {
        onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "wnn_onnx_read_info: NULL %s", path ? "out" : "path");
        return WNN_STATUS_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    void *data;
    size_t size;
    bool mapped;
    wnn_status st = onx_map_file(path, ONX_MAX_MODEL_BYTES, &data, &size, &mapped);
    if (st != WNN_OK)
        return st;
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, size, data);
    onx_unmap_file(data, size, mapped);
    if (m == NULL || m->graph == NULL) {
        if (m != NULL)
            onnx__model_proto__free_unpacked(m, NULL);
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "'%s' is not a valid ONNX model (truncated or corrupt)", path);
        return WNN_STATUS_OPERATION_ERROR;
    }
    const Onnx__GraphProto *g = m->graph;
    bool ok = true;
    for (size_t i = 0; ok && i < g->n_input; i++) {
        const char *name = g->input[i]->name ? g->input[i]->name : "";
        if (!is_initializer(g, name))
            ok = push_name(&out->inputs, &out->input_count, name, false);
    }
    for (size_t i = 0; ok && i < g->n_output; i++)
        ok = push_name(&out->outputs, &out->output_count, g->output[i]->name ? g->output[i]->name : "", false);
    for (size_t i = 0; ok && i < g->n_node; i++)
        ok = push_name(&out->op_types, &out->op_type_count, g->node[i]->op_type ? g->node[i]->op_type : "", true);
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const char *d = m->opset_import[i]->domain ? m->opset_import[i]->domain : "";
        if (d[0] == '\0' || strcmp(d, "ai.onnx") == 0)
            out->opset = m->opset_import[i]->version;
    }
    onnx__model_proto__free_unpacked(m, NULL);
    if (!ok) {
        wnn_onnx_info_free(out);
        onx_set_error(WNN_STATUS_OUT_OF_MEMORY, "wnn_onnx_read_info: out of memory");
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    return WNN_OK;
}

static void free_names(char **names, uint32_t count)
{
    for (uint32_t i = 0; names != NULL && i < count; i++)
        free(names[i]);
    free(names);
}

void wnn_onnx_info_free(wnn_onnx_info *info)
{
    if (info == NULL)
        return;
    free_names(info->inputs, info->input_count);
    free_names(info->outputs, info->output_count);
    free_names(info->op_types, info->op_type_count);
    memset(info, 0, sizeof *info);
}
