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
 * Median of the known values of V[0..N) (a NaN is unknown: left out), leaving
 * V as it is (works on a copy). 0 when N == 0; NaN when every value is
 * unknown or a copy of more than 256 values cannot be allocated.
 */
double stats_median(const double *v, size_t n);

/* Most values per sample stats_mw_rank() and stats_ratio_ci() take. */
#define STATS_MW_MAX 64

/*
 * The rank K (1-based) for a distribution-free two-sample interval: with
 * the M*N pairwise differences (or ratios) of two samples sorted, [the K-th
 * smallest, the K-th largest] covers the shift between them with
 * confidence >= CONF (0..1), from the exact null distribution of the
 * Mann-Whitney U statistic (continuous data: no ties assumed). *LEVEL (may
 * be NULL) gets the confidence achieved, 1 - 2 P(U < K). Returns K >= 1;
 * 0 when M and N are too few for any interval at CONF (3 and 3 at 0.95);
 * -EINVAL when M or N is 0 or above STATS_MW_MAX, or CONF not in (0, 1).
 */
int stats_mw_rank(size_t m, size_t n, double conf, double *level);

/* A two-sample interval for the ratio Y/X (stats_ratio_ci). */
struct ratio_ci {
	bool ok;       /* an interval at the asked confidence exists for these counts */
	double level;  /* the confidence achieved (>= the asked one); 0 when !ok */
	double est;    /* Hodges-Lehmann: the median of the pairwise ratios y_j / x_i */
	double lo, hi; /* bounds of Y/X; 0 when !ok */
};

/*
 * Hodges-Lehmann estimate and Mann-Whitney interval of the ratio Y/X of two
 * samples of positive values in one unit (times, ns): the M*N ratios
 * y_j / x_i sorted, the estimate their median (geometric mean of the middle
 * two for an even count), the bounds the K-th smallest and largest
 * (stats_mw_rank). Assumes Y is X scaled (a shift of the logarithms).
 * Deterministic, no I/O. Returns 0 (OUT->ok false when M, N are too few),
 * -EINVAL (a value <= 0 or not finite, counts out of range, CONF not in
 * (0, 1)), -ENOMEM.
 */
int stats_ratio_ci(const double *x, size_t m, const double *y, size_t n, double conf,
		   struct ratio_ci *out);

/*
 * Hodges-Lehmann estimate and Mann-Whitney interval of the shift Y - X of
 * two samples in one unit (ns): the M*N differences y_j - x_i sorted, the
 * estimate their median (mean of the middle two for an even count), the
 * bounds the K-th smallest and largest (stats_mw_rank). OUT's est, lo and hi
 * are differences, not ratios. Returns 0 (OUT->ok false when M, N are too
 * few), -EINVAL (a value not finite, counts out of range, CONF not in
 * (0, 1)), -ENOMEM. Pure.
 */
int stats_diff_ci(const double *x, size_t m, const double *y, size_t n, double conf,
		  struct ratio_ci *out);

/* Where an interval of a ratio lies (stats_ci_call). */
enum ci_call {
	CI_TOO_FEW,  /* no interval: too few values */
	CI_ABOVE,    /* lo > 1: Y larger than X */
	CI_BELOW,    /* hi < 1: Y smaller than X */
	CI_WITHIN,   /* inside 1/(1+R) .. 1+R (spanning 1 or not): no difference that matters */
	CI_TOO_WIDE, /* spans 1 and reaches past R: the spread hides any answer */
};

/*
 * Classify CI against 1 (no difference) and the resolution R (a fraction,
 * 0.10 for 10%): the smallest ratio change that matters. Pure.
 */
enum ci_call stats_ci_call(const struct ratio_ci *ci, double r);

/*
 * The two-sided 95% critical value of Student's t with DF degrees of freedom
 * (a table to 30, the Cornish-Fisher series above: within 0.001). 0 when DF is 0.
 */
double stats_t95(unsigned df);

/* A least-squares line y = a + b x (stats_linfit). */
struct linfit {
	bool ok;		     /* N >= 3 and the x values spread */
	size_t n;		     /* points */
	double a, b;		     /* intercept (y at x = 0), slope (y per unit of x) */
	double var_a, var_b, cov_ab; /* of the estimates: s^2 (1/n + mean^2/Sxx), s^2/Sxx, ... */
	double s;		     /* residual standard deviation, n - 2 degrees of freedom */
	double t;		     /* stats_t95(n - 2) */
	double b_lo, b_hi;	     /* 95% interval of b: b -+ t sqrt(var_b) */
	double x_min, x_max;
};

/*
 * Ordinary least squares of Y on X over N points (any units) with the 95%
 * interval of the slope (Student t, N - 2 degrees of freedom). OUT->ok false
 * when N < 3 or every x is the same. Returns 0, or -EINVAL for a value that is
 * not finite. Pure.
 */
int stats_linfit(const double *x, const double *y, size_t n, struct linfit *out);

/*
 * The fitted y at x = 1 over y at x = 0, (a + b) / a, with its 95% interval by
 * Fieller's theorem (the uncertainty of a and b and their covariance carried):
 * OUT's est, lo, hi are that ratio, level 0.95. OUT->ok false when F is not
 * ok or a is not clearly away from 0 (the interval would be unbounded). Pure.
 */
void stats_linfit_rel(const struct linfit *f, struct ratio_ci *out);

#endif
