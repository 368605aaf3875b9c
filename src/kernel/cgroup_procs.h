/* SPDX-License-Identifier: MIT */
/* The processes of a cgroup and its descendants, from cgroup.procs (v1 and v2). */
#ifndef THPCTL_CGROUP_PROCS_H
#define THPCTL_CGROUP_PROCS_H

#include <stddef.h>
#include <sys/types.h>

#include "sysroot.h"

/*
 * The sysroot-relative directory of cgroup PATH: "/sys/fs/cgroup/memory/x",
 * "sys/fs/cgroup/x" and "memory/x" (taken under sys/fs/cgroup) all work.
 * Returns 0, or -ENAMETOOLONG.
 */
int cgroup_rel(const char *path, char *out, size_t n);

/*
 * Every PID in cgroup.procs of REL (from cgroup_rel) and of the cgroups below
 * it, into *PIDS (malloc'd, sorted, no duplicates). Returns the count,
 * -ENOENT when REL has no cgroup.procs (not a cgroup), or -errno. Cgroups that
 * vanish during the walk are skipped.
 */
int cgroup_pids(const struct sysroot *sr, const char *rel, pid_t **pids);

#endif
