// SPDX-License-Identifier: MIT
/* Unit tests: the text builders of src/lab/lab.c and common.c that never cut silently. */
#include "unit.h"

#include <math.h>

#include "lab/common.h"

/* Appends until full; the cut is said with "...", and later appends add nothing. */
static void test_catf_appends_and_says_a_cut(UNIT_STATE)
{
	char b[16] = "";
	size_t off = 0;
	assert_false(lab_catf(b, sizeof(b), &off, "%s%d", "", 1234));
	assert_false(lab_catf(b, sizeof(b), &off, ", %d", 5678));
	assert_string_equal(b, "1234, 5678");
	assert_int_equal(off, 10);
	assert_true(lab_catf(b, sizeof(b), &off, ", %d", 99999)); /* 17 bytes: over */
	assert_string_equal(b, "1234, 5678, ...");
	assert_int_equal(off, sizeof(b));
	assert_true(lab_catf(b, sizeof(b), &off, "%s", "x")); /* full: unchanged */
	assert_string_equal(b, "1234, 5678, ...");
	/* a cut inside a 2-byte character drops it whole */
	char u[8] = "";
	off = 0;
	assert_true(lab_catf(u, sizeof(u), &off, "abc%s", "\xc2\xb5\xc2\xb5\xc2\xb5"));
	assert_string_equal(u, "abc...");
	/* lab_fmt: the same for one text */
	char f[8];
	assert_false(lab_fmt(f, sizeof(f), "%s", "1234567"));
	assert_string_equal(f, "1234567");
	assert_true(lab_fmt(f, sizeof(f), "%s", "12345678"));
	assert_string_equal(f, "1234...");
}

/*
 * Every order 1..10 with a 7-digit count fits LAB_FOLIOS_LEN whole. Before,
 * 160 bytes held five orders: the rest and "small pages" were cut silently.
 */
static void test_folios_of_every_order_fit(UNIT_STATE)
{
	struct folio_counts fc = {0};
	for (int i = 1; i <= 10; i++)
		fc.by_order[i] = 1048576;
	fc.small = 9999999;
	char out[LAB_FOLIOS_LEN];
	lab_fmt_folios(out, sizeof(out), &fc, 4096);
	assert_true(strlen(out) > 160);
	assert_null(strstr(out, "..."));
	assert_string_equal(out + strlen(out) -
				    strlen("order1 (8kB) x1048576, small pages x9999999"),
			    "order1 (8kB) x1048576, small pages x9999999");
	assert_true(strncmp(out, "order10 (4096kB) x1048576, order9 (2048kB) x1048576", 51) == 0);
	char small[64];
	lab_fmt_folios(small, sizeof(small), &fc, 4096); /* too small: said */
	assert_string_equal(small + sizeof(small) - 4, "...");
}

/* A figure not read (-1) or unknown (NaN) is "-", never a number. */
static void test_unknown_figures_print_a_dash(UNIT_STATE)
{
	char s[24];
	assert_string_equal(lab_fmt_num(s, sizeof(s), -1, 2), "-");
	assert_string_equal(lab_fmt_num(s, sizeof(s), NAN, 0), "-");
	assert_string_equal(lab_fmt_num(s, sizeof(s), 0, 0), "0");
	assert_string_equal(lab_fmt_num(s, sizeof(s), 2.125, 2), "2.12");
	assert_string_equal(lab_fmt_num(s, sizeof(s), 151234.6, 0), "151235");
}

/* The modes that gave nothing, then those with a figure unread, each named. */
static void test_modes_unknown_names_them(UNIT_STATE)
{
	static const char *const l[3] = {"never", "madvise, defrag=defer", "never, huge_pages=on"};
	char w[200];
	bool have[3] = {true, true, true}, read[3] = {true, true, true};
	assert_false(lab_modes_unknown(w, sizeof(w), l, 3, have, read, "X"));
	assert_string_equal(w, "");
	have[2] = false;
	read[1] = false;
	assert_true(lab_modes_unknown(w, sizeof(w), l, 3, have, read, "the segment"));
	assert_string_equal(w, "no figures from \"never, huge_pages=on\" (failed: see the proofs); "
			       "the segment not read for \"madvise, defrag=defer\"");
	have[0] = have[1] = false;
	assert_true(lab_modes_unknown(w, sizeof(w), l, 3, have, read, "the segment"));
	assert_string_equal(w, "no mode gave figures (each failed: see its proof)");
	have[0] = have[1] = have[2] = true;
	assert_true(lab_modes_unknown(w, sizeof(w), l, 3, have, read, "the segment"));
	assert_string_equal(w, "the segment not read for \"madvise, defrag=defer\"");
}

UNIT_TESTS(test_catf_appends_and_says_a_cut, test_folios_of_every_order_fit,
	   test_unknown_figures_print_a_dash, test_modes_unknown_names_them)
