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
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "platform/config.h"

#include "platform/pool.h"
#include "backends/cuda/cuda_internal.h"

/* Staged copies below this many bytes are the calling thread's alone: the
** pool's wake-up costs more than it saves. */
#define CU_PARALLEL_MIN ((size_t)2 << 20)
/* Writes from pinned memory of at least this many bytes skip the staging
** ring (and wait for their DMA); smaller ones stay staged and asynchronous. */
#define CU_PINNED_DIRECT_MIN ((size_t)256 << 10)

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

/* ---- pinned host memory (wnn_context_alloc_host, _register_host) ------------ */

/* Every block of host memory wnn pinned, for all devices (cudaHostAlloc'd
** and registered memory is portable): copies from or to a block go
** straight to the DMA engine. Few blocks are expected; a sorted array is
** searched under its lock. */
typedef struct pinned_block {
    char *p;
    size_t n;
} pinned_block;

static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static pinned_block *pinned;
static size_t pinned_count, pinned_cap;

/* Index of the first block whose start is above p. Under pinned_lock. */
static size_t pinned_upper(const char *p)
{
    size_t lo = 0, hi = pinned_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pinned[mid].p <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool pinned_add(void *p, size_t n)
{
    pthread_mutex_lock(&pinned_lock);
    bool ok = true;
    if (pinned_count == pinned_cap) {
        size_t cap = pinned_cap ? 2 * pinned_cap : 16;
        pinned_block *b = realloc(pinned, cap * sizeof *b);
        if (b) {
            pinned = b;
            pinned_cap = cap;
        } else {
            ok = false;
        }
    }
    if (ok) {
        size_t i = pinned_upper(p);
        memmove(pinned + i + 1, pinned + i, (pinned_count - i) * sizeof *pinned);
        pinned[i] = (pinned_block){p, n};
        pinned_count++;
    }
    pthread_mutex_unlock(&pinned_lock);
    return ok;
}

static void pinned_remove(void *p)
{
    pthread_mutex_lock(&pinned_lock);
    size_t i = pinned_upper(p);
    if (i > 0 && pinned[i - 1].p == p) {
        memmove(pinned + i - 1, pinned + i, (pinned_count - i) * sizeof *pinned);
        pinned_count--;
    }
    pthread_mutex_unlock(&pinned_lock);
}

/* Whether [p, p + n) lies inside one pinned block. */
static bool pinned_holds(const void *p, size_t n)
{
    pthread_mutex_lock(&pinned_lock);
    size_t i = pinned_upper(p);
    bool in = i > 0 && (size_t)((const char *)p - pinned[i - 1].p) <= pinned[i - 1].n &&
              n <= pinned[i - 1].n - (size_t)((const char *)p - pinned[i - 1].p);
    pthread_mutex_unlock(&pinned_lock);
    return in;
}

wnn_status wnn__cu_host_alloc(wnn__device *d, size_t bytes, void **ptr)
{
    wnn__cu_lock(d);
    cudaError_t e = cudaHostAlloc(ptr, bytes, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *ptr = NULL;
    } else if (!pinned_add(*ptr, bytes)) {
        cudaFreeHost(*ptr);
        *ptr = NULL;
        e = cudaErrorMemoryAllocation;
    }
    wnn__cu_unlock(d);
    return wnn__cu_status(e);
}

void wnn__cu_host_free(wnn__device *d, void *ptr)
{
    pinned_remove(ptr);
    wnn__cu_lock(d);
    cudaFreeHost(ptr); /* waits for the DMA still using it */
    (void)cudaGetLastError();
    wnn__cu_unlock(d);
}

wnn_status wnn__cu_host_register(wnn__device *d, void *ptr, size_t bytes)
{
    wnn__cu_lock(d);
    cudaError_t e = cudaHostRegister(ptr, bytes, cudaHostRegisterPortable);
    wnn_status s = e == cudaSuccess ? WNN_OK
                   : e == cudaErrorMemoryAllocation ? WNN_STATUS_OUT_OF_MEMORY
                   : e == cudaErrorHostMemoryAlreadyRegistered ? WNN_STATUS_INVALID_ARGUMENT
                                                               : WNN_STATUS_OPERATION_ERROR;
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
    } else if (!pinned_add(ptr, bytes)) {
        cudaHostUnregister(ptr);
        s = WNN_STATUS_OUT_OF_MEMORY;
    }
    wnn__cu_unlock(d);
    return s;
}

void wnn__cu_host_unregister(wnn__device *d, void *ptr)
{
    pinned_remove(ptr);
    wnn__cu_lock(d);
    /* the DMA still reading or writing the memory must end first */
    note_error(d, wnn__cu_status(cudaStreamSynchronize(d->stream)));
    cudaHostUnregister(ptr);
    (void)cudaGetLastError();
    wnn__cu_unlock(d);
}

/* ---- copies -------------------------------------------------------------------- */

/* The staging ring: CU_STAGES chunks of d->stage_bytes of pinned memory,
** made at the first copy that needs it. */
static wnn_status stage_ready(wnn__device *d)
{
    if (d->staging)
        return WNN_OK;
    cudaError_t e = cudaHostAlloc((void **)&d->staging, CU_STAGES * d->stage_bytes, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        d->staging = NULL;
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    return WNN_OK;
}

/* A staged transfer of n bytes: chunks of d->stage_bytes go through the
** ring's slots in turn (chunk k in slot (first + k) % CU_STAGES), each
** chunk cut into `per_chunk` pieces that the threads taking part claim in
** order and copy between the caller's memory and the slot. The thread that
** copies a chunk's last piece moves the ring on: writes queue that chunk's
** DMA, reads queue the DMA of the chunk CU_STAGES later into the freed
** slot. So one wake-up of the worker pool serves the whole transfer and the
** host's copies of some chunks overlap the DMA of others. Every thread
** takes pieces in order, and waits only for a chunk whose pieces were all
** claimed before its own: some thread finishes them, so nothing deadlocks,
** whether the pool lends every worker, some, or none (the caller alone). */
typedef struct cu_pipe {
    wnn__device *d;
    bool to_device;
    char *dev;
    char *host;
    size_t n, chunk, piece, per_chunk, chunks;
    unsigned first;
    bool slot_busy[CU_STAGES]; /* to device: the slot's last use before this transfer may be pending */
    atomic_size_t queued[CU_STAGES]; /* 1 + the chunk whose DMA was last queued on the slot; 0 none */
    atomic_size_t copied[CU_STAGES]; /* pieces of the slot's current chunk copied */
    atomic_size_t next;              /* the next piece to claim */
    atomic_int failed;               /* the first failure (a wnn_status), 0 none */
} cu_pipe;

static size_t chunk_len(const cu_pipe *j, size_t k) { return k + 1 < j->chunks ? j->chunk : j->n - k * j->chunk; }

static unsigned slot_of(const cu_pipe *j, size_t k) { return (unsigned)((j->first + k) % CU_STAGES); }

static void pipe_fail(cu_pipe *j, cudaError_t e)
{
    int none = WNN_OK;
    atomic_compare_exchange_strong(&j->failed, &none, (int)wnn__cu_status(e));
    (void)cudaGetLastError();
}

/* Queues chunk k's DMA between its slot and the device, then an event. */
static void queue_chunk(cu_pipe *j, size_t k)
{
    unsigned i = slot_of(j, k);
    char *buf = j->d->staging + (size_t)i * j->chunk, *dev = j->dev + k * j->chunk;
    size_t len = chunk_len(j, k);
    cudaError_t e = j->to_device ? cudaMemcpyAsync(dev, buf, len, cudaMemcpyHostToDevice, j->d->stream)
                                 : cudaMemcpyAsync(buf, dev, len, cudaMemcpyDeviceToHost, j->d->stream);
    if (e == cudaSuccess)
        e = cudaEventRecord(j->d->staged[i], j->d->stream);
    if (e != cudaSuccess) {
        pipe_fail(j, e);
        return;
    }
    atomic_store_explicit(&j->copied[i], 0, memory_order_relaxed);
    atomic_store_explicit(&j->queued[i], k + 1, memory_order_release);
}

/* Waits until the DMA of chunk k has been queued on its slot, then until it
** is done. False once the transfer failed. */
static bool await_chunk(cu_pipe *j, size_t k)
{
    unsigned i = slot_of(j, k);
    while (atomic_load_explicit(&j->queued[i], memory_order_acquire) < k + 1) {
        if (atomic_load_explicit(&j->failed, memory_order_relaxed))
            return false;
        sched_yield();
    }
    cudaError_t e = cudaEventSynchronize(j->d->staged[i]);
    if (e != cudaSuccess)
        pipe_fail(j, e);
    return e == cudaSuccess;
}

static void pipe_run(cu_pipe *j)
{
    cudaSetDevice(j->d->ordinal);
    size_t pieces = j->chunks * j->per_chunk;
    for (;;) {
        size_t p = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (p >= pieces || atomic_load_explicit(&j->failed, memory_order_relaxed))
            return;
        size_t k = p / j->per_chunk, off = (p % j->per_chunk) * j->piece, len = chunk_len(j, k);
        unsigned i = slot_of(j, k);
        len = off < len ? (len - off < j->piece ? len - off : j->piece) : 0;
        char *buf = j->d->staging + (size_t)i * j->chunk + off, *host = j->host + k * j->chunk + off;
        if (j->to_device) {
            /* the slot's previous chunk must have left it */
            bool ok = k >= CU_STAGES ? await_chunk(j, k - CU_STAGES)
                      : !j->slot_busy[i] || cudaEventSynchronize(j->d->staged[i]) == cudaSuccess;
            if (!ok) {
                pipe_fail(j, cudaErrorUnknown);
                return;
            }
            memcpy(buf, host, len);
        } else {
            if (!await_chunk(j, k))
                return;
            memcpy(host, buf, len);
        }
        if (atomic_fetch_add_explicit(&j->copied[i], 1, memory_order_acq_rel) + 1 == j->per_chunk) {
            if (j->to_device)
                queue_chunk(j, k);
            else if (k + CU_STAGES < j->chunks)
                queue_chunk(j, k + CU_STAGES);
        }
    }
}

static void pipe_range(void *arg, size_t begin, size_t end)
{
    (void)begin;
    (void)end;
    pipe_run(arg); /* one call takes pieces until none is left */
}

/* How many threads a staged copy of n bytes uses: the caller alone below
** CU_PARALLEL_MIN, else the pool's (or WNN_CUDA_COPY_THREADS). */
static size_t copy_threads(size_t n)
{
    if (n < CU_PARALLEL_MIN)
        return 1;
    size_t t = wnn__pool_size(), want = wnn__config_get()->cuda_copy_threads;
    return want && want < t ? want : t;
}

/* The staged transfer (see cu_pipe); under d's lock, the ring made. */
static wnn_status staged_copy(wnn__device *d, bool to_device, char *dev, char *host, size_t n)
{
    cu_pipe j = {.d = d, .to_device = to_device, .dev = dev, .host = host, .n = n, .chunk = d->stage_bytes,
                 .first = d->next_stage};
    size_t threads = copy_threads(n);
    j.chunks = (n + j.chunk - 1) / j.chunk;
    /* a piece per thread and chunk, whole pages */
    j.per_chunk = threads;
    j.piece = ((j.chunk + threads - 1) / threads + 4095) & ~(size_t)4095;
    for (unsigned i = 0; i < CU_STAGES; i++) {
        j.slot_busy[i] = d->staged_used[i];
        atomic_init(&j.queued[i], 0);
        atomic_init(&j.copied[i], 0);
    }
    atomic_init(&j.next, 0);
    atomic_init(&j.failed, WNN_OK);
    if (!to_device) /* the stream orders these after any earlier use of the slots */
        for (size_t k = 0; k < j.chunks && k < CU_STAGES; k++)
            queue_chunk(&j, k);
    if (threads > 1)
        wnn__parallel_for(threads, 1, pipe_range, &j);
    else
        pipe_run(&j);
    cudaSetDevice(d->ordinal); /* a pool worker may have been this thread's helper, nothing else */
    size_t used = j.chunks < CU_STAGES ? j.chunks : CU_STAGES;
    for (size_t k = 0; k < used; k++)
        d->staged_used[slot_of(&j, k)] = true;
    d->next_stage = slot_of(&j, j.chunks);
    return (wnn_status)atomic_load(&j.failed);
}

/* The DMA engine straight from or to pinned memory; waits for it, so the
** caller may reuse a written buffer on return like any other. */
static wnn_status direct_copy(wnn__device *d, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    cudaError_t e = cudaMemcpyAsync(dst, src, n, kind, d->stream);
    if (e == cudaSuccess)
        e = cudaEventRecord(d->direct_done, d->stream);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(d->direct_done);
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    return wnn__cu_status(e);
}

wnn_status wnn__cu_copy_to_device(wnn__device *d, void *dst, const void *src, size_t n)
{
    wnn__cu_lock(d);
    wnn_status s;
    /* a small write from pinned memory is staged still: it then need not wait */
    if (n >= CU_PINNED_DIRECT_MIN && pinned_holds(src, n))
        s = direct_copy(d, dst, src, n, cudaMemcpyHostToDevice);
    else if ((s = stage_ready(d)) == WNN_OK)
        s = staged_copy(d, true, dst, (char *)src, n);
    wnn__cu_unlock(d);
    return s;
}

static wnn_status take_error(wnn__device *d)
{
    wnn_status s = d->error;
    d->error = WNN_OK;
    return s;
}

wnn_status wnn__cu_copy_to_host(wnn__device *d, void *dst, const void *src, size_t n)
{
    wnn__cu_lock(d);
    wnn_status s;
    if (pinned_holds(dst, n))
        s = direct_copy(d, dst, src, n, cudaMemcpyDeviceToHost);
    else if ((s = stage_ready(d)) == WNN_OK)
        s = staged_copy(d, false, (char *)src, dst, n);
    /* an earlier failure of queued work comes first */
    wnn_status earlier = take_error(d);
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
