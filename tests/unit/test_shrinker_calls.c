// SPDX-License-Identifier: MIT
/* Unit tests: src/lab/shrinker_calls.c (what lab shrinker concludes from its two measures). */
#include "unit.h"

#include "lab/shrinker_calls.h"

#include <errno.h>

static void test_split_call_needs_both_measures(UNIT_STATE)
{
	struct sh_phase p = {64, true, 32, 65536, 0, 32, true};
	assert_int_equal(sh_split_call(&p), CLAIM_CONFIRMED);
	p.split = 10; /* the counter disagrees with the process */
	assert_int_equal(sh_split_call(&p), CLAIM_INCONCLUSIVE);
	p = (struct sh_phase){511, true, 32, 65536, 65536, 0, true};
	assert_int_equal(sh_split_call(&p), CLAIM_CONTRADICTED);
	p.split = 3; /* kept, but the counter moved */
	assert_int_equal(sh_split_call(&p), CLAIM_INCONCLUSIVE);
	p = (struct sh_phase){64, true, 0, 0, 0, 0, true}; /* no THP made */
	assert_int_equal(sh_split_call(&p), CLAIM_INCONCLUSIVE);
	p = (struct sh_phase){64, false, 32, 65536, 0, 32, true};
	assert_int_equal(sh_split_call(&p), CLAIM_INCONCLUSIVE);
	/* kept, the counter unmoved, but the pressure never reached reclaim: proves nothing */
	p = (struct sh_phase){511, true, 32, 65536, 65536, 0, false};
	assert_int_equal(sh_split_call(&p), CLAIM_INCONCLUSIVE);
	p.pressed = true;
	assert_int_equal(sh_split_call(&p), CLAIM_CONTRADICTED);
	/* split without a taken limit: the split itself shows the shrinker ran */
	p = (struct sh_phase){64, true, 32, 65536, 0, 32, false};
	assert_int_equal(sh_split_call(&p), CLAIM_CONFIRMED);
}

/* What counts as pressure that reached reclaim: a taken write, v1's EBUSY, v2's EAGAIN. */
static void test_pressure_that_reached_reclaim(UNIT_STATE)
{
	assert_true(sh_pressed(0));
	assert_true(sh_pressed(-EBUSY));
	assert_true(sh_pressed(-EAGAIN));
	assert_false(sh_pressed(-EINVAL));
	assert_false(sh_pressed(-EACCES));
	assert_false(sh_pressed(-ENOENT));
	/* at 511 a limit refused by EINVAL: its "kept" is no confirmation of the source */
	static struct lab_result r;
	memset(&r, 0, sizeof(r));
	struct sh_phase p[3] = {{511, true, 32, 65536, 65536, 0, sh_pressed(-EINVAL)},
				{64, true, 32, 65536, 0, 32, true},
				{0, true, 32, 65536, 0, 32, true}};
	sh_claims_and_verdict(&r, p, 3);
	assert_int_equal(r.claims[1].call, CLAIM_INCONCLUSIVE);
	assert_contains(r.verdict,
			"at 511: AnonHugePages 65536 -> 65536 kB, counter +0 (no pressure)");
	assert_int_equal(r.claims[0].call, CLAIM_CONFIRMED);
	/* a phase whose counter and AnonHugePages after were not read (-1): "-", not "+0" */
	memset(&r, 0, sizeof(r));
	p[0] = (struct sh_phase){511, false, 32, 65536, -1, -1, true};
	sh_claims_and_verdict(&r, p, 3);
	assert_contains(r.verdict, "at 511: AnonHugePages 65536 -> - kB, counter - (unclear)");
	/* not read is not "no THPs made": inconclusive, and says so */
	assert_true(strncmp(r.verdict, "inconclusive: a phase was not read: ", 36) == 0);
	assert_true(r.inconclusive);
	assert_false(r.expected);
	assert_int_equal(r.claims[1].call, CLAIM_INCONCLUSIVE);
}

static void test_claims_as_documented(UNIT_STATE)
{
	static struct lab_result r;
	memset(&r, 0, sizeof(r));
	struct sh_phase p[3] = {{511, true, 32, 65536, 65536, 0, true},
				{64, true, 32, 65536, 0, 32, true},
				{0, true, 32, 65536, 0, 33, true}};
	sh_claims_and_verdict(&r, p, 3);
	assert_int_equal(r.nclaims, 2);
	assert_int_equal(r.claims[0].call, CLAIM_CONFIRMED);
	assert_int_equal(r.claims[1].call, CLAIM_CONFIRMED);
	assert_true(r.expected);
	assert_contains(r.verdict, "at 511: AnonHugePages 65536 -> 65536 kB, counter +0 (kept)");
	/* a kernel that splits at 511 too contradicts the source's claim */
	memset(&r, 0, sizeof(r));
	p[0].ahp1 = 0;
	p[0].split = 32;
	sh_claims_and_verdict(&r, p, 3);
	assert_int_equal(r.claims[1].call, CLAIM_CONTRADICTED);
	/* one that splits nothing anywhere contradicts the docs */
	memset(&r, 0, sizeof(r));
	p[0] = (struct sh_phase){511, true, 32, 65536, 65536, 0, true};
	p[1].ahp1 = p[2].ahp1 = 65536;
	p[1].split = p[2].split = 0;
	sh_claims_and_verdict(&r, p, 3);
	assert_int_equal(r.claims[0].call, CLAIM_CONTRADICTED);
	/* a phase without THPs: not the expected shape */
	memset(&r, 0, sizeof(r));
	p[2].thps = 0;
	sh_claims_and_verdict(&r, p, 3);
	assert_false(r.expected);
	assert_int_equal(r.claims[0].call, CLAIM_INCONCLUSIVE);
}

/*
 * The largest figures stay whole: --max-ptes-none up to 2^20 and a 16 TiB
 * region make each phase's words 84 bytes. Before, a claim's "here" held
 * 160 bytes and the verdict's list 240, both cut silently at these.
 */
static void test_large_figures_stay_whole(UNIT_STATE)
{
	static struct lab_result r;
	memset(&r, 0, sizeof(r));
	struct sh_phase p[3] = {
		{1048576, true, 2097152, 17179869184.0, 17179869184.0, 0, true},
		{999999, true, 2097152, 17179869184.0, 17179869184.0, 2097152, true},
		{524287, true, 2097152, 17179869184.0, 17179869184.0, 2097152, true}};
	sh_claims_and_verdict(&r, p, 3);
	const char *a = "at 999999: AnonHugePages 17179869184 -> 17179869184 kB, counter +2097152 "
			"(unclear)";
	const char *b = "at 524287: AnonHugePages 17179869184 -> 17179869184 kB, counter +2097152 "
			"(unclear)";
	assert_true(strlen(r.claims[0].here) > 160);
	assert_contains(r.claims[0].here, a);
	assert_contains(r.claims[0].here, b);
	assert_true(strlen(r.verdict) > 240);
	assert_contains(r.verdict, "at 1048576: AnonHugePages 17179869184 -> 17179869184 kB, "
				   "counter +0 (kept)");
	assert_contains(r.verdict, b);
	assert_null(strstr(r.claims[0].here, "..."));
	assert_null(strstr(r.verdict, "..."));
}

UNIT_TESTS(test_pressure_that_reached_reclaim, test_split_call_needs_both_measures,
	   test_claims_as_documented, test_large_figures_stay_whole)
