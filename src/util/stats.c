// SPDX-License-Identifier: MIT
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double percentile_sorted(const double *v, size_t n, double p)
{
	if (!n)
		return 0;
	if (p <= 0)
		return v[0];
	if (p >= 100)
		return v[n - 1];
	/* nearest rank: ceil(p/100 * n), 1-based */
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

void summarize(double *v, size_t n, struct summary *s)
{
	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	s->n = n;
	s->min = v[0];
	s->max = v[n - 1];
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	s->p90 = percentile_sorted(v, n, 90);
	s->p99 = percentile_sorted(v, n, 99);
}

double stats_median(const double *v, size_t n)
{
	double small[256], *tmp = small;
	if (n > sizeof(small) / sizeof(small[0]) &&
	    (n > SIZE_MAX / sizeof(*v) || !(tmp = malloc(n * sizeof(*v)))))
		return NAN;
	if (n)
		memcpy(tmp, v, n * sizeof(*v));
	struct summary s;
	summarize(tmp, n, &s);
	if (tmp != small)
		free(tmp);
	return s.median;
}
