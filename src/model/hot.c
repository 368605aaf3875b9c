// SPDX-License-Identifier: MIT
#include "hot.h"

#include <string.h>

void hot_add(struct hot_sum *s, const struct smaps_totals *t)
{
	uint64_t ref = t->kb[SM_REFERENCED], rss = t->kb[SM_RSS], ahp = t->kb[SM_ANON_HUGE];
	s->hot_kb += ref;
	s->rss_kb += rss;
	s->ahp_kb += ahp;
	if (ref)
		s->vmas_hot++;
	if (ref && rss)
		s->hot_huge_kb += (double)ref * (double)(ahp < rss ? ahp : rss) / (double)rss;
}

bool hot_probe_lost(const struct hot_probe *p)
{
	return p && p->taken && p->touched_kb && p->ref_kb * 10 < p->touched_kb * 9;
}

void hot_judge(const struct hot_sum *s, const struct tlb_record *rec, uint64_t pmd_kb,
	       const struct hot_probe *p, bool guest_unsure, struct hot_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->abits_lost = hot_probe_lost(p);
	v->guest_unsure = guest_unsure;
	v->x4k = v->x2m = -1;
	v->huge_share = s->hot_kb ? s->hot_huge_kb / (double)s->hot_kb : 0;
	const struct tlb_calib *c4 = rec ? tlb_record_size(rec, 4) : NULL;
	const struct tlb_calib *c2 = rec ? tlb_record_size(rec, pmd_kb) : NULL;
	double hot_b = (double)s->hot_kb * 1024;
	if (c4 && c4->reach_b)
		v->x4k = hot_b / (double)c4->reach_b;
	if (c2 && c2->reach_b) {
		v->x2m = hot_b / (double)c2->reach_b;
		v->reach2m_lower = !c2->step;
	}
	bool low = !s->hot_kb || (v->x4k >= 0 && v->x4k <= 1);
	if (v->abits_lost && low)
		v->call = HOT_ABITS_LOST;
	else if (guest_unsure && low)
		v->call = HOT_GUEST_LOW;
	else if (!s->hot_kb)
		v->call = HOT_COLD;
	else if (v->x4k < 0)
		v->call = HOT_NO_CALIB;
	else if (v->x4k <= 1)
		v->call = HOT_FITS_4K;
	else if (v->huge_share >= 0.9)
		v->call = HOT_ALREADY_HUGE;
	else if (v->x2m > 1 && !v->reach2m_lower)
		v->call = HOT_BEYOND_2M;
	else
		v->call = HOT_LIKELY_GAIN;
}
