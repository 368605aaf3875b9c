/* SPDX-License-Identifier: MIT */
/*
 * thp_helper: a process with a known memory layout, for tests/live/run.sh and
 * bench/ps.sh.
 *
 *   thp_helper hugepage SIZE_MB   SIZE MiB, 2 MiB aligned, MADV_HUGEPAGE, every
 *                                 4 KiB page written (PMD THPs under madvise)
 *   thp_helper nohuge SIZE_MB     same but MADV_NOHUGEPAGE (VmFlags nh)
 *   thp_helper plain SIZE_MB      same with no advice
 *   thp_helper sparse SIZE_MB     SIZE MiB, 2 MiB aligned, no advice, one 4 KiB
 *                                 page written per 2 MiB (what a collapse would
 *                                 inflate 512 times)
 *   thp_helper fork-hugepage SIZE_MB
 *                                 as hugepage, then fork: parent and child map
 *                                 the same huge pages ("ready PID CHILDPID")
 *   thp_helper prctl-fork         prctl(PR_SET_THP_DISABLE, 1), then fork; the
 *                                 child inherits the disable (THP_enabled 0)
 *   thp_helper many-vmas N        N separate 1-page anonymous VMAs (alternating
 *                                 protections so they do not merge), touched
 *   thp_helper prctl-daemon       prctl(PR_SET_THP_DISABLE, 1), fork, the
 *                                 parent exits: the child (setsid) is adopted
 *                                 by PID 1 or a subreaper; it prints "ready
 *                                 CHILDPID" and waits (stop it by its PID)
 *   thp_helper title TEXT         write TEXT over its argument vector and
 *                                 blank its environment, as Redis's
 *                                 setproctitle does: /proc/PID/cmdline reads
 *                                 TEXT then NULs, /proc/PID/environ all NULs
 *   thp_helper threads N          N pthreads with glibc's default stacks
 *                                 (MAP_STACK, a guard page below each),
 *                                 parked: on 6.7+ each stack and guard is nh
 *                                 by the kernel's choice, nothing madvised
 *   thp_helper maxrss CMD [ARG..] run CMD (stdout, stderr to /dev/null), print
 *                                 "maxrss KB status N": its peak RSS from
 *                                 wait4(); for hosts without GNU time. (A
 *                                 python wrapper would report python's own
 *                                 RSS: maxrss survives exec.)
 *
 * When set up it prints "ready PID" (prctl-fork: "ready PID CHILDPID") on
 * stdout, flushes, and pause()s until SIGTERM/SIGINT/SIGHUP, then exits 0.
 * prctl-fork's parent passes SIGTERM on to its child and reaps it; the child
 * also dies with its parent (PR_SET_PDEATHSIG). Setup failures exit 1 with a
 * message on stderr and never print "ready".
 */
#include "kernel/uapi_compat.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_signals.h"

#define PMD_SIZE (2UL << 20)

static pid_t child_pid;

static void die(const char *what)
{
	fprintf(stderr, "thp_helper: %s: %s\n", what, strerror(errno));
	if (child_pid > 0)
		kill(child_pid, SIGKILL);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: thp_helper hugepage|nohuge|plain|sparse|fork-hugepage SIZE_MB\n"
			"       thp_helper prctl-fork\n"
			"       thp_helper many-vmas N\n"
			"       thp_helper prctl-daemon\n"
			"       thp_helper title TEXT\n"
			"       thp_helper threads N\n"
			"       thp_helper maxrss CMD [ARGS...]\n");
	exit(2);
}

static long parse_count(const char *s, long max)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > max)
		usage();
	return v;
}

/* mmap `size` bytes at a PMD-aligned address (over-map, trim both ends). */
static char *map_aligned(size_t size)
{
	size_t len = size + PMD_SIZE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	uintptr_t a = ((uintptr_t)p + PMD_SIZE - 1) & ~(PMD_SIZE - 1);
	size_t head = a - (uintptr_t)p;
	if (head && munmap(p, head))
		die("munmap head");
	size_t tail = len - head - size;
	if (tail && munmap((char *)a + size, tail))
		die("munmap tail");
	return (char *)a;
}

static void touch(char *p, size_t size)
{
	long pg = sysconf(_SC_PAGESIZE);
	for (size_t off = 0; off < size; off += (size_t)pg)
		p[off] = 1;
}

static void region(const char *mode, long mb)
{
	size_t size = (size_t)mb << 20;
	char *p = map_aligned(size);
	if (!strcmp(mode, "hugepage")) {
		if (madvise(p, size, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
	} else if (!strcmp(mode, "nohuge")) {
		if (madvise(p, size, MADV_NOHUGEPAGE))
			die("madvise(MADV_NOHUGEPAGE)");
	}
	touch(p, size);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_for_stop();
}

static void many_vmas(long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	/* one reservation, then alternate protections page by page: adjacent
	 * VMAs with different flags never merge, so this yields n VMAs */
	char *p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	touch(p, (size_t)(n * pg));
	for (long i = 1; i < n; i += 2)
		if (mprotect(p + i * pg, (size_t)pg, PROT_READ))
			die("mprotect");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_for_stop();
}

static void fork_and_wait(void);

static void prctl_fork(void)
{
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("prctl(PR_SET_THP_DISABLE)");
	fork_and_wait();
}

/* SIZE MiB with one page written per PMD: the rest of each huge-page range is empty. */
static void sparse(long mb)
{
	size_t size = (size_t)mb << 20;
	char *p = map_aligned(size);
	for (size_t off = 0; off < size; off += PMD_SIZE)
		p[off] = 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_for_stop();
}

/* A written MADV_HUGEPAGE region, then a fork: both processes map the same THPs. */
static void fork_hugepage(long mb)
{
	size_t size = (size_t)mb << 20;
	char *p = map_aligned(size);
	if (madvise(p, size, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	touch(p, size);
	fork_and_wait();
}

/* Fork a child that waits too (and dies with us); print "ready PID CHILDPID". */
static void fork_and_wait(void)
{
	pid_t parent = getpid();
	fflush(stdout);
	child_pid = fork();
	if (child_pid < 0)
		die("fork");
	if (child_pid == 0) {
		child_pid = 0;
		if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0))
			die("prctl(PR_SET_PDEATHSIG)");
		if (getppid() != parent) /* parent already gone */
			_exit(0);
		wait_for_stop();
		_exit(0);
	}
	printf("ready %d %d\n", (int)parent, (int)child_pid);
	fflush(stdout);
	wait_for_stop();
	kill(child_pid, SIGTERM);
	while (waitpid(child_pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Blank argv and environ in place (one contiguous area), then write TEXT at argv[0]. */
static void set_title(int argc, char **argv, const char *text)
{
	extern char **environ;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", text);
	char *start = argv[0], *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	for (char **e = environ; *e; e++)
		if (*e == end)
			end = *e + strlen(*e) + 1;
	memset(start, 0, (size_t)(end - start));
	size_t n = strlen(buf);
	if (n >= (size_t)(end - start))
		n = (size_t)(end - start) - 1;
	memcpy(start, buf, n);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_for_stop();
}

static void *parked(void *arg)
{
	(void)arg;
	for (;;)
		pause(); /* the stop signals are blocked here: main takes them */
	return NULL;
}

static void threads(long n)
{
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old); /* inherited by the threads */
	for (long i = 0; i < n; i++) {
		pthread_t t;
		int e = pthread_create(&t, NULL, parked, NULL);
		if (e) {
			errno = e;
			die("pthread_create");
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_for_stop();
}

static void prctl_daemon(void)
{
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("prctl(PR_SET_THP_DISABLE)");
	fflush(stdout);
	pid_t c = fork();
	if (c < 0)
		die("fork");
	if (c > 0)
		_exit(0); /* the starter is gone */
	setsid();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_for_stop();
	exit(0);
}

static int maxrss(char **cmd)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(cmd[0], cmd);
		_exit(127);
	}
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4");
	printf("maxrss %ld status %d\n", ru.ru_maxrss,
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

int main(int argc, char **argv)
{
	/* handlers first: a SIGTERM that arrives during setup still ends us
	 * cleanly (it is acted on once we reach wait_for_stop) */
	install_handlers();
	if (argc < 2)
		usage();
	const char *mode = argv[1];
	if (!strcmp(mode, "hugepage") || !strcmp(mode, "nohuge") || !strcmp(mode, "plain")) {
		if (argc != 3)
			usage();
		region(mode, parse_count(argv[2], 1L << 20));
	} else if (!strcmp(mode, "sparse") || !strcmp(mode, "fork-hugepage")) {
		if (argc != 3)
			usage();
		long mb = parse_count(argv[2], 1L << 20);
		if (!strcmp(mode, "sparse"))
			sparse(mb);
		else
			fork_hugepage(mb);
	} else if (!strcmp(mode, "many-vmas")) {
		if (argc != 3)
			usage();
		many_vmas(parse_count(argv[2], 1L << 20));
	} else if (!strcmp(mode, "prctl-daemon")) {
		if (argc != 2)
			usage();
		prctl_daemon();
	} else if (!strcmp(mode, "title")) {
		if (argc != 3)
			usage();
		set_title(argc, argv, argv[2]);
	} else if (!strcmp(mode, "threads")) {
		if (argc != 3)
			usage();
		threads(parse_count(argv[2], 256));
	} else if (!strcmp(mode, "maxrss")) {
		if (argc < 3)
			usage();
		return maxrss(argv + 2);
	} else if (!strcmp(mode, "prctl-fork")) {
		if (argc != 2)
			usage();
		prctl_fork();
	} else {
		usage();
	}
	return 0;
}
