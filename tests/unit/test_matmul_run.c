// SPDX-License-Identifier: MIT
/* Unit tests: the parsers of src/lab/matmul_run.c (the child's "times" line, the BLAS in maps). */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "lab/matmul_run.h"

static void test_times_line_gives_each_value(UNIT_STATE)
{
	double t[MATMUL_MAX_REPS];
	assert_int_equal(matmul_parse_times("times 0.912345 0.901000 1.250000", t, 8), 3);
	assert_true(t[0] == 0.912345 && t[1] == 0.901 && t[2] == 1.25);
	assert_int_equal(matmul_parse_times("times 2.5  ", t, 8), 1);
	assert_true(t[0] == 2.5);
}

static void test_times_line_refuses_what_is_not_a_time(UNIT_STATE)
{
	double t[2];
	assert_int_equal(matmul_parse_times("ready", t, 2), -EINVAL);
	assert_int_equal(matmul_parse_times("times", t, 2), -EINVAL); /* no value: not 0 */
	assert_int_equal(matmul_parse_times("timesx 1.0", t, 2), -EINVAL);
	assert_int_equal(matmul_parse_times("times 1.0 0", t, 2), -EINVAL); /* zero time */
	assert_int_equal(matmul_parse_times("times 1.0 -2", t, 2), -EINVAL);
	assert_int_equal(matmul_parse_times("times 1.0 nan", t, 2), -EINVAL);
	assert_int_equal(matmul_parse_times("times 1.0x", t, 2), -EINVAL);
	assert_int_equal(matmul_parse_times("times 1 2 3", t, 2), -EINVAL); /* more than MAX */
	assert_int_equal(matmul_parse_times("Traceback (most recent call last):", t, 2), -EINVAL);
}

/* Lines of a python3 child's maps on Debian 12 (numpy 1.24, reference BLAS via the alternative). */
static const char maps_ref[] =
	"7f2a1c000000-7f2a1c021000 rw-p 00000000 00:00 0 \n"
	"7f2a20e00000-7f2a20e1c000 r--p 00000000 fe:01 1315083                    /usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0\n"
	"7f2a20e1c000-7f2a20e90000 r-xp 0001c000 fe:01 1315083                    /usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0\n"
	"7f2a21000000-7f2a21040000 r--p 00000000 fe:01 1315090                    /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3.11.0\n"
	"7f2a21200000-7f2a21240000 r--p 00000000 fe:01 1315077                    /usr/lib/x86_64-linux-gnu/libcblas.so.3\n"
	"7ffd5e7d1000-7ffd5e7f2000 rw-p 00000000 00:00 0                          [stack]\n";

static void test_blas_is_the_mapped_library(UNIT_STATE)
{
	char out[256];
	assert_true(matmul_blas_path(maps_ref, strlen(maps_ref), out, sizeof(out)));
	assert_string_equal(out, "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0");
	/* OpenBLAS mapped after the reference one still wins */
	const char *both = "1000-2000 r--p 0 fe:01 1 /usr/lib/x86_64-linux-gnu/libcblas.so.3\n"
			   "3000-4000 r-xp 0 fe:01 2 "
			   "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0";
	assert_true(matmul_blas_path(both, strlen(both), out, sizeof(out)));
	assert_string_equal(out, "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0");
}

static void test_no_blas_mapped_is_not_found(UNIT_STATE)
{
	char out[64] = "x";
	const char *m = "1000-2000 r--p 0 fe:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
			"3000-4000 rw-p 0 00:00 0 [heap]\n";
	assert_false(matmul_blas_path(m, strlen(m), out, sizeof(out)));
	assert_string_equal(out, "");
	assert_false(matmul_blas_path("", 0, out, sizeof(out)));
	/* "blas" in a directory name only is not a library */
	const char *d = "1000-2000 r--p 0 fe:01 1 /opt/blas/libm.so.6\n";
	assert_false(matmul_blas_path(d, strlen(d), out, sizeof(out)));
}

UNIT_TESTS(test_times_line_gives_each_value, test_times_line_refuses_what_is_not_a_time,
	   test_blas_is_the_mapped_library, test_no_blas_mapped_is_not_found)
