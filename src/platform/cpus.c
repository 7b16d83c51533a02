/* SPDX-License-Identifier: Apache-2.0 */
/*
** cpus.c -- the CPUs this process may use (cpus.h).
**
** Why the quota matters to the cpu device: its OpenMP team's threads spin for
** a while after each parallel region, waiting for the next. Given a thread
** per core online in a container whose quota is a few cores' time, the team
** spends the period's quota early and every thread is stopped until the next
** period, so a graph of short regions would run slower than on fewer threads
** (reasoned, not measured: the machines this project measures on have no
** quota). Go's runtime and .NET count the quota the same way (rounded up).
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif

#include "platform/cpus.h"

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Enough for any cgroup path worth reading; longer ones count as absent. */
#define CPUS_PATH_MAX 1024

/* Reads at most cap - 1 bytes of path into buf; false when it cannot. */
static bool read_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n > 0;
}

/* ceil(quota / period) when both are positive, else 0 (no quota). */
static size_t whole_cpus(long long quota, long long period)
{
    if (quota <= 0 || period <= 0)
        return 0;
    long long n = (quota + period - 1) / period;
    return n < 1 ? 1 : (size_t)n;
}

/* The least of two quotas, 0 meaning none. */
static size_t least(size_t a, size_t b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    return a < b ? a : b;
}

/* Joins root and rel into out; false when it does not fit or rel climbs. */
static bool join(char *out, const char *root, const char *rel)
{
    if (strstr(rel, ".."))
        return false;
    int n = snprintf(out, CPUS_PATH_MAX, "%s%s", root, rel);
    if (n < 0 || n >= CPUS_PATH_MAX)
        return false;
    size_t len = strlen(out);
    while (len > strlen(root) && out[len - 1] == '/')
        out[--len] = '\0';
    return true;
}

/* Drops dir's last component; false once dir is root. */
static bool climb(char *dir, const char *root)
{
    size_t rlen = strlen(root), len = strlen(dir);
    if (len <= rlen)
        return false;
    while (len > rlen && dir[len - 1] != '/')
        len--;
    while (len > rlen && dir[len - 1] == '/')
        len--;
    dir[len] = '\0';
    return true;
}

/* cgroup v2: "max 100000" or "<quota> <period>" in cpu.max. */
static size_t v2_quota_at(const char *dir)
{
    char path[CPUS_PATH_MAX + 16], text[128];
    snprintf(path, sizeof path, "%s/cpu.max", dir);
    if (!read_text(path, text, sizeof text) || strncmp(text, "max", 3) == 0)
        return 0;
    long long quota = 0, period = 0;
    if (sscanf(text, "%lld %lld", &quota, &period) != 2)
        return 0;
    return whole_cpus(quota, period);
}

/* cgroup v1: cpu.cfs_quota_us (-1: none) over cpu.cfs_period_us. */
static size_t v1_quota_at(const char *dir)
{
    char path[CPUS_PATH_MAX + 32], text[64];
    long long quota = 0, period = 0;
    snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
    if (!read_text(path, text, sizeof text) || sscanf(text, "%lld", &quota) != 1)
        return 0;
    snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
    if (!read_text(path, text, sizeof text) || sscanf(text, "%lld", &period) != 1)
        return 0;
    return whole_cpus(quota, period);
}

/* The least quota from the process's folder (or, when that is not visible,
** the mount's root) up to the mount's root. */
static size_t walk_up(const char *mount, const char *rel, size_t (*at)(const char *))
{
    char dir[CPUS_PATH_MAX];
    if (!join(dir, mount, rel) || access(dir, F_OK) != 0)
        snprintf(dir, sizeof dir, "%s", mount);
    size_t q = 0;
    do
        q = least(q, at(dir));
    while (climb(dir, mount));
    return q;
}

/* Whether the comma-separated list names controller "cpu". */
static bool lists_cpu(const char *list, size_t len)
{
    const char *p = list, *end = list + len;
    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        size_t n = (size_t)((comma ? comma : end) - p);
        if (n == 3 && memcmp(p, "cpu", 3) == 0)
            return true;
        p += n + 1;
    }
    return false;
}

size_t wnn__cpus_quota(const char *proc_cgroup, const char *fs_root)
{
    if (!proc_cgroup || !fs_root)
        return 0;
    size_t q = 0;
    const char *line = proc_cgroup;
    while (*line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        /* hierarchy-id:controllers:path */
        const char *c1 = memchr(line, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            char rel[CPUS_PATH_MAX];
            size_t plen = len - (size_t)(c2 + 1 - line);
            if (plen < sizeof rel) {
                memcpy(rel, c2 + 1, plen);
                rel[plen] = '\0';
                char mount[CPUS_PATH_MAX];
                if (c2 == c1 + 1 && strncmp(line, "0:", 2) == 0) {
                    q = least(q, walk_up(fs_root, rel, v2_quota_at));
                } else if (lists_cpu(c1 + 1, (size_t)(c2 - c1 - 1))) {
                    /* v1 mounts the cpu controller under one of these names */
                    static const char *const names[] = {"cpu", "cpu,cpuacct", "cpuacct,cpu"};
                    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
                        snprintf(mount, sizeof mount, "%s/%s", fs_root, names[i]);
                        if (access(mount, F_OK) == 0) {
                            q = least(q, walk_up(mount, rel, v1_quota_at));
                            break;
                        }
                    }
                }
            }
        }
        if (!eol)
            break;
        line = eol + 1;
    }
    return q;
}

size_t wnn__cpus_usable(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = online > 0 ? (size_t)online : 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int in_mask = CPU_COUNT(&set);
        if (in_mask > 0 && (size_t)in_mask < n)
            n = (size_t)in_mask;
    }
    char text[4096];
    if (read_text("/proc/self/cgroup", text, sizeof text)) {
        size_t q = wnn__cpus_quota(text, "/sys/fs/cgroup");
        if (q && q < n)
            n = q;
    }
    return n;
}
