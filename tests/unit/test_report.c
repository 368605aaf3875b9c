// SPDX-License-Identifier: MIT
/* Unit tests: src/render/report*.c (HTML reports) and lab_series_add (src/lab/lab.c). */
#include "unit.h"

#include "lab/lab.h"
#include "render/lab.h"
#include "render/report.h"

static struct lab_result res;

/* More samples than a series keeps: sorted quantiles with both ends, and the count kept. */
static void test_series_thins_a_cdf_by_rank(void **state)
{
	(void)state;
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
static void test_lab_section_escapes_and_has_a_chart_per_unit(void **state)
{
	(void)state;
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

/* Two records with defrag changed: one marker and one row in the changes table. */
static void test_watch_marks_a_setting_change(void **state)
{
	(void)state;
	const char *lines[3] = {
		"{\"time_s\":100.0,\"rates_per_s\":{\"thp_fault_alloc\":2.5,\"compact_stall\":null},"
		"\"anon_huge_pages_kb\":4096,\"settings\":{\"enabled\":\"always\",\"defrag\":\"madvise\"}}",
		"{\"time_s\":101.0,\"rates_per_s\":{\"thp_fault_alloc\":7,\"compact_stall\":1},"
		"\"anon_huge_pages_kb\":6144,\"settings\":{\"enabled\":\"always\",\"defrag\":\"defer\"}}",
		"{\"time_s\":102.0,\"rates_per_s\":{\"thp_fault_alloc\":0,\"compact_stall\":0},"
		"\"anon_huge_pages_kb\":6144,\"settings\":{\"enabled\":\"always\",\"defrag\":\"defer\","
		"\"khugepaged/defrag\":1}}"};
	json_t *rec[3];
	for (int i = 0; i < 3; i++)
		assert_non_null(rec[i] = json_loads(lines[i], 0, NULL));
	struct hbuf h = {0};
	assert_int_equal(report_watch(&h, rec, 3), 0);
	assert_contains(h.b.p, "id=\"watch-rates\"");
	assert_contains(h.b.p, "id=\"watch-anonhuge\"");
	assert_contains(h.b.p, "<tr><td>1.0</td><td>defrag: madvise -&gt; defer</td></tr>");
	assert_contains(h.b.p, "<tr><td>2.0</td><td>khugepaged/defrag: (none) -&gt; 1</td></tr>");
	assert_contains(h.b.p, "<tr><td>1.0</td><td>7</td><td>-</td><td>1</td>");
	assert_contains(h.b.p, "<tr><td>0.0</td><td>2.50</td><td>-</td><td>-</td>");
	assert_contains(h.b.p, "<tr><td>1.0</td><td>6</td></tr>"); /* AnonHugePages MiB */
	buf_free(&h.b);
	json_t *bad = json_loads("{\"x\":1}", 0, NULL);
	struct hbuf h2 = {0};
	assert_int_equal(report_watch(&h2, &bad, 1), -EINVAL);
	buf_free(&h2.b);
	json_decref(bad);
	for (int i = 0; i < 3; i++)
		json_decref(rec[i]);
}

/* The lab JSON carries the series the charts draw. */
static void test_lab_json_has_the_series(void **state)
{
	(void)state;
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

UNIT_MAIN(cmocka_unit_test(test_series_thins_a_cdf_by_rank),
	  cmocka_unit_test(test_lab_section_escapes_and_has_a_chart_per_unit),
	  cmocka_unit_test(test_watch_marks_a_setting_change),
	  cmocka_unit_test(test_lab_json_has_the_series))
