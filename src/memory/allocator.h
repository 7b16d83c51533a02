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
void wnn__allocator_count_copy(wnn__allocator *a, int direction, size_t bytes);
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
