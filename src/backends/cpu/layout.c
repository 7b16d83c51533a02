/* SPDX-License-Identifier: Apache-2.0 */
/*
** layout.c -- keeps the values between oneDNN's convolutions in nhwc.
**
** oneDNN's convolutions on x86 read and write nhwc ("acdb"), so in an nchw
** graph (every ONNX model) each convolution pays a reorder into nhwc before
** it and one back after it, unless the value goes from one convolution
** straight into the next (dnnl.c links those). In real models most values
** pass through something else first: a concat, a pool, an activation that
** did not fold, the mul of a squeeze-and-excitation block; on 16 cores those
** reorders were a third of squeezenet's time.
**
** This step rewrites the IR before the cpu device plans it. Walking the
** nodes in order, it tracks where each value is held: in its own layout
** ("plain", under its own id), in nhwc (a new value, its transpose by
** {0, 2, 3, 1}), or both.
**   - An nchw conv2d that oneDNN takes becomes its nhwc form (inputLayout
**     nhwc, the same filter) reading the nhwc form of its input.
**   - An operator of rank 4 that computes the same thing on permuted axes
**     (element-wise ones with broadcasting, concat, split, slice, pad,
**     reverse, reductions, pools, resample2d, softmax, batch and instance
**     normalization, transpose) runs in nhwc, its axes remapped, when that
**     moves no more elements than running it as it is: operands held only
**     in nhwc would be transposed back, operands held only plain
**     transposed in. An operand that broadcasts along the channels, such as
**     a [C,1,1] constant, is only reshaped: its size-1 axes move, its bytes
**     do not.
**   - Every other reader, and each graph output, reads the plain value: a
**     transpose back is made once, before its first such reader.
** So the transposes left are at the regions' edges (graph inputs and
** outputs, reshapes, operators with no nhwc form), where oneDNN's reorders
** were before, and none inside a region.
**
** Values of the original IR keep their ids (inputs, constants and outputs
** are bound by id); the nhwc forms are new values after them. A value whose
** plain form nobody reads is no node's output any more, and the cpu planner
** gives it no memory.
*/
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/dnnl.h"
#include "backends/cpu/dnnl_chain.h"
#include "backends/cpu/layout.h"
#include "platform/config.h"

static const uint32_t TO_NHWC[4] = {0, 2, 3, 1}; /* nhwc axis k is nchw axis TO_NHWC[k] */
static const uint32_t TO_NCHW[4] = {0, 3, 1, 2}; /* nchw axis a is nhwc axis TO_NCHW[a] */

/* How an operator's nhwc form differs from it. */
typedef enum form {
    FORM_NONE = 0,    /* none: runs plain */
    FORM_CONV,        /* conv2d that oneDNN takes: inputLayout */
    FORM_ELEMENTWISE, /* every operand broadcasts to the output: nothing */
    FORM_CONCAT,      /* every operand permuted: axis */
    FORM_AXIS,        /* split, softmax: axis */
    FORM_SLICE,       /* starts, sizes, strides */
    FORM_PAD,         /* begin */
    FORM_REVERSE,     /* mask */
    FORM_REDUCE,      /* axes mask */
    FORM_POOL,        /* layout */
    FORM_RESAMPLE,    /* axes */
    FORM_BATCH_NORM,  /* axis; mean, variance, scale and bias are 1-D */
    FORM_INSTANCE_NORM, /* layout */
    FORM_TRANSPOSE    /* perm */
} form;

static const uint8_t form_of[WNN__OP_COUNT] = {
#define E(op) [WNN__OP_##op] = FORM_ELEMENTWISE
    E(ADD), E(SUB), E(MUL), E(DIV), E(MAX), E(MIN), E(POW), E(ABS), E(NEG), E(EXP), E(LOG), E(SQRT), E(RELU),
    E(SIGMOID), E(TANH), E(CLAMP), E(CAST), E(CEIL), E(FLOOR), E(COS), E(SIN), E(TAN), E(ERF), E(RECIPROCAL),
    E(ROUND_EVEN), E(SIGN), E(IDENTITY), E(IS_NAN), E(IS_INFINITE), E(LOGICAL_NOT), E(LOGICAL_AND), E(LOGICAL_OR),
    E(LOGICAL_XOR), E(EQUAL), E(NOT_EQUAL), E(GREATER), E(GREATER_OR_EQUAL), E(LESSER), E(LESSER_OR_EQUAL), E(WHERE),
    E(ELU), E(GELU), E(HARD_SIGMOID), E(HARD_SWISH), E(LEAKY_RELU), E(LINEAR), E(PRELU), E(SOFTPLUS), E(SOFTSIGN),
#undef E
#define R(op) [WNN__OP_##op] = FORM_REDUCE
    R(REDUCE_L1), R(REDUCE_L2), R(REDUCE_LOG_SUM), R(REDUCE_LOG_SUM_EXP), R(REDUCE_MAX), R(REDUCE_MEAN),
    R(REDUCE_MIN), R(REDUCE_PRODUCT), R(REDUCE_SUM), R(REDUCE_SUM_SQUARE),
#undef R
    [WNN__OP_CONV2D] = FORM_CONV,
    [WNN__OP_CONCAT] = FORM_CONCAT,
    [WNN__OP_SPLIT] = FORM_AXIS,
    [WNN__OP_SOFTMAX] = FORM_AXIS,
    [WNN__OP_SLICE] = FORM_SLICE,
    [WNN__OP_PAD] = FORM_PAD,
    [WNN__OP_REVERSE] = FORM_REVERSE,
    [WNN__OP_AVERAGE_POOL2D] = FORM_POOL,
    [WNN__OP_L2_POOL2D] = FORM_POOL,
    [WNN__OP_MAX_POOL2D] = FORM_POOL,
    [WNN__OP_RESAMPLE2D] = FORM_RESAMPLE,
    [WNN__OP_BATCH_NORMALIZATION] = FORM_BATCH_NORM,
    [WNN__OP_INSTANCE_NORMALIZATION] = FORM_INSTANCE_NORM,
    [WNN__OP_TRANSPOSE] = FORM_TRANSPOSE,
};

typedef struct rewrite {
    const wnn__ir *ir;
    wnn__ir *out;
    uint32_t cap_values, cap_nodes;
    uint32_t *plain; /* per value of ir: the id holding it in its own layout, or WNN__NONE */
    uint32_t *nhwc;  /* per value of ir: the id holding its nhwc form, or WNN__NONE */
    uint32_t *args;  /* a node's operands and results, as rewritten */
    uint32_t *uses;  /* per value of ir: the node operands that read it, graph outputs counted */
    bool *done;      /* per node of ir: rewritten with an earlier node (rewrite_shuffle) */
    bool failed;     /* out of memory */
} rewrite;

static wnn_operand_desc nhwc_desc(const wnn_operand_desc *d)
{
    wnn_operand_desc e = *d;
    for (uint32_t k = 0; k < 4; k++)
        e.shape[k] = d->shape[TO_NHWC[k]];
    return e;
}

/* d as a rank-4 operand of a broadcast: leading 1s. */
static wnn_operand_desc as_rank4(const wnn_operand_desc *d)
{
    wnn_operand_desc e = {d->data_type, 4, {1, 1, 1, 1}};
    for (uint32_t i = 0; i < d->rank; i++)
        e.shape[4 - d->rank + i] = d->shape[i];
    return e;
}

/* Whether the nhwc form of a rank-4 shape has the same bytes: its axes longer
** than 1 keep their order. */
static bool moves_no_bytes(const wnn_operand_desc *d4)
{
    int last = -1;
    for (uint32_t k = 0; k < 4; k++) {
        int a = (int)TO_NHWC[k];
        if (d4->shape[a] == 1)
            continue;
        if (a < last)
            return false;
        last = a;
    }
    return true;
}

static uint32_t new_value(rewrite *r, const wnn_operand_desc *d)
{
    wnn__ir *o = r->out;
    if (r->failed)
        return WNN__NONE;
    if (o->n_values == r->cap_values) {
        wnn__value *v = realloc(o->values, 2 * r->cap_values * sizeof *v);
        if (!v) {
            r->failed = true;
            return WNN__NONE;
        }
        o->values = v;
        r->cap_values *= 2;
    }
    o->values[o->n_values] = (wnn__value){.desc = *d, .kind = WNN__VALUE_NODE};
    return o->n_values++;
}

static void emit(rewrite *r, wnn__op op, const wnn__attrs *attrs, const uint32_t *in, uint32_t n_in,
                 const uint32_t *out, uint32_t n_out)
{
    wnn__ir *o = r->out;
    if (r->failed)
        return;
    if (o->n_nodes == r->cap_nodes) {
        wnn__node *n = realloc(o->nodes, 2 * r->cap_nodes * sizeof *n);
        if (!n) {
            r->failed = true;
            return;
        }
        o->nodes = n;
        r->cap_nodes *= 2;
    }
    wnn__node *n = &o->nodes[o->n_nodes];
    *n = (wnn__node){.op = op, .n_in = n_in, .n_out = n_out, .attrs = *attrs};
    n->in = malloc((n_in ? n_in : 1) * sizeof *n->in);
    n->out = malloc((n_out ? n_out : 1) * sizeof *n->out);
    if (!n->in || !n->out) {
        free(n->in);
        free(n->out);
        r->failed = true;
        return;
    }
    memcpy(n->in, in, n_in * sizeof *in);
    memcpy(n->out, out, n_out * sizeof *out);
    for (uint32_t j = 0; j < n_out; j++)
        o->values[out[j]].index = o->n_nodes;
    o->n_nodes++;
}

static void emit_transpose(rewrite *r, uint32_t x, const uint32_t *perm, uint32_t rank, uint32_t y)
{
    wnn__attrs a = {0};
    memcpy(a.transpose.perm, perm, rank * sizeof *perm);
    emit(r, WNN__OP_TRANSPOSE, &a, &x, 1, &y, 1);
}

/* The id holding value v of ir in its own layout, transposed back from its
** nhwc form the first time it is asked for. */
static uint32_t plain(rewrite *r, uint32_t v)
{
    if (v == WNN__NONE || r->plain[v] != WNN__NONE)
        return v == WNN__NONE ? v : r->plain[v];
    emit_transpose(r, r->nhwc[v], TO_NCHW, 4, v);
    r->plain[v] = v;
    return v;
}

/* The id holding the nhwc form of value v of ir, as a rank-4 operand of a
** broadcast: made from its plain form by a reshape when no bytes move, by a
** transpose otherwise, the first time it is asked for. */
static uint32_t nhwc(rewrite *r, uint32_t v)
{
    if (v == WNN__NONE || r->nhwc[v] != WNN__NONE)
        return v == WNN__NONE ? v : r->nhwc[v];
    uint32_t p = plain(r, v), y = WNN__NONE;
    const wnn_operand_desc *d = &r->ir->values[v].desc;
    wnn_operand_desc d4 = as_rank4(d), dn = nhwc_desc(&d4);
    const wnn__attrs none = {0};
    if (wnn__shape_count(d) == 1) {
        y = p; /* broadcasts as it is */
    } else if (moves_no_bytes(&d4)) {
        y = new_value(r, &dn);
        emit(r, WNN__OP_RESHAPE, &none, &p, 1, &y, 1);
    } else {
        uint32_t x = p;
        if (d->rank < 4) {
            x = new_value(r, &d4);
            emit(r, WNN__OP_RESHAPE, &none, &p, 1, &x, 1);
        }
        y = new_value(r, &dn);
        emit_transpose(r, x, TO_NHWC, 4, y);
    }
    r->nhwc[v] = y;
    return y;
}

/* Whether node n's nhwc form moves no more elements than the node as it
** is, counting its first n_main operands (the others are read plain either
** way), and some operand is in nhwc. */
static bool worth_it(const rewrite *r, const wnn__node *node, uint32_t n_main)
{
    uint64_t in = 0, back = 0;
    for (uint32_t j = 0; j < n_main; j++) {
        uint32_t v = node->in[j];
        if (v == WNN__NONE)
            continue;
        const wnn_operand_desc *d = &r->ir->values[v].desc;
        wnn_operand_desc d4 = as_rank4(d);
        uint64_t count = wnn__shape_count(d);
        if (r->nhwc[v] == WNN__NONE && !moves_no_bytes(&d4))
            in += count;
        if (r->plain[v] == WNN__NONE)
            back += count;
    }
    return back > 0 && in <= back;
}

/* The attributes of node's nhwc form in *a, and whether it has one; *plain_out
** says its outputs come out in their own layout (a reduction that drops the
** axes it reduces and leaves the others in order). */
static bool nhwc_attrs(const rewrite *r, uint32_t n, wnn__attrs *a, bool *plain_out)
{
    const wnn__node *node = &r->ir->nodes[n];
    const wnn_operand_desc *xd = &r->ir->values[node->in[0]].desc;
    const wnn_operand_desc *yd = &r->ir->values[node->out[0]].desc;
    *a = node->attrs;
    *plain_out = false;
    if (xd->rank != 4 && form_of[node->op] != FORM_ELEMENTWISE)
        return false;
    switch ((form)form_of[node->op]) {
    case FORM_CONV:
        a->conv.input_layout = WNN_INPUT_LAYOUT_NHWC;
        return node->attrs.conv.input_layout == WNN_INPUT_LAYOUT_NCHW && wnn__dnnl_takes(r->ir, n);
    case FORM_ELEMENTWISE: return yd->rank == 4;
    case FORM_CONCAT:
    case FORM_AXIS: a->axis.axis = TO_NCHW[node->attrs.axis.axis]; return true;
    case FORM_SLICE:
        for (uint32_t k = 0; k < 4; k++) {
            a->slice.starts[k] = node->attrs.slice.starts[TO_NHWC[k]];
            a->slice.sizes[k] = node->attrs.slice.sizes[TO_NHWC[k]];
            a->slice.strides[k] = node->attrs.slice.strides[TO_NHWC[k]];
        }
        return true;
    case FORM_PAD:
        for (uint32_t k = 0; k < 4; k++)
            a->pad.begin[k] = node->attrs.pad.begin[TO_NHWC[k]];
        return true;
    case FORM_REVERSE:
    case FORM_REDUCE: {
        uint32_t mask = node->op == WNN__OP_REVERSE ? node->attrs.reverse.mask : node->attrs.reduction.axes_mask, m = 0;
        for (uint32_t k = 0; k < 4; k++)
            m |= (mask >> TO_NHWC[k] & 1u) << k;
        if (node->op == WNN__OP_REVERSE) {
            a->reverse.mask = m;
            return true;
        }
        a->reduction.axes_mask = m;
        if (node->attrs.reduction.keep_dimensions)
            return true;
        /* the axes kept, in nhwc order, must be in nchw order */
        int last = -1;
        for (uint32_t k = 0; k < 4; k++)
            if (!(m >> k & 1u)) {
                if ((int)TO_NHWC[k] < last)
                    return false;
                last = (int)TO_NHWC[k];
            }
        *plain_out = true;
        return true;
    }
    case FORM_POOL:
        a->pool2d.layout = WNN_INPUT_LAYOUT_NHWC;
        return node->attrs.pool2d.layout == WNN_INPUT_LAYOUT_NCHW;
    case FORM_RESAMPLE:
        a->resample2d.axes[0] = TO_NCHW[node->attrs.resample2d.axes[0]];
        a->resample2d.axes[1] = TO_NCHW[node->attrs.resample2d.axes[1]];
        return (a->resample2d.axes[0] < a->resample2d.axes[1]) ==
               (node->attrs.resample2d.axes[0] < node->attrs.resample2d.axes[1]);
    case FORM_BATCH_NORM: a->batch_norm.axis = TO_NCHW[node->attrs.batch_norm.axis]; return true;
    case FORM_INSTANCE_NORM:
        a->instance_norm.layout = WNN_INPUT_LAYOUT_NHWC;
        return node->attrs.instance_norm.layout == WNN_INPUT_LAYOUT_NCHW;
    case FORM_TRANSPOSE:
    case FORM_NONE: return false;
    }
    return false;
}

/* The operands of node that its nhwc form reads permuted. */
static uint32_t main_operands(const wnn__node *node)
{
    form f = (form)form_of[node->op];
    return f == FORM_ELEMENTWISE || f == FORM_CONCAT ? node->n_in : 1;
}

/* A transpose of a value held only in nhwc: one transpose from the nhwc
** form, or none when the two permutations cancel. */
static void rewrite_transpose(rewrite *r, const wnn__node *node)
{
    uint32_t x = node->in[0], y = node->out[0], perm[4];
    bool identity = true;
    for (uint32_t i = 0; i < 4; i++) {
        perm[i] = TO_NCHW[node->attrs.transpose.perm[i]];
        identity = identity && perm[i] == i;
    }
    if (identity) {
        r->plain[y] = r->nhwc[x];
        return;
    }
    emit_transpose(r, r->nhwc[x], perm, 4, y);
    r->plain[y] = y;
}

/* The node after `after` that reads v, when it is v's only reader. */
static uint32_t only_reader(const rewrite *r, uint32_t after, uint32_t v)
{
    if (r->uses[v] != 1)
        return UINT32_MAX;
    for (uint32_t n = after + 1; n < r->ir->n_nodes; n++)
        for (uint32_t j = 0; j < r->ir->nodes[n].n_in; j++)
            if (r->ir->nodes[n].in[j] == v)
                return n;
    return UINT32_MAX;
}

/* A channel shuffle as ShuffleNet spells it, of a value held in nhwc:
** reshape [N,C,H,W] -> [N,f1..fk,H,W], a transpose of the f axes alone, and
** a reshape back to [N,C,H,W]. In nhwc the channels are the last axis, so
** the same three run there: [N,H,W,C] -> [N,H,W,f1..fk], the f axes
** permuted alike, -> [N,H,W,C]; else the shuffle would be framed by a
** transpose back and one in again. Whether node n starts one (then the other
** two are done). */
static bool rewrite_shuffle(rewrite *r, uint32_t n)
{
    const wnn__ir *ir = r->ir;
    const wnn__node *first = &ir->nodes[n];
    uint32_t x = first->in[0];
    if (first->op != WNN__OP_RESHAPE || x == WNN__NONE || ir->values[x].desc.rank != 4 || r->plain[x] != WNN__NONE)
        return false;
    const wnn_operand_desc *xd = &ir->values[x].desc, *sd = &ir->values[first->out[0]].desc;
    uint32_t rank = sd->rank;
    if (rank < 5 || sd->shape[0] != xd->shape[0] || sd->shape[rank - 2] != xd->shape[2] ||
        sd->shape[rank - 1] != xd->shape[3])
        return false;
    uint32_t t = only_reader(r, n, first->out[0]);
    if (t == UINT32_MAX || ir->nodes[t].op != WNN__OP_TRANSPOSE)
        return false;
    const uint32_t *perm = ir->nodes[t].attrs.transpose.perm;
    if (perm[0] != 0 || perm[rank - 2] != rank - 2 || perm[rank - 1] != rank - 1)
        return false;
    uint32_t last = only_reader(r, t, ir->nodes[t].out[0]);
    if (last == UINT32_MAX || ir->nodes[last].op != WNN__OP_RESHAPE)
        return false;
    const wnn_operand_desc *yd = &ir->values[ir->nodes[last].out[0]].desc;
    if (yd->rank != 4 || memcmp(yd->shape, xd->shape, sizeof xd->shape[0] * 4) != 0)
        return false;
    /* [N,H,W,f1..fk], then the f axes in the transpose's order */
    wnn_operand_desc split = {xd->data_type, rank, {xd->shape[0], xd->shape[2], xd->shape[3]}}, moved = split;
    uint32_t p[WNN_MAX_RANK] = {0, 1, 2};
    for (uint32_t i = 1; i + 2 < rank; i++) {
        split.shape[2 + i] = sd->shape[i];
        moved.shape[2 + i] = sd->shape[perm[i]];
        p[2 + i] = 2 + perm[i];
    }
    wnn_operand_desc yn = nhwc_desc(yd);
    const wnn__attrs none = {0};
    uint32_t a = new_value(r, &split), b = new_value(r, &moved), y = new_value(r, &yn);
    emit(r, WNN__OP_RESHAPE, &none, &r->nhwc[x], 1, &a, 1);
    emit_transpose(r, a, p, rank, b);
    emit(r, WNN__OP_RESHAPE, &none, &b, 1, &y, 1);
    r->nhwc[ir->nodes[last].out[0]] = y;
    r->done[t] = r->done[last] = true;
    return true;
}

/* Node n in its nhwc form when it has one worth running, else as it is. */
static void rewrite_node(rewrite *r, uint32_t n)
{
    const wnn__node *node = &r->ir->nodes[n];
    uint32_t *in = r->args, *out = r->args + node->n_in;
    wnn__attrs a;
    bool plain_out = false;
    if (r->done[n] || rewrite_shuffle(r, n))
        return;
    if (node->op == WNN__OP_TRANSPOSE && node->in[0] != WNN__NONE &&
        r->ir->values[node->in[0]].desc.rank == 4 && r->plain[node->in[0]] == WNN__NONE) {
        rewrite_transpose(r, node);
        return;
    }
    bool to_nhwc = node->n_in > 0 && node->in[0] != WNN__NONE && nhwc_attrs(r, n, &a, &plain_out) &&
                   (form_of[node->op] == FORM_CONV || worth_it(r, node, main_operands(node)));
    uint32_t n_main = to_nhwc ? main_operands(node) : 0;
    for (uint32_t j = 0; j < node->n_in && !r->failed; j++)
        in[j] = j < n_main ? nhwc(r, node->in[j]) : plain(r, node->in[j]);
    if (!to_nhwc || plain_out) {
        emit(r, node->op, to_nhwc ? &a : &node->attrs, in, node->n_in, node->out, node->n_out);
        for (uint32_t j = 0; j < node->n_out; j++)
            r->plain[node->out[j]] = node->out[j];
        return;
    }
    for (uint32_t j = 0; j < node->n_out; j++) {
        wnn_operand_desc d = nhwc_desc(&r->ir->values[node->out[j]].desc);
        out[j] = r->nhwc[node->out[j]] = new_value(r, &d);
    }
    emit(r, node->op, &a, in, node->n_in, out, node->n_out);
}

#ifdef WNN_HAVE_DNNL
static bool takes_nchw_conv(const wnn__ir *ir, uint32_t n)
{
    return ir->nodes[n].op == WNN__OP_CONV2D && ir->nodes[n].attrs.conv.input_layout == WNN_INPUT_LAYOUT_NCHW &&
           wnn__dnnl_takes(ir, n);
}
#endif

/* Whether the step may have something to keep in nhwc: an operator that
** reads what a convolution (with the nodes that fold into it) computes and
** is neither a convolution nor folded into one. Else each value goes from
** one convolution straight into the next, where dnnl.c links them in
** oneDNN's own layout anyway (blocked on AVX2), and the step would only
** trade oneDNN's reorders at the graph's edges for its transposes while
** holding every convolution to the plain nhwc kernel, the slower one on
** AVX2. On this project's 2-core machine (wnn bench, p50, rounds
** alternated with the build before): a lone conv2d 3x3 [1,64,56,56] -> 64
** with relu 4.5 -> 3.4 ms on one thread; a ResNet basic block (conv, bn,
** relu, conv, bn, add, relu) as PyTorch exports it, 5.9-6.5 -> 5.3-5.9 ms
** on one thread and 3.1-4.1 -> 2.8-3.4 on two. *failed: out of memory. */
static bool step_keeps_something(const wnn__ir *ir, bool *failed)
{
#ifdef WNN_HAVE_DNNL
    uint32_t nv = ir->n_values ? ir->n_values : 1, nn = ir->n_nodes ? ir->n_nodes : 1;
    uint32_t *uses = calloc(nv, sizeof *uses);
    bool *is_output = calloc(nv, sizeof *is_output), *chain_out = calloc(nv, sizeof *chain_out);
    bool *folded = calloc(nn, sizeof *folded), keeps = false;
    if (!uses || !is_output || !chain_out || !folded) {
        *failed = true;
    } else {
        wnn__ir_count_uses(ir, uses, is_output);
        for (uint32_t n = 0; n < ir->n_nodes; n++)
            if (takes_nchw_conv(ir, n)) {
                wnn__dnnl_chain c = wnn__dnnl_follow(ir, n, uses, is_output);
                for (uint32_t k = 0; k < c.n_nodes; k++)
                    folded[c.nodes[k]] = true;
                chain_out[c.out] = true;
            }
        for (uint32_t m = 0; m < ir->n_nodes && !keeps; m++)
            if (!folded[m] && !takes_nchw_conv(ir, m))
                for (uint32_t j = 0; j < ir->nodes[m].n_in; j++)
                    if (ir->nodes[m].in[j] != WNN__NONE && chain_out[ir->nodes[m].in[j]])
                        keeps = true;
    }
    free(uses);
    free(is_output);
    free(chain_out);
    free(folded);
    return keeps;
#else
    (void)ir;
    (void)failed;
    return false; /* no convolution runs on oneDNN */
#endif
}

void wnn__cpu_layout_free(wnn__ir *ir)
{
    if (!ir)
        return;
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        free(ir->nodes[n].in);
        free(ir->nodes[n].out);
    }
    free(ir->nodes);
    free(ir->values);
    free(ir);
}

wnn_status wnn__cpu_layout_nhwc(const wnn__ir *ir, wnn__ir **out)
{
    *out = NULL;
    if (!wnn__config_get()->cpu_nhwc)
        return WNN_OK;
    bool failed = false;
    if (!step_keeps_something(ir, &failed))
        return failed ? WNN_STATUS_OUT_OF_MEMORY : WNN_OK;
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    rewrite r = {.ir = ir, .cap_values = 2 * nv, .cap_nodes = 2 * (ir->n_nodes ? ir->n_nodes : 1)};
    r.out = calloc(1, sizeof *r.out);
    r.plain = malloc(nv * sizeof *r.plain);
    r.nhwc = malloc(nv * sizeof *r.nhwc);
    uint32_t max_args = 1;
    for (uint32_t n = 0; n < ir->n_nodes; n++)
        if (ir->nodes[n].n_in + ir->nodes[n].n_out > max_args)
            max_args = ir->nodes[n].n_in + ir->nodes[n].n_out;
    r.args = malloc(max_args * sizeof *r.args);
    r.uses = calloc(nv, sizeof *r.uses);
    r.done = calloc(ir->n_nodes ? ir->n_nodes : 1, sizeof *r.done);
    if (r.out) {
        *r.out = *ir; /* inputs, outputs and their names are shared */
        r.out->n_nodes = 0;
        r.out->values = malloc(r.cap_values * sizeof *r.out->values);
        r.out->nodes = malloc(r.cap_nodes * sizeof *r.out->nodes);
    }
    r.failed = !r.out || !r.plain || !r.nhwc || !r.args || !r.uses || !r.done || !r.out->values || !r.out->nodes;
    if (!r.failed) {
        memcpy(r.out->values, ir->values, ir->n_values * sizeof *ir->values);
        for (uint32_t v = 0; v < ir->n_values; v++) {
            r.plain[v] = ir->values[v].kind == WNN__VALUE_NODE ? WNN__NONE : v;
            r.nhwc[v] = WNN__NONE;
            if (ir->values[v].kind == WNN__VALUE_NODE)
                r.out->values[v].index = 0; /* until a node writes it */
        }
    }
    for (uint32_t n = 0; n < ir->n_nodes && !r.failed; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] != WNN__NONE)
                r.uses[ir->nodes[n].in[j]]++;
    for (uint32_t i = 0; i < ir->n_outputs && !r.failed; i++)
        r.uses[ir->output_values[i]]++;
    for (uint32_t n = 0; n < ir->n_nodes && !r.failed; n++)
        rewrite_node(&r, n);
    /* outputs under their own ids */
    const wnn__attrs none = {0};
    for (uint32_t i = 0; i < ir->n_outputs && !r.failed; i++) {
        uint32_t v = ir->output_values[i], p = plain(&r, v);
        if (p != v) {
            emit(&r, WNN__OP_IDENTITY, &none, &p, 1, &v, 1);
            r.plain[v] = v;
        }
    }
    free(r.plain);
    free(r.nhwc);
    free(r.args);
    free(r.uses);
    free(r.done);
    if (r.failed) {
        wnn__cpu_layout_free(r.out);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    *out = r.out;
    return WNN_OK;
}
