// SPDX-License-Identifier: MIT
/* Unit tests: what a `thpctl collapse` run did, counted and said (src/model/collapse.c,
 * src/render/collapse.c). */
#include "unit.h"

#include "model/collapse.h"
#include "render/collapse.h"

#define M (1ull << 20)
#define PMD (2 * M)
#define BASE 0x7f0000000000ull

/* A range of NPMD huge pages, run: OK successes, UNCHECKED of them with no PAGEMAP_SCAN first. */
static struct crange ran(uint64_t npmd, uint64_t ok, uint64_t unchecked)
{
	struct crange r = {.start = BASE,
			   .end = BASE + npmd * PMD,
			   .req_start = BASE,
			   .req_end = BASE + npmd * PMD,
			   .npmd = npmd,
			   .planned_pmds = npmd,
			   .attempted = true,
			   .nok = ok,
			   .nok_unchecked = unchecked};
	snprintf(r.vma, sizeof(r.vma), "[anon]");
	return r;
}

/* A run's report over the N ranges R. */
static struct collapse_report report(struct crange *r, int n)
{
	return (struct collapse_report){.pid = 4242,
					.comm = "hp",
					.thp_enabled = 1,
					.pmd_size = PMD,
					.max_inflate = 2.0,
					.vmrss_before_kb = -1,
					.vmrss_after_kb = -1,
					.nranges = n,
					.ranges = r};
}

/*
 * Without PAGEMAP_SCAN (6.1-6.6) MADV_COLLAPSE returns success for a range PMD-mapped already:
 * 6 PMDs, 2 of them huge before, 6 successes; AnonHugePages 4 -> 12 MiB: 4 collapsed, not 6.
 */
static void test_collapsed_without_pagemap_scan_from_anon_huge(UNIT_STATE)
{
	struct crange r = ran(6, 6, 6);
	r.ahp_before_kb = 4096;
	r.ahp_after_kb = 12288;
	r.have_after = true;
	collapse_settle(&r, PMD);
	assert_int_equal(r.done_how, CD_ANON_HUGE);
	assert_int_equal(r.collapsed_bytes, 4 * PMD);
	/* never more than the successes, whatever else grew AnonHugePages meanwhile */
	r.ahp_after_kb = 4096 + 20 * 2048;
	collapse_settle(&r, PMD);
	assert_int_equal(r.collapsed_bytes, 6 * PMD);
	/* AnonHugePages fell (the process freed some): none counted, not a wrap-around */
	r.ahp_after_kb = 2048;
	collapse_settle(&r, PMD);
	assert_int_equal(r.collapsed_bytes, 0);
	assert_int_equal(r.done_how, CD_ANON_HUGE);
	/* no AnonHugePages after: unknown, not the successes */
	r.have_after = false;
	collapse_settle(&r, PMD);
	assert_int_equal(r.done_how, CD_UNKNOWN);
	assert_int_equal(r.collapsed_bytes, 0);
	/* every success checked by PAGEMAP_SCAN: each one a collapse */
	r = ran(6, 4, 0);
	r.nhuge = 2;
	collapse_settle(&r, PMD);
	assert_int_equal(r.done_how, CD_CALLS);
	assert_int_equal(r.collapsed_bytes, 4 * PMD);
	/* not attempted: nothing counted */
	r = ran(6, 0, 0);
	r.attempted = false;
	collapse_settle(&r, PMD);
	assert_int_equal(r.done_how, CD_NONE);
}

/* Text and JSON of such a run: "success returned", 4.0 MiB from AnonHugePages, the method. */
static void test_collapsed_without_pagemap_scan_said(UNIT_STATE)
{
	struct crange r[2] = {ran(6, 6, 6), ran(2, 2, 2)};
	r[0].ahp_before_kb = 4096;
	r[0].ahp_after_kb = 12288;
	r[0].have_after = true;
	r[1].start = r[1].req_start = r[0].end;
	r[1].end = r[1].req_end = r[0].end + 2 * PMD;
	for (int i = 0; i < 2; i++)
		collapse_settle(&r[i], PMD);
	struct collapse_report rep = report(r, 2);
	struct unit_mem m;
	collapse_render_text(unit_mem_open(&m), &rep, false);
	char *t = unit_mem_text(&m);
	assert_contains(t, "8192 kB*");
	assert_contains(t, "success returned");
	assert_contains(t, "* COLLAPSED from AnonHugePages of the range's VMAs, before -> after "
			   "(at most the 6 call(s) that returned success): without PAGEMAP_SCAN");
	assert_contains(t, "COLLAPSED unknown (-) for 1 range(s)");
	free(t);
	json_t *j = collapse_to_json(&rep);
	assert_non_null(j);
	json_t *o = json_array_get(json_object_get(j, "ranges"), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "success_pmds")), 6);
	assert_int_equal(json_integer_value(json_object_get(o, "collapsed_pmds")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "collapsed_bytes")), 4 * PMD);
	assert_string_equal(json_string_value(json_object_get(o, "collapsed_method")),
			    "anon_huge_pages_delta");
	o = json_array_get(json_object_get(j, "ranges"), 1);
	assert_true(json_is_null(json_object_get(o, "collapsed_bytes")));
	assert_true(json_is_null(json_object_get(o, "collapsed_pmds")));
	assert_true(json_is_null(json_object_get(o, "collapsed_method")));
	/* one range unknown: the total is unknown too */
	assert_true(json_is_null(json_object_get(j, "collapsed_bytes")));
	json_decref(j);
	/* both counted: the total is their sum */
	r[1].have_after = true;
	r[1].ahp_after_kb = 4096;
	collapse_settle(&r[1], PMD);
	j = collapse_to_json(&rep);
	assert_int_equal(json_integer_value(json_object_get(j, "collapsed_bytes")), 6 * PMD);
	json_decref(j);
}

static struct cvma anon(uint64_t start, uint64_t end)
{
	struct cvma v = {.start = start, .end = end, .has_vmflags = true, .thp_eligible = 1};
	snprintf(v.perms, sizeof(v.perms), "rw-p");
	return v;
}

/* A PMD only half mapped is not tried: process_madvise's ENOMEM there is a hole, not memory. */
static void test_pmd_with_a_hole_is_not_fully_mapped(UNIT_STATE)
{
	/* [BASE, BASE+3 MiB) mapped, then a hole to BASE+4 MiB, then [BASE+4, BASE+8) in two
	 * adjacent VMAs */
	struct cvma v[3] = {anon(BASE, BASE + 3 * M), anon(BASE + 4 * M, BASE + 6 * M),
			    anon(BASE + 6 * M, BASE + 8 * M)};
	assert_true(collapse_fully_mapped(v, 3, BASE, BASE + PMD));
	assert_false(collapse_fully_mapped(v, 3, BASE + PMD, BASE + 2 * PMD));	  /* half mapped */
	assert_true(collapse_fully_mapped(v, 3, BASE + 2 * PMD, BASE + 4 * PMD)); /* joined */
	assert_false(
		collapse_fully_mapped(v, 3, BASE + 3 * PMD, BASE + 5 * PMD)); /* past the end */
	assert_false(collapse_fully_mapped(v, 0, BASE, BASE + PMD));
	assert_int_equal(collapse_hole_pmds(v, 3, BASE, BASE + 4 * PMD, PMD), 1);
	assert_int_equal(collapse_hole_pmds(v, 3, BASE, BASE + 6 * PMD, PMD), 3);
	/* --range over the half-mapped PMD alone: skipped, said, not "nothing in it" */
	struct crange_req req = {BASE + PMD, BASE + 2 * PMD};
	struct collapse_sel sel = {.ranges = &req, .nranges = 1, .thp_enabled = 1};
	struct crange r[2];
	int nsmall;
	assert_int_equal(collapse_select(v, 3, &sel, PMD, r, 2, &nsmall), 1);
	assert_int_equal(r[0].skip, CR_GO);
	r[0].hole_pmds = collapse_hole_pmds(v, 3, r[0].start, r[0].end, PMD);
	r[0].have_estimate = true; /* pagemap: the mapped half has pages */
	r[0].present_pages = 256;
	collapse_plan_range(&r[0], 512, 2.0, true);
	assert_int_equal(r[0].skip, CR_SKIP_HOLES);
	assert_int_equal(r[0].planned_pmds, 0);
	char w[400];
	struct collapse_report rep = report(r, 1);
	assert_string_equal(
		crange_skip_words(&rep, &r[0], w, sizeof(w)),
		"not fully mapped: each huge-page range in it has a hole (no VMA there), "
		"and MADV_COLLAPSE fails on unmapped memory (ENOMEM)");
	/* over 4 PMDs, one with the hole, no pagemap: 3 planned, not 4 */
	req.start = BASE;
	req.end = BASE + 4 * PMD;
	collapse_select(v, 3, &sel, PMD, r, 2, &nsmall);
	r[0].hole_pmds = collapse_hole_pmds(v, 3, r[0].start, r[0].end, PMD);
	collapse_plan_range(&r[0], 512, 2.0, false);
	assert_int_equal(r[0].skip, CR_GO);
	assert_int_equal(r[0].planned_pmds, 3);
	/* the 3 wholly mapped ones PMD-mapped already: the hole is named, not "no page present" */
	r[0].huge_pmds = 3;
	r[0].huge_how = CH_PAGEMAP_SCAN;
	r[0].skip = CR_GO;
	collapse_plan_range(&r[0], 512, 2.0, false);
	assert_int_equal(r[0].skip, CR_SKIP_HUGE);
	assert_string_equal(
		crange_skip_words(&rep, &r[0], w, sizeof(w)),
		"already huge: 3 of 4 PMD ranges PMD-mapped (PAGEMAP_SCAN), 1 not fully "
		"mapped: nothing to collapse");
}

/* A run stopped by ENOMEM: the PMDs not tried are counted and said; the hole too. */
static void test_stop_counts_what_was_not_tried(UNIT_STATE)
{
	struct crange r[2] = {ran(8, 2, 0), ran(4, 0, 0)};
	r[0].nfail = 1;
	r[0].err = -ENOMEM;
	r[0].hole_pmds = 1;
	r[0].nuntried = 4; /* after the third of 7 wholly mapped ones */
	r[1].start = r[1].req_start = r[0].end;
	r[1].end = r[1].req_end = r[0].end + 4 * PMD;
	r[1].attempted = false;
	r[1].nuntried = 4;
	for (int i = 0; i < 2; i++)
		collapse_settle(&r[i], PMD);
	struct collapse_report rep = report(r, 2);
	rep.fatal = -ENOMEM;
	struct unit_mem m;
	collapse_render_text(unit_mem_open(&m), &rep, false);
	char *t = unit_mem_text(&m);
	assert_contains(t, "ENOMEM: 1 of 8 failed, 1 not fully mapped, 4 not tried");
	assert_contains(t,
			"1 huge-page range(s) not fully mapped (a hole: no VMA there) not tried");
	assert_contains(t, "8 huge-page range(s) not tried: ENOMEM stopped the run");
	free(t);
	json_t *j = collapse_to_json(&rep);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "untried_pmds")), 8);
	json_t *o = json_array_get(json_object_get(j, "ranges"), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "untried_pmds")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "not_fully_mapped_pmds")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "collapsed_pmds")), 2);
	json_decref(j);
	/* a run that went through: ok, the hole said in the result */
	r[0].nfail = 0;
	r[0].err = 0;
	r[0].nuntried = 0;
	r[1].nuntried = 0;
	rep.fatal = 0;
	collapse_render_text(unit_mem_open(&m), &rep, false);
	t = unit_mem_text(&m);
	assert_contains(t, "ok (1 not fully mapped)");
	assert_null(strstr(t, "stopped the run"));
	free(t);
}

/* The process exited before the reads after: those are unknown, and said, not another's. */
static void test_exited_leaves_after_unknown(UNIT_STATE)
{
	struct crange r[1] = {ran(4, 4, 4)};
	r[0].ahp_after_kb = 8192; /* read, then found to be of a process that had exited */
	r[0].have_after = false;
	collapse_settle(&r[0], PMD);
	struct collapse_report rep = report(r, 1);
	rep.exited = true;
	rep.vmrss_before_kb = 20000;
	struct unit_mem m;
	collapse_render_text(unit_mem_open(&m), &rep, false);
	char *t = unit_mem_text(&m);
	assert_contains(t, "PID 4242 exited before its memory could be read after the collapse: "
			   "AnonHugePages, RSS and VmRSS after unknown (-)");
	assert_null(strstr(t, "VmRSS of PID"));
	free(t);
	json_t *j = collapse_to_json(&rep);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "exited")));
	assert_true(json_is_null(json_object_get(j, "vmrss_after_kb")));
	json_t *o = json_array_get(json_object_get(j, "ranges"), 0);
	assert_true(json_is_null(json_object_get(o, "anon_huge_after_kb")));
	assert_true(json_is_null(json_object_get(o, "collapsed_bytes")));
	json_decref(j);
	rep.exited = false;
	j = collapse_to_json(&rep);
	assert_true(json_is_false(json_object_get(j, "exited")));
	json_decref(j);
}

UNIT_TESTS(test_collapsed_without_pagemap_scan_from_anon_huge,
	   test_collapsed_without_pagemap_scan_said, test_pmd_with_a_hole_is_not_fully_mapped,
	   test_stop_counts_what_was_not_tried, test_exited_leaves_after_unknown)
