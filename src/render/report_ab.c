// SPDX-License-Identifier: MIT
/* `thpctl ab --report`: wall time per mode, the ratios of wall time and peak RSS to the base (report.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* Wall time of every run per mode (dots), the median as a bar; table: the summary. */
static void ab_wall(struct hbuf *h, const struct ab_report *r)
{
	const char *names[AB_MAX_MODES];
	double y1 = 0;
	for (int i = 0; i < r->n; i++) {
		names[i] = r->modes[i].name;
		for (int k = 0; k < r->modes[i].nruns; k++)
			y1 = fmax(y1, r->modes[i].runs[k].wall_s);
	}
	struct svg_chart c;
	svg_chart_begin(&c, h, "ab-wall", "strip", "wall time per run, per mode", 0, 0, false, 0,
			y1, false, "mode", "wall time (s)", names, r->n);
	for (int i = 0; i < r->n; i++) {
		const struct ab_mode *m = &r->modes[i];
		for (int k = 0; k < m->nruns; k++)
			if (m->runs[k].ok)
				svg_dot(&c, i + 0.5 + ((k % 9) - 4) * 0.03, m->runs[k].wall_s, 3.5,
					i);
		if (r->sum[i].wall.ok) {
			double x[2] = {i + 0.25, i + 0.75},
			       y[2] = {r->sum[i].wall.med, r->sum[i].wall.med};
			svg_line(&c, x, y, 2, i, false);
		}
	}
	svg_chart_end(&c);
	static const char *const cols[5] = {"mode", "runs", "median (s)", "min (s)", "max (s)"};
	report_table_begin(h, "ab-wall", cols, 5);
	for (int i = 0; i < r->n; i++) {
		const struct ab_stat *s = &r->sum[i].wall;
		char cell[4][40];
		const char *cp[4] = {cell[0], cell[1], cell[2], cell[3]};
		snprintf(cell[0], sizeof(cell[0]), "%d", r->modes[i].nruns);
		if (s->ok) {
			snprintf(cell[1], sizeof(cell[1]), "%.4f", s->med);
			snprintf(cell[2], sizeof(cell[2]), "%.4f", s->min);
			snprintf(cell[3], sizeof(cell[3]), "%.4f", s->max);
		} else {
			for (int k = 1; k < 4; k++)
				snprintf(cell[k], sizeof(cell[k]), "-");
		}
		report_table_row(h, names[i], cp, 4);
	}
	report_table_end(h);
}

/* Each mode's measure over the base's (wall time, or peak RSS with MEM): estimate, 95% interval. */
static void ab_ratio(struct hbuf *h, const struct ab_report *r, bool mem)
{
	const char *names[AB_MAX_MODES];
	double y0 = 1, y1 = 1;
	for (int i = 0; i < r->n; i++) {
		names[i] = r->modes[i].name;
		const struct ratio_ci *ci = mem ? &r->sum[i].rss_ci : &r->sum[i].ci;
		if (ci->ok) {
			y0 = fmin(y0, ci->lo);
			y1 = fmax(y1, ci->hi);
		}
	}
	const char *id = mem ? "ab-rss" : "ab-ratio";
	struct svg_chart c;
	svg_chart_begin(&c, h, id, "ratio",
			mem ? "peak RSS relative to the base mode, 95% interval: what THP costs"
			    : "wall time relative to the base mode, 95% interval",
			0, 0, false, y0, y1, false, "mode",
			mem ? "peak RSS / base (ratio)" : "wall time / base (ratio)", names, r->n);
	svg_hline(&c, 1, "1 = same as the base");
	for (int i = 0; i < r->n; i++) {
		const struct ratio_ci *ci = mem ? &r->sum[i].rss_ci : &r->sum[i].ci;
		if (!ci->ok)
			continue;
		svg_whisker(&c, i + 0.5, ci->lo, ci->hi, 10);
		svg_dot(&c, i + 0.5, ci->est, 5, i);
	}
	svg_chart_end(&c);
	static const char *const cols[5] = {"mode", "ratio", "95% low", "95% high", "verdict"};
	report_table_begin(h, id, cols, 5);
	for (int i = 0; i < r->n; i++) {
		const struct ratio_ci *ci = mem ? &r->sum[i].rss_ci : &r->sum[i].ci;
		char cell[4][40];
		const char *cp[4] = {cell[0], cell[1], cell[2], cell[3]};
		if (ci->ok) {
			snprintf(cell[0], sizeof(cell[0]), "%.4f", ci->est);
			snprintf(cell[1], sizeof(cell[1]), "%.4f", ci->lo);
			snprintf(cell[2], sizeof(cell[2]), "%.4f", ci->hi);
		} else {
			for (int k = 0; k < 3; k++)
				snprintf(cell[k], sizeof(cell[k]), "-");
		}
		snprintf(cell[3], sizeof(cell[3]), "%s",
			 mem ? ab_mem_name(r->sum[i].mem_verdict)
			     : ab_verdict_name(r->sum[i].verdict));
		report_table_row(h, names[i], cp, 4);
	}
	report_table_end(h);
}

void report_ab(struct hbuf *h, const struct ab_report *r)
{
	char meta[400];
	size_t off = (size_t)snprintf(meta, sizeof(meta), "command:");
	for (int i = 0; r->cmd[i] && off < sizeof(meta); i++)
		off += (size_t)snprintf(meta + off, sizeof(meta) - off, " %s", r->cmd[i]);
	report_para(h, "meta", meta);
	snprintf(meta, sizeof(meta), "%d runs per mode after %d warm-up run%s", r->runs, r->warmup,
		 r->warmup == 1 ? "" : "s");
	report_para(h, "meta", meta);
	ab_wall(h, r);
	ab_ratio(h, r, false);
	ab_ratio(h, r, true);
	for (int i = 0; i < r->n; i++)
		if (r->modes[i].skipped) {
			snprintf(meta, sizeof(meta), "%s skipped: %s", r->modes[i].name,
				 r->modes[i].skip_reason);
			report_para(h, "meta", meta);
		}
}
