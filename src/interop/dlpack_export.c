/* SPDX-License-Identifier: Apache-2.0 */
/*
** dlpack_export.c -- wnn_tensor_export_dlpack: lending a tensor's memory, or
** a copy of it, to a DLPack consumer.
**
** The consumer gets a managed tensor inside one allocation (wnn__dl_export)
** and gives it back through the deleter. Making the data ready -- zeros
** materialised, a host-side value uploaded, a copy taken -- is a call on the
** tensor's timeline, so it runs after the work recorded before the export;
** the stream option decides who waits for it (docs/dlpack.md).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interop/dlpack_internal.h"

static const struct {
    wnn_data_type type;
    DLDataType dl;
} type_map[] = {
    {WNN_DATA_TYPE_FLOAT32, {kDLFloat, 32, 1}}, {WNN_DATA_TYPE_FLOAT16, {kDLFloat, 16, 1}},
    {WNN_DATA_TYPE_INT32, {kDLInt, 32, 1}},     {WNN_DATA_TYPE_UINT32, {kDLUInt, 32, 1}},
    {WNN_DATA_TYPE_INT64, {kDLInt, 64, 1}},     {WNN_DATA_TYPE_UINT64, {kDLUInt, 64, 1}},
    {WNN_DATA_TYPE_INT8, {kDLInt, 8, 1}},       {WNN_DATA_TYPE_UINT8, {kDLUInt, 8, 1}},
};

bool wnn__dl_from_data_type(wnn_data_type t, DLDataType *out)
{
    for (size_t i = 0; i < sizeof type_map / sizeof type_map[0]; i++)
        if (type_map[i].type == t) {
            *out = type_map[i].dl;
            return true;
        }
    return false;
}

wnn_data_type wnn__dl_to_data_type(DLDataType dl)
{
    for (size_t i = 0; i < sizeof type_map / sizeof type_map[0]; i++)
        if (type_map[i].dl.code == dl.code && type_map[i].dl.bits == dl.bits && dl.lanes == 1)
            return type_map[i].type;
    return WNN_DATA_TYPE_INVALID;
}

/* ---- the export's lifetime ---------------------------------------------------- */

void wnn__dl_export_retain(wnn__dl_export *e) { atomic_fetch_add(&e->refs, 1); }

/* Gives back what the export held: the source tensor (and its pin), the
** copy on the device, the producer context. Any thread. */
void wnn__dl_export_unref(wnn__dl_export *e)
{
    if (atomic_fetch_sub(&e->refs, 1) != 1)
        return;
    if (e->has_event) {
        pthread_mutex_destroy(&e->event.lock);
        pthread_cond_destroy(&e->event.cv);
    }
    if (e->has_clone)
        wnn__storage_fini(&e->clone);
    wnn_tensor *t = e->tensor;
    if (t) {
        /* the storage stays while any export holds it; the last use frees it */
        wnn__tensor_use_end(t);
        wnn__tensor_unref(t);
    }
    if (e->ctx)
        wnn__context_unref(e->ctx);
    free(e);
}

static void delete_versioned(DLManagedTensorVersioned *m) { wnn__dl_export_unref(m->manager_ctx); }
static void delete_legacy(DLManagedTensor *m) { wnn__dl_export_unref(m->manager_ctx); }

wnn__dl_export *wnn__dl_export_of(void *managed, bool legacy)
{
    if (legacy) {
        DLManagedTensor *m = managed;
        return m->deleter == delete_legacy ? m->manager_ctx : NULL;
    }
    DLManagedTensorVersioned *m = managed;
    return m->deleter == delete_versioned ? m->manager_ctx : NULL;
}

wnn_status wnn__dl_event_wait(wnn__dl_export *e)
{
    if (!e->has_event)
        return WNN_OK;
    pthread_mutex_lock(&e->event.lock);
    while (!e->event.reached)
        pthread_cond_wait(&e->event.cv, &e->event.lock);
    pthread_mutex_unlock(&e->event.lock);
    /* The null backend has no fence for one queue position: draining its
    ** queue covers the position (and whatever came after it). */
    const wnn__backend *be = e->ctx->backend;
    wnn_status s = be->synchronize ? be->synchronize(e->ctx->device) : WNN_OK;
    if (s != WNN_OK)
        wnn__timeline_error(e->ctx, s, "device work failed before a DLPack consumer used its result");
    return s;
}

/* ---- making the data ready, on the timeline --------------------------------- */

/* Copies src's value into dst, a fresh storage of the same (non-unified)
** device. */
static wnn_status clone_value(wnn_context *ctx, wnn__storage *src, wnn__storage *dst)
{
    void *from, *to;
    if (src->state == WNN__STORAGE_ZERO)
        return wnn__storage_prepare_device(dst, &to);
    wnn_status s = wnn__storage_prepare_device(src, &from);
    if (s == WNN_OK)
        s = wnn__memory_copy(&ctx->alloc, WNN__COPY_ON_DEVICE, dst->device, from, src->bytes);
    if (s == WNN_OK)
        wnn__storage_device_written(dst);
    return s;
}

/* Makes the exported memory hold the tensor's value. Runs in timeline
** order: as a queued call, or at once when the timeline is idle. */
static wnn_status make_ready(wnn_context *ctx, wnn__dl_export *e)
{
    wnn__storage *st = &e->tensor->st;
    void *ptr;
    if (e->host_copy)
        return wnn__storage_read(st, e->host_copy, e->bytes);
    if (e->has_clone)
        return clone_value(ctx, st, &e->clone);
    return wnn__storage_prepare_device(st, &ptr);
}

/* After make_ready: report, signal the event, let go of what a host copy
** no longer needs. */
static void prepared(wnn__dl_export *e, wnn_status s)
{
    wnn_context *ctx = e->ctx;
    if (s != WNN_OK && s != WNN_STATUS_CONTEXT_LOST) {
        char text[160];
        snprintf(text, sizeof text, "DLPack export from \"%s\" failed: %s", ctx->info.name, wnn_status_string(s));
        wnn__timeline_error(ctx, s, text);
    }
    e->status = s;
    if (e->has_event) {
        pthread_mutex_lock(&e->event.lock);
        e->event.reached = true;
        pthread_cond_broadcast(&e->event.cv);
        pthread_mutex_unlock(&e->event.lock);
    }
    if (e->host_copy) {
        /* the copy is all the consumer needs: let the producer go */
        wnn__tensor_unref(e->tensor);
        wnn__context_unref(e->ctx);
        e->tensor = NULL;
        e->ctx = NULL;
    }
}

static void prepare(wnn_status s, const char *message, const void *data, size_t n, void *user)
{
    wnn__dl_export *e = user;
    prepared(e, s == WNN_OK ? make_ready(e->ctx, e) : s);
    wnn__dl_export_unref(e);
}

/* The hot path: with the timeline idle, nothing recorded before can still
** touch the tensor, so the preparation runs now on the calling thread. Only
** for work that does not wait for the device. */
static bool prepare_if_idle(wnn_context *ctx, wnn__dl_export *e)
{
    if ((e->host_copy && !ctx->backend->unified_memory) || !wnn__timeline_try_enter(ctx))
        return false;
    wnn_status s = make_ready(ctx, e);
    wnn__timeline_leave(ctx);
    prepared(e, s);
    return true;
}

/* ---- the call ---------------------------------------------------------------------- */

typedef enum sync_mode {
    SYNC_WAIT,  /* no stream: the data are complete when the call returns */
    SYNC_NONE,  /* stream -1: the consumer orders itself */
    SYNC_EVENT  /* a consumer queue of the device: ordered by an event */
} sync_mode;

static wnn_status pick_sync(const char *fn, const wnn_dlpack_export_options *o, bool host_target,
                            const char *where, sync_mode *mode)
{
    *mode = SYNC_WAIT;
    if (!o->has_stream)
        return WNN_OK;
    if (o->stream == WNN_DLPACK_STREAM_NO_SYNC) {
        *mode = SYNC_NONE;
        return WNN_OK;
    }
    if (host_target)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT,
                         "%s: stream %lld given for host memory, which takes only none or -1", fn,
                         (long long)o->stream);
    if (o->stream < 1)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: stream %lld is not valid on \"%s\" (none, -1 or >= 1)",
                         fn, (long long)o->stream, where);
    *mode = SYNC_EVENT;
    return WNN_OK;
}

static void fill_managed(wnn__dl_export *e, const wnn_tensor *t, DLDataType dtype, DLDevice device, void *data,
                         uint64_t flags)
{
    uint32_t rank = t->desc.rank;
    int64_t *shape = (int64_t *)(e + 1);
    int64_t *strides = shape + (rank ? rank : 1);
    int64_t step = 1;
    for (uint32_t i = rank; i-- > 0;) {
        shape[i] = t->desc.shape[i];
        strides[i] = step;
        step *= t->desc.shape[i];
    }
    DLTensor dl = {data, device, (int32_t)rank, dtype, shape, strides, 0};
    if (e->legacy) {
        e->m.l = (DLManagedTensor){dl, e, delete_legacy};
    } else {
        e->m.v = (DLManagedTensorVersioned){
            {WNN_DLPACK_VERSION_MAJOR, WNN_DLPACK_VERSION_MINOR}, e, delete_versioned, flags, dl};
    }
}

/* One allocation: the export, shape and strides, and the host copy 256-byte
** aligned after them. */
static wnn__dl_export *allocate(uint32_t rank, size_t copy_bytes, void **host_copy)
{
    size_t head = sizeof(wnn__dl_export) + 2 * sizeof(int64_t) * (rank ? rank : 1);
    if (!host_copy) {
        wnn__dl_export *e = malloc(head);
        if (e)
            memset(e, 0, head);
        return e;
    }
    size_t at = (head + 255) / 256 * 256;
    size_t total = (at + (copy_bytes ? copy_bytes : 1) + 255) / 256 * 256;
    wnn__dl_export *e = aligned_alloc(256, total);
    if (e) {
        memset(e, 0, head);
        *host_copy = (char *)e + at;
    }
    return e;
}

static wnn_status export_used(const char *fn, wnn_tensor *t, wnn_context *ctx, const wnn_dlpack_export_options *o,
                              void **out);

wnn_status wnn_tensor_export_dlpack(wnn_tensor *t, const wnn_dlpack_export_options *options, void **out)
{
    static const char fn[] = "wnn_tensor_export_dlpack";
    static const wnn_dlpack_export_options defaults = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    const wnn_dlpack_export_options *o = options ? options : &defaults;
    if (!out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!t)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: tensor is NULL", fn);
    wnn_context *ctx = t->ctx;
    wnn_status s = wnn__tensor_use_begin(fn, ctx, t);
    if (s != WNN_OK)
        return s;
    /* a successful export takes a use of its own */
    s = export_used(fn, t, ctx, o, out);
    wnn__tensor_use_end(t);
    return s;
}

/* wnn_tensor_export_dlpack() once the caller holds a use of t. */
static wnn_status export_used(const char *fn, wnn_tensor *t, wnn_context *ctx, const wnn_dlpack_export_options *o,
                              void **out)
{
    wnn_status s;
    if ((unsigned)o->copy > WNN_DLPACK_COPY_NEVER)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: copy is %d, not a wnn_dlpack_copy", fn, (int)o->copy);
    DLDataType dtype;
    if (!wnn__dl_from_data_type(t->desc.data_type, &dtype))
        return wnn__fail(WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: %s has no DLPack data type", fn,
                         wnn_data_type_name(t->desc.data_type));

    /* where the consumer wants it */
    const DLDevice own = {(DLDeviceType)ctx->info.dlpack_device_type, ctx->info.dlpack_device_id};
    bool unified = ctx->backend->unified_memory;
    bool same = o->device_type == 0 || (o->device_type == (int32_t)own.device_type && o->device_id == own.device_id);
    if (!same && !(o->device_type == kDLCPU && o->device_id == 0))
        return wnn__fail(WNN_STATUS_UNSUPPORTED_DEVICE,
                         "%s: a tensor of \"%s\" cannot be given on DLPack device (%d, %d); only (%d, %d) or (1, 0)",
                         fn, ctx->info.name, (int)o->device_type, (int)o->device_id, (int)own.device_type,
                         (int)own.device_id);
    bool host_target = same ? unified : true;
    sync_mode mode;
    if ((s = pick_sync(fn, o, host_target, ctx->info.name, &mode)) != WNN_OK)
        return s;
    /* Only wnn can read private memory (the null device's), and wnn
    ** consumers wait for the event. A consumer's stream elsewhere (CUDA) is made to wait by the
    ** backend (order_before_stream) once the timeline has queued the work;
    ** a backend without that entry completes the work first: correct, at
    ** the price of a wait. */
    bool order = mode == SYNC_EVENT && ctx->backend->order_before_stream != NULL;
    bool wait = mode == SYNC_WAIT || (mode == SYNC_EVENT && !ctx->backend->private_memory && !order);

    /* whether it must copy */
    const char *why = o->copy == WNN_DLPACK_COPY_ALWAYS ? "copy was asked for"
                      : !same && !unified              ? "host code cannot read this device's memory"
                      : o->legacy && t->constant       ? "a legacy managed tensor cannot say read-only"
                                                       : NULL;
    if (why && o->copy == WNN_DLPACK_COPY_NEVER)
        return wnn__fail(WNN_STATUS_COPY_FORBIDDEN, "%s: copy is forbidden but needed: %s", fn, why);
    bool copy = why != NULL;

    void *host_copy = NULL;
    wnn__dl_export *e = allocate(t->desc.rank, (size_t)t->byte_length, copy && host_target ? &host_copy : NULL);
    if (!e)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    atomic_init(&e->refs, 1); /* the consumer's */
    e->legacy = o->legacy;
    e->bytes = (size_t)t->byte_length;
    e->host_copy = host_copy;
    e->shared = !copy;
    if (copy && !host_target) {
        if ((s = wnn__storage_init(&e->clone, &ctx->alloc, e->bytes)) != WNN_OK) {
            free(e);
            return wnn__fail(s, "%s: cannot allocate %llu bytes on \"%s\" for the copy", fn,
                             (unsigned long long)t->byte_length, ctx->info.name);
        }
        e->has_clone = true;
    }
    wnn__context_retain(ctx);
    e->ctx = ctx;
    wnn__tensor_retain(t);
    wnn__tensor_use_more(t); /* the export's own use; the caller's goes back */
    e->tensor = t;
    if (mode == SYNC_EVENT) {
        pthread_mutex_init(&e->event.lock, NULL);
        pthread_cond_init(&e->event.cv, NULL);
        e->has_event = true;
    }
    void *data = e->shared ? t->st.device : e->has_clone ? e->clone.device : host_copy;
    DLDevice device = host_target ? (DLDevice){kDLCPU, 0} : own;
    uint64_t flags = (t->constant && e->shared ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) |
                     (copy ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
    e->data = data;
    e->device = device;
    e->backend = ctx->backend;
    fill_managed(e, t, dtype, device, data, flags);

    uint64_t seq = 0;
    bool done = prepare_if_idle(ctx, e);
    if (!done) {
        wnn__dl_export_retain(e); /* the timeline call's */
        if ((s = wnn__timeline_call(ctx, prepare, e, &seq)) != WNN_OK) {
            wnn__dl_export_unref(e);
            wnn__dl_export_unref(e);
            return wnn__fail(s, "%s: cannot queue the export on \"%s\": %s", fn, ctx->info.name,
                             wnn_status_string(s));
        }
    }
    if (wait) {
        if (!done)
            wnn__timeline_wait(ctx, seq);
        s = e->status;
        /* the device may still be running the queued work (null device) */
        if (s == WNN_OK && !host_copy && ctx->backend->synchronize &&
            (s = ctx->backend->synchronize(ctx->device)) != WNN_OK)
            wnn__timeline_error(ctx, s, "device work failed before a DLPack export");
        if (s != WNN_OK) {
            wnn__dl_export_unref(e);
            return wnn__fail(s, "%s: making the data ready on \"%s\" failed: %s", fn, ctx->info.name,
                             wnn_status_string(s));
        }
    }
    if (order) {
        /* the work is queued on the device once the timeline is past the
        ** preparation; the consumer's stream waits for it there, the host
        ** does not */
        if (!done)
            wnn__timeline_wait(ctx, seq);
        s = e->status;
        if (s == WNN_OK && (s = ctx->backend->order_before_stream(ctx->device, (uintptr_t)o->stream)) != WNN_OK)
            wnn__timeline_error(ctx, s, "ordering a DLPack consumer's stream after the device's work failed");
        if (s != WNN_OK) {
            wnn__dl_export_unref(e);
            return wnn__fail(s, "%s: ordering stream %lld after \"%s\" failed: %s", fn, (long long)o->stream,
                             ctx->info.name, wnn_status_string(s));
        }
    }
    *out = e->legacy ? (void *)&e->m.l : (void *)&e->m.v;
    return WNN_OK;
}
