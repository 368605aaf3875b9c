/* SPDX-License-Identifier: MIT */
/*
 * The TLB step of `thpctl lab tlb` (lmbench tlb(8)'s method), found in a
 * recorded sweep: per point N (pages of the tested size touched by the
 * sparse chain), the excess of the sparse chain's ns/access over the dense
 * chain's, one sample per interleaved pair of measurements. Pure.
 */
#ifndef THPCTL_MODEL_TLBSTEP_H
#define THPCTL_MODEL_TLBSTEP_H

#include <stddef.h>
#include <stdint.h>

#include "../util/stats.h"

#define TLB_MAX_POINTS 24

/* One point of a sweep: N pages, the excess samples sparse - dense (ns). */
struct tlb_point {
	uint64_t pages;
	size_t n;
	double excess[STATS_MW_MAX];
};

enum tlb_step_call {
	TLB_STEP_FOUND,	    /* a lasting rise over the smallest N's excess */
	TLB_STEP_NONE,	    /* no rise up to the largest N: reach at least that */
	TLB_STEP_UNDECIDED, /* too few points or samples for intervals */
};

struct tlb_step {
	enum tlb_step_call call;
	int at;			 /* FOUND: index of the first raised point (-1 otherwise) */
	uint64_t reach_pages;	 /* FOUND: the largest N before the step; NONE: the largest N */
	uint64_t reach_hi_pages; /* FOUND: the first N after it (reach < this) */
	int blips;		 /* raised points before the step that did not last (noise) */
	/* the gap at the largest N over the smallest N's excess (ns, measured), 95% interval */
	uint64_t gap_pages;
	double gap_ns, gap_lo, gap_hi;
	bool gap_ok; /* the interval exists */
	/*
	 * FOUND: the cost of one miss (ns, estimate): the gap divided by the
	 * share of accesses that miss in a random cycle over gap_pages with
	 * reach_pages entries, 1 - reach/gap_pages. 0 when not FOUND.
	 */
	double penalty_ns, penalty_lo, penalty_hi;
};

/*
 * Find the step in the N points P (ascending pages, at least 3): a point is
 * raised when the 95% interval (stats_diff_ci, Hodges-Lehmann) of its excess
 * over point 0's lies wholly above MIN_NS; the step is the first raised point
 * after which every point is raised. No step is TLB_STEP_NONE (never a
 * made-up reach); a point without an interval makes it TLB_STEP_UNDECIDED.
 * Returns 0 or -EINVAL (bad input: order, counts, N).
 */
int tlb_step_find(const struct tlb_point *p, int n, double min_ns, struct tlb_step *out);

#endif
