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
	HOT_ABITS_LOST,	  /* inconclusive: the accessed-bit probe lost bits, and the hot set read
			   * (a lower bound) does not pass the 4 KiB reach */
	HOT_GUEST_LOW,	  /* inconclusive: a guest of an unnamed hypervisor, where a busy
			   * process's bits were seen lost while the probe kept its own, and the
			   * hot set read does not pass the 4 KiB reach */
};

/* The accessed-bit probe of the same window (kernel/clear_refs.h). */
struct hot_probe {
	bool taken;	     /* false: not run (not live, no memory) */
	uint64_t touched_kb; /* thpctl's own pages, touched throughout the window */
	uint64_t ref_kb;     /* what smaps called Referenced of them at the end */
	int touches;	     /* passes over them */
};

/* The probe shows lost accessed bits: under 90% of what was touched read back. */
bool hot_probe_lost(const struct hot_probe *p);

struct hot_verdict {
	enum hot_call call;
	double huge_share;  /* hot_huge_kb / hot_kb, 0..1 (estimate) */
	double x4k, x2m;    /* hot set / reach; -1 when that size is not calibrated */
	bool reach2m_lower; /* the 2 MiB reach is a lower bound (no step found) */
	bool abits_lost;    /* the probe lost bits: the hot set is a lower bound */
	bool guest_unsure;  /* a guest where Referenced may under-read whatever the probe says */
};

/*
 * The verdict on S against REC (NULL: none recorded) with PMD_KB the PMD size
 * and P the accessed-bit probe of the same window (NULL or not taken: no
 * check). When the probe lost bits the hot set is only a lower bound: a call
 * that a lower bound decides (beyond the 4 KiB reach) stands, one it cannot
 * (cold, fits the 4 KiB reach) is HOT_ABITS_LOST. GUEST_UNSURE: the host is
 * a guest of a hypervisor that names itself nowhere (no DMI: Firecracker-like,
 * kernel/virt.h VIRT_GUEST), where a 64 MiB chase read under 1 MiB
 * Referenced at times while the probe kept every bit: there a low reading
 * decides nothing either (HOT_GUEST_LOW); a high one still does.
 */
void hot_judge(const struct hot_sum *s, const struct tlb_record *rec, uint64_t pmd_kb,
	       const struct hot_probe *p, bool guest_unsure, struct hot_verdict *v);

#endif
