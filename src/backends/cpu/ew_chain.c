/* SPDX-License-Identifier: Apache-2.0 */
/*
** ew_chain.c -- runs of element-wise operators computed in one pass (see
** ew_chain.h).
*/
#include "backends/cpu/ew_chain.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "backends/cpu/half_simd.h"
#include "platform/pool.h"

/* Elements a block of rows holds at most (a block is one row where a row is
** longer): 32 KiB of float32, so the block stays in the cache from one node
** to the next. */
#define BLOCK_ELEMENTS ((size_t)8192)
/* Rows longer than this would not stay in the cache: no chain. */
#define MAX_INNER ((size_t)1 << 16)
/* Below this many elements the chain runs on the calling thread (a chain
** does two passes' work or more an element, so the pool pays off sooner
** than for one element-wise operator). */
#define PARALLEL_MIN ((size_t)1 << 14)

/* The operators a chain may hold: their kernels compute each element from
** the same element of each operand (after broadcasting), in place too. */
static const bool chainable[WNN__OP_COUNT] = {
    [WNN__OP_ADD] = true,         [WNN__OP_SUB] = true,         [WNN__OP_MUL] = true,
    [WNN__OP_DIV] = true,         [WNN__OP_MAX] = true,         [WNN__OP_MIN] = true,
    [WNN__OP_POW] = true,         [WNN__OP_ABS] = true,         [WNN__OP_NEG] = true,
    [WNN__OP_EXP] = true,         [WNN__OP_LOG] = true,         [WNN__OP_SQRT] = true,
    [WNN__OP_RELU] = true,        [WNN__OP_SIGMOID] = true,     [WNN__OP_TANH] = true,
    [WNN__OP_CLAMP] = true,       [WNN__OP_CEIL] = true,        [WNN__OP_FLOOR] = true,
    [WNN__OP_COS] = true,         [WNN__OP_SIN] = true,         [WNN__OP_TAN] = true,
    [WNN__OP_ERF] = true,         [WNN__OP_RECIPROCAL] = true,  [WNN__OP_ROUND_EVEN] = true,
    [WNN__OP_SIGN] = true,        [WNN__OP_IDENTITY] = true,    [WNN__OP_ELU] = true,
    [WNN__OP_GELU] = true,        [WNN__OP_HARD_SIGMOID] = true, [WNN__OP_HARD_SWISH] = true,
    [WNN__OP_LEAKY_RELU] = true,  [WNN__OP_LINEAR] = true,      [WNN__OP_SOFTPLUS] = true,
    [WNN__OP_SOFTSIGN] = true,
};

/* Unary operators whose float16 kernel is its own, not the float32 one
** rounded (gelu's shorter float16 form, vec.h): a float16 chain runs that
** kernel for them, so that its bits stay those of the nodes one by one. */
static const bool own_half_kernel[WNN__OP_COUNT] = {[WNN__OP_GELU] = true};

/* Dimension i of d seen at rank r (right-aligned, as broadcasting aligns). */
static uint32_t dim_at(const wnn_operand_desc *d, uint32_t r, uint32_t i)
{
    uint32_t off = r - d->rank;
    return i < off ? 1 : d->shape[i - off];
}

static bool same_shape(const wnn_operand_desc *a, const wnn_operand_desc *b)
{
    if (a->rank != b->rank)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

/* Whether d's dimensions before axis are out's own (else they are all 1). */
static bool rows_match(const wnn_operand_desc *d, const wnn_operand_desc *out, uint32_t axis)
{
    for (uint32_t i = 0; i < axis; i++)
        if (dim_at(d, out->rank, i) != out->shape[i])
            return false;
    return true;
}

/* The last axis before which operand d of an output of shape out is either
** out's own dimensions or all 1s. */
static uint32_t split_axis(const wnn_operand_desc *d, const wnn_operand_desc *out)
{
    uint32_t same = 0, ones = 0;
    while (same < out->rank && dim_at(d, out->rank, same) == out->shape[same])
        same++;
    while (ones < out->rank && dim_at(d, out->rank, ones) == 1)
        ones++;
    return same > ones ? same : ones;
}

/* Whether node n can be in a chain: a chainable operator whose operands and
** result are all float32, or all float16, in views (a graph computed in
** float32 views its float16 values as float32), every operand's rank at
** most the result's. */
static bool node_fits(const wnn__ir *ir, const wnn__view *views, uint32_t n)
{
    const wnn__node *node = &ir->nodes[n];
    if (!chainable[node->op] || node->n_out != 1 || node->n_in < 1 || node->n_in > 2)
        return false;
    const wnn_operand_desc *od = &views[node->out[0]].desc;
    if (od->data_type != WNN_DATA_TYPE_FLOAT32 && od->data_type != WNN_DATA_TYPE_FLOAT16)
        return false;
    for (uint32_t j = 0; j < node->n_in; j++) {
        uint32_t v = node->in[j];
        if (v == WNN__NONE || views[v].desc.data_type != od->data_type || views[v].desc.rank > od->rank)
            return false;
    }
    return true;
}

bool wnn__ew_chain_may_link(const wnn__ir *ir, const wnn__view *views, uint32_t from, uint32_t to)
{
    return node_fits(ir, views, from) && node_fits(ir, views, to) &&
           same_shape(&views[ir->nodes[to].out[0]].desc, &views[ir->nodes[from].out[0]].desc);
}

uint32_t wnn__ew_chain_reads(const wnn__ir *ir, const wnn__ew_chain *c, uint32_t *v, uint32_t max)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        const wnn__node *node = &ir->nodes[c->nodes[i]];
        uint32_t prev = i ? ir->nodes[c->nodes[i - 1]].out[0] : WNN__NONE;
        for (uint32_t j = 0; j < node->n_in; j++)
            if (node->in[j] != prev && k < max)
                v[k++] = node->in[j];
    }
    return k;
}

/* The rows and the split of chain c, from its operands; false when a row
** would be too long to stay in the cache. */
static bool split(const wnn__ir *ir, const wnn__view *views, wnn__ew_chain *c)
{
    const wnn_operand_desc *od = &views[c->out].desc;
    uint32_t axis = od->rank;
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        const wnn__node *node = &ir->nodes[c->nodes[i]];
        uint32_t prev = i ? ir->nodes[c->nodes[i - 1]].out[0] : WNN__NONE;
        for (uint32_t j = 0; j < node->n_in; j++)
            if (node->in[j] != prev) {
                uint32_t a = split_axis(&views[node->in[j]].desc, od);
                if (a < axis)
                    axis = a;
            }
    }
    c->axis = axis;
    c->rows = c->inner = 1;
    for (uint32_t i = 0; i < od->rank; i++)
        *(i < axis ? &c->rows : &c->inner) *= od->shape[i];
    return c->inner <= MAX_INNER;
}

wnn_status wnn__ew_chain_find(const wnn__ir *ir, const wnn__view *views, const int32_t *output_of,
                              const bool *eligible, bool *fused, uint32_t *at, wnn__ew_chain **out,
                              uint32_t *count)
{
    *out = NULL;
    *count = 0;
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    uint32_t *uses = calloc(nv, sizeof *uses), *reader = malloc(nv * sizeof *reader);
    bool *taken = calloc(ir->n_nodes ? ir->n_nodes : 1, sizeof *taken);
    wnn__ew_chain *chains = NULL;
    uint32_t n_chains = 0, cap = 0;
    wnn_status s = uses && reader && taken ? WNN_OK : WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] != WNN__NONE) {
                uses[ir->nodes[n].in[j]]++;
                reader[ir->nodes[n].in[j]] = n;
            }
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++) {
        if (taken[n] || fused[n] || !eligible[n] || !node_fits(ir, views, n))
            continue;
        wnn__ew_chain c = {.nodes = {n}, .n_nodes = 1, .out = ir->nodes[n].out[0]};
        while (c.n_nodes < WNN__CHAIN_MAX) {
            uint32_t v = c.out;
            if (uses[v] != 1 || output_of[v] >= 0)
                break;
            uint32_t r = reader[v];
            const wnn__node *next = &ir->nodes[r];
            if (taken[r] || fused[r] || !eligible[r] || !node_fits(ir, views, r) ||
                !same_shape(&views[next->out[0]].desc, &views[v].desc))
                break;
            c.nodes[c.n_nodes++] = r;
            c.out = next->out[0];
        }
        if (c.n_nodes < 2 || !split(ir, views, &c))
            continue;
        if (n_chains == cap) {
            cap = cap ? 2 * cap : 8;
            wnn__ew_chain *grown = realloc(chains, cap * sizeof *chains);
            if (!grown) {
                s = WNN_STATUS_OUT_OF_MEMORY;
                break;
            }
            chains = grown;
        }
        for (uint32_t i = 0; i < c.n_nodes; i++) {
            taken[c.nodes[i]] = true;
            if (i + 1 < c.n_nodes)
                fused[c.nodes[i]] = true;
        }
        at[c.nodes[c.n_nodes - 1]] = n_chains;
        chains[n_chains++] = c;
    }
    free(uses);
    free(reader);
    free(taken);
    if (s != WNN_OK) { /* undo: every node runs on its own */
        for (uint32_t i = 0; i < n_chains; i++)
            for (uint32_t k = 0; k < chains[i].n_nodes; k++) {
                fused[chains[i].nodes[k]] = false;
                at[chains[i].nodes[k]] = WNN__NONE;
            }
        free(chains);
        return s;
    }
    *out = chains;
    *count = n_chains;
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* Run                                                                       */
/* ------------------------------------------------------------------------ */

typedef struct chain_job {
    const wnn__ir *ir;
    const wnn__ew_chain *c;
    const wnn__view *views;
    size_t block_rows;
    atomic_int status; /* the first failure, or WNN_OK */
} chain_job;

/* v's rows [r0, r1) at the chain's split: [r1 - r0, dims after the axis]
** where its dimensions before the axis are the output's, else [1, ...]. */
static wnn__view rows_of(const wnn__view *v, const wnn_operand_desc *od, uint32_t axis, size_t r0, size_t r1)
{
    if (axis == 0) /* one row: the whole of every operand */
        return *v;
    wnn__view n = {.desc = {.data_type = v->desc.data_type, .rank = 1 + od->rank - axis}, .data = v->data};
    size_t per_row = 1;
    for (uint32_t i = axis; i < od->rank; i++) {
        uint32_t d = dim_at(&v->desc, od->rank, i);
        n.desc.shape[1 + i - axis] = d;
        per_row *= d;
    }
    if (rows_match(&v->desc, od, axis)) {
        n.desc.shape[0] = (uint32_t)(r1 - r0);
        n.data = (char *)v->data + r0 * per_row * wnn_data_type_size(v->desc.data_type);
    } else {
        n.desc.shape[0] = 1;
    }
    return n;
}

/* v as float32 at buf: the same shape, its elements widened (exactly). */
static wnn__view widened(const wnn__view *v, float *buf)
{
    wnn__view w = *v;
    w.desc.data_type = WNN_DATA_TYPE_FLOAT32;
    w.data = buf;
    wnn__half_to_float_n(buf, v->data, wnn_operand_desc_byte_length(&v->desc) / 2);
    return w;
}

static void fail(chain_job *j, wnn_status s)
{
    int ok = WNN_OK;
    atomic_compare_exchange_strong(&j->status, &ok, (int)s);
}

static void chain_range(void *arg, size_t begin, size_t end)
{
    chain_job *j = arg;
    const wnn__ew_chain *c = j->c;
    const wnn_operand_desc *od = &j->views[c->out].desc;
    /* a float16 chain runs the nodes' float32 kernels: each block's other
    ** operands widened into buf (exactly), each node's result rounded to
    ** float16 in place (narrowed and widened: what its float16 kernel
    ** returns, so the bits are those of the nodes one by one), the last
    ** narrowed into the output; the float16 kernels widened and narrowed
    ** their operands into buffers of their own at every node */
    bool half = od->data_type == WNN_DATA_TYPE_FLOAT16;
    size_t block = j->block_rows * c->inner;
    float *buf = half ? malloc(3 * block * sizeof *buf) : NULL;
    if (half && !buf) {
        fail(j, WNN_STATUS_OUT_OF_MEMORY);
        return;
    }
    for (size_t r0 = begin; r0 < end; r0 += j->block_rows) {
        size_t r1 = end - r0 < j->block_rows ? end : r0 + j->block_rows;
        wnn__view out = rows_of(&j->views[c->out], od, c->axis, r0, r1), acc = out;
        if (half)
            acc.desc.data_type = WNN_DATA_TYPE_FLOAT32, acc.data = buf;
        for (uint32_t i = 0; i < c->n_nodes; i++) {
            const wnn__node *node = &j->ir->nodes[c->nodes[i]];
            uint32_t prev = i ? j->ir->nodes[c->nodes[i - 1]].out[0] : WNN__NONE;
            wnn__view in[2], o = acc;
            if (half && own_half_kernel[node->op] && node->n_in == 1) {
                /* in float16 through buf's second third: the block narrowed
                ** (or the operand's rows as they are), the kernel, widened */
                wnn__view h = out;
                h.data = buf + block;
                wnn__view x = h;
                if (node->in[0] == prev)
                    wnn__float_to_half_n(h.data, acc.data, wnn_operand_desc_byte_length(&out.desc) / 2);
                else
                    x = rows_of(&j->views[node->in[0]], od, c->axis, r0, r1);
                wnn_status s = wnn__cpu_kernel_for(node->op)(node, &x, &h);
                if (s != WNN_OK) {
                    fail(j, s);
                    free(buf);
                    return;
                }
                wnn__half_to_float_n(acc.data, h.data, wnn_operand_desc_byte_length(&out.desc) / 2);
                continue;
            }
            for (uint32_t k = 0; k < node->n_in; k++) {
                if (node->in[k] == prev) {
                    in[k] = acc;
                    continue;
                }
                in[k] = rows_of(&j->views[node->in[k]], od, c->axis, r0, r1);
                if (half)
                    in[k] = widened(&in[k], buf + (1 + k) * block);
            }
            wnn_status s = wnn__cpu_kernel_for(node->op)(node, in, &o);
            if (s != WNN_OK) {
                fail(j, s);
                free(buf);
                return;
            }
            if (half && i + 1 < c->n_nodes)
                wnn__round_to_half_n(acc.data, wnn_operand_desc_byte_length(&out.desc) / 2);
        }
        if (half)
            wnn__float_to_half_n(out.data, acc.data, wnn_operand_desc_byte_length(&out.desc) / 2);
    }
    free(buf);
}

wnn_status wnn__k_ew_chain(const wnn__ir *ir, const wnn__ew_chain *c, const wnn__view *views)
{
    chain_job j = {.ir = ir, .c = c, .views = views};
    j.block_rows = c->inner >= BLOCK_ELEMENTS ? 1 : BLOCK_ELEMENTS / c->inner;
    atomic_init(&j.status, WNN_OK);
    if (c->rows > j.block_rows && c->rows * c->inner > PARALLEL_MIN)
        wnn__parallel_for(c->rows, j.block_rows, chain_range, &j);
    else
        chain_range(&j, 0, c->rows);
    return (wnn_status)atomic_load(&j.status);
}
