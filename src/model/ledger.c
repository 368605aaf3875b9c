// SPDX-License-Identifier: MIT
#include "ledger.h"

#include <errno.h>
#include <string.h>

#include "../util/names.h"

bool ledger_is_bloated(int64_t invented_kb, int64_t huge_kb)
{
	return invented_kb > LEDGER_BLOAT_MIN_KB && huge_kb > 0 && invented_kb * 4 > huge_kb;
}

static enum ledger_gap gap_of(int err)
{
	if (!err)
		return LG_OK;
	if (err == -EACCES || err == -EPERM)
		return LG_DENIED;
	if (err == -ENOTTY || err == -EINVAL || err == -EOPNOTSUPP)
		return LG_NO_SCAN;
	return LG_ERROR;
}

static bool gap_known(enum ledger_gap g)
{
	return g == LG_OK || g == LG_NOT_ASKED;
}

bool ledger_whole(const struct thp_ledger *l)
{
	return gap_known(l->invented_gap) && gap_known(l->held_gap) && gap_known(l->creep_gap);
}

void ledger_unknown(int64_t ahp_kb, struct thp_ledger *l)
{
	memset(l, 0, sizeof(*l));
	l->huge_kb = ahp_kb;
	l->invented_kb = l->held_kb = l->creep_kb = l->creep_eighth_kb = -1;
	l->invented_gap = l->held_gap = l->creep_gap = LG_NOT_ASKED;
	l->max_ptes_none = -1;
	l->rss_kb = l->lazyfree_kb = l->referenced_kb = l->pte_full_kb = -1;
	l->cg_headroom_kb = l->creep_bound_kb = -1;
}

void ledger_creep_cg(struct thp_ledger *l, enum ledger_cg cg, uint64_t headroom_bytes, bool starved)
{
	l->creep_cg = cg;
	l->cg_headroom_kb = l->creep_bound_kb = -1;
	l->cg_starved = l->creep_cg_bounded = false;
	if (cg != LCG_LIMITED)
		return;
	l->cg_headroom_kb = (int64_t)(headroom_bytes / 1024); /* < 2^54: fits */
	l->cg_starved = starved;
	if (l->creep_kb < 0)
		return;
	l->creep_cg_bounded = l->cg_headroom_kb < l->creep_kb;
	l->creep_bound_kb = l->creep_cg_bounded ? l->cg_headroom_kb : l->creep_kb;
}

void ledger_smaps(struct thp_ledger *l, const struct smaps_totals *t)
{
	if (!t)
		return;
	if (smaps_has(t, SM_ANON_HUGE))
		l->huge_kb = (int64_t)t->kb[SM_ANON_HUGE];
	l->rss_kb = smaps_has(t, SM_RSS) ? (int64_t)t->kb[SM_RSS] : -1;
	l->lazyfree_kb = smaps_has(t, SM_LAZYFREE) ? (int64_t)t->kb[SM_LAZYFREE] : -1;
	l->referenced_kb = smaps_has(t, SM_REFERENCED) ? (int64_t)t->kb[SM_REFERENCED] : -1;
	l->bloated = ledger_is_bloated(l->invented_kb, l->huge_kb);
}

const char *ledger_cost_name(enum ledger_cost c)
{
	static const char *const names[] = {[LC_NONE] = "none",
					    [LC_INVENTED] = "invented",
					    [LC_HELD] = "held",
					    [LC_CREEP] = "creep",
					    [LC_LAZYFREE] = "lazyfree"};
	return ENUM_NAME(names, c, "?");
}

int64_t ledger_cost_kb(const struct thp_ledger *l, enum ledger_cost c)
{
	switch (c) {
	case LC_INVENTED:
		return l->invented_kb;
	case LC_HELD:
		return l->held_kb;
	case LC_CREEP:
		return l->creep_kb;
	case LC_LAZYFREE:
		return l->lazyfree_kb;
	default:
		return -1;
	}
}

bool ledger_cost_flagged(const struct thp_ledger *l, enum ledger_cost c)
{
	int64_t kb = ledger_cost_kb(l, c);
	if (kb <= LEDGER_BLOAT_MIN_KB)
		return false;
	int64_t rss = l->rss_kb;
	switch (c) {
	case LC_INVENTED:
		return ledger_is_bloated(kb, l->huge_kb);
	case LC_HELD:
	case LC_CREEP:
		return rss < 0 || kb * 4 > rss + kb;
	case LC_LAZYFREE:
		return rss > 0 && kb * 4 > rss;
	default:
		return false;
	}
}

enum ledger_cost ledger_top_cost(const struct thp_ledger *l)
{
	enum ledger_cost top = LC_NONE;
	for (int c = LC_INVENTED; c < LC_N; c++)
		if (ledger_cost_flagged(l, (enum ledger_cost)c) &&
		    (top == LC_NONE ||
		     ledger_cost_kb(l, (enum ledger_cost)c) > ledger_cost_kb(l, top)))
			top = (enum ledger_cost)c;
	return top;
}

void ledger_build(int64_t ahp_kb, const struct ledger_raw *raw, int scan_ret, int k,
		  bool held_asked, long max_ptes_none, unsigned page_kb, int pmd_order,
		  struct thp_ledger *l)
{
	ledger_unknown(ahp_kb, l);
	l->max_ptes_none = max_ptes_none;
	l->k = k;
	int scan_err = scan_ret ? scan_ret : raw->scan_err;
	enum ledger_gap sg = gap_of(scan_err);
	uint64_t pmd_kb = (uint64_t)page_kb << pmd_order;
	l->thps = raw->thps;
	l->thps_sampled = raw->thps_sampled;
	l->samples = raw->samples;
	l->zero_samples = raw->zero_samples;
	l->subpages = 1u << pmd_order;
	l->page_kb = page_kb;
	/* invented */
	if (k <= 0) {
		l->invented_gap = LG_NOT_ASKED;
	} else if (sg) {
		l->invented_gap = sg;
	} else if (!raw->thps) {
		l->invented_kb = 0; /* no PMD THP: nothing invented inside one */
		l->method = LM_SAMPLED;
		l->invented_gap = LG_OK;
	} else if (raw->mem_err && !raw->thps_sampled) {
		l->invented_gap = gap_of(raw->mem_err);
	} else if (!raw->samples) {
		l->invented_gap = LG_BUDGET;
	} else {
		double frac = (double)raw->zero_samples / (double)raw->samples;
		l->invented_kb = (int64_t)(frac * (double)raw->thps * (double)pmd_kb + 0.5);
		l->method = k >= (1 << pmd_order) ? LM_EXACT : LM_SAMPLED;
		l->invented_gap = raw->thps_sampled < raw->thps ? LG_BUDGET : LG_OK;
	}
	/* held */
	if (!held_asked)
		l->held_gap = LG_NOT_ASKED;
	else if (sg)
		l->held_gap = sg;
	else if (raw->held_err)
		l->held_gap = gap_of(raw->held_err);
	else {
		l->held_kb = (int64_t)(raw->held_pages * page_kb);
		l->partial_folios = raw->partial_folios;
		for (int o = 0; o < LEDGER_ORDERS; o++)
			l->mthp_kb[o] = raw->mthp_pages[o] * page_kb;
		l->held_gap = raw->held_cut ? LG_BUDGET : LG_OK;
	}
	/* creep */
	if (max_ptes_none < 0)
		l->creep_gap = LG_ERROR;
	else if (sg)
		l->creep_gap = sg;
	else {
		l->creep_kb = (int64_t)(raw->creep_pages * page_kb);
		l->creep_eighth_kb = (int64_t)(raw->creep_pages_eighth * page_kb);
		l->creep_ranges = raw->creep_ranges;
		l->creep_gap = LG_OK;
		l->pte_full_ranges = raw->pte_full_ranges;
		l->pte_full_kb = (int64_t)(raw->pte_full_ranges * pmd_kb);
	}
	l->bloated = ledger_is_bloated(l->invented_kb, l->huge_kb);
}

void ledger_held_none(struct thp_ledger *l)
{
	l->held_kb = 0;
	l->partial_folios = 0;
	memset(l->mthp_kb, 0, sizeof(l->mthp_kb));
	l->held_gap = LG_OK;
	l->held_by_counters = true;
}

const char *ledger_method_name(enum ledger_method m)
{
	static const char *const names[] = {
		[LM_NONE] = "none", [LM_SAMPLED] = "sampled", [LM_EXACT] = "exact"};
	return ENUM_NAME(names, m, "?");
}

const char *ledger_gap_name(enum ledger_gap g)
{
	static const char *const names[] = {[LG_OK] = "ok",
					    [LG_DENIED] = "denied",
					    [LG_NO_SCAN] = "no-pagemap-scan",
					    [LG_BUDGET] = "time-budget",
					    [LG_ERROR] = "error",
					    [LG_NOT_ASKED] = "not-asked",
					    [LG_RECORDED] = "recorded-tree"};
	return ENUM_NAME(names, g, "?");
}
