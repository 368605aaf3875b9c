/* SPDX-License-Identifier: MIT */
/*
 * folio_helper: processes with known folio layouts, for tests/live/folios.sh
 * and bench/folios.sh. The per-size policies (hugepages-64kB/enabled, ...) are
 * set by the calling script, not here.
 *
 *   folio_helper layout    inside one PROT_NONE reservation (so no region
 *                          merges with another VMA), each region touched one
 *                          byte per 4 KiB page:
 *                            pmd    4 MiB, 2 MiB aligned, MADV_HUGEPAGE
 *                            64k    1 MiB, 64 KiB aligned, no advice
 *                            64k-unaligned  the same, then mremap()ed to an
 *                                   address 16 KiB past a 64 KiB boundary
 *                            16k    16 VMAs of 32 KiB, each 64 KiB aligned and
 *                                   followed by 32 KiB of PROT_NONE (no 64 KiB
 *                                   folio fits, a 16 KiB one does)
 *                            small  1 MiB, MADV_NOHUGEPAGE
 *   folio_helper punch     64k as above, then MADV_DONTNEED of the 6th 4 KiB
 *                          page of every 64 KiB block (each folio partial)
 *   folio_helper zeros     10 PMD THPs (MADV_HUGEPAGE); THP i has ZEROS[i]
 *                          all-zero 4 KiB subpages, the others written
 *   folio_helper bench GB  GB/2 GiB MADV_HUGEPAGE, then GB/2 GiB with no
 *                          advice, every page written (GB even; or NM: N MiB
 *                          in all, N a multiple of 4, e.g. 512M)
 *
 * It prints "region NAME START END" (hex, end exclusive) per region, for
 * zeros "thp START ZEROS" per THP, then "ready PID", flushes and waits for
 * SIGTERM/SIGINT/SIGHUP, then exits 0. Setup failures exit 1.
 */
#include "kernel/uapi_compat.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helper_signals.h"

#define KB 1024UL
#define MB (1024UL * KB)
#define PMD (2 * MB)
#define PAGE (4 * KB)

static void die(const char *what)
{
	fprintf(stderr, "folio_helper: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A PROT_NONE reservation of LEN bytes aligned to PMD; regions are carved out of it. */
static char *reserve(size_t len)
{
	char *p = mmap(NULL, len + PMD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		       0);
	if (p == MAP_FAILED)
		die("mmap reservation");
	return (char *)(((uintptr_t)p + PMD - 1) & ~(PMD - 1));
}

/* Make [P, P+LEN) a fresh private anonymous read-write mapping. */
static void carve(char *p, size_t len)
{
	if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
	    p)
		die("mmap MAP_FIXED");
}

static void touch(char *p, size_t len)
{
	for (size_t off = 0; off < len; off += PAGE)
		((volatile char *)p)[off] = 1;
}

static void region(const char *name, const char *p, size_t len)
{
	printf("region %s %lx %lx\n", name, (unsigned long)(uintptr_t)p,
	       (unsigned long)((uintptr_t)p + len));
}

static void layout(void)
{
	char *base = reserve(32 * MB);
	char *pmd = base + 2 * MB, *k64 = base + 8 * MB, *k16 = base + 12 * MB;
	char *small = base + 16 * MB, *src = base + 20 * MB, *dst = base + 24 * MB + 16 * KB;
	carve(pmd, 4 * MB);
	if (madvise(pmd, 4 * MB, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	touch(pmd, 4 * MB);
	carve(k64, MB);
	touch(k64, MB);
	for (int i = 0; i < 16; i++) {
		carve(k16 + i * 64 * KB, 32 * KB);
		touch(k16 + i * 64 * KB, 32 * KB);
	}
	carve(small, MB);
	if (madvise(small, MB, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	touch(small, MB);
	carve(src, MB);
	touch(src, MB);
	if (mremap(src, MB, MB, MREMAP_MAYMOVE | MREMAP_FIXED, dst) != dst)
		die("mremap");
	region("pmd", pmd, 4 * MB);
	region("64k", k64, MB);
	region("16k", k16, 16 * 64 * KB);
	region("small", small, MB);
	region("64k-unaligned", dst, MB);
}

static void punch(void)
{
	char *base = reserve(4 * MB);
	char *k64 = base + MB;
	carve(k64, MB);
	touch(k64, MB);
	for (size_t off = 0; off < MB; off += 64 * KB)
		if (madvise(k64 + off + 5 * PAGE, PAGE, MADV_DONTNEED))
			die("madvise(MADV_DONTNEED)");
	region("64k-punched", k64, MB);
}

static void zeros(void)
{
	static const int z[] = {0, 1, 63, 64, 65, 128, 129, 256, 300, 512};
	const int n = (int)(sizeof(z) / sizeof(z[0]));
	char *base = reserve((size_t)(n + 2) * PMD);
	char *p = base + PMD;
	carve(p, (size_t)n * PMD);
	if (madvise(p, (size_t)n * PMD, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	for (int i = 0; i < n; i++) {
		volatile char *t = (volatile char *)(p + (size_t)i * PMD);
		t[0] = 0; /* a write fault: the THP is allocated, all zero */
		/* subpage j stays zero when (j * 7919) % 512 < z: spread over the THP */
		for (int j = 0; j < 512; j++)
			if ((j * 7919) % 512 >= z[i])
				t[(size_t)j * PAGE + (size_t)(j % 4096)] = (char)(j | 1);
		printf("thp %lx %d\n", (unsigned long)(uintptr_t)t, z[i]);
	}
	region("zeros", p, (size_t)n * PMD);
}

static void bench(size_t mib)
{
	size_t half = mib / 2 * MB;
	char *base = reserve(2 * half + 2 * PMD);
	char *hp = base + PMD, *plain = hp + half + PMD;
	carve(hp, half);
	if (madvise(hp, half, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	touch(hp, half);
	carve(plain, half);
	touch(plain, half);
	region("hugepage", hp, half);
	region("plain", plain, half);
}

/* bench's size in MiB from "GB" (even, at most 1024) or "NM" (a multiple of 4); 0: refused */
static size_t bench_mib(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (v <= 0 || end == s)
		return 0;
	if (!strcmp(end, "M"))
		return v % 4 || v > (1L << 20) ? 0 : (size_t)v;
	return *end || v > 1024 || v % 2 ? 0 : (size_t)v * 1024;
}

int main(int argc, char **argv)
{
	install_handlers();
	if (argc == 2 && !strcmp(argv[1], "layout"))
		layout();
	else if (argc == 2 && !strcmp(argv[1], "punch"))
		punch();
	else if (argc == 2 && !strcmp(argv[1], "zeros"))
		zeros();
	else if (argc == 3 && !strcmp(argv[1], "bench") && bench_mib(argv[2]))
		bench(bench_mib(argv[2]));
	else {
		fprintf(stderr,
			"usage: folio_helper layout|punch|zeros|bench GB (even)|bench NM\n");
		return 2;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	wait_for_stop();
	return 0;
}
