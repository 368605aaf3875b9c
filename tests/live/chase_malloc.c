/* SPDX-License-Identifier: MIT */
/*
 * chase_malloc: a memory-bound program that takes THP only the way ordinary
 * programs do, through its allocator (glibc malloc: GLIBC_TUNABLES
 * glibc.malloc.hugetlb=1) or the host's policy (enabled=always), for
 * tests/live/ab.sh and bench/ab.sh. No madvise of its own.
 *
 *   chase_malloc SIZE [STEPS]   malloc SIZE (k, M, G suffixes), one node per
 *                               4 KiB page linked in a random cycle, every
 *                               page written; then STEPS (default 4M)
 *                               dependent loads. Prints "ns_per_access X".
 *   chase_malloc SIZE sparse    malloc SIZE, write one byte per 2 MiB and exit:
 *                               its peak RSS is what THP adds (a whole huge
 *                               page per byte written) or not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t size_arg(const char *s)
{
	char *e;
	uint64_t v = strtoull(s, &e, 10);
	switch (*e) {
	case 'k':
	case 'K':
		return v << 10;
	case 'm':
	case 'M':
		return v << 20;
	case 'g':
	case 'G':
		return v << 30;
	default:
		return v;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: chase_malloc SIZE [STEPS|sparse]\n");
		return 2;
	}
	uint64_t size = size_arg(argv[1]);
	if (argc == 3 && !strcmp(argv[2], "sparse")) {
		volatile char *m = malloc(size);
		if (!m)
			return 1;
		for (uint64_t off = 0; off < size; off += 2u << 20)
			m[off] = 1;
		printf("sparse %llu\n", (unsigned long long)size);
		return 0;
	}
	uint64_t steps = argc == 3 ? size_arg(argv[2]) : 4u << 20;
	size_t pages = size / 4096;
	if (pages < 2) {
		fprintf(stderr, "chase_malloc: SIZE must be at least 8k\n");
		return 2;
	}
	char *mem = malloc(size);
	size_t *order = malloc(pages * sizeof(*order));
	if (!mem || !order) {
		fprintf(stderr, "chase_malloc: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < pages; i++)
		order[i] = i;
	for (size_t i = pages - 1; i > 0; i--) {
		size_t j = next() % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	/* node i lives at a varying offset of page order[i]: cache sets spread */
	for (size_t i = 0; i < pages; i++) {
		size_t here = order[i] * 4096 + (i % 63) * 64;
		size_t n = (i + 1) % pages, there = order[n] * 4096 + (n % 63) * 64;
		memcpy(mem + here, &there, sizeof(there));
	}
	size_t at = order[0] * 4096;
	free(order);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (uint64_t s = 0; s < steps; s++)
		memcpy(&at, mem + at, sizeof(at));
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("ns_per_access %.2f\nend %zu\n", ns / (double)steps, at);
	free(mem);
	return 0;
}
