// SPDX-License-Identifier: MIT
/* Unit tests: src/render/report*.c (HTML reports) and lab_series_add (src/lab/lab.c). */
#include "unit.h"

#include "lab/lab.h"
#include "render/lab.h"
#include "render/ab.h"
#include "render/report.h"

#include <math.h>

static struct lab_result res;

/* More samples than a series keeps: sorted quantiles with both ends, and the count kept. */
static void test_series_thins_a_cdf_by_rank(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	static double v[1001];
	for (int i = 0; i <= 1000; i++)
		v[i] = 1000 - i; /* descending: 1000 .. 0 */
	int k = lab_series_add(&res, "cdf", "madv fresh", LAB_SER_CDF, "latency", "µs", v, NULL,
			       NULL, NULL, 1001);
	assert_int_equal(k, 0);
	const struct lab_series *s = &res.series[0];
	assert_int_equal(s->n, LAB_SERIES_POINTS);
	assert_int_equal(s->n_total, 1001);
	assert_true(s->y[0] == 0 && s->y[LAB_SERIES_POINTS - 1] == 1000);
	assert_true(s->y[1] == 4); /* rank 1000/255 = 3.92 rounds to 4 */
	for (int i = 1; i < s->n; i++)
		assert_true(s->y[i] >= s->y[i - 1]);
	/* a few samples are kept as they are, in order */
	double few[3] = {5, 1, 3};
	lab_series_add(&res, "cdf", "plain", LAB_SER_CDF, "latency", "µs", few, NULL, NULL, NULL,
		       3);
	assert_true(res.series[1].y[0] == 5 && res.series[1].y[2] == 3);
	for (int i = 2; i < LAB_MAX_SERIES; i++)
		assert_int_equal(
			lab_series_add(&res, "x", "y", LAB_SER_LINE, "", "", few, "", "", few, 3),
			i);
	assert_int_equal(lab_series_add(&res, "x", "y", LAB_SER_LINE, "", "", few, "", "", few, 3),
			 -1);
}

/* Labels, proofs and the verdict come from processes and the kernel: all escaped. */
static void test_lab_section_escapes_and_has_a_chart_per_unit(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	snprintf(res.experiment, sizeof(res.experiment), "touch");
	snprintf(res.title, sizeof(res.title), "t<i>");
	int c0 = lab_col_add(&res, "time", "ms"), c1 = lab_col_add(&res, "huge", "");
	int r0 = lab_row_add(&res, "<img src=x onerror=alert(1)>");
	double v[3] = {1.5, 2.25, 40};
	lab_cell_set(&res, r0, c0, v, 3);
	lab_cell_set1(&res, r0, c1, 128);
	lab_proof(&res, "k&", "comm \"</script>\"");
	lab_verdict(&res, true, "ok <b>");
	struct hbuf h = {0};
	report_lab(&h, &res, 3);
	assert_int_equal(h.err, 0);
	assert_null(strstr(h.b.p, "<img"));
	assert_null(strstr(h.b.p, "</script>"));
	assert_null(strstr(h.b.p, "<b>"));
	assert_contains(h.b.p, "&lt;img src=x onerror=alert(1)&gt;");
	assert_contains(h.b.p, "k&amp;: comm &quot;&lt;/script&gt;&quot;");
	assert_contains(h.b.p, "id=\"lab-3-touch-cells-0\" class=\"chart cells\"");
	assert_contains(h.b.p, "id=\"lab-3-touch-cells-1\" class=\"chart cells\"");
	/* the table beside the chart: median (min..max) as the text output has them */
	assert_contains(h.b.p, "<td>2.25 (1.50..40)</td>");
	assert_contains(h.b.p, "<td>128</td>");
	buf_free(&h.b);
}

/* The page of the N recorded LINES (JSON objects) into H. */
static void watch_page(struct hbuf *h, const char *const *lines, size_t n,
		       const struct report_ctx *ctx)
{
	json_t *rec[8];
	assert_true(n <= UNIT_LEN(rec));
	for (size_t i = 0; i < n; i++)
		assert_non_null(rec[i] = json_loads(lines[i], 0, NULL));
	assert_int_equal(report_watch(h, rec, n, ctx), 0);
	for (size_t i = 0; i < n; i++)
		json_decref(rec[i]);
}

/* Two records with defrag changed: one marker and one row in the changes table; the time axis
 * in the recording host's zone (UTC+01:00); the empty series listed, the numbers folded. */
static void test_watch_marks_a_setting_change(UNIT_STATE)
{
	const char *lines[3] = {
		"{\"time_s\":100.0,\"rates_per_s\":{\"thp_fault_alloc\":2.5,\"compact_stall\":null},"
		"\"anon_huge_pages_kb\":4096,\"settings\":{\"enabled\":\"always\",\"defrag\":\"madvise\"}}",
		"{\"time_s\":101.0,\"rates_per_s\":{\"thp_fault_alloc\":7,\"compact_stall\":1},"
		"\"anon_huge_pages_kb\":6144,\"settings\":{\"enabled\":\"always\",\"defrag\":\"defer\"}}",
		"{\"time_s\":102.0,\"rates_per_s\":{\"thp_fault_alloc\":0,\"compact_stall\":0},"
		"\"anon_huge_pages_kb\":6144,\"settings\":{\"enabled\":\"always\",\"defrag\":\"defer\","
		"\"khugepaged/defrag\":1}}"};
	struct report_ctx ctx = {.tz_known = true, .utc_off_s = 3600, .tz = "CET"};
	struct hbuf h = {0};
	watch_page(&h, lines, 3, &ctx);
	assert_contains(h.b.p, "id=\"watch-rates\"");
	assert_contains(h.b.p, "id=\"watch-anonhuge\"");
	assert_contains(h.b.p, "<figcaption>THP event rates per second (host-wide)</figcaption>");
	/* t=100 s is 00:01:40 UTC, 01:01:40 at UTC+01:00 */
	assert_contains(h.b.p, ">local time (UTC+01:00)</text>");
	assert_contains(h.b.p, ">01:01:40</text>");
	assert_contains(
		h.b.p,
		"<tr><td>1.0</td><td>defrag: madvise -&gt; defer</td><td>01:01:41</td></tr>");
	assert_contains(
		h.b.p,
		"<tr><td>2.0</td><td>khugepaged/defrag: (none) -&gt; 1</td><td>01:01:42</td></tr>");
	assert_contains(h.b.p, "<tr><td>1.0</td><td>01:01:41</td><td>7</td><td>-</td><td>1</td>");
	assert_contains(h.b.p,
			"<tr><td>0.0</td><td>01:01:40</td><td>2.50</td><td>-</td><td>-</td>");
	assert_contains(h.b.p, "<tr><td>1.0</td><td>01:01:41</td><td>6</td></tr>"); /* MiB */
	/* the tables' headers carry the cells' unit, as the charts' axes do */
	assert_contains(h.b.p, "<tr><th>t (s)</th><th>local time</th><th>AnonHugePages "
			       "(MiB)</th></tr>");
	assert_contains(h.b.p, "<th>fault alloc (events/s)</th>");
	assert_contains(h.b.p, "no value in the recording: fault fallback, split_pmd, khugepaged "
			       "collapse");
	assert_contains(h.b.p, "<details><summary>the numbers: 3 intervals</summary>");
	/* the legend names the drawn series only, in their own colours */
	assert_contains(h.b.p, "<rect class=\"bar s2\" x=");
	assert_null(strstr(h.b.p, ">fault fallback</text>"));
	buf_free(&h.b);
	json_t *bad = json_loads("{\"x\":1}", 0, NULL);
	struct hbuf h2 = {0};
	assert_int_equal(report_watch(&h2, &bad, 1, &ctx), -EINVAL);
	buf_free(&h2.b);
	json_decref(bad);
}

/* Records without settings ("settings":null: watch could not read them) between two that
 * differ: the change is kept, marked where the settings are known again, said to lie in the gap. */
static void test_watch_change_across_records_without_settings(UNIT_STATE)
{
	const char *lines[4] = {
		"{\"time_s\":100.0,\"rates_per_s\":{},\"settings\":{\"defrag\":\"madvise\"}}",
		"{\"time_s\":101.0,\"rates_per_s\":{},\"settings\":null}",
		"{\"time_s\":102.0,\"rates_per_s\":{},\"settings\":null}",
		"{\"time_s\":103.0,\"rates_per_s\":{},\"settings\":{\"defrag\":\"defer\"}}"};
	struct report_ctx ctx = {.tz_known = true, .utc_off_s = 0, .tz = "UTC"};
	struct hbuf h = {0};
	watch_page(&h, lines, 4, &ctx);
	assert_contains(h.b.p, "; 1 setting change</p>");
	assert_contains(h.b.p, "<tr><td>3.0</td><td>defrag: madvise -&gt; defer (between 0.0 s and "
			       "3.0 s)</td><td>00:01:43</td></tr>");
	buf_free(&h.b);
}

/* A series that is 0 throughout is listed as such, not drawn under another line. */
static void test_watch_lists_series_that_are_zero(UNIT_STATE)
{
	json_t *rec[2];
	for (int i = 0; i < 2; i++)
		assert_non_null(rec[i] = json_pack("{s:f, s:{s:i, s:i, s:i, s:i, s:i}, s:i}",
						   "time_s", 1000.0 + i * 30, "rates_per_s",
						   "thp_fault_alloc", 5 + i, "thp_fault_fallback",
						   0, "compact_stall", 0, "thp_split_pmd", 0,
						   "thp_collapse_alloc", 0, "anon_huge_pages_kb",
						   0));
	struct hbuf h = {0};
	assert_int_equal(report_watch(&h, rec, 2, NULL), 0);
	assert_contains(h.b.p, "0 throughout the recording (not drawn): fault fallback, "
			       "compact_stall, split_pmd, khugepaged collapse");
	assert_int_equal(strstr(h.b.p, "class=\"ln s1\"") == NULL, 1); /* fault fallback */
	assert_contains(h.b.p, "class=\"ln s0\"");
	/* AnonHugePages 0 throughout: said inside its chart */
	assert_contains(h.b.p, ">0 throughout the recording</text>");
	/* no time zone known: UTC, 00:16:40 and 00:17:10 */
	assert_contains(h.b.p, ">time (UTC)</text>");
	assert_contains(h.b.p, "<td>00:17:10</td>");
	buf_free(&h.b);
	for (int i = 0; i < 2; i++)
		json_decref(rec[i]);
}

/* Every page says what it is about; unknown fields say so; strings escaped. */
static void test_page_context(UNIT_STATE)
{
	struct report_ctx ctx = {.host = "db<1>",
				 .kernel = "6.18.0",
				 .version = "0.1.0",
				 .command = "thpctl ab -- sh -c 'x & y'",
				 .t0 = 1764646812, /* 2025-12-02 03:40:12 UTC */
				 .t1 = 1764647113,
				 .tz_known = true,
				 .utc_off_s = -5 * 3600 - 1800,
				 .tz = "XST"};
	struct hbuf h = {0};
	report_begin(&h, "thpctl ab", &ctx);
	report_end(&h);
	assert_contains(h.b.p, "<tr><th>host</th><td>db&lt;1&gt;</td></tr>");
	assert_contains(h.b.p, "<tr><th>kernel</th><td>6.18.0</td></tr>");
	assert_contains(h.b.p, "<tr><th>thpctl</th><td>0.1.0</td></tr>");
	assert_contains(h.b.p, "<td><code>thpctl ab -- sh -c &#39;x &amp; y&#39;</code></td>");
	assert_contains(h.b.p, "<time datetime=\"2025-12-02T03:40:12Z\">2025-12-02 03:40:12</time> "
			       "to 03:45:13 UTC (301 s)");
	assert_contains(h.b.p, ">2025-12-01 22:10:12</time> to 22:15:13 XST (UTC-05:30)");
	buf_free(&h.b);
	struct report_ctx none = {.t0 = NAN, .t1 = NAN, .note = "no header"};
	struct hbuf h2 = {0};
	report_begin(&h2, "x", &none);
	assert_contains(h2.b.p, "<tr><th>host</th><td>unknown</td></tr>");
	assert_contains(h2.b.p, "<tr><th>data (UTC)</th><td>unknown</td></tr>");
	assert_contains(h2.b.p, "<tr><th>data (local)</th><td>unknown</td></tr>");
	assert_contains(h2.b.p, "<p class=\"meta\">no header</p>");
	buf_free(&h2.b);
}

/* ab: the THP evidence in the page; a chart without intervals says why inside it. */
static void test_ab_evidence_and_too_few_runs(UNIT_STATE)
{
	static struct ab_mode m[2];
	static struct ab_summary s[2];
	memset(m, 0, sizeof(m));
	assert_int_equal(ab_mode_parse("off", &m[0]), 0);
	assert_int_equal(ab_mode_parse("host", &m[1]), 0);
	for (int i = 0; i < 2; i++) {
		m[i].nruns = 3;
		for (int k = 0; k < 3; k++)
			m[i].runs[k] = (struct ab_run){.ok = true,
						       .wall_s = 1.0 + 0.1 * k + i,
						       .ahp_peak_kb = i ? 4096 * (k + 1) : 0,
						       .anon_peak_kb = 16384,
						       .samples = 3,
						       .delta = {[AC_FAULT_ALLOC] = i ? 8 : 0,
								 [AC_FAULT_FALLBACK] = 0,
								 [AC_COMPACT_STALL] = i ? 2 : 0,
								 [AC_SPLIT_PMD] = -1,
								 [AC_COLLAPSE_ALLOC] = -1}};
	}
	ab_summarize(m, 2, 0, s);
	char *cmd[] = {"true", NULL};
	struct ab_report r = {.modes = m, .sum = s, .n = 2, .cmd = cmd, .runs = 3};
	struct hbuf h = {0};
	report_ab(&h, &r);
	assert_contains(h.b.p, "id=\"ab-share\"");
	assert_contains(h.b.p,
			">too few runs for an interval (--runs 3; 4 or more per mode)</text>");
	assert_contains(h.b.p, ">the base</text>");
	/* evidence: AnonHugePages peak median 8 MiB, 50% of anon, fault_alloc +8, compact_stall +2 */
	assert_contains(h.b.p,
			"<tr><td>host</td><td>8</td><td>50</td><td>8</td><td>0</td><td>2</td>"
			"<td>- (the mode intends no direction)</td></tr>");
	assert_contains(h.b.p, "<tr><td>off</td><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td>"
			       "<td>no AnonHugePages, as the mode intends</td></tr>");
	assert_contains(h.b.p, "<tr><td>host</td><td>3</td><td>50</td><td>25</td><td>75</td></tr>");
	buf_free(&h.b);
}

/* A mode that failed after some runs is not judged: no "as the mode intends" beside its 0 MiB
 * peak in the page, null in the JSON (its proof was never evaluated). */
static void test_ab_failed_mode_not_judged(UNIT_STATE)
{
	static struct ab_mode m[2];
	static struct ab_summary s[2];
	memset(m, 0, sizeof(m));
	assert_int_equal(ab_mode_parse("off", &m[0]), 0);
	assert_int_equal(ab_mode_parse("glibc", &m[1]), 0);
	for (int i = 0; i < 2; i++) {
		m[i].nruns = 3;
		for (int k = 0; k < 3; k++)
			m[i].runs[k] = (struct ab_run){.ok = true,
						       .wall_s = 1.0 + 0.1 * k,
						       .anon_peak_kb = 16384,
						       .samples = 3};
	}
	m[1].failed = true;
	m[1].fail = AF_EXIT;
	m[1].fail_code = 1;
	m[1].fail_run = 3;
	ab_summarize(m, 2, 0, s);
	char *cmd[] = {"true", NULL};
	struct ab_report r = {.modes = m, .sum = s, .n = 2, .cmd = cmd, .runs = 4};
	struct hbuf h = {0};
	report_ab(&h, &r);
	assert_contains(h.b.p, "<td>not judged: the mode did not finish</td></tr>");
	assert_null(strstr(h.b.p, "more AnonHugePages than the base"));
	buf_free(&h.b);
	json_t *o = ab_to_json(&r);
	json_t *g = json_array_get(json_object_get(o, "modes"), 1);
	assert_true(json_is_null(json_object_get(g, "proof_contradicts_intent")));
	g = json_array_get(json_object_get(o, "modes"), 0);
	assert_true(json_is_false(json_object_get(g, "proof_contradicts_intent")));
	json_decref(o);
}

/* The lab JSON carries the series the charts draw. */
static void test_lab_json_has_the_series(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	double x[2] = {64, 1024}, y[2] = {90.5, 300};
	lab_series_add(&res, "chase", "huge", LAB_SER_LINE, "ns per access", "ns", y, "size", "MiB",
		       x, 2);
	json_t *o = lab_to_json(&res);
	json_t *s = json_array_get(json_object_get(o, "series"), 0);
	assert_string_equal(json_string_value(json_object_get(s, "kind")), "line");
	assert_string_equal(json_string_value(json_object_get(s, "x_unit")), "MiB");
	assert_true(json_real_value(json_array_get(json_object_get(s, "y"), 0)) == 90.5);
	assert_true(json_is_integer(json_array_get(json_object_get(s, "x"), 1)) &&
		    json_number_value(json_array_get(json_object_get(s, "x"), 1)) == 1024);
	json_decref(o);
}

UNIT_TESTS(test_series_thins_a_cdf_by_rank, test_lab_section_escapes_and_has_a_chart_per_unit,
	   test_watch_marks_a_setting_change, test_watch_change_across_records_without_settings,
	   test_watch_lists_series_that_are_zero, test_page_context,
	   test_ab_evidence_and_too_few_runs, test_ab_failed_mode_not_judged,
	   test_lab_json_has_the_series)
