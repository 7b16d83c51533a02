/* SPDX-License-Identifier: Apache-2.0 */
/*
** internal.h -- the core's private objects: context, tensor, builder, graph,
** the timeline's tasks, and error helpers.
*/
#ifndef WNN_CORE_INTERNAL_H
#define WNN_CORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "backends/backend.h"
#include "memory/storage.h"
#include "core/ir.h"
#include "wnn/wnn.h"

#define WNN__PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- errors ------------------------------------------------------------ */

/* Records a message for wnn_last_error_message() and returns s. */
wnn_status wnn__fail(wnn_status s, const char *fmt, ...) WNN__PRINTF(2, 3);

/* Checks a descriptor by WebNN's "check dimensions" plus wnn's rank limit.
** fn names the caller in the message. */
wnn_status wnn__check_desc(const char *fn, const wnn_operand_desc *desc);

/* ---- the timeline ------------------------------------------------------ */

/* A unit of work on a context's timeline (timeline.c). Each task says what
** it does and how it gives back what it holds, so the timeline runs any kind
** without knowing it: tensor.c makes writes, reads and calls, dispatch.c
** makes dispatches. */
typedef struct wnn__task wnn__task;
struct wnn__task {
    wnn__task *next;
    void (*run)(wnn_context *ctx, wnn__task *task); /* on the timeline, in order */
    void (*free)(wnn__task *task);                  /* after run, or when never queued */
    wnn_tensor *tensor;  /* write, read: holds a reference and a use */
    void *bytes;         /* write: staged copy; read: destination */
    size_t size;         /* write: bytes; read: tensor byte length */
    bool own_bytes;      /* read into a buffer wnn allocated */
    wnn_read_callback callback;
    void *user_data;
    bool internal_callback;     /* callback is wnn's own (a blocking read, a call) */
    wnn_graph *graph;           /* dispatch: holds a reference */
    wnn_tensor **tensors;       /* dispatch: inputs then outputs, referenced and used */
};

/* Gives back a task that was made but not run (NULL is a no-op). */
void wnn__task_free(wnn__task *task);

/* ---- tracked objects ----------------------------------------------------- */

/* Tensors and graphs are on their context's list, so that the context's
** destroy can kill every one of them without knowing their kinds. */
typedef struct wnn__tracked wnn__tracked;
typedef struct wnn__tracked_ops {
    void (*retain)(wnn__tracked *x);
    void (*unref)(wnn__tracked *x);
    void (*kill)(wnn__tracked *x); /* WebNN's destroy(); idempotent */
    bool (*killed)(const wnn__tracked *x);
} wnn__tracked_ops;
struct wnn__tracked {
    const wnn__tracked_ops *ops;
    wnn__tracked *prev, *next; /* under ctx->lock */
};

/* Frees and unregisters every host block left on ctx (host_memory.c); at
** the context's end. */
void wnn__host_blocks_release(wnn_context *ctx);

/* Puts x on ctx's list / takes it off. */
void wnn__track(wnn_context *ctx, wnn__tracked *x, const wnn__tracked_ops *ops);
void wnn__untrack(wnn_context *ctx, wnn__tracked *x);

/* ---- objects ----------------------------------------------------------- */

struct wnn_context {
    atomic_int refs;
    const wnn__backend *backend;
    wnn__device *device;
    wnn_device_info info;
    wnn__allocator alloc;
    wnn_policy policy;
    wnn_error_callback on_error;
    void *on_error_user_data;
    atomic_bool lost;

    pthread_mutex_t lock; /* guards everything below */
    pthread_cond_t work_cv;
    pthread_cond_t done_cv;
    wnn__task *head;
    wnn__task *tail;
    uint64_t submitted;
    uint64_t completed;
    bool stopping;
    bool busy; /* a thread is running a task */
    bool worker_started;
    pthread_t worker;
    wnn_status first_error;
    char first_error_message[256];
    wnn__tracked *objects; /* every live tensor and graph, for destroy-on-loss */
    struct wnn__host_block *host_blocks; /* alloc_host and register_host (host_memory.c) */
};

struct wnn_tensor {
    atomic_int refs;
    wnn_context *ctx;
    wnn_tensor_desc desc;
    uint64_t byte_length;
    bool constant;
    atomic_bool destroyed;
    /* The storage's holders: 1 for the live tensor (dropped by destroy),
    ** plus one per call in progress that passed its checks, per queued task
    ** and per DLPack export. The storage is freed when the last goes, so
    ** nothing that passed a check can ever touch freed memory. */
    atomic_uint uses;
    atomic_bool storage_gone; /* st has been finalized (exactly once) */
    wnn__storage st;
    void *constant_bytes;  /* constant tensors keep a host copy for builders */
    atomic_bool rented;    /* exported to WebGPU and not returned (interop/webgpu.c) */
    struct wnn__gpu_copy *gpu_copy; /* exports are copies to the application's
                                    ** WGPUDevice (interop/webgpu.c); NULL: shared */
    wnn__tracked link; /* in ctx->objects */
};

struct wnn_operand {
    wnn_graph_builder *builder;
    uint32_t value;
};

struct wnn_graph_builder {
    wnn_context *ctx;
    bool built;
    wnn_status status;
    char message[256];
    uint32_t n_values, cap_values;
    wnn__value *values;
    char **input_names; /* per value; non-NULL for inputs */
    wnn_tensor **const_tensors; /* per value; the constant tensor behind it */
    uint32_t cap_const_tensors;
    uint32_t n_nodes, cap_nodes;
    wnn__node *nodes;
    uint32_t n_operands, cap_operands;
    wnn_operand **operands; /* handles, freed with the builder */
};

struct wnn_graph {
    atomic_int refs;
    wnn_context *ctx;
    atomic_bool destroyed;
    wnn__ir ir;
    void *compiled;
    wnn__tracked link; /* in ctx->objects */
};

/* ---- shared helpers ----------------------------------------------------- */

void wnn__context_retain(wnn_context *ctx);
void wnn__context_unref(wnn_context *ctx);
void wnn__tensor_retain(wnn_tensor *t);
void wnn__tensor_unref(wnn_tensor *t);
void wnn__graph_retain(wnn_graph *g);
void wnn__graph_unref(wnn_graph *g);

/* Appends a task to ctx's timeline. Fails with CONTEXT_LOST (and frees
** nothing) if the worker is stopping. */
wnn_status wnn__timeline_submit(wnn_context *ctx, wnn__task *task);
/* The same, giving the task's sequence number for wnn__timeline_wait(). */
wnn_status wnn__timeline_submit_seq(wnn_context *ctx, wnn__task *task, uint64_t *seq);
/* Waits until the task numbered seq has completed, running queued tasks
** itself meanwhile when the worker is not running one. */
void wnn__timeline_wait(wnn_context *ctx, uint64_t seq);
/* Takes the timeline for the calling thread when nothing is queued or
** running, so that a call can do its work at once, in order; false when
** busy. Every true return is paired with wnn__timeline_leave(). */
bool wnn__timeline_try_enter(wnn_context *ctx);
/* Waits until every task recorded before the call has completed (running
** them itself as wnn__timeline_wait() does), then takes the timeline as
** wnn__timeline_try_enter() does: false when work recorded since, a
** callback only the worker may run, or a stopping worker keeps it busy. */
bool wnn__timeline_enter_after_all(wnn_context *ctx);
void wnn__timeline_leave(wnn_context *ctx);
/* Records a timeline error for finish() and the error callback. */
void wnn__timeline_error(wnn_context *ctx, wnn_status s, const char *message);
/* Starts ctx's worker thread; stops it after the queue drains. */
wnn_status wnn__timeline_start(wnn_context *ctx);
void wnn__timeline_stop(wnn_context *ctx);
/* Queues a call of fn on ctx's timeline, after everything recorded before:
** fn(status, "", NULL, 0, user) runs exactly once, on the worker or on a
** thread waiting for the timeline, with WNN_OK or WNN_STATUS_CONTEXT_LOST.
** *seq (may be NULL) receives its number for wnn__timeline_wait(). fn must
** not block on work recorded after it. */
wnn_status wnn__timeline_call(wnn_context *ctx, wnn_read_callback fn, void *user, uint64_t *seq);

/* wnn_context_create_tensor() with fn naming the caller in messages. */
wnn_status wnn__tensor_create(const char *fn, wnn_context *ctx, const wnn_tensor_desc *desc, wnn_tensor **out);

/* Creates a tensor of ctx whose storage is foreign memory (see
** wnn__storage_init_foreign; DLPack import). On failure nothing took
** ownership of the memory. */
wnn_status wnn__tensor_create_foreign(const char *fn, wnn_context *ctx, const wnn_tensor_desc *desc, void *device,
                                      void (*release)(void *), void *release_ctx, wnn_tensor **out);

/* Makes a context over an opened device (dev, described by info; closed
** on failure): wnn_context_create() and the WebGPU interop's. fn names the
** caller. */
wnn_status wnn__context_open(const char *fn, const wnn_context_options *o, const wnn__backend *be,
                             const wnn_device_info *info, wnn__device *dev, wnn_context **out);

/* The backend and device a context with options o gets (device.c). */
wnn_status wnn__pick_device(const wnn_context_options *o, const wnn__backend **be, uint32_t *local);

/* Status to return for a destroyed tensor under ctx's policy. */
wnn_status wnn__destroyed_status(const wnn_context *ctx);

/* The checks every tensor operation shares: ctx alive, tensor of ctx, not
** destroyed and not rented to WebGPU. fn names the caller. */
wnn_status wnn__check_tensor_use(const char *fn, wnn_context *ctx, const wnn_tensor *t);

/* wnn__check_tensor_use() that also takes a use of t's storage when it
** passes: the storage then outlives any concurrent destroy until the
** matching wnn__tensor_use_end(). A use is taken before the destroyed flag
** is read, and destroy sets the flag before it drops the live use, so a
** call either sees the destroy or holds the storage. */
wnn_status wnn__tensor_use_begin(const char *fn, wnn_context *ctx, wnn_tensor *t);
/* Takes one more use; the caller already holds one. */
void wnn__tensor_use_more(wnn_tensor *t);
/* Gives a use back; the last one frees the storage. Any thread. */
void wnn__tensor_use_end(wnn_tensor *t);

/* Marks t destroyed and drops its live use: the storage goes now, or when
** the last call, task or export holding it is done. Caller must not hold
** ctx->lock. */
void wnn__tensor_kill(wnn_tensor *t);
void wnn__graph_kill(wnn_graph *g);

/* Gives back what a tensor exported by copies holds on the application's
** device (interop/webgpu.c); when the tensor is freed. */
void wnn__gpu_copy_free(struct wnn__gpu_copy *c);

/* Builds the reachable IR of builder for outputs (validated by the caller);
** ir.c. */
wnn_status wnn__ir_extract(const wnn_graph_builder *b, const wnn_named_operand *outputs, size_t n,
                           wnn__ir *ir);

#endif
