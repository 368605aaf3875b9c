// SPDX-License-Identifier: MIT
/*
 * Unit tests: `thpctl ab --sweep`'s fit and call (model/ab_sweep.c) and its words
 * (render/ab_sweep.c), on runs recorded on this project's test guest (fractions
 * and wall times from `ab --sweep --runs 3 --json`, rounded to 4 decimals).
 */
#include "unit.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/ab.h"
#include "render/ab.h"

#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

/* build/tests/chase_malloc 64M 300k: 3 runs at each of sweep:0,25,50,75,100 */
static const double CHASE_X[15] = {0.0,	   0.0,	   0.0,	   0.2262, 0.218,  0.2328, 0.467, 0.467,
				   0.4671, 0.7473, 0.7162, 0.7162, 0.9652, 0.9871, 0.976};
static const double CHASE_Y[15] = {0.4236, 0.4433, 0.4549, 0.3144, 0.431,  0.3609, 0.3197, 0.3794,
				   0.3488, 0.2041, 0.2194, 0.1587, 0.1074, 0.13,   0.1261};
/* build/tests/spin_malloc 8M 200M (arithmetic; one byte per 2 MiB), beside a busy test suite */
static const double SPIN_X[15] = {0.0,	  0.0,	  0.0,	  0.0,	  0.0,	  0.0,	  0.9429, 0.9446,
				  0.9429, 0.9715, 0.9715, 0.9715, 0.9815, 0.9821, 0.9815};
static const double SPIN_Y[15] = {0.2719, 0.258,  0.2763, 0.2672, 0.2572, 0.2705, 0.2632, 0.2783,
				  0.3028, 0.2632, 0.2763, 0.3571, 0.2652, 0.2758, 0.272};

static void test_chase_is_sensitive_with_its_interval(UNIT_STATE)
{
	struct ab_sweep s = {0};
	ab_sweep_decide(CHASE_X, CHASE_Y, 15, &s);
	assert_int_equal(s.call, AS_FASTER);
	assert_int_equal(s.n, 15);
	assert_near(s.frac_min, 0.0, 1e-12);
	assert_near(s.frac_max, 0.9871, 1e-12);
	assert_near(s.fit.a, 0.454193, 1e-6);
	assert_near(s.fit.b, -0.332754, 1e-6);
	assert_near(s.fit.b_lo, -0.397815, 1e-6);
	assert_near(s.fit.b_hi, -0.267692, 1e-6);
	/* the fitted 100%/0% ratio: 73% faster, Fieller 95% 63-83% (checked by a grid search) */
	assert_near(s.rel.est, 0.267375, 1e-6);
	assert_near(s.rel.lo, 0.171665, 1e-5);
	assert_near(s.rel.hi, 0.372290, 1e-5);
	assert_string_equal(ab_sweep_call_name(s.call), "sensitive-faster");
}

static void test_noisy_compute_bound_is_inconclusive(UNIT_STATE)
{
	struct ab_sweep s = {0};
	ab_sweep_decide(SPIN_X, SPIN_Y, 15, &s);
	/* +6.5% fitted, but the interval 0.96-1.18 spans 1 and reaches past 3% */
	assert_int_equal(s.call, AS_NOISY);
	assert_near(s.fit.b, 0.017449, 1e-6);
	assert_near(s.rel.est, 1.065380, 1e-6);
	assert_near(s.rel.lo, 0.961468, 1e-5);
	assert_near(s.rel.hi, 1.183295, 1e-5);
}

static void test_quiet_compute_bound_is_flat(UNIT_STATE)
{
	/* the spin fractions with wall times within +-0.7%: no difference beyond 3% */
	static const double y[15] = {0.301, 0.299, 0.300, 0.302, 0.298, 0.300, 0.301, 0.299,
				     0.300, 0.300, 0.302, 0.298, 0.299, 0.301, 0.300};
	struct ab_sweep s = {0};
	ab_sweep_decide(SPIN_X, y, 15, &s);
	assert_int_equal(s.call, AS_FLAT);
	assert_true(s.rel.ok && s.rel.lo > 1 / 1.03 && s.rel.hi < 1.03);
	assert_true(s.rel.lo < 1 && s.rel.hi > 1);
}

static void test_slower_when_huge_costs_time(UNIT_STATE)
{
	double y[15];
	for (int i = 0; i < 15; i++) /* 50% more wall at 100%, +-1% noise */
		y[i] = (0.2 + 0.1 * CHASE_X[i]) * (1 + 0.01 * ((i % 3) - 1));
	struct ab_sweep s = {0};
	ab_sweep_decide(CHASE_X, y, 15, &s);
	assert_int_equal(s.call, AS_SLOWER);
	assert_true(s.rel.lo > 1.4 && s.rel.hi < 1.6);
}

static void test_small_difference_clear_of_one_is_not_a_sensitivity(UNIT_STATE)
{
	/* +1.7% from 0% to 100% huge-backed, +-1% noise: the interval clears 1 (a difference) and
	 * reaches past 3%, but the estimate is under 3%: inconclusive, never "sensitive" (a
	 * compute-bound program under load in make check: 1.0004-1.0345, est 1.017) */
	double y[15];
	for (int i = 0; i < 15; i++)
		y[i] = (0.2 + 0.0034 * CHASE_X[i]) * (1 + 0.01 * ((i % 3) - 1));
	struct ab_sweep s = {0};
	ab_sweep_decide(CHASE_X, y, 15, &s);
	assert_true(s.rel.ok && s.rel.lo > 1 && s.rel.est > 1 && s.rel.est < 1.03);
	assert_int_equal(s.call, AS_NOISY);
}

/* The text of R's sweep into a string the caller frees. */
static char *sweep_text(const struct ab_sweep *s)
{
	struct unit_mem m;
	struct ab_report r = {.sweep = s};
	ab_render_sweep(unit_mem_open(&m), &r, false);
	return unit_mem_text(&m);
}

static void test_interval_ends_at_zero_wall(UNIT_STATE)
{
	/* one run per point, shaped like a `--runs 1` sweep of chase_malloc 8M 10k whose
	 * interval reached below 0 (these values are made up, not recorded): Fieller gives
	 * -0.156..0.391, the line reaching 0 s before fraction 1; the interval ends at 0 */
	static const double x[5] = {0.0, 0.2015, 0.4558, 0.7054, 0.9413};
	static const double y[5] = {0.0301, 0.0262, 0.0182, 0.0068, 0.0069};
	struct ab_sweep s = {0};
	ab_sweep_decide(x, y, 5, &s);
	assert_int_equal(s.call, AS_FASTER);
	assert_true(s.rel.ok);
	assert_true(s.rel.lo == 0);
	assert_near(s.rel.hi, 0.390922, 1e-5);
	assert_near(s.rel.est, 0.089661, 1e-5);
	char *p = sweep_text(&s);
	assert_non_null(strstr(p, "% or more), slope over 5 runs"));
	free(p);
}

static void test_no_spread_gives_no_slope(UNIT_STATE)
{
	/* the helper could not steer the program: fractions 0.02..0.05, a steep fake slope */
	static const double x[6] = {0.02, 0.05, 0.03, 0.04, 0.02, 0.05};
	static const double y[6] = {0.50, 0.20, 0.40, 0.30, 0.50, 0.20};
	struct ab_sweep s = {0};
	ab_sweep_decide(x, y, 6, &s);
	assert_int_equal(s.call, AS_NO_SPREAD);
	assert_false(s.fit.ok);
	assert_false(s.rel.ok);
	assert_near(s.frac_min, 0.02, 1e-12);
	assert_near(s.frac_max, 0.05, 1e-12);
	/* just under the spread needed, still no slope; at it, a slope */
	static const double x2[3] = {0.0, 0.2, 0.49};
	ab_sweep_decide(x2, y, 3, &s);
	assert_int_equal(s.call, AS_NO_SPREAD);
	static const double x3[3] = {0.0, 0.25, 0.5};
	ab_sweep_decide(x3, y, 3, &s);
	assert_true(s.fit.ok);
	assert_int_not_equal(s.call, AS_NO_SPREAD);
	ab_sweep_decide(CHASE_X, CHASE_Y, 2, &s);
	assert_int_equal(s.call, AS_TOO_FEW);
}

/* Mode I "sweep:P" with the recorded runs K0..K0+2 (kB of 65536 anonymous). */
static void sweep_mode(struct ab_mode *m, const char *name, int k0)
{
	assert_int_equal(ab_mode_parse(name, m), 0);
	m->nruns = 3;
	for (int k = 0; k < 3; k++) {
		struct ab_run *r = &m->runs[k];
		memset(r, 0, sizeof(*r));
		r->ok = true;
		r->wall_s = CHASE_Y[k0 + k];
		r->anon_max_kb = 65536;
		r->ahp_peak_kb = (int64_t)(CHASE_X[k0 + k] * 65536 + 0.5);
		r->anon_peak_kb = 65536;
	}
}

static void test_fit_over_modes_and_points(UNIT_STATE)
{
	static struct ab_mode m[6];
	static const char *const names[] = {"sweep:0", "sweep:25", "sweep:50", "sweep:75",
					    "sweep:100"};
	assert_int_equal(ab_mode_parse("host", &m[0]), 0);
	m[0].nruns = 0;
	for (int i = 0; i < 5; i++)
		sweep_mode(&m[i + 1], names[i], 3 * i);
	m[2].runs[1].ok = false;       /* a failed run leaves the fit */
	m[3].runs[2].ahp_peak_kb = -1; /* and so does one without a sample */
	struct ab_sweep s = {0};
	ab_sweep_fit(m, 6, &s);
	assert_int_equal(s.npoints, 5);
	assert_int_equal(s.n, 13);
	assert_int_equal(s.points[0].mode, 1);
	assert_int_equal(s.points[4].percent, 100);
	assert_int_equal(s.points[1].runs, 2);
	assert_int_equal(s.points[2].runs, 2);
	assert_near(s.points[4].frac.med, 63963.0 / 65536, 1e-9); /* 0.976 of 64 MiB in whole kB */
	assert_near(s.points[0].wall.med, 0.4433, 1e-12);
	assert_int_equal(s.call, AS_FASTER);
	/* no sweep modes: no sweep */
	ab_sweep_fit(m, 1, &s);
	assert_int_equal(s.call, AS_NONE);
	/* a fraction is peak huge over peak anonymous, capped at 1; unknown without samples */
	struct ab_run r = {.ahp_peak_kb = 4096, .anon_max_kb = 8192};
	assert_near(ab_run_fraction(&r), 0.5, 1e-12);
	r.anon_max_kb = 2048;
	assert_near(ab_run_fraction(&r), 1.0, 1e-12);
	r.anon_max_kb = 0;
	assert_true(ab_run_fraction(&r) < 0);
	r.anon_max_kb = 8192, r.ahp_peak_kb = -1;
	assert_true(ab_run_fraction(&r) < 0);
}

static void test_sweep_modes_parse_and_refuse(UNIT_STATE)
{
	struct ab_mode m;
	assert_int_equal(ab_mode_parse("sweep:0", &m), 0);
	assert_int_equal(m.kind, AB_SWEEP);
	assert_int_equal(m.percent, 0);
	assert_int_equal(ab_mode_parse("sweep:100", &m), 0);
	assert_int_equal(m.percent, 100);
	assert_int_equal(ab_kind_intent(m.kind, m.arg), AI_NONE);
	assert_int_equal(ab_mode_parse("host", &m), 0);
	assert_int_equal(m.percent, -1);
	assert_int_equal(ab_mode_parse("sweep:101", &m), -EINVAL);
	assert_int_equal(ab_mode_parse("sweep:", &m), -EINVAL);
	assert_int_equal(ab_mode_parse("sweep:-1", &m), -EINVAL);
	assert_int_equal(ab_mode_parse("sweep:0100", &m), -EINVAL);
	assert_int_equal(ab_mode_parse("sweep:5%", &m), -EINVAL);
}

static void test_words_say_the_call_first(UNIT_STATE)
{
	struct ab_sweep s = {0};
	ab_sweep_decide(CHASE_X, CHASE_Y, 15, &s);
	char *t = sweep_text(&s);
	assert_non_null(strstr(t,
			       "sweep: sensitive to huge-page backing: 100% huge-backed runs 73% "
			       "faster than 0% (95% CI 63-83%), slope over 15 runs\n"));
	assert_non_null(strstr(t, "fit: wall = 0.454 s - 0.333 s x fraction (slope 95% CI "
				  "-0.398..-0.268 s)"));
	free(t);
	/* runs only at 0% and 55%: the 100% figure is a line's, said as extrapolated */
	static const double xe[8] = {0, 0, 0, 0, 0.55, 0.55, 0.55, 0.55},
			    ye[8] = {1.00, 1.01, 0.99, 1.00, 0.80, 0.81, 0.79, 0.80};
	ab_sweep_decide(xe, ye, 8, &s);
	assert_int_equal(s.call, AS_FASTER);
	t = sweep_text(&s);
	assert_non_null(strstr(t, "runs (extrapolated: the runs were 0-55% huge-backed)\n"));
	free(t);
	json_t *je = ab_sweep_json(&s, NULL);
	assert_true(json_is_true(json_object_get(je, "extrapolated")));
	json_decref(je);
	static const double x[6] = {0.02, 0.05, 0.03, 0.04, 0.02, 0.05};
	ab_sweep_decide(x, CHASE_Y, 6, &s);
	t = sweep_text(&s);
	assert_non_null(
		strstr(t, "inconclusive: the huge-backed fraction did not move (0.02..0.05"));
	assert_null(strstr(t, "fit:"));
	free(t);
	ab_sweep_decide(SPIN_X, SPIN_Y, 15, &s);
	t = sweep_text(&s);
	assert_non_null(strstr(t, "inconclusive: wall times too noisy for a slope (95% CI -4% to "
				  "+18% from 0% to 100% huge-backed, 15 runs)"));
	free(t);
	json_t *j = ab_sweep_json(&s, NULL);
	assert_string_equal(json_string_value(json_object_get(j, "call")), "inconclusive");
	assert_near(json_real_value(json_object_get(j, "slope_s")), 0.017449, 1e-6);
	json_decref(j);
	s.call = AS_NO_SPREAD;
	j = ab_sweep_json(&s, NULL);
	assert_true(json_is_null(json_object_get(j, "slope_s")));
	assert_true(json_is_null(json_object_get(j, "wall_ratio_100_to_0")));
	json_decref(j);
}

UNIT_TESTS(test_chase_is_sensitive_with_its_interval, test_noisy_compute_bound_is_inconclusive,
	   test_quiet_compute_bound_is_flat, test_slower_when_huge_costs_time,
	   test_small_difference_clear_of_one_is_not_a_sensitivity, test_interval_ends_at_zero_wall,
	   test_no_spread_gives_no_slope, test_fit_over_modes_and_points,
	   test_sweep_modes_parse_and_refuse, test_words_say_the_call_first)
