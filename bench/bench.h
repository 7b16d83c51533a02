/* SPDX-License-Identifier: Apache-2.0 */
/*
** bench.h -- timing helpers shared by the benchmarks: a monotonic clock and
** a "best of several repetitions" runner, so one noisy repetition on a busy
** machine does not decide the figure.
*/
#ifndef WNN_BENCH_BENCH_H
#define WNN_BENCH_BENCH_H

#include <stdio.h>
#include <time.h>

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Runs fn(arg, iters) `reps` times and returns the best time per iteration
** in nanoseconds. */
static inline double bench_best_ns(void (*fn)(void *, long), void *arg, long iters, int reps)
{
    double best = 1e300;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ns();
        fn(arg, iters);
        double dt = (bench_now_ns() - t0) / (double)iters;
        if (dt < best)
            best = dt;
    }
    return best;
}

static inline void bench_row(const char *what, double ours, const char *peer_name, double peer)
{
    printf("%-44s %12.1f ns   %-28s %12.1f ns   ratio %6.2f\n", what, ours, peer_name, peer, ours / peer);
}

#endif
