/* SPDX-License-Identifier: MIT */
/*
 * ledger_helper: processes whose THP ledger is known, for tests/live/ledger.sh
 * and bench/ps.sh. Each region is SIZE_MB MiB, 2 MiB aligned, in its own VMA.
 *
 *   ledger_helper healthy MB  MADV_HUGEPAGE, every 4 KiB page written: nothing invented
 *   ledger_helper sparse MB   MADV_HUGEPAGE, one byte written per 2 MiB: ~all invented
 *   ledger_helper split MB    MADV_HUGEPAGE, every page written, then MADV_DONTNEED
 *                             of 511 of every 512 pages: MB/2 THPs partially
 *                             mapped, held (deferred split)
 *   ledger_helper creep MB    no advice, 300 of every 512 pages written, then
 *                             MADV_HUGEPAGE: khugepaged may add 212 pages per PMD
 *   ledger_helper recollapse MB  as split, then MADV_COLLAPSE of 1 in 8 of the ranges
 *                             (what khugepaged does at max_ptes_none=511): a few THPs
 *                             again, ~all of them invented, and held beside them
 *   ledger_helper creep16 MB  MADV_NOHUGEPAGE, one page in 16 written, then
 *                             MADV_HUGEPAGE: faulted as small pages before the advice;
 *                             khugepaged may add 480 pages per PMD
 *   ledger_helper lazyfree MB MADV_HUGEPAGE, every page written, then MADV_FREE of all
 *                             but one 4 KiB page per 2 MiB: RSS stays, AnonHugePages 0,
 *                             LazyFree ~all
 *   ledger_helper stacks N    N threads whose stacks (2 MiB each, one mapping, no
 *                             MAP_STACK, no advice) come from plain mmap: under
 *                             enabled=always each gets a THP it barely touches
 *
 * It prints "region START END" (hex) and "ready PID", flushes, and waits for
 * SIGTERM/SIGINT/SIGHUP, then exits 0. Setup failures exit 1.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PMD (2UL << 20)
#define PAGE 4096UL
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* 6.1 */
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "ledger_helper: %s: %s\n", what, strerror(errno));
	exit(1);
}

static char *region(size_t len)
{
	char *p = mmap(NULL, len + PMD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	return (char *)(((uintptr_t)p + PMD - 1) & ~(PMD - 1));
}

static int never_fd = -1; /* a pipe nobody writes: the threads block reading it */

static void *stack_thread(void *arg)
{
	char c;
	(void)arg;
	while (read(never_fd, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* N threads on stacks carved from one plain anonymous mapping, 2 MiB each. */
static void stacks(long n)
{
	int fds[2];
	if (pipe(fds))
		die("pipe");
	never_fd = fds[0];
	char *p = region((size_t)n * PMD);
	for (long i = 0; i < n; i++) {
		pthread_attr_t a;
		pthread_t t;
		pthread_attr_init(&a);
		if (pthread_attr_setstack(&a, p + (size_t)i * PMD, PMD) ||
		    (errno = pthread_create(&t, &a, stack_thread, NULL)))
			die("pthread_create");
		pthread_attr_destroy(&a);
	}
	printf("region %lx %lx\n", (unsigned long)p, (unsigned long)(p + (size_t)n * PMD));
}

/* Write every page, or one page in STEP / PAGE. */
static void touch(char *p, size_t len, size_t step)
{
	for (size_t off = 0; off < len; off += step)
		p[off] = 1;
}

/* Every mode but stacks: one region of LEN bytes. */
static int modes(const char *mode, char *p, size_t len)
{
	bool hg_first = !strcmp(mode, "healthy") || !strcmp(mode, "sparse") ||
			!strcmp(mode, "split") || !strcmp(mode, "recollapse") ||
			!strcmp(mode, "lazyfree");
	if (hg_first) {
		if (madvise(p, len, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
		touch(p, len, !strcmp(mode, "sparse") ? PMD : PAGE);
		int adv = !strcmp(mode, "lazyfree") ? MADV_FREE : MADV_DONTNEED;
		if (!strcmp(mode, "split") || !strcmp(mode, "recollapse") ||
		    !strcmp(mode, "lazyfree"))
			for (size_t off = 0; off < len; off += PMD)
				if (madvise(p + off + PAGE, PMD - PAGE, adv))
					die("madvise(MADV_DONTNEED/MADV_FREE)");
		if (!strcmp(mode, "recollapse"))
			for (size_t off = 0; off < len / 8; off += PMD)
				if (madvise(p + off, PMD, MADV_COLLAPSE))
					die("madvise(MADV_COLLAPSE)");
	} else if (!strcmp(mode, "creep16")) {
		if (madvise(p, len, MADV_NOHUGEPAGE))
			die("madvise(MADV_NOHUGEPAGE)");
		touch(p, len, 16 * PAGE);
		if (madvise(p, len, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
	} else if (!strcmp(mode, "creep")) {
		if (madvise(p, len, MADV_NOHUGEPAGE))
			die("madvise(MADV_NOHUGEPAGE)");
		for (size_t off = 0; off < len; off += PMD)
			for (size_t i = 0; i < 300; i++)
				p[off + i * PAGE] = 1;
		if (madvise(p, len, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
	} else {
		fprintf(stderr, "ledger_helper: unknown mode %s\n", mode);
		return 2;
	}
	printf("region %lx %lx\n", (unsigned long)p, (unsigned long)(p + len));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 || atol(argv[2]) <= 0 || (strcmp(argv[1], "stacks") && atol(argv[2]) % 2)) {
		fprintf(stderr,
			"usage: ledger_helper healthy|sparse|split|creep|recollapse|creep16|"
			"lazyfree SIZE_MB (even) | stacks N\n");
		return 2;
	}
	const char *mode = argv[1];
	if (!strcmp(mode, "stacks")) {
		stacks(atol(argv[2]));
	} else {
		size_t len = (size_t)atol(argv[2]) << 20;
		int r = modes(mode, region(len), len);
		if (r)
			return r;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!stop)
		pause();
	return 0;
}
