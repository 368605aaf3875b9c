// SPDX-License-Identifier: MIT
/* Unit tests: src/util/wrap.c (wrapping one line of human output to a width). */
#include "unit.h"

#include "util/wrap.h"

/* LINE wrapped to WIDTH gives WANT. */
struct wrap_case {
	const char *name; /* the behaviour */
	size_t width;
	const char *line, *want;
};

static const struct wrap_case wrap_cases[] = {
	{"a line of exactly W columns is kept", 20, "abcd efgh ijkl mnopq", "abcd efgh ijkl mnopq"},
	{"a line of W + 1 columns is cut at the last space that fits", 20, "abcd efgh ijkl mnopqr",
	 "abcd efgh ijkl\n    mnopqr"},
	{"continuations hang: the line's leading spaces + 4", 20,
	 "  alpha beta gamma delta epsilon", "  alpha beta gamma\n      delta epsilon"},
	{"the indent is at most W / 2", 20, "            aaaa bbbb cccc",
	 "            aaaa\n          bbbb cccc"},
	{"colour escapes count 0: 26 bytes, 18 columns, kept", 20,
	 "\033[31mwarn\033[0m: twelve chars", "\033[31mwarn\033[0m: twelve chars"},
	{"colour escapes count 0 when cutting", 20, "\033[31mwarn\033[0m: aaaa bbbb cccc dddd",
	 "\033[31mwarn\033[0m: aaaa bbbb cccc\n    dddd"},
	{"UTF-8 counts code points: 'µs' is 2 (21 bytes, 20 columns, kept)", 20,
	 "p99 latency: 1234 µs", "p99 latency: 1234 µs"},
	{"UTF-8: 21 columns are cut, the number with its unit", 20, "p99 latency: 12345 µs",
	 "p99 latency:\n    12345 µs"},
	{"a number and its unit are never split: '0 kB' moves whole", 24,
	 "  1  root  0 kB  0 kB  0 kB", "  1  root  0 kB  0 kB\n      0 kB"},
	{"a unit followed by punctuation stays with its number", 14, "waited on 12 ms, twice",
	 "waited on\n    12 ms,\n    twice"},
	{"a word that only starts like a unit is not one", 14, "had 12 shrinkers",
	 "had 12\n    shrinkers"},
	{"a unit after two spaces (another column) may move alone", 10, "size 12  kB",
	 "size 12\n    kB"},
	{"a word that fits a line of its own goes there, uncut", 40,
	 "see the path /sys/kernel/mm/transparent_hugepage now",
	 "see the path\n    /sys/kernel/mm/transparent_hugepage\n    now"},
	{"a path longer than a line breaks after a '/' that fits", 30,
	 "0  /usr/lib/python3/dist-packages/numpy/core/_umath.so",
	 "0\n    /usr/lib/python3/\n    dist-packages/numpy/core/\n    _umath.so"},
	{"a piece with no '/' that fits is cut after its last character that fits", 20,
	 "see /sys/kernel/mm/transparent_hugepage/enabled now",
	 "see\n    /sys/kernel/mm/\n    transparent_huge\n    page/enabled now"},
	{"a first word longer than W is broken too", 10, "0123456789abc de",
	 "0123456789\n    abc de"},
	{"a broken word keeps UTF-8 characters whole", 8, "µµµµµµµµµµ", "µµµµµµµµ\n    µµ"},
	{"several spaces between words are kept where no cut is made", 20,
	 "a   b   c   d   e   f   g", "a   b   c   d   e\n    f   g"},
	{"trailing spaces of a wide line are dropped", 10, "aaaa bbbb       ", "aaaa bbbb"},
	{"width 0: no wrapping", 0, "abcd efgh ijkl mnopqr stuv", "abcd efgh ijkl mnopqr stuv"},
	{"an empty line stays empty", 20, "", ""},
};

static void test_wrap_line_cuts_at_spaces_with_a_hanging_indent(UNIT_STATE)
{
	for (size_t i = 0; i < UNIT_LEN(wrap_cases); i++) {
		const struct wrap_case *c = &wrap_cases[i];
		print_message("%s\n", c->name);
		struct buf b = {0};
		assert_int_equal(wrap_line(&b, c->line, strlen(c->line), c->width), 0);
		assert_non_null(b.p);
		assert_string_equal(b.p, c->want);
		assert_int_equal(b.len, strlen(c->want));
		buf_free(&b);
	}
}

static void test_wrap_line_appends_to_what_the_buffer_holds(UNIT_STATE)
{
	struct buf b = {0};
	assert_int_equal(wrap_line(&b, "one two|", 8, 80), 0);
	assert_int_equal(wrap_line(&b, "three four five", 15, 10), 0);
	assert_string_equal(b.p, "one two|three four\n    five");
	buf_free(&b);
}

/* A help text's rows: words continue under the second column (two blanks or more end the
 * first), a line without one (or with one past half the width) under its own indent. */
static void test_help_line_continues_under_its_column(UNIT_STATE)
{
	static const struct wrap_case c[] = {
		{"a row: under its text", 30, "  tlb   TLB reach and miss penalty per size",
		 "  tlb   TLB reach and miss\n        penalty per size"},
		{"a flag with a value, then its text", 32,
		 "  --runs N   repetitions, default 5 or 3",
		 "  --runs N   repetitions,\n             default 5 or 3"},
		{"a text on its own line: under its indent", 30,
		 "          khugepaged: run as found, then",
		 "          khugepaged: run as\n          found, then"},
		{"a paragraph: at its start", 20, "Reproduce the classic THP experiments",
		 "Reproduce the\nclassic THP\nexperiments"},
		{"a second column past half the width: under its indent", 20,
		 "  --a-long-flag  its words here", "  --a-long-flag  its\n  words here"},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		struct buf b = {0};
		assert_int_equal(wrap_help_line(&b, c[i].line, strlen(c[i].line), c[i].width), 0);
		unit_row_str(c[i].name, "the lines", b.p, c[i].want);
		buf_free(&b);
	}
}

static void test_display_width_counts_code_points_without_escapes(UNIT_STATE)
{
	const char *s = "\033[1;31mµs\033[0m";
	assert_int_equal(wrap_display_width(s, strlen(s)), 2);
	assert_int_equal(wrap_display_width("µs µs", strlen("µs µs")), 5);
	/* a CSI cut short at the end counts 0, not its bytes */
	assert_int_equal(wrap_display_width("ab\033[1", 5), 2);
	assert_int_equal(wrap_display_width("", 0), 0);
}

/* The width byte by byte, as wrap_display_width counts it without its eight-byte steps. */
static size_t width_bytewise(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		if (n - i >= 2 && s[i] == '\033' && s[i + 1] == '[') {
			size_t j = i + 2;
			while (j < n &&
			       !((unsigned char)s[j] >= 0x40 && (unsigned char)s[j] <= 0x7e))
				j++;
			i = j < n ? j + 1 : n;
			continue;
		}
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
		i++;
	}
	return w;
}

/* Plain runs are counted eight bytes at a time: the same width as byte by byte for any mix of
 * ASCII, escapes (a colour, a cut one), UTF-8 and bytes next to ESC (0x1a, 0x1c) at every offset. */
static void test_display_width_words_same_as_bytes(UNIT_STATE)
{
	static const char alphabet[] = {'a', ' ',    '\033', '[',  'm', '1',
					';', '\xc3', '\xa9', 0x1a, 0x1c};
	char s[64];
	unsigned seed = 99;
	for (int t = 0; t < 200000; t++) {
		seed = seed * 1103515245u + 12345u;
		size_t n = (seed >> 16) % sizeof(s);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			/* mostly plain: the eight-byte steps run, then meet the odd byte */
			s[i] = (seed >> 16) % 4 ? 'x' : alphabet[(seed >> 20) % sizeof(alphabet)];
		}
		if (wrap_display_width(s, n) != width_bytewise(s, n))
			fail_msg("case %d: %zu vs %zu", t, wrap_display_width(s, n),
				 width_bytewise(s, n));
	}
	const char *c = "plain text, then \033[1mbold\033[0m and caf\xc3\xa9 and more";
	assert_int_equal(wrap_display_width(c, strlen(c)), strlen(c) - 8 - 1);
}

static void test_width_comes_from_columns_then_80(UNIT_STATE)
{
	assert_int_equal(wrap_width(true), 0);
	setenv("COLUMNS", "100", 1);
	assert_int_equal(wrap_width(false), 100);
	setenv("COLUMNS", "39", 1); /* under 40: not taken */
	size_t w = wrap_width(false);
	assert_true(w == 80 || (isatty(STDOUT_FILENO) && w >= 40));
	unsetenv("COLUMNS");
}

/* A shell command to paste: broken between its words only, " \" ending each broken line. */
static void test_command_breaks_between_words_only(UNIT_STATE)
{
	static const struct {
		const char *name;
		size_t indent, width;
		const char *cmd, *want;
	} c[] = {
		{"it fits: as it is, indented", 2, 30, "echo 512 > /a/b", "  echo 512 > /a/b"},
		{"no width: one line", 2, 0, "echo 512 > /sys/kernel/mm/hugepages/x",
		 "  echo 512 > /sys/kernel/mm/hugepages/x"},
		{"a path wider than the room moves whole, after a \\", 2, 30,
		 "echo 512 > /sys/devices/system/node/node0/nr_hugepages",
		 "  echo 512 > \\\n      /sys/devices/system/node/node0/nr_hugepages"},
		{"a path too wide for the hanging indent starts further left, to fit", 2, 60,
		 "echo 512 > /sys/devices/system/node/node0/hugepages/nr_hugepages x",
		 "  echo 512 > \\\n     /sys/devices/system/node/node0/hugepages/nr_hugepages x"},
		{"... at column 0 when it needs the whole width", 2, 43,
		 "echo 512 > /sys/devices/system/node/node0/nr_hugepages",
		 "  echo 512 > \\\n/sys/devices/system/node/node0/nr_hugepages"},
		{"... and where it cannot fit, at the hanging indent as before", 2, 42,
		 "echo 512 > /sys/devices/system/node/node0/nr_hugepages",
		 "  echo 512 > \\\n      /sys/devices/system/node/node0/nr_hugepages"},
		{"never inside '...', \"...\" or $'...' (their spaces are not breaks)", 0, 24,
		 "run -- 'a b c d' \"e f g h\" $'i\\' j\\nk l' x",
		 "run -- 'a b c d' \\\n    \"e f g h\" \\\n    $'i\\' j\\nk l' x"},
		{"a backslash-escaped space is not a break (the word starts left of the hanging indent, to fit)",
		 0, 10, "ab c\\ d\\ e f", "ab \\\n c\\ d\\ e f"},
		{"a comment is one word", 0, 30,
		 "systemctl edit a.service  # [Service] MemoryTHP=x",
		 "systemctl edit a.service \\\n    # [Service] MemoryTHP=x"},
		{"room is kept for the \\ of a word that is not the last", 0, 11, "abcd efgh ij",
		 "abcd efgh \\\n    ij"},
		{"a word whose \\ would pass the width moves", 0, 10, "abcd efgh ij",
		 "abcd \\\n    efgh \\\n    ij"},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		struct buf b = {0};
		assert_int_equal(
			wrap_command(&b, c[i].cmd, strlen(c[i].cmd), c[i].indent, c[i].width), 0);
		unit_row_str(c[i].name, "the lines", b.p, c[i].want);
		buf_free(&b);
	}
}

/* Broken or not, bash reads the same words: printf '%s\0' of the lines gives each back. */
static void test_command_broken_reads_the_same_in_bash(UNIT_STATE)
{
	const char *cmd = "printf '%s\\0' /usr/bin/python3 -c $'import os\\nprint(\\'a b\\')' "
			  "'x y' \"p q\" r\\ s '' # a comment";
	static char want[256], got[256];
	long nw = unit_bash(cmd, want, sizeof(want));
	if (nw < 0)
		skip();
	for (size_t width = 10; width < 90; width += 7) {
		struct buf b = {0};
		assert_int_equal(wrap_command(&b, cmd, strlen(cmd), 4, width), 0);
		assert_int_equal(unit_bash(b.p, got, sizeof(got)), nw);
		assert_memory_equal(got, want, (size_t)nw);
		buf_free(&b);
	}
}

/* Through the stdout filter: a command is broken between its words, a file's line never; the
 * other lines as before. */
static void test_filter_writes_pasted_lines_as_they_are(UNIT_STATE)
{
	struct unit_capture cap;
	unit_capture_begin(&cap, 1);
	assert_int_equal(wrap_stdout(24, NULL, NULL), 0);
	assert_int_equal(wrap_stdout_width(), 24);
	printf("aaaa bbbb cccc dddd eeee ffff\n");
	wrap_put_command(stdout, 2, "run -c $'a long script\\nwith lines' x");
	wrap_put_verbatim(stdout, 2, "w /sys/a/long/path/nr_hugepages - - - - 512");
	wrap_put_command(stdout, 2, "esc\x1b[2J");
	assert_int_equal(wrap_end(), 0);
	char buf[512];
	unit_capture_end(&cap, buf, sizeof(buf));
	assert_string_equal(buf, "aaaa bbbb cccc dddd eeee\n    ffff\n"
				 "  run -c \\\n      $'a long script\\nwith lines' \\\n      x\n"
				 "  w /sys/a/long/path/nr_hugepages - - - - 512\n"
				 "  esc\\x1b[2J\n");
}

UNIT_TESTS(test_wrap_line_cuts_at_spaces_with_a_hanging_indent,
	   test_wrap_line_appends_to_what_the_buffer_holds,
	   test_help_line_continues_under_its_column,
	   test_display_width_counts_code_points_without_escapes,
	   test_display_width_words_same_as_bytes, test_width_comes_from_columns_then_80,
	   test_command_breaks_between_words_only, test_command_broken_reads_the_same_in_bash,
	   test_filter_writes_pasted_lines_as_they_are)
