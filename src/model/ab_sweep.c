// SPDX-License-Identifier: MIT
/*
 * `thpctl ab --sweep`: wall time against the measured huge-backed fraction
 * (model/ab.h). Pure: a least-squares line over every run, the Fieller
 * interval of the fitted 100%/0% wall-time ratio, and the project's interval
 * rule (stats_ci_call) for the call, after a check that the fraction moved.
 */
#include <string.h>

#include "../util/names.h"
#include "ab.h"

double ab_run_fraction(const struct ab_run *run)
{
	if (run->ahp_peak_kb < 0 || run->anon_max_kb <= 0)
		return -1;
	double f = (double)run->ahp_peak_kb / (double)run->anon_max_kb;
	return f > 1 ? 1 : f; /* the two peaks are separate samples */
}

const char *ab_sweep_call_name(enum ab_sweep_call c)
{
	static const char *const names[] = {[AS_NONE] = "none",
					    [AS_FASTER] = "sensitive-faster",
					    [AS_SLOWER] = "sensitive-slower",
					    [AS_FLAT] = "flat",
					    [AS_NOISY] = "inconclusive",
					    [AS_NO_SPREAD] = "no-spread",
					    [AS_TOO_FEW] = "too-few-runs"};
	return ENUM_NAME(names, c, "?");
}

void ab_sweep_decide(const double *frac, const double *wall, int n, struct ab_sweep *out)
{
	out->n = n;
	out->frac_min = out->frac_max = 0;
	memset(&out->fit, 0, sizeof(out->fit));
	memset(&out->rel, 0, sizeof(out->rel));
	for (int i = 0; i < n; i++) {
		if (!i || frac[i] < out->frac_min)
			out->frac_min = frac[i];
		if (!i || frac[i] > out->frac_max)
			out->frac_max = frac[i];
	}
	out->extrapolated = n > 0 && (out->frac_min > 0.1 || out->frac_max < 0.9);
	if (n < 3) {
		out->call = AS_TOO_FEW;
		return;
	}
	if (out->frac_max - out->frac_min < AB_SWEEP_MIN_SPREAD) {
		out->call = AS_NO_SPREAD; /* never a slope over a fraction that did not move */
		return;
	}
	if (stats_linfit(frac, wall, (size_t)n, &out->fit) || !out->fit.ok) {
		out->call = AS_TOO_FEW;
		return;
	}
	stats_linfit_rel(&out->fit, &out->rel);
	/* a wall time is positive: the interval of the ratio ends at 0 (a line through few or
	 * noisy points can reach 0 s before fraction 1) */
	if (out->rel.ok && out->rel.lo < 0)
		out->rel.lo = 0;
	switch (stats_ci_call(&out->rel, AB_SAME_WITHIN)) {
	/* the interval clears 1 but its estimate is inside the resolution: a difference that
	 * may not matter (a 0.04-3.4% one, +1.7%, on a compute-bound program): not decided */
	case CI_BELOW:
		out->call = out->rel.est < 1 / (1 + AB_SAME_WITHIN) ? AS_FASTER : AS_NOISY;
		break;
	case CI_ABOVE:
		out->call = out->rel.est > 1 + AB_SAME_WITHIN ? AS_SLOWER : AS_NOISY;
		break;
	case CI_WITHIN:
		out->call = AS_FLAT;
		break;
	default: /* too wide, or unbounded (Fieller: the intercept not clear of 0) */
		out->call = AS_NOISY;
		break;
	}
}

void ab_sweep_fit(const struct ab_mode *m, int n, struct ab_sweep *out)
{
	memset(out, 0, sizeof(*out));
	double frac[AB_MAX_MODES * AB_MAX_RUNS], wall[AB_MAX_MODES * AB_MAX_RUNS];
	int total = 0;
	for (int i = 0; i < n && out->npoints < AB_SWEEP_MAX_POINTS; i++) {
		if (!m[i].sweep_point)
			continue;
		struct ab_sweep_point *p = &out->points[out->npoints++];
		if (m[i].kind != AB_SWEEP)
			out->by_settings = true;
		double f[AB_MAX_RUNS], w[AB_MAX_RUNS];
		p->mode = i;
		p->percent = m[i].percent;
		for (int j = 0; j < m[i].nruns; j++) {
			double x = ab_run_fraction(&m[i].runs[j]);
			if (!m[i].runs[j].ok || x < 0)
				continue;
			f[p->runs] = frac[total] = x;
			w[p->runs] = wall[total] = m[i].runs[j].wall_s;
			p->runs++;
			total++;
		}
		ab_stat_of(f, p->runs, &p->frac);
		ab_stat_of(w, p->runs, &p->wall);
	}
	if (!out->npoints) {
		out->call = AS_NONE;
		return;
	}
	ab_sweep_decide(frac, wall, total, out);
}
