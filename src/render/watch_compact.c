// SPDX-License-Identifier: MIT
/*
 * `thpctl watch`'s compact layout, vmstat-like, for a width narrower than the wide layout
 * (80 columns on a pipe): the time and 13 narrow columns under a group line, a row's mTHP
 * rates on continuation lines under it.
 */
#include <inttypes.h>
#include <string.h>

#include "table.h"
#include "watch_int.h"
#include "../util/units.h"

/*
 * The rate columns in enum watch_col order: the group a column starts (NULL: the one
 * before's), its short title (the kernel's word where it fits; the legend names each
 * counter) and its width. The compaction stall's is its value's 4 and the '!' after it.
 */
static const struct {
	const char *group, *title;
	int width;
} ccols[WC_N] = {
	[WC_FAULT_ALLOC] = {"THP fault", "alloc", 5},
	[WC_FAULT_FALLBACK] = {NULL, "fall", 4},
	[WC_COLLAPSE_ALLOC] = {"khugepaged", "alloc", 5},
	[WC_COLLAPSE_FAILED] = {NULL, "fail", 4},
	[WC_SPLIT_PAGE] = {"split", "page", 4},
	[WC_SPLIT_PMD] = {NULL, "pmd", 4},
	[WC_DEFERRED_SPLIT] = {NULL, "defer", 5},
	[WC_COMPACT_STALL] = {"compaction", "stall", 5},
	[WC_COMPACT_FAIL] = {NULL, "fail", 4},
	[WC_ALLOCSTALL] = {"reclaim", "stall", 5},
	[WC_PGSCAN_DIRECT] = {NULL, "scan", 4},
};

/* AnonHugePages and free PMD blocks: values of 4, titles on two lines ("Anon" over "Huge"). */
#define CW 4

size_t watch_compact_width(const struct watch_hdr *h)
{
	size_t w = (size_t)watch_time_width(h);
	for (int c = 0; c < WC_N; c++)
		w += 1 + (size_t)ccols[c].width;
	return w + 1 + CW + 1 + CW;
}

/* The group line: each group's name centred over its columns in '-' (an odd one on the left). */
static void group_line(FILE *f, const struct watch_hdr *h)
{
	fprintf(f, "%*s", watch_time_width(h), "");
	for (int c = 0; c < WC_N;) {
		int span = ccols[c].width, e = c + 1;
		for (; e < WC_N && !ccols[e].group; e++)
			span += 1 + ccols[e].width;
		int len = (int)strlen(ccols[c].group), pad = span > len ? span - len : 0;
		fprintf(f, " %.*s%s%.*s", pad - pad / 2, "----------------", ccols[c].group,
			pad / 2, "----------------");
		c = e;
	}
	fprintf(f, " %*s %*s", CW, "Anon", CW, "free");
}

void watch_compact_header(FILE *f, const struct watch_hdr *h, bool color)
{
	char pmd[32];
	watch_pmd_words(pmd, sizeof(pmd), h);
	/* short, so that a 24-row screen keeps its rows: `watch --help` names each title's counter */
	char legend[512];
	snprintf(legend, sizeof(legend),
		 "every %g s; events/s of the /proc/vmstat counters `thpctl watch --help` "
		 "names (k, M, G: thousands, millions, billions); '!': compaction stalls. "
		 "AnonHuge: AnonHugePages (K, M, G: KiB, MiB, GiB). freePMD: free %s blocks. "
		 "mTHP: SIZE alloc/fallback per s. '-': unknown.",
		 h->interval_s, pmd);
	watch_legend(f, legend, h->width, color);
	fputs(col_bold(color), f);
	group_line(f, h);
	fprintf(f, "\n%-*s", watch_time_width(h), "time");
	for (int c = 0; c < WC_N; c++)
		fprintf(f, " %*s", ccols[c].width, ccols[c].title);
	fprintf(f, " %*s %*s%s\n", CW, "Huge", CW, "PMD", col_reset(color));
}

static void fmt_rate(char *out, size_t n, const struct rate *r)
{
	if (rate_valid(r))
		fmt_num_narrow(out, n, r->per_s);
	else
		snprintf(out, n, "-");
}

/*
 * ROW's mTHP sizes at byte AT of OUT: "\n", the row's indent, "mTHP" and "  SIZEkB A/F" for
 * each size, a further line (indented alike) before a size that would pass H->width. A size
 * is never broken. Returns the new end.
 */
static size_t mthp_lines(char *out, size_t n, size_t at, const struct watch_hdr *h,
			 const struct watch_row *row)
{
	size_t indent = (size_t)watch_time_width(h) + 1, col = indent + 4;
	at = watch_put(out, n, at, "\n%*s%s", (int)indent, "", "mTHP");
	for (int i = 0; i < row->nsizes; i++) {
		char a[24], b[24], item[80];
		fmt_rate(a, sizeof(a), &row->sizes[i].alloc);
		fmt_rate(b, sizeof(b), &row->sizes[i].fallback);
		int k = snprintf(item, sizeof(item), "  %" PRIu64 "kB %s/%s", row->sizes[i].size_kb,
				 a, b);
		size_t len = k > 0 ? (size_t)k : 0;
		if (i > 0 && col + len > h->width) {
			at = watch_put(out, n, at, "\n%*s", (int)indent + 4, "");
			col = indent + 4;
		}
		at = watch_put(out, n, at, "%s", item);
		col += len;
	}
	return at;
}

void watch_compact_line(char *out, size_t n, const struct watch_hdr *h, const struct watch_row *row,
			bool color)
{
	char v[48];
	size_t at = watch_line_time(out, n, h, row);
	for (int c = 0; c < WC_N; c++) {
		const struct rate *r = &row->r[c];
		fmt_rate(v, sizeof(v), r);
		if (c != WC_COMPACT_STALL)
			at = watch_put(out, n, at, " %*s", ccols[c].width, v);
		else if (rate_valid(r) && r->delta > 0) /* '!' after the value's field */
			at = watch_put(out, n, at, " %s%*s!%s", color ? "\033[1;31m" : "",
				       ccols[c].width - 1, v, col_reset(color));
		else
			at = watch_put(out, n, at, " %*s ", ccols[c].width - 1, v);
	}
	if (row->anon_huge_kb.present)
		fmt_kb_narrow(v, sizeof(v), row->anon_huge_kb.v);
	else
		snprintf(v, sizeof(v), "-");
	at = watch_put(out, n, at, " %*s", CW, v);
	if (row->free_pmd_blocks.present)
		fmt_num_narrow(v, sizeof(v), (double)row->free_pmd_blocks.v);
	else
		snprintf(v, sizeof(v), "-");
	at = watch_put(out, n, at, " %*s", CW, v);
	if (row->nsizes > 0)
		mthp_lines(out, n, at, h, row);
}
