/* SPDX-License-Identifier: MIT */
/*
 * lab redis: what the five modes' figures decide (pure). The backing each
 * server should have had, said with "-" for a figure not read, and
 * "inconclusive" with the modes that gave none, never a verdict on -1.
 */
#ifndef THPCTL_LAB_REDIS_VERDICT_H
#define THPCTL_LAB_REDIS_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

/* The modes, in this order: never (prctl), always with disable-thp yes, with
 * disable-thp no, madvise (control), madvise with jemalloc thp:always. */
#define REDIS_NMODES 5

enum redis_call { REDIS_AS_EXPECTED, REDIS_UNEXPECTED, REDIS_INCONCLUSIVE };

/*
 * The backing call from each mode's AnonHugePages before the BGSAVE (AHP[k]
 * kB, negative: not read) and whether the mode gave figures (HAVE[k]);
 * LABEL[k] names each. Expected: never 0, disable-thp no >= 10 MiB and yes
 * at most 5% of it, madvise under 10 MiB, madvise + jemalloc >= 10 MiB.
 * Inconclusive when a mode gave no figures or its AnonHugePages was not
 * read: TEXT then starts "inconclusive: " and names them. TEXT (N bytes)
 * gets the figures, "-" for each unknown one.
 */
enum redis_call redis_backing(const char *const *label, const bool *have, const double *ahp,
			      char *text, size_t n);

/*
 * Why the claims cannot be called for want of THP in the always,
 * disable-thp no server: HAVE (that mode gave figures) and AHP (its
 * AnonHugePages before the BGSAVE, kB; negative: not read).
 */
const char *redis_no_thp_why(bool have, double ahp);

#endif
