/* SPDX-License-Identifier: Apache-2.0 */
/*
** context.c -- contexts and their timeline.
**
** Each context owns one worker thread that runs the context's tasks (writes,
** reads, dispatches, storage releases) strictly in the order they were
** recorded. That single order gives WebNN's per-tensor ordering for free: a
** dispatch's outputs are complete before any later task that reads them, so
** chained dispatches need no wait. Public calls validate, record a task and
** return; the worker runs it later.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

void wnn__context_retain(wnn_context *ctx) { atomic_fetch_add(&ctx->refs, 1); }

void wnn__context_unref(wnn_context *ctx)
{
    if (!ctx || atomic_fetch_sub(&ctx->refs, 1) != 1)
        return;
    /* queued device work may still return memory to the allocator */
    if (ctx->backend->synchronize)
        ctx->backend->synchronize(ctx->device);
    wnn__allocator_fini(&ctx->alloc);
    ctx->backend->device_close(ctx->device);
    pthread_mutex_destroy(&ctx->lock);
    pthread_cond_destroy(&ctx->work_cv);
    pthread_cond_destroy(&ctx->done_cv);
    free(ctx);
}

/* With ctx->lock held: runs the task at the head of the timeline unless
** another thread is running one. A thread waiting for the timeline (finish,
** a blocking read) helps this way instead of sleeping while the worker wakes
** up; it only takes tasks whose completion calls no user callback, because
** callbacks are documented to run on the worker. Returns whether it ran one. */
static bool run_one_locked(wnn_context *ctx, bool helper)
{
    wnn__task *task = ctx->head;
    if (!task || ctx->busy || (helper && task->callback && !task->internal_callback))
        return false;
    ctx->head = task->next;
    if (!ctx->head)
        ctx->tail = NULL;
    ctx->busy = true;
    pthread_mutex_unlock(&ctx->lock);

    wnn__task_run(ctx, task);
    wnn__task_free(task);

    pthread_mutex_lock(&ctx->lock);
    ctx->busy = false;
    ctx->completed++;
    pthread_cond_broadcast(&ctx->done_cv);
    pthread_cond_signal(&ctx->work_cv);
    return true;
}

static void *worker_main(void *arg)
{
    wnn_context *ctx = arg;
    pthread_mutex_lock(&ctx->lock);
    for (;;) {
        if (run_one_locked(ctx, false))
            continue;
        if (!ctx->head && ctx->stopping && !ctx->busy)
            break; /* stopping and drained */
        pthread_cond_wait(&ctx->work_cv, &ctx->lock);
    }
    pthread_mutex_unlock(&ctx->lock);
    return NULL;
}

bool wnn__timeline_try_enter(wnn_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    bool idle = !ctx->head && !ctx->busy && !ctx->stopping;
    if (idle)
        ctx->busy = true;
    pthread_mutex_unlock(&ctx->lock);
    return idle;
}

void wnn__timeline_leave(wnn_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    ctx->busy = false;
    /* wake others only if they can have been waiting for this thread: work
    ** was queued meanwhile (worker, helpers) */
    if (ctx->head) {
        pthread_cond_broadcast(&ctx->done_cv);
        pthread_cond_signal(&ctx->work_cv);
    }
    pthread_mutex_unlock(&ctx->lock);
}

void wnn__timeline_wait(wnn_context *ctx, uint64_t seq)
{
    pthread_mutex_lock(&ctx->lock);
    while (ctx->completed < seq)
        if (!run_one_locked(ctx, true))
            pthread_cond_wait(&ctx->done_cv, &ctx->lock);
    pthread_mutex_unlock(&ctx->lock);
}

wnn_status wnn__timeline_submit(wnn_context *ctx, wnn__task *task)
{
    return wnn__timeline_submit_seq(ctx, task, NULL);
}

wnn_status wnn__timeline_submit_seq(wnn_context *ctx, wnn__task *task, uint64_t *seq)
{
    pthread_mutex_lock(&ctx->lock);
    if (ctx->stopping) {
        pthread_mutex_unlock(&ctx->lock);
        return wnn__fail(WNN_STATUS_CONTEXT_LOST, "context is lost");
    }
    task->next = NULL;
    if (ctx->tail)
        ctx->tail->next = task;
    else
        ctx->head = task;
    ctx->tail = task;
    ctx->submitted++;
    if (seq)
        *seq = ctx->submitted;
    pthread_cond_signal(&ctx->work_cv);
    pthread_mutex_unlock(&ctx->lock);
    return WNN_OK;
}

void wnn__timeline_error(wnn_context *ctx, wnn_status s, const char *message)
{
    pthread_mutex_lock(&ctx->lock);
    if (ctx->first_error == WNN_OK) {
        ctx->first_error = s;
        snprintf(ctx->first_error_message, sizeof ctx->first_error_message, "%s", message);
    }
    pthread_mutex_unlock(&ctx->lock);
    if (ctx->on_error)
        ctx->on_error(s, message, ctx->on_error_user_data);
}

/* The device options ask for: one by name (loading only the module that
** could serve it), else the first accelerated device for high performance
** (which enumerates every device), else the cpu. */
static wnn_status pick_device(const wnn_context_options *o, const wnn__backend **be, uint32_t *local)
{
    if (o->device) {
        if (wnn__registry_find(o->device, be, local) == WNN_OK)
            return WNN_OK;
        uint32_t n = wnn__registry_device_count();
        char names[256] = "";
        size_t len = 0;
        for (uint32_t i = 0; i < n && len < sizeof names; i++) {
            wnn_device_info info;
            if (wnn_device_get_info(i, &info) == WNN_OK)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", info.name);
        }
        const char *why = strncmp(o->device, "cuda", 4) == 0 ? wnn__registry_absent_reason("cuda") : NULL;
        return wnn__fail(WNN_STATUS_NO_SUCH_DEVICE, "wnn_context_create: no usable device named \"%s\" (devices: %s)%s%s",
                         o->device, names, why && why[0] ? "; the cuda module: " : "", why ? why : "");
    }
    if (o->power_preference == WNN_POWER_PREFERENCE_HIGH_PERFORMANCE) {
        uint32_t n = wnn__registry_device_count();
        for (uint32_t i = 0; i < n; i++) {
            wnn_device_info info;
            if (wnn_device_get_info(i, &info) == WNN_OK && info.accelerated)
                return wnn__registry_lookup(i, be, local);
        }
    }
    return wnn__registry_lookup(0, be, local); /* "cpu" */
}

wnn_status wnn_context_create(const wnn_context_options *options, wnn_context **out)
{
    static const wnn_context_options defaults = WNN_CONTEXT_OPTIONS_INIT;
    const wnn_context_options *o = options ? options : &defaults;
    if (!out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_context_create: out is NULL");
    *out = NULL;
    if (o->policy != WNN_POLICY_CHROMIUM && o->policy != WNN_POLICY_SPEC)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_context_create: unknown policy %d", (int)o->policy);

    if ((unsigned)o->power_preference > WNN_POWER_PREFERENCE_LOW_POWER)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_context_create: unknown power preference %d",
                         (int)o->power_preference);

    uint32_t local = 0;
    const wnn__backend *be = NULL;
    wnn_status s = pick_device(o, &be, &local);
    if (s != WNN_OK)
        return s;

    wnn_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "wnn_context_create: out of memory");
    atomic_init(&ctx->refs, 1);
    atomic_init(&ctx->lost, false);
    ctx->backend = be;
    ctx->policy = o->policy;
    ctx->on_error = o->on_error;
    ctx->on_error_user_data = o->on_error_user_data;
    if ((s = be->device_info(local, &ctx->info)) != WNN_OK ||
        (s = be->device_open(local, &ctx->device)) != WNN_OK) {
        free(ctx);
        return wnn__fail(s, "wnn_context_create: cannot open a \"%s\" device", be->name);
    }
    wnn__allocator_init(&ctx->alloc, be, ctx->device, o->memory_limit);
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_cond_init(&ctx->work_cv, NULL);
    pthread_cond_init(&ctx->done_cv, NULL);
    if (pthread_create(&ctx->worker, NULL, worker_main, ctx) != 0) {
        wnn__context_unref(ctx);
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "wnn_context_create: cannot start the timeline thread");
    }
    ctx->worker_started = true;
    *out = ctx;
    return WNN_OK;
}

bool wnn_context_is_lost(const wnn_context *ctx) { return !ctx || atomic_load(&ctx->lost); }

wnn_status wnn_context_get_device_info(const wnn_context *ctx, wnn_device_info *info)
{
    if (!ctx || !info)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_context_get_device_info: NULL argument");
    *info = ctx->info;
    return WNN_OK;
}

void wnn_context_destroy(wnn_context *ctx)
{
    if (!ctx || atomic_exchange(&ctx->lost, true))
        return;
    /* Take every tensor and graph out under the lock, kill them outside it:
    ** killing queues tasks, which takes the lock again. */
    for (;;) {
        pthread_mutex_lock(&ctx->lock);
        wnn_tensor *t = ctx->tensors;
        while (t && atomic_load(&t->destroyed))
            t = t->next;
        wnn_graph *g = ctx->graphs;
        while (g && atomic_load(&g->destroyed))
            g = g->next;
        if (t)
            wnn__tensor_retain(t);
        if (g)
            wnn__graph_retain(g);
        pthread_mutex_unlock(&ctx->lock);
        if (!t && !g)
            break;
        if (t) {
            wnn__tensor_kill(t);
            wnn__tensor_unref(t);
        }
        if (g) {
            wnn__graph_kill(g);
            wnn__graph_unref(g);
        }
    }
}

void wnn_context_release(wnn_context *ctx)
{
    if (!ctx)
        return;
    wnn_context_destroy(ctx);
    pthread_mutex_lock(&ctx->lock);
    ctx->stopping = true;
    pthread_cond_signal(&ctx->work_cv);
    pthread_mutex_unlock(&ctx->lock);
    if (ctx->worker_started)
        pthread_join(ctx->worker, NULL);
    wnn__context_unref(ctx);
}

wnn_status wnn_context_finish(wnn_context *ctx)
{
    if (!ctx)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_context_finish: context is NULL");
    pthread_mutex_lock(&ctx->lock);
    uint64_t target = ctx->submitted;
    pthread_mutex_unlock(&ctx->lock);
    wnn__timeline_wait(ctx, target);
    pthread_mutex_lock(&ctx->lock);
    wnn_status s = ctx->first_error;
    char message[sizeof ctx->first_error_message];
    memcpy(message, ctx->first_error_message, sizeof message);
    ctx->first_error = WNN_OK;
    pthread_mutex_unlock(&ctx->lock);
    /* work the device queued asynchronously (the null device, CUDA) */
    if (ctx->backend->synchronize) {
        wnn_status ds = ctx->backend->synchronize(ctx->device);
        if (s == WNN_OK && ds != WNN_OK) {
            s = ds;
            snprintf(message, sizeof message, "device \"%s\" failed: %s", ctx->info.name, wnn_status_string(ds));
        }
    }
    if (atomic_load(&ctx->lost))
        return wnn__fail(WNN_STATUS_CONTEXT_LOST, "wnn_context_finish: context is lost");
    if (s != WNN_OK)
        return wnn__fail(s, "%s", message);
    return WNN_OK;
}

wnn_status wnn_context_get_memory_stats(wnn_context *ctx, wnn_memory_stats *out)
{
    if (!ctx || !out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_context_get_memory_stats: NULL argument");
    wnn__allocator_stats(&ctx->alloc, out);
    return WNN_OK;
}

void wnn_context_trim_memory(wnn_context *ctx)
{
    if (ctx)
        wnn__allocator_trim(&ctx->alloc);
}
