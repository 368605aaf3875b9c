/* SPDX-License-Identifier: MIT */
/*
 * lab faults' table, proofs and verdict from each mode's runs (pure, apart
 * from exp_faults.c so that the wording is unit-tested). Like with like:
 * the table's latency columns, the proofs and the verdict give each figure
 * in one unit and as one statistic (each run's median or p99 chunk, then the
 * median over the runs), the pooled figures said as another; a row whose
 * p99 is above the baseline's (nohuge: base pages) is flagged; every mode
 * asked for has its row.
 */
#ifndef THPCTL_LAB_FAULTS_TABLE_H
#define THPCTL_LAB_FAULTS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/stats.h"
#include "lab.h"

#define MAX_RUNS 64 /* runs per mode kept */

enum { ST_MED, ST_P90, ST_P99, ST_MAX, ST_N };

/* One mode's runs: per run (N of them) its chunk statistics and counts. */
struct mode_res {
	int n;			   /* runs that completed */
	double st[ST_N][MAX_RUNS]; /* per run: its median, p90, p99, max chunk, ns */
	/* per run: chunks huge by smaps AnonHugePages, and the others */
	double huge[MAX_RUNS], fallback[MAX_RUNS];
	/* per run: host-wide compact_stall, compact_fail, thp_fault_fallback, thp_fault_alloc deltas */
	double cs[MAX_RUNS], cf[MAX_RUNS], fb[MAX_RUNS], fa[MAX_RUNS];
	uint64_t probed_huge; /* huge chunks by kpageflags in the last run (when probed) */
	bool probed;	      /* kpageflags read (root) */
	/* every chunk of every run pooled, ns; of them the huge and the small ones (kpageflags) */
	struct summary pooled, pooled_huge, pooled_small;
};

/*
 * R's columns, a row per mode of MODES[0..NMODES) in that order (a mode
 * that did not run: "-" and a proof), the proofs and the verdict: NCH chunks
 * per run, POLICY the PMD size's enabled ("madvise"), FRAG under the
 * fragmenter (LEFT_MAX: the most free PMD-order blocks it left, buddyinfo).
 */
void faults_table(struct lab_result *r, const enum lab_mode *modes, size_t nmodes,
		  const struct mode_res *res, size_t nch, const char *policy, bool frag,
		  uint64_t left_max);

#endif
