/* SPDX-License-Identifier: Apache-2.0 */
/*
** attention.c -- finds attention chains (attention.h) in an IR.
**
** The search starts at each softmax over the last axis and walks back
** through the add of a mask and the scalings to the first matmul, then
** forward to the matmul with v. Each value met on the way must be read by
** the chain alone, so that skipping the nodes that computed it loses
** nothing: the chain's last node then computes o (or its transpose) from
** q, kt, v and the mask directly.
*/
#include "backends/attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "core/shape.h"
#include "platform/config.h"

typedef struct walk {
    const wnn__ir *ir;
    const uint32_t *reads; /* per value: node inputs naming it */
    const bool *is_output; /* per value */
    bool *used;            /* per node: taken, or in a chain found */
    bool views;            /* operands may be views of slices */
    wnn__attention *a;     /* the chain being built */
} walk;

/* The node computing v, if v is a node's only output, read once (by the
** chain), no graph output, and the node is free; else NULL. */
static const wnn__node *producer(const walk *w, uint32_t v, uint32_t *at)
{
    const wnn__value *val = &w->ir->values[v];
    if (val->kind != WNN__VALUE_NODE || w->reads[v] != 1 || w->is_output[v] || w->used[val->index])
        return NULL;
    const wnn__node *n = &w->ir->nodes[val->index];
    if (n->n_out != 1)
        return NULL;
    *at = val->index;
    return n;
}

static bool add_node(walk *w, uint32_t n)
{
    if (w->a->n_nodes == WNN__ATTENTION_MAX_NODES)
        return false;
    w->a->nodes[w->a->n_nodes++] = n;
    return true;
}

/* If v is x * c, c * x or x / c (divide only when may_divide) with c a
** scalar constant, multiplies *scale by c (or 1/c) and returns x; else v. */
static uint32_t peel_scale(walk *w, uint32_t v, bool may_divide, double *scale)
{
    uint32_t at;
    const wnn__node *n = producer(w, v, &at);
    if (!n || (n->op != WNN__OP_MUL && !(may_divide && n->op == WNN__OP_DIV)))
        return v;
    double c1 = wnn__ir_scalar(w->ir, n->in[1]), c0 = n->op == WNN__OP_MUL ? wnn__ir_scalar(w->ir, n->in[0]) : NAN;
    uint32_t x;
    double c;
    if (!isnan(c1) && c1 != 0) {
        x = n->in[0];
        c = n->op == WNN__OP_DIV ? 1.0 / c1 : c1;
    } else if (!isnan(c0)) {
        x = n->in[1];
        c = c0;
    } else {
        return v;
    }
    const wnn_operand_desc *xd = &w->ir->values[x].desc, *vd = &w->ir->values[v].desc;
    if (xd->rank != vd->rank || memcmp(xd->shape, vd->shape, vd->rank * sizeof *vd->shape) != 0 || !add_node(w, at))
        return v;
    *scale *= c;
    return x;
}

static void contiguous(const wnn_operand_desc *d, size_t *stride)
{
    size_t step = 1;
    for (uint32_t i = d->rank; i-- > 0;) {
        stride[i] = step;
        step *= d->shape[i];
    }
}

/* Strides for new_shape over the elements that old_shape walks with
** old_stride (a view), if one exists: each run of old dimensions that is
** contiguous within itself may be split or merged, nothing else. */
static bool view_strides(const wnn_operand_desc *old, const size_t *old_stride, const wnn_operand_desc *now,
                         size_t *stride)
{
    if (old->rank == 0 || now->rank == 0)
        return false;
    int v = (int)now->rank - 1;
    size_t base = old_stride[old->rank - 1], old_n = 1, new_n = 1;
    for (int d = (int)old->rank - 1; d >= 0; d--) {
        old_n *= old->shape[d];
        bool run_ends = d == 0 || (old->shape[d - 1] != 1 && old_stride[d - 1] != old_n * base);
        if (!run_ends)
            continue;
        while (v >= 0 && (new_n < old_n || now->shape[v] == 1)) {
            stride[v] = new_n * base;
            new_n *= now->shape[v];
            v--;
        }
        if (new_n != old_n)
            return false;
        if (d > 0) {
            base = old_stride[d - 1];
            old_n = new_n = 1;
        }
    }
    return v == -1;
}

/* If the backend reads views and value x is a slice (with unit steps), or
** a reshape of one that a view expresses, read by the chain alone: the
** slice's input, the element offset and x's strides in it. */
static bool slice_view(walk *w, uint32_t x, uint32_t *value, size_t *offset, size_t *stride)
{
    if (!w->views)
        return false;
    uint32_t at_r, at_s;
    const wnn__node *r = producer(w, x, &at_r), *sl = r;
    if (r && r->op == WNN__OP_RESHAPE && r->in[0] != WNN__NONE)
        sl = producer(w, r->in[0], &at_s);
    else
        at_s = at_r, r = NULL;
    if (!sl || sl->op != WNN__OP_SLICE || sl->in[0] == WNN__NONE)
        return false;
    const wnn_operand_desc *in = &w->ir->values[sl->in[0]].desc, *sd = &w->ir->values[sl->out[0]].desc;
    size_t cs[WNN_MAX_RANK], ss[WNN_MAX_RANK], off = 0;
    contiguous(in, cs);
    for (uint32_t i = 0; i < in->rank; i++) {
        if (sl->attrs.slice.strides[i] != 1)
            return false;
        off += (size_t)sl->attrs.slice.starts[i] * cs[i];
        ss[i] = cs[i];
    }
    if (r ? !view_strides(sd, ss, &w->ir->values[x].desc, stride) : false)
        return false;
    if (!r)
        memcpy(stride, ss, in->rank * sizeof *stride);
    uint32_t kept = w->a->n_nodes;
    if ((r && !add_node(w, at_r)) || !add_node(w, at_s)) {
        w->a->n_nodes = kept;
        return false;
    }
    *value = sl->in[0];
    *offset = off;
    return true;
}

#define OPERAND_PATH 8 /* transposes and reshapes looked through below an operand */

/* o reads value v of the chain's rank. The transposes and reshapes that
** produce v, each read by the chain alone, become strides over the value
** below them, as far down as views express them (a reshape may only split
** or merge runs that are contiguous in the strides so far): PyTorch's
** multi-head attention cuts the heads out of a projection as reshape,
** transpose, reshape. Below those, a slice view (slice_view) gives an
** offset and strides in the slice's input. */
static bool operand(walk *w, uint32_t v, wnn__attention_operand *o)
{
    const wnn__node *path[OPERAND_PATH];
    uint32_t at[OPERAND_PATH];
    int np = 0;
    for (uint32_t cur = v; np < OPERAND_PATH; np++) {
        const wnn__node *t = producer(w, cur, &at[np]);
        if (!t || (t->op != WNN__OP_TRANSPOSE && t->op != WNN__OP_RESHAPE) || t->in[0] == WNN__NONE)
            break;
        path[np] = t;
        cur = t->in[0];
    }
    const uint32_t kept = w->a->n_nodes;
    /* the longest path a view expresses: path[0] produces v, path[k] the
    ** input of path[k - 1]; with top 0 v is read as it is */
    for (int top = np; top >= 0; top--) {
        w->a->n_nodes = kept;
        uint32_t base_value = top == 0 ? v : path[top - 1]->in[0];
        size_t s[WNN_MAX_RANK], next[WNN_MAX_RANK];
        o->offset = 0;
        o->value = base_value;
        if (!slice_view(w, base_value, &o->value, &o->offset, s))
            contiguous(&w->ir->values[base_value].desc, s);
        bool ok = true;
        for (int k = top - 1; k >= 0 && ok; k--) {
            const wnn__node *t = path[k];
            const wnn_operand_desc *in = &w->ir->values[t->in[0]].desc, *out = &w->ir->values[t->out[0]].desc;
            if (t->op == WNN__OP_TRANSPOSE)
                for (uint32_t i = 0; i < out->rank; i++)
                    next[i] = s[t->attrs.transpose.perm[i]];
            else
                ok = view_strides(in, s, out, next);
            memcpy(s, next, sizeof s);
        }
        for (int k = 0; k < top && ok; k++)
            ok = add_node(w, at[k]);
        if (!ok)
            continue;
        memcpy(o->stride, s, sizeof o->stride);
        return true;
    }
    w->a->n_nodes = kept;
    return false;
}

/* Aligns operand o (of shape d, strides over d's axes) right against the
** chain's rank: missing axes and axes of size 1 get stride 0 (broadcast);
** the batch axes must otherwise match the chain's. */
static bool align(const wnn__attention *a, const wnn_operand_desc *d, wnn__attention_operand *o)
{
    uint32_t r = d->rank, R = a->rank;
    if (r > R)
        return false;
    size_t s[WNN_MAX_RANK];
    memcpy(s, o->stride, sizeof s);
    for (uint32_t i = 0; i < R; i++) {
        uint32_t dim = i + r < R ? 1 : d->shape[i + r - R];
        if (i + 2 < R && dim != 1 && dim != a->batch[i])
            return false;
        o->stride[i] = dim == 1 ? 0 : s[i + r - R];
    }
    return true;
}

static bool is_float(wnn_data_type t) { return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16; }

/* Builds the chain ending in the softmax node sm; false when it is none. */
static bool match(walk *w, uint32_t sm)
{
    const wnn__ir *ir = w->ir;
    wnn__attention *a = w->a;
    memset(a, 0, sizeof *a);
    const wnn__node *soft = &ir->nodes[sm];
    uint32_t sv = soft->in[0];
    const wnn_operand_desc *sd = &ir->values[sv].desc;
    if (soft->op != WNN__OP_SOFTMAX || sd->rank < 2 || soft->attrs.axis.axis != sd->rank - 1 ||
        !is_float(sd->data_type) || !add_node(w, sm))
        return false;
    a->type = sd->data_type;
    a->rank = sd->rank;
    a->batches = 1;
    for (uint32_t i = 0; i + 2 < a->rank; i++)
        a->batches *= a->batch[i] = sd->shape[i];
    a->m = sd->shape[a->rank - 2];
    a->n = sd->shape[a->rank - 1];

    double scale = 1.0;
    uint32_t at, s = peel_scale(w, sv, true, &scale);
    const wnn__node *add = producer(w, s, &at);
    if (add && add->op == WNN__OP_ADD) {
        if (scale != 1.0) /* softmax((s + mask) * c) scales the mask too */
            return false;
        /* the scores are the operand that comes from a matmul, maybe scaled */
        for (uint32_t side = 0; side < 2 && !a->has_mask; side++) {
            uint32_t x = add->in[side], mask = add->in[1 - side], mat;
            uint32_t kept = a->n_nodes;
            double sc = scale;
            uint32_t y = peel_scale(w, x, true, &sc);
            const wnn__node *mm = producer(w, y, &mat);
            const wnn_operand_desc *md = &ir->values[mask].desc, *xd = &ir->values[x].desc;
            if (mm && mm->op == WNN__OP_MATMUL && x != mask && md->data_type == a->type &&
                wnn__broadcastable_to(md, xd) && xd->rank == a->rank &&
                memcmp(xd->shape, sd->shape, a->rank * sizeof *sd->shape) == 0 && add_node(w, at)) {
                a->has_mask = true;
                a->mask.value = mask;
                contiguous(md, a->mask.stride);
                s = y;
                scale = sc;
            } else {
                a->n_nodes = kept;
            }
        }
        if (!a->has_mask)
            return false;
    }
    s = peel_scale(w, s, true, &scale);
    uint32_t mm1;
    const wnn__node *first = producer(w, s, &mm1);
    if (!first || first->op != WNN__OP_MATMUL || !add_node(w, mm1))
        return false;
    uint32_t q = peel_scale(w, first->in[0], true, &scale);
    uint32_t kt = peel_scale(w, first->in[1], true, &scale);
    if (!operand(w, q, &a->q) || !operand(w, kt, &a->kt))
        return false;

    /* forward: p read by the second matmul alone, as its left operand */
    uint32_t p = soft->out[0], mm2 = UINT32_MAX;
    if (w->reads[p] != 1 || w->is_output[p])
        return false;
    for (uint32_t n = sm + 1; n < ir->n_nodes && mm2 == UINT32_MAX; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] == p)
                mm2 = n;
    if (mm2 == UINT32_MAX || w->used[mm2] || ir->nodes[mm2].op != WNN__OP_MATMUL || ir->nodes[mm2].in[0] != p ||
        !add_node(w, mm2))
        return false;
    const wnn__node *second = &ir->nodes[mm2];
    uint32_t ov = second->out[0];
    const wnn_operand_desc *od = &ir->values[ov].desc;
    if (od->rank != a->rank || memcmp(od->shape, sd->shape, (a->rank - 2) * sizeof *sd->shape) != 0 ||
        od->data_type != a->type || !operand(w, second->in[1], &a->v))
        return false;
    a->e = od->shape[a->rank - 1];
    a->last = mm2;

    /* o read by a transpose alone: write that transpose's result */
    a->out.value = ov;
    contiguous(od, a->out.stride);
    uint32_t tn = UINT32_MAX, reads = 0;
    for (uint32_t n = mm2 + 1; n < ir->n_nodes && !w->is_output[ov] && w->reads[ov] == 1; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] == ov && reads++ == 0)
                tn = n;
    if (tn != UINT32_MAX && !w->used[tn] && ir->nodes[tn].op == WNN__OP_TRANSPOSE && add_node(w, tn)) {
        const wnn__node *t = &ir->nodes[tn];
        size_t ts[WNN_MAX_RANK];
        contiguous(&ir->values[t->out[0]].desc, ts);
        for (uint32_t i = 0; i < a->rank; i++)
            a->out.stride[t->attrs.transpose.perm[i]] = ts[i];
        a->out.value = t->out[0];
        a->last = tn;
    }
    /* shapes: q [.., M, D], kt [.., D, N], v [.., N, E], all of one type */
    const wnn_operand_desc *qd = &ir->values[q].desc, *kd = &ir->values[kt].desc, *vd = &ir->values[second->in[1]].desc;
    if (qd->data_type != a->type || kd->data_type != a->type || vd->data_type != a->type || qd->rank < 2 ||
        kd->rank < 2 || vd->rank < 2)
        return false;
    a->d = qd->shape[qd->rank - 1];
    if (qd->shape[qd->rank - 2] != a->m || kd->shape[kd->rank - 2] != a->d || kd->shape[kd->rank - 1] != a->n ||
        vd->shape[vd->rank - 2] != a->n || a->d == 0 || a->n == 0)
        return false;
    if (!align(a, qd, &a->q) || !align(a, kd, &a->kt) || !align(a, vd, &a->v) ||
        (a->has_mask && !align(a, &ir->values[a->mask.value].desc, &a->mask)))
        return false;
    a->scale = (float)scale;
    return isfinite(a->scale);
}

wnn_status wnn__attention_find(const wnn__ir *ir, const bool *taken, bool views, wnn__attention **found,
                               uint32_t *count)
{
    *found = NULL;
    *count = 0;
    bool any = false;
    for (uint32_t n = 0; n < ir->n_nodes && !any; n++)
        any = ir->nodes[n].op == WNN__OP_SOFTMAX;
    if (!any || !wnn__config_get()->attention)
        return WNN_OK;
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    uint32_t *reads = calloc(nv, sizeof *reads);
    bool *is_output = calloc(nv, sizeof *is_output);
    bool *used = calloc(ir->n_nodes, sizeof *used);
    wnn__attention *list = NULL, a;
    uint32_t n_list = 0;
    wnn_status st = reads && is_output && used ? WNN_OK : WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t n = 0; st == WNN_OK && n < ir->n_nodes; n++) {
        used[n] = taken && taken[n];
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] != WNN__NONE)
                reads[ir->nodes[n].in[j]]++;
    }
    for (uint32_t i = 0; st == WNN_OK && i < ir->n_outputs; i++)
        is_output[ir->output_values[i]] = true;
    walk w = {ir, reads, is_output, used, views, &a};
    for (uint32_t n = 0; st == WNN_OK && n < ir->n_nodes; n++) {
        if (ir->nodes[n].op != WNN__OP_SOFTMAX || used[n] || !match(&w, n))
            continue;
        wnn__attention *grown = realloc(list, (n_list + 1) * sizeof *list);
        if (!grown) {
            st = WNN_STATUS_OUT_OF_MEMORY;
            break;
        }
        list = grown;
        list[n_list++] = a;
        for (uint32_t k = 0; k < a.n_nodes; k++)
            used[a.nodes[k]] = true;
    }
    free(reads);
    free(is_output);
    free(used);
    if (st != WNN_OK) {
        free(list);
        return st;
    }
    *found = list;
    *count = n_list;
    return WNN_OK;
}
