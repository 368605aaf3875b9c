// SPDX-License-Identifier: MIT
/* `thpctl maps --underused` in words and JSON (render/folios.h): all-zero subpages of a
 * process's THPs, and what the underused-THP shrinker gives back at each max_ptes_none. */
#include "folios.h"

#include <string.h>

#include "json.h"
#include "table.h"

/* ---- maps --underused ---- */

/* What the shrinker does at the settings now, into O. */
static const char *shrinker_now(const struct underused_report *r, char *o, size_t n)
{
	if (r->shrink_underused == -2)
		return "inconclusive: shrink_underused could not be read, so whether the shrinker "
		       "runs is unknown";
	if (r->shrink_underused < 0)
		return "this kernel has no underused-THP shrinker (6.12+): nothing is split for "
		       "being underused";
	if (r->shrink_underused == 0)
		return "shrink_underused is 0: the shrinker is off, nothing is split for being "
		       "underused";
	if (r->max_ptes_none < 0)
		return "inconclusive: khugepaged/max_ptes_none could not be read, so which THPs "
		       "the shrinker splits is unknown";
	if (r->max_ptes_none >= r->total.nsub - 1)
		return "at the default max_ptes_none the shrinker skips every THP: nothing is "
		       "split for being underused";
	/* the current value, whether or not it is a row of the table */
	uint64_t thps, sub;
	char kb[32];
	underused_split(&r->total, (int)r->max_ptes_none, &thps, &sub);
	fmt_kb(kb, sizeof(kb), folio_kb(&r->g, sub));
	snprintf(o, n,
		 "under memory pressure the shrinker splits the %llu of %llu THPs with more than "
		 "%ld all-zero subpages, giving back %s",
		 (unsigned long long)thps, (unsigned long long)r->total.nthp, r->max_ptes_none, kb);
	return o;
}

/* A knob's value in words: "-" absent or unreadable. */
static const char *knob_words(long v, char *o, size_t n)
{
	if (v == -1)
		return "absent";
	if (v < 0)
		return "- (unreadable)";
	snprintf(o, n, "%ld", v);
	return o;
}

void underused_render_text(FILE *f, const struct underused_report *r, bool color)
{
	char a[32], b[32];
	const struct underused_hist *h = &r->total;
	fmt_bytes(a, sizeof(a), r->bytes_read);
	fprintf(f, "%sPID %ld%s (", col_bold(color), r->pid, col_reset(color));
	fputs_safe(r->st.name, f);
	fmt_kb(b, sizeof(b), folio_kb(&r->g, h->nthp * (uint64_t)h->nsub));
	fprintf(f,
		"): %llu PMD-mapped anonymous THPs (%s); read %s of its memory through " PATH_PROC
		"/%ld/mem in %.1f ms\n",
		(unsigned long long)h->nthp, b, a, r->pid, r->elapsed_ms);
	if (r->partial)
		fprintf(f,
			"%spartial: without CAP_SYS_ADMIN the THPs are the PMD-mapped ranges of "
			"VMAs where smaps shows AnonHugePages%s\n",
			col_yellow(color), col_reset(color));
	if (r->unreadable)
		fprintf(f, "%d THP%s went away while being read (not counted)\n", r->unreadable,
			r->unreadable == 1 ? "" : "s");
	if (!h->nthp) {
		fprintf(f, "no PMD-mapped anonymous THP: nothing for the underused shrinker\n");
		return;
	}
	fmt_kb(a, sizeof(a), folio_kb(&r->g, h->zero));
	fprintf(f, "all-zero %llu kB subpages: %llu of %llu (%s, %.1f%%)\n\n",
		(unsigned long long)r->g.page_kb, (unsigned long long)h->zero,
		(unsigned long long)(h->nthp * (uint64_t)h->nsub), a,
		100.0 * (double)h->zero / (double)(h->nthp * (uint64_t)h->nsub));
	int th[UNDERUSED_NTHRESH];
	underused_thresholds(h->nsub, th);
	static const char *const hdr[] = {"max_ptes_none", "THPs split",
					  "given back under pressure", ""};
	struct table *t = table_new(4, hdr, "rrrl");
	for (int i = 0; i < UNDERUSED_NTHRESH; i++) {
		uint64_t thps, sub;
		underused_split(h, th[i], &thps, &sub);
		fmt_kb(a, sizeof(a), folio_kb(&r->g, sub));
		table_cell(t, "%d", th[i]);
		table_cell(t, "%llu of %llu", (unsigned long long)thps,
			   (unsigned long long)h->nthp);
		table_cell(t, "%s", a);
		if (th[i] == h->nsub - 1)
			table_cell(t, "(the kernel skips the check at %d)", th[i]);
		else if (th[i] == r->max_ptes_none)
			table_cell(t, "(now)");
		else
			table_cell(t, "%s", "");
	}
	table_flush(t, f, 2, color);
	char now[192], k1[24], k2[24];
	fprintf(f, "\nnow: khugepaged/max_ptes_none %s, shrink_underused %s: %s.\n",
		knob_words(r->max_ptes_none, k1, sizeof(k1)),
		knob_words(r->shrink_underused, k2, sizeof(k2)), shrinker_now(r, now, sizeof(now)));
	fprintf(f, "The shrinker gives memory back only under memory pressure (reclaim, or "
		   "memory.reclaim of its cgroup): setting max_ptes_none gives nothing back by "
		   "itself, RSS stays until then.\n");
	fprintf(f,
		"max_ptes_none also decides how many empty PTEs khugepaged may fill with "
		"zeros when it collapses a range into a THP (%s now): lowering it both stops "
		"that and arms this shrinker.\n",
		knob_words(r->max_ptes_none, k1, sizeof(k1)));
	if (r->n > 1) {
		fprintf(f, "\nper VMA (given back under memory pressure at each max_ptes_none):\n");
		char tn[UNDERUSED_NTHRESH][16];
		const char *vh[4 + UNDERUSED_NTHRESH] = {"START-END", "NAME", "THPs",
							 "ZERO SUBPAGES"};
		for (int k = 0; k < UNDERUSED_NTHRESH; k++) {
			snprintf(tn[k], sizeof(tn[k]), "%d", th[k]);
			vh[4 + k] = tn[k];
		}
		struct table *v = table_new(4 + UNDERUSED_NTHRESH, vh, "llrrrrrrr");
		char range[64];
		for (size_t i = 0; i < r->n; i++) {
			const struct underused_vma *u = &r->vmas[i];
			snprintf(range, sizeof(range), "%012llx-%012llx",
				 (unsigned long long)u->start, (unsigned long long)u->end);
			table_cell(v, "%s", range);
			table_cell(v, "%s", u->name);
			table_cell(v, "%llu", (unsigned long long)u->h.nthp);
			table_cell(v, "%llu", (unsigned long long)u->h.zero);
			for (int k = 0; k < UNDERUSED_NTHRESH; k++) {
				uint64_t thps, sub;
				underused_split(&u->h, th[k], &thps, &sub);
				fmt_kb(a, sizeof(a), folio_kb(&r->g, sub));
				table_cell(v, "%s", a);
			}
		}
		table_flush(v, f, 2, color);
	}
}

static json_t *thresholds_json(const struct underused_hist *h, const struct folio_geom *g)
{
	int th[UNDERUSED_NTHRESH];
	underused_thresholds(h->nsub, th);
	json_t *arr = json_array();
	for (int i = 0; i < UNDERUSED_NTHRESH; i++) {
		uint64_t thps, sub;
		underused_split(h, th[i], &thps, &sub);
		json_t *o = json_object();
		json_put(o, "max_ptes_none", json_integer(th[i]));
		json_put(o, "thps_split", json_u64(thps));
		json_put(o, "zero_subpages_freed", json_u64(sub));
		json_put(o, "freed_kb", json_u64(folio_kb(g, sub)));
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *underused_to_json(const struct underused_report *r)
{
	const struct underused_hist *h = &r->total;
	json_t *root = json_object(), *hist = json_array(), *vmas = json_array();
	json_put(root, "pid", json_integer(r->pid));
	json_put(root, "comm", json_str(r->st.name));
	/* a knob there but unreadable: what the shrinker does is unknown */
	json_put(root, "partial",
		 json_boolean(r->partial || r->unreadable || r->max_ptes_none == -2 ||
			      r->shrink_underused == -2));
	json_put(root, "elapsed_ms", json_real(r->elapsed_ms));
	json_put(root, "bytes_read", json_u64(r->bytes_read));
	json_put(root, "subpages_per_thp", json_integer(h->nsub));
	json_put(root, "thps", json_u64(h->nthp));
	json_put(root, "unreadable_thps", json_integer(r->unreadable));
	json_put(root, "zero_subpages", json_u64(h->zero));
	json_put(root, "zero_kb", json_u64(folio_kb(&r->g, h->zero)));
	json_put(root, "max_ptes_none",
		 r->max_ptes_none >= 0 ? json_integer(r->max_ptes_none) : NULL);
	json_put(root, "shrink_underused",
		 r->shrink_underused >= 0 ? json_boolean(r->shrink_underused) : NULL);
	json_put(root, "thresholds", thresholds_json(h, &r->g));
	for (int z = 0; h->hist && z <= h->nsub; z++) {
		if (!h->hist[z])
			continue;
		json_t *o = json_object();
		json_put(o, "zero_subpages", json_integer(z));
		json_put(o, "thps", json_u64(h->hist[z]));
		json_array_append_new(hist, o);
	}
	json_put(root, "histogram", hist);
	for (size_t i = 0; i < r->n; i++) {
		const struct underused_vma *u = &r->vmas[i];
		json_t *o = json_object();
		json_put_hex_range(o, u->start, u->end);
		json_put(o, "name", json_str(u->name));
		json_put(o, "thps", json_u64(u->h.nthp));
		json_put(o, "zero_subpages", json_u64(u->h.zero));
		json_put(o, "thresholds", thresholds_json(&u->h, &r->g));
		json_array_append_new(vmas, o);
	}
	json_put(root, "vmas", vmas);
	return root;
}
