// SPDX-License-Identifier: MIT
/* The HTML report page and lab results in it (report.h). */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/stats.h"
#include "../util/version.h"

/* Okabe-Ito colors, a lighter set in dark mode; text and axes are currentColor. */
static const char *const style =
	":root{color-scheme:light dark}"
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:760px;padding:0 1em;"
	"background:#fff;color:#1a1a1a}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid;}"
	"svg.chart{width:100%;height:auto;display:block;margin:.5em 0;color:inherit}"
	"svg text{fill:currentColor;font-size:12px}.tick{font-size:11px}.lbl{font-weight:600}"
	".ax{stroke:currentColor;fill:none;stroke-width:1}"
	".grid{stroke:currentColor;stroke-opacity:.15}"
	".mark{stroke:currentColor;stroke-dasharray:4 3;stroke-opacity:.8}.mtext{font-size:11px}"
	".ln{fill:none;stroke-width:2}.bar{stroke:none;fill-opacity:.85}.pt{stroke:none}"
	"table.data{border-collapse:collapse;margin:.3em 0 1.5em;font-variant-numeric:tabular-nums}"
	"table.data th,table.data td{border:1px solid rgba(128,128,128,.4);padding:2px 6px;"
	"text-align:right}table.data td:first-child,table.data th:first-child{text-align:left}"
	".meta{opacity:.8}.proof{font-size:12px;opacity:.85}.verdict{font-weight:600}"
	"figure.fig{margin:1.2em 0 .3em}figcaption{font-weight:600}.note{font-size:14px;opacity:.8}"
	"table.context{border-collapse:collapse;margin:.5em 0 1em}table.context th{text-align:left;"
	"padding:1px 12px 1px 0;font-weight:600}table.context td{padding:1px 0}"
	"details{margin:.2em 0 1.2em}summary{cursor:pointer;opacity:.85}"
	".s0{stroke:#0072b2;fill:#0072b2}.s1{stroke:#d55e00;fill:#d55e00}"
	".s2{stroke:#009e73;fill:#009e73}.s3{stroke:#cc79a7;fill:#cc79a7}"
	".s4{stroke:#e69f00;fill:#e69f00}.s5{stroke:#56b4e9;fill:#56b4e9}"
	".s6{stroke:#7f7f7f;fill:#7f7f7f}.s7{stroke:#8c7a00;fill:#8c7a00}"
	".ln.s0,.ln.s1,.ln.s2,.ln.s3,.ln.s4,.ln.s5,.ln.s6,.ln.s7{fill:none}"
	"@media (prefers-color-scheme:dark){body{background:#121212;color:#e0e0e0}"
	".s0{stroke:#56b4e9;fill:#56b4e9}.s1{stroke:#ff8c42;fill:#ff8c42}"
	".s2{stroke:#2ed3a0;fill:#2ed3a0}.s3{stroke:#e8a0c8;fill:#e8a0c8}"
	".s4{stroke:#f0c040;fill:#f0c040}.s5{stroke:#9fd8ff;fill:#9fd8ff}"
	".s6{stroke:#b0b0b0;fill:#b0b0b0}.s7{stroke:#f0e442;fill:#f0e442}}";

void report_begin(struct hbuf *h, const char *title, const struct report_ctx *ctx)
{
	hb_puts(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		   "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
		   "<meta name=\"color-scheme\" content=\"light dark\"><title>");
	hb_esc(h, title);
	hb_printf(h, "</title><style>%s</style></head>\n<body>\n<h1>", style);
	hb_esc(h, title);
	hb_puts(h, "</h1>\n");
	report_context(h, ctx);
	char why[256], text[320];
	if (svg_ready(why, sizeof(why))) {
		snprintf(text, sizeof(text), "Log-scale axes are drawn flat: %s.", why);
		report_para(h, "meta", text);
	}
}

void report_para(struct hbuf *h, const char *cls, const char *text)
{
	hb_printf(h, "<p class=\"%s\">", cls);
	hb_esc(h, text);
	hb_puts(h, "</p>\n");
}

void report_end(struct hbuf *h)
{
	hb_puts(h, "<p class=\"meta\">page made by thpctl ");
	hb_esc(h, thpctl_version());
	hb_puts(h, ": no scripts, nothing loaded from elsewhere</p>\n</body></html>\n");
}

void report_num(char *out, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(out, n, "-");
	else if (fabs(v) >= 100 || v == floor(v))
		snprintf(out, n, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(out, n, "%.1f", v);
	else
		snprintf(out, n, "%.2f", v);
}

/* N cells <TAG>TEXT</TAG> of a row, the texts escaped. */
static void table_cells(struct hbuf *h, const char *tag, const char *const *text, int n)
{
	for (int i = 0; i < n; i++) {
		hb_printf(h, "<%s>", tag);
		hb_esc(h, text[i]);
		hb_printf(h, "</%s>", tag);
	}
}

void report_table_begin(struct hbuf *h, const char *id, const char *const *cols, int n)
{
	hb_puts(h, "<table class=\"data\" data-chart=\"");
	hb_esc(h, id);
	hb_puts(h, "\"><tr>");
	table_cells(h, "th", cols, n);
	hb_puts(h, "</tr>\n");
}

void report_table_row(struct hbuf *h, const char *label, const char *const *cells, int n)
{
	hb_puts(h, "<tr>");
	table_cells(h, "td", &label, 1);
	table_cells(h, "td", cells, n);
	hb_puts(h, "</tr>\n");
}

void report_table_end(struct hbuf *h)
{
	hb_puts(h, "</table>\n");
}

/* "label (unit)", or the label alone without a unit. */
static void axis_title(char *out, size_t n, const char *label, const char *unit)
{
	if (unit && unit[0])
		snprintf(out, n, "%s (%s)", label, unit);
	else
		snprintf(out, n, "%s", label);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The series of R on chart CHART: their indexes into IDX (at most LAB_MAX_SERIES). */
static int series_of(const struct lab_result *r, const char *chart, int *idx)
{
	int n = 0;
	for (int i = 0; i < r->nseries; i++)
		if (!strcmp(r->series[i].chart, chart))
			idx[n++] = i;
	return n;
}

/* CDFs on a log x axis; the table: n and percentiles of the kept points. */
static void lab_cdf(struct hbuf *h, const struct lab_result *r, const char *id, const int *idx,
		    int n)
{
	static double v[LAB_MAX_SERIES][LAB_SERIES_POINTS];
	const char *names[LAB_MAX_SERIES];
	double lo = INFINITY, hi = 0;
	for (int k = 0; k < n; k++) {
		const struct lab_series *s = &r->series[idx[k]];
		names[k] = s->name;
		memcpy(v[k], s->y, (size_t)s->n * sizeof(double));
		qsort(v[k], (size_t)s->n, sizeof(double), cmp_d);
		for (int i = 0; i < s->n; i++)
			if (v[k][i] > 0) {
				lo = svg_min(lo, v[k][i]);
				hi = svg_max(hi, v[k][i]);
			}
	}
	const struct lab_series *s0 = &r->series[idx[0]];
	char xt[64], title[160];
	axis_title(xt, sizeof(xt), s0->ylabel, s0->yunit);
	snprintf(title, sizeof(title), "%s: CDF of %s per mode", r->experiment, s0->ylabel);
	struct svg_chart c;
	svg_chart_begin(&c, h, id, "cdf", title, isfinite(lo) ? lo : 1, hi > 0 ? hi : 10, true, 0,
			1, false, xt, "fraction of samples", NULL, 0);
	for (int k = 0; k < n; k++)
		svg_cdf(&c, v[k], r->series[idx[k]].n, k);
	svg_legend(&c, names, n);
	svg_chart_end(&c);
	char u[6][48];
	const char *cols[7] = {"series", "samples", u[0], u[1], u[2], u[3], u[4]};
	static const char *const pn[5] = {"min", "p50", "p90", "p99", "max"};
	static const double pv[5] = {0, 50, 90, 99, 100};
	for (int i = 0; i < 5; i++)
		axis_title(u[i], sizeof(u[i]), pn[i], s0->yunit);
	report_table_begin(h, id, cols, 7);
	for (int k = 0; k < n; k++) {
		const struct lab_series *s = &r->series[idx[k]];
		char cell[6][32];
		const char *cp[6];
		snprintf(cell[0], sizeof(cell[0]), "%zu", s->n_total);
		for (int i = 0; i < 5; i++)
			report_num(cell[i + 1], sizeof(cell[0]),
				   percentile_sorted(v[k], (size_t)s->n, pv[i]));
		for (int i = 0; i < 6; i++)
			cp[i] = cell[i];
		report_table_row(h, s->name, cp, 6);
	}
	report_table_end(h);
	if (s0->n_total > (size_t)s0->n)
		report_para(h, "meta",
			    "percentiles of the points kept per series (evenly spaced by rank)");
}

/* Lines over x; the table: one row per x when the series share it, else per point. */
static void lab_lines(struct hbuf *h, const struct lab_result *r, const char *id, const int *idx,
		      int n)
{
	const char *names[LAB_MAX_SERIES];
	double x0 = INFINITY, x1 = -INFINITY, y1 = 0;
	bool same = true;
	for (int k = 0; k < n; k++) {
		const struct lab_series *s = &r->series[idx[k]];
		names[k] = s->name;
		same &= s->n == r->series[idx[0]].n &&
			!memcmp(s->x, r->series[idx[0]].x, (size_t)s->n * sizeof(double));
		for (int i = 0; i < s->n; i++) {
			x0 = svg_min(x0, s->x[i]);
			x1 = svg_max(x1, s->x[i]);
			y1 = svg_max(y1, s->y[i]);
		}
	}
	const struct lab_series *s0 = &r->series[idx[0]];
	char xt[64], yt[64], title[160];
	axis_title(xt, sizeof(xt), s0->xlabel, s0->xunit);
	axis_title(yt, sizeof(yt), s0->ylabel, s0->yunit);
	snprintf(title, sizeof(title), "%s: %s over %s", r->experiment, s0->ylabel, s0->xlabel);
	struct svg_chart c;
	svg_chart_begin(&c, h, id, "lines", title, isfinite(x0) ? x0 : 0, isfinite(x1) ? x1 : 1,
			false, 0, y1, false, xt, yt, NULL, 0);
	for (int k = 0; k < n; k++) {
		const struct lab_series *s = &r->series[idx[k]];
		svg_line(&c, s->x, s->y, s->n, k, s->n <= 32);
	}
	svg_legend(&c, names, n);
	svg_chart_end(&c);
	const char *cols[LAB_MAX_SERIES + 1] = {xt};
	char cell[LAB_MAX_SERIES][32], lab[32];
	const char *cp[LAB_MAX_SERIES];
	if (same) {
		for (int k = 0; k < n; k++)
			cols[k + 1] = names[k];
		report_table_begin(h, id, cols, n + 1);
		for (int i = 0; i < s0->n; i++) {
			for (int k = 0; k < n; k++) {
				report_num(cell[k], sizeof(cell[k]), r->series[idx[k]].y[i]);
				cp[k] = cell[k];
			}
			report_num(lab, sizeof(lab), s0->x[i]);
			report_table_row(h, lab, cp, n);
		}
		report_table_end(h);
		return;
	}
	const char *lc[3] = {"series", xt, yt};
	report_table_begin(h, id, lc, 3);
	for (int k = 0; k < n; k++)
		for (int i = 0; i < r->series[idx[k]].n; i++) {
			report_num(cell[0], sizeof(cell[0]), r->series[idx[k]].x[i]);
			report_num(cell[1], sizeof(cell[1]), r->series[idx[k]].y[i]);
			cp[0] = cell[0];
			cp[1] = cell[1];
			report_table_row(h, names[k], cp, 2);
		}
	report_table_end(h);
}

/* Per-mode samples as dots (a strip plot) with the median as a bar; table: n, median, min, max. */
static void lab_strip(struct hbuf *h, const struct lab_result *r, const char *id, const int *idx,
		      int n)
{
	const char *names[LAB_MAX_SERIES];
	double y1 = 0, y0 = 0;
	for (int k = 0; k < n; k++) {
		const struct lab_series *s = &r->series[idx[k]];
		names[k] = s->name;
		for (int i = 0; i < s->n; i++) {
			y1 = svg_max(y1, s->y[i]);
			y0 = svg_min(y0, s->y[i]);
		}
	}
	const struct lab_series *s0 = &r->series[idx[0]];
	char yt[64], title[160];
	axis_title(yt, sizeof(yt), s0->ylabel, s0->yunit);
	snprintf(title, sizeof(title), "%s: %s per run, per mode", r->experiment, s0->ylabel);
	struct svg_chart c;
	svg_chart_begin(&c, h, id, "strip", title, 0, 0, false, y0, y1, false, "mode", yt, names,
			n);
	static const char *const cols[5] = {"mode", "runs", "median", "min", "max"};
	double med[LAB_MAX_SERIES], mn[LAB_MAX_SERIES], mx[LAB_MAX_SERIES];
	for (int k = 0; k < n; k++) {
		const struct lab_series *s = &r->series[idx[k]];
		double v[LAB_SERIES_POINTS];
		memcpy(v, s->y, (size_t)s->n * sizeof(double));
		qsort(v, (size_t)s->n, sizeof(double), cmp_d);
		med[k] = s->n ? stats_median(v, (size_t)s->n) : NAN;
		mn[k] = s->n ? v[0] : NAN;
		mx[k] = s->n ? v[s->n - 1] : NAN;
		for (int i = 0; i < s->n; i++)
			svg_dot(&c, k + 0.5 + ((i % 9) - 4) * 0.03, s->y[i], 3.5, k);
		if (s->n) {
			double xm[2] = {k + 0.25, k + 0.75}, ym[2] = {med[k], med[k]};
			svg_line(&c, xm, ym, 2, k, false);
		}
	}
	svg_chart_end(&c);
	report_table_begin(h, id, cols, 5);
	for (int k = 0; k < n; k++) {
		char cell[4][32];
		const char *cp[4] = {cell[0], cell[1], cell[2], cell[3]};
		snprintf(cell[0], sizeof(cell[0]), "%zu", r->series[idx[k]].n_total);
		report_num(cell[1], sizeof(cell[1]), med[k]);
		report_num(cell[2], sizeof(cell[2]), mn[k]);
		report_num(cell[3], sizeof(cell[3]), mx[k]);
		report_table_row(h, names[k], cp, 4);
	}
	report_table_end(h);
}

/* The column units of R in first-seen order into U; returns their count. */
static int units_of(const struct lab_result *r, const char *u[LAB_MAX_COLS])
{
	int n = 0;
	for (int c = 0; c < r->ncols; c++) {
		bool seen = false;
		for (int k = 0; k < n; k++)
			seen |= !strcmp(u[k], r->cols[c].unit);
		if (!seen)
			u[n++] = r->cols[c].unit;
	}
	return n;
}

/* The table of columns COLS (N) of R: "median (min-max)" as the text output prints them. */
static void cells_table(struct hbuf *h, const struct lab_result *r, const char *id, const int *cols,
			int n)
{
	const char *hdr[LAB_MAX_COLS + 1] = {"row"};
	for (int k = 0; k < n; k++)
		hdr[k + 1] = r->cols[cols[k]].name;
	report_table_begin(h, id, hdr, n + 1);
	for (int i = 0; i < r->nrows; i++) {
		char cell[LAB_MAX_COLS][80];
		const char *cp[LAB_MAX_COLS];
		for (int k = 0; k < n; k++) {
			const struct lab_cell *x = &r->rows[i].c[cols[k]];
			char m[32], lo[32], hi[32];
			report_num(m, sizeof(m), x->median);
			report_num(lo, sizeof(lo), x->min);
			report_num(hi, sizeof(hi), x->max);
			if (!x->present)
				snprintf(cell[k], sizeof(cell[k]), "-");
			else if (!x->range || x->min == x->max)
				snprintf(cell[k], sizeof(cell[k]), "%s", m);
			else
				snprintf(cell[k], sizeof(cell[k]), "%s (%s..%s)", m, lo, hi);
			cp[k] = cell[k];
		}
		report_table_row(h, r->rows[i].label, cp, n);
	}
	report_table_end(h);
}

/* One range chart of R's columns in UNIT: a bar per column at each row's median, min..max. */
static void cells_chart(struct hbuf *h, const struct lab_result *r, const char *id,
			const char *unit)
{
	int cols[LAB_MAX_COLS], n = 0;
	const char *names[LAB_MAX_COLS], *cats[LAB_MAX_ROWS];
	double y0 = 0, y1 = 0;
	for (int c = 0; c < r->ncols; c++) {
		if (strcmp(r->cols[c].unit, unit))
			continue;
		bool any = false;
		for (int i = 0; i < r->nrows; i++) {
			const struct lab_cell *x = &r->rows[i].c[c];
			if (!x->present)
				continue;
			any = true;
			y0 = svg_min(y0, svg_min(x->min, x->median));
			y1 = svg_max(y1, svg_max(x->max, x->median));
		}
		if (any) {
			names[n] = r->cols[c].name;
			cols[n++] = c;
		}
	}
	if (!n)
		return;
	for (int i = 0; i < r->nrows; i++)
		cats[i] = r->rows[i].label;
	const char *yt = !strcmp(unit, "+") ? "host-wide delta" : unit[0] ? unit : "count";
	char title[160];
	snprintf(title, sizeof(title), "%s: median and min..max over runs (%s)", r->experiment, yt);
	struct svg_chart c;
	svg_chart_begin(&c, h, id, "cells", title, 0, 0, false, y0, y1, false, "", yt, cats,
			r->nrows);
	double wd = 0.8 / n;
	for (int i = 0; i < r->nrows; i++)
		for (int k = 0; k < n; k++) {
			const struct lab_cell *x = &r->rows[i].c[cols[k]];
			if (!x->present)
				continue;
			double a = i + 0.1 + k * wd;
			svg_bar(&c, a, a + wd * 0.9, x->median, k);
			if (x->range && x->min != x->max)
				svg_whisker(&c, a + wd * 0.45, x->min, x->max, 6);
		}
	svg_legend(&c, names, n);
	svg_chart_end(&c);
	cells_table(h, r, id, cols, n);
}

void report_lab(struct hbuf *h, const struct lab_result *r, int idx)
{
	char t[240], id[80];
	snprintf(t, sizeof(t), "lab %s: %s", r->experiment, r->title);
	hb_printf(h, "<section class=\"lab\" id=\"lab-%d\"><h2>", idx);
	hb_esc(h, t);
	hb_puts(h, "</h2>\n");
	if (r->size) {
		int lo, hi, runs = lab_runs_of(r, &lo, &hi);
		if (runs >= 0)
			snprintf(t, sizeof(t), "%llu MiB, %s, %d run%s, %.1f s wall",
				 (unsigned long long)(r->size >> 20), r->state, runs,
				 runs == 1 ? "" : "s", r->wall_ms / 1000);
		else
			snprintf(t, sizeof(t), "%llu MiB, %s, %d-%d runs by row, %.1f s wall",
				 (unsigned long long)(r->size >> 20), r->state, lo, hi,
				 r->wall_ms / 1000);
		report_para(h, "meta", t);
	}
	const char *done[LAB_MAX_SERIES];
	int ndone = 0;
	for (int i = 0; i < r->nseries; i++) {
		bool seen = false;
		for (int k = 0; k < ndone; k++)
			seen |= !strcmp(done[k], r->series[i].chart);
		if (seen || !r->series[i].n)
			continue;
		done[ndone++] = r->series[i].chart;
		int sidx[LAB_MAX_SERIES], n = series_of(r, r->series[i].chart, sidx);
		snprintf(id, sizeof(id), "lab-%d-%s-%s", idx, r->experiment, r->series[i].chart);
		if (r->series[i].kind == LAB_SER_CDF)
			lab_cdf(h, r, id, sidx, n);
		else if (r->series[i].kind == LAB_SER_LINE)
			lab_lines(h, r, id, sidx, n);
		else
			lab_strip(h, r, id, sidx, n);
	}
	const char *u[LAB_MAX_COLS];
	int nu = units_of(r, u);
	for (int k = 0; k < nu && r->nrows; k++) {
		snprintf(id, sizeof(id), "lab-%d-%s-cells-%d", idx, r->experiment, k);
		cells_chart(h, r, id, u[k]);
	}
	if (r->nproofs) {
		hb_puts(h, "<ul class=\"proof\">");
		for (int i = 0; i < r->nproofs; i++) {
			hb_puts(h, "<li>");
			hb_esc(h, r->proofs[i].key);
			hb_puts(h, ": ");
			hb_esc(h, r->proofs[i].value);
			hb_puts(h, "</li>");
		}
		hb_puts(h, "</ul>\n");
	}
	snprintf(t, sizeof(t), "verdict: %s", r->skipped ? "skipped: " : "");
	hb_puts(h, "<p class=\"verdict\">");
	hb_esc(h, t);
	hb_esc(h, r->verdict);
	hb_puts(h, "</p>\n</section>\n");
}
