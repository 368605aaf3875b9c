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
 * The cgroup PATH names, as cgroup_rel() gives it, or else PATH in the memory
 * hierarchy of cgroup v1 (sys/fs/cgroup/memory) or of a hybrid host
 * (sys/fs/cgroup/unified): the paths `thpctl cgroups` and `ps --by cgroup`
 * print are relative to it ("/" is its root). A path that names
 * sys/fs/cgroup itself is taken as it is. Into OUT (N bytes). Returns 0,
 * -ENOENT when none has a cgroup.procs (OUT: cgroup_rel's), or -ENAMETOOLONG.
 */
int cgroup_find(const struct sysroot *sr, const char *path, char *out, size_t n);

/*
 * Every PID in cgroup.procs of REL (from cgroup_rel) and of the cgroups below
 * it, into *PIDS (malloc'd, sorted, no duplicates). Returns the count,
 * -ENOENT when REL has no cgroup.procs (not a cgroup), or -errno. Cgroups that
 * vanish during the walk are skipped.
 */
int cgroup_pids(const struct sysroot *sr, const char *rel, pid_t **pids);

#endif
