/* SPDX-License-Identifier: MIT */
/*
 * spin_malloc: a compute-bound program for tests/live/sweep.sh, the flat
 * counterpart of chase_malloc: it mallocs SIZE (k, M suffixes) and writes one
 * byte per 2 MiB, so `ab --sweep` has anonymous memory to steer (each byte
 * faults a 4 KiB page or a 2 MiB one) at a cost of a few faults either way,
 * then spends its time in ITERS rounds of register arithmetic that touch no
 * memory. (Writing every page would not be flat: 4 KiB faults cost this
 * guest ~20 us each, so 16 MiB of them is ~90 ms that THP saves.)
 *
 *   spin_malloc SIZE ITERS   prints "spin X" (the arithmetic's result)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t num(const char *s)
{
	char *e;
	uint64_t v = strtoull(s, &e, 10);
	return *e == 'k' || *e == 'K' ? v << 10 : *e == 'm' || *e == 'M' ? v << 20 : v;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: spin_malloc SIZE ITERS\n");
		return 2;
	}
	uint64_t size = num(argv[1]), iters = num(argv[2]);
	char *m = malloc(size);
	if (!m) {
		fprintf(stderr, "spin_malloc: out of memory\n");
		return 1;
	}
	for (uint64_t off = 0; off < size; off += 2u << 20)
		m[off] = 1;
	uint64_t x = (uint64_t)m[0];
	for (uint64_t i = 0; i < iters; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	printf("spin %llu\n", (unsigned long long)x);
	free(m);
	return 0;
}
