/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda.c -- the "cuda" devices: NVIDIA GPUs through the CUDA runtime and
** cuBLAS; the backend table.
**
** Each opened device (one per context) owns a non-blocking stream that
** plays the role of the null device's worker queue: copies, zero fills and
** graph runs are queued on it in call order and the host waits only to read
** or to synchronize (cuda_memory.c). One recursive lock per device keeps
** anything from another thread out of the stream while a dispatch is being
** captured. Compiled graphs are cuda_graph.c's. WNN_CUDA_GRAPHS=0,
** WNN_CUDA_FUSION=0 and WNN_CUDA_CUDNN=0 turn CUDA-graph capture,
** element-wise fusion and cuDNN convolutions (cuda_dnn.c) off.
** DLPack's other streams are ordered against ours with events.
**
** The backend is absent when no driver or no GPU of compute capability 9.0
** or later is found (the kernels are sm_90 code and compute_90 PTX): libcuda
** is never linked, only loaded by the runtime.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/cuda/cuda_internal.h"
#include "platform/config.h"

#define CU_MAX_DEVICES 32

/* ---- devices ----------------------------------------------------------------- */

static struct {
    pthread_once_t once;
    uint32_t count;
    int ordinal[CU_MAX_DEVICES];
    char name[CU_MAX_DEVICES][16];
    char description[CU_MAX_DEVICES][400];
    uint64_t memory[CU_MAX_DEVICES];
} devices = {PTHREAD_ONCE_INIT, 0, {0}, {{0}}, {{0}}, {0}};

/* Lists the devices our code runs on: sm_90 machine code and compute_90 PTX
** need compute capability 9.0 or later. No driver means no devices. */
static void find_devices(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    for (int i = 0; i < n && devices.count < CU_MAX_DEVICES; i++) {
        struct cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
            (void)cudaGetLastError();
            continue;
        }
        if (prop.major < 9)
            continue;
        uint32_t k = devices.count++;
        devices.ordinal[k] = i;
        if (k == 0)
            snprintf(devices.name[k], sizeof devices.name[k], "cuda");
        else
            snprintf(devices.name[k], sizeof devices.name[k], "cuda:%u", k);
        snprintf(devices.description[k], sizeof devices.description[k],
                 "%.256s (CUDA device %d, compute capability %d.%d, %d multiprocessors)", prop.name, i, prop.major,
                 prop.minor, prop.multiProcessorCount);
        devices.memory[k] = (uint64_t)prop.totalGlobalMem;
    }
}

static uint32_t cu_device_count(void)
{
    pthread_once(&devices.once, find_devices);
    return devices.count;
}

static wnn_status cu_device_info(uint32_t index, wnn_device_info *info)
{
    if (index >= cu_device_count())
        return WNN_STATUS_NO_SUCH_DEVICE;
    uint64_t max = devices.memory[index];
    if (max > ((uint64_t)1 << 34))
        max = (uint64_t)1 << 34; /* 2^31 - 1 elements of 8 bytes at most */
    *info = (wnn_device_info){
        .name = devices.name[index],
        .description = devices.description[index],
        .kind = WNN_DEVICE_KIND_DISCRETE,
        .accelerated = true,
        .max_tensor_byte_length = max,
        .memory_bytes = devices.memory[index],
        .dlpack_device_type = 2, /* kDLCUDA */
        .dlpack_device_id = devices.ordinal[index],
    };
    return WNN_OK;
}

/* cuBLAS handles are kept for the life of the process and lent to contexts:
** a context takes one at open and gives it back at close. cublasDestroy
** synchronizes the whole device context, and the soak (test-soak cuda, its
** "own" part: contexts opened and closed on several threads while others
** dispatch) saw it crash inside the driver; pooling also saves the cost of
** cublasCreate on every context. Under blas_lifetime. */
#define CU_BLAS_POOL 64
static pthread_mutex_t blas_lifetime = PTHREAD_MUTEX_INITIALIZER;
typedef struct pooled_blas {
    int ordinal;
    cublasHandle_t handle;
} pooled_blas;
static pooled_blas blas_pool[CU_BLAS_POOL];
static int blas_pooled;

/* A handle for device ordinal: a pooled one, else a new one; NULL on failure. */
static cublasHandle_t blas_take(int ordinal)
{
    cublasHandle_t h = NULL;
    pthread_mutex_lock(&blas_lifetime);
    for (int i = blas_pooled; i-- > 0;)
        if (blas_pool[i].ordinal == ordinal) {
            h = blas_pool[i].handle;
            blas_pool[i] = blas_pool[--blas_pooled];
            break;
        }
    if (!h && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        h = NULL;
    pthread_mutex_unlock(&blas_lifetime);
    return h;
}

/* Gives h back, detached from the closing context's stream and workspace;
** a full pool keeps the handle alive rather than destroy it under others. */
static void blas_give(int ordinal, cublasHandle_t h)
{
    cublasSetStream(h, NULL);
    cublasSetWorkspace(h, NULL, 0);
    pthread_mutex_lock(&blas_lifetime);
    if (blas_pooled < CU_BLAS_POOL)
        blas_pool[blas_pooled++] = (pooled_blas){ordinal, h};
    pthread_mutex_unlock(&blas_lifetime);
}

static void cu_device_close(wnn__device *d)
{
    wnn__cu_lock(d);
    if (d->stream)
        cudaStreamSynchronize(d->stream);
    wnn__cu_dnn_close(d);
    if (d->blas)
        blas_give(d->ordinal, d->blas);
    cudaFree(d->blas_workspace);
    for (int i = 0; i < CU_STAGES; i++)
        if (d->staged[i])
            cudaEventDestroy(d->staged[i]);
    if (d->direct_done)
        cudaEventDestroy(d->direct_done);
    if (d->handoff)
        cudaEventDestroy(d->handoff);
    cudaFreeHost(d->staging);
    if (d->stream)
        cudaStreamDestroy(d->stream);
    (void)cudaGetLastError();
    wnn__cu_unlock(d);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

static wnn_status cu_device_open(uint32_t index, wnn__device **out)
{
    if (index >= cu_device_count())
        return WNN_STATUS_NO_SUCH_DEVICE;
    wnn__device *d = calloc(1, sizeof *d);
    if (!d)
        return WNN_STATUS_OUT_OF_MEMORY;
    d->ordinal = devices.ordinal[index];
    d->use_graphs = wnn__config_get()->cuda_graphs;
    d->use_fusion = wnn__config_get()->cuda_fusion;
    d->use_cudnn = wnn__config_get()->cuda_cudnn && !wnn__config_get()->cuda_direct_conv;
    d->use_cudnn_graph = wnn__config_get()->cuda_cudnn_graph;
    d->stage_bytes = (size_t)wnn__config_get()->cuda_staging_kib << 10;
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&d->lock, &attr);
    pthread_mutexattr_destroy(&attr);

    cudaError_t e = cudaSetDevice(d->ordinal);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking);
    for (int i = 0; i < CU_STAGES && e == cudaSuccess; i++)
        e = cudaEventCreateWithFlags(&d->staged[i], cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&d->direct_done, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&d->handoff, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaMalloc(&d->blas_workspace, WNN__CU_BLAS_WORKSPACE);
    wnn_status s = wnn__cu_status(e);
    if (s == WNN_OK && !(d->blas = blas_take(d->ordinal)))
        s = WNN_STATUS_OPERATION_ERROR;
    /* true float32 (no TF32), on our stream, with a workspace of our own so
    ** that calls can be captured into CUDA graphs */
    if (s == WNN_OK && (cublasSetStream(d->blas, d->stream) != CUBLAS_STATUS_SUCCESS ||
                        cublasSetMathMode(d->blas, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS ||
                        cublasSetWorkspace(d->blas, d->blas_workspace, WNN__CU_BLAS_WORKSPACE) != CUBLAS_STATUS_SUCCESS))
        s = WNN_STATUS_OPERATION_ERROR;
    if (s != WNN_OK) {
        (void)cudaGetLastError();
        cu_device_close(d);
        return s;
    }
    *out = d;
    return WNN_OK;
}

/* The cpu's types, packed int4/uint4 included: the kernels that take them
** (quantize, dequantize, reshape, identity) handle the packing, and a graph
** giving them to any other operator is refused at build time. */
static bool cu_supports_data_type(const wnn__device *d, wnn_data_type t)
{
    return t >= WNN_DATA_TYPE_FLOAT32 && t <= WNN_DATA_TYPE_UINT4;
}

/* ---- DLPack: other streams, foreign memory ----------------------------------- */

/* DLPack's stream numbers for CUDA (the caller has refused 0 and -1). */
static cudaStream_t dl_stream(uintptr_t v)
{
    return v == 1 ? cudaStreamLegacy : v == 2 ? cudaStreamPerThread : (cudaStream_t)v;
}

/* The device's handoff event recorded on from after all its queued work,
** waited on by to. Recording it again later leaves that wait alone (CUDA
** waits for the recording the wait saw), so one event serves every call;
** creating one per call cost a microsecond. */
static wnn_status cross_wait(wnn__device *d, cudaStream_t from, cudaStream_t to)
{
    wnn__cu_lock(d);
    cudaError_t e = cudaEventRecord(d->handoff, from);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(to, d->handoff, 0);
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    wnn__cu_unlock(d);
    return wnn__cu_status(e);
}

static wnn_status cu_order_before_stream(wnn__device *d, uintptr_t consumer)
{
    return cross_wait(d, d->stream, dl_stream(consumer));
}

static wnn_status cu_wait_for_stream(wnn__device *d, uintptr_t producer)
{
    return cross_wait(d, dl_stream(producer), d->stream);
}

static bool cu_owns_pointer(wnn__device *d, const void *ptr)
{
    struct cudaPointerAttributes a;
    wnn__cu_lock(d);
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    wnn__cu_unlock(d);
    return e == cudaSuccess && a.type == cudaMemoryTypeDevice && a.device == d->ordinal;
}

const wnn__backend wnn__cuda_backend = {
    .version = WNN__BACKEND_VERSION,
    .name = "cuda",
    .device_count = cu_device_count,
    .device_info = cu_device_info,
    .device_open = cu_device_open,
    .device_close = cu_device_close,
    .unified_memory = false,
    .supports_data_type = cu_supports_data_type,
    .mem_alloc = wnn__cu_mem_alloc,
    .mem_free = wnn__cu_mem_free,
    .copy_to_device = wnn__cu_copy_to_device,
    .copy_to_host = wnn__cu_copy_to_host,
    .copy_on_device = wnn__cu_copy_on_device,
    .fill_zero = wnn__cu_fill_zero,
    .synchronize = wnn__cu_synchronize,
    .graph_compile = wnn__cu_graph_compile,
    .graph_release = wnn__cu_graph_release,
    .graph_execute = wnn__cu_graph_execute,
    .order_before_stream = cu_order_before_stream,
    .wait_for_stream = cu_wait_for_stream,
    .owns_pointer = cu_owns_pointer,
    .host_alloc = wnn__cu_host_alloc,
    .host_free = wnn__cu_host_free,
    .host_register = wnn__cu_host_register,
    .host_unregister = wnn__cu_host_unregister,
};
