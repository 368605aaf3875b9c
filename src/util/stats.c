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
	size_t k = 0; /* the known values: a NaN is one that could not be read */
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			tmp[k++] = v[i];
	struct summary s;
	summarize(tmp, k, &s);
	if (tmp != small)
		free(tmp);
	return n && !k ? NAN : s.median;
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

/* X and Y are finite, and positive when POS. */
static bool samples_ok(const double *v, size_t n, bool pos)
{
	for (size_t i = 0; i < n; i++)
		if ((pos && !(v[i] > 0)) || !isfinite(v[i]))
			return false;
	return true;
}

/*
 * The Hodges-Lehmann estimate and the Mann-Whitney interval of the pairwise
 * ratios y/x (RATIO) or differences y-x: the median of all pairs (for an even
 * count the geometric mean of the middle two for ratios, the mean for
 * differences) and the k-th smallest and largest. Returns 0, -EINVAL or -ENOMEM.
 */
static int pairs_ci(const double *x, size_t m, const double *y, size_t n, double conf, bool ratio,
		    struct ratio_ci *out)
{
	memset(out, 0, sizeof(*out));
	if (!m || !n || m > STATS_MW_MAX || n > STATS_MW_MAX || !(conf > 0 && conf < 1))
		return -EINVAL;
	if (!samples_ok(x, m, ratio) || !samples_ok(y, n, ratio))
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
			d[i * n + j] = ratio ? y[j] / x[i] : y[j] - x[i];
	qsort(d, mn, sizeof(*d), cmp_double);
	if (mn % 2)
		out->est = d[mn / 2];
	else
		out->est =
			ratio ? sqrt(d[mn / 2 - 1] * d[mn / 2]) : (d[mn / 2 - 1] + d[mn / 2]) / 2;
	if (k > 0) {
		out->ok = true;
		out->level = level;
		out->lo = d[k - 1];
		out->hi = d[mn - (size_t)k];
	}
	free(d);
	return 0;
}

int stats_ratio_ci(const double *x, size_t m, const double *y, size_t n, double conf,
		   struct ratio_ci *out)
{
	return pairs_ci(x, m, y, n, conf, true, out);
}

int stats_diff_ci(const double *x, size_t m, const double *y, size_t n, double conf,
		  struct ratio_ci *out)
{
	return pairs_ci(x, m, y, n, conf, false, out);
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

double stats_t95(unsigned df)
{
	static const double tab[] = {
		12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
		2.2010,	 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
		2.0796,	 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
	if (!df)
		return 0;
	if (df <= sizeof(tab) / sizeof(tab[0]))
		return tab[df - 1];
	/* Cornish-Fisher expansion of t in 1/df around the normal quantile */
	double z = 1.959964, z2 = z * z, d = (double)df;
	double g1 = (z2 * z + z) / 4;
	double g2 = (5 * z2 * z2 * z + 16 * z2 * z + 3 * z) / 96;
	double g3 = (3 * z2 * z2 * z2 * z + 19 * z2 * z2 * z + 17 * z2 * z - 15 * z) / 384;
	return z + g1 / d + g2 / (d * d) + g3 / (d * d * d);
}

int stats_linfit(const double *x, const double *y, size_t n, struct linfit *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	double mx = 0, my = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			return -EINVAL;
		mx += x[i];
		my += y[i];
		if (!i || x[i] < out->x_min)
			out->x_min = x[i];
		if (!i || x[i] > out->x_max)
			out->x_max = x[i];
	}
	if (n < 3)
		return 0;
	mx /= (double)n;
	my /= (double)n;
	double sxx = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	if (!(sxx > 0))
		return 0;
	out->b = sxy / sxx;
	out->a = my - out->b * mx;
	double sse = 0;
	for (size_t i = 0; i < n; i++) {
		double r = y[i] - out->a - out->b * x[i];
		sse += r * r;
	}
	double s2 = sse / (double)(n - 2);
	out->s = sqrt(s2);
	out->var_b = s2 / sxx;
	out->var_a = s2 * (1 / (double)n + mx * mx / sxx);
	out->cov_ab = -s2 * mx / sxx;
	out->t = stats_t95((unsigned)(n - 2));
	out->b_lo = out->b - out->t * sqrt(out->var_b);
	out->b_hi = out->b + out->t * sqrt(out->var_b);
	out->ok = true;
	return 0;
}

void stats_linfit_rel(const struct linfit *f, struct ratio_ci *out)
{
	memset(out, 0, sizeof(*out));
	if (!f->ok || f->a == 0)
		return;
	out->est = 1 + f->b / f->a;
	/*
	 * Fieller: the theta = b/a with (b - theta a)^2 <= t^2 var(b - theta a),
	 * a quadratic A theta^2 - 2 B theta + C <= 0; bounded when A > 0 (a is
	 * away from 0 at this confidence).
	 */
	double t2 = f->t * f->t;
	double qa = f->a * f->a - t2 * f->var_a;
	double qb = f->a * f->b - t2 * f->cov_ab;
	double qc = f->b * f->b - t2 * f->var_b;
	double disc = qb * qb - qa * qc;
	if (!(qa > 0) || disc < 0)
		return;
	double r = sqrt(disc);
	out->ok = true;
	out->level = 0.95;
	out->lo = 1 + (qb - r) / qa;
	out->hi = 1 + (qb + r) / qa;
}
