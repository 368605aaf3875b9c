// SPDX-License-Identifier: MIT
/* Unit tests: src/render/svg.c (scales, nice ticks, tick labels, HTML escaping). */
#include "unit.h"

#include <math.h>

#include "render/svg.h"

static void test_linear_ticks_widen_to_a_1_2_5_step(UNIT_STATE)
{
	double t[24], lo = 0, hi = 97;
	int n = svg_ticks_linear(&lo, &hi, 5, t, 24);
	assert_int_equal(n, 6);
	assert_true(lo == 0 && hi == 100);
	assert_true(t[1] == 20 && t[5] == 100);
	lo = 0.013;
	hi = 0.087;
	n = svg_ticks_linear(&lo, &hi, 5, t, 24);
	assert_int_equal(n, 6); /* step 0.02: 0, 0.02 .. 0.1 */
	assert_true(fabs(lo - 0) < 1e-12 && fabs(hi - 0.1) < 1e-12);
	assert_true(fabs(t[3] - 0.06) < 1e-12);
	lo = -23.3;
	hi = 64.5;
	n = svg_ticks_linear(&lo, &hi, 5, t, 24);
	assert_true(lo == -40 && hi == 80); /* step 20 */
	assert_int_equal(n, 7);
	assert_true(t[2] == 0); /* exactly 0, not -3e-15 */
}

static void test_linear_ticks_of_an_empty_range(UNIT_STATE)
{
	double t[24], lo = 0, hi = 0;
	svg_ticks_linear(&lo, &hi, 5, t, 24);
	assert_true(lo == 0 && hi == 1); /* all zeros: 0..1, no negative axis */
	lo = hi = 1024;
	svg_ticks_linear(&lo, &hi, 6, t, 24);
	assert_true(lo == 0 && hi >= 2048);
	lo = hi = -5;
	svg_ticks_linear(&lo, &hi, 5, t, 24);
	assert_true(lo <= -10 && hi == 0);
	lo = NAN;
	hi = 3;
	svg_ticks_linear(&lo, &hi, 5, t, 24);
	assert_true(lo == 0 && hi == 1);
}

static void test_log_ticks_cover_the_range(UNIT_STATE)
{
	double t[24], lo = 86.5, hi = 25574;
	int n = svg_ticks_log(&lo, &hi, t, 24);
	assert_true(lo == 10 && hi == 100000);
	assert_int_equal(n, 5);
	assert_true(t[0] == 10 && t[4] == 100000);
	lo = hi = 100; /* one value on a decade: one decade shown */
	n = svg_ticks_log(&lo, &hi, t, 24);
	assert_int_equal(n, 2);
	assert_true(lo == 100 && hi == 1000);
	lo = 0;
	hi = 10;
	assert_int_equal(svg_ticks_log(&lo, &hi, t, 24), 0); /* not > 0: the caller goes linear */
	lo = 0.0015; /* decades below 1: each the literal's double (one division) */
	hi = 0.3;
	n = svg_ticks_log(&lo, &hi, t, 24);
	assert_int_equal(n, 4);
	assert_true(lo == 0.001 && hi == 1 && t[0] == 0.001 && t[1] == 0.01 && t[2] == 0.1);
	lo = 3e20;
	hi = 4e21;
	n = svg_ticks_log(&lo, &hi, t, 24);
	assert_true(n == 3 && lo == 1e20 && hi == 1e22 && t[1] == 1e21);
}

static void test_min_max_let_a_nan_give_way(UNIT_STATE)
{
	assert_true(svg_min(1, 2) == 1 && svg_max(1, 2) == 2);
	assert_true(svg_min(NAN, 2) == 2 && svg_min(2, NAN) == 2);
	assert_true(svg_max(NAN, -2) == -2 && svg_max(-2, NAN) == -2);
	assert_true(isnan(svg_max(NAN, NAN)));
	assert_true(svg_min(-INFINITY, 0) == -INFINITY && svg_max(INFINITY, 0) == INFINITY);
}

static void test_scales_map_ends_and_middle(UNIT_STATE)
{
	char why[256] = "";
	assert_int_equal(svg_ready(why, sizeof(why)), 0); /* libm's log10, loaded on first use */
	assert_string_equal(why, "");
	struct svg_scale lin = {0, 100, 270, 40, false};
	assert_true(svg_map(&lin, 0) == 270);
	assert_true(svg_map(&lin, 100) == 40);
	assert_true(svg_map(&lin, 50) == 155);
	struct svg_scale lg = {10, 1000, 70, 700, true};
	assert_true(fabs(svg_map(&lg, 100) - 385) < 1e-9); /* one decade of two */
	assert_true(svg_map(&lg, 0) == 70);		   /* not a number on a log axis */
	assert_true(svg_map(&lg, -3) == 70);
	struct svg_scale flat = {5, 5, 0, 100, false};
	assert_true(svg_map(&flat, 5) == 50);
}

static void test_tick_labels(UNIT_STATE)
{
	char s[32];
	static const struct {
		double v;
		const char *want;
	} c[] = {{0, "0"},	 {0.25, "0.25"}, {40, "40"},	 {1000, "1000"},
		 {1500, "1500"}, {10000, "10k"}, {25000, "25k"}, {1500000, "1.5M"},
		 {2e9, "2G"},	 {-0.0, "0"},	 {-20, "-20"},	 {0.06, "0.06"}};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		svg_fmt_tick(s, sizeof(s), c[i].v);
		assert_string_equal(s, c[i].want);
	}
}

static void test_escape_html_specials_controls_and_bad_utf8(UNIT_STATE)
{
	struct hbuf h = {0};
	hb_esc(&h, "<script>alert('x')</script>&\"");
	assert_string_equal(h.b.p, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;");
	h.b.len = 0;
	hb_esc(&h, "a\x01"
		   "b\x7f"
		   "c\xff"
		   "d\xc3\xa9"
		   "\xe2\x82"
		   "e");
	/* controls, a stray byte and a cut 3-byte sequence each one U+FFFD; é kept */
	assert_string_equal(h.b.p, "a\xef\xbf\xbd"
				   "b\xef\xbf\xbd"
				   "c\xef\xbf\xbd"
				   "d\xc3\xa9"
				   "\xef\xbf\xbd\xef\xbf\xbd"
				   "e");
	h.b.len = 0;
	hb_esc(&h, "\xed\xa0\x80|\xc0\xaf|\xf4\x90\x80\x80"); /* surrogate, overlong, > U+10FFFF */
	assert_null(strchr(h.b.p, '\xed'));
	assert_null(strchr(h.b.p, '\xc0'));
	assert_null(strchr(h.b.p, '\xf4'));
	assert_int_equal(h.err, 0);
	buf_free(&h.b);
}

static void test_printf_longer_than_its_scratch(UNIT_STATE)
{
	struct hbuf h = {0};
	char big[3000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	hb_puts(&h, "<");
	hb_printf(&h, "%s|%d", big, 42);
	assert_int_equal(h.b.len, 1 + 2999 + 3);
	assert_string_equal(h.b.p + 3000, "|42");
	buf_free(&h.b);
}

static void test_chart_has_id_title_axes_and_escaped_labels(UNIT_STATE)
{
	struct hbuf h = {0};
	struct svg_chart c;
	static const char *const cat[] = {"<b>"};
	svg_chart_begin(&c, &h, "x\"y", "cells", "t<", 0, 0, false, 0, 97, false, "a&b", "ms", cat,
			1);
	svg_bar(&c, 0.1, 0.9, 50, 1);
	svg_vmarker(&c, 0.5, "defrag: madvise -> defer", 0);
	svg_chart_end(&c);
	assert_contains(h.b.p, "id=\"x&quot;y\" class=\"chart cells\"");
	assert_contains(h.b.p, "<title>t&lt;</title>");
	assert_contains(h.b.p, ">&lt;b&gt;</text>");
	assert_contains(h.b.p, ">a&amp;b</text>");
	assert_contains(h.b.p, ">100</text>"); /* the top tick of 0..97 */
	assert_contains(h.b.p, "defrag: madvise -&gt; defer");
	assert_contains(h.b.p, "class=\"bar s1\"");
	assert_null(strstr(h.b.p, "<b>"));
	/* the bar from y=0 (px 270) to 50 of 100 (px 155) */
	assert_contains(h.b.p, "y=\"155.0\"");
	assert_contains(h.b.p, "height=\"115.0\"");
	buf_free(&h.b);
}

/* Clock ticks at whole steps of local time, at most 7 intervals; labels by the step. */
static void test_clock_ticks(UNIT_STATE)
{
	double t[24], step;
	char l[32];
	/* 02:59:58 .. 03:01:13 UTC (75 s): 15 s steps from 03:00:00 */
	double t0 = 1764644398, t1 = t0 + 75;
	int n = svg_ticks_clock(t0, t1, 0, t, 24, &step);
	assert_true(step == 15);
	assert_int_equal(n, 5);
	svg_fmt_clock(l, sizeof(l), t[0], 0, step);
	assert_string_equal(l, "03:00:00");
	svg_fmt_clock(l, sizeof(l), t[4], 0, step);
	assert_string_equal(l, "03:01:00");
	/* 20 minutes at UTC+05:30: 5-minute steps aligned to the local clock, "HH:MM" */
	n = svg_ticks_clock(t0, t0 + 1200, 19800, t, 24, &step);
	assert_true(step == 300);
	svg_fmt_clock(l, sizeof(l), t[0], 19800, step);
	assert_string_equal(l, "08:30");
	assert_int_equal(n, 4);
	/* 10 days: whole days doubled to 7 intervals at most (2 days), "MM-DD" */
	n = svg_ticks_clock(t0, t0 + 10 * 86400, 0, t, 24, &step);
	assert_true(step == 2 * 86400);
	assert_int_equal(n, 5);
	svg_fmt_clock(l, sizeof(l), t[0], 0, step);
	assert_string_equal(l, "12-04");
}

UNIT_TESTS(test_linear_ticks_widen_to_a_1_2_5_step, test_clock_ticks,
	   test_linear_ticks_of_an_empty_range, test_log_ticks_cover_the_range,
	   test_min_max_let_a_nan_give_way, test_scales_map_ends_and_middle, test_tick_labels,
	   test_escape_html_specials_controls_and_bad_utf8, test_printf_longer_than_its_scratch,
	   test_chart_has_id_title_axes_and_escaped_labels)
