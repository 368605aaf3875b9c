/* SPDX-License-Identifier: MIT */
/* `thpctl ps --by cgroup`: the rows ps collected, summed per memory cgroup. */
#ifndef THPCTL_CMD_PS_BY_H
#define THPCTL_CMD_PS_BY_H

#include "../render/ps.h"
#include "cmd.h"

/*
 * Group R's rows by the memory cgroup whose cgroup.procs lists them
 * (kernel/cgroup_stat.h, the hierarchy `thpctl cgroups` reads) and print the
 * table or JSON. Returns the exit code.
 */
int ps_by_cgroup(struct globals *g, const struct ps_report *r);

/*
 * --cgroup CGROUP: the PIDs of its cgroup.procs and its descendants' (kernel/cgroup_procs.h),
 * sorted, into *PIDS (malloc'd) and *N. EXIT_OK, or EXIT_FAIL after a message naming the path.
 */
int ps_cgroup_pids(struct globals *g, const char *cgroup, pid_t **pids, size_t *n);

/* AnonHugePages of proc/meminfo (host-wide, kB) into *KB; false when unreadable. */
bool host_ahp_kb(struct globals *g, uint64_t *kb);

/*
 * --pid: of the N PIDs asked for, those R does not show and that have no memory (none there, a
 * kernel thread, ...: cmd_pid_mm says which, one message each on stderr). Returns their count.
 */
size_t ps_pids_absent(struct globals *g, const pid_t *pids, size_t n, const struct ps_report *r);

/*
 * The shmem policies (shmem_enabled and hugepages-<PMD>kB/shmem_enabled, read once, on the first
 * call: ps reads them only when a process has MADV_HUGEPAGE shmem); NULL when unreadable.
 */
const struct shmem_rules *ps_shmem_rules(struct globals *g);

#endif
