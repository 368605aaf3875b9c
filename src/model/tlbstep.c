// SPDX-License-Identifier: MIT
#include "tlbstep.h"

#include <errno.h>
#include <string.h>

static int check(const struct tlb_point *p, int n)
{
	if (n < 3 || n > TLB_MAX_POINTS)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if (!p[i].pages || !p[i].n || p[i].n > STATS_MW_MAX ||
		    (i && p[i].pages <= p[i - 1].pages))
			return -EINVAL;
	return 0;
}

/* The gap at the last point and, for a step, the penalty per miss. */
static void gap(const struct tlb_point *p, int n, struct tlb_step *o)
{
	struct ratio_ci ci;
	const struct tlb_point *last = &p[n - 1];
	o->gap_pages = last->pages;
	if (stats_diff_ci(p[0].excess, p[0].n, last->excess, last->n, 0.95, &ci))
		return;
	o->gap_ns = ci.est;
	o->gap_ok = ci.ok;
	o->gap_lo = ci.lo;
	o->gap_hi = ci.hi;
	if (o->call != TLB_STEP_FOUND || last->pages <= o->reach_pages)
		return;
	double miss = 1 - (double)o->reach_pages / (double)last->pages;
	o->penalty_ns = ci.est / miss;
	o->penalty_lo = ci.lo / miss;
	o->penalty_hi = ci.hi / miss;
}

int tlb_step_find(const struct tlb_point *p, int n, double min_ns, struct tlb_step *out)
{
	memset(out, 0, sizeof(*out));
	out->at = -1;
	out->call = TLB_STEP_UNDECIDED;
	if (check(p, n))
		return -EINVAL;
	bool raised[TLB_MAX_POINTS] = {false};
	bool decided = true;
	for (int i = 1; i < n; i++) {
		struct ratio_ci ci;
		if (stats_diff_ci(p[0].excess, p[0].n, p[i].excess, p[i].n, 0.95, &ci))
			return -EINVAL;
		decided &= ci.ok;
		raised[i] = ci.ok && ci.lo > min_ns;
	}
	if (!decided)
		return 0;
	int at = -1;
	for (int i = n - 1; i >= 1 && raised[i]; i--)
		at = i;
	if (at < 0) {
		out->call = TLB_STEP_NONE;
		out->reach_pages = p[n - 1].pages;
		for (int i = 1; i < n; i++)
			out->blips += raised[i];
	} else {
		out->call = TLB_STEP_FOUND;
		out->at = at;
		out->reach_pages = p[at - 1].pages;
		out->reach_hi_pages = p[at].pages;
		for (int i = 1; i < at; i++)
			out->blips += raised[i];
	}
	gap(p, n, out);
	return 0;
}
