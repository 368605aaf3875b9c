/* SPDX-License-Identifier: MIT */
/* The allocator of one process (model/alloc.h) for ps, why and the exporter. */
#ifndef THPCTL_CMD_ALLOC_H
#define THPCTL_CMD_ALLOC_H

#include <sys/types.h>

#include "../kernel/sysroot.h"
#include "../model/alloc.h"

/*
 * Collect process PID's allocator evidence (kernel/proc_alloc.h) and its
 * environment (supporting evidence; root for another user's), and decide
 * into A. Returns 0, -ESRCH (gone), or -ENOMEM.
 */
int alloc_collect(const struct sysroot *sr, pid_t pid, struct alloc_fact *a);

struct alloc_raw;
/*
 * alloc_collect, for a process whose whole smaps walk gave its VMAs to RAW
 * (proc_thp_collect_lv's ALLOC): maps is not read again. Returns as
 * alloc_collect.
 */
int alloc_collect_walked(const struct sysroot *sr, pid_t pid, struct alloc_raw *raw,
			 struct alloc_fact *a);

#endif
