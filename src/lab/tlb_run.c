// SPDX-License-Identifier: MIT
#include "tlb_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "../util/stats.h"
#include "region.h"

#define LINE 64
#define SEED 0x746c622d7468706cull

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A random order of 0..N-1 (Fisher-Yates, fixed seed). */
static uint32_t *order(uint64_t n)
{
	uint32_t *p = malloc(n * sizeof(*p));
	if (!p)
		return NULL;
	uint64_t seed = SEED;
	for (uint64_t i = 0; i < n; i++)
		p[i] = (uint32_t)i;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = splitmix64(&seed) % (i + 1);
		uint32_t t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	return p;
}

/* The line of slot I: in page I at a varied offset (sparse), or line I (dense: PAGE 0). */
static inline void **slot(char *base, uint64_t page, uint64_t i)
{
	if (!page)
		return (void **)(base + i * LINE);
	uint64_t lines = page / LINE;
	return (void **)(base + i * page + (i % lines) * LINE);
}

/* One cycle through the slots in the order P. */
static LAB_NO_ASAN void chain_link(char *base, uint64_t page, const uint32_t *p, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++)
		*slot(base, page, p[k]) = slot(base, page, p[(k + 1) % n]);
}

LAB_NO_ASAN void *tlb_walk(void *p, uint64_t steps)
{
	void **q = p;
	while (steps--)
		q = *q;
	return q;
}

/* Where the walks end, kept so that the compiler cannot drop a walk as unused. */
static void *volatile sink;

static double timed(void **pos, uint64_t steps)
{
	uint64_t t0 = mono_ns();
	*pos = tlb_walk(*pos, steps);
	sink = *pos;
	uint64_t t1 = mono_ns();
	return (double)(t1 - t0) / (double)steps;
}

int tlb_measure(char *sparse, uint64_t page, char *dense, uint64_t npages, int runs, uint64_t steps,
		struct tlb_point *pt, double *sparse_ns, double *dense_ns)
{
	if (runs > STATS_MW_MAX / 2)
		runs = STATS_MW_MAX / 2;
	uint32_t *p = order(npages);
	if (!p)
		return -ENOMEM;
	chain_link(sparse, page, p, npages);
	chain_link(dense, 0, p, npages);
	void *pos[2] = {slot(sparse, page, p[0]), slot(dense, 0, p[0])};
	free(p);
	/* one lap of each first: caches and TLB as in the steady state */
	pos[0] = tlb_walk(pos[0], npages);
	pos[1] = tlb_walk(pos[1], npages);
	sink = pos[0];
	sink = pos[1];
	double t[2][STATS_MW_MAX];
	size_t m = 0;
	for (int i = 0; i < runs; i++) {
		/* ABBA, then BAAB: a drift on the host hits both alike */
		for (int j = 0; j < 4; j++) {
			int k = (i + (j == 1 || j == 2)) % 2;
			t[k][m + (j >= 2)] = timed(&pos[k], steps);
		}
		m += 2;
	}
	memset(pt, 0, sizeof(*pt));
	pt->pages = npages;
	pt->n = m;
	for (size_t i = 0; i < m; i++)
		pt->excess[i] = t[0][i] - t[1][i];
	*sparse_ns = stats_median(t[0], m);
	*dense_ns = stats_median(t[1], m);
	return 0;
}
