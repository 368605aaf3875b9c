/* SPDX-License-Identifier: MIT */
/*
 * What `thpctl lab tlb` calibrated on this host, kept for `why --hot`:
 * var/lib/thpctl/lab-tlb (written by the lab as root beside lab-shrinker, in
 * the same line format, read through the sysroot). Per page size: the TLB
 * reach (bytes; a lower bound when no step was found) and the miss penalty
 * (ns, an estimate; 0 when no step), with their 95% intervals.
 */
#ifndef THPCTL_TLB_RECORD_H
#define THPCTL_TLB_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/buf.h"
#include "sysroot.h"

#define SR_TLB_RECORD "var/lib/thpctl/lab-tlb"
#define TLB_RECORD_MAX 6

struct tlb_calib {
	uint64_t page_kb;
	bool step;	     /* a step was found: reach_hi_b bounds the reach */
	uint64_t reach_b;    /* bytes: the largest footprint before the step (or tried) */
	uint64_t reach_hi_b; /* bytes: the first with the step (0 without one) */
	double penalty_ns, penalty_lo, penalty_hi; /* per miss, estimate; 0 without a step */
};

struct tlb_record {
	char kernel[96]; /* release it was measured on */
	char time[32];	 /* UTC, ISO 8601 */
	bool guest;	 /* a hypervisor was detected */
	bool quick; /* from `lab tlb --quick` (smaller sweeps): a full one is not replaced by it */
	int n;
	struct tlb_calib c[TLB_RECORD_MAX];
};

/*
 * Parse TEXT: "thpctl-lab-tlb 1", "kernel RELEASE", "time T", "guest 0|1",
 * "sweep quick|full",
 * then "size PAGE_KB STEP REACH REACH_HI PENALTY LO HI" lines. A key twice,
 * a bad number or no size is damage. 0 or -EINVAL (pure).
 */
int tlb_record_parse(const char *text, size_t len, struct tlb_record *r);

/* R as that text into B. 0 or -ENOMEM (pure). */
int tlb_record_format(const struct tlb_record *r, struct buf *b);

/* The record of SR. 0, -ENOENT (never calibrated here), -EINVAL, -errno. */
int tlb_record_read(const struct sysroot *sr, struct tlb_record *r);

/* The calibration of R for PAGE_KB, or NULL (pure). */
const struct tlb_calib *tlb_record_size(const struct tlb_record *r, uint64_t page_kb);

#endif
