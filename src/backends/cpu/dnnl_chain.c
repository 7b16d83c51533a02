/* SPDX-License-Identifier: Apache-2.0 */
/*
** dnnl_chain.c -- the nodes that fold into a conv2d or convTranspose2d on
** the oneDNN path, and its filter with them folded in (see dnnl_chain.h).
*/
#include "backends/cpu/dnnl_chain.h"

#ifdef WNN_HAVE_DNNL

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef wnn__dnnl_chain chain;
typedef wnn__dnnl_post_op post_op;

/* ------------------------------------------------------------------------ */
/* Fusion: which nodes after the convolution fold into it                   */
/* ------------------------------------------------------------------------ */

/* The first node after `after` that reads v, or UINT32_MAX. */
static uint32_t next_reader(const wnn__ir *ir, uint32_t after, uint32_t v)
{
    for (uint32_t n = after + 1; n < ir->n_nodes; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] == v)
                return n;
    return UINT32_MAX;
}

/* The only node that reads v, or UINT32_MAX. */
static uint32_t sole_reader(const wnn__ir *ir, uint32_t after, uint32_t v, const uint32_t *uses, const bool *is_output)
{
    if (uses[v] != 1 || is_output[v])
        return UINT32_MAX;
    return next_reader(ir, after, v);
}

/* The value holding v's bytes: the constant a reshape node reshapes (a 1-D
** convolution's filter, which the ONNX importer reshapes to 2-D; cpu_graph.c
** skips that node), else v. */
static uint32_t bytes_of(const wnn__ir *ir, uint32_t v)
{
    if (v == WNN__NONE || ir->values[v].kind != WNN__VALUE_NODE)
        return v;
    const wnn__node *p = &ir->nodes[ir->values[v].index];
    return p->op == WNN__OP_RESHAPE && p->in[0] != WNN__NONE && ir->values[p->in[0]].kind == WNN__VALUE_CONSTANT
               ? p->in[0]
               : v;
}

bool wnn__dnnl_is_constant(const wnn__ir *ir, uint32_t v)
{
    return v == WNN__NONE || ir->values[bytes_of(ir, v)].kind == WNN__VALUE_CONSTANT;
}

static double constant_at(const wnn__ir *ir, uint32_t v, size_t i, double absent)
{
    if (v == WNN__NONE)
        return absent;
    const wnn__value *c = &ir->values[bytes_of(ir, v)];
    return c->desc.data_type == WNN_DATA_TYPE_FLOAT16 ? wnn__half_to_float(((const uint16_t *)c->data)[i])
                                                      : ((const float *)c->data)[i];
}

/* Whether v is a constant of one repeated value (*out), of v's data type
** and a shape that broadcasts to like's without growing it. */
static bool scalar_constant(const wnn__ir *ir, uint32_t v, const wnn_operand_desc *like, double *out)
{
    if (v == WNN__NONE || !wnn__dnnl_is_constant(ir, v) || !ir->values[bytes_of(ir, v)].data)
        return false;
    const wnn_operand_desc *d = &ir->values[v].desc;
    if (d->data_type != like->data_type || d->rank > like->rank)
        return false;
    for (uint32_t i = 0; i < d->rank; i++)
        if (d->shape[i] != 1 && d->shape[i] != like->shape[like->rank - d->rank + i])
            return false;
    size_t n = wnn__shape_count(d);
    *out = constant_at(ir, v, 0, 0.0);
    for (size_t i = 1; i < n; i++)
        if (constant_at(ir, v, i, 0.0) != *out)
            return false;
    return true;
}

static bool same_desc(const wnn_operand_desc *a, const wnn_operand_desc *b)
{
    return a->data_type == b->data_type && a->rank == b->rank &&
           memcmp(a->shape, b->shape, a->rank * sizeof *a->shape) == 0;
}

/* Appends a post-op; false when the chain cannot take it. A linear step
** right after the convolution (and its batchNormalization) is folded into the
** filter and bias, and one after another linear step merges with it:
** oneDNN 2.6 computes chains that hold one eltwise kind twice wrongly in some
** kernels (linear, relu, linear: 5 % of the outputs off in test-cpu-fusion),
** so a kind appears at most once. */
static bool push_op(chain *c, bool sum, dnnl_alg_kind_t alg, double alpha, double beta)
{
    if (!sum && alg == dnnl_eltwise_linear && c->n_ops == 0) {
        c->pre_beta = alpha * c->pre_beta + beta;
        c->pre_alpha *= alpha;
        return true;
    }
    post_op *last = c->n_ops ? &c->ops[c->n_ops - 1] : NULL;
    if (!sum && alg == dnnl_eltwise_linear && !last->sum && last->alg == dnnl_eltwise_linear) {
        /* a2 (a1 x + b1) + b2 */
        last->beta = (float)(alpha * last->beta + beta);
        last->alpha = (float)(alpha * last->alpha);
        if (last->alpha == 1.0f && last->beta == 0.0f)
            c->n_ops--;
        return true;
    }
    for (uint32_t k = 0; k < c->n_ops; k++)
        if (c->ops[k].sum == sum && (sum || c->ops[k].alg == alg))
            return false;
    if (c->n_ops == MAX_POST)
        return false;
    c->ops[c->n_ops++] = (post_op){sum, alg, (float)alpha, (float)beta};
    return true;
}

/* The eltwise post-ops that compute node, a function of its operand cur
** alone; false if it is none. */
static bool activation_of(const wnn__ir *ir, const wnn__node *node, uint32_t cur, chain *c)
{
    const wnn_operand_desc *yd = &ir->values[node->out[0]].desc;
    double k;
    uint32_t other = node->n_in == 2 ? (node->in[0] == cur ? node->in[1] : node->in[0]) : WNN__NONE;
    switch (node->op) {
    case WNN__OP_RELU: return push_op(c, false, dnnl_eltwise_relu, 0, 0);
    case WNN__OP_SIGMOID: return push_op(c, false, dnnl_eltwise_logistic, 0, 0);
    case WNN__OP_TANH: return push_op(c, false, dnnl_eltwise_tanh, 0, 0);
    case WNN__OP_HARD_SWISH: return push_op(c, false, dnnl_eltwise_hardswish, 0, 0);
    case WNN__OP_LEAKY_RELU: return push_op(c, false, dnnl_eltwise_relu, node->attrs.activation.alpha, 0);
    case WNN__OP_ELU: return push_op(c, false, dnnl_eltwise_elu, node->attrs.activation.alpha, 0);
    case WNN__OP_LINEAR:
        return push_op(c, false, dnnl_eltwise_linear, node->attrs.activation.alpha, node->attrs.activation.beta);
    case WNN__OP_HARD_SIGMOID:
        return push_op(c, false, dnnl_eltwise_linear, node->attrs.activation.alpha, node->attrs.activation.beta) &&
               push_op(c, false, dnnl_eltwise_clip, 0, 1);
    case WNN__OP_CLAMP:
        if (isnan(node->attrs.clamp.min_value) || isnan(node->attrs.clamp.max_value))
            return false; /* a NaN bound bounds nothing; clip would disagree */
        return push_op(c, false, dnnl_eltwise_clip, node->attrs.clamp.min_value, node->attrs.clamp.max_value);
    default: break;
    }
    /* binary operators with a constant of one value that keeps the shape */
    if (other == WNN__NONE || other == cur || !scalar_constant(ir, other, yd, &k) ||
        !same_desc(&ir->values[cur].desc, yd) || isnan(k))
        return false;
    bool left = node->in[0] == cur;
    switch (node->op) {
    case WNN__OP_ADD: return push_op(c, false, dnnl_eltwise_linear, 1, k);
    case WNN__OP_SUB: return push_op(c, false, dnnl_eltwise_linear, left ? 1 : -1, left ? -k : k);
    case WNN__OP_MUL: return push_op(c, false, dnnl_eltwise_linear, k, 0);
    case WNN__OP_DIV: return left && k != 0 && push_op(c, false, dnnl_eltwise_linear, 1 / k, 0);
    case WNN__OP_MAX: return push_op(c, false, dnnl_eltwise_clip, k, INFINITY);
    case WNN__OP_MIN: return push_op(c, false, dnnl_eltwise_clip, -INFINITY, k);
    default: return false;
    }
}

/* x gating itself, x read by exactly two nodes: mul(x, sigmoid(x)) is swish,
** mul(x, clamp(x + 3, 0, 6)) is 6 hardSwish(x). Returns the mul, or
** UINT32_MAX; *inner is the node between. */
static uint32_t self_gate(const wnn__ir *ir, uint32_t at, uint32_t x, const uint32_t *uses, const bool *is_output,
                          chain *c)
{
    if (uses[x] != 2 || is_output[x] || c->n_nodes + 4 > MAX_FUSED)
        return UINT32_MAX;
    uint32_t first = next_reader(ir, at, x);
    if (first == UINT32_MAX)
        return UINT32_MAX;
    const wnn__node *g = &ir->nodes[first];
    uint32_t chain_nodes[2], n = 0, v = g->out[0];
    double k;
    const wnn_operand_desc *xd = &ir->values[x].desc;
    bool hard = false;
    if (g->op == WNN__OP_SIGMOID) {
        chain_nodes[n++] = first;
    } else if (g->op == WNN__OP_ADD && scalar_constant(ir, g->in[g->in[0] == x ? 1 : 0], xd, &k) && k == 3 &&
               g->in[0] != g->in[1]) {
        uint32_t r = sole_reader(ir, first, v, uses, is_output);
        const wnn__node *cl = r != UINT32_MAX ? &ir->nodes[r] : NULL;
        if (!cl || cl->op != WNN__OP_CLAMP || cl->attrs.clamp.min_value != 0 || cl->attrs.clamp.max_value != 6)
            return UINT32_MAX;
        chain_nodes[n++] = first;
        chain_nodes[n++] = r;
        v = cl->out[0];
        hard = true;
    } else {
        return UINT32_MAX;
    }
    if (!same_desc(&ir->values[v].desc, xd))
        return UINT32_MAX;
    uint32_t m = sole_reader(ir, chain_nodes[n - 1], v, uses, is_output);
    if (m == UINT32_MAX || ir->nodes[m].op != WNN__OP_MUL ||
        !((ir->nodes[m].in[0] == x && ir->nodes[m].in[1] == v) || (ir->nodes[m].in[0] == v && ir->nodes[m].in[1] == x)))
        return UINT32_MAX;
    if (hard ? !push_op(c, false, dnnl_eltwise_hardswish, 0, 0) || !push_op(c, false, dnnl_eltwise_linear, 6, 0)
             : !push_op(c, false, dnnl_eltwise_swish, 1, 0))
        return UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        c->nodes[c->n_nodes++] = chain_nodes[i];
    return m;
}

/* The nodes after convolution n that fold into it: one batchNormalization
** first, one residual add before any activation, then activations. After a
** convTranspose2d only what folds into its filter and bias: oneDNN 2.6's
** deconvolution runs ten times slower with any post-op (2-core AMD EPYC with AVX2,
** DNNL_VERBOSE, [1,24,80,80] -> [1,24,160,160], 2x2 stride 2: 2.6 ms alone,
** 24.3 with relu, 25.9 with a sum, 28.4 with sigmoid). */
wnn__dnnl_chain wnn__dnnl_follow(const wnn__ir *ir, uint32_t n, const uint32_t *uses, const bool *is_output)
{
    const wnn__node *conv = &ir->nodes[n];
    chain c = {.bn_node = UINT32_MAX, .res = WNN__NONE, .out = conv->out[0], .pre_alpha = 1.0};
    uint32_t channel_axis = conv->attrs.conv.input_layout == WNN_INPUT_LAYOUT_NHWC ? 3 : 1;
    const wnn_operand_desc *yd = &ir->values[conv->out[0]].desc;
    uint32_t at = n;
    bool post_ops = conv->op == WNN__OP_CONV2D;
    while (c.n_nodes < MAX_FUSED) {
        chain t = c; /* this step's try, kept only if the node folds in whole */
        uint32_t r = sole_reader(ir, at, c.out, uses, is_output);
        if (r == UINT32_MAX) {
            r = self_gate(ir, at, c.out, uses, is_output, &t);
            if (r == UINT32_MAX)
                return c;
        } else {
            const wnn__node *node = &ir->nodes[r];
            if (node->op == WNN__OP_BATCH_NORMALIZATION && node->n_in == 5 && c.n_nodes == 0 && node->in[0] == c.out &&
                node->attrs.batch_norm.axis == channel_axis && wnn__dnnl_is_constant(ir, node->in[1]) &&
                wnn__dnnl_is_constant(ir, node->in[2]) && wnn__dnnl_is_constant(ir, node->in[3]) &&
                wnn__dnnl_is_constant(ir, node->in[4])) {
                t.bn_node = r;
            } else if (!activation_of(ir, node, c.out, &t)) {
                t = c;
                if (node->op != WNN__OP_ADD)
                    return c;
                uint32_t other = node->in[0] == c.out ? node->in[1] : node->in[0];
                const wnn__value *ov = &ir->values[other];
                bool ready = ov->kind != WNN__VALUE_NODE || ov->index < n;
                bool only_bn = c.n_nodes == (c.bn_node != UINT32_MAX);
                if (c.res != WNN__NONE || !only_bn || other == c.out || !ready || ov->desc.data_type != yd->data_type ||
                    ov->desc.rank != yd->rank || memcmp(ov->desc.shape, yd->shape, yd->rank * sizeof *yd->shape) != 0 ||
                    !push_op(&t, true, dnnl_eltwise_relu, 0, 0))
                    return c;
                t.res = other;
            }
        }
        if (!post_ops && (t.n_ops > 0 || t.res != WNN__NONE))
            return c;
        c = t;
        c.nodes[c.n_nodes++] = r;
        c.out = ir->nodes[r].out[0];
        at = r;
    }
    return c;
}

void wnn__dnnl_filter_axes(const wnn__node *conv, int ax[4])
{
    static const int conv2d[4][4] = {
        [WNN_CONV2D_FILTER_LAYOUT_OIHW] = {0, 1, 2, 3},
        [WNN_CONV2D_FILTER_LAYOUT_HWIO] = {3, 2, 0, 1},
        [WNN_CONV2D_FILTER_LAYOUT_OHWI] = {0, 3, 1, 2},
        [WNN_CONV2D_FILTER_LAYOUT_IHWO] = {3, 0, 1, 2},
    };
    static const int transposed[3][4] = {
        [WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_IOHW] = {1, 0, 2, 3},
        [WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_HWOI] = {2, 3, 0, 1},
        [WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_OHWI] = {0, 3, 1, 2},
    };
    uint32_t layout = conv->attrs.conv.filter_layout;
    if (conv->op == WNN__OP_CONV_TRANSPOSE2D)
        memcpy(ax, transposed[layout < 3 ? layout : 0], sizeof transposed[0]);
    else
        memcpy(ax, conv2d[layout < 4 ? layout : 0], sizeof conv2d[0]);
}

float *wnn__dnnl_folded_filter(const wnn__ir *ir, const wnn__node *conv, const wnn__dnnl_chain *c, bool ohwi,
                               float *bias)
{
    const wnn__value *f = &ir->values[conv->in[1]];
    const uint32_t *s = f->desc.shape;
    int ax[4];
    wnn__dnnl_filter_axes(conv, ax);
    size_t st[4] = {(size_t)s[1] * s[2] * s[3], (size_t)s[2] * s[3], s[3], 1};
    size_t groups = conv->attrs.conv.groups, kh = s[ax[2]], kw = s[ax[3]];
    bool transposed = conv->op == WNN__OP_CONV_TRANSPOSE2D;
    /* no output channels in all, ni input channels a group */
    size_t no = transposed ? s[ax[0]] * groups : s[ax[0]], ni = transposed ? s[ax[1]] / groups : s[ax[1]];
    size_t og = no / groups; /* output channels a group */
    float *w = malloc(no * ni * kh * kw * sizeof *w);
    if (!w)
        return NULL;
    const wnn__node *bn = c->bn_node != UINT32_MAX ? &ir->nodes[c->bn_node] : NULL;
    for (size_t o = 0; o < no; o++) {
        double scale = 1.0, b = constant_at(ir, conv->in[2], o, 0.0);
        if (bn) {
            scale = constant_at(ir, bn->in[3], o, 1.0) /
                    sqrt(constant_at(ir, bn->in[2], o, 1.0) + bn->attrs.batch_norm.epsilon);
            b = (b - constant_at(ir, bn->in[1], o, 0.0)) * scale + constant_at(ir, bn->in[4], o, 0.0);
        }
        scale *= c->pre_alpha;
        b = b * c->pre_alpha + c->pre_beta;
        bias[o] = (float)b;
        /* where output channel o and the group's input channel i meet: a
        ** transposed filter holds every input channel and a group's outputs */
        size_t o_at = transposed ? (o % og) * st[ax[0]] : o * st[ax[0]];
        size_t i_base = transposed ? (o / og) * ni : 0;
        for (size_t i = 0; i < ni; i++)
            for (size_t y = 0; y < kh; y++)
                for (size_t x = 0; x < kw; x++) {
                    size_t at = ohwi ? ((o * kh + y) * kw + x) * ni + i : ((o * ni + i) * kh + y) * kw + x;
                    size_t from = o_at + (i_base + i) * st[ax[1]] + y * st[ax[2]] + x * st[ax[3]];
                    w[at] = (float)(constant_at(ir, conv->in[1], from, 0.0) * scale);
                }
    }
    return w;
}

#endif
