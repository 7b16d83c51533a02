/* SPDX-License-Identifier: Apache-2.0 */
/*
** dispatch.c -- MLContext.dispatch(): every WebNN binding check in the
** header's order, and the dispatch task that runs a compiled graph on the
** timeline.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

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

/* Per-tensor rules that do not need names: present, this context, alive,
** not rented to WebGPU. */
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
        if (destroyed_pass && atomic_load(&t->rented))
            return wnn__fail(WNN_STATUS_INVALID_STATE,
                             "%s: %s \"%s\" is rented to WebGPU (wnn_webgpu_tensor_export); return it first",
                             dispatch_fn, sd->what, name);
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
    /* a context destroyed during these checks destroys its objects after it
    ** is marked lost: the loss is what the caller is told */
    if ((s == WNN_STATUS_DESTROYED || s == WNN_STATUS_DESTROYED_OBJECT) && atomic_load(&ctx->lost))
        s = wnn__fail(WNN_STATUS_CONTEXT_LOST, "%s: context is lost", dispatch_fn);
    return s;
}

static void run_dispatch(wnn_context *ctx, wnn__task *task);

/* Gives back the graph and every bound tensor (reference and use). */
static void free_dispatch(wnn__task *task)
{
    if (task->tensors) {
        uint32_t n = task->graph->ir.n_inputs + task->graph->ir.n_outputs;
        for (uint32_t i = 0; i < n; i++) {
            wnn__tensor_use_end(task->tensors[i]);
            wnn__tensor_unref(task->tensors[i]);
        }
        free(task->tensors);
    }
    wnn__graph_unref(task->graph);
    free(task);
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
    task->run = run_dispatch;
    task->free = free_dispatch;
    wnn__graph_retain(g);
    task->graph = g;
    for (uint32_t i = 0; i < total; i++) /* the uses taken above pass to the task */
        wnn__tensor_retain(slots[i]);
    task->tensors = slots;
    if ((s = wnn__timeline_submit(ctx, task)) != WNN_OK)
        wnn__task_free(task);
    return s;
}

static void run_dispatch(wnn_context *ctx, wnn__task *task)
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
