// SPDX-License-Identifier: MIT
/* Unit tests: src/render/watch.c (the lines and JSON of `thpctl watch`). */
#include "unit.h"

#include "render/table.h"
#include "render/watch.h"
#include "render/watch_int.h"
#include "util/wrap.h"

#include <time.h>

static void mk_row(struct watch_row *row)
{
	memset(row, 0, sizeof(*row));
	row->wall_s = 1700000000;
	row->interval_s = 1.0;
	for (int c = 0; c < WC_N; c++)
		row->r[c] = (struct rate){.state = RATE_OK};
	row->r[WC_FAULT_ALLOC] = (struct rate){.state = RATE_OK, .delta = 3, .per_s = 1.5};
	row->r[WC_FAULT_FALLBACK] = (struct rate){.state = RATE_OK, .delta = 250, .per_s = 125};
	row->r[WC_SPLIT_PMD] = (struct rate){.state = RATE_ABSENT};
	row->r[WC_PGSCAN_DIRECT] = (struct rate){.state = RATE_RESET, .delta = 8, .per_s = 8};
	row->anon_huge_kb = (struct opt_u64){.v = 131072, .present = true};
	row->has_anon_huge_delta = true;
	row->anon_huge_delta_kb = -2048;
	row->free_pmd_blocks = (struct opt_u64){.v = 1506, .present = true};
	row->pmd_kb = 2048;
	row->nsizes = 1;
	row->sizes[0] = (struct size_rate){
		.size_kb = 64,
		.alloc = {.state = RATE_OK, .delta = 32, .per_s = 32},
		.fallback = {.state = RATE_OK},
	};
}

static void test_line(UNIT_STATE)
{
	static struct watch_row row;
	char line[1024];
	mk_row(&row);
	struct watch_hdr h = {.interval_s = 1, .pmd_kb = 2048};
	watch_format_line(line, sizeof(line), &h, &row, false);
	/* values, in column order; absent is "-" */
	assert_non_null(strstr(line, "    1.5       125 "));
	assert_non_null(strstr(line, "  128.0 MiB      1506  64kB 32/0"));
	assert_null(strchr(line, '!'));
	assert_null(strchr(line, '\033'));
	char *dash = strstr(line, "          -  ");
	assert_non_null(dash); /* split_pmd absent */
	/* a compaction stall: '!' without colour, red with it */
	row.r[WC_COMPACT_STALL] = (struct rate){.state = RATE_OK, .delta = 2, .per_s = 2};
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_non_null(strstr(line, " 2!"));
	assert_null(strchr(line, '\033'));
	watch_format_line(line, sizeof(line), &h, &row, true);
	assert_non_null(strstr(line, "\033[1;31m"));
	assert_non_null(strstr(line, "2!\033[0m"));
	/* columns line up with the header whatever the values */
	char hdr[4096];
	FILE *f = fmemopen(hdr, sizeof(hdr), "w");
	assert_non_null(f);
	watch_render_header(f, &h, false);
	fclose(f);
	assert_int_equal(hdr[0], '#');
	assert_non_null(strstr(hdr, "every 1 s"));
	assert_non_null(strstr(hdr, "events/s"));
	assert_non_null(strstr(hdr, "2048 kB"));
	const char *names = strchr(hdr, '\n') + 1;
	const char *end = strstr(names, "freePMD") + strlen("freePMD");
	watch_format_line(line, sizeof(line), &h, &row, false);
	/* the freePMD value ends where its title ends */
	const char *v = unit_find(line, "1506");
	assert_int_equal((int)(v + 4 - line), (int)(end - names));
	/* under a second apart: tenths, so two rows in one second differ; still aligned */
	h.interval_s = 0.5;
	row.wall_s = 1700000000.75;
	f = fmemopen(hdr, sizeof(hdr), "w");
	assert_non_null(f);
	watch_render_header(f, &h, false);
	fclose(f);
	names = strchr(hdr, '\n') + 1;
	end = strstr(names, "freePMD") + strlen("freePMD");
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_int_equal(line[8], '.');
	assert_int_equal(line[9], '7');
	v = unit_find(line, "1506");
	assert_int_equal((int)(v + 4 - line), (int)(end - names));
	row.wall_s = 1700000000.25;
	char line2[1024];
	watch_format_line(line2, sizeof(line2), &h, &row, false);
	assert_int_equal(line2[9], '2');
	/* a small buffer is cut, never overrun */
	char tiny[16];
	watch_format_line(tiny, sizeof(tiny), &h, &row, false);
	assert_true(strlen(tiny) < sizeof(tiny));
}

static void test_json(UNIT_STATE)
{
	static struct watch_row row;
	mk_row(&row);
	row.ntop = 1;
	row.top[0] = (struct proc_change){.pid = 99,
					  .rss_kb = 70000,
					  .anon_huge_kb = 65536,
					  .rss_delta_kb = 66000,
					  .anon_huge_delta_kb = 65536,
					  .anon_huge_known = true,
					  .appeared = true};
	snprintf(row.top[0].comm, sizeof(row.top[0].comm), "thp_helper");
	json_t *j = watch_row_to_json(&row, true);
	assert_non_null(j);
	json_t *rates = json_object_get(j, "rates_per_s");
	assert_true(json_real_value(json_object_get(rates, "thp_fault_alloc")) == 1.5);
	assert_true(json_is_null(json_object_get(rates, "thp_split_pmd")));
	assert_true(json_real_value(json_object_get(rates, "pgscan_direct")) == 8);
	json_t *deltas = json_object_get(j, "deltas");
	assert_int_equal(json_integer_value(json_object_get(deltas, "thp_fault_fallback")), 250);
	assert_true(json_is_null(json_object_get(deltas, "thp_split_pmd")));
	json_t *resets = json_object_get(j, "resets");
	assert_int_equal(json_array_size(resets), 1);
	assert_string_equal(json_string_value(json_array_get(resets, 0)), "pgscan_direct");
	{ /* a per-size counter that went down is a reset too, named by its kernel path */
		static struct watch_row r2;
		r2 = row;
		r2.sizes[0].fallback = (struct rate){.state = RATE_RESET, .delta = 3, .per_s = 3};
		json_t *j2 = watch_row_to_json(&r2, false);
		json_t *rs = json_object_get(j2, "resets");
		assert_int_equal(json_array_size(rs), 2);
		assert_string_equal(json_string_value(json_array_get(rs, 1)),
				    "hugepages-64kB/stats/anon_fault_fallback");
		json_decref(j2);
	}
	assert_true(json_is_false(json_object_get(j, "compact_stall_increment")));
	assert_int_equal(json_integer_value(json_object_get(j, "anon_huge_pages_kb")), 131072);
	assert_int_equal(json_integer_value(json_object_get(j, "anon_huge_pages_delta_kb")), -2048);
	assert_int_equal(json_integer_value(json_object_get(j, "free_pmd_blocks")), 1506);
	json_t *m = json_array_get(json_object_get(j, "mthp"), 0);
	assert_int_equal(json_integer_value(json_object_get(m, "size_kb")), 64);
	assert_true(json_real_value(json_object_get(m, "anon_fault_alloc_per_s")) == 32);
	json_t *t = json_array_get(json_object_get(j, "top"), 0);
	assert_int_equal(json_integer_value(json_object_get(t, "pid")), 99);
	assert_string_equal(json_string_value(json_object_get(t, "comm")), "thp_helper");
	assert_int_equal(json_integer_value(json_object_get(t, "anon_huge_delta_kb")), 65536);
	assert_true(json_is_true(json_object_get(t, "appeared")));
	json_decref(j);
	/* without --top there is no "top" key */
	j = watch_row_to_json(&row, false);
	assert_null(json_object_get(j, "top"));
	json_decref(j);
}

/* Rows the header takes at WIDTH columns, lines folded by the terminal (no colour). */
static size_t header_rows(const struct watch_hdr *h, size_t width)
{
	char hdr[4096];
	FILE *f = fmemopen(hdr, sizeof(hdr), "w");
	assert_non_null(f);
	watch_render_header(f, h, false);
	fclose(f);
	size_t rows = 0;
	for (const char *l = hdr; *l;) {
		size_t n = strcspn(l, "\n");
		rows += n ? (n + width - 1) / width : 1;
		l += n + (l[n] == '\n');
	}
	return rows;
}

/*
 * The refreshed screen shows only the rows that fit: the legend wraps and a 142-column row
 * takes 2 rows of an 80-column terminal. It showed rows - 3 lines whatever their width, so
 * the header scrolled off an 80 x 24 terminal from about the 9th interval.
 */
static void test_screen_fit(UNIT_STATE)
{
	char wide[143];
	memset(wide, 'x', 142);
	wide[142] = '\0';
	char *lines[30];
	for (int i = 0; i < 30; i++)
		lines[i] = wide;
	struct watch_hdr h = {.interval_s = 1, .pmd_kb = 2048, .width = 80};
	size_t fixed = header_rows(&h, 80) + 1; /* and the cursor's line */
	size_t show = watch_screen_fit(&h, lines, 30, NULL, false, 24, 80);
	assert_int_equal(show, (24 - fixed) / 2);
	assert_true(fixed + 2 * show <= 24);
	/* wide enough: a row each */
	h.width = 300;
	fixed = header_rows(&h, 300) + 1;
	assert_int_equal(watch_screen_fit(&h, lines, 30, NULL, false, 24, 300), 24 - fixed);
	/* fewer lines than room: all; a tiny terminal: still the newest one */
	assert_int_equal(watch_screen_fit(&h, lines, 3, NULL, false, 24, 300), 3);
	assert_int_equal(watch_screen_fit(&h, lines, 30, NULL, false, 2, 80), 1);
	assert_int_equal(watch_screen_fit(&h, lines, 0, NULL, false, 24, 80), 0);
}

/* The header of H as text (no colour) into BUF (N bytes). */
static void header_text(char *buf, size_t n, const struct watch_hdr *h, bool color)
{
	FILE *f = fmemopen(buf, n, "w");
	assert_non_null(f);
	watch_render_header(f, h, color);
	fclose(f);
}

/* Fail unless every line of TEXT (escape sequences taking no column) is at most MAX wide. */
static void assert_lines_within(const char *text, size_t max)
{
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		if (wrap_display_width(l, n) > max)
			fail_msg("a line of %zu columns (at most %zu): \"%.*s\"",
				 wrap_display_width(l, n), max, (int)n, l);
		l += n + (l[n] == '\n');
	}
}

/* The line of TEXT that starts with PREFIX (its first), or fail. */
static const char *line_starting(const char *text, const char *prefix)
{
	for (const char *l = text; *l;) {
		if (strncmp(l, prefix, strlen(prefix)) == 0)
			return l;
		l += strcspn(l, "\n");
		l += *l == '\n';
	}
	fail_msg("no line starts with \"%s\"", prefix);
	return NULL;
}

/* The column just after the end of word W on the line L (the line's first W). */
static int end_col(const char *l, const char *w)
{
	const char *p = strstr(l, w);
	assert_non_null(p);
	assert_true(p < l + strcspn(l, "\n"));
	return (int)(p - l) + (int)strlen(w);
}

static void utc(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
}

/*
 * The layout follows the width: 0 (--wide) or at least the wide title line (148 columns, 150
 * with tenths) is the wide one, anything narrower the compact one.
 */
static void test_layout_by_width(UNIT_STATE)
{
	struct watch_hdr h = {.interval_s = 1, .pmd_kb = 2048};
	assert_false(watch_compact(&h));
	h.width = 80;
	assert_true(watch_compact(&h));
	assert_int_equal(watch_compact_width(&h), 78);
	h.width = 147;
	assert_true(watch_compact(&h));
	h.width = 148;
	assert_false(watch_compact(&h));
	h.interval_s = 0.5; /* tenths: 2 columns more */
	assert_true(watch_compact(&h));
	assert_int_equal(watch_compact_width(&h), 80);
	h.width = 150;
	assert_false(watch_compact(&h));
	h.width = 40;
	assert_true(watch_compact(&h));
}

/* Width 0 (--wide) and a width that holds it give today's wide line and title, to the byte. */
static void test_wide_unchanged(UNIT_STATE)
{
	static struct watch_row row;
	char a[1024], b[1024];
	utc();
	mk_row(&row);
	row.r[WC_COMPACT_STALL] = (struct rate){.state = RATE_OK, .delta = 2, .per_s = 2};
	struct watch_hdr h = {.interval_s = 1, .pmd_kb = 2048};
	watch_format_line(a, sizeof(a), &h, &row, false);
	assert_string_equal(a,
			    "22:13:20      1.5       125         0          0        0          - "
			    "        0        2!        0           0          8   128.0 MiB      "
			    "1506  64kB 32/0");
	h.width = 148;
	watch_format_line(b, sizeof(b), &h, &row, false);
	assert_string_equal(a, b);
	char hdr[4096];
	header_text(hdr, sizeof(hdr), &h, false);
	assert_non_null(strstr(hdr, "\ntime        alloc  fallback  collapse  coll_fail    split  "
				    "split_pmd  deferred   c_stall   c_fail  allocstall   "
				    "pgscan_d    AnonHuge   freePMD  mTHP\n"));
	assert_null(strstr(hdr, "khugepaged alloc, fail")); /* not the compact legend */
}

/* A row with worst-case values (tenths, every rate 1234567/s and a stall, 900 GiB, 123456 blocks). */
static void worst_row(struct watch_row *row)
{
	mk_row(row);
	row->wall_s = 1700000000.75;
	for (int c = 0; c < WC_N; c++)
		row->r[c] = (struct rate){.state = RATE_OK, .delta = 1234567, .per_s = 1234567};
	row->anon_huge_kb.v = 900ull << 20;
	row->free_pmd_blocks.v = 123456;
	row->nsizes = 0;
}

/*
 * The compact row: every value in its column (right-aligned under its title), '-' for
 * unknown, k/M/G beyond 4 digits, AnonHugePages in binary units, mTHP on a line under it.
 */
static void test_compact_row(UNIT_STATE)
{
	static struct watch_row row;
	char line[1024], hdr[4096];
	utc();
	mk_row(&row);
	struct watch_hdr h = {.interval_s = 1, .pmd_kb = 2048, .width = 80};
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_string_equal(line, "22:13:20   1.5  125     0    0    0    -     0    0     0     0 "
				  "   8 128M 1506\n"
				  "         mTHP  64kB 32/0");
	/* no size moved: no continuation line */
	row.nsizes = 0;
	row.r[WC_COLLAPSE_ALLOC] = (struct rate){.state = RATE_OK, .delta = 12345, .per_s = 12345};
	row.anon_huge_kb.v = 991232;
	row.free_pmd_blocks.v = 123456;
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_string_equal(line, "22:13:20   1.5  125   12k    0    0    -     0    0     0     0 "
				  "   8 968M 123k");
	/* the values end where their titles end */
	header_text(hdr, sizeof(hdr), &h, false);
	const char *titles = line_starting(hdr, "time ");
	assert_int_equal(end_col(line, "1.5"), end_col(titles, "alloc"));
	assert_int_equal(end_col(line, "125"), end_col(titles, "fall"));
	assert_int_equal(end_col(line, "12k"), end_col(titles, "alloc fail") - 5);
	assert_int_equal(end_col(line, "968M"), end_col(titles, "Huge"));
	assert_int_equal(end_col(line, "123k"), end_col(titles, "PMD"));
	assert_int_equal(end_col(line, "8"), end_col(titles, "scan"));
	/* unknown: '-' in each column, the row as wide */
	for (int c = 0; c < WC_N; c++)
		row.r[c] = (struct rate){.state = c % 2 ? RATE_ABSENT : RATE_NEW};
	row.anon_huge_kb.present = false;
	row.free_pmd_blocks.present = false;
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_string_equal(line, "22:13:20     -    -     -    -    -    -     -    -     -     - "
				  "   -    -    -");
	assert_int_equal(strlen(line), 78);
}

/* Worst-case values still fit 80 columns, with tenths, '!' and colour; nothing is cut. */
static void test_compact_worst_case_fits_80(UNIT_STATE)
{
	static struct watch_row row;
	char line[1024];
	utc();
	worst_row(&row);
	struct watch_hdr h = {.interval_s = 0.5, .pmd_kb = 2048, .width = 80};
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_string_equal(line, "22:13:20.7  1.2M 1.2M  1.2M 1.2M 1.2M 1.2M  1.2M 1.2M! 1.2M  "
				  "1.2M 1.2M 900G 123k");
	assert_int_equal(strlen(line), 80);
	watch_format_line(line, sizeof(line), &h, &row, true);
	assert_int_equal((int)wrap_display_width(line, strlen(line)), 80);
	assert_non_null(strstr(line, " \033[1;31m1.2M!\033[0m "));
	/* the '!' sits after the stall's field: values line up with a row without a stall */
	char plain[1024];
	row.r[WC_COMPACT_STALL].delta = 0;
	watch_format_line(plain, sizeof(plain), &h, &row, false);
	assert_int_equal(strlen(plain), 80);
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_null(strchr(line, '!'));
	row.r[WC_COMPACT_STALL] = (struct rate){.state = RATE_OK, .delta = 1, .per_s = 0.3};
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_non_null(strstr(line, " 1.2M  0.3! 1.2M "));
	/* a width below what the layout needs: the row stays whole, as wide as at 80 */
	h.width = 40;
	watch_format_line(plain, sizeof(plain), &h, &row, false);
	assert_string_equal(plain, line);
	/* a small buffer is cut, never overrun */
	char tiny[16];
	watch_format_line(tiny, sizeof(tiny), &h, &row, false);
	assert_true(strlen(tiny) < sizeof(tiny));
}

/* The compact header: groups over short titles, each named by its kernel counter, within 80. */
static void test_compact_header(UNIT_STATE)
{
	char hdr[4096];
	struct watch_hdr h = {.interval_s = 0.5, .pmd_kb = 2048, .width = 80};
	header_text(hdr, sizeof(hdr), &h, false);
	assert_lines_within(hdr, 80);
	assert_true(strncmp(line_starting(hdr, "#     "), "#     ", 6) == 0); /* the legend wraps */
	const char *groups = line_starting(hdr, "           ");
	const char *titles = line_starting(hdr, "time ");
	assert_true(titles > groups);
	assert_int_equal(strcspn(groups, "\n"), 80);
	assert_int_equal(strcspn(titles, "\n"), 80);
	assert_true(
		strncmp(groups,
			"           -THP fault khugepaged -----split----- compaction --reclaim- "
			"Anon free\n",
			81) == 0);
	assert_true(
		strncmp(titles,
			"time       alloc fall alloc fail page  pmd defer stall fail stall scan "
			"Huge  PMD\n",
			81) == 0);
	/* each group over its columns: "khugepaged" spans alloc and fail */
	assert_int_equal(end_col(groups, "khugepaged"), end_col(titles, "alloc fail"));
	assert_int_equal(end_col(groups, "compaction"), end_col(titles, "stall fail"));
	/* the legend is short (a 24-row screen keeps its rows) and says where the counters are
	 * named: `watch --help` (tests/columns.sh checks that it names each) */
	int nlegend = 0;
	for (const char *l = hdr; *l == '#'; l += strcspn(l, "\n") + 1)
		nlegend++;
	assert_int_equal(nlegend, 4);
	char legend[4096]; /* the legend's lines joined back: "\n#     " was a blank */
	size_t k = 0;
	assert_int_equal(hdr[0], '#');
	for (const char *p = hdr; *p && k < sizeof(legend) - 1; p++) {
		if (strncmp(p, "\n#     ", 7) == 0) {
			legend[k++] = ' ';
			p += 6;
		} else if (*p == '\n') {
			break;
		} else {
			legend[k++] = *p;
		}
	}
	legend[k] = '\0';
	static const char *const words[] = {
		"the /proc/vmstat counters `thpctl watch --help` names",
		"(k, M, G: thousands, millions, billions)",
		"'!': compaction stalls",
		"AnonHuge: AnonHugePages (K, M, G: KiB, MiB, GiB)",
		"freePMD: free 2048 kB blocks",
		"mTHP: SIZE alloc/fallback per s",
		"'-': unknown",
	};
	for (size_t i = 0; i < UNIT_LEN(words); i++)
		assert_contains(legend, words[i]);
	assert_true(strncmp(hdr, "# every 0.5 s; events/s of the /proc/vmstat counters", 52) == 0);
	/* unknown PMD size: "PMD blocks" */
	h.pmd_kb = 0;
	header_text(hdr, sizeof(hdr), &h, false);
	assert_non_null(strstr(hdr, "free PMD"));
	assert_null(strstr(hdr, "kB blocks"));
	h.pmd_kb = 2048;
	/* colour: bold titles, the lines as wide */
	h.width = 80;
	header_text(hdr, sizeof(hdr), &h, true);
	assert_lines_within(hdr, 80);
	assert_non_null(strstr(hdr, "\033[1m"));
	/* a width of 40: the legend within 40, the titles whole (80 with tenths) */
	h.width = 40;
	header_text(hdr, sizeof(hdr), &h, false);
	assert_int_equal(strcspn(line_starting(hdr, "time "), "\n"), 80);
	for (const char *l = hdr; *l == '#'; l += strcspn(l, "\n") + 1)
		assert_true(strcspn(l, "\n") <= 40);
}

/* The mTHP sizes that moved: a line under the row, wrapped to the width, no size broken. */
static void test_compact_mthp_lines(UNIT_STATE)
{
	static struct watch_row row;
	char line[2048];
	utc();
	worst_row(&row);
	row.nsizes = 10;
	for (int i = 0; i < row.nsizes; i++)
		row.sizes[i] = (struct size_rate){
			.size_kb = 16ull << i,
			.alloc = {.state = RATE_OK, .delta = 1234567, .per_s = 1234567},
			.fallback = {.state = i == 3 ? RATE_ABSENT : RATE_OK,
				     .delta = 1,
				     .per_s = 0.5},
		};
	struct watch_hdr h = {.interval_s = 0.5, .pmd_kb = 2048, .width = 80};
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_lines_within(line, 80);
	const char *cont = strchr(line, '\n');
	assert_non_null(cont);
	assert_true(strncmp(cont, "\n           mTHP  16kB 1.2M/0.5  32kB 1.2M/0.5", 46) == 0);
	assert_non_null(strstr(line, "  128kB 1.2M/-"));
	assert_non_null(strstr(line, "  8192kB 1.2M/0.5"));
	int nl = 0;
	for (const char *p = line; *p; p++)
		nl += *p == '\n';
	assert_int_equal(nl, 3); /* 10 sizes of 14 to 17 columns: 3 lines under an 80-column row */
	/* each continuation line under the first rate column, each size whole on one line */
	for (const char *l = cont + 1; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		assert_true(strncmp(l, "           ", 11) == 0);
		assert_true(l[11] != ' ' || strncmp(l + 11, "      ", 6) == 0);
	}
	for (int i = 0; i < row.nsizes; i++) {
		char want[32];
		snprintf(want, sizeof(want), "%llukB 1.2M/%s", (unsigned long long)(16ull << i),
			 i == 3 ? "-" : "0.5");
		assert_contains(line, want);
	}
	/* at 40 columns: more lines, none wider */
	h.width = 40;
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_lines_within(strchr(line, '\n') + 1, 40);
}

/* The screen counts a compact row's mTHP line as the terminal row it takes. */
static void test_compact_screen_fit(UNIT_STATE)
{
	static struct watch_row row;
	char line[1024];
	utc();
	mk_row(&row); /* one size moved: a row and its mTHP line */
	struct watch_hdr h = {.interval_s = 1, .pmd_kb = 2048, .width = 80};
	watch_format_line(line, sizeof(line), &h, &row, false);
	char *lines[30];
	for (int i = 0; i < 30; i++)
		lines[i] = line;
	size_t fixed = header_rows(&h, 80) + 1;
	assert_int_equal(fixed, 4 + 2 + 1); /* legend, groups and titles, the cursor's line */
	/* a 24-row terminal: 17 rows left, 8 rows with their mTHP lines */
	assert_int_equal(watch_screen_fit(&h, lines, 30, NULL, false, 24, 80), (24 - fixed) / 2);
	row.nsizes = 0; /* without: a row each */
	watch_format_line(line, sizeof(line), &h, &row, false);
	assert_int_equal(watch_screen_fit(&h, lines, 30, NULL, false, 24, 80), 24 - fixed);
	assert_int_equal(watch_screen_fit(&h, lines, 10, NULL, false, 24, 80), 10);
}

/* --top's table within 80 columns on a pipe, whatever its rows: long names, big changes, an
 * unreadable process's note (stacked under its row rather than past the width). */
static void test_top_fits_80(UNIT_STATE)
{
	static struct watch_row row;
	memset(&row, 0, sizeof(row));
	row.ntop = 3;
	row.top[0] = (struct proc_change){.pid = 4194303,
					  .comm = "process_api_abc",
					  .rss_kb = 10854,
					  .rss_delta_kb = 8,
					  .anon_huge_known = false};
	row.top[1] = (struct proc_change){.pid = 1234567,
					  .comm = "postgres: walwr",
					  .rss_kb = 1073741824ull,
					  .anon_huge_kb = 1073741824ull,
					  .rss_delta_kb = -1073741824ll,
					  .anon_huge_delta_kb = -1073741824ll,
					  .anon_huge_known = true};
	row.top[2] = (struct proc_change){
		.pid = 7, .comm = "sleep", .exited = true, .anon_huge_known = true};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	table_set_stack_width(80);
	watch_render_top(f, &row, false);
	table_set_stack_width(0);
	fclose(f);
	assert_lines_within(text, 80);
	assert_non_null(strstr(text, "4194303"));
	assert_non_null(strstr(text, "unreadable"));
	free(text);
}

UNIT_TESTS(test_line, test_json, test_screen_fit, test_layout_by_width, test_wide_unchanged,
	   test_compact_row, test_compact_worst_case_fits_80, test_compact_header,
	   test_compact_mthp_lines, test_compact_screen_fit, test_top_fits_80)
