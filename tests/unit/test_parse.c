// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/parse.c (numbers, sysfs choice files, line iteration). */
#include "unit.h"

#include "kernel/parse.h"

static void test_parse_u64_basic(void **state)
{
	(void)state;
	const char *s = " \t4096 kB";
	const char *p = s;
	uint64_t v = 7;
	assert_int_equal(parse_u64(&p, s + strlen(s), &v), 0);
	assert_int_equal(v, 4096);
	/* stops right after the digits */
	assert_ptr_equal(p, s + 6);
	assert_string_equal(p, " kB");
}

static void test_parse_u64_respects_end(void **state)
{
	(void)state;
	const char *s = "123456";
	const char *p = s;
	uint64_t v = 0;
	assert_int_equal(parse_u64(&p, s + 3, &v), 0);
	assert_int_equal(v, 123);
	assert_ptr_equal(p, s + 3);
}

static void test_parse_u64_max_and_overflow(void **state)
{
	(void)state;
	const char *max = "18446744073709551615";
	const char *p = max;
	uint64_t v = 0;
	assert_int_equal(parse_u64(&p, max + strlen(max), &v), 0);
	assert_true(v == UINT64_MAX);

	const char *over = "18446744073709551616";
	p = over;
	v = 42;
	assert_int_equal(parse_u64(&p, over + strlen(over), &v), -ERANGE);
	/* neither the cursor nor the output move on error */
	assert_ptr_equal(p, over);
	assert_int_equal(v, 42);

	const char *big = "99999999999999999999";
	p = big;
	assert_int_equal(parse_u64(&p, big + strlen(big), &v), -ERANGE);
}

static void test_parse_u64_no_digits(void **state)
{
	(void)state;
	const char *cases[] = {"", "   ", "kB", "-1", "+1", "\n12"};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = cases[i];
		uint64_t v = 99;
		assert_int_equal(parse_u64(&p, cases[i] + strlen(cases[i]), &v), -EINVAL);
		assert_ptr_equal(p, cases[i]);
		assert_int_equal(v, 99);
	}
}

static void test_parse_u64_text(void **state)
{
	(void)state;
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

static void test_choice_enabled(void **state)
{
	(void)state;
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

static void test_choice_defrag_first_and_last(void **state)
{
	(void)state;
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

static void test_choice_bad(void **state)
{
	(void)state;
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

static void test_choice_too_many_options(void **state)
{
	(void)state;
	struct choice c;
	/* 10 options: the extra ones are dropped, the selection is still found */
	assert_int_equal(choice_parse(LIT("a b c d e f g h i [j]\n"), &c), 0);
	assert_int_equal(c.noptions, CHOICE_MAX);
	assert_string_equal(c.selected, "j");
	assert_string_equal(c.options[CHOICE_MAX - 1], "h");
	assert_false(choice_offers(&c, "j"));
}

static void test_next_line(void **state)
{
	(void)state;
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

UNIT_MAIN(cmocka_unit_test(test_parse_u64_basic), cmocka_unit_test(test_parse_u64_respects_end),
	  cmocka_unit_test(test_parse_u64_max_and_overflow),
	  cmocka_unit_test(test_parse_u64_no_digits), cmocka_unit_test(test_parse_u64_text),
	  cmocka_unit_test(test_choice_enabled),
	  cmocka_unit_test(test_choice_defrag_first_and_last), cmocka_unit_test(test_choice_bad),
	  cmocka_unit_test(test_choice_too_many_options), cmocka_unit_test(test_next_line))
