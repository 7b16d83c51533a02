/* SPDX-License-Identifier: Apache-2.0 */
/*
** cpu_graph.c -- plans the memory of a graph's intermediates and runs its
** nodes in order with the cpu kernels.
**
** Intermediates share one arena: each gets an offset chosen first-fit among
** the blocks alive at its producing node, and its block is free again after
** its last consumer, so a long chain needs about two intermediates of memory.
**
** Before planning, nodes that oneDNN computes faster (dnnl.h) are compiled
** into primitives, and the nodes they fold in are skipped: their
** intermediates get no memory, and the chain's last value is placed where
** its first node runs, since that node writes it.
*/
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_graph.h"
#include "backends/cpu/dnnl.h"
#include "backends/cpu/kernels.h"
#include "memory/arena.h"

#define ALIGN 64

struct wnn__cpu_graph {
    const wnn__ir *ir;
    size_t *offset;      /* per value: arena offset, or SIZE_MAX if bound elsewhere */
    int32_t *output_of;  /* per value: the first graph output it is, or -1 */
    void *arena;         /* bound by the device, which owns it */
    size_t arena_size;
    wnn__view *views;    /* per value, refreshed by each run */
    wnn__view *scratch;  /* kernel argument arrays */
    uint32_t max_args;
    wnn__dnnl_node **dnnl; /* per node: its oneDNN primitive, or NULL */
    bool *fused;           /* per node: computed by an earlier node's primitive */
};

static wnn_status plan(wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    uint32_t *last_use = malloc(sizeof *last_use * (ir->n_values ? ir->n_values : 1));
    wnn__arena_block *live = malloc(sizeof *live * (ir->n_values ? ir->n_values : 1));
    if (!last_use || !live) {
        free(last_use);
        free(live);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    wnn__ir_last_use(ir, last_use);

    uint32_t n_live = 0;
    size_t top = 0;
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        for (uint32_t j = 0; j < node->n_out && !g->fused[n]; j++) {
            uint32_t v = g->dnnl[n] ? wnn__dnnl_node_output(g->dnnl[n]) : node->out[j];
            if (g->output_of[v] >= 0)
                continue;
            size_t size = (size_t)wnn_operand_desc_byte_length(&ir->values[v].desc);
            size = (size + ALIGN - 1) / ALIGN * ALIGN;
            g->offset[v] = wnn__arena_place(live, &n_live, size ? size : ALIGN, v);
            if (g->offset[v] + size > top)
                top = g->offset[v] + size;
        }
        /* blocks whose last reader is this node are free for the next one */
        for (uint32_t j = 0; j < node->n_in; j++)
            if (node->in[j] != WNN__NONE && last_use[node->in[j]] == n && g->offset[node->in[j]] != SIZE_MAX)
                wnn__arena_unplace(live, &n_live, node->in[j]);
        for (uint32_t j = 0; j < node->n_out; j++)
            if (last_use[node->out[j]] == n && g->offset[node->out[j]] != SIZE_MAX)
                wnn__arena_unplace(live, &n_live, node->out[j]);
    }
    g->arena_size = top;
    free(last_use);
    free(live);
    return WNN_OK;
}

/* Compiles the nodes oneDNN takes (see dnnl.h); the others keep their
** portable kernels. */
static wnn_status compile_dnnl(wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    uint32_t *uses = calloc(ir->n_values ? ir->n_values : 1, sizeof *uses);
    bool *is_output = calloc(ir->n_values ? ir->n_values : 1, sizeof *is_output);
    wnn_status s = uses && is_output ? WNN_OK : WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] != WNN__NONE)
                uses[ir->nodes[n].in[j]]++;
    for (uint32_t i = 0; s == WNN_OK && i < ir->n_outputs; i++)
        is_output[ir->output_values[i]] = true;
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++)
        if (!g->fused[n])
            s = wnn__dnnl_compile(ir, n, uses, is_output, g->fused, &g->dnnl[n]);
    free(uses);
    free(is_output);
    return s;
}

wnn_status wnn__cpu_graph_plan(const wnn__ir *ir, wnn__cpu_graph **out)
{
    *out = NULL;
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        if (!wnn__cpu_kernel_for(node->op))
            return WNN_STATUS_NOT_SUPPORTED;
        if (!wnn__cpu_kernel_packs_4bit(node->op))
            for (uint32_t j = 0; j < node->n_in + node->n_out; j++) {
                uint32_t v = j < node->n_in ? node->in[j] : node->out[j - node->n_in];
                wnn_data_type t = v == WNN__NONE ? WNN_DATA_TYPE_FLOAT32 : ir->values[v].desc.data_type;
                if (t == WNN_DATA_TYPE_INT4 || t == WNN_DATA_TYPE_UINT4)
                    return WNN_STATUS_NOT_SUPPORTED;
            }
    }
    wnn__cpu_graph *g = calloc(1, sizeof *g);
    if (!g)
        return WNN_STATUS_OUT_OF_MEMORY;
    g->ir = ir;
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        uint32_t args = ir->nodes[n].n_in + ir->nodes[n].n_out;
        if (args > g->max_args)
            g->max_args = args;
    }
    g->offset = malloc(sizeof *g->offset * nv);
    g->output_of = malloc(sizeof *g->output_of * nv);
    g->views = calloc(nv, sizeof *g->views);
    g->scratch = calloc(g->max_args ? g->max_args : 1, sizeof *g->scratch);
    g->dnnl = calloc(ir->n_nodes ? ir->n_nodes : 1, sizeof *g->dnnl);
    g->fused = calloc(ir->n_nodes ? ir->n_nodes : 1, sizeof *g->fused);
    if (!g->offset || !g->output_of || !g->views || !g->scratch || !g->dnnl || !g->fused) {
        wnn__cpu_graph_free(g);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    for (uint32_t v = 0; v < ir->n_values; v++) {
        g->offset[v] = SIZE_MAX;
        g->output_of[v] = -1;
        g->views[v].desc = ir->values[v].desc;
        if (ir->values[v].kind == WNN__VALUE_CONSTANT)
            g->views[v].data = ir->values[v].data;
    }
    for (uint32_t i = ir->n_outputs; i-- > 0;)
        g->output_of[ir->output_values[i]] = (int32_t)i;
    wnn_status s = compile_dnnl(g);
    if (s == WNN_OK)
        s = plan(g);
    if (s != WNN_OK) {
        wnn__cpu_graph_free(g);
        return s;
    }
    *out = g;
    return WNN_OK;
}

size_t wnn__cpu_graph_arena_size(const wnn__cpu_graph *g) { return g->arena_size; }

void wnn__cpu_graph_counts(const wnn__cpu_graph *g, uint32_t *n_inputs, uint32_t *n_outputs)
{
    *n_inputs = g->ir->n_inputs;
    *n_outputs = g->ir->n_outputs;
}

void wnn__cpu_graph_bind(wnn__cpu_graph *g, void *arena, void *const *constants)
{
    g->arena = arena;
    for (uint32_t v = 0; constants && v < g->ir->n_values; v++)
        if (g->ir->values[v].kind == WNN__VALUE_CONSTANT)
            g->views[v].data = constants[v];
}

void wnn__cpu_graph_free(wnn__cpu_graph *g)
{
    if (!g)
        return;
    free(g->offset);
    free(g->output_of);
    free(g->views);
    free(g->scratch);
    for (uint32_t n = 0; g->dnnl && n < g->ir->n_nodes; n++)
        wnn__dnnl_free(g->dnnl[n]);
    free(g->dnnl);
    free(g->fused);
    free(g);
}

wnn_status wnn__cpu_graph_run(wnn__cpu_graph *g, void *const *inputs, void *const *outputs)
{
    const wnn__ir *ir = g->ir;
    for (uint32_t i = 0; i < ir->n_inputs; i++)
        g->views[ir->input_values[i]].data = inputs[i];
    for (uint32_t v = 0; v < ir->n_values; v++) {
        if (g->output_of[v] >= 0)
            g->views[v].data = outputs[g->output_of[v]];
        else if (g->offset[v] != SIZE_MAX)
            g->views[v].data = (char *)g->arena + g->offset[v];
    }
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        if (g->fused[n])
            continue;
        if (g->dnnl[n]) {
            wnn_status s = wnn__dnnl_run(g->dnnl[n], g->views);
            if (s != WNN_OK)
                return s;
            continue;
        }
        wnn__view *in = g->scratch, *out = g->scratch + node->n_in;
        for (uint32_t j = 0; j < node->n_in; j++) {
            if (node->in[j] == WNN__NONE)
                in[j] = (wnn__view){{WNN_DATA_TYPE_INVALID, 0, {0}}, NULL};
            else
                in[j] = g->views[node->in[j]];
        }
        for (uint32_t j = 0; j < node->n_out; j++)
            out[j] = g->views[node->out[j]];
        wnn_status s = wnn__cpu_kernel_for(node->op)(node, in, out);
        if (s != WNN_OK)
            return s;
    }
    /* one operand under several output names: copy to the later ones */
    for (uint32_t i = 0; i < ir->n_outputs; i++) {
        uint32_t v = ir->output_values[i];
        if (g->output_of[v] != (int32_t)i)
            memcpy(outputs[i], outputs[g->output_of[v]], (size_t)wnn_operand_desc_byte_length(&ir->values[v].desc));
    }
    return WNN_OK;
}
