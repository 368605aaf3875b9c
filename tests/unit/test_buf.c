// SPDX-License-Identifier: MIT
/* Unit tests: src/util/buf.c (growable buffer and arrays). */
#include "unit.h"

#include "util/buf.h"

/* Reserves of NEED bytes in turn on an empty buffer leave capacity CAP each. */
struct reserve_case {
	const char *name; /* the behaviour */
	size_t need[2], cap[2];
	int n;
};

static const struct reserve_case reserve_cases[] = {
	{"the first reserve allocates 16 KiB", {1}, {16384}, 1},
	{"a reserve doubles until it fits", {16385, 100000}, {32768, 131072}, 2},
};

static void test_reserve_gives_16_kib_then_doubles_until_it_fits(UNIT_STATE)
{
	for (size_t i = 0; i < UNIT_LEN(reserve_cases); i++) {
		const struct reserve_case *c = &reserve_cases[i];
		print_message("%s\n", c->name);
		struct buf b = {0};
		for (int k = 0; k < c->n; k++) {
			assert_int_equal(buf_reserve(&b, c->need[k]), 0);
			assert_non_null(b.p);
			assert_int_equal(b.cap, c->cap[k]);
			assert_int_equal(b.len, 0);
		}
		buf_free(&b);
	}
}

static void test_reserve_within_capacity_keeps_memory_and_content(UNIT_STATE)
{
	struct buf b = {0};
	assert_int_equal(buf_reserve(&b, 10), 0);
	memcpy(b.p, "hello", 6);
	b.len = 5;
	char *p = b.p;
	assert_int_equal(buf_reserve(&b, 16384), 0);
	assert_ptr_equal(b.p, p);
	assert_int_equal(buf_reserve(&b, 40000), 0);
	assert_string_equal(b.p, "hello"); /* realloc keeps the content */
	assert_int_equal(b.len, 5);
	buf_free(&b);
}

static void test_reserve_beyond_memory_fails_with_enomem(UNIT_STATE)
{
	struct buf b = {0};
	assert_int_equal(buf_reserve(&b, SIZE_MAX), -ENOMEM);
	assert_null(b.p);
	assert_int_equal(b.cap, 0);
}

static void test_free_leaves_an_empty_reusable_buffer(UNIT_STATE)
{
	struct buf b = {0};
	assert_int_equal(buf_reserve(&b, 5), 0);
	b.len = 3;
	buf_free(&b);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	buf_free(&b); /* twice is harmless */
	assert_int_equal(buf_reserve(&b, 5), 0);
	buf_free(&b);
}

static void test_array_reserve_starts_at_first_and_doubles(UNIT_STATE)
{
	struct item {
		int a;
		double b;
	} *v = NULL;
	size_t cap = 0;
	assert_int_equal(array_reserve(&v, &cap, 1, sizeof(*v), 8), 0);
	assert_non_null(v);
	assert_int_equal(cap, 8);
	v[7].a = 42;
	assert_int_equal(array_reserve(&v, &cap, 8, sizeof(*v), 8), 0);
	assert_int_equal(cap, 8);
	assert_int_equal(array_reserve(&v, &cap, 9, sizeof(*v), 8), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(v[7].a, 42); /* content kept */
	assert_int_equal(array_reserve(&v, &cap, 100, sizeof(*v), 8), 0);
	assert_int_equal(cap, 128);
	free(v);
}

static void test_array_reserve_too_large_fails_and_keeps_the_array(UNIT_STATE)
{
	int *v = NULL;
	size_t cap = 0;
	assert_int_equal(array_reserve(&v, &cap, 4, sizeof(*v), 4), 0);
	int *keep = v;
	assert_int_equal(array_reserve(&v, &cap, SIZE_MAX / 2, sizeof(*v), 4), -ENOMEM);
	assert_ptr_equal(v, keep);
	assert_int_equal(cap, 4);
	free(v);
}

UNIT_TESTS(test_reserve_gives_16_kib_then_doubles_until_it_fits,
	   test_reserve_within_capacity_keeps_memory_and_content,
	   test_reserve_beyond_memory_fails_with_enomem, test_free_leaves_an_empty_reusable_buffer,
	   test_array_reserve_starts_at_first_and_doubles,
	   test_array_reserve_too_large_fails_and_keeps_the_array)
