/* SPDX-License-Identifier: Apache-2.0 */
/*
** gelu.c -- gelu as exporters spell it out, found in an IR for a backend
** to run as one gelu kernel (the cpu and cuda devices do).
**
** PyTorch exports nn.GELU (before ONNX opset 20, which has Gelu) and
** Hugging Face's models write x * 0.5 * (1 + erf(x / sqrt(2))): five
** element-wise nodes, four passes over the tensor more than gelu's one,
** and erf alone was a quarter of a BERT encoder's time on the cpu device
** (on cuda, the erf and the chains around it were a third of its float16
** GPU time at batch 32).
** The chain recognised here is
**
**     s = div(x, sqrt(2))  or  mul(x, 1 / sqrt(2))   (either operand order)
**     e = erf(s)
**     a = add(e, 1)                                  (either order)
**     y = the product of x, a and 0.5 in two muls, associated either way
**
** with the constants scalars (one element) within 1e-6 of those values,
** every intermediate read by the next node alone and not a graph output,
** and every value of x's shape and type. The node computing y runs gelu(x);
** the others are skipped.
*/
#include "backends/gelu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "core/shape.h"

typedef struct chain_ctx {
    const wnn__ir *ir;
    const int32_t *output_of;
    const uint32_t *reads;  /* per value: how many node inputs name it */
    const uint32_t *reader; /* per value: the last node reading it */
    const bool *fused;      /* nodes other passes have taken */
    uint32_t *at;           /* per node skipped: the node computing its chain, or NULL */
} chain_ctx;

/* Whether v is a one-element constant equal to want as its type holds it:
** within 1e-6 for float32, within float16's rounding (half a step, 2^-11
** relative; 1e-3 taken) for float16, whose sqrt(2) is 1.4140625. */
static bool near(const wnn__ir *ir, uint32_t v, double want)
{
    double got = wnn__ir_scalar(ir, v);
    double tol = v != WNN__NONE && ir->values[v].desc.data_type == WNN_DATA_TYPE_FLOAT16 ? 1e-3 : 1e-6;
    return fabs(got - want) <= tol * fabs(want) + 1e-7;
}

/* v's one reader, if v is read once, by an op node, and is no graph output. */
static const wnn__node *only_reader(const chain_ctx *c, uint32_t v, wnn__op op, uint32_t *at)
{
    if (c->reads[v] != 1 || c->output_of[v] >= 0 || c->fused[c->reader[v]])
        return NULL;
    const wnn__node *n = &c->ir->nodes[c->reader[v]];
    if (n->op != op)
        return NULL;
    *at = c->reader[v];
    return n;
}

/* The operand of a binary node beside v, or WNN__NONE. */
static uint32_t other(const wnn__node *n, uint32_t v)
{
    return n->in[0] == v ? n->in[1] : n->in[1] == v ? n->in[0] : WNN__NONE;
}

static bool same_desc(const wnn__ir *ir, uint32_t a, uint32_t b)
{
    const wnn_operand_desc *x = &ir->values[a].desc, *y = &ir->values[b].desc;
    return x->data_type == y->data_type && x->rank == y->rank &&
           memcmp(x->shape, y->shape, x->rank * sizeof *x->shape) == 0;
}

/* Matches the chain from s's node; on success marks the skipped nodes, sets
** *xp to the chain's x and returns the node computing y, else UINT32_MAX. */
static uint32_t match(const chain_ctx *c, uint32_t first, bool *fused, uint32_t *xp)
{
    const wnn__ir *ir = c->ir;
    const wnn__node *s = &ir->nodes[first];
    uint32_t x;
    if (s->op == WNN__OP_DIV && near(ir, s->in[1], sqrt(2.0)))
        x = s->in[0];
    else if (s->op == WNN__OP_MUL && near(ir, s->in[1], sqrt(0.5)))
        x = s->in[0];
    else if (s->op == WNN__OP_MUL && near(ir, s->in[0], sqrt(0.5)))
        x = s->in[1];
    else
        return UINT32_MAX;
    uint32_t sv = s->out[0];
    if (x == WNN__NONE || !same_desc(ir, x, sv))
        return UINT32_MAX;
    uint32_t n_erf, n_add, n1, n2 = UINT32_MAX, n_half = UINT32_MAX;
    const wnn__node *erf = only_reader(c, sv, WNN__OP_ERF, &n_erf);
    const wnn__node *add =
        erf && same_desc(ir, x, erf->out[0]) ? only_reader(c, erf->out[0], WNN__OP_ADD, &n_add) : NULL;
    if (!add || !near(ir, other(add, erf->out[0]), 1.0) || !same_desc(ir, x, add->out[0]))
        return UINT32_MAX;
    uint32_t a = add->out[0];
    const wnn__node *m1 = only_reader(c, a, WNN__OP_MUL, &n1);
    if (!m1 || !same_desc(ir, x, m1->out[0]))
        return UINT32_MAX;
    uint32_t beside = other(m1, a), last;
    if (beside == x || near(ir, beside, 0.5)) {
        /* (x * a) * 0.5 or (a * 0.5) * x */
        const wnn__node *m2 = only_reader(c, m1->out[0], WNN__OP_MUL, &n2);
        uint32_t third = m2 ? other(m2, m1->out[0]) : WNN__NONE;
        bool ok = m2 && same_desc(ir, x, m2->out[0]) && (beside == x ? near(ir, third, 0.5) : third == x);
        if (!ok)
            return UINT32_MAX;
        last = n2;
    } else {
        /* (x * 0.5) * a: beside is the product of x and 0.5, read here alone */
        if (beside == WNN__NONE || ir->values[beside].kind != WNN__VALUE_NODE || c->reads[beside] != 1 ||
            c->output_of[beside] >= 0)
            return UINT32_MAX;
        n_half = ir->values[beside].index;
        const wnn__node *h = &ir->nodes[n_half];
        if (h->op != WNN__OP_MUL || c->fused[n_half] || other(h, x) == WNN__NONE || !near(ir, other(h, x), 0.5) ||
            !same_desc(ir, x, beside))
            return UINT32_MAX;
        last = n1;
    }
    const uint32_t skipped[5] = {first, n_erf, n_add, last != n1 ? n1 : UINT32_MAX, n_half};
    for (int i = 0; i < 5; i++)
        if (skipped[i] != UINT32_MAX) {
            fused[skipped[i]] = true;
            if (c->at)
                c->at[skipped[i]] = last;
        }
    *xp = x;
    return last;
}

void wnn__gelu_find(const wnn__ir *ir, const int32_t *output_of, bool *fused, uint32_t *gelu_of, uint32_t *at)
{
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    uint32_t *reads = calloc(nv, sizeof *reads), *reader = calloc(nv, sizeof *reader);
    if (reads && reader) {
        for (uint32_t n = 0; n < ir->n_nodes; n++)
            for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
                if (ir->nodes[n].in[j] != WNN__NONE) {
                    reads[ir->nodes[n].in[j]]++;
                    reader[ir->nodes[n].in[j]] = n;
                }
        chain_ctx c = {ir, output_of, reads, reader, fused, at};
        for (uint32_t n = 0; n < ir->n_nodes; n++) {
            const wnn__node *s = &ir->nodes[n];
            if (fused[n] || (s->op != WNN__OP_DIV && s->op != WNN__OP_MUL))
                continue;
            uint32_t x, last = match(&c, n, fused, &x);
            if (last != UINT32_MAX)
                gelu_of[last] = x;
        }
    }
    free(reads);
    free(reader);
}
