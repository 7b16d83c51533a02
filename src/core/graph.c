/* SPDX-License-Identifier: Apache-2.0 */
/*
** graph.c -- build() (output checks, IR extraction, compile), MLGraph, and
** dispatch() with every WebNN binding check.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/builder.h"

/* ---- IR ------------------------------------------------------------------ */

void wnn__ir_free(wnn__ir *ir)
{
    for (uint32_t i = 0; i < ir->n_values; i++)
        free(ir->values[i].data);
    for (uint32_t i = 0; i < ir->n_nodes; i++) {
        free(ir->nodes[i].in);
        free(ir->nodes[i].out);
    }
    for (uint32_t i = 0; i < ir->n_inputs; i++)
        free(ir->input_names[i]);
    for (uint32_t i = 0; i < ir->n_outputs; i++)
        free(ir->output_names[i]);
    free(ir->values);
    free(ir->nodes);
    free(ir->input_values);
    free(ir->input_names);
    free(ir->output_values);
    free(ir->output_names);
    memset(ir, 0, sizeof *ir);
}

static void *dup_bytes(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (q && n)
        memcpy(q, p, n);
    return q;
}

wnn_status wnn__ir_extract(const wnn_graph_builder *b, const wnn_named_operand *outputs, size_t n_outputs,
                           wnn__ir *ir)
{
    memset(ir, 0, sizeof *ir);
    uint32_t *remap = malloc(sizeof *remap * (b->n_values ? b->n_values : 1));
    bool *live_node = calloc(b->n_nodes ? b->n_nodes : 1, sizeof *live_node);
    bool *live = calloc(b->n_values ? b->n_values : 1, sizeof *live);
    wnn_status s = WNN_STATUS_OUT_OF_MEMORY;
    if (!remap || !live_node || !live)
        goto done;

    /* Nodes are in topological order, so one backward pass marks everything
    ** the outputs depend on. */
    for (size_t i = 0; i < n_outputs; i++)
        live[outputs[i].operand->value] = true;
    for (uint32_t n = b->n_nodes; n-- > 0;) {
        const wnn__node *node = &b->nodes[n];
        for (uint32_t j = 0; j < node->n_out && !live_node[n]; j++)
            live_node[n] = live[node->out[j]];
        if (!live_node[n])
            continue;
        for (uint32_t j = 0; j < node->n_out; j++)
            live[node->out[j]] = true;
        for (uint32_t j = 0; j < node->n_in; j++)
            if (node->in[j] != WNN__NONE)
                live[node->in[j]] = true;
    }

    uint32_t nv = 0, nn = 0, ni = 0;
    for (uint32_t v = 0; v < b->n_values; v++) {
        remap[v] = live[v] ? nv++ : WNN__NONE;
        if (live[v] && b->values[v].kind == WNN__VALUE_INPUT)
            ni++;
    }
    for (uint32_t n = 0; n < b->n_nodes; n++)
        nn += live_node[n];

    ir->values = calloc(nv ? nv : 1, sizeof *ir->values);
    ir->nodes = calloc(nn ? nn : 1, sizeof *ir->nodes);
    ir->input_values = calloc(ni ? ni : 1, sizeof *ir->input_values);
    ir->input_names = calloc(ni ? ni : 1, sizeof *ir->input_names);
    ir->output_values = calloc(n_outputs, sizeof *ir->output_values);
    ir->output_names = calloc(n_outputs, sizeof *ir->output_names);
    if (!ir->values || !ir->nodes || !ir->input_values || !ir->input_names || !ir->output_values ||
        !ir->output_names)
        goto fail;

    for (uint32_t v = 0; v < b->n_values; v++) {
        if (!live[v])
            continue;
        wnn__value *dst = &ir->values[ir->n_values++];
        *dst = b->values[v];
        dst->data = NULL;
        if (dst->kind == WNN__VALUE_CONSTANT &&
            !(dst->data = dup_bytes(b->values[v].data, (size_t)wnn_operand_desc_byte_length(&dst->desc))))
            goto fail;
        if (dst->kind == WNN__VALUE_INPUT) {
            dst->index = ir->n_inputs;
            ir->input_values[ir->n_inputs] = remap[v];
            if (!(ir->input_names[ir->n_inputs++] = strdup(b->input_names[v])))
                goto fail;
        }
    }
    for (uint32_t n = 0; n < b->n_nodes; n++) {
        if (!live_node[n])
            continue;
        const wnn__node *src = &b->nodes[n];
        wnn__node *dst = &ir->nodes[ir->n_nodes];
        *dst = *src;
        dst->in = malloc(sizeof *dst->in * (src->n_in ? src->n_in : 1));
        dst->out = malloc(sizeof *dst->out * src->n_out);
        if (!dst->in || !dst->out) {
            free(dst->in);
            free(dst->out);
            goto fail;
        }
        for (uint32_t j = 0; j < src->n_in; j++)
            dst->in[j] = src->in[j] == WNN__NONE ? WNN__NONE : remap[src->in[j]];
        for (uint32_t j = 0; j < src->n_out; j++) {
            dst->out[j] = remap[src->out[j]];
            ir->values[dst->out[j]].index = ir->n_nodes;
        }
        ir->n_nodes++;
    }
    for (size_t i = 0; i < n_outputs; i++) {
        ir->output_values[i] = remap[outputs[i].operand->value];
        if (!(ir->output_names[ir->n_outputs++] = strdup(outputs[i].name)))
            goto fail;
    }
    s = WNN_OK;
    goto done;
fail:
    wnn__ir_free(ir);
done:
    free(remap);
    free(live_node);
    free(live);
    return s;
}

/* ---- graphs ---------------------------------------------------------------- */

void wnn__graph_retain(wnn_graph *g) { atomic_fetch_add(&g->refs, 1); }

void wnn__graph_unref(wnn_graph *g)
{
    if (!g || atomic_fetch_sub(&g->refs, 1) != 1)
        return;
    wnn_context *ctx = g->ctx;
    pthread_mutex_lock(&ctx->lock);
    if (g->prev)
        g->prev->next = g->next;
    else if (ctx->graphs == g)
        ctx->graphs = g->next;
    if (g->next)
        g->next->prev = g->prev;
    pthread_mutex_unlock(&ctx->lock);
    if (g->compiled)
        ctx->backend->graph_release(ctx->device, g->compiled);
    wnn__ir_free(&g->ir);
    free(g);
    wnn__context_unref(ctx);
}

void wnn__graph_kill(wnn_graph *g) { atomic_store(&g->destroyed, true); }

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
        last[v] = ir->values[v].kind == WNN__VALUE_NODE ? ir->values[v].index : 0;
    }
    for (uint32_t i = 0; i < ir->n_nodes; i++)
        for (uint32_t k = 0; k < ir->nodes[i].n_in; k++)
            if (ir->nodes[i].in[k] != WNN__NONE)
                last[ir->nodes[i].in[k]] = i;
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
        if (s != WNN_STATUS_OUT_OF_MEMORY)
            s = WNN_STATUS_OPERATION_ERROR;
        return wnn__fail(s, "%s: device \"%s\" cannot compile the graph", fn, ctx->info.name);
    }
    atomic_init(&g->refs, 1);
    atomic_init(&g->destroyed, false);
    wnn__context_retain(ctx);
    g->ctx = ctx;
    pthread_mutex_lock(&ctx->lock);
    g->next = ctx->graphs;
    if (g->next)
        g->next->prev = g;
    ctx->graphs = g;
    pthread_mutex_unlock(&ctx->lock);
    *out = g;
    return WNN_OK;
}

/* ---- dispatch ------------------------------------------------------------------ */

/* One side (inputs or outputs) of a dispatch's bindings. */
typedef struct side {
    const char *what;
    const wnn_named_tensor *named;
    size_t n;
    uint32_t count;
    char **names;
    const uint32_t *values;
    wnn_tensor **slots; /* slots[k]: the tensor bound to the graph's binding k */
} side;

static const char dispatch_fn[] = "wnn_context_dispatch";

/* Per-tensor rules that do not need names: present, this context, alive. */
static wnn_status check_tensor_pass(wnn_context *ctx, const side *sd, bool destroyed_pass)
{
    for (size_t i = 0; i < sd->n; i++) {
        const wnn_tensor *t = sd->named[i].tensor;
        const char *name = sd->named[i].name ? sd->named[i].name : "(null)";
        if (!destroyed_pass && !t)
            return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %s \"%s\" has no tensor", dispatch_fn, sd->what,
                             name);
        if (!destroyed_pass && t->ctx != ctx)
            return wnn__fail(WNN_STATUS_WRONG_CONTEXT, "%s: %s \"%s\" is a tensor of another context",
                             dispatch_fn, sd->what, name);
        if (destroyed_pass && atomic_load(&t->destroyed))
            return wnn__fail(wnn__destroyed_status(ctx), "%s: %s \"%s\" has been destroyed", dispatch_fn,
                             sd->what, name);
    }
    return WNN_OK;
}

/* Matches names to the graph's bindings, filling sd->slots. */
static wnn_status bind_names(const side *sd)
{
    if (sd->n != sd->count)
        return wnn__fail(WNN_STATUS_NAME_MISMATCH, "%s: %zu %ss given, the graph has %u", dispatch_fn, sd->n,
                         sd->what, sd->count);
    for (size_t i = 0; i < sd->n; i++) {
        const char *name = sd->named[i].name;
        uint32_t k = 0;
        while (name && k < sd->count && strcmp(sd->names[k], name) != 0)
            k++;
        if (!name || k == sd->count)
            return wnn__fail(WNN_STATUS_NAME_MISMATCH, "%s: the graph has no %s named \"%s\"", dispatch_fn,
                             sd->what, name ? name : "(null)");
        if (sd->slots[k])
            return wnn__fail(WNN_STATUS_NAME_MISMATCH, "%s: %s \"%s\" is bound twice", dispatch_fn, sd->what,
                             name);
        sd->slots[k] = sd->named[i].tensor;
    }
    return WNN_OK;
}

/* "[3, 2]"; "[]" for a scalar. */
static void shape_text(const uint32_t *shape, uint32_t rank, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "[");
    for (uint32_t i = 0; i < rank && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%u", i ? ", " : "", shape[i]);
    if (len < size)
        snprintf(buf + len, size - len, "]");
}

static wnn_status check_descriptors(const wnn_graph *g, const side *sd, bool constant_pass)
{
    for (uint32_t k = 0; k < sd->count; k++) {
        const wnn_tensor *t = sd->slots[k];
        const char *name = sd->names[k];
        if (constant_pass) {
            if (t->constant)
                return wnn__fail(WNN_STATUS_CONSTANT_TENSOR, "%s: %s \"%s\" is a constant tensor", dispatch_fn,
                                 sd->what, name);
            continue;
        }
        const wnn_operand_desc *d = &g->ir.values[sd->values[k]].desc;
        bool same = t->desc.data_type == d->data_type && t->desc.rank == d->rank &&
                    memcmp(t->desc.shape, d->shape, sizeof(uint32_t) * d->rank) == 0;
        if (!same) {
            char got[8 + WNN_MAX_RANK * 12], want[sizeof got];
            const char *type = wnn_data_type_name(t->desc.data_type);
            shape_text(t->desc.shape, t->desc.rank, got, sizeof got);
            shape_text(d->shape, d->rank, want, sizeof want);
            return wnn__fail(WNN_STATUS_DESCRIPTOR_MISMATCH,
                             "%s: %s \"%s\" is %s %s tensor of shape %s, the graph wants %s of shape %s",
                             dispatch_fn, sd->what, name, type[0] == 'i' ? "an" : "a", type, got,
                             wnn_data_type_name(d->data_type), want);
        }
    }
    return WNN_OK;
}

static wnn_status check_duplicates(const wnn_context *ctx, wnn_tensor *const *ts, uint32_t n_in, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            bool both_inputs = j < n_in;
            if (ts[i] != ts[j] || (both_inputs && ctx->policy != WNN_POLICY_SPEC))
                continue;
            return wnn__fail(WNN_STATUS_DUPLICATE_TENSOR, "%s: one tensor is bound as %s", dispatch_fn,
                             both_inputs ? "two inputs" : i < n_in ? "an input and an output" : "two outputs");
        }
    return WNN_OK;
}

/* The header's order, first failure wins, each rule over every binding
** before the next rule: contexts, destroyed objects, names, descriptors,
** constant tensors, duplicates. */
static wnn_status check_bindings(wnn_context *ctx, const wnn_graph *g, side *sides, wnn_tensor **slots)
{
    wnn_status s = WNN_OK;
    for (int i = 0; i < 2 && s == WNN_OK; i++)
        if (sides[i].n && !sides[i].named)
            s = wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %ss array is NULL", dispatch_fn, sides[i].what);
    for (int i = 0; i < 2 && s == WNN_OK; i++)
        s = check_tensor_pass(ctx, &sides[i], false);
    if (s == WNN_OK && atomic_load(&g->destroyed))
        s = wnn__fail(WNN_STATUS_DESTROYED, "%s: graph has been destroyed", dispatch_fn);
    for (int i = 0; i < 2 && s == WNN_OK; i++)
        s = check_tensor_pass(ctx, &sides[i], true);
    for (int i = 0; i < 2 && s == WNN_OK; i++)
        s = bind_names(&sides[i]);
    for (int i = 0; i < 2 && s == WNN_OK; i++)
        s = check_descriptors(g, &sides[i], false);
    for (int i = 0; i < 2 && s == WNN_OK; i++)
        s = check_descriptors(g, &sides[i], true);
    if (s == WNN_OK)
        s = check_duplicates(ctx, slots, g->ir.n_inputs, g->ir.n_inputs + g->ir.n_outputs);
    return s;
}

wnn_status wnn_context_dispatch(wnn_context *ctx, wnn_graph *g, const wnn_named_tensor *inputs, size_t n_in,
                                const wnn_named_tensor *outputs, size_t n_out)
{
    if (!ctx || !g)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %s is NULL", dispatch_fn, ctx ? "graph" : "context");
    if (atomic_load(&ctx->lost))
        return wnn__fail(WNN_STATUS_CONTEXT_LOST, "%s: context is lost", dispatch_fn);
    if (g->ctx != ctx)
        return wnn__fail(WNN_STATUS_WRONG_CONTEXT, "%s: graph belongs to another context", dispatch_fn);

    uint32_t total = g->ir.n_inputs + g->ir.n_outputs;
    wnn__task *task = calloc(1, sizeof *task);
    wnn_tensor **slots = calloc(total ? total : 1, sizeof *slots);
    if (!task || !slots) {
        free(task);
        free(slots);
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", dispatch_fn);
    }
    side sides[2] = {
        {"input", inputs, n_in, g->ir.n_inputs, g->ir.input_names, g->ir.input_values, slots},
        {"output", outputs, n_out, g->ir.n_outputs, g->ir.output_names, g->ir.output_values, slots + g->ir.n_inputs},
    };
    /* Each named tensor's storage is held before the destroyed check reads
    ** its flag (wnn__tensor_use_begin's rule), so a destroy racing this
    ** call either fails it or waits for the task to finish with the memory. */
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; sides[k].named && i < sides[k].n; i++)
            if (sides[k].named[i].tensor)
                wnn__tensor_use_more(sides[k].named[i].tensor);
    wnn_status s = check_bindings(ctx, g, sides, slots);
    if (s != WNN_OK) {
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; sides[k].named && i < sides[k].n; i++)
                if (sides[k].named[i].tensor)
                    wnn__tensor_use_end(sides[k].named[i].tensor);
        free(task);
        free(slots);
        return s;
    }
    task->kind = WNN__TASK_DISPATCH;
    wnn__graph_retain(g);
    task->graph = g;
    for (uint32_t i = 0; i < total; i++) /* the uses taken above pass to the task */
        wnn__tensor_retain(slots[i]);
    task->tensors = slots;
    if ((s = wnn__timeline_submit(ctx, task)) != WNN_OK)
        wnn__task_free(task);
    return s;
}

void wnn__graph_task_run(wnn_context *ctx, wnn__task *task)
{
    if (atomic_load(&ctx->lost))
        return; /* nothing can read the results any more */
    wnn_graph *g = task->graph;
    uint32_t total = g->ir.n_inputs + g->ir.n_outputs;
    void *stack[16] = {NULL};
    void **storages = total <= 16 ? stack : malloc(sizeof *storages * total);
    if (!storages) {
        wnn__timeline_error(ctx, WNN_STATUS_OUT_OF_MEMORY, "dispatch: out of memory");
        return;
    }
    wnn_status s = WNN_OK;
    for (uint32_t i = 0; i < g->ir.n_inputs && s == WNN_OK; i++)
        s = wnn__storage_prepare_device(&task->tensors[i]->st, &storages[i]);
    for (uint32_t i = g->ir.n_inputs; i < total; i++)
        storages[i] = task->tensors[i]->st.device;
    if (s == WNN_OK)
        s = ctx->backend->graph_execute(ctx->device, g->compiled, storages, storages + g->ir.n_inputs);
    if (s == WNN_OK) {
        for (uint32_t i = g->ir.n_inputs; i < total; i++)
            wnn__storage_device_written(&task->tensors[i]->st);
    } else {
        char message[128];
        snprintf(message, sizeof message, "dispatch on \"%s\" failed: %s", ctx->info.name, wnn_status_string(s));
        wnn__timeline_error(ctx, s, message);
    }
    if (storages != stack)
        free(storages);
}
