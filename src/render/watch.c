// SPDX-License-Identifier: MIT
#include "watch.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "../model/host.h"
#include "json.h"
#include "table.h"
#include "watch_int.h"
#include "../util/buf.h"
#include "../util/wrap.h"

/* Column titles and widths of the rate columns, in enum watch_col order. */
static const struct {
	const char *title;
	int width;
} cols[WC_N] = {
	[WC_FAULT_ALLOC] = {"alloc", 7},       [WC_FAULT_FALLBACK] = {"fallback", 8},
	[WC_COLLAPSE_ALLOC] = {"collapse", 8}, [WC_COLLAPSE_FAILED] = {"coll_fail", 9},
	[WC_SPLIT_PAGE] = {"split", 7},	       [WC_SPLIT_PMD] = {"split_pmd", 9},
	[WC_DEFERRED_SPLIT] = {"deferred", 8}, [WC_COMPACT_STALL] = {"c_stall", 8},
	[WC_COMPACT_FAIL] = {"c_fail", 7},     [WC_ALLOCSTALL] = {"allocstall", 10},
	[WC_PGSCAN_DIRECT] = {"pgscan_d", 9},
};

#define W_AHP 10
#define W_FREE 8

bool watch_tenths(const struct watch_hdr *h)
{
	return h->interval_s > 0 && h->interval_s < 1;
}

int watch_time_width(const struct watch_hdr *h)
{
	return watch_tenths(h) ? 10 : 8;
}

/* Columns of the wide layout's title line, the widest of its fixed lines. */
static size_t wide_width(const struct watch_hdr *h)
{
	size_t w = (size_t)watch_time_width(h);
	for (int c = 0; c < WC_N; c++)
		w += 2 + (size_t)cols[c].width;
	return w + 2 + W_AHP + 2 + W_FREE + 2 + strlen("mTHP");
}

bool watch_compact(const struct watch_hdr *h)
{
	return h->width && h->width < wide_width(h);
}

void watch_legend(FILE *f, const char *legend, size_t width, bool color)
{
	/* each line a comment: "# " and the legend wrapped 2 columns narrower */
	struct buf w = {0};
	const char *text = legend;
	if (width > 2 && !wrap_line(&w, legend, strlen(legend), width - 2))
		text = w.p;
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		fprintf(f, "%s# %.*s%s\n", col_dim(color), (int)n, l, col_reset(color));
		l += n + (l[n] == '\n');
	}
	buf_free(&w);
}

void watch_pmd_words(char *out, size_t n, const struct watch_hdr *h)
{
	if (h->pmd_kb)
		snprintf(out, n, "%" PRIu64 " kB", h->pmd_kb);
	else
		snprintf(out, n, "PMD");
}

void watch_render_header(FILE *f, const struct watch_hdr *h, bool color)
{
	if (watch_compact(h)) {
		watch_compact_header(f, h, color);
		return;
	}
	char pmd[32];
	watch_pmd_words(pmd, sizeof(pmd), h);
	char legend[512];
	snprintf(legend, sizeof(legend),
		 "every %g s; rates in events/s from /proc/vmstat: THP faults (alloc, "
		 "fallback), khugepaged collapses, splits, compaction (c_stall, c_fail), direct "
		 "reclaim (allocstall; pgscan_d in pages/s). AnonHuge: /proc/meminfo "
		 "AnonHugePages. freePMD: free %s blocks (buddyinfo, all zones but DMA). mTHP: "
		 "SIZE alloc/fallback per s, sizes that moved. '!': compaction stalls.",
		 h->interval_s, pmd);
	watch_legend(f, legend, h->width, color);
	fprintf(f, "%s%-*s", col_bold(color), watch_time_width(h), "time");
	for (int c = 0; c < WC_N; c++)
		fprintf(f, "  %*s", cols[c].width, cols[c].title);
	fprintf(f, "  %*s  %*s  %s%s\n", W_AHP, "AnonHuge", W_FREE, "freePMD", "mTHP",
		col_reset(color));
}

static void fmt_rate(char *out, size_t n, const struct rate *r)
{
	if (!rate_valid(r))
		snprintf(out, n, "-");
	else if (r->per_s < 10 && r->per_s != floor(r->per_s))
		snprintf(out, n, "%.1f", r->per_s);
	else
		snprintf(out, n, "%.0f", r->per_s);
}

size_t watch_line_time(char *out, size_t n, const struct watch_hdr *h, const struct watch_row *row)
{
	char tbuf[24];
	out[0] = '\0';
	watch_fmt_time(tbuf, sizeof(tbuf), h, row);
	return watch_put(out, n, 0, "%-*s", watch_time_width(h), tbuf);
}

size_t watch_put(char *out, size_t n, size_t at, const char *fmt, ...)
{
	if (at >= n)
		return at;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(out + at, n - at, fmt, ap);
	va_end(ap);
	if (k < 0)
		return at;
	return at + (size_t)k >= n ? n - 1 : at + (size_t)k;
}

void watch_fmt_time(char *out, size_t n, const struct watch_hdr *h, const struct watch_row *row)
{
	snprintf(out, n, "-");
	time_t t = (time_t)row->wall_s;
	struct tm tm;
	if (row->wall_s >= 0 && localtime_r(&t, &tm) && n > 8) {
		strftime(out, n, "%H:%M:%S", &tm);
		if (watch_tenths(h)) /* truncated, as the seconds are */
			snprintf(out + 8, n - 8, ".%d", (int)((row->wall_s - (double)t) * 10) % 10);
	}
}

void watch_format_line(char *out, size_t n, const struct watch_hdr *h, const struct watch_row *row,
		       bool color)
{
	if (watch_compact(h)) {
		watch_compact_line(out, n, h, row, color);
		return;
	}
	char v[48];
	size_t at = watch_line_time(out, n, h, row);
	for (int c = 0; c < WC_N; c++) {
		const struct rate *r = &row->r[c];
		fmt_rate(v, sizeof(v), r);
		if (c == WC_COMPACT_STALL && rate_valid(r) && r->delta > 0) {
			/* '!' outside the field width keeps the columns aligned */
			at = watch_put(out, n, at, "  %s%*s!%s", color ? "\033[1;31m" : "",
				       cols[c].width - 1, v, col_reset(color));
			continue;
		}
		at = watch_put(out, n, at, "  %*s", cols[c].width, v);
	}
	if (row->anon_huge_kb.present)
		fmt_kb(v, sizeof(v), row->anon_huge_kb.v);
	else
		snprintf(v, sizeof(v), "-");
	at = watch_put(out, n, at, "  %*s", W_AHP, v);
	if (row->free_pmd_blocks.present)
		snprintf(v, sizeof(v), "%" PRIu64, row->free_pmd_blocks.v);
	else
		snprintf(v, sizeof(v), "-");
	at = watch_put(out, n, at, "  %*s", W_FREE, v);
	for (int i = 0; i < row->nsizes; i++) {
		char a[24], b[24];
		fmt_rate(a, sizeof(a), &row->sizes[i].alloc);
		fmt_rate(b, sizeof(b), &row->sizes[i].fallback);
		at = watch_put(out, n, at, "  %" PRIu64 "kB %s/%s", row->sizes[i].size_kb, a, b);
	}
}

static void fmt_delta(char *out, size_t n, int64_t d)
{
	char v[32];
	fmt_kb(v, sizeof(v), d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d);
	snprintf(out, n, "%s%s", d < 0 ? "-" : d > 0 ? "+" : "", v);
}

void watch_render_top(FILE *f, const struct watch_row *row, bool color)
{
	if (!row->ntop)
		return;
	static const char *const hdr[] = {"PID",      "COMM", "ΔAnonHuge", "ΔRSS",
					  "AnonHuge", "RSS",  "NOTE"};
	struct table *t = table_new(7, hdr, "rlrrrrl");
	if (!t)
		return;
	for (size_t i = 0; i < row->ntop; i++) {
		const struct proc_change *c = &row->top[i];
		char a[32], b[32], x[32], y[32];
		if (c->anon_huge_known)
			fmt_delta(a, sizeof(a), c->anon_huge_delta_kb);
		else
			snprintf(a, sizeof(a), "-");
		fmt_delta(b, sizeof(b), c->rss_delta_kb);
		if (c->anon_huge_known && !c->exited)
			fmt_kb(x, sizeof(x), c->anon_huge_kb);
		else
			snprintf(x, sizeof(x), "-");
		if (!c->exited)
			fmt_kb(y, sizeof(y), c->rss_kb);
		else
			snprintf(y, sizeof(y), "-");
		table_cell(t, "%d", (int)c->pid);
		table_cell(t, "%s", c->comm);
		table_cell(t, "%s", a);
		table_cell(t, "%s", b);
		table_cell(t, "%s", x);
		table_cell(t, "%s", y);
		table_cell(t, "%s",
			   c->appeared		 ? "started"
			   : c->exited		 ? "exited"
			   : !c->anon_huge_known ? "unreadable"
						 : "");
	}
	table_flush(t, f, 4, color);
}

void watch_render_screen(FILE *f, const struct watch_hdr *h, char *const *lines, size_t nlines,
			 const struct watch_row *row, bool color)
{
	fputs("\033[H\033[2J", f);
	watch_render_header(f, h, color);
	for (size_t i = 0; i < nlines; i++)
		fprintf(f, "%s\n", lines[i]);
	if (h->top && row) {
		fputc('\n', f);
		if (row->ntop)
			watch_render_top(f, row, color);
		else
			fprintf(f, "    no process changed its AnonHugePages or RSS\n");
	}
}

/* Terminal rows that S[0..N) takes on a screen WIDTH wide: each line folded, 1 at least. */
static size_t text_rows(const char *s, size_t n, size_t width)
{
	size_t rows = 0;
	for (const char *e = s + n; s < e;) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(e - s);
		size_t w = wrap_display_width(s, len);
		rows += w ? (w + width - 1) / width : 1;
		s += len + (nl != NULL);
	}
	return rows;
}

size_t watch_screen_fit(const struct watch_hdr *h, char *const *lines, size_t nlines,
			const struct watch_row *row, bool color, size_t rows, size_t width)
{
	if (!nlines)
		return 0;
	if (!width)
		width = 80;
	char *fixed = NULL;
	size_t flen = 0, used = 1; /* the cursor's line after the last one */
	FILE *f = open_memstream(&fixed, &flen);
	if (f) {
		watch_render_screen(f, h, NULL, 0, row, color);
		if (fclose(f) == 0)
			used += text_rows(fixed, flen, width);
	}
	free(fixed);
	size_t show = 0;
	for (size_t i = nlines; i-- > 0;) {
		size_t r = text_rows(lines[i], strlen(lines[i]), width);
		if (show && used + r > rows)
			break;
		used += r;
		show++;
	}
	return show;
}

static json_t *rate_json(const struct rate *r)
{
	return rate_valid(r) ? json_real(r->per_s) : json_null();
}

static json_t *i64_json(int64_t v)
{
	return json_integer((json_int_t)v);
}

json_t *watch_row_to_json(const struct watch_row *row, bool with_top)
{
	json_t *o = json_object(), *rates = json_object(), *deltas = json_object(),
	       *resets = json_array(), *sizes = json_array();
	if (!json_made(&o, &rates, &deltas, &resets, &sizes, NULL))
		return NULL;
	json_put(o, "time_s", json_real(floor(row->wall_s * 1000) / 1000));
	json_put(o, "interval_s", json_real(row->interval_s));
	for (int c = 0; c < WC_N; c++) {
		const struct rate *r = &row->r[c];
		const char *k = watch_col_key((enum watch_col)c);
		json_put(rates, k, rate_json(r));
		json_put(deltas, k, rate_valid(r) ? json_u64(r->delta) : json_null());
		if (r->state == RATE_RESET)
			json_array_append_new(resets, json_string(k));
	}
	/* a per-size counter that went down: its kernel path below transparent_hugepage/ */
	for (int i = 0; i < row->nsizes; i++) {
		const struct size_rate *s = &row->sizes[i];
		char k[80];
		if (s->alloc.state == RATE_RESET) {
			snprintf(k, sizeof(k), "hugepages-%" PRIu64 "kB/stats/anon_fault_alloc",
				 s->size_kb);
			json_array_append_new(resets, json_string(k));
		}
		if (s->fallback.state == RATE_RESET) {
			snprintf(k, sizeof(k), "hugepages-%" PRIu64 "kB/stats/anon_fault_fallback",
				 s->size_kb);
			json_array_append_new(resets, json_string(k));
		}
	}
	json_put(o, "rates_per_s", rates);
	json_put(o, "deltas", deltas);
	json_put(o, "resets", resets);
	const struct rate *st = &row->r[WC_COMPACT_STALL];
	json_put(o, "compact_stall_increment", json_boolean(rate_valid(st) && st->delta > 0));
	for (int i = 0; i < row->nsizes; i++) {
		const struct size_rate *s = &row->sizes[i];
		json_t *j = json_object();
		json_put(j, "size_kb", json_u64(s->size_kb));
		json_put(j, "anon_fault_alloc_per_s", rate_json(&s->alloc));
		json_put(j, "anon_fault_fallback_per_s", rate_json(&s->fallback));
		json_array_append_new(sizes, j);
	}
	json_put(o, "mthp", sizes);
	json_put(o, "anon_huge_pages_kb", json_opt_u64(&row->anon_huge_kb));
	json_put(o, "anon_huge_pages_delta_kb",
		 row->has_anon_huge_delta ? i64_json(row->anon_huge_delta_kb) : json_null());
	json_put(o, "free_pmd_blocks", json_opt_u64(&row->free_pmd_blocks));
	json_put(o, "pmd_size_kb", row->pmd_kb ? json_u64(row->pmd_kb) : json_null());
	if (with_top) {
		json_t *top = json_array();
		for (size_t i = 0; top && i < row->ntop; i++) {
			const struct proc_change *c = &row->top[i];
			json_t *j = json_object();
			json_put(j, "pid", json_integer(c->pid));
			json_put(j, "comm", json_str(c->comm));
			json_put(j, "rss_kb", c->exited ? json_null() : json_u64(c->rss_kb));
			json_put(j, "rss_delta_kb", i64_json(c->rss_delta_kb));
			json_put(j, "anon_huge_kb",
				 c->anon_huge_known && !c->exited ? json_u64(c->anon_huge_kb)
								  : json_null());
			json_put(j, "anon_huge_delta_kb",
				 c->anon_huge_known ? i64_json(c->anon_huge_delta_kb)
						    : json_null());
			json_put(j, "appeared", json_boolean(c->appeared));
			json_put(j, "exited", json_boolean(c->exited));
			json_array_append_new(top, j);
		}
		json_put(o, "top", top);
	}
	return o;
}

json_t *watch_settings_json(const struct thp_settings *s)
{
	json_t *o = json_object();
	if (!o || !s->present)
		return o;
	char key[96];
	if (s->enabled.present)
		json_put(o, "enabled", json_str(s->enabled.selected));
	if (s->defrag.present)
		json_put(o, "defrag", json_str(s->defrag.selected));
	if (s->shmem_enabled.present)
		json_put(o, "shmem_enabled", json_str(s->shmem_enabled.selected));
	if (s->use_zero_page.present)
		json_put(o, "use_zero_page", json_u64(s->use_zero_page.v));
	if (s->shrink_underused.present)
		json_put(o, "shrink_underused", json_u64(s->shrink_underused.v));
	for (int k = 0; k < KHP_NKNOBS; k++)
		if (s->khp[k].present && !khp_is_counter((enum khp_knob)k)) {
			snprintf(key, sizeof(key), "khugepaged/%s", khp_name((enum khp_knob)k));
			json_put(o, key, json_u64(s->khp[k].v));
		}
	for (int i = 0; i < s->nsizes; i++) {
		const struct thp_size *z = &s->sizes[i];
		if (z->enabled.present) {
			snprintf(key, sizeof(key), "hugepages-%llukB/enabled",
				 (unsigned long long)z->size_kb);
			json_put(o, key, json_str(z->enabled.selected));
		}
		if (z->shmem_enabled.present) {
			snprintf(key, sizeof(key), "hugepages-%llukB/shmem_enabled",
				 (unsigned long long)z->size_kb);
			json_put(o, key, json_str(z->shmem_enabled.selected));
		}
	}
	return o;
}
