// SPDX-License-Identifier: MIT
/* Unit tests: src/model/tlbstep.c (the step of lab tlb in recorded sweeps). */
#include "unit.h"

#include "kernel/tlb_record.h"
#include "model/tlbstep.h"

#include <string.h>

#include <errno.h>
#include <math.h>

#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

/* Point I: PAGES and 6 excess samples LEVEL + the recorded jitter (ns). */
static void point(struct tlb_point *p, uint64_t pages, double level)
{
	static const double jitter[6] = {0.31, -0.22, 0.05, -0.41, 0.18, -0.09};
	p->pages = pages;
	p->n = 6;
	for (int i = 0; i < 6; i++)
		p->excess[i] = level + jitter[i];
}

/* N points of FIRST << i pages at the levels LVL; tlb_step_find at MIN_NS into S, returning 0. */
static void sweep(struct tlb_point *p, int n, uint64_t first, const double *lvl, double min_ns,
		  struct tlb_step *s)
{
	for (int i = 0; i < n; i++)
		point(&p[i], first << i, lvl[i]);
	assert_int_equal(tlb_step_find(p, n, min_ns, s), 0);
}

/* S called CALL with a reach of REACH pages after BLIPS blips. */
static void expect_step(const struct tlb_step *s, enum tlb_step_call call, uint64_t reach,
			int blips)
{
	assert_int_equal(s->call, call);
	assert_int_equal(s->reach_pages, reach);
	assert_int_equal(s->blips, blips);
}

/* A 4 KiB sweep of the shape this host's lab tlb recorded: flat to 1024, rising after. */
static void test_step_found(UNIT_STATE)
{
	static const double lvl[] = {0.4, 0.3, 0.5, 0.4, 0.6, 0.5, 0.4, 9.8, 21.5, 30.2};
	struct tlb_point p[10];
	struct tlb_step s;
	sweep(p, 10, 8, lvl, 2.0, &s);
	expect_step(&s, TLB_STEP_FOUND, 512, 0);
	assert_int_equal(s.at, 7);
	assert_int_equal(s.reach_hi_pages, 1024);
	/* gap at 4096 pages: 30.2 - 0.4 */
	assert_int_equal(s.gap_pages, 4096);
	assert_near(s.gap_ns, 29.8, 1e-9);
	assert_true(s.gap_ok && s.gap_lo < 29.8 && s.gap_hi > 29.8);
	/* a miss on 1 - 512/4096 of the accesses: penalty gap / 0.875 */
	assert_near(s.penalty_ns, 29.8 / 0.875, 1e-9);
	assert_near(s.penalty_lo, s.gap_lo / 0.875, 1e-9);
}

/* Flat to the end (the 2 MiB sweep that stays inside the reach): no made-up reach. */
static void test_no_step(UNIT_STATE)
{
	static const double lvl[] = {0.2, 0.4, 0.1, 0.3, 0.2, 0.5};
	struct tlb_point p[6];
	struct tlb_step s;
	sweep(p, 6, 2, lvl, 2.0, &s);
	expect_step(&s, TLB_STEP_NONE, 64, 0); /* at least the largest N */
	assert_int_equal(s.at, -1);
	assert_near(s.penalty_ns, 0, 0);
	assert_true(s.gap_ok && s.gap_lo < 2.0);
}

/* A blip (another tenant's burst) that does not last is not the step. */
static void test_noise_blip_is_not_a_step(UNIT_STATE)
{
	static const double lvl[] = {0.4, 0.5, 7.0, 0.6, 0.4, 8.5, 16.0, 24.0};
	struct tlb_point p[8];
	struct tlb_step s;
	sweep(p, 8, 16, lvl, 2.0, &s);
	expect_step(&s, TLB_STEP_FOUND, 256, 1); /* not 32: the rise at 64 fell back */
	/* a blip alone, flat after it: no step */
	static const double lvl2[] = {0.4, 0.5, 7.0, 0.6, 0.4, 0.5};
	sweep(p, 6, 16, lvl2, 2.0, &s);
	assert_int_equal(s.call, TLB_STEP_NONE);
	assert_int_equal(s.blips, 1);
}

/* Samples so noisy that the interval reaches below MIN_NS: not raised. */
static void test_wide_intervals_not_raised(UNIT_STATE)
{
	struct tlb_point p[4];
	for (int i = 0; i < 4; i++)
		point(&p[i], 8ull << i, 0.5);
	double wild[6] = {0.2, 30, 0.4, 25, 0.3, 40};
	for (int i = 0; i < 6; i++)
		p[3].excess[i] = wild[i];
	struct tlb_step s;
	assert_int_equal(tlb_step_find(p, 4, 2.0, &s), 0);
	assert_int_equal(s.call, TLB_STEP_NONE);
}

static void test_too_few_and_bad_input(UNIT_STATE)
{
	struct tlb_point p[4];
	for (int i = 0; i < 4; i++)
		point(&p[i], 8ull << i, i * 10.0);
	struct tlb_step s;
	p[2].n = 2; /* 6 and 2 samples: no 95% interval */
	assert_int_equal(tlb_step_find(p, 4, 2.0, &s), 0);
	assert_int_equal(s.call, TLB_STEP_UNDECIDED);
	p[2].n = 6;
	assert_int_equal(tlb_step_find(p, 2, 2.0, &s), -EINVAL);
	p[2].pages = p[1].pages; /* not ascending */
	assert_int_equal(tlb_step_find(p, 4, 2.0, &s), -EINVAL);
	p[2].pages = 0;
	assert_int_equal(tlb_step_find(p, 4, 2.0, &s), -EINVAL);
	assert_int_equal(s.call, TLB_STEP_UNDECIDED);
}

/*
 * This host's lab tlb --quick 4K sweep (2026-12-02, load ~8, a KVM guest on
 * AMD EPYC): medians of the excess per N. The ~2 ns from 128 pages is the L1
 * TLB missing into the L2 TLB, below the 5 ns a page walk must add; 1024 is a
 * blip; the walk starts past 2048 pages (8 MiB: 2048 L2 entries).
 */
static void test_recorded_4k_sweep(UNIT_STATE)
{
	static const double lvl[] = {0.0, 0.0, 0.0, 2.3, 2.1, 2.3, 24.3, 2.9, 69.4, 779.6, 758.0};
	struct tlb_point p[11];
	struct tlb_step s;
	sweep(p, 11, 16, lvl, 5.0, &s);
	expect_step(&s, TLB_STEP_FOUND, 2048, 1);
	assert_int_equal(s.reach_hi_pages, 4096);
	/* at 2 ns the blip and the L2 TLB hits after it would make a step at 1024 */
	assert_int_equal(tlb_step_find(p, 11, 2.0, &s), 0);
	assert_int_equal(s.reach_pages, 512);
}

static void test_record_round_trip_and_damage(UNIT_STATE)
{
	struct tlb_record r = {.guest = true, .quick = true, .n = 2};
	strcpy(r.kernel, "6.18.0");
	strcpy(r.time, "2026-12-02T07:00:00Z");
	r.c[0] = (struct tlb_calib){4, true, 8ull << 20, 16ull << 20, 866.3, 700.5, 1100.25};
	r.c[1] = (struct tlb_calib){2048, false, 1ull << 30, 0, 0, 0, 0};
	struct buf b = {0};
	assert_int_equal(tlb_record_format(&r, &b), 0);
	struct tlb_record q;
	assert_int_equal(tlb_record_parse(b.p, b.len, &q), 0);
	assert_true(q.guest && q.quick);
	assert_int_equal(q.n, 2);
	assert_string_equal(q.kernel, "6.18.0");
	const struct tlb_calib *c = tlb_record_size(&q, 4);
	assert_non_null(c);
	assert_true(c->step && c->reach_b == 8ull << 20 && c->reach_hi_b == 16ull << 20);
	assert_near(c->penalty_ns, 866.3, 1e-9);
	c = tlb_record_size(&q, 2048);
	assert_true(c && !c->step && c->reach_b == 1ull << 30);
	assert_null(tlb_record_size(&q, 64));
	buf_free(&b);
	static const char *const bad[] = {
		"thpctl-lab-tlb 2\nkernel a\ntime t\nguest 0\nsweep full\nsize 4 0 4096 0 0 0 0\n",
		"thpctl-lab-tlb 1\nkernel a\ntime t\nguest 0\nsweep full\n", /* no size */
		"thpctl-lab-tlb 1\nkernel a\nkernel b\ntime t\nguest 0\nsweep full\nsize 4 0 4096 0 0 0 0\n",
		"thpctl-lab-tlb 1\nkernel a\ntime t\nguest 2\nsweep full\nsize 4 0 4096 0 0 0 0\n",
		"thpctl-lab-tlb 1\nkernel a\ntime t\nguest 0\nsweep full\nsize 4 1 4096 4096 0 0 0\n",
		"thpctl-lab-tlb 1\nkernel a\ntime t\nguest 0\nsweep full\nsize 4 0 4096 0 nan 0 0\n",
		"thpctl-lab-tlb 1\nkernel a\ntime t\nguest 0\nsweep full\nsize 4 0 4096 0 0 0 0\nsize 4 0 4096 0 0 0 0\n",
		"thpctl-lab-tlb 1\nkernel a\ntime t\nguest 0\nsweep fast\nsize 4 0 4096 0 0 0 0\n",
		"thpctl-lab-tlb 1\nkernel a\ntime t\nguest 0\nsweep full\nsize 4 0 4096 0 0 0 0 9\n",
	};
	for (size_t i = 0; i < UNIT_LEN(bad); i++)
		assert_int_equal(tlb_record_parse(bad[i], strlen(bad[i]), &q), -EINVAL);
	const char *good =
		"thpctl-lab-tlb 1\nkernel a\ntime t\nguest 0\nsweep full\nsize 4 0 4096 0 0 0 0\n";
	assert_int_equal(tlb_record_parse(good, strlen(good), &q), 0);
	assert_false(q.quick || q.guest);
}

UNIT_TESTS(test_step_found, test_no_step, test_noise_blip_is_not_a_step,
	   test_wide_intervals_not_raised, test_too_few_and_bad_input, test_recorded_4k_sweep,
	   test_record_round_trip_and_damage)
