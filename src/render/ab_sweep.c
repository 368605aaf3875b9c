// SPDX-License-Identifier: MIT
/* `thpctl ab --sweep` in words, a table and JSON (render/ab.h). */
#include <string.h>

#include "ab.h"
#include "json.h"
#include "table.h"

/* The fit says 0% against 100% huge-backed; where the runs did not reach both ends (the
 * spread check asks only 0.5), the figure is extrapolated, and said so. */
static const char *extrapolated(char *o, size_t n, const struct ab_sweep *s)
{
	o[0] = '\0';
	if (s->extrapolated)
		snprintf(o, n, " (extrapolated: the runs were %.0f-%.0f%% huge-backed)",
			 s->frac_min * 100, s->frac_max * 100);
	return o;
}

/* The sweep's call in one line: the verdict first. */
static void sweep_call(FILE *f, const struct ab_sweep *s, bool color)
{
	const struct ratio_ci *r = &s->rel;
	char lv[16], ex[80];
	ab_ci_level(lv, sizeof(lv), r);
	extrapolated(ex, sizeof(ex), s);
	switch (s->call) {
	case AS_FASTER:
		fprintf(f,
			"%ssensitive to huge-page backing:%s 100%% huge-backed runs %.0f%% faster than 0%% ",
			col_bold(color), col_reset(color), (1 - r->est) * 100);
		if (r->lo > 0)
			fprintf(f, "(%s CI %.0f-%.0f%%)", lv, (1 - r->hi) * 100, (1 - r->lo) * 100);
		else /* the interval reaches a wall time of 0: only its other end says something */
			fprintf(f, "(%s CI %.0f%% or more)", lv, (1 - r->hi) * 100);
		fprintf(f, ", slope over %d runs%s\n", s->n, ex);
		break;
	case AS_SLOWER:
		fprintf(f,
			"%ssensitive to huge-page backing:%s 100%% huge-backed runs %.0f%% slower than 0%% "
			"(%s CI %.0f-%.0f%%), slope over %d runs%s\n",
			col_yellow(color), col_reset(color), (r->est - 1) * 100, lv,
			(r->lo - 1) * 100, (r->hi - 1) * 100, s->n, ex);
		break;
	case AS_FLAT:
		fprintf(f,
			"flat: no wall-time difference beyond %.0f%% from 0%% to 100%% huge-backed "
			"(%s CI %+.1f%% to %+.1f%%), slope over %d runs%s\n",
			AB_SAME_WITHIN * 100, lv, (r->lo - 1) * 100, (r->hi - 1) * 100, s->n, ex);
		break;
	case AS_NOISY:
		if (r->ok && (r->lo > 1 || r->hi < 1))
			fprintf(f,
				"inconclusive: a difference of %+.1f%% by its estimate, under the "
				"%.0f%% that matters, its %s CI %+.1f%% to %+.1f%% reaching past it "
				"(%d runs)\n",
				(r->est - 1) * 100, AB_SAME_WITHIN * 100, lv, (r->lo - 1) * 100,
				(r->hi - 1) * 100, s->n);
		else if (r->ok)
			fprintf(f,
				"inconclusive: wall times too noisy for a slope (%s CI %+.0f%% to "
				"%+.0f%% from 0%% to 100%% huge-backed, %d runs)\n",
				lv, (r->lo - 1) * 100, (r->hi - 1) * 100, s->n);
		else
			fprintf(f,
				"inconclusive: wall times too noisy for a bounded interval (%d runs)\n",
				s->n);
		break;
	case AS_NO_SPREAD:
		fprintf(f,
			"inconclusive: the huge-backed fraction did not move (%.2f..%.2f over %d runs; "
			"a slope needs a spread of %.1f): THP off (enabled=never), the memory not in "
			"mmap'd or >= 2 MiB malloc'd blocks, or the program's own madvise\n",
			s->frac_min, s->frac_max, s->n, AB_SWEEP_MIN_SPREAD);
		break;
	default:
		fprintf(f, "too few runs with a measured fraction for a slope (%d; 3 or more)\n",
			s->n);
		break;
	}
}

void ab_render_sweep(FILE *f, const struct ab_report *r, bool color)
{
	const struct ab_sweep *s = r->sweep;
	if (!s || s->call == AS_NONE)
		return;
	fprintf(f, "sweep: ");
	sweep_call(f, s, color);
	if (s->by_settings)
		fprintf(f,
			"  by host settings: CMD is statically linked, so the LD_PRELOAD helper\n"
			"  cannot steer it; the points are enabled=never, madvise and always (root,\n"
			"  journalled, put back), each fraction what the kernel gave\n");
	if (s->fit.ok && s->call != AS_NO_SPREAD)
		fprintf(f,
			"  fit: wall = %.3f s %c %.3f s x fraction (slope 95%% CI %.3f..%.3f s),\n"
			"  measured fractions %.2f..%.2f\n",
			s->fit.a, s->fit.b < 0 ? '-' : '+', s->fit.b < 0 ? -s->fit.b : s->fit.b,
			s->fit.b_lo, s->fit.b_hi, s->frac_min, s->frac_max);
	static const char *const hdr[] = {"REQUESTED", "HUGE FRACTION", "WALL s", "RUNS"};
	struct table *t = table_new(4, hdr, "rrrr");
	for (int i = 0; i < s->npoints; i++) {
		const struct ab_sweep_point *p = &s->points[i];
		if (p->percent >= 0)
			table_cell(t, "%d%%", p->percent);
		else /* a host setting: the mode's KEY=VALUE */
			table_cell(t, "%s", r->modes[p->mode].arg ? r->modes[p->mode].arg : "-");
		if (p->frac.ok)
			table_cell(t, "%.2f", p->frac.med);
		else
			table_cell(t, "-");
		if (p->wall.ok)
			table_cell(t, "%.3f", p->wall.med);
		else
			table_cell(t, "-");
		table_cell(t, "%d", p->runs);
	}
	table_flush(t, f, 2, color);
	fprintf(f, "  medians; huge fraction: peak AnonHugePages / peak Anonymous of the process\n"
		   "  tree (smaps_rollup, sampled), measured, not the requested share\n");
}

static json_t *num_or_null(bool ok, double v)
{
	return ok ? json_real(v) : json_null();
}

static json_t *point_stat_json(const struct ab_stat *s)
{
	return s->ok ? json_obj("median", json_real(s->med), "min", json_real(s->min), "max",
				json_real(s->max), NULL)
		     : json_null();
}

json_t *ab_sweep_json(const struct ab_sweep *s, const struct ab_mode *modes)
{
	if (!s || s->call == AS_NONE)
		return json_null();
	bool fit = s->fit.ok && s->call != AS_NO_SPREAD;
	json_t *o = json_object(), *pts = json_array();
	json_put(o, "call", json_str(ab_sweep_call_name(s->call)));
	json_put(o, "runs", json_integer(s->n));
	json_put(o, "by_settings", json_boolean(s->by_settings));
	json_put(o, "fraction_min", num_or_null(s->n > 0, s->frac_min));
	json_put(o, "fraction_max", num_or_null(s->n > 0, s->frac_max));
	/* the 0%-to-100% figure comes from runs that did not reach both ends */
	json_put(o, "extrapolated", json_boolean(s->extrapolated));
	json_put(o, "intercept_s", num_or_null(fit, s->fit.a));
	json_put(o, "slope_s", num_or_null(fit, s->fit.b));
	json_put(o, "slope_low_s", num_or_null(fit, s->fit.b_lo));
	json_put(o, "slope_high_s", num_or_null(fit, s->fit.b_hi));
	json_put(o, "wall_ratio_100_to_0",
		 fit && s->rel.ok ? json_obj("estimate", json_real(s->rel.est), "low",
					     json_real(s->rel.lo), "high", json_real(s->rel.hi),
					     "level", json_real(s->rel.level), NULL)
				  : json_null());
	for (int i = 0; i < s->npoints; i++) {
		const struct ab_sweep_point *p = &s->points[i];
		const char *set = p->percent < 0 ? modes[p->mode].arg : NULL;
		json_array_append_new(
			pts,
			json_obj("percent", p->percent < 0 ? json_null() : json_integer(p->percent),
				 "setting", set ? json_str(set) : json_null(), "runs",
				 json_integer(p->runs), "fraction", point_stat_json(&p->frac),
				 "wall_s", point_stat_json(&p->wall), NULL));
	}
	json_put(o, "points", pts);
	return o;
}
