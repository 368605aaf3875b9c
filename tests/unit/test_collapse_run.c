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

UNIT_TESTS(test_collapsed_without_pagemap_scan_from_anon_huge,
	   test_collapsed_without_pagemap_scan_said)
