// SPDX-License-Identifier: MIT
/* `advise`: the sentences of settings' reasons, levers and notes, from the model's ids. */
#include <errno.h>
#include <string.h>

#include "../util/esc.h"
#include "../util/names.h"
#include "../util/units.h"
#include "finding_text.h"
#include "ledger.h"
#include "remedy.h"
#include "wb.h"
#include "advice.h"
#include "hint.h"

static const char *s_if(long n)
{
	return n == 1 ? "" : "s";
}

static const char *const why_words[] = {
	[AW_REDIS_ENABLED] =
		"Redis forks for BGSAVE and AOF rewrite and is latency-bound: THP on "
		"its heap makes faults and copy-on-write after fork costlier and memory "
		"grow; Redis asks for enabled=madvise or never",
	[AW_MONGODB7_ENABLED] = "MongoDB 7.0 and earlier: its production notes say to disable THP "
				"(sparse access patterns, legacy TCMalloc)",
	[AW_MONGODB8_ENABLED] = "MongoDB 8.0 and later: its upgraded TCMalloc (per-CPU caches) is "
				"built for THP; its docs ask for enabled=always",
	[AW_MONGODB8_DEFRAG] = "MongoDB 8.0 and later: its docs ask for defrag=defer+madvise (no "
			       "fault stalls outside MADV_HUGEPAGE regions)",
	[AW_MONGODB8_MPN] = "MongoDB 8.0 and later: its docs ask for khugepaged/max_ptes_none=0 "
			    "(khugepaged must not fill in untouched pages)",
	[AW_POSTGRES_ENABLED] = "PostgreSQL: backends fork from the postmaster and touch private "
				"memory sparsely, so enabled=always adds RSS and fault latency; "
				"shared_buffers belong in hugetlb pages (huge_pages = on), madvise "
				"suits the rest",
	[AW_JVM_ENABLED] = "HotSpot with -XX:+UseTransparentHugePages madvises its heap: "
			   "enabled=madvise gives the heap THP and nothing else; never would take "
			   "it away",
	[AW_GO_MPN] =
		"Go under a memory limit: with max_ptes_none above 0 khugepaged refills pages "
		"the Go scavenger returned, so RSS creeps to the limit (the Go GC guide's "
		"workaround is max_ptes_none=0)",
	[AW_LATENCY_ENABLED] = "latency-critical: no process should fault in huge pages it did not "
			       "ask for",
	[AW_LATENCY_DEFRAG] = "latency-critical: no page fault may wait in direct compaction; "
			      "defer leaves the work to kcompactd and khugepaged",
	[AW_BATCH_ENABLED] = "throughput batch: huge pages wherever they fit cut TLB misses and "
			     "page faults",
	[AW_BATCH_DEFRAG] = "throughput batch: faults outside MADV_HUGEPAGE regions should not "
			    "stall but wake kcompactd, and khugepaged fills in later",
	[AW_DENSE_ENABLED] = "dense containers: enabled=always charges each container up to a PMD "
			     "per touched region, and charge failures fall back anyway "
			     "(thp_fault_fallback_charge)",
	[AW_DENSE_MPN] = "dense containers under memory limits: max_ptes_none at its maximum lets "
			 "khugepaged turn one touched page into a PMD charged to the container",
	[AW_RULE_DEFRAG_ALWAYS] =
		"defrag=always lets every THP fault in any process stall in direct "
		"reclaim and compaction: change it first (finding defrag-always)",
	[AW_RULE_LIMITS_ASKED] = "with memory limits, lower max_ptes_none: each PMD khugepaged "
				 "builds is charged in full",
};

/* AW_RULE_SHRINK_NOOP_LEDGER: what the ledger found, and what a lower max_ptes_none does. */
static void why_shrink_noop(struct wb *b, const struct adv_why *y)
{
	char a[32];
	if (y->invented_procs) {
		fmt_kb(a, sizeof(a), (uint64_t)(y->invented_kb > 0 ? y->invented_kb : 0));
		wb_put(b,
		       "%d process%s hold%s %s%s invented (never-written pages inside huge pages: "
		       "thpctl ps --ledger)",
		       y->invented_procs, y->invented_procs == 1 ? "" : "es",
		       y->invented_procs == 1 ? "s" : "", y->invented_sampled ? "~" : "", a);
	}
	if (y->creep_procs) {
		fmt_kb(a, sizeof(a), (uint64_t)(y->creep_kb > 0 ? y->creep_kb : 0));
		wb_put(b,
		       "%s%d process%s may grow by up to %s through khugepaged (creep: thpctl ps --ledger)",
		       y->invented_procs ? "; " : "", y->creep_procs,
		       y->creep_procs == 1 ? "" : "es", a);
	}
	bool both = y->invented_procs && y->creep_procs;
	wb_put(b,
	       ": at max_ptes_none=%llu the underused shrinker (shrink_underused=1) splits none of "
	       "their THPs; at %llu or below it can split, under memory pressure, THPs with more "
	       "than max_ptes_none zero-filled pages and free those pages, and khugepaged "
	       "collapses only ranges with at most max_ptes_none empty pages (it collapses less); "
	       "what that %s is at most the %s above: %s, not %s (finding shrink-underused-noop)",
	       (unsigned long long)y->mpn, (unsigned long long)y->bound,
	       both		   ? "frees or stops"
	       : y->invented_procs ? "frees"
				   : "stops",
	       both ? "amounts" : "amount", both ? "upper bounds" : "an upper bound",
	       both ? "measured savings" : "a measured saving");
}

static void why_put(struct wb *b, const struct adv_why *y)
{
	char a[32];
	switch (y->id) {
	case AW_RULE_COW:
		wb_put(b,
		       "kernel %s < 5.8: the first write after fork to a huge page allocates and copies "
		       "all of it, so anything that forks a big heap wants THP off or madvise plus a "
		       "per-process opt-out",
		       y->release);
		break;
	case AW_RULE_LIMITS:
		fmt_bytes(a, sizeof(a), y->smallest_limit);
		wb_put(b,
		       "%d process%s in %d memory cgroup%s with a limit (smallest %s): each PMD "
		       "khugepaged builds is charged in full, so lower max_ptes_none",
		       y->limited_procs, y->limited_procs == 1 ? "" : "es", y->limited_cgroups,
		       s_if(y->limited_cgroups), a);
		if (y->has_fallback)
			wb_put(b, "; thp_fault_fallback_charge=%llu since boot",
			       (unsigned long long)y->fallback);
		break;
	case AW_RULE_ALWAYS_MPN:
		wb_put(b,
		       "enabled=always with max_ptes_none=%llu: khugepaged can turn one touched page "
		       "into a PMD of RSS (finding always-max-ptes-none)",
		       (unsigned long long)y->mpn);
		break;
	case AW_RULE_PMD_OVERRIDE:
		wb_put(b,
		       "the PMD size (%llukB) has its own policy %s, which overrides enabled; inherit "
		       "makes enabled=%s apply",
		       (unsigned long long)y->pmd_kb, y->size_val, y->enabled);
		break;
	case AW_RULE_SHRINK_NOOP_LEDGER:
		why_shrink_noop(b, y);
		break;
	case AW_RULE_SHRINK_UNDERUSED:
		wb_put(b,
		       "6.12+: with max_ptes_none below %llu, the shrinker splits THPs holding more "
		       "than max_ptes_none zero-filled pages under memory pressure and frees those "
		       "pages (at %llu it does nothing)",
		       (unsigned long long)y->max_mpn, (unsigned long long)y->max_mpn);
		break;
	default:
		wb_put(b, "%s",
		       (unsigned)y->id < sizeof(why_words) / sizeof(why_words[0]) &&
				       why_words[y->id]
			       ? why_words[y->id]
			       : "?");
		break;
	}
}

const char *advice_setting_reason(const struct adv_setting *s, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	for (int i = 0; i < s->nwhy; i++) {
		if (i)
			wb_put(&b, "; ");
		why_put(&b, &s->why[i]);
	}
	return out;
}

const char *advice_setting_by(const struct adv_setting *s, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	for (int i = 0; i < s->nwhy; i++)
		wb_put(&b, "%s%s", i ? ", " : "", s->why[i].who);
	return out;
}

/*
 * "thpctl set KEY=VALUE ..." of the settings that change ("" when none); VERB "set" or
 * "persist": "thpctl persist --install KEY=VALUE ..." writes what keeps them (as status's
 * persist lines; --format tuned where tuned applies THP settings), the plain form only
 * prints it.
 */
const char *advice_command(const struct advice *a, const char *verb, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	if (!a->nchanges)
		return out;
	if (!strcmp(verb, "persist"))
		wb_put(&b, "thpctl persist %s--install", a->persist_tuned ? "--format tuned " : "");
	else
		wb_put(&b, "thpctl %s", verb);
	for (int i = 0; i < a->nsettings; i++)
		if (a->s[i].change)
			wb_put(&b, " %s=%s", a->s[i].key, a->s[i].want);
	return out;
}

static const char *enabled_word(int e)
{
	return ENUM_NAME(adv_enabled_vals, e, "?");
}

const char *advice_lever_what(const struct adv_lever *l, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	char a[32];
	switch (l->id) {
	case AL_ALREADY_OFF:
		wb_put(&b, "already opted out (THP_enabled 0)");
		break;
	case AL_OPT_OUT:
		wb_put(&b, "opt it out of THP (restart it so)");
		break;
	case AL_OPT_OUT_SAFE: /* not opted out now (THP_enabled 0 is AL_ALREADY_OFF) */
		if (!l->proc)
			wb_put(&b, "start it opted out of THP (safeguard)");
		else if (l->proc->thp_enabled == 1)
			wb_put(&b,
			       "not opted out (THP_enabled 1): opt it out of THP as a safeguard "
			       "(restart it so)");
		else
			wb_put(&b, "opt it out of THP as a safeguard (restart it so; this kernel "
				   "shows no THP_enabled)");
		break;
	case AL_PG_HUGETLB:
		wb_put(&b, "shared_buffers in hugetlb pages");
		break;
	case AL_PG_HUGETLB_DONE:
		wb_put(&b, "shared memory already in hugetlb pages");
		break;
	case AL_JVM_ALREADY:
		wb_put(&b, "already runs with -XX:+UseTransparentHugePages");
		break;
	case AL_JVM_ADD:
		wb_put(&b, "add -XX:+UseTransparentHugePages to its options");
		break;
	case AL_JVM_LEDGER:
		wb_put(&b,
		       "do not add -XX:+UseTransparentHugePages: its own ledger flags a THP cost");
		break;
	case AL_GO_LIMITED:
		fmt_bytes(a, sizeof(a), l->proc->limit_bytes);
		wb_put(&b, "if its RSS creeps to its limit (%s): GODEBUG=disablethp=1", a);
		break;
	case AL_NOTHING:
		wb_put(&b, "nothing to do");
		break;
	case AL_MONGODB8_PRCTL:
		wb_put(&b, "restart it without the prctl opt-out");
		break;
	default: /* AL_MONGODB8_HOST */
		wb_put(&b, "no per-process lever: it needs the host settings");
		break;
	}
	return out;
}

const char *advice_lever_command(const struct adv_lever *l, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	const struct adv_proc *p = l->proc;
	switch (l->cmd) {
	case ACM_RUN:
		if (p) /* its own command line, exact, or none (run_cmd: an alternative says why) */
			run_command(&p->run, l->mode, out, n);
		else
			wb_put(&b, "thpctl run --thp=%s -- %s", l->mode, l->placeholder);
		break;
	case ACM_HUGETLB_PLAN:
		wb_put(&b, "thpctl hugetlb plan --for %lluM", (unsigned long long)l->mib);
		break;
	case ACM_HUGETLB_SHARED:
		wb_put(&b, "thpctl hugetlb plan --for SHARED_BUFFERS --overhead 25");
		break;
	/* the command alone (wrap_put_command breaks it only between words); its prose is
	 * the note (advice_lever_command_note) */
	case ACM_JAVA_TOOL:
		wb_put(&b, "JAVA_TOOL_OPTIONS=-XX:+UseTransparentHugePages");
		break;
	case ACM_GODEBUG:
		wb_put(&b, "GODEBUG=disablethp=1");
		break;
	default:
		break;
	}
	return out;
}

const char *advice_lever_command_note(const struct adv_lever *l, char *out, size_t n)
{
	const struct adv_proc *p = l->proc;
	out[0] = '\0';
	if (l->cmd == ACM_RUN && p && p->run.state == RUN_ARGS_INTACT)
		run_cwd_note(&p->run.cwd, out, n);
	else if (l->cmd == ACM_JAVA_TOOL)
		snprintf(out, n, "in its environment, then restart it");
	else if (l->cmd == ACM_GODEBUG)
		snprintf(out, n, "in its environment, Go 1.21.6+");
	return out;
}

const char *advice_lever_alt(const struct adv_lever *l, int i, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	const struct adv_proc *p = l->proc;
	char q[4 * sizeof(p->prog) + 8];
	switch (l->alt[i]) {
	case AA_RUN_REWRITTEN:
		shell_quote(q, sizeof(q), p->prog, strlen(p->prog));
		wb_put(&b,
		       "thpctl run --thp=%s -- %s ARGS...: its arguments are unknown (its command line "
		       "reads %s, a process title written over them): take them from its unit or start "
		       "script",
		       l->mode, p->prog[0] ? q : "EXE", p->title);
		break;
	case AA_RUN_UNREAD:
		wb_put(&b,
		       "thpctl run --thp=%s yourself: %s, so no command is printed (one made up "
		       "would run something else)",
		       l->mode, run_unread_words(&p->run, q, sizeof(q)));
		break;
	case AA_REDIS_CONF:
		wb_put(&b, "redis.conf: disable-thp yes (Redis 6.2+, the default): Redis calls "
			   "prctl(PR_SET_THP_DISABLE) itself at start when enabled=always");
		break;
	case AA_SYSTEMD:
		if (p && p->unit[0])
			wb_put(&b,
			       "systemd (this one knows MemoryTHP=): MemoryTHP=%s in [Service] of %s "
			       "(systemctl edit %s)",
			       l->systemd_value, p->unit,
			       shell_quote(q, sizeof(q), p->unit, strlen(p->unit)) < sizeof(q)
				       ? q
				       : "UNIT");
		else
			wb_put(&b,
			       "systemd (this one knows MemoryTHP=): MemoryTHP=%s in the unit's "
			       "[Service] section",
			       l->systemd_value);
		break;
	case AA_PG_HUGE_PAGES:
		wb_put(&b,
		       "postgresql.conf: huge_pages = on (fail rather than start without them; try "
		       "is the default)");
		break;
	default: /* AA_PG_SIZE */
		wb_put(&b,
		       "PostgreSQL 15+: postgres -D DATADIR -C shared_memory_size_in_huge_pages "
		       "gives the page count");
		break;
	}
	return out;
}

static void reason_opt_out(struct wb *b, const struct adv_lever *l)
{
	const struct adv_proc *p = l->proc;
	char huge[32], hg[32], path[64];
	switch (l->why) {
	case ALW_ALREADY_OFF:
		wb_put(b, "its %s shows THP_enabled 0: prctl(PR_SET_THP_DISABLE) is in force%s",
		       evidence_path(KP_PROC_FILE, p->pid, "status", path, sizeof(path)),
		       l->wl == WL_REDIS ? " (Redis disable-thp yes, or a thpctl run --thp=off)"
					 : "");
		break;
	case ALW_HOLDS:
		fmt_kb(huge, sizeof(huge), p->anon_huge_kb);
		fmt_kb(hg, sizeof(hg), p->hg_kb);
		wb_put(b,
		       "it holds %s of THP now (AnonHugePages) and %d MADV_HUGEPAGE VMA%s of %s (its "
		       "%s): its allocator asks for huge pages (jemalloc thp:always, "
		       "glibc.malloc.hugetlb=1, ...), so enabled=%s does not keep THP off its heap; "
		       "opting out per process does",
		       huge, p->hg_vmas, s_if(p->hg_vmas), hg,
		       evidence_path(KP_PROC_FILE, p->pid, "smaps", path, sizeof(path)),
		       enabled_word(l->enabled));
		break;
	case ALW_HELD_BEFORE:
		fmt_kb(huge, sizeof(huge), p->anon_huge_kb);
		wb_put(b,
		       "it holds %s of THP now (AnonHugePages) but no MADV_HUGEPAGE VMA (its %s): "
		       "made under an enabled=always, now or before, or by MADV_COLLAPSE; enabled=%s "
		       "makes it no new ones, and these stay until it restarts (neither the setting "
		       "nor an opt-out splits them); opting out per process keeps it so if the host "
		       "is ever set to always",
		       huge, evidence_path(KP_PROC_FILE, p->pid, "smaps", path, sizeof(path)),
		       enabled_word(l->enabled));
		break;
	case ALW_WANTS_OFF:
		wb_put(b,
		       "%s; the host keeps enabled=%s for the others, so this process opts out alone "
		       "(prctl, inherited by its children)",
		       l->wl == WL_REDIS      ? "Redis wants no THP"
		       : l->wl == WL_POSTGRES ? "PostgreSQL's backends want no THP"
					      : "MongoDB 7.0 and earlier wants THP off",
		       enabled_word(l->enabled));
		break;
	case ALW_UNREADABLE:
		wb_put(b,
		       "enabled=%s keeps THP off its heap unless it madvises it (its smaps could not be "
		       "read: %s to check); opting out per process keeps it so if the host is ever "
		       "set to always, without touching other processes",
		       enabled_word(l->enabled),
		       l->recorded ? "the capture was taken without the right to read it; capture "
				     "again as root"
				   : HINT_PROC_DENIED);
		break;
	default: /* ALW_KEEPS */
		wb_put(b,
		       "enabled=%s already keeps THP off its heap%s; opting out per process keeps it so "
		       "if the host is ever set to always, without touching other processes",
		       enabled_word(l->enabled),
		       p ? " (no huge pages and no MADV_HUGEPAGE VMA in its smaps)" : "");
		break;
	}
}

const char *advice_lever_reason(const struct adv_lever *l, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	char a[32];
	switch (l->why) {
	case ALW_NONE:
		break;
	case ALW_PG_DONE:
		wb_put(&b, "its shared memory segment is a hugetlb mapping");
		break;
	case ALW_PG_SEGMENT:
		wb_put(&b,
		       "its shared memory segment (shared_buffers and the rest) is %llu MiB, in small "
		       "pages now",
		       (unsigned long long)l->mib);
		break;
	case ALW_PG_GENERIC:
		wb_put(&b,
		       "hugetlb pages for shared_buffers cut page table memory in every backend; the "
		       "segment is shared_buffers plus a few percent");
		break;
	case ALW_JVM_MADVISED:
		wb_put(&b, "its heap is madvised: under enabled=%s it gets THP",
		       enabled_word(l->enabled));
		break;
	case ALW_JVM_MADVISE:
		wb_put(&b,
		       "the JVM then madvises its heap: with enabled=madvise the heap gets THP and "
		       "nothing else does; add -XX:+AlwaysPreTouch to take the faults at start");
		break;
	case ALW_LEDGER:
		fmt_kb(a, sizeof(a), (uint64_t)(l->proc->flagged_kb > 0 ? l->proc->flagged_kb : 0));
		wb_put(&b,
		       "its ledger flags %s %s (see What to change above): more huge pages would "
		       "add to it, not help",
		       a, ledger_cost_words(l->proc->flagged_cost, false));
		break;
	case ALW_LEDGER_OWN:
		fmt_kb(a, sizeof(a), (uint64_t)(l->proc->flagged_kb > 0 ? l->proc->flagged_kb : 0));
		wb_put(&b, "but its ledger flags %s %s: see What to change above", a,
		       ledger_cost_words(l->proc->flagged_cost, false));
		break;
	case ALW_GO_LIMITED:
		wb_put(&b,
		       "the Go runtime then marks its heap MADV_NOHUGEPAGE, for when max_ptes_none "
		       "cannot be lowered host-wide");
		break;
	case ALW_GO_NO_ADVICE:
		wb_put(&b, "Go 1.21.1+ gives no huge page advice: its heap gets THP only under "
			   "enabled=always");
		break;
	case ALW_MONGODB8_PRCTL:
		wb_put(&b,
		       "its status shows THP_enabled 0 (inherited or set by its starter: see thpctl why "
		       "%ld), so it gets no THP whatever the host says",
		       l->pid);
		break;
	case ALW_MONGODB8_ALWAYS:
		wb_put(&b,
		       "MongoDB 8.0 does not madvise: only enabled=always gives it huge pages%s",
		       l->except_advised ? "; others can opt out with thpctl run --thp=off or "
					   "--thp=advised"
					 : "; others can opt out with thpctl run --thp=off");
		break;
	case ALW_NODE:
		wb_put(&b,
		       "V8 gives no huge page advice: its heap gets THP only under enabled=always");
		break;
	default:
		reason_opt_out(&b, l);
		break;
	}
	return out;
}
