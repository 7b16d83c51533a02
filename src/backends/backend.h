/* SPDX-License-Identifier: Apache-2.0 */
/*
** backend.h -- the interface every device backend implements.
**
** A backend is a const table of function pointers (SQLite's VFS, ggml's
** backends). Core code reaches devices only through this table; backends
** never call the public API. Entries are called by the context's timeline:
** one thread at a time (the worker, or a caller waiting for the timeline
** that runs queued tasks itself), in timeline order, unless an entry says
** otherwise.
** A backend that runs work asynchronously on a queue of its own (the null
** device's worker, a CUDA stream) keeps that queue in call order; core relies
** on that order and never waits for the device except to read.
*/
#ifndef WNN_BACKENDS_BACKEND_H
#define WNN_BACKENDS_BACKEND_H

#include "core/ir.h"
#include "wnn/wnn.h"

#define WNN__BACKEND_VERSION 3

typedef struct wnn__device wnn__device; /* a backend's opened device */
struct wnn__allocator;                  /* memory/allocator.h */

typedef struct wnn__backend {
    uint32_t version; /* WNN__BACKEND_VERSION */
    const char *name; /* device name prefix: "cpu", "null", "cuda" */

    /* Devices usable now (0 when the hardware or driver is absent). */
    uint32_t (*device_count)(void);
    /* Describes device index; strings must be static or live as long as the
    ** process. */
    wnn_status (*device_info)(uint32_t index, wnn_device_info *info);
    wnn_status (*device_open)(uint32_t index, wnn__device **out);
    void (*device_close)(wnn__device *dev);
    /* True when device memory is host memory: tensors keep one copy and
    ** core reads and writes it directly. */
    bool unified_memory;
    /* True when nothing but wnn can address the device's memory (the null
    ** device): a DLPack consumer of it is always wnn, which waits for the
    ** export's event itself, so exports need not wait. */
    bool private_memory;
    /* Whether tensors of data type t can be created on the device. */
    bool (*supports_data_type)(const wnn__device *dev, wnn_data_type t);
    /* Whether the device has a kernel for op; NULL means every operator.
    ** opSupportLimits and the builder refuse what it denies, so a graph
    ** never fails to compile for want of a kernel. */
    bool (*supports_op)(const wnn__device *dev, wnn__op op);
    /* Whether the device's kernels of op take operands of data type t (one
    ** supports_data_type admits); NULL means every such type. opSupportLimits
    ** and the builder leave out what it denies, for operands and outputs. */
    bool (*supports_op_type)(const wnn__device *dev, wnn__op op, wnn_data_type t);

    /* Raw device memory of bytes (> 0) bytes; the caching allocator is its
    ** only caller but for tensors shared with WebGPU (mem_share). Thread-safe. mem_free may be called while queued work
    ** still uses the block: the backend must defer the release until that
    ** work is done (queue the free behind it). */
    wnn_status (*mem_alloc)(wnn__device *dev, size_t bytes, void **ptr);
    void (*mem_free)(wnn__device *dev, void *ptr);

    /* Copies, in queue order. copy_to_device may return before the copy is
    ** done, but src may be reused as soon as it returns. copy_to_host is
    ** complete when it returns (and reports any earlier queued failure).
    ** Unified-memory devices (the cpu) may leave these NULL: core then never
    ** copies and reads device pointers directly. */
    wnn_status (*copy_to_device)(wnn__device *dev, void *dst, const void *src, size_t n);
    wnn_status (*copy_to_host)(wnn__device *dev, void *dst, const void *src, size_t n);
    wnn_status (*copy_on_device)(wnn__device *dev, void *dst, const void *src, size_t n);
    wnn_status (*fill_zero)(wnn__device *dev, void *dst, size_t n);
    /* Waits until everything queued so far is done; returns the first error
    ** queued work met since the last call. */
    wnn_status (*synchronize)(wnn__device *dev);

    /* Compiles ir (which stays alive until graph_release) for the device.
    ** Called from any thread; may upload constants. Device memory the graph
    ** keeps (its arena of intermediates, constants) comes from alloc, the
    ** context's caching allocator, and goes back to it on release. */
    wnn_status (*graph_compile)(wnn__device *dev, struct wnn__allocator *alloc, const wnn__ir *ir,
                                void **compiled);
    /* Called from any thread once no timeline task uses the graph. Core frees
    ** the IR when this returns, so work the device still has queued that
    ** reads the IR or the compiled graph must be finished (or no longer need
    ** them) by then. */
    void (*graph_release)(wnn__device *dev, void *compiled);
    /* Queues a run of a compiled graph. inputs[i] and outputs[i] are device
    ** pointers bound to ir->input_values[i] and ir->output_values[i]; the
    ** arrays themselves may be reused as soon as this returns. */
    wnn_status (*graph_execute)(wnn__device *dev, void *compiled, void *const *inputs,
                                void *const *outputs);

    /* DLPack with device streams; all optional (NULL on devices without
    ** streams or foreign memory: the cpu, the null device). Unlike the
    ** entries above they may be called from any thread, at any time: the
    ** backend serializes them with its own queue. Stream values are
    ** DLPack's for CUDA: 1 the legacy default stream, 2 the per-thread
    ** default stream, anything else a cudaStream_t of the device.
    **
    ** order_before_stream: makes consumer_stream wait (without blocking
    ** the host) for everything queued on the device's own queue so far
    ** (an event recorded there, waited on by consumer_stream). */
    wnn_status (*order_before_stream)(wnn__device *dev, uintptr_t consumer_stream);
    /* wait_for_stream: the reverse, for imports: work queued on the
    ** device's own queue from now on waits for everything queued so far on
    ** producer_stream. */
    wnn_status (*wait_for_stream)(wnn__device *dev, uintptr_t producer_stream);
    /* owns_pointer: whether ptr is memory of this device that its kernels
    ** can use directly (not necessarily allocated by wnn). */
    bool (*owns_pointer)(wnn__device *dev, const void *ptr);

    /* WebGPU interop (wnn_webgpu.h); NULL on every other backend. Any
    ** thread, at any time.
    ** device_open_external: opens a device over the embedder's WGPUInstance
    ** and WGPUDevice (referenced until device_close) and describes it. */
    wnn_status (*device_open_external)(void *instance, void *device, wnn__device **out, wnn_device_info *info);
    /* device_handles: the WGPUInstance and WGPUDevice dev runs on. */
    void (*device_handles)(wnn__device *dev, void **instance, void **device);
    /* mem_share: a new reference to the WGPUBuffer behind ptr, for the
    ** embedder. Tensors shared this way take their memory from mem_alloc
    ** directly (not through the caching allocator), so that a buffer the
    ** embedder may still hold never serves another tensor. */
    void *(*mem_share)(wnn__device *dev, void *ptr);

    /* Page-locked host memory (wnn_context_alloc_host, _register_host);
    ** all optional: NULL host_alloc means plain aligned host memory, NULL
    ** host_register means registration does nothing. Copies from or to such
    ** memory may go straight to the device's DMA. Any thread, at any time.
    ** host_alloc: bytes (> 0) of memory aligned to at least 64 bytes.
    ** host_free, host_unregister: after the work that used the memory. */
    wnn_status (*host_alloc)(wnn__device *dev, size_t bytes, void **ptr);
    void (*host_free)(wnn__device *dev, void *ptr);
    wnn_status (*host_register)(wnn__device *dev, void *ptr, size_t bytes);
    void (*host_unregister)(wnn__device *dev, void *ptr);
} wnn__backend;

/* The registry (registry.c): the backends linked in and those built as
** modules (module.h). Counting or looking up by index loads every module. */
uint32_t wnn__registry_device_count(void);
/* Finds device index of the registry; *backend and *local_index say who
** serves it. */
wnn_status wnn__registry_lookup(uint32_t index, const wnn__backend **backend, uint32_t *local_index);
/* Finds the device named name ("cpu", "cuda:1"), loading only a module
** whose backend's name prefixes it. NO_SUCH_DEVICE if none. */
wnn_status wnn__registry_find(const char *name, const wnn__backend **backend, uint32_t *local_index);
/* Why the module serving devices called name ("cuda") is not loaded (the
** loader's message), or NULL when it is loaded or no such module exists. */
const char *wnn__registry_absent_reason(const char *name);

extern const wnn__backend wnn__cpu_backend;
extern const wnn__backend wnn__null_backend;
extern const wnn__backend wnn__cuda_backend; /* in the module libwnn_cuda.so */

#endif
