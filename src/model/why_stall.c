// SPDX-License-Identifier: MIT
/*
 * `why`: stall exposure. Which of the process's regions may stall in direct
 * compaction under the current defrag, and whether the free PMD-order blocks
 * in buddyinfo (host-wide, all zones but DMA) can cover what its MADV_HUGEPAGE
 * regions have not yet backed with huge pages. When they cannot, a fault
 * there is likely to compact (or fall back, under defer+madvise only after
 * trying). Shmem whose shmem policy forbids huge pages (why_hg_shmem_off) asks
 * for none, so it is left out.
 */
#include <string.h>

#include "why.h"

void why_explain_stall(const struct why_input *in, struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	const struct why_vmas *v = &in->vmas;
	const char *d = h->thp.defrag.present ? h->thp.defrag.selected : NULL;
	if (!h->thp.present || !d || in->smaps_err || in->st.thp_enabled == 0)
		return;
	uint64_t pmd_kb = h->feat.pmd_size / 1024;
	/* TODO(facts): "which defrag values stall a MADV_HUGEPAGE fault" is decided here and in
	 * findings.c; use the model function of branch facts once it lands */
	bool hg_stalls =
		!strcmp(d, "always") || !strcmp(d, "madvise") || !strcmp(d, "defer+madvise");
	struct why_ev_stall e = {.defrag = d, .pmd_kb = pmd_kb};
	/* hg shmem its policy keeps from huge pages faults in small pages: it never stalls */
	why_hg_shmem_off(in, &e.shm);
	if (!hg_stalls || !e.shm.live || !pmd_kb)
		return; /* explain_defrag already says nothing of it stalls */
	/* the part of its other hg regions not yet huge-backed, in whole PMDs */
	uint64_t unbacked_kb = v->hg_kb > v->hg_pmd_mapped_kb ? v->hg_kb - v->hg_pmd_mapped_kb : 0;
	unbacked_kb = unbacked_kb > e.shm.kb ? unbacked_kb - e.shm.kb : 0;
	e.need = unbacked_kb / pmd_kb;
	/* what of it is faulted in as small pages already: no fault there asks again */
	uint64_t small_kb = v->hg_rss_kb > v->hg_pmd_huge_kb ? v->hg_rss_kb - v->hg_pmd_huge_kb : 0;
	small_kb = small_kb > e.shm.small_kb ? small_kb - e.shm.small_kb : 0;
	e.small = (small_kb + pmd_kb - 1) / pmd_kb;
	/* a range holding a single small page counts too: the ledger's scan saw each range's
	 * pages; under madvise its creep ranges are those of the hg regions alone */
	const struct thp_ledger *led = &in->led;
	bool inh;
	const char *pol = thp_pmd_policy_of(&h->thp, h->feat.pmd_size, &inh);
	if (pol && !strcmp(pol, "madvise") && led->creep_gap == LG_OK &&
	    led->creep_ranges > e.small)
		e.small = led->creep_ranges;
	if (e.small > e.need)
		e.small = e.need;
	why_cg_room_of(in, &e.cg);
	struct why_line *l;
	e.buddy_damaged = h->has_buddy && (h->buddy.bad || h->buddy.dup);
	if (!host_pmd_blocks(h, &e.blocks))
		l = why_line_new(r, "stall", WE_UNKNOWN, WI_STALL_UNKNOWN, KP_BUDDYINFO, 0, NULL);
	else
		l = why_line_new(r, "stall", e.need - e.small > e.blocks ? WE_HINDERS : WE_NEUTRAL,
				 WI_STALL, KP_BUDDYINFO, 0, NULL);
	if (l)
		l->ev.stall = e;
}
