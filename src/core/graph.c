/* SPDX-License-Identifier: Apache-2.0 */
/*
** graph.c -- build() (output checks, the graph-level memory check, compile)
** and MLGraph. The IR is ir.c's, dispatch() is dispatch.c's.
*/
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/builder.h"

/* ---- graphs ---------------------------------------------------------------- */

void wnn__graph_retain(wnn_graph *g) { atomic_fetch_add(&g->refs, 1); }

void wnn__graph_unref(wnn_graph *g)
{
    if (!g || atomic_fetch_sub(&g->refs, 1) != 1)
        return;
    wnn_context *ctx = g->ctx;
    wnn__untrack(ctx, &g->link);
    if (g->compiled)
        ctx->backend->graph_release(ctx->device, g->compiled);
    wnn__ir_free(&g->ir);
    free(g);
    wnn__context_unref(ctx);
}

void wnn__graph_kill(wnn_graph *g) { atomic_store(&g->destroyed, true); }

/* How the context's destroy reaches a graph (wnn__tracked). */
#define GRAPH_OF(x) ((wnn_graph *)((char *)(x) - offsetof(wnn_graph, link)))
static void tracked_retain(wnn__tracked *x) { wnn__graph_retain(GRAPH_OF(x)); }
static void tracked_unref(wnn__tracked *x) { wnn__graph_unref(GRAPH_OF(x)); }
static void tracked_kill(wnn__tracked *x) { wnn__graph_kill(GRAPH_OF(x)); }
static bool tracked_killed(const wnn__tracked *x) { return atomic_load(&GRAPH_OF(x)->destroyed); }
static const wnn__tracked_ops tracked_graph = {tracked_retain, tracked_unref, tracked_kill, tracked_killed};

void wnn_graph_destroy(wnn_graph *g)
{
    if (g)
        wnn__graph_kill(g);
}

void wnn_graph_release(wnn_graph *g)
{
    if (!g)
        return;
    wnn__graph_kill(g);
    wnn__graph_unref(g);
}

uint32_t wnn_graph_input_count(const wnn_graph *g) { return g ? g->ir.n_inputs : 0; }
uint32_t wnn_graph_output_count(const wnn_graph *g) { return g ? g->ir.n_outputs : 0; }

static wnn_status get_binding(const wnn_graph *g, uint32_t index, bool input, const char **name,
                              wnn_operand_desc *desc)
{
    uint32_t n = input ? wnn_graph_input_count(g) : wnn_graph_output_count(g);
    if (!g || index >= n)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_graph_get_%s: no %s %u", input ? "input" : "output",
                         input ? "input" : "output", index);
    uint32_t v = input ? g->ir.input_values[index] : g->ir.output_values[index];
    if (name)
        *name = input ? g->ir.input_names[index] : g->ir.output_names[index];
    if (desc)
        *desc = g->ir.values[v].desc;
    return WNN_OK;
}

wnn_status wnn_graph_get_input(const wnn_graph *g, uint32_t i, const char **name, wnn_operand_desc *desc)
{
    return get_binding(g, i, true, name, desc);
}

wnn_status wnn_graph_get_output(const wnn_graph *g, uint32_t i, const char **name, wnn_operand_desc *desc)
{
    return get_binding(g, i, false, name, desc);
}

/* ---- build ------------------------------------------------------------------- */

static wnn_status check_outputs(wnn_graph_builder *b, const wnn_named_operand *outputs, size_t n)
{
    static const char fn[] = "wnn_graph_builder_build";
    if (n == 0 || !outputs)
        return wnn__fail(WNN_STATUS_NAME_MISMATCH, "%s: no outputs", fn);
    for (size_t i = 0; i < n; i++) {
        const wnn_operand *x = outputs[i].operand;
        if (!outputs[i].name || !outputs[i].name[0])
            return wnn__fail(WNN_STATUS_NAME_MISMATCH, "%s: output %zu has an empty name", fn, i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(outputs[j].name, outputs[i].name) == 0)
                return wnn__fail(WNN_STATUS_NAME_MISMATCH, "%s: output name \"%s\" is repeated", fn,
                                 outputs[i].name);
        if (!x)
            return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: output \"%s\" is NULL", fn, outputs[i].name);
        if (x->builder != b)
            return wnn__fail(WNN_STATUS_WRONG_CONTEXT, "%s: output \"%s\" belongs to another builder", fn,
                             outputs[i].name);
        if (b->values[x->value].kind != WNN__VALUE_NODE)
            return wnn__fail(WNN_STATUS_INVALID_ARGUMENT,
                             "%s: output \"%s\" is an input or constant operand (use identity)", fn,
                             outputs[i].name);
    }
    for (uint32_t v = 0; v < b->n_values; v++)
        if (b->const_tensors[v] && atomic_load(&b->const_tensors[v]->destroyed))
            return wnn__fail(wnn__destroyed_status(b->ctx), "%s: a constant tensor was destroyed before build", fn);
    return WNN_OK;
}

/* The memory a graph may use on ctx: the context's memory limit, else the
** device's memory, else (cpu, null) the host's physical memory; 0 if unknown. */
static uint64_t memory_budget(const wnn_context *ctx)
{
    if (ctx->alloc.limit)
        return ctx->alloc.limit;
    if (ctx->info.memory_bytes)
        return ctx->info.memory_bytes;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

/* The graph-level limits, before a backend sees the IR: no value over the
** device's maxTensorByteLength, and the least memory any execution needs --
** the constants plus the peak of intermediates alive together in node order
** -- within the budget. A few small inputs can describe terabytes of
** intermediates; this refuses them with a clear status instead of trying. */
static wnn_status check_memory(const wnn_context *ctx, const wnn__ir *ir)
{
    static const char fn[] = "wnn_graph_builder_build";
    uint32_t *last = malloc(sizeof *last * (ir->n_values ? ir->n_values : 1));
    if (!last)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    uint64_t constants = 0;
    for (uint32_t v = 0; v < ir->n_values; v++) {
        uint64_t bytes = wnn_operand_desc_byte_length(&ir->values[v].desc);
        if (bytes > ctx->info.max_tensor_byte_length) {
            free(last);
            return wnn__fail(WNN_STATUS_TENSOR_TOO_LARGE, "%s: an operand of %llu bytes is over the limit of %llu on \"%s\"",
                             fn, (unsigned long long)bytes, (unsigned long long)ctx->info.max_tensor_byte_length,
                             ctx->info.name);
        }
        if (ir->values[v].kind == WNN__VALUE_CONSTANT)
            constants += bytes;
    }
    wnn__ir_last_use(ir, last);
    for (uint32_t k = 0; k < ir->n_outputs; k++)
        last[ir->output_values[k]] = UINT32_MAX; /* outputs live to the end */
    uint64_t live = 0, peak = 0;
    for (uint32_t i = 0; i < ir->n_nodes; i++) {
        const wnn__node *node = &ir->nodes[i];
        for (uint32_t k = 0; k < node->n_out; k++)
            live += wnn_operand_desc_byte_length(&ir->values[node->out[k]].desc);
        if (live > peak)
            peak = live;
        for (uint32_t k = 0; k < node->n_out; k++)
            if (last[node->out[k]] <= i) /* produced and never read */
                live -= wnn_operand_desc_byte_length(&ir->values[node->out[k]].desc);
        for (uint32_t k = 0; k < node->n_in; k++) {
            uint32_t v = node->in[k];
            if (v != WNN__NONE && ir->values[v].kind == WNN__VALUE_NODE && last[v] == i) {
                live -= wnn_operand_desc_byte_length(&ir->values[v].desc);
                last[v] = UINT32_MAX - 1; /* counted once if read twice by this node */
            }
        }
    }
    free(last);
    uint64_t budget = memory_budget(ctx), need = constants + peak;
    if (budget && need > budget)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY,
                         "%s: the graph needs at least %llu bytes (constants and the intermediates alive together), "
                         "\"%s\" has %llu",
                         fn, (unsigned long long)need, ctx->info.name, (unsigned long long)budget);
    return WNN_OK;
}

wnn_status wnn_graph_builder_build(wnn_graph_builder *b, const wnn_named_operand *outputs, size_t n,
                                   wnn_graph **out)
{
    static const char fn[] = "wnn_graph_builder_build";
    if (!b || !out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %s is NULL", fn, b ? "out" : "builder");
    *out = NULL;
    if (b->built)
        return wnn__fail(WNN_STATUS_ALREADY_BUILT, "%s: the builder has already built a graph", fn);
    if (atomic_load(&b->ctx->lost))
        return wnn__fail(WNN_STATUS_CONTEXT_LOST, "%s: context is lost", fn);
    /* WebNN (and Chromium) validate the outputs before setting hasBuilt, so
    ** a refused call leaves the builder usable; from here on the builder is
    ** used up even if compiling fails. */
    if (b->status != WNN_OK)
        return wnn__fail(b->status, "%s: an earlier builder call failed: %s", fn, b->message);
    wnn_status s = check_outputs(b, outputs, n);
    if (s != WNN_OK)
        return s;
    b->built = true;

    wnn_context *ctx = b->ctx;
    wnn_graph *g = calloc(1, sizeof *g);
    if (!g)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    if ((s = wnn__ir_extract(b, outputs, n, &g->ir)) != WNN_OK) {
        free(g);
        return wnn__fail(s, "%s: out of memory", fn);
    }
    if ((s = check_memory(ctx, &g->ir)) != WNN_OK) {
        wnn__ir_free(&g->ir);
        free(g);
        return s;
    }
    if ((s = ctx->backend->graph_compile(ctx->device, &ctx->alloc, &g->ir, &g->compiled)) != WNN_OK) {
        wnn__ir_free(&g->ir);
        free(g);
        if (s != WNN_STATUS_OUT_OF_MEMORY && s != WNN_STATUS_NOT_SUPPORTED)
            s = WNN_STATUS_OPERATION_ERROR;
        return wnn__fail(s, "%s: device \"%s\" cannot compile the graph", fn, ctx->info.name);
    }
    atomic_init(&g->refs, 1);
    atomic_init(&g->destroyed, false);
    wnn__context_retain(ctx);
    g->ctx = ctx;
    wnn__track(ctx, &g->link, &tracked_graph);
    *out = g;
    return WNN_OK;
}

