/* SPDX-License-Identifier: MIT */
/*
 * lab chase's verdict over its sizes (pure, apart from exp_chase.c so that
 * the wording and its length are unit-tested): each size's clause
 * (lab_faster_clause) and the headline call.
 */
#ifndef THPCTL_LAB_CHASE_VERDICT_H
#define THPCTL_LAB_CHASE_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "lab.h"

/* What one size of a chase showed. */
struct chase_size_res {
	uint64_t size;		     /* bytes */
	bool ran, verified;	     /* timed; both backings as named (smaps) before timing */
	double huge, small;	     /* medians, ns per access */
	int call;		     /* enum faster_call */
	int runs;		     /* runs made at this size */
	long faults;		     /* page faults of the walking thread inside the timed walks */
	char clause[LAB_CLAUSE_LEN]; /* lab_faster_clause() */
};

/*
 * R's verdict over the NSIZES results RES (NRAN of them timed): the
 * largest size's call leads, unless huge was slower at any size; "as
 * expected" needs huge faster there on verified backing with no page fault
 * inside the timed walks, or, in a GUEST, no difference beyond +-10% too
 * (nested paging: the TLB holds 2 MiB only where the host backs the memory
 * with huge pages as well, which a guest cannot see; this project's guest
 * measured -2.7% to 21.2% from one run to the next, 5.5% in the middle).
 * Sets R->inconclusive when the leading call is undecided (too few runs,
 * noise, no interval). Every size's clause is in it, whole
 * (LAB_VERDICT_LEN holds LAB_MAX_SIZES of the longest).
 */
void chase_verdict(struct lab_result *r, const struct chase_size_res *res, int nsizes, int nran,
		   bool guest);

#endif
