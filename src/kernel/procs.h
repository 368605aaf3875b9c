/* SPDX-License-Identifier: MIT */
/* Iterate processes under proc/, tolerating ones that exit mid-scan. */
#ifndef THPCTL_PROCS_H
#define THPCTL_PROCS_H

#include <sys/types.h>

#include "sysroot.h"

/*
 * List the numeric entries of proc/ into *PIDS (malloc'd, sorted ascending).
 * Returns the count, or -errno if proc/ cannot be opened.
 */
int procs_list(const struct sysroot *sr, pid_t **pids);

/*
 * The process tree under ROOT: ROOT, then its descendants breadth-first from
 * proc/PID/task/TID/children (3.5+, CONFIG_PROC_CHILDREN), into OUT (at most
 * MAX). Returns the count (1 when the children files are absent), or
 * -ESRCH when ROOT is gone.
 */
int procs_tree(const struct sysroot *sr, pid_t root, pid_t *out, int max);

#endif
