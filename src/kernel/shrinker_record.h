/* SPDX-License-Identifier: MIT */
/*
 * What `thpctl lab shrinker` measured on this host, kept for `status`:
 * var/lib/thpctl/lab-shrinker (written by the lab as root, read through the
 * sysroot, recorded by `thpctl capture`). Per max_ptes_none tried: the
 * mostly-zero THPs its child held, the child's AnonHugePages before and
 * after memory pressure, and the host-wide thp_underused_split_page delta.
 */
#ifndef THPCTL_SHRINKER_RECORD_H
#define THPCTL_SHRINKER_RECORD_H

#include <stdint.h>

#include "../util/buf.h"
#include "sysroot.h"

#define SR_SHRINKER_RECORD "var/lib/thpctl/lab-shrinker"
#define SHRINKER_MAX_PHASES 4

struct shrinker_phase {
	long max_ptes_none;
	uint64_t thps;		/* PMD THPs of the child before the pressure */
	uint64_t split_host;	/* thp_underused_split_page delta (host-wide) */
	uint64_t ahp_before_kb; /* the child's AnonHugePages */
	uint64_t ahp_after_kb;
};

struct shrinker_record {
	char kernel[96]; /* release it was measured on */
	char time[32];	 /* UTC, ISO 8601 */
	int n;
	struct shrinker_phase p[SHRINKER_MAX_PHASES];
};

/*
 * Parse TEXT: "thpctl-lab-shrinker 1", "kernel RELEASE", "time T", then
 * "phase MPN THPS SPLIT AHP_BEFORE AHP_AFTER" lines. A key twice, a bad
 * number or no phase is damage. 0 or -EINVAL (pure).
 */
int shrinker_record_parse(const char *text, size_t len, struct shrinker_record *r);

/* R as that text into B. 0 or -ENOMEM (pure). */
int shrinker_record_format(const struct shrinker_record *r, struct buf *b);

/* The record of SR. 0, -ENOENT (never measured here), -EINVAL, -errno. */
int shrinker_record_read(const struct sysroot *sr, struct shrinker_record *r);

/* The phase of R at MAX_PTES_NONE, or NULL (pure). */
const struct shrinker_phase *shrinker_record_phase(const struct shrinker_record *r,
						   long max_ptes_none);

#endif
