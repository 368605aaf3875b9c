/* SPDX-License-Identifier: MIT */
/*
 * One collection of the memory cgroups for `thpctl cgroups` and the exporter:
 * the tree (kernel/cgroup_stat.h), each cgroup's own processes and their THP
 * opt-outs (cgroup.procs + proc/PID/status, stat where status cannot tell), the host-wide
 * thp_fault_fallback_charge, and the report (model/cgroups.h).
 */
#ifndef THPCTL_CMD_CGROUPS_COLLECT_H
#define THPCTL_CMD_CGROUPS_COLLECT_H

#include <stddef.h>

#include "../kernel/cgroup_stat.h"
#include "../model/cgroups.h"

struct cg_collect {
	struct cg_tree t;
	struct cg_procs *procs; /* one per node of t */
	struct cg_report rep;	/* rows point into t */
};

/* How the exporter collects again and again (cg_collect's O; NULL: afresh). */
struct cg_collect_opt {
	const struct opt_u64 *fallback; /* thp_fault_fallback_charge already read, or NULL */
	struct cg_pid_cache *cache;	/* processes' facts kept between collections, or NULL */
	bool refresh;			/* read every process again (cg_tree_count_procs) */
};

/*
 * Read the cgroups of SR into C (zeroed by the caller, or freed with
 * cg_collect_free) and build the report with TOP rows shown (0: all).
 * Returns 0 (C->t.version 0: no memory controller) or -ENOMEM.
 */
int cg_collect(const struct sysroot *sr, size_t top, const struct cg_collect_opt *o,
	       struct cg_collect *c);

/* Free C's content (C may then be reused). */
void cg_collect_free(struct cg_collect *c);

#endif
