// SPDX-License-Identifier: MIT
#include "findings.h"

#include <errno.h>
#include <string.h>

#include "../util/names.h"
#include "slot.h"
#include "../util/str.h"
#include "../util/wide.h"

static const char *const severity_names[] = {[SEV_CRIT] = "crit", [SEV_WARN] = "warn"};

const char *severity_name(enum severity s)
{
	return ENUM_NAME(severity_names, s, "info");
}

static const char *const area_names[AREA_N] = {
	[AREA_LATENCY] = "latency",
	[AREA_MEMORY] = "memory",
	[AREA_FRAGMENTATION] = "fragmentation",
	[AREA_KHUGEPAGED] = "khugepaged",
	[AREA_HUGETLB] = "hugetlb",
	[AREA_VISIBILITY] = "visibility",
	[AREA_ACCESS] = "access",
};

const char *finding_area_name(enum finding_area a)
{
	return ENUM_NAME(area_names, a, "?");
}

static struct finding *add(struct findings *out, enum finding_kind kind, enum severity sev,
			   enum finding_area area)
{
	struct finding *f = SLOT_TAKE(out->f, out->n);
	if (!f)
		return NULL;
	f->kind = kind;
	f->id = finding_id(kind);
	f->sev = sev;
	f->area = area;
	return f;
}

/* The fix is a setting: KEY (relative to the THP directory, as `thpctl set` takes it) = WORD. */
static void set_fix(struct finding *f, const char *key, const char *word)
{
	str_copy(f->set_key, sizeof(f->set_key), key);
	str_copy(f->set_value, sizeof(f->set_value), word);
}

/* The fix is a numeric setting: KEY = V. */
static void set_fix_u64(struct finding *f, const char *key, uint64_t v)
{
	str_copy(f->set_key, sizeof(f->set_key), key);
	u64_str(f->set_value, sizeof(f->set_value), v);
}

static uint64_t vm(const struct host_snapshot *h, const char *k, bool *ok)
{
	uint64_t v = 0;
	*ok = kv_get(&h->vmstat, k, &v);
	return v;
}

/* Base pages per PMD (512 on x86-64 with 4 KiB pages), 0 when unknown. */
static uint64_t pmd_pages(const struct host_snapshot *h)
{
	if (!h->feat.pmd_size || h->feat.page_size <= 0)
		return 0;
	return h->feat.pmd_size / (uint64_t)h->feat.page_size;
}

/*
 * The max_ptes_none both rules recommend: 1/8 of a PMD (64 on x86-64), so a
 * collapse needs 7/8 of the range touched and the underused shrinker is armed.
 */
static uint64_t max_ptes_none_advice(const struct host_snapshot *h)
{
	uint64_t n = pmd_pages(h);
	return n ? n / 8 : 64;
}

/* Effective anon policy of the PMD size: per-size (6.8+) or the top-level file. */
static const char *pmd_policy(const struct host_snapshot *h)
{
	return thp_pmd_policy_of(&h->thp, h->feat.pmd_size, NULL);
}

static bool is(const char *a, const char *b)
{
	return a && strcmp(a, b) == 0;
}

static bool max_ptes_none_full(const struct host_snapshot *h, uint64_t *v)
{
	const struct opt_u64 *o = &h->thp.khp[KHP_MAX_PTES_NONE];
	if (!o->present)
		return false;
	*v = o->v;
	uint64_t n = pmd_pages(h);
	return n ? o->v >= n - 1 : o->v >= 511;
}

void rule_defrag_always(const struct host_snapshot *h, const struct host_derived *d,
			struct findings *out)
{
	(void)d;
	if (defrag_stalls(&h->thp.defrag) != DEFRAG_STALL_ANY)
		return;
	struct finding *f = add(out, FK_DEFRAG_ALWAYS, SEV_WARN, AREA_LATENCY);
	if (f)
		set_fix(f, "defrag", "madvise");
}

void rule_always_max_ptes_none(const struct host_snapshot *h, const struct host_derived *d,
			       struct findings *out)
{
	(void)d;
	uint64_t mpn;
	if (!is(pmd_policy(h), "always") || !max_ptes_none_full(h, &mpn))
		return;
	struct finding *f = add(out, FK_ALWAYS_MAX_PTES_NONE, SEV_WARN, AREA_MEMORY);
	if (!f)
		return;
	f->ev.max_ptes_none = mpn;
	set_fix_u64(f, "khugepaged/max_ptes_none", max_ptes_none_advice(h));
}

void rule_fault_success_low(const struct host_snapshot *h, const struct host_derived *d,
			    struct findings *out)
{
	(void)h;
	const struct ratio *r = NULL;
	uint64_t size_kb = 0;
	if (d->fault_success.valid && d->fault_success.den >= 100 && d->fault_success.value < 0.5) {
		r = &d->fault_success;
	} else {
		for (int i = 0; i < d->nsizes; i++) {
			const struct ratio *s = &d->sizes[i].success;
			if (s->valid && s->den >= 100 && s->value < 0.5) {
				r = s;
				size_kb = d->sizes[i].size_kb;
				break;
			}
		}
	}
	struct finding *f = r ? add(out, FK_FAULT_SUCCESS_LOW, SEV_WARN, AREA_FRAGMENTATION) : NULL;
	if (!f)
		return;
	f->ev.fault.r = *r;
	f->ev.fault.size_kb = size_kb;
	f->ev.fault.pmd_order = d->pmd_order;
	f->ev.fault.free_pmd_blocks = d->free_pmd_blocks;
	f->ev.fault.has_free_blocks = h->has_buddy && !h->buddy.bad && !h->buddy.dup;
}

void rule_compact_stall(const struct host_snapshot *h, const struct host_derived *d,
			struct findings *out)
{
	(void)d;
	bool ok, okf, oks;
	uint64_t stall = vm(h, "compact_stall", &ok);
	uint64_t fail = vm(h, "compact_fail", &okf);
	uint64_t succ = vm(h, "compact_success", &oks);
	if (!ok || stall == 0)
		return;
	enum defrag_stall who = defrag_stalls(&h->thp.defrag);
	enum compact_cause cause = compact_stall_cause(who, &h->vmstat);
	/* a warning only where THP faults may be among the stalls: none since boot, or a defrag
	 * that makes no THP fault compact, leaves the stalls to other allocations (info) */
	bool thp = cause != COMPACT_CAUSE_NO_FAULTS && cause != COMPACT_CAUSE_NOT_THP;
	struct finding *f =
		add(out, FK_COMPACT_STALL, stall >= 100 && thp ? SEV_WARN : SEV_INFO, AREA_LATENCY);
	if (!f)
		return;
	f->ev.compact.stall = stall;
	f->ev.compact.fail = fail;
	f->ev.compact.success = succ;
	f->ev.compact.has_outcome = okf && oks;
	f->ev.compact.defrag = h->thp.defrag.present ? h->thp.defrag.selected : NULL;
	f->ev.compact.has_faults =
		kv_get(&h->vmstat, "thp_fault_alloc", &f->ev.compact.fault_alloc) &&
		kv_get(&h->vmstat, "thp_fault_fallback", &f->ev.compact.fault_fallback);
	/* the fix depends on who may stall now; compact_stall counts every direct compaction, so
	 * a setting is the fix only where every THP fault may compact (defrag=always, which
	 * advise's rule defrag-always changes too); under madvise no counter tells the share of
	 * MADV_HUGEPAGE faults, and advise changes nothing for it: no setting is offered */
	f->ev.compact.who = who;
	f->ev.compact.cause = cause;
	if (f->ev.compact.cause == COMPACT_CAUSE_ANY_FAULT)
		set_fix(f, "defrag", "madvise");
}

void rule_deferred_split(const struct host_snapshot *h, const struct host_derived *d,
			 struct findings *out)
{
	bool okd, oks;
	uint64_t def = vm(h, "thp_deferred_split_page", &okd);
	uint64_t split = vm(h, "thp_split_page", &oks);
	/*
	 * 6.12+ counts what is held now (nr_anon_partially_mapped): trust it.
	 * Older kernels only have since-boot counters, which may be long gone.
	 */
	bool held = d->has_partially_mapped ? d->nr_anon_partially_mapped > 0
					    : okd && oks && def > split;
	struct finding *f = held ? add(out, FK_DEFERRED_SPLIT, SEV_INFO, AREA_MEMORY) : NULL;
	if (!f)
		return;
	f->ev.split.deferred = def;
	f->ev.split.split = split;
	f->ev.split.has_partially_mapped = d->has_partially_mapped;
	f->ev.split.partially_mapped = d->nr_anon_partially_mapped;
}

void rule_shrink_underused_noop(const struct host_snapshot *h, const struct host_derived *d,
				struct findings *out)
{
	(void)d;
	uint64_t mpn;
	if (!h->thp.shrink_underused.present || h->thp.shrink_underused.v != 1 ||
	    !max_ptes_none_full(h, &mpn))
		return;
	/* what `thpctl lab shrinker` measured on this kernel, when it ran here */
	const struct shrinker_record *rec = &h->shrinker;
	bool same = h->has_shrinker && !strcmp(rec->kernel, h->feat.release);
	const struct shrinker_phase *top = same ? shrinker_record_phase(rec, (long)mpn) : NULL;
	if (top && top->ahp_after_kb < top->ahp_before_kb / 2)
		return; /* measured: this kernel did split underused THPs at this max_ptes_none */
	struct finding *f = add(out, FK_SHRINK_UNDERUSED_NOOP, SEV_INFO, AREA_MEMORY);
	if (!f)
		return;
	struct finding_shrink *e = &f->ev.shrink;
	e->max_ptes_none = mpn;
	if (top) {
		e->measured = true;
		_Static_assert(sizeof(e->time) == sizeof(rec->time), "time sizes");
		memcpy(e->time, rec->time, sizeof(e->time));
		e->before_kb = top->ahp_before_kb;
		e->after_kb = top->ahp_after_kb;
	}
	const struct shrinker_phase *low = NULL;
	for (int i = 0; top && i < rec->n; i++)
		if (rec->p[i].max_ptes_none < (long)mpn &&
		    (!low || rec->p[i].max_ptes_none > low->max_ptes_none))
			low = &rec->p[i];
	if (low) {
		e->has_low = true;
		e->low_mpn = low->max_ptes_none;
		e->low_before_kb = low->ahp_before_kb;
		e->low_after_kb = low->ahp_after_kb;
	}
	set_fix_u64(f, "khugepaged/max_ptes_none", max_ptes_none_advice(h));
}

void rule_cow_copy(const struct host_snapshot *h, const struct host_derived *d,
		   struct findings *out)
{
	(void)d;
	if (host_cow_copies_thp(h) != TRI_YES || !is(pmd_policy(h), "always"))
		return;
	struct finding *f = add(out, FK_COW_COPY, SEV_WARN, AREA_MEMORY);
	if (!f)
		return;
	f->ev.release = h->feat.release;
	set_fix(f, "enabled", "madvise");
}

void rule_large_pmd(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out)
{
	(void)d;
	const char *pol = pmd_policy(h);
	/* with the PMD size at never, nothing faults in a PMD */
	if (h->feat.pmd_size <= (2u << 20) || is(pol, "never"))
		return;
	bool always = is(pol, "always");
	struct finding *f = add(out, FK_LARGE_PMD, always ? SEV_WARN : SEV_INFO, AREA_MEMORY);
	if (!f)
		return;
	f->ev.pmd.pmd_size = h->feat.pmd_size;
	f->ev.pmd.policy = pol;
	f->ev.pmd.always = always;
	if (pol) /* the policy unread: which regions are at risk, and the fix, are unknown */
		set_fix(f, "enabled", always ? "madvise" : "never");
}

void rule_mthp_no_stats(const struct host_snapshot *h, const struct host_derived *d,
			struct findings *out)
{
	(void)d;
	for (int i = 0; i < h->thp.nsizes; i++) {
		const struct thp_size *sz = &h->thp.sizes[i];
		if (sz->has_stats || !sz->eff_enabled || strcmp(sz->eff_enabled, "never") == 0 ||
		    (u128)sz->size_kb * 1024 == h->feat.pmd_size)
			continue;
		struct finding *f = add(out, FK_MTHP_NO_STATS, SEV_WARN, AREA_VISIBILITY);
		if (!f)
			return;
		f->ev.mthp.size_kb = sz->size_kb;
		f->ev.mthp.enabled = sz->enabled.selected;
		f->ev.mthp.effective = sz->eff_enabled;
		char key[64];
		thp_size_key(key, sizeof(key), sz->size_kb, "enabled");
		set_fix(f, key, "never");
		return;
	}
}

void rule_hugetlb_idle(const struct host_snapshot *h, const struct host_derived *d,
		       struct findings *out)
{
	(void)d;
	for (int i = 0; i < h->hugetlb.npools; i++) {
		const struct hugetlb_pool *p = &h->hugetlb.pools[i];
		/* resv unread: a database's reservation may hold the pool: not "for nobody" */
		if (p->node >= 0 || !p->nr.present || !p->free.present || p->nr.v == 0 ||
		    p->free.v != p->nr.v || !p->resv.present || p->resv.v > 0)
			continue;
		struct finding *f = add(out, FK_HUGETLB_IDLE, SEV_WARN, AREA_HUGETLB);
		if (!f)
			return;
		f->ev.pool.size_kb = p->size_kb;
		f->ev.pool.nr = p->nr.v;
		f->ev.pool.free = p->free.v;
		f->ev.pool.resv = p->resv.v;
		uint64_t dflt;
		if (kv_get(&h->meminfo, "Hugepagesize", &dflt) && dflt == p->size_kb) {
			/* the default size: vm.nr_hugepages, which persist also writes */
			f->ev.pool.default_size = true;
			set_fix(f, "vm.nr_hugepages", "0");
			f->sysctl = true;
		}
		return;
	}
}

void rule_khugepaged_cpu(const struct host_snapshot *h, const struct host_derived *d,
			 struct findings *out)
{
	if (!d->khugepaged_cpu.valid || d->khugepaged_cpu.value <= 0.05)
		return;
	struct finding *f = add(out, FK_KHUGEPAGED_CPU, SEV_WARN, AREA_KHUGEPAGED);
	if (!f)
		return;
	f->ev.khp.share = d->khugepaged_cpu.value;
	f->ev.khp.cpu_s = h->khugepaged_cpu_s;
	f->ev.khp.uptime_s = h->uptime_s;
	f->ev.khp.alive_s = d->khugepaged_alive_s;
	f->ev.khp.late = d->khugepaged_late;
	set_fix_u64(f, "khugepaged/scan_sleep_millisecs", 20000);
}

void rule_read_only(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out)
{
	(void)d;
	if (!h->thp.present || h->thp.write_err == 0 || h->thp.write_err == -ENOENT ||
	    h->thp.write_err == -ENODATA) /* not recorded: unknown, not read-only */
		return;
	struct finding *f = add(out, FK_READ_ONLY, SEV_INFO, AREA_ACCESS);
	if (f)
		f->ev.write_err = h->thp.write_err;
}

void rule_tuned_thp(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out)
{
	(void)d;
	const struct tuned_state *t = &h->tuned;
	/* nothing applies it: not running and not started at boot */
	if (!h->has_tuned || !t->has_active || !t->nset ||
	    (t->running == TRI_NO && t->enabled != TRI_YES))
		return;
	struct finding_tuned_set set[TUNED_MAX_SET];
	int nset = 0, ndiff = 0;
	for (int i = 0; i < t->nset && i < TUNED_MAX_SET; i++) {
		const struct tuned_setting *e = &t->set[i];
		/* plugin_vm.py skips transparent_hugepages when the kernel command line has it */
		if (e->vm && strcmp(e->key, "enabled") == 0 && h->feat.cmdline_thp[0])
			continue;
		struct finding_tuned_set *x = &set[nset++];
		memset(x, 0, sizeof(*x));
		x->i = i;
		int r = host_thp_value(h, e->key, x->live, sizeof(x->live));
		x->unread = r != 0;
		x->differs = r == 0 && strcmp(x->live, e->value) != 0;
		ndiff += x->differs;
	}
	struct finding *f =
		nset ? add(out, FK_TUNED_SETS_THP, ndiff ? SEV_WARN : SEV_INFO, AREA_ACCESS) : NULL;
	if (!f)
		return;
	f->ev.tuned.t = t;
	f->ev.tuned.nset = nset;
	f->ev.tuned.ndiff = ndiff;
	memcpy(f->ev.tuned.set, set, sizeof(set[0]) * (size_t)nset);
}

/* Every finding by kind: its stable id and its rule; the rules run in this order. */
static const struct {
	const char *id;
	finding_rule rule;
} rules[FK_N] = {
	[FK_DEFRAG_ALWAYS] = {"defrag-always", rule_defrag_always},
	[FK_ALWAYS_MAX_PTES_NONE] = {"always-max-ptes-none", rule_always_max_ptes_none},
	[FK_FAULT_SUCCESS_LOW] = {"fault-success-low", rule_fault_success_low},
	[FK_COMPACT_STALL] = {"compact-stall", rule_compact_stall},
	[FK_DEFERRED_SPLIT] = {"deferred-split", rule_deferred_split},
	[FK_SHRINK_UNDERUSED_NOOP] = {"shrink-underused-noop", rule_shrink_underused_noop},
	[FK_COW_COPY] = {"cow-copy", rule_cow_copy},
	[FK_LARGE_PMD] = {"large-pmd", rule_large_pmd},
	[FK_MTHP_NO_STATS] = {"mthp-no-stats", rule_mthp_no_stats},
	[FK_HUGETLB_IDLE] = {"hugetlb-idle", rule_hugetlb_idle},
	[FK_KHUGEPAGED_CPU] = {"khugepaged-cpu", rule_khugepaged_cpu},
	[FK_READ_ONLY] = {"settings-read-only", rule_read_only},
	[FK_TUNED_SETS_THP] = {"tuned-sets-thp", rule_tuned_thp},
};

const char *finding_id(enum finding_kind k)
{
	return (unsigned)k < FK_N && rules[k].id ? rules[k].id : "?";
}

void findings_worst_per_area(const struct findings *fs, int out[AREA_N])
{
	for (int a = 0; a < AREA_N; a++)
		out[a] = -1;
	for (int i = 0; i < fs->n; i++) {
		unsigned a = (unsigned)fs->f[i].area;
		if (a < AREA_N && (out[a] < 0 || fs->f[out[a]].sev < fs->f[i].sev))
			out[a] = i;
	}
}

void findings_evaluate(const struct host_snapshot *h, const struct host_derived *d,
		       struct findings *out)
{
	out->n = 0;
	for (int k = 0; k < FK_N; k++)
		if (rules[k].rule)
			rules[k].rule(h, d, out);
	/* a tmpfiles line or unit would lose against tuned's next apply */
	bool tuned = false;
	for (int i = 0; i < out->n; i++)
		tuned |= out->f[i].kind == FK_TUNED_SETS_THP;
	for (int i = 0; i < out->n; i++)
		out->f[i].via_tuned = tuned && out->f[i].set_key[0] && !out->f[i].sysctl;
	/* stable sort, most severe first */
	for (int i = 1; i < out->n; i++)
		for (int j = i; j > 0 && out->f[j - 1].sev < out->f[j].sev; j--) {
			struct finding t = out->f[j];
			out->f[j] = out->f[j - 1];
			out->f[j - 1] = t;
		}
}
