// SPDX-License-Identifier: MIT
/* `why`: its first line and the meaning of its hints, from the model's ids and evidence. */
#include <string.h>

#include "../util/names.h"
#include "../util/units.h"
#include "ledger.h"
#include "shmem.h"
#include "why_int.h"

/* "8192 kB", "1.0 GiB" */
static const char *kb(char *out, size_t n, uint64_t v)
{
	fmt_kb(out, n, v);
	return out;
}

/* What a hint does to huge pages. */
const char *why_hint_words(enum why_hint_id h)
{
	static const char *const words[] = {
		[HI_JAVA_THP_ON] = "the JVM madvises its heap MADV_HUGEPAGE: THP for the heap "
				   "under enabled=madvise or always",
		[HI_JAVA_THP_OFF] = "the JVM does not madvise its heap",
		[HI_JAVA_LARGE_PAGES] = "without UseTransparentHugePages the JVM takes its heap "
					"from the hugetlb pool (not THP)",
		[HI_GLIBC_UNKNOWN] = "unknown value (glibc knows 0, 1 and 2)",
		[HI_GLIBC_0] = "glibc malloc gives no huge page advice (the default)",
		[HI_GLIBC_1] = "glibc malloc (2.35+) madvises its heaps MADV_HUGEPAGE: THP under "
			       "enabled=madvise",
		[HI_GLIBC_2] = "glibc malloc (2.35+) maps from the hugetlb pool (MAP_HUGETLB), not "
			       "THP",
		[HI_MIMALLOC_OFF] =
			"mimalloc 1.9.9, 2.3.1, 3.3.1+ disable THP for the whole process "
			"with prctl(PR_SET_THP_DISABLE) at start (1.9.6, 2.2.6, 3.1.6+: "
			"only its own advice; older ones do not know it)",
		[HI_MIMALLOC_ON] = "mimalloc leaves THP allowed (the default)",
		[HI_JE_UNKNOWN] = "unknown thp: value (jemalloc knows always, never, default)",
		[HI_JE_ALWAYS] = "jemalloc (5.1+) madvises its arenas MADV_HUGEPAGE",
		[HI_JE_NEVER] = "jemalloc (5.1+) madvises its arenas MADV_NOHUGEPAGE: nh, never "
				"huge",
		[HI_JE_DEFAULT] = "jemalloc gives no huge page advice (the default)",
		[HI_JE_METADATA] = "jemalloc's own metadata may use THP (always, auto) or not "
				   "(disabled)",
		[HI_GO_DISABLETHP] = "the Go runtime (1.21.6+) marks its heap MADV_NOHUGEPAGE",
		[HI_GO_THP_KERNEL] = "the Go runtime leaves its heap's huge page state to the "
				     "kernel policy",
		[HI_MIMALLOC_LARGE_ON] = "mimalloc madvises its segments MADV_HUGEPAGE: THP under "
					 "enabled=madvise (ALLOW_LARGE_OS_PAGES: 1.8.2, 2.1+ only)",
		[HI_MIMALLOC_LARGE_OFF] = "mimalloc gives no huge page advice (the default)",
		[HI_JE_MUZZY] = "how long jemalloc keeps freed pages lazily freed (MADV_FREE) "
				"before it purges them; 0, the 5.2+ default: no MADV_FREE",
	};
	return ENUM_NAME(words, h, "?");
}

/* "faulted as small pages before the advice", and whether a fallback could explain it too */
static void w_small(struct wb *b, const struct why_summary *s)
{
	char a[32];
	wb_put(b,
	       "its MADV_HUGEPAGE regions hold %s in small pages, faulted as small pages before "
	       "the advice",
	       kb(a, sizeof(a), s->hg_small_kb));
	if (s->has_fallback && !s->fallback)
		wb_put(b, " (no THP fault fell back since boot: thp_fault_fallback 0)");
	else if (s->has_fallback)
		wb_put(b,
		       " (or when no huge page was free: host thp_fault_fallback=%llu since boot)",
		       (unsigned long long)s->fallback);
	else
		wb_put(b, " (or when no huge page was free: thp_fault_fallback unknown)");
}

/*
 * "khugepaged may add up to ...": the creep, or under a memory cgroup whose headroom is below
 * it the headroom, with the unbounded figure beside it (model/ledger.h ledger_creep_cg)
 */
static void w_creep(struct wb *b, const struct thp_ledger *l)
{
	char a[32], c[32];
	kb(a, sizeof(a), (uint64_t)l->creep_kb);
	if (!l->creep_cg_bounded) {
		wb_put(b,
		       "khugepaged may add up to %s by collapsing %llu PMD ranges (max_ptes_none=%ld)",
		       a, (unsigned long long)l->creep_ranges, l->max_ptes_none);
		return;
	}
	wb_put(b,
	       "khugepaged may add up to %s, bounded by its memory cgroup's headroom%s (unbounded: "
	       "up to %s by collapsing %llu PMD ranges, max_ptes_none=%ld)",
	       kb(c, sizeof(c), (uint64_t)l->creep_bound_kb),
	       l->cg_starved ? ", under one PMD: none until it gets headroom" : "", a,
	       (unsigned long long)l->creep_ranges, l->max_ptes_none);
}

/* The largest cost of the ledger, past its threshold: what it is and what it does. */
static void w_cost(struct wb *b, const struct why_summary *s)
{
	const struct thp_ledger *l = s->led;
	char a[32];
	switch (s->cost) {
	case LC_HELD:
		wb_put(b,
		       "%s is held by deferred split: %llu large folios partially unmapped, not in "
		       "RSS but charged to its memory cgroup until the shrinker splits them under "
		       "memory pressure (or it exits)",
		       kb(a, sizeof(a), (uint64_t)l->held_kb),
		       (unsigned long long)l->partial_folios);
		break;
	case LC_CREEP:
		if (s->hg_small_kb) {
			w_small(b, s);
			wb_put(b, "; ");
		}
		w_creep(b, l);
		break;
	case LC_LAZYFREE:
		wb_put(b,
		       "%s of its RSS is lazily freed (MADV_FREE): counted in RSS and in its memory "
		       "cgroup, reclaimed only under memory pressure",
		       kb(a, sizeof(a), (uint64_t)l->lazyfree_kb));
		break;
	default: /* LC_INVENTED */
		wb_put(b, "%s%s of it never written (invented)", l->method == LM_SAMPLED ? "~" : "",
		       kb(a, sizeof(a), (uint64_t)l->invented_kb));
		break;
	}
	wb_put(b, ": see the ledger");
}

/* "its MADV_HUGEPAGE memory is shmem (...), whose huge pages follow shmem_enabled ..." */
static void w_shm_none(struct wb *b, const struct why_summary *s)
{
	const struct why_shm_off *o = &s->shm;
	char a[32], c[32], d[32], p[160];
	wb_put(b, "%s MADV_HUGEPAGE memory is shmem (", o->live ? "most of its" : "its");
	if (o->live)
		wb_put(b, "%d of its %d hg VMAs", o->vmas, o->hg);
	else
		wb_put(b, "%d VMA%s", o->vmas, o->vmas == 1 ? "" : "s");
	wb_put(b,
	       ", %s, %s of it in small pages, ShmemPmdMapped %s), whose huge pages follow "
	       "shmem_enabled, not enabled: %s allows it none, at fault or from khugepaged",
	       kb(a, sizeof(a), o->kb), kb(c, sizeof(c), o->small_kb),
	       kb(d, sizeof(d), o->pmd_mapped_kb), shmem_pmd_words(&o->pol, false, p, sizeof(p)));
}

/* "it opted 64.0 MiB of its 65.6 MiB anonymous memory out with MADV_NOHUGEPAGE ..." */
static void w_nh(struct wb *b, const struct why_summary *s)
{
	char a[32], c[32];
	wb_put(b, "it opted %s", kb(a, sizeof(a), s->nh_anon_kb));
	if (s->anon_kb)
		wb_put(b, " of its %s anonymous memory", kb(c, sizeof(c), s->anon_kb));
	wb_put(b, " out with MADV_NOHUGEPAGE (nh: never huge there, not even by MADV_COLLAPSE)");
	if (s->madvise_no_hg)
		wb_put(b, "; the rest gets none either: the policy is madvise and it has no "
			  "MADV_HUGEPAGE region");
}

static void w_none(struct wb *b, const struct why_summary *s)
{
	static const char *const why[] = {
		[WN_NO_THP] = "this kernel has no THP",
		[WN_NEVER] = "the PMD size policy is never",
		[WN_MADVISE_NO_HG] = "the policy is madvise and it has no MADV_HUGEPAGE region",
		[WN_HG_NONE] =
			"its MADV_HUGEPAGE regions got none (not touched yet, smaller than a "
			"PMD, or no free huge page at fault)",
		[WN_ALWAYS_NONE] = "none of its regions got one (too small or unaligned, nh, or no "
				   "free huge page at fault)",
		[WN_OTHER] = "none of its regions got one",
	};
	wb_put(b, "has no PMD huge pages (AnonHugePages 0): ");
	if (s->cost != LC_NONE)
		w_cost(b, s);
	else if (s->none == WN_HG_SMALL)
		w_small(b, s);
	else if (s->none == WN_NH_OPTED)
		w_nh(b, s);
	else if (s->none == WN_SHMEM_OFF) {
		w_shm_none(b, s);
		if (s->pmd_never)
			wb_put(b, "; its other memory none either: the PMD size policy is never");
	} else
		wb_put(b, "%s", why[s->none]);
	wb_put(b, "%s",
	       s->prctl_unseen
		       ? " (or a prctl(PR_SET_THP_DISABLE), which this kernel does not show)"
		       : "");
}

/* SEP " ShmemPmdMapped 8192 kB (shmem), FilePmdMapped ..." for the nonzero ones; nothing when
 * both are 0 */
static void w_shared_pmd(struct wb *b, const struct why_summary *s, const char *sep)
{
	char a[32];
	if (s->shmem_pmd_kb)
		wb_put(b, "%s ShmemPmdMapped %s (shmem)", sep, kb(a, sizeof(a), s->shmem_pmd_kb));
	if (s->file_pmd_kb)
		wb_put(b, "%s FilePmdMapped %s (file pages)", s->shmem_pmd_kb ? "," : sep,
		       kb(a, sizeof(a), s->file_pmd_kb));
}

/* "gets huge pages: AnonHugePages 8192 kB of 13.0 MiB anonymous (61%), in its ..." */
static void w_huge(struct wb *b, const struct why_summary *s)
{
	char a[32], c[32];
	static const char *const how[] = {[WH_HG] = "in its MADV_HUGEPAGE regions",
					  [WH_ALWAYS] = "under enabled=always",
					  [WH_COLLAPSED] =
						  "collapsed (khugepaged or MADV_COLLAPSE)"};
	if (s->anon_kb)
		wb_put(b, "gets huge pages: AnonHugePages %s of %s anonymous (%.0f%%), %s",
		       kb(a, sizeof(a), s->huge_kb), kb(c, sizeof(c), s->anon_kb),
		       100.0 * (double)s->huge_kb / (double)s->anon_kb, how[s->how]);
	else
		wb_put(b, "gets huge pages: AnonHugePages %s, %s", kb(a, sizeof(a), s->huge_kb),
		       how[s->how]);
	w_shared_pmd(b, s, ", and");
	if (s->cost != LC_NONE) {
		wb_put(b, "; but ");
		w_cost(b, s);
	} else if (s->led && s->led->invented_kb < 0 && s->huge_kb) {
		/* the live headline of a process whose huge pages are mostly never written differs
		 * (WS_HUGE_BLOATED): without the ledger, that cannot be told apart */
		wb_put(b, "; how much of it was never written (invented) is unknown (%s)",
		       ledger_gap_words(s->led->invented_gap, false));
	}
}

/*
 * Invented is the largest cost: "mostly never written" only when it is more than half of
 * AnonHugePages, else "partly", with the share (a sampled estimate says "~").
 */
static void w_bloated(struct wb *b, const struct why_summary *s, const struct thp_ledger *l)
{
	char a[32], c[32];
	uint64_t inv = l->invented_kb > 0 ? (uint64_t)l->invented_kb : 0;
	bool mostly = inv * 2 > s->huge_kb;
	const char *est = l->method == LM_SAMPLED ? "~" : "";
	wb_put(b, "gets huge pages, %s never written: AnonHugePages %s, of which %s%s ",
	       mostly ? "mostly" : "partly", kb(a, sizeof(a), s->huge_kb), est,
	       kb(c, sizeof(c), inv));
	if (!mostly && s->huge_kb)
		wb_put(b, "(%s%llu%%) ", est, (unsigned long long)(inv * 100 / s->huge_kb));
	wb_put(b, "invented (all-zero subpages, %s): see the ledger",
	       l->method == LM_SAMPLED ? "estimate" : "exact");
}

const char *why_summary_words(const struct why_report *r, char *out, size_t n)
{
	const struct why_summary *s = &r->sum;
	const struct thp_ledger *l = s->led;
	struct wb b = wb_begin(out, n);
	char a[32];
	switch (s->id) {
	case WS_PRCTL_INHERITED:
		wb_put(&b,
		       "does not get huge pages: THP disabled by prctl, inherited from PID %ld (%s)",
		       s->pid, s->comm);
		break;
	case WS_PRCTL:
		wb_put(&b, "does not get huge pages: THP disabled by prctl(PR_SET_THP_DISABLE)");
		break;
	case WS_PRCTL_HELD:
		wb_put(&b, "holds %s of huge pages (AnonHugePages) though THP is disabled by prctl",
		       kb(a, sizeof(a), s->huge_kb));
		if (s->pid)
			wb_put(&b, ", inherited from PID %ld (%s)", s->pid, s->comm);
		wb_put(&b, ": made before the prctl, or shared with its parent since fork; it gets "
			   "no new ones, and these stay until freed or split");
		break;
	case WS_UNKNOWN:
		wb_put(&b,
		       "unknown: its smaps cannot be read, so neither its huge pages nor its hg/nh "
		       "regions are known");
		break;
	case WS_HUGE_BLOATED:
		w_bloated(&b, s, l);
		break;
	case WS_HUGE:
		w_huge(&b, s);
		break;
	case WS_HUGE_SHARED:
		wb_put(&b, "gets PMD-mapped huge pages, none anonymous (AnonHugePages 0):");
		w_shared_pmd(&b, s, "");
		if (s->cost != LC_NONE) {
			wb_put(&b, "; but ");
			w_cost(&b, s);
		}
		break;
	case WS_NONE_HELD:
		wb_put(&b,
		       "has no PMD huge pages (AnonHugePages 0): %llu large folios are partially "
		       "unmapped and %s of them is still held and charged to its memory cgroup, "
		       "waiting for the deferred-split shrinker",
		       (unsigned long long)l->partial_folios,
		       kb(a, sizeof(a), (uint64_t)l->held_kb));
		break;
	default:
		w_none(&b, s);
		break;
	}
	return out;
}
