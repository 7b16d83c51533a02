/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_memory.c -- device memory and copies of the cuda devices.
**
** Memory comes from cudaMalloc; a free waits for the stream first, so
** queued work never loses a block it still uses. Host<->device copies go
** through pinned staging buffers (made at the first copy), CU_STAGES chunks
** in flight, so that the host's memcpy (spread over the worker pool for
** large chunks) overlaps the DMA and the caller may reuse its buffer as
** soon as a write returns. The first failure of queued work is kept on the
** device and reported by the next read or synchronize.
*/
#include <string.h>

#include "platform/pool.h"
#include "backends/cuda/cuda_internal.h"

#define CU_CHUNK ((size_t)4 << 20) /* bytes per staging chunk */

static void note_error(wnn__device *d, wnn_status s)
{
    if (s != WNN_OK && d->error == WNN_OK)
        d->error = s;
}

wnn_status wnn__cu_mem_alloc(wnn__device *d, size_t bytes, void **ptr)
{
    wnn__cu_lock(d);
    cudaError_t e = cudaMalloc(ptr, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* out of memory is not sticky: clear it */
        *ptr = NULL;
    }
    wnn__cu_unlock(d);
    return wnn__cu_status(e);
}

void wnn__cu_mem_free(wnn__device *d, void *ptr)
{
    if (!ptr)
        return;
    wnn__cu_lock(d);
    /* the block may still be read or written by queued work */
    note_error(d, wnn__cu_status(cudaStreamSynchronize(d->stream)));
    cudaFree(ptr);
    wnn__cu_unlock(d);
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

wnn_status wnn__cu_copy_to_device(wnn__device *d, void *dst, const void *src, size_t n)
{
    wnn__cu_lock(d);
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
    wnn__cu_unlock(d);
    return s;
}

static wnn_status take_error(wnn__device *d)
{
    wnn_status s = d->error;
    d->error = WNN_OK;
    return s;
}

/* Chunks are queued up to CU_STAGES ahead of the one being drained. */
wnn_status wnn__cu_copy_to_host(wnn__device *d, void *dst, const void *src, size_t n)
{
    wnn__cu_lock(d);
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
    wnn__cu_unlock(d);
    return earlier != WNN_OK ? earlier : s;
}

wnn_status wnn__cu_copy_on_device(wnn__device *d, void *dst, const void *src, size_t n)
{
    wnn__cu_lock(d);
    wnn_status s = wnn__cu_status(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, d->stream));
    wnn__cu_unlock(d);
    return s;
}

wnn_status wnn__cu_fill_zero(wnn__device *d, void *dst, size_t n)
{
    wnn__cu_lock(d);
    wnn_status s = wnn__cu_status(cudaMemsetAsync(dst, 0, n, d->stream));
    wnn__cu_unlock(d);
    return s;
}

wnn_status wnn__cu_synchronize(wnn__device *d)
{
    wnn__cu_lock(d);
    wnn_status s = wnn__cu_status(cudaStreamSynchronize(d->stream));
    wnn_status earlier = take_error(d);
    wnn__cu_unlock(d);
    return earlier != WNN_OK ? earlier : s;
}
