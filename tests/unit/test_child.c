// SPDX-License-Identifier: MIT
/* Unit tests: src/lab/child.c (children of an experiment: start, stop, reap). */
#include "unit.h"

#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "lab/child.h"

static pid_t sh(const char *script, int out)
{
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	struct child_spec s = {.path = "/bin/sh", .argv = argv, .in = -1, .out = out, .err = out};
	return child_spawn(&s);
}

static void output_and_exit_code_are_collected(UNIT_STATE)
{
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = sh("echo hello; echo err >&2; exit 3", p[1]);
	close(p[1]);
	assert_true(pid > 0);
	char out[64];
	assert_int_equal(child_collect(pid, p[0], out, sizeof(out)), 3);
	assert_string_equal(out, "hello\nerr\n");
	/* the output is cut at N-1, the rest still read: the child is not blocked */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = sh("seq 1 20000", p[1]);
	close(p[1]);
	assert_int_equal(child_collect(pid, p[0], out, 8), 0);
	assert_string_equal(out, "1\n2\n3\n4");
}

static void stdin_is_dev_null_and_signals_are_default(UNIT_STATE)
{
	int p[2];
	signal(SIGPIPE, SIG_IGN); /* as thpctl: the child gets it back */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = sh("cat; grep SigIgn /proc/self/status", p[1]);
	close(p[1]);
	char out[128];
	assert_int_equal(child_collect(pid, p[0], out, sizeof(out)), 0);
	assert_memory_equal(out, "SigIgn:\t", 8);
	/*
	 * Signals 32 and 33 are glibc's own (cancellation, setxid): sigaction()
	 * refuses them, so an ignored disposition inherited from the test's
	 * parent stays; every other signal must be back to default.
	 */
	unsigned long long ign = strtoull(out + 8, NULL, 16);
	assert_int_equal(ign & ~(3ULL << 31), 0);
	signal(SIGPIPE, SIG_DFL);
}

static void a_child_that_cannot_exec_exits_127(UNIT_STATE)
{
	char *argv[] = {"nope", NULL};
	struct child_spec s = {
		.path = "/nonexistent/nope", .argv = argv, .in = -1, .out = -1, .err = -1};
	pid_t pid = child_spawn(&s);
	assert_true(pid > 0);
	assert_int_equal(child_reap(pid), 127);
	assert_int_equal(child_reap(pid), -ECHILD);
}

static void stop_signals_waits_and_reports(UNIT_STATE)
{
	pid_t pid = sh("exec sleep 30", -1);
	assert_true(pid > 0);
	int code = -1;
	assert_false(child_exited(pid, &code));
	/* no signal: still running after the wait */
	assert_false(child_stop(pid, 0, 60));
	assert_true(child_stop(pid, SIGTERM, 5000));
	assert_false(child_exited(pid, &code)); /* reaped already */
	pid = sh("exit 5", -1);
	struct timespec t = {.tv_nsec = 200000000};
	nanosleep(&t, NULL);
	assert_true(child_exited(pid, &code));
	assert_int_equal(code, 5);
	pid = sh("kill -9 $$", -1);
	assert_int_equal(child_reap(pid), 128 + SIGKILL);
}

static void before_exec_and_cwd_run_in_the_child(UNIT_STATE)
{
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	char *argv[] = {"sh", "-c", "pwd; echo $THPCTL_T", NULL};
	char *envp[] = {"THPCTL_T=env", NULL};
	struct child_spec s = {.path = "/bin/sh",
			       .argv = argv,
			       .envp = envp,
			       .in = -1,
			       .out = p[1],
			       .err = -1,
			       .cwd = "/tmp"};
	pid_t pid = child_spawn(&s);
	close(p[1]);
	char out[64];
	assert_int_equal(child_collect(pid, p[0], out, sizeof(out)), 0);
	assert_string_equal(out, "/tmp\nenv\n");
	s.cwd = "/nonexistent";
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	s.out = p[1];
	pid = child_spawn(&s);
	close(p[1]);
	assert_int_equal(child_collect(pid, p[0], out, sizeof(out)), 126);
}

static void runs_as_another_user_when_root(UNIT_STATE)
{
	if (geteuid() != 0)
		skip();
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	char *argv[] = {"id", "-u", NULL};
	struct child_spec s = {.path = "/usr/bin/id",
			       .argv = argv,
			       .in = -1,
			       .out = p[1],
			       .err = -1,
			       .drop = true,
			       .uid = 65534,
			       .gid = 65534};
	pid_t pid = child_spawn(&s);
	close(p[1]);
	char out[32];
	assert_int_equal(child_collect(pid, p[0], out, sizeof(out)), 0);
	assert_string_equal(out, "65534\n");
}

static void a_free_loopback_port(UNIT_STATE)
{
	int port = child_free_port();
	assert_true(port > 0 && port < 65536);
}

static void a_private_directory_under_tmpdir(UNIT_STATE)
{
	char dir[40], err[96];
	setenv("TMPDIR", "/tmp", 1);
	assert_int_equal(child_dir_make(dir, sizeof(dir), "unit", err, sizeof(err)), 0);
	assert_int_equal(strncmp(dir, "/tmp/thpctl-unit.", 17), 0);
	assert_int_equal(rmdir(dir), 0);
	/* a TMPDIR too long for the buffer: /tmp instead */
	setenv("TMPDIR", "/tmp/a-directory-name-far-too-long-for-it", 1);
	assert_int_equal(child_dir_make(dir, sizeof(dir), "unit", err, sizeof(err)), 0);
	assert_int_equal(strncmp(dir, "/tmp/thpctl-unit.", 17), 0);
	assert_int_equal(rmdir(dir), 0);
	setenv("TMPDIR", "/nonexistent", 1);
	assert_int_equal(child_dir_make(dir, sizeof(dir), "unit", err, sizeof(err)), -ENOENT);
	assert_string_equal(dir, "");
	assert_contains(err, "mkdtemp /nonexistent/thpctl-unit.");
	unsetenv("TMPDIR");
	/* a name that cannot fit at all */
	assert_int_equal(child_dir_make(dir, 16, "unit", err, sizeof(err)), -ENAMETOOLONG);
}

static void end_asks_then_kills(UNIT_STATE)
{
	pid_t pid = sh("trap '' TERM; exec sleep 30", -1);
	struct timespec t = {.tv_nsec = 100000000};
	nanosleep(&t, NULL);
	child_end(&pid, SIGTERM, 100); /* ignored: killed after 100 ms */
	assert_int_equal(pid, 0);
	child_end(&pid, SIGTERM, 100); /* nothing to end */
}

UNIT_TESTS(output_and_exit_code_are_collected, stdin_is_dev_null_and_signals_are_default,
	   a_child_that_cannot_exec_exits_127, stop_signals_waits_and_reports,
	   before_exec_and_cwd_run_in_the_child, runs_as_another_user_when_root,
	   a_free_loopback_port, a_private_directory_under_tmpdir, end_asks_then_kills)
