// SPDX-License-Identifier: MIT
/* Unit tests: how `thpctl ab` starts the command (cmd/ab_run.c ab_start): MAXRSS is the
 * command's own, not thpctl's peak; the prctl modes reach the command, not thpctl; a command
 * that cannot run is said; the wall time starts at its exec. */
#include "unit.h"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "cmd/ab_int.h"
#include "util/buf.h"
#include "util/clock.h"

static struct globals G;
static struct ab_ctx C;

/* Start ARGV under mode MODE, its output into the file LOG; its pid (or -errno), start in *T0. */
static pid_t start(char **argv, const char *mode, const char *log, uint64_t *t0)
{
	memset(&C, 0, sizeof(C));
	C.g = &G;
	C.cmd = argv;
	static struct ab_mode m;
	assert_int_equal(ab_mode_parse(mode, &m), 0);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	pid_t pid = ab_start(&C, &m, fd, t0);
	close(fd);
	return pid;
}

/* Reap PID: its wait status, its rusage in RU. */
static int reap(pid_t pid, struct rusage *ru)
{
	int st = -1;
	assert_int_equal(wait4(pid, &st, 0, ru), pid);
	return st;
}

static char LOG[] = "/tmp/thpctl-unit-ab-start.XXXXXX";

static int setup(void **state)
{
	(void)state;
	int fd = mkstemp(LOG);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(LOG);
	return 0;
}

/*
 * thpctl's own peak RSS must not reach the command's MAXRSS: this process touches 128 MiB and
 * gives it back (its peak stays >= 128 MiB), then starts `true`. Under posix_spawn or vfork
 * (CLONE_VM) exec would credit that peak to `true` (>= 131072 kB); under fork only the pages
 * fork copied (this test's, ASan's included: ~10 MiB), and `true`'s own (~1 MiB).
 */
static void maxrss_is_the_commands_own(UNIT_STATE)
{
	size_t len = 128u << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	memset(p, 1, len);
	munmap(p, len);
	struct rusage self;
	getrusage(RUSAGE_SELF, &self);
	assert_true(self.ru_maxrss >= 131072); /* the peak the bug would hand on */
	char *argv[] = {"true", NULL};
	uint64_t t0;
	pid_t pid = start(argv, "host", LOG, &t0);
	assert_true(pid > 0);
	struct rusage ru;
	int st = reap(pid, &ru);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (ru.ru_maxrss <= 0 || ru.ru_maxrss >= 65536)
		fail_msg("MAXRSS of true: %ld kB (this process's peak: %ld kB)", ru.ru_maxrss,
			 self.ru_maxrss);
}

/* A command bigger than the pages fork copied reports its own peak: 64 MiB of a shell
 * variable's worth is at least 64 MiB, and far from this process's 128 MiB peak above. */
static void maxrss_counts_what_the_command_touches(UNIT_STATE)
{
	char *argv[] = {"sh", "-c", "x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo ${#x}",
			NULL};
	uint64_t t0;
	pid_t pid = start(argv, "host", LOG, &t0);
	assert_true(pid > 0);
	struct rusage ru;
	int st = reap(pid, &ru);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (ru.ru_maxrss < 65536 || ru.ru_maxrss > 4 * 65536)
		fail_msg("MAXRSS of a 64 MiB shell: %ld kB", ru.ru_maxrss);
}

/* off: the command starts with THP disabled (status THP_enabled 0); thpctl's own state stays. */
static void off_reaches_the_command_not_thpctl(UNIT_STATE)
{
	assert_int_equal(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), 0);
	char *argv[] = {"grep", "^THP_enabled:", "/proc/self/status", NULL};
	const char *modes[] = {"off", "host"};
	for (int i = 0; i < 2; i++) {
		uint64_t t0;
		pid_t pid = start(argv, modes[i], LOG, &t0);
		assert_true(pid > 0);
		struct rusage ru;
		int st = reap(pid, &ru);
		struct buf b = {0};
		assert_int_equal(read_file_at(AT_FDCWD, LOG, &b, 4096), 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			buf_free(&b);
			skip(); /* a kernel before 5.0: no THP_enabled line */
		}
		assert_contains(b.p, i == 0 ? "THP_enabled:\t0" : "THP_enabled:\t1");
		buf_free(&b);
		assert_int_equal(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), 0);
	}
}

/* A program that is not there: -ENOENT, said in the log, nothing left to reap. */
static void a_command_that_cannot_run_is_said(UNIT_STATE)
{
	char *argv[] = {"/nonexistent/thpctl-unit-ab", NULL};
	uint64_t t0, before = mono_ns();
	assert_int_equal(start(argv, "host", LOG, &t0), -ENOENT);
	assert_true(t0 >= before);
	struct buf b = {0};
	assert_int_equal(read_file_at(AT_FDCWD, LOG, &b, 4096), 0);
	assert_contains(b.p, "cannot run /nonexistent/thpctl-unit-ab: No such file or directory");
	buf_free(&b);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* The wall time starts at the child's exec: after the call began, before it returned. */
static void the_wall_time_starts_at_exec(UNIT_STATE)
{
	char *argv[] = {"true", NULL};
	uint64_t t0, before = mono_ns();
	pid_t pid = start(argv, "host", LOG, &t0);
	uint64_t after = mono_ns();
	assert_true(pid > 0);
	assert_true(t0 > before && t0 <= after);
	struct rusage ru;
	reap(pid, &ru);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(maxrss_is_the_commands_own),
		cmocka_unit_test(maxrss_counts_what_the_command_touches),
		cmocka_unit_test(off_reaches_the_command_not_thpctl),
		cmocka_unit_test(a_command_that_cannot_run_is_said),
		cmocka_unit_test(the_wall_time_starts_at_exec),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
