// SPDX-License-Identifier: MIT
/* Unit tests: src/util/str.c (bounded copies and digits). */
#include "unit.h"

#include "util/str.h"

static void test_str_copy_fits_and_cuts(void **state)
{
	(void)state;
	char s[6];
	assert_true(str_copy(s, sizeof(s), "defer"));
	assert_string_equal(s, "defer");
	assert_false(str_copy(s, sizeof(s), "madvise"));
	assert_string_equal(s, "madvi");
	assert_true(str_copy(s, sizeof(s), ""));
	assert_string_equal(s, "");
	assert_false(str_copy(s, 1, "x"));
	assert_string_equal(s, "");
}

static void test_str_cat_appends_and_cuts(void **state)
{
	(void)state;
	char s[8] = "ab";
	assert_true(str_cat(s, sizeof(s), "cd"));
	assert_string_equal(s, "abcd");
	assert_false(str_cat(s, sizeof(s), "efgh"));
	assert_string_equal(s, "abcdefg");
	assert_false(str_cat(s, sizeof(s), "x"));
	assert_string_equal(s, "abcdefg");
}

static void test_u64_str_digits_and_cut(void **state)
{
	(void)state;
	char s[24];
	assert_true(u64_str(s, sizeof(s), 0));
	assert_string_equal(s, "0");
	assert_true(u64_str(s, sizeof(s), 20000));
	assert_string_equal(s, "20000");
	assert_true(u64_str(s, sizeof(s), UINT64_MAX));
	assert_string_equal(s, "18446744073709551615");
	assert_false(u64_str(s, 4, 12345));
	assert_string_equal(s, "123");
}

UNIT_MAIN(cmocka_unit_test(test_str_copy_fits_and_cuts),
	  cmocka_unit_test(test_str_cat_appends_and_cuts),
	  cmocka_unit_test(test_u64_str_digits_and_cut))
