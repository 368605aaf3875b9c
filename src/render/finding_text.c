// SPDX-License-Identifier: MIT
/* The sentences of each finding, from the facts its rule recorded (model/findings.c). */
#include "finding_text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/names.h"
#include "../util/units.h"
#include "../util/wide.h"
#include "hint.h"
#include "status_int.h"

/*
 * The command that shows more about each area, runnable as printed (tests/golden.sh runs
 * every one a report suggests): access gets advise, which names the settings to change and
 * prints the thpctl set lines to run as root (a bare `set --dry-run` needs KEY=VALUE).
 */
static const char *const area_more[AREA_N] = {
	[AREA_LATENCY] = "thpctl trace stalls", [AREA_MEMORY] = "thpctl ps --ledger",
	[AREA_FRAGMENTATION] = "thpctl watch",	[AREA_KHUGEPAGED] = "thpctl watch",
	[AREA_HUGETLB] = "thpctl status",	[AREA_VISIBILITY] = "thpctl ps --folios",
	[AREA_ACCESS] = "thpctl advise",
};

const char *finding_more(enum finding_area a)
{
	return ENUM_NAME(area_more, a, "thpctl status");
}

/* Why each finding matters, one line. */
static const char *const why_text[FK_N] = {
	[FK_DEFRAG_ALWAYS] =
		"every THP fault may enter direct reclaim and compaction, in any process",
	[FK_ALWAYS_MAX_PTES_NONE] =
		"sparse heaps grow to whole huge pages: RSS far above what the program touched",
	[FK_FAULT_SUCCESS_LOW] =
		"huge page faults mostly fall back to base pages: physical memory is fragmented",
	[FK_COMPACT_STALL] = "a task that enters direct compaction waits, often for milliseconds",
	[FK_DEFERRED_SPLIT] =
		"partly freed huge pages keep their whole size until memory pressure splits them",
	[FK_SHRINK_UNDERUSED_NOOP] =
		"the kernel skips the underused check when max_ptes_none is at its maximum",
	[FK_COW_COPY] =
		"after fork, the first write to a shared huge page allocates and copies all of it",
	[FK_LARGE_PMD] = "each scattered write can fault in a whole PMD of memory",
	[FK_MTHP_NO_STATS] =
		"mTHP is invisible to AnonHugePages and thp_* counters; without stats/ nothing counts it",
	[FK_HUGETLB_IDLE] =
		"hugetlb pages are taken from the kernel at reservation and unusable by anything else",
	[FK_KHUGEPAGED_CPU] =
		"khugepaged competes with the workload for CPU and takes mmap_lock while it collapses",
	[FK_TUNED_SETS_THP] =
		"tuned writes its profile's values at every start and profile switch, over tmpfiles, units and thpctl set",
};

#define TITLE(...) snprintf(t->title, sizeof(t->title), __VA_ARGS__)
#define EVIDENCE(...) snprintf(t->evidence, sizeof(t->evidence), __VA_ARGS__)

typedef unsigned long long ull;

/* shrink-underused-noop: measured by `thpctl lab shrinker` on this kernel, or the kernel's source */
static void shrink_text(struct finding_text *t, const struct finding_shrink *e)
{
	char left[32];
	/* never 100% with some split, nor 0% with some left (fmt_pct) */
	fmt_pct(left, sizeof(left), e->after_kb < e->before_kb ? e->after_kb : e->before_kb,
		e->before_kb, 0);
	if (e->measured && e->before_kb)
		/* the measure is lab shrinker's own run at this max_ptes_none, not the host's
		 * thp_underused_split_page (which counts its run at a lower value too) */
		TITLE("shrink_underused=1 with max_ptes_none=%llu: in a run of thpctl lab shrinker "
		      "at %llu, the underused shrinker left %s of AnonHugePages unsplit",
		      (ull)e->max_ptes_none, (ull)e->max_ptes_none, left);
	else if (e->measured)
		TITLE("shrink_underused=1 with max_ptes_none=%llu: thpctl lab shrinker at %llu had "
		      "no huge page to split (AnonHugePages 0 kB before): not decided",
		      (ull)e->max_ptes_none, (ull)e->max_ptes_none);
	else
		TITLE("shrink_underused=1 with max_ptes_none=%llu: by the kernel's source the "
		      "underused shrinker splits nothing",
		      (ull)e->max_ptes_none);
	if (e->measured && e->has_low)
		EVIDENCE("shrink_underused=1 khugepaged/max_ptes_none=%llu; thpctl lab shrinker on "
			 "this kernel (%s): at %llu AnonHugePages %llu -> %llu kB under memory "
			 "pressure, at %ld %llu -> %llu kB",
			 (ull)e->max_ptes_none, e->time, (ull)e->max_ptes_none, (ull)e->before_kb,
			 (ull)e->after_kb, e->low_mpn, (ull)e->low_before_kb, (ull)e->low_after_kb);
	else if (e->measured)
		EVIDENCE("shrink_underused=1 khugepaged/max_ptes_none=%llu; thpctl lab shrinker on "
			 "this kernel (%s): AnonHugePages %llu -> %llu kB under memory pressure",
			 (ull)e->max_ptes_none, e->time, (ull)e->before_kb, (ull)e->after_kb);
	else
		EVIDENCE("shrink_underused=1 khugepaged/max_ptes_none=%llu; not measured on this "
			 "host: run thpctl lab shrinker",
			 (ull)e->max_ptes_none);
}
#define FIX(...) snprintf(t->fix, sizeof(t->fix), __VA_ARGS__)

/* "thpctl set KEY=VALUE", then "  # NOTE" when NOTE is given. */
static void set_fix(struct finding_text *t, const struct finding *f, const char *note)
{
	FIX("thpctl set %s=%s%s%s", f->set_key, f->set_value, note ? "  # " : "", note ? note : "");
}

static void fault_success_low(const struct finding *f, struct finding_text *t)
{
	const struct ratio *r = &f->ev.fault.r;
	char what[48] = "PMD", rs[64];
	if (f->ev.fault.size_kb)
		snprintf(what, sizeof(what), "%llukB", (ull)f->ev.fault.size_kb);
	snprintf(rs, sizeof(rs), "%.1f%% (%llu of %llu)", r->value * 100, (ull)r->num, (ull)r->den);
	TITLE("%s THP fault success %s since boot", what, rs);
	char nb[40];
	fmt_u128(nb, sizeof(nb), f->ev.fault.free_pmd_blocks);
	if (f->ev.fault.pmd_order >= 0)
		EVIDENCE("fault success %s; free blocks of order >= %d: %s", rs,
			 f->ev.fault.pmd_order,
			 f->ev.fault.has_free_blocks ? nb : "unknown (buddyinfo not read)");
	else
		EVIDENCE("fault success %s", rs);
	FIX("sysctl vm.compact_memory=1  # once, then see the free blocks in 'thpctl status'");
}

const char *compact_madvised_condition(void)
{
	return "only if thpctl trace stalls shows THP faults among the stalls: only those in "
	       "MADV_HUGEPAGE regions compact, in a share no counter tells";
}

static void compact_stall(const struct finding *f, struct finding_text *t)
{
	const struct finding_compact *c = &f->ev.compact;
	TITLE("direct compaction stalled allocations %llu times since boot (compact_stall, all "
	      "allocations, not only THP)",
	      (ull)c->stall);
	char faults[96] = "";
	if (c->has_faults)
		snprintf(faults, sizeof(faults), "; thp_fault_alloc=%llu thp_fault_fallback=%llu",
			 (ull)c->fault_alloc, (ull)c->fault_fallback);
	if (c->has_outcome)
		EVIDENCE("compact_stall=%llu compact_fail=%llu compact_success=%llu%s",
			 (ull)c->stall, (ull)c->fail, (ull)c->success, faults);
	else
		EVIDENCE("compact_stall=%llu%s", (ull)c->stall, faults);
	switch (c->cause) {
	case COMPACT_CAUSE_ANY_FAULT:
		set_fix(t, f, "only MADV_HUGEPAGE regions may stall");
		break;
	case COMPACT_CAUSE_MADVISED:
		FIX("consider thpctl set defrag=defer, %s", compact_madvised_condition());
		break;
	case COMPACT_CAUSE_NOT_THP:
		FIX("none for THP (defrag=%s makes no THP fault compact): look for other high-order "
		    "allocations",
		    c->defrag ? c->defrag : "?");
		break;
	case COMPACT_CAUSE_NO_FAULTS:
		FIX("none for THP (no THP page fault since boot): look for other high-order "
		    "allocations");
		break;
	default:
		FIX("unknown: defrag was not read, so whether THP faults are among the stalls is "
		    "unknown; thpctl trace stalls shows who stalls");
		break;
	}
}

static void deferred_split(const struct finding *f, struct finding_text *t)
{
	const struct finding_split *s = &f->ev.split;
	/* without the gauge (before 6.12) only since-boot counters: a queued huge page is
	 * often freed whole later, never split, so what is held now is not known */
	if (s->has_partially_mapped)
		TITLE("partly freed huge pages are held until memory pressure");
	else
		TITLE("more huge pages queued for deferred split than split since boot: some may "
		      "be held until memory pressure (how many now: unknown before 6.12)");
	char pm[40];
	fmt_u128(pm, sizeof(pm), s->partially_mapped);
	if (s->has_partially_mapped)
		EVIDENCE(
			"thp_deferred_split_page=%llu thp_split_page=%llu nr_anon_partially_mapped=%s",
			(ull)s->deferred, (ull)s->split, pm);
	else
		EVIDENCE("thp_deferred_split_page=%llu thp_split_page=%llu", (ull)s->deferred,
			 (ull)s->split);
	FIX("none needed unless memory is short; the deferred-split shrinker runs under pressure");
}

static void large_pmd(const struct finding *f, struct finding_text *t)
{
	bool always = f->ev.pmd.always;
	TITLE("hpage_pmd_size is %llu MiB: each scattered write can cost that much%s",
	      (ull)(f->ev.pmd.pmd_size >> 20),
	      !f->ev.pmd.policy ? " (where: unknown, the PMD-size policy could not be read)"
	      : always		? ""
				: " (in MADV_HUGEPAGE regions)");
	EVIDENCE("hpage_pmd_size=%llu, PMD-size policy %s", (ull)f->ev.pmd.pmd_size,
		 f->ev.pmd.policy ? f->ev.pmd.policy : "unknown");
	if (f->ev.pmd.policy)
		set_fix(t, f,
			always ? "only programs that opt in" : "if no program here needs PMD THP");
	else
		FIX("none yet: read enabled and the PMD size's hugepages-*kB/enabled first; which "
		    "regions are at risk, and so the change, depends on them");
}

static void khugepaged_cpu(const struct finding *f, struct finding_text *t)
{
	const struct finding_khp *k = &f->ev.khp;
	if (k->late) { /* started anew after boot (THP was off): over its own life, said */
		TITLE("khugepaged used %.2f%% of a CPU since it started, %.0f s after boot",
		      k->share * 100, k->uptime_s - k->alive_s);
		EVIDENCE("khugepaged CPU %.1f s over the %.0f s since it started (a new thread "
			 "each time THP is turned back on from never)",
			 k->cpu_s, k->alive_s);
	} else {
		TITLE("khugepaged used %.2f%% of a CPU since boot", k->share * 100);
		EVIDENCE("khugepaged CPU %.1f s over %.0f s uptime", k->cpu_s, k->uptime_s);
	}
	set_fix(t, f, NULL);
}

/* KB as a size argument, exact: "1G", "2M", "64k". */
static const char *size_arg(char *out, size_t n, uint64_t kb)
{
	if (kb && kb % (1024 * 1024) == 0)
		snprintf(out, n, "%lluG", (ull)(kb / (1024 * 1024)));
	else if (kb && kb % 1024 == 0)
		snprintf(out, n, "%lluM", (ull)(kb / 1024));
	else
		snprintf(out, n, "%lluk", (ull)kb);
	return out;
}

static void hugetlb_idle(const struct finding *f, struct finding_text *t)
{
	const struct finding_pool *p = &f->ev.pool;
	char held[64]; /* pages x page size, exact: 2^64-1 pages of 2048 kB do not fit a u64 */
	fmt_kb_exact(held, sizeof(held), (u128)p->nr * p->size_kb);
	TITLE("hugetlb pool of %llu x %llu kB (%s) is reserved and entirely free: memory held for nobody",
	      (ull)p->nr, (ull)p->size_kb, held);
	EVIDENCE("hugepages-%llukB: nr_hugepages=%llu free_hugepages=%llu resv_hugepages=%llu",
		 (ull)p->size_kb, (ull)p->nr, (ull)p->free, (ull)p->resv);
	if (p->default_size)
		FIX("sysctl vm.nr_hugepages=0  # if no database is about to start");
	else
		FIX("echo 0 > /sys/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages  # if no database is about to start",
		    (ull)p->size_kb);
	/* the plan for a pool of the size it holds (hugetlb plan needs --for SIZE) */
	uint64_t kb;
	char pool[32], page[32];
	if (mul_u64(p->nr, p->size_kb, &kb) && kb < UINT64_MAX / 1024) {
		snprintf(t->more_buf, sizeof(t->more_buf), "thpctl hugetlb plan --for %s --page %s",
			 size_arg(pool, sizeof(pool), kb),
			 size_arg(page, sizeof(page), p->size_kb));
		t->more = t->more_buf;
	}
}

static void read_only(const struct finding *f, struct finding_text *t)
{
	bool rofs = f->ev.write_err == -EROFS;
	if (rofs)
		TITLE("THP settings are read-only here (read-only /sys): host-wide setting");
	else
		TITLE("THP settings are not writable by this user: changing them needs root");
	EVIDENCE("%s: %s", "transparent_hugepage/enabled", strerror(-f->ev.write_err));
	FIX("%s", rofs ? "run thpctl on the host, as root" : "run thpctl as root");
	t->why = rofs ? "the THP settings are host-wide; change them on the host, not here"
		      : "the THP settings are host-wide and only root may change them";
}

static void tuned_sets_thp(const struct finding *f, struct finding_text *t)
{
	const struct finding_tuned *x = &f->ev.tuned;
	const struct tuned_state *ts = x->t;
	char list[192] = "";
	size_t used = 0;
	for (int k = 0; k < x->nset && used < sizeof(list); k++) {
		const struct finding_tuned_set *s = &x->set[k];
		const struct tuned_setting *e = &ts->set[s->i];
		bool note = s->differs || s->unread;
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s=%s%s%s%s",
					 used ? ", " : "", e->key, e->value, note ? " (live: " : "",
					 s->differs ? s->live : (s->unread ? "-" : ""),
					 note ? ")" : "");
	}
	if (x->ndiff)
		TITLE("tuned profile %s sets %d THP setting(s), %d unlike the live value: its next apply changes them",
		      ts->active, x->nset, x->ndiff);
	else
		TITLE("tuned profile %s sets %d THP setting(s): it overrides other settings at its next apply",
		      ts->active, x->nset);
	EVIDENCE("tuned %s, active_profile=%s%s: %s", status_tuned_state(ts, "running: unknown"),
		 ts->active, ts->partial ? " (profile chain partial)" : "", list);
	FIX("thpctl persist --format tuned --install  # then tuned-adm profile thpctl");
}

void finding_text(const struct finding *f, struct finding_text *t)
{
	memset(t, 0, sizeof(*t));
	t->why = ENUM_NAME(why_text, f->kind, "");
	t->more = finding_more(f->area);
	switch (f->kind) {
	case FK_DEFRAG_ALWAYS:
		TITLE("defrag=always: any process may stall in direct compaction");
		EVIDENCE("defrag=always");
		set_fix(t, f, NULL);
		break;
	case FK_ALWAYS_MAX_PTES_NONE:
		TITLE("enabled=always with max_ptes_none=%llu: khugepaged can turn one touched page into a PMD of RSS",
		      (ull)f->ev.max_ptes_none);
		EVIDENCE("enabled=always (PMD size), khugepaged/max_ptes_none=%llu",
			 (ull)f->ev.max_ptes_none);
		set_fix(t, f, NULL);
		break;
	case FK_FAULT_SUCCESS_LOW:
		fault_success_low(f, t);
		break;
	case FK_COMPACT_STALL:
		compact_stall(f, t);
		break;
	case FK_DEFERRED_SPLIT:
		deferred_split(f, t);
		break;
	case FK_SHRINK_UNDERUSED_NOOP:
		shrink_text(t, &f->ev.shrink);
		set_fix(t, f, NULL);
		/* which processes hold mostly-zero THPs, and whether the change is worth its cost
		 * (khugepaged collapses less): advise weighs the ledger of each */
		t->more = "thpctl advise";
		/* another user reads few ledgers: advise then leaves the change undecided */
		if (hint_live_user())
			t->more_as = "as root: it reads each process's ledger";
		break;
	case FK_COW_COPY:
		TITLE("kernel %s < 5.8 with enabled=always: a write after fork copies a whole huge page",
		      f->ev.release);
		EVIDENCE("release %s (inferred from version), enabled=always", f->ev.release);
		set_fix(t, f, NULL);
		break;
	case FK_LARGE_PMD:
		large_pmd(f, t);
		break;
	case FK_MTHP_NO_STATS:
		TITLE("hugepages-%llukB is enabled but this kernel has no per-size stats: its use cannot be measured",
		      (ull)f->ev.mthp.size_kb);
		EVIDENCE("hugepages-%llukB/enabled=%s (effective %s), no stats/ directory",
			 (ull)f->ev.mthp.size_kb, f->ev.mthp.enabled, f->ev.mthp.effective);
		set_fix(t, f, NULL);
		break;
	case FK_HUGETLB_IDLE:
		hugetlb_idle(f, t);
		break;
	case FK_KHUGEPAGED_CPU:
		khugepaged_cpu(f, t);
		break;
	case FK_READ_ONLY:
		read_only(f, t);
		break;
	case FK_TUNED_SETS_THP:
		tuned_sets_thp(f, t);
		t->more = "thpctl persist --format tuned"; /* the profile it would write */
		break;
	case FK_N:
		break;
	}
}
