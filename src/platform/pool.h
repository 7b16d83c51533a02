/* SPDX-License-Identifier: Apache-2.0 */
/*
** pool.h -- a process-wide pool of worker threads for data-parallel kernels.
*/
#ifndef WNN_PLATFORM_POOL_H
#define WNN_PLATFORM_POOL_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*wnn__range_fn)(void *arg, size_t begin, size_t end);

/* Calls fn(arg, begin, end) over disjoint ranges covering [0, n), spread over
** the cores when n / grain > 1, and returns when all ranges are done. Ranges
** are at least grain long (except the last). Safe to call from several
** threads; nested calls run inline. */
void wnn__parallel_for(size_t n, size_t grain, wnn__range_fn fn, void *arg);

/* Runs fn(arg) where its parallel work shares one team of threads with the
** libraries' (oneDNN's OpenMP regions, wnn__parallel_for): on the pool's
** master thread when the pool runs on an OpenMP team (pool.c), and waits for
** it; inline on the calling thread otherwise, or when the pool is busy with
** another thread's work. The cpu device runs whole graphs through it. */
void wnn__pool_call(void (*fn)(void *), void *arg);

/* Whether handing work to the OpenMP team's master costs two sleeps and
** wake-ups (pool.c: the pool and the caller leave no core spare for the
** hand-off's polls), tens of microseconds on a virtual machine: more than a
** small graph gains from the other threads. */
bool wnn__pool_handoff_sleeps(void);

/* Runs fn(arg) on the calling thread with no other: its parallel_for and
** pool_call run inline, and libraries called from it get one thread. */
void wnn__pool_run_alone(void (*fn)(void *), void *arg);

/* How many threads a library call made on this thread may use for its own
** parallel regions: the pool's count on the master (or with the pthread
** pool), 1 elsewhere when the pool runs on an OpenMP team, so that no second
** team starts beside the master's. */
size_t wnn__pool_threads_here(void);

/* Whether the pool runs on an OpenMP team (pool.c), settled at its start. */
bool wnn__pool_on_team(void);

/* Number of threads parallel_for may use (>= 1). WNN_NUM_THREADS overrides. */
size_t wnn__pool_size(void);
/* Sets the threads later jobs (and OpenBLAS) use: n (at most
** WNN_MAX_THREADS, checked by the caller), or 0 for the default. */
void wnn__pool_set_threads(size_t n);

#endif
