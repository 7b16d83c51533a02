/* SPDX-License-Identifier: Apache-2.0 */
/*
** cpu_profile.c -- the counters behind WNN_CPU_PROFILE (see cpu_profile.h).
*/
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "backends/cpu/cpu_profile.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/ops.h"
#include "platform/config.h"
#include "platform/pool.h"

#define ROWS (WNN__OP_COUNT + 3)

static struct {
    pthread_once_t once;
    atomic_ulong calls[ROWS];
    atomic_ulong ns[ROWS];
} g_prof = {.once = PTHREAD_ONCE_INIT};

static const char *row_name(int row)
{
    switch (row) {
    case WNN__CPU_PROFILE_ATTENTION: return "attention (fused)";
    case WNN__CPU_PROFILE_XNNPACK: return "conv2d (xnnpack)";
    case WNN__CPU_PROFILE_CHAIN: return "element-wise chain";
    default: return wnn__op_name((wnn__op)row);
    }
}

static void print(void)
{
    unsigned long total = 0;
    for (int row = 0; row < ROWS; row++)
        total += atomic_load(&g_prof.ns[row]);
    fprintf(stderr, "wnn cpu profile (WNN_CPU_PROFILE): %.3f ms in operators, %u threads\n", total / 1e6,
            (unsigned)wnn__pool_size());
    fprintf(stderr, "%-24s %10s %12s %10s %6s\n", "operator", "calls", "total ms", "mean us", "share");
    bool shown[ROWS] = {false};
    for (;;) {
        int best = -1;
        for (int row = 0; row < ROWS; row++)
            if (!shown[row] && atomic_load(&g_prof.calls[row]) &&
                (best < 0 || atomic_load(&g_prof.ns[row]) > atomic_load(&g_prof.ns[best])))
                best = row;
        if (best < 0)
            break;
        shown[best] = true;
        unsigned long calls = atomic_load(&g_prof.calls[best]), ns = atomic_load(&g_prof.ns[best]);
        fprintf(stderr, "%-24s %10lu %12.3f %10.2f %5.1f%%\n", row_name(best), calls, ns / 1e6,
                ns / 1e3 / (double)calls, total ? 100.0 * ns / total : 0.0);
    }
}

static void start(void) { atexit(print); }

bool wnn__cpu_profile_on(void)
{
    if (!wnn__config_get()->cpu_profile)
        return false;
    pthread_once(&g_prof.once, start);
    return true;
}

uint64_t wnn__cpu_profile_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void wnn__cpu_profile_add(int row, uint64_t since)
{
    atomic_fetch_add_explicit(&g_prof.calls[row], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_prof.ns[row], wnn__cpu_profile_now() - since, memory_order_relaxed);
}
