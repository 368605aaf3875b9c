// SPDX-License-Identifier: MIT
/* Unit tests: src/util/esc.c (terminal-safe text: the one escaper, the stderr filter). */
#include "unit.h"

#include "util/esc.h"

static void test_controls_and_invalid_utf8_are_escaped(UNIT_STATE)
{
	char o[256];
	/* the archive member of issue 24: clear screen, set the title, bell */
	const char evil[] = "proc/\x1b[2J\x1b]0;TITLE\x07 evil";
	size_t need = esc_text(o, sizeof(o), LIT(evil), 0);
	assert_int_equal(need, strlen(o));
	assert_string_equal(o, "proc/\\x1b[2J\\x1b]0;TITLE\\x07 evil");
	/* CR, DEL, a C1 control as UTF-8 (an 8-bit CSI), a raw 0x9b, invalid bytes */
	esc_text(o, sizeof(o),
		 LIT("a\rb\x7f"
		     "c\xc2\x9b"
		     "d\x9b"
		     "e\xff\xc3("),
		 0);
	assert_string_equal(o, "a\\x0db\\x7fc\\xc2\\x9bd\\x9be\\xff\\xc3(");
	/* valid UTF-8 is kept, U+00A0 and above */
	esc_text(o, sizeof(o), LIT("caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac"), 0);
	assert_string_equal(o, "caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac");
	/* newline and tab only when asked */
	esc_text(o, sizeof(o), LIT("a\nb\tc"), 0);
	assert_string_equal(o, "a\\x0ab\\x09c");
	esc_text(o, sizeof(o), LIT("a\nb\tc"), ESC_KEEP_NL | ESC_KEEP_TAB);
	assert_string_equal(o, "a\nb\tc");
	/* a NUL inside the length is a control too */
	esc_text(o, sizeof(o), "a\0b", 3, 0);
	assert_string_equal(o, "a\\x00b");
	assert_false(esc_needed(LIT("plain text \xc3\xa9"), 0));
	assert_true(esc_needed(LIT("x\x1b"), 0));
	assert_true(esc_needed(LIT("x\n"), 0));
	assert_false(esc_needed(LIT("x\n"), ESC_KEEP_NL));
}

static void test_cut_at_a_whole_escape(UNIT_STATE)
{
	char o[8];
	/* "ab\x1b" needs 6 bytes: "ab\x1b" fits in 8 with the NUL, "ab\x1b\x1b" does not */
	assert_int_equal(esc_text(o, sizeof(o), LIT("ab\x1b\x1b"), 0), 10);
	assert_string_equal(o, "ab\\x1b");
	char t[4];
	esc_text(t, sizeof(t), LIT("\x1b"), 0); /* an escape never cut in half */
	assert_string_equal(t, "");
	assert_int_equal(esc_text(NULL, 0, LIT("\x01\x02"), 0), 8);
	char *d = esc_dup("\x1b[31mred", 0);
	assert_non_null(d);
	assert_string_equal(d, "\\x1b[31mred");
	free(d);
	assert_null(esc_dup(NULL, 0));
	char b[16];
	assert_string_equal(esc_buf(b, sizeof(b), "x\x07y"), "x\\x07y");
}

/* The stderr filter: what any warnx() writes reaches fd 2 escaped, lines and tabs kept. */
static void test_stderr_filter(UNIT_STATE)
{
	char path[] = "/tmp/thpctl-esc.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	assert_int_equal(dup2(fd, 2), 2);
	FILE *raw = esc_stderr_filter();
	assert_non_null(raw);
	assert_true(esc_raw_stderr() == raw);
	assert_true(esc_stderr_filter() == raw); /* once */
	fprintf(stderr, "thpctl: member 'proc/\x1b[2J\x1b]0;T\x07' refused\n\tnext\n");
	/* a UTF-8 character split across two writes stays whole */
	fputs("caf\xc3", stderr);
	fputs("\xa9 \xc2", stderr);
	fputs("\x9b!\n", stderr);
	fputs("\r\x1b[K", raw); /* our own controls, under the filter */
	fflush(raw);
	dup2(saved, 2);
	close(saved);
	char buf[512] = {0};
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	assert_string_equal(buf, "thpctl: member 'proc/\\x1b[2J\\x1b]0;T\\x07' refused\n\tnext\n"
				 "caf\xc3\xa9 \\xc2\\x9b!\n\r\x1b[K");
}

UNIT_TESTS(test_controls_and_invalid_utf8_are_escaped, test_cut_at_a_whole_escape,
	   test_stderr_filter)
