/* SPDX-License-Identifier: Apache-2.0 */
/*
** pool.h -- a process-wide pool of worker threads for data-parallel kernels.
*/
#ifndef WNN_PLATFORM_POOL_H
#define WNN_PLATFORM_POOL_H

#include <stddef.h>

typedef void (*wnn__range_fn)(void *arg, size_t begin, size_t end);

/* Calls fn(arg, begin, end) over disjoint ranges covering [0, n), spread over
** the cores when n / grain > 1, and returns when all ranges are done. Ranges
** are at least grain long (except the last). Safe to call from several
** threads; nested calls run inline. */
void wnn__parallel_for(size_t n, size_t grain, wnn__range_fn fn, void *arg);

/* Number of threads parallel_for may use (>= 1). WNN_NUM_THREADS overrides. */
size_t wnn__pool_size(void);
/* Sets the threads later jobs (and OpenBLAS) use: n (at most
** WNN_MAX_THREADS, checked by the caller), or 0 for the default. */
void wnn__pool_set_threads(size_t n);

#endif
