/* SPDX-License-Identifier: Apache-2.0 */
/*
** tensor.c -- MLTensor: creation, write, read, destroy, attributes, and the
** timeline tasks that move bytes.
*/
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

void wnn__tensor_retain(wnn_tensor *t) { atomic_fetch_add(&t->refs, 1); }

static void drop_storage(wnn_tensor *t)
{
    if (!atomic_exchange(&t->storage_gone, true))
        wnn__storage_fini(&t->st);
}

void wnn__tensor_use_more(wnn_tensor *t) { atomic_fetch_add(&t->uses, 1); }

void wnn__tensor_use_end(wnn_tensor *t)
{
    if (atomic_fetch_sub(&t->uses, 1) == 1)
        drop_storage(t);
}

void wnn__tensor_unref(wnn_tensor *t)
{
    if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
        return;
    wnn_context *ctx = t->ctx;
    wnn__untrack(ctx, &t->link);
    drop_storage(t); /* a no-op unless a use was never given back */
    if (t->gpu_copy)
        wnn__gpu_copy_free(t->gpu_copy);
    free(t->constant_bytes);
    free(t);
    wnn__context_unref(ctx);
}

wnn_status wnn__destroyed_status(const wnn_context *ctx)
{
    return ctx->policy == WNN_POLICY_SPEC ? WNN_STATUS_DESTROYED_OBJECT : WNN_STATUS_DESTROYED;
}

wnn_status wnn__check_tensor_use(const char *fn, wnn_context *ctx, const wnn_tensor *t)
{
    if (!ctx || !t)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %s is NULL", fn, ctx ? "tensor" : "context");
    if (atomic_load(&ctx->lost))
        return wnn__fail(WNN_STATUS_CONTEXT_LOST, "%s: context is lost", fn);
    if (t->ctx != ctx)
        return wnn__fail(WNN_STATUS_WRONG_CONTEXT, "%s: tensor belongs to another context", fn);
    if (atomic_load(&t->destroyed))
        return wnn__fail(wnn__destroyed_status(ctx), "%s: tensor has been destroyed", fn);
    if (atomic_load(&t->rented))
        return wnn__fail(WNN_STATUS_INVALID_STATE,
                         "%s: tensor is rented to WebGPU (wnn_webgpu_tensor_export); return it first", fn);
    return WNN_OK;
}

wnn_status wnn__tensor_use_begin(const char *fn, wnn_context *ctx, wnn_tensor *t)
{
    wnn_status s = wnn__check_tensor_use(fn, ctx, t);
    if (s != WNN_OK)
        return s;
    atomic_fetch_add(&t->uses, 1);
    if (atomic_load(&t->destroyed)) {
        /* destroyed since the check (by its context's loss, perhaps, which
        ** is then what the caller is told): this use may be the storage's
        ** last */
        wnn__tensor_use_end(t);
        if (atomic_load(&ctx->lost))
            return wnn__fail(WNN_STATUS_CONTEXT_LOST, "%s: context is lost", fn);
        return wnn__fail(wnn__destroyed_status(ctx), "%s: tensor has been destroyed", fn);
    }
    return WNN_OK;
}

/* How the context's destroy reaches a tensor (wnn__tracked). */
#define TENSOR_OF(x) ((wnn_tensor *)((char *)(x) - offsetof(wnn_tensor, link)))
static void tracked_retain(wnn__tracked *x) { wnn__tensor_retain(TENSOR_OF(x)); }
static void tracked_unref(wnn__tracked *x) { wnn__tensor_unref(TENSOR_OF(x)); }
static void tracked_kill(wnn__tracked *x) { wnn__tensor_kill(TENSOR_OF(x)); }
static bool tracked_killed(const wnn__tracked *x) { return atomic_load(&TENSOR_OF(x)->destroyed); }
static const wnn__tracked_ops tracked_tensor = {tracked_retain, tracked_unref, tracked_kill, tracked_killed};

static void to_operand_desc(const wnn_tensor_desc *td, wnn_operand_desc *od)
{
    od->data_type = td->data_type;
    od->rank = td->rank;
    memcpy(od->shape, td->shape, sizeof od->shape);
}

/* Foreign memory a tensor is made over (DLPack import). */
typedef struct foreign_memory {
    void *device;
    void (*release)(void *);
    void *release_ctx;
} foreign_memory;

/* A tensor shared with WebGPU has a buffer of its own, from the backend
** rather than the caching allocator: the embedder may hold the buffer after
** the tensor is gone, so it must never serve another tensor. */
typedef struct own_block {
    const wnn__backend *backend;
    wnn__device *device;
    void *ptr;
} own_block;

static void free_own_block(void *p)
{
    own_block *b = p;
    b->backend->mem_free(b->device, b->ptr);
    free(b);
}

static wnn_status alloc_own_block(wnn_context *ctx, size_t bytes, foreign_memory *out)
{
    own_block *b = malloc(sizeof *b);
    if (!b)
        return WNN_STATUS_OUT_OF_MEMORY;
    *b = (own_block){ctx->backend, ctx->device, NULL};
    wnn_status s = ctx->backend->mem_alloc(ctx->device, bytes ? bytes : 1, &b->ptr);
    if (s != WNN_OK) {
        free(b);
        return s;
    }
    /* a new WGPUBuffer reads as zeros: its value is current on the device */
    *out = (foreign_memory){b->ptr, free_own_block, b};
    return WNN_OK;
}

/* Shared by every creation path: validation, storage, registration. With
** foreign, the storage wraps that memory instead of allocating. */
static wnn_status create(const char *fn, wnn_context *ctx, const wnn_tensor_desc *desc, bool constant,
                         const foreign_memory *foreign, wnn_tensor **out)
{
    if (!out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!ctx)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: context is NULL", fn);
    if (atomic_load(&ctx->lost))
        return wnn__fail(WNN_STATUS_CONTEXT_LOST, "%s: context is lost", fn);
    wnn_operand_desc od;
    if (!desc)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: descriptor is NULL", fn);
    to_operand_desc(desc, &od);
    /* the data type is the first rule, whether unknown or only unsupported */
    if (wnn_data_type_name(od.data_type) && od.data_type != WNN_DATA_TYPE_INVALID &&
        !ctx->backend->supports_data_type(ctx->device, od.data_type))
        return wnn__fail(WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: device \"%s\" has no %s tensors", fn,
                         ctx->info.name, wnn_data_type_name(od.data_type));
    wnn_status s = wnn__check_desc(fn, &od);
    if (s != WNN_OK)
        return s;
    uint64_t bytes = wnn_operand_desc_byte_length(&od);
    if (bytes > ctx->info.max_tensor_byte_length)
        return wnn__fail(WNN_STATUS_TENSOR_TOO_LARGE, "%s: %llu bytes, over the device's limit of %llu",
                         fn, (unsigned long long)bytes, (unsigned long long)ctx->info.max_tensor_byte_length);

    foreign_memory own;
    if (desc->exportable_to_gpu) {
        if (!ctx->backend->mem_share || foreign || constant)
            return wnn__fail(WNN_STATUS_NOT_SUPPORTED, "%s: exportable_to_gpu: %s", fn,
                             !ctx->backend->mem_share
                                 ? "the device is not webgpu (wnn_webgpu_context_create_exportable_tensor makes "
                                   "tensors that export copies)"
                                 : "only plain tensors can be shared with WebGPU");
        if ((s = alloc_own_block(ctx, (size_t)bytes, &own)) != WNN_OK)
            return wnn__fail(s, "%s: cannot allocate %llu bytes on \"%s\"", fn, (unsigned long long)bytes,
                             ctx->info.name);
        foreign = &own;
    }
    wnn_tensor *t = calloc(1, sizeof *t);
    if (!t) {
        if (foreign == &own)
            own.release(own.release_ctx);
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    if (foreign)
        wnn__storage_init_foreign(&t->st, &ctx->alloc, (size_t)bytes, foreign->device, foreign->release,
                                  foreign->release_ctx);
    else if ((s = wnn__storage_init(&t->st, &ctx->alloc, (size_t)bytes)) != WNN_OK) {
        free(t);
        return wnn__fail(s, "%s: cannot allocate %llu bytes on \"%s\"", fn, (unsigned long long)bytes,
                         ctx->info.name);
    }
    atomic_init(&t->refs, 1);
    atomic_init(&t->destroyed, false);
    atomic_init(&t->uses, 1);
    atomic_init(&t->storage_gone, false);
    atomic_init(&t->rented, false);
    t->desc = *desc;
    t->byte_length = bytes;
    t->constant = constant;
    if (constant)
        t->desc.readable = t->desc.writable = false;
    wnn__context_retain(ctx);
    t->ctx = ctx;
    wnn__track(ctx, &t->link, &tracked_tensor);
    *out = t;
    return WNN_OK;
}

wnn_status wnn_context_create_tensor(wnn_context *ctx, const wnn_tensor_desc *desc, wnn_tensor **out)
{
    return create("wnn_context_create_tensor", ctx, desc, false, NULL, out);
}

wnn_status wnn__tensor_create(const char *fn, wnn_context *ctx, const wnn_tensor_desc *desc, wnn_tensor **out)
{
    return create(fn, ctx, desc, false, NULL, out);
}

wnn_status wnn__tensor_create_foreign(const char *fn, wnn_context *ctx, const wnn_tensor_desc *desc,
                                      void *device, void (*release)(void *), void *release_ctx,
                                      wnn_tensor **out)
{
    foreign_memory foreign = {device, release, release_ctx};
    return create(fn, ctx, desc, false, &foreign, out);
}

static wnn_status submit_write(wnn_context *ctx, wnn_tensor *t, const void *data, size_t n);

wnn_status wnn_context_create_constant_tensor(wnn_context *ctx, const wnn_operand_desc *desc, const void *data,
                                              size_t byte_length, wnn_tensor **out)
{
    static const char fn[] = "wnn_context_create_constant_tensor";
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    if (!out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!desc)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: descriptor is NULL", fn);
    td.data_type = desc->data_type;
    td.rank = desc->rank;
    memcpy(td.shape, desc->shape, sizeof td.shape);
    wnn_tensor *t;
    wnn_status s = create(fn, ctx, &td, true, NULL, &t);
    if (s != WNN_OK)
        return s;
    if (!data || byte_length != t->byte_length) {
        s = wnn__fail(data ? WNN_STATUS_BYTE_LENGTH_MISMATCH : WNN_STATUS_INVALID_ARGUMENT,
                      "%s: data is %zu bytes, the descriptor needs %llu", fn, data ? byte_length : 0,
                      (unsigned long long)t->byte_length);
    } else if (!(t->constant_bytes = malloc(byte_length ? byte_length : 1))) {
        s = wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    } else {
        memcpy(t->constant_bytes, data, byte_length);
        s = submit_write(ctx, t, data, byte_length);
    }
    if (s != WNN_OK) {
        wnn_tensor_release(t);
        return s;
    }
    *out = t;
    return WNN_OK;
}

static void run_write(wnn_context *ctx, wnn__task *task);
static void run_read(wnn_context *ctx, wnn__task *task);
static void free_task(wnn__task *task);

/* A write or read task on t; the caller holds a use of t, the task takes
** its own (and a reference). */
static wnn__task *new_task(void (*run)(wnn_context *, wnn__task *), wnn_tensor *t)
{
    wnn__task *task = calloc(1, sizeof *task);
    if (!task)
        return NULL;
    task->run = run;
    task->free = free_task;
    wnn__tensor_retain(t);
    wnn__tensor_use_more(t);
    task->tensor = t;
    return task;
}

static wnn_status submit_write(wnn_context *ctx, wnn_tensor *t, const void *data, size_t n)
{
    /* With nothing queued or running, the write can happen now, straight
    ** from the caller's bytes: no staging copy, no worker hand-off. The
    ** backend's copy_to_device lets the caller reuse src on return. */
    if (wnn__timeline_try_enter(ctx)) {
        wnn_status s = wnn__storage_write(&t->st, data, n);
        wnn__timeline_leave(ctx);
        if (s != WNN_OK)
            return wnn__fail(s, "wnn_context_write_tensor: write to \"%s\" failed: %s", ctx->info.name,
                             wnn_status_string(s));
        return WNN_OK;
    }
    wnn__task *task = new_task(run_write, t);
    if (!task || !(task->bytes = malloc(n ? n : 1))) {
        wnn__task_free(task);
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "wnn_context_write_tensor: out of memory");
    }
    memcpy(task->bytes, data, n);
    task->size = n;
    wnn_status s = wnn__timeline_submit(ctx, task);
    if (s != WNN_OK)
        wnn__task_free(task);
    return s;
}

wnn_status wnn_context_write_tensor(wnn_context *ctx, wnn_tensor *t, const void *data, size_t byte_length)
{
    static const char fn[] = "wnn_context_write_tensor";
    wnn_status s = wnn__tensor_use_begin(fn, ctx, t);
    if (s != WNN_OK)
        return s;
    if (!t->desc.writable)
        s = wnn__fail(WNN_STATUS_NOT_WRITABLE, "%s: tensor was not created writable", fn);
    else if (!data)
        s = wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: data is NULL", fn);
    else if (byte_length != t->byte_length)
        s = wnn__fail(WNN_STATUS_BYTE_LENGTH_MISMATCH, "%s: data is %zu bytes, the tensor has %llu", fn,
                      byte_length, (unsigned long long)t->byte_length);
    else
        s = submit_write(ctx, t, data, byte_length);
    wnn__tensor_use_end(t);
    return s;
}

/* The rules of a read that the caller, holding a use of t, can break. */
static wnn_status check_read(const char *fn, const wnn_context *ctx, const wnn_tensor *t, const void *buffer,
                             size_t size)
{
    if (!t->desc.readable)
        return wnn__fail(WNN_STATUS_NOT_READABLE, "%s: tensor was not created readable", fn);
    if (buffer) {
        bool bad = ctx->policy == WNN_POLICY_SPEC ? size != t->byte_length : size < t->byte_length;
        if (bad)
            return wnn__fail(WNN_STATUS_BYTE_LENGTH_MISMATCH, "%s: buffer is %zu bytes, the tensor has %llu",
                             fn, size, (unsigned long long)t->byte_length);
    }
    return WNN_OK;
}

/* Queues a read of t once the caller holds a use of t and its rules passed. */
static wnn_status queue_read(const char *fn, wnn_context *ctx, wnn_tensor *t, void *buffer, wnn_read_callback cb,
                             void *user, uint64_t *seq)
{
    wnn_status s;
    wnn__task *task = new_task(run_read, t);
    if (!task)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    task->size = (size_t)t->byte_length;
    task->callback = cb;
    task->user_data = user;
    task->bytes = buffer;
    if (!buffer) {
        task->own_bytes = true;
        if (!(task->bytes = malloc(task->size ? task->size : 1))) {
            wnn__task_free(task);
            return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
        }
    }
    task->internal_callback = seq != NULL;
    if ((s = wnn__timeline_submit_seq(ctx, task, seq)) != WNN_OK)
        wnn__task_free(task);
    return s;
}

static wnn_status submit_read(const char *fn, wnn_context *ctx, wnn_tensor *t, void *buffer, size_t size,
                              wnn_read_callback cb, void *user)
{
    wnn_status s = wnn__tensor_use_begin(fn, ctx, t);
    if (s != WNN_OK)
        return s;
    if ((s = check_read(fn, ctx, t, buffer, size)) == WNN_OK)
        s = queue_read(fn, ctx, t, buffer, cb, user, NULL);
    wnn__tensor_use_end(t);
    return s;
}

wnn_status wnn_context_read_tensor(wnn_context *ctx, wnn_tensor *t, wnn_read_callback cb, void *user)
{
    if (!cb)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_context_read_tensor: callback is NULL");
    return submit_read("wnn_context_read_tensor", ctx, t, NULL, 0, cb, user);
}

wnn_status wnn_context_read_tensor_into(wnn_context *ctx, wnn_tensor *t, void *buffer, size_t size,
                                        wnn_read_callback cb, void *user)
{
    if (!buffer)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_context_read_tensor_into: buffer is NULL");
    return submit_read("wnn_context_read_tensor_into", ctx, t, buffer, size, cb, user);
}

/* What a blocking read's completion leaves for its caller. */
typedef struct wnn__waiter {
    wnn_status status;
    char message[256];
} wnn__waiter;

static void fill_waiter(wnn_status s, const char *message, const void *data, size_t n, void *user)
{
    wnn__waiter *w = user;
    w->status = s;
    if (s != WNN_OK)
        snprintf(w->message, sizeof w->message, "%s", message);
}

static wnn_status read_now(wnn_context *ctx, wnn_tensor *t, void *dst, size_t n, char *message, size_t size,
                           bool *device_failed);

/* wnn_context_read_tensor_sync() once the caller holds a use of t. */
static wnn_status read_sync(const char *fn, wnn_context *ctx, wnn_tensor *t, void *buffer)
{
    wnn__waiter w = {WNN_OK, ""};
    /* Once everything recorded before this call has run (this thread
    ** helping), an idle timeline lets the read happen here: no task, and no
    ** hand-off to the worker and back, which costs more than a small read
    ** itself. The use held since the checks keeps the storage alive. */
    if (wnn__timeline_enter_after_all(ctx)) {
        bool device_failed;
        w.status = read_now(ctx, t, buffer, (size_t)t->byte_length, w.message, sizeof w.message, &device_failed);
        wnn__timeline_leave(ctx);
    } else {
        uint64_t seq = 0;
        wnn_status s = queue_read(fn, ctx, t, buffer, fill_waiter, &w, &seq);
        if (s != WNN_OK)
            return s;
        wnn__timeline_wait(ctx, seq);
    }
    if (w.status != WNN_OK)
        return wnn__fail(w.status, "%s: %s", fn, w.message);
    return WNN_OK;
}

wnn_status wnn_context_read_tensor_sync(wnn_context *ctx, wnn_tensor *t, void *buffer, size_t size)
{
    static const char fn[] = "wnn_context_read_tensor_sync";
    if (!buffer)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: buffer is NULL", fn);
    wnn_status s = wnn__tensor_use_begin(fn, ctx, t);
    if (s != WNN_OK)
        return s;
    if ((s = check_read(fn, ctx, t, buffer, size)) == WNN_OK)
        s = read_sync(fn, ctx, t, buffer);
    wnn__tensor_use_end(t);
    return s;
}

void wnn__tensor_kill(wnn_tensor *t)
{
    if (atomic_exchange(&t->destroyed, true))
        return;
    /* With nothing queued, in progress or exported, the storage goes back to
    ** the allocator now (create/destroy loops reuse it at once); otherwise
    ** the last holder frees it, after its work, in timeline order. */
    wnn__tensor_use_end(t);
}

void wnn_tensor_destroy(wnn_tensor *t)
{
    if (t)
        wnn__tensor_kill(t);
}

void wnn_tensor_release(wnn_tensor *t)
{
    if (!t)
        return;
    wnn__tensor_kill(t);
    wnn__tensor_unref(t);
}

/* ---- timeline tasks ------------------------------------------------------ */

static void free_task(wnn__task *task)
{
    if (task->run == run_write || task->own_bytes)
        free(task->bytes);
    wnn__tensor_use_end(task->tensor);
    wnn__tensor_unref(task->tensor);
    free(task);
}

static void run_write(wnn_context *ctx, wnn__task *task)
{
    wnn_status s = wnn__storage_write(&task->tensor->st, task->bytes, task->size);
    if (s != WNN_OK)
        wnn__timeline_error(ctx, s, "write to the device failed");
}

/* A read by the thread that holds the timeline (its worker or a caller that
** entered it): the status, with a message on failure. A failure of the
** device is recorded as a timeline error here; *device_failed says so. */
static wnn_status read_now(wnn_context *ctx, wnn_tensor *t, void *dst, size_t n, char *message, size_t size,
                           bool *device_failed)
{
    wnn_status s = WNN_OK;
    *device_failed = false;
    message[0] = '\0';
    if (atomic_load(&ctx->lost)) {
        s = WNN_STATUS_CONTEXT_LOST;
        snprintf(message, size, "context is lost");
    } else if (atomic_load(&t->destroyed)) {
        s = wnn__destroyed_status(ctx);
        snprintf(message, size, "tensor was destroyed before the read ran");
    } else if ((s = wnn__storage_read(&t->st, dst, n)) != WNN_OK) {
        snprintf(message, size, "read from \"%s\" failed: %s", ctx->info.name, wnn_status_string(s));
        wnn__timeline_error(ctx, s, message);
        *device_failed = true;
    }
    return s;
}

static void run_read(wnn_context *ctx, wnn__task *task)
{
    char message[160];
    bool device_failed;
    wnn_status s = read_now(ctx, task->tensor, task->bytes, task->size, message, sizeof message, &device_failed);
    if (task->callback)
        task->callback(s, message, s == WNN_OK ? task->bytes : NULL, s == WNN_OK ? task->size : 0,
                       task->user_data);
    else if (s != WNN_OK && !device_failed)
        wnn__timeline_error(ctx, s, message);
}

/* ---- attributes ---------------------------------------------------------- */

void wnn_tensor_get_desc(const wnn_tensor *t, wnn_tensor_desc *out)
{
    if (t && out)
        *out = t->desc;
}

wnn_data_type wnn_tensor_data_type(const wnn_tensor *t) { return t ? t->desc.data_type : WNN_DATA_TYPE_INVALID; }
uint32_t wnn_tensor_rank(const wnn_tensor *t) { return t ? t->desc.rank : 0; }
uint64_t wnn_tensor_byte_length(const wnn_tensor *t) { return t ? t->byte_length : 0; }
bool wnn_tensor_is_readable(const wnn_tensor *t) { return t && t->desc.readable; }
bool wnn_tensor_is_writable(const wnn_tensor *t) { return t && t->desc.writable; }
bool wnn_tensor_is_constant(const wnn_tensor *t) { return t && t->constant; }
bool wnn_tensor_is_destroyed(const wnn_tensor *t) { return !t || atomic_load(&t->destroyed); }
wnn_context *wnn_tensor_context(const wnn_tensor *t) { return t ? t->ctx : NULL; }
