// SPDX-License-Identifier: MIT
#include "ledger.h"

#include "../util/units.h"
#include "alloc.h"
#include "json.h"
#include "ps.h"
#include "table.h"
#include "hint.h"

void ledger_cell(char *out, size_t n, int64_t kb, bool estimate)
{
	if (kb < 0) {
		snprintf(out, n, "-");
		return;
	}
	char v[32];
	fmt_kb(v, sizeof(v), (uint64_t)kb);
	snprintf(out, n, "%s%s", estimate && kb ? "~" : "", v);
}

const char *ledger_gap_words(enum ledger_gap g, bool held)
{
	switch (g) {
	case LG_DENIED:
		return held ? "needs root (PFNs in pagemap and /proc/kpageflags)"
			    : "not readable: /proc/PID/mem and pagemap (" HINT_PROC_DENIED ")";
	case LG_NO_SCAN:
		return "this kernel lacks PAGEMAP_SCAN (6.7+)";
	case LG_BUDGET:
		return "time budget ran out";
	case LG_ERROR:
		return "read error";
	case LG_NOT_ASKED:
		return "not computed here (thpctl why PID)";
	case LG_RECORDED:
		return "a recorded tree: needs the live process's pagemap and memory";
	default:
		return "";
	}
}

static void line_invented(FILE *f, const struct thp_ledger *l, bool color)
{
	char v[40];
	fprintf(f, "  %-12s ", "invented");
	if (l->invented_kb < 0) {
		fprintf(f, "-  (%s)\n", ledger_gap_words(l->invented_gap, false));
		return;
	}
	ledger_cell(v, sizeof(v), l->invented_kb, l->method == LM_SAMPLED);
	if (!l->thps) {
		fprintf(f, "0 kB  (no PMD-mapped THP to hold unwritten subpages)\n");
		return;
	}
	char pct[24];
	fprintf(f, "%s%s%s  ", l->bloated ? col_yellow(color) : "", v,
		l->bloated ? col_reset(color) : "");
	if (l->method == LM_EXACT) {
		fmt_pct(pct, sizeof(pct), (uint64_t)l->invented_kb, (uint64_t)l->huge_kb, 0);
		fprintf(f,
			"%s of huge-backed never written (all-zero subpages; exact, every subpage "
			"of %llu THPs read, /proc/PID/mem)",
			pct, (unsigned long long)l->thps);
	} else {
		/* the method, named: what was read, and what a sample cannot see */
		fmt_pct(pct, sizeof(pct), l->zero_samples, l->samples, 0);
		fprintf(f,
			"an estimate: %llu of the %llu subpages read were all-zero (%s), counted "
			"as never written: %d of each THP's %u, one at a random offset in each %u, "
			"%llu of %llu THPs sampled, /proc/PID/mem; a written subpage no read fell "
			"on counts as never written (every one: thpctl maps PID --underused)",
			(unsigned long long)l->zero_samples, (unsigned long long)l->samples, pct,
			l->k, l->subpages, l->k > 0 ? l->subpages / (unsigned)l->k : 0,
			(unsigned long long)l->thps_sampled, (unsigned long long)l->thps);
	}
	fprintf(f, "%s\n", l->bloated ? ": FLAGGED, over 25% of huge-backed and over 16 MiB" : "");
}

static void line_held(FILE *f, const struct thp_ledger *l, bool color)
{
	char v[32];
	fprintf(f, "  %-12s ", "held");
	if (l->held_kb < 0) {
		fprintf(f, "-  (%s)\n", ledger_gap_words(l->held_gap, true));
		return;
	}
	ledger_cell(v, sizeof(v), l->held_kb, false);
	if (l->held_by_counters) {
		fputs("0 kB  (nothing is held anywhere: the host has no partially mapped "
		      "anonymous THP and no anonymous mTHP when read, by its counters "
		      "nr_anon_partially_mapped and nr_anon)\n",
		      f);
		return;
	}
	if (!l->partial_folios) {
		fprintf(f,
			"0 kB  (no large folio mapped here only in part; pagemap + kpageflags)%s\n",
			l->held_gap == LG_BUDGET ? " (time budget ran out: partial)" : "");
		return;
	}
	bool flag = ledger_cost_flagged(l, LC_HELD);
	fprintf(f,
		"%s%s%s  in %llu partially mapped large folios (deferred split; pagemap + "
		"kpageflags)%s: still allocated and charged to the memory cgroup; freed only when "
		"the deferred-split shrinker splits them under memory pressure, or at exit%s\n",
		flag ? col_yellow(color) : "", v, flag ? col_reset(color) : "",
		(unsigned long long)l->partial_folios,
		l->held_gap == LG_BUDGET ? " (at least: time budget ran out)" : "",
		flag ? ": FLAGGED, over 25% of RSS plus held and over 16 MiB" : "");
}

static void line_creep(FILE *f, const struct thp_ledger *l, bool color)
{
	char v[32];
	fprintf(f, "  %-12s ", "creep");
	if (l->creep_kb < 0) {
		fprintf(f, "-  (%s)\n",
			l->creep_gap == LG_ERROR && l->max_ptes_none < 0
				? "khugepaged/max_ptes_none unknown"
				: ledger_gap_words(l->creep_gap, false));
		return;
	}
	ledger_cell(v, sizeof(v), l->creep_kb, false);
	if (!l->creep_ranges) {
		fprintf(f, "0 kB  (no PMD range khugepaged may collapse at max_ptes_none=%ld)\n",
			l->max_ptes_none);
		return;
	}
	bool flag = ledger_cost_flagged(l, LC_CREEP);
	if (l->creep_cg_bounded) { /* the cgroup's limit refuses the rest */
		char b[32];
		ledger_cell(b, sizeof(b), l->creep_bound_kb, false);
		fprintf(f,
			"up to %s  bounded by its memory cgroup's headroom (unbounded: up to "
			"%s%s%s if khugepaged collapses %llu PMD ranges, max_ptes_none=%ld; upper "
			"bound: resident pages per range from PAGEMAP_SCAN)%s\n",
			b, flag ? col_yellow(color) : "", v, flag ? col_reset(color) : "",
			(unsigned long long)l->creep_ranges, l->max_ptes_none,
			flag ? ": FLAGGED unbounded, over 25% of RSS plus creep and over 16 MiB"
			     : "");
		return;
	}
	fprintf(f,
		"up to %s%s%s  if khugepaged collapses %llu PMD ranges (max_ptes_none=%ld; upper "
		"bound: resident pages per range from PAGEMAP_SCAN%s)%s\n",
		flag ? col_yellow(color) : "", v, flag ? col_reset(color) : "",
		(unsigned long long)l->creep_ranges, l->max_ptes_none,
		l->creep_cg == LCG_UNKNOWN ? "; its memory cgroup's headroom, which may bound it, "
					     "unknown"
					   : "",
		flag ? ": FLAGGED, over 25% of RSS plus creep and over 16 MiB" : "");
}

static void line_lazyfree(FILE *f, const struct thp_ledger *l, bool color)
{
	char v[32];
	fprintf(f, "  %-12s ", "lazy free");
	if (l->lazyfree_kb < 0) {
		fprintf(f, "-  (LazyFree unknown: not in smaps (kernel < 4.12), damaged, or smaps "
			   "not read)\n");
		return;
	}
	ledger_cell(v, sizeof(v), l->lazyfree_kb, false);
	if (!l->lazyfree_kb) {
		fprintf(f,
			"0 kB  (no page freed with MADV_FREE waiting for reclaim; smaps LazyFree)\n");
		return;
	}
	bool flag = ledger_cost_flagged(l, LC_LAZYFREE);
	fprintf(f,
		"%s%s%s  freed with MADV_FREE but still mapped (smaps LazyFree): counted in RSS "
		"and in the memory cgroup; reclaimed only under memory pressure%s\n",
		flag ? col_yellow(color) : "", v, flag ? col_reset(color) : "",
		flag ? ": FLAGGED, over 25% of RSS and over 16 MiB" : "");
}

void ledger_render_lines(FILE *f, const struct thp_ledger *l, bool color)
{
	char v[32];
	fprintf(f, "%sledger%s (what huge pages buy and cost this process):\n", col_bold(color),
		col_reset(color));
	ledger_cell(v, sizeof(v), l->huge_kb, false);
	fprintf(f, "  %-12s %s  (AnonHugePages: PMD-mapped anonymous THP, smaps)", "huge-backed",
		v);
	bool any = false;
	for (int o = 1; o < LEDGER_ORDERS && l->held_kb >= 0; o++) {
		if (!l->mthp_kb[o])
			continue;
		char sz[32];
		fmt_kb(sz, sizeof(sz), l->mthp_kb[o]);
		fprintf(f, "%s %llukB folios %s",
			any ? "," : "; mTHP (PTE-mapped):", (unsigned long long)l->page_kb << o,
			sz);
		any = true;
	}
	fputc('\n', f);
	if (any)
		fprintf(f,
			"  %-12s mTHP folios are never counted as underused by the shrinker: it "
			"splits PMD THPs only\n",
			"");
	line_invented(f, l, color);
	line_held(f, l, color);
	line_creep(f, l, color);
	line_lazyfree(f, l, color);
}

static json_t *kb_or_null(int64_t kb)
{
	return kb >= 0 ? json_integer(kb) : json_null();
}

static json_t *gap_json(enum ledger_gap g)
{
	return g == LG_OK ? json_null() : json_str(ledger_gap_name(g));
}

json_t *ledger_to_json(const struct thp_ledger *l)
{
	json_t *o = json_object();
	json_put(o, "huge_backed_kb", kb_or_null(l->huge_kb));
	json_put(o, "invented_kb", kb_or_null(l->invented_kb));
	json_put(o, "invented_method",
		 l->invented_kb >= 0 ? json_str(ledger_method_name(l->method)) : NULL);
	json_put(o, "invented_samples_per_thp", l->k > 0 ? json_integer(l->k) : NULL);
	json_put(o, "pmd_thps", l->invented_kb >= 0 ? json_u64(l->thps) : NULL);
	json_put(o, "pmd_thps_sampled", l->invented_kb >= 0 ? json_u64(l->thps_sampled) : NULL);
	bool sampled = l->invented_kb >= 0 && l->method == LM_SAMPLED && l->thps;
	json_put(o, "invented_subpages_read", sampled ? json_u64(l->samples) : NULL);
	json_put(o, "invented_subpages_zero", sampled ? json_u64(l->zero_samples) : NULL);
	json_put(o, "invented_unknown", gap_json(l->invented_gap));
	json_put(o, "invented_flagged", l->invented_kb >= 0 ? json_boolean(l->bloated) : NULL);
	json_put(o, "held_flagged",
		 l->held_kb >= 0 ? json_boolean(ledger_cost_flagged(l, LC_HELD)) : NULL);
	json_put(o, "creep_flagged",
		 l->creep_kb >= 0 ? json_boolean(ledger_cost_flagged(l, LC_CREEP)) : NULL);
	json_put(o, "lazyfree_flagged",
		 l->lazyfree_kb >= 0 ? json_boolean(ledger_cost_flagged(l, LC_LAZYFREE)) : NULL);
	json_t *m = NULL;
	if (l->held_kb >= 0) { /* known from the same pagemap + kpageflags walk */
		m = json_object();
		for (int k = 1; k < LEDGER_ORDERS; k++)
			if (l->mthp_kb[k]) {
				char key[24];
				snprintf(key, sizeof(key), "%llu",
					 (unsigned long long)l->page_kb << k);
				json_put(m, key, json_integer((json_int_t)l->mthp_kb[k]));
			}
	}
	json_put(o, "mthp_kb_by_folio_kb", m);
	json_put(o, "held_kb", kb_or_null(l->held_kb));
	json_put(o, "partially_mapped_folios",
		 l->held_kb >= 0 ? json_u64(l->partial_folios) : NULL);
	json_put(o, "held_unknown", gap_json(l->held_gap));
	json_put(o, "held_method",
		 l->held_kb < 0	       ? NULL
		 : l->held_by_counters ? json_str("host_counters")
				       : json_str("walk"));
	json_put(o, "creep_max_kb", kb_or_null(l->creep_kb));
	json_put(o, "creep_pmd_ranges", l->creep_kb >= 0 ? json_u64(l->creep_ranges) : NULL);
	json_put(o, "max_ptes_none", l->max_ptes_none >= 0 ? json_integer(l->max_ptes_none) : NULL);
	json_put(o, "creep_unknown", gap_json(l->creep_gap));
	/* the creep capped at its memory cgroup's headroom: null with no limit, unknown, or
	 * not looked at (ps, maps); bounded: whether the headroom is below the creep */
	json_put(o, "creep_bound_kb",
		 l->creep_cg == LCG_LIMITED ? kb_or_null(l->creep_bound_kb) : NULL);
	json_put(o, "creep_cgroup_bounded",
		 l->creep_kb < 0 || l->creep_cg == LCG_NOT_ASKED || l->creep_cg == LCG_UNKNOWN
			 ? NULL
			 : json_boolean(l->creep_cg_bounded));
	json_put(o, "lazyfree_kb", kb_or_null(l->lazyfree_kb));
	json_put(o, "rss_kb", kb_or_null(l->rss_kb));
	json_put(o, "pte_full_kb", l->creep_kb >= 0 ? kb_or_null(l->pte_full_kb) : NULL);
	enum ledger_cost top = ledger_top_cost(l);
	json_put(o, "largest_flagged_cost",
		 top == LC_NONE ? NULL : json_str(ledger_cost_name(top)));
	return o;
}

const char *ledger_cost_words(enum ledger_cost c, bool flag)
{
	static const struct {
		const char *words, *flag;
	} w[] = {[LC_INVENTED] = {"invented (huge pages never written)", "invented>25%"},
		 [LC_HELD] = {"held by deferred split", "held>25%"},
		 [LC_CREEP] = {"of khugepaged creep", "creep>25%"},
		 [LC_LAZYFREE] = {"lazily freed", "lazyfree>25%"}};
	if ((unsigned)c >= LC_N || !w[c].words)
		return flag ? "" : "?";
	return flag ? w[c].flag : w[c].words;
}

void ps_ledger_render_text(FILE *f, const struct ps_report *r, bool color)
{
	static const char *const hdr[] = {"PID",      "USER", "COMM",  "ALLOC",	   "RSS", "HUGE",
					  "INVENTED", "HELD", "CREEP", "LAZYFREE", "FLAG"};
	struct table *t = table_new(11, hdr, "rlLlrrrrrrl");
	int flagged = 0, held_skipped = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct ps_row *row = &r->rows[i];
		struct thp_ledger none;
		const struct thp_ledger *l = row->led;
		if (!l) { /* not collected: every part unknown */
			ledger_unknown(-1, &none);
			l = &none;
		}
		held_skipped += !row->denied && l->held_gap == LG_NOT_ASKED;
		char v[40];
		table_cell(t, "%d", (int)row->p.pid);
		table_cell(t, "%s", row->user);
		table_cell(t, "%s", row->p.st.name);
		if (row->alloc)
			alloc_short(row->alloc, v, sizeof(v));
		else
			snprintf(v, sizeof(v), "-");
		table_cell(t, "%s", v);
		if (row->p.st.vmrss_kb.present) /* any u64 of kB is valid: exact */
			fmt_kb(v, sizeof(v), row->p.st.vmrss_kb.v);
		else
			snprintf(v, sizeof(v), "-");
		table_cell(t, "%s", v);
		ledger_cell(v, sizeof(v), row->denied ? -1 : l->huge_kb, false);
		table_cell(t, "%s", v);
		ledger_cell(v, sizeof(v), l->invented_kb, l->method == LM_SAMPLED);
		table_cell(t, "%s", v);
		ledger_cell(v, sizeof(v), l->held_kb, false);
		table_cell(t, "%s", v);
		ledger_cell(v, sizeof(v), l->creep_kb, false);
		table_cell(t, "%s", v);
		ledger_cell(v, sizeof(v), l->lazyfree_kb, false);
		table_cell(t, "%s", v);
		enum ledger_cost top = ledger_top_cost(l);
		table_cell(t, "%s", top == LC_NONE ? "" : ledger_cost_words(top, true));
		flagged += top != LC_NONE;
	}
	table_flush(t, f, 0, color);
	fprintf(f,
		"HUGE: AnonHugePages (smaps). INVENTED: never-written bytes inside PMD THPs (~: estimate, "
		"k=%d subpages sampled per THP through /proc/PID/mem).\n"
		"HELD: pages of partially mapped large folios waiting for the deferred-split shrinker "
		"(root: pagemap + kpageflags).\n"
		"CREEP: upper bound khugepaged may still add at max_ptes_none. LAZYFREE: freed with "
		"MADV_FREE, still in RSS until reclaimed under memory pressure (smaps). -: "
		"unknown.\n"
		"ALLOC: heap allocator or runtime, from maps and the executable read as ELF "
		"(thpctl why PID names the evidence); ?: likely, not proven (a stripped "
		"executable may link its own).\n",
		r->ledger_k);
	if (held_skipped)
		fprintf(f,
			"HELD -: not looked for in %d process%s without PMD-mapped THP, MADV_HUGEPAGE "
			"or enabled=always (their folio walk is skipped; thpctl maps PID --folios "
			"reads their folios).\n",
			held_skipped, held_skipped == 1 ? "" : "es");
	if (flagged)
		fprintf(f,
			"%s%d process%s flagged (FLAG: the largest cost over 16 MiB and 25%%: "
			"invented of HUGE, held, creep and lazy free of RSS); thpctl advise says "
			"what to change%s\n",
			col_yellow(color), flagged, flagged == 1 ? "" : "es", col_reset(color));
	if (r->host_partial_thps >= 0)
		fprintf(f,
			"host-wide: %lld anonymous THPs partially mapped, on the deferred-split list "
			"(nr_anon_partially_mapped, all sizes)\n",
			(long long)r->host_partial_thps);
	ps_partial_text(f, r, color); /* the same words as plain ps */
}
