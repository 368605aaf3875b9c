// SPDX-License-Identifier: MIT
/* Unit tests: src/util/wide.c (checked and wide arithmetic on kernel numbers, exact printing). */
#include "unit.h"

#include "util/wide.h"

static void test_checked_mul_and_add_say_when_they_do_not_fit(UNIT_STATE)
{
	uint64_t v = 7;
	assert_true(mul_u64(1ull << 32, (1ull << 32) - 1, &v));
	assert_true(v == 0xffffffff00000000ull);
	assert_false(mul_u64(1ull << 32, 1ull << 32, &v));
	assert_true(v == UINT64_MAX); /* never the wrapped 0 */
	assert_false(mul_u64(UINT64_MAX, 1024, &v));
	assert_true(mul_u64(UINT64_MAX, 1, &v) && v == UINT64_MAX);
	assert_true(add_u64(UINT64_MAX - 1, 1, &v) && v == UINT64_MAX);
	assert_false(add_u64(UINT64_MAX, 1, &v));
	struct sum_u64 s = {0};
	sum_add(&s, UINT64_MAX - 5);
	sum_add(&s, 5);
	assert_false(s.over);
	sum_add(&s, 1);
	assert_true(s.over);
	sum_add(&s, 0); /* once over, always over */
	assert_true(s.over);
}

static void test_u128_decimal_is_exact(UNIT_STATE)
{
	char d[40];
	assert_int_equal(fmt_u128(d, sizeof(d), 0), 1);
	assert_string_equal(d, "0");
	fmt_u128(d, sizeof(d), UINT64_MAX);
	assert_string_equal(d, "18446744073709551615");
	fmt_u128(d, sizeof(d), (u128)UINT64_MAX + 1);
	assert_string_equal(d, "18446744073709551616");
	fmt_u128(d, sizeof(d), ~(u128)0);
	assert_string_equal(d, "340282366920938463463374607431768211455");
	/* a short buffer: cut, NUL-terminated, the whole length returned */
	char s[5];
	assert_int_equal(fmt_u128(s, sizeof(s), 123456789), 9);
	assert_string_equal(s, "1234");
}

/* 2^64-1 pages of 2048 kB: 36893488147419103230 MiB exactly, never 18014398509481982 MiB */
static void test_kb_figures_beyond_u64_are_exact(UNIT_STATE)
{
	char o[64];
	u128 kb = (u128)UINT64_MAX * 2048;
	fmt_kb_wide(o, sizeof(o), kb);
	assert_string_equal(o, "36893488147419103230 MiB");
	fmt_kb_exact(o, sizeof(o), kb);
	assert_string_equal(o, "36893488147419103230 MiB");
	/* the unit is the largest that divides: kB when nothing does */
	fmt_kb_wide(o, sizeof(o), (u128)UINT64_MAX * 3);
	assert_string_equal(o, "55340232221128654845 kB");
	fmt_kb_wide(o, sizeof(o), (u128)1 << 80);
	assert_string_equal(o, "1125899906842624 TiB");
	/* within a u64: the usual rounded figure for people; exact in MiB or kB */
	fmt_kb_wide(o, sizeof(o), 1048576);
	assert_string_equal(o, "1.00 GiB");
	fmt_kb_exact(o, sizeof(o), 1048576);
	assert_string_equal(o, "1024 MiB");
	fmt_kb_exact(o, sizeof(o), 1000);
	assert_string_equal(o, "1000 kB");
	fmt_kb_exact(o, sizeof(o), 0);
	assert_string_equal(o, "0 kB");
}

UNIT_TESTS(test_checked_mul_and_add_say_when_they_do_not_fit, test_u128_decimal_is_exact,
	   test_kb_figures_beyond_u64_are_exact)
