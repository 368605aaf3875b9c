// SPDX-License-Identifier: MIT
/* Unit tests: src/render/watch.c (the lines and JSON of `thpctl watch`). */
#include "unit.h"

#include "render/watch.h"

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

UNIT_TESTS(test_line, test_json, test_screen_fit)
