// SPDX-License-Identifier: MIT
#include "status.h"

#include <errno.h>
#include <string.h>

#include "json.h"
#include "status_int.h"
#include "status_recent.h"
#include "table.h"

/* vmstat counters shown under "since boot", in this order (absent ones print "-"). */
static const char *const boot_counters[] = {
	"thp_fault_alloc",
	"thp_fault_fallback",
	"thp_fault_fallback_charge",
	"thp_collapse_alloc",
	"thp_collapse_alloc_failed",
	"thp_split_page",
	"thp_split_page_failed",
	"thp_deferred_split_page",
	"thp_split_pmd",
	"thp_underused_split_page",
	"thp_scan_exceed_none_pte",
	"thp_scan_exceed_swap_pte",
	"thp_scan_exceed_share_pte",
	"thp_zero_page_alloc",
	"thp_swpout",
	"thp_swpout_fallback",
	"compact_stall",
	"compact_fail",
	"compact_success",
	"compact_daemon_wake",
};

static const char *const usage_meminfo[] = {
	"AnonHugePages",  "ShmemHugePages",  "ShmemPmdMapped", "FileHugePages",
	"FilePmdMapped",  "HugePages_Total", "HugePages_Free", "HugePages_Rsvd",
	"HugePages_Surp", "Hugepagesize",    "Hugetlb",
};

static void section(FILE *f, const char *name, bool color)
{
	fprintf(f, "\n%s%s%s\n", col_bold(color), name, col_reset(color));
}

/* The heading NAME, then a new two-column table of keys and values aligned by ALIGN. */
static struct table *section_table(FILE *f, const char *name, const char *align, bool color)
{
	section(f, name, color);
	return table_new(2, NULL, align);
}

static void render_kernel(FILE *f, const struct host_snapshot *h, bool color)
{
	const struct features *ft = &h->feat;
	char a[64], b[64];
	struct table *t = section_table(f, "Kernel", "Ll", color);
	table_cell(t, "release");
	table_cell(t, "%s", ft->release[0] ? ft->release : "-");
	table_cell(t, "base page");
	if (ft->page_size > 0)
		fmt_bytes(a, sizeof(a), (uint64_t)ft->page_size);
	table_cell(t, "%s%s", ft->page_size > 0 ? a : "-",
		   ft->page_size_inferred ? " (from recorded smaps)" : "");
	table_cell(t, "PMD size (hpage_pmd_size)");
	if (ft->pmd_size)
		fmt_bytes(b, sizeof(b), ft->pmd_size);
	table_cell(t, "%s", ft->pmd_size ? b : "-");
	/* a capture that could not record the THP tree: its absence says nothing */
	bool unrec = ft->thp_recorded == REC_MISSING;
	table_cell(t, "THP built in");
	table_cell(t, "%s", ft->thp ? "yes" : unrec ? "not recorded" : "no");
	table_cell(t, "mTHP sizes (anon)");
	switch (host_mthp_listing(h)) {
	case MTHP_LIST_UNRECORDED:
		table_cell(t, "not recorded (the capture has no complete %s/)",
			   h->thp.dir ? h->thp.dir + 1 : "transparent_hugepage");
		break;
	case MTHP_LIST_NONE_KERNEL:
		/* recorded whole: the kernel (a 6.8+ release without mTHP) has none */
		table_cell(t, "none (this kernel has no hugepages-<size>kB/)");
		break;
	case MTHP_LIST_SIZES: {
		char list[256] = "";
		size_t o = 0;
		for (int i = 0; i < h->thp.nsizes && o < sizeof(list); i++)
			if (h->thp.sizes[i].enabled.present)
				o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%llukB",
						      o ? " " : "",
						      (unsigned long long)h->thp.sizes[i].size_kb);
		table_cell(t, "%d: %s", ft->mthp_sizes, list);
		break;
	}
	case MTHP_LIST_NOT_RECORDED:
		/* a 6.8+ kernel has the directories: a tree without them did not record them */
		table_cell(t, "not recorded (kernel %s has hugepages-<size>kB/)", ft->release);
		break;
	case MTHP_LIST_NONE_OLD:
		table_cell(t, "none (kernel < 6.8 or THP off)");
		break;
	case MTHP_LIST_NONE_UNKNOWN:
		table_cell(t, "none found (kernel < 6.8, THP off, or not recorded)");
		break;
	}
	/* absent: "no" only where the tree can say so (stats/ 6.10, shrink_underused 6.12) */
	table_cell(t, "per-size stats");
	table_cell(t, "%s",
		   ft->per_size_stats		       ? "yes"
		   : features_absence_known(ft, 6, 10) ? "no"
						       : "not recorded");
	table_cell(t, "shrink_underused");
	table_cell(t, "%s",
		   ft->shrink_underused		       ? "yes"
		   : features_absence_known(ft, 6, 12) ? "no"
						       : "not recorded");
	table_cell(t, "MADV_COLLAPSE");
	table_cell(t, "%s%s", status_tri_str(ft->madv_collapse),
		   ft->madv_collapse == TRI_UNKNOWN ? " (not probed: recorded tree)" : " (probed)");
	table_cell(t, "PR_THP_DISABLE_EXCEPT_ADVISED");
	table_cell(t, "%s%s", status_tri_str(ft->except_advised),
		   ft->except_advised == TRI_UNKNOWN ? " (not probed: recorded tree)"
						     : " (probed in a child)");
	table_cell(t, "THP_enabled in status");
	table_cell(t, "%s", status_tri_str(ft->status_thp_enabled));
	table_cell(t, "THPeligible in smaps");
	table_cell(t, "%s", status_tri_str(ft->smaps_thpeligible));
	table_cell(t, "COW splits after fork");
	table_cell(t, "%s%s", status_tri_str(ft->cow_split),
		   ft->cow_split == TRI_YES  ? " (inferred: kernel >= 5.8)"
		   : ft->cow_split == TRI_NO ? " (inferred: kernel < 5.8)"
					     : "");
	table_flush(t, f, 2, color);
}

static void render_policy(FILE *f, const struct host_snapshot *h, bool color)
{
	const struct thp_settings *s = &h->thp;
	char v[64];
	section(f, "Policy", color);
	if (!s->present) {
		fprintf(f,
			"  transparent_hugepage/ not found: THP is not built into this kernel\n");
		return;
	}
	struct table *t = table_new(2, NULL, "Ll");
	table_cell(t, "enabled");
	table_cell(t, "%s", status_choice_str(&s->enabled));
	table_cell(t, "defrag");
	table_cell(t, "%s", status_choice_str(&s->defrag));
	table_cell(t, "use_zero_page");
	status_opt_str(v, sizeof(v), &s->use_zero_page);
	table_cell(t, "%s", v);
	table_cell(t, "shmem_enabled");
	table_cell(t, "%s", status_choice_str(&s->shmem_enabled));
	table_cell(t, "shrink_underused");
	status_opt_str(v, sizeof(v), &s->shrink_underused);
	table_cell(t, "%s", v);
	for (int i = 0; i < s->nextra; i++) {
		table_cell(t, "%s", s->extra[i].name);
		table_cell(t, "%s (not upstream)", s->extra[i].value);
	}
	for (int k = 0; k < KHP_NKNOBS; k++) {
		table_cell(t, "khugepaged/%s", khp_name(k));
		status_opt_str(v, sizeof(v), &s->khp[k]);
		table_cell(t, "%s%s", v, khp_is_counter(k) ? " (counter)" : "");
	}
	table_cell(t, "cmdline transparent_hugepage=");
	table_cell(t, "%s", h->feat.cmdline_thp[0] ? h->feat.cmdline_thp : "-");
	table_cell(t, "writable");
	status_write_note(h, v, sizeof(v));
	table_cell(t, "%s", v);
	table_flush(t, f, 2, color);
	/* a line of its own: a long profile line must not squeeze the table */
	char tuned[512];
	status_tuned_str(h, tuned, sizeof(tuned));
	fputs("  tuned: ", f);
	fputs_safe(tuned, f); /* profile names come from the tree */
	fputc('\n', f);
	if (!s->nsizes)
		return;
	static const char *const hdr[] = {"size",      "order",		"enabled",
					  "effective", "shmem_enabled", "effective"};
	t = table_new(6, hdr, "rrllll");
	for (int i = 0; i < s->nsizes; i++) {
		const struct thp_size *sz = &s->sizes[i];
		table_cell(t, "%llukB", (unsigned long long)sz->size_kb);
		if (sz->order >= 0)
			table_cell(t, "%d", sz->order);
		else
			table_cell(t, "-");
		table_cell(t, "%s", status_choice_str(&sz->enabled));
		table_cell(t, "%s", sz->eff_enabled ? sz->eff_enabled : "-");
		table_cell(t, "%s", status_choice_str(&sz->shmem_enabled));
		table_cell(t, "%s", sz->eff_shmem ? sz->eff_shmem : "-");
	}
	fprintf(f, "\n");
	table_flush(t, f, 2, color);
}

static void render_usage(FILE *f, const struct host_snapshot *h, const struct host_derived *d,
			 bool color)
{
	char v[64];
	struct table *t = section_table(f, "Usage now", "Lr", color);
	for (size_t i = 0; i < sizeof(usage_meminfo) / sizeof(usage_meminfo[0]); i++) {
		uint64_t x;
		table_cell(t, "%s", usage_meminfo[i]);
		if (!host_meminfo(h, usage_meminfo[i], &x))
			table_cell(t, "-");
		else if (strncmp(usage_meminfo[i], "HugePages_", 10) == 0)
			table_cell(t, "%llu", (unsigned long long)x);
		else {
			fmt_kb(v, sizeof(v), x);
			table_cell(t, "%s", v);
		}
	}
	table_flush(t, f, 2, color);
	if (d->nsizes) {
		static const char *const hdr[] = {"size", "nr_anon", "memory",
						  "nr_anon_partially_mapped"};
		t = table_new(4, hdr, "rrrr");
		for (int i = 0; i < d->nsizes; i++) {
			const struct size_fault *sf = &d->sizes[i];
			table_cell(t, "%llukB", (unsigned long long)sf->size_kb);
			status_opt_str(v, sizeof(v), &sf->nr_anon);
			table_cell(t, "%s", v);
			if (sf->nr_anon.present) /* folios x size: exact, wide */
				fmt_kb_wide(v, sizeof(v), (u128)sf->nr_anon.v * sf->size_kb);
			table_cell(t, "%s", sf->nr_anon.present ? v : "-");
			status_opt_str(v, sizeof(v), &sf->nr_anon_partially_mapped);
			table_cell(t, "%s", v);
		}
		fprintf(f, "\n");
		table_flush(t, f, 2, color);
	}
	fprintf(f, "\n  hugetlb pools");
	if (!h->hugetlb.npools) {
		fprintf(f, ": none\n");
		return;
	}
	fprintf(f, "\n");
	static const char *const hdr[] = {"size", "node", "nr", "free", "resv", "surplus"};
	t = table_new(6, hdr, "rrrrrr");
	for (int i = 0; i < h->hugetlb.npools; i++) {
		const struct hugetlb_pool *p = &h->hugetlb.pools[i];
		table_cell(t, "%llukB", (unsigned long long)p->size_kb);
		if (p->node < 0)
			table_cell(t, "all");
		else
			table_cell(t, "%d", p->node);
		const struct opt_u64 *cols[] = {&p->nr, &p->free, &p->resv, &p->surplus};
		for (int c = 0; c < 4; c++) {
			status_opt_str(v, sizeof(v), cols[c]);
			table_cell(t, "%s", v);
		}
	}
	table_flush(t, f, 4, color);
}

/* The cells of BLOCKS free blocks of ORDER: blocks, memory (exact). */
static void buddy_cells(struct table *t, u128 blocks, int order, long page_size)
{
	char v[64];
	fmt_u128(v, sizeof(v), blocks);
	table_cell(t, "%s", v);
	if (page_size > 0) /* < 2^85 pages a host, x 2^16 bytes: exact */
		fmt_kb_wide(v, sizeof(v), (blocks << order) * (u128)page_size / 1024);
	else
		snprintf(v, sizeof(v), "-");
	table_cell(t, "%s", v);
}

/* With more than one node: a row per node summing its zones but DMA (what THP can use). */
static void buddy_node_rows(struct table *t, const struct host_snapshot *h, int pmd_order)
{
	const struct buddyinfo *b = &h->buddy;
	bool multi = false;
	for (int i = 1; i < b->nzones; i++)
		multi |= b->zones[i].node != b->zones[0].node;
	for (int i = 0; multi && pmd_order >= 0 && i < b->nzones; i++) {
		bool first = true;
		for (int k = 0; k < i && first; k++)
			first = b->zones[k].node != b->zones[i].node;
		if (!first)
			continue;
		u128 blocks = host_free_blocks(b, b->zones[i].node, pmd_order, NULL);
		table_cell(t, "%d", b->zones[i].node);
		table_cell(t, "all but DMA");
		buddy_cells(t, blocks, pmd_order, h->feat.page_size);
	}
}

static void render_boot(FILE *f, const struct host_snapshot *h, const struct host_derived *d,
			bool color)
{
	char v[96];
	struct table *t = section_table(f, "Since boot", "Ll", color);
	table_cell(t, "PMD fault success");
	status_ratio_str(v, sizeof(v), &d->fault_success);
	table_cell(t, "%s", v);
	for (int i = 0; i < d->nsizes; i++) {
		table_cell(t, "%llukB fault success", (unsigned long long)d->sizes[i].size_kb);
		status_ratio_str(v, sizeof(v), &d->sizes[i].success);
		table_cell(t, "%s", v);
	}
	table_cell(t, "collapse success");
	status_ratio_str(v, sizeof(v), &d->collapse_success);
	table_cell(t, "%s", v);
	table_cell(t, "khugepaged CPU");
	if (d->khugepaged_cpu.valid)
		table_cell(t, "%.2f%% of a CPU (%.1f s over %.0f s uptime)",
			   d->khugepaged_cpu.value * 100, h->khugepaged_cpu_s, h->uptime_s);
	else
		table_cell(t, "-");
	if (!d->recent) { /* with --sample, its own section follows */
		table_cell(t, "khugepaged CPU, recent");
		table_cell(t, "%s", status_recent_hint(d));
	}
	for (size_t i = 0; i < sizeof(boot_counters) / sizeof(boot_counters[0]); i++) {
		uint64_t x;
		table_cell(t, "%s", boot_counters[i]);
		if (host_vmstat(h, boot_counters[i], &x))
			table_cell(t, "%llu", (unsigned long long)x);
		else
			table_cell(t, "-");
	}
	table_flush(t, f, 2, color);
	if (!h->has_buddy || d->pmd_order < 0)
		return; /* without the PMD order there are no PMD blocks to count */
	fprintf(f, "\n  free blocks of order >= %d (PMD) per zone, from buddyinfo\n", d->pmd_order);
	static const char *const hdr[] = {"node", "zone", "free PMD blocks", "free memory in them"};
	t = table_new(4, hdr, "rLrr");
	for (int i = 0; i < h->buddy.nzones; i++) {
		const struct buddy_zone *z = &h->buddy.zones[i];
		table_cell(t, "%d", z->node);
		table_cell(t, "%s", z->zone);
		if (d->pmd_order < 0) {
			table_cell(t, "-");
			table_cell(t, "-");
			continue;
		}
		buddy_cells(t, zone_free_blocks(z, d->pmd_order), d->pmd_order, h->feat.page_size);
	}
	buddy_node_rows(t, h, d->pmd_order);
	table_flush(t, f, 4, color);
}

void status_render_header(FILE *f, const struct host_snapshot *h, bool color)
{
	fprintf(f, "%sthpctl status%s", col_bold(color), col_reset(color));
	if (h->nmissing) {
		fprintf(f, "  %s(partial: could not read", col_yellow(color));
		for (int i = 0; i < h->nmissing; i++)
			fputs(i ? ", " : " ", f), fputs_safe(h->missing[i], f);
		fprintf(f, ")%s", col_reset(color));
	}
	fputc('\n', f);
}

void status_render_text(FILE *f, const struct host_snapshot *h, const struct host_derived *d,
			const struct findings *fs, bool color)
{
	status_render_header(f, h, color);
	status_render_verdict(f, fs, h->nmissing > 0, color);
	render_kernel(f, h, color);
	render_policy(f, h, color);
	render_usage(f, h, d, color);
	render_boot(f, h, d, color);
	status_recent_render_text(f, d, color);
	status_render_findings(f, fs, color);
}

/* ---- JSON ---- */

static json_t *choice_json(const struct choice *c)
{
	if (!c->present)
		return json_null();
	json_t *o = json_object(), *opts = json_array();
	json_put(o, "value", json_str(c->selected));
	for (int i = 0; i < c->noptions; i++)
		json_array_append_new(opts, json_str(c->options[i]));
	json_put(o, "options", opts);
	return o;
}

static json_t *kernel_json(const struct host_snapshot *h)
{
	const struct features *ft = &h->feat;
	json_t *k = json_object(), *c = json_object();
	json_put(k, "release", ft->release[0] ? json_str(ft->release) : NULL);
	json_put(k, "page_size_bytes", ft->page_size > 0 ? json_integer(ft->page_size) : NULL);
	json_put(k, "pmd_size_bytes", ft->pmd_size ? json_u64(ft->pmd_size) : NULL);
	/* a capture that could not record the THP tree: what it lacks is unknown (null) */
	bool unrec = ft->thp_recorded == REC_MISSING;
	json_put(c, "thp", ft->thp || !unrec ? json_boolean(ft->thp) : NULL);
	json_t *sizes = json_array();
	for (int i = 0; i < h->thp.nsizes; i++)
		if (h->thp.sizes[i].enabled.present)
			json_array_append_new(sizes, json_u64(h->thp.sizes[i].size_kb));
	if (!json_array_size(sizes) && unrec) {
		json_decref(sizes);
		sizes = NULL;
	}
	json_put(c, "mthp_sizes_kb", sizes);
	json_put(c, "per_size_stats",
		 ft->per_size_stats || features_absence_known(ft, 6, 10)
			 ? json_boolean(ft->per_size_stats)
			 : NULL);
	json_put(c, "shrink_underused",
		 ft->shrink_underused || features_absence_known(ft, 6, 12)
			 ? json_boolean(ft->shrink_underused)
			 : NULL);
	json_put(c, "madv_collapse", status_tri_json(ft->madv_collapse));
	json_put(c, "pr_thp_disable_except_advised", status_tri_json(ft->except_advised));
	json_put(c, "status_thp_enabled", status_tri_json(ft->status_thp_enabled));
	json_put(c, "smaps_thpeligible", status_tri_json(ft->smaps_thpeligible));
	json_put(c, "cow_split_after_fork", status_tri_json(ft->cow_split));
	json_put(c, "cow_split_after_fork_inferred",
		 ft->cow_split == TRI_UNKNOWN ? json_null() : json_true());
	json_put(k, "capabilities", c);
	return k;
}

static json_t *policy_json(const struct host_snapshot *h)
{
	const struct thp_settings *s = &h->thp;
	json_t *p = json_object();
	json_put(p, "present", json_boolean(s->present));
	json_put(p, "enabled", choice_json(&s->enabled));
	json_put(p, "defrag", choice_json(&s->defrag));
	json_put(p, "use_zero_page", json_opt_u64(&s->use_zero_page));
	json_put(p, "shmem_enabled", choice_json(&s->shmem_enabled));
	json_put(p, "shrink_underused", json_opt_u64(&s->shrink_underused));
	json_put(p, "hpage_pmd_size_bytes", json_opt_u64(&s->hpage_pmd_size));
	json_t *k = json_object();
	for (int i = 0; i < KHP_NKNOBS; i++)
		json_put(k, khp_name(i), json_opt_u64(&s->khp[i]));
	json_put(p, "khugepaged", k);
	json_t *x = json_object();
	for (int i = 0; i < s->nextra; i++)
		json_put(x, s->extra[i].name, json_str(s->extra[i].value));
	json_put(p, "other", x);
	json_t *sizes = json_array();
	for (int i = 0; i < s->nsizes; i++) {
		const struct thp_size *sz = &s->sizes[i];
		json_t *o = json_object();
		json_put(o, "size_kb", json_u64(sz->size_kb));
		json_put(o, "order", sz->order >= 0 ? json_integer(sz->order) : NULL);
		json_put(o, "enabled", choice_json(&sz->enabled));
		json_put(o, "enabled_effective",
			 sz->eff_enabled ? json_str(sz->eff_enabled) : NULL);
		json_put(o, "shmem_enabled", choice_json(&sz->shmem_enabled));
		json_put(o, "shmem_enabled_effective",
			 sz->eff_shmem ? json_str(sz->eff_shmem) : NULL);
		json_t *st = NULL;
		if (sz->has_stats) {
			st = json_object();
			for (size_t j = 0; j < sz->stats.n; j++)
				json_put(st, sz->stats.items[j].name,
					 json_u64(sz->stats.items[j].value));
		}
		json_put(o, "stats", st);
		json_array_append_new(sizes, o);
	}
	json_put(p, "sizes", sizes);
	json_put(p, "cmdline_transparent_hugepage",
		 h->feat.cmdline_thp[0] ? json_str(h->feat.cmdline_thp) : NULL);
	json_put(p, "tuned", status_tuned_json(h));
	bool unrec = s->write_err == -ENODATA; /* a tree without the evidence */
	json_put(p, "writable", unrec ? NULL : json_boolean(s->present && s->write_err == 0));
	json_put(p, "write_error",
		 unrec			      ? json_str("not recorded")
		 : s->present && s->write_err ? json_str(strerror(-s->write_err))
					      : NULL);
	return p;
}

static json_t *usage_json(const struct host_snapshot *h, const struct host_derived *d)
{
	json_t *u = json_object(), *m = json_object();
	for (size_t i = 0; i < sizeof(usage_meminfo) / sizeof(usage_meminfo[0]); i++) {
		uint64_t x;
		json_put(m, usage_meminfo[i],
			 host_meminfo(h, usage_meminfo[i], &x) ? json_u64(x) : NULL);
	}
	json_put(u, "meminfo_kb", m);
	json_t *sizes = json_array();
	for (int i = 0; i < d->nsizes; i++) {
		json_t *o = json_object();
		json_put(o, "size_kb", json_u64(d->sizes[i].size_kb));
		json_put(o, "nr_anon", json_opt_u64(&d->sizes[i].nr_anon));
		json_put(o, "nr_anon_partially_mapped",
			 json_opt_u64(&d->sizes[i].nr_anon_partially_mapped));
		json_array_append_new(sizes, o);
	}
	json_put(u, "sizes", sizes);
	json_t *pools = json_array();
	for (int i = 0; i < h->hugetlb.npools; i++) {
		const struct hugetlb_pool *p = &h->hugetlb.pools[i];
		json_t *o = json_object();
		json_put(o, "size_kb", json_u64(p->size_kb));
		json_put(o, "node", p->node >= 0 ? json_integer(p->node) : NULL);
		json_put(o, "nr", json_opt_u64(&p->nr));
		json_put(o, "free", json_opt_u64(&p->free));
		json_put(o, "resv", json_opt_u64(&p->resv));
		json_put(o, "surplus", json_opt_u64(&p->surplus));
		json_put(o, "overcommit", json_opt_u64(&p->overcommit));
		json_array_append_new(pools, o);
	}
	json_put(u, "hugetlb", pools);
	return u;
}

static json_t *boot_json(const struct host_snapshot *h, const struct host_derived *d)
{
	json_t *b = json_object(), *vm = json_object();
	json_put(b, "fault_success", status_ratio_json(&d->fault_success));
	json_t *sizes = json_array();
	for (int i = 0; i < d->nsizes; i++) {
		json_t *o = json_object();
		json_put(o, "size_kb", json_u64(d->sizes[i].size_kb));
		json_put(o, "fault_success", status_ratio_json(&d->sizes[i].success));
		json_array_append_new(sizes, o);
	}
	json_put(b, "sizes", sizes);
	json_put(b, "collapse_success", status_ratio_json(&d->collapse_success));
	/* every thp_* and compact_* counter the kernel printed, known or not */
	for (size_t i = 0; i < h->vmstat.n; i++) {
		const struct kv *kv = &h->vmstat.items[i];
		if (strncmp(kv->name, "thp_", 4) == 0 || strncmp(kv->name, "compact_", 8) == 0 ||
		    strcmp(kv->name, "nr_anon_transparent_hugepages") == 0)
			json_put(vm, kv->name, json_u64(kv->value));
	}
	json_put(b, "vmstat", vm);
	json_put(b, "khugepaged_cpu_ratio",
		 d->khugepaged_cpu.valid ? json_real(d->khugepaged_cpu.value) : NULL);
	json_put(b, "khugepaged_cpu_s",
		 d->khugepaged_cpu.valid ? json_real(h->khugepaged_cpu_s) : NULL);
	json_put(b, "pmd_order", d->pmd_order >= 0 ? json_integer(d->pmd_order) : NULL);
	json_t *zones = json_array();
	for (int i = 0; h->has_buddy && i < h->buddy.nzones; i++) {
		const struct buddy_zone *z = &h->buddy.zones[i];
		json_t *o = json_object(), *fr = json_array();
		json_put(o, "node", json_integer(z->node));
		json_put(o, "zone", json_str(z->zone));
		for (int j = 0; j < z->norders; j++)
			json_array_append_new(fr, json_u64(z->free[j]));
		json_put(o, "free_blocks_by_order", fr);
		json_put(o, "free_pmd_blocks",
			 d->pmd_order >= 0 ? json_u128(zone_free_blocks(z, d->pmd_order)) : NULL);
		json_array_append_new(zones, o);
	}
	json_put(b, "buddyinfo", h->has_buddy ? zones : (json_decref(zones), NULL));
	return b;
}

json_t *status_to_json(const struct host_snapshot *h, const struct host_derived *d,
		       const struct findings *fs)
{
	json_t *root = json_object();
	if (!root)
		return NULL;
	status_partial_json(root, h);
	json_put(root, "kernel", kernel_json(h));
	json_put(root, "policy", policy_json(h));
	json_put(root, "usage", usage_json(h, d));
	json_put(root, "since_boot", boot_json(h, d));
	json_put(root, "recent", status_recent_json(d)); /* status --sample S, else null */
	json_put(root, "verdict", status_verdict_json(fs));
	json_put(root, "findings", status_findings_json(fs));
	return root;
}
