// SPDX-License-Identifier: MIT
/* Unit tests: the pure builders of src/lab/lab.c. */
#include "unit.h"

#include <math.h>

#include "lab/lab.h"
#include "util/stats.h"

/* struct lab_result is large (rows x cells): keep it off the stack. */
static struct lab_result res;

static void test_col_add_limits(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	for (int i = 0; i < LAB_MAX_COLS; i++) {
		char name[16];
		snprintf(name, sizeof(name), "c%d", i);
		assert_int_equal(lab_col_add(&res, name, i % 2 ? "ms" : NULL), i);
	}
	assert_int_equal(res.ncols, LAB_MAX_COLS);
	assert_int_equal(lab_col_add(&res, "one too many", "kB"), -1);
	assert_int_equal(res.ncols, LAB_MAX_COLS);
	assert_string_equal(res.cols[0].name, "c0");
	assert_string_equal(res.cols[0].unit, ""); /* NULL unit: none */
	assert_string_equal(res.cols[1].unit, "ms");

	/* a name or unit longer than its field is refused, not cut (a cut name was a JSON
	 * key no reader expected: wl_shrinker.sh's KeyError); the longest that fits is kept */
	memset(&res, 0, sizeof(res));
	const char *longname = "a_column_name_much_longer_than_thirty_one_characters";
	assert_int_equal(lab_col_add(&res, longname, "ms"), -1);
	assert_int_equal(res.ncols, 0);
	assert_int_equal(lab_col_add(&res, "x", "unit-too-long-here-and-more-of-it"), -1);
	assert_int_equal(res.ncols, 0);
	char fits[sizeof(res.cols[0].name)];
	memset(fits, 'n', sizeof(fits) - 1);
	fits[sizeof(fits) - 1] = '\0';
	assert_int_equal(lab_col_add(&res, fits, "ms"), 0);
	assert_string_equal(res.cols[0].name, fits);
}

static void test_row_add_limits(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	lab_col_add(&res, "x", "");
	for (int i = 0; i < LAB_MAX_ROWS; i++) {
		char label[16];
		snprintf(label, sizeof(label), "r%d", i);
		assert_int_equal(lab_row_add(&res, label), i);
	}
	assert_int_equal(lab_row_add(&res, "full"), -1);
	assert_int_equal(res.nrows, LAB_MAX_ROWS);
	assert_string_equal(res.rows[LAB_MAX_ROWS - 1].label, "r15");

	/* a new row starts empty, even over an old row's memory */
	memset(&res, 0, sizeof(res));
	memset(res.rows, 0x7f, sizeof(res.rows[0]));
	int r = lab_row_add(&res, "a label that is much longer than the thirty-nine chars");
	assert_int_equal(r, 0);
	assert_false(res.rows[0].c[0].present);
	assert_false(res.rows[0].c[LAB_MAX_COLS - 1].present);
	assert_int_equal(strlen(res.rows[0].label), sizeof(res.rows[0].label) - 1);
}

static void test_cell_set(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	int c = lab_col_add(&res, "time", "ms");
	int c2 = lab_col_add(&res, "faults", "");
	int r = lab_row_add(&res, "madv");
	double v[] = {3, 1, 2, 10};
	lab_cell_set(&res, r, c, v, 4);
	const struct lab_cell *x = &res.rows[r].c[c];
	assert_true(x->present);
	assert_true(x->median == 2.5);
	assert_true(x->min == 1 && x->max == 10);
	assert_true(x->range);
	/* the caller's samples are left as they were */
	assert_true(v[0] == 3 && v[1] == 1 && v[2] == 2 && v[3] == 10);

	/* one value: no range */
	lab_cell_set1(&res, r, c2, 42);
	x = &res.rows[r].c[c2];
	assert_true(x->present && !x->range);
	assert_true(x->median == 42 && x->min == 42 && x->max == 42);

	/* 64 runs (the most --runs allows) */
	double many[64];
	for (int i = 0; i < 64; i++)
		many[i] = 64 - i;
	lab_cell_set(&res, r, c, many, 64);
	x = &res.rows[r].c[c];
	assert_true(x->median == 32.5 && x->min == 1 && x->max == 64);
	assert_false(res.partial);

	/* a counter a run could not read (shot_delta's NaN): left out, the result partial;
	 * none read: no cell ("-", JSON null), never a median of 0 */
	double some[] = {NAN, 4, 6};
	int r2 = lab_row_add(&res, "plain");
	lab_cell_set(&res, r2, c, some, 3);
	x = &res.rows[r2].c[c];
	assert_true(x->present && x->median == 5 && x->min == 4 && x->max == 6);
	assert_true(res.partial);
	double none[] = {NAN, NAN};
	lab_cell_set(&res, r2, c2, none, 2);
	assert_false(res.rows[r2].c[c2].present);
}

static void test_cell_set_ignored(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	int c = lab_col_add(&res, "time", "ms");
	int r = lab_row_add(&res, "plain");
	double v[] = {1, 2};
	/* no samples: the cell stays absent */
	lab_cell_set(&res, r, c, v, 0);
	assert_false(res.rows[r].c[c].present);
	/* -1 from a full table, or indexes past what was added: nothing written */
	lab_cell_set(&res, -1, c, v, 2);
	lab_cell_set(&res, r, -1, v, 2);
	lab_cell_set(&res, r + 1, c, v, 2);
	lab_cell_set(&res, r, c + 1, v, 2);
	lab_cell_set(&res, LAB_MAX_ROWS, c, v, 2);
	lab_cell_set1(&res, r, LAB_MAX_COLS, 5);
	assert_false(res.rows[r].c[c].present);
	assert_false(res.rows[r].c[c + 1].present);
	assert_false(res.rows[r + 1].c[c].present);
}

static void test_proofs_and_verdicts(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	for (int i = 0; i < LAB_MAX_PROOFS + 3; i++)
		lab_proof(&res, "k", "value %d", i);
	assert_int_equal(res.nproofs, LAB_MAX_PROOFS);
	assert_string_equal(res.proofs[LAB_MAX_PROOFS - 1].value, "value 31");
	char big[sizeof(res.proofs[0].value) + 16];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memset(&res, 0, sizeof(res));
	lab_proof(&res, "long", "%s", big);
	assert_int_equal(strlen(res.proofs[0].value), sizeof(res.proofs[0].value) - 1);
	assert_string_equal(res.proofs[0].value + sizeof(res.proofs[0].value) - 4, "...");

	/* a verdict past its buffer ends in "...": never cut silently */
	char huge_v[LAB_VERDICT_LEN + 100];
	memset(huge_v, 'v', sizeof(huge_v) - 1);
	huge_v[sizeof(huge_v) - 1] = '\0';
	lab_verdict(&res, true, "%s", huge_v);
	assert_int_equal(strlen(res.verdict), sizeof(res.verdict) - 1);
	assert_string_equal(res.verdict + sizeof(res.verdict) - 4, "...");
	/* ... after a whole UTF-8 character: "µ" (2 bytes) straddling the cut is dropped whole */
	memset(huge_v, 'v', sizeof(huge_v) - 1);
	memcpy(huge_v + sizeof(res.verdict) - 5, "\xc2\xb5", 2);
	lab_verdict(&res, true, "%s", huge_v);
	assert_string_equal(res.verdict + sizeof(res.verdict) - 6, "v...");
	lab_verdict(&res, false, "UNEXPECTED: %d", 7);
	assert_false(res.expected);
	assert_false(res.skipped);
	assert_string_equal(res.verdict, "UNEXPECTED: 7");
	lab_skip(&res, "needs root: %s", "mthp");
	assert_true(res.skipped);
	assert_true(res.expected);
	assert_string_equal(res.verdict, "needs root: mthp");
}

static void test_names_and_table(UNIT_STATE)
{
	assert_string_equal(lab_mode_name(MODE_PLAIN), "plain");
	assert_string_equal(lab_mode_name(MODE_COLLAPSE), "collapse");
	assert_string_equal(lab_mode_name(MODE_NMODES), "?");
	assert_string_equal(lab_state_name(STATE_WARM), "warm");
	assert_string_equal(lab_state_name(STATE_COLD), "cold");
	assert_string_equal(lab_state_name(STATE_ASIS), "asis");
	assert_non_null(lab_find("khugepaged"));
	assert_string_equal(lab_find("mthp")->name, "mthp");
	assert_null(lab_find("quick")); /* a pseudo-experiment, not in the table */
	assert_null(lab_find(""));
	/* names are unique and fit struct lab_result.experiment; orders ascend strictly */
	size_t n = 0;
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x), n++) {
		assert_true(strlen(x->name) < sizeof(res.experiment));
		assert_ptr_equal(lab_find(x->name), x);
		assert_non_null(x->fn);
		assert_true(x->help && x->help[0]);
		if (lab_next(x))
			assert_true(lab_next(x)->order > x->order);
	}
	assert_int_equal(n, lab_count());
}

static void test_table_is_the_twelve_experiments_in_order(UNIT_STATE)
{
	char names[256] = "";
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x))
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 names[0] ? " " : "", x->name);
	assert_string_equal(
		names,
		"touch sparse chase tlb fork faults split collapse mthp khugepaged "
		"fallback fragment redis fileread postgres matmul iouring allocators shrinker");
}

static void test_quick_mode_defaults_live_in_the_entries(UNIT_STATE)
{
	char quick[256] = "";
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x))
		if (x->in_quick)
			snprintf(quick + strlen(quick), sizeof(quick) - strlen(quick), "%s%s",
				 quick[0] ? " " : "", x->name);
	assert_string_equal(quick, "touch sparse chase fork faults split collapse mthp khugepaged");
	assert_int_equal(lab_find("khugepaged")->quick.size, 64ull << 20);
	/* quick sizes: 128 MiB where base-page faults are the cost (touch, fork, faults, split, collapse) */
	assert_int_equal(lab_find("touch")->quick.size, 128ull << 20);
	assert_int_equal(lab_find("collapse")->quick.size, 128ull << 20);
	/* chase at 1 GiB: at 256 MiB the effect was within this host's noise */
	assert_int_equal(lab_find("chase")->quick.size, 1ull << 30);
	/* no fixed steps: calibrated to a CPU time per measurement (exp_chase.c) */
	assert_int_equal(lab_find("chase")->quick.steps, 0);
	assert_int_equal(lab_find("mthp")->quick.mthp_kb, 64);
	assert_int_equal(lab_find("sparse")->quick.size, 256ull << 20);
	assert_true(lab_find("chase")->size_list);
	assert_false(lab_find("touch")->size_list);
	assert_true(lab_find("touch")->all_cold && lab_find("faults")->all_cold);
	assert_false(lab_find("fork")->all_cold);
}

static void test_experiment_options_are_long_flags_with_help(UNIT_STATE)
{
	int count = 0;
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x))
		for (int k = 0; k < LAB_MAX_OPTDOCS && x->opts[k].flag; k++, count++) {
			assert_memory_equal(x->opts[k].flag, "--", 2);
			assert_true(x->opts[k].help && x->opts[k].help[0]);
		}
	/* steps (chase, tlb), fragment (twice), reclaim, sparse, sizes, timeout, scan-sleep, max-ptes-none */
	assert_int_equal(count, 10);
}

static void test_quick_opts_fill_only_what_the_command_line_left_open(UNIT_STATE)
{
	struct lab_opts o = {.runs = 3};
	struct lab_opts e = lab_quick_opts(lab_find("chase"), &o);
	assert_int_equal(e.size, 1ull << 30);
	assert_int_equal(e.nsizes, 1);
	assert_int_equal(e.sizes[0], 1ull << 30);
	assert_int_equal(e.steps, 0);
	e = lab_quick_opts(lab_find("touch"), &o);
	assert_int_equal(e.size, 128ull << 20);
	assert_int_equal(e.nsizes, 0); /* only chase takes a list */
	e = lab_quick_opts(lab_find("mthp"), &o);
	assert_int_equal(e.n_mthp_sizes, 1);
	assert_int_equal(e.mthp_sizes_kb[0], 64);
	assert_int_equal(e.size, 0); /* its own 64 MiB */
	e = lab_quick_opts(lab_find("sparse"), &o);
	assert_int_equal(e.size, 256ull << 20);
	/* given on the command line: kept */
	struct lab_opts g = {.size = 8ull << 20, .nsizes = 1, .sizes = {8ull << 20}, .steps = 5000};
	g.mthp_sizes_kb[0] = 16;
	g.n_mthp_sizes = 1;
	e = lab_quick_opts(lab_find("chase"), &g);
	assert_int_equal(e.size, 8ull << 20);
	assert_int_equal(e.sizes[0], 8ull << 20);
	assert_int_equal(e.steps, 5000);
	e = lab_quick_opts(lab_find("mthp"), &g);
	assert_int_equal(e.mthp_sizes_kb[0], 16);
}

/*
 * The chase verdict from an interval: the percentage comes from the medians
 * printed beside it, the word from the interval. Before, a median of
 * per-run ratios said "as expected" for runs that were 7.9%, 14.6% and
 * 0.2% slower, and 14.0% beside medians 164.9 vs 193.6 ns (14.8%). An
 * interval that excludes 0 decides the direction even inside +-10% (before,
 * 1..3% faster read "no difference" and counted as unexpected), and an
 * undecided one says whether more runs would decide.
 */
static void test_faster_clause_words_follow_the_interval(UNIT_STATE)
{
	/* CI (none: NOCI) over N per backing at LEVEL after RUNS, the medians HUGE and SMALL ns */
	static const struct {
		const char *name;
		struct ratio_ci ci;
		bool noci;
		int n, runs;
		double level, huge, small;
		enum faster_call call;
		const char *text;
	} c[] = {
		{"small/huge 1.06 .. 1.25: huge 5.7% .. 20.0% faster",
		 {.ok = true, .level = 0.968, .est = 1.17, .lo = 1 / 0.943, .hi = 1.25},
		 false,
		 6,
		 3,
		 0.95,
		 164.9,
		 193.6,
		 FASTER_YES,
		 "faster (95% CI 5.7%..20.0%): huge 14.8% faster by the medians (164.9 vs 193.6 ns)"},
		{"all slower: the runs the old verdict called \"as expected\"",
		 {.ok = true, .est = 0.95, .lo = 1 / 1.146, .hi = 1 / 1.002},
		 false,
		 6,
		 3,
		 0.95,
		 210.0,
		 200.0,
		 FASTER_SLOWER,
		 "slower: unexpected (95% CI -14.6%..-0.2%): huge 5.0% slower by the medians (210.0 vs 200.0 ns)"},
		{"tight around 0",
		 {.ok = true, .est = 1.01, .lo = 0.98, .hi = 1.03},
		 false,
		 6,
		 3,
		 0.95,
		 100.0,
		 101.0,
		 FASTER_SAME,
		 "no difference beyond +-10% (95% CI -2.0%..2.9%): huge 1.0% faster by the medians (100.0 vs 101.0 ns)"},
		{"tight and apart by less than the resolution: faster, said as small (was \"no difference\")",
		 {.ok = true, .est = 1.02, .lo = 1.01, .hi = 1.03},
		 false,
		 6,
		 3,
		 0.95,
		 100.0,
		 102.0,
		 FASTER_YES,
		 "faster, by less than the 10% that matters (95% CI 1.0%..2.9%): huge 2.0% faster by the medians (100.0 vs 102.0 ns)"},
		{"the 256 MiB spread -14.6% .. +40.9% after 3 runs: ~103 runs would decide, past 32",
		 {.ok = true, .est = 1.07, .lo = 1 / 1.146, .hi = 1 / 0.591},
		 false,
		 6,
		 3,
		 0.95,
		 150.0,
		 160.0,
		 FASTER_NOISY,
		 "inconclusive: host too noisy (95% CI -14.6%..40.9% spans 0, wider than +-10%, after 3 runs; at this spread about 103 would decide, more than the 32 an interval takes): huge 6.2% faster by the medians (150.0 vs 160.0 ns)"},
		{"too wide after 4 runs, 7 would do: too few runs, not noise",
		 {.ok = true, .est = 1.12, .lo = 0.95, .hi = 1.25},
		 false,
		 8,
		 4,
		 0.95,
		 150.0,
		 168.0,
		 FASTER_FEW,
		 "inconclusive: too few runs for this spread (95% CI -5.3%..20.0% spans 0, wider than +-10%, after 4 runs; about 7 would decide: --runs 7): huge 10.7% faster by the medians (150.0 vs 168.0 ns)"},
		{"one run: 2 measurements per backing",
		 {.ok = false},
		 false,
		 2,
		 1,
		 0.95,
		 150.0,
		 160.0,
		 FASTER_FEW,
		 "inconclusive: too few runs for an interval (2 per backing; a 95% interval needs 4): huge 6.2% faster by the medians (150.0 vs 160.0 ns)"},
		{"sequential looks at 99.17% each: 6 per backing are needed, and it says so",
		 {.ok = false},
		 false,
		 4,
		 2,
		 1 - 0.05 / 6,
		 150.0,
		 160.0,
		 FASTER_FEW,
		 "inconclusive: too few runs for an interval (4 per backing; a 99.17% interval needs 5): huge 6.2% faster by the medians (150.0 vs 160.0 ns)"},
		{"no interval because a value was no time: not \"too few\", not \"noisy\"",
		 {0},
		 true,
		 6,
		 3,
		 0.95,
		 150.0,
		 160.0,
		 FASTER_BAD,
		 "inconclusive: no interval (a measurement was not a positive time): huge 6.2% faster by the medians (150.0 vs 160.0 ns)"},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		char out[LAB_CLAUSE_LEN];
		struct faster_in in = {.ci = c[i].noci ? NULL : &c[i].ci,
				       .per_side = (size_t)c[i].n,
				       .conf = c[i].level,
				       .huge_ns = c[i].huge,
				       .small_ns = c[i].small,
				       .r = 0.10,
				       .runs = c[i].runs,
				       .max_runs = 32};
		int call = lab_faster_clause(out, sizeof(out), &in);
		unit_row_int(c[i].name, "lab_faster_clause", call, c[i].call);
		unit_row_str(c[i].name, "the clause", out, c[i].text);
	}
}

/* The runs that would decide: the interval narrows as 1/sqrt(runs); none once it decides. */
static void test_runs_to_decide_is_an_estimate_from_the_spread(UNIT_STATE)
{
	/* half-width 0.15, 0.12 from 1 (its room: 0.12): 4 x (0.15/0.12)^2 = 6.25 -> 7 */
	struct ratio_ci ci = {.ok = true, .est = 1.12, .lo = 0.95, .hi = 1.25};
	assert_int_equal(lab_runs_to_decide(&ci, 4, 0.10), 7);
	/* est 1.05: 0.05 from 1 and from +10%: 4 x 9 = 36 */
	ci = (struct ratio_ci){.ok = true, .est = 1.05, .lo = 0.95, .hi = 1.25};
	assert_int_equal(lab_runs_to_decide(&ci, 4, 0.10), 36);
	ci.lo = 1.01; /* decided: nothing to estimate */
	assert_int_equal(lab_runs_to_decide(&ci, 4, 0.10), 0);
	ci = (struct ratio_ci){.ok = false};
	assert_int_equal(lab_runs_to_decide(&ci, 4, 0.10), 0);
	ci = (struct ratio_ci){.ok = true, .est = 1.05, .lo = 0.5, .hi = 3.0};
	assert_int_equal(lab_runs_to_decide(&ci, 32, 0.10), 10000); /* capped */
}

/* Rows that ran different counts: no one count for the experiment (JSON null), the range. */
static void test_runs_of_is_one_count_only_when_rows_agree(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	res.runs = 5;
	int lo, hi;
	assert_int_equal(lab_runs_of(&res, &lo, &hi), 5); /* no rows: the experiment's */
	int a = lab_row_add(&res, "256 MiB"), b = lab_row_add(&res, "1 GiB");
	assert_int_equal(lab_runs_of(&res, NULL, NULL), 5); /* rows without their own */
	res.rows[a].runs = 4;
	res.rows[b].runs = 4;
	assert_int_equal(lab_runs_of(&res, &lo, &hi), 4);
	res.rows[b].runs = 16;
	assert_int_equal(lab_runs_of(&res, &lo, &hi), -1);
	assert_int_equal(lo, 4);
	assert_int_equal(hi, 16);
}

/*
 * A claim stands on two rounds or more that agree. Before, `lab redis
 * --quick` called the p99 claim "contradicted: 1.04x" from one round, with
 * another Redis loading the host.
 */
static void test_claim_call_needs_two_agreeing_rounds(UNIT_STATE)
{
	char why[256];
	const double one[] = {1.04};
	assert_int_equal(lab_claim_call(one, 1, false, 1.5, 1.2, why, sizeof(why)),
			 CLAIM_INCONCLUSIVE);
	assert_non_null(strstr(why, "one round (1.04x)"));
	const double two_low[] = {1.04, 1.10};
	assert_int_equal(lab_claim_call(two_low, 2, false, 1.5, 1.2, why, sizeof(why)),
			 CLAIM_CONTRADICTED);
	assert_string_equal(why, "2 rounds agree (1.04x, 1.10x): confirmed at >= 1.50x, "
				 "contradicted at <= 1.20x");
	const double split[] = {1.04, 1.61};
	assert_int_equal(lab_claim_call(split, 2, false, 1.5, 1.2, why, sizeof(why)),
			 CLAIM_INCONCLUSIVE);
	assert_non_null(strstr(why, "the 2 rounds disagree (1.04x, 1.61x"));
	const double high[] = {1.61, 1.75, 1.52};
	assert_int_equal(lab_claim_call(high, 3, false, 1.5, 1.2, why, sizeof(why)),
			 CLAIM_CONFIRMED);
	/* lower confirms: fork 0.3x and 0.4x of never's */
	const double fork[] = {0.3, 0.4};
	assert_int_equal(lab_claim_call(fork, 2, true, 0.5, 0.9, why, sizeof(why)),
			 CLAIM_CONFIRMED);
	const double mid[] = {1.3, 1.4};
	assert_int_equal(lab_claim_call(mid, 2, false, 1.5, 1.2, why, sizeof(why)),
			 CLAIM_INCONCLUSIVE);
	assert_non_null(strstr(why, "each between the bounds"));
	const double gap[] = {1.61, -1};
	assert_int_equal(lab_claim_call(gap, 2, false, 1.5, 1.2, why, sizeof(why)),
			 CLAIM_INCONCLUSIVE);
	assert_string_equal(why, "not measured");
	assert_int_equal(lab_claim_call(NULL, 0, false, 1.5, 1.2, why, sizeof(why)),
			 CLAIM_INCONCLUSIVE);
}

/*
 * lab mthp: never "as expected" without a folio of the tested size in the
 * region. Before, with the PMD size at always, "as expected ... 64K 0/1024"
 * came with AnonHugePages 65536 kB and no 64K folio.
 */
static void test_mthp_call_needs_a_folio_of_the_size(UNIT_STATE)
{
	struct mthp_seen ok = {.folios_read = true,
			       .folios = 1024,
			       .expect = 1024,
			       .stats = true,
			       .min_alloc = 1100}; /* host-wide: others add to it */
	assert_int_equal(lab_mthp_call(&ok), MTHP_AS_EXPECTED);
	/* the case of the report: PMD size at always, no 64K folio, 32 PMDs */
	struct mthp_seen s = {.folios_read = true,
			      .expect = 1024,
			      .stats = true,
			      .ahp_kb = 65536,
			      .others_on = true};
	assert_int_equal(lab_mthp_call(&s), MTHP_NOT_TESTED);
	/* set aside: no folio and PMD-mapped is unexpected */
	s.others_on = false;
	assert_int_equal(lab_mthp_call(&s), MTHP_UNEXPECTED);
	/* no kpageflags: not tested, whatever the host-wide counters say */
	s = ok;
	s.folios_read = false;
	s.folios = 0;
	assert_int_equal(lab_mthp_call(&s), MTHP_NOT_TESTED);
	/* folios and fallbacks short of the region */
	s = ok;
	s.folios = 900;
	s.fallback = 100;
	assert_int_equal(lab_mthp_call(&s), MTHP_UNEXPECTED);
	s.fallback = 124;
	assert_int_equal(lab_mthp_call(&s), MTHP_AS_EXPECTED);
	/* the host-wide count below the region's own: the counters are not what they seem */
	s = ok;
	s.min_alloc = 1000;
	assert_int_equal(lab_mthp_call(&s), MTHP_UNEXPECTED);
	s.stats = false; /* no per-size stats (< 6.10): folios alone */
	assert_int_equal(lab_mthp_call(&s), MTHP_AS_EXPECTED);
	/* another size still at always, folios seen: tested, no exact shape */
	s = ok;
	s.others_on = true;
	s.folios = 10;
	assert_int_equal(lab_mthp_call(&s), MTHP_AS_EXPECTED);
}

/*
 * lab khugepaged: nothing concluded before a full scan. Before, "8 of 128
 * PMDs in 60 s" (cut off) and, at max_ptes_none 64, "nothing collapsed"
 * with full_scans +0 both read "as expected".
 */
static void test_kh_call_waits_for_a_full_scan(UNIT_STATE)
{
	struct kh_seen s = {.expect_collapse = true, .got = 8, .full_scans = 0};
	assert_int_equal(lab_kh_call(&s), KH_NO_FULL_SCAN);
	s.full_scans = 3; /* scanned, still going at the timeout */
	assert_int_equal(lab_kh_call(&s), KH_CUT_OFF);
	s.settled = true; /* a full pass after the last change changed nothing */
	assert_int_equal(lab_kh_call(&s), KH_PARTIAL_SETTLED);
	s = (struct kh_seen){.expect_collapse = true, .full = true, .got = 32, .full_scans = 1};
	assert_int_equal(lab_kh_call(&s), KH_FULL); /* nothing more can happen */
	/* max_ptes_none 64: forbidden; full_scans +0 is not "nothing collapsed" */
	s = (struct kh_seen){.expect_collapse = false, .full_scans = 0};
	assert_int_equal(lab_kh_call(&s), KH_NO_FULL_SCAN);
	s.full_scans = 1;
	s.settled = true; /* settled needs 2: one pass may have begun before the setup */
	assert_int_equal(lab_kh_call(&s), KH_NO_FULL_SCAN);
	s.full_scans = 2;
	assert_int_equal(lab_kh_call(&s), KH_NONE_SETTLED);
	s.got = 1;
	assert_int_equal(lab_kh_call(&s), KH_FORBIDDEN);
	/* max_ptes_none 511: two full scans and no collapse was "as expected" (factor 1.00x) */
	s = (struct kh_seen){.expect_collapse = true, .settled = true, .full_scans = 2};
	assert_int_equal(lab_kh_call(&s), KH_NONE_ALLOWED);
}

UNIT_TESTS(test_col_add_limits, test_row_add_limits, test_cell_set, test_cell_set_ignored,
	   test_proofs_and_verdicts, test_names_and_table,
	   test_table_is_the_twelve_experiments_in_order,
	   test_quick_mode_defaults_live_in_the_entries,
	   test_experiment_options_are_long_flags_with_help,
	   test_quick_opts_fill_only_what_the_command_line_left_open,
	   test_faster_clause_words_follow_the_interval,
	   test_runs_to_decide_is_an_estimate_from_the_spread,
	   test_runs_of_is_one_count_only_when_rows_agree,
	   test_claim_call_needs_two_agreeing_rounds, test_mthp_call_needs_a_folio_of_the_size,
	   test_kh_call_waits_for_a_full_scan)
