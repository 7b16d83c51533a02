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
*/
#include <stdlib.h>

#include "core/internal.h"
#include "wnn/wnn_webgpu.h"

static bool is_webgpu(const wnn_context *ctx) { return ctx->backend->mem_share != NULL; }

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
    if (wnn__registry_find("webgpu", &be, &local) != WNN_OK || !be->device_open_external) {
        const char *why = wnn__registry_absent_reason("webgpu");
        return wnn__fail(WNN_STATUS_NO_SUCH_DEVICE, "%s: the webgpu device is not usable here%s%s", fn,
                         why && why[0] ? ": " : " (see wnn devices)", why ? why : "");
    }
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

/* What export's timeline call needs. */
typedef struct export_call {
    wnn_tensor *tensor;
    wnn_status status;
} export_call;

/* On the timeline: the device side becomes current (zeros written, a host
** value uploaded) before the application's work reads it. */
static void make_current(wnn_status status, const char *message, const void *data, size_t n, void *user)
{
    export_call *c = user;
    void *ptr;
    c->status = status != WNN_OK ? status : wnn__storage_prepare_device(&c->tensor->st, &ptr);
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

wnn_status wnn_webgpu_tensor_export(wnn_context *ctx, wnn_tensor *t, struct WGPUBufferImpl **out)
{
    static const char fn[] = "wnn_webgpu_tensor_export";
    if (!out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (ctx && t && t->ctx == ctx && atomic_load(&t->rented) && !atomic_load(&t->destroyed) &&
        !atomic_load(&ctx->lost)) {
        *out = ctx->backend->mem_share(ctx->device, t->st.device); /* the same buffer again */
        return WNN_OK;
    }
    wnn_status s = wnn__tensor_use_begin(fn, ctx, t);
    if (s != WNN_OK)
        return s;
    if (!is_webgpu(ctx))
        s = wnn__fail(WNN_STATUS_NOT_SUPPORTED, "%s: the context is on \"%s\", not webgpu", fn, ctx->info.name);
    else if (!t->desc.exportable_to_gpu)
        s = wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: the tensor was not created with exportable_to_gpu", fn);
    if (s != WNN_OK) {
        wnn__tensor_use_end(t);
        return s;
    }
    export_call call = {t, WNN_OK};
    uint64_t seq;
    if ((s = wnn__timeline_call(ctx, make_current, &call, &seq)) == WNN_OK) {
        wnn__timeline_wait(ctx, seq);
        s = call.status;
    }
    if (s == WNN_OK) {
        atomic_store(&t->rented, true);
        *out = ctx->backend->mem_share(ctx->device, t->st.device);
    }
    wnn__tensor_use_end(t);
    if (s != WNN_OK)
        return wnn__fail(s, "%s: making the tensor's value current on the device failed: %s", fn,
                         wnn_status_string(s));
    return WNN_OK;
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
    wnn__tensor_retain(t);
    wnn__tensor_use_more(t); /* before the destroyed flag is read: use_begin's rule */
    bool queued = !atomic_load(&ctx->lost) && !atomic_load(&t->destroyed) &&
                  wnn__timeline_call(ctx, mark_written, t, NULL) == WNN_OK;
    if (!queued) {
        wnn__tensor_use_end(t);
        wnn__tensor_unref(t);
    }
    if (!atomic_exchange(&t->rented, false))
        return wnn__fail(WNN_STATUS_INVALID_STATE, "%s: the tensor is not rented (returned already)", fn);
    return WNN_OK;
}

bool wnn_webgpu_tensor_is_rented(const wnn_tensor *t) { return t && atomic_load(&t->rented); }
