// SPDX-License-Identifier: MIT
#include "lab.h"

#include <math.h>
#include <string.h>

#include "json.h"
#include "table.h"

static void fmt_num(char *out, size_t n, double v, bool delta)
{
	fmt_measured(out, n, v, delta);
}

static void fmt_cell(char *out, size_t n, const struct lab_cell *c, bool delta)
{
	if (!c->present) {
		snprintf(out, n, "-");
		return;
	}
	char m[32], lo[32], hi[32];
	fmt_num(m, sizeof(m), c->median, delta);
	if (!c->range || c->min == c->max) {
		snprintf(out, n, "%s", m);
		return;
	}
	fmt_num(lo, sizeof(lo), c->min, false);
	fmt_num(hi, sizeof(hi), c->max, false);
	snprintf(out, n, "%s (%s-%s)", m, lo, hi);
}

/* The published claims beside this host's figures: claim (source), here, the call and why. */
static void render_claims(FILE *f, const struct lab_result *r, bool color)
{
	if (r->nclaims)
		fprintf(f, "  claims (published vs this host):\n");
	for (int i = 0; i < r->nclaims; i++) {
		const struct lab_claim *c = &r->claims[i];
		fprintf(f, "    \"");
		fputs_safe(c->claim, f);
		fprintf(f, "\" (");
		fputs_safe(c->source, f);
		fprintf(f, ")\n      here: ");
		fputs_safe(c->here, f);
		const char *col = c->call == CLAIM_CONFIRMED ? "" : col_yellow(color);
		fprintf(f, "\n      %s%s%s: ", col, claim_call_name(c->call),
			*col ? col_reset(color) : "");
		fputs_safe(c->why, f);
		fputc('\n', f);
	}
}

json_t *lab_claims_json(const struct lab_result *r)
{
	json_t *a = json_array();
	for (int i = 0; i < r->nclaims; i++) {
		const struct lab_claim *c = &r->claims[i];
		json_t *x = json_object();
		json_put(x, "claim", json_str(c->claim));
		json_put(x, "source", json_str(c->source));
		json_put(x, "here", json_str(c->here));
		json_put(x, "call", json_str(claim_call_name(c->call)));
		json_put(x, "why", json_str(c->why));
		json_array_append_new(a, x);
	}
	return a;
}

void lab_render_text(FILE *f, const struct lab_result *r, bool color)
{
	char sz[32];
	fmt_bytes(sz, sizeof(sz), r->size);
	fprintf(f, "%slab %s%s: %s", col_bold(color), r->experiment, col_reset(color), r->title);
	int lo, hi, runs = lab_runs_of(r, &lo, &hi);
	if (r->size && runs >= 0)
		fprintf(f, "  (%s, %s, %d run%s)", sz, r->state, runs, runs == 1 ? "" : "s");
	else if (r->size) /* rows ran different counts: each row's own is in --json */
		fprintf(f, "  (%s, %s, %d-%d runs by row)", sz, r->state, lo, hi);
	fputc('\n', f);
	if (r->nrows && r->ncols) {
		const char *hdr[LAB_MAX_COLS + 1];
		char names[LAB_MAX_COLS + 1][48];
		char align[LAB_MAX_COLS + 2];
		snprintf(names[0], sizeof(names[0]), "%s", "");
		hdr[0] = names[0];
		align[0] = 'l';
		for (int c = 0; c < r->ncols; c++) {
			const char *u = r->cols[c].unit;
			if (u[0] && strcmp(u, "+") != 0)
				snprintf(names[c + 1], sizeof(names[0]), "%s %s", r->cols[c].name,
					 u);
			else
				snprintf(names[c + 1], sizeof(names[0]), "%s", r->cols[c].name);
			hdr[c + 1] = names[c + 1];
			align[c + 1] = 'r';
		}
		align[r->ncols + 1] = '\0';
		struct table *t = table_new(r->ncols + 1, hdr, align);
		for (int i = 0; i < r->nrows; i++) {
			table_cell(t, "%s", r->rows[i].label);
			for (int c = 0; c < r->ncols; c++) {
				char v[80];
				fmt_cell(v, sizeof(v), &r->rows[i].c[c],
					 strcmp(r->cols[c].unit, "+") == 0);
				table_cell(t, "%s", v);
			}
		}
		table_flush(t, f, 2, color);
		for (int c = 0; c < r->ncols; c++)
			if (!strcmp(r->cols[c].unit, "+")) {
				fprintf(f,
					"  (+N columns: host-wide counter deltas: other processes add to them)\n");
				break;
			}
	}
	if (r->nproofs) {
		fprintf(f, "  proof:\n");
		for (int i = 0; i < r->nproofs; i++) {
			fprintf(f, "    %s: ", r->proofs[i].key);
			fputs_safe(r->proofs[i].value, f);
			fputc('\n', f);
		}
	}
	render_claims(f, r, color);
	const char *c = r->skipped ? col_dim(color) : r->expected ? "" : col_yellow(color);
	/* a verdict may quote a process's words (initdb's last line): escaped, as proofs are */
	fprintf(f, "  %sverdict: %s", c, r->skipped ? "skipped: " : "");
	fputs_safe(r->verdict, f);
	fprintf(f, "%s\n", *c ? col_reset(color) : "");
	if (r->partial)
		fprintf(f, "  (partial: some runs or proofs failed)\n");
	if (r->advice[0]) {
		fputs("  ", f);
		fputs_safe(r->advice, f);
		fputc('\n', f);
	}
}

/*
 * V as an integer when it is one (counts, kB): JSON reals print 6 significant
 * digits (json_dump), which made 1048576 kB "1048580"; else a real.
 */
static json_t *num_json(double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *cell_json(const struct lab_cell *c)
{
	return c->present ? json_obj("median", num_json(c->median), "min", num_json(c->min), "max",
				     num_json(c->max), NULL)
			  : json_null();
}

static const char *const series_kind[] = {
	[LAB_SER_CDF] = "cdf", [LAB_SER_LINE] = "line", [LAB_SER_SAMPLES] = "samples"};

/* The numbers behind the report's charts: x only for lines. */
static json_t *lab_series_json(const struct lab_result *r)
{
	json_t *arr = json_array();
	for (int i = 0; i < r->nseries; i++) {
		const struct lab_series *s = &r->series[i];
		json_t *x = json_object(), *xs = json_array(), *ys = json_array();
		json_put(x, "chart", json_str(s->chart));
		json_put(x, "name", json_str(s->name));
		json_put(x, "kind", json_str(series_kind[s->kind]));
		json_put(x, "y_label", json_str(s->ylabel));
		json_put(x, "y_unit", json_str(s->yunit));
		json_put(x, "n_total", json_integer((json_int_t)s->n_total));
		for (int k = 0; k < s->n; k++) {
			json_array_append_new(ys, num_json(s->y[k]));
			if (s->kind == LAB_SER_LINE)
				json_array_append_new(xs, num_json(s->x[k]));
		}
		if (s->kind == LAB_SER_LINE) {
			json_put(x, "x_label", json_str(s->xlabel));
			json_put(x, "x_unit", json_str(s->xunit));
			json_put(x, "x", xs);
		} else {
			json_decref(xs);
		}
		json_put(x, "y", ys);
		json_array_append_new(arr, x);
	}
	return arr;
}

json_t *lab_load_json(const double *before, const double *after)
{
	json_t *o = json_object(), *b = json_array(), *a = json_array();
	for (int i = 0; i < 3; i++) {
		json_array_append_new(b, json_real(before[i]));
		json_array_append_new(a, json_real(after[i]));
	}
	json_put(o, "before", b);
	json_put(o, "after", a);
	return o;
}

json_t *lab_to_json(const struct lab_result *r)
{
	json_t *o = json_object(), *cols = json_array(), *rows = json_array(), *pr = json_array();
	json_put(o, "experiment", json_str(r->experiment));
	json_put(o, "title", json_str(r->title));
	json_put(o, "size_bytes", r->size ? json_u64(r->size) : NULL);
	json_put(o, "state", r->state[0] ? json_str(r->state) : NULL);
	/* one count only when every row ran it: null where rows differ, never one row's value */
	int runs = lab_runs_of(r, NULL, NULL);
	json_put(o, "runs", runs >= 0 ? json_integer(runs) : NULL);
	json_put(o, "wall_ms", json_real(r->wall_ms));
	json_put(o, "cpu_ms", json_real(r->cpu_ms));
	for (int c = 0; c < r->ncols; c++) {
		json_t *x = json_object();
		json_put(x, "name", json_str(r->cols[c].name));
		bool delta = !strcmp(r->cols[c].unit, "+");
		json_put(x, "unit", json_str(delta ? "delta" : r->cols[c].unit));
		/* deltas are host-wide counters (vmstat, per-size stats, khugepaged) */
		json_put(x, "scope",
			 json_str(delta		    ? "host-wide"
				  : r->col_scope[0] ? r->col_scope
						    : "region"));
		json_array_append_new(cols, x);
	}
	json_put(o, "columns", cols);
	for (int i = 0; i < r->nrows; i++) {
		json_t *x = json_object(), *cells = json_object();
		json_put(x, "label", json_str(r->rows[i].label));
		json_put(x, "runs", json_integer(r->rows[i].runs > 0 ? r->rows[i].runs : r->runs));
		for (int c = 0; c < r->ncols; c++)
			json_put(cells, r->cols[c].name, cell_json(&r->rows[i].c[c]));
		json_put(x, "cells", cells);
		json_array_append_new(rows, x);
	}
	json_put(o, "rows", rows);
	/* a list in the order written: a key may repeat (one per run), an object would keep one */
	for (int i = 0; i < r->nproofs; i++) {
		json_t *x = json_object();
		json_put(x, "key", json_str(r->proofs[i].key));
		json_put(x, "text", json_str(r->proofs[i].value));
		json_array_append_new(pr, x);
	}
	json_put(o, "proofs", pr);
	json_put(o, "claims", lab_claims_json(r));
	json_put(o, "series", lab_series_json(r));
	json_t *v = json_object();
	json_put(v, "text", json_str(r->verdict));
	json_put(v, "expected", json_boolean(r->expected));
	json_put(v, "skipped", json_boolean(r->skipped));
	json_put(v, "inconclusive", json_boolean(r->inconclusive));
	json_put(o, "verdict", v);
	json_put(o, "advice", r->advice[0] ? json_str(r->advice) : NULL);
	json_put(o, "load", r->load_ok ? lab_load_json(r->load_before, r->load_after) : NULL);
	json_put(o, "partial", json_boolean(r->partial));
	return o;
}

void lab_render_csv(FILE *f, const struct lab_result *r, bool header)
{
	if (header)
		fprintf(f, "experiment,row,column,unit,median,min,max\n");
	for (int i = 0; i < r->nrows; i++)
		for (int c = 0; c < r->ncols; c++) {
			const struct lab_cell *x = &r->rows[i].c[c];
			if (!x->present)
				continue;
			fprintf(f, "%s,%s,%s,%s,%.6g,%.6g,%.6g\n", r->experiment, r->rows[i].label,
				r->cols[c].name,
				strcmp(r->cols[c].unit, "+") ? r->cols[c].unit : "delta", x->median,
				x->min, x->max);
		}
}

void lab_render_claims_table(FILE *f, const char (*experiment)[24], const struct lab_claim *c,
			     int n, bool color)
{
	static const char *const hdr[] = {"experiment", "claim", "source", "here", "call"};
	fprintf(f, "\n%sclaims vs this host%s (each proven in its experiment above)\n",
		col_bold(color), col_reset(color));
	if (!n) {
		fprintf(f, "  none: no workload experiment ran\n");
		return;
	}
	struct table *t = table_new(5, hdr, "lLLLl");
	if (!t)
		return;
	for (int i = 0; i < n; i++) {
		table_cell(t, "%s", experiment[i]);
		table_cell(t, "%s", c[i].claim);
		table_cell(t, "%s", c[i].source);
		table_cell(t, "%s", c[i].here);
		table_cell(t, "%s", claim_call_name(c[i].call));
	}
	table_flush(t, f, 2, color);
}

void lab_render_closing(FILE *f, const struct lab_closing *c)
{
	if (c->group)
		fprintf(f, "\nlab %s: %d experiment%s in %.1f s wall", c->name, c->shown,
			c->shown == 1 ? "" : "s", c->wall_s);
	else
		fprintf(f, "\nlab %s: %.1f s wall", c->name, c->wall_s);
	fprintf(f, " (%.1f s CPU)", c->cpu_s);
	if (c->group && c->nskip)
		fprintf(f, ", %s%d skipped (%s)", c->nskip == c->shown ? "all " : "", c->nskip,
			c->skipped);
	if (c->load_before && c->load_after)
		fprintf(f, "; load average %.2f before, %.2f after (1 min, host-wide)",
			c->load_before[0], c->load_after[0]);
	fputc('\n', f);
}
