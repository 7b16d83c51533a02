/* SPDX-License-Identifier: Apache-2.0 */
/*
** dlpack_import.c -- wnn_context_import_dlpack: a wnn tensor over a DLPack
** managed tensor's memory, or over a copy of it.
**
** Import owns the managed tensor from the call on: every failure calls its
** deleter before returning; a wrapped tensor calls it when its storage is
** released; a copy calls it once the copy no longer needs the source. The
** checks come first and touch nothing but the struct, so a malformed tensor
** is refused before any of its memory is read.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interop/dlpack_internal.h"

static const char fn[] = "wnn_context_import_dlpack";

static void call_deleter(void *managed, bool legacy)
{
    if (legacy) {
        DLManagedTensor *m = managed;
        if (m->deleter)
            m->deleter(m);
    } else {
        DLManagedTensorVersioned *m = managed;
        if (m->deleter)
            m->deleter(m);
    }
}

/* A validated managed tensor and how it will be taken. */
typedef struct source {
    void *managed;
    bool legacy;
    const DLTensor *dl;
    uint64_t flags;
    wnn_tensor_desc desc;
    size_t es;
    bool host;                     /* host code can read the memory */
    bool compact;                  /* dense row-major (size-1 dimensions: any stride) */
    const char *copy_reason;       /* why it must be copied; NULL: it can be wrapped */
    int64_t strides[WNN_MAX_RANK]; /* in elements; the compact ones when dl->strides is NULL */
    int64_t lo, hi;                /* the element offsets the view reaches */
    uintptr_t base;                /* address of element 0: data + byte_offset */
    wnn__dl_export *producer;      /* wnn's own export, if it is one */
    bool foreign_device;           /* memory of ctx's device that another producer made */
} source;

static bool is_host_memory(int32_t device_type)
{
    return device_type == kDLCPU || device_type == kDLCUDAHost || device_type == kDLROCMHost;
}

/* Element offsets the view reaches and whether it is compact; false when
** an offset does not fit in int64. */
static bool measure(source *src)
{
    const DLTensor *dl = src->dl;
    int64_t step = 1;
    src->compact = true;
    src->lo = src->hi = 0;
    for (int32_t i = dl->ndim; i-- > 0;) {
        int64_t d = dl->shape[i], s = dl->strides ? dl->strides[i] : step, reach;
        src->strides[i] = s;
        if (d > 1 && s != step)
            src->compact = false;
        if (__builtin_mul_overflow(d - 1, s, &reach) ||
            __builtin_add_overflow(reach < 0 ? src->lo : src->hi, reach, reach < 0 ? &src->lo : &src->hi))
            return false;
        step *= d;
    }
    return true;
}

/* Byte range of the view around data; refuses ranges that wrap the address
** space or leave the memory wnn itself exported. */
static wnn_status check_range(source *src)
{
    const DLTensor *dl = src->dl;
    int64_t first, last, lo_bytes, hi_bytes, es = (int64_t)src->es;
    if (!measure(src) || dl->byte_offset > (uint64_t)INT64_MAX ||
        __builtin_mul_overflow(src->lo, es, &lo_bytes) ||
        __builtin_add_overflow((int64_t)dl->byte_offset, lo_bytes, &first) ||
        __builtin_mul_overflow(src->hi, es, &hi_bytes) ||
        __builtin_add_overflow((int64_t)dl->byte_offset, hi_bytes, &last) ||
        __builtin_add_overflow(last, es, &last))
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: strides and byte_offset reach offsets that overflow", fn);
    uintptr_t data = (uintptr_t)dl->data;
    if ((first < 0 && data < -(uintptr_t)first) || (uint64_t)last > UINTPTR_MAX - data)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: strides and byte_offset reach outside the address space",
                         fn);
    if (src->producer && (dl->data != src->producer->data || first < 0 || (uint64_t)last > src->producer->bytes))
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT,
                         "%s: the view reaches outside the memory wnn exported (%zu bytes)", fn,
                         src->producer->bytes);
    src->base = data + (uintptr_t)dl->byte_offset;
    return WNN_OK;
}

static wnn_status check_type(const wnn_dlpack_import_options *o, source *src)
{
    DLDataType t = src->dl->dtype;
    if (src->flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)
        return wnn__fail(WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: padded sub-byte data types are not supported", fn);
    wnn_data_type type = wnn__dl_to_data_type(t);
    if (type == WNN_DATA_TYPE_INVALID && o->bool_as_uint8 && t.code == kDLBool && t.bits == 8 && t.lanes == 1)
        type = WNN_DATA_TYPE_UINT8;
    if (type == WNN_DATA_TYPE_INVALID)
        return wnn__fail(WNN_STATUS_UNSUPPORTED_DATA_TYPE,
                         "%s: DLPack data type (code %u, bits %u, lanes %u) is not one of WebNN's%s", fn,
                         (unsigned)t.code, (unsigned)t.bits, (unsigned)t.lanes,
                         t.code == kDLBool ? " (bool: set bool_as_uint8)" : "");
    src->desc.data_type = type;
    src->es = wnn_data_type_size(type);
    return WNN_OK;
}

/* Whether wnn's export e was made on the WGPUDevice ctx runs on. */
static bool same_gpu_device(const wnn__dl_export *e, wnn_context *ctx)
{
    void *instance, *mine, *theirs;
    if (!e->ctx)
        return false;
    ctx->backend->device_handles(ctx->device, &instance, &mine);
    e->backend->device_handles(e->ctx->device, &instance, &theirs);
    return mine == theirs;
}

/* Where the memory is and whether ctx can reach it. */
static wnn_status check_device(wnn_context *ctx, source *src)
{
    DLDevice dev = src->dl->device;
    bool own = (int32_t)dev.device_type == ctx->info.dlpack_device_type && dev.device_id == ctx->info.dlpack_device_id;
    src->host = is_host_memory((int32_t)dev.device_type);
    if (!own && !src->host)
        return wnn__fail(WNN_STATUS_UNSUPPORTED_DEVICE, "%s: \"%s\" cannot reach memory of DLPack device (%d, %d)",
                         fn, ctx->info.name, (int)dev.device_type, (int)dev.device_id);
    /* A device address means something only to the backend that made it:
    ** kDLExtDev in particular is anyone's extension. */
    const wnn__dl_export *e = src->producer;
    if (e && (e->device.device_type != dev.device_type || e->device.device_id != dev.device_id))
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: the tensor says DLPack device (%d, %d), wnn exported it on (%d, %d)",
                         fn, (int)dev.device_type, (int)dev.device_id, (int)e->device.device_type,
                         (int)e->device.device_id);
    /* Foreign memory of the device itself (CUDA memory from PyTorch, CuPy,
    ** JAX) is usable when the backend recognises it as its device's. */
    const wnn__backend *be = ctx->backend;
    if (own && !src->host && !e && src->dl->data && be->owns_pointer &&
        be->owns_pointer(ctx->device, src->dl->data)) {
        src->foreign_device = true;
        return WNN_OK;
    }
    if (own && !src->host && !(e && e->backend == ctx->backend))
        return wnn__fail(WNN_STATUS_UNSUPPORTED_DEVICE,
                         "%s: DLPack device (%d, %d) memory that wnn did not export cannot be read by \"%s\"%s", fn,
                         (int)dev.device_type, (int)dev.device_id, ctx->info.name,
                         dev.device_type == kDLWebGPU ? " (webgpu.h cannot tell which device a WGPUBuffer is of)"
                                                      : "");
    /* Every WebGPU device is (kDLWebGPU, 0): a buffer is usable only on the
    ** WGPUDevice that made it. */
    if (own && !src->host && be->device_handles && !same_gpu_device(e, ctx))
        return wnn__fail(WNN_STATUS_UNSUPPORTED_DEVICE,
                         "%s: the WGPUBuffer is of another WGPUDevice than \"%s\"'s (export it to (kDLCPU, 0) "
                         "to move it)",
                         fn, ctx->info.name);
    return WNN_OK;
}

static wnn_status check(wnn_context *ctx, const wnn_dlpack_import_options *o, source *src)
{
    if (src->legacy) {
        DLManagedTensor *m = src->managed;
        src->dl = &m->dl_tensor;
    } else {
        DLManagedTensorVersioned *m = src->managed;
        if (m->version.major != WNN_DLPACK_VERSION_MAJOR)
            return wnn__fail(WNN_STATUS_UNSUPPORTED_VERSION, "%s: DLPack version %u.%u, wnn reads major version %d",
                             fn, m->version.major, m->version.minor, WNN_DLPACK_VERSION_MAJOR);
        src->dl = &m->dl_tensor;
        src->flags = m->flags;
    }
    const DLTensor *dl = src->dl;
    if ((unsigned)o->copy > WNN_DLPACK_COPY_NEVER)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: copy is %d, not a wnn_dlpack_copy", fn, (int)o->copy);
    if (atomic_load(&ctx->lost))
        return wnn__fail(WNN_STATUS_CONTEXT_LOST, "%s: context is lost", fn);
    if (dl->ndim < 0 || dl->ndim > WNN_MAX_RANK)
        return wnn__fail(WNN_STATUS_INVALID_RANK, "%s: ndim is %d, wnn takes 0 to %d", fn, (int)dl->ndim,
                         WNN_MAX_RANK);
    if (dl->ndim > 0 && !dl->shape)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: shape is NULL with ndim %d", fn, (int)dl->ndim);
    uint64_t count = 1;
    for (int32_t i = 0; i < dl->ndim; i++) {
        int64_t d = dl->shape[i];
        if (d < 1 || d > (int64_t)WNN_MAX_DIMENSION)
            return wnn__fail(WNN_STATUS_INVALID_DIMENSION, "%s: shape[%d] is %lld, dimensions must be 1 to 2^31-1",
                             fn, (int)i, (long long)d);
        if ((count *= (uint64_t)d) > WNN_MAX_DIMENSION)
            return wnn__fail(WNN_STATUS_TOO_MANY_ELEMENTS, "%s: more than 2^31-1 elements", fn);
        src->desc.shape[i] = (uint32_t)d;
    }
    src->desc.rank = (uint32_t)dl->ndim;
    wnn_status s = check_type(o, src);
    if (s != WNN_OK)
        return s;
    src->producer = wnn__dl_export_of(src->managed, src->legacy);
    if ((s = check_device(ctx, src)) != WNN_OK)
        return s;
    if (!dl->data)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: data is NULL", fn);
    if ((s = check_range(src)) != WNN_OK)
        return s;
    /* a WGPUBuffer is a handle: wnn binds and copies whole buffers only */
    if (dl->device.device_type == kDLWebGPU && (!src->compact || dl->byte_offset))
        return wnn__fail(WNN_STATUS_UNSUPPORTED_DEVICE,
                         "%s: a view of a WGPUBuffer (byte_offset %llu%s) cannot be taken: only the whole buffer, "
                         "compact row-major",
                         fn, (unsigned long long)dl->byte_offset, src->compact ? "" : ", strided");

    bool unified = ctx->backend->unified_memory;
    src->copy_reason = o->copy == WNN_DLPACK_COPY_ALWAYS ? "copy was asked for"
                       : src->host && !unified       ? "host memory goes into device memory"
                       : !src->compact               ? "the strides are not compact row-major"
                       : dl->byte_offset             ? "byte_offset is not 0"
                       : (uintptr_t)dl->data % src->es ? "data is not aligned to its element size"
                                                       : NULL;
    if (src->copy_reason && o->copy == WNN_DLPACK_COPY_NEVER)
        return wnn__fail(WNN_STATUS_COPY_FORBIDDEN, "%s: copy is forbidden but needed: %s", fn, src->copy_reason);
    return WNN_OK;
}

/* ---- ordering after a wnn producer on another queue ------------------------- */

typedef struct producer_wait {
    wnn__dl_export *producer;
    wnn_context *ctx;
} producer_wait;

static void wait_for_producer(wnn_status s, const char *message, const void *data, size_t n, void *user)
{
    producer_wait *w = user;
    if (s == WNN_OK && wnn__dl_event_wait(w->producer) != WNN_OK)
        wnn__timeline_error(w->ctx, WNN_STATUS_OPERATION_ERROR,
                            "the device of a DLPack producer failed before this context used its tensor");
    wnn__dl_export_unref(w->producer);
    free(w);
}

/* Makes ctx's timeline wait, on its own thread, for the producer's event
** before anything recorded later. */
static wnn_status order_after_producer(wnn_context *ctx, wnn__dl_export *producer)
{
    if (!producer || !producer->has_event || producer->ctx == ctx)
        return WNN_OK; /* no event, or one queue: its order is enough */
    producer_wait *w = malloc(sizeof *w);
    if (!w)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    *w = (producer_wait){producer, ctx};
    wnn__dl_export_retain(producer);
    wnn_status s = wnn__timeline_call(ctx, wait_for_producer, w, NULL);
    if (s != WNN_OK) {
        wnn__dl_export_unref(producer);
        free(w);
    }
    return s;
}

/* ---- wrapping without a copy --------------------------------------------------- */

typedef struct owner {
    void *managed;
    bool legacy;
    wnn_context *ctx;
} owner;

/* The storage's release: the device must be done with the memory before
** its producer gets it back. */
static void release_foreign(void *p)
{
    owner *o = p;
    const wnn__backend *be = o->ctx->backend;
    if (!be->unified_memory && be->synchronize) {
        wnn_status s = be->synchronize(o->ctx->device);
        if (s != WNN_OK)
            wnn__timeline_error(o->ctx, s, "device work failed before imported memory went back to its producer");
    }
    call_deleter(o->managed, o->legacy);
    free(o);
}

typedef struct constant_read {
    wnn_tensor *t;
    wnn_status status;
} constant_read;

static void read_constant(wnn_status s, const char *message, const void *data, size_t n, void *user)
{
    constant_read *r = user;
    if (s == WNN_OK)
        s = wnn__storage_read(&r->t->st, r->t->constant_bytes, (size_t)r->t->byte_length);
    r->status = s;
}

/* A read-only import is a constant tensor: never written, and with the host
** copy of its bytes every constant keeps for graph builders. */
static wnn_status make_constant(wnn_context *ctx, wnn_tensor *t, const source *src)
{
    t->constant = true;
    t->desc.writable = false;
    if (!(t->constant_bytes = malloc(t->byte_length ? (size_t)t->byte_length : 1)))
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    if (ctx->backend->unified_memory) {
        memcpy(t->constant_bytes, src->dl->data, (size_t)t->byte_length);
        return WNN_OK;
    }
    constant_read r = {t, WNN_OK};
    uint64_t seq;
    wnn_status s = wnn__timeline_call(ctx, read_constant, &r, &seq);
    if (s != WNN_OK)
        return s;
    wnn__timeline_wait(ctx, seq);
    if (r.status != WNN_OK)
        return wnn__fail(r.status, "%s: reading the read-only tensor for its host copy failed", fn);
    return WNN_OK;
}

static wnn_status wrap(wnn_context *ctx, source *src, wnn_tensor **out)
{
    owner *ow = malloc(sizeof *ow);
    if (!ow) {
        call_deleter(src->managed, src->legacy);
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    *ow = (owner){src->managed, src->legacy, ctx};
    wnn_tensor *t;
    wnn_status s = wnn__tensor_create_foreign(fn, ctx, &src->desc, src->dl->data, release_foreign, ow, &t);
    if (s != WNN_OK) {
        free(ow);
        call_deleter(src->managed, src->legacy);
        return s;
    }
    /* from here the tensor's storage owns the managed tensor */
    s = order_after_producer(ctx, src->producer);
    if (s == WNN_OK && (src->flags & DLPACK_FLAG_BITMASK_READ_ONLY))
        s = make_constant(ctx, t, src);
    if (s != WNN_OK) {
        wnn_tensor_release(t);
        return s;
    }
    *out = t;
    return WNN_OK;
}

/* ---- copying ------------------------------------------------------------------------ */

typedef struct copy_job {
    wnn_tensor *t; /* retained */
    source src;
} copy_job;

/* Writes the view's elements in row-major order to dst. src points at the
** element whose offset is origin. */
static void gather(char *dst, const char *src, int64_t origin, const source *v, const wnn_tensor *t)
{
    uint32_t rank = t->desc.rank;
    const uint32_t *shape = t->desc.shape;
    ptrdiff_t es = (ptrdiff_t)v->es;
    if (v->compact) {
        memcpy(dst, src - origin * es, (size_t)t->byte_length);
        return;
    }
    uint32_t inner = rank ? shape[rank - 1] : 1, idx[WNN_MAX_RANK] = {0};
    int64_t inner_stride = rank ? v->strides[rank - 1] : 1, row = 0;
    uint64_t rows = t->byte_length / (uint64_t)es / inner;
    for (uint64_t r = 0; r < rows; r++) {
        const char *from = src + (row - origin) * es;
        if (inner_stride == 1) {
            memcpy(dst, from, inner * (size_t)es);
        } else {
            for (uint32_t k = 0; k < inner; k++)
                memcpy(dst + k * es, from + (int64_t)k * inner_stride * es, (size_t)es);
        }
        dst += inner * (size_t)es;
        for (uint32_t d = rank > 0 ? rank - 1 : 0; d-- > 0;) {
            if (++idx[d] < shape[d]) {
                row += v->strides[d];
                break;
            }
            row -= v->strides[d] * (int64_t)(shape[d] - 1);
            idx[d] = 0;
        }
    }
}

static wnn_status copy_value(wnn_context *ctx, wnn_tensor *t, const source *src)
{
    wnn__storage *st = &t->st;
    size_t bytes = (size_t)t->byte_length;
    const wnn__backend *be = ctx->backend;
    if (src->host && be->unified_memory) {
        gather(st->device, (const char *)src->base, 0, src, t);
        wnn__storage_device_written(st);
        return WNN_OK;
    }
    if (src->host && src->compact)
        return wnn__storage_write(st, (const void *)src->base, bytes);
    wnn_status s;
    if (!src->host && src->compact) {
        /* device to device; the source goes back to its producer next */
        if ((s = wnn__memory_copy(&ctx->alloc, WNN__COPY_ON_DEVICE, st->device, (void *)src->base, bytes)) ==
            WNN_OK) {
            wnn__storage_device_written(st);
            s = be->synchronize ? be->synchronize(ctx->device) : WNN_OK;
        }
        return s;
    }
    /* strided: through host memory, the device's span first */
    const char *from = (const char *)src->base;
    int64_t origin = 0;
    size_t span = (size_t)(src->hi - src->lo + 1) * src->es;
    char *staging = src->host ? NULL : malloc(span), *dense = malloc(bytes ? bytes : 1);
    if ((!src->host && !staging) || !dense) {
        free(staging);
        free(dense);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    s = WNN_OK;
    if (!src->host) {
        void *at = (void *)(src->base + (uintptr_t)(src->lo * (int64_t)src->es));
        s = wnn__memory_copy(&ctx->alloc, WNN__COPY_TO_HOST, staging, at, span);
        from = staging;
        origin = src->lo;
    }
    if (s == WNN_OK) {
        gather(dense, from, origin, src, t);
        s = wnn__storage_write(st, dense, bytes);
    }
    free(staging);
    free(dense);
    return s;
}

static void copy_in(wnn_status s, const char *message, const void *data, size_t n, void *user)
{
    copy_job *j = user;
    wnn_context *ctx = j->t->ctx;
    if (s == WNN_OK && (s = copy_value(ctx, j->t, &j->src)) != WNN_OK) {
        char text[160];
        snprintf(text, sizeof text, "DLPack import into \"%s\" failed: %s", ctx->info.name, wnn_status_string(s));
        wnn__timeline_error(ctx, s, text);
    }
    call_deleter(j->src.managed, j->src.legacy);
    wnn__tensor_use_end(j->t);
    wnn__tensor_unref(j->t);
    free(j);
}

/* The copy runs on ctx's timeline: it returns at once, and work recorded
** later on the tensor sees the copied value. */
static wnn_status copy(wnn_context *ctx, source *src, wnn_tensor **out)
{
    wnn_tensor *t = NULL;
    copy_job *j = NULL;
    wnn_status s = wnn_context_create_tensor(ctx, &src->desc, &t);
    if (s != WNN_OK) {
        char message[256];
        snprintf(message, sizeof message, "%s", wnn_last_error_message());
        wnn__fail(s, "%s: %s", fn, message);
    } else if (!(j = malloc(sizeof *j))) {
        s = wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    } else if ((s = order_after_producer(ctx, src->producer)) == WNN_OK) {
        *j = (copy_job){t, *src};
        /* a destroy right after return must not free what the copy writes */
        wnn__tensor_retain(t);
        wnn__tensor_use_more(t);
        if ((s = wnn__timeline_call(ctx, copy_in, j, NULL)) != WNN_OK) {
            wnn__tensor_use_end(t);
            wnn__tensor_unref(t);
        }
    }
    if (s != WNN_OK) {
        free(j);
        wnn_tensor_release(t);
        call_deleter(src->managed, src->legacy);
        return s;
    }
    *out = t;
    return WNN_OK;
}

wnn_status wnn_context_import_dlpack(wnn_context *ctx, void *managed, const wnn_dlpack_import_options *options,
                                     wnn_tensor **out)
{
    static const wnn_dlpack_import_options defaults = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    const wnn_dlpack_import_options *o = options ? options : &defaults;
    if (out)
        *out = NULL;
    if (!managed)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: managed is NULL", fn);
    source src = {.managed = managed, .legacy = o->legacy};
    src.desc = (wnn_tensor_desc)WNN_TENSOR_DESC_INIT;
    src.desc.readable = o->readable;
    src.desc.writable = o->writable;
    wnn_status s = !ctx   ? wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: context is NULL", fn)
                   : !out ? wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: out is NULL", fn)
                          : check(ctx, o, &src);
    /* A foreign producer ordered its work before the stream it names, by
    ** default the legacy default stream (the one a consumer without a
    ** stream of its own names, 1): the device's queue waits for that stream
    ** before it touches the memory. */
    if (s == WNN_OK && o->has_stream && (o->stream == 0 || o->stream < WNN_DLPACK_STREAM_NO_SYNC))
        s = wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: stream %lld is not a stream (0 and values below -1 are refused)",
                      fn, (long long)o->stream);
    int64_t producer = o->has_stream ? o->stream : 1;
    if (s == WNN_OK && src.foreign_device && ctx->backend->wait_for_stream && producer != WNN_DLPACK_STREAM_NO_SYNC &&
        (s = ctx->backend->wait_for_stream(ctx->device, (uintptr_t)producer)) != WNN_OK)
        wnn__fail(s, "%s: ordering \"%s\" after the producer's stream failed", fn, ctx->info.name);
    if (s != WNN_OK) {
        call_deleter(managed, src.legacy);
        return s;
    }
    return src.copy_reason ? copy(ctx, &src, out) : wrap(ctx, &src, out);
}
