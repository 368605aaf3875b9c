// SPDX-License-Identifier: MIT
#include "status.h"

#include <errno.h>
#include <string.h>

#include "json.h"
#include "skips.h"
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

/* Each render_* below notes in *SEEN why it printed a '-' (enum status_dash), for the legend. */
static void render_kernel(FILE *f, const struct host_snapshot *h, bool color, unsigned *seen)
{
	const struct features *ft = &h->feat;
	char a[64], b[64];
	struct table *t = section_table(f, "Kernel", "Ll", color);
	table_cell(t, "release");
	table_cell(t, "%s", ft->release[0] ? ft->release : status_dash(seen, SD_ABSENT));
	table_cell(t, "base page");
	if (ft->page_size > 0)
		fmt_bytes(a, sizeof(a), (uint64_t)ft->page_size);
	table_cell(t, "%s%s", ft->page_size > 0 ? a : status_dash(seen, SD_UNKNOWN),
		   ft->page_size_inferred ? " (from recorded smaps)" : "");
	table_cell(t, "PMD size (hpage_pmd_size)");
	if (ft->pmd_size)
		fmt_bytes(b, sizeof(b), ft->pmd_size);
	table_cell(t, "%s", ft->pmd_size ? b : status_dash(seen, SD_ABSENT));
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
	/* a '-' of a probe says why on its own line */
	table_cell(t, "%s%s", status_tri_str(ft->madv_collapse, NULL),
		   ft->madv_collapse == TRI_UNKNOWN ? " (not probed: recorded tree)" : " (probed)");
	table_cell(t, "PR_THP_DISABLE_EXCEPT_ADVISED");
	table_cell(t, "%s%s", status_tri_str(ft->except_advised, NULL),
		   ft->except_advised == TRI_UNKNOWN ? " (not probed: recorded tree)"
		   : ft->thp_recorded == REC_LIVE    ? " (probed in a child)"
						     : " (as probed by the capture)");
	table_cell(t, "THP_enabled in status");
	table_cell(t, "%s", status_tri_str(ft->status_thp_enabled, seen));
	table_cell(t, "THPeligible in smaps");
	table_cell(t, "%s", status_tri_str(ft->smaps_thpeligible, seen));
	table_cell(t, "COW splits after fork");
	table_cell(t, "%s%s", status_tri_str(ft->cow_split, seen),
		   ft->cow_split == TRI_YES  ? " (inferred: kernel >= 5.8)"
		   : ft->cow_split == TRI_NO ? " (inferred: kernel < 5.8)"
					     : "");
	table_flush(t, f, 2, color);
}

/* The sizes table of the policy: anon and shmem policy per hugepages-<size>kB/. */
static void render_sizes(FILE *f, const struct thp_settings *s, bool color, unsigned *seen)
{
	static const char *const hdr[] = {"size",      "order",		"enabled",
					  "effective", "shmem_enabled", "effective"};
	struct table *t = table_new(6, hdr, "rrllll");
	for (int i = 0; i < s->nsizes; i++) {
		const struct thp_size *sz = &s->sizes[i];
		unsigned anon = host_size_shmem_only(s, i) ? SD_SHMEM_ONLY : SD_ABSENT;
		table_cell(t, "%llukB", (unsigned long long)sz->size_kb);
		if (sz->order >= 0)
			table_cell(t, "%d", sz->order);
		else
			table_cell(t, "%s", status_dash(seen, SD_UNKNOWN));
		table_cell(t, "%s",
			   sz->enabled.present ? sz->enabled.selected : status_dash(seen, anon));
		table_cell(t, "%s", sz->eff_enabled ? sz->eff_enabled : status_dash(seen, anon));
		table_cell(t, "%s", status_choice_str(&sz->shmem_enabled, seen));
		table_cell(t, "%s", sz->eff_shmem ? sz->eff_shmem : status_dash(seen, SD_ABSENT));
	}
	fprintf(f, "\n");
	table_flush(t, f, 2, color);
}

static void render_policy(FILE *f, const struct host_snapshot *h, bool color, unsigned *seen)
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
	table_cell(t, "%s", status_choice_str(&s->enabled, seen));
	table_cell(t, "defrag");
	table_cell(t, "%s", status_choice_str(&s->defrag, seen));
	table_cell(t, "use_zero_page");
	status_opt_str(v, sizeof(v), &s->use_zero_page, seen, SD_ABSENT);
	table_cell(t, "%s", v);
	table_cell(t, "shmem_enabled");
	table_cell(t, "%s", status_choice_str(&s->shmem_enabled, seen));
	table_cell(t, "shrink_underused");
	status_opt_str(v, sizeof(v), &s->shrink_underused, seen, SD_ABSENT);
	table_cell(t, "%s", v);
	for (int i = 0; i < s->nextra; i++) {
		table_cell(t, "%s", s->extra[i].name);
		table_cell(t, "%s (not upstream)", s->extra[i].value);
	}
	for (int k = 0; k < KHP_NKNOBS; k++) {
		table_cell(t, "khugepaged/%s", khp_name(k));
		status_opt_str(v, sizeof(v), &s->khp[k], seen, SD_ABSENT);
		table_cell(t, "%s%s", v, khp_is_counter(k) ? " (counter)" : "");
	}
	table_cell(t, "cmdline transparent_hugepage=");
	/* read and without the parameter: not set; proc/cmdline not read: unknown */
	table_cell(t, "%s",
		   h->feat.cmdline_thp[0] ? h->feat.cmdline_thp
		   : h->feat.has_cmdline  ? "not set"
					  : status_dash(seen, SD_ABSENT));
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
	if (s->nsizes)
		render_sizes(f, s, color, seen);
}

static void render_usage(FILE *f, const struct host_snapshot *h, const struct host_derived *d,
			 bool color, unsigned *seen)
{
	char v[64];
	struct table *t = section_table(f, "Usage now", "Lr", color);
	for (size_t i = 0; i < STATUS_N_USAGE_MEMINFO; i++) {
		uint64_t x;
		table_cell(t, "%s", status_usage_meminfo[i]);
		if (!host_meminfo(h, status_usage_meminfo[i], &x))
			table_cell(t, "%s", status_dash(seen, SD_ABSENT));
		else if (strncmp(status_usage_meminfo[i], "HugePages_", 10) == 0)
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
			unsigned why = sf->shmem_only ? SD_SHMEM_ONLY : SD_ABSENT;
			table_cell(t, "%llukB", (unsigned long long)sf->size_kb);
			status_opt_str(v, sizeof(v), &sf->nr_anon, seen, why);
			table_cell(t, "%s", v);
			if (sf->nr_anon.present) /* folios x size: exact, wide */
				fmt_kb_wide(v, sizeof(v), (u128)sf->nr_anon.v * sf->size_kb);
			table_cell(t, "%s", sf->nr_anon.present ? v : status_dash(seen, why));
			status_opt_str(v, sizeof(v), &sf->nr_anon_partially_mapped, seen, why);
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
			/* nodeN/hugepages/ has no resv_hugepages */
			status_opt_str(v, sizeof(v), cols[c], seen,
				       c == 2 && p->node >= 0 ? SD_NODE_RESV : SD_ABSENT);
			table_cell(t, "%s", v);
		}
	}
	table_flush(t, f, 4, color);
}

/* The cells of BLOCKS free blocks of ORDER: blocks, memory (exact). */
static void buddy_cells(struct table *t, u128 blocks, int order, long page_size, unsigned *seen)
{
	char v[64];
	fmt_u128(v, sizeof(v), blocks);
	table_cell(t, "%s", v);
	if (page_size > 0) /* < 2^85 pages a host, x 2^16 bytes: exact */
		fmt_kb_wide(v, sizeof(v), (blocks << order) * (u128)page_size / 1024);
	else
		snprintf(v, sizeof(v), "%s", status_dash(seen, SD_UNKNOWN));
	table_cell(t, "%s", v);
}

/* With more than one node: a row per node summing its zones but DMA (what THP can use). */
static void buddy_node_rows(struct table *t, const struct host_snapshot *h, int pmd_order,
			    unsigned *seen)
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
		buddy_cells(t, blocks, pmd_order, h->feat.page_size, seen);
	}
}

/*
 * "504 (over max_ptes_none 504, max_ptes_swap 0, max_ptes_shared 0; once per scan of a
 * range)": the thp_scan_exceed_* counters summed, or '-' before 5.17.
 */
static void scan_exceed_str(char *out, size_t n, const struct host_derived *d, unsigned *seen)
{
	static const char *const knob[3] = {"max_ptes_none", "max_ptes_swap", "max_ptes_shared"};
	const struct opt_u64 *e = d->scan_exceed;
	if (!e[0].present && !e[1].present && !e[2].present) {
		snprintf(out, n, "%s", status_dash(seen, SD_ABSENT));
		return;
	}
	char part[3][48], sum[48];
	for (int i = 0; i < 3; i++) {
		if (e[i].present)
			snprintf(part[i], sizeof(part[i]), "%s %llu", knob[i],
				 (unsigned long long)e[i].v);
		else
			snprintf(part[i], sizeof(part[i]), "%s %s", knob[i],
				 status_dash(seen, SD_ABSENT));
	}
	if (d->scan_exceed_all)
		fmt_u128(sum, sizeof(sum), d->scan_exceed_sum);
	else
		snprintf(sum, sizeof(sum), "%s", status_dash(seen, SD_ABSENT));
	snprintf(out, n, "%s (over %s, %s, %s; once per scan of a range)", sum, part[0], part[1],
		 part[2]);
}

static void render_boot(FILE *f, const struct host_snapshot *h, const struct host_derived *d,
			bool color, unsigned *seen)
{
	char v[96];
	struct table *t = section_table(f, "Since boot", "Ll", color);
	table_cell(t, "PMD fault success");
	status_ratio_str(v, sizeof(v), &d->fault_success, seen, SD_ABSENT);
	table_cell(t, "%s", v);
	for (int i = 0; i < d->nsizes; i++) {
		const struct size_fault *sf = &d->sizes[i];
		table_cell(t, "%llukB fault success", (unsigned long long)sf->size_kb);
		status_ratio_str(v, sizeof(v), &sf->success, seen,
				 sf->shmem_only ? SD_SHMEM_ONLY : SD_ABSENT);
		table_cell(t, "%s", v);
	}
	/* of the collapses that allocated, not of the ranges scanned: those given up on a
	 * max_ptes_* limit are on their own line */
	table_cell(t, "collapse allocation success");
	status_ratio_str(v, sizeof(v), &d->collapse_alloc_success, seen, SD_ABSENT);
	table_cell(t, "%s", v);
	table_cell(t, "collapse scans given up");
	scan_exceed_str(v, sizeof(v), d, seen);
	table_cell(t, "%s", v);
	table_cell(t, "khugepaged CPU");
	if (d->khugepaged_cpu.valid && d->khugepaged_late)
		table_cell(t,
			   "%.2f%% of a CPU (%.1f s over the %.0f s since it started, %.0f s "
			   "after boot)",
			   d->khugepaged_cpu.value * 100, h->khugepaged_cpu_s,
			   d->khugepaged_alive_s, h->uptime_s - d->khugepaged_alive_s);
	else if (d->khugepaged_cpu.valid)
		table_cell(t, "%.2f%% of a CPU (%.1f s over %.0f s uptime)",
			   d->khugepaged_cpu.value * 100, h->khugepaged_cpu_s, h->uptime_s);
	else
		table_cell(t, "%s", status_dash(seen, SD_UNKNOWN));
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
			table_cell(t, "%s", status_dash(seen, SD_ABSENT));
	}
	table_flush(t, f, 2, color);
	if (!h->has_buddy)
		return;
	if (d->pmd_order < 0) { /* without the PMD order there are no PMD blocks to count */
		fputs("\n  free PMD blocks per zone: unknown (no PMD order: page or PMD size "
		      "unknown)\n",
		      f);
		return;
	}
	fprintf(f, "\n  free blocks of order >= %d (PMD) per zone, from buddyinfo\n", d->pmd_order);
	static const char *const hdr[] = {"node", "zone", "free PMD blocks", "free memory in them"};
	t = table_new(4, hdr, "rLrr");
	for (int i = 0; i < h->buddy.nzones; i++) {
		const struct buddy_zone *z = &h->buddy.zones[i];
		table_cell(t, "%d", z->node);
		table_cell(t, "%s", z->zone);
		buddy_cells(t, zone_free_blocks(z, d->pmd_order), d->pmd_order, h->feat.page_size,
			    seen);
	}
	buddy_node_rows(t, h, d->pmd_order, seen);
	table_flush(t, f, 4, color);
}

void status_render_header(FILE *f, const struct host_snapshot *h, bool color)
{
	fprintf(f, "%sthpctl status%s", col_bold(color), col_reset(color));
	if (host_snapshot_partial(h)) {
		fprintf(f, "  %s(partial:", col_yellow(color));
		if (h->nmissing)
			fputs(" could not read", f);
		for (int i = 0; i < h->nmissing; i++)
			fputs(i ? ", " : " ", f), fputs_safe(h->missing[i], f);
		struct bundle_skips sk;
		bundle_skips_of(&h->skips, &sk);
		if (bundle_skips_any(&sk)) {
			char w[SKIPS_WORDS_MAX];
			skips_words(w, sizeof(w), &sk);
			fputs(h->nmissing ? "; " : " ", f), fputs_safe(w, f);
		}
		fprintf(f, ")%s", col_reset(color));
	}
	fputc('\n', f);
}

void status_render_text(FILE *f, const struct host_snapshot *h, const struct host_derived *d,
			const struct findings *fs, bool color)
{
	unsigned seen = 0; /* the kinds of '-' printed, for the legend after the data */
	status_render_header(f, h, color);
	status_render_verdict(f, fs, host_snapshot_partial(h), color);
	render_kernel(f, h, color, &seen);
	render_policy(f, h, color, &seen);
	render_usage(f, h, d, color, &seen);
	render_boot(f, h, d, color, &seen);
	status_recent_render_text(f, d, color, &seen);
	status_dash_legend(f, h, seen);
	status_render_findings(f, fs, color);
}
