/* SPDX-License-Identifier: MIT */
/* Internal to lab fileread (exp_fileread.c, fileread_report.c): modes, columns, one run's state. */
#ifndef THPCTL_LAB_FILEREAD_INT_H
#define THPCTL_LAB_FILEREAD_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "fileread.h"
#include "hugetlb_pool.h"
#include "lab.h"

enum fr_kind { K_FILE, K_TMPFS, K_ANON, K_HUGETLB };

enum {
	M_FILE_NEVER,
	M_FILE_ALWAYS,
	M_FILE_NOHUGE,
	M_TMPFS_NEVER,
	M_TMPFS_ALWAYS,
	M_TMPFS_WITHIN,
	M_ANON_4K,
	M_ANON_ALWAYS,
	M_ANON_MADV,
	M_HUGETLB,
	FR_NM
};

/* Columns, in order. */
enum { V_NS, V_RPS, V_SPEED, V_FIRST, V_FAULTS, V_STEADY, V_FPMD, V_SPMD, V_AHP, V_HTLB, FR_NV };

struct fr_mode {
	const char *label;
	enum fr_kind kind;
	int mount;	     /* tmpfs: which of the private mounts */
	int advice;	     /* madvise() after mapping, 0 none */
	const char *enabled; /* host enabled= for the mode, NULL: as it is */
	int proof;	     /* the V_ column that proves huge backing */
};

extern const struct fr_mode fr_modes[FR_NM];

#define FR_MAX_RUNS 16
#define FR_MAX_NS 64 /* ns/read samples per mode: runs x passes (STATS_MW_MAX) */

struct fr_run {
	uint64_t size; /* bytes */
	uint64_t pmd;
	size_t page, npages;
	int passes; /* timed passes over every page per run, one ns/read sample each */
	int runs;
	int fd[1 + FR_NMOUNTS]; /* the data file, the tmpfs copies */
	struct fr_dir dir;
	char fs[24];			     /* the data file's filesystem (statfs) */
	char label[FR_NM][40];		     /* row labels */
	bool failed[FR_NM];		     /* dropped: a proof says why */
	int n[FR_NM];			     /* runs measured */
	double v[FR_NM][FR_NV][FR_MAX_RUNS]; /* per run; V_NS the mean of its passes */
	double ns[FR_NM][FR_MAX_NS];	     /* per pass: n[m] * passes of them */
	struct lab_pool pool;		     /* the MAP_HUGETLB pages reserved for the runs */
	bool pool_skip;			     /* MAP_HUGETLB skipped: no pool to be had */
};

/*
 * Reserve size / PMD huge pages of the PMD size through guard_write() of its
 * nr_hugepages, or mark MAP_HUGETLB failed with the reason (a proof in R).
 */
void fr_pool_get(const struct lab_ctx *ctx, struct fr_run *f, struct lab_result *r);
/* Give the pages back: nr_hugepages to its value before (lab_pool_release). */
void fr_pool_put(struct fr_run *f);

/* Rows, speed-ups with their intervals, the claims and the verdict from F into R. */
void fr_report(const struct lab_ctx *ctx, const struct fr_run *f, struct lab_result *r);

#endif
