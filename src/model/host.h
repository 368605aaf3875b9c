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
/* Why a ratio is not valid. */
enum ratio_gap {
	RATIO_ABSENT,	 /* a counter it needs is not there */
	RATIO_NO_EVENTS, /* the counters are there and both 0: nothing to divide */
	RATIO_WRAPS,	 /* their sum passes 2^64: unknown, never above 100% */
};

struct ratio {
	bool valid;
	uint64_t num, den;
	double value;	    /* num/den */
	enum ratio_gap gap; /* when not valid */
};

struct size_fault {
	uint64_t size_kb;
	bool shmem_only;      /* the size has shmem_enabled and no anon enabled (x86's 8kB): no anon
			  * THP of it, its anon counters are absent (host_size_shmem_only) */
	struct ratio success; /* anon_fault_alloc / (alloc + fallback) */
	struct opt_u64 nr_anon, nr_anon_partially_mapped;
};

struct host_derived {
	struct ratio fault_success; /* thp_fault_alloc / (thp_fault_alloc + thp_fault_fallback) */
	/* thp_collapse_alloc / (alloc + alloc_failed): of the collapses that tried to allocate a
	 * huge page, those that got one; not of the scans that gave up before (scan_exceed) */
	struct ratio collapse_alloc_success;
	/* thp_scan_exceed_none_pte, _swap_pte, _share_pte (5.17+): PMD ranges khugepaged scanned
	 * and left over max_ptes_none, max_ptes_swap, max_ptes_shared, counted once per scan of a
	 * range (a range left at each pass counts at each pass); absent before 5.17 */
	struct opt_u64 scan_exceed[3];
	bool scan_exceed_all; /* all three read: scan_exceed_sum is their sum (exact) */
	u128 scan_exceed_sum;
	int nsizes;
	struct size_fault sizes[THP_MAX_SIZES];
	int pmd_order;	      /* log2(pmd_size / page_size), -1 if unknown */
	u128 free_pmd_blocks; /* free memory in blocks of order >= pmd_order, in PMD units, all
			       * zones but DMA; exact (a u64 count << order may not fit 64 bits) */
	struct ratio khugepaged_cpu; /* share of one CPU since it started: cpu_s / alive_s */
	double khugepaged_alive_s;   /* uptime_s - its start (seconds); with khugepaged_cpu */
	bool khugepaged_late; /* ... it started over a minute after boot (THP was off): say so */
	u128 nr_anon_partially_mapped; /* summed over sizes (exact) */
	bool has_partially_mapped;
	/* `status --sample S`: rates over the last S s (rates.h); NULL when not sampled */
	const struct host_recent *recent;
};

/*
 * Whether size I of S is for shmem and file only (x86's hugepages-8kB since 6.x: anon mTHP
 * has no order 1): shmem_enabled read, no anon enabled, and every THP file readable (an
 * unreadable enabled would look the same).
 */
bool host_size_shmem_only(const struct thp_settings *s, int i);

/* Derive ratios and summaries from H (pure). */
void host_derive(const struct host_snapshot *h, struct host_derived *d);

/*
 * Free memory of zone Z in blocks of order >= ORDER, counted in units of
 * 2^ORDER pages (an order ORDER+1 block counts 2): how many huge pages of
 * that order the buddy allocator could hand out now. 0 when ORDER is outside
 * 0..63 (pure; source /proc/buddyinfo). The one count of free blocks: every
 * command that shows free PMD-order blocks sums this.
 */
u128 zone_free_blocks(const struct buddy_zone *z, int order);

/*
 * zone_free_blocks() summed over the zones of NODE (-1: every node) but
 * ZONE_DMA (16 MiB, guarded by lowmem_reserve: it serves no THP fault).
 * *FOUND (may be NULL) tells whether any zone of NODE was listed (pure).
 * Exact: a u128 never wraps (< 2^84 a zone, 32 zones).
 * Callers: host_derive, host_pmd_blocks, cmd/hugetlb.c (hugetlb plan),
 * render/status.c (per node); lab/proof.c and lab/fragment.c should too.
 */
u128 host_free_blocks(const struct buddyinfo *b, int node, int order, bool *found);

/*
 * Free PMD-order blocks of H (its pmd_order from hpage_pmd_size), all zones
 * but DMA, in PMD units; false when buddyinfo or the order is unknown, a zone's
 * row was dropped (malformed or listed twice: the rest is no total), or the
 * count does not fit a u64 (pure).
 */
bool host_pmd_blocks(const struct host_snapshot *h, uint64_t *blocks);

/* Which THP faults may wait in direct reclaim and compaction under a defrag value. */
enum defrag_stall {
	DEFRAG_STALL_UNKNOWN,  /* defrag not read, or a value upstream does not have */
	DEFRAG_STALL_ANY,      /* always: every THP fault, in any process */
	DEFRAG_STALL_MADVISED, /* madvise, defer+madvise: only faults in MADV_HUGEPAGE regions */
	DEFRAG_STALL_NONE,     /* defer, never: no THP fault waits (kcompactd works instead) */
};

/*
 * Who may stall under DEFRAG (the transparent_hugepage/defrag choice), decided
 * once (mm/huge_memory.c, vma_thp_gfp_mask()). Callers: findings.c
 * (defrag-always, compact-stall's fix), advice_notes.c (the watch note, through
 * defrag_word_stalls); advice's rules and why should too (pure).
 */
enum defrag_stall defrag_stalls(const struct choice *defrag);

/* The same for one defrag word ("madvise"); NULL or a word upstream does not have: unknown. */
enum defrag_stall defrag_word_stalls(const char *word);

/*
 * What proc/vmstat's compact_stall can say about THP page faults. The counter
 * counts every allocation that entered direct compaction (any high-order
 * allocation, khugepaged's too), not only THP faults, and no counter says how
 * many of them were THP faults: whether a defrag change would remove them is
 * known only where defrag makes no THP fault compact, or no THP fault happened.
 */
enum compact_cause {
	COMPACT_CAUSE_UNKNOWN,	 /* defrag unknown */
	COMPACT_CAUSE_NO_FAULTS, /* thp_fault_alloc and thp_fault_fallback read and both 0:
				  * no THP page fault since boot, so none of the stalls */
	COMPACT_CAUSE_NOT_THP,	 /* defrag (defer, never) makes no THP fault compact now */
	COMPACT_CAUSE_MADVISED,	 /* madvise, defer+madvise: THP faults in MADV_HUGEPAGE regions
				  * may be among them, in a share no counter tells */
	COMPACT_CAUSE_ANY_FAULT, /* always: every THP fault may be among them */
};

/*
 * Decided once for status's finding compact-stall (the defrag now) and advise's
 * watch note (the defrag after the advice): WHO is defrag_stalls() of that
 * defrag, VMSTAT proc/vmstat (pure).
 */
enum compact_cause compact_stall_cause(enum defrag_stall who, const struct kvlist *vmstat);

/*
 * The effective anonymous policy of the PMD size in S: its per-size
 * hugepages-<PMD>kB/enabled (6.8+; "inherit" already resolved to the
 * top-level file by kernel/thp_settings.c), else the top-level enabled.
 * NULL when unknown. *INHERITED (may be NULL): the per-size file says
 * "inherit". PMD_SIZE in bytes (pure). Callers: findings.c; why.c and
 * lab/common.c (lab_pmd_policy) should too.
 */
const char *thp_pmd_policy_of(const struct thp_settings *s, uint64_t pmd_size, bool *inherited);

/*
 * Whether a write after fork copies a whole huge page (no COW split of the
 * PMD: kernels before 5.8, features.c's cow_split): TRI_YES, TRI_NO or
 * unknown. advice's cow rule should ask this rather than the version (pure).
 */
enum tri host_cow_copies_thp(const struct host_snapshot *h);

/* What the status "mTHP sizes" line can say about the per-size directories. */
enum mthp_listing {
	MTHP_LIST_SIZES,	/* the sizes found (features.mthp_sizes > 0) */
	MTHP_LIST_UNRECORDED,	/* a capture that could not record the THP tree */
	MTHP_LIST_NONE_KERNEL,	/* recorded whole, 6.8+ release, THP on: the kernel has none */
	MTHP_LIST_NOT_RECORDED, /* a 6.8+ kernel has them: the tree did not record them */
	MTHP_LIST_NONE_OLD,	/* release known, none: < 6.8 or THP off */
	MTHP_LIST_NONE_UNKNOWN, /* release unknown, none found */
};

/* Decide the mTHP sizes line of H (the 6.8 version check is here, not in render/) (pure). */
enum mthp_listing host_mthp_listing(const struct host_snapshot *h);

/* A /proc/meminfo field of H (kB, or pages for HugePages_*): false when absent (pure). */
bool host_meminfo(const struct host_snapshot *h, const char *field, uint64_t *v);
/* A /proc/vmstat counter of H: false when absent (pure). */
bool host_vmstat(const struct host_snapshot *h, const char *name, uint64_t *v);
/* A counter of a key-value list (a per-size stats/ directory, vmstat, memory.stat) (pure). */
bool counter_get(const struct kvlist *l, const char *name, uint64_t *v);

/* khugepaged knob K's file name ("pages_to_scan"); whether it is a counter (full_scans, ...). */
const char *khp_name(enum khp_knob k);
bool khp_is_counter(enum khp_knob k);

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

/* The `thpctl set` key of FILE in the per-size directory of SIZE_KB: "hugepages-64kB/enabled". */
void thp_size_key(char *out, size_t n, uint64_t size_kb, const char *file);

#endif
