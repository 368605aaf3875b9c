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

/* Its working directory, and a relative path under it, read through proc/PID/cwd. */
static void test_cwd_on_the_live_system(UNIT_STATE)
{
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	char old[512], dir[] = "/tmp/thpctl-cwd-XXXXXX", out[512];
	assert_non_null(getcwd(old, sizeof(old)));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(mkdir("conf", 0700), 0);
	FILE *f = fopen("conf/app.yaml", "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(proc_cwd(&sr, getpid(), out, sizeof(out)), 0);
	assert_string_equal(out, dir);
	assert_int_equal(proc_cwd_has(&sr, getpid(), "conf/app.yaml"), 1);
	assert_int_equal(proc_cwd_has(&sr, getpid(), "./conf/app.yaml"), 1);
	assert_int_equal(proc_cwd_has(&sr, getpid(), "hp.py"), 0);
	assert_int_equal(proc_cwd_has(&sr, getpid(), "conf/app.yaml/x"), 0); /* ENOTDIR */
	assert_int_equal(proc_cwd(&sr, getpid(), out, 4), -ENAMETOOLONG);
	/* removed under it: the path it had, and -ESTALE */
	assert_int_equal(unlink("conf/app.yaml"), 0);
	assert_int_equal(rmdir("conf"), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(proc_cwd(&sr, getpid(), out, sizeof(out)), -ESTALE);
	assert_string_equal(out, dir);
	assert_int_equal(chdir(old), 0);
	sysroot_close(&sr);
	/* a recorded tree has no cwd link */
	assert_int_equal(sysroot_open(&sr, "tests/fixtures/linux-6.18-x86"), 0);
	assert_int_equal(proc_cwd(&sr, 30730, out, sizeof(out)), -ENOENT);
	assert_string_equal(out, "");
	assert_int_equal(proc_cwd_has(&sr, 30730, "hp.py"), -ENOENT);
	sysroot_close(&sr);
}

UNIT_TESTS(test_path_from_environ, test_resolve_on_the_live_system, test_cwd_on_the_live_system)
