// SPDX-License-Identifier: MIT
#include "prom.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/host.h"
#include "../util/buf.h"
#include "../util/str.h"
#include "json.h"
#include "skips.h"
#include "table.h"

/* ---- families and samples ---------------------------------------------- */

void prom_family(struct pbuf *b, const char *name, const char *type, const char *help)
{
	pbuf_puts(b, "# HELP ");
	pbuf_puts(b, name);
	pbuf_puts(b, " ");
	prom_escape_help(b, help);
	pbuf_puts(b, "\n# TYPE ");
	pbuf_puts(b, name);
	pbuf_puts(b, " ");
	pbuf_puts(b, type);
	pbuf_puts(b, "\n");
}

/* One sample line: NAME{K1="V1",...} VALUE. LABELS is NULL-terminated pairs. */
static void line_begin(struct pbuf *b, const char *name, const char *const *labels)
{
	pbuf_puts(b, name);
	if (!labels || !labels[0])
		return;
	pbuf_puts(b, "{");
	for (int i = 0; labels[i]; i += 2) {
		if (i)
			pbuf_puts(b, ",");
		pbuf_puts(b, labels[i]);
		pbuf_puts(b, "=\"");
		prom_escape_label(b, labels[i + 1]);
		pbuf_puts(b, "\"");
	}
	pbuf_puts(b, "}");
}

void prom_line_u64(struct pbuf *b, const char *name, const char *const *labels, uint64_t v)
{
	line_begin(b, name, labels);
	/* " V\n" without printf: a scrape writes some 300 of these */
	char d[24], *p = d + sizeof(d);
	*--p = '\0';
	*--p = '\n';
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	*--p = ' ';
	pbuf_puts(b, p);
}

static void line_f(struct pbuf *b, const char *name, const char *const *labels, double v)
{
	line_begin(b, name, labels);
	pbuf_printf(b, " %.9g\n", v);
}

void prom_gauge_u64(struct pbuf *b, const char *name, const char *help, uint64_t v)
{
	prom_family(b, name, "gauge", help);
	prom_line_u64(b, name, NULL, v);
}

static void opt_gauge(struct pbuf *b, const char *name, const char *help, const struct opt_u64 *o,
		      uint64_t scale)
{
	if (o->present)
		prom_gauge_u64(b, name, help, o->v * scale);
}

/* ---- /proc/vmstat -------------------------------------------------------- */

/* Name prefixes of the families below: a vmstat thp_* key mapped onto one is skipped. */
static const char *const reserved[] = {"thp_mthp_",	  "thp_setting",  "thp_size_",
				       "thp_khugepaged_", "thp_meminfo_", "thp_hugetlb_",
				       "thp_buddy_",	  "thp_process_", "thp_free_pmd",
				       "thp_hpage_",	  "thp_use_zero", "thp_shrink_"};

/*
 * vmstat counters that are not THP's own (compaction, direct reclaim) keep their kernel
 * names under this prefix: thpctl_vmstat_compact_stall_total is node_exporter's
 * node_vmstat_compact_stall (README: Metrics).
 */
#define VMSTAT_PREFIX "thpctl_vmstat_"

static bool is_reserved(const char *name)
{
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strncmp(name, reserved[i], strlen(reserved[i])) == 0)
			return true;
	return false;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool vmstat_thp_gauge(const char *k)
{
	return starts(k, "nr_") && (strstr(k, "hugepage") || strstr(k, "pmdmapped"));
}

/*
 * What a vmstat thp_* counter counts, for its HELP: since 6.10 (835c3a25aa37) the THP events
 * count PMD-sized THPs only (mTHP sizes are in the per-size stats/); thp_split_pud counts
 * PUD-sized mappings split, and the zero page's counters the one PMD-sized huge zero page.
 */
static const char *vmstat_thp_scope(const char *k)
{
	if (!strcmp(k, "thp_split_pud"))
		return " (PUD-sized mappings, where the arch supports them)";
	if (starts(k, "thp_zero_page_alloc"))
		return " (the PMD-sized huge zero page, use_zero_page)";
	return " (PMD-sized THPs only on 6.10+)";
}

static void render_vmstat(struct pbuf *b, const struct kvlist *vm)
{
	char name[KV_NAME_LEN + 32], help[160];
	for (size_t i = 0; i < vm->n; i++) {
		const struct kv *kv = &vm->items[i];
		bool thp = starts(kv->name, "thp_"), compact = starts(kv->name, "compact_");
		if (!thp && !compact)
			continue;
		/* joined, not printed: some 60 keys a scrape */
		str_copy(name, sizeof(name), thp ? "" : VMSTAT_PREFIX);
		str_cat(name, sizeof(name), kv->name);
		if (!str_cat(name, sizeof(name), "_total") || !prom_valid_name(name) ||
		    is_reserved(name))
			continue;
		str_copy(help, sizeof(help), PATH_PROC "/vmstat ");
		str_cat(help, sizeof(help), kv->name);
		str_cat(help, sizeof(help), ", cumulative since boot");
		str_cat(help, sizeof(help), thp ? vmstat_thp_scope(kv->name) : "");
		prom_family(b, name, "counter", help);
		prom_line_u64(b, name, NULL, kv->value);
	}
	for (size_t i = 0; i < vm->n; i++) {
		const struct kv *kv = &vm->items[i];
		if (!vmstat_thp_gauge(kv->name))
			continue;
		snprintf(name, sizeof(name), "thp_%s", kv->name);
		if (!prom_valid_name(name))
			continue;
		snprintf(help, sizeof(help), PATH_PROC "/vmstat %s: PMD-sized huge pages now",
			 kv->name);
		prom_family(b, name, "gauge", help);
		prom_line_u64(b, name, NULL, kv->value);
	}
	/* direct reclaim: allocstall per zone, pages scanned/stolen by direct reclaim */
	bool any = false;
	for (size_t i = 0; i < vm->n; i++) {
		const char *k = vm->items[i].name;
		if (!starts(k, "allocstall") || (k[10] != '\0' && k[10] != '_'))
			continue;
		if (!any)
			prom_family(b, VMSTAT_PREFIX "allocstall_total", "counter",
				    PATH_PROC
				    "/vmstat allocstall_<zone>: direct reclaim entries since boot");
		any = true;
		const char *lab[] = {"zone", k[10] ? k + 11 : "", NULL};
		prom_line_u64(b, VMSTAT_PREFIX "allocstall_total", lab, vm->items[i].value);
	}
	static const char *const reclaim[] = {"pgscan_direct", "pgsteal_direct",
					      "pgscan_khugepaged", "pgsteal_khugepaged"};
	for (size_t i = 0; i < sizeof(reclaim) / sizeof(reclaim[0]); i++) {
		uint64_t v;
		if (!counter_get(vm, reclaim[i], &v))
			continue;
		snprintf(name, sizeof(name), VMSTAT_PREFIX "%s_total", reclaim[i]);
		snprintf(help, sizeof(help), PATH_PROC "/vmstat %s: pages since boot", reclaim[i]);
		prom_family(b, name, "counter", help);
		prom_line_u64(b, name, NULL, v);
	}
}

/* ---- transparent_hugepage/ ---------------------------------------------- */

static void size_label(char *out, size_t n, uint64_t kb)
{
	snprintf(out, n, "%" PRIu64 "kB", kb);
}

/* Per-size stats: one family per stats file name, a sample per size that has it. */
static void render_size_stats(struct pbuf *b, const struct thp_settings *t)
{
	const char *done[64];
	int ndone = 0;
	char name[KV_NAME_LEN + 32], help[200], sz[THP_MAX_SIZES][32];
	/* each size's label once: a scrape writes some 200 samples of them */
	for (int i = 0; i < t->nsizes; i++)
		size_label(sz[i], sizeof(sz[i]), t->sizes[i].size_kb);
	for (int i = 0; i < t->nsizes; i++) {
		const struct kvlist *st = &t->sizes[i].stats;
		for (size_t k = 0; k < st->n; k++) {
			const char *stat = st->items[k].name;
			bool seen = false;
			for (int d = 0; d < ndone && !seen; d++)
				seen = strcmp(done[d], stat) == 0;
			if (seen || ndone == 64)
				continue;
			done[ndone++] = stat;
			bool gauge = starts(stat, "nr_");
			snprintf(name, sizeof(name), "thp_mthp_%s%s", stat, gauge ? "" : "_total");
			if (!prom_valid_name(name))
				continue;
			snprintf(help, sizeof(help),
				 "transparent_hugepage/hugepages-<size>kB/stats/%s: %s", stat,
				 gauge ? "huge pages of this size now" : "events since boot");
			prom_family(b, name, gauge ? "gauge" : "counter", help);
			for (int j = i; j < t->nsizes; j++) {
				uint64_t v;
				if (!counter_get(&t->sizes[j].stats, stat, &v))
					continue;
				const char *lab[] = {"size", sz[j], NULL};
				prom_line_u64(b, name, lab, v);
			}
		}
	}
}

static void info(struct pbuf *b, const char *knob, const char *value)
{
	const char *lab[] = {"knob", knob, "value", value, NULL};
	prom_line_u64(b, "thp_setting_info", lab, 1);
}

static void render_settings(struct pbuf *b, const struct thp_settings *t)
{
	if (t->enabled.present || t->defrag.present || t->shmem_enabled.present || t->nextra) {
		prom_family(b, "thp_setting_info", "gauge",
			    "transparent_hugepage/ policy files: the selected value (always 1)");
		if (t->enabled.present)
			info(b, "enabled", t->enabled.selected);
		if (t->defrag.present)
			info(b, "defrag", t->defrag.selected);
		if (t->shmem_enabled.present)
			info(b, "shmem_enabled", t->shmem_enabled.selected);
		for (int i = 0; i < t->nextra; i++)
			info(b, t->extra[i].name, t->extra[i].value);
	}
	bool any = false;
	char sz[32];
	for (int i = 0; i < t->nsizes; i++) {
		const struct thp_size *s = &t->sizes[i];
		size_label(sz, sizeof(sz), s->size_kb);
		for (int k = 0; k < 2; k++) {
			const struct choice *c = k ? &s->shmem_enabled : &s->enabled;
			const char *eff = k ? s->eff_shmem : s->eff_enabled;
			if (!c->present)
				continue;
			if (!any)
				prom_family(
					b, "thp_size_setting_info", "gauge",
					"transparent_hugepage/hugepages-<size>kB/ policy: the selected "
					"value and, with inherit resolved, the effective one (always 1)");
			any = true;
			const char *lab[] = {
				"size",	 sz,	      "knob",	   k ? "shmem_enabled" : "enabled",
				"value", c->selected, "effective", eff ? eff : "",
				NULL};
			prom_line_u64(b, "thp_size_setting_info", lab, 1);
		}
	}
	opt_gauge(b, "thp_use_zero_page", "transparent_hugepage/use_zero_page (0/1)",
		  &t->use_zero_page, 1);
	opt_gauge(b, "thp_shrink_underused", "transparent_hugepage/shrink_underused (0/1, 6.12+)",
		  &t->shrink_underused, 1);
	opt_gauge(b, "thp_hpage_pmd_size_bytes", "transparent_hugepage/hpage_pmd_size",
		  &t->hpage_pmd_size, 1);
	char name[96], help[160];
	for (int k = 0; k < KHP_NKNOBS; k++) {
		const struct opt_u64 *o = &t->khp[k];
		if (!o->present)
			continue;
		const char *kn = khp_name((enum khp_knob)k);
		snprintf(help, sizeof(help), "transparent_hugepage/khugepaged/%s", kn);
		if (khp_is_counter((enum khp_knob)k)) {
			snprintf(name, sizeof(name), "thp_khugepaged_%s_total", kn);
			prom_family(b, name, "counter", help);
			prom_line_u64(b, name, NULL, o->v);
		} else if (k == KHP_SCAN_SLEEP_MS || k == KHP_ALLOC_SLEEP_MS) {
			/* base units: the knob is in milliseconds */
			snprintf(name, sizeof(name), "thp_khugepaged_%s_seconds",
				 k == KHP_SCAN_SLEEP_MS ? "scan_sleep" : "alloc_sleep");
			prom_family(b, name, "gauge", help);
			line_f(b, name, NULL, (double)o->v / 1000.0);
		} else {
			snprintf(name, sizeof(name), "thp_khugepaged_%s", kn);
			prom_family(b, name, "gauge", help);
			prom_line_u64(b, name, NULL, o->v);
		}
	}
}

/* ---- meminfo, hugetlb, buddyinfo ----------------------------------------- */

static const struct {
	const char *field, *metric;
} meminfo_map[] = {
	{"AnonHugePages", "thp_meminfo_anon_huge_pages_bytes"},
	{"ShmemHugePages", "thp_meminfo_shmem_huge_pages_bytes"},
	{"ShmemPmdMapped", "thp_meminfo_shmem_pmd_mapped_bytes"},
	{"FileHugePages", "thp_meminfo_file_huge_pages_bytes"},
	{"FilePmdMapped", "thp_meminfo_file_pmd_mapped_bytes"},
	{"Hugetlb", "thp_meminfo_hugetlb_bytes"},
};

static void render_meminfo(struct pbuf *b, const struct kvlist *mi)
{
	char help[128];
	for (size_t i = 0; i < sizeof(meminfo_map) / sizeof(meminfo_map[0]); i++) {
		uint64_t kb;
		if (!counter_get(mi, meminfo_map[i].field, &kb))
			continue;
		snprintf(help, sizeof(help), PATH_PROC "/meminfo %s%s", meminfo_map[i].field,
			 i == 0 ? " (PMD-mapped anonymous THPs only)" : "");
		uint64_t bytes; /* a value that does not fit in bytes is left out: unknown */
		if (mul_u64(kb, 1024, &bytes))
			prom_gauge_u64(b, meminfo_map[i].metric, help, bytes);
	}
}

static void render_hugetlb(struct pbuf *b, const struct hugetlb *h)
{
	static const char *const states[] = {"total", "free", "reserved", "surplus"};
	char sz[32], node[16];
	for (int pass = 0; pass < 3; pass++) {
		bool any = false;
		for (int i = 0; i < h->npools; i++) {
			const struct hugetlb_pool *p = &h->pools[i];
			/* pass 0 and 2: the global pools; pass 1: per node */
			if ((pass == 1) == (p->node < 0))
				continue;
			size_label(sz, sizeof(sz), p->size_kb);
			snprintf(node, sizeof(node), "%d", p->node);
			const struct opt_u64 *v[] = {&p->nr, &p->free, &p->resv, &p->surplus};
			if (pass == 2) {
				if (!p->overcommit.present)
					continue;
				if (!any)
					prom_family(
						b, "thp_hugetlb_overcommit_limit_pages", "gauge",
						"hugetlb nr_overcommit_hugepages: surplus pages allowed");
				any = true;
				const char *lab[] = {"size", sz, NULL};
				prom_line_u64(b, "thp_hugetlb_overcommit_limit_pages", lab,
					      p->overcommit.v);
				continue;
			}
			for (int s = 0; s < 4; s++) {
				if (!v[s]->present)
					continue;
				if (!any)
					prom_family(
						b,
						pass ? "thp_hugetlb_node_pages"
						     : "thp_hugetlb_pages",
						"gauge",
						pass ? "hugetlb pool of one NUMA node, in huge pages "
						       "(node<N>/hugepages/)"
						     : "hugetlb pool, in huge pages (kernel/mm/hugepages/)");
				any = true;
				if (pass) {
					const char *lab[] = {"size",  sz,	 "node", node,
							     "state", states[s], NULL};
					prom_line_u64(b, "thp_hugetlb_node_pages", lab, v[s]->v);
				} else {
					const char *lab[] = {"size", sz, "state", states[s], NULL};
					prom_line_u64(b, "thp_hugetlb_pages", lab, v[s]->v);
				}
			}
		}
	}
}

static void render_buddy(struct pbuf *b, const struct sample *s)
{
	const struct buddyinfo *bi = &s->host.buddy;
	if (!s->host.has_buddy)
		return;
	prom_family(b, "thp_buddy_free_blocks", "gauge",
		    PATH_PROC "/buddyinfo: free blocks of 2^order base pages, per node and zone");
	char node[16], order[16];
	for (int i = 0; i < bi->nzones; i++) {
		const struct buddy_zone *z = &bi->zones[i];
		snprintf(node, sizeof(node), "%d", z->node);
		for (int o = 0; o < z->norders; o++) {
			snprintf(order, sizeof(order), "%d", o);
			const char *lab[] = {"node", node, "zone", z->zone, "order", order, NULL};
			prom_line_u64(b, "thp_buddy_free_blocks", lab, z->free[o]);
		}
	}
	uint64_t pmd;
	if (host_pmd_blocks(&s->host, &pmd))
		prom_gauge_u64(
			b, "thp_free_pmd_blocks",
			"free memory in blocks of PMD order or more, in PMD-sized units, all "
			"zones but DMA (/proc/buddyinfo)",
			pmd);
}

/* ---- processes ------------------------------------------------------------ */

static void proc_family(struct pbuf *b, const struct sample *s, const char *name, const char *help,
			int what)
{
	bool any = false;
	char pid[16];
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct proc_sample *p = &s->procs[i];
		int64_t led = what == 4	  ? p->invented_kb
			      : what == 5 ? p->held_kb
			      : what == 6 ? p->creep_kb
					  : p->lazyfree_kb;
		if ((what == 1 && !p->rss_known) || (what == 2 && p->thp_enabled < 0) ||
		    (what == 3 && !p->has_hg) || (what >= 4 && led < 0))
			continue;
		if (!any)
			prom_family(b, name, "gauge", help);
		any = true;
		snprintf(pid, sizeof(pid), "%d", (int)p->pid);
		const char *lab[] = {"pid", pid, "comm", p->comm, NULL};
		uint64_t kb = what == 0	  ? p->anon_huge_kb
			      : what == 1 ? p->rss_kb
			      : what == 3 ? p->hg_kb
					  : (uint64_t)led;
		uint64_t v = (uint64_t)p->thp_enabled;
		/* kB to bytes: a value that does not fit is left out (unknown), never wrapped */
		if (what == 2 || mul_u64(kb, 1024, &v))
			prom_line_u64(b, name, lab, v);
	}
}

/* thp_process_allocator_info: 1 per exported process whose allocator was looked for. */
static void render_alloc(struct pbuf *b, const struct sample *s)
{
	bool any = false;
	char pid[16];
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct proc_sample *p = &s->procs[i];
		if (!p->alloc[0])
			continue;
		if (!any)
			prom_family(
				b, "thp_process_allocator_info", "gauge",
				"heap allocator or runtime of the same processes (allocator: "
				"glibc, jemalloc, tcmalloc, mimalloc, go, jvm or unknown; version "
				"as its files say, else empty; evidence: how it was found, or why "
				"unknown: " PATH_PROC "/PID/maps, the executable read as ELF)");
		any = true;
		snprintf(pid, sizeof(pid), "%d", (int)p->pid);
		const char *lab[] = {"pid",	  p->comm,	     "comm",	p->comm,
				     "allocator", p->alloc,	     "version", p->alloc_version,
				     "evidence",  p->alloc_evidence, NULL};
		lab[1] = pid;
		prom_line_u64(b, "thp_process_allocator_info", lab, 1);
	}
}

static void render_procs(struct pbuf *b, const struct sample *s, const struct prom_meta *m)
{
	proc_family(b, s, "thp_process_anon_huge_pages_bytes",
		    "AnonHugePages of the top processes by it (smaps_rollup)", 0);
	proc_family(b, s, "thp_process_rss_bytes", "VmRSS of the same processes (status)", 1);
	proc_family(b, s, "thp_process_thp_enabled",
		    "THP_enabled of the same processes (status; 0: prctl PR_SET_THP_DISABLE)", 2);
	if (m->process_flags)
		proc_family(b, s, "thp_process_hugepage_advised_bytes",
			    "size of the VMAs with VmFlags hg (MADV_HUGEPAGE), same processes "
			    "(full smaps walk, --process-flags)",
			    3);
	if (m->process_ledger) {
		proc_family(
			b, s, "thp_process_invented_bytes",
			"never-written bytes inside PMD THPs, estimated from 8 subpages per THP "
			"(/proc/PID/mem), same processes (--process-ledger)",
			4);
		proc_family(
			b, s, "thp_process_deferred_split_held_bytes",
			"pages of partially mapped large folios still allocated, waiting for the "
			"deferred-split shrinker (pagemap + kpageflags, root), same processes",
			5);
		proc_family(b, s, "thp_process_khugepaged_creep_max_bytes",
			    "upper bound of what khugepaged may still add at max_ptes_none, same "
			    "processes",
			    6);
		proc_family(
			b, s, "thp_process_lazyfree_bytes",
			"smaps LazyFree: pages freed with MADV_FREE, still in RSS and charged to "
			"the memory cgroup until reclaimed under memory pressure, same processes",
			7);
		render_alloc(b, s);
	}
	prom_gauge_u64(b, "thpctl_processes_seen", "processes looked at in this scrape (statm)",
		       s->procs_seen);
	prom_gauge_u64(b, "thpctl_processes_candidates",
		       "processes whose anonymous RSS could hold the AnonHugePages threshold: "
		       "smaps_rollup read",
		       s->procs_candidates);
	prom_gauge_u64(b, "thpctl_processes_unreadable",
		       "candidates whose smaps_rollup was not readable (permission): per-process "
		       "metrics are partial when > 0",
		       s->procs_unreadable);
	prom_gauge_u64(b, "thpctl_process_scan_truncated",
		       "1 when the process scan stopped at the per-scrape time budget",
		       s->procs_truncated ? 1 : 0);
	prom_gauge_u64(b, "thpctl_processes_top_limit",
		       "--top-processes: the most processes exported", m->top);
	prom_gauge_u64(b, "thpctl_processes_min_anon_huge_pages_bytes",
		       "--min-process-ahp: processes below it are not exported", m->min_ahp_bytes);
}

int prom_render(const struct sample *s, const struct prom_meta *m, struct pbuf *out)
{
	if (s->host.has_vmstat)
		render_vmstat(out, &s->host.vmstat);
	if (s->host.has_settings) {
		render_size_stats(out, &s->host.thp);
		render_settings(out, &s->host.thp);
	}
	if (s->host.has_khugepaged_cpu) {
		prom_family(
			out, "thp_khugepaged_cpu_seconds_total", "counter",
			"CPU time (user + system) of the khugepaged kernel thread (/proc/PID/stat)");
		line_f(out, "thp_khugepaged_cpu_seconds_total", NULL, s->host.khugepaged_cpu_s);
	}
	if (s->host.has_meminfo)
		render_meminfo(out, &s->host.meminfo);
	if (s->host.has_hugetlb)
		render_hugetlb(out, &s->host.hugetlb);
	render_buddy(out, s);
	if (m->process_metrics)
		render_procs(out, s, m);
	if (m->cgroups)
		prom_render_cgroups(out, m->cgroups, m->cgroups_top);

	/* a --sysroot bundle's members not extracted are files not read too (all of them) */
	struct bundle_skips sk;
	bundle_skips_of(&s->host.skips, &sk);
	size_t errors = (size_t)s->host.nmissing + (size_t)sk.total + s->procs_errors;
	prom_family(out, "thpctl_scrape_duration_seconds", "gauge",
		    "time the collection behind this scrape took");
	line_f(out, "thpctl_scrape_duration_seconds", NULL, s->duration_s);
	prom_gauge_u64(out, "thpctl_scrape_errors",
		       "files that could not be read or parsed in this scrape (processes that "
		       "exited excluded)",
		       errors);
	prom_family(
		out, "thpctl_collections_total", "counter",
		"collections since the exporter started (scrapes within the cache time share one)");
	prom_line_u64(out, "thpctl_collections_total", NULL, m->collections);
	prom_family(out, "thpctl_build_info", "gauge", "thpctl version (always 1)");
	const char *lab[] = {"version", m->version ? m->version : "", NULL};
	prom_line_u64(out, "thpctl_build_info", lab, 1);
	return out->overflow ? -E2BIG : 0;
}
