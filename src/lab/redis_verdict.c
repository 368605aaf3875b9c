// SPDX-License-Identifier: MIT
/* lab redis: the backing verdict and its words (redis_verdict.h). */
#include "redis_verdict.h"

#include "common.h"

enum redis_call redis_backing(const char *const *label, const bool *have, const double *ahp,
			      char *text, size_t n)
{
	bool read[REDIS_NMODES];
	char f[REDIS_NMODES][24], why[400];
	for (int k = 0; k < REDIS_NMODES; k++) {
		read[k] = ahp[k] >= 0;
		lab_fmt_num(f[k], sizeof(f[k]), have[k] ? ahp[k] : -1, 0);
	}
	const double *a = ahp;
	enum redis_call call =
		lab_modes_unknown(why, sizeof(why), label, REDIS_NMODES, have, read,
				  "AnonHugePages")
			? REDIS_INCONCLUSIVE
		: a[0] == 0 && a[2] >= 10240 && a[1] <= a[2] / 20 && a[3] < 10240 && a[4] >= 10240
			? REDIS_AS_EXPECTED
			: REDIS_UNEXPECTED;
	size_t k = 0;
	text[0] = '\0';
	if (call == REDIS_INCONCLUSIVE)
		lab_catf(text, n, &k, "inconclusive: %s; ", why);
	lab_catf(
		text, n, &k,
		"AnonHugePages never %s, disable-thp yes %s, no %s, madvise %s, madvise + jemalloc "
		"thp:always %s kB before the BGSAVE",
		f[0], f[1], f[2], f[3], f[4]);
	return call;
}

const char *redis_no_thp_why(bool have, double ahp)
{
	return !have ? "the always, disable-thp no mode gave no figures (it failed; see its proof)"
	       : !(ahp >= 0) ? "the always, disable-thp no server's AnonHugePages was not read"
			     : "no THP in the always, disable-thp no server";
}
