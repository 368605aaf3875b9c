// SPDX-License-Identifier: MIT
#include "findings.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/names.h"
#include "../util/units.h"
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

/* The command that shows more about each area. */
static const char *const area_more[AREA_N] = {
	[AREA_LATENCY] = "thpctl trace stalls", [AREA_MEMORY] = "thpctl ps",
	[AREA_FRAGMENTATION] = "thpctl watch",	[AREA_KHUGEPAGED] = "thpctl watch",
	[AREA_HUGETLB] = "thpctl hugetlb plan", [AREA_VISIBILITY] = "thpctl folios",
	[AREA_ACCESS] = "thpctl set --dry-run",
};

static struct finding *add(struct findings *out, const char *id, enum severity sev,
			   enum finding_area area, const char *why)
{
	if (out->n == FINDINGS_MAX)
		return NULL;
	struct finding *f = &out->f[out->n++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->sev = sev;
	f->why = why;
	f->area = area;
	f->more = area_more[area];
	return f;
}

/*
 * The fix as a setting: "thpctl set KEY=VALUE", then "  # NOTE" when NOTE is
 * given. KEY is relative to the THP directory, as `thpctl set` takes it.
 */
static void set_fix(struct finding *f, const char *key, unsigned long long value_u,
		    const char *value_s, const char *note)
{
	char v[32];
	if (value_s)
		snprintf(v, sizeof(v), "%s", value_s);
	else
		snprintf(v, sizeof(v), "%llu", value_u);
	snprintf(f->set_key, sizeof(f->set_key), "%s", key);
	snprintf(f->set_value, sizeof(f->set_value), "%s", v);
	snprintf(f->fix, sizeof(f->fix), "thpctl set %s=%s%s%s", key, v, note ? "  # " : "",
		 note ? note : "");
}

#define SETF(field, ...) snprintf(f->field, sizeof(f->field), __VA_ARGS__)

static bool sel_is(const struct choice *c, const char *v)
{
	return c->present && strcmp(c->selected, v) == 0;
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
	uint64_t kb = h->feat.pmd_size / 1024;
	const struct thp_size *sz = kb ? thp_size_find(&h->thp, kb) : NULL;
	if (sz && sz->eff_enabled)
		return sz->eff_enabled;
	return h->thp.enabled.present ? h->thp.enabled.selected : NULL;
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
	if (!sel_is(&h->thp.defrag, "always"))
		return;
	struct finding *f =
		add(out, "defrag-always", SEV_WARN, AREA_LATENCY,
		    "every THP fault may enter direct reclaim and compaction, in any process");
	if (!f)
		return;
	SETF(title, "defrag=always: any process may stall in direct compaction");
	SETF(evidence, "defrag=always");
	set_fix(f, "defrag", 0, "madvise", NULL);
}

void rule_always_max_ptes_none(const struct host_snapshot *h, const struct host_derived *d,
			       struct findings *out)
{
	(void)d;
	const char *pol = pmd_policy(h);
	uint64_t mpn;
	if (!pol || strcmp(pol, "always") != 0 || !max_ptes_none_full(h, &mpn))
		return;
	struct finding *f = add(
		out, "always-max-ptes-none", SEV_WARN, AREA_MEMORY,
		"sparse heaps grow to whole huge pages: RSS far above what the program touched");
	if (!f)
		return;
	SETF(title,
	     "enabled=always with max_ptes_none=%llu: khugepaged can turn one touched page into a PMD of RSS",
	     (unsigned long long)mpn);
	SETF(evidence, "enabled=always (PMD size), khugepaged/max_ptes_none=%llu",
	     (unsigned long long)mpn);
	set_fix(f, "khugepaged/max_ptes_none", (unsigned long long)max_ptes_none_advice(h), NULL,
		NULL);
}

static void fmt_ratio(char *out, size_t n, const struct ratio *r)
{
	snprintf(out, n, "%.1f%% (%llu of %llu)", r->value * 100, (unsigned long long)r->num,
		 (unsigned long long)r->den);
}

void rule_fault_success_low(const struct host_snapshot *h, const struct host_derived *d,
			    struct findings *out)
{
	char rs[64];
	const struct ratio *r = NULL;
	char what[48] = "PMD";
	if (d->fault_success.valid && d->fault_success.den >= 100 && d->fault_success.value < 0.5) {
		r = &d->fault_success;
	} else {
		for (int i = 0; i < d->nsizes; i++) {
			const struct ratio *s = &d->sizes[i].success;
			if (s->valid && s->den >= 100 && s->value < 0.5) {
				r = s;
				snprintf(what, sizeof(what), "%llukB",
					 (unsigned long long)d->sizes[i].size_kb);
				break;
			}
		}
	}
	if (!r)
		return;
	(void)h;
	struct finding *f = add(
		out, "fault-success-low", SEV_WARN, AREA_FRAGMENTATION,
		"huge page faults mostly fall back to base pages: physical memory is fragmented");
	if (!f)
		return;
	fmt_ratio(rs, sizeof(rs), r);
	SETF(title, "%s THP fault success %s since boot", what, rs);
	char nb[40];
	fmt_u128(nb, sizeof(nb), d->free_pmd_blocks);
	if (d->pmd_order >= 0)
		SETF(evidence, "fault success %s; free blocks of order >= %d: %s", rs, d->pmd_order,
		     nb);
	else
		SETF(evidence, "fault success %s", rs);
	SETF(fix,
	     "sysctl vm.compact_memory=1  # once, then see the free blocks in 'thpctl status'");
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
	struct finding *f =
		add(out, "compact-stall", stall >= 100 ? SEV_WARN : SEV_INFO, AREA_LATENCY,
		    "a task that enters direct compaction waits, often for milliseconds");
	if (!f)
		return;
	SETF(title, "page faults have waited on compaction %llu times since boot",
	     (unsigned long long)stall);
	if (okf && oks)
		SETF(evidence, "compact_stall=%llu compact_fail=%llu compact_success=%llu",
		     (unsigned long long)stall, (unsigned long long)fail, (unsigned long long)succ);
	else
		SETF(evidence, "compact_stall=%llu", (unsigned long long)stall);
	/* the fix depends on who may stall now */
	if (sel_is(&h->thp.defrag, "always"))
		set_fix(f, "defrag", 0, "madvise", "only MADV_HUGEPAGE regions may stall");
	else if (sel_is(&h->thp.defrag, "madvise") || sel_is(&h->thp.defrag, "defer+madvise"))
		set_fix(f, "defrag", 0, "defer",
			"no THP fault waits; kcompactd works in the background");
	else
		SETF(fix,
		     "none for THP (defrag=%s does not stall THP faults): look for other high-order allocations",
		     h->thp.defrag.present ? h->thp.defrag.selected : "?");
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
	if (!held)
		return;
	struct finding *f = add(
		out, "deferred-split", SEV_INFO, AREA_MEMORY,
		"partly freed huge pages keep their whole size until memory pressure splits them");
	if (!f)
		return;
	SETF(title, "partly freed huge pages are held until memory pressure");
	char pm[40];
	fmt_u128(pm, sizeof(pm), d->nr_anon_partially_mapped);
	if (d->has_partially_mapped)
		SETF(evidence,
		     "thp_deferred_split_page=%llu thp_split_page=%llu nr_anon_partially_mapped=%s",
		     (unsigned long long)def, (unsigned long long)split, pm);
	else
		SETF(evidence, "thp_deferred_split_page=%llu thp_split_page=%llu",
		     (unsigned long long)def, (unsigned long long)split);
	SETF(fix,
	     "none needed unless memory is short; the deferred-split shrinker runs under pressure");
}

void rule_shrink_underused_noop(const struct host_snapshot *h, const struct host_derived *d,
				struct findings *out)
{
	(void)d;
	uint64_t mpn;
	if (!h->thp.shrink_underused.present || h->thp.shrink_underused.v != 1 ||
	    !max_ptes_none_full(h, &mpn))
		return;
	struct finding *f =
		add(out, "shrink-underused-noop", SEV_INFO, AREA_MEMORY,
		    "the kernel skips the underused check when max_ptes_none is at its maximum");
	if (!f)
		return;
	SETF(title,
	     "shrink_underused=1 with max_ptes_none=%llu: the underused shrinker never splits anything",
	     (unsigned long long)mpn);
	SETF(evidence, "shrink_underused=1 khugepaged/max_ptes_none=%llu", (unsigned long long)mpn);
	set_fix(f, "khugepaged/max_ptes_none", (unsigned long long)max_ptes_none_advice(h), NULL,
		NULL);
}

void rule_cow_copy(const struct host_snapshot *h, const struct host_derived *d,
		   struct findings *out)
{
	(void)d;
	const char *pol = pmd_policy(h);
	if (h->feat.cow_split != TRI_NO || !pol || strcmp(pol, "always") != 0)
		return;
	struct finding *f = add(
		out, "cow-copy", SEV_WARN, AREA_MEMORY,
		"after fork, the first write to a shared huge page allocates and copies all of it");
	if (!f)
		return;
	SETF(title,
	     "kernel %s < 5.8 with enabled=always: a write after fork copies a whole huge page",
	     h->feat.release);
	SETF(evidence, "release %s (inferred from version), enabled=always", h->feat.release);
	set_fix(f, "enabled", 0, "madvise", NULL);
}

void rule_large_pmd(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out)
{
	(void)d;
	const char *pol = pmd_policy(h);
	/* with the PMD size at never, nothing faults in a PMD */
	if (h->feat.pmd_size <= (2u << 20) || (pol && strcmp(pol, "never") == 0))
		return;
	bool always = pol && strcmp(pol, "always") == 0;
	struct finding *f = add(out, "large-pmd", always ? SEV_WARN : SEV_INFO, AREA_MEMORY,
				"each scattered write can fault in a whole PMD of memory");
	if (!f)
		return;
	SETF(title, "hpage_pmd_size is %llu MiB: each scattered write can cost that much%s",
	     (unsigned long long)(h->feat.pmd_size >> 20),
	     always ? "" : " (in MADV_HUGEPAGE regions)");
	SETF(evidence, "hpage_pmd_size=%llu, PMD-size policy %s",
	     (unsigned long long)h->feat.pmd_size, pol ? pol : "unknown");
	if (always)
		set_fix(f, "enabled", 0, "madvise", "only programs that opt in");
	else
		set_fix(f, "enabled", 0, "never", "if no program here needs PMD THP");
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
		struct finding *f = add(
			out, "mthp-no-stats", SEV_WARN, AREA_VISIBILITY,
			"mTHP is invisible to AnonHugePages and thp_* counters; without stats/ nothing counts it");
		if (!f)
			return;
		SETF(title,
		     "hugepages-%llukB is enabled but this kernel has no per-size stats: its use cannot be measured",
		     (unsigned long long)sz->size_kb);
		SETF(evidence, "hugepages-%llukB/enabled=%s (effective %s), no stats/ directory",
		     (unsigned long long)sz->size_kb, sz->enabled.selected, sz->eff_enabled);
		char key[64];
		snprintf(key, sizeof(key), "hugepages-%llukB/enabled",
			 (unsigned long long)sz->size_kb);
		set_fix(f, key, 0, "never", NULL);
		return;
	}
}

void rule_hugetlb_idle(const struct host_snapshot *h, const struct host_derived *d,
		       struct findings *out)
{
	(void)d;
	for (int i = 0; i < h->hugetlb.npools; i++) {
		const struct hugetlb_pool *p = &h->hugetlb.pools[i];
		if (p->node >= 0 || !p->nr.present || !p->free.present || p->nr.v == 0 ||
		    p->free.v != p->nr.v || (p->resv.present && p->resv.v > 0))
			continue;
		struct finding *f = add(
			out, "hugetlb-idle", SEV_WARN, AREA_HUGETLB,
			"hugetlb pages are taken from the kernel at reservation and unusable by anything else");
		if (!f)
			return;
		char held
			[64]; /* pages x page size, exact: 2^64-1 pages of 2048 kB do not fit a u64 */
		fmt_kb_exact(held, sizeof(held), (u128)p->nr.v * p->size_kb);
		SETF(title,
		     "hugetlb pool of %llu x %llu kB (%s) is reserved and entirely free: memory held for nobody",
		     (unsigned long long)p->nr.v, (unsigned long long)p->size_kb, held);
		SETF(evidence,
		     "hugepages-%llukB: nr_hugepages=%llu free_hugepages=%llu resv_hugepages=%llu",
		     (unsigned long long)p->size_kb, (unsigned long long)p->nr.v,
		     (unsigned long long)p->free.v,
		     (unsigned long long)(p->resv.present ? p->resv.v : 0));
		uint64_t dflt;
		if (kv_get(&h->meminfo, "Hugepagesize", &dflt) && dflt == p->size_kb) {
			/* the default size: vm.nr_hugepages, which persist also writes */
			snprintf(f->set_key, sizeof(f->set_key), "vm.nr_hugepages");
			snprintf(f->set_value, sizeof(f->set_value), "0");
			f->sysctl = true;
			SETF(fix, "sysctl vm.nr_hugepages=0  # if no database is about to start");
		} else {
			SETF(fix,
			     "echo 0 > /sys/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages  # if no database is about to start",
			     (unsigned long long)p->size_kb);
		}
		return;
	}
}

void rule_khugepaged_cpu(const struct host_snapshot *h, const struct host_derived *d,
			 struct findings *out)
{
	if (!d->khugepaged_cpu.valid || d->khugepaged_cpu.value <= 0.05)
		return;
	struct finding *f = add(
		out, "khugepaged-cpu", SEV_WARN, AREA_KHUGEPAGED,
		"khugepaged competes with the workload for CPU and takes mmap_lock while it collapses");
	if (!f)
		return;
	SETF(title, "khugepaged used %.2f%% of a CPU since boot", d->khugepaged_cpu.value * 100);
	SETF(evidence, "khugepaged CPU %.1f s over %.0f s uptime", h->khugepaged_cpu_s,
	     h->uptime_s);
	set_fix(f, "khugepaged/scan_sleep_millisecs", 20000, NULL, NULL);
}

void rule_read_only(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out)
{
	(void)d;
	if (!h->thp.present || h->thp.write_err == 0 || h->thp.write_err == -ENOENT ||
	    h->thp.write_err == -ENODATA) /* not recorded: unknown, not read-only */
		return;
	bool rofs = h->thp.write_err == -EROFS;
	struct finding *f =
		add(out, "settings-read-only", SEV_INFO, AREA_ACCESS,
		    rofs ? "the THP settings are host-wide; change them on the host, not here"
			 : "the THP settings are host-wide and only root may change them");
	if (!f)
		return;
	if (rofs)
		SETF(title, "THP settings are read-only here (read-only /sys): host-wide setting");
	else
		SETF(title, "THP settings are not writable by this user: changing them needs root");
	SETF(evidence, "%s: %s", "transparent_hugepage/enabled", strerror(-h->thp.write_err));
	SETF(fix, "%s", rofs ? "run thpctl on the host, as root" : "run thpctl as root");
}

/* "running", "not running, enabled at boot" ...: tuned's state in words for the evidence. */
static const char *tuned_when(const struct tuned_state *t)
{
	if (t->running == TRI_YES)
		return "running";
	if (t->running == TRI_NO)
		return t->enabled == TRI_YES ? "not running, enabled at boot" : "not running";
	return t->enabled == TRI_YES ? "enabled at boot" : "running: unknown";
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
	char list[192] = "";
	size_t used = 0;
	int nset = 0, ndiff = 0;
	for (int i = 0; i < t->nset; i++) {
		const struct tuned_setting *e = &t->set[i];
		/* plugin_vm.py skips transparent_hugepages when the kernel command line has it */
		if (e->vm && strcmp(e->key, "enabled") == 0 && h->feat.cmdline_thp[0])
			continue;
		char live[CHOICE_LEN];
		int r = host_thp_value(h, e->key, live, sizeof(live));
		bool differs = r == 0 && strcmp(live, e->value) != 0;
		nset++;
		ndiff += differs;
		if (used < sizeof(list))
			used += (size_t)snprintf(
				list + used, sizeof(list) - used, "%s%s=%s%s%s%s", used ? ", " : "",
				e->key, e->value, differs || r ? " (live: " : "",
				differs ? live : (r ? "-" : ""), differs || r ? ")" : "");
	}
	if (!nset)
		return;
	struct finding *f = add(
		out, "tuned-sets-thp", ndiff ? SEV_WARN : SEV_INFO, AREA_ACCESS,
		"tuned writes its profile's values at every start and profile switch, over tmpfiles, units and thpctl set");
	if (!f)
		return;
	if (ndiff)
		SETF(title,
		     "tuned profile %s sets %d THP setting(s), %d unlike the live value: its next apply changes them",
		     t->active, nset, ndiff);
	else
		SETF(title,
		     "tuned profile %s sets %d THP setting(s): it overrides other settings at its next apply",
		     t->active, nset);
	SETF(evidence, "tuned %s, active_profile=%s%s: %s", tuned_when(t), t->active,
	     t->partial ? " (profile chain partial)" : "", list);
	SETF(fix, "thpctl persist --format tuned --install  # then tuned-adm profile thpctl");
}

static const finding_rule rules[] = {
	rule_defrag_always,  rule_always_max_ptes_none,	 rule_fault_success_low, rule_compact_stall,
	rule_deferred_split, rule_shrink_underused_noop, rule_cow_copy,		 rule_large_pmd,
	rule_mthp_no_stats,  rule_hugetlb_idle,		 rule_khugepaged_cpu,	 rule_read_only,
	rule_tuned_thp,
};

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
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		rules[i](h, d, out);
	/* a tmpfiles line or unit would lose against tuned's next apply */
	bool tuned = false;
	for (int i = 0; i < out->n; i++)
		tuned |= strcmp(out->f[i].id, "tuned-sets-thp") == 0;
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
