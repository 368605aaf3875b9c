/* SPDX-License-Identifier: MIT */
/* Rules over the host audit: (settings, counters) -> findings with evidence. */
#ifndef THPCTL_FINDINGS_H
#define THPCTL_FINDINGS_H

#include "host.h"

enum severity { SEV_INFO, SEV_WARN, SEV_CRIT };

const char *severity_name(enum severity s);

/* What a finding is about: the verdict block shows the worst finding of each. */
enum finding_area {
	AREA_LATENCY,	    /* faults that wait: direct reclaim and compaction */
	AREA_MEMORY,	    /* memory THP invents or holds: bloat, deferred split, COW */
	AREA_FRAGMENTATION, /* huge page faults falling back for want of free blocks */
	AREA_KHUGEPAGED,    /* the collapse daemon's cost */
	AREA_HUGETLB,	    /* reserved hugetlb pools */
	AREA_VISIBILITY,    /* what cannot be measured on this kernel */
	AREA_ACCESS,	    /* who may change the settings */
	AREA_N,
};

/* "latency", "memory", ...: the area's name in text and JSON. */
const char *finding_area_name(enum finding_area a);

struct finding {
	const char *id; /* stable identifier, e.g. "defrag-always" */
	enum severity sev;
	char title[160];
	char evidence[256]; /* the values that triggered it */
	const char *why;    /* one line: why it matters */
	char fix[256];	    /* a command, with a '#' comment when it needs one */
	enum finding_area area;
	const char *more; /* the thpctl command that shows more, e.g. "thpctl trace stalls" */
	/*
	 * When the fix is a setting: its `thpctl set` key and value (fix then reads
	 * "thpctl set KEY=VALUE"), or with SYSCTL the vm.* sysctl of `thpctl persist
	 * --format sysctl`. "" when the fix is not a setting.
	 */
	char set_key[64];
	char set_value[32];
	bool sysctl;
	/* tuned applies THP settings here (tuned-sets-thp fired): persist the fix as a tuned profile */
	bool via_tuned;
};

#define FINDINGS_MAX 32

struct findings {
	int n;
	struct finding f[FINDINGS_MAX];
};

/* One rule: appends zero or one finding to OUT. */
typedef void (*finding_rule)(const struct host_snapshot *h, const struct host_derived *d,
			     struct findings *out);

/* Individual rules, exported for unit tests. */
void rule_defrag_always(const struct host_snapshot *h, const struct host_derived *d,
			struct findings *out);
void rule_always_max_ptes_none(const struct host_snapshot *h, const struct host_derived *d,
			       struct findings *out);
void rule_fault_success_low(const struct host_snapshot *h, const struct host_derived *d,
			    struct findings *out);
void rule_compact_stall(const struct host_snapshot *h, const struct host_derived *d,
			struct findings *out);
void rule_deferred_split(const struct host_snapshot *h, const struct host_derived *d,
			 struct findings *out);
void rule_shrink_underused_noop(const struct host_snapshot *h, const struct host_derived *d,
				struct findings *out);
void rule_cow_copy(const struct host_snapshot *h, const struct host_derived *d,
		   struct findings *out);
void rule_large_pmd(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out);
void rule_mthp_no_stats(const struct host_snapshot *h, const struct host_derived *d,
			struct findings *out);
void rule_hugetlb_idle(const struct host_snapshot *h, const struct host_derived *d,
		       struct findings *out);
void rule_khugepaged_cpu(const struct host_snapshot *h, const struct host_derived *d,
			 struct findings *out);
void rule_read_only(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out);
/* tuned is active and its profile writes THP settings (warn when one differs from the live value). */
void rule_tuned_thp(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out);

/*
 * The verdict: index into FS of the worst finding of each area (the first of
 * the most severe, as FS is sorted), -1 where the area has none. OUT has
 * AREA_N entries.
 */
void findings_worst_per_area(const struct findings *fs, int out[AREA_N]);

/* Run every rule, most severe first. */
void findings_evaluate(const struct host_snapshot *h, const struct host_derived *d,
		       struct findings *out);

#endif
