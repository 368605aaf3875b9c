// SPDX-License-Identifier: MIT
#include "allocators_calls.h"

#include <stdio.h>

enum claim_call al_rounds_agree(const enum claim_call *c, int n, char *why, size_t wn)
{
	if (n < 2) {
		lab_fmt(why, wn,
			"one round: a change of the host between the modes is not told apart from "
			"the mode (2 rounds: no --quick)");
		return CLAIM_INCONCLUSIVE;
	}
	int k[3] = {0, 0, 0};
	for (int i = 0; i < n; i++)
		k[c[i]]++;
	if (k[c[0]] == n)
		return c[0];
	lab_fmt(why, wn, "the %d rounds disagree: %d confirmed, %d contradicted, %d inconclusive",
		n, k[CLAIM_CONFIRMED], k[CLAIM_CONTRADICTED], k[CLAIM_INCONCLUSIVE]);
	return CLAIM_INCONCLUSIVE;
}

enum claim_call al_creep_round(double g511, double g0, bool scans)
{
	if (!scans || g511 <= 0 || g0 <= 0)
		return CLAIM_INCONCLUSIVE;
	if (g0 >= 1.2)
		return CLAIM_CONTRADICTED;
	if (g511 >= 1.2 && g0 <= 1.05)
		return CLAIM_CONFIRMED;
	return CLAIM_INCONCLUSIVE;
}

enum claim_call al_bloat_round(double factor, double knob, double min_factor, bool proven)
{
	if (!proven || factor <= 0)
		return CLAIM_INCONCLUSIVE;
	if (factor <= 1.05)
		return CLAIM_CONTRADICTED;
	if (factor >= min_factor && knob <= 1.05)
		return CLAIM_CONFIRMED;
	return CLAIM_INCONCLUSIVE;
}

void al_fmt_range(char *out, size_t n, const double *v, int nv, const char *unit)
{
	double lo = 0, hi = 0, sum = 0;
	int k = 0;
	for (int i = 0; i < nv; i++) {
		if (v[i] <= 0)
			continue;
		lo = k ? (v[i] < lo ? v[i] : lo) : v[i];
		hi = k ? (v[i] > hi ? v[i] : hi) : v[i];
		sum += v[i];
		k++;
	}
	if (!k)
		lab_fmt(out, n, "-");
	else if (k == 1)
		lab_fmt(out, n, "%.2f%s (1 round)", sum, unit);
	else
		lab_fmt(out, n, "%.2f%s (rounds %.2f..%.2f)", sum / k, unit, lo, hi);
}
