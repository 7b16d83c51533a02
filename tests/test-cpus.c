/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-cpus.c -- the default thread count follows the CPUs the process may
** use: its affinity mask and its cgroup's CPU quota (platform/cpus.c), read
** from cgroup folders this test writes itself.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "test.h"

#include "platform/cpus.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_root[256];

static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_root, rel);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void dir(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_root, rel);
    CHECK(mkdir(path, 0700) == 0);
}

static void rm_tree(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    CHECK(system(cmd) == 0);
}

static void check_v2(void)
{
    dir("v2");
    dir("v2/kube");
    dir("v2/kube/pod");
    char root[300];
    snprintf(root, sizeof root, "%s/v2", g_root);

    /* no cpu.max anywhere (a host's root cgroup): no quota */
    CHECK_EQ_INT(wnn__cpus_quota("0::/kube/pod\n", root), 0);
    put("v2/kube/pod/cpu.max", "max 100000\n");
    CHECK_EQ_INT(wnn__cpus_quota("0::/kube/pod\n", root), 0);
    /* 2.5 CPUs' time rounds up to 3 */
    put("v2/kube/pod/cpu.max", "250000 100000\n");
    CHECK_EQ_INT(wnn__cpus_quota("0::/kube/pod\n", root), 3);
    /* an ancestor's smaller quota wins */
    put("v2/kube/cpu.max", "100000 100000\n");
    CHECK_EQ_INT(wnn__cpus_quota("0::/kube/pod\n", root), 1);
    put("v2/kube/cpu.max", "max 100000\n");
    /* a fraction of one CPU is still one thread */
    put("v2/kube/pod/cpu.max", "20000 100000\n");
    CHECK_EQ_INT(wnn__cpus_quota("0::/kube/pod\n", root), 1);
    /* in a cgroup namespace the process sees "/" and the mount's root */
    put("v2/cpu.max", "400000 100000\n");
    CHECK_EQ_INT(wnn__cpus_quota("0::/\n", root), 4);
    /* a path the mount does not show: the root's quota */
    CHECK_EQ_INT(wnn__cpus_quota("0::/elsewhere/deep\n", root), 4);
    CHECK_EQ_INT(wnn__cpus_quota("0::/../../x\n", root), 4);
    /* malformed text is no quota, never a crash */
    put("v2/cpu.max", "lots\n");
    CHECK_EQ_INT(wnn__cpus_quota("0::/\n", root), 0);
    put("v2/cpu.max", "-5 100000\n");
    CHECK_EQ_INT(wnn__cpus_quota("0::/\n", root), 0);
    put("v2/cpu.max", "100000 0\n");
    CHECK_EQ_INT(wnn__cpus_quota("0::/\n", root), 0);
    CHECK_EQ_INT(wnn__cpus_quota("", root), 0);
    CHECK_EQ_INT(wnn__cpus_quota("garbage without colons", root), 0);
    CHECK_EQ_INT(wnn__cpus_quota(NULL, root), 0);
}

static void check_v1(void)
{
    dir("v1");
    dir("v1/cpu,cpuacct");
    dir("v1/cpu,cpuacct/docker");
    dir("v1/cpu,cpuacct/docker/abc");
    dir("v1/memory");
    char root[300];
    snprintf(root, sizeof root, "%s/v1", g_root);
    const char *cg = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n";

    put("v1/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
    put("v1/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
    CHECK_EQ_INT(wnn__cpus_quota(cg, root), 0);
    put("v1/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "600000\n");
    CHECK_EQ_INT(wnn__cpus_quota(cg, root), 6);
    put("v1/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "50000\n");
    CHECK_EQ_INT(wnn__cpus_quota(cg, root), 12);
    /* cpuacct alone is not the cpu controller */
    CHECK_EQ_INT(wnn__cpus_quota("4:cpuacct:/docker/abc\n", root), 0);
    /* a hybrid system: a v2 line beside the v1 cpu controller */
    CHECK_EQ_INT(wnn__cpus_quota("4:cpu,cpuacct:/docker/abc\n0::/\n", root), 12);
}

int main(void)
{
    snprintf(g_root, sizeof g_root, "/tmp/wnn-test-cpus-%ld", (long)getpid());
    CHECK(mkdir(g_root, 0700) == 0);
    check_v2();
    check_v1();
    rm_tree();

    /* this process: at least one, never more than the cores online or its mask */
    size_t n = wnn__cpus_usable();
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    CHECK(n >= 1);
    CHECK((long)n <= online);
    CHECK((int)n <= CPU_COUNT(&set));
    if (!getenv("WNN_NUM_THREADS"))
        CHECK_EQ_INT(wnn_num_threads(), n); /* the default count, and the pool started with it */

    /* confined to one CPU, the default count follows (when no setting says) */
    if (!getenv("WNN_NUM_THREADS") && CPU_COUNT(&set) > 1) {
        cpu_set_t one;
        CPU_ZERO(&one);
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) {
                CPU_SET(c, &one);
                break;
            }
        CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
        CHECK_EQ_INT(wnn__cpus_usable(), 1);
        CHECK_OK(wnn_set_num_threads(0));
        CHECK_EQ_INT(wnn_num_threads(), 1);
        CHECK(sched_setaffinity(0, sizeof set, &set) == 0);
        CHECK_OK(wnn_set_num_threads(0));
        CHECK_EQ_INT(wnn_num_threads(), n);
    } else {
        printf("skip: the affinity check needs 2 CPUs and WNN_NUM_THREADS unset\n");
    }
    TEST_DONE();
}
