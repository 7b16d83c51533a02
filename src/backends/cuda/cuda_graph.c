/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_graph.c -- compiled graphs of the cuda devices: planning, upload,
** launch, and capture into CUDA graphs.
**
** A compiled graph is a list of prepared nodes (ops_table.c), with conv2d
** moved to cuDNN where it loads (cuda_dnn.c) and runs of element-wise nodes
** fused into one kernel each (fusion.c), plus one arena
** for every intermediate and every node's scratch, planned first-fit over
** the nodes' lifetimes (reshape-like nodes alias their input, fused
** intermediates live in registers). A dispatch resolves each value's
** pointer and launches the nodes on the stream; when the same graph runs a
** third time with the same tensors, the launches are captured into a CUDA
** graph and replayed from then on (CU_CAPTURES bindings are cached per
** compiled graph).
*/
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"
#include "memory/allocator.h"
#include "memory/arena.h"

#define CU_ALIGN ((size_t)256)
#define CU_CAPTURES 4      /* bindings cached per compiled graph */
#define CU_CAPTURE_AFTER 2 /* identical launches before a capture */

/* ---- graphs: planning ------------------------------------------------------- */

enum { LOC_NONE, LOC_INPUT, LOC_OUTPUT, LOC_ARENA, LOC_CONSTANT, LOC_ALIAS };

typedef struct cu_capture {
    void **key; /* inputs then outputs */
    uint32_t hits;
    bool failed; /* capture did not work for this binding: launch */
    cudaGraphExec_t exec;
    uint64_t stamp;
} cu_capture;

typedef struct cu_graph {
    const wnn__ir *ir;
    wnn__allocator *alloc;
    wnn__cu_node *nodes;
    uint8_t *loc;      /* per value: LOC_* */
    size_t *at;        /* per value: input/output index, arena offset, or alias source */
    size_t *off;       /* per alias: its byte offset into its source */
    void **constants;  /* per value: device copy of a constant */
    size_t *const_blocks;
    void *arena;
    size_t arena_block, arena_size;
    void **ptr;        /* per value, resolved by each run */
    uint32_t n_keys;   /* inputs + outputs */
    cu_capture captures[CU_CAPTURES];
    uint64_t clock;
} cu_graph;

static uint32_t root_of(const cu_graph *g, uint32_t v)
{
    while (g->loc[v] == LOC_ALIAS)
        v = (uint32_t)g->at[v];
    return v;
}

/* The byte offset of alias v into its root's memory. */
static size_t offset_in_root(const cu_graph *g, uint32_t v)
{
    size_t off = 0;
    for (; g->loc[v] == LOC_ALIAS; v = (uint32_t)g->at[v])
        off += g->off[v];
    return off;
}

static size_t aligned(size_t n) { return (n + CU_ALIGN - 1) / CU_ALIGN * CU_ALIGN; }

/* Decides where every value lives and places intermediates and scratch in
** one arena. Values of a fused run that stay in registers (internal) get no
** memory; pos[n] is where node n's work happens (a fused run's last node). */
static wnn_status plan_memory(cu_graph *g, const bool *internal, const uint32_t *pos)
{
    const wnn__ir *ir = g->ir;
    uint32_t nv = ir->n_values, nn = ir->n_nodes;
    for (uint32_t v = 0; v < nv; v++) {
        const wnn__value *val = &ir->values[v];
        g->loc[v] = val->kind == WNN__VALUE_INPUT      ? LOC_INPUT
                    : val->kind == WNN__VALUE_CONSTANT ? LOC_CONSTANT
                    : internal[v]                      ? LOC_NONE
                                                       : LOC_ARENA;
        g->at[v] = val->kind == WNN__VALUE_INPUT ? val->index : 0;
    }
    for (uint32_t i = ir->n_outputs; i-- > 0;) {
        g->loc[ir->output_values[i]] = LOC_OUTPUT;
        g->at[ir->output_values[i]] = i;
    }
    /* reshape-like nodes share their input's memory, and contiguous slices
    ** and gathers of one index are views into it at an offset (of values in
    ** the arena, at its alignment, which kernels and cuBLAS count on: an
    ** input's memory may be aligned to its element only), unless their
    ** output is a graph output (which has memory of its own) */
    for (uint32_t n = 0; n < nn; n++) {
        wnn__cu_node *cn = &g->nodes[n];
        const wnn__node *node = cn->node;
        if (cn->alias && node->n_in >= 1 && node->in[0] != WNN__NONE && node->n_out == 1 &&
            g->loc[node->out[0]] == LOC_ARENA &&
            (cn->alias_offset == 0 ||
             (cn->alias_offset % CU_ALIGN == 0 && g->loc[root_of(g, node->in[0])] == LOC_ARENA))) {
            g->loc[node->out[0]] = LOC_ALIAS;
            g->at[node->out[0]] = node->in[0];
            g->off[node->out[0]] = cn->alias_offset;
            cn->run = NULL;
        }
    }

    uint32_t *last_use = malloc(sizeof *last_use * (nv ? nv : 1));
    wnn__arena_block *live = malloc(sizeof *live * (nv + nn + 1));
    if (!last_use || !live) {
        free(last_use);
        free(live);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    for (uint32_t v = 0; v < nv; v++)
        last_use[v] = ir->values[v].kind == WNN__VALUE_NODE ? pos[ir->values[v].index] : 0;
    for (uint32_t n = 0; n < nn; n++) {
        const wnn__node *node = &ir->nodes[n];
        for (uint32_t j = 0; j < node->n_in; j++)
            if (node->in[j] != WNN__NONE) {
                uint32_t r = root_of(g, node->in[j]);
                if (last_use[r] < pos[n])
                    last_use[r] = pos[n];
            }
        for (uint32_t j = 0; j < node->n_out; j++) {
            uint32_t r = root_of(g, node->out[j]);
            if (last_use[r] < pos[n])
                last_use[r] = pos[n];
        }
    }

    uint32_t n_live = 0;
    size_t top = 0;
    for (uint32_t n = 0; n < nn; n++) {
        const wnn__node *node = &ir->nodes[n];
        wnn__cu_node *cn = &g->nodes[n];
        for (uint32_t j = 0; j < node->n_out; j++) {
            uint32_t v = node->out[j];
            if (g->loc[v] != LOC_ARENA)
                continue;
            size_t size = aligned((size_t)wnn_operand_desc_byte_length(&ir->values[v].desc));
            if (!size)
                size = CU_ALIGN;
            g->at[v] = wnn__arena_place(live, &n_live, size, v);
            if (g->at[v] + size > top)
                top = g->at[v] + size;
        }
        if (cn->scratch_bytes) {
            size_t size = aligned(cn->scratch_bytes);
            cn->scratch_offset = wnn__arena_place(live, &n_live, size, nv + n);
            if (cn->scratch_offset + size > top)
                top = cn->scratch_offset + size;
            wnn__arena_unplace(live, &n_live, nv + n);
        }
        /* blocks whose last reader is this node are free for the next one */
        for (uint32_t i = 0; i < n_live;) {
            uint32_t id = live[i].id;
            if (id < nv && last_use[id] == n)
                wnn__arena_unplace(live, &n_live, id);
            else
                i++;
        }
    }
    g->arena_size = top;
    free(last_use);
    free(live);
    return WNN_OK;
}

static void drop_graph(wnn__device *d, cu_graph *g)
{
    for (int i = 0; i < CU_CAPTURES; i++) {
        if (g->captures[i].exec)
            cudaGraphExecDestroy(g->captures[i].exec);
        free(g->captures[i].key);
    }
    for (uint32_t n = 0; g->nodes && n < g->ir->n_nodes; n++) {
        wnn__cu_node *cn = &g->nodes[n];
        if (cn->release && cn->plan)
            cn->release(cn->plan);
        free(cn->plan);
        free(cn->aux_host);
        if (cn->aux)
            wnn__allocator_free(g->alloc, cn->aux, cn->aux_block);
    }
    for (uint32_t v = 0; g->constants && v < g->ir->n_values; v++)
        if (g->constants[v])
            wnn__allocator_free(g->alloc, g->constants[v], g->const_blocks[v]);
    if (g->arena)
        wnn__allocator_free(g->alloc, g->arena, g->arena_block);
    free(g->nodes);
    free(g->loc);
    free(g->at);
    free(g->off);
    free(g->constants);
    free(g->const_blocks);
    free(g->ptr);
    free(g);
}

/* Uploads n bytes into a new block of the allocator, through the stream. */
static wnn_status upload(wnn__device *d, wnn__allocator *alloc, const void *src, size_t n, void **ptr, size_t *block)
{
    return wnn__memory_upload(alloc, src, n, ptr, block);
}

wnn_status wnn__cu_graph_compile(wnn__device *d, wnn__allocator *alloc, const wnn__ir *ir, void **compiled)
{
    cu_graph *g = calloc(1, sizeof *g);
    if (!g)
        return WNN_STATUS_OUT_OF_MEMORY;
    g->ir = ir;
    g->alloc = alloc;
    g->n_keys = ir->n_inputs + ir->n_outputs;
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    g->nodes = calloc(ir->n_nodes ? ir->n_nodes : 1, sizeof *g->nodes);
    g->loc = calloc(nv, sizeof *g->loc);
    g->at = calloc(nv, sizeof *g->at);
    g->off = calloc(nv, sizeof *g->off);
    g->constants = calloc(nv, sizeof *g->constants);
    g->const_blocks = calloc(nv, sizeof *g->const_blocks);
    g->ptr = calloc(nv, sizeof *g->ptr);
    wnn_status s = WNN_OK;
    if (!g->nodes || !g->loc || !g->at || !g->off || !g->constants || !g->const_blocks || !g->ptr)
        s = WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++) {
        g->nodes[n].node = &ir->nodes[n];
        s = wnn__cu_prepare(ir, &g->nodes[n]);
    }
    bool *internal = calloc(nv, sizeof *internal);
    uint32_t *pos = malloc(sizeof *pos * (ir->n_nodes ? ir->n_nodes : 1));
    if (s == WNN_OK && (!internal || !pos))
        s = WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++)
        pos[n] = n;
    if (s == WNN_OK && d->use_cudnn)
        s = wnn__cu_dnn_convs(d, ir, g->nodes, internal, pos);
    if (s == WNN_OK && d->use_fusion)
        s = wnn__cu_attention_fold(ir, g->nodes, internal, pos);
    if (s == WNN_OK && d->use_fusion)
        s = wnn__cu_matmul_fold(ir, g->nodes, internal, pos);
    if (s == WNN_OK && d->use_fusion)
        s = wnn__cu_gelu_fold(ir, g->nodes, internal, pos);
    if (s == WNN_OK && d->use_fusion)
        s = wnn__cu_fuse(ir, g->nodes, internal, pos);
    if (s == WNN_OK)
        s = plan_memory(g, internal, pos);
    free(internal);
    free(pos);
    if (s == WNN_OK && g->arena_size)
        s = wnn__allocator_alloc(alloc, g->arena_size, &g->arena, &g->arena_block);
    /* constants and tables are uploaded once, through the queue */
    for (uint32_t v = 0; s == WNN_OK && v < ir->n_values; v++)
        if (ir->values[v].kind == WNN__VALUE_CONSTANT)
            s = upload(d, alloc, ir->values[v].data, (size_t)wnn_operand_desc_byte_length(&ir->values[v].desc),
                       &g->constants[v], &g->const_blocks[v]);
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++) {
        wnn__cu_node *cn = &g->nodes[n];
        if (!cn->aux_host)
            continue;
        s = upload(d, alloc, cn->aux_host, cn->aux_bytes, &cn->aux, &cn->aux_block);
        free(cn->aux_host);
        cn->aux_host = NULL;
    }
    if (s != WNN_OK) {
        drop_graph(d, g);
        return s;
    }
    *compiled = g;
    return WNN_OK;
}

/* Not under the device lock: freeing into the allocator takes its lock, and
** the allocator calls mem_free (which takes ours) with its lock held. */
void wnn__cu_graph_release(wnn__device *d, void *compiled)
{
    cudaSetDevice(d->ordinal);
    drop_graph(d, compiled);
}

/* ---- graphs: running ---------------------------------------------------------- */

static void resolve(cu_graph *g, void *const *inputs, void *const *outputs)
{
    const wnn__ir *ir = g->ir;
    for (uint32_t v = 0; v < ir->n_values; v++) {
        switch (g->loc[v]) {
        case LOC_INPUT: g->ptr[v] = inputs[g->at[v]]; break;
        case LOC_OUTPUT: g->ptr[v] = outputs[g->at[v]]; break;
        case LOC_ARENA: g->ptr[v] = (char *)g->arena + g->at[v]; break;
        case LOC_CONSTANT: g->ptr[v] = g->constants[v]; break;
        default: g->ptr[v] = NULL; break;
        }
    }
    for (uint32_t v = 0; v < ir->n_values; v++)
        if (g->loc[v] == LOC_ALIAS)
            g->ptr[v] = (char *)g->ptr[root_of(g, v)] + offset_in_root(g, v);
}

/* Queues every node, then copies an operand bound to several output names
** into the later ones. */
static wnn_status launch_all(wnn__device *d, cu_graph *g, void *const *outputs)
{
    const wnn__ir *ir = g->ir;
    wnn__cu_exec x = {d->stream, d->blas, g->ptr, NULL, NULL, d->dnn, d->blas_workspace};
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__cu_node *cn = &g->nodes[n];
        if (!cn->run)
            continue;
        x.scratch = cn->scratch_bytes ? (char *)g->arena + cn->scratch_offset : NULL;
        x.aux = cn->aux;
        wnn_status s = cn->run(&x, cn);
        if (s != WNN_OK)
            return s;
    }
    for (uint32_t i = 0; i < ir->n_outputs; i++) {
        uint32_t v = ir->output_values[i];
        if (g->at[v] != i) {
            size_t n = (size_t)wnn_operand_desc_byte_length(&ir->values[v].desc);
            wnn_status s = wnn__cu_status(
                cudaMemcpyAsync(outputs[i], outputs[g->at[v]], n, cudaMemcpyDeviceToDevice, d->stream));
            if (s != WNN_OK)
                return s;
        }
    }
    return WNN_OK;
}

/* The cache entry of this binding, made (evicting the least recently used)
** when new. */
static cu_capture *capture_for(cu_graph *g, void *const *inputs, void *const *outputs)
{
    const wnn__ir *ir = g->ir;
    cu_capture *oldest = &g->captures[0];
    for (int i = 0; i < CU_CAPTURES; i++) {
        cu_capture *c = &g->captures[i];
        if (c->key && memcmp(c->key, inputs, sizeof *inputs * ir->n_inputs) == 0 &&
            memcmp(c->key + ir->n_inputs, outputs, sizeof *outputs * ir->n_outputs) == 0) {
            c->stamp = ++g->clock;
            return c;
        }
        if (!c->key || c->stamp < oldest->stamp)
            oldest = c;
    }
    if (!oldest->key) {
        oldest->key = malloc(sizeof *oldest->key * (g->n_keys ? g->n_keys : 1));
        if (!oldest->key)
            return NULL;
    }
    if (oldest->exec)
        cudaGraphExecDestroy(oldest->exec); /* freed once its launches are done */
    memcpy(oldest->key, inputs, sizeof *inputs * ir->n_inputs);
    memcpy(oldest->key + ir->n_inputs, outputs, sizeof *outputs * ir->n_outputs);
    oldest->hits = 0;
    oldest->failed = false;
    oldest->exec = NULL;
    oldest->stamp = ++g->clock;
    return oldest;
}

/* Records the launches into a CUDA graph; false when capture did not work
** (the work was then not queued). */
static bool capture(wnn__device *d, cu_graph *g, cu_capture *c, void *const *outputs, wnn_status *status)
{
    *status = WNN_OK;
    if (cudaStreamBeginCapture(d->stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    wnn_status s = launch_all(d, g, outputs);
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamEndCapture(d->stream, &graph);
    if (s != WNN_OK || e != cudaSuccess || !graph) {
        if (graph)
            cudaGraphDestroy(graph);
        (void)cudaGetLastError();
        return false;
    }
    e = cudaGraphInstantiate(&c->exec, graph, 0);
    cudaGraphDestroy(graph);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        c->exec = NULL;
        return false;
    }
    *status = wnn__cu_status(cudaGraphLaunch(c->exec, d->stream));
    return true;
}

wnn_status wnn__cu_graph_execute(wnn__device *d, void *compiled, void *const *inputs, void *const *outputs)
{
    cu_graph *g = compiled;
    wnn__cu_lock(d);
    resolve(g, inputs, outputs);
    wnn_status s = WNN_OK;
    cu_capture *c = d->use_graphs ? capture_for(g, inputs, outputs) : NULL;
    if (c && c->exec) {
        s = wnn__cu_status(cudaGraphLaunch(c->exec, d->stream));
    } else if (c && !c->failed && ++c->hits > CU_CAPTURE_AFTER) {
        if (!capture(d, g, c, outputs, &s)) {
            c->failed = true;
            s = launch_all(d, g, outputs);
        }
    } else {
        s = launch_all(d, g, outputs);
    }
    wnn__cu_unlock(d);
    return s;
}
