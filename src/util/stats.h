/* SPDX-License-Identifier: MIT */
/* Summary statistics over repeated measurements (pure, any unit). */
#ifndef THPCTL_UTIL_STATS_H
#define THPCTL_UTIL_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* Summary of N samples in whatever unit they came in. */
struct summary {
	size_t n;
	double min, max, median, mean;
	double p90, p99; /* nearest-rank percentiles */
};

/*
 * Summarise V[0..N) (V is sorted in place). N == 0 gives an all-zero
 * summary with n = 0. The median of an even count is the mean of the
 * middle two.
 */
void summarize(double *v, size_t n, struct summary *s);

/* Nearest-rank percentile P (0..100) of sorted V[0..N); 0 when N == 0. */
double percentile_sorted(const double *v, size_t n, double p);

/*
 * Median of V[0..N), leaving V as it is (works on a copy). 0 when N == 0;
 * NaN when a copy of more than 256 values cannot be allocated.
 */
double stats_median(const double *v, size_t n);

#endif
