// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/parse.c (numbers, sysfs choice files, line iteration). */
#include "unit.h"

#include "kernel/parse.h"

/*
 * parse_u64 over TEXT up to END (an offset; -1: all of it), V holding BEFORE:
 * gives RC; on success V is WANT and the cursor stops at offset STOP before
 * REST; on error neither the cursor nor V move.
 */
struct u64_case {
	const char *name; /* the behaviour */
	const char *text;
	int end;
	int rc;
	uint64_t before, want;
	int stop;
	const char *rest;
};

static const struct u64_case u64_cases[] = {
	{"blanks are skipped and the cursor stops right after the digits", " \t4096 kB", -1, 0, 7,
	 4096, 6, " kB"},
	{"digits past the end are not read", "123456", 3, 0, 0, 123, 3, "456"},
	{"the largest uint64_t parses", "18446744073709551615", -1, 0, 0, UINT64_MAX, 20, ""},
	{"one past the largest is ERANGE", "18446744073709551616", -1, -ERANGE, 42, 0, 0, NULL},
	{"twenty nines are ERANGE", "99999999999999999999", -1, -ERANGE, 42, 0, 0, NULL},
	{"empty text has no digits", "", -1, -EINVAL, 99, 0, 0, NULL},
	{"blanks alone have no digits", "   ", -1, -EINVAL, 99, 0, 0, NULL},
	{"a unit alone has no digits", "kB", -1, -EINVAL, 99, 0, 0, NULL},
	{"a minus sign is not a digit", "-1", -1, -EINVAL, 99, 0, 0, NULL},
	{"a plus sign is not a digit", "+1", -1, -EINVAL, 99, 0, 0, NULL},
	{"a newline is not skipped", "\n12", -1, -EINVAL, 99, 0, 0, NULL},
};

static void test_parse_u64_takes_leading_digits_or_moves_nothing(UNIT_STATE)
{
	for (size_t i = 0; i < UNIT_LEN(u64_cases); i++) {
		const struct u64_case *c = &u64_cases[i];
		print_message("%s\n", c->name);
		const char *p = c->text;
		const char *end = c->text + (c->end < 0 ? strlen(c->text) : (size_t)c->end);
		uint64_t v = c->before;
		assert_int_equal(parse_u64(&p, end, &v), c->rc);
		if (c->rc) {
			assert_ptr_equal(p, c->text);
			assert_true(v == c->before);
			continue;
		}
		assert_true(v == c->want);
		assert_ptr_equal(p, c->text + c->stop);
		assert_string_equal(p, c->rest);
	}
}

static void test_parse_u64_text(UNIT_STATE)
{
	uint64_t v = 0;
	assert_int_equal(parse_u64_text(LIT("2097152\n"), &v), 0);
	assert_int_equal(v, 2097152);
	assert_int_equal(parse_u64_text(LIT("511"), &v), 0); /* no newline */
	assert_int_equal(v, 511);
	assert_int_equal(parse_u64_text(LIT("  0 \n"), &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64_text(LIT(""), &v), -EINVAL);
	assert_int_equal(parse_u64_text(LIT("\n"), &v), -EINVAL);
	assert_int_equal(parse_u64_text(LIT("12 kB\n"), &v), -EINVAL);
	assert_int_equal(parse_u64_text(LIT("1\n2\n"), &v), -EINVAL);
	assert_int_equal(parse_u64_text(LIT("99999999999999999999\n"), &v), -ERANGE);
	/* the length bounds the parse, not a NUL */
	assert_int_equal(parse_u64_text("64garbage", 2, &v), 0);
	assert_int_equal(v, 64);
}

/* A sysfs number cut without its newline is no number: "6553" is what is left of 65536. */
static void test_sysfs_u64_parse_needs_the_final_newline(UNIT_STATE)
{
	uint64_t v = 0;
	assert_int_equal(sysfs_u64_parse(LIT("65536\n"), &v), 0);
	assert_int_equal(v, 65536);
	v = 7;
	assert_int_equal(sysfs_u64_parse(LIT("6553"), &v), -EINVAL);
	assert_int_equal(sysfs_u64_parse(LIT("511 "), &v), -EINVAL);
	assert_int_equal(sysfs_u64_parse(LIT(""), &v), -EINVAL);
	assert_int_equal(sysfs_u64_parse(LIT("\n"), &v), -EINVAL);
	assert_int_equal(sysfs_u64_parse(LIT("  0 \n"), &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(sysfs_u64_parse(LIT("18446744073709551616\n"), &v), -ERANGE);
}

static void test_choice_enabled(UNIT_STATE)
{
	struct choice c;
	assert_int_equal(choice_parse(LIT("always [madvise] never\n"), &c), 0);
	assert_true(c.present);
	assert_string_equal(c.selected, "madvise");
	assert_int_equal(c.noptions, 3);
	assert_string_equal(c.options[0], "always");
	assert_string_equal(c.options[1], "madvise");
	assert_string_equal(c.options[2], "never");
	assert_true(choice_offers(&c, "always"));
	assert_true(choice_offers(&c, "never"));
	assert_false(choice_offers(&c, "defer"));
	assert_false(choice_offers(&c, "[madvise]"));
}

static void test_choice_defrag_first_and_last(UNIT_STATE)
{
	struct choice c;
	assert_int_equal(choice_parse(LIT("[always] defer defer+madvise madvise never\n"), &c), 0);
	assert_string_equal(c.selected, "always");
	assert_int_equal(c.noptions, 5);
	assert_true(choice_offers(&c, "defer+madvise"));
	assert_int_equal(choice_parse(LIT("always defer defer+madvise madvise [never]"), &c), 0);
	assert_string_equal(c.selected, "never");
	assert_string_equal(c.options[4], "never");
	/* per-size mTHP file */
	assert_int_equal(choice_parse(LIT("always [inherit] madvise never\n"), &c), 0);
	assert_string_equal(c.selected, "inherit");
	/* CRLF and tabs are blanks */
	assert_int_equal(choice_parse(LIT("always\t[never]\r\n"), &c), 0);
	assert_string_equal(c.selected, "never");
	assert_int_equal(c.noptions, 2);
}

static void test_hugepages_dirname(UNIT_STATE)
{
	assert_int_equal(hugepages_dirname_kb("hugepages-2048kB"), 2048);
	assert_int_equal(hugepages_dirname_kb("hugepages-1048576kB"), 1048576);
	assert_int_equal(hugepages_dirname_kb("hugepages-kB"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-2048KB"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-2048"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages--1kB"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-18446744073709551616kB"), 0);
	/* fuzz finding: "hugepages-0047kB" read as a 47 kB pool; the kernel prints no zeros */
	assert_int_equal(hugepages_dirname_kb("hugepages-0047kB"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-02048kB"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-0kB"), 0);
	/* other units, a suffix, no dash, the knob's own name, nothing */
	assert_int_equal(hugepages_dirname_kb("hugepages-1GB"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-2048kB.bak"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages2048kB"), 0);
	assert_int_equal(hugepages_dirname_kb("nr_hugepages"), 0);
	assert_int_equal(hugepages_dirname_kb(""), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-64kB"), 64);
	assert_int_equal(hugepages_dirname_kb("hugepages-32768kB"), 32768);
	assert_int_equal(hugepages_dirname_kb("hugepages-16kB/"), 0);
}

static void test_choice_bad(UNIT_STATE)
{
	struct choice c;
	assert_int_equal(choice_parse(LIT(""), &c), -EINVAL);
	assert_false(c.present);
	assert_int_equal(choice_parse(LIT("always madvise never\n"), &c), -EINVAL); /* none */
	assert_false(c.present);
	assert_int_equal(choice_parse(LIT("[always] [never]\n"), &c), -EINVAL); /* two */
	assert_int_equal(choice_parse(LIT("always [madvise never\n"), &c), -EINVAL);
	assert_int_equal(choice_parse(LIT("always [madvise"), &c), -EINVAL);
	assert_int_equal(choice_parse(LIT("always madvise] never"), &c), -EINVAL);
	assert_int_equal(choice_parse(LIT("[] never"), &c), -EINVAL);
	assert_int_equal(choice_parse(LIT("a[b] c"), &c), -EINVAL);
	/* fuzz finding: a NUL inside a word made "[madvise\0x]" read as "madvise" */
	assert_int_equal(choice_parse(LIT("always [madvise\0x] never"), &c), -EINVAL);
	assert_false(c.present);
	assert_int_equal(choice_parse(LIT("always\0junk [madvise] never"), &c), -EINVAL);
	assert_int_equal(choice_parse(LIT("always [m\x01\0\0\0se] never"), &c), -EINVAL);
	/* a word of CHOICE_LEN-1 fits, CHOICE_LEN does not */
	char ok[CHOICE_LEN + 2], bad[CHOICE_LEN + 3];
	ok[0] = '[';
	memset(ok + 1, 'x', CHOICE_LEN - 1);
	ok[CHOICE_LEN] = ']';
	assert_int_equal(choice_parse(ok, CHOICE_LEN + 1, &c), 0);
	assert_int_equal(strlen(c.selected), CHOICE_LEN - 1);
	bad[0] = '[';
	memset(bad + 1, 'x', CHOICE_LEN);
	bad[CHOICE_LEN + 1] = ']';
	assert_int_equal(choice_parse(bad, CHOICE_LEN + 2, &c), -EINVAL);
}

static void test_choice_too_many_options(UNIT_STATE)
{
	struct choice c;
	/* 10 options: the extra ones are dropped, the selection is still found */
	assert_int_equal(choice_parse(LIT("a b c d e f g h i [j]\n"), &c), 0);
	assert_int_equal(c.noptions, CHOICE_MAX);
	assert_string_equal(c.selected, "j");
	assert_string_equal(c.options[CHOICE_MAX - 1], "h");
	assert_false(choice_offers(&c, "j"));
}

static void test_next_line(UNIT_STATE)
{
	const char text[] = "one\n\ntwo\r\nthree";
	const char *pos = text, *end = text + sizeof(text) - 1, *s, *e;
	assert_true(next_line(&pos, end, &s, &e));
	assert_int_equal(e - s, 3);
	assert_memory_equal(s, "one", 3);
	assert_true(next_line(&pos, end, &s, &e));
	assert_ptr_equal(s, e); /* empty line */
	assert_true(next_line(&pos, end, &s, &e));
	assert_int_equal(e - s, 4); /* '\r' is kept */
	assert_memory_equal(s, "two\r", 4);
	assert_true(next_line(&pos, end, &s, &e));
	assert_int_equal(e - s, 5); /* last line, no newline */
	assert_memory_equal(s, "three", 5);
	assert_ptr_equal(pos, end);
	assert_false(next_line(&pos, end, &s, &e));

	const char nl[] = "x\n";
	pos = nl;
	end = nl + 2;
	assert_true(next_line(&pos, end, &s, &e));
	assert_int_equal(e - s, 1);
	assert_false(next_line(&pos, end, &s, &e)); /* no empty line after the final \n */

	pos = nl;
	assert_false(next_line(&pos, nl, &s, &e)); /* empty text */
}

UNIT_TESTS(test_parse_u64_takes_leading_digits_or_moves_nothing, test_parse_u64_text,
	   test_sysfs_u64_parse_needs_the_final_newline, test_choice_enabled,
	   test_choice_defrag_first_and_last, test_choice_bad, test_hugepages_dirname,
	   test_choice_too_many_options, test_next_line)
