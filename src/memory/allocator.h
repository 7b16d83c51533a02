/* SPDX-License-Identifier: Apache-2.0 */
/*
** allocator.h -- a caching allocator of device memory.
**
** It takes the device (a backend and its opened device) as a parameter and
** sits between storage and the backend's raw mem_alloc/mem_free. Freed blocks
** are kept by size class and handed out again, so creating and destroying
** tensors in a loop makes no device allocation after warm-up. Thread-safe.
*/
#ifndef WNN_MEMORY_ALLOCATOR_H
#define WNN_MEMORY_ALLOCATOR_H

#include <pthread.h>

#include "backends/backend.h"

typedef struct wnn__cached_block wnn__cached_block;

typedef struct wnn__allocator {
    const wnn__backend *backend;
    wnn__device *device;
    pthread_mutex_t lock;
    uint64_t limit;             /* 0: none; else in_use + cached may not pass it */
    wnn__cached_block *free_list; /* cached blocks, unsorted */
    wnn_memory_stats stats;
} wnn__allocator;

void wnn__allocator_init(wnn__allocator *a, const wnn__backend *be, wnn__device *dev, uint64_t limit);
/* Frees every cached block; blocks still in use are the caller's bug. */
void wnn__allocator_fini(wnn__allocator *a);

/* A block of at least bytes (> 0) bytes; *block_size receives the size class
** it came from, which must be passed back to free. */
wnn_status wnn__allocator_alloc(wnn__allocator *a, size_t bytes, void **ptr, size_t *block_size);
void wnn__allocator_free(wnn__allocator *a, void *ptr, size_t block_size);
/* Gives every cached block back to the device. */
void wnn__allocator_trim(wnn__allocator *a);
/* Directions of a copy, for the statistics. */
typedef enum wnn__copy_direction {
    WNN__COPY_TO_DEVICE,
    WNN__COPY_TO_HOST,
    WNN__COPY_ON_DEVICE
} wnn__copy_direction;

/* The one way core and backends copy between host and device memory: rolls
** the fault-injection die (wnn__fault_inject), asks a's backend for the copy
** (copy_to_device, copy_to_host or copy_on_device) and counts it in a's
** statistics. Unified-memory devices have no copy entries: callers copy
** those with memcpy and count them with wnn__allocator_count_copy(). */
wnn_status wnn__memory_copy(wnn__allocator *a, wnn__copy_direction dir, void *dst, const void *src, size_t n);
/* A new block of a holding a copy of n bytes of src (a graph's constants):
** wnn__allocator_alloc() then wnn__memory_copy() to the device. */
wnn_status wnn__memory_upload(wnn__allocator *a, const void *src, size_t n, void **ptr, size_t *block_size);
/* Counts a copy made without the backend's copy entries (DLPack's strided
** gathers). */
void wnn__allocator_count_copy(wnn__allocator *a, wnn__copy_direction dir, size_t bytes);
void wnn__allocator_stats(wnn__allocator *a, wnn_memory_stats *out);

/* The size class of a request: powers of two from 256 bytes to 1 MiB, then
** multiples of 1 MiB, so a cached block wastes at most half (small) or
** 1 MiB (large). */
size_t wnn__size_class(size_t bytes);

/* Test-only fault injection: the nth device allocation / copy from now
** (1-based) fails; 0 disables. Process-wide. */
void wnn__fault_inject(uint64_t nth_alloc, uint64_t nth_copy);
bool wnn__fault_alloc_now(void);
bool wnn__fault_copy_now(void);
/* Whether an injected fault is still armed (its event has not come yet). */
bool wnn__fault_armed(void);

#endif
