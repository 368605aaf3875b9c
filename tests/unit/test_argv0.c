// SPDX-License-Identifier: MIT
/* Unit tests: which path starts a process's program (kernel/argv0.c). */
#include "unit.h"

#include <errno.h>
#include <unistd.h>

#include "kernel/argv0.h"

static void test_path_from_environ(UNIT_STATE)
{
	assert_string_equal(argv0_path_env(LIT("HOME=/\0PATH=/opt/bin:/usr/bin\0X=1\0")),
			    "/opt/bin:/usr/bin");
	assert_null(argv0_path_env(LIT("HOME=/\0XPATH=/x\0")));
	assert_null(argv0_path_env("", 0));
	/* a PATH cut off without its NUL is not taken */
	assert_null(argv0_path_env("PATH=/usr/bin", 13));
}

/* This test program through a symlink: argv[0] leads to the running exe; another file does not. */
static void test_resolve_on_the_live_system(UNIT_STATE)
{
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	char self[512], out[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	char link[] = "/tmp/thpctl-argv0-XXXXXX";
	assert_non_null(mkdtemp(link));
	char sym[600];
	snprintf(sym, sizeof(sym), "%s/multi", link);
	assert_int_equal(symlink(self, sym), 0);
	assert_int_equal(argv0_resolve(&sr, getpid(), sym, NULL, out, sizeof(out)), 1);
	assert_string_equal(out, sym);
	/* a bare name found through PATH: the first one found decides, as execvp */
	assert_int_equal(argv0_resolve(&sr, getpid(), "multi", link, out, sizeof(out)), 1);
	assert_string_equal(out, sym);
	/* another program, or nothing */
	assert_int_equal(argv0_resolve(&sr, getpid(), "/bin/sh", NULL, out, sizeof(out)), 0);
	assert_int_equal(argv0_resolve(&sr, getpid(), "no-such-program-x", link, out, sizeof(out)),
			 0);
	unlink(sym);
	rmdir(link);
	sysroot_close(&sr);
}

UNIT_TESTS(test_path_from_environ, test_resolve_on_the_live_system)
