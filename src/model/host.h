/* SPDX-License-Identifier: MIT */
/*
 * Facts derived without I/O from a host snapshot (kernel/host_snapshot.h):
 * ratios, free PMD blocks, khugepaged's share of a CPU.
 */
#ifndef THPCTL_HOST_H
#define THPCTL_HOST_H

#include "../kernel/host_snapshot.h"
#include "../util/wide.h"

struct host_recent;

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
	int pmd_order;	      /* log2(pmd_size / page_size), -1 if unknown */
	u128 free_pmd_blocks; /* free memory in blocks of order >= pmd_order, in PMD units, all
			       * zones but DMA; exact (a u64 count << order may not fit 64 bits) */
	struct ratio khugepaged_cpu;   /* share of one CPU since boot: value = cpu_s / uptime_s */
	u128 nr_anon_partially_mapped; /* summed over sizes (exact) */
	bool has_partially_mapped;
	/* `status --sample S`: rates over the last S s (rates.h); NULL when not sampled */
	const struct host_recent *recent;
};

/* Derive ratios and summaries from H (pure). */
void host_derive(const struct host_snapshot *h, struct host_derived *d);

/*
 * Free blocks of order >= ORDER in B, all zones but DMA, counted in units of
 * 2^ORDER pages (pure). ORDER must be >= 0.
 */
u128 host_free_blocks(const struct buddyinfo *b, int order);

/*
 * Free PMD-order blocks of H (its pmd_order from hpage_pmd_size), all zones
 * but DMA, in PMD units; false when buddyinfo or the order is unknown (pure).
 */
bool host_pmd_blocks(const struct host_snapshot *h, uint64_t *blocks);

/*
 * The live value of THP knob KEY (relative to transparent_hugepage/, as
 * `thpctl set` names it: "enabled", "khugepaged/defrag",
 * "hugepages-64kB/enabled") from H's settings: the selected word of a choice,
 * a number in digits. KEY may be a glob over the per-size directories
 * ("hugepages-*" + "/enabled", as tuned's [sysfs] allows): then the value
 * when every matching size has the same one. Returns 0, -ENOENT (not read or
 * no such knob), or -EDOM (a glob whose sizes differ) (pure).
 */
int host_thp_value(const struct host_snapshot *h, const char *key, char *out, size_t n);

#endif
