// SPDX-License-Identifier: MIT
/* Unit tests: src/util/stats.c (summaries, percentiles, median). */
#include "unit.h"

#include "util/stats.h"

static void test_summary_odd(void **state)
{
	(void)state;
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

static void test_summary_even(void **state)
{
	(void)state;
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

static void test_summary_one_and_ties(void **state)
{
	(void)state;
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

static void test_summary_empty(void **state)
{
	(void)state;
	struct summary s;
	memset(&s, 0x5a, sizeof(s));
	summarize(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(s.min == 0 && s.max == 0 && s.median == 0 && s.mean == 0);
	assert_true(s.p90 == 0 && s.p99 == 0);
	assert_true(percentile_sorted(NULL, 0, 50) == 0);
}

static void test_percentiles_nearest_rank(void **state)
{
	(void)state;
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

static void test_percentile_sorted_edges(void **state)
{
	(void)state;
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

static void test_median_leaves_input_unsorted(void **state)
{
	(void)state;
	double v[] = {9, 1, 5};
	assert_true(stats_median(v, 3) == 5);
	assert_true(v[0] == 9 && v[1] == 1 && v[2] == 5);
}

static void test_median_of_even_count_is_mean_of_middle_two(void **state)
{
	(void)state;
	double v[] = {4, 1, 3, 2};
	assert_true(stats_median(v, 4) == 2.5);
	assert_true(stats_median(v, 1) == 4);
	assert_true(stats_median(NULL, 0) == 0);
}

static void test_median_of_more_than_256_values(void **state)
{
	(void)state;
	double v[1001];
	for (int i = 0; i < 1001; i++)
		v[i] = 1000 - i; /* 1000 .. 0 */
	assert_true(stats_median(v, 1001) == 500);
	assert_true(stats_median(v, 1000) == 500.5); /* 1000 .. 1: middle 501 and 500 */
	assert_true(v[0] == 1000);
}

UNIT_MAIN(cmocka_unit_test(test_summary_odd), cmocka_unit_test(test_summary_even),
	  cmocka_unit_test(test_summary_one_and_ties), cmocka_unit_test(test_summary_empty),
	  cmocka_unit_test(test_percentiles_nearest_rank),
	  cmocka_unit_test(test_percentile_sorted_edges),
	  cmocka_unit_test(test_median_leaves_input_unsorted),
	  cmocka_unit_test(test_median_of_even_count_is_mean_of_middle_two),
	  cmocka_unit_test(test_median_of_more_than_256_values))
