/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_elementwise.c -- the host side of the element-wise operators: the
** binary arithmetic, comparison and logical operators and prelu (inputs
** broadcast against the output), where (kernels_binary.cu), the one-input
** math and activations, clamp and cast (kernels_unary.cu). Plans of binary
** and unary nodes are also what fusion.c joins into one kernel.
*/
#include <math.h>
#include <string.h>

#include "backends/cuda/cuda_ops.h"
#include "backends/gelu.h"

/* ---- broadcasting element-wise --------------------------------------------------- */

/* core/shape.h's broadcast plan (the cpu's too) in the kernels' form, with
** the element count and which inputs are flat or a single element. */
void wnn__cu_make_bcast(wnn__cu_bcast *p, const wnn_operand_desc *out, const wnn_operand_desc *const *in,
                        uint32_t n_in)
{
    wnn__broadcast_plan plan;
    wnn__broadcast_plan_make(&plan, out, in, n_in);
    memset(p, 0, sizeof *p);
    p->rank = plan.rank;
    p->n_in = n_in;
    p->count = wnn__shape_count(out);
    p->flat = 1;
    for (uint32_t k = 0; k < n_in; k++) {
        uint64_t c = wnn__shape_count(in[k]);
        if (c == 1 && p->count != 1)
            p->scalar_mask |= 1u << k;
        else if (c != p->count)
            p->flat = 0;
    }
    /* every size fits 32 bits: the builder refused more than 2^31-1 elements */
    for (uint32_t i = 0; i < plan.rank; i++) {
        p->shape[i] = (uint32_t)plan.shape[i];
        for (uint32_t k = 0; k < n_in; k++)
            p->stride[k][i] = (uint32_t)plan.stride[k][i];
    }
}

wnn_status wnn__cu_run_binary(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const wnn__cu_binary_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_binary(x->stream, p->op, p->t, &p->b, in_ptr(x, n, 0), in_ptr(x, n, 1),
                                         out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_binary(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn_data_type t = in_desc(ir, node, 0)->data_type;
    if (node->n_in != 2 || !has_in(node, 1) || !wnn__cu_binary_supported(node->op, t))
        return WNN_STATUS_NOT_SUPPORTED;
    wnn__cu_binary_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    const wnn_operand_desc *in[2] = {in_desc(ir, node, 0), in_desc(ir, node, 1)};
    p->op = node->op;
    p->t = t;
    wnn__cu_make_bcast(&p->b, out_desc(ir, node, 0), in, 2);
    n->run = wnn__cu_run_binary;
    return WNN_OK;
}

typedef struct where_plan {
    uint32_t size;
    wnn__cu_bcast b;
} where_plan;

static wnn_status run_where(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const where_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_where(x->stream, p->size, &p->b, in_ptr(x, n, 0), in_ptr(x, n, 1),
                                        in_ptr(x, n, 2), out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_where(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn_data_type t = out_desc(ir, node, 0)->data_type;
    if (node->n_in != 3 || !has_in(node, 1) || !has_in(node, 2) || !is_element_type(t) ||
        in_desc(ir, node, 0)->data_type != WNN_DATA_TYPE_UINT8)
        return WNN_STATUS_NOT_SUPPORTED;
    where_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    const wnn_operand_desc *in[3] = {in_desc(ir, node, 0), in_desc(ir, node, 1), in_desc(ir, node, 2)};
    p->size = elem_size(t);
    wnn__cu_make_bcast(&p->b, out_desc(ir, node, 0), in, 3);
    n->run = run_where;
    return WNN_OK;
}

/* ---- unary, clamp, cast --------------------------------------------------------------- */

wnn_status wnn__cu_run_unary(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const wnn__cu_unary_plan *p = n->plan;
    return wnn__cu_status(
        wnn__cu_unary(x->stream, p->op, p->t, p->count, p->alpha, p->beta, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_unary(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn_data_type t = in_desc(ir, node, 0)->data_type;
    if (!wnn__cu_unary_supported(node->op, t))
        return WNN_STATUS_NOT_SUPPORTED;
    wnn__cu_unary_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->op = node->op;
    p->t = t;
    p->count = wnn__shape_count(out_desc(ir, node, 0));
    if (node->op == WNN__OP_ELU || node->op == WNN__OP_HARD_SIGMOID || node->op == WNN__OP_LEAKY_RELU ||
        node->op == WNN__OP_LINEAR) {
        p->alpha = node->attrs.activation.alpha;
        p->beta = node->attrs.activation.beta;
    }
    n->run = wnn__cu_run_unary;
    return WNN_OK;
}

/* ---- gelu as exporters spell it (backends/gelu.h) ----------------------------------- */

typedef struct gelu_plan {
    wnn__cu_unary_plan u;
    uint32_t x; /* the chain's input */
} gelu_plan;

static wnn_status run_gelu_chain(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gelu_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_unary(x->stream, WNN__OP_GELU, p->u.t, p->u.count, 0.0, 0.0, x->ptr[p->x],
                                        out_ptr(x, n, 0)));
}

/* Drops node n's plan; it no longer runs. */
static void drop_plan(wnn__cu_node *n)
{
    if (n->release && n->plan)
        n->release(n->plan);
    free(n->plan);
    n->plan = NULL;
    n->release = NULL;
    n->run = NULL;
    n->scratch_bytes = 0;
}

wnn_status wnn__cu_gelu_fold(const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos)
{
    uint32_t nn = ir->n_nodes ? ir->n_nodes : 1, nv = ir->n_values ? ir->n_values : 1;
    int32_t *output_of = malloc(nv * sizeof *output_of);
    bool *taken = calloc(nn, sizeof *taken);
    uint32_t *gelu_of = malloc(nn * sizeof *gelu_of), *at = malloc(nn * sizeof *at);
    wnn_status s = output_of && taken && gelu_of && at ? WNN_OK : WNN_STATUS_OUT_OF_MEMORY;
    if (s == WNN_OK) {
        for (uint32_t v = 0; v < nv; v++)
            output_of[v] = -1;
        for (uint32_t i = 0; i < ir->n_outputs; i++)
            output_of[ir->output_values[i]] = (int32_t)i;
        for (uint32_t n = 0; n < ir->n_nodes; n++) {
            taken[n] = pos[n] != n || !nodes[n].run;
            gelu_of[n] = at[n] = WNN__NONE;
        }
        wnn__gelu_find(ir, output_of, taken, gelu_of, at);
    }
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++) {
        if (at[n] != WNN__NONE) { /* a node the chain skips runs at the one computing its result */
            drop_plan(&nodes[n]);
            internal[ir->nodes[n].out[0]] = true;
            pos[n] = at[n];
            continue;
        }
        if (gelu_of[n] == WNN__NONE)
            continue;
        const wnn__node *node = &ir->nodes[n];
        wnn_data_type t = out_desc(ir, node, 0)->data_type;
        gelu_plan *p = calloc(1, sizeof *p);
        if (!p) {
            s = WNN_STATUS_OUT_OF_MEMORY;
            break;
        }
        p->u = (wnn__cu_unary_plan){WNN__OP_GELU, t, wnn__shape_count(out_desc(ir, node, 0)), 0.0, 0.0};
        p->x = gelu_of[n];
        drop_plan(&nodes[n]);
        nodes[n].plan = p;
        nodes[n].run = run_gelu_chain;
    }
    free(output_of);
    free(taken);
    free(gelu_of);
    free(at);
    return s;
}

typedef struct clamp_plan {
    wnn_data_type t;
    uint64_t count;
    wnn__cu_clamp c;
} clamp_plan;

static wnn_status run_clamp(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const clamp_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_clamp_run(x->stream, p->t, p->count, p->c, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_clamp(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn_data_type t = in_desc(ir, node, 0)->data_type;
    if (!wnn__cu_clamp_supported(t))
        return WNN_STATUS_NOT_SUPPORTED;
    clamp_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = t;
    p->count = wnn__shape_count(out_desc(ir, node, 0));
    /* a NaN bound clamps nothing */
    p->c.lo = isnan(node->attrs.clamp.min_value) ? -INFINITY : node->attrs.clamp.min_value;
    p->c.hi = isnan(node->attrs.clamp.max_value) ? INFINITY : node->attrs.clamp.max_value;
    p->c.lo_bits = node->attrs.clamp.lo;
    p->c.hi_bits = node->attrs.clamp.hi;
    n->run = run_clamp;
    return WNN_OK;
}

typedef struct cast_plan {
    wnn_data_type from, to;
    uint64_t count;
} cast_plan;

static wnn_status run_cast(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const cast_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_cast(x->stream, p->from, p->to, p->count, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

wnn_status wnn__cu_prep_cast(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn_data_type from = in_desc(ir, node, 0)->data_type, to = out_desc(ir, node, 0)->data_type;
    if (!wnn__cu_cast_supported(from, to))
        return WNN_STATUS_NOT_SUPPORTED;
    if (from == to) /* bit-exact, NaN payloads included */
        return wnn__cu_prep_copy(ir, n);
    cast_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->from = from;
    p->to = to;
    p->count = wnn__shape_count(out_desc(ir, node, 0));
    n->run = run_cast;
    return WNN_OK;
}
