// SPDX-License-Identifier: MIT
/* Unit tests: src/util/units.c (size formatting and parsing). */
#include "unit.h"

#include <math.h>

#include "util/units.h"

struct case_kb {
	uint64_t in;
	const char *want;
};

/* Check FN(in) == want for each of the N cases. */
static void check_fmt(void (*fn)(char *, size_t, uint64_t), const struct case_kb *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char s[32];
		fn(s, sizeof(s), c[i].in);
		assert_string_equal(s, c[i].want);
	}
}

static void test_fmt_kb_switches_unit_at_10_mib_and_10_gib(UNIT_STATE)
{
	static const struct case_kb c[] = {
		{0, "0 kB"},
		{10239, "10239 kB"},
		{10240, "10.0 MiB"},
		{1048575, "1024.0 MiB"},
		{1048576, "1.00 GiB"},
		{3670016, "3.50 GiB"},
		{10ull << 30, "10.00 TiB"},
	};
	check_fmt(fmt_kb, c, UNIT_LEN(c));
}

static void test_fmt_bytes_below_10_kib_keeps_odd_bytes(UNIT_STATE)
{
	static const struct case_kb c[] = {
		{100, "100 B"},	  {4096, "4 kB"},	{10239, "10239 B"},
		{10240, "10 kB"}, {2097152, "2048 kB"}, {0, "0 kB"},
	};
	check_fmt(fmt_bytes, c, UNIT_LEN(c));
}

static void test_size_token_uses_largest_exact_unit(UNIT_STATE)
{
	static const struct case_kb c[] = {
		{0, "0K"},    {16, "16K"},	{64, "64K"},	 {1536, "1536K"},
		{2048, "2M"}, {524288, "512M"}, {1048576, "1G"}, {16777216, "16G"},
	};
	check_fmt(fmt_size_token, c, UNIT_LEN(c));
}

static void test_parse_size_suffixes_are_powers_of_1024(UNIT_STATE)
{
	static const struct unit_str_int c[] = {
		{"4096", 4096},	    {"64k", 65536},
		{"64KiB", 65536},   {"2MB", 2097152},
		{"1G", 1073741824}, {"1t", 1ull << 40},
		{"512b", 512},	    {"16777215T", 16777215ull << 40},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		uint64_t v = 0;
		unit_row_int(c[i].in, "parse_size", parse_size(c[i].in, &v), 0);
		unit_row_true(v == (uint64_t)c[i].want, c[i].in, "the size");
	}
}

static void test_parse_size_rejects_malformed_and_too_large(UNIT_STATE)
{
	static const struct unit_str_int c[] = {
		{"", -EINVAL},
		{"M", -EINVAL},
		{"-1M", -EINVAL},
		{" 1M", -EINVAL},
		{"1Mx", -EINVAL},
		{"1iB", -EINVAL}, /* "i" only after a unit */
		{"1.5M", -EINVAL},
		{"16777216T", -ERANGE},
		{"18446744073709551616", -ERANGE},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		uint64_t v = 7;
		unit_row_int(c[i].in, "parse_size", parse_size(c[i].in, &v), c[i].want);
		unit_row_int(c[i].in, "the size left", (long long)v, 7);
	}
}

static void test_fmt_pct_never_rounds_a_failure_up_to_100(UNIT_STATE)
{
	static const struct {
		uint64_t num, den;
		int dec;
		const char *want;
	} c[] = {
		{112647, 112679, 1, "99.97%"}, /* 32 fallbacks: not "100.0%" */
		{999, 1000, 1, "99.9%"},
		{9999, 10000, 1, "99.99%"},
		{112679, 112679, 1, "100.0%"},
		{0, 112679, 1, "0.0%"},
		{1, 100000, 1, "0.001%"}, /* one success: not "0.0%" */
		{1, 3, 1, "33.3%"},
		{2, 3, 0, "67%"},
		{199, 200, 0, "99.5%"},
		{5, 0, 1, "-"},
		{999999999999ull, 1000000000000ull, 1, "99.999999%"}, /* cut, never 100 */
		{UINT64_MAX - 1, UINT64_MAX, 1, "99.999999%"},
		{1, UINT64_MAX, 1, "0.000001%"},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		char out[32];
		fmt_pct(out, sizeof(out), c[i].num, c[i].den, c[i].dec);
		assert_string_equal(out, c[i].want);
	}
}

/* The lab table's digits, which faults' proofs and verdict now print too: one formatter. */
static void test_fmt_measured_digits_by_magnitude(UNIT_STATE)
{
	static const struct {
		double v;
		int sign;
		const char *want;
	} c[] = {{725.4, 0, "725"},  {12, 0, "12"},	{93.44, 0, "93.4"},
		 {0.118, 0, "0.12"}, {3.66, 0, "3.66"}, {-4.05, 0, "-4.05"},
		 {0, 1, "+0"},	     {64, 1, "+64"},	{-2.5, 1, "-2.50"}};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		char out[32];
		fmt_measured(out, sizeof(out), c[i].v, c[i].sign);
		unit_row_str(c[i].want, "fmt_measured", out, c[i].want);
	}
}

/* An interval's bound never prints onto the pivot from its side: 0.998 is not "1.00". */
static void test_fmt_bound_keeps_its_side(UNIT_STATE)
{
	char o[32];
	fmt_bound(o, sizeof(o), 0.998, 1, 2);
	assert_string_equal(o, "0.998");
	fmt_bound(o, sizeof(o), 1.0004, 1, 2);
	assert_string_equal(o, "1.0004");
	fmt_bound(o, sizeof(o), 0.91, 1, 2);
	assert_string_equal(o, "0.91");
	fmt_bound(o, sizeof(o), 1.0, 1, 2); /* on the pivot: as it is */
	assert_string_equal(o, "1.00");
	fmt_bound(o, sizeof(o), 0.04, 0, 1);
	assert_string_equal(o, "0.04");
	fmt_bound(o, sizeof(o), -0.02, 0, 1);
	assert_string_equal(o, "-0.02");
	fmt_bound(o, sizeof(o), 0.999999999, 1, 2); /* 4 more decimals at most */
	assert_string_equal(o, "1.000000");
}

/*
 * watch's narrow columns: at most 4 characters, rounded to the nearest, a tier's top taking
 * the next suffix rather than a fifth character; above 0 is never "0".
 */
static void test_fmt_num_narrow_fits_4_characters(UNIT_STATE)
{
	static const struct {
		double v;
		const char *want;
	} c[] = {
		{0, "0"},	   {0.3, "0.3"},      {0.04, "0.0"},	{1.5, "1.5"},
		{9.94, "9.9"},	   {9.96, "10"},      {125, "125"},	{999, "999"},
		{9999, "9999"},	   {9999.4, "9999"},  {9999.5, "10k"},	{12345, "12k"},
		{12500.1, "13k"},  {123456, "123k"},  {999499, "999k"}, {999500, "1.0M"},
		{1234567, "1.2M"}, {9949999, "9.9M"}, {9950000, "10M"}, {45e6, "45M"},
		{999.4e6, "999M"}, {999.5e6, "1.0G"}, {1.5e9, "1.5G"},	{2.5e12, "2.5T"},
		{1.8e19, "18E"},   {-1, "-"},	      {NAN, "-"},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		char out[32], row[32];
		snprintf(row, sizeof(row), "%g", c[i].v);
		fmt_num_narrow(out, sizeof(out), c[i].v);
		unit_row_str(row, "fmt_num_narrow", out, c[i].want);
		unit_row_true(strlen(out) <= 4, row, "at most 4 characters");
	}
}

static void test_fmt_kb_narrow_binary_units_4_characters(UNIT_STATE)
{
	static const struct case_kb c[] = {
		{0, "0"},
		{4, "4K"},
		{512, "512K"},
		{999, "999K"},
		{1000, "1.0M"}, /* 0.98 MiB: "1000K" would be 5 */
		{2048, "2.0M"},
		{10240, "10M"},
		{991232, "968M"},
		{1023487, "999M"},
		{1048166, "1.0G"}, /* 1023.6 MiB */
		{1258291, "1.2G"},
		{900ull << 20, "900G"},
		{1ull << 30, "1.0T"},
		{UINT64_MAX, "16Z"},
	};
	check_fmt(fmt_kb_narrow, c, UNIT_LEN(c));
}

UNIT_TESTS(test_fmt_num_narrow_fits_4_characters, test_fmt_kb_narrow_binary_units_4_characters,
	   test_fmt_bound_keeps_its_side, test_fmt_measured_digits_by_magnitude,
	   test_fmt_kb_switches_unit_at_10_mib_and_10_gib,
	   test_fmt_pct_never_rounds_a_failure_up_to_100,
	   test_fmt_bytes_below_10_kib_keeps_odd_bytes, test_size_token_uses_largest_exact_unit,
	   test_parse_size_suffixes_are_powers_of_1024,
	   test_parse_size_rejects_malformed_and_too_large)
