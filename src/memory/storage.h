/* SPDX-License-Identifier: Apache-2.0 */
/*
** storage.h -- a tensor's bytes on a device, with a host mirror and the
** record of which side holds the current value (the unified-buffer model).
**
**   ZERO    nothing written yet: the value is all zeros, neither side holds it
**   DEVICE  the device copy is current, the host mirror (if any) is stale
**   HOST    the host mirror is current (after an import of host memory)
**   BOTH    both are current (after a read)
**
** Reading copies device -> host only when the mirror is stale; writing makes
** the device side current and the mirror stale. On unified-memory devices the
** two sides are one memory and nothing is ever copied. Every function but
** create/destroy runs on the context's timeline worker.
*/
#ifndef WNN_MEMORY_STORAGE_H
#define WNN_MEMORY_STORAGE_H

#include <stdatomic.h>

#include "memory/allocator.h"

typedef enum wnn__storage_state {
    WNN__STORAGE_ZERO,
    WNN__STORAGE_DEVICE,
    WNN__STORAGE_HOST,
    WNN__STORAGE_BOTH
} wnn__storage_state;

typedef struct wnn__storage {
    wnn__allocator *alloc;
    void *device;      /* device block from the allocator */
    size_t block_size;
    void *host;        /* host mirror, made on first need; == device when unified */
    size_t bytes;
    wnn__storage_state state;
    /* Foreign memory (a DLPack import): device is not the allocator's, and
    ** release(release_ctx) gives it back instead. */
    void (*release)(void *release_ctx);
    void *release_ctx;
} wnn__storage;

wnn_status wnn__storage_init(wnn__storage *st, wnn__allocator *alloc, size_t bytes);
/* Wraps foreign memory holding a current value: device is its device
** address (host memory on unified devices). Never fails; fini calls
** release(release_ctx) once instead of freeing device. */
void wnn__storage_init_foreign(wnn__storage *st, wnn__allocator *alloc, size_t bytes, void *device,
                               void (*release)(void *), void *release_ctx);
void wnn__storage_fini(wnn__storage *st);

/* Replaces the whole value with n bytes from src. */
wnn_status wnn__storage_write(wnn__storage *st, const void *src, size_t n);
/* Copies the value into dst (n bytes), refreshing the mirror if stale. */
wnn_status wnn__storage_read(wnn__storage *st, void *dst, size_t n);
/* Makes the device side current (before a dispatch reads it) and returns
** its device pointer in *ptr. */
wnn_status wnn__storage_prepare_device(wnn__storage *st, void **ptr);
/* Records that queued device work overwrote the value. */
void wnn__storage_device_written(wnn__storage *st);

#endif
