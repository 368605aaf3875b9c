// SPDX-License-Identifier: MIT
/* What to change for a flagged process (model/remedy.h), in words and JSON: advise and why. */
#include "remedy.h"

#include <errno.h>
#include <string.h>

#include "../model/advice.h"
#include "../model/evidence.h"
#include "../util/esc.h"
#include "../util/units.h"
#include "../util/wrap.h"
#include "alloc.h"
#include "hint.h"
#include "json.h"
#include "table.h"
#include "wb.h"

static const char *kb(char *out, size_t n, int64_t v)
{
	fmt_kb(out, n, v > 0 ? (uint64_t)v : 0);
	return out;
}

/* "~398.0 MiB" (an estimate), "up to 240.0 MiB" (a bound), "111.8 MiB" */
static void amount(struct wb *b, const struct remedy *r, int64_t v, bool upper)
{
	char a[32];
	if (v < 0) {
		wb_put(b, "an unknown amount");
		return;
	}
	bool est = r->cost == LC_INVENTED && r->p->led.method == LM_SAMPLED;
	wb_put(b, "%s%s", upper ? "up to " : est ? "~" : "", kb(a, sizeof(a), v));
}

/* "its memory cgroup counted no collapse (memory.stat thp_collapse_alloc 0, ...)" and kin. */
static void counted(struct wb *b, const struct remedy *r, const char *what)
{
	const struct remedy_proc *p = r->p;
	if (r->origin_cgroup)
		wb_put(b, "its memory cgroup counted %s (memory.stat ", what);
	else
		wb_put(b, "the host counted %s since boot (vmstat ", what);
	wb_put(b, "thp_fault_alloc %llu, thp_collapse_alloc %llu",
	       (unsigned long long)r->fault_alloc, (unsigned long long)r->collapse_alloc);
	if (r->origin_cgroup)
		wb_put(b, ")");
	else if (p->cg_v1)
		wb_put(b, "; its memory cgroup is v1, which counts no THP events)");
	else if (p->cg_fault_alloc.present && p->cg_collapse_alloc.present)
		wb_put(b, "; its memory cgroup counted neither: its huge pages were charged to "
			  "another)");
	else
		wb_put(b, "; its memory cgroup's counters not read)");
}

/* "khugepaged at max_ptes_none=511 now, or MADV_COLLAPSE" */
static void collapsers(struct wb *b, const struct thp_ledger *l)
{
	wb_put(b, "khugepaged");
	if (l->max_ptes_none >= 0)
		wb_put(b, " at max_ptes_none=%ld now", l->max_ptes_none);
	wb_put(b, ", or MADV_COLLAPSE");
}

/*
 * Invented memory, and how it arose as far as the evidence tells (model/remedy.c
 * find_origin): at fault, collapsed, or either, never one picked without evidence.
 */
static void invented_words(struct wb *b, const struct remedy *r)
{
	const struct thp_ledger *l = &r->p->led;
	char a[32];
	switch (r->mech) {
	case RM_SPARSE_FAULT:
		wb_put(b, "sparse at fault: huge pages faulted in whole, ");
		break;
	case RM_COLLAPSED: /* under madvise khugepaged too collapses only in hg regions */
		wb_put(b, "collapsed, not faulted: huge pages built from ranges whose empty pages "
			  "were filled with zeroes (");
		if (r->origin_ev == ROE_POLICY)
			wb_put(b, "MADV_COLLAPSE");
		else
			collapsers(b, l);
		wb_put(b, "), ");
		break;
	default:
		wb_put(b, "sparse huge pages, faulted in whole or collapsed with their empty pages "
			  "filled (");
		collapsers(b, l);
		wb_put(b, "): ");
		break;
	}
	amount(b, r, r->cost_kb, false);
	wb_put(b, " of their %s never written (invented", kb(a, sizeof(a), l->huge_kb));
	if (l->method == LM_SAMPLED) /* the estimate's method, named */
		wb_put(b, ": %llu of %llu subpages read, %d per huge page, were all-zero",
		       (unsigned long long)l->zero_samples, (unsigned long long)l->samples, l->k);
	wb_put(b, "); ");
	if (r->origin_ev == ROE_POLICY)
		wb_put(b, "%s (unless the policy changed after they were faulted)",
		       r->policy_never
			       ? "under enabled=never no fault gets a huge page"
			       : "under enabled=madvise a fault gets a huge page only in a "
				 "MADV_HUGEPAGE region, and none of its huge pages is in one");
	else if (r->mech == RM_SPARSE_FAULT)
		counted(b, r, "no collapse");
	else if (r->mech == RM_COLLAPSED)
		counted(b, r, "no THP fault");
	else if (r->origin_counted) {
		wb_put(b, "which, the evidence cannot tell: ");
		counted(b, r, "both");
	} else
		wb_put(b, "which, the evidence cannot tell: no THP event counter was read (its "
			  "memory cgroup's nor the host's)");
}

const char *remedy_mech_words(const struct remedy *r, char *out, size_t n)
{
	const struct thp_ledger *l = &r->p->led;
	struct wb b = wb_begin(out, n);
	char a[32];
	switch (r->mech) {
	case RM_SPARSE_FAULT:
	case RM_COLLAPSED:
	case RM_SPARSE_UNKNOWN:
		invented_words(&b, r);
		break;
	case RM_CREEP:
		wb_put(&b, "khugepaged creep at max_ptes_none=%ld: it may fill %llu PMD ranges, ",
		       l->max_ptes_none, (unsigned long long)l->creep_ranges);
		amount(&b, r, r->cost_kb, true);
		wb_put(&b, " more RSS");
		break;
	case RM_DEFERRED_SPLIT:
		wb_put(&b,
		       "deferred split after frees: %llu large folios partially unmapped, %s held: "
		       "not in RSS, charged to its memory cgroup until the shrinker splits them "
		       "under memory pressure",
		       (unsigned long long)l->partial_folios, kb(a, sizeof(a), r->cost_kb));
		break;
	case RM_LAZY_FREE:
		wb_put(&b,
		       "lazy free: %s freed with MADV_FREE stays in RSS and in its memory cgroup "
		       "until reclaim takes it under memory pressure (not a THP cost, not a leak)",
		       kb(a, sizeof(a), r->cost_kb));
		break;
	default: {
		char c[32], d[32];
		wb_put(&b,
		       "would gain: %s in %llu PMD ranges fully written but mapped with small pages, "
		       "and referenced (smaps Referenced %s of RSS %s: touched since the accessed "
		       "bits were last cleared, not proof that it is hot now)",
		       kb(a, sizeof(a), r->cost_kb), (unsigned long long)l->pte_full_ranges,
		       kb(c, sizeof(c), l->referenced_kb), kb(d, sizeof(d), l->rss_kb));
		break;
	}
	}
	return out;
}

/* RP_PROGRAM: the program's own advice, and what its allocator's environment says of its own. */
static void program_words(struct wb *b, const struct remedy_proc *p)
{
	char a[32];
	alloc_short(&p->alloc, a, sizeof(a));
	switch (p->alloc_known ? p->alloc.kind : AK_UNKNOWN) {
	case AK_JEMALLOC:
		wb_put(b,
		       "the program itself, or a compiled-in allocator setting: %s's environment "
		       "asks for no THP (it madvises MADV_HUGEPAGE only with thp:always or "
		       "metadata_thp, from MALLOC_CONF, /etc/malloc.conf or its build), so the "
		       "MADV_HUGEPAGE on these regions is the program's own as far as can be told",
		       a);
		break;
	case AK_MIMALLOC:
		wb_put(b,
		       "the program itself, or a compiled-in allocator setting: %s's environment "
		       "asks for no large OS pages (it madvises MADV_HUGEPAGE only with "
		       "MIMALLOC_LARGE_OS_PAGES=1 or that default built in), so the MADV_HUGEPAGE "
		       "on these regions is the program's own as far as can be told",
		       a);
		break;
	case AK_TCMALLOC:
		wb_put(b,
		       "the program itself: its own MADV_HUGEPAGE on these regions (its allocator, "
		       "%s, has no setting that advises its heap so)",
		       a);
		break;
	default:
		wb_put(b,
		       "the program itself: its own MADV_HUGEPAGE on these regions (its allocator, "
		       "%s, gives no such advice without glibc.malloc.hugetlb=1)",
		       a);
		break;
	}
}

const char *remedy_part_words(const struct remedy *r, char *out, size_t n)
{
	const struct remedy_proc *p = r->p;
	struct wb b = wb_begin(out, n);
	char a[32], path[96];
	static const char *const names[] = {
		[RP_JEMALLOC] = "jemalloc", [RP_GLIBC] = "glibc malloc", [RP_MIMALLOC] = "mimalloc",
		[RP_TCMALLOC] = "tcmalloc", [RP_GO] = "the Go runtime",	 [RP_JVM] = "the JVM"};
	switch (r->part) {
	case RP_THREAD_STACKS:
		wb_put(&b,
		       "thread stacks without MAP_STACK: %d of its %d threads have their stack "
		       "pointer in VMAs holding %s of huge pages (%s)",
		       p->stack_threads, p->threads, kb(a, sizeof(a), (int64_t)p->stack_huge_kb),
		       evidence_path(KP_PROC_FILE, p->pid, "task/*/syscall", path, sizeof(path)));
		return out;
	case RP_UNKNOWN:
		if (r->not_malloc) {
			alloc_short(&p->alloc, a, sizeof(a));
			wb_put(&b,
			       "unknown: its allocator, %s, does not free with MADV_FREE (it uses "
			       "MADV_DONTNEED or munmap): the program or a library does",
			       a);
			return out;
		}
		wb_put(&b,
		       "unknown: no allocator or runtime named by its environment, command line "
		       "or executable%s",
		       p->stacks_known ? "; not its thread stacks" : "");
		if (p->alloc_known && p->alloc.why_unknown != AU_NONE)
			wb_put(&b, " (allocator detection: %s)",
			       alloc_unknown_name(p->alloc.why_unknown));
		return out;
	default:
		break;
	}
	if (r->part == RP_NOT_HEAP) {
		char c[32], d[32];
		alloc_short(&p->alloc, a, sizeof(a));
		wb_put(&b,
		       "unknown: most of its memory is outside glibc malloc's heap ([heap] and "
		       "arenas hold %s of its %s anonymous), mapped by the program itself (mmap) "
		       "or by malloc for a large block, which cannot be told apart (its "
		       "allocator: %s)",
		       kb(c, sizeof(c), (int64_t)p->malloc_kb),
		       kb(d, sizeof(d), (int64_t)p->anon_kb), a);
		return out;
	}
	if (r->part == RP_PROGRAM) {
		program_words(&b, p);
		return out;
	}
	if (r->evidence == RE_ALLOC) {
		alloc_short(&p->alloc, a, sizeof(a));
		wb_put(&b, "%s", a);
		if (p->alloc.evidence == AE_MAPPED_LIB)
			wb_put(&b, " (its library %s in %s)", p->alloc.path,
			       evidence_path(KP_PROC_FILE, p->pid, "maps", path, sizeof(path)));
		else if (p->alloc.evidence == AE_EXE_SYMBOL)
			wb_put(&b, " (symbol %s of its executable)", p->alloc.symbol);
		else if (p->alloc.evidence == AE_GO_BUILDINFO)
			wb_put(&b, " (the Go build info of its executable)");
		if (r->hint)
			wb_put(&b, "; its environment: %s %s", r->hint->var, r->hint->value);
		return out;
	}
	wb_put(&b, "%s", names[r->part] ? names[r->part] : "?");
	switch (r->evidence) {
	case RE_ENVIRON:
		wb_put(&b, " (its environment: %s %s)", r->hint->var, r->hint->value);
		break;
	case RE_CMDLINE:
		wb_put(&b, " (its command line: %s)", r->hint->value);
		break;
	case RE_GO_BUILDINFO:
		wb_put(&b, " (%s, from the Go build info of its executable)",
		       p->gover[0] ? p->gover : "version unknown");
		break;
	case RE_COMM:
		wb_put(&b, " (its name: %s; version unknown)", p->comm);
		break;
	default:
		break;
	}
	return out;
}

/* "; N other processes VERB1|VERBN REST (X in all): PID a (comm), ..." */
static void others(struct wb *b, const struct remedy_fix *f, const char *one, const char *many,
		   const char *rest)
{
	char a[32];
	if (f->others < 0) {
		wb_put(b, "; every other process too (not scanned here: thpctl advise lists them)");
		return;
	}
	if (!f->others) {
		wb_put(b, "; no other process scanned %s%s", one, rest);
		return;
	}
	wb_put(b, "; %d other process%s %s%s (%s in all):", f->others, f->others == 1 ? "" : "es",
	       f->others == 1 ? one : many, rest, kb(a, sizeof(a), f->others_kb));
	for (int i = 0; i < f->others && i < REMEDY_MAX_OTHERS; i++)
		wb_put(b, "%s PID %ld (%s)", i ? "," : "", f->other_pid[i], f->other_comm[i]);
	if (f->others > REMEDY_MAX_OTHERS)
		wb_put(b, ", ...");
}

/* A host knob's value that the report's settings recommend too: one value for one knob. */
static void planned(struct wb *b, const struct remedy_fix *f)
{
	if (f->planned)
		wb_put(b, "; the value Settings recommends below, for the whole host");
}

/* RF_HOST_MPN: what max_ptes_none at F's value stops, of this process and of the others. */
static void host_mpn_words(struct wb *b, const struct remedy_fix *f)
{
	if (f->max_ptes_none == 0) {
		wb_put(b, "host: khugepaged no longer fills empty pages when it collapses");
		planned(b, f);
		others(b, f, "would stop creeping", "would stop creeping", "");
		return;
	}
	wb_put(b,
	       "host: khugepaged then collapses only ranges with at most %ld empty pages: the "
	       "ranges with more stop creeping, the others stay",
	       f->max_ptes_none);
	planned(b, f);
	others(b, f, "has creep", "have creep", " that it would lessen");
}

/* The command of fix F ("" when it is a change in the program). */
const char *remedy_fix_command(const struct remedy *r, int i, char *out, size_t n)
{
	const struct remedy_fix *f = &r->fix[i];
	const struct remedy_proc *p = r->p;
	struct wb b = wb_begin(out, n);
	char path[4 * sizeof(p->unit) + 8];
	switch (f->id) {
	case RF_MALLOC_CONF_THP_NEVER:
		wb_put(&b, "MALLOC_CONF=thp:never");
		break;
	case RF_GLIBC_HUGETLB_0:
		wb_put(&b, "GLIBC_TUNABLES=glibc.malloc.hugetlb=0");
		break;
	case RF_MIMALLOC_THP_0:
		wb_put(&b, "MIMALLOC_ALLOW_THP=0");
		break;
	case RF_MIMALLOC_LARGE_0: /* the name that opted it in (one of two known names) */
		wb_put(&b, "%s=0",
		       r->hint && r->hint->meaning == HI_MIMALLOC_LARGE_ON
			       ? r->hint->var
			       : "MIMALLOC_LARGE_OS_PAGES");
		break;
	case RF_JVM_NO_THP:
		wb_put(&b, "-XX:-UseTransparentHugePages");
		break;
	case RF_GODEBUG_DISABLETHP:
		wb_put(&b, "GODEBUG=disablethp=1");
		break;
	case RF_RUN_OFF:
		run_command(&p->restart, "off", out, n); /* "" when none: the words say why */
		break;
	case RF_SYSTEMD:
		shell_quote(path, sizeof(path), p->unit, strlen(p->unit));
		wb_put(&b, "systemctl edit %s  # [Service] MemoryTHP=disable", path);
		break;
	case RF_HOST_MPN:
		wb_put(&b, "thpctl set khugepaged/max_ptes_none=%ld", f->max_ptes_none);
		break;
	case RF_HOST_MADVISE:
		wb_put(&b, "thpctl set enabled=madvise");
		break;
	case RF_HOST_SHRINK:
		wb_put(&b, "thpctl set khugepaged/max_ptes_none=%ld", f->max_ptes_none);
		break;
	case RF_CG_RECLAIM: {
		char file[sizeof(p->cg_path) + 128], q[4 * sizeof(file) + 8];
		evidence_path(KP_CGROUP_ROOT, 0, NULL, path, sizeof(path));
		snprintf(file, sizeof(file), "%s%s/memory.reclaim", path,
			 strcmp(p->cg_path, "/") ? p->cg_path : "");
		shell_quote(q, sizeof(q), file, strlen(file));
		wb_put(&b, "echo %lluK > %s", (unsigned long long)r->cost_kb, q);
		break;
	}
	case RF_JE_MUZZY:
		wb_put(&b, "MALLOC_CONF=muzzy_decay_ms:0");
		break;
	case RF_COLLAPSE:
		wb_put(&b, "thpctl collapse %ld --dry-run", p->pid);
		break;
	default:
		break;
	}
	return out;
}

/* What a fix against a gain, or the program's own advice, is and does. */
static void gain_words(struct wb *b, const struct remedy *r, enum remedy_fix_id id)
{
	switch (id) {
	case RF_COLLAPSE:
		wb_put(b, "see what collapsing its fully written ranges would do (no change)");
		break;
	case RF_PROGRAM_OPT_IN:
		if (r->part == RP_TCMALLOC)
			wb_put(b, "opt it in, in the program: madvise(MADV_HUGEPAGE) on its hot "
				  "regions (tcmalloc has no setting that advises its heap; "
				  "enabled=always would, for every process)");
		else
			wb_put(b, "opt it in, in the program: madvise(MADV_HUGEPAGE) on the hot "
				  "regions it maps itself (GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "
				  "advises only what malloc maps)");
		break;
	case RF_PROGRAM_ADVICE:
		wb_put(b,
		       "in the program: drop its MADV_HUGEPAGE where it writes sparsely or frees "
		       "in parts (or free whole 2 MiB ranges)");
		break;
	default: /* RF_OPT_IN */
		wb_put(b, "opt it in: %s",
		       r->part == RP_GLIBC	? "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"
		       : r->part == RP_JEMALLOC ? "MALLOC_CONF=thp:always"
		       : r->part == RP_JVM	? "-XX:+UseTransparentHugePages"
		       : r->part == RP_MIMALLOC
			       ? "MIMALLOC_LARGE_OS_PAGES=1 (mimalloc then madvises "
				 "its segments MADV_HUGEPAGE)"
			       : "MADV_HUGEPAGE on its hot heap (its allocator's "
				 "opt-in)");
		break;
	}
}

/* What fix F is and does, beside its command. */
const char *remedy_fix_words(const struct remedy *r, int i, char *out, size_t n)
{
	const struct remedy_fix *f = &r->fix[i];
	struct wb b = wb_begin(out, n);
	switch (f->id) {
	case RF_MALLOC_CONF_THP_NEVER:
		wb_put(&b, "jemalloc's own knob (5.1+): it madvises its arenas MADV_NOHUGEPAGE; "
			   "restart it with this in its environment");
		break;
	case RF_GLIBC_HUGETLB_0:
		wb_put(&b,
		       "glibc malloc's own knob: no MADV_HUGEPAGE on its heaps; restart it with "
		       "this in its environment (setuid and AT_SECURE programs ignore "
		       "GLIBC_TUNABLES)");
		break;
	case RF_MIMALLOC_THP_0:
		wb_put(&b, "mimalloc's own knob (1.9.9, 2.3.1, 3.3.1+): it turns THP off for the "
			   "process at start (prctl); restart it with this in its environment");
		break;
	case RF_MIMALLOC_LARGE_0:
		wb_put(&b, "mimalloc's own knob: no large OS pages, so no MADV_HUGEPAGE on its "
			   "segments; restart it with this in its environment");
		break;
	case RF_JVM_NO_THP:
		wb_put(&b, "the JVM's own option: it no longer madvises its heap; restart it so");
		break;
	case RF_GODEBUG_DISABLETHP:
		wb_put(&b, "the Go runtime's own setting (Go 1.21.6+): its heap is marked "
			   "MADV_NOHUGEPAGE; restart it with this in its environment");
		break;
	case RF_MAP_STACK:
		wb_put(&b,
		       "in the program: map its thread stacks with MAP_STACK (since 6.7 the kernel "
		       "marks them nh, as it does glibc's own stacks) or madvise them "
		       "MADV_NOHUGEPAGE");
		break;
	case RF_RUN_OFF: {
		char note[512];
		const struct run_argv *ra = &r->p->restart;
		wb_put(&b,
		       "per service: restart it with THP off (prctl, inherited by its children); "
		       "its other THP costs and its huge pages go too");
		if (ra->state != RUN_ARGS_INTACT)
			wb_put(&b,
			       "; %s, so no command is printed (one made up would run something "
			       "else): run it under thpctl run --thp=off yourself",
			       run_unread_words(ra, note, sizeof(note)));
		else if (run_cwd_note(&ra->cwd, note, sizeof(note))[0])
			wb_put(&b, "; %s", note);
		break;
	}
	case RF_SYSTEMD:
		wb_put(&b, "per service: systemd's own opt-out (this systemd knows MemoryTHP=)");
		break;
	case RF_PRCTL:
		wb_put(&b,
		       "per service, in the program: prctl(PR_SET_THP_DISABLE, 1) at start (what "
		       "Redis's disable-thp yes does)");
		break;
	case RF_HOST_MPN:
		host_mpn_words(&b, f);
		break;
	case RF_HOST_SHRINK:
		wb_put(&b,
		       "host, only under memory pressure (a bound, not measured): the underused "
		       "shrinker (shrink_underused=1) then splits THPs with more than %ld "
		       "zero-filled pages and frees those pages, where at the maximum it splits "
		       "none; khugepaged then collapses only ranges with at most %ld empty pages",
		       f->max_ptes_none, f->max_ptes_none);
		planned(&b, f);
		others(&b, f, "holds", "hold", " invented memory");
		break;
	case RF_HOST_MADVISE:
		/* enabled splits nothing: what it holds now stays until it restarts */
		wb_put(&b,
		       "host, from its next start: only MADV_HUGEPAGE regions get huge pages at "
		       "fault; the setting splits none, so the huge pages it holds now stay until "
		       "it restarts");
		others(&b, f, "holds", "hold",
		       " huge pages outside such regions and would get no new ones there");
		break;
	case RF_CG_RECLAIM:
		wb_put(&b, "now, per cgroup (v2): reclaim takes lazily freed pages first");
		break;
	case RF_JE_MUZZY:
		wb_put(&b,
		       "jemalloc's own knob: its muzzy pages are the MADV_FREE ones; 0 purges them "
		       "with MADV_DONTNEED at once; restart it with this in its environment (0 is "
		       "the default since 5.2: this undoes a muzzy_decay_ms set in MALLOC_CONF or "
		       "built in)");
		break;
	default:
		gain_words(&b, r, f->id);
		break;
	}
	return out;
}

/* "saves ~398.0 MiB" */
const char *remedy_fix_saves(const struct remedy *r, int i, char *out, size_t n)
{
	const struct remedy_fix *f = &r->fix[i];
	struct wb b = wb_begin(out, n);
	if (r->mech == RM_WOULD_GAIN) {
		wb_put(&b, "no memory saved");
		return out;
	}
	wb_put(&b, "saves ");
	amount(&b, r, f->saves_kb, f->upper_bound);
	return out;
}

void remedy_render_text(FILE *f, const struct remedy *r, bool color)
{
	char t[1024];
	fprintf(f, "  %sPID %ld%s (", col_bold(color), r->p->pid, col_reset(color));
	fputs_safe(r->p->comm, f);
	fprintf(f, ")\n    %-11s ", "mechanism");
	fputs_safe(remedy_mech_words(r, t, sizeof(t)), f);
	fprintf(f, "\n    %-11s ", "responsible");
	fputs_safe(remedy_part_words(r, t, sizeof(t)), f);
	fputc('\n', f);
	for (int i = 0; i < r->nfix; i++) {
		char s[64], c[RUN_CMD_MAX];
		fprintf(f, "    %s%d. %s%s: ", i ? "" : col_yellow(color), i + 1,
			remedy_fix_saves(r, i, s, sizeof(s)), i ? "" : col_reset(color));
		fputs_safe(remedy_fix_words(r, i, t, sizeof(t)), f);
		fputc('\n', f);
		if (remedy_fix_command(r, i, c, sizeof(c))[0])
			wrap_put_command(f, 9, c); /* broken only between its words */
	}
	if (!r->nfix)
		fprintf(f, "    no fix known for this part: reclaim takes it under memory "
			   "pressure\n");
}
