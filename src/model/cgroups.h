/* SPDX-License-Identifier: MIT */
/*
 * `thpctl cgroups`: the memory cgroups (kernel/cgroup_stat.h) with their
 * processes' THP opt-outs, sorted by anon THP, and the near-limit flag. No I/O.
 */
#ifndef THPCTL_MODEL_CGROUPS_H
#define THPCTL_MODEL_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>

#include "../kernel/cgroup_stat.h"

/* What the caller learnt of one node's own processes (cgroup.procs + proc/PID/status). */
struct cg_procs {
	int n;	     /* processes listed in its cgroup.procs, kernel threads left out */
	int thp_off; /* of them, THP_enabled 0 (prctl PR_SET_THP_DISABLE) */
	int unknown; /* of them, status unreadable or without THP_enabled (< 5.0), or not recorded */
	int unrecorded; /* of unknown, not in a recorded tree (a capture without them) */
};

/* A tri-state: the evidence says yes, no, or cannot decide. */
enum cg_tri { CG_NO, CG_YES, CG_UNKNOWN };

/* Usage at or above this share of memory.max counts as near the limit. */
#define CG_NEAR_LIMIT 0.90

/* Why a row's CURRENT, USE or THP/ANON is what it is (the text says it under the table). */
enum cg_why {
	CGW_SHOWN,	 /* the value is there */
	CGW_NO_LIMIT,	 /* USE: memory.max is "max", nothing to use up */
	CGW_NO_ANON,	 /* THP/ANON: anon is 0, no share */
	CGW_V2_ROOT,	 /* CURRENT: the v2 root has no memory.current */
	CGW_V1_ROOT_EST, /* CURRENT: shown, but the v1 root's memory.usage_in_bytes is the
			   * kernel's estimate for the whole host (page cache + anon, no kernel
			   * memory), not a charge counter: it can be below a child's */
	CGW_UNKNOWN,	 /* not readable or absent, or a value it needs is */
};

struct cg_row {
	const struct cg_node *node;
	enum cg_why current_why, use_why, share_why;
	bool procs_known;		    /* cgroup.procs read for it and every cgroup below */
	int nprocs, thp_off, procs_unknown; /* this cgroup and its descendants */
	int procs_unrecorded;		    /* of procs_unknown, not in a recorded tree */
	bool has_share;
	double share; /* anon_thp / anon, 0..1 (anon 0: no share) */
	bool has_use;
	double use;		    /* memory.current / memory.max, when limited */
	enum cg_tri near_limit_thp; /* use >= CG_NEAR_LIMIT with anon_thp > 0 */
};

struct cg_report {
	const struct cg_tree *tree;
	struct cg_row *rows; /* all cgroups, sorted: anon_thp descending (unknown last), path */
	size_t n;
	size_t shown;			/* the first SHOWN rows are printed (--top) */
	struct opt_u64 fallback_charge; /* host-wide vmstat thp_fault_fallback_charge (5.7+) */
	size_t nflagged; /* rows with near_limit_thp CG_YES, all of them (not only shown) */
};

/*
 * Build OUT from T and PROCS (one per node of T, may be NULL: processes
 * unknown), FALLBACK (host-wide, may be absent) and TOP (0: all rows).
 * Free with cg_report_free. Returns 0 or -ENOMEM.
 */
int cg_report_build(const struct cg_tree *t, const struct cg_procs *procs, struct opt_u64 fallback,
		    size_t top, struct cg_report *out);

void cg_report_free(struct cg_report *r);

/*
 * Why node N of T has the CURRENT it has: CGW_V2_ROOT (the v2 root, no memory.current),
 * CGW_V1_ROOT_EST (the v1 root's estimate), CGW_UNKNOWN (not read) or CGW_SHOWN.
 */
enum cg_why cg_current_why(const struct cg_tree *t, const struct cg_node *n);

/* The near-limit flag of one node (exposed for the unit tests). */
enum cg_tri cg_near_limit_thp(const struct cg_node *n, bool *has_use, double *use);

#endif
