/* SPDX-License-Identifier: Apache-2.0 */
/*
** cpus.h -- how many CPUs this process may actually run on.
**
** The cores online are not that number in a container or under taskset: the
** process may be confined to some of them (its affinity mask) or given a CPU
** quota (a cgroup's cpu.max, or cfs_quota_us in cgroup v1) of fewer cores'
** time than it can see. A team of one thread per visible core then spends the
** quota early in each period, spinning, and is stopped for the rest of it.
*/
#ifndef WNN_PLATFORM_CPUS_H
#define WNN_PLATFORM_CPUS_H

#include <stddef.h>

/* The CPUs this process may use: the least of the cores online, the CPUs in
** its affinity mask and its cgroup's quota rounded up (>= 1). Read again on
** every call. */
size_t wnn__cpus_usable(void);

/* The cgroup CPU quota in whole CPUs, rounded up, or 0 when there is none.
** proc_cgroup is the text of /proc/self/cgroup; fs_root the folder where
** cgroups are mounted ("/sys/fs/cgroup"). Reads cgroup v2's cpu.max in the
** process's cgroup and every ancestor (the least wins), or cgroup v1's
** cpu.cfs_quota_us / cpu.cfs_period_us in its cpu controller's folder; where
** the process's own folder is not visible (a cgroup namespace shows only
** its root), the mount's root. Tests pass a folder of their own. */
size_t wnn__cpus_quota(const char *proc_cgroup, const char *fs_root);

#endif
