// SPDX-License-Identifier: MIT
/* Unit tests: src/lab/redis_verdict.c (lab redis's backing verdict, its words). */
#include "unit.h"

#include <string.h>

#include "lab/redis_verdict.h"

static const char *const label[REDIS_NMODES] = {"never (prctl)", "always, disable-thp yes",
						"always, disable-thp no", "madvise (control)",
						"madvise, jemalloc thp:always"};

static void test_backing_as_expected_and_unexpected(UNIT_STATE)
{
	char t[400];
	bool have[REDIS_NMODES] = {true, true, true, true, true};
	double ahp[REDIS_NMODES] = {0, 2048, 264192, 4096, 180224};
	assert_int_equal(redis_backing(label, have, ahp, t, sizeof(t)), REDIS_AS_EXPECTED);
	assert_string_equal(t, "AnonHugePages never 0, disable-thp yes 2048, no 264192, madvise "
			       "4096, madvise + jemalloc thp:always 180224 kB before the BGSAVE");
	ahp[0] = 2048; /* THP in the prctl'd server */
	assert_int_equal(redis_backing(label, have, ahp, t, sizeof(t)), REDIS_UNEXPECTED);
}

/* The review's case: redis-benchmark failed in every mode. No -1, no "backing" verdict. */
static void test_no_mode_ran_is_inconclusive(UNIT_STATE)
{
	char t[400];
	bool have[REDIS_NMODES] = {false, false, false, false, false};
	double ahp[REDIS_NMODES] = {-1, -1, -1, -1, -1};
	assert_int_equal(redis_backing(label, have, ahp, t, sizeof(t)), REDIS_INCONCLUSIVE);
	assert_string_equal(t, "inconclusive: no mode gave figures (each failed: see its proof); "
			       "AnonHugePages never -, disable-thp yes -, no -, madvise -, madvise "
			       "+ jemalloc thp:always - kB before the BGSAVE");
	assert_null(strstr(t, "-1"));
}

/* One mode failed, another's AnonHugePages unread (the others as expected): both named. */
static void test_a_failed_and_an_unread_mode_are_named(UNIT_STATE)
{
	char t[400];
	bool have[REDIS_NMODES] = {true, true, false, true, true};
	double ahp[REDIS_NMODES] = {0, 2048, 0 /* not used */, -1, 180224};
	assert_int_equal(redis_backing(label, have, ahp, t, sizeof(t)), REDIS_INCONCLUSIVE);
	assert_string_equal(
		t,
		"inconclusive: no figures from \"always, disable-thp no\" (failed: see the proofs); "
		"AnonHugePages not read for \"madvise (control)\"; AnonHugePages never 0, "
		"disable-thp yes 2048, no -, madvise -, madvise + jemalloc thp:always 180224 kB "
		"before the BGSAVE");
}

/* A mode missing does not hide one read that fails its own shape: THP in the prctl'd server. */
static void test_a_mode_read_that_fails_decides(UNIT_STATE)
{
	char t[400];
	bool have[REDIS_NMODES] = {true, true, true, false, true};
	double ahp[REDIS_NMODES] = {2048, 0, 264192, 0 /* not used */, 180224};
	assert_int_equal(redis_backing(label, have, ahp, t, sizeof(t)), REDIS_UNEXPECTED);
	assert_string_equal(t, "AnonHugePages never 2048, disable-thp yes 0, no 264192, madvise -, "
			       "madvise + jemalloc thp:always 180224 kB before the BGSAVE (no "
			       "figures from \"madvise (control)\" (failed: see the proofs))");
	/* the same with the failing figure as expected: inconclusive, as before */
	ahp[0] = 0;
	assert_int_equal(redis_backing(label, have, ahp, t, sizeof(t)), REDIS_INCONCLUSIVE);
}

static void test_no_thp_why_says_which(UNIT_STATE)
{
	assert_string_equal(redis_no_thp_why(false, -1),
			    "the always, disable-thp no mode gave no figures (it failed; see its "
			    "proof)");
	assert_string_equal(redis_no_thp_why(true, -1),
			    "the always, disable-thp no server's AnonHugePages was not read");
	assert_string_equal(redis_no_thp_why(true, 0),
			    "no THP in the always, disable-thp no server");
}

UNIT_TESTS(test_backing_as_expected_and_unexpected, test_no_mode_ran_is_inconclusive,
	   test_a_failed_and_an_unread_mode_are_named, test_a_mode_read_that_fails_decides,
	   test_no_thp_why_says_which)
