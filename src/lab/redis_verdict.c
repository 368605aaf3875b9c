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
	bool unknown = lab_modes_unknown(why, sizeof(why), label, REDIS_NMODES, have, read,
					 "AnonHugePages");
	bool got[REDIS_NMODES];
	for (int i = 0; i < REDIS_NMODES; i++)
		got[i] = have[i] && read[i];
	/* each mode read is held to its own shape: one that fails it decides, a mode missing
	 * elsewhere or not */
	bool bad = (got[0] && a[0] != 0) || (got[2] && a[2] < 10240) ||
		   (got[1] && got[2] && a[1] > a[2] / 20) || (got[3] && a[3] >= 10240) ||
		   (got[4] && a[4] < 10240);
	enum redis_call call = bad	 ? REDIS_UNEXPECTED
			       : unknown ? REDIS_INCONCLUSIVE
					 : REDIS_AS_EXPECTED;
	size_t k = 0;
	text[0] = '\0';
	if (call == REDIS_INCONCLUSIVE)
		lab_catf(text, n, &k, "inconclusive: %s; ", why);
	lab_catf(
		text, n, &k,
		"AnonHugePages never %s, disable-thp yes %s, no %s, madvise %s, madvise + jemalloc "
		"thp:always %s kB before the BGSAVE",
		f[0], f[1], f[2], f[3], f[4]);
	if (call == REDIS_UNEXPECTED && unknown) /* decided by the modes read: the rest named */
		lab_catf(text, n, &k, " (%s)", why);
	return call;
}

const char *redis_no_thp_why(bool have, double ahp)
{
	return !have ? "the always, disable-thp no mode gave no figures (it failed; see its proof)"
	       : !(ahp >= 0) ? "the always, disable-thp no server's AnonHugePages was not read"
			     : "no THP in the always, disable-thp no server";
}
