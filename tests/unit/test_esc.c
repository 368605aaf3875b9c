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
	struct unit_capture cap;
	unit_capture_begin(&cap, 2);
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
	char buf[512];
	unit_capture_end(&cap, buf, sizeof(buf));
	assert_string_equal(buf, "thpctl: member 'proc/\\x1b[2J\\x1b]0;T\\x07' refused\n\tnext\n"
				 "caf\xc3\xa9 \\xc2\\x9b!\n\r\x1b[K");
}

/* One word quoted for a shell, byte for byte: bare, '...', or $'...' when it holds a control
 * byte or bytes that are not UTF-8 (never a raw control, never a '?' for one). */
static void test_shell_quote_words(UNIT_STATE)
{
	static const struct unit_text_str c[] = {
		{LIT("redis-server"), "redis-server"},
		{LIT("KEY=v,a:b@c%d+e/f.g-h_i"), "KEY=v,a:b@c%d+e/f.g-h_i"},
		{LIT("a b"), "'a b'"},
		{LIT("it's"), "'it'\\''s'"},
		{LIT("$HOME `x` \"q\" *"), "'$HOME `x` \"q\" *'"},
		{LIT("=cmd"), "'=cmd'"}, /* zsh expands a bare =cmd */
		{LIT("caf\xc3\xa9"), "'caf\xc3\xa9'"},
		{LIT("a\nb"), "$'a\\nb'"},
		{LIT("a\tb"), "$'a\\tb'"},
		{LIT("\x1b[31m"), "$'\\e[31m'"},
		{LIT("caf\xff"), "$'caf\\xff'"},
		{LIT("\r\x7f\xc2\x9b"), "$'\\x0d\\x7f\\xc2\\x9b'"},
		{LIT("it's a\\b\n"), "$'it\\'s a\\\\b\\n'"},
		{LIT("\xc3\xa9\n"), "$'\xc3\xa9\\n'"}, /* valid UTF-8 kept inside $'...' too */
		{"", 0, "''"},
	};
	char out[128];
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		size_t need = shell_quote(out, sizeof(out), c[i].text, c[i].len);
		unit_row_str(c[i].want, "the word", out, c[i].want);
		unit_row_int(c[i].want, "its length", (long long)need,
			     (long long)strlen(c[i].want));
	}
	char tiny[5];
	assert_int_equal(shell_quote(tiny, sizeof(tiny), LIT("a b c")), 7);
	assert_string_equal(tiny, ""); /* never a cut word */
	assert_int_equal(shell_quote(NULL, 0, LIT("\n")), 5);
}

/* A NUL-separated argv, its words joined: the last word's NUL ends it, an empty one is ''. */
static void test_shell_quote_argv(UNIT_STATE)
{
	static const struct unit_text_str c[] = {
		{LIT("redis-server\0/etc/redis.conf\0"), "redis-server /etc/redis.conf"},
		{LIT("sh\0-c\0echo 'hi' $HOME\0"), "sh -c 'echo '\\''hi'\\'' $HOME'"},
		{LIT("a\0\0b"), "a '' b"},
		{LIT("a\0\0"), "a ''"},
		{LIT("x\x1b[31m\0"), "$'x\\e[31m'"},
		{LIT("python3\0-c\0import os\nprint(1)\0"), "python3 -c $'import os\\nprint(1)'"},
		{"", 0, ""},
	};
	char out[128];
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		unit_row_int(c[i].want, "shell_quote_argv",
			     shell_quote_argv(c[i].text, c[i].len, out, sizeof(out)), 0);
		unit_row_str(c[i].want, "the command line", out, c[i].want);
	}
	char tiny[8];
	assert_int_equal(shell_quote_argv(LIT("redis-server\0"), tiny, sizeof(tiny)), -ENOSPC);
	assert_string_equal(tiny, "");
	char t64[64];
	assert_int_equal(shell_quote_argv(LIT("/usr/bin/redis-server unixsocket:/tmp/why/r.sock\0"),
					  t64, sizeof(t64)),
			 0);
	assert_string_equal(t64, "'/usr/bin/redis-server unixsocket:/tmp/why/r.sock'");
	char t13[13], t14[14];
	assert_int_equal(shell_quote_argv(LIT("redis-server\0"), t13, sizeof(t13)), 0);
	assert_string_equal(t13, "redis-server"); /* 12 bytes and the NUL: exactly */
	assert_int_equal(shell_quote_argv(LIT("redis-server\0x\0"), t14, sizeof(t14)), -ENOSPC);
}

/* What bash makes of the quoted argv is the argv: printf '%s\0' WORDS gives each byte back. */
static void test_shell_quote_round_trips_through_bash(UNIT_STATE)
{
	char every[255]; /* bytes 1..255 in one word: controls, DEL, C1, invalid UTF-8 */
	for (int b = 1; b < 256; b++)
		every[b - 1] = (char)b;
	struct {
		const char *argv;
		size_t len;
	} c[] = {
		{LIT("plain\0a b\0it's\0a\nb\0a\tb\0\x1b[2J\0caf\xff\0\0caf\xc3\xa9\0")},
		{LIT("/usr/bin/python3\0-c\0import mmap,time\nm=mmap.mmap(-1, 64<<20)\n"
		     "print('ready', flush=True)\ntime.sleep(600)\0")},
		{LIT("$HOME\0`id`\0\"q\"\0*\0~\0#x\0=x\0!x\0a\\\0\\'\0-n\0")},
		{every, sizeof(every)},
	};
	static char q[4096], script[4200], got[4096];
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		assert_int_equal(shell_quote_argv(c[i].argv, c[i].len, q, sizeof(q)), 0);
		assert_false(esc_needed(q, strlen(q), 0)); /* nothing raw for a terminal */
		snprintf(script, sizeof(script), "printf '%%s\\0' %s\n", q);
		long n = unit_bash(script, got, sizeof(got));
		if (n < 0)
			skip();
		/* the argv with each word NUL-terminated */
		size_t want = c[i].len + (c[i].argv[c[i].len - 1] != '\0');
		assert_int_equal(n, (long)want);
		assert_memory_equal(got, c[i].argv, c[i].len);
	}
}

UNIT_TESTS(test_controls_and_invalid_utf8_are_escaped, test_cut_at_a_whole_escape,
	   test_stderr_filter, test_shell_quote_words, test_shell_quote_argv,
	   test_shell_quote_round_trips_through_bash)
