/* SPDX-License-Identifier: Apache-2.0 */
/*
** context.c -- MLContext: creation on a device, lifetime, the list of its
** tensors and graphs (killed together when the context is lost), finish()
** and memory statistics. The ordered work queue is timeline.c's.
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
    wnn__host_blocks_release(ctx);
    ctx->backend->device_close(ctx->device);
    pthread_mutex_destroy(&ctx->lock);
    pthread_cond_destroy(&ctx->work_cv);
    pthread_cond_destroy(&ctx->done_cv);
    free(ctx);
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
    wnn_status s = wnn__pick_device(o, &be, &local);
    if (s != WNN_OK)
        return s;
    wnn_device_info info;
    wnn__device *dev;
    if ((s = be->device_info(local, &info)) != WNN_OK || (s = be->device_open(local, &dev)) != WNN_OK)
        return wnn__fail(s, "wnn_context_create: cannot open a \"%s\" device", be->name);
    return wnn__context_open("wnn_context_create", o, be, &info, dev, out);
}

wnn_status wnn__context_open(const char *fn, const wnn_context_options *o, const wnn__backend *be,
                             const wnn_device_info *info, wnn__device *dev, wnn_context **out)
{
    wnn_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        be->device_close(dev);
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    atomic_init(&ctx->refs, 1);
    atomic_init(&ctx->lost, false);
    ctx->backend = be;
    ctx->policy = o->policy;
    ctx->on_error = o->on_error;
    ctx->on_error_user_data = o->on_error_user_data;
    ctx->info = *info;
    ctx->device = dev;
    wnn__allocator_init(&ctx->alloc, be, ctx->device, o->memory_limit);
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_cond_init(&ctx->work_cv, NULL);
    pthread_cond_init(&ctx->done_cv, NULL);
    wnn_status s = wnn__timeline_start(ctx);
    if (s != WNN_OK) {
        wnn__context_unref(ctx);
        return wnn__fail(s, "%s: cannot start the timeline thread", fn);
    }
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

void wnn__track(wnn_context *ctx, wnn__tracked *x, const wnn__tracked_ops *ops)
{
    x->ops = ops;
    x->prev = NULL;
    pthread_mutex_lock(&ctx->lock);
    x->next = ctx->objects;
    if (x->next)
        x->next->prev = x;
    ctx->objects = x;
    pthread_mutex_unlock(&ctx->lock);
}

void wnn__untrack(wnn_context *ctx, wnn__tracked *x)
{
    pthread_mutex_lock(&ctx->lock);
    if (x->prev)
        x->prev->next = x->next;
    else if (ctx->objects == x)
        ctx->objects = x->next;
    if (x->next)
        x->next->prev = x->prev;
    pthread_mutex_unlock(&ctx->lock);
}

void wnn_context_destroy(wnn_context *ctx)
{
    if (!ctx || atomic_exchange(&ctx->lost, true))
        return;
    /* Take each live object out under the lock, kill it outside it: killing
    ** may queue work, which takes the lock again. */
    for (;;) {
        pthread_mutex_lock(&ctx->lock);
        wnn__tracked *x = ctx->objects;
        while (x && x->ops->killed(x))
            x = x->next;
        if (x)
            x->ops->retain(x);
        pthread_mutex_unlock(&ctx->lock);
        if (!x)
            break;
        x->ops->kill(x);
        x->ops->unref(x);
    }
}

void wnn_context_release(wnn_context *ctx)
{
    if (!ctx)
        return;
    wnn_context_destroy(ctx);
    wnn__timeline_stop(ctx);
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
