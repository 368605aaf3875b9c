// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/shrinker_record.c (what lab shrinker measured, kept for status). */
#include "unit.h"

#include "kernel/shrinker_record.h"

static const char good[] = "thpctl-lab-shrinker 1\n"
			   "kernel 6.18.44-fc-v857\n"
			   "time 2026-12-02T04:40:00Z\n"
			   "phase 511 32 0 65536 65536\n"
			   "phase 64 32 32 65536 0\n"
			   "phase 0 32 32 65536 0\n";

static void test_record_round_trip(UNIT_STATE)
{
	struct shrinker_record r, back;
	assert_int_equal(shrinker_record_parse(LIT(good), &r), 0);
	assert_string_equal(r.kernel, "6.18.44-fc-v857");
	assert_int_equal(r.n, 3);
	const struct shrinker_phase *p = shrinker_record_phase(&r, 64);
	assert_non_null(p);
	assert_true(p->thps == 32 && p->split_host == 32 && p->ahp_before_kb == 65536 &&
		    p->ahp_after_kb == 0);
	assert_null(shrinker_record_phase(&r, 255));
	struct buf b = {0};
	assert_int_equal(shrinker_record_format(&r, &b), 0);
	assert_string_equal(b.p, good);
	assert_int_equal(shrinker_record_parse(b.p, b.len, &back), 0);
	buf_free(&b);
}

static void test_record_damaged(UNIT_STATE)
{
	struct shrinker_record r;
#define P(s) shrinker_record_parse(LIT(s), &r)
	assert_int_equal(P(""), -EINVAL);
	assert_int_equal(P("thpctl-lab-shrinker 2\nkernel k\ntime t\nphase 0 1 1 2 0\n"), -EINVAL);
	assert_int_equal(P("thpctl-lab-shrinker 1\nkernel k\ntime t\n"), -EINVAL); /* no phase */
	assert_int_equal(P("thpctl-lab-shrinker 1\ntime t\nphase 0 1 1 2 0\n"), -EINVAL);
	assert_int_equal(P("thpctl-lab-shrinker 1\nkernel k\nkernel k\ntime t\nphase 0 1 1 2 0\n"),
			 -EINVAL);
	assert_int_equal(
		P("thpctl-lab-shrinker 1\nkernel k\ntime t\nphase 0 1 1 2 0\nphase 0 1 1 2 0\n"),
		-EINVAL); /* a max_ptes_none twice */
	assert_int_equal(P("thpctl-lab-shrinker 1\nkernel k\ntime t\nphase 0 1 1 2\n"), -EINVAL);
	assert_int_equal(P("thpctl-lab-shrinker 1\nkernel k\ntime t\nphase 0 1 1 2 0 9\n"),
			 -EINVAL);
	assert_int_equal(P("thpctl-lab-shrinker 1\nkernel k\ntime t\nphase -1 1 1 2 0\n"), -EINVAL);
	assert_int_equal(
		P("thpctl-lab-shrinker 1\nkernel k\ntime t\nphase 0 1 1 99999999999999999 0\n"),
		-EINVAL);
	assert_int_equal(P("thpctl-lab-shrinker 1\nkernel a b\ntime t\nphase 0 1 1 2 0\n"),
			 -EINVAL);
	assert_int_equal(P("thpctl-lab-shrinker 1\nkernel k\ntime t\nbogus\nphase 0 1 1 2 0\n"),
			 -EINVAL);
	assert_int_equal(
		P("thpctl-lab-shrinker 1\nkernel k\ntime t\nphase 0 1 1 2 0\nphase 1 1 1 2 0\n"
		  "phase 2 1 1 2 0\nphase 3 1 1 2 0\nphase 4 1 1 2 0\n"),
		-EINVAL); /* more phases than kept */
	/* no trailing newline is fine */
	assert_int_equal(P("thpctl-lab-shrinker 1\nkernel k\ntime t\nphase 0 1 1 2 0"), 0);
#undef P
}

static void test_record_read_through_the_sysroot(UNIT_STATE)
{
	char dir[64];
	struct sysroot sr;
	unit_tree(dir, "shrec", NULL, &sr);
	struct shrinker_record r;
	assert_int_equal(shrinker_record_read(&sr, &r), -ENOENT);
	unit_put_deep(dir, SR_SHRINKER_RECORD, good);
	assert_int_equal(shrinker_record_read(&sr, &r), 0);
	assert_int_equal(r.n, 3);
	char path[256];
	snprintf(path, sizeof(path), "%s/" SR_SHRINKER_RECORD, dir);
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 600; i++) /* over 4 KiB: damage, never read in part */
		fputs("phase 0 1 1 2 0\n", f);
	fclose(f);
	assert_int_equal(shrinker_record_read(&sr, &r), -EINVAL);
	unit_tree_remove(dir, &sr);
}

UNIT_TESTS(test_record_round_trip, test_record_damaged, test_record_read_through_the_sysroot)
