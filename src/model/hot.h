/* SPDX-License-Identifier: MIT */
/*
 * `why PID --hot SECONDS`: the hot set (smaps Referenced after clear_refs)
 * against the TLB reach `lab tlb` calibrated. About translation pressure
 * only, never a promised speed-up. Pure.
 */
#ifndef THPCTL_MODEL_HOT_H
#define THPCTL_MODEL_HOT_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/smaps.h"
#include "../kernel/tlb_record.h"

struct hot_sum {
	uint64_t hot_kb;    /* sum of Referenced */
	double hot_huge_kb; /* estimate: per VMA, Referenced x AnonHugePages / Rss */
	uint64_t rss_kb;
	uint64_t ahp_kb;
	int vmas_hot; /* VMAs with Referenced > 0 */
};

/* Add one VMA (its smaps totals) to S. */
void hot_add(struct hot_sum *s, const struct smaps_totals *t);

enum hot_call {
	HOT_NO_CALIB,	  /* no lab tlb record: hot set only */
	HOT_COLD,	  /* nothing referenced in the interval */
	HOT_FITS_4K,	  /* within the 4 KiB reach: little translation pressure */
	HOT_ALREADY_HUGE, /* beyond the 4 KiB reach, >= 90% of it huge-backed */
	HOT_LIKELY_GAIN,  /* beyond the 4 KiB reach, mostly small pages, within the 2 MiB reach */
	HOT_BEYOND_2M,	  /* beyond even the 2 MiB reach: THP reduces misses, does not end them */
};

struct hot_verdict {
	enum hot_call call;
	double huge_share;  /* hot_huge_kb / hot_kb, 0..1 (estimate) */
	double x4k, x2m;    /* hot set / reach; -1 when that size is not calibrated */
	bool reach2m_lower; /* the 2 MiB reach is a lower bound (no step found) */
};

/* The verdict on S against REC (NULL: none recorded) with PMD_KB the PMD size. */
void hot_judge(const struct hot_sum *s, const struct tlb_record *rec, uint64_t pmd_kb,
	       struct hot_verdict *v);

#endif
