/* SPDX-License-Identifier: Apache-2.0 */
/*
** webgpu.c -- the MLTensor <-> GPUBuffer interop of wnn_webgpu.h: contexts
** on the application's WGPUDevice, and the rental of a tensor's buffer.
**
** A rented tensor is marked (t->rented) so that wnn__check_tensor_use and
** dispatch's checks refuse it; nothing else changes: its storage is a
** WGPUBuffer of its own (tensor.c gives exportable tensors one outside the
** caching allocator), so destroying it while rented drops only wnn's
** reference. Export waits for the timeline to pass a call that makes the
** device side current; return queues a call that marks the device side
** written, so the tensor's next use, recorded after it, reads what WebGPU
** left there. The queue of the device orders the GPU work of both sides.
**
** A tensor of another device (cpu, null, webgpu on another WGPUDevice) made
** by wnn_webgpu_context_create_exportable_tensor has a gpu_copy: a buffer
** of its own on the application's device, reached through a wnn device of
** the webgpu backend opened over that device (one per WGPUDevice, shared by
** its tensors, so its staging buffers are made once). Export reads the
** tensor's value on its timeline and writes it into the buffer on the
** application's queue; return reads the buffer back (after the
** application's submissions) and queues a write of it into the tensor.
** Both copies run on the caller's thread, the application's.
*/
#include <pthread.h>
#include <stdlib.h>

#include "core/internal.h"
#include "wnn/wnn_webgpu.h"

static bool is_webgpu(const wnn_context *ctx) { return ctx->backend->mem_share != NULL; }

/* The webgpu backend that can open the application's device, or
** NO_SUCH_DEVICE saying why it is not usable here. */
static wnn_status find_webgpu(const char *fn, const wnn__backend **be, uint32_t *local)
{
    if (wnn__registry_find("webgpu", be, local) != WNN_OK || !(*be)->device_open_external) {
        const char *why = wnn__registry_absent_reason("webgpu");
        return wnn__fail(WNN_STATUS_NO_SUCH_DEVICE, "%s: the webgpu device is not usable here%s%s", fn,
                         why && why[0] ? ": " : " (see wnn devices)", why ? why : "");
    }
    return WNN_OK;
}

wnn_status wnn_webgpu_context_create(struct WGPUInstanceImpl *instance, struct WGPUDeviceImpl *device,
                                     const wnn_context_options *options, wnn_context **out)
{
    static const char fn[] = "wnn_webgpu_context_create";
    static const wnn_context_options defaults = WNN_CONTEXT_OPTIONS_INIT;
    const wnn_context_options *o = options ? options : &defaults;
    if (!out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!instance || !device)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %s is NULL", fn, instance ? "device" : "instance");
    if (o->policy != WNN_POLICY_CHROMIUM && o->policy != WNN_POLICY_SPEC)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: unknown policy %d", fn, (int)o->policy);
    const wnn__backend *be;
    uint32_t local;
    wnn_status found = find_webgpu(fn, &be, &local);
    if (found != WNN_OK)
        return found;
    wnn_device_info info;
    wnn__device *dev;
    wnn_status s = be->device_open_external(instance, device, &dev, &info);
    if (s != WNN_OK)
        return wnn__fail(s, "%s: cannot use the application's device: %s", fn, wnn_status_string(s));
    return wnn__context_open(fn, o, be, &info, dev, out);
}

wnn_status wnn_webgpu_context_get_device(wnn_context *ctx, struct WGPUInstanceImpl **instance,
                                         struct WGPUDeviceImpl **device)
{
    static const char fn[] = "wnn_webgpu_context_get_device";
    if (!ctx)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: context is NULL", fn);
    if (!is_webgpu(ctx))
        return wnn__fail(WNN_STATUS_NOT_SUPPORTED, "%s: the context is on \"%s\", not webgpu", fn, ctx->info.name);
    void *i, *d;
    ctx->backend->device_handles(ctx->device, &i, &d);
    if (instance)
        *instance = i;
    if (device)
        *device = d;
    return WNN_OK;
}

/* ---- the application's devices that copies go to ---------------------------- */

typedef struct copy_device {
    struct copy_device *next;
    void *device; /* the application's WGPUDevice, referenced by dev: the key */
    const wnn__backend *be;
    wnn__device *dev;
    unsigned refs; /* tensors on it; under copy_lock */
} copy_device;

static copy_device *copy_devices;
static pthread_mutex_t copy_lock = PTHREAD_MUTEX_INITIALIZER;

struct wnn__gpu_copy {
    copy_device *cd;
    void *buffer; /* a WGPUBuffer of cd's, the tensor's alone */
    size_t bytes;
};

static wnn_status copy_device_get(const char *fn, void *instance, void *device, copy_device **out)
{
    const wnn__backend *be;
    uint32_t local;
    wnn_status found = find_webgpu(fn, &be, &local);
    if (found != WNN_OK)
        return found;
    wnn_status s = WNN_OK;
    pthread_mutex_lock(&copy_lock);
    copy_device *cd = copy_devices;
    while (cd && cd->device != device)
        cd = cd->next;
    if (!cd && !(cd = calloc(1, sizeof *cd))) {
        s = WNN_STATUS_OUT_OF_MEMORY;
    } else if (!cd->dev) {
        wnn_device_info info;
        if ((s = be->device_open_external(instance, device, &cd->dev, &info)) != WNN_OK) {
            free(cd);
            cd = NULL;
        } else {
            cd->device = device;
            cd->be = be;
            cd->next = copy_devices;
            copy_devices = cd;
        }
    }
    if (cd)
        cd->refs++;
    pthread_mutex_unlock(&copy_lock);
    if (s != WNN_OK)
        return wnn__fail(s, "%s: cannot use the application's device: %s", fn, wnn_status_string(s));
    *out = cd;
    return WNN_OK;
}

static void copy_device_put(copy_device *cd)
{
    pthread_mutex_lock(&copy_lock);
    bool last = --cd->refs == 0;
    if (last) {
        copy_device **at = &copy_devices;
        while (*at != cd)
            at = &(*at)->next;
        *at = cd->next;
    }
    pthread_mutex_unlock(&copy_lock);
    if (last) {
        cd->be->device_close(cd->dev); /* drops wnn's references to the device and instance */
        free(cd);
    }
}

void wnn__gpu_copy_free(struct wnn__gpu_copy *c)
{
    c->cd->be->mem_free(c->cd->dev, c->buffer);
    copy_device_put(c->cd);
    free(c);
}

wnn_status wnn_webgpu_context_create_exportable_tensor(wnn_context *ctx, const wnn_tensor_desc *desc,
                                                       struct WGPUInstanceImpl *instance,
                                                       struct WGPUDeviceImpl *device, wnn_tensor **out)
{
    static const char fn[] = "wnn_webgpu_context_create_exportable_tensor";
    if (!out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!ctx || !desc)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %s is NULL", fn, ctx ? "descriptor" : "context");
    if (!instance || !device)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %s is NULL", fn, instance ? "device" : "instance");
    wnn_tensor_desc d = *desc;
    void *own_instance, *own_device = NULL;
    if (is_webgpu(ctx))
        ctx->backend->device_handles(ctx->device, &own_instance, &own_device);
    d.exportable_to_gpu = own_device == (void *)device; /* the same device shares the buffer */
    wnn_tensor *t;
    wnn_status s = wnn__tensor_create(fn, ctx, &d, &t);
    if (s != WNN_OK || d.exportable_to_gpu) {
        *out = s == WNN_OK ? t : NULL;
        return s;
    }
    struct wnn__gpu_copy *c = calloc(1, sizeof *c);
    if (!c) {
        wnn_tensor_release(t);
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    c->bytes = (size_t)t->byte_length;
    if ((s = copy_device_get(fn, instance, device, &c->cd)) != WNN_OK) {
        free(c);
        wnn_tensor_release(t);
        return s;
    }
    if ((s = c->cd->be->mem_alloc(c->cd->dev, c->bytes, &c->buffer)) != WNN_OK) {
        size_t bytes = c->bytes;
        copy_device_put(c->cd);
        free(c);
        wnn_tensor_release(t);
        return wnn__fail(s, "%s: cannot make a buffer of %zu bytes on the application's device", fn, bytes);
    }
    t->gpu_copy = c;
    t->desc.exportable_to_gpu = true;
    *out = t;
    return WNN_OK;
}

/* ---- export and return -------------------------------------------------------- */

/* A new reference to the buffer a rented tensor is exported as. */
static void *share(wnn_tensor *t)
{
    struct wnn__gpu_copy *c = t->gpu_copy;
    if (c)
        return c->cd->be->mem_share(c->cd->dev, c->buffer);
    return t->ctx->backend->mem_share(t->ctx->device, t->st.device);
}

/* What export's timeline call needs. */
typedef struct export_call {
    wnn_tensor *tensor;
    void *host; /* a copy: the value is read here */
    wnn_status status;
} export_call;

/* On the timeline: the device side becomes current (zeros written, a host
** value uploaded) before the application's work reads it; for a copy, the
** value is read to the host. */
static void make_current(wnn_status status, const char *message, const void *data, size_t n, void *user)
{
    export_call *c = user;
    void *ptr;
    if (status != WNN_OK)
        c->status = status;
    else if (c->host)
        c->status = wnn__storage_read(&c->tensor->st, c->host, (size_t)c->tensor->byte_length);
    else
        c->status = wnn__storage_prepare_device(&c->tensor->st, &ptr);
}

/* On the timeline: what the application wrote is the value. The call holds
** a use of the tensor, given back here. */
static void mark_written(wnn_status status, const char *message, const void *data, size_t n, void *user)
{
    wnn_tensor *t = user;
    if (status == WNN_OK)
        wnn__storage_device_written(&t->st);
    wnn__tensor_use_end(t);
    wnn__tensor_unref(t);
}

/* Export once the caller holds a use of t and the rules passed. */
static wnn_status export_used(wnn_context *ctx, wnn_tensor *t)
{
    struct wnn__gpu_copy *c = t->gpu_copy;
    export_call call = {t, NULL, WNN_OK};
    if (c && !(call.host = malloc(c->bytes)))
        return WNN_STATUS_OUT_OF_MEMORY;
    uint64_t seq;
    wnn_status s = wnn__timeline_call(ctx, make_current, &call, &seq);
    if (s == WNN_OK) {
        wnn__timeline_wait(ctx, seq);
        s = call.status;
    }
    /* on the application's queue before anything it submits after the call */
    if (s == WNN_OK && c)
        s = c->cd->be->copy_to_device(c->cd->dev, c->buffer, call.host, c->bytes);
    free(call.host);
    return s;
}

wnn_status wnn_webgpu_tensor_export_v2(wnn_context *ctx, wnn_tensor *t, struct WGPUBufferImpl **out, bool *copied)
{
    static const char fn[] = "wnn_webgpu_tensor_export";
    if (copied)
        *copied = false;
    if (!out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (ctx && t && t->ctx == ctx && atomic_load(&t->rented) && !atomic_load(&t->destroyed) &&
        !atomic_load(&ctx->lost)) {
        *out = share(t); /* the same buffer again, not copied again */
        if (copied)
            *copied = t->gpu_copy != NULL;
        return WNN_OK;
    }
    wnn_status s = wnn__tensor_use_begin(fn, ctx, t);
    if (s != WNN_OK)
        return s;
    if (!is_webgpu(ctx) && !t->gpu_copy)
        s = wnn__fail(WNN_STATUS_NOT_SUPPORTED,
                      "%s: the context is on \"%s\", not webgpu (wnn_webgpu_context_create_exportable_tensor "
                      "makes tensors that export copies)",
                      fn, ctx->info.name);
    else if (!t->desc.exportable_to_gpu)
        s = wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: the tensor was not created with exportable_to_gpu", fn);
    else if ((s = export_used(ctx, t)) != WNN_OK)
        wnn__fail(s, "%s: %s failed: %s", fn,
                  t->gpu_copy ? "copying the tensor's value to the application's device"
                              : "making the tensor's value current on the device",
                  wnn_status_string(s));
    if (s == WNN_OK) {
        atomic_store(&t->rented, true);
        *out = share(t);
        if (copied)
            *copied = t->gpu_copy != NULL;
    }
    wnn__tensor_use_end(t);
    return s;
}

wnn_status wnn_webgpu_tensor_export(wnn_context *ctx, wnn_tensor *t, struct WGPUBufferImpl **out)
{
    return wnn_webgpu_tensor_export_v2(ctx, t, out, NULL);
}

/* What a copy's return writes into the tensor. */
typedef struct write_back {
    wnn_tensor *tensor; /* holds a reference and a use */
    void *bytes;
} write_back;

/* On the timeline: what the application wrote into the copy becomes the
** tensor's value. */
static void write_copy(wnn_status status, const char *message, const void *data, size_t n, void *user)
{
    write_back *w = user;
    wnn_tensor *t = w->tensor;
    if (status == WNN_OK && (status = wnn__storage_write(&t->st, w->bytes, (size_t)t->byte_length)) != WNN_OK)
        wnn__timeline_error(t->ctx, status, "writing back what WebGPU wrote into an exported copy failed");
    free(w->bytes);
    free(w);
    wnn__tensor_use_end(t);
    wnn__tensor_unref(t);
}

/* Queues the step that gives the tensor what WebGPU left in its buffer:
** marking the device side written, or for a copy reading the buffer back
** (waiting for the application's work) and writing it into the tensor. The
** caller holds a use of t and a reference, which the step takes over. */
static wnn_status queue_return(wnn_context *ctx, wnn_tensor *t)
{
    struct wnn__gpu_copy *c = t->gpu_copy;
    if (!c)
        return wnn__timeline_call(ctx, mark_written, t, NULL);
    write_back *w = malloc(sizeof *w);
    void *bytes = malloc(c->bytes);
    wnn_status s = w && bytes ? c->cd->be->copy_to_host(c->cd->dev, bytes, c->buffer, c->bytes)
                              : WNN_STATUS_OUT_OF_MEMORY;
    if (s == WNN_OK) {
        *w = (write_back){t, bytes};
        if ((s = wnn__timeline_call(ctx, write_copy, w, NULL)) == WNN_OK)
            return WNN_OK;
    }
    free(w);
    free(bytes);
    return s;
}

wnn_status wnn_webgpu_tensor_return(wnn_context *ctx, wnn_tensor *t)
{
    static const char fn[] = "wnn_webgpu_tensor_return";
    if (!ctx || !t)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %s is NULL", fn, ctx ? "tensor" : "context");
    if (t->ctx != ctx)
        return wnn__fail(WNN_STATUS_WRONG_CONTEXT, "%s: tensor belongs to another context", fn);
    if (!atomic_load(&t->rented))
        return wnn__fail(WNN_STATUS_INVALID_STATE, "%s: the tensor is not rented (never exported, or returned)",
                         fn);
    /* queued before the rental ends, so every later call on the tensor
    ** comes after it; a lost context or a destroyed tensor needs no value */
    bool copy = t->gpu_copy != NULL;
    wnn__tensor_retain(t);
    wnn__tensor_use_more(t); /* before the destroyed flag is read: use_begin's rule */
    wnn_status s = WNN_OK;
    bool live = !atomic_load(&ctx->lost) && !atomic_load(&t->destroyed);
    if (live)
        s = queue_return(ctx, t);
    if (!live || s != WNN_OK) {
        wnn__tensor_use_end(t);
        wnn__tensor_unref(t);
    }
    if (!atomic_exchange(&t->rented, false))
        return wnn__fail(WNN_STATUS_INVALID_STATE, "%s: the tensor is not rented (returned already)", fn);
    /* a lost context at the queueing: no value is needed any more */
    if (s == WNN_STATUS_CONTEXT_LOST)
        return WNN_OK;
    if (s != WNN_OK)
        return wnn__fail(s, "%s: %s failed: %s; the rental has ended, the tensor keeps its value", fn,
                         copy ? "reading the application's copy back" : "queueing the return",
                         wnn_status_string(s));
    return WNN_OK;
}

bool wnn_webgpu_tensor_is_rented(const wnn_tensor *t) { return t && atomic_load(&t->rented); }
