/*
** ops_control.c -- ONNX control flow on a static WebNN graph. If inlines the
** branch its condition takes when the condition is known at import (an
** initializer, a folded computation, or a value bound by constant_inputs);
** otherwise both branches are lowered and where selects each output. Loop
** with a trip count (or a condition) known at import and Scan, whose length
** is a static dimension, are unrolled: the body is lowered once per step.
** Subgraphs see the names of the scopes around them; what a subgraph defines
** is forgotten when it ends (onx_scope_leave), so a body's values outlive it
** only as the slots below.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* Steps of an unrolled Loop or Scan at most: each adds the body's operators
** to the graph once more. */
#define ONX_MAX_UNROLL 4096

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

/* ---- Loop and Scan, unrolled ---- */

static wnn_status slot_scalar(onx_importer *im, slot *s, wnn_data_type type, int64_t v)
{
    onx_const_free(s->c);
    memset(s, 0, sizeof *s);
    if ((s->c = onx_const_new(type, 0, NULL)) == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    onx_set_i64(s->c, 0, v);
    s->foldable = true;
    return WNN_OK;
}

/* Moves src into dst (dst's host value is freed, src is left empty). */
static void slot_move(slot *dst, slot *src)
{
    onx_const_free(dst->c);
    *dst = *src;
    memset(src, 0, sizeof *src);
}

/* Defines the subgraph input name as the slot's value. */
static wnn_status bind(onx_importer *im, const char *name, const slot *s)
{
    if (name == NULL || name[0] == '\0')
        return WNN_OK;
    if (onx_lookup(im, name) != NULL)
        return onx_fail(im, WNN_STATUS_OPERATION_ERROR, "body input '%s' shadows an outer name", name);
    onx_value *v = onx_define(im, name);
    if (v == NULL || (s->c != NULL && (v->c = onx_const_copy(s->c)) == NULL))
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    v->op = s->op;
    v->foldable = s->foldable;
    if (s->op != NULL) {
        wnn_operand_desc d;
        wnn_operand_get_desc(s->op, &d);
        v->type = d.data_type;
        v->rank = d.rank;
        memcpy(v->shape, d.shape, sizeof v->shape);
    } else {
        v->type = s->c->type;
        v->rank = s->c->rank;
        for (uint32_t k = 0; k < s->c->rank; k++)
            v->shape[k] = (uint32_t)s->c->dims[k];
    }
    return WNN_OK;
}

/* One step: the body's inputs bound to ins, its outputs taken into outs. */
static wnn_status run_body(onx_importer *im, const Onnx__NodeProto *n, const Onnx__GraphProto *g, const slot *ins,
                           slot *outs)
{
    uint32_t depth = onx_scope_enter(im);
    wnn_status st = WNN_OK;
    for (size_t i = 0; st == WNN_OK && i < g->n_input; i++)
        st = bind(im, g->input[i]->name, &ins[i]);
    if (st == WNN_OK)
        st = walk_subgraph(im, n, "body", g, outs);
    onx_scope_leave(im, depth);
    return st;
}

/* The steps' values stacked along a new axis (reversed when asked). */
static wnn_operand *stack(onx_importer *im, slot *steps, size_t count, size_t stride, int64_t axis, bool reverse,
                          const char *name)
{
    wnn_operand **ops = calloc(count, sizeof *ops);
    if (ops == NULL) {
        onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    wnn_operand *out = NULL;
    wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
    for (size_t t = 0; t < count; t++) {
        wnn_operand *x = slot_operand(im, &steps[t * stride], name);
        if (x == NULL)
            goto done;
        wnn_operand_desc dt;
        wnn_operand_get_desc(x, &dt);
        if (t == 0)
            d = dt;
        if (dt.rank != d.rank || memcmp(dt.shape, d.shape, sizeof d.shape) != 0 || dt.data_type != d.data_type) {
            onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "scan output '%s' changes its type or shape between steps", name);
            goto done;
        }
        if (d.rank + 1 > WNN_MAX_RANK || axis < -(int64_t)d.rank - 1 || axis > (int64_t)d.rank) {
            onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "scan output '%s': axis %lld of rank %u", name, (long long)axis,
                     d.rank + 1);
            goto done;
        }
        uint32_t a = (uint32_t)(axis < 0 ? axis + d.rank + 1 : axis), shape[WNN_MAX_RANK];
        for (uint32_t k = 0, j = 0; k <= d.rank; k++)
            shape[k] = k == a ? 1 : d.shape[j++];
        ops[reverse ? count - 1 - t : t] = wnn_reshape(im->b, x, d.rank + 1, shape);
        if (ops[reverse ? count - 1 - t : t] == NULL) {
            onx_builder_failed(im);
            goto done;
        }
        if (t + 1 == count)
            out = count == 1 ? ops[0] : wnn_concat(im->b, ops, count, a);
    }
    if (out == NULL && im->status == WNN_OK)
        onx_builder_failed(im);
done:
    free(ops);
    return out;
}

static wnn_status loop_known(onx_importer *im, onx_value *v, const char *what, int64_t *out)
{
    if (v->c == NULL || v->c->count != 1)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "the %s ('%s') must be one value known at import: a WebNN "
                        "graph holds a Loop only unrolled", what, v->name);
    *out = onx_type_is_float(v->c->type) ? (onx_get_f64(v->c, 0) != 0) : onx_get_i64(v->c, 0);
    return WNN_OK;
}

/* Loop: M (trip count) and cond, both optional, then the loop-carried
** values; the body maps (iteration, cond, carried...) to (cond, carried...,
** scan outputs...), and the scan outputs are stacked along a new axis 0. */
static wnn_status lower_loop(onx_importer *im, const Onnx__NodeProto *n)
{
    const Onnx__GraphProto *g = graph_attr(n, "body");
    if (g == NULL)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the body attribute is missing");
    size_t nv = n->n_input > 2 ? n->n_input - 2 : 0;
    if (n->n_input < 2 || g->n_input != nv + 2 || g->n_output < nv + 1 || n->n_output > g->n_output - 1)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the body takes %zu inputs and gives %zu outputs for %zu "
                        "loop-carried values", g->n_input, g->n_output, nv);
    size_t ns = g->n_output - 1 - nv;
    onx_value *mv = onx_in(im, n, 0), *cv = onx_in(im, n, 1);
    int64_t trips = -1, go = 1;
    if (mv != NULL && loop_known(im, mv, "trip count", &trips) != WNN_OK)
        return im->status;
    if (cv != NULL && loop_known(im, cv, "condition", &go) != WNN_OK)
        return im->status;
    if (mv == NULL && cv == NULL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a Loop with neither trip count nor condition never ends");
    if (trips > ONX_MAX_UNROLL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%lld iterations: at most %d are unrolled",
                        (long long)trips, ONX_MAX_UNROLL);
    slot *ins = calloc(g->n_input + g->n_output, sizeof *ins), *outs = ins + g->n_input, *steps = NULL;
    if (ins == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    wnn_status st = WNN_OK;
    for (size_t i = 0; st == WNN_OK && i < nv; i++) {
        onx_value *v = onx_in(im, n, 2 + i);
        st = v == NULL ? onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "loop-carried input %zu is missing", i)
                       : slot_take(im, &ins[2 + i], v);
    }
    int64_t it = 0;
    for (; st == WNN_OK && go && (trips < 0 || it < trips); it++) {
        if (it == ONX_MAX_UNROLL) {
            st = onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "still running after %d iterations: at most that many "
                          "are unrolled", ONX_MAX_UNROLL);
            break;
        }
        slot *grown = ns ? realloc(steps, (size_t)(it + 1) * ns * sizeof *steps) : steps;
        if (ns && grown == NULL) {
            st = onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
            break;
        }
        steps = grown;
        memset(steps + (size_t)it * ns, 0, ns * sizeof *steps);
        st = slot_scalar(im, &ins[0], WNN_DATA_TYPE_INT64, it);
        if (st == WNN_OK)
            st = slot_scalar(im, &ins[1], WNN_DATA_TYPE_UINT8, 1);
        if (st == WNN_OK)
            st = run_body(im, n, g, ins, outs);
        if (st != WNN_OK)
            break;
        bool last = trips >= 0 && it + 1 == trips;
        if (outs[0].c != NULL && outs[0].c->count == 1)
            go = onx_get_f64(outs[0].c, 0) != 0;
        else if (!last)
            st = onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "the body's condition is not known at import after "
                          "iteration %lld: a WebNN graph holds a Loop only unrolled", (long long)it);
        for (size_t i = 0; i < nv; i++)
            slot_move(&ins[2 + i], &outs[1 + i]);
        for (size_t k = 0; k < ns; k++)
            slot_move(&steps[(size_t)it * ns + k], &outs[1 + nv + k]);
    }
    for (size_t i = 0; st == WNN_OK && i < nv && i < n->n_output; i++)
        st = slot_out(im, n, i, &ins[2 + i]);
    for (size_t k = 0; st == WNN_OK && nv + k < n->n_output; k++) {
        const char *name = n->output[nv + k] ? n->output[nv + k] : "";
        if (name[0] == '\0')
            continue;
        if (it == 0) {
            st = onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "the Loop runs 0 times, so scan output '%s' is empty: "
                          "WebNN has no empty tensors", name);
            break;
        }
        st = onx_out(im, n, nv + k, stack(im, steps + k, (size_t)it, ns, 0, false, name));
    }
    slots_free(steps, (size_t)it * ns);
    slots_free(ins, g->n_input + g->n_output);
    return st;
}

/* Step t of x along axis, the axis dropped. */
static wnn_operand *scan_step(onx_importer *im, wnn_operand *x, uint32_t axis, uint32_t t)
{
    wnn_operand_desc d;
    wnn_operand_get_desc(x, &d);
    uint32_t starts[WNN_MAX_RANK] = {0}, sizes[WNN_MAX_RANK], shape[WNN_MAX_RANK];
    for (uint32_t k = 0, j = 0; k < d.rank; k++) {
        sizes[k] = k == axis ? 1 : d.shape[k];
        if (k != axis)
            shape[j++] = d.shape[k];
    }
    starts[axis] = t;
    wnn_operand *s = wnn_slice(im->b, x, starts, sizes, NULL);
    return s ? wnn_reshape(im->b, s, d.rank - 1, shape) : NULL;
}

typedef struct scan_spec {
    size_t nst, nin, nout;       /* states, scan inputs, scan outputs */
    int64_t in_axis[WNN_MAX_RANK * 4], in_rev[WNN_MAX_RANK * 4];
    int64_t out_axis[WNN_MAX_RANK * 4], out_rev[WNN_MAX_RANK * 4];
} scan_spec;

/* The scan over xs (one sequence, no batch): states in st are updated,
** scan output k is stacked into outs[k]. */
static wnn_status scan_run(onx_importer *im, const Onnx__NodeProto *n, const Onnx__GraphProto *g,
                           const scan_spec *sp, slot *states, wnn_operand **xs, wnn_operand **outs)
{
    uint32_t len = 0;
    uint32_t axes[WNN_MAX_RANK * 4];
    for (size_t j = 0; j < sp->nin; j++) {
        wnn_operand_desc d;
        wnn_operand_get_desc(xs[j], &d);
        int64_t a = sp->in_axis[j];
        if (a < -(int64_t)d.rank || a >= (int64_t)d.rank)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "scan input %zu: axis %lld of rank %u", j,
                            (long long)a, d.rank);
        axes[j] = (uint32_t)(a < 0 ? a + d.rank : a);
        if (j > 0 && d.shape[axes[j]] != len)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "scan input %zu has %u steps, input 0 %u", j,
                            d.shape[axes[j]], len);
        len = d.shape[axes[j]];
    }
    if (len > ONX_MAX_UNROLL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%u steps: at most %d are unrolled", len, ONX_MAX_UNROLL);
    slot *ins = calloc(g->n_input + g->n_output + (size_t)len * sp->nout + 1, sizeof *ins);
    if (ins == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    slot *o = ins + g->n_input, *steps = o + g->n_output;
    wnn_status st = WNN_OK;
    for (size_t i = 0; i < sp->nst; i++)
        slot_move(&ins[i], &states[i]);
    for (uint32_t t = 0; st == WNN_OK && t < len; t++) {
        for (size_t j = 0; st == WNN_OK && j < sp->nin; j++) {
            onx_const_free(ins[sp->nst + j].c);
            memset(&ins[sp->nst + j], 0, sizeof *ins);
            ins[sp->nst + j].op = scan_step(im, xs[j], axes[j], sp->in_rev[j] ? len - 1 - t : t);
            if (ins[sp->nst + j].op == NULL)
                st = im->status != WNN_OK ? im->status : onx_builder_failed(im);
        }
        if (st == WNN_OK)
            st = run_body(im, n, g, ins, o);
        for (size_t i = 0; st == WNN_OK && i < sp->nst; i++)
            slot_move(&ins[i], &o[i]);
        for (size_t k = 0; st == WNN_OK && k < sp->nout; k++)
            slot_move(&steps[(size_t)t * sp->nout + k], &o[sp->nst + k]);
    }
    for (size_t i = 0; i < sp->nst; i++)
        slot_move(&states[i], &ins[i]);
    for (size_t k = 0; st == WNN_OK && k < sp->nout; k++) {
        const char *name = g->output[sp->nst + k]->name ? g->output[sp->nst + k]->name : "";
        if (len == 0) {
            st = onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "0 steps: scan output '%s' is empty, WebNN has no empty "
                          "tensors", name);
            break;
        }
        outs[k] = stack(im, steps + k, len, sp->nout, sp->out_axis[k], sp->out_rev[k] != 0, name);
        if (outs[k] == NULL)
            st = im->status != WNN_OK ? im->status : onx_builder_failed(im);
    }
    slots_free(ins, g->n_input + g->n_output + (size_t)len * sp->nout + 1);
    return st;
}

static void scan_attr(const Onnx__NodeProto *n, const char *name, int64_t *out, size_t count, int64_t dflt)
{
    for (size_t i = 0; i < count; i++)
        out[i] = dflt;
    int64_t v[WNN_MAX_RANK * 4];
    int k = onx_attr_ints(n, name, v, WNN_MAX_RANK * 4);
    for (int i = 0; i < k && (size_t)i < count && i < WNN_MAX_RANK * 4; i++)
        out[i] = v[i];
}

/* Opset 8's Scan: every state and sequence has a batch axis first; each
** entry is scanned alone and its states and scan outputs stacked again. */
static wnn_status scan_batched(onx_importer *im, const Onnx__NodeProto *n, const Onnx__GraphProto *g,
                               const scan_spec *sp, slot *states, wnn_operand **xs)
{
    wnn_operand *first = sp->nst ? slot_operand(im, &states[0], "state 0") : xs[0];
    if (first == NULL)
        return im->status != WNN_OK ? im->status : onx_builder_failed(im);
    wnn_operand_desc d;
    wnn_operand_get_desc(first, &d);
    if (d.rank == 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "opset 8's Scan needs a batch axis");
    uint32_t batch = d.shape[0];
    size_t per = sp->nst + sp->nout;
    slot *res = calloc((size_t)batch * per + sp->nst + 1, sizeof *res), *st_b = res + (size_t)batch * per;
    wnn_operand **xs_b = calloc(sp->nin + sp->nout + 1, sizeof *xs_b), **outs_b = xs_b ? xs_b + sp->nin : NULL;
    wnn_status st = res && xs_b ? WNN_OK : onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    for (uint32_t b = 0; st == WNN_OK && b < batch; b++) {
        for (size_t i = 0; st == WNN_OK && i < sp->nst; i++) {
            wnn_operand *x = slot_operand(im, &states[i], "state");
            onx_const_free(st_b[i].c);
            memset(&st_b[i], 0, sizeof st_b[i]);
            st_b[i].op = x ? scan_step(im, x, 0, b) : NULL;
        }
        for (size_t j = 0; j < sp->nin; j++)
            xs_b[j] = scan_step(im, xs[j], 0, b);
        for (size_t i = 0; i < sp->nst; i++)
            if (st_b[i].op == NULL)
                st = im->status != WNN_OK ? im->status : onx_builder_failed(im);
        for (size_t j = 0; j < sp->nin; j++)
            if (xs_b[j] == NULL)
                st = im->status != WNN_OK ? im->status : onx_builder_failed(im);
        if (st == WNN_OK)
            st = scan_run(im, n, g, sp, st_b, xs_b, outs_b);
        for (size_t i = 0; st == WNN_OK && i < sp->nst; i++)
            slot_move(&res[(size_t)b * per + i], &st_b[i]);
        for (size_t k = 0; st == WNN_OK && k < sp->nout; k++)
            res[(size_t)b * per + sp->nst + k].op = outs_b[k];
    }
    for (size_t k = 0; st == WNN_OK && k < per; k++) {
        const char *name = g->output[k]->name ? g->output[k]->name : "";
        wnn_operand *y = stack(im, res + k, batch, per, 0, false, name);
        st = onx_out(im, n, k, y);
    }
    slots_free(res, (size_t)batch * per + sp->nst + 1);
    free(xs_b);
    return st;
}

/* Scan: the states, then num_scan_inputs sequences; the body maps (states...,
** one step of each sequence...) to (states..., scan outputs...). Opset 8
** puts a batch axis first (and sequence_lens, which must be absent): each
** batch entry is scanned alone and the results stacked. */
static wnn_status lower_scan(onx_importer *im, const Onnx__NodeProto *n)
{
    const Onnx__GraphProto *g = graph_attr(n, "body");
    if (g == NULL)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the body attribute is missing");
    bool batched = im->opset < 9;
    size_t first = batched ? 1 : 0;
    if (batched && onx_in(im, n, 0) != NULL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "sequence_lens (sequences of several lengths in one batch) "
                        "is not supported");
    int64_t m = onx_attr_int(n, "num_scan_inputs", -1);
    size_t nin = n->n_input > first ? n->n_input - first : 0;
    if (m < 1 || (size_t)m > nin || g->n_input != nin || g->n_output < nin - (size_t)m ||
        n->n_output != g->n_output || g->n_output - (nin - (size_t)m) > WNN_MAX_RANK * 4 ||
        (size_t)m > WNN_MAX_RANK * 4)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "num_scan_inputs %lld does not fit %zu inputs, a body of "
                        "%zu inputs and %zu outputs", (long long)m, nin, g->n_input, g->n_output);
    scan_spec sp;
    sp.nin = (size_t)m;
    sp.nst = nin - sp.nin;
    sp.nout = g->n_output - sp.nst;
    scan_attr(n, batched ? "directions" : "scan_input_directions", sp.in_rev, sp.nin, 0);
    scan_attr(n, "scan_input_axes", sp.in_axis, sp.nin, 0);
    scan_attr(n, "scan_output_axes", sp.out_axis, sp.nout, 0);
    scan_attr(n, "scan_output_directions", sp.out_rev, sp.nout, 0);
    size_t count = nin + 2 * n->n_output;
    slot *states = calloc(count + 1, sizeof *states);
    wnn_operand **xs = calloc(nin + sp.nout + 1, sizeof *xs), **outs = xs ? xs + nin : NULL;
    if (states == NULL || xs == NULL) {
        free(states);
        free(xs);
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    }
    wnn_status st = WNN_OK;
    for (size_t i = 0; st == WNN_OK && i < nin; i++) {
        onx_value *v = onx_in(im, n, first + i);
        if (v == NULL)
            st = onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "input %zu is missing", first + i);
        else if (i < sp.nst)
            st = slot_take(im, &states[i], v);
        else if ((xs[i - sp.nst] = onx_operand(im, v)) == NULL)
            st = im->status != WNN_OK ? im->status : onx_builder_failed(im);
    }
    if (st == WNN_OK && !batched) {
        st = scan_run(im, n, g, &sp, states, xs, outs);
        for (size_t i = 0; st == WNN_OK && i < sp.nst; i++)
            st = slot_out(im, n, i, &states[i]);
        for (size_t k = 0; st == WNN_OK && k < sp.nout; k++)
            st = onx_out(im, n, sp.nst + k, outs[k]);
    } else if (st == WNN_OK) {
        st = scan_batched(im, n, g, &sp, states, xs);
    }
    slots_free(states, count + 1);
    free(xs);
    return st;
}

const onx_op_entry onx_ops_control[] = {
    {"If", lower_if},
    {"Loop", lower_loop},
    {"Scan", lower_scan},
    {NULL, NULL},
};
