/* SPDX-License-Identifier: MIT */
/*
 * prctl_probe: what a process started by `thpctl run` sees, for
 * tests/live/control.sh.
 *
 *   prctl_probe get          print "thp_disable N": prctl(PR_GET_THP_DISABLE)
 *                            (0 nothing set, 1 full disable, 3 disabled except
 *                            advised, 6.18+)
 *   prctl_probe hugepage MB  also map MB MiB (2 MiB aligned), MADV_HUGEPAGE,
 *                            write every page, and print
 *                            "thp_disable N anon_huge_kb K" where K is the
 *                            region's AnonHugePages from /proc/self/smaps
 *   prctl_probe plain MB     the same without MADV_HUGEPAGE
 *
 * Exits 0 after printing, 1 on a setup failure (message on stderr).
 */
#include "kernel/uapi_compat.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define PMD_SIZE (2UL << 20)

static void die(const char *what)
{
	fprintf(stderr, "prctl_probe: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* AnonHugePages (kB) of the VMA starting at START in /proc/self/smaps, -1 if not found. */
static long anon_huge_kb(uintptr_t start)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	if (!f)
		die("open /proc/self/smaps");
	char line[512];
	bool in = false;
	long kb = -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = a <= start && start < b;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: prctl_probe get | hugepage MB | plain MB\n");
		return 2;
	}
	int st = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	if (st < 0)
		die("prctl(PR_GET_THP_DISABLE)");
	if (strcmp(argv[1], "get") == 0) {
		printf("thp_disable %d\n", st);
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "hugepage") && strcmp(argv[1], "plain")))
		return 2;
	long mb = strtol(argv[2], NULL, 10);
	if (mb <= 0 || mb > 4096 || mb % 2)
		return 2;
	size_t size = (size_t)mb << 20, len = size + PMD_SIZE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	char *a = (char *)(((uintptr_t)p + PMD_SIZE - 1) & ~(PMD_SIZE - 1));
	if (strcmp(argv[1], "hugepage") == 0 && madvise(a, size, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	long pg = sysconf(_SC_PAGESIZE);
	for (size_t off = 0; off < size; off += (size_t)pg)
		a[off] = 1;
	printf("thp_disable %d anon_huge_kb %ld\n", st, anon_huge_kb((uintptr_t)a));
	return 0;
}
