/* SPDX-License-Identifier: Apache-2.0 */
/*
** null.c -- the "null" device: an emulated discrete accelerator for testing
** every device code path without a GPU.
**
** Its memory is a region host code must never touch: device pointers handed
** to core are real addresses XOR-ed with a key that makes them non-canonical,
** so any host dereference faults at once instead of silently working. All
** work -- copies in each direction, zero fills, graph runs, frees -- runs on
** the device's own worker thread in submission order, like a GPU stream;
** copy_to_host and synchronize wait for it. Graphs run the cpu kernels on the
** device's own copies. WNN_NULL_COPY_DELAY_US adds a sleep before every copy,
** so ordering bugs surface in tests.
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend.h"
#include "backends/cpu/cpu_graph.h"
#include "memory/allocator.h"
#include "platform/config.h"

#define NULL_MAX_TENSOR_BYTES ((uint64_t)1 << 34)
#define KEY ((uintptr_t)0x0F00000000000000ull)

static void *encode(void *p) { return p ? (void *)((uintptr_t)p ^ KEY) : NULL; }
static void *decode(const void *p) { return p ? (void *)((uintptr_t)p ^ KEY) : NULL; }

typedef enum job_kind { JOB_COPY_IN, JOB_COPY_OUT, JOB_COPY_ON, JOB_ZERO, JOB_RUN, JOB_FREE, JOB_FENCE } job_kind;

typedef struct null_graph {
    wnn__cpu_graph *cpu;
    wnn__allocator *alloc;
    void *arena;          /* device (encoded) address, from alloc */
    size_t arena_block;
    void **constants;     /* per value: the device copy (encoded), or NULL */
    size_t *const_blocks;
    void **real;          /* per value: decoded constants, for the kernels */
    uint32_t n_values;
} null_graph;

typedef struct job {
    struct job *next;
    job_kind kind;
    void *dst;          /* real addresses for device memory */
    const void *src;
    void *owned;        /* freed after the job: staging copy, pointer arrays */
    size_t n;
    null_graph *graph;
    void **ptrs;        /* JOB_RUN: inputs then outputs */
    uint32_t n_in;
    uint64_t seq;
} job;

struct wnn__device {
    pthread_mutex_t lock;
    pthread_cond_t work_cv, done_cv;
    job *head, *tail;
    uint64_t submitted, completed;
    bool stopping;
    pthread_t worker;
    wnn_status error; /* first failure since the last synchronize */
    unsigned delay_us;
};

static void copy_delay(wnn__device *d)
{
    if (!d->delay_us)
        return;
    struct timespec ts = {d->delay_us / 1000000, (long)(d->delay_us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* Returns the graph's memory to the allocator (whose frees are queued behind
** the work already submitted) and frees the plan. */
static void drop_graph(null_graph *g)
{
    for (uint32_t v = 0; g->constants && v < g->n_values; v++)
        if (g->constants[v])
            wnn__allocator_free(g->alloc, g->constants[v], g->const_blocks[v]);
    if (g->arena)
        wnn__allocator_free(g->alloc, g->arena, g->arena_block);
    free(g->constants);
    free(g->const_blocks);
    free(g->real);
    wnn__cpu_graph_free(g->cpu);
    free(g);
}

static void run_job(wnn__device *d, job *j)
{
    wnn_status s = WNN_OK;
    switch (j->kind) {
    case JOB_COPY_IN:
    case JOB_COPY_OUT:
    case JOB_COPY_ON:
        copy_delay(d);
        memcpy(j->dst, j->src, j->n);
        break;
    case JOB_ZERO:
        memset(j->dst, 0, j->n);
        break;
    case JOB_RUN:
        s = wnn__cpu_graph_run(j->graph->cpu, j->ptrs, j->ptrs + j->n_in);
        break;
    case JOB_FREE:
        free(j->dst);
        break;
    case JOB_FENCE:
        break;
    }
    if (s != WNN_OK) {
        pthread_mutex_lock(&d->lock);
        if (d->error == WNN_OK)
            d->error = s;
        pthread_mutex_unlock(&d->lock);
    }
}

static void *worker_main(void *arg)
{
    wnn__device *d = arg;
    pthread_mutex_lock(&d->lock);
    for (;;) {
        while (!d->head && !d->stopping)
            pthread_cond_wait(&d->work_cv, &d->lock);
        job *j = d->head;
        if (!j)
            break;
        d->head = j->next;
        if (!d->head)
            d->tail = NULL;
        pthread_mutex_unlock(&d->lock);
        run_job(d, j);
        free(j->owned);
        free(j->ptrs);
        free(j);
        pthread_mutex_lock(&d->lock);
        d->completed++;
        pthread_cond_broadcast(&d->done_cv);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

/* Queues j (taking ownership); returns its sequence number, 0 on failure. */
static uint64_t submit(wnn__device *d, job *j)
{
    pthread_mutex_lock(&d->lock);
    j->next = NULL;
    uint64_t seq = j->seq = ++d->submitted; /* j is the worker's once unlocked */
    if (d->tail)
        d->tail->next = j;
    else
        d->head = j;
    d->tail = j;
    pthread_cond_signal(&d->work_cv);
    pthread_mutex_unlock(&d->lock);
    return seq;
}

static void wait_for(wnn__device *d, uint64_t seq)
{
    pthread_mutex_lock(&d->lock);
    while (d->completed < seq)
        pthread_cond_wait(&d->done_cv, &d->lock);
    pthread_mutex_unlock(&d->lock);
}

static job *new_job(job_kind kind)
{
    job *j = calloc(1, sizeof *j);
    if (j)
        j->kind = kind;
    return j;
}

/* ---- devices --------------------------------------------------------------- */

static uint32_t null_device_count(void) { return 1; }

static wnn_status null_device_info(uint32_t index, wnn_device_info *info)
{
    *info = (wnn_device_info){
        .name = "null",
        .description = "emulated discrete device (host-backed, explicit copies on its own queue)",
        .kind = WNN_DEVICE_KIND_EMULATED,
        .accelerated = false,
        .max_tensor_byte_length = NULL_MAX_TENSOR_BYTES,
        .memory_bytes = 0,
        .dlpack_device_type = 12, /* kDLExtDev */
        .dlpack_device_id = 0,
    };
    return WNN_OK;
}

static wnn_status null_device_open(uint32_t index, wnn__device **out)
{
    wnn__device *d = calloc(1, sizeof *d);
    if (!d)
        return WNN_STATUS_OUT_OF_MEMORY;
    d->delay_us = wnn__config_get()->null_copy_delay_us;
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->work_cv, NULL);
    pthread_cond_init(&d->done_cv, NULL);
    if (pthread_create(&d->worker, NULL, worker_main, d) != 0) {
        pthread_mutex_destroy(&d->lock);
        pthread_cond_destroy(&d->work_cv);
        pthread_cond_destroy(&d->done_cv);
        free(d);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    *out = d;
    return WNN_OK;
}

static void null_device_close(wnn__device *d)
{
    pthread_mutex_lock(&d->lock);
    d->stopping = true;
    pthread_cond_signal(&d->work_cv);
    pthread_mutex_unlock(&d->lock);
    pthread_join(d->worker, NULL);
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->work_cv);
    pthread_cond_destroy(&d->done_cv);
    free(d);
}

static bool null_supports_data_type(const wnn__device *d, wnn_data_type t)
{
    /* it runs the cpu kernels, so it has the cpu's data types */
    return wnn__cpu_backend.supports_data_type(NULL, t);
}

/* ---- memory and copies ------------------------------------------------------- */

static wnn_status null_mem_alloc(wnn__device *d, size_t bytes, void **ptr)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    *ptr = encode(p);
    return WNN_OK;
}

static void null_mem_free(wnn__device *d, void *ptr)
{
    job *j = new_job(JOB_FREE);
    if (!j) {
        /* no memory to queue the free: wait for the queue, then free now */
        pthread_mutex_lock(&d->lock);
        uint64_t last = d->submitted;
        pthread_mutex_unlock(&d->lock);
        wait_for(d, last);
        free(decode(ptr));
        return;
    }
    j->dst = decode(ptr);
    submit(d, j);
}

static wnn_status null_copy_to_device(wnn__device *d, void *dst, const void *src, size_t n)
{
    job *j = new_job(JOB_COPY_IN);
    void *staging = j ? malloc(n ? n : 1) : NULL;
    if (!staging) {
        free(j);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    memcpy(staging, src, n); /* the caller may reuse src at once */
    j->dst = decode(dst);
    j->src = j->owned = staging;
    j->n = n;
    submit(d, j);
    return WNN_OK;
}

static wnn_status take_error(wnn__device *d)
{
    pthread_mutex_lock(&d->lock);
    wnn_status s = d->error;
    d->error = WNN_OK;
    pthread_mutex_unlock(&d->lock);
    return s;
}

static wnn_status null_copy_to_host(wnn__device *d, void *dst, const void *src, size_t n)
{
    job *j = new_job(JOB_COPY_OUT);
    if (!j)
        return WNN_STATUS_OUT_OF_MEMORY;
    j->dst = dst;
    j->src = decode(src);
    j->n = n;
    wait_for(d, submit(d, j));
    return take_error(d);
}

static wnn_status null_copy_on_device(wnn__device *d, void *dst, const void *src, size_t n)
{
    job *j = new_job(JOB_COPY_ON);
    if (!j)
        return WNN_STATUS_OUT_OF_MEMORY;
    j->dst = decode(dst);
    j->src = decode(src);
    j->n = n;
    submit(d, j);
    return WNN_OK;
}

static wnn_status null_fill_zero(wnn__device *d, void *dst, size_t n)
{
    job *j = new_job(JOB_ZERO);
    if (!j)
        return WNN_STATUS_OUT_OF_MEMORY;
    j->dst = decode(dst);
    j->n = n;
    submit(d, j);
    return WNN_OK;
}

static wnn_status null_synchronize(wnn__device *d)
{
    job *j = new_job(JOB_FENCE);
    if (!j)
        return WNN_STATUS_OUT_OF_MEMORY;
    wait_for(d, submit(d, j));
    return take_error(d);
}

/* ---- graphs -------------------------------------------------------------------- */

static wnn_status null_copy_to_device(wnn__device *d, void *dst, const void *src, size_t n);
static wnn_status null_synchronize(wnn__device *d);

static wnn_status null_graph_compile(wnn__device *d, wnn__allocator *alloc, const wnn__ir *ir, void **compiled)
{
    null_graph *g = calloc(1, sizeof *g);
    if (!g)
        return WNN_STATUS_OUT_OF_MEMORY;
    g->alloc = alloc;
    wnn_status s = wnn__cpu_graph_plan(ir, &g->cpu);
    if (s != WNN_OK) {
        free(g);
        return s;
    }
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    g->n_values = ir->n_values;
    g->constants = calloc(nv, sizeof *g->constants);
    g->const_blocks = calloc(nv, sizeof *g->const_blocks);
    g->real = calloc(nv, sizeof *g->real);
    size_t arena = wnn__cpu_graph_arena_size(g->cpu);
    if (!g->constants || !g->const_blocks || !g->real)
        s = WNN_STATUS_OUT_OF_MEMORY;
    if (s == WNN_OK && arena)
        s = wnn__allocator_alloc(alloc, arena, &g->arena, &g->arena_block);
    /* constants are uploaded once, through the queue like any other copy */
    for (uint32_t v = 0; s == WNN_OK && v < ir->n_values; v++) {
        if (ir->values[v].kind != WNN__VALUE_CONSTANT)
            continue;
        size_t n = (size_t)wnn_operand_desc_byte_length(&ir->values[v].desc);
        s = wnn__memory_upload(alloc, ir->values[v].data, n, &g->constants[v], &g->const_blocks[v]);
        g->real[v] = decode(g->constants[v]);
    }
    if (s != WNN_OK) {
        drop_graph(g);
        return s;
    }
    wnn__cpu_graph_bind(g->cpu, decode(g->arena), g->real);
    *compiled = g;
    return WNN_OK;
}

/* The plan reads the IR, which core frees once this returns: queued runs
** must be done first, so this waits for the queue (graphs are released
** rarely; tensors, released often, never wait). */
static void null_graph_release(wnn__device *d, void *compiled)
{
    null_synchronize(d);
    drop_graph(compiled);
}

static wnn_status null_graph_execute(wnn__device *d, void *compiled, void *const *inputs, void *const *outputs)
{
    null_graph *g = compiled;
    job *j = new_job(JOB_RUN);
    if (!j)
        return WNN_STATUS_OUT_OF_MEMORY;
    uint32_t n_in = 0, n_out = 0;
    wnn__cpu_graph_counts(g->cpu, &n_in, &n_out);
    j->ptrs = malloc(sizeof *j->ptrs * (n_in + n_out ? n_in + n_out : 1));
    if (!j->ptrs) {
        free(j);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < n_in; i++)
        j->ptrs[i] = decode(inputs[i]);
    for (uint32_t i = 0; i < n_out; i++)
        j->ptrs[n_in + i] = decode(outputs[i]);
    j->n_in = n_in;
    j->graph = g;
    submit(d, j);
    return WNN_OK;
}

const wnn__backend wnn__null_backend = {
    .version = WNN__BACKEND_VERSION,
    .name = "null",
    .device_count = null_device_count,
    .device_info = null_device_info,
    .device_open = null_device_open,
    .device_close = null_device_close,
    .unified_memory = false,
    .private_memory = true,
    .supports_data_type = null_supports_data_type,
    .mem_alloc = null_mem_alloc,
    .mem_free = null_mem_free,
    .copy_to_device = null_copy_to_device,
    .copy_to_host = null_copy_to_host,
    .copy_on_device = null_copy_on_device,
    .fill_zero = null_fill_zero,
    .synchronize = null_synchronize,
    .graph_compile = null_graph_compile,
    .graph_release = null_graph_release,
    .graph_execute = null_graph_execute,
};
