// SPDX-License-Identifier: MIT
#include "stats.h"

#include <errno.h>
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

int stats_mw_rank(size_t m, size_t n, double conf, double *level)
{
	if (!m || !n || m > STATS_MW_MAX || n > STATS_MW_MAX || !(conf > 0 && conf < 1))
		return -EINVAL;
	/*
	 * The counts of U = u over all C(m+n, m) arrangements are the
	 * coefficients of the Gaussian binomial [m+n, m]_q =
	 * prod_{k=1..m} (1 - q^(n+k)) / (1 - q^k), worked as power series
	 * cut after q^(m n): multiply by (1 - q^a) is a difference, divide by
	 * (1 - q^k) a running sum with stride k.
	 */
	size_t top = m * n;
	double *c = calloc(top + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c[0] = 1;
	for (size_t k = 1; k <= m; k++) {
		for (size_t u = k; u <= top; u++)
			c[u] += c[u - k];
		for (size_t u = top; u >= n + k; u--)
			c[u] -= c[u - (n + k)];
	}
	double total = 0;
	for (size_t u = 0; u <= top; u++)
		total += c[u];
	double alpha = 1 - conf, cum = 0;
	int k = 0;
	for (size_t u = 0; u <= top / 2; u++) {
		/* a little slack for the rounding of the sums */
		if (2 * (cum + c[u]) / total > alpha * (1 + 1e-9))
			break;
		cum += c[u];
		k = (int)u + 1;
	}
	free(c);
	if (level)
		*level = k ? 1 - 2 * cum / total : 0;
	return k;
}

int stats_ratio_ci(const double *x, size_t m, const double *y, size_t n, double conf,
		   struct ratio_ci *out)
{
	memset(out, 0, sizeof(*out));
	if (!m || !n || m > STATS_MW_MAX || n > STATS_MW_MAX || !(conf > 0 && conf < 1))
		return -EINVAL;
	for (size_t i = 0; i < m; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return -EINVAL;
	for (size_t j = 0; j < n; j++)
		if (!(y[j] > 0) || !isfinite(y[j]))
			return -EINVAL;
	double level;
	int k = stats_mw_rank(m, n, conf, &level);
	if (k < 0)
		return k;
	size_t mn = m * n;
	double *d = malloc(mn * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			d[i * n + j] = y[j] / x[i];
	qsort(d, mn, sizeof(*d), cmp_double);
	out->est = mn % 2 ? d[mn / 2] : sqrt(d[mn / 2 - 1] * d[mn / 2]);
	if (k > 0) {
		out->ok = true;
		out->level = level;
		out->lo = d[k - 1];
		out->hi = d[mn - (size_t)k];
	}
	free(d);
	return 0;
}

int stats_diff_ci(const double *x, size_t m, const double *y, size_t n, double conf,
		  struct ratio_ci *out)
{
	memset(out, 0, sizeof(*out));
	if (!m || !n || m > STATS_MW_MAX || n > STATS_MW_MAX || !(conf > 0 && conf < 1))
		return -EINVAL;
	for (size_t i = 0; i < m; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	for (size_t j = 0; j < n; j++)
		if (!isfinite(y[j]))
			return -EINVAL;
	double level;
	int k = stats_mw_rank(m, n, conf, &level);
	if (k < 0)
		return k;
	size_t mn = m * n;
	double *d = malloc(mn * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			d[i * n + j] = y[j] - x[i];
	qsort(d, mn, sizeof(*d), cmp_double);
	out->est = mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2;
	if (k > 0) {
		out->ok = true;
		out->level = level;
		out->lo = d[k - 1];
		out->hi = d[mn - (size_t)k];
	}
	free(d);
	return 0;
}

enum ci_call stats_ci_call(const struct ratio_ci *ci, double r)
{
	if (!ci->ok)
		return CI_TOO_FEW;
	/* inside the resolution: no difference that matters, even when it excludes 1 */
	if (ci->lo >= 1 / (1 + r) && ci->hi <= 1 + r)
		return CI_WITHIN;
	if (ci->lo > 1)
		return CI_ABOVE;
	if (ci->hi < 1)
		return CI_BELOW;
	return CI_TOO_WIDE;
}
