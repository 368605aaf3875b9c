// SPDX-License-Identifier: MIT
/* Unit tests: src/util/stats.c (summaries, percentiles, median). */
#include "unit.h"

#include "util/stats.h"

#include <math.h>

/* A and B equal within EPS (this cmocka has no assert_double_equal). */
#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static void test_summary_odd(UNIT_STATE)
{
	double v[] = {5, 1, 4, 2, 3};
	struct summary s;
	summarize(v, 5, &s);
	assert_int_equal(s.n, 5);
	assert_true(s.min == 1 && s.max == 5);
	assert_true(s.median == 3);
	assert_true(s.mean == 3);
	/* sorted in place */
	for (int i = 0; i < 5; i++)
		assert_true(v[i] == i + 1);
}

static void test_summary_even(UNIT_STATE)
{
	double v[] = {4, 1, 3, 2};
	struct summary s;
	summarize(v, 4, &s);
	assert_int_equal(s.n, 4);
	assert_true(s.median == 2.5); /* mean of the middle two */
	assert_true(s.min == 1 && s.max == 4);
	assert_true(s.mean == 2.5);

	double w[] = {10, -2};
	summarize(w, 2, &s);
	assert_true(s.median == 4);
	assert_true(s.min == -2 && s.max == 10);
}

static void test_summary_one_and_ties(UNIT_STATE)
{
	double v[] = {7.5};
	struct summary s;
	summarize(v, 1, &s);
	assert_int_equal(s.n, 1);
	assert_true(s.min == 7.5 && s.max == 7.5 && s.median == 7.5 && s.mean == 7.5);
	assert_true(s.p90 == 7.5 && s.p99 == 7.5);

	double t[] = {2, 2, 2, 1, 2, 3};
	summarize(t, 6, &s);
	assert_true(s.median == 2);
	assert_true(s.min == 1 && s.max == 3);
}

static void test_summary_empty(UNIT_STATE)
{
	struct summary s;
	memset(&s, 0x5a, sizeof(s));
	summarize(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(s.min == 0 && s.max == 0 && s.median == 0 && s.mean == 0);
	assert_true(s.p90 == 0 && s.p99 == 0);
	assert_true(percentile_sorted(NULL, 0, 50) == 0);
}

static void test_percentiles_nearest_rank(UNIT_STATE)
{
	double v[100];
	struct summary s;
	/* 1..10: rank ceil(0.9 * 10) = 9, ceil(0.99 * 10) = 10 */
	for (int i = 0; i < 10; i++)
		v[i] = 10 - i;
	summarize(v, 10, &s);
	assert_true(s.p90 == 9);
	assert_true(s.p99 == 10);
	/* 1..100: the value at the rank itself, no interpolation */
	for (int i = 0; i < 100; i++)
		v[i] = (double)((i * 37) % 100 + 1);
	summarize(v, 100, &s);
	assert_true(s.p90 == 90);
	assert_true(s.p99 == 99);
	assert_true(s.median == 50.5);
	/* 1..20: ranks 18 and 20 */
	for (int i = 0; i < 20; i++)
		v[i] = i + 1;
	summarize(v, 20, &s);
	assert_true(s.p90 == 18);
	assert_true(s.p99 == 20);
	/* 3 samples: p90 and p99 are the maximum */
	double w[] = {30, 10, 20};
	summarize(w, 3, &s);
	assert_true(s.p90 == 30 && s.p99 == 30);
}

static void test_percentile_sorted_edges(UNIT_STATE)
{
	const double v[] = {1, 2, 3, 4};
	assert_true(percentile_sorted(v, 4, 0) == 1);
	assert_true(percentile_sorted(v, 4, -5) == 1);
	assert_true(percentile_sorted(v, 4, 100) == 4);
	assert_true(percentile_sorted(v, 4, 250) == 4);
	assert_true(percentile_sorted(v, 4, 50) == 2);	 /* rank 2 */
	assert_true(percentile_sorted(v, 4, 50.1) == 3); /* rank ceil(2.004) = 3 */
	assert_true(percentile_sorted(v, 4, 25) == 1);
	assert_true(percentile_sorted(v, 4, 1) == 1);
	assert_true(percentile_sorted(v, 4, 75) == 3);
	assert_true(percentile_sorted(v, 4, 76) == 4);
}

static void test_median_leaves_input_unsorted(UNIT_STATE)
{
	double v[] = {9, 1, 5};
	assert_true(stats_median(v, 3) == 5);
	assert_true(v[0] == 9 && v[1] == 1 && v[2] == 5);
}

static void test_median_of_even_count_is_mean_of_middle_two(UNIT_STATE)
{
	double v[] = {4, 1, 3, 2};
	assert_true(stats_median(v, 4) == 2.5);
	assert_true(stats_median(v, 1) == 4);
	assert_true(stats_median(NULL, 0) == 0);
	/* a NaN is a value that could not be read: left out, never sorted in as a number */
	double u[] = {NAN, 7, 1, NAN, 3};
	assert_true(stats_median(u, 5) == 3);
	double none[] = {NAN, NAN};
	assert_true(isnan(stats_median(none, 2)));
}

static void test_median_of_more_than_256_values(UNIT_STATE)
{
	double v[1001];
	for (int i = 0; i < 1001; i++)
		v[i] = 1000 - i; /* 1000 .. 0 */
	assert_true(stats_median(v, 1001) == 500);
	assert_true(stats_median(v, 1000) == 500.5); /* 1000 .. 1: middle 501 and 500 */
	assert_true(v[0] == 1000);
}

static void test_mw_rank_exact_for_small_counts(UNIT_STATE)
{
	double level = -1;
	/* 3 and 3: the smallest two-sided p is 2/20 = 0.1: no 95% interval */
	assert_int_equal(stats_mw_rank(3, 3, 0.95, &level), 0);
	assert_true(level == 0);
	/* 4 and 4: P(U <= 0) = 1/70: [min, max] at 1 - 2/70 */
	assert_int_equal(stats_mw_rank(4, 4, 0.95, &level), 1);
	assert_near(level, 1 - 2.0 / 70, 1e-12);
	/* 5 and 5: P(U <= 2) = 4/252 (U critical 2, as the tables give) */
	assert_int_equal(stats_mw_rank(5, 5, 0.95, &level), 3);
	assert_near(level, 1 - 8.0 / 252, 1e-12);
	/* 6 and 6: P(U <= 5) = 19/924 */
	assert_int_equal(stats_mw_rank(6, 6, 0.95, &level), 6);
	assert_near(level, 1 - 38.0 / 924, 1e-12);
	/* unequal counts: 4 and 6, 3 and 8 */
	assert_int_equal(stats_mw_rank(4, 6, 0.95, &level), 3);
	assert_near(level, 1 - 8.0 / 210, 1e-12);
	assert_int_equal(stats_mw_rank(3, 8, 0.95, NULL), 3);
	/* 64 and 64: normal approximation K ~ 2048 - 1.96 * sqrt(4096 * 129 / 12) = 1637 */
	int k = stats_mw_rank(64, 64, 0.95, &level);
	assert_in_range(k, 1630, 1644);
	assert_true(level >= 0.95 && level < 0.951);
}

static void test_mw_rank_refuses_bad_counts(UNIT_STATE)
{
	assert_int_equal(stats_mw_rank(0, 5, 0.95, NULL), -EINVAL);
	assert_int_equal(stats_mw_rank(5, 65, 0.95, NULL), -EINVAL);
	assert_int_equal(stats_mw_rank(5, 5, 1.0, NULL), -EINVAL);
	assert_int_equal(stats_mw_rank(5, 5, 0, NULL), -EINVAL);
}

static void test_ratio_ci_exact_bounds(UNIT_STATE)
{
	/* 25 ratios y/x: K = 3, so the 3rd smallest and the 3rd largest */
	double x[] = {100, 104, 98, 110, 101}, y[] = {120, 118, 131, 125, 119};
	struct ratio_ci ci;
	assert_int_equal(stats_ratio_ci(x, 5, y, 5, 0.95, &ci), 0);
	assert_true(ci.ok);
	assert_near(ci.lo, 120.0 / 110, 1e-12);
	assert_near(ci.hi, 131.0 / 101, 1e-12);
	assert_near(ci.est, 131.0 / 110, 1e-12); /* the 13th of 25 */
	assert_near(ci.level, 1 - 8.0 / 252, 1e-12);
	assert_int_equal(stats_ci_call(&ci, 0.10), CI_ABOVE);
	/* the other way round: the reciprocal interval */
	assert_int_equal(stats_ratio_ci(y, 5, x, 5, 0.95, &ci), 0);
	assert_near(ci.lo, 101.0 / 131, 1e-12);
	assert_near(ci.hi, 110.0 / 120, 1e-12);
	assert_int_equal(stats_ci_call(&ci, 0.10), CI_BELOW);
	/* inputs are left as they were */
	assert_true(x[0] == 100 && x[3] == 110 && y[2] == 131);
}

static void test_ratio_ci_too_few_spans_and_noise(UNIT_STATE)
{
	struct ratio_ci ci;
	double a[] = {10, 11, 12}, b[] = {30, 31, 32};
	/* 3 and 3: an estimate but no interval, however clear the difference */
	assert_int_equal(stats_ratio_ci(a, 3, b, 3, 0.95, &ci), 0);
	assert_false(ci.ok);
	assert_near(ci.est, 31.0 / 11, 1e-12);
	assert_true(ci.lo == 0 && ci.hi == 0);
	assert_int_equal(stats_ci_call(&ci, 0.10), CI_TOO_FEW);
	/* 4 and 4: an interval (LO..HI; an apart row only above 1), called against +-10% */
	static const struct {
		const char *name;
		double x[4], y[4], lo, hi;
		bool apart;
		enum ci_call call;
	} c[] = {
		{"overlapping, tight: spans 1 inside +-10%",
		 {100, 101, 102, 103},
		 {100.5, 101.5, 102.5, 99.5},
		 99.5 / 103,
		 102.5 / 100,
		 false,
		 CI_WITHIN},
		{"tight and apart, but by less than the resolution: within, not above (a 0.2% gap)",
		 {1000, 1000.1, 1000.2, 1000.3},
		 {1002, 1002.1, 1002.2, 1002.3},
		 0,
		 0,
		 true,
		 CI_WITHIN},
		{"overlapping, wide: -15% .. +40% hides any answer",
		 {100, 140, 90, 120},
		 {110, 95, 150, 100},
		 95.0 / 140,
		 150.0 / 90,
		 false,
		 CI_TOO_WIDE},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		const char *row = c[i].name;
		unit_row_int(row, "stats_ratio_ci", stats_ratio_ci(c[i].x, 4, c[i].y, 4, 0.95, &ci),
			     0);
		if (c[i].apart) {
			assert_row(row, ci.ok && ci.lo > 1);
		} else {
			assert_row(row, fabs(ci.lo - c[i].lo) <= 1e-12);
			assert_row(row, fabs(ci.hi - c[i].hi) <= 1e-12);
		}
		unit_row_int(row, "stats_ci_call", stats_ci_call(&ci, 0.10), c[i].call);
	}
	/* even count of ratios: geometric mean of the middle two */
	double u[] = {1, 4}, v[] = {2};
	assert_int_equal(stats_ratio_ci(u, 2, v, 1, 0.95, &ci), 0);
	assert_near(ci.est, 1.0, 1e-12); /* sqrt(0.5 * 2) */
}

static void test_ratio_ci_refuses_bad_values(UNIT_STATE)
{
	struct ratio_ci ci;
	double good[] = {1, 2, 3, 4}, zero[] = {1, 0, 3, 4}, neg[] = {1, 2, -3, 4};
	double nan[] = {1, 2, NAN, 4};
	assert_int_equal(stats_ratio_ci(good, 4, zero, 4, 0.95, &ci), -EINVAL);
	assert_int_equal(stats_ratio_ci(neg, 4, good, 4, 0.95, &ci), -EINVAL);
	assert_int_equal(stats_ratio_ci(good, 4, nan, 4, 0.95, &ci), -EINVAL);
	assert_int_equal(stats_ratio_ci(good, 0, good, 4, 0.95, &ci), -EINVAL);
	assert_false(ci.ok);
}

static void test_diff_ci_exact_bounds(UNIT_STATE)
{
	struct ratio_ci ci;
	/* 5 and 5 at 0.95: K = 3 (as the ratio test); differences y - x */
	double x[] = {10, 11, 12, 13, 14}, y[] = {20, 21, 22, 23, 24};
	assert_int_equal(stats_diff_ci(x, 5, y, 5, 0.95, &ci), 0);
	assert_true(ci.ok);
	assert_near(ci.est, 10, 1e-12);
	/* the 25 differences 6..14: third smallest 7, third largest 13 */
	assert_near(ci.lo, 7, 1e-12);
	assert_near(ci.hi, 13, 1e-12);
	/* negative shifts and zero values are fine (not ratios) */
	assert_int_equal(stats_diff_ci(y, 5, x, 5, 0.95, &ci), 0);
	assert_near(ci.est, -10, 1e-12);
	assert_near(ci.lo, -13, 1e-12);
	double z[] = {0, 0, 0};
	assert_int_equal(stats_diff_ci(z, 3, z, 3, 0.95, &ci), 0);
	assert_false(ci.ok); /* 3 and 3: no interval at 95% */
	assert_near(ci.est, 0, 1e-12);
	double nan[] = {1, NAN};
	assert_int_equal(stats_diff_ci(x, 5, nan, 2, 0.95, &ci), -EINVAL);
	assert_int_equal(stats_diff_ci(x, 0, y, 5, 0.95, &ci), -EINVAL);
}

static void test_t95_table_and_series(UNIT_STATE)
{
	assert_true(stats_t95(0) == 0);
	assert_near(stats_t95(1), 12.7062, 1e-4);
	assert_near(stats_t95(3), 3.1824, 1e-4);
	assert_near(stats_t95(13), 2.1604, 1e-4);
	assert_near(stats_t95(30), 2.0423, 1e-4);
	/* the series beyond the table, against published quantiles */
	assert_near(stats_t95(40), 2.0211, 1e-3);
	assert_near(stats_t95(60), 2.0003, 1e-3);
	assert_near(stats_t95(120), 1.9799, 1e-3);
	assert_near(stats_t95(100000), 1.9600, 1e-3);
}

static void test_linfit_textbook_and_exact(UNIT_STATE)
{
	struct linfit f;
	/* y = 2.2 + 0.6 x, SSE 2.4, s^2 0.8, Sxx 10: slope 0.6 +- 3.1824 * sqrt(0.08) */
	static const double x[5] = {1, 2, 3, 4, 5}, y[5] = {2, 4, 5, 4, 5};
	assert_int_equal(stats_linfit(x, y, 5, &f), 0);
	assert_true(f.ok);
	assert_near(f.a, 2.2, 1e-12);
	assert_near(f.b, 0.6, 1e-12);
	assert_near(f.s, sqrt(0.8), 1e-12);
	assert_near(f.var_b, 0.08, 1e-12);
	assert_near(f.var_a, 0.8 * (0.2 + 9.0 / 10), 1e-12);
	assert_near(f.cov_ab, -0.8 * 3 / 10, 1e-12);
	assert_near(f.b_lo, -0.300119, 1e-6);
	assert_near(f.b_hi, 1.500119, 1e-6);
	/* an exact line: a zero-width interval, and the ratio (a + b) / a exactly */
	static const double y2[5] = {3, 5, 7, 9, 11};
	assert_int_equal(stats_linfit(x, y2, 5, &f), 0);
	assert_near(f.a, 1, 1e-12);
	assert_near(f.b, 2, 1e-12);
	assert_near(f.b_hi - f.b_lo, 0, 1e-9);
	struct ratio_ci r;
	stats_linfit_rel(&f, &r);
	assert_true(r.ok);
	assert_near(r.est, 3, 1e-12);
	assert_near(r.lo, 3, 1e-6);
	assert_near(r.hi, 3, 1e-6);
}

static void test_linfit_refuses_what_cannot_fit(UNIT_STATE)
{
	struct linfit f;
	static const double x[3] = {1, 1, 1}, y[3] = {1, 2, 3};
	assert_int_equal(stats_linfit(x, y, 3, &f), 0);
	assert_false(f.ok); /* no spread in x */
	assert_int_equal(stats_linfit(y, x, 2, &f), 0);
	assert_false(f.ok); /* two points: no degrees of freedom */
	const double bad[3] = {1, NAN, 3};
	assert_int_equal(stats_linfit(bad, y, 3, &f), -EINVAL);
	struct ratio_ci r;
	stats_linfit_rel(&f, &r);
	assert_false(r.ok);
	/* an intercept not clear of 0: Fieller's interval is unbounded, none given */
	static const double x2[4] = {0, 1, 2, 3}, y2[4] = {0.1, -0.2, 0.3, 0.0};
	assert_int_equal(stats_linfit(x2, y2, 4, &f), 0);
	assert_true(f.ok);
	stats_linfit_rel(&f, &r);
	assert_false(r.ok);
}

UNIT_TESTS(test_summary_odd, test_summary_even, test_summary_one_and_ties, test_summary_empty,
	   test_percentiles_nearest_rank, test_percentile_sorted_edges,
	   test_median_leaves_input_unsorted, test_median_of_even_count_is_mean_of_middle_two,
	   test_median_of_more_than_256_values, test_mw_rank_exact_for_small_counts,
	   test_mw_rank_refuses_bad_counts, test_ratio_ci_exact_bounds,
	   test_ratio_ci_too_few_spans_and_noise, test_ratio_ci_refuses_bad_values,
	   test_diff_ci_exact_bounds, test_t95_table_and_series, test_linfit_textbook_and_exact,
	   test_linfit_refuses_what_cannot_fit)
