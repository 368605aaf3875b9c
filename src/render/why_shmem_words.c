// SPDX-License-Identifier: MIT
/* `why`: the sentences of its shared-memory and stall lines (model/why_shmem.c, why_stall.c). */
#include <string.h>

#include "../util/units.h"
#include "../util/wide.h"
#include "shmem.h"
#include "why_int.h"

/* "8192 kB", "1.0 GiB" */
static const char *kb(char *out, size_t n, uint64_t v)
{
	fmt_kb(out, n, v);
	return out;
}

static const char *s_if(long n)
{
	return n == 1 ? "" : "s";
}

void why_w_shm_off(struct wb *b, const struct why_shm_off *o, bool full)
{
	char p[160];
	wb_put(b, "shmem, which %s keeps from huge pages",
	       shmem_pmd_words(&o->pol, !full, p, sizeof(p)));
}

/* The stall line of E when some of its unbacked ranges hold small pages already. */
static void w_stall_small(struct wb *b, const struct why_ev_stall *e, const char *a, const char *c)
{
	uint64_t fresh = e->need - e->small;
	wb_put(b, "defrag=%s: %llu PMD ranges (%s) of its hg regions are not huge-backed; ",
	       e->defrag, (unsigned long long)e->need, a);
	if (fresh)
		wb_put(b, "%llu of them", (unsigned long long)e->small);
	else
		wb_put(b, "%s", e->need == 1 ? "it" : "all of them");
	wb_put(b,
	       " hold%s small pages already (faulted in: no fault there asks for a huge page "
	       "again, only a khugepaged collapse makes them huge); %llu free PMD-order blocks (%s, "
	       "host-wide, all zones but DMA) exist",
	       !fresh && e->need == 1 ? "s" : "", (unsigned long long)e->blocks, c);
	if (fresh)
		wb_put(b, ": for its other %llu, %s", (unsigned long long)fresh,
		       fresh > e->blocks ? "faulting them in is likely to compact"
					 : "free blocks can cover them now, without compaction");
}

void why_w_stall(struct wb *b, const struct why_line *l)
{
	const struct why_ev_stall *e = &l->ev.stall;
	char a[32], c[64];
	kb(a, sizeof(a), e->need * e->pmd_kb);			/* need * pmd_kb <= unbacked_kb */
	fmt_kb_wide(c, sizeof(c), (u128)e->blocks * e->pmd_kb); /* exact, never wrapped */
	if (l->id == WI_STALL_UNKNOWN)
		wb_put(b,
		       "defrag=%s: faults in its hg regions (%s not yet huge-backed) may stall in "
		       "direct compaction; free PMD-order blocks unknown (buddyinfo %s)",
		       e->defrag, a,
		       e->buddy_damaged ? "damaged: a zone's row malformed or listed twice"
					: "not readable");
	else if (!e->need)
		wb_put(b,
		       "defrag=%s: its hg regions are fully huge-backed; a new fault there may stall "
		       "in direct compaction only when no free PMD-order block is left (%llu free now, "
		       "%s, host-wide, all zones but DMA)",
		       e->defrag, (unsigned long long)e->blocks, c);
	else if (!e->small)
		wb_put(b,
		       "defrag=%s: %llu PMD ranges (%s) of its hg regions are not yet huge-backed and "
		       "%llu free PMD-order blocks (%s, host-wide, all zones but DMA) exist: %s",
		       e->defrag, (unsigned long long)e->need, a, (unsigned long long)e->blocks, c,
		       e->need > e->blocks
			       ? "faulting them all in is likely to compact (direct "
				 "compaction stalls in those faults)"
			       : "free blocks can cover them now, without compaction (other "
				 "processes compete for the same blocks)");
	else
		w_stall_small(b, e, a, c);
	if (e->need && e->cg.starved) {
		wb_put(b, "; ");
		why_w_cg_room(b, &e->cg);
		wb_put(b, ": the likely refusal of its huge pages, not fragmentation");
	}
	if (e->shm.vmas) {
		wb_put(b, "; its %d hg VMA%s of %s left out: ", e->shm.vmas, s_if(e->shm.vmas),
		       kb(a, sizeof(a), e->shm.kb));
		why_w_shm_off(b, &e->shm, false);
		wb_put(b, ", so no fault there stalls for one");
	}
}

void why_w_shmem(struct wb *b, const struct why_line *l)
{
	const struct why_ev_shmem *e = &l->ev.shmem;
	char a[32], c[32], d[32], f[32], p[160];
	if (l->id == WI_SHMEM_NO_HUGETLB) {
		wb_put(b,
		       "no hugetlb mapping: its shared memory is ordinary shmem. A program that asks "
		       "for hugetlb first and falls back (PostgreSQL huge_pages=try) fell back or "
		       "never asked; the default hugetlb pool has HugePages_Total %llu, HugePages_Free "
		       "%llu",
		       (unsigned long long)e->hugetlb_total, (unsigned long long)e->hugetlb_free);
		return;
	}
	wb_put(b,
	       "%d shared-memory VMA%s (MAP_SHARED anonymous, SysV, memfd or /dev/shm), %s mapped, %s "
	       "resident, ShmemPmdMapped %s; largest %s (%s). Shmem huge pages follow %s",
	       e->vmas, s_if(e->vmas), kb(a, sizeof(a), e->kb), kb(c, sizeof(c), e->rss_kb),
	       kb(d, sizeof(d), e->pmd_mapped_kb), e->largest->name,
	       kb(f, sizeof(f), e->largest->size_kb),
	       shmem_pmd_words(&e->pol, false, p, sizeof(p)));
	wb_put(b, ", not enabled (a tmpfs mount such as /dev/shm: its huge= option)%s",
	       e->none_pmd ? ": none of it can be PMD-mapped now" : "");
}
