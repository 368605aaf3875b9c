/* SPDX-License-Identifier: MIT */
/*
 * The calls of `lab shrinker` (pure): whether one phase split its child's
 * THPs, from two measures that must agree, the child's own AnonHugePages
 * (smaps) and the host-wide thp_underused_split_page; then the two claims
 * and the verdict.
 */
#ifndef THPCTL_LAB_SHRINKER_CALLS_H
#define THPCTL_LAB_SHRINKER_CALLS_H

#include <stdbool.h>

#include "lab.h"

/* The most phases (max_ptes_none values) one run makes: 511, 64 and 0, or as found and N. */
#define LAB_MAX_PHASES 4

struct sh_phase {
	long mpn;
	bool ok;	   /* both measures read */
	double thps;	   /* the child's PMD THPs before the pressure */
	double ahp0, ahp1; /* its AnonHugePages before and after, kB */
	double split;	   /* thp_underused_split_page delta (host-wide) */
	bool pressed; /* the pressure reached reclaim (sh_pressed): else "kept" proves nothing */
};

/*
 * Whether writing the pressure (kernel/memcg_lab.h memcg_lab_pressure) made the kernel reclaim
 * in the cgroup, from the write's result ERR (0 or -errno): taken (0); v1's limit refused with
 * -EBUSY, which mm/memcontrol-v1.c mem_cgroup_resize_max returns when its reclaim cannot bring
 * the usage under it: try_to_free_mem_cgroup_pages, shrinkers included, ran and freed nothing more;
 * v2's memory.reclaim -EAGAIN, reclaim that fell short of the request.
 * Any other error: no reclaim is known to have run.
 */
bool sh_pressed(int err);

/*
 * Did phase P split its THPs? Confirmed: AnonHugePages fell to 10% or less
 * and the counter rose by at least 90% of the THPs; contradicted: it stayed
 * at 90% or more and the counter did not move, under pressure (P->pressed);
 * otherwise (the measures disagree, nothing read, no THP made, kept without
 * pressure) inconclusive.
 */
enum claim_call sh_split_call(const struct sh_phase *p);

/*
 * The claims on the N phases P (one at the top max_ptes_none, the others
 * below it) and the verdict into R: THPs made in every phase, and what each
 * phase did.
 */
void sh_claims_and_verdict(struct lab_result *r, const struct sh_phase *p, int n);

#endif
