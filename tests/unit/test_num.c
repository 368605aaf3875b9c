// SPDX-License-Identifier: MIT
/* Unit tests: src/util/num.c (strict number parsing). */
#include "unit.h"

#include <limits.h>

#include "util/num.h"

static void test_u64_whole_token_in_range(UNIT_STATE)
{
	uint64_t v = 7;
	assert_int_equal(str_u64("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(str_u64("10", 0, 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(str_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
}

/* str_u64(IN, LO, HI) fails with ERR and leaves the output alone. */
struct bad_u64 {
	const char *in;
	uint64_t lo, hi;
	int err;
};

static void check_bad_u64(const struct bad_u64 *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 7;
		assert_int_equal(str_u64(c[i].in, c[i].lo, c[i].hi, &v), c[i].err);
		assert_int_equal(v, 7);
	}
}

static void test_u64_junk_around_the_digits_is_einval(UNIT_STATE)
{
	static const struct bad_u64 c[] = {
		{"", 0, 10, -EINVAL},	   {" 5", 0, 10, -EINVAL},
		{"5 ", 0, 10, -EINVAL},	   {"+5", 0, 10, -EINVAL},
		{"-0", 0, 10, -EINVAL},	   {"5k", 0, 10, -EINVAL},
		{"0x10", 0, 100, -EINVAL}, {"99999999999999999999x", 0, UINT64_MAX, -EINVAL},
	};
	check_bad_u64(c, UNIT_LEN(c));
}

static void test_u64_outside_range_or_type_is_erange(UNIT_STATE)
{
	static const struct bad_u64 c[] = {
		{"11", 0, 10, -ERANGE},
		{"4", 5, 10, -ERANGE},
		{"18446744073709551616", 0, UINT64_MAX, -ERANGE},
	};
	check_bad_u64(c, UNIT_LEN(c));
}

static void test_to_u64_reads_only_len_bytes(UNIT_STATE)
{
	uint64_t v = 0;
	assert_int_equal(str_to_u64("2048kB", 4, 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(str_to_u64("2048kB", 5, 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(str_to_u64("1", 0, 0, UINT64_MAX, &v), -EINVAL);
}

static void test_i64_takes_a_minus_sign_and_the_extremes(UNIT_STATE)
{
	int64_t v = 0;
	assert_int_equal(str_i64("-42", -100, 100, &v), 0);
	assert_int_equal(v, -42);
	assert_int_equal(str_i64("-9223372036854775808", INT64_MIN, INT64_MAX, &v), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(str_i64("9223372036854775807", INT64_MIN, INT64_MAX, &v), 0);
	assert_true(v == INT64_MAX);
	assert_int_equal(str_i64("9223372036854775808", INT64_MIN, INT64_MAX, &v), -ERANGE);
	assert_int_equal(str_i64("-9223372036854775809", INT64_MIN, INT64_MAX, &v), -ERANGE);
	assert_int_equal(str_i64("-", -1, 1, &v), -EINVAL);
	assert_int_equal(str_i64("--1", -5, 5, &v), -EINVAL);
	assert_int_equal(str_i64("-101", -100, 100, &v), -ERANGE);
}

static void test_long_range_like_an_option(UNIT_STATE)
{
	long v = 0;
	assert_int_equal(str_long("64", 1, 64, &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(str_long("65", 1, 64, &v), -ERANGE);
	assert_int_equal(str_long("0", 1, 64, &v), -ERANGE);
	assert_int_equal(str_long("1.5", 1, 64, &v), -EINVAL);
	assert_int_equal(str_long("-3", LONG_MIN, LONG_MAX, &v), 0);
	assert_int_equal(v, -3);
}

static void test_pid_is_1_to_0x3fffffff(UNIT_STATE)
{
	pid_t p = 0;
	assert_int_equal(str_pid("1", &p), 0);
	assert_int_equal(p, 1);
	assert_int_equal(str_pid("1073741823", &p), 0);
	assert_int_equal(p, 0x3fffffff);
	assert_int_equal(str_pid("1073741824", &p), -ERANGE);
	assert_int_equal(str_pid("0", &p), -ERANGE);
	assert_int_equal(str_pid("-1", &p), -ERANGE);
	assert_int_equal(str_pid("12a", &p), -EINVAL);
	assert_int_equal(str_pid("self", &p), -EINVAL);
	assert_int_equal(p, 0x3fffffff);
}

static void test_double_decimal_forms_only(UNIT_STATE)
{
	double d = 0;
	assert_int_equal(str_double("2.5", 0, 10, &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(str_double(".5", 0, 10, &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(str_double("-1e2", -1000, 0, &d), 0);
	assert_true(d == -100);
	assert_int_equal(str_double("0.1", 0.1, 86400, &d), 0);
	assert_true(d == 0.1);
	assert_int_equal(str_double("", 0, 10, &d), -EINVAL);
	assert_int_equal(str_double(" 1", 0, 10, &d), -EINVAL);
	assert_int_equal(str_double("1s", 0, 10, &d), -EINVAL);
	assert_int_equal(str_double("0x1p3", 0, 10, &d), -EINVAL);
	assert_int_equal(str_double("nan", 0, 10, &d), -EINVAL);
	assert_int_equal(str_double("inf", 0, 1e308, &d), -EINVAL);
	assert_int_equal(str_double("10.5", 0, 10, &d), -ERANGE);
	assert_int_equal(str_double("1e999", 0, 1e308, &d), -ERANGE);
	assert_true(d == 0.1);
}

static void test_scanner_skips_blanks_and_stops_at_non_digit(UNIT_STATE)
{
	const char *s = " \t4096 kB", *p = s;
	uint64_t v = 0;
	assert_int_equal(parse_u64(&p, s + strlen(s), &v), 0);
	assert_int_equal(v, 4096);
	assert_string_equal(p, " kB");
	p = s + 6;
	assert_int_equal(parse_u64(&p, s + strlen(s), &v), -EINVAL);
	assert_string_equal(p, " kB"); /* not advanced on error */
}

static void test_log2_floor_and_exact(UNIT_STATE)
{
	assert_int_equal(log2_floor(0), -1);
	assert_int_equal(log2_floor(1), 0);
	assert_int_equal(log2_floor(512), 9);
	assert_int_equal(log2_floor(1023), 9);
	assert_int_equal(log2_floor(UINT64_MAX), 63);
	assert_int_equal(log2_exact(0), -1);
	assert_int_equal(log2_exact(1), 0);
	assert_int_equal(log2_exact(512), 9);
	assert_int_equal(log2_exact(1023), -1);
	assert_int_equal(log2_exact(1ull << 63), 63);
}

UNIT_TESTS(test_u64_whole_token_in_range, test_u64_junk_around_the_digits_is_einval,
	   test_u64_outside_range_or_type_is_erange, test_to_u64_reads_only_len_bytes,
	   test_i64_takes_a_minus_sign_and_the_extremes, test_long_range_like_an_option,
	   test_pid_is_1_to_0x3fffffff, test_double_decimal_forms_only,
	   test_scanner_skips_blanks_and_stops_at_non_digit, test_log2_floor_and_exact)
