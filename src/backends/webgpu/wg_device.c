/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_device.c -- the webgpu backend table: its device, memory as WGPUBuffers,
** copies and synchronization.
**
** A discrete device in wnn's storage model (like the null device): tensors
** are WGPUBuffers (STORAGE | COPY_SRC | COPY_DST) from the caching allocator,
** core keeps the host mirror. Small uploads go through wgpuQueueWriteBuffer
** (which copies the caller's bytes at once), large ones in 8 MiB chunks
** through a ring of mapped staging buffers (or, WNN_WEBGPU_UPLOAD=pieces,
** wgpuQueueWriteBuffer calls of 2 MiB); reads copy into a MapRead staging
** buffer on the queue and map it, waiting through the instance. The queue
** keeps call order, so nothing else waits: synchronize maps a word behind
** everything submitted, and returns at once when nothing was submitted since
** the last readback. Errors of queued work arrive through the device's
** uncaptured-error callback and are reported by the next read or
** synchronize.
**
** One WGPUDevice serves every context of the process (Dawn's device costs
** about 80 MB and 100 ms): made by the first context, kept until exit.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/webgpu/wg_internal.h"
#include "memory/allocator.h"
#include "platform/config.h"
#include "platform/pool.h"

#define USAGE (WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst)

static WGPUStringView sv(const char *s) { return (WGPUStringView){s, WGPU_STRLEN}; }
static size_t words(size_t n) { return (n + 3) & ~(size_t)3; }

/* ---- the GPU ----------------------------------------------------------------------- */

typedef struct device_reply {
    uint32_t status;
    WGPUDevice device;
    char message[200];
} device_reply;

static void on_device(uint32_t status, WGPUDevice device, WGPUStringView msg, void *u1, void *u2)
{
    device_reply *r = u1;
    r->status = status;
    r->device = device;
    size_t len = msg.data ? (msg.length == WGPU_STRLEN ? strlen(msg.data) : msg.length) : 0;
    snprintf(r->message, sizeof r->message, "%.*s", (int)len, msg.data ? msg.data : "");
}

/* Runs on whatever thread Dawn reports from, usually inside a wgpu call
** made under g->lock: it only records. */
static void on_error(const WGPUDevice *device, WGPUErrorType type, WGPUStringView msg, void *u1, void *u2)
{
    wg_gpu *g = u1;
    size_t len = msg.data ? (msg.length == WGPU_STRLEN ? strlen(msg.data) : msg.length) : 0;
    if (g->errors++ == 0 || !g->error_message[0])
        snprintf(g->error_message, sizeof g->error_message, "%.*s", (int)len, msg.data ? msg.data : "");
    if (wnn__config_get()->webgpu_debug)
        fprintf(stderr, "wnn webgpu: device error: %.*s\n", (int)len, msg.data ? msg.data : "");
}

static wg_gpu *shared;
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

wnn_status wg_default_gpu(wg_gpu **out)
{
    const wg_library_state *lib = wg_library();
    if (!lib->adapter_ok)
        return WNN_STATUS_NO_SUCH_DEVICE;
    if (lib->pid != getpid()) {
        /* the instance, device and the implementation's threads belong to
        ** the parent: a child's calls on them would wait forever */
        if (wnn__config_get()->webgpu_debug)
            fprintf(stderr, "wnn webgpu: a child of fork() cannot use the parent's WebGPU instance\n");
        return WNN_STATUS_NOT_SUPPORTED;
    }
    pthread_mutex_lock(&shared_lock);
    if (shared) {
        *out = shared;
        pthread_mutex_unlock(&shared_lock);
        return WNN_OK;
    }
    wg_gpu *g = calloc(1, sizeof *g);
    if (!g) {
        pthread_mutex_unlock(&shared_lock);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    pthread_mutex_init(&g->lock, NULL);
    g->instance = lib->instance;
    /* ask for everything the adapter offers: tensors are bounded by it */
    WGPULimits want = lib->limits;
    want.nextInChain = NULL;
    WGPUFeatureName f16 = WGPUFeatureName_ShaderF16;
    WGPUDeviceDescriptor dd = {0};
    dd.label = sv("wnn");
    dd.requiredFeatureCount = lib->shader_f16 ? 1 : 0;
    dd.requiredFeatures = &f16;
    dd.requiredLimits = &want;
    dd.uncapturedErrorCallbackInfo = (WGPUUncapturedErrorCallbackInfo){NULL, on_error, g, NULL};
    device_reply r = {0};
    WGPURequestDeviceCallbackInfo ci = {NULL, WGPUCallbackMode_WaitAnyOnly, on_device, &r, NULL};
    if (!wg_wait(g, wg.wgpuAdapterRequestDevice(lib->adapter, &dd, ci)) ||
        r.status != WGPURequestDeviceStatus_Success || !r.device) {
        pthread_mutex_unlock(&shared_lock);
        pthread_mutex_destroy(&g->lock);
        free(g);
        return WNN_STATUS_OPERATION_ERROR;
    }
    g->device = r.device;
    g->queue = wg.wgpuDeviceGetQueue(g->device);
    wg.wgpuDeviceGetLimits(g->device, &g->limits);
    g->shader_f16 = lib->shader_f16;
    g->cpu_adapter = lib->cpu_adapter;
    g->upload_chunk = (uint64_t)wnn__config_get()->webgpu_staging_kib << 10;
    *out = shared = g;
    pthread_mutex_unlock(&shared_lock);
    return WNN_OK;
}

bool wg_wait(wg_gpu *g, WGPUFuture f)
{
    WGPUFutureWaitInfo w = {f, 0};
    if (!g->external)
        return wg.wgpuInstanceWaitAny(g->instance, 1, &w, UINT64_MAX) == WGPUWaitStatus_Success && w.completed;
    /* the application's instance may have no timed waits: poll it */
    for (unsigned spins = 0; !w.completed; spins++) {
        WGPUWaitStatus st = wg.wgpuInstanceWaitAny(g->instance, 1, &w, 0);
        if (st != WGPUWaitStatus_Success && st != WGPUWaitStatus_TimedOut)
            return false;
        if (!w.completed && spins > 100)
            nanosleep(&(struct timespec){0, 50000}, NULL);
    }
    return true;
}

/* An external device's errors go to the application's callback: wnn's own
** submissions are wrapped in an error scope whose result lands here. */
static void on_scope(uint32_t status, WGPUErrorType type, WGPUStringView msg, void *u1, void *u2)
{
    if (status == WGPUPopErrorScopeStatus_Success && type != WGPUErrorType_NoError)
        on_error(NULL, type, msg, u1, NULL);
}

void wg_submit(wg_gpu *g, WGPUCommandEncoder enc)
{
    if (g->external)
        wg.wgpuDevicePushErrorScope(g->device, WGPUErrorFilter_Validation);
    WGPUCommandBuffer cb = wg.wgpuCommandEncoderFinish(enc, NULL);
    wg.wgpuQueueSubmit(g->queue, 1, &cb);
    g->submitted++;
    wg.wgpuCommandBufferRelease(cb);
    wg.wgpuCommandEncoderRelease(enc);
    if (g->external) {
        WGPUPopErrorScopeCallbackInfo ci = {NULL, WGPUCallbackMode_AllowSpontaneous, on_scope, g, NULL};
        wg.wgpuDevicePopErrorScope(g->device, ci);
    }
}

wnn_status wg_take_error(wnn__device *d)
{
    wg_gpu *g = d->gpu;
    pthread_mutex_lock(&g->lock);
    bool failed = g->errors != d->errors_seen;
    d->errors_seen = g->errors;
    pthread_mutex_unlock(&g->lock);
    return failed ? WNN_STATUS_OPERATION_ERROR : WNN_OK;
}

/* ---- devices --------------------------------------------------------------------------- */

static uint32_t wg_device_count(void) { return wg_library()->adapter_ok ? 1 : 0; }

static wnn_status wg_device_info(uint32_t index, wnn_device_info *info)
{
    const wg_library_state *lib = wg_library();
    if (index != 0 || !lib->adapter_ok)
        return WNN_STATUS_NO_SUCH_DEVICE;
    /* element-wise kernels split their work over the binding limit (wg_graph.c) */
    uint64_t max = lib->limits.maxBufferSize;
    *info = (wnn_device_info){
        .name = "webgpu",
        .description = lib->description,
        .kind = WNN_DEVICE_KIND_DISCRETE,
        .accelerated = true,
        .max_tensor_byte_length = max,
        .memory_bytes = 0,
        .dlpack_device_type = 15, /* kDLWebGPU */
        .dlpack_device_id = 0,
    };
    return WNN_OK;
}

static wnn_status wg_device_open(uint32_t index, wnn__device **out)
{
    wnn__device *d = calloc(1, sizeof *d);
    if (!d)
        return WNN_STATUS_OUT_OF_MEMORY;
    wnn_status s = wg_default_gpu(&d->gpu);
    if (s != WNN_OK) {
        free(d);
        return s;
    }
    d->errors_seen = d->gpu->errors;
    *out = d;
    return WNN_OK;
}

static void wg_device_close(wnn__device *d)
{
    wg_gpu *g = d->gpu;
    if (g->external) {
        /* after the context's synchronize: nothing of wnn's is in flight */
        wg_pipelines_free(g);
        if (g->readback)
            wg.wgpuBufferRelease(g->readback);
        if (g->fence)
            wg.wgpuBufferRelease(g->fence);
        for (uint32_t i = 0; i < WG_UPLOAD_RING; i++) {
            if (g->upload[i])
                wg.wgpuBufferRelease(g->upload[i]);
            if (g->download[i])
                wg.wgpuBufferRelease(g->download[i]);
        }
        wg.wgpuQueueRelease(g->queue);
        wg.wgpuDeviceRelease(g->device);
        wg.wgpuInstanceRelease(g->instance);
        pthread_mutex_destroy(&g->lock);
        free(g);
    }
    free(d);
}

/* A device of the application's (wnn_webgpu.h): a wg_gpu of its own, not
** the process's shared one, since its instance, limits and features are
** the application's. */
static wnn_status wg_device_open_external(void *instance, void *device, wnn__device **out, wnn_device_info *info)
{
    if (!wg_library()->loaded)
        return WNN_STATUS_NO_SUCH_DEVICE;
    wnn__device *d = calloc(1, sizeof *d);
    wg_gpu *g = calloc(1, sizeof *g);
    if (!d || !g) {
        free(d);
        free(g);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    pthread_mutex_init(&g->lock, NULL);
    g->external = true;
    g->instance = instance;
    g->device = device;
    WGPUAdapterInfo ai = {0};
    if (wg.wgpuDeviceGetLimits(g->device, &g->limits) != 1 || wg.wgpuDeviceGetAdapterInfo(g->device, &ai) != 1) {
        pthread_mutex_destroy(&g->lock);
        free(g);
        free(d);
        return WNN_STATUS_OPERATION_ERROR;
    }
    g->cpu_adapter = ai.adapterType == WGPUAdapterType_CPU;
    g->upload_chunk = (uint64_t)wnn__config_get()->webgpu_staging_kib << 10;
    wg.wgpuAdapterInfoFreeMembers(ai);
    wg.wgpuInstanceAddRef(g->instance);
    wg.wgpuDeviceAddRef(g->device);
    g->queue = wg.wgpuDeviceGetQueue(g->device);
    g->shader_f16 = wg.wgpuDeviceHasFeature(g->device, WGPUFeatureName_ShaderF16);
    d->gpu = g;
    if (wg_device_info(0, info) != WNN_OK)
        *info = (wnn_device_info){.name = "webgpu", .kind = WNN_DEVICE_KIND_DISCRETE, .accelerated = true,
                                  .dlpack_device_type = 15};
    info->description = "the application's WebGPU device";
    info->max_tensor_byte_length = g->limits.maxBufferSize;
    *out = d;
    return WNN_OK;
}

static void wg_device_handles(wnn__device *d, void **instance, void **device)
{
    *instance = d->gpu->instance;
    *device = d->gpu->device;
}

static void *wg_mem_share(wnn__device *d, void *ptr)
{
    pthread_mutex_lock(&d->gpu->lock);
    wg.wgpuBufferAddRef(ptr);
    pthread_mutex_unlock(&d->gpu->lock);
    return ptr;
}

bool wg_supports_data_type(const wnn__device *d, wnn_data_type t)
{
    return t >= WNN_DATA_TYPE_FLOAT32 && t <= WNN_DATA_TYPE_UINT4;
}

/* 64-bit integers (emulated in vec2<u32>) and 4-bit ones (eight a word) only
** where the kernels have them. */
bool wg_supports_op_type(const wnn__device *d, wnn__op op, wnn_data_type t)
{
    if (t == WNN_DATA_TYPE_INT4 || t == WNN_DATA_TYPE_UINT4)
        return op == WNN__OP_QUANTIZE_LINEAR || op == WNN__OP_DEQUANTIZE_LINEAR || op == WNN__OP_RESHAPE;
    if (t != WNN_DATA_TYPE_INT64 && t != WNN_DATA_TYPE_UINT64)
        return true;
    switch (op) {
    case WNN__OP_CAST: case WNN__OP_ARG_MIN: case WNN__OP_ARG_MAX: case WNN__OP_GATHER: case WNN__OP_GATHER_ND:
    case WNN__OP_CLAMP: case WNN__OP_SUB: case WNN__OP_NEG: case WNN__OP_ABS: case WNN__OP_SIGN:
    case WNN__OP_RELU: case WNN__OP_PRELU: case WNN__OP_RESHAPE: case WNN__OP_IDENTITY:
        return true;
    default:
        return false;
    }
}

bool wg_supports_op(const wnn__device *d, wnn__op op)
{
    switch (op) {
    case WNN__OP_ADD: case WNN__OP_SUB: case WNN__OP_MUL: case WNN__OP_DIV: case WNN__OP_MAX:
    case WNN__OP_MIN: case WNN__OP_POW: case WNN__OP_ABS: case WNN__OP_NEG: case WNN__OP_EXP:
    case WNN__OP_LOG: case WNN__OP_SQRT: case WNN__OP_RELU: case WNN__OP_SIGMOID: case WNN__OP_TANH:
    case WNN__OP_CLAMP: case WNN__OP_CAST: case WNN__OP_RESHAPE: case WNN__OP_TRANSPOSE:
    case WNN__OP_CONCAT: case WNN__OP_SLICE: case WNN__OP_SOFTMAX: case WNN__OP_MATMUL: case WNN__OP_GEMM:
    case WNN__OP_CEIL: case WNN__OP_FLOOR: case WNN__OP_COS: case WNN__OP_SIN: case WNN__OP_TAN:
    case WNN__OP_ERF: case WNN__OP_RECIPROCAL: case WNN__OP_ROUND_EVEN: case WNN__OP_SIGN:
    case WNN__OP_IDENTITY: case WNN__OP_IS_NAN: case WNN__OP_IS_INFINITE: case WNN__OP_LOGICAL_NOT:
    case WNN__OP_LOGICAL_AND: case WNN__OP_LOGICAL_OR: case WNN__OP_LOGICAL_XOR: case WNN__OP_EQUAL:
    case WNN__OP_NOT_EQUAL: case WNN__OP_GREATER: case WNN__OP_GREATER_OR_EQUAL: case WNN__OP_LESSER:
    case WNN__OP_LESSER_OR_EQUAL: case WNN__OP_WHERE: case WNN__OP_ELU: case WNN__OP_GELU:
    case WNN__OP_HARD_SIGMOID: case WNN__OP_HARD_SWISH: case WNN__OP_LEAKY_RELU: case WNN__OP_LINEAR:
    case WNN__OP_PRELU: case WNN__OP_SOFTPLUS: case WNN__OP_SOFTSIGN: case WNN__OP_REDUCE_L1:
    case WNN__OP_REDUCE_L2: case WNN__OP_REDUCE_LOG_SUM: case WNN__OP_REDUCE_LOG_SUM_EXP:
    case WNN__OP_REDUCE_MAX: case WNN__OP_REDUCE_MEAN: case WNN__OP_REDUCE_MIN: case WNN__OP_REDUCE_PRODUCT:
    case WNN__OP_REDUCE_SUM: case WNN__OP_REDUCE_SUM_SQUARE: case WNN__OP_ARG_MIN: case WNN__OP_ARG_MAX:
    case WNN__OP_EXPAND: case WNN__OP_REVERSE: case WNN__OP_CONV2D: case WNN__OP_CONV_TRANSPOSE2D:
    case WNN__OP_AVERAGE_POOL2D: case WNN__OP_L2_POOL2D: case WNN__OP_MAX_POOL2D: case WNN__OP_RESAMPLE2D:
    case WNN__OP_BATCH_NORMALIZATION: case WNN__OP_INSTANCE_NORMALIZATION: case WNN__OP_LAYER_NORMALIZATION:
    case WNN__OP_GATHER: case WNN__OP_GATHER_ELEMENTS: case WNN__OP_GATHER_ND: case WNN__OP_SCATTER_ELEMENTS:
    case WNN__OP_SCATTER_ND: case WNN__OP_PAD: case WNN__OP_SPLIT: case WNN__OP_TILE: case WNN__OP_TRIANGULAR:
    case WNN__OP_QUANTIZE_LINEAR: case WNN__OP_DEQUANTIZE_LINEAR: case WNN__OP_CUMULATIVE_SUM:
    case WNN__OP_GRU: case WNN__OP_GRU_CELL: case WNN__OP_LSTM: case WNN__OP_LSTM_CELL:
        return true;
    default:
        return false;
    }
}

static _Thread_local char why_buf[400];

void wg_set_why(const char *why)
{
    snprintf(why_buf, sizeof why_buf, "%s", why);
    if (wnn__config_get()->webgpu_debug)
        fprintf(stderr, "wnn webgpu: graph refused: %s\n", why);
}

const char *wg_last_why(void) { return why_buf; }

/* ---- memory and copies ----------------------------------------------------------------- */

static void on_pop(uint32_t status, WGPUErrorType type, WGPUStringView msg, void *u1, void *u2)
{
    *(uint32_t *)u1 = status == WGPUPopErrorScopeStatus_Success ? type : WGPUErrorType_Validation;
}

static wnn_status wg_mem_alloc(wnn__device *d, size_t bytes, void **ptr)
{
    wg_gpu *g = d->gpu;
    if (words(bytes) > g->limits.maxBufferSize)
        return WNN_STATUS_OUT_OF_MEMORY;
    WGPUBufferDescriptor desc = {0};
    desc.usage = USAGE;
    desc.size = words(bytes);
    pthread_mutex_lock(&g->lock);
    wg.wgpuDevicePushErrorScope(g->device, WGPUErrorFilter_OutOfMemory);
    WGPUBuffer b = wg.wgpuDeviceCreateBuffer(g->device, &desc);
    uint32_t type = WGPUErrorType_NoError;
    WGPUPopErrorScopeCallbackInfo ci = {NULL, WGPUCallbackMode_WaitAnyOnly, on_pop, &type, NULL};
    bool waited = wg_wait(g, wg.wgpuDevicePopErrorScope(g->device, ci));
    pthread_mutex_unlock(&g->lock);
    if (!b || !waited || type != WGPUErrorType_NoError) {
        if (b)
            wg.wgpuBufferRelease(b);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    *ptr = b;
    return WNN_OK;
}

/* Releasing is safe while submitted work uses the buffer: the queue holds it. */
static void wg_mem_free(wnn__device *d, void *ptr)
{
    pthread_mutex_lock(&d->gpu->lock);
    wg.wgpuBufferRelease(ptr);
    pthread_mutex_unlock(&d->gpu->lock);
}

static void on_map(uint32_t status, WGPUStringView msg, void *u1, void *u2) { *(uint32_t *)u1 = status; }

/* Copies into and out of mapped staging of at least this many bytes are
** split over the pool's threads (or WNN_WEBGPU_COPY_THREADS): one thread's
** memcpy into mapped memory is what held writes on an H200 to 8.8 GB/s. On
** a software adapter the queue's copies run on the same cores, and more
** threads made writes slower (lavapipe, 2 cores: 6.3-8.5 -> 3.3-5.2 GB/s),
** so there the caller copies alone unless WNN_WEBGPU_COPY_THREADS says. */
#define WG_PARALLEL_COPY_MIN ((size_t)1 << 20)

typedef struct copy_job {
    unsigned char *dst;
    const unsigned char *src;
    size_t n, piece; /* piece: bytes a thread copies, whole pages */
} copy_job;

static void copy_range(void *arg, size_t begin, size_t end)
{
    const copy_job *j = arg;
    for (size_t k = begin; k < end; k++) {
        size_t at = k * j->piece; /* below n: there are ceil(n / piece) pieces */
        memcpy(j->dst + at, j->src + at, j->n - at < j->piece ? j->n - at : j->piece);
    }
}

/* memcpy, on several threads when n is large. The pool runs one job at a
** time and a call that finds it busy runs inline, so this is safe under
** g->lock from any thread. */
static void staging_copy(const wg_gpu *g, void *dst, const void *src, size_t n)
{
    size_t threads = wnn__pool_size(), want = wnn__config_get()->webgpu_copy_threads;
    if (!want && g->cpu_adapter)
        want = 1;
    if (want && want < threads)
        threads = want;
    if (n < WG_PARALLEL_COPY_MIN || threads < 2) {
        memcpy(dst, src, n);
        return;
    }
    copy_job j = {dst, src, n, ((n + threads - 1) / threads + 4095) & ~(size_t)4095};
    wnn__parallel_for((n + j.piece - 1) / j.piece, 1, copy_range, &j);
}

/* A large write in chunks through the staging ring: each chunk waits for
** its buffer's map (issued after that buffer's previous copy), is copied
** into it, and copied on the queue into dst; the buffer is then mapped
** again for its next turn. The ring's memory is made once and reused:
** for wgpuQueueWriteBuffer, Dawn makes a staging buffer of the write's size
** (over 4 MiB), or new 4 MiB ring buffers, each its own vkAllocateMemory
** (mappable memory is never sub-allocated), and frees them when done.
** Caller holds g->lock. */
static wnn_status write_staged(wg_gpu *g, WGPUBuffer dst, const unsigned char *src, size_t n)
{
    for (size_t at = 0; at < n;) {
        uint32_t i = g->upload_next;
        size_t len = n - at < g->upload_chunk ? n - at : (size_t)g->upload_chunk;
        if (g->upload[i] && !g->upload_mapped[i]) {
            if (!wg_wait(g, g->upload_map[i]) || g->upload_status[i] != WGPUMapAsyncStatus_Success) {
                wg.wgpuBufferRelease(g->upload[i]);
                g->upload[i] = NULL;
                return WNN_STATUS_OPERATION_ERROR;
            }
            g->upload_mapped[i] = true;
        }
        if (!g->upload[i]) {
            WGPUBufferDescriptor desc = {0};
            desc.label = sv("wnn upload");
            desc.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
            desc.size = g->upload_chunk;
            desc.mappedAtCreation = 1;
            if (!(g->upload[i] = wg.wgpuDeviceCreateBuffer(g->device, &desc)))
                return WNN_STATUS_OUT_OF_MEMORY;
            g->upload_mapped[i] = true;
        }
        unsigned char *p = wg.wgpuBufferGetMappedRange(g->upload[i], 0, g->upload_chunk);
        if (!p)
            return WNN_STATUS_OPERATION_ERROR;
        staging_copy(g, p, src + at, len);
        memset(p + len, 0, words(len) - len); /* a part word at the end: zeros, as the plain path */
        wg.wgpuBufferUnmap(g->upload[i]);
        WGPUCommandEncoder enc = wg.wgpuDeviceCreateCommandEncoder(g->device, NULL);
        wg.wgpuCommandEncoderCopyBufferToBuffer(enc, g->upload[i], 0, dst, at, words(len));
        wg_submit(g, enc);
        WGPUBufferMapCallbackInfo ci = {NULL, WGPUCallbackMode_WaitAnyOnly, on_map, &g->upload_status[i], NULL};
        g->upload_map[i] = wg.wgpuBufferMapAsync(g->upload[i], WGPUMapMode_Write, 0, g->upload_chunk, ci);
        g->upload_mapped[i] = false;
        g->upload_next = (i + 1) % WG_UPLOAD_RING;
        at += len;
    }
    return WNN_OK;
}

static wnn_status wg_copy_to_device(wnn__device *d, void *dst, const void *src, size_t n)
{
    wg_gpu *g = d->gpu;
    if (n == 0)
        return WNN_OK;
    wnn_status s = WNN_OK;
    pthread_mutex_lock(&g->lock);
    if (n >= WG_UPLOAD_MIN && !wnn__config_get()->webgpu_upload_pieces) {
        s = write_staged(g, dst, src, n);
    } else {
        size_t whole = n & ~(size_t)3;
        for (size_t at = 0; at < whole; at += WG_UPLOAD_PIECE)
            wg.wgpuQueueWriteBuffer(g->queue, dst, at, (const char *)src + at,
                                    whole - at < WG_UPLOAD_PIECE ? whole - at : WG_UPLOAD_PIECE);
        if (whole != n) {
            unsigned char last[4] = {0};
            memcpy(last, (const char *)src + whole, n - whole);
            wg.wgpuQueueWriteBuffer(g->queue, dst, whole, last, 4);
        }
        g->submitted++;
    }
    pthread_mutex_unlock(&g->lock);
    return s;
}

/* A large read in chunks through the ring of MapRead buffers, so that the
** queue copies the next chunks while this thread copies one out of its
** map: up to WG_UPLOAD_RING chunks are in flight. Every map issued is
** waited for and unmapped, also after a failure. Caller holds g->lock. */
static wnn_status read_chunked(wg_gpu *g, unsigned char *dst, WGPUBuffer src, size_t n)
{
    const size_t chunk = (size_t)g->upload_chunk, count = (n + chunk - 1) / chunk;
    WGPUFuture pending[WG_UPLOAD_RING];
    uint32_t status[WG_UPLOAD_RING];
    for (uint32_t i = 0; i < WG_UPLOAD_RING; i++) {
        if (g->download[i])
            continue;
        WGPUBufferDescriptor desc = {0};
        desc.label = sv("wnn download");
        desc.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
        desc.size = g->upload_chunk;
        if (!(g->download[i] = wg.wgpuDeviceCreateBuffer(g->device, &desc)))
            return WNN_STATUS_OUT_OF_MEMORY;
    }
    wnn_status s = WNN_OK;
    size_t issued = 0;
    for (size_t k = 0; k < count && (k < issued || s == WNN_OK); k++) {
        /* keep the ring full: chunks k .. k + RING - 1 are copied or queued
        ** (after a failure, the ones issued are only waited for) */
        for (; s == WNN_OK && issued < count && issued < k + WG_UPLOAD_RING; issued++) {
            uint32_t i = (uint32_t)(issued % WG_UPLOAD_RING);
            size_t at = issued * chunk, span = words(n - at < chunk ? n - at : chunk);
            WGPUCommandEncoder enc = wg.wgpuDeviceCreateCommandEncoder(g->device, NULL);
            wg.wgpuCommandEncoderCopyBufferToBuffer(enc, src, at, g->download[i], 0, span);
            wg_submit(g, enc);
            status[i] = 0;
            WGPUBufferMapCallbackInfo ci = {NULL, WGPUCallbackMode_WaitAnyOnly, on_map, &status[i], NULL};
            pending[i] = wg.wgpuBufferMapAsync(g->download[i], WGPUMapMode_Read, 0, span, ci);
        }
        uint32_t i = (uint32_t)(k % WG_UPLOAD_RING);
        size_t at = k * chunk, len = n - at < chunk ? n - at : chunk;
        bool mapped = wg_wait(g, pending[i]) && status[i] == WGPUMapAsyncStatus_Success;
        const void *p = mapped ? wg.wgpuBufferGetConstMappedRange(g->download[i], 0, words(len)) : NULL;
        if (p && s == WNN_OK)
            staging_copy(g, dst + at, p, len);
        else
            s = WNN_STATUS_OPERATION_ERROR;
        if (mapped)
            wg.wgpuBufferUnmap(g->download[i]);
    }
    g->completed = g->submitted; /* the queue runs in order */
    return s;
}

/* Copies n bytes of src (a buffer) through the staging buffer into dst
** (NULL: only waits). Caller holds g->lock. */
static wnn_status read_back(wg_gpu *g, void *dst, WGPUBuffer src, size_t n)
{
    if (src && dst && n >= WG_UPLOAD_MIN && !wnn__config_get()->webgpu_read_whole)
        return read_chunked(g, dst, src, n);
    size_t span = words(n ? n : 4);
    if (span > g->readback_size) {
        if (g->readback)
            wg.wgpuBufferRelease(g->readback);
        uint64_t size = g->readback_size ? g->readback_size : 1 << 16;
        while (size < span)
            size *= 2;
        WGPUBufferDescriptor desc = {0};
        desc.label = sv("wnn readback");
        desc.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
        desc.size = size;
        g->readback = wg.wgpuDeviceCreateBuffer(g->device, &desc);
        g->readback_size = g->readback ? size : 0;
        if (!g->readback)
            return WNN_STATUS_OUT_OF_MEMORY;
    }
    if (!src && !g->fence) {
        WGPUBufferDescriptor desc = {0};
        desc.label = sv("wnn fence");
        desc.usage = WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
        desc.size = 4;
        if (!(g->fence = wg.wgpuDeviceCreateBuffer(g->device, &desc)))
            return WNN_STATUS_OUT_OF_MEMORY;
    }
    /* A map waits only for the work that uses the mapped buffer, so a bare
    ** wait copies 4 bytes into it behind everything queued: the queue
    ** completes in order, and the map completes after all of it. */
    WGPUCommandEncoder enc = wg.wgpuDeviceCreateCommandEncoder(g->device, NULL);
    wg.wgpuCommandEncoderCopyBufferToBuffer(enc, src ? src : g->fence, 0, g->readback, 0, src ? span : 4);
    wg_submit(g, enc);
    uint32_t status = 0;
    WGPUBufferMapCallbackInfo ci = {NULL, WGPUCallbackMode_WaitAnyOnly, on_map, &status, NULL};
    if (!wg_wait(g, wg.wgpuBufferMapAsync(g->readback, WGPUMapMode_Read, 0, span, ci)) ||
        status != WGPUMapAsyncStatus_Success)
        return WNN_STATUS_OPERATION_ERROR;
    const void *p = wg.wgpuBufferGetConstMappedRange(g->readback, 0, span);
    if (p && dst)
        staging_copy(g, dst, p, n);
    wg.wgpuBufferUnmap(g->readback);
    g->completed = g->submitted; /* the queue runs in order */
    return p ? WNN_OK : WNN_STATUS_OPERATION_ERROR;
}

static wnn_status wg_copy_to_host(wnn__device *d, void *dst, const void *src, size_t n)
{
    wg_gpu *g = d->gpu;
    pthread_mutex_lock(&g->lock);
    wnn_status s = read_back(g, dst, (WGPUBuffer)src, n);
    pthread_mutex_unlock(&g->lock);
    wnn_status e = wg_take_error(d);
    return s != WNN_OK ? s : e;
}

static wnn_status wg_copy_on_device(wnn__device *d, void *dst, const void *src, size_t n)
{
    wg_gpu *g = d->gpu;
    if (n == 0)
        return WNN_OK;
    pthread_mutex_lock(&g->lock);
    WGPUCommandEncoder enc = wg.wgpuDeviceCreateCommandEncoder(g->device, NULL);
    wg.wgpuCommandEncoderCopyBufferToBuffer(enc, (WGPUBuffer)src, 0, dst, 0, words(n));
    wg_submit(g, enc);
    pthread_mutex_unlock(&g->lock);
    return WNN_OK;
}

static wnn_status wg_fill_zero(wnn__device *d, void *dst, size_t n)
{
    wg_gpu *g = d->gpu;
    if (n == 0)
        return WNN_OK;
    pthread_mutex_lock(&g->lock);
    WGPUCommandEncoder enc = wg.wgpuDeviceCreateCommandEncoder(g->device, NULL);
    wg.wgpuCommandEncoderClearBuffer(enc, dst, 0, words(n));
    wg_submit(g, enc);
    pthread_mutex_unlock(&g->lock);
    return WNN_OK;
}

static wnn_status wg_synchronize(wnn__device *d)
{
    wg_gpu *g = d->gpu;
    pthread_mutex_lock(&g->lock);
    /* nothing queued since the last readback: nothing to wait for */
    wnn_status s = g->completed == g->submitted ? WNN_OK : read_back(g, NULL, NULL, 0);
    pthread_mutex_unlock(&g->lock);
    wnn_status e = wg_take_error(d);
    return s != WNN_OK ? s : e;
}

const wnn__backend wnn__webgpu_backend = {
    .version = WNN__BACKEND_VERSION,
    .name = "webgpu",
    .device_count = wg_device_count,
    .device_info = wg_device_info,
    .device_open = wg_device_open,
    .device_close = wg_device_close,
    .unified_memory = false,
    .supports_data_type = wg_supports_data_type,
    .supports_op = wg_supports_op,
    .supports_op_type = wg_supports_op_type,
    .mem_alloc = wg_mem_alloc,
    .mem_free = wg_mem_free,
    .copy_to_device = wg_copy_to_device,
    .copy_to_host = wg_copy_to_host,
    .copy_on_device = wg_copy_on_device,
    .fill_zero = wg_fill_zero,
    .synchronize = wg_synchronize,
    .graph_compile = wg_graph_compile,
    .graph_release = wg_graph_release,
    .graph_execute = wg_graph_execute,
    .device_open_external = wg_device_open_external,
    .device_handles = wg_device_handles,
    .mem_share = wg_mem_share,
};
