// SPDX-License-Identifier: MIT
/* Unit tests: src/render/ps.c (ps's text and JSON: the totals of an empty list). */
#include "unit.h"

#include "render/ps.h"

/* The text of R, NUL-terminated, into OUT. */
static void text_of(const struct ps_report *r, char *out, size_t n)
{
	FILE *f = fmemopen(out, n, "w");
	assert_non_null(f);
	ps_render_text(f, r, false);
	fclose(f);
}

static void test_no_row(UNIT_STATE)
{
	char out[2048] = "";
	/* the default selection found nothing: the sums are 0, known, and the text says why */
	struct ps_report r = {.relevant_only = true, .has_host_ahp = true, .host_ahp_kb = 2048};
	text_of(&r, out, sizeof(out));
	assert_non_null(strstr(out, "total  0 procs        0 kB      0 kB"));
	assert_non_null(strstr(out, "no process uses, requests (hg) or refuses (nh, THP_EN 0) huge "
				    "pages; --all lists every process\n"));
	assert_non_null(strstr(out, "host-wide AnonHugePages (meminfo, every process): 2048 kB\n"));
	assert_null(strstr(out, "per-process sum"));
	assert_null(strstr(out, " \n")); /* no trailing blanks on the totals row */
	json_t *j = ps_to_json(&r);
	json_t *t = json_object_get(j, "totals");
	assert_int_equal(json_integer_value(json_object_get(t, "anon_huge_kb")), 0);
	assert_true(json_is_integer(json_object_get(t, "anon_huge_kb")));
	assert_true(json_is_integer(json_object_get(t, "hg_vmas")));
	json_decref(j);
	/* unreadable processes left out: "no readable process"; a filter (--all): no hint */
	r.denied = 1;
	text_of(&r, out, sizeof(out));
	assert_non_null(strstr(out, "no readable process uses"));
	/* sums over no readable process are unknown: '-' and null, not 0 */
	assert_null(strstr(out, "0 kB      0 kB"));
	assert_non_null(strstr(out, "total  0 procs          -         -"));
	j = ps_to_json(&r);
	t = json_object_get(j, "totals");
	assert_true(json_is_null(json_object_get(t, "rss_kb")));
	assert_true(json_is_null(json_object_get(t, "anon_huge_kb")));
	assert_true(json_is_null(json_object_get(t, "hg_vmas")));
	json_decref(j);
	r.relevant_only = false;
	text_of(&r, out, sizeof(out));
	assert_null(strstr(out, "--all lists"));
	/* a filter that left nothing: said */
	assert_non_null(strstr(out, "no readable process passed the filters given"));
}

static void test_some_rows_unreadable_sum_said_partial(UNIT_STATE)
{
	/* one row read (0 kB AnonHuge), one not: the sum is of the one, and the note says so */
	struct ps_row rows[2] = {{.denied = false}, {.denied = true}};
	rows[0].p.pid = 7;
	rows[0].p.t.present = (1u << SM_ANON_HUGE) | (1u << SM_ANONYMOUS);
	rows[1].p.pid = 8;
	struct ps_report r = {.rows = rows, .n = 2, .denied = 1};
	char out[4096] = "";
	text_of(&r, out, sizeof(out));
	assert_non_null(strstr(out, "total  2 procs"));
	assert_non_null(strstr(out, "total AnonHuge 0 kB is a per-process sum of the 1 of 2 "
				    "processes whose smaps could be read"));
	assert_non_null(strstr(out, "THP%anon: AnonHugePages of Anonymous; HG, NH"));
	r.denied = 0, rows[1].denied = false; /* both read: no such words */
	text_of(&r, out, sizeof(out));
	assert_null(strstr(out, "whose smaps could be read"));
	assert_null(strstr(out, "thpctl capture"));
	r.recorded = r.capture = true; /* a capture: it lists what it recorded, said */
	text_of(&r, out, sizeof(out));
	assert_non_null(strstr(out, "(a thpctl capture: only the processes it recorded"));
}

static void test_unreadable_rows_sum_unknown(UNIT_STATE)
{
	/* rows none of which was readable: the AnonHuge sum is unknown ('-', null), never 0 */
	struct ps_row row = {.denied = true};
	row.p.pid = 7;
	snprintf(row.p.st.name, sizeof(row.p.st.name), "x");
	struct ps_report r = {.rows = &row, .n = 1, .denied = 1};
	json_t *j = ps_to_json(&r);
	assert_true(json_is_null(json_object_get(json_object_get(j, "totals"), "anon_huge_kb")));
	json_decref(j);
	char out[2048] = "";
	text_of(&r, out, sizeof(out));
	assert_non_null(strstr(out, "total  1 proc "));
	assert_null(strstr(out, "per-process sum"));
}

/* THP%anon never rounds a share with small pages left onto 100% (nor one with a huge page
 * onto 0%): 1044480 of 1048576 kB printed "100%" */
static void test_thp_share_not_rounded_onto_an_end(UNIT_STATE)
{
	struct ps_row rows[2] = {{.denied = false}, {.denied = false}};
	rows[0].p.pid = 7;
	rows[0].p.t.present = (1u << SM_ANON_HUGE) | (1u << SM_ANONYMOUS);
	rows[0].p.t.kb[SM_ANON_HUGE] = 1044480;
	rows[0].p.t.kb[SM_ANONYMOUS] = 1048576;
	rows[1].p.pid = 8;
	rows[1].p.t.present = rows[0].p.t.present;
	rows[1].p.t.kb[SM_ANON_HUGE] = 2048;
	rows[1].p.t.kb[SM_ANONYMOUS] = 1048576 * 1024ull; /* 0.0002% */
	struct ps_report r = {.rows = rows, .n = 2};
	char out[4096] = "";
	text_of(&r, out, sizeof(out));
	assert_null(strstr(out, " 100% "));
	assert_non_null(strstr(out, " 99.6% "));
	assert_null(strstr(out, " 0% "));
	assert_non_null(strstr(out, " 0.0002% "));
}

UNIT_MAIN(cmocka_unit_test(test_no_row), cmocka_unit_test(test_thp_share_not_rounded_onto_an_end),
	  cmocka_unit_test(test_unreadable_rows_sum_unknown),
	  cmocka_unit_test(test_some_rows_unreadable_sum_said_partial))
