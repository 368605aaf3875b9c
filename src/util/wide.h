/* SPDX-License-Identifier: MIT */
/*
 * Checked and wide arithmetic on numbers read from the kernel. A kernel
 * counter is any u64, so a product (pages x page size, kB -> bytes, blocks
 * << order) or a sum of them may not fit in 64 bits: the checked forms say
 * so instead of wrapping (the figure is then unknown), and the wide type
 * holds any product of two u64s or sum of many, printed exactly by
 * fmt_u128() and fmt_kb_wide(). Pure.
 */
#ifndef THPCTL_UTIL_WIDE_H
#define THPCTL_UTIL_WIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exact to 2^128-1: the product of two u64s, or a sum of 2^64 of them. */
typedef unsigned __int128 u128;

/* *OUT = A * B. Returns false, *OUT set to UINT64_MAX, when it does not fit. */
static inline bool mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (__builtin_mul_overflow(a, b, out)) {
		*out = UINT64_MAX;
		return false;
	}
	return true;
}

/* *OUT = A + B. Returns false, *OUT set to UINT64_MAX, when it does not fit. */
static inline bool add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (__builtin_add_overflow(a, b, out)) {
		*out = UINT64_MAX;
		return false;
	}
	return true;
}

/* A running u64 sum that remembers an overflow: V is meaningful only while !OVER. */
struct sum_u64 {
	uint64_t v;
	bool over;
};

static inline void sum_add(struct sum_u64 *s, uint64_t x)
{
	s->over |= !add_u64(s->v, x, &s->v);
}

/* Whether V fits in a u64. */
static inline bool u128_fits(u128 v)
{
	return v <= (u128)UINT64_MAX;
}

/* V in decimal digits into OUT (size N, 40 holds any): exact. Returns strlen. */
size_t fmt_u128(char *out, size_t n, u128 v);

/*
 * KB kilobytes for people: fmt_kb() ("12.0 MiB", rounded) while KB fits a
 * u64; above, exact digits in the largest of kB, MiB, GiB, TiB that divides
 * it ("36893488147419103230 MiB" for 2^64-1 pages of 2048 kB).
 */
void fmt_kb_wide(char *out, size_t n, u128 kb);

/* KB kilobytes exactly: in MiB when whole MiB ("1024 MiB", "36893488147419103230 MiB"), else kB. */
void fmt_kb_exact(char *out, size_t n, u128 kb);

#endif
