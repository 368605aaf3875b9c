// SPDX-License-Identifier: MIT
/* `thpctl ab --report`: wall time per mode, the ratios of wall time and peak RSS to the base (report.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* Table cells CELL[0..N): V[0..N) as "%.4f", or "-" each when not OK. */
static void cells_4f(char (*cell)[40], const double *v, int n, bool ok)
{
	for (int k = 0; k < n; k++) {
		if (ok)
			snprintf(cell[k], sizeof(cell[k]), "%.4f", v[k]);
		else
			snprintf(cell[k], sizeof(cell[k]), "-");
	}
}

/* Wall time of every run per mode (dots), the median as a bar; table: the summary. */
static void ab_wall(struct hbuf *h, const struct ab_report *r)
{
	const char *names[AB_MAX_MODES];
	double y1 = 0;
	for (int i = 0; i < r->n; i++) {
		names[i] = r->modes[i].name;
		for (int k = 0; k < r->modes[i].nruns; k++)
			y1 = svg_max(y1, r->modes[i].runs[k].wall_s);
	}
	struct svg_chart c;
	svg_chart_begin(&c, h, "ab-wall", "strip", "wall time per run, per mode", 0, 0, false, 0,
			y1, false, "mode", "wall time (s)", names, r->n);
	bool any = false;
	for (int i = 0; i < r->n; i++) {
		const struct ab_mode *m = &r->modes[i];
		any |= r->sum[i].wall.ok;
		if (!r->sum[i].wall.ok)
			svg_note(&c, i + 0.5, m->skipped ? "skipped" : "no run finished");
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
	if (!any)
		svg_note(&c, NAN, "no run of any mode finished: nothing to draw");
	svg_chart_end(&c);
	static const char *const cols[5] = {"mode", "runs", "median (s)", "min (s)", "max (s)"};
	report_table_begin(h, "ab-wall", cols, 5);
	for (int i = 0; i < r->n; i++) {
		const struct ab_stat *s = &r->sum[i].wall;
		char cell[4][40];
		const char *cp[4] = {cell[0], cell[1], cell[2], cell[3]};
		snprintf(cell[0], sizeof(cell[0]), "%d", r->modes[i].nruns);
		cells_4f(&cell[1], (const double[]){s->med, s->min, s->max}, 3, s->ok);
		report_table_row(h, names[i], cp, 4);
	}
	report_table_end(h);
}

/* Each mode's measure over the base's (wall time, or peak RSS with MEM): estimate, interval of
 * at least 95% (its level in the table). */
static void ab_ratio(struct hbuf *h, const struct ab_report *r, bool mem)
{
	const char *names[AB_MAX_MODES];
	double y0 = 1, y1 = 1;
	for (int i = 0; i < r->n; i++) {
		names[i] = r->modes[i].name;
		const struct ratio_ci *ci = mem ? &r->sum[i].rss_ci : &r->sum[i].ci;
		if (ci->ok) {
			y0 = svg_min(y0, ci->lo);
			y1 = svg_max(y1, ci->hi);
		}
	}
	const char *id = mem ? "ab-rss" : "ab-ratio";
	struct svg_chart c;
	svg_chart_begin(
		&c, h, id, "ratio",
		mem ? "peak RSS relative to the base, interval of 95% or more: what THP costs"
		    : "wall time relative to the base mode, interval of 95% or more",
		0, 0, false, y0, y1, false, "mode",
		mem ? "peak RSS / base (ratio)" : "wall time / base (ratio)", names, r->n);
	svg_hline(&c, 1, "1 = same as the base");
	int drawn = 0, too_few = 0;
	for (int i = 0; i < r->n; i++) {
		const struct ratio_ci *ci = mem ? &r->sum[i].rss_ci : &r->sum[i].ci;
		enum ab_verdict v = r->sum[i].verdict;
		too_few += v == AV_TOO_FEW;
		if (!ci->ok || v == AV_BASE) {
			/* said inside the chart, where the interval would be */
			svg_note(&c, i + 0.5,
				 v == AV_BASE	   ? "the base"
				 : v == AV_TOO_FEW ? "too few runs"
						   : "not run");
			if (!ci->ok)
				continue;
		}
		drawn++;
		svg_whisker(&c, i + 0.5, ci->lo, ci->hi, 10);
		svg_dot(&c, i + 0.5, ci->est, 5, i);
	}
	if (too_few && !drawn) {
		char note[120];
		snprintf(note, sizeof(note),
			 "too few runs for an interval (--runs %d; 4 or more per mode)", r->runs);
		svg_note(&c, NAN, note);
	}
	svg_chart_end(&c);
	static const char *const cols[6] = {"mode", "ratio", "low", "high", "level", "verdict"};
	report_table_begin(h, id, cols, 6);
	for (int i = 0; i < r->n; i++) {
		const struct ratio_ci *ci = mem ? &r->sum[i].rss_ci : &r->sum[i].ci;
		char cell[5][40];
		const char *cp[5] = {cell[0], cell[1], cell[2], cell[3], cell[4]};
		cells_4f(cell, (const double[]){ci->est, ci->lo, ci->hi}, 3, ci->ok);
		if (ci->ok)
			ab_ci_level(cell[3], sizeof(cell[3]), ci);
		else
			snprintf(cell[3], sizeof(cell[3]), "-");
		snprintf(cell[4], sizeof(cell[4]), "%s",
			 mem ? ab_mem_name(r->sum[i].mem_verdict)
			     : ab_verdict_name(r->sum[i].verdict));
		report_table_row(h, names[i], cp, 5);
	}
	report_table_end(h);
}

/* Each run's AnonHugePages share of the command's anon memory (at the peak sample), per mode. */
static void ab_share(struct hbuf *h, const struct ab_report *r)
{
	const char *names[AB_MAX_MODES];
	for (int i = 0; i < r->n; i++)
		names[i] = r->modes[i].name;
	struct svg_chart c;
	svg_chart_begin(&c, h, "ab-share", "strip",
			"AnonHugePages share of the command's anon memory per run, per mode", 0, 0,
			false, 0, 100, false, "mode", "AnonHugePages / anon (%)", names, r->n);
	bool any = false;
	for (int i = 0; i < r->n; i++) {
		const struct ab_mode *m = &r->modes[i];
		for (int k = 0; k < m->nruns; k++) {
			const struct ab_run *x = &m->runs[k];
			if (x->ok && x->ahp_peak_kb >= 0 && x->anon_peak_kb > 0)
				svg_dot(&c, i + 0.5 + ((k % 9) - 4) * 0.03,
					100.0 * (double)x->ahp_peak_kb / (double)x->anon_peak_kb,
					3.5, i);
		}
		const struct ab_stat *s = &r->sum[i].share;
		any |= s->ok;
		if (s->ok) {
			double x[2] = {i + 0.25, i + 0.75}, y[2] = {s->med * 100, s->med * 100};
			svg_line(&c, x, y, 2, i, false);
		} else {
			svg_note(&c, i + 0.5, m->skipped ? "skipped" : "not sampled");
		}
	}
	if (!any)
		svg_note(&c, NAN, "AnonHugePages not sampled: the runs ended before a sample");
	svg_chart_end(&c);
	static const char *const cols[5] = {"mode", "runs sampled", "median (%)", "min (%)",
					    "max (%)"};
	report_table_begin(h, "ab-share", cols, 5);
	for (int i = 0; i < r->n; i++) {
		const struct ab_stat *s = &r->sum[i].share;
		int ns = 0;
		for (int k = 0; k < r->modes[i].nruns; k++)
			ns += r->modes[i].runs[k].ok && r->modes[i].runs[k].ahp_peak_kb >= 0 &&
			      r->modes[i].runs[k].anon_peak_kb > 0;
		char cell[4][40];
		const char *cp[4] = {cell[0], cell[1], cell[2], cell[3]};
		snprintf(cell[0], sizeof(cell[0]), "%d", ns);
		report_num(cell[1], sizeof(cell[1]), s->ok ? s->med * 100 : NAN);
		report_num(cell[2], sizeof(cell[2]), s->ok ? s->min * 100 : NAN);
		report_num(cell[3], sizeof(cell[3]), s->ok ? s->max * 100 : NAN);
		report_table_row(h, names[i], cp, 4);
	}
	report_table_end(h);
}

/* Whether mode I was compared with a base that has AnonHugePages samples (model/ab.c's proof). */
static bool base_ok(const struct ab_report *r, int i)
{
	for (int b = 0; b < r->n; b++)
		if (r->sum[b].verdict == AV_BASE)
			return b != i && r->sum[b].ahp.ok;
	return false;
}

/* The THP evidence of each mode as the terminal shows it: medians of the peak AnonHugePages, its
 * share, the host-wide counters, and whether the proof matches the mode's intent. */
static void ab_evidence(struct hbuf *h, const struct ab_report *r)
{
	hb_puts(h, "<h2>THP evidence per mode</h2>\n");
	static const char *const cols[7] = {"mode",
					    "AnonHugePages peak (MiB)",
					    "THP % of anon",
					    "thp_fault_alloc*",
					    "thp_fault_fallback*",
					    "compact_stall*",
					    "proof"};
	report_table_begin(h, "ab-thp", cols, 7);
	for (int i = 0; i < r->n; i++) {
		const struct ab_summary *s = &r->sum[i];
		char cell[6][80];
		const char *cp[6] = {cell[0], cell[1], cell[2], cell[3], cell[4], cell[5]};
		report_num(cell[0], sizeof(cell[0]), s->ahp.ok ? s->ahp.med / 1024 : NAN);
		report_num(cell[1], sizeof(cell[1]), s->share.ok ? s->share.med * 100 : NAN);
		static const enum ab_counter ctr[3] = {AC_FAULT_ALLOC, AC_FAULT_FALLBACK,
						       AC_COMPACT_STALL};
		for (int k = 0; k < 3; k++)
			report_num(cell[2 + k], sizeof(cell[0]),
				   s->delta_med[ctr[k]] >= 0 ? (double)s->delta_med[ctr[k]] : NAN);
		enum ab_intent in = ab_kind_intent(r->modes[i].kind, r->modes[i].arg);
		snprintf(cell[5], sizeof(cell[5]), "%s",
			 r->modes[i].skipped	    ? "skipped"
			 : s->verdict == AV_NOT_RUN ? "not judged: the mode did not finish"
			 : s->proof_unknown	    ? "not sampled (runs too short)"
			 : s->proof_contradicts	    ? "FLAGGED: AnonHugePages does not show what "
						      "the mode intends"
			 : s->proof_moot ? "none possible: no process of the command reached one "
					   "PMD size of memory"
			 : in == AI_LESS ? "no AnonHugePages, as the mode intends"
			 : in == AI_MORE && base_ok(r, i)
				 ? "more AnonHugePages than the base, as the mode intends"
			 : in == AI_MORE ? "some AnonHugePages, as the mode intends"
			 : r->modes[i].kind == AB_EXCEPT_ADVISED
				 ? "- (THP where CMD madvises: AnonHugePages cannot tell where)"
				 : "- (the mode intends no direction)");
		report_table_row(h, r->modes[i].name, cp, 6);
	}
	report_table_end(h);
	report_para(
		h, "meta",
		"medians over the runs that finished; AnonHugePages: the peak of the command's "
		"process tree (smaps_rollup, sampled); * host-wide /proc/vmstat deltas per run: "
		"other processes on the host add to them");
}

void report_ab(struct hbuf *h, const struct ab_report *r)
{
	char meta[400];
	struct buf q = {0};
	if (buf_add(&q, "command: ", 9) == 0 && ab_command_quoted(&q, r->cmd) == 0)
		report_para(h, "meta", q.p);
	buf_free(&q);
	int n = snprintf(meta, sizeof(meta), "%d run%s per mode", r->runs, r->runs == 1 ? "" : "s");
	if (r->warmup)
		snprintf(meta + n, sizeof(meta) - (size_t)n, " after %d warm-up run%s", r->warmup,
			 r->warmup == 1 ? "" : "s");
	else
		snprintf(meta + n, sizeof(meta) - (size_t)n, ", no warm-up run");
	report_para(h, "meta", meta);
	ab_wall(h, r);
	ab_ratio(h, r, false);
	ab_ratio(h, r, true);
	ab_share(h, r);
	ab_evidence(h, r);
	for (int i = 0; i < r->n; i++)
		if (r->modes[i].skipped) {
			snprintf(meta, sizeof(meta), "%s skipped: %s", r->modes[i].name,
				 r->modes[i].skip_reason);
			report_para(h, "meta", meta);
		}
}
