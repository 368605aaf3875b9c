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

/* The keys of settings A and B whose values differ, as changes at T into CH (up to MAX). */
static size_t settings_diff(const json_t *a, const json_t *b, double t, struct change *ch, size_t n,
			    size_t max)
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
		snprintf(ch[n].text, sizeof(ch[n].text), "%s: %s -> %s", key, x, y);
		n++;
	}
	json_object_foreach((json_t *)a, key, v)
	{
		if (json_object_get(b, key) || n == max)
			continue;
		char x[64];
		value_text(x, sizeof(x), v);
		ch[n].t = t;
		snprintf(ch[n].text, sizeof(ch[n].text), "%s: %s -> (gone)", key, x);
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

/* One chart over time T (N points) of the K series Y[k] (NAN: no point), with the markers. */
static void time_chart(struct hbuf *h, const char *id, const char *title, const char *ytitle,
		       const double *t, double *const *y, const char *const *names, int k, size_t n,
		       const struct change *ch, size_t nch)
{
	double y1 = 0;
	for (int s = 0; s < k; s++)
		for (size_t i = 0; i < n; i++)
			if (isfinite(y[s][i]))
				y1 = fmax(y1, y[s][i]);
	struct svg_chart c;
	svg_chart_begin(&c, h, id, "lines", title, 0, n ? t[n - 1] : 1, false, 0, y1, false,
			"time since the first interval (s)", ytitle, NULL, 0);
	double *px = malloc((n ? n : 1) * sizeof(double)),
	       *py = malloc((n ? n : 1) * sizeof(double));
	for (int s = 0; px && py && s < k; s++) {
		int m = 0;
		for (size_t i = 0; i < n; i++)
			if (isfinite(y[s][i])) {
				px[m] = t[i];
				py[m++] = y[s][i];
			}
		svg_line(&c, px, py, m, s, m <= 60);
	}
	free(px);
	free(py);
	for (size_t i = 0; i < nch; i++)
		svg_vmarker(&c, ch[i].t, ch[i].text, (int)i);
	svg_legend(&c, names, k);
	svg_chart_end(&c);
	const char *cols[NRATES + 1] = {"t (s)"};
	for (int s = 0; s < k; s++)
		cols[s + 1] = names[s];
	report_table_begin(h, id, cols, k + 1);
	for (size_t i = 0; i < n; i++) {
		char cell[NRATES][32], lab[32];
		const char *cp[NRATES];
		for (int s = 0; s < k; s++) {
			report_num(cell[s], sizeof(cell[s]), y[s][i]);
			cp[s] = cell[s];
		}
		snprintf(lab, sizeof(lab), "%.1f", t[i]);
		report_table_row(h, lab, cp, k);
	}
	report_table_end(h);
}

/* The setting changes as a table (the markers' labels). */
static void changes_table(struct hbuf *h, const struct change *ch, size_t nch)
{
	static const char *const cols[2] = {"t (s)", "setting change"};
	report_table_begin(h, "watch-changes", cols, 2);
	for (size_t i = 0; i < nch; i++) {
		char lab[32];
		const char *cp[1] = {ch[i].text};
		snprintf(lab, sizeof(lab), "%.1f", ch[i].t);
		report_table_row(h, lab, cp, 1);
	}
	report_table_end(h);
}

int report_watch(struct hbuf *h, json_t *const *rec, size_t n)
{
	if (!n || !json_is_number(json_object_get(rec[0], "time_s")))
		return -EINVAL;
	double t0 = json_number_value(json_object_get(rec[0], "time_s"));
	double *t = calloc(n, sizeof(double)), *y[NRATES + 1];
	struct change *ch = calloc(64, sizeof(*ch));
	int bad = !t || !ch;
	for (size_t s = 0; s <= NRATES; s++)
		bad |= !(y[s] = calloc(n, sizeof(double)));
	size_t nch = 0;
	for (size_t i = 0; !bad && i < n; i++) {
		t[i] = num_at(rec[i], NULL, "time_s") - t0;
		for (size_t s = 0; s < NRATES; s++)
			y[s][i] = num_at(rec[i], "rates_per_s", rate_keys[s]);
		y[NRATES][i] = num_at(rec[i], NULL, "anon_huge_pages_kb") / 1024;
		json_t *a = i ? json_object_get(rec[i - 1], "settings") : NULL,
		       *b = json_object_get(rec[i], "settings");
		if (json_is_object(a) && json_is_object(b))
			nch = settings_diff(a, b, t[i], ch, nch, 64);
	}
	if (!bad) {
		char meta[160];
		snprintf(
			meta, sizeof(meta),
			"%zu intervals over %.1f s; rates are host-wide (/proc/vmstat), per second; %zu setting change%s",
			n, t[n - 1], nch, nch == 1 ? "" : "s");
		report_para(h, "meta", meta);
		time_chart(h, "watch-rates", "THP event rates per second (host-wide)", "events/s",
			   t, y, rate_names, NRATES, n, ch, nch);
		static const char *const ahp[] = {"AnonHugePages"};
		time_chart(h, "watch-anonhuge", "AnonHugePages (host-wide, /proc/meminfo)", "MiB",
			   t, &y[NRATES], ahp, 1, n, ch, nch);
		if (nch)
			changes_table(h, ch, nch);
	}
	for (size_t s = 0; s <= NRATES; s++)
		free(y[s]);
	free(t);
	free(ch);
	return bad ? -ENOMEM : 0;
}
