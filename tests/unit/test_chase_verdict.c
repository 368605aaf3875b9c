// SPDX-License-Identifier: MIT
/* Unit tests: src/lab/chase_verdict.c (lab chase's verdict over its sizes). */
#include "unit.h"

#include "lab/chase_verdict.h"
#include "lab/common.h"
#include "util/stats.h"

static struct lab_result res;
static struct chase_size_res sizes[LAB_MAX_SIZES];

/* The longest clause lab_faster_clause writes: noisy, far from 1, past the run cap. */
static void longest_clause(struct chase_size_res *s, uint64_t size)
{
	static const struct ratio_ci ci = {.ok = true, .est = 1.05, .lo = 0.00001, .hi = 1000};
	struct faster_in in = {.ci = &ci,
			       .per_side = 32,
			       .conf = 1 - 0.05 / 3,
			       .huge_ns = 99999.9,
			       .small_ns = 1.0,
			       .r = 0.10,
			       .runs = 16,
			       .max_runs = 32};
	memset(s, 0, sizeof(*s));
	s->size = size;
	s->ran = true;
	s->verified = true;
	s->huge = in.huge_ns;
	s->small = in.small_ns;
	s->runs = 16;
	s->call = lab_faster_clause(s->clause, sizeof(s->clause), &in);
}

/*
 * Eight sizes, each with the longest clause, every optional part on: the
 * verdict holds all eight whole and ends in its own last words. Before, the
 * clauses went through a 320-byte buffer into a 768-byte verdict: with 8
 * sizes it ended after two or three of them, the last cut mid-clause.
 */
static void test_eight_sizes_of_the_longest_clause_stay_whole(UNIT_STATE)
{
	for (int i = 0; i < LAB_MAX_SIZES; i++)
		longest_clause(&sizes[i], (16383ull << 20) + ((uint64_t)i << 21));
	assert_int_equal(sizes[0].call, FASTER_NOISY);
	assert_true(strlen(sizes[0].clause) > 200); /* the longest: over 200 bytes each */
	assert_true(strlen(sizes[0].clause) < LAB_CLAUSE_LEN - 1);
	sizes[3].verified = false; /* the longest prefix and tail */
	sizes[5].faults = 12;	   /* and the faults clause */
	memset(&res, 0, sizeof(res));
	chase_verdict(&res, sizes, LAB_MAX_SIZES, LAB_MAX_SIZES, true);
	size_t len = strlen(res.verdict);
	assert_true(len > (size_t)LAB_MAX_SIZES * 200);
	assert_true(len < sizeof(res.verdict) - 1);
	assert_null(strstr(res.verdict, "..."));
	for (int i = 0; i < LAB_MAX_SIZES; i++) { /* each size's clause, whole, in order */
		char want[LAB_CLAUSE_LEN + 32], sz[32];
		lab_fmt_size(sz, sizeof(sz), sizes[i].size);
		snprintf(want, sizeof(want), "%s at %s", sizes[i].clause, sz);
		assert_non_null(strstr(res.verdict, want));
	}
	assert_non_null(strstr(res.verdict, "12 page faults inside the timed walks"));
	const char *tail = "see the smaps proof: the timing does not compare huge with small";
	assert_string_equal(res.verdict + len - strlen(tail), tail);
	assert_false(res.expected);
}

/* One size per call: the headline, expected and inconclusive as the interval says. */
static void test_calls_decide_expected_and_inconclusive(UNIT_STATE)
{
	static const struct {
		const char *name;
		int call;
		bool guest;
		long faults;
		bool expected, inconclusive;
	} c[] = {
		{"faster", FASTER_YES, false, 0, true, false},
		{"slower", FASTER_SLOWER, false, 0, false, false},
		{"no difference on bare metal: unexpected", FASTER_SAME, false, 0, false, false},
		{"no difference in a guest: expected, and said why", FASTER_SAME, true, 0, true,
		 false},
		{"slower in a guest too", FASTER_SLOWER, true, 0, false, false},
		{"too few runs", FASTER_FEW, false, 0, false, true},
		{"noise", FASTER_NOISY, true, 0, false, true},
		{"no interval", FASTER_BAD, false, 0, false, true},
		{"faster, but the timing faulted", FASTER_YES, false, 3, false, true},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		memset(&res, 0, sizeof(res));
		memset(sizes, 0, sizeof(sizes));
		sizes[0] = (struct chase_size_res){.size = 1ull << 30,
						   .ran = true,
						   .verified = true,
						   .call = c[i].call,
						   .runs = 8,
						   .faults = c[i].faults};
		snprintf(sizes[0].clause, sizeof(sizes[0].clause), "CLAUSE");
		chase_verdict(&res, sizes, 1, 1, c[i].guest);
		unit_row_int(c[i].name, "expected", res.expected, c[i].expected);
		unit_row_int(c[i].name, "inconclusive", res.inconclusive, c[i].inconclusive);
		unit_row_int(c[i].name, "guest words", strstr(res.verdict, "a guest: ") != NULL,
			     c[i].guest && c[i].call == FASTER_SAME);
	}
	/* two sizes: the larger leads, unless the smaller was slower */
	memset(&res, 0, sizeof(res));
	sizes[0] = (struct chase_size_res){
		.size = 256ull << 20, .ran = true, .verified = true, .call = FASTER_SLOWER};
	sizes[1] = (struct chase_size_res){
		.size = 1ull << 30, .ran = true, .verified = true, .call = FASTER_YES};
	snprintf(sizes[0].clause, sizeof(sizes[0].clause), "A");
	snprintf(sizes[1].clause, sizeof(sizes[1].clause), "B");
	chase_verdict(&res, sizes, 2, 2, false);
	assert_string_equal(res.verdict, "slower: unexpected at 256 MiB. A at 256 MiB; B at 1 GiB; "
					 "backing verified in region smaps AnonHugePages before "
					 "timing");
	assert_false(res.expected);
}

UNIT_TESTS(test_eight_sizes_of_the_longest_clause_stay_whole,
	   test_calls_decide_expected_and_inconclusive)
