// SPDX-License-Identifier: MIT
/*
 * Unit tests: the helpers several callers share: util/buf.c's appenders,
 * util/str.c's str_copy_rtrim, cmd/args.c's args_store, kernel/kpath.c.
 */
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/args.h"
#include "kernel/kpath.h"
#include "util/buf.h"
#include "util/str.h"

static void test_buf_add_and_addf_append_nul_terminated(UNIT_STATE)
{
	struct buf b = {0};
	assert_int_equal(buf_add(&b, "ab", 2), 0);
	assert_int_equal(buf_addf(&b, "%s=%d;", "x", 42), 0);
	assert_int_equal(buf_add(&b, "", 0), 0);
	assert_int_equal(b.len, 7);
	assert_string_equal(b.p, "abx=42;");
	buf_free(&b);
}

static void test_str_copy_rtrim_drops_only_trailing_blanks(UNIT_STATE)
{
	char out[8];
	assert_int_equal(str_copy_rtrim(out, sizeof(out), "a b \n\t", 6, "\n \t"), 0);
	assert_string_equal(out, "a b");
	assert_int_equal(str_copy_rtrim(out, sizeof(out), "x\t", 2, "\n "), 0);
	assert_string_equal(out, "x\t");
	assert_int_equal(str_copy_rtrim(out, sizeof(out), " \n", 2, "\n "), 0);
	assert_string_equal(out, "");
	strcpy(out, "keep");
	assert_int_equal(str_copy_rtrim(out, 4, "abcd\n", 5, "\n"), -E2BIG);
	assert_string_equal(out, "keep");
}

static void test_args_store_flags_and_arguments(UNIT_STATE)
{
	bool all = false, quiet = false;
	const char *report = NULL;
	const struct args_store st[] = {ARGS_FLAG(1, &all), ARGS_ARG(2, &report),
					ARGS_FLAG(3, &quiet)};
	assert_int_equal(args_store(1, NULL, st, ARGS_N(st)), -1);
	assert_int_equal(args_store(2, "page.html", st, ARGS_N(st)), -1);
	assert_int_equal(args_store(4, "x", st, ARGS_N(st)), -2);
	assert_true(all);
	assert_false(quiet);
	assert_string_equal(report, "page.html");
}

static void test_args_pid_list_rejects_empty_pieces(UNIT_STATE)
{
	static const char *const bad[] = {"1,,2", "1,", ",1", "", "1,x"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pid_t *v = NULL;
		size_t n = 0, cap = 0;
		assert_int_equal(args_pid_list(bad[i], &v, &n, &cap), -EINVAL);
		free(v);
	}
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	assert_int_equal(args_pid_list("1,22", &v, &n, &cap), 0);
	assert_int_equal(args_pid_list("333", &v, &n, &cap), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 22);
	assert_int_equal(v[2], 333);
	free(v);
}

static void test_kpath_every_kind(UNIT_STATE)
{
	char p[128];
	assert_string_equal(kpath(KP_NONE, 0, NULL, p, sizeof(p)), "");
	assert_string_equal(kpath(KP_THP_ENABLED, 0, NULL, p, sizeof(p)),
			    "/sys/kernel/mm/transparent_hugepage/enabled");
	assert_string_equal(kpath(KP_THP_SIZE_ENABLED, 64, NULL, p, sizeof(p)),
			    "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled");
	assert_string_equal(kpath(KP_PROC_FILE, 123, "smaps", p, sizeof(p)), "/proc/123/smaps");
	assert_string_equal(kpath(KP_PROC_FILE, 7, NULL, p, sizeof(p)), "/proc/7/");
	assert_string_equal(kpath(KP_BOOT_CONFIG, 0, "6.1.0", p, sizeof(p)), "/boot/config-6.1.0");
	assert_string_equal(kpath(KP_TREE, 0, NULL, p, sizeof(p)), "/");
	assert_string_equal(kpath(KP_VMSTAT, 0, NULL, p, sizeof(p)), "/proc/vmstat");
	assert_string_equal(kpath((enum kpath)999, 0, NULL, p, sizeof(p)), "");
}

UNIT_TESTS(test_buf_add_and_addf_append_nul_terminated,
	   test_str_copy_rtrim_drops_only_trailing_blanks, test_args_store_flags_and_arguments,
	   test_args_pid_list_rejects_empty_pieces, test_kpath_every_kind)
