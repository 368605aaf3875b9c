// SPDX-License-Identifier: MIT
/* Unit tests: src/util/str.c (bounded copies and digits). */
#include "unit.h"

#include "util/str.h"

/* DST after OP, and whether OP said all fit. */
struct str_case {
	const char *start;
	bool (*op)(char *, size_t, const char *);
	const char *src;
	size_t n;
	bool fits;
	const char *want;
};

static void test_copy_and_cat_cut_at_n(UNIT_STATE)
{
	static const struct str_case c[] = {
		{"", str_copy, "defer", 6, true, "defer"},
		{"", str_copy, "madvise", 6, false, "madvi"},
		{"xy", str_copy, "", 6, true, ""},
		{"", str_copy, "x", 1, false, ""},
		{"ab", str_cat, "cd", 8, true, "abcd"},
		{"abcd", str_cat, "efgh", 8, false, "abcdefg"},
		{"abcdefg", str_cat, "x", 8, false, "abcdefg"},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		char s[16];
		snprintf(s, sizeof(s), "%s", c[i].start);
		assert_int_equal(c[i].op(s, c[i].n, c[i].src), c[i].fits);
		assert_string_equal(s, c[i].want);
	}
}

static void test_u64_str_digits_and_cut(UNIT_STATE)
{
	static const struct {
		uint64_t v;
		size_t n;
		bool fits;
		const char *want;
	} c[] = {
		{0, 24, true, "0"},
		{20000, 24, true, "20000"},
		{UINT64_MAX, 24, true, "18446744073709551615"},
		{12345, 4, false, "123"},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		char s[24];
		assert_int_equal(u64_str(s, c[i].n, c[i].v), c[i].fits);
		assert_string_equal(s, c[i].want);
	}
}

UNIT_TESTS(test_copy_and_cat_cut_at_n, test_u64_str_digits_and_cut)
