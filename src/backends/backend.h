/*
** backend.h -- the interface every device backend implements.
**
** A backend is a const table of function pointers (SQLite's VFS, ggml's
** backends). Core code reaches devices only through this table; backends
** never call the public API. All entries are called from the context's
** timeline worker thread, in timeline order, except device_* (any thread,
** under the registry's lock) and storage_alloc/storage_free (any thread; they
** must be thread-safe). A backend that runs work asynchronously on a queue of
** its own must keep that queue in call order and must have finished a
** storage_read before it returns.
*/
#ifndef WNN_BACKENDS_BACKEND_H
#define WNN_BACKENDS_BACKEND_H

#include "core/ir.h"
#include "wnn/wnn.h"

#define WNN__BACKEND_VERSION 1

typedef struct wnn__device wnn__device; /* a backend's opened device */

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
    /* Whether tensors of data type t can be created on the device. */
    bool (*supports_data_type)(const wnn__device *dev, wnn_data_type t);

    /* Zero-filled storage of bytes (> 0) bytes. Thread-safe. */
    wnn_status (*storage_alloc)(wnn__device *dev, size_t bytes, void **storage);
    void (*storage_free)(wnn__device *dev, void *storage);
    /* Host address of storage when host code may touch it directly (the cpu
    ** device), else NULL. Optional: NULL entry means never. */
    void *(*storage_host_ptr)(wnn__device *dev, void *storage);
    /* Host -> device copy of n bytes at offset 0; src may be reused as soon as
    ** this returns. */
    wnn_status (*storage_write)(wnn__device *dev, void *storage, const void *src, size_t n);
    /* Device -> host copy; complete when this returns. */
    wnn_status (*storage_read)(wnn__device *dev, void *storage, void *dst, size_t n);

    /* Compiles ir (which stays alive until graph_release) for the device. */
    wnn_status (*graph_compile)(wnn__device *dev, const wnn__ir *ir, void **compiled);
    void (*graph_release)(wnn__device *dev, void *compiled);
    /* Runs a compiled graph. inputs[i] and outputs[i] are the storages bound
    ** to ir->input_values[i] and ir->output_values[i]. */
    wnn_status (*graph_execute)(wnn__device *dev, void *compiled, void *const *inputs,
                                void *const *outputs);
} wnn__backend;

/* The registry: every backend compiled in. */
uint32_t wnn__registry_device_count(void);
/* Finds device index of the registry; *backend and *local_index say who
** serves it. */
wnn_status wnn__registry_lookup(uint32_t index, const wnn__backend **backend, uint32_t *local_index);

extern const wnn__backend wnn__cpu_backend;

#endif
