/* SPDX-License-Identifier: MIT */
/*
 * The host audit: everything `thpctl status` collects (struct host) and the
 * facts derived from it without I/O (struct host_derived).
 */
#ifndef THPCTL_HOST_H
#define THPCTL_HOST_H

#include "../kernel/buddyinfo.h"
#include "../kernel/features.h"
#include "../kernel/hugetlb.h"
#include "../kernel/kv.h"
#include "../kernel/thp_settings.h"

#define HOST_MAX_MISSING 16

struct host {
	struct features feat;
	struct thp_settings thp;
	struct kvlist vmstat;  /* proc/vmstat */
	struct kvlist meminfo; /* proc/meminfo, kB */
	bool has_vmstat, has_meminfo, has_buddy;
	struct buddyinfo buddy;
	struct hugetlb hugetlb;
	/* khugepaged CPU: utime+stime of the [khugepaged] thread over uptime */
	bool has_khugepaged_cpu;
	double khugepaged_cpu_s; /* seconds of CPU since boot */
	double uptime_s;	 /* proc/uptime */
	/* files that could not be read: the report is partial */
	int nmissing;
	char missing[HOST_MAX_MISSING][64];
};

/* A ratio with the counts it came from; valid only when den > 0. */
struct ratio {
	bool valid;
	uint64_t num, den;
	double value; /* num/den */
};

struct size_fault {
	uint64_t size_kb;
	struct ratio success; /* anon_fault_alloc / (alloc + fallback) */
	struct opt_u64 nr_anon, nr_anon_partially_mapped;
};

struct host_derived {
	struct ratio fault_success; /* thp_fault_alloc / (thp_fault_alloc + thp_fault_fallback) */
	struct ratio collapse_success; /* thp_collapse_alloc / (alloc + alloc_failed) */
	int nsizes;
	struct size_fault sizes[THP_MAX_SIZES];
	int pmd_order; /* log2(pmd_size / page_size), -1 if unknown */
	uint64_t
		free_pmd_blocks; /* free memory in blocks of order >= pmd_order, in PMD units, all zones but DMA */
	struct ratio khugepaged_cpu; /* share of one CPU since boot: value = cpu_s / uptime_s */
	uint64_t nr_anon_partially_mapped; /* summed over sizes */
	bool has_partially_mapped;
};

/* Collect the whole audit from SR into H. Returns 0 (missing files are listed in H->missing). */
int host_collect(const struct sysroot *sr, struct host *h);
void host_free(struct host *h);

/* Derive ratios and summaries from H (pure). */
void host_derive(const struct host *h, struct host_derived *d);

#endif
