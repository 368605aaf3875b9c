/* SPDX-License-Identifier: MIT */
/*
 * trace_workload: a fixed workload that fires many THP tracepoints, for
 * bench/trace.sh (the cost of `thpctl trace stalls` to the traced task).
 *
 *   trace_workload SIZE_MB CALLS
 *
 * Maps SIZE_MB (2 MiB aligned), MADV_HUGEPAGE, writes every page, and
 * collapses it once with MADV_COLLAPSE; then calls MADV_COLLAPSE CALLS more
 * times on the now PMD-mapped range. Each of those calls scans every PMD and
 * fires huge_memory:mm_khugepaged_scan_pmd (status=page_pmd_mapped) once per
 * PMD without copying anything, so the run is dominated by the per-PMD work
 * the tracepoint sits in. Prints "events N ns T": the tracepoint hits of the
 * timed loop (CALLS x PMDs) and its duration. Exits 1 (message on stderr)
 * where MADV_COLLAPSE is missing (before 6.1) or refused.
 */
#include "kernel/uapi_compat.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PMD_SIZE (2UL << 20)

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: trace_workload SIZE_MB CALLS\n");
		return 2;
	}
	size_t size = strtoul(argv[1], NULL, 10) << 20;
	long calls = strtol(argv[2], NULL, 10);
	if (size < PMD_SIZE || calls < 1) {
		fprintf(stderr, "trace_workload: SIZE_MB >= 2, CALLS >= 1\n");
		return 2;
	}
	size = size / PMD_SIZE * PMD_SIZE;
	char *raw = mmap(NULL, size + PMD_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED) {
		perror("trace_workload: mmap");
		return 1;
	}
	char *p = (char *)(((uintptr_t)raw + PMD_SIZE - 1) & ~(PMD_SIZE - 1));
	madvise(p, size, MADV_HUGEPAGE);
	long page = sysconf(_SC_PAGESIZE);
	for (size_t off = 0; off < size; off += (size_t)page)
		p[off] = 1;
	if (madvise(p, size, MADV_COLLAPSE) && errno != EAGAIN) {
		fprintf(stderr, "trace_workload: MADV_COLLAPSE: %s\n", strerror(errno));
		return 1;
	}
	uint64_t t0 = now_ns();
	for (long i = 0; i < calls; i++)
		madvise(p, size, MADV_COLLAPSE);
	uint64_t t = now_ns() - t0;
	printf("events %lu ns %llu\n", (unsigned long)calls * (unsigned long)(size / PMD_SIZE),
	       (unsigned long long)t);
	return 0;
}
