/* SPDX-License-Identifier: Apache-2.0 */
/*
** allocator.c -- the caching device allocator and the fault-injection
** counters the failure tests use.
*/
#include <stdatomic.h>
#include <stdlib.h>

#include "memory/allocator.h"

struct wnn__cached_block {
    wnn__cached_block *next;
    void *ptr;
    size_t size;
};

size_t wnn__size_class(size_t bytes)
{
    const size_t small_max = (size_t)1 << 20;
    if (bytes > small_max)
        return (bytes + small_max - 1) / small_max * small_max;
    size_t c = 256;
    while (c < bytes)
        c <<= 1;
    return c;
}

void wnn__allocator_init(wnn__allocator *a, const wnn__backend *be, wnn__device *dev, uint64_t limit)
{
    *a = (wnn__allocator){.backend = be, .device = dev, .limit = limit};
    pthread_mutex_init(&a->lock, NULL);
}

static void release_cached(wnn__allocator *a)
{
    wnn__cached_block *b = a->free_list;
    a->free_list = NULL;
    while (b) {
        wnn__cached_block *next = b->next;
        a->backend->mem_free(a->device, b->ptr);
        a->stats.cached_bytes -= b->size;
        a->stats.device_frees++;
        free(b);
        b = next;
    }
}

void wnn__allocator_fini(wnn__allocator *a)
{
    pthread_mutex_lock(&a->lock);
    release_cached(a);
    pthread_mutex_unlock(&a->lock);
    pthread_mutex_destroy(&a->lock);
}

void wnn__allocator_trim(wnn__allocator *a)
{
    pthread_mutex_lock(&a->lock);
    release_cached(a);
    pthread_mutex_unlock(&a->lock);
}

wnn_status wnn__allocator_alloc(wnn__allocator *a, size_t bytes, void **ptr, size_t *block_size)
{
    size_t size = wnn__size_class(bytes);
    pthread_mutex_lock(&a->lock);
    for (wnn__cached_block **p = &a->free_list; *p; p = &(*p)->next) {
        if ((*p)->size != size)
            continue;
        wnn__cached_block *hit = *p;
        *p = hit->next;
        *ptr = hit->ptr;
        free(hit);
        a->stats.cached_bytes -= size;
        goto got;
    }
    if (a->limit && a->stats.in_use_bytes + size > a->limit) {
        release_cached(a); /* cached memory counts against the limit: drop it first */
        if (a->stats.in_use_bytes + size > a->limit) {
            pthread_mutex_unlock(&a->lock);
            return WNN_STATUS_OUT_OF_MEMORY;
        }
    }
    if (wnn__fault_alloc_now()) {
        pthread_mutex_unlock(&a->lock);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    wnn_status s = a->backend->mem_alloc(a->device, size, ptr);
    if (s == WNN_STATUS_OUT_OF_MEMORY && a->free_list) {
        /* the device is full: give back what the cache holds and try once more */
        release_cached(a);
        s = a->backend->mem_alloc(a->device, size, ptr);
    }
    if (s != WNN_OK) {
        pthread_mutex_unlock(&a->lock);
        return s;
    }
    a->stats.device_allocations++;
got:
    a->stats.in_use_bytes += size;
    if (a->stats.in_use_bytes > a->stats.peak_bytes)
        a->stats.peak_bytes = a->stats.in_use_bytes;
    pthread_mutex_unlock(&a->lock);
    *block_size = size;
    return WNN_OK;
}

void wnn__allocator_free(wnn__allocator *a, void *ptr, size_t block_size)
{
    if (!ptr)
        return;
    wnn__cached_block *b = malloc(sizeof *b);
    pthread_mutex_lock(&a->lock);
    a->stats.in_use_bytes -= block_size;
    if (b) {
        *b = (wnn__cached_block){a->free_list, ptr, block_size};
        a->free_list = b;
        a->stats.cached_bytes += block_size;
    } else {
        a->backend->mem_free(a->device, ptr);
        a->stats.device_frees++;
    }
    pthread_mutex_unlock(&a->lock);
}

void wnn__allocator_count_copy(wnn__allocator *a, wnn__copy_direction dir, size_t bytes)
{
    pthread_mutex_lock(&a->lock);
    switch (dir) {
    case WNN__COPY_TO_DEVICE: a->stats.copies_to_device++; a->stats.bytes_to_device += bytes; break;
    case WNN__COPY_TO_HOST: a->stats.copies_to_host++; a->stats.bytes_to_host += bytes; break;
    case WNN__COPY_ON_DEVICE: a->stats.copies_on_device++; a->stats.bytes_on_device += bytes; break;
    }
    pthread_mutex_unlock(&a->lock);
}

wnn_status wnn__memory_copy(wnn__allocator *a, wnn__copy_direction dir, void *dst, const void *src, size_t n)
{
    if (wnn__fault_copy_now())
        return WNN_STATUS_OPERATION_ERROR;
    const wnn__backend *be = a->backend;
    wnn_status s = dir == WNN__COPY_TO_DEVICE ? be->copy_to_device(a->device, dst, src, n)
                   : dir == WNN__COPY_TO_HOST ? be->copy_to_host(a->device, dst, src, n)
                                              : be->copy_on_device(a->device, dst, src, n);
    if (s == WNN_OK)
        wnn__allocator_count_copy(a, dir, n);
    return s;
}

wnn_status wnn__memory_upload(wnn__allocator *a, const void *src, size_t n, void **ptr, size_t *block_size)
{
    wnn_status s = wnn__allocator_alloc(a, n ? n : 1, ptr, block_size);
    if (s == WNN_OK && n && (s = wnn__memory_copy(a, WNN__COPY_TO_DEVICE, *ptr, src, n)) != WNN_OK) {
        wnn__allocator_free(a, *ptr, *block_size);
        *ptr = NULL;
    }
    return s;
}

void wnn__allocator_stats(wnn__allocator *a, wnn_memory_stats *out)
{
    pthread_mutex_lock(&a->lock);
    *out = a->stats;
    pthread_mutex_unlock(&a->lock);
}

static atomic_uint_fast64_t fault_alloc_at, fault_copy_at;

void wnn__fault_inject(uint64_t nth_alloc, uint64_t nth_copy)
{
    atomic_store(&fault_alloc_at, nth_alloc);
    atomic_store(&fault_copy_at, nth_copy);
}

/* Counts down to the chosen event; exactly one call sees 1 -> 0. */
static bool countdown(atomic_uint_fast64_t *c)
{
    uint_fast64_t v = atomic_load(c);
    while (v > 0) {
        if (atomic_compare_exchange_weak(c, &v, v - 1))
            return v == 1;
    }
    return false;
}

bool wnn__fault_alloc_now(void) { return countdown(&fault_alloc_at); }
bool wnn__fault_copy_now(void) { return countdown(&fault_copy_at); }

bool wnn__fault_armed(void) { return atomic_load(&fault_alloc_at) > 0 || atomic_load(&fault_copy_at) > 0; }
