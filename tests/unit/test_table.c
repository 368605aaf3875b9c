// SPDX-License-Identifier: MIT
/* Unit tests: src/render/table.c (fitting tables to the terminal width). */
#include "unit.h"

#include "render/table.h"

/* A name column ('L'), a value column ('l') and a number column ('r'), printed at WIDTH. */
static char *print_at(int width, const char *align)
{
	static char out[1024];
	memset(out, 0, sizeof(out));
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	assert_non_null(f);
	table_set_width(width);
	struct table *t = table_new(3, (const char *const[]){"NAME", "STATE", "KB"}, align);
	table_cell(t, "khugepaged/alloc_sleep_millisecs");
	table_cell(t, "on");
	table_cell(t, "123456789");
	table_cell(t, "short");
	table_cell(t, "off");
	table_cell(t, "7");
	table_print(t, f, 2, false);
	table_free(t);
	fclose(f);
	table_set_width(0);
	return out;
}

static void test_no_width_prints_names_whole(UNIT_STATE)
{
	assert_string_equal(print_at(0, "Llr"),
			    "  NAME                              STATE         KB\n"
			    "  khugepaged/alloc_sleep_millisecs  on     123456789\n"
			    "  short                             off            7\n");
	assert_int_equal(table_width(), 0);
}

static void test_name_column_cut_to_width_numbers_whole(UNIT_STATE)
{
	/* 2 + name + 2 + 5 + 2 + 9 = 30: the name gets 10 characters */
	const char *s = print_at(30, "Llr");
	assert_string_equal(s, "  NAME        STATE         KB\n"
			       "  khug~isecs  on     123456789\n"
			       "  short       off            7\n");
	/* every line fits */
	for (const char *l = s; *l;) {
		const char *e = strchr(l, '\n');
		assert_true(e - l <= 30);
		l = e + 1;
	}
}

static void test_name_never_below_minimum(UNIT_STATE)
{
	/* 2 + 8 + 2 + 5 + 2 + 9 = 28: the name at TABLE_MIN_NAME just fits */
	assert_contains(print_at(28, "Llr"), "  khu~secs  on     123456789\n");
}

static void test_name_not_cut_when_the_row_would_not_fit_anyway(UNIT_STATE)
{
	/* too narrow for even TABLE_MIN_NAME: cutting the name would lose it for nothing (the
	 * line is wrapped, util/wrap.h), so it stays whole */
	assert_contains(print_at(27, "Llr"),
			"  khugepaged/alloc_sleep_millisecs  on     123456789\n");
	assert_contains(print_at(10, "Llr"),
			"  khugepaged/alloc_sleep_millisecs  on     123456789\n");
}

static void test_without_name_column_nothing_is_cut(UNIT_STATE)
{
	/* 'l' and 'r' columns are values: never cut, however narrow */
	assert_contains(print_at(20, "llr"),
			"  khugepaged/alloc_sleep_millisecs  on     123456789\n");
}

static void test_cut_keeps_utf8_characters_whole(UNIT_STATE)
{
	char out[64] = "";
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	fputs_cut("h\xc3\xa9llo w\xc3\xb6rld", 6, f); /* "héllo wörld": "hé~rld" */
	fputs("|", f);
	fputs_cut("abc", 3, f); /* fits: unchanged */
	fputs("|", f);
	fputs_cut("abcd", 0, f); /* no room: nothing */
	fclose(f);
	assert_string_equal(out, "h\xc3\xa9~rld|abc|");
	f = fmemopen(out, sizeof(out) - 1, "w");
	fputs_cut("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4, f); /* 5 x é into 4: é~éé */
	fclose(f);
	assert_string_equal(out, "\xc3\xa9~\xc3\xa9\xc3\xa9");
}

/* Five columns printed with a stack width of WIDTH (no cutting width). */
static char *print_stacked(int width)
{
	static char out[1024];
	memset(out, 0, sizeof(out));
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	assert_non_null(f);
	table_set_stack_width(width);
	struct table *t = table_new(
		5, (const char *const[]){"PID", "COMM", "RSS", "FLAGS", "REASON"}, "rlrll");
	const char *const cells[] = {"1",
				     "init",
				     "12.6 MiB",
				     "hg nh",
				     "a reason long enough to wrap on its own line",
				     "20431",
				     "bash",
				     "4 kB",
				     "",
				     "none"};
	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++)
		table_cell(t, "%s", cells[i]);
	table_print(t, f, 2, false);
	table_free(t);
	fclose(f);
	table_set_stack_width(0);
	return out;
}

static void test_stacked_when_wider_than_the_output(UNIT_STATE)
{
	/* 2 + 5 + 2 + 4 + 2 + 8 = 23 fits 28; FLAGS (+7) does not: FLAGS and REASON go to a
	 * second line, 4 further in, aligned under their own header line; a blank FLAGS
	 * leaves no trailing blanks */
	assert_string_equal(print_stacked(28),
			    "    PID  COMM       RSS\n"
			    "      FLAGS  REASON\n"
			    "      1  init  12.6 MiB\n"
			    "      hg nh  a reason long enough to wrap on its own line\n"
			    "  20431  bash      4 kB\n"
			    "             none\n");
	/* at 30 FLAGS fits and only the last column (free text, it wraps) would go on a
	 * line of its own: one line a row */
	const char *s = print_stacked(30);
	assert_contains(s, "    PID  COMM       RSS  FLAGS  REASON\n");
	assert_contains(s, "  20431  bash      4 kB         none\n");
	/* no width (a pipe with --wide, --json): one line a row */
	assert_contains(print_stacked(0), "  1  init  12.6 MiB  hg nh  a reason long enough");
}

/* A number in the last column goes under its own header when it does not fit: the word
 * wrapper would split a header such as "% OF RSS" ("% OF" / "RSS") and leave the number
 * under neither. */
static void test_last_number_column_stacks(UNIT_STATE)
{
	char out[512] = "";
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	assert_non_null(f);
	table_set_stack_width(24); /* 9 + 2 + 7 fits, + 2 + 8 does not */
	struct table *t = table_new(3, (const char *const[]){"NAME", "MEMORY", "% OF RSS"}, "lrr");
	table_cell(t, "%s", "/dev/zero");
	table_cell(t, "%s", "8192 kB");
	table_cell(t, "%s", "100%");
	table_print(t, f, 0, false);
	table_free(t);
	fclose(f);
	table_set_stack_width(0);
	assert_string_equal(out, "NAME        MEMORY\n"
				 "    % OF RSS\n"
				 "/dev/zero  8192 kB\n"
				 "        100%\n");
}

/* A "%s" cell is copied without a format pass, and escaped and measured like any other. */
static void test_string_cells_escaped_and_measured(UNIT_STATE)
{
	char out[256] = "";
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	assert_non_null(f);
	struct table *t = table_new(2, (const char *const[]){"COMM", "N"}, "lr");
	table_cell(t, "%s", "red\x1b[31mx\nz"); /* from a process: never raw on a terminal */
	table_cell(t, "%s", "7");
	table_cell(t, "%s", "h\xc3\xa9");
	table_cell(t, "%d", 42);
	table_cell(t, "%s", "");
	table_cell(t, "%s", "-");
	table_print(t, f, 0, false);
	table_free(t);
	fclose(f);
	assert_string_equal(out, "COMM                N\n"
				 "red\\x1b[31mx\\x0az   7\n"
				 "h\xc3\xa9                 42\n"
				 "                    -\n");
}

struct gen {
	int n;
	const char
		*wide; /* the last row's name: the widest, seen only when every row is measured */
};

/* Row I of table_print_rows(): a name and a number; every third row left out (no cells). */
static void gen_row(size_t i, struct table *t, void *ctx)
{
	const struct gen *g = ctx;
	if (i % 3 == 2)
		return;
	if ((int)i == g->n - 1)
		table_cell(t, "%s", g->wide);
	else
		table_cell(t, "row-%zu", i);
	table_cell(t, "%zu", i * 1000);
	table_cell(t, "%s", i == 1 ? "a\033b" : "x");
}

/* Rows made on demand print exactly as the same rows held: widths of every row (the widest
 * last), stacking, escapes; a row the maker leaves out is not printed. */
static void test_rows_on_demand_print_as_held(UNIT_STATE)
{
	char a[8192] = {0}, b[8192] = {0};
	struct gen g = {.n = 41, .wide = "the-widest-name-of-them-all"};
	table_set_stack_width(30);
	for (int on_demand = 0; on_demand < 2; on_demand++) {
		FILE *f = fmemopen(on_demand ? b : a, sizeof(a) - 1, "w");
		assert_non_null(f);
		struct table *t = table_new(3, (const char *const[]){"NAME", "KB", "NOTE"}, "lrl");
		table_cell(t, "held");
		table_cell(t, "1");
		table_cell(t, "first");
		if (on_demand) {
			table_print_rows(t, f, 2, false, (size_t)g.n, gen_row, &g);
			assert_int_equal(table_rows(t), 1); /* only the row it held */
		} else {
			for (int i = 0; i < g.n; i++)
				gen_row((size_t)i, t, &g);
			table_print(t, f, 2, false);
		}
		table_free(t);
		fclose(f);
	}
	table_set_stack_width(0);
	assert_string_equal(a, b);
	/* stacked at 30 columns: the numbers on a line of their own, widths from every row */
	assert_non_null(strstr(b, "  the-widest-name-of-them-all\n      40000  x\n"));
	assert_non_null(strstr(b, "  row-0\n          0  x\n"));
	assert_non_null(strstr(b, "a\\x1bb")); /* escaped, as a held cell is */
	assert_null(strstr(b, "row-2 "));      /* left out */
}

UNIT_TESTS(test_rows_on_demand_print_as_held, test_no_width_prints_names_whole,
	   test_name_column_cut_to_width_numbers_whole, test_name_never_below_minimum,
	   test_name_not_cut_when_the_row_would_not_fit_anyway,
	   test_without_name_column_nothing_is_cut, test_cut_keeps_utf8_characters_whole,
	   test_stacked_when_wider_than_the_output, test_last_number_column_stacks,
	   test_string_cells_escaped_and_measured)
