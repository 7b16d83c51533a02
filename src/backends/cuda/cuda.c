/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda.c -- the "cuda" devices: NVIDIA GPUs through the CUDA runtime and
** cuBLAS.
**
** Each opened device (one per context) owns a non-blocking stream that
** plays the role of the null device's worker queue: copies, zero fills and
** graph runs are queued on it in call order and the host waits only to read
** or to synchronize. Host<->device copies go through pinned staging buffers
** (made at the first copy), CU_STAGES chunks in flight, so that the host's
** memcpy (spread over the worker pool for large chunks) overlaps the DMA and
** the caller may reuse its buffer as soon as a write returns. Memory comes
** from cudaMalloc; a free waits for the stream first, so queued work never
** loses a block it still uses. One recursive lock per device keeps anything
** from another thread out of the stream while a dispatch is being captured.
**
** A compiled graph is a list of prepared nodes (cuda_ops.c), with runs of
** element-wise nodes fused into one kernel each, plus one arena for every
** intermediate and every node's scratch, planned first-fit over the nodes'
** lifetimes (reshape-like nodes alias their input, fused intermediates live
** in registers). A dispatch resolves each value's pointer and launches the
** nodes on the stream; when the same graph runs a third time with the same
** tensors, the launches are captured into a CUDA graph and replayed from then
** on (CU_CAPTURES bindings are cached per compiled graph). WNN_CUDA_GRAPHS=0
** and WNN_CUDA_FUSION=0 turn capture and fusion off.
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
#include "backends/cpu/pool.h"
#include "backends/cuda/cuda_internal.h"
#include "memory/arena.h"
#include "memory/allocator.h"

#define CU_MAX_DEVICES 32
#define CU_ALIGN ((size_t)256)
#define CU_STAGES 4                         /* pinned staging chunks */
#define CU_CHUNK ((size_t)4 << 20)          /* bytes per chunk */
#define CU_BLAS_WORKSPACE ((size_t)32 << 20) /* cuBLAS's recommendation for Hopper */
#define CU_CAPTURES 4                       /* bindings cached per compiled graph */
#define CU_CAPTURE_AFTER 2                  /* identical launches before a capture */

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

struct wnn__device {
    int ordinal;
    pthread_mutex_t lock; /* recursive: serializes everything queued on the stream */
    cudaStream_t stream;
    cublasHandle_t blas;
    void *blas_workspace;
    char *staging; /* CU_STAGES chunks of pinned memory, made on first use */
    cudaEvent_t staged[CU_STAGES];
    bool staged_used[CU_STAGES];
    unsigned next_stage;
    wnn_status error; /* first failure of queued work since the last synchronize */
    bool use_graphs;  /* WNN_CUDA_GRAPHS=0 turns capture off */
    bool use_fusion;  /* WNN_CUDA_FUSION=0 turns element-wise fusion off */
};

wnn_status wnn__cu_status(cudaError_t e)
{
    if (e == cudaSuccess)
        return WNN_OK;
    return e == cudaErrorMemoryAllocation ? WNN_STATUS_OUT_OF_MEMORY : WNN_STATUS_OPERATION_ERROR;
}

uint64_t wnn__cu_count(const wnn_operand_desc *d)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < d->rank; i++)
        n *= d->shape[i];
    return n;
}

static void note_error(wnn__device *d, wnn_status s)
{
    if (s != WNN_OK && d->error == WNN_OK)
        d->error = s;
}

static void lock(wnn__device *d)
{
    pthread_mutex_lock(&d->lock);
    cudaSetDevice(d->ordinal);
}

static void unlock(wnn__device *d) { pthread_mutex_unlock(&d->lock); }

/* cuBLAS handles are made and destroyed one at a time in the process: the
** soak under ASan saw cublasDestroy crash inside the driver while other
** threads made and destroyed their contexts' handles on the same device. */
static pthread_mutex_t blas_lifetime = PTHREAD_MUTEX_INITIALIZER;

static void cu_device_close(wnn__device *d)
{
    lock(d);
    if (d->stream)
        cudaStreamSynchronize(d->stream);
    if (d->blas) {
        pthread_mutex_lock(&blas_lifetime);
        cublasDestroy(d->blas);
        pthread_mutex_unlock(&blas_lifetime);
    }
    cudaFree(d->blas_workspace);
    for (int i = 0; i < CU_STAGES; i++)
        if (d->staged[i])
            cudaEventDestroy(d->staged[i]);
    cudaFreeHost(d->staging);
    if (d->stream)
        cudaStreamDestroy(d->stream);
    (void)cudaGetLastError();
    unlock(d);
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
    const char *graphs = getenv("WNN_CUDA_GRAPHS");
    d->use_graphs = !(graphs && strcmp(graphs, "0") == 0);
    const char *fusion = getenv("WNN_CUDA_FUSION");
    d->use_fusion = !(fusion && strcmp(fusion, "0") == 0);
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
        e = cudaMalloc(&d->blas_workspace, CU_BLAS_WORKSPACE);
    wnn_status s = wnn__cu_status(e);
    pthread_mutex_lock(&blas_lifetime);
    bool blas_made = s == WNN_OK && cublasCreate(&d->blas) == CUBLAS_STATUS_SUCCESS;
    pthread_mutex_unlock(&blas_lifetime);
    if (s == WNN_OK && !blas_made) {
        d->blas = NULL;
        s = WNN_STATUS_OPERATION_ERROR;
    }
    /* true float32 (no TF32), on our stream, with a workspace of our own so
    ** that calls can be captured into CUDA graphs */
    if (s == WNN_OK && (cublasSetStream(d->blas, d->stream) != CUBLAS_STATUS_SUCCESS ||
                        cublasSetMathMode(d->blas, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS ||
                        cublasSetWorkspace(d->blas, d->blas_workspace, CU_BLAS_WORKSPACE) != CUBLAS_STATUS_SUCCESS))
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

/* ---- memory and copies ------------------------------------------------------- */

static wnn_status cu_mem_alloc(wnn__device *d, size_t bytes, void **ptr)
{
    lock(d);
    cudaError_t e = cudaMalloc(ptr, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* out of memory is not sticky: clear it */
        *ptr = NULL;
    }
    unlock(d);
    return wnn__cu_status(e);
}

static void cu_mem_free(wnn__device *d, void *ptr)
{
    if (!ptr)
        return;
    lock(d);
    /* the block may still be read or written by queued work */
    note_error(d, wnn__cu_status(cudaStreamSynchronize(d->stream)));
    cudaFree(ptr);
    unlock(d);
}

/* memcpy between pageable and pinned memory, spread over the process's
** worker pool for large chunks (one core's memcpy is slower than the bus). */
typedef struct host_copy_job {
    char *dst;
    const char *src;
} host_copy_job;

static void host_copy_range(void *arg, size_t begin, size_t end)
{
    const host_copy_job *j = arg;
    memcpy(j->dst + begin, j->src + begin, end - begin);
}

static void host_copy(void *dst, const void *src, size_t n)
{
    if (n < ((size_t)1 << 20)) {
        memcpy(dst, src, n);
        return;
    }
    host_copy_job j = {dst, src};
    wnn__parallel_for(n, (size_t)256 << 10, host_copy_range, &j);
}

/* Chunk i of the staging ring, free for the host once its last use on the
** stream has completed. */
static wnn_status stage_wait(wnn__device *d, unsigned i)
{
    if (!d->staged_used[i])
        return WNN_OK;
    d->staged_used[i] = false;
    return wnn__cu_status(cudaEventSynchronize(d->staged[i]));
}

static wnn_status stage_ready(wnn__device *d)
{
    if (d->staging)
        return WNN_OK;
    cudaError_t e = cudaHostAlloc((void **)&d->staging, CU_STAGES * CU_CHUNK, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        d->staging = NULL;
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    return WNN_OK;
}

static wnn_status cu_copy_to_device(wnn__device *d, void *dst, const void *src, size_t n)
{
    lock(d);
    wnn_status s = stage_ready(d);
    for (size_t off = 0; s == WNN_OK && off < n; off += CU_CHUNK) {
        size_t len = n - off < CU_CHUNK ? n - off : CU_CHUNK;
        unsigned i = d->next_stage;
        d->next_stage = (i + 1) % CU_STAGES;
        if ((s = stage_wait(d, i)) != WNN_OK)
            break;
        char *buf = d->staging + (size_t)i * CU_CHUNK;
        host_copy(buf, (const char *)src + off, len);
        s = wnn__cu_status(cudaMemcpyAsync((char *)dst + off, buf, len, cudaMemcpyHostToDevice, d->stream));
        if (s == WNN_OK)
            s = wnn__cu_status(cudaEventRecord(d->staged[i], d->stream));
        d->staged_used[i] = s == WNN_OK;
    }
    unlock(d);
    return s;
}

static wnn_status take_error(wnn__device *d)
{
    wnn_status s = d->error;
    d->error = WNN_OK;
    return s;
}

/* Chunks are queued up to CU_STAGES ahead of the one being drained. */
static wnn_status cu_copy_to_host(wnn__device *d, void *dst, const void *src, size_t n)
{
    lock(d);
    wnn_status s = stage_ready(d);
    size_t chunks = (n + CU_CHUNK - 1) / CU_CHUNK, queued = 0;
    unsigned first = d->next_stage;
    for (size_t c = 0; s == WNN_OK && c < chunks; c++) {
        /* queue chunks [queued, c + CU_STAGES) */
        for (; s == WNN_OK && queued < chunks && queued < c + CU_STAGES; queued++) {
            unsigned i = (unsigned)((first + queued) % CU_STAGES);
            size_t off = queued * CU_CHUNK, len = n - off < CU_CHUNK ? n - off : CU_CHUNK;
            /* the stream orders this after any earlier use of the chunk */
            s = wnn__cu_status(cudaMemcpyAsync(d->staging + (size_t)i * CU_CHUNK, (const char *)src + off, len,
                                               cudaMemcpyDeviceToHost, d->stream));
            if (s == WNN_OK)
                s = wnn__cu_status(cudaEventRecord(d->staged[i], d->stream));
            d->staged_used[i] = s == WNN_OK;
        }
        if (s != WNN_OK)
            break;
        unsigned i = (unsigned)((first + c) % CU_STAGES);
        size_t off = c * CU_CHUNK, len = n - off < CU_CHUNK ? n - off : CU_CHUNK;
        if ((s = stage_wait(d, i)) == WNN_OK)
            host_copy((char *)dst + off, d->staging + (size_t)i * CU_CHUNK, len);
    }
    d->next_stage = (unsigned)((first + queued) % CU_STAGES);
    /* an earlier failure of queued work comes first */
    wnn_status earlier = take_error(d);
    if (s != WNN_OK)
        (void)cudaGetLastError();
    unlock(d);
    return earlier != WNN_OK ? earlier : s;
}

static wnn_status cu_copy_on_device(wnn__device *d, void *dst, const void *src, size_t n)
{
    lock(d);
    wnn_status s = wnn__cu_status(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, d->stream));
    unlock(d);
    return s;
}

static wnn_status cu_fill_zero(wnn__device *d, void *dst, size_t n)
{
    lock(d);
    wnn_status s = wnn__cu_status(cudaMemsetAsync(dst, 0, n, d->stream));
    unlock(d);
    return s;
}

static wnn_status cu_synchronize(wnn__device *d)
{
    lock(d);
    wnn_status s = wnn__cu_status(cudaStreamSynchronize(d->stream));
    wnn_status earlier = take_error(d);
    unlock(d);
    return earlier != WNN_OK ? earlier : s;
}

/* ---- graphs: planning ------------------------------------------------------- */

enum { LOC_NONE, LOC_INPUT, LOC_OUTPUT, LOC_ARENA, LOC_CONSTANT, LOC_ALIAS };

typedef struct cu_capture {
    void **key; /* inputs then outputs */
    uint32_t hits;
    bool failed; /* capture did not work for this binding: launch */
    cudaGraphExec_t exec;
    uint64_t stamp;
} cu_capture;

typedef struct cu_graph {
    const wnn__ir *ir;
    wnn__allocator *alloc;
    wnn__cu_node *nodes;
    uint8_t *loc;      /* per value: LOC_* */
    size_t *at;        /* per value: input/output index, arena offset, or alias source */
    void **constants;  /* per value: device copy of a constant */
    size_t *const_blocks;
    void *arena;
    size_t arena_block, arena_size;
    void **ptr;        /* per value, resolved by each run */
    uint32_t n_keys;   /* inputs + outputs */
    cu_capture captures[CU_CAPTURES];
    uint64_t clock;
} cu_graph;

static uint32_t root_of(const cu_graph *g, uint32_t v)
{
    while (g->loc[v] == LOC_ALIAS)
        v = (uint32_t)g->at[v];
    return v;
}

static size_t aligned(size_t n) { return (n + CU_ALIGN - 1) / CU_ALIGN * CU_ALIGN; }

/* Decides where every value lives and places intermediates and scratch in
** one arena. Values of a fused run that stay in registers (internal) get no
** memory; pos[n] is where node n's work happens (a fused run's last node). */
static wnn_status plan_memory(cu_graph *g, const bool *internal, const uint32_t *pos)
{
    const wnn__ir *ir = g->ir;
    uint32_t nv = ir->n_values, nn = ir->n_nodes;
    for (uint32_t v = 0; v < nv; v++) {
        const wnn__value *val = &ir->values[v];
        g->loc[v] = val->kind == WNN__VALUE_INPUT      ? LOC_INPUT
                    : val->kind == WNN__VALUE_CONSTANT ? LOC_CONSTANT
                    : internal[v]                      ? LOC_NONE
                                                       : LOC_ARENA;
        g->at[v] = val->kind == WNN__VALUE_INPUT ? val->index : 0;
    }
    for (uint32_t i = ir->n_outputs; i-- > 0;) {
        g->loc[ir->output_values[i]] = LOC_OUTPUT;
        g->at[ir->output_values[i]] = i;
    }
    /* reshape-like nodes share their input's memory unless their output is a
    ** graph output (which has memory of its own) */
    for (uint32_t n = 0; n < nn; n++) {
        wnn__cu_node *cn = &g->nodes[n];
        const wnn__node *node = cn->node;
        if (cn->alias && node->n_in >= 1 && node->in[0] != WNN__NONE && node->n_out == 1 &&
            g->loc[node->out[0]] == LOC_ARENA) {
            g->loc[node->out[0]] = LOC_ALIAS;
            g->at[node->out[0]] = node->in[0];
            cn->run = NULL;
        }
    }

    uint32_t *last_use = malloc(sizeof *last_use * (nv ? nv : 1));
    wnn__arena_block *live = malloc(sizeof *live * (nv + nn + 1));
    if (!last_use || !live) {
        free(last_use);
        free(live);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    for (uint32_t v = 0; v < nv; v++)
        last_use[v] = ir->values[v].kind == WNN__VALUE_NODE ? pos[ir->values[v].index] : 0;
    for (uint32_t n = 0; n < nn; n++) {
        const wnn__node *node = &ir->nodes[n];
        for (uint32_t j = 0; j < node->n_in; j++)
            if (node->in[j] != WNN__NONE) {
                uint32_t r = root_of(g, node->in[j]);
                if (last_use[r] < pos[n])
                    last_use[r] = pos[n];
            }
        for (uint32_t j = 0; j < node->n_out; j++) {
            uint32_t r = root_of(g, node->out[j]);
            if (last_use[r] < pos[n])
                last_use[r] = pos[n];
        }
    }

    uint32_t n_live = 0;
    size_t top = 0;
    for (uint32_t n = 0; n < nn; n++) {
        const wnn__node *node = &ir->nodes[n];
        wnn__cu_node *cn = &g->nodes[n];
        for (uint32_t j = 0; j < node->n_out; j++) {
            uint32_t v = node->out[j];
            if (g->loc[v] != LOC_ARENA)
                continue;
            size_t size = aligned((size_t)wnn_operand_desc_byte_length(&ir->values[v].desc));
            if (!size)
                size = CU_ALIGN;
            g->at[v] = wnn__arena_place(live, &n_live, size, v);
            if (g->at[v] + size > top)
                top = g->at[v] + size;
        }
        if (cn->scratch_bytes) {
            size_t size = aligned(cn->scratch_bytes);
            cn->scratch_offset = wnn__arena_place(live, &n_live, size, nv + n);
            if (cn->scratch_offset + size > top)
                top = cn->scratch_offset + size;
            wnn__arena_unplace(live, &n_live, nv + n);
        }
        /* blocks whose last reader is this node are free for the next one */
        for (uint32_t i = 0; i < n_live;) {
            uint32_t id = live[i].id;
            if (id < nv && last_use[id] == n)
                wnn__arena_unplace(live, &n_live, id);
            else
                i++;
        }
    }
    g->arena_size = top;
    free(last_use);
    free(live);
    return WNN_OK;
}

static void drop_graph(wnn__device *d, cu_graph *g)
{
    for (int i = 0; i < CU_CAPTURES; i++) {
        if (g->captures[i].exec)
            cudaGraphExecDestroy(g->captures[i].exec);
        free(g->captures[i].key);
    }
    for (uint32_t n = 0; g->nodes && n < g->ir->n_nodes; n++) {
        wnn__cu_node *cn = &g->nodes[n];
        free(cn->plan);
        free(cn->aux_host);
        if (cn->aux)
            wnn__allocator_free(g->alloc, cn->aux, cn->aux_block);
    }
    for (uint32_t v = 0; g->constants && v < g->ir->n_values; v++)
        if (g->constants[v])
            wnn__allocator_free(g->alloc, g->constants[v], g->const_blocks[v]);
    if (g->arena)
        wnn__allocator_free(g->alloc, g->arena, g->arena_block);
    free(g->nodes);
    free(g->loc);
    free(g->at);
    free(g->constants);
    free(g->const_blocks);
    free(g->ptr);
    free(g);
}

/* Uploads n bytes into a new block of the allocator, through the stream. */
static wnn_status upload(wnn__device *d, wnn__allocator *alloc, const void *src, size_t n, void **ptr, size_t *block)
{
    wnn_status s = wnn__allocator_alloc(alloc, n ? n : 1, ptr, block);
    if (s == WNN_OK && wnn__fault_copy_now())
        s = WNN_STATUS_OPERATION_ERROR;
    if (s == WNN_OK && n && (s = cu_copy_to_device(d, *ptr, src, n)) == WNN_OK)
        wnn__allocator_count_copy(alloc, 0, n);
    return s;
}

static wnn_status cu_graph_compile(wnn__device *d, wnn__allocator *alloc, const wnn__ir *ir, void **compiled)
{
    cu_graph *g = calloc(1, sizeof *g);
    if (!g)
        return WNN_STATUS_OUT_OF_MEMORY;
    g->ir = ir;
    g->alloc = alloc;
    g->n_keys = ir->n_inputs + ir->n_outputs;
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    g->nodes = calloc(ir->n_nodes ? ir->n_nodes : 1, sizeof *g->nodes);
    g->loc = calloc(nv, sizeof *g->loc);
    g->at = calloc(nv, sizeof *g->at);
    g->constants = calloc(nv, sizeof *g->constants);
    g->const_blocks = calloc(nv, sizeof *g->const_blocks);
    g->ptr = calloc(nv, sizeof *g->ptr);
    wnn_status s = WNN_OK;
    if (!g->nodes || !g->loc || !g->at || !g->constants || !g->const_blocks || !g->ptr)
        s = WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++) {
        g->nodes[n].node = &ir->nodes[n];
        s = wnn__cu_prepare(ir, &g->nodes[n]);
    }
    bool *internal = calloc(nv, sizeof *internal);
    uint32_t *pos = malloc(sizeof *pos * (ir->n_nodes ? ir->n_nodes : 1));
    if (s == WNN_OK && (!internal || !pos))
        s = WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++)
        pos[n] = n;
    if (s == WNN_OK && d->use_fusion)
        s = wnn__cu_fuse(ir, g->nodes, internal, pos);
    if (s == WNN_OK)
        s = plan_memory(g, internal, pos);
    free(internal);
    free(pos);
    if (s == WNN_OK && g->arena_size)
        s = wnn__allocator_alloc(alloc, g->arena_size, &g->arena, &g->arena_block);
    /* constants and tables are uploaded once, through the queue */
    for (uint32_t v = 0; s == WNN_OK && v < ir->n_values; v++)
        if (ir->values[v].kind == WNN__VALUE_CONSTANT)
            s = upload(d, alloc, ir->values[v].data, (size_t)wnn_operand_desc_byte_length(&ir->values[v].desc),
                       &g->constants[v], &g->const_blocks[v]);
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++) {
        wnn__cu_node *cn = &g->nodes[n];
        if (!cn->aux_host)
            continue;
        s = upload(d, alloc, cn->aux_host, cn->aux_bytes, &cn->aux, &cn->aux_block);
        free(cn->aux_host);
        cn->aux_host = NULL;
    }
    if (s != WNN_OK) {
        drop_graph(d, g);
        return s;
    }
    *compiled = g;
    return WNN_OK;
}

/* Not under the device lock: freeing into the allocator takes its lock, and
** the allocator calls mem_free (which takes ours) with its lock held. */
static void cu_graph_release(wnn__device *d, void *compiled)
{
    cudaSetDevice(d->ordinal);
    drop_graph(d, compiled);
}

/* ---- graphs: running ---------------------------------------------------------- */

static void resolve(cu_graph *g, void *const *inputs, void *const *outputs)
{
    const wnn__ir *ir = g->ir;
    for (uint32_t v = 0; v < ir->n_values; v++) {
        switch (g->loc[v]) {
        case LOC_INPUT: g->ptr[v] = inputs[g->at[v]]; break;
        case LOC_OUTPUT: g->ptr[v] = outputs[g->at[v]]; break;
        case LOC_ARENA: g->ptr[v] = (char *)g->arena + g->at[v]; break;
        case LOC_CONSTANT: g->ptr[v] = g->constants[v]; break;
        default: g->ptr[v] = NULL; break;
        }
    }
    for (uint32_t v = 0; v < ir->n_values; v++)
        if (g->loc[v] == LOC_ALIAS)
            g->ptr[v] = g->ptr[root_of(g, v)];
}

/* Queues every node, then copies an operand bound to several output names
** into the later ones. */
static wnn_status launch_all(wnn__device *d, cu_graph *g, void *const *outputs)
{
    const wnn__ir *ir = g->ir;
    wnn__cu_exec x = {d->stream, d->blas, g->ptr, NULL, NULL};
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__cu_node *cn = &g->nodes[n];
        if (!cn->run)
            continue;
        x.scratch = cn->scratch_bytes ? (char *)g->arena + cn->scratch_offset : NULL;
        x.aux = cn->aux;
        wnn_status s = cn->run(&x, cn);
        if (s != WNN_OK)
            return s;
    }
    for (uint32_t i = 0; i < ir->n_outputs; i++) {
        uint32_t v = ir->output_values[i];
        if (g->at[v] != i) {
            size_t n = (size_t)wnn_operand_desc_byte_length(&ir->values[v].desc);
            wnn_status s = wnn__cu_status(
                cudaMemcpyAsync(outputs[i], outputs[g->at[v]], n, cudaMemcpyDeviceToDevice, d->stream));
            if (s != WNN_OK)
                return s;
        }
    }
    return WNN_OK;
}

/* The cache entry of this binding, made (evicting the least recently used)
** when new. */
static cu_capture *capture_for(cu_graph *g, void *const *inputs, void *const *outputs)
{
    const wnn__ir *ir = g->ir;
    cu_capture *oldest = &g->captures[0];
    for (int i = 0; i < CU_CAPTURES; i++) {
        cu_capture *c = &g->captures[i];
        if (c->key && memcmp(c->key, inputs, sizeof *inputs * ir->n_inputs) == 0 &&
            memcmp(c->key + ir->n_inputs, outputs, sizeof *outputs * ir->n_outputs) == 0) {
            c->stamp = ++g->clock;
            return c;
        }
        if (!c->key || c->stamp < oldest->stamp)
            oldest = c;
    }
    if (!oldest->key) {
        oldest->key = malloc(sizeof *oldest->key * (g->n_keys ? g->n_keys : 1));
        if (!oldest->key)
            return NULL;
    }
    if (oldest->exec)
        cudaGraphExecDestroy(oldest->exec); /* freed once its launches are done */
    memcpy(oldest->key, inputs, sizeof *inputs * ir->n_inputs);
    memcpy(oldest->key + ir->n_inputs, outputs, sizeof *outputs * ir->n_outputs);
    oldest->hits = 0;
    oldest->failed = false;
    oldest->exec = NULL;
    oldest->stamp = ++g->clock;
    return oldest;
}

/* Records the launches into a CUDA graph; false when capture did not work
** (the work was then not queued). */
static bool capture(wnn__device *d, cu_graph *g, cu_capture *c, void *const *outputs, wnn_status *status)
{
    *status = WNN_OK;
    if (cudaStreamBeginCapture(d->stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    wnn_status s = launch_all(d, g, outputs);
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamEndCapture(d->stream, &graph);
    if (s != WNN_OK || e != cudaSuccess || !graph) {
        if (graph)
            cudaGraphDestroy(graph);
        (void)cudaGetLastError();
        return false;
    }
    e = cudaGraphInstantiate(&c->exec, graph, 0);
    cudaGraphDestroy(graph);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        c->exec = NULL;
        return false;
    }
    *status = wnn__cu_status(cudaGraphLaunch(c->exec, d->stream));
    return true;
}

static wnn_status cu_graph_execute(wnn__device *d, void *compiled, void *const *inputs, void *const *outputs)
{
    cu_graph *g = compiled;
    lock(d);
    resolve(g, inputs, outputs);
    wnn_status s = WNN_OK;
    cu_capture *c = d->use_graphs ? capture_for(g, inputs, outputs) : NULL;
    if (c && c->exec) {
        s = wnn__cu_status(cudaGraphLaunch(c->exec, d->stream));
    } else if (c && !c->failed && ++c->hits > CU_CAPTURE_AFTER) {
        if (!capture(d, g, c, outputs, &s)) {
            c->failed = true;
            s = launch_all(d, g, outputs);
        }
    } else {
        s = launch_all(d, g, outputs);
    }
    unlock(d);
    return s;
}

/* ---- DLPack: other streams, foreign memory ----------------------------------- */

/* DLPack's stream numbers for CUDA (the caller has refused 0 and -1). */
static cudaStream_t dl_stream(uintptr_t v)
{
    return v == 1 ? cudaStreamLegacy : v == 2 ? cudaStreamPerThread : (cudaStream_t)v;
}

/* An event recorded on from after all its queued work, waited on by to. The
** event may be destroyed at once: CUDA keeps it until the wait is done. */
static wnn_status cross_wait(wnn__device *d, cudaStream_t from, cudaStream_t to)
{
    lock(d);
    cudaEvent_t ev;
    cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e == cudaSuccess) {
        e = cudaEventRecord(ev, from);
        if (e == cudaSuccess)
            e = cudaStreamWaitEvent(to, ev, 0);
        cudaEventDestroy(ev);
    }
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    unlock(d);
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
    lock(d);
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    unlock(d);
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
    .mem_alloc = cu_mem_alloc,
    .mem_free = cu_mem_free,
    .copy_to_device = cu_copy_to_device,
    .copy_to_host = cu_copy_to_host,
    .copy_on_device = cu_copy_on_device,
    .fill_zero = cu_fill_zero,
    .synchronize = cu_synchronize,
    .graph_compile = cu_graph_compile,
    .graph_release = cu_graph_release,
    .graph_execute = cu_graph_execute,
    .order_before_stream = cu_order_before_stream,
    .wait_for_stream = cu_wait_for_stream,
    .owns_pointer = cu_owns_pointer,
};
