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
 * The shmem policies (shmem_enabled and hugepages-<PMD>kB/shmem_enabled, read once, on the first
 * call: ps reads them only when a process has MADV_HUGEPAGE shmem); NULL when unreadable.
 */
const struct shmem_rules *ps_shmem_rules(struct globals *g);

/* Whether the ps_report (folio_ps_report) CTX has a row of PID: cmd_pids_no_mm's SHOWN. */
bool ps_row_shown(const void *ctx, pid_t pid);
bool ps_folio_row_shown(const void *ctx, pid_t pid);

#endif
