// SPDX-License-Identifier: MIT
/* Unit tests: src/util/units.c (size formatting and parsing). */
#include "unit.h"

#include "util/units.h"

static void test_fmt_kb_switches_unit_at_10_mib_and_10_gib(void **state)
{
	(void)state;
	char s[32];
	fmt_kb(s, sizeof(s), 0);
	assert_string_equal(s, "0 kB");
	fmt_kb(s, sizeof(s), 10239);
	assert_string_equal(s, "10239 kB");
	fmt_kb(s, sizeof(s), 10240);
	assert_string_equal(s, "10.0 MiB");
	fmt_kb(s, sizeof(s), 1048575);
	assert_string_equal(s, "1024.0 MiB");
	fmt_kb(s, sizeof(s), 1048576);
	assert_string_equal(s, "1.00 GiB");
	fmt_kb(s, sizeof(s), 3670016);
	assert_string_equal(s, "3.50 GiB");
	fmt_kb(s, sizeof(s), 10ull << 30);
	assert_string_equal(s, "10.00 TiB");
}

static void test_fmt_bytes_below_10_kib_keeps_odd_bytes(void **state)
{
	(void)state;
	char s[32];
	fmt_bytes(s, sizeof(s), 100);
	assert_string_equal(s, "100 B");
	fmt_bytes(s, sizeof(s), 4096);
	assert_string_equal(s, "4 kB");
	fmt_bytes(s, sizeof(s), 10239);
	assert_string_equal(s, "10239 B");
	fmt_bytes(s, sizeof(s), 10240);
	assert_string_equal(s, "10 kB");
	fmt_bytes(s, sizeof(s), 2097152);
	assert_string_equal(s, "2048 kB");
	fmt_bytes(s, sizeof(s), 0);
	assert_string_equal(s, "0 kB");
}

static void test_size_token_uses_largest_exact_unit(void **state)
{
	(void)state;
	char s[24];
	fmt_size_token(s, sizeof(s), 0);
	assert_string_equal(s, "0K");
	fmt_size_token(s, sizeof(s), 16);
	assert_string_equal(s, "16K");
	fmt_size_token(s, sizeof(s), 64);
	assert_string_equal(s, "64K");
	fmt_size_token(s, sizeof(s), 1536);
	assert_string_equal(s, "1536K");
	fmt_size_token(s, sizeof(s), 2048);
	assert_string_equal(s, "2M");
	fmt_size_token(s, sizeof(s), 524288);
	assert_string_equal(s, "512M");
	fmt_size_token(s, sizeof(s), 1048576);
	assert_string_equal(s, "1G");
	fmt_size_token(s, sizeof(s), 16777216);
	assert_string_equal(s, "16G");
}

static void test_parse_size_suffixes_are_powers_of_1024(void **state)
{
	(void)state;
	uint64_t v = 0;
	assert_int_equal(parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(parse_size("64k", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(parse_size("64KiB", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(parse_size("2MB", &v), 0);
	assert_int_equal(v, 2097152);
	assert_int_equal(parse_size("1G", &v), 0);
	assert_int_equal(v, 1073741824);
	assert_int_equal(parse_size("1t", &v), 0);
	assert_int_equal(v, 1ull << 40);
	assert_int_equal(parse_size("512b", &v), 0);
	assert_int_equal(v, 512);
	assert_int_equal(parse_size("16777215T", &v), 0);
	assert_true(v == 16777215ull << 40);
}

static void test_parse_size_rejects_malformed_and_too_large(void **state)
{
	(void)state;
	uint64_t v = 7;
	assert_int_equal(parse_size("", &v), -EINVAL);
	assert_int_equal(parse_size("M", &v), -EINVAL);
	assert_int_equal(parse_size("-1M", &v), -EINVAL);
	assert_int_equal(parse_size(" 1M", &v), -EINVAL);
	assert_int_equal(parse_size("1Mx", &v), -EINVAL);
	assert_int_equal(parse_size("1iB", &v), -EINVAL); /* "i" only after a unit */
	assert_int_equal(parse_size("1.5M", &v), -EINVAL);
	assert_int_equal(parse_size("16777216T", &v), -ERANGE);
	assert_int_equal(parse_size("18446744073709551616", &v), -ERANGE);
	assert_int_equal(v, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_kb_switches_unit_at_10_mib_and_10_gib),
		cmocka_unit_test(test_fmt_bytes_below_10_kib_keeps_odd_bytes),
		cmocka_unit_test(test_size_token_uses_largest_exact_unit),
		cmocka_unit_test(test_parse_size_suffixes_are_powers_of_1024),
		cmocka_unit_test(test_parse_size_rejects_malformed_and_too_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
