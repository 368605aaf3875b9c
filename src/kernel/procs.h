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

#endif
