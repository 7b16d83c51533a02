/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_internal.h -- what the webgpu backend's files share: the loaded
** webgpu.h implementation, the GPU a context runs on, and the graph compiler.
**
** Device memory handed to core is a WGPUBuffer: a "device pointer" of this
** backend is the buffer handle itself, never an address, and never offset.
** Each buffer serves one tensor, one constant or one intermediate, so
** copies and kernels may round sizes up to whole 4-byte words.
*/
#ifndef WNN_BACKENDS_WEBGPU_WG_INTERNAL_H
#define WNN_BACKENDS_WEBGPU_WG_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "backends/backend.h"
#include "backends/webgpu/wgpu.h"

/* The pinned build that tests and the default search use (docs/webgpu.md). */
#define WG_PINNED_PACKAGE "bun-webgpu-linux-x64"
#define WG_PINNED_VERSION "0.1.7"
#define WG_PINNED_SHA256 "3190c3777f2c07fcf6a0640833cbf5d0cde859dc53aed6d9083946d093198788"

extern wg_api wg; /* filled once by wg_library() */

/* The process's view of the implementation: loaded on first need. */
typedef struct wg_library_state {
    bool loaded;         /* the functions resolved */
    bool adapter_ok;     /* a real (not Null) adapter exists */
    char path[512];      /* where the library came from */
    char why[1400];      /* why there is no device, when there is none */
    char description[160];
    WGPUInstance instance;
    WGPUAdapter adapter;
    WGPULimits limits;
    bool shader_f16;
    bool cpu_adapter; /* a software adapter (lavapipe): its queue's work runs on the host's cores */
    pid_t pid;        /* the process that loaded it: a child of fork() cannot use its instance */
} wg_library_state;

/* Loads the library and finds the adapter, once; never fails loudly. */
const wg_library_state *wg_library(void);

/* Writes of at least WG_UPLOAD_MIN bytes never go as one
** wgpuQueueWriteBuffer: they go through WG_UPLOAD_RING mapped staging
** buffers of wnn's own, of WNN_WEBGPU_STAGING_KIB (8 MiB) each, or, with
** WNN_WEBGPU_UPLOAD=pieces, as wgpuQueueWriteBuffer calls of
** WG_UPLOAD_PIECE bytes (half of Dawn's 4 MiB staging ring buffers, so a
** piece and its alignment fit one). */
#define WG_UPLOAD_MIN ((size_t)4 << 20)
#define WG_UPLOAD_PIECE ((size_t)2 << 20)
#define WG_UPLOAD_RING 4

/* A WGPUDevice and its queue, shared by every context opened on it. All
** wgpu calls on it are made under lock (Dawn's devices are not thread-safe
** by default). */
typedef struct wg_gpu {
    pthread_mutex_t lock;
    WGPUInstance instance;
    WGPUDevice device;
    WGPUQueue queue;
    WGPULimits limits;
    bool shader_f16;
    bool cpu_adapter;              /* a software adapter: staging copies stay on one thread */
    bool external;                 /* the embedder's device (wnn_webgpu.h) */
    WGPUBuffer readback;           /* MapRead staging, grown on demand */
    WGPUBuffer fence;              /* 4 bytes copied into readback to wait for the queue */
    uint64_t readback_size;
    /* Staging for large writes (wg_device.c): MapWrite buffers used in
    ** turn, each mapped (ready) or waiting for its map after its copy. */
    WGPUBuffer upload[WG_UPLOAD_RING];
    WGPUFuture upload_map[WG_UPLOAD_RING];
    bool upload_mapped[WG_UPLOAD_RING];
    uint32_t upload_status[WG_UPLOAD_RING];
    uint32_t upload_next;
    uint64_t upload_chunk; /* bytes of each (WNN_WEBGPU_STAGING_KIB when the device opened) */
    /* Large reads go the other way through a ring of MapRead buffers of
    ** upload_chunk bytes (wg_device.c, read_chunked). */
    WGPUBuffer download[WG_UPLOAD_RING];
    uint64_t submitted; /* queue operations issued (submits and writes) */
    uint64_t completed; /* of which known complete (after a readback) */
    struct wg_pipeline *pipelines; /* compiled once per WGSL text */
    uint64_t errors;               /* uncaptured errors seen so far */
    char error_message[256];
} wg_gpu;

struct wnn__device {
    wg_gpu *gpu;
    uint64_t errors_seen; /* gpu->errors at the last synchronize */
};

/* The process's own GPU, made on first open. */
wnn_status wg_default_gpu(wg_gpu **out);
/* Waits for future under the instance; false when the wait failed. */
bool wg_wait(wg_gpu *g, WGPUFuture f);
/* Submits one command buffer made by enc (released here). Locked by caller. */
void wg_submit(wg_gpu *g, WGPUCommandEncoder enc);
/* Takes the first error since the last call, as a status. */
wnn_status wg_take_error(wnn__device *d);
/* WGSL text -> pipeline, cached on gpu; NULL with message on error.
** Caller holds gpu->lock. */
WGPUComputePipeline wg_pipeline(wg_gpu *g, const char *wgsl, char *err, size_t err_len);
void wg_pipelines_free(wg_gpu *g);

/* Graphs (wg_graph.c). */
wnn_status wg_graph_compile(wnn__device *d, struct wnn__allocator *alloc, const wnn__ir *ir, void **compiled);
void wg_graph_release(wnn__device *d, void *compiled);
wnn_status wg_graph_execute(wnn__device *d, void *compiled, void *const *inputs, void *const *outputs);
/* Whether the graph compiler has a kernel for the node. */
bool wg_supports_node(const wnn__ir *ir, const wnn__node *n, char *why, size_t why_len);

bool wg_supports_data_type(const wnn__device *d, wnn_data_type t);
bool wg_supports_op(const wnn__device *d, wnn__op op);
bool wg_supports_op_type(const wnn__device *d, wnn__op op, wnn_data_type t);

/* Why the calling thread's last graph build was refused (a module cannot
** reach core's error message): printed when WNN_WEBGPU_DEBUG is set. */
void wg_set_why(const char *why);
const char *wg_last_why(void);

#endif
