// SPDX-License-Identifier: MIT
/* Unit tests: src/util/dl.c (a library and its functions by dlopen). */
#include "unit.h"

#include "util/dl.h"

static void test_missing_library(UNIT_STATE)
{
	const char *names[] = {"inflate"};
	void *out[1] = {(void *)1};
	char why[256];
	assert_int_equal(
		dl_load("libthpctl-none.so.9", NULL, "none", names, out, 1, why, sizeof(why)),
		-ENOENT);
	assert_null(out[0]);
	/* dlerror()'s words, which name the file */
	assert_non_null(strstr(why, "libthpctl-none.so.9"));
}

static void test_missing_function(UNIT_STATE)
{
	const char *names[] = {"inflate", "thpctl_no_such_function"};
	void *out[2];
	char why[256];
	assert_int_equal(dl_load("libz.so.1", NULL, "zlib", names, out, 2, why, sizeof(why)),
			 -ENOENT);
	assert_null(out[0]);
	assert_null(out[1]);
	assert_string_equal(why, "libz.so.1 lacks thpctl_no_such_function (zlib too old?)");
}

static void test_loaded_and_fallback(UNIT_STATE)
{
	const char *names[] = {"inflate", "inflateEnd"};
	void *out[2];
	char why[256] = "";
	assert_int_equal(dl_load("libz.so.1", NULL, "zlib", names, out, 2, why, sizeof(why)), 0);
	assert_non_null(out[0]);
	assert_non_null(out[1]);
	assert_ptr_not_equal(out[0], out[1]);
	/* the soname missing, the unversioned name there: loaded from it */
	void *again[2];
	assert_int_equal(dl_load("libthpctl-none.so.9", "libz.so.1", "zlib", names, again, 2, why,
				 sizeof(why)),
			 0);
	assert_ptr_equal(again[0], out[0]);
	/* the test hook makes a library missing by its WHAT */
	setenv("THPCTL_TEST_DL_MISSING", "libyaml,zlib", 1);
	assert_int_equal(
		dl_load("libz.so.1", "libz.so.1", "zlib", names, again, 2, why, sizeof(why)),
		-ENOENT);
	assert_non_null(strstr(why, "thpctl-test-missing.so"));
	unsetenv("THPCTL_TEST_DL_MISSING");
}

UNIT_MAIN(cmocka_unit_test(test_missing_library), cmocka_unit_test(test_missing_function),
	  cmocka_unit_test(test_loaded_and_fallback))
