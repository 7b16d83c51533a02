/* SPDX-License-Identifier: Apache-2.0 */
/*
** storage.c -- the unified-buffer state machine of storage.h.
*/
#include <stdlib.h>
#include <string.h>

#include "memory/storage.h"

/* Reads of at least this many bytes skip the host mirror when it is not
** there yet (see wnn__storage_read). */
#define DIRECT_READ_BYTES ((size_t)1 << 20)

static bool unified(const wnn__storage *st) { return st->alloc->backend->unified_memory; }

wnn_status wnn__storage_init(wnn__storage *st, wnn__allocator *alloc, size_t bytes)
{
    *st = (wnn__storage){.alloc = alloc, .bytes = bytes, .state = WNN__STORAGE_ZERO};
    wnn_status s = wnn__allocator_alloc(alloc, bytes ? bytes : 1, &st->device, &st->block_size);
    if (s == WNN_OK && unified(st))
        st->host = st->device;
    return s;
}

void wnn__storage_init_foreign(wnn__storage *st, wnn__allocator *alloc, size_t bytes, void *device,
                               void (*release)(void *), void *release_ctx)
{
    *st = (wnn__storage){.alloc = alloc, .device = device, .bytes = bytes, .release = release,
                         .release_ctx = release_ctx};
    if (unified(st)) {
        st->host = device;
        st->state = WNN__STORAGE_BOTH;
    } else {
        st->state = WNN__STORAGE_DEVICE;
    }
}

void wnn__storage_fini(wnn__storage *st)
{
    if (!unified(st))
        free(st->host);
    if (st->release)
        st->release(st->release_ctx);
    else
        wnn__allocator_free(st->alloc, st->device, st->block_size);
    st->device = st->host = NULL;
}

static wnn_status copy_to_device(wnn__storage *st, const void *src)
{
    return wnn__memory_copy(st->alloc, WNN__COPY_TO_DEVICE, st->device, src, st->bytes);
}

wnn_status wnn__storage_write(wnn__storage *st, const void *src, size_t n)
{
    if (unified(st)) {
        memcpy(st->device, src, n);
        st->state = WNN__STORAGE_BOTH;
        return WNN_OK;
    }
    wnn_status s = copy_to_device(st, src);
    if (s == WNN_OK)
        st->state = WNN__STORAGE_DEVICE;
    return s;
}

static wnn_status refresh_host(wnn__storage *st)
{
    if (!st->host && !(st->host = malloc(st->bytes ? st->bytes : 1)))
        return WNN_STATUS_OUT_OF_MEMORY;
    wnn_status s = wnn__memory_copy(st->alloc, WNN__COPY_TO_HOST, st->host, st->device, st->bytes);
    if (s != WNN_OK)
        return s;
    st->state = WNN__STORAGE_BOTH;
    return WNN_OK;
}

wnn_status wnn__storage_read(wnn__storage *st, void *dst, size_t n)
{
    if (st->state == WNN__STORAGE_ZERO) {
        memset(dst, 0, n);
        return WNN_OK;
    }
    if (st->state == WNN__STORAGE_DEVICE && !st->host && n >= DIRECT_READ_BYTES) {
        /* A large tensor with no mirror yet: copy straight into the caller's
        ** buffer rather than fault in a mirror and copy twice. */
        return wnn__memory_copy(st->alloc, WNN__COPY_TO_HOST, dst, st->device, n);
    }
    if (st->state == WNN__STORAGE_DEVICE) {
        wnn_status s = refresh_host(st);
        if (s != WNN_OK)
            return s;
    }
    memcpy(dst, st->host, n);
    return WNN_OK;
}

wnn_status wnn__storage_prepare_device(wnn__storage *st, void **ptr)
{
    wnn_status s = WNN_OK;
    if (st->state == WNN__STORAGE_ZERO) {
        if (unified(st))
            memset(st->device, 0, st->bytes);
        else
            s = st->alloc->backend->fill_zero(st->alloc->device, st->device, st->bytes);
        if (s == WNN_OK)
            st->state = unified(st) ? WNN__STORAGE_BOTH : WNN__STORAGE_DEVICE;
    } else if (st->state == WNN__STORAGE_HOST) {
        s = copy_to_device(st, st->host);
        if (s == WNN_OK)
            st->state = WNN__STORAGE_BOTH;
    }
    *ptr = st->device;
    return s;
}

void wnn__storage_device_written(wnn__storage *st)
{
    st->state = unified(st) ? WNN__STORAGE_BOTH : WNN__STORAGE_DEVICE;
}
