// SPDX-License-Identifier: MIT
/*
 * `why`: stall exposure. Which of the process's regions may stall in direct
 * compaction under the current defrag, and whether the free PMD-order blocks
 * in buddyinfo (host-wide, all zones but DMA) can cover what its MADV_HUGEPAGE
 * regions have not yet backed with huge pages. When they cannot, a fault
 * there is likely to compact (or fall back, under defer+madvise only after
 * trying).
 */
#include <stdio.h>
#include <string.h>

#include "../util/units.h"
#include "../util/wide.h"
#include "why.h"

void why_explain_stall(const struct why_input *in, struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	const struct why_vmas *v = &in->vmas;
	const char *d = h->thp.defrag.present ? h->thp.defrag.selected : NULL;
	if (!h->thp.present || !d || in->smaps_err || in->st.thp_enabled == 0)
		return;
	uint64_t pmd_kb = h->feat.pmd_size / 1024;
	bool hg_stalls =
		!strcmp(d, "always") || !strcmp(d, "madvise") || !strcmp(d, "defer+madvise");
	if (!hg_stalls || !v->hg || !pmd_kb)
		return; /* explain_defrag already says nothing of it stalls */
	/* the part of its hg regions not yet huge-backed, in whole PMDs */
	uint64_t unbacked_kb = v->hg_kb > v->hg_huge_kb ? v->hg_kb - v->hg_huge_kb : 0;
	uint64_t need = unbacked_kb / pmd_kb, blocks = 0;
	char a[32], b[64];
	fmt_kb(a, sizeof(a), need * pmd_kb); /* need * pmd_kb <= unbacked_kb */
	if (!host_pmd_blocks(h, &blocks)) {
		why_linef(r, "stall", WE_UNKNOWN, "/" SR_PROC "/buddyinfo",
			  "defrag=%s: faults in its hg regions (%s not yet huge-backed) may "
			  "stall in direct compaction; free PMD-order blocks unknown (buddyinfo "
			  "not readable)",
			  d, a);
		return;
	}
	fmt_kb_wide(b, sizeof(b), (u128)blocks * pmd_kb);
	bool short_ = need > blocks;
	enum why_effect e = short_ ? WE_HINDERS : WE_NEUTRAL;
	if (!need)
		why_linef(
			r, "stall", e, "/" SR_PROC "/buddyinfo",
			"defrag=%s: its hg regions are fully huge-backed; a new fault there may "
			"stall in direct compaction only when no free PMD-order block is left (%llu "
			"free now, %s, host-wide)",
			d, (unsigned long long)blocks, b);
	else
		why_linef(
			r, "stall", e, "/" SR_PROC "/buddyinfo",
			"defrag=%s: %llu PMD ranges (%s) of its hg regions are not yet huge-backed "
			"and %llu free PMD-order blocks (%s, host-wide) exist: %s",
			d, (unsigned long long)need, a, (unsigned long long)blocks, b,
			short_ ? "faulting them all in is likely to compact (direct compaction "
				 "stalls in those faults)"
			       : "free blocks can cover them now, without compaction (other "
				 "processes compete for the same blocks)");
}
