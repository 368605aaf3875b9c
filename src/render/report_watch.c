// SPDX-License-Identifier: MIT
/* A `watch --record` recording as a report: rates and AnonHugePages over time (report.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The rates drawn, as watch --json names them, and their legend. */
static const char *const rate_keys[] = {"thp_fault_alloc", "thp_fault_fallback", "compact_stall",
					"thp_split_pmd", "thp_collapse_alloc"};
static const char *const rate_names[] = {"fault alloc", "fault fallback", "compact_stall",
					 "split_pmd", "khugepaged collapse"};
#define NRATES (sizeof(rate_keys) / sizeof(rate_keys[0]))

/* A setting change between two records: at T (s since the first), "defrag: madvise -> defer". */
struct change {
	double t;
	char text[200];
};

/* A JSON value as text for a change label: a string or an integer. */
static void value_text(char *out, size_t n, const json_t *v)
{
	if (json_is_string(v))
		snprintf(out, n, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(out, n, "%lld", (long long)json_integer_value(v));
	else if (!v)
		snprintf(out, n, "(none)");
	else
		snprintf(out, n, "?");
}

/*
 * The keys of settings A and B whose values differ, as changes at T into CH (up to MAX), each
 * label followed by NOTE ("" or " (between 2.0 s and 5.0 s)": records without settings lay
 * between A and B).
 */
static size_t settings_diff(const json_t *a, const json_t *b, double t, const char *note,
			    struct change *ch, size_t n, size_t max)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)b, key, v)
	{
		const json_t *old = json_object_get(a, key);
		if (old && json_equal((json_t *)old, v))
			continue;
		if (n == max)
			return n;
		char x[64], y[64];
		value_text(x, sizeof(x), old);
		value_text(y, sizeof(y), v);
		ch[n].t = t;
		snprintf(ch[n].text, sizeof(ch[n].text), "%s: %s -> %s%s", key, x, y, note);
		n++;
	}
	json_object_foreach((json_t *)a, key, v)
	{
		if (json_object_get(b, key) || n == max)
			continue;
		char x[64];
		value_text(x, sizeof(x), v);
		ch[n].t = t;
		snprintf(ch[n].text, sizeof(ch[n].text), "%s: %s -> (gone)%s", key, x, note);
		n++;
	}
	return n;
}

/* Record I's number at KEY under OBJ (NULL: top level), NAN when null or absent. */
static double num_at(json_t *rec, const char *obj, const char *key)
{
	json_t *o = obj ? json_object_get(rec, obj) : rec;
	json_t *v = o ? json_object_get(o, key) : NULL;
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The time axis: wall-clock seconds T (N points) in the data host's zone. */
struct taxis {
	const double *t;
	size_t n;
	long off; /* seconds east of UTC */
	char title[64];
};

/* The K series Y[k] that have a non-zero value (their indexes into IDX); the others' names into
 * ZERO (all 0) and NONE (no value at all), comma-separated. Returns how many are drawn. */
static int drawable(double *const *y, const char *const *names, int k, size_t n, int *idx,
		    char *zero, char *none, size_t len)
{
	int m = 0;
	zero[0] = none[0] = '\0';
	for (int s = 0; s < k; s++) {
		bool any = false, nonzero = false;
		for (size_t i = 0; i < n; i++)
			if (isfinite(y[s][i])) {
				any = true;
				nonzero |= y[s][i] != 0;
			}
		char *dst = nonzero ? NULL : any ? zero : none;
		if (!dst) {
			idx[m++] = s;
			continue;
		}
		size_t l = strlen(dst);
		snprintf(dst + l, len - l, "%s%s", l ? ", " : "", names[s]);
	}
	return m;
}

/* The numbers of chart ID under it, folded (<details>): t since the first, local time, Y[k]. */
static void time_table(struct hbuf *h, const char *id, const struct taxis *ax, double *const *y,
		       const char *const *names, int k, const char *unit)
{
	hb_printf(h, "<details><summary>the numbers: %zu interval%s</summary>\n", ax->n,
		  ax->n == 1 ? "" : "s");
	const char *cols[NRATES + 2] = {"t (s)", "local time"};
	char head[NRATES + 1][64]; /* each series' name with the unit of its cells */
	for (int s = 0; s < k; s++) {
		snprintf(head[s], sizeof(head[s]), "%s (%s)", names[s], unit);
		cols[s + 2] = head[s];
	}
	report_table_begin(h, id, cols, k + 2);
	for (size_t i = 0; i < ax->n; i++) {
		char cell[NRATES + 1][32], lab[32];
		const char *cp[NRATES + 1];
		report_time(cell[0], sizeof(cell[0]), ax->t[i], ax->off);
		cp[0] = strlen(cell[0]) > 11 ? cell[0] + 11 : cell[0]; /* the time of day */
		for (int s = 0; s < k; s++) {
			report_num(cell[s + 1], sizeof(cell[s + 1]), y[s][i]);
			cp[s + 1] = cell[s + 1];
		}
		snprintf(lab, sizeof(lab), "%.1f", ax->t[i] - ax->t[0]);
		report_table_row(h, lab, cp, k + 1);
	}
	report_table_end(h);
	hb_puts(h, "</details>\n");
}

/* One chart over wall-clock time of the K series Y[k] (NAN: no point), with the markers; series
 * that are 0 throughout (or have no value) are listed under it, not drawn under another line. */
static void time_chart(struct hbuf *h, const char *id, const char *title, const char *ytitle,
		       const struct taxis *ax, double *const *y, const char *const *names, int k,
		       const struct change *ch, size_t nch)
{
	size_t n = ax->n;
	int idx[NRATES + 1];
	char zero[256], none[256];
	int m = drawable(y, names, k, n, idx, zero, none, sizeof(zero));
	double y1 = 0;
	for (int j = 0; j < m; j++)
		for (size_t i = 0; i < n; i++)
			if (isfinite(y[idx[j]][i]))
				y1 = svg_max(y1, y[idx[j]][i]);
	struct svg_chart c;
	svg_chart_begin_clock(&c, h, id, title, ax->t[0], ax->t[n - 1], (double)ax->off, 0, y1,
			      ax->title, ytitle);
	double *px = malloc((n ? n : 1) * sizeof(double)),
	       *py = malloc((n ? n : 1) * sizeof(double));
	const char *shown[NRATES + 1];
	for (int j = 0; px && py && j < m; j++) {
		int s = idx[j], p = 0;
		shown[j] = names[s];
		for (size_t i = 0; i < n; i++)
			if (isfinite(y[s][i])) {
				px[p] = ax->t[i];
				py[p++] = y[s][i];
			}
		svg_line(&c, px, py, p, s, p <= 60);
	}
	free(px);
	free(py);
	for (size_t i = 0; i < nch; i++)
		svg_vmarker(&c, ch[i].t, ch[i].text, (int)i);
	if (!m)
		svg_note(&c, NAN,
			 k == 1 ? "0 throughout the recording"
				: "every series is 0 throughout the recording");
	svg_legend_colored(&c, shown, idx, m);
	svg_chart_end(&c);
	char line[600];
	if (*zero && m) {
		snprintf(line, sizeof(line), "0 throughout the recording (not drawn): %s", zero);
		report_para(h, "meta", line);
	}
	if (*none) {
		snprintf(line, sizeof(line), "no value in the recording: %s", none);
		report_para(h, "meta", line);
	}
	time_table(h, id, ax, y, names, k, ytitle);
}

/* The setting changes as a table (the markers' labels), with their time since the first. */
static void changes_table(struct hbuf *h, const struct taxis *ax, const struct change *ch,
			  size_t nch)
{
	static const char *const cols[3] = {"t (s)", "setting change", "local time"};
	report_table_begin(h, "watch-changes", cols, 3);
	for (size_t i = 0; i < nch; i++) {
		char lab[32], when[40];
		report_time(when, sizeof(when), ch[i].t, ax->off);
		const char *cp[2] = {ch[i].text, strlen(when) > 11 ? when + 11 : when};
		snprintf(lab, sizeof(lab), "%.1f", ch[i].t - ax->t[0]);
		report_table_row(h, lab, cp, 2);
	}
	report_table_end(h);
}

int report_watch(struct hbuf *h, json_t *const *rec, size_t n, const struct report_ctx *ctx)
{
	if (!n || !json_is_number(json_object_get(rec[0], "time_s")))
		return -EINVAL;
	double *t = calloc(n, sizeof(double)), *y[NRATES + 1];
	struct change *ch = calloc(64, sizeof(*ch));
	int bad = !t || !ch;
	for (size_t s = 0; s <= NRATES; s++)
		bad |= !(y[s] = calloc(n, sizeof(double)));
	size_t nch = 0, seen = 0;
	json_t *last = NULL; /* the last settings seen: a record may have none ("settings":null) */
	for (size_t i = 0; !bad && i < n; i++) {
		t[i] = num_at(rec[i], NULL, "time_s");
		if (!isfinite(t[i]))
			t[i] = i ? t[i - 1]
				 : 0; /* a record without a time: drawn where the last was */
		for (size_t s = 0; s < NRATES; s++)
			y[s][i] = num_at(rec[i], "rates_per_s", rate_keys[s]);
		y[NRATES][i] = num_at(rec[i], NULL, "anon_huge_pages_kb") / 1024;
		json_t *b = json_object_get(rec[i], "settings");
		if (!json_is_object(b))
			continue;
		/* after records without settings: changed somewhere in that gap, marked at its end */
		char note[64] = "";
		if (last && i - seen > 1)
			snprintf(note, sizeof(note), " (between %.1f s and %.1f s)", t[seen] - t[0],
				 t[i] - t[0]);
		if (last)
			nch = settings_diff(last, b, t[i], note, ch, nch, 64);
		last = b, seen = i;
	}
	if (!bad) {
		struct taxis ax = {
			.t = t, .n = n, .off = ctx && ctx->tz_known ? ctx->utc_off_s : 0};
		if (ctx && ctx->tz_known) {
			long a = ax.off < 0 ? -ax.off : ax.off;
			snprintf(ax.title, sizeof(ax.title), "local time (UTC%c%02ld:%02ld)",
				 ax.off < 0 ? '-' : '+', a / 3600, a % 3600 / 60);
		} else {
			snprintf(ax.title, sizeof(ax.title), "time (UTC)");
		}
		/* the time_s are the intervals' ends: the first interval began interval_s before */
		double first = num_at(rec[0], NULL, "interval_s");
		double span = t[n - 1] - t[0] + (isfinite(first) && first > 0 ? first : 0);
		char meta[240];
		snprintf(meta, sizeof(meta),
			 "%zu interval%s over %.1f s%s; rates are host-wide (/proc/vmstat), per "
			 "second; %zu setting change%s",
			 n, n == 1 ? "" : "s", span,
			 isfinite(first) && first > 0 ? "" : " (from the first interval's end)",
			 nch, nch == 1 ? "" : "s");
		report_para(h, "meta", meta);
		time_chart(h, "watch-rates", "THP event rates per second (host-wide)", "events/s",
			   &ax, y, rate_names, NRATES, ch, nch);
		static const char *const ahp[] = {"AnonHugePages"};
		time_chart(h, "watch-anonhuge", "AnonHugePages (host-wide, /proc/meminfo)", "MiB",
			   &ax, &y[NRATES], ahp, 1, ch, nch);
		if (nch)
			changes_table(h, &ax, ch, nch);
	}
	for (size_t s = 0; s <= NRATES; s++)
		free(y[s]);
	free(t);
	free(ch);
	return bad ? -ENOMEM : 0;
}
