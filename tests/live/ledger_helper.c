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
 *
 * It prints "region START END" (hex) and "ready PID", flushes, and waits for
 * SIGTERM/SIGINT/SIGHUP, then exits 0. Setup failures exit 1.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PMD (2UL << 20)
#define PAGE 4096UL

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

int main(int argc, char **argv)
{
	if (argc != 3 || atol(argv[2]) <= 0 || atol(argv[2]) % 2) {
		fprintf(stderr, "usage: ledger_helper healthy|sparse|split|creep SIZE_MB (even)\n");
		return 2;
	}
	const char *mode = argv[1];
	size_t len = (size_t)atol(argv[2]) << 20;
	char *p = region(len);
	if (!strcmp(mode, "healthy") || !strcmp(mode, "sparse") || !strcmp(mode, "split")) {
		if (madvise(p, len, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
		size_t step = !strcmp(mode, "sparse") ? PMD : PAGE;
		for (size_t off = 0; off < len; off += step)
			p[off] = 1;
		if (!strcmp(mode, "split"))
			for (size_t off = 0; off < len; off += PMD)
				if (madvise(p + off + PAGE, PMD - PAGE, MADV_DONTNEED))
					die("madvise(MADV_DONTNEED)");
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
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	printf("region %lx %lx\nready %d\n", (unsigned long)p, (unsigned long)(p + len),
	       (int)getpid());
	fflush(stdout);
	while (!stop)
		pause();
	return 0;
}
