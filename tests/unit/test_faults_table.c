// SPDX-License-Identifier: MIT
/* Unit tests: src/lab/faults_table.c (lab faults' table, proofs and verdict). */
#include "unit.h"

#include "lab/faults_table.h"

static struct lab_result res;
static struct mode_res modes[MODE_NMODES];
static const enum lab_mode asked[] = {MODE_MADV, MODE_PLAIN, MODE_NOHUGE};

/* MR: N runs of 64 chunks, HUGE of them huge, each run's median and p99 from MED and P99 (ns). */
static void mode(struct mode_res *mr, int n, double huge, const double *med, const double *p99)
{
	memset(mr, 0, sizeof(*mr));
	mr->n = n;
	for (int k = 0; k < n; k++) {
		mr->st[ST_MED][k] = med[k];
		mr->st[ST_P90][k] = med[k] * 1.2;
		mr->st[ST_P99][k] = p99[k];
		mr->st[ST_MAX][k] = p99[k];
		mr->huge[k] = huge;
		mr->fallback[k] = 64 - huge;
	}
	mr->pooled = (struct summary){.n = (size_t)n * 64, .median = med[0], .p99 = p99[0]};
}

static const struct lab_proof *proof(const char *key)
{
	for (int i = 0; i < res.nproofs; i++)
		if (!strcmp(res.proofs[i].key, key))
			return &res.proofs[i];
	return NULL;
}

static int col(const char *name)
{
	for (int c = 0; c < res.ncols; c++)
		if (!strcmp(res.cols[c].name, name))
			return c;
	return -1;
}

/*
 * One unit and one statistic in the table, the proof and the verdict. Before,
 * the table said "median ms 0.12 (0.11-3.66)" beside a proof of "118 µs ..
 * 3.7 ms" and a verdict of "118 µs", and the proof's "64/64 chunks huge" was
 * the last run's beside the table's median over runs.
 */
static void test_table_proof_and_verdict_say_one_statistic_in_one_unit(UNIT_STATE)
{
	static const double ma_med[] = {112e3, 118e3, 3660e3}, ma_p99[] = {420e3, 4200e3, 210e3};
	static const double pl_med[] = {5610e3, 5390e3, 5800e3},
			    pl_p99[] = {9640e3, 11.8e6, 16.1e6};
	static const double nh_med[] = {5500e3, 5270e3, 6190e3},
			    nh_p99[] = {7050e3, 10.2e6, 13.7e6};
	mode(&modes[MODE_MADV], 3, 64, ma_med, ma_p99);
	mode(&modes[MODE_PLAIN], 3, 0, pl_med, pl_p99);
	mode(&modes[MODE_NOHUGE], 3, 0, nh_med, nh_p99);
	modes[MODE_MADV].huge[2] = 60; /* the last run fell back 4 times: the median stays 64 */
	memset(&res, 0, sizeof(res));
	faults_table(&res, asked, 3, modes, 64, "madvise", false, 0);
	assert_string_equal(res.cols[0].unit, "ms"); /* a p99 reached a millisecond */
	assert_int_equal(res.nrows, 3);
	const struct lab_cell *c = &res.rows[0].c[col("median")];
	assert_true(c->present);
	assert_true(c->median > 0.1179 && c->median < 0.1181);
	const struct lab_proof *p = proof("madv");
	assert_non_null(p);
	/* the table's cell, printed as the table prints it, in the proof */
	assert_non_null(strstr(p->value, "median chunk 0.12 ms (0.11-3.66)"));
	assert_non_null(strstr(p->value, "p99 0.42 ms (0.21-4.20)"));
	assert_non_null(strstr(p->value, "THP: 64 of 64 chunks huge"));
	assert_non_null(strstr(p->value, "the median over 3 runs, as in the table"));
	assert_non_null(strstr(p->value, "a run's p99 is its slowest chunk"));
	assert_non_null(strstr(proof("madv pooled")->value, "another statistic"));
	assert_non_null(strstr(res.verdict, "madv THP (64/64 chunks huge): median chunk 0.12 ms, "
					    "p99 0.42 ms"));
	assert_non_null(strstr(res.verdict, "plain base pages (0/64 chunks huge), enabled=madvise: "
					    "median 5.61 ms"));
	assert_null(strstr(res.verdict, "µs"));
	assert_true(res.expected);
}

/*
 * A row worse in its p99 than nohuge's is flagged, the runs' interval saying
 * whether beyond their spread; a row not worse is not.
 */
static void test_a_tail_worse_than_base_pages_is_flagged(UNIT_STATE)
{
	static const double med[] = {100e3, 110e3, 105e3, 98e3, 102e3};
	static const double worse[] = {30e6, 28e6, 35e6, 31e6, 29e6};
	static const double base[] = {10e6, 11e6, 9e6, 10.5e6, 9.5e6};
	static const double near[] = {10.6e6, 9.2e6, 11.2e6, 10.1e6, 9.8e6};
	mode(&modes[MODE_MADV], 5, 64, med, worse);
	mode(&modes[MODE_PLAIN], 5, 0, med, near);
	mode(&modes[MODE_NOHUGE], 5, 0, med, base);
	memset(&res, 0, sizeof(res));
	faults_table(&res, asked, 3, modes, 64, "madvise", false, 0);
	assert_non_null(strstr(res.verdict, "tail flagged: madv p99 30 ms over nohuge's 10 ms "
					    "(3.00x; 95% CI "));
	assert_non_null(strstr(res.verdict, "x: worse than base pages)"));
	assert_non_null(strstr(res.verdict, "tail flagged: plain p99 10.1 ms over nohuge's 10 ms "
					    "(1.01x; 95% CI "));
	assert_non_null(strstr(res.verdict, "x: within the runs' spread)"));
	int t = col("p99 vs nohuge");
	assert_true(t >= 0);
	assert_true(res.rows[0].c[t].median > 2.99 && res.rows[0].c[t].median < 3.01);
	assert_true(res.rows[2].c[t].median == 1);
	/* nothing above the baseline: no flag */
	mode(&modes[MODE_MADV], 5, 64, med, base);
	mode(&modes[MODE_PLAIN], 5, 0, med, base);
	memset(&res, 0, sizeof(res));
	faults_table(&res, asked, 3, modes, 64, "madvise", false, 0);
	assert_null(strstr(res.verdict, "tail flagged"));
}

/* Every mode asked for has its row, in the order asked; one that did not run is "-" and said. */
static void test_every_mode_asked_for_is_a_row(UNIT_STATE)
{
	static const double med[] = {100e3, 110e3, 105e3}, p99[] = {200e3, 210e3, 220e3};
	mode(&modes[MODE_MADV], 3, 40, med, p99); /* 40 of 64 huge: mixed */
	memset(&modes[MODE_PLAIN], 0, sizeof(modes[MODE_PLAIN]));
	mode(&modes[MODE_NOHUGE], 3, 0, med, p99);
	memset(&res, 0, sizeof(res));
	faults_table(&res, asked, 3, modes, 64, "madvise", false, 0);
	assert_int_equal(res.nrows, 3);
	assert_string_equal(res.rows[0].label, "madv");
	assert_string_equal(res.rows[1].label, "plain");
	assert_string_equal(res.rows[2].label, "nohuge");
	for (int c = 0; c < res.ncols; c++)
		assert_false(res.rows[1].c[c].present);
	assert_string_equal(proof("plain")->value, "no run completed (see the run proofs)");
	assert_true(res.partial);
	assert_false(res.expected);
	assert_non_null(strstr(proof("madv")->value, "mixed: 40 of 64 chunks huge"));
	assert_string_equal(res.cols[0].unit, "µs");
}

UNIT_TESTS(test_table_proof_and_verdict_say_one_statistic_in_one_unit,
	   test_a_tail_worse_than_base_pages_is_flagged, test_every_mode_asked_for_is_a_row)
