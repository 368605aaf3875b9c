// SPDX-License-Identifier: MIT
#include "remedy.h"

#include <stdio.h>
#include <string.h>

#include "../util/names.h"
#include "slot.h"

#define GAIN_MIN_KB (64 * 1024) /* fully written PTE-mapped ranges worth a collapse */

const char *remedy_mech_name(enum remedy_mech m)
{
	static const char *const n[] = {
		[RM_SPARSE_FAULT] = "sparse-at-fault",	  [RM_CREEP] = "khugepaged-creep",
		[RM_DEFERRED_SPLIT] = "deferred-split",	  [RM_LAZY_FREE] = "lazy-free",
		[RM_WOULD_GAIN] = "would-gain",		  [RM_COLLAPSED] = "collapsed",
		[RM_SPARSE_UNKNOWN] = "fault-or-collapse"};
	return ENUM_NAME(n, m, "?");
}

const char *remedy_part_name(enum remedy_part p)
{
	static const char *const n[] = {
		[RP_UNKNOWN] = "unknown",   [RP_THREAD_STACKS] = "thread-stacks",
		[RP_JEMALLOC] = "jemalloc", [RP_GLIBC] = "glibc-malloc",
		[RP_MIMALLOC] = "mimalloc", [RP_TCMALLOC] = "tcmalloc",
		[RP_GO] = "go-runtime",	    [RP_JVM] = "jvm",
		[RP_PROGRAM] = "program",   [RP_NOT_HEAP] = "unknown"};
	return ENUM_NAME(n, p, "unknown");
}

const char *remedy_fix_name(enum remedy_fix_id f)
{
	static const char *const n[] = {[RF_MALLOC_CONF_THP_NEVER] = "malloc-conf-thp-never",
					[RF_GLIBC_HUGETLB_0] = "glibc-hugetlb-0",
					[RF_MIMALLOC_THP_0] = "mimalloc-allow-thp-0",
					[RF_JVM_NO_THP] = "jvm-no-transparent-huge-pages",
					[RF_GODEBUG_DISABLETHP] = "godebug-disablethp",
					[RF_MAP_STACK] = "map-stack",
					[RF_RUN_OFF] = "thpctl-run-off",
					[RF_SYSTEMD] = "systemd-memorythp",
					[RF_PRCTL] = "prctl",
					[RF_HOST_MPN] = "host-max-ptes-none",
					[RF_HOST_MADVISE] = "host-enabled-madvise",
					[RF_CG_RECLAIM] = "cgroup-memory-reclaim",
					[RF_JE_MUZZY] = "jemalloc-muzzy-decay",
					[RF_COLLAPSE] = "thpctl-collapse-dry-run",
					[RF_OPT_IN] = "allocator-opt-in",
					[RF_PROGRAM_ADVICE] = "program-madvise",
					[RF_HOST_SHRINK] = "host-max-ptes-none-shrinker",
					[RF_PROGRAM_OPT_IN] = "program-opt-in",
					[RF_MIMALLOC_LARGE_0] = "mimalloc-large-os-pages-0"};
	return ENUM_NAME(n, f, "?");
}

void remedy_proc_vmas(struct remedy_proc *p, const struct why_vmas *w)
{
	uint64_t anon = w->t.kb[SM_ANONYMOUS];
	p->hg_huge_kb = w->hg_huge_kb;
	p->huge_not_hg_kb = w->huge_not_hg_kb;
	p->anon_kb = anon > w->nh_anon_kb ? anon - w->nh_anon_kb : 0;
	p->hg_anon_kb = w->hg_anon_kb;
	p->malloc_kb = w->malloc_anon_kb;
	p->hg_vmas = w->hg;
}

bool remedy_would_gain(const struct remedy_proc *p)
{
	return !p->thp_unwanted && p->thp_enabled != 0 && p->led.pte_full_kb >= GAIN_MIN_KB &&
	       p->referenced_hot;
}

static bool hint_is(const struct why_hint *h, const char *var_prefix)
{
	return !strncmp(h->var, var_prefix, strlen(var_prefix));
}

/* The part named by the allocator detection (model/alloc.h), RP_UNKNOWN when it found none. */
static enum remedy_part alloc_part(const struct remedy_proc *p)
{
	static const enum remedy_part parts[AK_NKINDS] = {[AK_GLIBC] = RP_GLIBC,
							  [AK_JEMALLOC] = RP_JEMALLOC,
							  [AK_TCMALLOC] = RP_TCMALLOC,
							  [AK_MIMALLOC] = RP_MIMALLOC,
							  [AK_GO] = RP_GO,
							  [AK_JVM] = RP_JVM};
	if (!p->alloc_known || (unsigned)p->alloc.kind >= AK_NKINDS)
		return RP_UNKNOWN;
	return parts[p->alloc.kind];
}

/* The environment hint that configures PART, if any. */
static const struct why_hint *part_hint(const struct remedy_proc *p, enum remedy_part part)
{
	static const struct {
		const char *var;
		enum remedy_part part;
	} vars[] = {{"MALLOC_CONF", RP_JEMALLOC},    {"_RJEM_MALLOC_CONF", RP_JEMALLOC},
		    {"JE_MALLOC_CONF", RP_JEMALLOC}, {"GLIBC_TUNABLES", RP_GLIBC},
		    {"MIMALLOC_", RP_MIMALLOC},	     {"GODEBUG", RP_GO}};
	for (int i = 0; p->env_known && i < p->nenv; i++)
		for (size_t k = 0; k < sizeof(vars) / sizeof(vars[0]); k++)
			if (vars[k].part == part && hint_is(&p->env[i], vars[k].var))
				return &p->env[i];
	return NULL;
}

/* Whether P's glibc madvises its heaps: glibc.malloc.hugetlb=1, or 2.43's aarch64 default. */
static bool glibc_madvises(const struct remedy_proc *p, const struct why_hint *hint)
{
	return (hint && hint->effect == WE_HELPS) ||
	       (p->alloc_known && (p->alloc.notes & AN_GLIBC_HUGETLB_DEFAULT));
}

/* P's allocator version when its kind is K: how many parts of "X.Y.Z..." were read into V. */
static int alloc_ver(const struct remedy_proc *p, enum alloc_kind k, int v[3])
{
	v[0] = v[1] = v[2] = 0;
	if (!p->alloc_known || p->alloc.kind != k)
		return 0;
	int n = sscanf(p->alloc.version, "%d.%d.%d", &v[0], &v[1], &v[2]);
	return n > 0 ? n : 0;
}

/* Whether V (N parts read) is at least A.B.C: 1, 0, or -1 unknown (no version, no patch). */
static int ver_ge(const int v[3], int n, int a, int b, int c)
{
	if (n < 2)
		return -1;
	if (v[0] != a || v[1] != b)
		return v[0] != a ? v[0] > a : v[1] > b;
	return n < 3 ? (c == 0 ? 1 : -1) : v[2] >= c;
}

/*
 * Whether P's mimalloc is at least the release FIRST names for its major line (1.x, 2.x,
 * 3.x; a later major is): 1, 0, or -1 unknown. mimalloc's lines each got a change at once.
 */
static int mi_ge(const struct remedy_proc *p, const int first[3][3])
{
	int v[3], n = alloc_ver(p, AK_MIMALLOC, v);
	if (n < 1 || v[0] < 1)
		return -1;
	if (v[0] > 3)
		return 1;
	const int *f = first[v[0] - 1];
	return ver_ge(v, n, f[0], f[1], f[2]);
}

/* mimalloc reads MIMALLOC_ALLOW_LARGE_OS_PAGES (large_os_pages renamed, the old name kept) */
static const int MI_ALLOW_LARGE[3][3] = {{1, 8, 2}, {2, 1, 2}, {3, 0, 0}};
/* mimalloc's allow_thp option: =0 stops its own MADV_HUGEPAGE (src/options.c, Dec 2025) */
static const int MI_ALLOW_THP[3][3] = {{1, 9, 6}, {2, 2, 6}, {3, 1, 6}};
/* ... and its prctl(PR_SET_THP_DISABLE) takes effect (the call fixed in April 2026) */
static const int MI_ALLOW_THP_PRCTL[3][3] = {{1, 9, 9}, {2, 3, 1}, {3, 3, 1}};

/* Whether P's mimalloc turns THP off for the whole process with MIMALLOC_ALLOW_THP=0. */
static bool mimalloc_allow_thp(const struct remedy_proc *p)
{
	return mi_ge(p, MI_ALLOW_THP_PRCTL) == 1;
}

/* Whether hint H of P asks mimalloc for large OS pages that it reads (it madvises with them). */
static bool mi_large_on(const struct remedy_proc *p, const struct why_hint *h)
{
	if (h->meaning != HI_MIMALLOC_LARGE_ON)
		return false;
	return !strcmp(h->var, "MIMALLOC_LARGE_OS_PAGES") || mi_ge(p, MI_ALLOW_LARGE) != 0;
}

/* Whether hint H is a jemalloc opt-in to MADV_HUGEPAGE: thp:always, metadata_thp auto|always. */
static bool je_thp_on(const struct why_hint *h)
{
	return h->meaning == HI_JE_ALWAYS ||
	       (h->meaning == HI_JE_METADATA && strcmp(h->value, "metadata_thp:disabled"));
}

/*
 * Whether the C allocator PART madvises MADV_HUGEPAGE as its environment configures it
 * (*OPT: the hint that opts it in, NULL for glibc's aarch64 default): glibc with
 * glibc.malloc.hugetlb=1; jemalloc with thp:always or metadata_thp (its metadata only);
 * mimalloc with large OS pages (unless its allow_thp=0); tcmalloc never (gperftools has no
 * such setting; Google's advises only its per-CPU slabs). A setting compiled in, or
 * jemalloc's /etc/malloc.conf, is not seen here.
 */
static bool alloc_madvises(const struct remedy_proc *p, enum remedy_part part,
			   const struct why_hint **opt)
{
	*opt = NULL;
	if (part == RP_GLIBC) {
		*opt = part_hint(p, RP_GLIBC);
		return glibc_madvises(p, *opt);
	}
	bool mi_off = false;
	for (int i = 0; p->env_known && i < p->nenv; i++) {
		const struct why_hint *h = &p->env[i];
		if (part == RP_MIMALLOC && h->meaning == HI_MIMALLOC_OFF)
			mi_off = mi_ge(p, MI_ALLOW_THP) == 1;
		if (!*opt && ((part == RP_JEMALLOC && je_thp_on(h)) ||
			      (part == RP_MIMALLOC && mi_large_on(p, h))))
			*opt = h;
	}
	return *opt && !mi_off;
}

/*
 * Whether the cost of R sits in MADV_HUGEPAGE regions: creep under madvise (khugepaged
 * collapses only there); else at least half its huge pages in hg VMAs; without huge pages
 * (a held cost after frees split them, a gain), at least half of its anonymous memory.
 */
static bool in_hg(const struct remedy_proc *p, const struct remedy_host *h, const struct remedy *r)
{
	if (r->mech == RM_CREEP)
		return !h->always;
	if (p->led.huge_kb > 0 && r->mech != RM_WOULD_GAIN)
		return p->hg_huge_kb * 2 >= (uint64_t)p->led.huge_kb;
	return p->hg_vmas > 0 && p->hg_anon_kb * 2 >= p->anon_kb;
}

/* Whether glibc malloc holds at least half of P's anonymous memory ([heap], its arenas). */
static bool malloc_holds(const struct remedy_proc *p)
{
	return p->malloc_kb && p->malloc_kb * 2 >= p->anon_kb;
}

/* The part: thread stacks by their stack pointers, else the allocator or runtime a hint names. */
static void find_part(const struct remedy_proc *p, const struct remedy_host *h, struct remedy *r)
{
	uint64_t huge = p->led.huge_kb > 0 ? (uint64_t)p->led.huge_kb : 0;
	if (r->mech != RM_LAZY_FREE && p->stacks_known && p->stack_threads > 0 &&
	    p->stack_huge_kb * 2 >= huge && p->stack_huge_kb) {
		r->part = RP_THREAD_STACKS;
		r->evidence = RE_STACK_POINTERS;
		return;
	}
	/* what the executable and its libraries say decides; a hint only supports it */
	enum remedy_part ap = alloc_part(p);
	if (ap == RP_GLIBC && r->mech == RM_LAZY_FREE) {
		r->not_malloc = true; /* glibc returns memory with MADV_DONTNEED or munmap */
		return;
	}
	if (ap != RP_UNKNOWN) {
		r->part = ap;
		r->evidence = RE_ALLOC;
		r->hint = part_hint(p, ap);
		const struct why_hint *opt;
		if (ap == RP_GO || ap == RP_JVM || r->mech == RM_LAZY_FREE)
			return;
		if (alloc_madvises(p, ap, &opt)) {
			r->hint = opt ? opt : r->hint;
			return;
		}
		/* the allocator gives no MADV_HUGEPAGE as its environment configures it: hg
		 * regions are the program's doing as far as can be told; memory outside glibc's
		 * heap and arenas is not malloc's */
		if (in_hg(p, h, r)) {
			r->part = RP_PROGRAM;
			r->evidence = RE_HG_VMAS;
		} else if (ap == RP_GLIBC && !malloc_holds(p)) {
			r->part = RP_NOT_HEAP;
			r->evidence = RE_VMAS;
			r->hint = NULL;
		}
		return;
	}
	static const struct {
		const char *var;
		enum remedy_part part;
	} vars[] = {{"MALLOC_CONF", RP_JEMALLOC},    {"_RJEM_MALLOC_CONF", RP_JEMALLOC},
		    {"JE_MALLOC_CONF", RP_JEMALLOC}, {"GLIBC_TUNABLES", RP_GLIBC},
		    {"MIMALLOC_", RP_MIMALLOC},	     {"GODEBUG", RP_GO},
		    {"JAVA_TOOL_OPTIONS", RP_JVM},   {"JDK_JAVA_OPTIONS", RP_JVM},
		    {"_JAVA_OPTIONS", RP_JVM}};
	for (int i = 0; p->env_known && i < p->nenv; i++)
		for (size_t k = 0; k < sizeof(vars) / sizeof(vars[0]); k++)
			if (hint_is(&p->env[i], vars[k].var)) {
				r->part = vars[k].part;
				r->evidence = RE_ENVIRON;
				r->hint = &p->env[i];
				return;
			}
	if (p->ncmd) {
		r->part = RP_JVM;
		r->evidence = RE_CMDLINE;
		r->hint = &p->cmd[0];
	} else if (p->go) {
		r->part = RP_GO;
		r->evidence = RE_GO_BUILDINFO;
	} else if (p->java) {
		r->part = RP_JVM;
		r->evidence = RE_COMM;
	}
}

static struct remedy_fix *fix(struct remedy *r, enum remedy_fix_id id, enum remedy_scope scope,
			      int64_t saves_kb)
{
	struct remedy_fix *f = SLOT_TAKE(r->fix, r->nfix);
	if (!f)
		return NULL;
	f->id = id;
	f->scope = scope;
	f->saves_kb = saves_kb;
	return f;
}

/* Whether P's Go version is known and older than MAJ.MIN.PATCH. */
static bool go_older(const struct remedy_proc *p, int maj, int min, int patch)
{
	const char *v = p->alloc_known && p->alloc.kind == AK_GO && p->alloc.version[0]
				? p->alloc.version
				: p->gover;
	int a = 0, b = 0, c = 0;
	if (strncmp(v, "go", 2) || sscanf(v + 2, "%d.%d.%d", &a, &b, &c) < 2)
		return false; /* unknown: not older as far as we know */
	return a != maj ? a < maj : b != min ? b < min : c < patch;
}

/* The environment hint of P with MEANING, if any. */
static const struct why_hint *env_hint(const struct remedy_proc *p, enum why_hint_id meaning)
{
	for (int i = 0; p->env_known && i < p->nenv; i++)
		if (p->env[i].meaning == meaning)
			return &p->env[i];
	return NULL;
}

/* mimalloc's knobs: its large OS pages off where they put the cost in hg regions; allow_thp=0
 * where this version turns the process's THP off with it (MIMALLOC_ALLOW_THP is unknown to
 * mimalloc before 1.9.6, 2.2.6, 3.1.6 and stops only its own advice before 1.9.9, 2.3.1,
 * 3.3.1) */
static void mimalloc_knobs(const struct remedy_proc *p, const struct remedy_host *h,
			   struct remedy *r, int64_t kb)
{
	const struct why_hint *opt;
	if (alloc_madvises(p, RP_MIMALLOC, &opt) && in_hg(p, h, r))
		fix(r, RF_MIMALLOC_LARGE_0, RS_PROCESS, kb);
	if (mimalloc_allow_thp(p))
		fix(r, RF_MIMALLOC_THP_0, RS_PROCESS, kb);
}

/* The allocator's or runtime's own knob against the cost, when the part has one. */
static void own_knob(const struct remedy_proc *p, const struct remedy_host *h, struct remedy *r)
{
	int64_t kb = r->cost_kb;
	switch (r->part) {
	case RP_THREAD_STACKS:
		if (r->cost == LC_INVENTED && (int64_t)p->stack_huge_kb < kb)
			kb = (int64_t)p->stack_huge_kb;
		fix(r, RF_MAP_STACK, RS_PROCESS, kb);
		break;
	case RP_JEMALLOC: /* not where its environment has it already */
		if (!env_hint(p, HI_JE_NEVER))
			fix(r, RF_MALLOC_CONF_THP_NEVER, RS_PROCESS, kb);
		break;
	case RP_GLIBC: /* only its hugetlb=1 (or 2.43's aarch64 default) madvises its heaps */
		if (glibc_madvises(p, r->hint))
			fix(r, RF_GLIBC_HUGETLB_0, RS_PROCESS, kb);
		break;
	case RP_PROGRAM:
		fix(r, RF_PROGRAM_ADVICE, RS_PROCESS, kb);
		break;
	case RP_MIMALLOC:
		mimalloc_knobs(p, h, r, kb);
		break;
	case RP_GO: /* disablethp arrived in Go 1.21.6 (and 1.22) */
		if (!go_older(p, 1, 21, 6))
			fix(r, RF_GODEBUG_DISABLETHP, RS_PROCESS, kb);
		break;
	case RP_JVM:
		if (p->jvm_thp)
			fix(r, RF_JVM_NO_THP, RS_PROCESS, kb);
		break;
	default:
		break;
	}
	if (r->nfix && r->cost == LC_CREEP)
		r->fix[r->nfix - 1].upper_bound = true;
}

/* The other processes host fix F reaches: those with some of the cost it acts on (COST). */
static void host_others(const struct remedy_proc *p, const struct remedy_host *h,
			enum ledger_cost cost, struct remedy_fix *f)
{
	f->others = h->others ? 0 : -1; /* -1: not scanned here */
	for (int i = 0; h->others && i < h->nothers; i++) {
		const struct remedy_other *o = &h->others[i];
		int64_t kb = cost == LC_CREEP	   ? o->creep_kb
			     : cost == LC_INVENTED ? o->invented_kb
						   : (int64_t)o->huge_not_hg_kb;
		if (o->pid == p->pid || kb <= 0)
			continue;
		if (f->others < REMEDY_MAX_OTHERS) {
			f->other_pid[f->others] = o->pid;
			f->other_comm[f->others] = o->comm;
		}
		f->others++;
		f->others_kb += kb;
	}
}

/*
 * The host knobs against the cost: max_ptes_none for creep, enabled for THP outside hg;
 * for invented memory, max_ptes_none at PMD/8 where shrink_underused=1 splits nothing at the
 * maximum (at most the invented bytes, and only under memory pressure).
 */
static void host_knob(const struct remedy_proc *p, const struct remedy_host *h, struct remedy *r)
{
	struct remedy_fix *f;
	bool creep = r->cost == LC_CREEP, plan = h->mpn_planned;
	/* one value for max_ptes_none in a report: the settings' when they recommend one */
	long eighth = (h->max_ptes_none_max + 1) / 8, mpn = plan ? h->mpn_plan : 0;
	int64_t saves = r->cost_kb; /* at 0: all of it */
	if (mpn > 0)		    /* the creep khugepaged may still add at PMD/8 stays */
		saves = mpn == eighth && p->led.creep_eighth_kb >= 0
				? r->cost_kb - p->led.creep_eighth_kb
				: r->cost_kb; /* another value: at most all of it */
	if (creep && mpn < h->max_ptes_none && (f = fix(r, RF_HOST_MPN, RS_HOST, saves))) {
		f->upper_bound = true;
		f->max_ptes_none = mpn;
		f->planned = plan;
		host_others(p, h, LC_CREEP, f);
	}
	if (!creep && h->always && p->huge_not_hg_kb &&
	    (f = fix(r, RF_HOST_MADVISE, RS_HOST,
		     r->cost_kb < (int64_t)p->huge_not_hg_kb ? r->cost_kb
							     : (int64_t)p->huge_not_hg_kb)))
		host_others(p, h, LC_NONE, f);
	if (r->cost == LC_INVENTED && h->shrink_underused && h->max_ptes_none_max > 0 &&
	    h->max_ptes_none >= h->max_ptes_none_max &&
	    (f = fix(r, RF_HOST_SHRINK, RS_HOST, r->cost_kb))) {
		f->upper_bound = true;
		f->max_ptes_none = plan ? h->mpn_plan : eighth;
		f->planned = plan;
		host_others(p, h, LC_INVENTED, f);
	}
}

/* What a fix takes off the flagged cost: its saving, up to the cost. */
static int64_t of_cost(const struct remedy *r, const struct remedy_fix *f)
{
	return f->saves_kb < r->cost_kb ? f->saves_kb : r->cost_kb;
}

/*
 * Rank: a saving the ledger measured before a bound (at most: creep, the underused
 * shrinker); then the part of the flagged cost removed, larger first; then the narrower reach
 * (stable).
 */
static void rank(struct remedy *r)
{
	for (int i = 1; i < r->nfix; i++)
		for (int j = i; j > 0; j--) {
			struct remedy_fix *a = &r->fix[j - 1], *b = &r->fix[j];
			int64_t ka = of_cost(r, a), kb = of_cost(r, b);
			bool swap = a->upper_bound != b->upper_bound
					    ? a->upper_bound
					    : kb > ka || (kb == ka && b->scope < a->scope);
			if (!swap)
				break;
			struct remedy_fix t = *a;
			*a = *b;
			*b = t;
		}
}

/*
 * A per-service opt-out removes the flagged cost (and the others with it, which are not
 * added up: creep and held overlap when khugepaged collapses a range a held folio maps).
 */
static void opt_out(struct remedy *r, enum remedy_fix_id id)
{
	struct remedy_fix *f = fix(r, id, RS_SERVICE, r->cost_kb);
	if (f)
		f->upper_bound = r->cost == LC_CREEP;
}

static void fixes_thp(const struct remedy_proc *p, const struct remedy_host *h, struct remedy *r)
{
	own_knob(p, h, r);
	opt_out(r, RF_RUN_OFF);
	if (h->systemd_thp == 1 && p->unit[0])
		opt_out(r, RF_SYSTEMD);
	opt_out(r, RF_PRCTL);
	host_knob(p, h, r);
}

/*
 * Whether jemalloc's muzzy_decay_ms:0 would change P: jemalloc 5.2+ defaults to 0 (no
 * MADV_FREE), so only where its environment sets another value, or before 5.2 (or version
 * unknown). A compiled-in setting is not seen here.
 */
static bool je_muzzy_set(const struct remedy_proc *p)
{
	const struct why_hint *m = env_hint(p, HI_JE_MUZZY);
	if (m)
		return strcmp(m->value, "muzzy_decay_ms:0") != 0;
	int v[3], n = alloc_ver(p, AK_JEMALLOC, v);
	return ver_ge(v, n, 5, 2, 0) != 1;
}

static void fixes_lazy(const struct remedy_proc *p, struct remedy *r)
{
	if (r->part == RP_JEMALLOC && je_muzzy_set(p))
		fix(r, RF_JE_MUZZY, RS_PROCESS, r->cost_kb);
	if (p->cg_version == 2 && p->cg_path[0])
		fix(r, RF_CG_RECLAIM, RS_SERVICE, r->cost_kb);
}

const char *remedy_origin_ev_name(enum remedy_origin_ev e)
{
	static const char *const n[] = {[ROE_NONE] = "none",
					[ROE_CGROUP] = "memory-cgroup-counters",
					[ROE_HOST] = "host-counters",
					[ROE_POLICY] = "policy"};
	return ENUM_NAME(n, e, "?");
}

/*
 * Where R's invented memory came from: no counter of the process says it. The evidence, most
 * specific first: its memory cgroup's thp_fault_alloc and thp_collapse_alloc (v2; none
 * there, both 0: its THPs were charged elsewhere), else the host's since boot, when one is 0
 * and the other not; else the policy: under madvise (or never) no fault gets a huge page
 * outside an hg VMA, and none of its huge pages is in one. Else unknown, never a guess.
 */
static void find_origin(const struct remedy_proc *p, const struct remedy_host *h, struct remedy *r)
{
	const struct opt_u64 *f = &p->cg_fault_alloc, *c = &p->cg_collapse_alloc;
	r->origin_cgroup = f->present && c->present && (f->v || c->v);
	if (!r->origin_cgroup) {
		f = &h->fault_alloc;
		c = &h->collapse_alloc;
	}
	r->origin_counted = f->present && c->present;
	r->mech = RM_SPARSE_UNKNOWN;
	r->origin_ev = ROE_NONE;
	if (r->origin_counted) {
		r->fault_alloc = f->v;
		r->collapse_alloc = c->v;
		r->origin_ev = r->origin_cgroup ? ROE_CGROUP : ROE_HOST;
		if (!c->v && f->v) {
			r->mech = RM_SPARSE_FAULT;
			return;
		}
		if (!f->v && c->v) {
			r->mech = RM_COLLAPSED;
			return;
		}
	}
	bool hg_only = h->policy && (!strcmp(h->policy, "madvise") || !strcmp(h->policy, "never"));
	if (hg_only && p->led.huge_kb > 0 && !p->hg_huge_kb) {
		r->mech = RM_COLLAPSED;
		r->origin_ev = ROE_POLICY;
		r->policy_never = !strcmp(h->policy, "never");
	}
}

bool remedy_build(const struct remedy_proc *p, const struct remedy_host *h, struct remedy *out)
{
	enum ledger_cost c = ledger_top_cost(&p->led);
	if (c == LC_NONE && !remedy_would_gain(p))
		return false;
	memset(out, 0, sizeof(*out));
	out->p = p;
	out->cost = c;
	out->cost_kb = c == LC_NONE ? p->led.pte_full_kb : ledger_cost_kb(&p->led, c);
	static const enum remedy_mech mech[] = {[LC_NONE] = RM_WOULD_GAIN,
						[LC_INVENTED] = RM_SPARSE_FAULT,
						[LC_HELD] = RM_DEFERRED_SPLIT,
						[LC_CREEP] = RM_CREEP,
						[LC_LAZYFREE] = RM_LAZY_FREE};
	out->mech = mech[c];
	if (c == LC_INVENTED)
		find_origin(p, h, out);
	find_part(p, h, out);
	if (out->mech == RM_WOULD_GAIN) {
		fix(out, RF_COLLAPSE, RS_PROCESS, 0);
		/* not malloc's, or tcmalloc (no setting advises its heap): the program's own */
		if (out->part == RP_NOT_HEAP || out->part == RP_TCMALLOC)
			fix(out, RF_PROGRAM_OPT_IN, RS_PROCESS, 0);
		else if (out->part != RP_PROGRAM) /* its MADV_HUGEPAGE is there already */
			fix(out, RF_OPT_IN, RS_PROCESS, 0);
		return true;
	}
	if (out->mech == RM_LAZY_FREE)
		fixes_lazy(p, out);
	else
		fixes_thp(p, h, out);
	rank(out);
	return true;
}
